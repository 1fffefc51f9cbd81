/* bench/scenario_results.h: the varying-link scenario's results.json (scenario_results.c). */
#ifndef GW_BENCH_SCENARIO_RESULTS_H
#define GW_BENCH_SCENARIO_RESULTS_H

#include <stddef.h>

struct bench_opts;
struct bench_sc_run;
struct bench_sc_verdict;

/* results.json at path: the settings, per way and step the figures, the verdicts, and the
 * raw probes, ticks and flows. 0 or -errno (err says). */
int bench_sc_write_json(const char *path, const struct bench_opts *o,
			const struct bench_sc_run *runs, size_t n, const struct bench_sc_verdict *v,
			const char *kernel, char *err, size_t errlen);

#endif
