/* tests/unit/test_cmprepeat.c: --compare --repeat's statistics without a bench: the
 * order-statistic interval of a median (coverage, small n, ties, NaN figures left out), the
 * summary of hand-made runs, and results.json with and without repetitions read back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "bench/options.h"
#include "bench/repeat.h"
#include "bench/results.h"
#include "bench/run.h"
#include "tests/unit/tap.h"
#include "webui/benchfile.h"
#include "webui/lastcmp.h"

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static void test_coverage(void)
{
	CHECK(near(bench_ci_coverage(2, 1), 0.5), "2 figures: their range holds the median half the time");
	CHECK(near(bench_ci_coverage(3, 1), 0.75), "3: 75%% (got %g)", bench_ci_coverage(3, 1));
	CHECK(near(bench_ci_coverage(5, 1), 0.9375), "5: 93.75%%, still short of 95%%");
	CHECK(near(bench_ci_coverage(6, 1), 0.96875), "6: 96.875%%, the first n with a 95%% range");
	CHECK(near(bench_ci_coverage(10, 2), 1 - 2 * 11.0 / 1024), "10, k 2: 1 - 2 x 11/1024");
	CHECK(near(bench_ci_coverage(20, 6), 1 - 2 * 21700.0 / 1048576), "20, k 6: 1 - 2 x 21700/2^20");
	CHECK(bench_ci_coverage(1, 1) == 0 && bench_ci_coverage(0, 1) == 0 &&
	      bench_ci_coverage(4, 3) == 0 && bench_ci_coverage(4, 0) == 0, "no interval: one figure, none, k past the middle, k 0");
}

static void test_ci(void)
{
	struct bench_ci ci;
	double one = 7, three[] = { 5, 1, 3 }, four[] = { 4, 1, 3, 2 };
	double ties[] = { 2, 2, 2, 5, 2, 2 }, gaps[] = { NAN, 3, NAN, 1, 2 }, none[] = { NAN, NAN };
	double ten[10], twenty[20];

	bench_ci_of(&one, 1, &ci);
	CHECK(ci.n == 1 && ci.median == 7 && ci.lo == 7 && ci.hi == 7 && ci.coverage == 0,
	      "one figure: the median is it, an interval of no confidence");
	bench_ci_of(three, 3, &ci);
	CHECK(ci.n == 3 && ci.median == 3 && ci.lo == 1 && ci.hi == 5 && ci.k == 1 &&
	      near(ci.coverage, 0.75), "3 out of order: median 3, the range [1, 5] at 75%%");
	CHECK(three[0] == 5 && three[1] == 1, "the figures are not reordered");
	bench_ci_of(four, 4, &ci);
	CHECK(ci.median == 2.5 && ci.lo == 1 && ci.hi == 4 && near(ci.coverage, 0.875),
	      "4: the mean of the two middle ones, 2.5; range at 87.5%% (got %g [%g, %g])",
	      ci.median, ci.lo, ci.hi);
	bench_ci_of(ties, 6, &ci);
	CHECK(ci.n == 6 && ci.median == 2 && ci.lo == 2 && ci.hi == 5 && ci.k == 1,
	      "ties: median 2, [2, 5] (got %g [%g, %g])", ci.median, ci.lo, ci.hi);
	bench_ci_of(gaps, 5, &ci);
	CHECK(ci.n == 3 && ci.median == 2 && ci.lo == 1 && ci.hi == 3,
	      "NaN figures are left out: 3 of 5 count (n %zu, %g [%g, %g])", ci.n, ci.median, ci.lo,
	      ci.hi);
	bench_ci_of(none, 2, &ci);
	CHECK(ci.n == 0 && ci.k == 0 && isnan(ci.median) && isnan(ci.lo) && isnan(ci.hi),
	      "no figure: NaN, no interval");
	for (int i = 0; i < 10; i++)
		ten[i] = 10 - i;
	bench_ci_of(ten, 10, &ci);
	CHECK(ci.median == 5.5 && ci.k == 2 && ci.lo == 2 && ci.hi == 9 && ci.coverage >= 0.95 &&
	      near(ci.coverage, 1 - 2 * 11.0 / 1024),
	      "10: the 2nd smallest and largest, 97.9%% (k 3 would be 89%%)");
	for (int i = 0; i < 20; i++)
		twenty[i] = i;
	bench_ci_of(twenty, 20, &ci);
	CHECK(ci.k == 6 && ci.lo == 5 && ci.hi == 14 && ci.coverage >= 0.95 &&
	      bench_ci_coverage(20, 7) < 0.95, "20: k 6, [x(6), x(15)] (got k %zu)", ci.k);

	struct bench_ci a = { .n = 3, .lo = 1, .hi = 3 }, b = { .n = 3, .lo = 4, .hi = 6 };
	struct bench_ci c = { .n = 3, .lo = 3, .hi = 6 }, d = { .n = 1, .lo = 9, .hi = 9 };

	CHECK(bench_ci_apart(&a, &b) && bench_ci_apart(&b, &a), "[1, 3] and [4, 6] are apart, either way");
	CHECK(!bench_ci_apart(&a, &c), "[1, 3] and [3, 6] touch: overlapping, not apart");
	CHECK(!bench_ci_apart(&a, &d), "a single figure has no interval: never apart");
}

/* A run as results.json has it, with the figures the summary reads. */
static struct json_object *run(const char *label, int rep, bool ran, double good_up,
			       double induced_p50, bool induced_null)
{
	char text[1024], p50[32] = "null";

	if (!induced_null)
		snprintf(p50, sizeof(p50), "%.3f", induced_p50);
	snprintf(text, sizeof(text),
		 "{\"qdisc\": \"fifo\", \"label\": \"%s\", \"repeat\": %d, \"ran\": %s, \"note\": \"\","
		 " \"goodput_bps\": {\"up\": %.3f, \"down\": 1000000},"
		 " \"latency_ms\": {\"induced\": {\"p50\": %s, \"mean\": %.3f},"
		 " \"loaded\": {\"lost\": %d, \"samples\": 50}},"
		 " \"drops\": {\"up\": %d, \"down\": 0}}",
		 label, rep, ran ? "true" : "false", good_up,
		 p50, induced_p50, rep, 10 + rep);
	return json_tokener_parse(text);
}

static struct json_object *fig(struct json_object *s, size_t q, const char *path)
{
	struct json_object *figs = gw_bench_at(json_object_array_get_idx(gw_bench_at(s, "queues"), q), "figures");

	return json_object_object_get(figs, path);
}

static double dbl(struct json_object *o, const char *k)
{
	struct json_object *v = gw_bench_at(o, k);

	return v ? json_object_get_double(v) : NAN;
}

static void test_summary(void)
{
	struct json_object *runs = json_object_new_array(), *s, *d = NULL;

	/* "a" three times, far below "b"'s goodput and latency; b's second did not run, its
	 * third has no induced figure */
	json_object_array_add(runs, run("a", 0, true, 10e6, 5, false));
	json_object_array_add(runs, run("b", 0, true, 20e6, 300, false));
	json_object_array_add(runs, run("a", 1, true, 12e6, 7, false));
	json_object_array_add(runs, run("b", 1, false, 0, 0, false));
	json_object_array_add(runs, run("a", 2, true, 11e6, 6, false));
	json_object_array_add(runs, run("b", 2, true, 22e6, 0, true));
	s = bench_summary_json(runs, 3);
	CHECK(s != NULL, "a summary of 6 runs");
	if (!s)
		return;
	CHECK(json_object_get_int(gw_bench_at(s, "repetitions")) == 3, "repetitions: 3");
	struct json_object *qs = gw_bench_at(s, "queues");

	CHECK(json_object_array_length(qs) == 2 &&
	      !strcmp(json_object_get_string(gw_bench_at(json_object_array_get_idx(qs, 0), "label")), "a") &&
	      !strcmp(json_object_get_string(gw_bench_at(json_object_array_get_idx(qs, 1), "label")), "b"),
	      "a queue per label, in the order they first ran");
	CHECK(json_object_get_int(gw_bench_at(json_object_array_get_idx(qs, 1), "runs")) == 3 &&
	      json_object_get_int(gw_bench_at(json_object_array_get_idx(qs, 1), "ran")) == 2,
	      "b: 3 runs, 2 ran");
	struct json_object *g = fig(s, 0, "goodput_bps.up");

	CHECK(dbl(g, "n") == 3 && dbl(g, "median") == 11e6 && dbl(g, "lo") == 10e6 &&
	      dbl(g, "hi") == 12e6 && dbl(g, "k") == 1 && dbl(g, "coverage") == 0.75,
	      "a's goodput up: 11 Mbit/s [10, 12], k 1, 75%%");
	g = fig(s, 1, "goodput_bps.up");
	CHECK(dbl(g, "n") == 2 && dbl(g, "median") == 21e6 && dbl(g, "coverage") == 0.5,
	      "b's: the two that ran, median 21 Mbit/s, 50%%");
	g = fig(s, 1, "latency_ms.induced.p50");
	CHECK(dbl(g, "n") == 1 && dbl(g, "median") == 300 && dbl(g, "coverage") == 0,
	      "b's induced p50: the null one left out, one figure, no interval");
	g = fig(s, 0, "drops.up");
	CHECK(dbl(g, "median") == 11, "a count's median too (drops.up: 10, 11, 12)");
	g = fig(s, 0, "jain_fairness");
	CHECK(g && dbl(g, "n") == 0 && !gw_bench_at(g, "median"), "a figure no run has: n 0, median null");
	CHECK(!strcmp(json_object_get_string(gw_bench_at(json_object_array_get_idx(qs, 0), "grade")), "A"),
	      "a's grade: of its median induced mean (6 ms: A)");
	for (size_t i = 0; i < json_object_array_length(gw_bench_at(s, "differences")); i++) {
		struct json_object *x = json_object_array_get_idx(gw_bench_at(s, "differences"), i);

		if (!strcmp(json_object_get_string(gw_bench_at(x, "figure")), "goodput_bps.up"))
			d = x;
		if (!strcmp(json_object_get_string(gw_bench_at(x, "figure")), "latency_ms.induced.p50"))
			CHECK(json_object_array_length(gw_bench_at(x, "apart")) == 0 &&
			      json_object_array_length(gw_bench_at(x, "overlap")) == 0,
			      "induced p50: b has no interval, so the pair is in neither list");
	}
	CHECK(d && json_object_array_length(gw_bench_at(d, "apart")) == 1 &&
	      json_object_array_length(gw_bench_at(d, "overlap")) == 0 &&
	      !strcmp(json_object_get_string(json_object_array_get_idx(
			      json_object_array_get_idx(gw_bench_at(d, "apart"), 0), 1)), "b"),
	      "goodput up: a [10, 12] and b [20, 22] apart");
	char cellb[64];

	bench_repeat_cell(cellb, sizeof(cellb), fig(s, 0, "goodput_bps.up"), 1e-6, 2);
	CHECK_EQ_STR(cellb, "11.00 [10.00, 12.00]", "the table's cell: median [lo, hi]");
	bench_repeat_cell(cellb, sizeof(cellb), fig(s, 1, "latency_ms.induced.p50"), 1, 1);
	CHECK_EQ_STR(cellb, "300.0", "one figure: the median alone");
	bench_repeat_cell(cellb, sizeof(cellb), fig(s, 0, "jain_fairness"), 1, 3);
	CHECK_EQ_STR(cellb, "-", "none: -");
	bench_repeat_interval_text(3, cellb, sizeof(cellb));
	CHECK(!strstr(cellb, "a 95%"), "3 repetitions: not called 95%%");
	char text[320];

	bench_repeat_interval_text(3, text, sizeof(text));
	CHECK(strstr(text, "75.0% confidence") && strstr(text, "not 95%"), "3: 75%% said (%s)", text);
	bench_repeat_interval_text(10, text, sizeof(text));
	CHECK(strstr(text, "2nd smallest") && strstr(text, "a 95% confidence interval") &&
	      strstr(text, "97.9% exactly"), "10: the 2nd from each end, 95%% (97.9%% exactly)");
	json_object_put(s);
	json_object_put(runs);

	/* the same label twice in --qdiscs (fifo,fifo): two columns, told apart by their place */
	runs = json_object_new_array();
	for (int i = 0; i < 4; i++) {
		struct json_object *x = run("fifo", i / 2, true, 10e6 + i, 5, false);

		json_object_object_add(x, "position", json_object_new_int(i % 2));
		json_object_array_add(runs, x);
	}
	s = bench_summary_json(runs, 2);
	qs = s ? gw_bench_at(s, "queues") : NULL;
	CHECK(qs && json_object_array_length(qs) == 2 &&
	      !strcmp(json_object_get_string(gw_bench_at(json_object_array_get_idx(qs, 0), "column")), "fifo (1)") &&
	      !strcmp(json_object_get_string(gw_bench_at(json_object_array_get_idx(qs, 1), "column")), "fifo (2)") &&
	      dbl(fig(s, 1, "goodput_bps.up"), "median") == 10e6 + 2,
	      "fifo,fifo: two columns, \"fifo (1)\" and \"fifo (2)\", each with its own runs");
	json_object_put(s);
	json_object_put(runs);
}

/* results.json with --repeat 1 has none of the new keys; with 2, they are there and the
 * reader takes them (runs of the same label twice, the summary, config.repeat). */
static void test_file(void)
{
	struct bench_opts o = { .rate = { 2500000, 2500000 }, .duration_s = 20, .repeat = 1 };
	struct bench_result r[4];
	char dir[] = "/tmp/gwcmp-repeat.XXXXXX", path[128], err[256];
	static struct gw_bench_file rr;

	memset(r, 0, sizeof(r));
	CHECK(mkdtemp(dir) != NULL, "scratch dir");
	for (int i = 0; i < 4; i++) {
		snprintf(r[i].label, sizeof(r[i].label), i % 2 ? "fifo:limit=30" : "fifo");
		r[i].repeat = i / 2;
		snprintf(r[i].note, sizeof(r[i].note), "skipped");
	}
	snprintf(path, sizeof(path), "%s/results.json", dir);
	CHECK(bench_write_json(path, &o, r, 2, "host", NULL, err, sizeof(err)) == 0, "--repeat 1 written");
	struct json_object *root = json_object_from_file(path);

	CHECK(root && !gw_bench_at(root, "summary") && !gw_bench_at(root, "config.repeat") &&
	      !json_object_object_get_ex(json_object_array_get_idx(gw_bench_at(root, "runs"), 0),
					 "repeat", NULL),
	      "--repeat 1: no summary, no config.repeat, no runs[].repeat (the file as before)");
	json_object_put(root);
	o.repeat = 2;
	CHECK(bench_write_json(path, &o, r, 4, "host", NULL, err, sizeof(err)) == 0, "--repeat 2 written");
	root = json_object_from_file(path);
	CHECK(root && gw_bench_at(root, "summary") && json_object_get_int(gw_bench_at(root, "config.repeat")) == 2 &&
	      json_object_get_int(gw_bench_at(json_object_array_get_idx(gw_bench_at(root, "runs"), 3), "repeat")) == 1,
	      "--repeat 2: summary, config.repeat 2, runs[3].repeat 1");
	json_object_put(root);
	memset(&rr, 0, sizeof(rr));
	snprintf(rr.dir, sizeof(rr.dir), "%s", dir);
	CHECK(gw_bench_file_read(&rr, GW_BENCH_SAMPLES, err, sizeof(err)) == 0, "the reader takes a repeated file (%s)", err);
	CHECK(rr.n_cols == 4 && rr.repetitions == 2 && rr.summary && rr.col[0].repeat == 0 &&
	      rr.col[3].repeat == 1, "4 columns, 2 repetitions, each column's own");
	gw_bench_file_free(&rr);
	/* the daemon's status page: the first repetition's runs (it takes at most 8) */
	char *text = NULL, *sum = NULL;
	size_t len = 0, slen = 0;
	FILE *f = fopen(path, "r");

	if (f) {
		text = calloc(1, 1 << 20);
		len = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
		fclose(f);
	}
	CHECK(text && gw_lastcmp_summarize(text, len, "", 0, &sum, &slen, err, sizeof(err)) == 0,
	      "the status page's summary of a repeated file (%s)", sum ? "" : err);
	struct json_object *sj = sum ? json_tokener_parse(sum) : NULL;

	CHECK(sj && json_object_array_length(gw_bench_at(sj, "runs")) == 2,
	      "its runs: the first repetition's two");
	json_object_put(sj);
	free(sum);
	free(text);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	test_coverage();
	test_ci();
	test_summary();
	test_file();
	return tap_done();
}
