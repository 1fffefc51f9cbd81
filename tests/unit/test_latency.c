/* tests/unit/test_latency.c: the latency accumulator on known data: load bands, the idle
 * baseline's dynamics, percentiles, jitter, loss, window expiry and the ring's bound, induced
 * latency with one and several targets, grade bands at their edges, the histogram, and the
 * samples it must not count (unknown load, a target that is down). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "webui/history.h"
#include "probe/latency.h"
#include "probe/links.h"
#include "tests/unit/tap.h"

#define NEAR(a, b, eps) (fabs((a) - (b)) <= (eps))

static struct gw_probe_sample smp(int target, double t, double rtt)
{
	return (struct gw_probe_sample){ .target = target, .sent_mono = t, .target_up = true,
					 .lost = isnan(rtt), .rtt_ms = rtt };
}

static void add(struct gw_latency *l, int target, double t, double rtt, enum gw_load_state st)
{
	struct gw_probe_sample s = smp(target, t, rtt);

	gw_latency_add(l, &s, st);
}

static void test_classify(void)
{
	CHECK(gw_load_classify(0.05, false) == GW_LOAD_IDLE, "5%% and no backlog is idle");
	CHECK(gw_load_classify(0.0, false) == GW_LOAD_IDLE, "0%% is idle");
	CHECK(gw_load_classify(0.0999, false) == GW_LOAD_IDLE, "9.99%% is idle");
	CHECK(gw_load_classify(0.10, false) == GW_LOAD_UNKNOWN, "10%% is between the bands");
	CHECK(gw_load_classify(0.5, false) == GW_LOAD_UNKNOWN, "50%% is between the bands");
	CHECK(gw_load_classify(0.80, false) == GW_LOAD_UNKNOWN, "80%% exactly is not loaded");
	CHECK(gw_load_classify(0.8001, false) == GW_LOAD_LOADED, "80.01%% is loaded");
	CHECK(gw_load_classify(1.2, false) == GW_LOAD_LOADED, "120%% (an htb class borrowing) is loaded");
	CHECK(gw_load_classify(0.05, true) == GW_LOAD_LOADED, "a standing backlog at 5%% is loaded");
	CHECK(gw_load_classify(0.5, true) == GW_LOAD_LOADED, "a standing backlog at 50%% is loaded");
	CHECK(gw_load_classify(NAN, false) == GW_LOAD_UNKNOWN, "no utilisation figure: unknown");
}

static void test_baseline(void)
{
	struct gw_latency *l = gw_latency_new(1000);
	struct gw_snap_latency s;
	double t = 0, want;

	gw_latency_summary(l, 0, &s);
	CHECK(isnan(s.baseline_ms), "no baseline before the first idle reply");
	CHECK_EQ_STR(s.grade, "", "no grade before any sample");
	add(l, 0, t++, 20, GW_LOAD_IDLE);
	gw_latency_summary(l, t, &s);
	CHECK(NEAR(s.baseline_ms, 20, 1e-9), "the first idle reply is the baseline (%g)", s.baseline_ms);
	add(l, 0, t++, 30, GW_LOAD_IDLE);
	gw_latency_summary(l, t, &s);
	CHECK(NEAR(s.baseline_ms, 20.01, 1e-9), "a higher reply raises it by 0.1%% of the gap (%g)",
	      s.baseline_ms);
	add(l, 0, t++, 10, GW_LOAD_IDLE);
	gw_latency_summary(l, t, &s);
	CHECK(NEAR(s.baseline_ms, 0.1 * 20.01 + 9, 1e-9), "a lower reply pulls it 90%% of the way (%g)",
	      s.baseline_ms);
	want = s.baseline_ms;
	for (int i = 0; i < 1000; i++)
		add(l, 0, t++, 30, GW_LOAD_IDLE);
	gw_latency_summary(l, t, &s);
	want = 30 - (30 - want) * pow(0.999, 1000);
	CHECK(NEAR(s.baseline_ms, want, 1e-6) && s.baseline_ms < 25,
	      "1000 replies 19 ms higher raise it only to %.3f ms (want %.3f)", s.baseline_ms, want);
	want = s.baseline_ms;
	for (int i = 0; i < 50; i++)
		add(l, 0, t++, 900, GW_LOAD_LOADED);
	add(l, 0, t++, NAN, GW_LOAD_IDLE);
	gw_latency_summary(l, t, &s);
	CHECK(NEAR(s.baseline_ms, want, 1e-9), "loaded replies and losses leave it alone (%g)",
	      s.baseline_ms);
	gw_latency_free(l);
}

static void test_percentiles(void)
{
	struct gw_latency *l = gw_latency_new(1000);
	struct gw_snap_latency s;
	int order[100];

	/* 1..100 ms in a scrambled order */
	for (int i = 0; i < 100; i++)
		order[i] = (i * 37) % 100 + 1;
	for (int i = 0; i < 100; i++)
		add(l, 0, i, order[i], GW_LOAD_IDLE);
	gw_latency_summary(l, 100, &s);
	CHECK_EQ_INT(s.idle.samples, 100, "100 idle samples");
	CHECK(s.idle.min_ms == 1, "idle min 1 ms (%g)", s.idle.min_ms);
	CHECK(s.idle.p50_ms == 50, "idle p50 of 1..100 is 50 (%g)", s.idle.p50_ms);
	CHECK(s.idle.p90_ms == 90, "idle p90 is 90 (%g)", s.idle.p90_ms);
	CHECK(s.idle.p99_ms == 99, "idle p99 is 99 (%g)", s.idle.p99_ms);
	CHECK(NEAR(s.idle.mean_ms, 50.5, 1e-9), "idle mean 50.5 (%g)", s.idle.mean_ms);
	CHECK(s.loaded.samples == 0 && isnan(s.loaded.p50_ms) && isnan(s.loaded.loss),
	      "no loaded samples: loaded figures NAN");
	CHECK(isnan(s.induced_mean_ms) && s.grade[0] == 0, "no loaded samples: no induced latency, no grade");
	gw_latency_free(l);

	l = gw_latency_new(1000);
	for (int i = 0; i < 5; i++)
		add(l, 0, i, (double[]){ 7, 3, 9, 1, 5 }[i], GW_LOAD_LOADED);
	gw_latency_summary(l, 5, &s);
	CHECK(s.loaded.p50_ms == 5 && s.loaded.p90_ms == 9 && s.loaded.p99_ms == 9 &&
	      s.loaded.min_ms == 1, "5 loaded values: nearest-rank p50 5, p90 9, p99 9, min 1");
	gw_latency_free(l);
}

static void test_jitter(void)
{
	struct gw_latency *l = gw_latency_new(1000);
	struct gw_snap_latency s;

	add(l, 0, 0, 10, GW_LOAD_IDLE);
	gw_latency_summary(l, 1, &s);
	CHECK(isnan(s.idle.jitter_ms), "one reply: no jitter");
	add(l, 0, 1, 12, GW_LOAD_IDLE);
	add(l, 0, 2, NAN, GW_LOAD_IDLE);	/* a loss does not break the pair */
	add(l, 0, 3, 9, GW_LOAD_IDLE);
	add(l, 0, 4, 15, GW_LOAD_IDLE);
	gw_latency_summary(l, 5, &s);
	CHECK(NEAR(s.idle.jitter_ms, 11.0 / 3, 1e-6), "IPDV of 10,12,9,15 is (2+3+6)/3 (%g)",
	      s.idle.jitter_ms);
	gw_latency_free(l);

	l = gw_latency_new(1000);
	for (int i = 0; i < 10; i++) {
		add(l, 0, i, 10, GW_LOAD_IDLE);
		add(l, 1, i + 0.5, 50, GW_LOAD_IDLE);
	}
	gw_latency_summary(l, 11, &s);
	CHECK(s.idle.jitter_ms == 0, "two steady targets 40 ms apart interleaved: jitter 0 (%g)",
	      s.idle.jitter_ms);
	gw_latency_free(l);
}

static void test_loss(void)
{
	struct gw_latency *l = gw_latency_new(1000);
	struct gw_snap_latency s;
	struct gw_probe_sample down;

	for (int i = 0; i < 10; i++)
		add(l, 0, i, i % 5 == 0 ? NAN : 10, GW_LOAD_IDLE);
	for (int i = 0; i < 4; i++)
		add(l, 0, 10 + i, i == 0 ? NAN : 40, GW_LOAD_LOADED);
	/* a dead target: lost, and down; its losses are not the link's */
	down = smp(3, 12, NAN);
	down.target_up = false;
	for (int i = 0; i < 50; i++)
		gw_latency_add(l, &down, GW_LOAD_IDLE);
	gw_latency_summary(l, 15, &s);
	CHECK(s.idle.samples == 10 && s.idle.lost == 2 && NEAR(s.idle.loss, 0.2, 1e-12),
	      "idle: 2 of 10 lost, loss 0.2 (got %llu/%llu %g)", (unsigned long long)s.idle.lost,
	      (unsigned long long)s.idle.samples, s.idle.loss);
	CHECK(s.loaded.samples == 4 && s.loaded.lost == 1 && NEAR(s.loaded.loss, 0.25, 1e-12),
	      "loaded: 1 of 4 lost, loss 0.25");
	CHECK(s.idle.p50_ms == 10 && s.idle.min_ms == 10, "losses are not in the percentiles");
	CHECK_EQ_INT(s.hist_count, 11, "the histogram counts replies only");
	gw_latency_free(l);
}

static void test_ignored(void)
{
	struct gw_latency *l = gw_latency_new(1000);
	struct gw_snap_latency before, after;
	struct gw_probe_sample s;

	add(l, 0, 0, 20, GW_LOAD_IDLE);
	add(l, 0, 1, 60, GW_LOAD_LOADED);
	gw_latency_summary(l, 2, &before);
	for (int i = 0; i < 20; i++)
		add(l, 0, 1.5, i % 2 ? 500 : NAN, GW_LOAD_UNKNOWN);
	gw_latency_summary(l, 2, &after);
	CHECK(after.idle.samples == 1 && after.loaded.samples == 1 && after.baseline_ms == 20 &&
	      after.loaded.p99_ms == 60 && after.idle.p99_ms == 20,
	      "samples in the unknown band count as neither idle nor loaded, nor move the baseline");
	CHECK(after.hist_count == before.hist_count + 10, "...but their replies are in the histogram");
	s = smp(0, 1.6, 1);
	s.target_up = false;
	gw_latency_add(l, &s, GW_LOAD_IDLE);
	s = smp(0, 1.6, 900);
	s.target_up = false;
	gw_latency_add(l, &s, GW_LOAD_LOADED);
	s = smp(GW_MAX_PROBE_TARGETS, 1.6, 1);	/* no such target */
	gw_latency_add(l, &s, GW_LOAD_IDLE);
	s = smp(-1, 1.6, 1);
	gw_latency_add(l, &s, GW_LOAD_IDLE);
	s = smp(0, 1.6, 1);
	s.rtt_ms = NAN;
	s.lost = false;	/* a reply without a time */
	gw_latency_add(l, &s, GW_LOAD_IDLE);
	gw_latency_summary(l, 2, &before);
	CHECK(before.idle.samples == 1 && before.loaded.samples == 1 && before.baseline_ms == 20 &&
	      before.hist_count == after.hist_count,
	      "samples of a down target, of no target, or without a time count nowhere");
	gw_latency_free(l);
}

static void test_window(void)
{
	struct gw_latency *l = gw_latency_new(10);
	struct gw_snap_latency s;
	size_t bytes = gw_latency_bytes(l);

	for (int i = 0; i < 100; i++)	/* 10 s of 10 Hz at 100 ms */
		add(l, 0, i * 0.1, 100, GW_LOAD_LOADED);
	for (int i = 0; i < 100; i++)	/* then 10 s at 10 ms */
		add(l, 0, 10 + i * 0.1, 10, GW_LOAD_IDLE);
	gw_latency_summary(l, 15, &s);
	CHECK(s.loaded.samples == 50 && s.idle.samples == 100,
	      "at 15 s a 10 s window holds the last 5 s of the first phase (got %llu loaded)",
	      (unsigned long long)s.loaded.samples);
	gw_latency_summary(l, 20.0, &s);
	CHECK(s.loaded.samples == 0 && isnan(s.loaded.p50_ms) && s.idle.samples == 100,
	      "at 20 s the loaded phase has left the window");
	CHECK_EQ_INT(s.hist_count, 200, "the histogram keeps every reply since start");
	gw_latency_summary(l, 40, &s);
	CHECK(s.idle.samples == 0 && s.baseline_ms == 10, "an empty window keeps the baseline");
	for (int i = 0; i < 100000; i++)	/* 100 kHz: far above the rate the ring is sized for */
		add(l, 0, 50 + i * 1e-5, 10 + i % 7, GW_LOAD_IDLE);
	gw_latency_summary(l, 51, &s);
	CHECK(gw_latency_bytes(l) == bytes && s.idle.samples == 10 * (size_t)GW_LATENCY_DEFAULT_RATE,
	      "a stream faster than sized keeps only the newest %g samples, memory fixed at %zu bytes",
	      10 * GW_LATENCY_DEFAULT_RATE, bytes);
	CHECK(gw_latency_reserve(l, 1000) == 0 && gw_latency_bytes(l) > bytes,
	      "reserve grows the ring");
	gw_latency_summary(l, 51, &s);
	CHECK(s.idle.samples == 10 * (size_t)GW_LATENCY_DEFAULT_RATE, "...and keeps its samples");
	for (int i = 0; i < 5000; i++)
		add(l, 0, 52 + i * 1e-4, 10, GW_LOAD_IDLE);
	gw_latency_summary(l, 53, &s);
	CHECK(s.idle.samples == 6000, "...and holds more after (%llu)",
	      (unsigned long long)s.idle.samples);
	gw_latency_free(l);
}

static void test_induced(void)
{
	struct gw_latency *l = gw_latency_new(1000);
	struct gw_snap_latency s;
	double t = 0;

	for (int i = 0; i < 20; i++)
		add(l, 0, t++, 20, GW_LOAD_IDLE);
	for (int i = 1; i <= 100; i++)
		add(l, 0, t++, 20 + (i * 37) % 100 + 1 - 1, GW_LOAD_LOADED);
	gw_latency_summary(l, t, &s);
	CHECK(s.induced_p50_ms == s.loaded.p50_ms - 20 && s.induced_p99_ms == s.loaded.p99_ms - 20,
	      "one target: induced = loaded percentile - baseline (p50 %g, p99 %g)",
	      s.induced_p50_ms, s.induced_p99_ms);
	CHECK(NEAR(s.induced_mean_ms, s.loaded.mean_ms - 20, 1e-6), "induced mean %g", s.induced_mean_ms);
	CHECK_EQ_STR(s.grade, "B", "induced mean 50.5 ms is grade B");
	gw_latency_free(l);

	l = gw_latency_new(1000);
	for (int i = 0; i < 10; i++) {
		add(l, 0, i, 10, GW_LOAD_IDLE);
		add(l, 1, i, 50, GW_LOAD_IDLE);
	}
	for (int i = 0; i < 10; i++) {
		add(l, 0, 10 + i, 13, GW_LOAD_LOADED);
		add(l, 1, 10 + i, 53, GW_LOAD_LOADED);
		add(l, 2, 10 + i, 500, GW_LOAD_LOADED);	/* no idle reply yet: no baseline */
	}
	gw_latency_summary(l, 21, &s);
	CHECK(NEAR(s.induced_p99_ms, 3, 1e-6) && NEAR(s.induced_mean_ms, 3, 1e-6),
	      "two targets 40 ms apart, each 3 ms over its own baseline: induced 3 ms (%g)",
	      s.induced_p99_ms);
	CHECK(NEAR(s.baseline_ms, 30, 1e-9), "the baseline shown is the targets' mean (%g)",
	      s.baseline_ms);
	CHECK(s.loaded.samples == 30 && s.loaded.p99_ms == 500,
	      "a target without a baseline counts in loaded, not in induced");
	CHECK_EQ_STR(s.grade, "A+", "3 ms is A+");
	gw_latency_free(l);

	l = gw_latency_new(1000);
	add(l, 0, 0, 10, GW_LOAD_IDLE);
	add(l, 1, 0, 50, GW_LOAD_IDLE);
	gw_latency_forget_target(l, 1);	/* a reload put another host at index 1 */
	add(l, 1, 1, 80, GW_LOAD_IDLE);
	gw_latency_summary(l, 2, &s);
	CHECK(NEAR(s.baseline_ms, 45, 1e-9), "a forgotten target's baseline starts again (%g)",
	      s.baseline_ms);
	gw_latency_free(l);

	l = gw_latency_new(1000);
	add(l, 0, 0, 20, GW_LOAD_LOADED);
	gw_latency_summary(l, 1, &s);
	CHECK(isnan(s.baseline_ms) && isnan(s.induced_mean_ms) && s.grade[0] == 0,
	      "loaded without any idle reply: no baseline, no induced latency, no grade");
	gw_latency_free(l);
}

static void test_grades(void)
{
	static const struct {
		double ms;
		const char *grade;
	} cases[] = {
		{ -2, "A+" }, { 0, "A+" }, { 4.999, "A+" }, { 5, "A" }, { 29.999, "A" }, { 30, "B" },
		{ 59.999, "B" }, { 60, "C" }, { 199.999, "C" }, { 200, "D" }, { 399.999, "D" },
		{ 400, "F" }, { 5000, "F" }, { INFINITY, "F" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_EQ_STR(gw_latency_grade(cases[i].ms), cases[i].grade, "grade band edge");
	CHECK_EQ_STR(gw_latency_grade(NAN), "", "NAN has no grade");
}

static void test_histogram(void)
{
	static const double bounds[GW_SNAP_RTT_BUCKETS] = GW_SNAP_RTT_BOUNDS;
	struct gw_latency *l = gw_latency_new(10);
	struct gw_snap_latency s;
	const double rtts[] = { 0.5, 1.0, 3, 25, 30, 3000 };
	bool ok = true;

	for (size_t i = 0; i < sizeof(rtts) / sizeof(rtts[0]); i++)
		add(l, 0, (double)i, rtts[i], i % 2 ? GW_LOAD_LOADED : GW_LOAD_IDLE);
	add(l, 0, 7, NAN, GW_LOAD_IDLE);
	gw_latency_summary(l, 100, &s);	/* long after the window: the histogram stays */
	for (int b = 0; b < GW_SNAP_RTT_BUCKETS; b++) {
		uint64_t want = 0;

		for (size_t i = 0; i < sizeof(rtts) / sizeof(rtts[0]); i++)
			want += rtts[i] / 1000 <= bounds[b];
		if (s.hist_le[b] != want) {
			ok = false;
			printf("# bucket le=%g: %llu, want %llu\n", bounds[b],
			       (unsigned long long)s.hist_le[b], (unsigned long long)want);
		}
	}
	CHECK(ok && s.hist_le[0] == 2 && s.hist_le[5] == 5 && s.hist_le[13] == 5,
	      "cumulative buckets (1 ms holds 0.5 and 1.0; 30 ms holds 5; 3 s only in +Inf)");
	CHECK(s.hist_count == 6 && NEAR(s.hist_sum_s, 3.0595, 1e-9), "count 6, sum 3.0595 s (%g)",
	      s.hist_sum_s);
	gw_latency_free(l);
}

/* The history keeps baseline, loaded p50 and p99 for tracked series only. */
static void test_history(void)
{
	struct gw_history *h = gw_history_new(3, 1000000);
	struct gw_hist_point p[200];
	size_t plain;
	int n;
	bool ok = true;

	plain = gw_history_bytes(h);
	CHECK(gw_history_track_latency(h, 1) == 0 && gw_history_track_latency(h, 1) == 0 &&
	      gw_history_track_latency(h, 3) == -ENOENT, "track a series (twice is once; no such series)");
	CHECK(gw_history_bytes(h) - plain == (900 + 1440) * 6,
	      "one tracked series costs 6 bytes a raw and a minute point (%zu)",
	      gw_history_bytes(h) - plain);
	/* minute 1000 (t 60000..60059): 3 passes with figures and one without */
	for (int i = 0; i < 4; i++) {
		gw_history_pass(h, 60000 + i);
		for (size_t k = 0; k < 3; k++)
			gw_history_push(h, k, 1e6, 1, 0, 100);
		if (i < 3)
			gw_history_push_latency(h, 1, 20 + i, 30 + i, 50 + 10 * i);
		gw_history_push_latency(h, 0, 1, 1, 1);	/* untracked: ignored */
	}
	gw_history_pass(h, 60060);	/* the next minute closes the first */
	n = gw_history_query(h, 1, 0, 1e9, false, p, 200);
	CHECK(n == 5 && fabs(p[0].baseline_ms - 20) < 0.02 && fabs(p[2].loaded_p50_ms - 32) < 0.03 &&
	      fabs(p[2].loaded_p99_ms - 70) < 0.05 && isnan(p[3].baseline_ms) && isnan(p[4].loaded_p99_ms),
	      "raw: the figures of each pass, NAN for a pass without (%g %g %g %g)", p[0].baseline_ms,
	      p[2].loaded_p50_ms, p[2].loaded_p99_ms, p[3].baseline_ms);
	n = gw_history_query(h, 0, 0, 1e9, false, p, 200);
	for (int i = 0; i < n; i++)
		ok = ok && isnan(p[i].baseline_ms) && isnan(p[i].loaded_p50_ms) &&
		     (i == 4 || p[i].rate_bps_avg > 0);
	CHECK(n == 5 && ok, "an untracked series has no latency");
	n = gw_history_query(h, 1, 0, 1e9, true, p, 200);
	CHECK(n == 1 && fabs(p[0].baseline_ms - 21) < 0.02 && fabs(p[0].loaded_p50_ms - 31) < 0.03 &&
	      fabs(p[0].loaded_p99_ms - 70) < 0.05,
	      "minute: average baseline and p50, worst p99 (%g %g %g)", p[0].baseline_ms,
	      p[0].loaded_p50_ms, p[0].loaded_p99_ms);
	for (int i = 0; i < 1000; i++) {	/* the raw ring wraps: old figures do not come back */
		gw_history_pass(h, 60061 + i);
		gw_history_push(h, 1, 1e6, 1, 0, 100);
	}
	n = gw_history_query(h, 1, 0, 1e9, false, p, 200);
	ok = n > 0;
	for (int i = 0; i < n; i++)
		ok = ok && isnan(p[i].baseline_ms);
	CHECK(ok, "after the raw ring wrapped no stale figure shows");
	gw_history_free(h);
}

/* A snapshot of link wan's two directions with the given loads. */
static void snap_dirs(struct gw_snapshot *snap, struct gw_snap_dir *d, double util_e,
		      uint32_t backlog_e, double util_i)
{
	memset(snap, 0, sizeof(*snap));
	memset(d, 0, 2 * sizeof(*d));
	for (int k = 0; k < 2; k++) {
		snprintf(d[k].link, sizeof(d[k].link), "wan");
		snprintf(d[k].direction, sizeof(d[k].direction), "%s", k ? "ingress" : "egress");
		d[k].total.utilisation = k ? util_i : util_e;
		d[k].total.achieved_bytes_per_s = (d[k].total.utilisation * 20e6 + 1000) / 8;
		d[k].total.backlog_bytes = k ? 0 : backlog_e;
	}
	snap->dirs = d;
	snap->n_dirs = 2;
}

static void feed(struct gw_probe_links *m, double sent, double rtt)
{
	struct gw_probe_sample s = smp(0, sent, rtt);

	gw_probe_links_sample(m, &s);
}

/* The daemon's judging: a sample takes the verdict of the pass that covers its send time, for
 * each direction its own; the first pass gives none. (The prober itself may not start here:
 * the interface is made up; the accumulators work regardless.) */
static int tapped;

static void tap_count(void *ctx, const struct gw_probe_sample *s)
{
	(void)s;
	(*(int *)ctx)++;
}

static void test_probing(void)
{
	static const char conf[] =
		"links = ( { name = \"wan\"; interface = \"gwtestnone0\";\n"
		"  egress = { shaper = \"htb\"; rate = \"20mbit\"; };\n"
		"  ingress = { shaper = \"htb\"; rate = \"20mbit\"; }; } );\n"
		"probe = { targets = [ \"192.0.2.1\" ]; interval = \"100ms\"; };\n";
	struct gw_snap_dir d[2];
	struct gw_snapshot snap;
	struct gw_config *cfg;
	struct gw_probe_links *m;
	char err[256];

	if (!CHECK(gw_config_load_string("t", conf, &cfg, err, sizeof(err)) == 0, "config: %s", err))
		return;
	if (!CHECK(gw_probe_links_new(cfg, &m) == 0, "the daemon's probing made"))
		return;
	feed(m, 0.5, 30);	/* before any pass: the first pass covers it, with no verdict */
	snap_dirs(&snap, d, 0.05, 0, 0.05);
	gw_probe_links_pass(m, &snap, 1.0);
	feed(m, 1.2, 10);
	feed(m, 1.5, 10);
	snap_dirs(&snap, d, 0.02, 0, 0.9);	/* egress idle, ingress loaded */
	gw_probe_links_pass(m, &snap, 2.0);
	CHECK(d[0].latency.present && d[0].latency.idle.samples == 2 && d[0].latency.loaded.samples == 0 &&
	      d[1].latency.loaded.samples == 2 && d[1].latency.idle.samples == 0,
	      "each direction judges the same samples by its own load (egress idle %llu, ingress loaded %llu)",
	      (unsigned long long)d[0].latency.idle.samples, (unsigned long long)d[1].latency.loaded.samples);
	CHECK(snap.probe.enabled && snap.probe.n_targets == 1 && !strcmp(snap.probe.targets[0].host, "192.0.2.1"),
	      "the snapshot names the targets (%s)", gw_probe_links_error(m));
	feed(m, 2.3, 100);
	snap_dirs(&snap, d, 0.3, 3000, 0.05);	/* egress: no standing backlog yet (first of two) */
	gw_probe_links_pass(m, &snap, 3.0);
	feed(m, 2.5, NAN);	/* a loss, judged a timeout later: its pass is the one at 3.0 */
	feed(m, 3.5, 100);
	snap_dirs(&snap, d, 0.3, 3000, 0.05);	/* egress: backlogged at both ends now: loaded */
	gw_probe_links_pass(m, &snap, 4.0);
	CHECK(d[0].latency.idle.samples == 2 && d[0].latency.loaded.samples == 1 &&
	      d[0].latency.loaded.p50_ms == 100 && d[0].latency.loaded.lost == 0,
	      "egress: 30%% with a passing backlog is neither; a standing backlog is loaded (%llu loaded)",
	      (unsigned long long)d[0].latency.loaded.samples);
	CHECK(d[1].latency.idle.samples == 3 && d[1].latency.idle.lost == 1 &&
	      d[1].latency.loaded.samples == 2,
	      "ingress: a late loss takes the verdict of the pass at its send time (idle %llu, lost %llu)",
	      (unsigned long long)d[1].latency.idle.samples, (unsigned long long)d[1].latency.idle.lost);
	CHECK(d[0].latency.hist_count == 5 && isnan(d[0].latency.pass_loaded_p99_ms) == false,
	      "every reply in the histogram (%llu), this pass's loaded figures set",
	      (unsigned long long)d[0].latency.hist_count);
	/* a load test's tap: every sample as it comes, until cleared; the judging goes on */
	CHECK(!gw_probe_links_running(m), "no prober on a made-up interface (%s)", gw_probe_links_error(m));
	gw_probe_links_tap(m, tap_count, &tapped);
	feed(m, 4.2, 20);
	feed(m, 4.4, NAN);
	gw_probe_links_tap(m, NULL, NULL);
	feed(m, 4.6, 20);
	CHECK(tapped == 2, "the tap saw the 2 samples while it was set (%d)", tapped);
	snap_dirs(&snap, d, 0.02, 0, 0.02);
	gw_probe_links_pass(m, &snap, 5.0);
	CHECK(d[0].latency.idle.samples == 5, "tapped samples are judged as well (%llu idle)",
	      (unsigned long long)d[0].latency.idle.samples);
	gw_probe_links_free(m);
	gw_config_free(cfg);
}

/* Two links, each its own probe block: each link's samples judged against its own load only,
 * in its own directions; the snapshot lists both probers; the hook sees every judged sample
 * with its link's load; a reload keeps an unchanged link's figures, drops a link no longer
 * probed and starts one newly probed. */
#define TWO_LINKS(wan_probe, lte_probe, global) \
	"links = ( { name = \"wan\"; interface = \"gwtestnone0\";\n" \
	"  egress = { shaper = \"htb\"; rate = \"20mbit\"; };\n" \
	"  ingress = { shaper = \"htb\"; rate = \"20mbit\"; };\n" \
	"  " wan_probe " },\n" \
	"  { name = \"lte\"; interface = \"gwtestnone1\";\n" \
	"  egress = { shaper = \"htb\"; rate = \"5mbit\"; };\n" \
	"  ingress = { shaper = \"htb\"; rate = \"10mbit\"; };\n" \
	"  " lte_probe " } );\n" global

struct hooked {
	int n[2];		/* samples per link: wan, lte */
	int loaded_egress[2];	/* of which judged under a loaded egress */
	uint64_t rate[2];	/* egress rate the hook was told */
	bool ingress_present;
};

static void hook_count(void *ctx, const struct gw_probe_links_judged *j)
{
	struct hooked *h = ctx;
	int k = !strcmp(j->link, "lte");

	h->n[k]++;
	h->loaded_egress[k] += j->dir[GW_DIR_EGRESS].state == GW_LOAD_LOADED;
	h->rate[k] = j->dir[GW_DIR_EGRESS].rate_bytes_per_s;
	h->ingress_present = j->dir[GW_DIR_INGRESS].present;
}

/* wan and lte, egress and ingress each; wan's egress at util_wan, everything else idle. */
static void snap_two(struct gw_snapshot *snap, struct gw_snap_dir *d, double util_wan)
{
	free(snap->probes);
	memset(snap, 0, sizeof(*snap));
	memset(d, 0, 4 * sizeof(*d));
	for (int k = 0; k < 4; k++) {
		snprintf(d[k].link, sizeof(d[k].link), "%s", k < 2 ? "wan" : "lte");
		snprintf(d[k].direction, sizeof(d[k].direction), "%s", k % 2 ? "ingress" : "egress");
		d[k].total.utilisation = k == 0 ? util_wan : 0.02;
		d[k].total.achieved_bytes_per_s = (d[k].total.utilisation * 20e6 + 1000) / 8;
	}
	snap->dirs = d;
	snap->n_dirs = 4;
}

static void feed_link(struct gw_probe_links *m, const char *link, double sent, double rtt)
{
	struct gw_probe_sample s = smp(0, sent, rtt);

	CHECK(gw_probe_links_sample_link(m, link, &s) == 0, "a sample for link %s", link);
}

static struct gw_config *two_links(const char *text)
{
	struct gw_config *cfg = NULL;
	char err[256];

	if (!CHECK(gw_config_load_string("t", text, &cfg, err, sizeof(err)) == 0, "config: %s", err))
		return NULL;
	return cfg;
}

static void test_probing_links(void)
{
	struct gw_config *cfg = two_links(TWO_LINKS(
		"probe = { targets = [ \"192.0.2.1\" ]; };",
		"probe = { targets = [ \"198.51.100.1\", \"198.51.100.2\" ];\n"
		"  interval = \"50ms\"; };", ""));
	struct gw_config *next;
	struct gw_snap_dir d[4];
	struct gw_snapshot snap = { 0 };
	struct hooked h;
	struct gw_probe_sample s;
	struct gw_probe_links *m;

	memset(&h, 0, sizeof(h));
	if (!cfg || !CHECK(gw_probe_links_new(cfg, &m) == 0, "two links' probing made"))
		return;
	CHECK_EQ_INT(gw_probe_links_count(m), 2, "two probed links");
	CHECK(strstr(gw_probe_links_error(m), "link 'wan' (gwtestnone0) not running") &&
	      strstr(gw_probe_links_error(m), "link 'lte' (gwtestnone1) not running"),
	      "each link's prober says why it is not running (%s)", gw_probe_links_error(m));
	CHECK(!gw_probe_links_running(m), "no global block: no load test's prober");
	s = smp(0, 0.1, 10);
	CHECK(gw_probe_links_sample_link(m, "dsl", &s) == -ENOENT, "no such probed link: -ENOENT");
	gw_probe_links_set_hook(m, hook_count, &h);
	snap_two(&snap, d, 0.02);
	gw_probe_links_pass(m, &snap, 1.0);	/* the first pass: no verdict */
	for (int i = 0; i < 4; i++) {
		feed_link(m, "wan", 1.1 + i * 0.2, 80);	/* wan's queue full */
		feed_link(m, "lte", 1.1 + i * 0.2, 30);
	}
	snap_two(&snap, d, 0.95);			/* wan's egress loaded */
	gw_probe_links_pass(m, &snap, 2.0);
	CHECK(d[0].latency.present && d[0].latency.loaded.samples == 4 &&
	      d[0].latency.loaded.p50_ms == 80 && d[1].latency.idle.samples == 4,
	      "wan: its samples, egress loaded, ingress idle (%llu loaded, %llu idle)",
	      (unsigned long long)d[0].latency.loaded.samples,
	      (unsigned long long)d[1].latency.idle.samples);
	CHECK(d[2].latency.present && d[2].latency.loaded.samples == 0 &&
	      d[2].latency.idle.samples == 4 && d[2].latency.idle.p50_ms == 30 &&
	      d[3].latency.idle.samples == 4,
	      "lte: its own samples only, idle by its own load (%llu idle, p50 %g)",
	      (unsigned long long)d[2].latency.idle.samples, d[2].latency.idle.p50_ms);
	CHECK(h.n[0] == 4 && h.n[1] == 4 && h.loaded_egress[0] == 4 && h.loaded_egress[1] == 0,
	      "the hook: every judged sample with its link's load (wan %d/%d loaded, lte %d/%d)",
	      h.loaded_egress[0], h.n[0], h.loaded_egress[1], h.n[1]);
	CHECK(h.rate[0] == 20000000 / 8 && h.rate[1] == 5000000 / 8 && h.ingress_present,
	      "the hook: each link's configured rate (%llu, %llu)", (unsigned long long)h.rate[0],
	      (unsigned long long)h.rate[1]);
	CHECK(snap.probe.enabled && !strcmp(snap.probe.link, "wan"),
	      "probe: the first link's without a global block (%s)", snap.probe.link);
	CHECK(snap.n_probes == 2 && snap.probes && !strcmp(snap.probes[0].link, "wan") &&
	      !strcmp(snap.probes[1].link, "lte") && snap.probes[1].n_targets == 2 &&
	      !strcmp(snap.probes[1].targets[1].host, "198.51.100.2") &&
	      snap.probes[1].interval_us == 50000,
	      "probes: both links' probers, each with its own targets");

	/* lte's targets change, wan's block stays: wan's figures and lte's (same interface) stay */
	next = two_links(TWO_LINKS("probe = { targets = [ \"192.0.2.1\" ]; };",
				   "probe = { targets = [ \"198.51.100.1\" ]; };", ""));
	if (next) {
		gw_probe_links_reload(m, next);
		gw_config_free(cfg);
		cfg = next;
	}
	snap_two(&snap, d, 0.02);
	gw_probe_links_pass(m, &snap, 3.0);
	CHECK(d[0].latency.loaded.samples == 4 && d[2].latency.idle.samples == 4 &&
	      snap.n_probes == 2 && snap.probes[1].n_targets == 1,
	      "reload: both links' figures kept, lte's new targets shown (%llu, %llu)",
	      (unsigned long long)d[0].latency.loaded.samples,
	      (unsigned long long)d[2].latency.idle.samples);

	/* wan's block goes, lte's stays: wan is not probed any more */
	next = two_links(TWO_LINKS("", "probe = { targets = [ \"198.51.100.1\" ]; };", ""));
	if (next) {
		gw_probe_links_reload(m, next);
		gw_config_free(cfg);
		cfg = next;
	}
	snap_two(&snap, d, 0.02);
	gw_probe_links_pass(m, &snap, 4.0);
	CHECK(gw_probe_links_count(m) == 1 && !d[0].latency.present && d[2].latency.present &&
	      d[2].latency.idle.samples == 4 && !strcmp(snap.probe.link, "lte"),
	      "reload: wan no longer probed, lte's figures kept (%zu probed)", gw_probe_links_count(m));
	s = smp(0, 4.1, 10);
	CHECK(gw_probe_links_sample_link(m, "wan", &s) == -ENOENT, "wan's prober gone");

	/* the global block comes for wan: probe is the global block's, probes lists both */
	next = two_links(TWO_LINKS("", "probe = { targets = [ \"198.51.100.1\" ]; };",
				   "probe = { targets = \"192.0.2.7\"; };\n"));
	if (next) {
		gw_probe_links_reload(m, next);
		gw_config_free(cfg);
		cfg = next;
	}
	feed_link(m, "wan", 4.2, 15);
	snap_two(&snap, d, 0.02);
	gw_probe_links_pass(m, &snap, 5.0);
	CHECK(gw_probe_links_count(m) == 2 && !strcmp(snap.probe.link, "wan") &&
	      !strcmp(snap.probe.targets[0].host, "192.0.2.7") && snap.n_probes == 2 &&
	      !strcmp(snap.probes[0].link, "wan") && d[0].latency.present &&
	      d[0].latency.hist_count == 1,
	      "reload: the global block's wan prober started, probe is its (%s)", snap.probe.link);
	gw_probe_links_set_hook(m, NULL, NULL);
	free(snap.probes);
	gw_probe_links_free(m);
	gw_config_free(cfg);
}

int main(void)
{
	test_classify();
	test_baseline();
	test_percentiles();
	test_jitter();
	test_loss();
	test_ignored();
	test_window();
	test_induced();
	test_grades();
	test_histogram();
	test_history();
	test_probing();
	test_probing_links();
	return tap_done();
}
