/* bench/stats.h: a run's figures from its samples (stats.c). */
#ifndef GW_BENCH_STATS_H
#define GW_BENCH_STATS_H

#include <stdbool.h>

struct bench_flow;
struct bench_opts;
struct bench_pct;
struct bench_result;
struct bench_tcprtt;

/* The figures (r's derived half) from r's samples, ticks and flows. */
void bench_derive(const struct bench_opts *o, struct bench_result *r);
/* The TCP flows of direction up (true: the uploads) over [lo, hi], run time: their RTT ticks
 * together, and the same less baseline_ms (the probes' idle p50). */
void bench_tcp_rtt_of(const struct bench_result *r, bool up, double lo, double hi,
		      double baseline_ms, struct bench_tcprtt *out);
const char *bench_grade(double induced_mean_ms);
/* Which probes a percentile set is of: the ICMP ones (k < 0) or the UDP ones' figure k (round
 * trip, one way up, down), sent in phases ph_lo to ph_hi and at run time lo to before hi;
 * ms: times compared to the ms, as results.json has them, so a reader counts the same ones */
struct bench_probe_sel {
	int k, ph_lo, ph_hi;
	double lo, hi;
	bool ms;
};
void bench_probe_pct(const struct bench_result *r, const struct bench_probe_sel *sel,
		     struct bench_pct *out);
/* A flow's mean receiver rate over the intervals that lie in [lo, hi], weighted by their
 * length, bytes/s; NAN for none. */
double bench_flow_mean(const struct bench_flow *f, double lo, double hi);

#endif
