/* bench/scenario.h: what the varying-link scenario's files share (scenario.c runs it,
 * scstats.c judges it, scout.c writes results.json and the plots). Not a public API. */
#ifndef GW_COMPARE_SCENARIO_H
#define GW_COMPARE_SCENARIO_H

#include "bench/bench.h"

#define CMP_SC_IDLE_S 4.0	/* idle before the load: the baseline (ours and autorate's) */
#define CMP_SC_SETTLE_S 3.0	/* a step's first seconds, judged apart from the rest */
#define CMP_SC_BOUND_MS 15.0	/* induced p95 the acceptance allows once settled */
#define CMP_SC_SHARE 0.80	/* goodput share of the capacity it wants */
#define CMP_SC_FIXED_MS 100.0	/* the fixed rate's induced p95 in a step below its rate */
#define CMP_SC_WINDOW_S 1.0	/* recovery: the window p95 is taken over */
/* the box's fifo, per direction: a modem's buffer, in bytes (300 full-size packets) rather
 * than packets, since veth passes GSO packets of many segments through as one */
#define CMP_SC_BOX_FIFO (300 * 1514)

struct cmp_sc_step {
	double start, end;		/* run time */
	uint64_t cap[2];		/* bytes/s */
	bool drop;			/* less capacity than the step before, either way */
	struct cmp_pct all, settled;	/* RTT, the whole step and past CMP_SC_SETTLE_S */
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

struct cmp_sc_run {
	enum cmp_way way;
	bool ran;
	char note[256];
	struct cmp_result r;		/* the probes (phase: 0 idle, k + 1 step k), the flows,
					 * the ticks: the box's bottleneck (bytes, backlog_bytes,
					 * cap) and the gateway's shaper rate */
	struct cmp_sc_step st[CMP_MAX_STEPS];
	double end;			/* run time the load stopped */
	struct cmp_pct idle;
	double baseline_ms;
	size_t changes;			/* shaper rate changes seen (the autorate's moves) */
};

/* The verdicts of the acceptance, from the runs that ran (scstats.c). */
struct cmp_sc_verdict {
	int latency, goodput, fixed;	/* 1 pass, 0 fail, -1 not judged (way not run) */
	char why_latency[256], why_goodput[256], why_fixed[256];
};

const char *cmp_way_name(enum cmp_way w);

/* scenario.c */
int cmp_sc_parse_steps(const char *s, struct cmp_scenario *sc);
int cmp_sc_parse_ways(char *s, struct cmp_scenario *sc);
void cmp_sc_defaults(struct cmp_scenario *sc);
/* Every way of the scenario on one testbed; the table, the files. Exit status. */
int cmp_sc_main(struct cmp_opts *o, const char *kernel);

/* scstats.c */
void cmp_sc_derive(const struct cmp_opts *o, struct cmp_sc_run *x);
void cmp_sc_judge(const struct cmp_opts *o, const struct cmp_sc_run *runs, size_t n,
		  struct cmp_sc_verdict *v);
void cmp_sc_print(const struct cmp_opts *o, const struct cmp_sc_run *runs, size_t n,
		  const struct cmp_sc_verdict *v);
void cmp_sc_run_free(struct cmp_sc_run *x);

/* scout.c */
int cmp_sc_write_json(const char *path, const struct cmp_opts *o, const struct cmp_sc_run *runs,
		      size_t n, const struct cmp_sc_verdict *v, const char *kernel, char *err,
		      size_t errlen);
/* svg.c */
int cmp_svg_sc_rates(const char *path, const struct cmp_opts *o, const struct cmp_sc_run *x);
int cmp_svg_sc_rtt(const char *path, const struct cmp_opts *o, const struct cmp_sc_run *runs,
		   size_t n);

#endif
