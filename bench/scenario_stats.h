/* bench/scenario_stats.h: the varying-link scenario's figures per step and way, the
 * acceptance judged on them, the table (scenario_stats.c). */
#ifndef GW_BENCH_SCENARIO_STATS_H
#define GW_BENCH_SCENARIO_STATS_H

#include <stddef.h>

struct bench_opts;
struct bench_sc_run;
struct bench_sc_verdict;

/* A way's run's figures per step, its baseline, its shaper's moves; the acceptance judged
 * over the runs that ran; the table with the verdicts; a run's memory freed. */
void bench_sc_derive(const struct bench_opts *o, struct bench_sc_run *x);
void bench_sc_judge(const struct bench_opts *o, const struct bench_sc_run *runs, size_t n,
		    struct bench_sc_verdict *v);
void bench_sc_print(const struct bench_opts *o, const struct bench_sc_run *runs, size_t n,
		    const struct bench_sc_verdict *v);
void bench_sc_run_free(struct bench_sc_run *x);

#endif
