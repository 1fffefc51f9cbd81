/* bench/results.c: results.json, as docs/compare-schema.md describes it (version 1):
 * the settings, and per queue the derived figures plus the raw samples they came from. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <json-c/json.h>
#include "bench/flent.h"
#include "bench/options.h"
#include "bench/outfile.h"
#include "bench/percentile.h"
#include "bench/queues.h"
#include "bench/repeat.h"
#include "bench/results.h"
#include "bench/run.h"
#include "bench/sysinfo.h"
#include "bench/testbed.h"
#include "webui/benchfile.h"


struct json_object *bench_json_num(double v)
{
	return isfinite(v) ? json_object_new_double(round(v * 1000) / 1000) : NULL;
}

struct json_object *bench_json_pair(double up, double down)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "up", bench_json_num(up));
	json_object_object_add(o, "down", bench_json_num(down));
	return o;
}

struct json_object *bench_json_pct(const struct bench_pct *p)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "p50", bench_json_num(p->p50));
	json_object_object_add(o, "p95", bench_json_num(p->p95));
	json_object_object_add(o, "p99", bench_json_num(p->p99));
	json_object_object_add(o, "mean", bench_json_num(p->mean));
	json_object_object_add(o, "samples", json_object_new_int64((int64_t)p->n));
	json_object_object_add(o, "lost", json_object_new_int64((int64_t)p->lost));
	return o;
}

/* The bulk flows' own RTT, one direction: {p50_ms, ..., samples, flows, induced_p50_ms, ...} */
static struct json_object *tcp_rtt_dir(const struct bench_tcprtt *t)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "p50_ms", bench_json_num(t->rtt.p50));
	json_object_object_add(o, "p95_ms", bench_json_num(t->rtt.p95));
	json_object_object_add(o, "p99_ms", bench_json_num(t->rtt.p99));
	json_object_object_add(o, "mean_ms", bench_json_num(t->rtt.mean));
	json_object_object_add(o, "rttvar_mean_ms", bench_json_num(t->rttvar_mean));
	json_object_object_add(o, "samples", json_object_new_int64((int64_t)t->rtt.n));
	json_object_object_add(o, "flows", json_object_new_int64((int64_t)t->flows));
	json_object_object_add(o, "induced_p50_ms", bench_json_num(t->induced_p50));
	json_object_object_add(o, "induced_p95_ms", bench_json_num(t->induced_p95));
	json_object_object_add(o, "induced_p99_ms", bench_json_num(t->induced_p99));
	json_object_object_add(o, "induced_mean_ms", bench_json_num(t->induced_mean));
	return o;
}

static struct json_object *tcp_rtt_json(const struct bench_result *r)
{
	struct json_object *o = json_object_new_object(), *w = json_object_new_array();

	json_object_array_add(w, bench_json_num(r->tcp_rtt_window[0]));
	json_object_array_add(w, bench_json_num(r->tcp_rtt_window[1]));
	json_object_object_add(o, "window_s", w);
	json_object_object_add(o, "baseline_ms", bench_json_num(r->baseline_ms));
	json_object_object_add(o, "up", tcp_rtt_dir(&r->tcp_rtt[0]));
	json_object_object_add(o, "down", tcp_rtt_dir(&r->tcp_rtt[1]));
	return o;
}

/* The gateway's tree as the kernel reported it. */
static struct json_object *tree_json(const struct bench_result *r)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < r->n_tc; i++) {
		const struct bench_tc *t = &r->tc[i];
		struct json_object *q = json_object_new_object();
		const char *dev = t->down ? BENCH_GW_IFB : BENCH_GW_WAN;
		char id[16];

		json_object_object_add(q, "direction", json_object_new_string(t->down ? "down" : "up"));
		json_object_object_add(q, "interface", json_object_new_string(dev));
		json_object_object_add(q, "type", json_object_new_string(t->cls ? "class" : "qdisc"));
		json_object_object_add(q, "kind", json_object_new_string(t->kind));
		bench_tc_id(id, sizeof(id), t->handle, !t->cls);
		json_object_object_add(q, "handle", json_object_new_string(id));
		bench_tc_id(id, sizeof(id), t->parent, false);
		json_object_object_add(q, "parent", json_object_new_string(id));
		json_object_object_add(q, "params", json_object_new_string(t->opts[0] == ' ' ?
									  t->opts + 1 : t->opts));
		json_object_object_add(q, "tc", json_object_new_string(t->line));
		json_object_array_add(a, q);
	}
	return a;
}

struct json_object *bench_json_sysval(const char *v)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(v, &end, 10);
	/* a number as a number (as flent records them), anything else as the text */
	if (*v && !*end && !errno)
		return json_object_new_int64(n);
	return json_object_new_string(v);
}

/* Where the bench ran and with which settings (issue 16's "self-describing" run). */
static struct json_object *meta_json(const struct bench_sysinfo *si, const char *kernel_used)
{
	struct json_object *m = json_object_new_object(), *sc = json_object_new_object(), *a;
	static const char *const end[2] = { "client", "server" };

	json_object_object_add(m, "gatewayd_version", json_object_new_string(GW_VERSION));
	json_object_object_add(m, "kernel", json_object_new_string(kernel_used));
	json_object_object_add(m, "kernel_name", json_object_new_string(si->kernel_name));
	json_object_object_add(m, "kernel_release", json_object_new_string(si->kernel_release));
	json_object_object_add(m, "hostname", json_object_new_string(si->hostname));
	for (int e = 0; e < 2; e++) {
		struct json_object *o = json_object_new_object();

		for (size_t i = 0; i < si->n_sysctl; i++) {
			const char *v = e ? si->sysctl[i].server : si->sysctl[i].client;

			if (*v)
				json_object_object_add(o, si->sysctl[i].name, bench_json_sysval(v));
		}
		json_object_object_add(sc, end[e], o);
	}
	json_object_object_add(m, "sysctls", sc);
	/* the two the figures depend on most, by themselves */
	a = json_object_new_object();
	json_object_object_add(a, "client", json_object_new_string(si->sysctl[0].client));
	json_object_object_add(a, "server", json_object_new_string(si->sysctl[0].server));
	json_object_object_add(m, "congestion_control", a);
	a = json_object_new_object();
	json_object_object_add(a, "client", si->sysctl[1].client[0] ?
				   bench_json_sysval(si->sysctl[1].client) : NULL);
	json_object_object_add(a, "server", si->sysctl[1].server[0] ?
				   bench_json_sysval(si->sysctl[1].server) : NULL);
	json_object_object_add(m, "tcp_ecn", a);
	a = json_object_new_array();
	for (size_t i = 0; i < si->n_ifs; i++) {
		struct json_object *f = json_object_new_object();

		json_object_object_add(f, "namespace", json_object_new_string(si->ifs[i].ns));
		json_object_object_add(f, "interface", json_object_new_string(si->ifs[i].name));
		json_object_object_add(f, "offloads", bench_offloads_json(&si->ifs[i]));
		json_object_array_add(a, f);
	}
	json_object_object_add(m, "offloads", a);
	return m;
}

struct json_object *bench_offloads_json(const struct bench_ifinfo *f)
{
	struct json_object *o = json_object_new_object();
	const struct { const char *name; int v; } off[] = {
		{ "tcp-segmentation-offload", f->tso }, { "generic-segmentation-offload", f->gso },
		{ "generic-receive-offload", f->gro }, { "large-receive-offload", f->lro },
	};

	/* flent's names (ethtool -k's); what the device would not say is left out */
	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		if (off[i].v >= 0)
			json_object_object_add(o, off[i].name, json_object_new_boolean(off[i].v));
	return o;
}

/* {p50, p95, p99, mean} of induced figures */
static struct json_object *induced_json(double p50, double p95, double p99, double mean)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "p50", bench_json_num(p50));
	json_object_object_add(o, "p95", bench_json_num(p95));
	json_object_object_add(o, "p99", bench_json_num(p99));
	json_object_object_add(o, "mean", bench_json_num(mean));
	return o;
}

/* The probes' figures: {baseline, idle, loaded, induced} */
static struct json_object *latency_json(double baseline, const struct bench_pct *idle,
					const struct bench_pct *loaded, double p50, double p95,
					double p99, double mean)
{
	struct json_object *l = json_object_new_object();

	json_object_object_add(l, "baseline", bench_json_num(baseline));
	json_object_object_add(l, "idle", bench_json_pct(idle));
	json_object_object_add(l, "loaded", bench_json_pct(loaded));
	json_object_object_add(l, "induced", induced_json(p50, p95, p99, mean));
	return l;
}

/* the UDP probes: round trip and each way, as latency_ms, and each one's jitter */
static struct json_object *udp_json(const struct bench_result *r)
{
	static const char *const uname[BENCH_UDP_N] = { "rtt", "up", "down" };
	struct json_object *udp = json_object_new_object();

	for (int k = 0; k < BENCH_UDP_N; k++) {
		const struct bench_lat *u = &r->udp[k];
		struct json_object *l = latency_json(u->baseline_ms, &u->idle, &u->loaded,
						     u->induced_p50, u->induced_p95,
						     u->induced_p99, u->induced_mean);

		json_object_object_add(l, "jitter", bench_json_num(u->jitter_ms));
		json_object_object_add(udp, uname[k], l);
	}
	return udp;
}

/* {up, down} of two counts */
static struct json_object *count_pair(uint64_t up, uint64_t down)
{
	struct json_object *a = json_object_new_object();

	json_object_object_add(a, "up", json_object_new_int64((int64_t)up));
	json_object_object_add(a, "down", json_object_new_int64((int64_t)down));
	return a;
}

static struct json_object *peak_json(const struct bench_result *r)
{
	struct json_object *pq = json_object_new_object();

	for (int d = 0; d < 2; d++) {
		struct json_object *a = json_object_new_object();

		json_object_object_add(a, "packets", json_object_new_int64(r->peak_pkts[d]));
		json_object_object_add(a, "ms", bench_json_num(r->peak_ms[d]));
		json_object_object_add(pq, d ? "down" : "up", a);
	}
	return pq;
}

/* a queue with tins (cake): each one's delays under load, as the queue itself reports */
static struct json_object *tins_json(const struct bench_result *r)
{
	struct json_object *tins = json_object_new_object();

	for (int d = 0; d < 2; d++) {
		struct json_object *arr = json_object_new_array();

		for (int g = 0; g < r->n_tins[d]; g++) {
			const struct bench_tin *tn = &r->tins[d][g];
			struct json_object *t = json_object_new_object();

			json_object_object_add(t, "tin", json_object_new_string(tn->name));
			json_object_object_add(t, "peak_delay_ms", bench_json_num(tn->peak_ms));
			json_object_object_add(t, "average_delay_ms", bench_json_num(tn->avg_ms));
			json_object_array_add(arr, t);
		}
		json_object_object_add(tins, d ? "down" : "up", arr);
	}
	return tins;
}

/* The derived figures of a run that ran, into o (a run of results.json, or an object of its
 * own): what the table prints. */
static void figures_into(struct json_object *o, const struct bench_result *r)
{
	json_object_object_add(o, "goodput_bps",
			       bench_json_pair(r->goodput[0] * 8, r->goodput[1] * 8));
	json_object_object_add(o, "shaper_accuracy",
			       bench_json_pair(r->accuracy[0], r->accuracy[1]));
	json_object_object_add(o, "latency_ms", latency_json(r->baseline_ms, &r->idle, &r->loaded,
							    r->induced_p50, r->induced_p95,
							    r->induced_p99, r->induced_mean));
	json_object_object_add(o, "udp_latency_ms", udp_json(r));
	json_object_object_add(o, "grade", json_object_new_string(r->grade ? r->grade : ""));
	json_object_object_add(o, "drops", count_pair(r->drops[0], r->drops[1]));
	json_object_object_add(o, "ecn_marks", count_pair(r->marks[0], r->marks[1]));
	json_object_object_add(o, "peak_queue", peak_json(r));
	if (r->n_tins[0] || r->n_tins[1])
		json_object_object_add(o, "cake_tins", tins_json(r));
	json_object_object_add(o, "tcp_rtt", tcp_rtt_json(r));
	json_object_object_add(o, "jain_fairness", bench_json_num(r->jain));
	json_object_object_add(o, "cpu_busy", bench_json_num(r->cpu_busy));
}

struct json_object *bench_figures_json(const struct bench_result *r)
{
	struct json_object *o = json_object_new_object();

	if (o)
		figures_into(o, r);
	return o;
}

struct json_object *bench_series_json(const struct bench_flow *f)
{
	struct json_object *ser = json_object_new_array();

	for (size_t k = 0; k < f->n; k++) {
		struct json_object *pt = json_object_new_array();

		json_object_array_add(pt, bench_json_num(f->t[k]));
		json_object_array_add(pt, bench_json_num(f->rate[k] * 8));
		json_object_array_add(ser, pt);
	}
	return ser;
}

static struct json_object *flow_json(const struct bench_flow *f)
{
	struct json_object *fo = json_object_new_object(), *ser;

	json_object_object_add(fo, "name", json_object_new_string(f->name));
	json_object_object_add(fo, "direction", json_object_new_string(f->up ? "up" : "down"));
	json_object_object_add(fo, "protocol", json_object_new_string(f->udp ? "udp" : "tcp"));
	/* the IP version it ran over (--family 46 mixes them) */
	json_object_object_add(fo, "family", json_object_new_int(f->family == 6 ? 6 : 4));
	json_object_object_add(fo, "mean_bps", bench_json_num(f->mean * 8));
	json_object_object_add(fo, "series", bench_series_json(f));
	if (f->udp)
		return fo;
	/* a TCP flow's sender's RTT every tick: [t, srtt_ms, rttvar_ms] */
	ser = json_object_new_array();
	for (size_t k = 0; k < f->n_rtt; k++) {
		struct json_object *pt = json_object_new_array();

		json_object_array_add(pt, bench_json_num(f->rtt_t[k]));
		json_object_array_add(pt, bench_json_num(f->rtt_ms[k]));
		json_object_array_add(pt, bench_json_num(f->rttvar_ms[k]));
		json_object_array_add(ser, pt);
	}
	json_object_object_add(fo, "rtt_series", ser);
	return fo;
}

struct json_object *bench_samples_json(const struct bench_result *r)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < r->n_samples; i++) {
		struct json_object *pt = json_object_new_array();

		json_object_array_add(pt, bench_json_num(r->samples[i].t));
		json_object_array_add(pt, bench_json_num(r->samples[i].rtt_ms));
		json_object_array_add(pt, json_object_new_int(r->samples[i].phase));
		json_object_array_add(a, pt);
	}
	return a;
}

struct json_object *bench_ticks_json(const struct bench_result *r, size_t ncol,
				     void (*row)(const struct bench_tick *k, int64_t *v))
{
	struct json_object *a = json_object_new_array();
	int64_t v[16];

	for (size_t i = 0; i < r->n_ticks && ncol <= 16; i++) {
		struct json_object *pt = json_object_new_array();

		json_object_array_add(pt, bench_json_num(r->ticks[i].t));
		row(&r->ticks[i], v);
		for (size_t k = 0; k < ncol; k++)
			json_object_array_add(pt, json_object_new_int64(v[k]));
		json_object_array_add(a, pt);
	}
	return a;
}

/* a queue's tick: [t, backlog up, qlen up, backlog down, qlen down, sent up, sent down] */
static void queue_row(const struct bench_tick *k, int64_t *v)
{
	v[0] = k->backlog_bytes[0];
	v[1] = k->qlen[0];
	v[2] = k->backlog_bytes[1];
	v[3] = k->qlen[1];
	v[4] = (int64_t)k->bytes[0];
	v[5] = (int64_t)k->bytes[1];
}

/* The raw samples: the ICMP probes, the UDP ones [t, rtt, up, down, phase], the ticks. */
static void samples_into(struct json_object *o, const struct bench_result *r)
{
	struct json_object *a;

	json_object_object_add(o, "samples", bench_samples_json(r));
	a = json_object_new_array();
	for (size_t i = 0; i < r->n_usamples; i++) {
		const struct bench_usample *u = &r->usamples[i];
		struct json_object *pt = json_object_new_array();

		json_object_array_add(pt, bench_json_num(u->t));
		for (int k = 0; k < BENCH_UDP_N; k++)
			json_object_array_add(pt, bench_json_num(u->ms[k]));
		json_object_array_add(pt, json_object_new_int(u->phase));
		json_object_array_add(a, pt);
	}
	json_object_object_add(o, "udp_samples", a);
	json_object_object_add(o, "queue", bench_ticks_json(r, 6, queue_row));
}

/* each run's own phases: the load phases begin when the load reaches the gateway */
static struct json_object *phases_json(const double *start)
{
	struct json_object *phases = json_object_new_array();

	for (int p = 0; p < BENCH_PH_COUNT; p++) {
		struct json_object *ph = json_object_new_object();

		json_object_object_add(ph, "name", json_object_new_string(bench_phase_name(p)));
		json_object_object_add(ph, "start_s", bench_json_num(start[p]));
		json_object_object_add(ph, "end_s", bench_json_num(start[p + 1]));
		json_object_array_add(phases, ph);
	}
	return phases;
}

/* A run's name, label, place and whether it ran: what its column shows in any case. */
static struct json_object *run_head(const struct bench_result *r, bool repeated)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "qdisc", json_object_new_string(bench_qdisc_name(r->q)));
	/* the column: the queue with the knobs it was given (fq_codel:target=2ms) */
	json_object_object_add(o, "label", json_object_new_string(bench_result_label(r)));
	/* which repetition, and which of --qdiscs (--repeat N > 1 only: a run without is as it
	 * always was) */
	if (repeated) {
		json_object_object_add(o, "repeat", json_object_new_int(r->repeat));
		json_object_object_add(o, "position", json_object_new_int(r->queue));
	}
	/* "config": the link of -c CONFIG (its queues as written, or the label's in every
	 * leaf); "bench": the bench's own htb (or the kind shaping alone) and one queue */
	json_object_object_add(o, "tree", json_object_new_string(r->own ? "config" : "bench"));
	json_object_object_add(o, "ran", json_object_new_boolean(r->ran));
	json_object_object_add(o, "note", json_object_new_string(r->note));
	return o;
}

struct json_object *bench_run_summary_json(const struct bench_result *r, bool repeated)
{
	struct json_object *o = run_head(r, repeated);

	if (r->ran)
		figures_into(o, r);
	return o;
}

struct json_object *bench_run_json(const struct bench_opts *opts, const struct bench_result *r,
				   bool repeated)
{
	struct json_object *o = run_head(r, repeated), *flows;
	char fname[256];

	if (!r->ran)
		return o;
	json_object_object_add(o, "phases", phases_json(r->phase_start));
	json_object_object_add(o, "clients_started_s", bench_json_num(r->clients_started));
	figures_into(o, r);
	flows = json_object_new_array();
	for (size_t i = 0; i < r->n_flows; i++)
		json_object_array_add(flows, flow_json(&r->flows[i]));
	json_object_object_add(o, "flows", flows);
	json_object_object_add(o, "t0_unix", json_object_new_double(round(r->t0_unix * 1e6) / 1e6));
	bench_flent_name(opts, r, fname, sizeof(fname));
	json_object_object_add(o, "flent_file", json_object_new_string(fname));
	json_object_object_add(o, "qdiscs", tree_json(r));
	samples_into(o, r);
	return o;
}

struct json_object *bench_file_json(const char *schema, int version, const char *kernel)
{
	struct json_object *root = json_object_new_object();
	struct utsname u;

	if (!root)
		return NULL;
	json_object_object_add(root, "schema", json_object_new_string(schema));
	json_object_object_add(root, "version", json_object_new_int(version));
	json_object_object_add(root, "gatewayd_version", json_object_new_string(GW_VERSION));
	json_object_object_add(root, "generated_unix", json_object_new_int64((int64_t)time(NULL)));
	json_object_object_add(root, "kernel", json_object_new_string(kernel));
	json_object_object_add(root, "kernel_release",
			       json_object_new_string(uname(&u) == 0 ? u.release : ""));
	return root;
}

int bench_write_json(const char *path, const struct bench_opts *o, struct bench_result *r, size_t n,
		     const char *kernel_used, const struct bench_sysinfo *si, char *err,
		     size_t errlen)
{
	struct json_object *root = bench_file_json(GW_BENCH_SCHEMA, GW_BENCH_SCHEMA_VERSION,
						   kernel_used), *cfg, *phases, *runs;
	int ret;

	if (!root) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (si)
		json_object_object_add(root, "metadata", meta_json(si, kernel_used));
	cfg = json_object_new_object();
	/* in bits/s: rate_bps the down rate, and each direction's own (--rate DOWN/UP) */
	json_object_object_add(cfg, "rate_bps", json_object_new_int64((int64_t)o->rate[1] * 8));
	json_object_object_add(cfg, "rate_bps_down", json_object_new_int64((int64_t)o->rate[1] * 8));
	json_object_object_add(cfg, "rate_bps_up", json_object_new_int64((int64_t)o->rate[0] * 8));
	json_object_object_add(cfg, "rtt_ms", bench_json_num(o->no_delay ? 0 : o->rtt_us / 1000.0));
	json_object_object_add(cfg, "netem", json_object_new_boolean(!o->no_delay));
	json_object_object_add(cfg, "duration_s", bench_json_num(o->duration_s));
	json_object_object_add(cfg, "probe_hz", json_object_new_int(BENCH_PROBE_HZ));
	json_object_object_add(cfg, "tcp_flows_per_direction",
			       json_object_new_int(o->flows > 0 ? o->flows : BENCH_TCP_FLOWS));
	/* --profile: which load; the flows it sends each way (upload, download: one way) */
	json_object_object_add(cfg, "profile", json_object_new_string(bench_profile_name(o->profile)));
	/* --family: the load's, the probes' and the flood's IP version */
	json_object_object_add(cfg, "ip_family", json_object_new_int(o->family == 6 || o->family == 46 ? o->family : 4));
	json_object_object_add(cfg, "tcp_flows_up", json_object_new_int(bench_profile_flows(o->profile, o->flows, 0)));
	json_object_object_add(cfg, "tcp_flows_down", json_object_new_int(bench_profile_flows(o->profile, o->flows, 1)));
	/* the flood goes up, client to server: against the up rate (0: the profile has none) */
	json_object_object_add(cfg, "udp_flood_bps", json_object_new_int64(o->profile != BENCH_PROF_RRUL ? 0 :
		(int64_t)(bench_dir_rate(o, 0) * 8 * BENCH_FLOOD_FACTOR)));
	phases = json_object_new_array();
	for (int p = 0; p < BENCH_PH_COUNT && n; p++) {
		struct json_object *ph = json_object_new_object();

		json_object_object_add(ph, "name", json_object_new_string(bench_phase_name(p)));
		/* the schedule as planned (each run's own, as it happened, is in the run) */
		for (size_t i = 0; i < n; i++)
			if (r[i].ran) {
				json_object_object_add(ph, "start_s",
						       bench_json_num(r[i].phase_start[p]));
				json_object_object_add(ph, "end_s",
						       bench_json_num(r[i].phase_start[p + 1]));
				break;
			}
		json_object_array_add(phases, ph);
	}
	json_object_object_add(cfg, "phases", phases);
	if (o->repeat > 1)
		json_object_object_add(cfg, "repeat", json_object_new_int(o->repeat));
	if (o->own) {
		struct json_object *own = json_object_new_object();

		json_object_object_add(own, "file", json_object_new_string(o->config));
		json_object_object_add(own, "link", json_object_new_string(o->own_link));
		json_object_object_add(own, "autorate_left_out", json_object_new_boolean(o->own_autorate));
		json_object_object_add(cfg, "own_tree", own);
	}
	json_object_object_add(root, "config", cfg);
	runs = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(runs, bench_run_json(o, &r[i], o->repeat > 1));
	json_object_object_add(root, "runs", runs);
	if (o->repeat > 1) {
		struct json_object *sum = bench_summary_json(runs, o->repeat);

		if (!sum) {
			json_object_put(root);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		json_object_object_add(root, "summary", sum);
	}
	/* whole or not at all: a reader never sees half a file, a full disk keeps the last */
	ret = bench_out_json(path, root, err, errlen);
	json_object_put(root);
	return ret;
}
