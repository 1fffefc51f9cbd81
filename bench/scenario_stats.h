/* bench/scenario_stats.h: the varying-link scenario's figures per step and way, the
 * acceptance judged on them, the table (scenario_stats.c). */
#ifndef GW_BENCH_SCENARIO_STATS_H
#define GW_BENCH_SCENARIO_STATS_H

#include <stddef.h>

struct cmp_opts;
struct cmp_sc_run;
struct cmp_sc_verdict;

/* A way's run's figures per step, its baseline, its shaper's moves; the acceptance judged
 * over the runs that ran; the table with the verdicts; a run's memory freed. */
void cmp_sc_derive(const struct cmp_opts *o, struct cmp_sc_run *x);
void cmp_sc_judge(const struct cmp_opts *o, const struct cmp_sc_run *runs, size_t n,
		  struct cmp_sc_verdict *v);
void cmp_sc_print(const struct cmp_opts *o, const struct cmp_sc_run *runs, size_t n,
		  const struct cmp_sc_verdict *v);
void cmp_sc_run_free(struct cmp_sc_run *x);

#endif
