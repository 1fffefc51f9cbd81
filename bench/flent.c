/* bench/flent.c: one queue's run as flent's own data file (`.flent.gz`, format
 * version 4, flent 2.1's resultset.py), so `flent -i FILE` plots it and a flent user's
 * scripts read it: the test is the flent test with the run's load (rrul_be for 4 TCP flows
 * each way, rrul_be_nflows for another count, tcp_nup or tcp_ndown for one way), with its
 * series names and units, raw values as flent's runners record them, the series
 * interpolated onto x_values as flent's timeseries aggregator does, each TCP flow's RTT as
 * flent's socket stats record it, and the metadata flent records (kernel, sysctls, the
 * egress qdiscs and offloads) plus gatewayd's own. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include <zlib.h>
#include "bench/flent.h"
#include "bench/options.h"
#include "bench/outfile.h"
#include "bench/percentile.h"
#include "bench/queues.h"
#include "bench/results.h"
#include "bench/run.h"
#include "bench/sysinfo.h"
#include "bench/testbed.h"
#include "webui/benchfile.h"

#define FLENT_FORMAT 4		/* resultset.py's FILEFORMAT_VERSION */

/* flent's test of a run's load, by --profile and --flows: rrul_be (4+4 best-effort TCP flows
 * and pings; --profile rrul's flood beside them), rrul_be_nflows (N+N), tcp_nup and
 * tcp_ndown (N one way). Each names its flows its own way. */
enum ftest { FT_RRUL_BE, FT_RRUL_BE_N, FT_NUP, FT_NDOWN };
static const char *const ftest_name[] = { "rrul_be", "rrul_be_nflows", "tcp_nup", "tcp_ndown" };

static enum ftest ftest_of(const struct bench_opts *o)
{
	if (o->profile == BENCH_PROF_UPLOAD)
		return FT_NUP;
	if (o->profile == BENCH_PROF_DOWNLOAD)
		return FT_NDOWN;
	return bench_profile_flows(o->profile, o->flows, 0) == 4 ? FT_RRUL_BE : FT_RRUL_BE_N;
}

const char *bench_flent_test(const struct bench_opts *o)
{
	return ftest_name[ftest_of(o)];
}
/* STEP_SIZE: flent's default. Its aggregator gives a step no value when the next point is
 * more than 5 steps away: at 0.2 s that is twice the flows' 0.5 s intervals, so a late one
 * in a busy guest (0.6 s) leaves no hole in the series and their sums, as 0.1 s did. */
#define FLENT_STEP 0.2
#define FLENT_MAX_STEPS 200000	/* x_values of an hour at the step, and some */

/* One data series: raw points (t since T0, value, interval length or NAN). */
struct fseries {
	char name[32];
	const char *units;
	double *t, *v, *dur;
	size_t n;
	double mean;			/* SERIES_META's MEAN_VALUE (NAN: none) */
	bool up, tcp;
	double *res;			/* interpolated onto x_values */
	const struct bench_flow *flow;	/* a TCP flow's: its sender's RTT reads */
};

/* A number as JSON with at most `dec` decimals (null for NAN): short, and exactly the
 * value a reader parses back. */
static struct json_object *num(double v, int dec)
{
	char b[48];
	size_t l;

	if (isnan(v) || isinf(v))
		return NULL;
	snprintf(b, sizeof(b), "%.*f", dec, v);
	if (strchr(b, '.')) {
		for (l = strlen(b); b[l - 1] == '0'; l--)
			b[l - 1] = 0;
		if (b[l - 1] == '.')
			b[l] = '0', b[l + 1] = 0;	/* "2.0": still a float */
	}
	if (!strcmp(b, "-0.0"))
		snprintf(b, sizeof(b), "0.0");
	return json_object_new_double_s(strtod(b, NULL), b);
}

/* flent's times: UTC, microseconds, a Z (format_date(..., utc=True)) */
static void iso_time(double unix_s, char *buf, size_t len)
{
	time_t s = (time_t)floor(unix_s);
	long us = lround((unix_s - (double)s) * 1e6);
	struct tm tm;

	if (us >= 1000000) {
		s++;
		us -= 1000000;
	}
	gmtime_r(&s, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, us);
}

void bench_flent_name(const struct bench_opts *o, const struct bench_result *r, char *buf,
		      size_t len)
{
	/* as resultset.py's _gen_filename: NAME-TIME.TITLE.flent.gz, the time local without
	 * colons, the title with everything but letters, digits and '-' made '_' */
	time_t s = (time_t)floor(r->t0_unix);
	long us = lround((r->t0_unix - (double)s) * 1e6);
	char title[GW_BENCH_LABEL_MAX];
	struct tm tm;

	if (us >= 1000000) {
		s++;
		us -= 1000000;
	}
	localtime_r(&s, &tm);
	snprintf(title, sizeof(title), "%s", bench_result_label(r));
	for (char *p = title; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-'))
			*p = '_';
	snprintf(buf, len, "%s-%04d-%02d-%02dT%02d%02d%02d.%06ld.%s.flent.gz", bench_flent_test(o),
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 us, title);
}

static void series_free(struct fseries *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(s[i].t);
		free(s[i].v);
		free(s[i].dur);
		free(s[i].res);
	}
}

static int series_alloc(struct fseries *s, size_t n)
{
	s->t = calloc(n + 1, sizeof(double));
	s->v = calloc(n + 1, sizeof(double));
	s->dur = calloc(n + 1, sizeof(double));
	return s->t && s->v && s->dur ? 0 : -ENOMEM;
}

/* The run's measured series under its test's names: a flow "TCP upload BE", "TCP upload
 * BE2".. in rrul_be, "TCP upload BE::1".. in rrul_be_nflows (flent's duplicates), "TCP
 * upload::1".. in tcp_nup and tcp_ndown; "UDP upload" (the flood, as flent's udp_flood names
 * it), "Ping (ms) ICMP" (replies only: flent's ping records no lost probe). */
static int collect(enum ftest ft, const struct bench_result *r, struct fseries *s, size_t *ns)
{
	int k[2] = { 0, 0 };

	*ns = 0;
	for (size_t i = 0; i < r->n_flows; i++) {
		const struct bench_flow *f = &r->flows[i];
		struct fseries *x = &s[(*ns)++];
		const char *way = f->up ? "upload" : "download";
		int d = f->up ? 0 : 1;

		if (f->udp)
			snprintf(x->name, sizeof(x->name), "UDP %s", way);
		else if (++k[d] == 1 && ft == FT_RRUL_BE)
			snprintf(x->name, sizeof(x->name), "TCP %s BE", way);
		else if (ft == FT_RRUL_BE)
			snprintf(x->name, sizeof(x->name), "TCP %s BE%d", way, k[d]);
		else
			snprintf(x->name, sizeof(x->name), "TCP %s%s::%d", way,
				 ft == FT_RRUL_BE_N ? " BE" : "", k[d]);
		x->units = "Mbits/s";
		x->flow = f->udp ? NULL : f;
		x->up = f->up;
		x->tcp = !f->udp;
		x->mean = f->mean * 8 / 1e6;
		if (series_alloc(x, f->n))
			return -ENOMEM;
		for (size_t j = 0; j < f->n; j++) {
			x->t[x->n] = f->t[j];
			x->v[x->n] = f->rate[j] * 8 / 1e6;
			x->dur[x->n++] = f->secs[j];
		}
	}
	struct fseries *p = &s[(*ns)++];
	double sum = 0;

	snprintf(p->name, sizeof(p->name), "Ping (ms) ICMP");
	p->units = "ms";
	if (series_alloc(p, r->n_samples))
		return -ENOMEM;
	for (size_t j = 0; j < r->n_samples; j++) {
		if (isnan(r->samples[j].rtt_ms))
			continue;
		/* in ms to the microsecond, as results.json has them */
		p->t[p->n] = round((double)r->samples[j].t * 1000) / 1000;
		p->v[p->n] = round((double)r->samples[j].rtt_ms * 1000) / 1000;
		p->dur[p->n++] = NAN;
		sum += p->v[p->n - 1];
	}
	p->mean = p->n ? sum / (double)p->n : NAN;
	/* by the time sent: replies come back in about that order */
	bench_sort_pairs(p->t, p->v, p->n);
	return 0;
}

/* flent's TimeseriesAggregator: at each step t, the value interpolated between the points
 * either side, none where the next point is more than 5 steps away (half a step before the
 * first), and the last point once, not repeated. */
static int interpolate(struct fseries *s, size_t steps)
{
	double last = NAN;
	size_t i = 0;

	if (!(s->res = malloc((steps + 1) * sizeof(double))))
		return -ENOMEM;
	for (size_t k = 0; k < steps; k++) {
		double t = FLENT_STEP * (double)k, max_dist = 5 * FLENT_STEP, v = NAN;
		bool have_prev = false, at_end = false;
		size_t nx;

		s->res[k] = NAN;
		if (!s->n)
			continue;
		while (i < s->n && s->t[i] <= t)
			i++;
		if (i < s->n) {
			nx = i;
			if (i > 0)
				have_prev = true;
			else
				max_dist = FLENT_STEP * 0.5;
		} else {
			nx = s->n - 1;
			at_end = true;
		}
		if (fabs(t - s->t[nx]) <= max_dist) {
			if (!have_prev)
				v = at_end && (isnan(last) || last == s->v[nx]) ? NAN : s->v[nx];
			else
				v = s->v[nx - 1] + (s->v[nx] - s->v[nx - 1]) /
					(s->t[nx] - s->t[nx - 1]) * (t - s->t[nx - 1]);
		}
		s->res[k] = v;
		last = v;
	}
	return 0;
}

/* A computed series (flent's AverageRunner, SumRunner) over the members at each step, in
 * the tests (bits by enum ftest) that define it. */
struct computed {
	const char *name, *runner, *units;
	bool sum;
	int (*member)(const struct fseries *s);	/* 1: in it */
	unsigned tests;
	double *res;
	double mean;
};

#define FT_BOTH (1u << FT_RRUL_BE | 1u << FT_RRUL_BE_N)

static int up_tcp(const struct fseries *s) { return s->tcp && s->up; }
static int down_tcp(const struct fseries *s) { return s->tcp && !s->up; }
static int any_tcp(const struct fseries *s) { return s->tcp; }
static int ping(const struct fseries *s) { return !strncmp(s->name, "Ping (ms)", 9); }

static int compute(struct computed *c, const struct fseries *s, size_t ns, size_t steps)
{
	double msum = 0;
	size_t mn = 0;

	if (!(c->res = malloc((steps + 1) * sizeof(double))))
		return -ENOMEM;
	for (size_t k = 0; k < steps; k++) {
		double sum = 0;
		size_t n = 0;

		for (size_t i = 0; i < ns; i++)
			if (c->member(&s[i]) && !isnan(s[i].res[k])) {
				sum += s[i].res[k];
				n++;
			}
		c->res[k] = !n ? NAN : c->sum ? sum : sum / (double)n;
	}
	for (size_t i = 0; i < ns; i++)
		if (c->member(&s[i]) && !isnan(s[i].mean)) {
			msum += s[i].mean;
			mn++;
		}
	c->mean = !mn ? NAN : c->sum ? msum : msum / (double)mn;
	return 0;
}

/* tc's words as flent's parse_tc makes them: key/value pairs, a word with no value (a flag
 * such as "ecn") mapped to "" */
static struct json_object *params_json(const char *opts)
{
	struct json_object *o = json_object_new_object();
	char buf[256], *save = NULL, *w, *next;

	snprintf(buf, sizeof(buf), "%s", opts);
	w = strtok_r(buf, " ", &save);
	while (w) {
		next = strtok_r(NULL, " ", &save);
		if (next && ((*next >= '0' && *next <= '9') || !strcmp(next, "unlimited"))) {
			json_object_object_add(o, w, json_object_new_string(next));
			w = strtok_r(NULL, " ", &save);
		} else {
			json_object_object_add(o, w, json_object_new_string(""));
			w = next;
		}
	}
	return o;
}

/* flent's EGRESS_INFO (here also INGRESS_INFO, the ifb): the device's qdiscs and classes
 * as {name, id, parent, params}, its offloads, and the tc commands that make the tree */
static struct json_object *link_info(const struct bench_result *r, const struct bench_sysinfo *si,
				     bool down)
{
	struct json_object *o = json_object_new_object(), *qd = json_object_new_array();
	struct json_object *cl = json_object_new_array(), *tc = json_object_new_array();
	const char *dev = down ? BENCH_GW_IFB : BENCH_GW_WAN;

	json_object_object_add(o, "iface", json_object_new_string(dev));
	for (size_t i = 0; i < r->n_tc; i++) {
		const struct bench_tc *t = &r->tc[i];
		struct json_object *q;
		char id[16];

		if (t->down != down)
			continue;
		q = json_object_new_object();
		json_object_object_add(q, "name", json_object_new_string(t->kind));
		bench_tc_id(id, sizeof(id), t->handle, !t->cls);
		json_object_object_add(q, "id", json_object_new_string(id));
		bench_tc_id(id, sizeof(id), t->parent, false);
		json_object_object_add(q, "parent", json_object_new_string(id));
		json_object_object_add(q, "params", params_json(t->opts));
		json_object_array_add(t->cls ? cl : qd, q);
		if (t->line[0])
			json_object_array_add(tc, json_object_new_string(t->line));
	}
	json_object_object_add(o, "qdiscs", qd);
	json_object_object_add(o, "classes", cl);
	json_object_object_add(o, "tc", tc);
	for (size_t i = 0; si && i < si->n_ifs; i++)
		if (!strcmp(si->ifs[i].ns, "gateway") && !strcmp(si->ifs[i].name, dev))
			json_object_object_add(o, "offloads", bench_offloads_json(&si->ifs[i]));
	return o;
}

static struct json_object *sysctls_json(const struct bench_sysinfo *si, bool server)
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; si && i < si->n_sysctl; i++) {
		const char *v = server ? si->sysctl[i].server : si->sysctl[i].client;

		if (*v)
			json_object_object_add(o, si->sysctl[i].name, bench_json_sysval(v));
	}
	return o;
}

static struct json_object *series_meta(const char *runner, const char *units, double mean,
				       bool computed)
{
	struct json_object *m = json_object_new_object();

	json_object_object_add(m, "RUNNER", json_object_new_string(runner));
	json_object_object_add(m, "IDX", NULL);
	if (computed)
		json_object_object_add(m, "COMPUTED_LATE", json_object_new_boolean(false));
	json_object_object_add(m, "UNITS", json_object_new_string(units));
	json_object_object_add(m, "MEAN_VALUE", num(mean, 6));
	return m;
}

/* flent's NOTE: what ran, at which rates, with which load */
static void note_text(const struct bench_opts *o, const struct bench_result *r, char *note,
		      size_t len)
{
	int n_up = bench_profile_flows(o->profile, o->flows, 0);
	int n_down = bench_profile_flows(o->profile, o->flows, 1);
	enum ftest ft = ftest_of(o);
	char b[80], load[96];

	if (bench_asymmetric(o))
		snprintf(b, sizeof(b), "%s down, %s up", o->dir_text[1], o->dir_text[0]);
	else
		snprintf(b, sizeof(b), "%s each way", o->rate_text);
	if (ft == FT_NUP || ft == FT_NDOWN)
		snprintf(load, sizeof(load), "%d TCP %s", n_up + n_down, ft == FT_NUP ? "up" : "down");
	else
		snprintf(load, sizeof(load), "%d+%d TCP%s", n_up, n_down,
			 o->profile == BENCH_PROF_RRUL ? ", then a UDP flood" : "");
	snprintf(note, len,
		 "gatewayd --compare: %s, %s, base RTT %.1f ms%s; --profile %s: %s%s; results.json beside this file",
		 bench_result_label(r), b, o->no_delay ? 0.0 : o->rtt_us / 1000.0,
		 o->no_delay ? " (no netem)" : "", bench_profile_name(o->profile), load,
		 o->family == 6 ? ", over IPv6" :
		 o->family == 46 ? ", each way's flows half over IPv4, half over IPv6" : "");
}

/* flent's TEST_PARAMETERS: the rates and RTT, and what the N-flow tests read back to name
 * their flows (as `-te upload_streams=N`) */
static struct json_object *test_params(const struct bench_opts *o, const struct bench_result *r)
{
	struct json_object *tp = json_object_new_object();
	enum ftest ft = ftest_of(o);
	char b[32];

	json_object_object_add(tp, "qdisc", json_object_new_string(bench_result_label(r)));
	json_object_object_add(tp, "rate", json_object_new_string(o->rate_text));
	json_object_object_add(tp, "rate_down", json_object_new_string(o->dir_text[1][0] ? o->dir_text[1] : o->rate_text));
	json_object_object_add(tp, "rate_up", json_object_new_string(o->dir_text[0][0] ? o->dir_text[0] : o->rate_text));
	snprintf(b, sizeof(b), "%.1fms", o->no_delay ? 0.0 : o->rtt_us / 1000.0);
	json_object_object_add(tp, "rtt", json_object_new_string(b));
	if (ft == FT_RRUL_BE_N || ft == FT_NUP) {
		snprintf(b, sizeof(b), "%d", bench_profile_flows(o->profile, o->flows, 0));
		json_object_object_add(tp, "upload_streams", json_object_new_string(b));
	}
	if (ft == FT_RRUL_BE_N || ft == FT_NDOWN) {
		snprintf(b, sizeof(b), "%d", bench_profile_flows(o->profile, o->flows, 1));
		json_object_object_add(tp, "download_streams", json_object_new_string(b));
	}
	return tp;
}

/* gatewayd's own keys: the bench's settings and the run's phases */
static void own_meta(struct json_object *m, const struct bench_opts *o,
		     const struct bench_result *r, const char *kernel_used)
{
	struct json_object *a = json_object_new_array();

	json_object_object_add(m, "GATEWAYD_VERSION", json_object_new_string(GW_VERSION));
	json_object_object_add(m, "GATEWAYD_KERNEL", json_object_new_string(kernel_used));
	json_object_object_add(m, "GATEWAYD_QDISC", json_object_new_string(bench_qdisc_name(r->q)));
	json_object_object_add(m, "GATEWAYD_LABEL", json_object_new_string(bench_result_label(r)));
	json_object_object_add(m, "GATEWAYD_RATE_BPS", json_object_new_int64((int64_t)o->rate[1] * 8));
	json_object_object_add(m, "GATEWAYD_RATE_BPS_DOWN", json_object_new_int64((int64_t)o->rate[1] * 8));
	json_object_object_add(m, "GATEWAYD_RATE_BPS_UP", json_object_new_int64((int64_t)o->rate[0] * 8));
	json_object_object_add(m, "GATEWAYD_CPU_BUSY", num(r->cpu_busy, 3));
	json_object_object_add(m, "GATEWAYD_PROFILE",
			       json_object_new_string(bench_profile_name(o->profile)));
	json_object_object_add(m, "GATEWAYD_TCP_FLOWS_UP",
			       json_object_new_int(bench_profile_flows(o->profile, o->flows, 0)));
	json_object_object_add(m, "GATEWAYD_TCP_FLOWS_DOWN",
			       json_object_new_int(bench_profile_flows(o->profile, o->flows, 1)));
	json_object_object_add(m, "GATEWAYD_IP_FAMILY", json_object_new_int(o->family ? o->family : 4));
	for (int p = 0; p < BENCH_PH_COUNT; p++) {
		struct json_object *ph = json_object_new_object();

		json_object_object_add(ph, "name", json_object_new_string(bench_phase_name(p)));
		json_object_object_add(ph, "start_s", num(r->phase_start[p], 3));
		json_object_object_add(ph, "end_s", num(r->phase_start[p + 1], 3));
		json_object_array_add(a, ph);
	}
	json_object_object_add(m, "GATEWAYD_PHASES", a);
}

/* the pings' server: over IPv4 but with --family 6 (46 pings over IPv4) */
static const char *server(const struct bench_opts *o)
{
	return o->family == 6 ? BENCH_IP6_SERVER : BENCH_IP_SERVER;
}

/* the hosts: flent's local one (the client) and the server */
static void host_meta(struct json_object *m, const struct bench_opts *o,
		      const struct bench_sysinfo *si)
{
	struct json_object *a = json_object_new_array();

	json_object_object_add(m, "HOST", json_object_new_string(server(o)));
	json_object_array_add(a, json_object_new_string(server(o)));
	json_object_object_add(m, "HOSTS", a);
	json_object_object_add(m, "LOCAL_HOST", json_object_new_string(si ? si->hostname : ""));
	json_object_object_add(m, "IP_VERSION", json_object_new_int(o->family == 6 ? 6 : 4));
}

/* the client's sysctls (flent's local host), the gateway's two sides, the server's sysctls */
static void sides_meta(struct json_object *m, const struct bench_opts *o,
		       const struct bench_result *r, const struct bench_sysinfo *si)
{
	struct json_object *a = json_object_new_object(), *tp = json_object_new_object();

	json_object_object_add(m, "SYSCTLS", sysctls_json(si, false));
	json_object_object_add(m, "EGRESS_INFO", link_info(r, si, false));
	json_object_object_add(m, "INGRESS_INFO", link_info(r, si, true));
	json_object_object_add(tp, "SYSCTLS", sysctls_json(si, true));
	json_object_object_add(a, server(o), tp);
	json_object_object_add(m, "REMOTE_METADATA", a);
}

static struct json_object *metadata(const struct bench_opts *o, const struct bench_result *r,
				    const char *kernel_used, const struct bench_sysinfo *si,
				    const char *fname)
{
	struct json_object *m = json_object_new_object();
	static const char *const nulls[] = { "BATCH_NAME", "BATCH_TIME", "BATCH_TITLE",
		"BATCH_UUID", "HTTP_GETTER_URLLIST", "HTTP_GETTER_DNS", "HTTP_GETTER_WORKERS",
		"FLENT_VERSION" };
	char b[80], note[512];

	json_object_object_add(m, "NAME", json_object_new_string(ftest_name[ftest_of(o)]));
	json_object_object_add(m, "TITLE", json_object_new_string(bench_result_label(r)));
	note_text(o, r, note, sizeof(note));
	json_object_object_add(m, "NOTE", json_object_new_string(note));
	iso_time(r->t0_unix, b, sizeof(b));
	json_object_object_add(m, "TIME", json_object_new_string(b));
	json_object_object_add(m, "T0", json_object_new_string(b));
	/* flent's lengths: the flows' (LENGTH, whole seconds), the run's with the idle time
	 * before and after (TOTAL_LENGTH), the idle time before the load (DELAY: its plots
	 * cut that much off either end for the loaded CDF) */
	json_object_object_add(m, "LENGTH", json_object_new_int((int)lround(
		r->phase_start[BENCH_PH_IDLE2] - r->phase_start[BENCH_PH_TCP])));
	json_object_object_add(m, "TOTAL_LENGTH", num(r->phase_start[BENCH_PH_COUNT], 3));
	json_object_object_add(m, "DELAY", num(r->phase_start[BENCH_PH_TCP], 3));
	json_object_object_add(m, "STEP_SIZE", num(FLENT_STEP, 3));
	host_meta(m, o, si);
	json_object_object_add(m, "DATA_FILENAME", json_object_new_string(fname));
	for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		json_object_object_add(m, nulls[i], NULL);
	json_object_object_add(m, "FAILED_RUNNERS", json_object_new_int(0));
	json_object_object_add(m, "KERNEL_NAME", json_object_new_string(si ? si->kernel_name : ""));
	json_object_object_add(m, "KERNEL_RELEASE",
			       json_object_new_string(si ? si->kernel_release : ""));
	json_object_object_add(m, "MODULE_VERSIONS", json_object_new_object());
	sides_meta(m, o, r, si);
	json_object_object_add(m, "TEST_PARAMETERS", test_params(o, r));
	own_meta(m, o, r, kernel_used);
	return m;
}
/* A TCP flow's RTT reads as flent's socket-stats child runner leaves them: the series
 * "NAME::tcp_rtt" and "NAME::tcp_rtt_var" (ms, as ss prints them) on x_values in results,
 * and their raw points {t, tcp_rtt, tcp_rtt_var} among NAME's own raw values, in time order
 * (flent takes a raw point without "val" for what it is). Nothing for a flow without reads. */
static int add_rtt(struct json_object *res, struct json_object *raw, const struct fseries *x,
		   const struct bench_result *r, size_t steps)
{
	const struct bench_flow *f = x->flow;
	struct json_object *raw_list = json_object_object_get(raw, x->name);
	static const char *const key[2] = { "tcp_rtt", "tcp_rtt_var" };
	struct fseries y;
	char name[64];
	int ret = 0;

	if (!f || !f->n_rtt)
		return 0;
	for (int w = 0; w < 2 && !ret; w++) {
		const double *v = w ? f->rttvar_ms : f->rtt_ms;
		struct json_object *a;

		memset(&y, 0, sizeof(y));
		if ((ret = series_alloc(&y, f->n_rtt)))
			break;
		for (size_t j = 0; j < f->n_rtt; j++) {
			y.t[y.n] = f->rtt_t[j];
			y.v[y.n] = v[j];
			y.dur[y.n++] = NAN;
		}
		if (!(ret = interpolate(&y, steps))) {
			a = json_object_new_array_ext((int)steps);
			for (size_t k = 0; k < steps; k++)
				json_object_array_add(a, num(y.res[k], 3));
			snprintf(name, sizeof(name), "%.31s::%s", x->name, key[w]);
			json_object_object_add(res, name, a);
		}
		series_free(&y, 1);
	}
	if (ret)
		return ret;
	/* merged by time into the flow's own raw points (both lists are in time order) */
	struct json_object *merged = json_object_new_array_ext((int)(x->n + f->n_rtt));
	size_t i = 0, j = 0;

	while (i < json_object_array_length(raw_list) || j < f->n_rtt) {
		struct json_object *p = i < json_object_array_length(raw_list) ?
					json_object_array_get_idx(raw_list, i) : NULL;

		if (p && (j == f->n_rtt || x->t[i] <= f->rtt_t[j])) {
			json_object_array_add(merged, json_object_get(p));
			i++;
			continue;
		}
		p = json_object_new_object();
		json_object_object_add(p, "t", num(r->t0_unix + f->rtt_t[j], 6));
		json_object_object_add(p, "tcp_rtt", num(f->rtt_ms[j], 3));
		json_object_object_add(p, "tcp_rtt_var", num(f->rttvar_ms[j], 3));
		json_object_array_add(merged, p);
		j++;
	}
	json_object_object_add(raw, x->name, merged);	/* replaces (and frees) raw_list */
	return 0;
}

/* The run's series: measured (collect), each on x_values, and the test's computed ones into
 * c (*nc of them); the steps into *steps. 0 or -ENOMEM. */
static int series_of(enum ftest ft, const struct bench_result *r, struct fseries *s, size_t *ns,
		     struct computed *c, size_t *nc, size_t *steps)
{
	const unsigned up = FT_BOTH | 1u << FT_NUP, down = FT_BOTH | 1u << FT_NDOWN;
	const struct computed all[] = {
		{ "TCP upload avg", "AverageRunner", "Mbits/s", false, up_tcp, up, NULL, NAN },
		{ "TCP upload sum", "SumRunner", "Mbits/s", true, up_tcp, up, NULL, NAN },
		{ "TCP download avg", "AverageRunner", "Mbits/s", false, down_tcp, down, NULL, NAN },
		{ "TCP download sum", "SumRunner", "Mbits/s", true, down_tcp, down, NULL, NAN },
		{ "TCP totals", "SumRunner", "Mbits/s", true, any_tcp, FT_BOTH, NULL, NAN },
		{ "Ping (ms) avg", "AverageRunner", "ms", false, ping, FT_BOTH, NULL, NAN },
	};
	double tmax = 0;

	/* the computed series the run's test has */
	*nc = 0;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i].tests & 1u << ft)
			c[(*nc)++] = all[i];
	if (collect(ft, r, s, ns))
		return -ENOMEM;
	for (size_t i = 0; i < *ns; i++)
		if (s[i].n && s[i].t[s[i].n - 1] > tmax)
			tmax = s[i].t[s[i].n - 1];
	*steps = (size_t)ceil(tmax / FLENT_STEP);
	if (*steps > FLENT_MAX_STEPS)
		*steps = FLENT_MAX_STEPS;
	for (size_t i = 0; i < *ns; i++)
		if (interpolate(&s[i], *steps))
			return -ENOMEM;
	for (size_t i = 0; i < *nc; i++)
		if (compute(&c[i], s, *ns, *steps))
			return -ENOMEM;
	return 0;
}

/* values on x_values, dec decimals each */
static struct json_object *steps_json(const double *v, size_t steps, int dec)
{
	struct json_object *a = json_object_new_array_ext((int)steps);

	for (size_t k = 0; k < steps; k++)
		json_object_array_add(a, num(v[k], dec));
	return a;
}

/* A measured series' raw values as flent's runners record them: t absolute (unix seconds),
 * val; netperf's interval length as dur; ping's sequence number as seq */
static struct json_object *raw_json(const struct fseries *x, const struct bench_result *r)
{
	struct json_object *rv = json_object_new_array_ext((int)x->n);
	bool is_ping = ping(x);

	for (size_t j = 0; j < x->n; j++) {
		struct json_object *p = json_object_new_object();

		if (!isnan(x->dur[j]))
			json_object_object_add(p, "dur", num(x->dur[j], 6));
		json_object_object_add(p, "t", num(r->t0_unix + x->t[j], 6));
		json_object_object_add(p, "val", num(x->v[j], is_ping ? 3 : 6));
		if (is_ping)
			json_object_object_add(p, "seq", json_object_new_int((int)j));
		json_object_array_add(rv, p);
	}
	return rv;
}

/* Every series into results (on x_values), raw_values and SERIES_META; 0 or -ENOMEM */
static int series_json(struct json_object *res, struct json_object *raw, struct json_object *sm,
		       const struct fseries *s, size_t ns, const struct computed *c, size_t nc,
		       const struct bench_result *r, size_t steps)
{
	for (size_t i = 0; i < ns; i++) {
		json_object_object_add(res, s[i].name, steps_json(s[i].res, steps, 6));
		json_object_object_add(raw, s[i].name, raw_json(&s[i], r));
		if (add_rtt(res, raw, &s[i], r, steps))
			return -ENOMEM;
		json_object_object_add(sm, s[i].name,
				       series_meta(ping(&s[i]) ? "gatewayd-prober" : "gatewayd-load",
						   s[i].units, s[i].mean, false));
	}
	for (size_t i = 0; i < nc; i++) {
		json_object_object_add(res, c[i].name, steps_json(c[i].res, steps, 6));
		/* flent keeps a computed series' raw values empty */
		json_object_object_add(raw, c[i].name, json_object_new_array());
		json_object_object_add(sm, c[i].name, series_meta(c[i].runner, c[i].units,
								  c[i].mean, true));
	}
	return 0;
}

static struct json_object *build(const struct bench_opts *o, const struct bench_result *r,
				 const char *kernel_used, const struct bench_sysinfo *si,
				 const char *fname, char *err, size_t errlen)
{
	struct fseries s[BENCH_MAX_FLOWS + 1];
	struct computed c[6];
	struct json_object *root = NULL, *x, *res, *raw, *sm, *m;
	size_t ns = 0, steps = 0, nc = 0;

	memset(s, 0, sizeof(s));
	memset(c, 0, sizeof(c));
	if (series_of(ftest_of(o), r, s, &ns, c, &nc, &steps))
		goto out;
	root = json_object_new_object();
	m = metadata(o, r, kernel_used, si, fname);
	sm = json_object_new_object();
	x = json_object_new_array_ext((int)steps);
	res = json_object_new_object();
	raw = json_object_new_object();
	for (size_t k = 0; k < steps; k++)
		json_object_array_add(x, num(FLENT_STEP * (double)k, 3));
	json_object_object_add(m, "SERIES_META", sm);
	json_object_object_add(root, "metadata", m);
	json_object_object_add(root, "version", json_object_new_int(FLENT_FORMAT));
	json_object_object_add(root, "x_values", x);
	json_object_object_add(root, "results", res);
	json_object_object_add(root, "raw_values", raw);
	if (series_json(res, raw, sm, s, ns, c, nc, r, steps)) {
		json_object_put(root);
		root = NULL;
	}
out:
	series_free(s, ns);
	for (size_t i = 0; i < nc; i++)
		free(c[i].res);
	if (!root)
		snprintf(err, errlen, "out of memory");
	return root;
}

int bench_write_flent(const char *dir, const struct bench_opts *o, const struct bench_result *r,
		      const char *kernel_used, const struct bench_sysinfo *si, char *name,
		      size_t namelen, char *err, size_t errlen)
{
	char path[4400];
	struct json_object *root;
	struct bench_out w;
	const char *text;
	gzFile gz;
	size_t len;
	int ret, fd;

	bench_flent_name(o, r, name, namelen);
	if (!(root = build(o, r, kernel_used, si, name, err, errlen)))
		return -ENOMEM;
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	/* whole or not at all, as results.json (outfile.c): zlib writes into a copy of the
	 * temporary's fd, which gzclose closes; the commit then syncs and renames it */
	if ((ret = bench_out_begin(&w, path, err, errlen))) {
		json_object_put(root);
		return ret;
	}
	len = strlen(text);
	errno = 0;
	if ((fd = fcntl(w.fd, F_DUPFD_CLOEXEC, 0)) < 0 || !(gz = gzdopen(fd, "wb6"))) {
		ret = -(errno ? errno : ENOMEM);
		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		bench_out_abort(&w);
		json_object_put(root);
		return ret;
	}
	/* (gzwrite stops at the first failed write; gzclose reports it too) */
	if ((size_t)gzwrite(gz, text, (unsigned)len) != len)
		ret = -(errno ? errno : EIO);
	if (gzclose(gz) != Z_OK && !ret)
		ret = -(errno ? errno : EIO);
	if (ret) {
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(-ret));
		bench_out_abort(&w);
	} else {
		ret = bench_out_commit(&w, err, errlen);
	}
	json_object_put(root);
	return ret;
}
