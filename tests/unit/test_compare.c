/* tests/unit/test_compare.c: the comparison bench's arithmetic and files on made-up runs (no
 * root, no kernel): percentiles, the grade bands, induced latency against the idle baseline,
 * the windows goodput, accuracy and fairness are taken over, results.json's
 * figures, and SVGs that parse back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "bench/options.h"
#include "bench/percentile.h"
#include "bench/queues.h"
#include "bench/results.h"
#include "bench/run.h"
#include "bench/stats.h"
#include "bench/svg.h"
#include "sys/grow.h"
#include "tests/unit/tap.h"

#define MBIT(x) ((x) * 1e6 / 8)	/* Mbit/s in bytes/s, as the bench keeps rates */

static void add_sample(struct bench_result *r, float t, float rtt, int ph)
{
	if (gw_grow(&r->samples, &r->cap_samples, r->n_samples, sizeof(*r->samples), 256))
		abort();
	r->samples[r->n_samples++] = (struct bench_sample){ .t = t, .rtt_ms = rtt,
							    .phase = (uint8_t)ph };
}

static void test_percentile_grade(void)
{
	double v[100];

	for (int i = 0; i < 100; i++)
		v[i] = i + 1;
	CHECK(bench_percentile(v, 100, 50) == 50, "p50 of 1..100 is 50 (nearest rank)");
	CHECK(bench_percentile(v, 100, 99) == 99, "p99 of 1..100 is 99");
	CHECK(bench_percentile(v, 1, 99) == 1, "a single value is every percentile");
	CHECK(isnan(bench_percentile(v, 0, 50)), "no value: NAN");
	CHECK_EQ_STR(bench_grade(4.9), "A+", "4.9 ms: A+");
	CHECK_EQ_STR(bench_grade(5), "A", "5 ms: A");
	CHECK_EQ_STR(bench_grade(59.9), "B", "59.9 ms: B");
	CHECK_EQ_STR(bench_grade(199), "C", "199 ms: C");
	CHECK_EQ_STR(bench_grade(399), "D", "399 ms: D");
	CHECK_EQ_STR(bench_grade(400), "F", "400 ms: F");
	CHECK_EQ_STR(bench_grade(NAN), "", "NAN: no grade");
}

/* The queues --qdiscs takes: every leaf kind the registry has, then cake shaping alone. */
static void test_queues(void)
{
	const struct bench_queue *x;
	int q, shapers = 0;

	CHECK_EQ_STR(bench_qdisc_name(0), "fifo", "queue 0 is fifo");
	CHECK_EQ_STR(bench_qdisc_name(1), "fq_codel", "queue 1 is fq_codel");
	CHECK_EQ_STR(bench_qdisc_name(2), "cake", "queue 2 is cake");
	for (q = 0; (x = bench_queue((enum bench_qdisc)q)); q++)
		if (x->shaper) {
			CHECK_EQ_STR(x->name, "cake-shaper", "the self-shaping queue is cake-shaper");
			shapers++;
		}
	CHECK(shapers == 1 && q >= 4, "queues: the leaves and one shaper (%d)", q);
	CHECK_EQ_STR(bench_qdisc_name((enum bench_qdisc)q), "?", "past the last queue");
}

/* The run's next flow, its n intervals (t, secs, rate) allocated for the caller to fill. */
static struct bench_flow *add_flow(struct bench_result *r, const char *name, bool up, size_t n)
{
	struct bench_flow *fl = &r->flows[r->n_flows++];

	snprintf(fl->name, sizeof(fl->name), "%s", name);
	fl->up = up;
	fl->n = n;
	fl->t = calloc(fl->n, sizeof(double));
	fl->secs = calloc(fl->n, sizeof(double));
	fl->rate = calloc(fl->n, sizeof(double));
	return fl;
}

/* A 20 s run: idle 0-3 (40 ms), TCP 3-11 (+200 ms, one probe lost), flood 11-17, idle2 */
static void make_run(struct bench_result *r, const struct bench_opts *o)
{
	static const double ph[] = { 0, 3, 11, 17, 20 };

	memset(r, 0, sizeof(*r));
	r->q = 0;	/* the first queue: fifo, the registry's first leaf */
	r->ran = true;
	memcpy(r->phase_start, ph, sizeof(ph));
	r->clients_started = 2.5;	/* probes from 2.5 to 3 are the clients starting */
	for (int i = 0; i < 400; i++) {
		float t = i * 0.05f;
		int p = t < 3 ? 0 : t < 11 ? 1 : t < 17 ? 2 : 3;
		float rtt = p == 1 || p == 2 ? 240 : 40;

		if (t >= 2.5f && t < 3)
			rtt = 900;	/* must not count as idle */
		add_sample(r, t, i == 100 ? NAN : rtt, p);
	}
	/* the shaper sends exactly the rate both ways from t = 3 */
	r->cap_ticks = 201;
	r->ticks = calloc(r->cap_ticks, sizeof(*r->ticks));
	for (int i = 0; i <= 200; i++) {
		struct bench_tick *q = &r->ticks[r->n_ticks++];
		double t = i * 0.1, sent = t > 3 ? (t - 3) * (double)o->rate[1] : 0;

		q->t = (float)t;
		q->bytes[0] = q->bytes[1] = (uint64_t)sent;
		q->qlen[0] = i == 50 ? 700 : 10;
		q->backlog_bytes[1] = i == 60 ? 250000 : 1000;
		q->cpu_total = (uint64_t)i * 100;
		q->cpu_busy = (uint64_t)i * 50;
	}
	/* 4 flows up at 4.5 Mbit/s, 4 down at 2, 4.5, 4.5, 4.5 (0.5 s intervals from t = 3), and
	 * the flood at 30 Mbit/s in its phase, 0 before */
	for (int f = 0; f < 8; f++) {
		char name[16];
		struct bench_flow *fl;

		snprintf(name, sizeof(name), "%s%d", f < 4 ? "up" : "down", f % 4 + 1);
		fl = add_flow(r, name, f < 4, 28);
		for (size_t k = 0; k < fl->n; k++) {
			fl->t[k] = 3 + 0.5 * (double)(k + 1);
			fl->secs[k] = 0.5;
			fl->rate[k] = MBIT(f == 4 ? 2 : 4.5);
		}
	}
	/* 11-17.5: 10 in its first second, 25 after, 5 past its phase */
	struct bench_flow *fl = add_flow(r, "udp-flood", true, 13);

	fl->udp = true;
	for (size_t k = 0; k < fl->n; k++) {
		fl->t[k] = 11 + 0.5 * (double)(k + 1);
		fl->secs[k] = 0.5;
		fl->rate[k] = MBIT(k < 2 ? 10 : k == 12 ? 5 : 25);
	}
}

static void test_derive(void)
{
	struct bench_opts o = { .rate = { 2500000, 2500000 }, .duration_s = 20 };
	struct bench_result r;

	make_run(&r, &o);
	bench_derive(&o, &r);
	CHECK(r.idle.n == 50 && fabs(r.idle.p99 - 40) < 1e-3,
	      "idle: the 50 probes before the clients started, p99 40 ms (got %zu, %.1f)", r.idle.n,
	      r.idle.p99);
	CHECK(fabs(r.baseline_ms - 40) < 1e-3, "baseline: the idle median");
	CHECK(r.loaded.n == 280 && r.loaded.lost == 1, "loaded: TCP and flood phases, 1 lost (%zu, %zu)",
	      r.loaded.n, r.loaded.lost);
	CHECK(fabs(r.induced_p95 - 200) < 1e-3 && fabs(r.induced_mean - 200) < 1e-3,
	      "induced: loaded minus the baseline (%.1f)", r.induced_p95);
	CHECK_EQ_STR(r.grade, "D", "grade on the induced mean: 200 ms is not under 200, so D");
	CHECK(fabs(r.accuracy[0] - 1) < 0.01 && fabs(r.accuracy[1] - 1) < 0.01,
	      "accuracy from the shaper's bytes: 1.0 (%.3f, %.3f)", r.accuracy[0], r.accuracy[1]);
	CHECK(fabs(r.goodput[0] - MBIT(18)) < 1 && fabs(r.goodput[1] - MBIT(15.5)) < 1,
	      "goodput: the flows' sums, bytes/s (%.0f, %.0f)", r.goodput[0], r.goodput[1]);
	CHECK(fabs(r.flows[8].mean - MBIT(25)) < 1e-6,
	      "the flood: over its phase less its first second, not in the goodput (%.2f)",
	      r.flows[8].mean);
	double sx = 4.5 * 7 + 2, sxx = 4.5 * 4.5 * 7 + 4;

	CHECK(fabs(r.jain - sx * sx / (8 * sxx)) < 1e-9, "Jain's index over the 8 flows (%.4f)",
	      r.jain);
	CHECK(r.peak_pkts[0] == 700, "peak queue in packets");
	CHECK(fabs(r.peak_ms[1] - 100) < 1e-6, "peak queue in ms: 250000 B at 20 mbit = 100 ms (%.2f)",
	      r.peak_ms[1]);
	CHECK(fabs(r.cpu_busy - 0.5) < 1e-9, "CPU busy over the window");

	/* the files */
	char dir[] = "/tmp/gwcmp-unit.XXXXXX", path[128], err[128];

	CHECK(mkdtemp(dir) != NULL, "scratch dir");
	snprintf(path, sizeof(path), "%s/results.json", dir);
	CHECK(bench_write_json(path, &o, &r, 1, "host", NULL, err, sizeof(err)) == 0, "results.json written");
	struct json_object *root = json_object_from_file(path), *runs, *v;

	CHECK(root && json_object_object_get_ex(root, "runs", &runs), "results.json parses");
	if (root && runs) {
		struct json_object *run = json_object_array_get_idx(runs, 0), *lat, *ind;

		json_object_object_get_ex(run, "latency_ms", &lat);
		json_object_object_get_ex(lat, "induced", &ind);
		json_object_object_get_ex(ind, "p95", &v);
		CHECK(fabs(json_object_get_double(v) - 200) < 1e-3, "results.json: induced p95");
		json_object_object_get_ex(run, "samples", &v);
		CHECK(json_object_array_length(v) == 400, "results.json: every sample");
		struct json_object *lost = json_object_array_get_idx(json_object_array_get_idx(v, 100), 1);

		CHECK(lost == NULL, "a lost probe's RTT is null");
	}
	json_object_put(root);
	snprintf(path, sizeof(path), "%s/cdf.svg", dir);
	CHECK(bench_svg_cdf(path, &o, &r, 1) == 0, "CDF written");
	snprintf(path, sizeof(path), "%s/time.svg", dir);
	CHECK(bench_svg_timeline(path, &o, &r, 1) == 0, "timeline written");
	snprintf(path, sizeof(path), "%s/flows.svg", dir);
	CHECK(bench_svg_flows(path, &o, &r) == 0, "flows written");
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import sys, xml.etree.ElementTree as E\n"
		 "for f in sys.argv[1:]:\n"
		 " r = E.parse(f).getroot()\n"
		 " assert len(r.findall(\".//{http://www.w3.org/2000/svg}polyline\")) > 0, f' "
		 "%s/cdf.svg %s/time.svg %s/flows.svg", dir, dir, dir);
	CHECK(system(cmd) == 0, "the SVGs are well-formed XML with lines in them");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0, "scratch removed");
	bench_result_free(&r);
}

int main(void)
{
	test_percentile_grade();
	test_queues();
	test_derive();
	return tap_done();
}
