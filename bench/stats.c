/* bench/stats.c: the figures of one run from its raw samples: latency percentiles
 * per phase, induced latency over the idle baseline and its grade, goodput and shaping
 * accuracy over the TCP window, peak queue, Jain's fairness, the bulk flows' own RTT. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/measure.h"
#include "bench/options.h"
#include "bench/percentile.h"
#include "bench/run.h"
#include "bench/stats.h"
#include "webui/benchfile.h"

const char *bench_grade(double m)
{
	if (isnan(m))
		return "";
	return m < 5 ? "A+" : m < 30 ? "A" : m < 60 ? "B" : m < 200 ? "C" : m < 400 ? "D" : "F";
}

void bench_probe_pct(const struct bench_result *r, const struct bench_probe_sel *sel,
		     struct bench_pct *out)
{
	size_t total = sel->k < 0 ? r->n_samples : r->n_usamples, n = 0, lost = 0;
	double *v = malloc((total + 1) * sizeof(*v));

	if (!v) {
		bench_pct_of(NULL, 0, 0, out);
		return;
	}
	for (size_t i = 0; i < total; i++) {
		float t = sel->k < 0 ? r->samples[i].t : r->usamples[i].t;
		int ph = sel->k < 0 ? r->samples[i].phase : r->usamples[i].phase;
		float ms = sel->k < 0 ? r->samples[i].rtt_ms : r->usamples[i].ms[sel->k];
		bool out_of = sel->ms ? round((double)t * 1000) < round(sel->lo * 1000) ||
					round((double)t * 1000) >= round(sel->hi * 1000) :
				       t < sel->lo || t >= sel->hi;

		if (ph < sel->ph_lo || ph > sel->ph_hi || out_of)
			continue;
		if (isnan(ms))
			lost++;
		else
			v[n++] = ms;
	}
	bench_pct_of(v, n, lost, out);
	free(v);
}

/* Percentiles of the probes sent in phases ph_lo..ph_hi before `before`, to the ms: the ICMP
 * probes' round trips (k < 0), or the UDP probes' figure k. */
static void pct_of(const struct bench_result *r, int k, int ph_lo, int ph_hi, double before,
		   struct bench_pct *out)
{
	const struct bench_probe_sel sel = { .k = k, .ph_lo = ph_lo, .ph_hi = ph_hi,
					     .lo = -INFINITY, .hi = before, .ms = true };

	bench_probe_pct(r, &sel, out);
}

double bench_flow_mean(const struct bench_flow *f, double lo, double hi)
{
	double bytes = 0, secs = 0;

	for (size_t i = 0; i < f->n; i++)
		if (f->t[i] - f->secs[i] >= lo - 0.01 && f->t[i] <= hi + 0.01) {
			bytes += f->rate[i] * f->secs[i];
			secs += f->secs[i];
		}
	return secs > 0 ? bytes / secs : NAN;
}

void bench_tcp_rtt_of(const struct bench_result *r, bool up, double lo, double hi,
		      double baseline_ms, struct bench_tcprtt *out)
{
	size_t cap = 0, n = 0;
	double *v, var = 0;

	memset(out, 0, sizeof(*out));
	out->induced_p50 = out->induced_p95 = out->induced_p99 = out->induced_mean = NAN;
	out->rttvar_mean = NAN;
	for (size_t i = 0; i < r->n_flows; i++)
		if (!r->flows[i].udp && r->flows[i].up == up)
			cap += r->flows[i].n_rtt;
	if (!(v = malloc((cap + 1) * sizeof(*v)))) {
		bench_pct_of(NULL, 0, 0, &out->rtt);
		return;
	}
	for (size_t i = 0; i < r->n_flows; i++) {
		const struct bench_flow *f = &r->flows[i];
		size_t had = n;

		if (f->udp || f->up != up)
			continue;
		for (size_t k = 0; k < f->n_rtt; k++) {
			if (f->rtt_t[k] < lo || f->rtt_t[k] > hi || !isfinite(f->rtt_ms[k]))
				continue;
			v[n++] = f->rtt_ms[k];
			var += f->rttvar_ms[k];
		}
		out->flows += n > had;
	}
	/* every tick of every flow weighs the same: a flow the queue starves still has its
	 * share of the figures, as it has its share of the waiting */
	bench_pct_of(v, n, 0, &out->rtt);
	if (n) {
		out->rttvar_mean = var / (double)n;
		out->induced_p50 = out->rtt.p50 - baseline_ms;
		out->induced_p95 = out->rtt.p95 - baseline_ms;
		out->induced_p99 = out->rtt.p99 - baseline_ms;
		out->induced_mean = out->rtt.mean - baseline_ms;
	}
	free(v);
}

/* The UDP probes' jitter, figure k: the mean |D| of consecutive probes sent in the load
 * phases, both answered (D as RFC 3550's interarrival jitter takes it) */
static double jitter_of(const struct bench_result *r, int k)
{
	double sum = 0;
	size_t nj = 0;

	for (size_t i = 1; i < r->n_usamples; i++) {
		const struct bench_usample *a = &r->usamples[i - 1], *b = &r->usamples[i];

		if (a->phase < BENCH_PH_TCP || b->phase > BENCH_PH_FLOOD || isnan(a->ms[k]) ||
		    isnan(b->ms[k]))
			continue;
		sum += fabs((double)b->ms[k] - a->ms[k]);
		nj++;
	}
	return nj ? sum / (double)nj : NAN;
}

/* A probe's figures (k < 0: the ICMP probes'; else the UDP probes' figure k): idle before the
 * flows were started (they connect and ramp up before the load is seen at the gateway, and
 * that is not idle), loaded over the TCP and flood phases, induced: loaded less the idle
 * median */
static void latency_of(const struct bench_result *r, int k, struct bench_lat *l)
{
	pct_of(r, k, BENCH_PH_IDLE1, BENCH_PH_IDLE1, r->clients_started, &l->idle);
	pct_of(r, k, BENCH_PH_TCP, BENCH_PH_FLOOD, INFINITY, &l->loaded);
	l->baseline_ms = l->idle.p50;
	l->induced_p50 = l->loaded.p50 - l->baseline_ms;
	l->induced_p95 = l->loaded.p95 - l->baseline_ms;
	l->induced_p99 = l->loaded.p99 - l->baseline_ms;
	l->induced_mean = l->loaded.mean - l->baseline_ms;
	l->jitter_ms = k < 0 ? NAN : jitter_of(r, k);
}

/* Each flow's mean (the flood's over its phase less its first second), each direction's
 * goodput and Jain's index over the TCP flows, over the TCP window [lo, hi] */
static void flow_figures(const struct bench_opts *o, struct bench_result *r, double lo, double hi)
{
	double sx = 0, sxx = 0;
	int nf = 0;

	r->goodput[0] = r->goodput[1] = 0;
	for (size_t i = 0; i < r->n_flows; i++) {
		struct bench_flow *f = &r->flows[i];

		double flood = r->phase_start[BENCH_PH_FLOOD] + GW_BENCH_RAMP_S;

		f->mean = f->udp ? bench_flow_mean(f, flood, r->phase_start[BENCH_PH_IDLE2]) :
				   bench_flow_mean(f, lo, hi);
		if (f->udp || isnan(f->mean))
			continue;
		r->goodput[f->up ? 0 : 1] += f->mean;
		sx += f->mean;
		sxx += f->mean * f->mean;
		nf++;
	}
	r->jain = nf && sxx > 0 ? sx * sx / (nf * sxx) : NAN;
	/* a direction the profile sends no TCP flow (--profile upload, download) has no goodput */
	for (int d = 0; d < 2; d++)
		if (!bench_profile_flows(o->profile, o->flows, d))
			r->goodput[d] = NAN;
}

/* From the ticks: the CPU busy and the shaper's accuracy (what it sent against the configured
 * rate) over the TCP window [lo, hi], the queue at its fullest over the run */
static void tick_figures(const struct bench_opts *o, struct bench_result *r, double lo, double hi)
{
	const struct bench_tick *a, *b;

	r->accuracy[0] = r->accuracy[1] = NAN;
	bench_tick_window(r, lo, hi, &a, &b);
	r->cpu_busy = bench_tick_cpu(a, b);
	for (int d = 0; d < 2 && a && b && b->t - a->t > 0.5; d++)
		r->accuracy[d] = (double)(b->bytes[d] - a->bytes[d]) / (b->t - a->t) /
				 bench_dir_rate(o, d);
	for (int d = 0; d < 2; d++) {
		uint32_t pk = 0, by = 0;

		for (size_t i = 0; i < r->n_ticks; i++) {
			if (r->ticks[i].qlen[d] > pk)
				pk = r->ticks[i].qlen[d];
			if (r->ticks[i].backlog_bytes[d] > by)
				by = r->ticks[i].backlog_bytes[d];
		}
		r->peak_pkts[d] = pk;
		r->peak_ms[d] = (double)by * 1000 / bench_dir_rate(o, d);
	}
}

void bench_derive(const struct bench_opts *o, struct bench_result *r)
{
	double tcp = r->phase_start[BENCH_PH_FLOOD] - r->phase_start[BENCH_PH_TCP];
	double lo = r->phase_start[BENCH_PH_TCP] + fmax(GW_BENCH_RAMP_S, GW_BENCH_RAMP_SHARE * tcp);
	double hi = r->phase_start[BENCH_PH_FLOOD];
	struct bench_lat icmp;

	latency_of(r, -1, &icmp);
	r->idle = icmp.idle;
	r->loaded = icmp.loaded;
	r->baseline_ms = icmp.baseline_ms;
	r->induced_p50 = icmp.induced_p50;
	r->induced_p95 = icmp.induced_p95;
	r->induced_p99 = icmp.induced_p99;
	r->induced_mean = icmp.induced_mean;
	r->grade = bench_grade(r->induced_mean);
	/* the UDP probes' round trip and each way's delay, by the same windows: the one-way
	 * induced figures say which direction's queue the latency is in */
	for (int k = 0; k < BENCH_UDP_N; k++)
		latency_of(r, k, &r->udp[k]);
	flow_figures(o, r, lo, hi);
	/* the bulk flows' own RTT: from where the goodput is counted (slow start and the
	 * first filling of the queue left out) to the end of the flood, which they run
	 * through; against the probes' baseline, so the two induced figures compare */
	r->tcp_rtt_window[0] = lo;
	r->tcp_rtt_window[1] = r->phase_start[BENCH_PH_IDLE2];
	for (int d = 0; d < 2; d++)
		bench_tcp_rtt_of(r, d == 0, lo, r->phase_start[BENCH_PH_IDLE2], r->baseline_ms,
				 &r->tcp_rtt[d]);
	tick_figures(o, r, lo, hi);
}
