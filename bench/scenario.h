/* bench/scenario.h: the varying-link scenario (scenario.c runs it): its runs, one per way,
 * with their steps' figures (scenario_stats.c) and the acceptance's verdicts; its options. */
#ifndef GW_BENCH_SCENARIO_H
#define GW_BENCH_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bench/options.h"
#include "bench/percentile.h"
#include "bench/run.h"

#define BENCH_SC_IDLE_S 4.0	/* idle before the load: the baseline (ours and autorate's) */
#define BENCH_SC_SETTLE_S 3.0	/* a step's first seconds, judged apart from the rest */
#define BENCH_SC_BOUND_MS 15.0	/* induced p95 the acceptance allows once settled */
#define BENCH_SC_SHARE 0.80	/* goodput share of the capacity it wants */
#define BENCH_SC_FIXED_MS 100.0	/* the fixed rate's induced p95 in a step below its rate */
#define BENCH_SC_WINDOW_S 1.0	/* recovery: the window p95 is taken over */
/* the box's fifo, per direction: a modem's buffer, in bytes (300 full-size packets) rather
 * than packets, since veth passes GSO packets of many segments through as one */
#define BENCH_SC_BOX_FIFO (300 * 1514)

struct bench_sc_step {
	double start, end;		/* run time */
	uint64_t cap[2];		/* bytes/s */
	bool drop;			/* less capacity than the step before, either way */
	struct bench_pct all, settled;	/* RTT, the whole step and past BENCH_SC_SETTLE_S */
	double ind_all[3], ind_settled[3];	/* induced p50, p95, p99 (ms) */
	double goodput[2];		/* TCP goodput, settled part, bytes/s */
	double share[2];		/* goodput / capacity */
	double achieved[2];		/* the box's bottleneck rate, settled part, bytes/s */
	double shaper[2];		/* the gateway's mean shaper rate, settled, bytes/s; NAN:
					 * none */
	double recover_s;		/* after a drop (else NAN); INFINITY: not in the step */
	double peak_queue_ms[2];	/* the box's fifo at its fullest, ms at the capacity */
	double cpu_busy;		/* share of the CPUs busy over the settled part, 0..1 */
};

struct bench_sc_run {
	enum bench_way way;
	bool ran;
	char note[256];
	struct bench_result r;		/* the probes (phase: 0 idle, k + 1 step k), the flows,
					 * the ticks: the box's bottleneck (bytes, backlog_bytes,
					 * cap) and the gateway's shaper rate */
	struct bench_sc_step st[BENCH_MAX_STEPS];
	double end;			/* run time the load stopped */
	struct bench_pct idle;
	double baseline_ms;
	size_t changes;			/* shaper rate changes seen (the autorate's moves) */
};

/* The verdicts of the acceptance, from the runs that ran (scenario_stats.c). */
struct bench_sc_verdict {
	int latency, goodput, fixed;	/* 1 pass, 0 fail, -1 not judged (way not run) */
	char why_latency[256], why_goodput[256], why_fixed[256];
};

/* "autorate", "fixed", "none" */
const char *bench_way_name(enum bench_way w);

/* --steps DOWN/UP,...: each step's capacity, Mbit/s or a rate with its unit, 100kbit..1gbit;
 * --ways autorate,fixed,none (s is cut up); 0 or -EINVAL (-ERANGE: a rate out of range).
 * bench_sc_defaults: autorate's bounds from the steps. */
int bench_sc_parse_steps(const char *s, struct bench_scenario *sc);
int bench_sc_parse_ways(char *s, struct bench_scenario *sc);
void bench_sc_defaults(struct bench_scenario *sc);
/* Every way of the scenario on one testbed; the table, the files. Exit status. */
int bench_sc_main(struct bench_opts *o, const char *kernel);

#endif
