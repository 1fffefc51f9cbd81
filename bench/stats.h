/* bench/stats.h: a run's figures from its samples (stats.c). */
#ifndef GW_BENCH_STATS_H
#define GW_BENCH_STATS_H

#include <stdbool.h>

struct cmp_flow;
struct cmp_opts;
struct cmp_pct;
struct cmp_result;
struct cmp_tcprtt;

/* The figures (r's derived half) from r's samples, ticks and flows. */
void cmp_derive(const struct cmp_opts *o, struct cmp_result *r);
/* The TCP flows of direction up (true: the uploads) over [lo, hi], run time: their RTT ticks
 * together, and the same less baseline_ms (the probes' idle p50). */
void cmp_tcp_rtt_of(const struct cmp_result *r, bool up, double lo, double hi,
		    double baseline_ms, struct cmp_tcprtt *out);
const char *cmp_grade(double induced_mean_ms);
/* Which probes a percentile set is of: the ICMP ones (k < 0) or the UDP ones' figure k (round
 * trip, one way up, down), sent in phases ph_lo to ph_hi and at run time lo to before hi;
 * ms: times compared to the ms, as results.json has them, so a reader counts the same ones */
struct cmp_probe_sel {
	int k, ph_lo, ph_hi;
	double lo, hi;
	bool ms;
};
void cmp_probe_pct(const struct cmp_result *r, const struct cmp_probe_sel *sel,
		   struct cmp_pct *out);
/* A flow's mean receiver rate over the intervals that lie in [lo, hi], weighted by their
 * length, bytes/s; NAN for none. */
double cmp_flow_mean(const struct cmp_flow *f, double lo, double hi);

#endif
