/* tests/unit/test_cmptcprtt.c: the bulk TCP flows' own RTT on made-up runs (no root, no
 * kernel): the percentiles over every flow's ticks, the loaded window they are taken over
 * (the goodput's start to idle2's), one direction's flows apart from the other's and from the
 * flood, the idle baseline subtracted; results.json's tcp_rtt and rtt_series, and the saved
 * runs' reader taking a file with them, one without (an older run) and refusing a bad one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "bench/options.h"
#include "bench/results.h"
#include "bench/run.h"
#include "bench/stats.h"
#include "sys/grow.h"
#include "tests/unit/tap.h"
#include "webui/benchfile.h"
#include "webui/benchrows.h"

#define TICKS 200	/* 0.05 + 0.1 k s: 0.05 .. 19.95, never on a window's edge */

static void add_sample(struct bench_result *r, float t, float rtt, int ph)
{
	if (gw_grow(&r->samples, &r->cap_samples, r->n_samples, sizeof(*r->samples), 256))
		abort();
	r->samples[r->n_samples++] = (struct bench_sample){ .t = t, .rtt_ms = rtt,
							    .phase = (uint8_t)ph };
}

/* A flow whose RTT is in_ms inside [lo, hi] and out_ms outside (rttvar var_ms throughout),
 * with one goodput interval so the rest of the derivation has something to take. */
static struct bench_flow *add_flow(struct bench_result *r, const char *name, bool up, bool udp,
				   double lo, double hi, double in_ms, double out_ms, double var_ms)
{
	struct bench_flow *f = &r->flows[r->n_flows++];

	snprintf(f->name, sizeof(f->name), "%s", name);
	f->up = up;
	f->udp = udp;
	f->n = 1;
	f->t = calloc(1, sizeof(double));
	f->secs = calloc(1, sizeof(double));
	f->rate = calloc(1, sizeof(double));
	f->t[0] = 10;
	f->secs[0] = 0.5;
	f->rate[0] = 125000;
	f->n_rtt = TICKS;
	f->rtt_t = calloc(TICKS, sizeof(double));
	f->rtt_ms = calloc(TICKS, sizeof(double));
	f->rttvar_ms = calloc(TICKS, sizeof(double));
	if (!f->t || !f->secs || !f->rate || !f->rtt_t || !f->rtt_ms || !f->rttvar_ms)
		abort();
	for (size_t k = 0; k < TICKS; k++) {
		double t = 0.05 + 0.1 * (double)k;

		f->rtt_t[k] = t;
		f->rtt_ms[k] = t >= lo && t <= hi ? in_ms : out_ms;
		f->rttvar_ms[k] = var_ms;
	}
	return f;
}

static void free_run(struct bench_result *r)
{
	free(r->samples);
	for (size_t i = 0; i < r->n_flows; i++) {
		free(r->flows[i].t);
		free(r->flows[i].secs);
		free(r->flows[i].rate);
		free(r->flows[i].rtt_t);
		free(r->flows[i].rtt_ms);
		free(r->flows[i].rttvar_ms);
	}
	memset(r, 0, sizeof(*r));
}

/* Two uploads at 100 and 300 ms in [4, 17] (1000 outside, which a window not applied would
 * show), one download at 20, the flood (which has no RTT of its own) at 5000 as a trap. */
static void make_flows(struct bench_result *r, double lo, double hi)
{
	add_flow(r, "up1", true, false, lo, hi, 100, 1000, 10);
	add_flow(r, "up2", true, false, lo, hi, 300, 1000, 30);
	add_flow(r, "down1", false, false, lo, hi, 20, 1000, 4);
	add_flow(r, "udp-flood", true, true, lo, hi, 5000, 5000, 5000);
}

static void test_of(void)
{
	struct bench_result r;
	struct bench_tcprtt t;

	memset(&r, 0, sizeof(r));
	make_flows(&r, 4, 17);
	/* a tick without a figure (none read) is not a sample */
	r.flows[0].rtt_ms[100] = NAN;
	bench_tcp_rtt_of(&r, true, 4, 17, 40, &t);
	/* 4.05 .. 16.95: 130 ticks a flow; up1's one NAN left out */
	CHECK_EQ_INT(t.rtt.n, 259, "the uploads: 129 + 130 ticks in the window, the NAN and the flood left out");
	CHECK_EQ_INT(t.flows, 2, "two upload flows with samples");
	/* sorted: 129 x 100 then 130 x 300; nearest rank 130 is the first 300 */
	CHECK(t.rtt.p50 == 300, "p50 by nearest rank over both flows' ticks (%.1f)", t.rtt.p50);
	CHECK(t.rtt.p95 == 300 && t.rtt.p99 == 300, "p95, p99: the slower flow (%.1f, %.1f)",
	      t.rtt.p95, t.rtt.p99);
	double mean = (129 * 100.0 + 130 * 300.0) / 259;

	CHECK(fabs(t.rtt.mean - mean) < 1e-9, "mean over every tick (%.4f, want %.4f)", t.rtt.mean,
	      mean);
	CHECK(fabs(t.induced_p50 - 260) < 1e-9 && fabs(t.induced_mean - (mean - 40)) < 1e-9 &&
	      fabs(t.induced_p99 - 260) < 1e-9,
	      "induced: the same less the 40 ms baseline (%.1f, %.1f)", t.induced_p50, t.induced_mean);
	double var = (129 * 10.0 + 130 * 30.0) / 259;

	CHECK(fabs(t.rttvar_mean - var) < 1e-9, "rttvar: its mean over the same ticks (%.3f)",
	      t.rttvar_mean);

	bench_tcp_rtt_of(&r, false, 4, 17, 40, &t);
	CHECK(t.rtt.n == 130 && t.flows == 1 && t.rtt.p50 == 20 && t.rtt.p99 == 20,
	      "the downloads apart: 130 ticks at 20 ms (%zu, %.1f)", t.rtt.n, t.rtt.p50);
	CHECK(fabs(t.induced_p50 + 20) < 1e-9,
	      "below the baseline stays below: negative, not clamped (%.1f)", t.induced_p50);

	/* the window's edges are inclusive: from the first tick in it to the last, the same 130 */
	double first = r.flows[2].rtt_t[40], last = r.flows[2].rtt_t[169];

	bench_tcp_rtt_of(&r, false, first, last, 0, &t);
	CHECK_EQ_INT(t.rtt.n, 130, "a tick on the window's edge counts");
	bench_tcp_rtt_of(&r, false, first + 1e-6, last - 1e-6, 0, &t);
	CHECK_EQ_INT(t.rtt.n, 128, "one past either edge does not");

	/* a baseline of NAN (no idle probe answered): figures, but no induced ones */
	bench_tcp_rtt_of(&r, true, 4, 17, NAN, &t);
	CHECK(t.rtt.p50 == 300 && isnan(t.induced_p50) && isnan(t.induced_mean),
	      "no baseline: RTT figures, induced NAN");
	/* no tick in the window: no figure at all */
	bench_tcp_rtt_of(&r, true, 30, 40, 40, &t);
	CHECK(t.rtt.n == 0 && t.flows == 0 && isnan(t.rtt.p50) && isnan(t.rtt.mean) &&
	      isnan(t.induced_p50) && isnan(t.rttvar_mean), "an empty window: 0 samples, every figure NAN");
	free_run(&r);
	memset(&r, 0, sizeof(r));
	bench_tcp_rtt_of(&r, true, 0, 100, 40, &t);
	CHECK(t.rtt.n == 0 && isnan(t.rtt.p50), "no flows: 0 samples, NAN");
}

/* A 20 s run as the bench has it: idle 0-3 (40 ms probes), TCP 3-11, flood 11-17, idle2. */
static void make_run(struct bench_result *r)
{
	static const double ph[] = { 0, 3, 11, 17, 20 };

	memset(r, 0, sizeof(*r));
	r->ran = true;
	memcpy(r->phase_start, ph, sizeof(ph));
	r->clients_started = 2.5;
	for (int i = 0; i < 400; i++) {
		float t = i * 0.05f;
		int p = t < 3 ? 0 : t < 11 ? 1 : t < 17 ? 2 : 3;

		add_sample(r, t, p == 1 || p == 2 ? 240 : 40, p);
	}
	/* the window bench_derive must take: 3 + max(1 s, 40% of the 8 s TCP phase) to 17 */
	make_flows(r, 6.2, 17);
}

static void test_derive(void)
{
	struct bench_opts o = { .rate = { 2500000, 2500000 }, .duration_s = 20 };
	struct bench_result r;

	make_run(&r);
	bench_derive(&o, &r);
	CHECK(fabs(r.tcp_rtt_window[0] - 6.2) < 1e-9 && r.tcp_rtt_window[1] == 17,
	      "the window: the goodput's ramp left out, to the end of the flood (%.2f-%.2f)",
	      r.tcp_rtt_window[0], r.tcp_rtt_window[1]);
	/* 6.25 .. 16.95: 108 ticks a flow; the TCP phase's first 3.2 s (1000 ms) left out */
	CHECK(r.tcp_rtt[0].rtt.n == 216 && r.tcp_rtt[0].rtt.p99 == 300 &&
	      r.tcp_rtt[0].rtt.p50 == 100,
	      "uploads: 2 x 108 ticks, p50 100, p99 300 (%zu, %.1f, %.1f)", r.tcp_rtt[0].rtt.n,
	      r.tcp_rtt[0].rtt.p50, r.tcp_rtt[0].rtt.p99);
	CHECK(fabs(r.baseline_ms - 40) < 1e-9 && fabs(r.tcp_rtt[0].induced_p50 - 60) < 1e-9 &&
	      fabs(r.tcp_rtt[0].induced_mean - 160) < 1e-9,
	      "less the probes' baseline: p50 60, mean 160 (%.2f, %.2f)", r.tcp_rtt[0].induced_p50,
	      r.tcp_rtt[0].induced_mean);
	CHECK(r.tcp_rtt[1].rtt.n == 108 && fabs(r.tcp_rtt[1].induced_p95 + 20) < 1e-9,
	      "downloads: 108 ticks, 20 ms, induced -20");
	CHECK(fabs(r.induced_p50 - 200) < 1e-9, "the probes' own figures untouched (%.1f)",
	      r.induced_p50);

	/* results.json */
	char dir[] = "/tmp/gwcmp-tcprtt.XXXXXX", path[128], err[512] = "";

	CHECK(mkdtemp(dir) != NULL, "scratch dir");
	snprintf(path, sizeof(path), "%s/results.json", dir);
	CHECK(bench_write_json(path, &o, &r, 1, "host", NULL, err, sizeof(err)) == 0,
	      "results.json written (%s)", err);
	struct json_object *root = json_object_from_file(path);
	struct json_object *run = root ? gw_bench_at(root, "runs") : NULL;

	run = run ? json_object_array_get_idx(run, 0) : NULL;
	CHECK(run != NULL, "results.json parses");
	if (run) {
		struct json_object *v = gw_bench_at(run, "tcp_rtt.up.p50_ms");

		CHECK(v && json_object_get_double(v) == 100, "tcp_rtt.up.p50_ms 100");
		v = gw_bench_at(run, "tcp_rtt.up.induced_mean_ms");
		CHECK(v && fabs(json_object_get_double(v) - 160) < 1e-3, "tcp_rtt.up.induced_mean_ms 160");
		v = gw_bench_at(run, "tcp_rtt.down.samples");
		CHECK(v && json_object_get_int64(v) == 108, "tcp_rtt.down.samples 108");
		v = gw_bench_at(run, "tcp_rtt.down.flows");
		CHECK(v && json_object_get_int64(v) == 1, "tcp_rtt.down.flows 1");
		v = gw_bench_at(run, "tcp_rtt.baseline_ms");
		CHECK(v && json_object_get_double(v) == 40, "tcp_rtt.baseline_ms: the probes'");
		v = gw_bench_at(run, "tcp_rtt.window_s");
		CHECK(v && json_object_array_length(v) == 2 &&
		      fabs(json_object_get_double(json_object_array_get_idx(v, 0)) - 6.2) < 1e-3,
		      "tcp_rtt.window_s [6.2, 17]");
		struct json_object *fl = json_object_array_get_idx(gw_bench_at(run, "flows"), 0);
		struct json_object *s = gw_bench_at(fl, "rtt_series"), *pt;

		pt = s ? json_object_array_get_idx(s, 70) : NULL;
		CHECK(s && json_object_array_length(s) == TICKS && pt &&
		      fabs(json_object_get_double(json_object_array_get_idx(pt, 0)) - 7.05) < 1e-3 &&
		      json_object_get_double(json_object_array_get_idx(pt, 1)) == 100 &&
		      json_object_get_double(json_object_array_get_idx(pt, 2)) == 10,
		      "flows[0].rtt_series: every tick as [t, srtt, rttvar]");
		fl = json_object_array_get_idx(gw_bench_at(run, "flows"), 3);
		CHECK(!json_object_object_get_ex(fl, "rtt_series", NULL), "the flood has no rtt_series");
	}

	/* read back as --compare-report does: with it, without it (an older run), a bad one */
	struct gw_bench_file rr;
	const char *text;
	int ret;

	memset(&rr, 0, sizeof(rr));
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	ret = gw_bench_file_parse(&rr, path, text, strlen(text), GW_BENCH_SAMPLES, err, sizeof(err));
	CHECK(ret == 0 && rr.n_cols == 1, "the saved-runs reader takes it (%s)", err);
	if (ret == 0) {
		size_t k;

		for (k = 0; k < gw_bench_n_rows; k++)
			if (!strcmp(gw_bench_rows[k].path, "tcp_rtt.up.induced_p50_ms"))
				break;
		CHECK(k < gw_bench_n_rows && gw_bench_at(rr.col[0].fig, gw_bench_rows[k].path) &&
		      json_object_get_double(gw_bench_at(rr.col[0].fig, gw_bench_rows[k].path)) == 60,
		      "the report's row 'TCP induced up p50' reads 60 from it");
		gw_bench_file_free(&rr);
	}
	if (run) {
		memset(&rr, 0, sizeof(rr));
		json_object_object_del(run, "tcp_rtt");
		text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
		ret = gw_bench_file_parse(&rr, path, text, strlen(text), GW_BENCH_SAMPLES, err, sizeof(err));
		CHECK(ret == 0 && rr.n_cols == 1 && !gw_bench_at(rr.col[0].fig, "tcp_rtt.up.p50_ms"),
		      "an older run without tcp_rtt is read, its rows with no figure (\"-\") (%s)", err);
		if (ret == 0)
			gw_bench_file_free(&rr);

		struct json_object *t = json_object_new_object(), *up = json_object_new_object();

		json_object_object_add(up, "p50_ms", json_object_new_string("fast"));
		json_object_object_add(t, "up", up);
		json_object_object_add(run, "tcp_rtt", t);
		memset(&rr, 0, sizeof(rr));
		err[0] = 0;
		text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
		ret = gw_bench_file_parse(&rr, path, text, strlen(text), GW_BENCH_SAMPLES, err, sizeof(err));
		CHECK(ret < 0 && strstr(err, "tcp_rtt.up.p50_ms") && strstr(err, "a string"),
		      "a tcp_rtt figure of the wrong type is refused, named (%s)", err);
		if (ret == 0)
			gw_bench_file_free(&rr);
	}
	json_object_put(root);
	unlink(path);
	rmdir(dir);
	free_run(&r);
}

int main(void)
{
	test_of();
	test_derive();
	return tap_done();
}
