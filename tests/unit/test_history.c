/* tests/unit/test_history.c: the packed history rings answer every query as a model of the
 * history's contract says they must (history_model.h: the doubles pushed, plain arithmetic,
 * no code of history.c's), each figure within half of a 16-bit code of the exact one, over
 * known series: constant, chaotic (0, NAN, negative, infinite, out of range), rates from
 * counters that wrap and reset, gaps, steps, latency and the shaper's rate; through both
 * rings' wraps, a jump in time and a reload's carry. And what idle and busy series cost. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "webui/history.h"
#include "gatewayd/sampler.h"
#include "tests/unit/history_model.h"
#include "tests/unit/tap.h"

#define N_SER 8
#define MAXPTS 2000

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double uni(void)
{
	return (double)(next() >> 11) / 9007199254740992.0;
}

/* log-uniform over 2^lo .. 2^hi */
static double logu(double lo, double hi)
{
	return exp2(lo + (hi - lo) * uni());
}

static double chaos(void)
{
	static const double special[] = { 0, NAN, -1, INFINITY, -INFINITY, 1e-9, 1e20, 5e-5,
					  65536.0 * 65536.0 * 65536.0 };

	if (next() % 4 == 0)
		return special[next() % (sizeof(special) / sizeof(special[0]))];
	return logu(-20, 50);
}

struct feed {
	struct gw_counters total, last;
	bool first;
	uint32_t bytes32, drops32;	/* the kernel's 32-bit counters */
	uint64_t bytes64;		/* the 64-bit byte counter (goes back on a reset) */
	double walk, level;
};

/* Rates from counters: 32-bit drops wrap, the byte counter resets now and then (a
 * recreated object), as the sampler folds them. */
static void counter_rates(struct feed *f, double dt, double *rate, double *drops)
{
	struct gw_counters now = { 0 }, d;

	f->bytes64 += next() % 3000000;
	f->drops32 += (uint32_t)(next() % 1000) + (next() % 50 == 0 ? 4294000000u : 0);
	if (next() % 200 == 0)
		f->bytes64 = next() % 1000;	/* recreated: counts from zero */
	now.bytes = f->bytes64;
	now.drops = f->drops32;
	gw_counters_advance(&f->total, &f->last, &now, f->first, &d);
	f->first = false;
	*rate = dt > 0 ? (double)d.bytes * 8 / dt : NAN;
	*drops = dt > 0 ? (double)d.drops / dt : NAN;
}

/* One pass of every pattern into the history and the model. */
static void pass(struct gw_history *h, struct hm *r, struct feed *f, uint64_t k,
		 double t, double dt)
{
	double v[N_SER][4] = { { 0 } };
	bool push[N_SER];

	gw_history_pass(h, t);
	hm_pass(r, t);
	for (int i = 0; i < N_SER; i++)
		push[i] = i != 0;
	/* 1: constant */
	v[1][0] = 12.5e6, v[1][1] = 3, v[1][2] = 0, v[1][3] = 1500;
	/* 2: chaotic values of every kind */
	for (int c = 0; c < 4; c++)
		v[2][c] = chaos();
	/* 3: rates from wrapping and resetting counters */
	counter_rates(&f[3], dt, &v[3][0], &v[3][2]);
	v[3][1] = logu(-4, 8);
	v[3][3] = (double)(next() % 100000);
	/* 4: gaps (whole stretches not pushed) and bursts between idle passes */
	push[4] = (k / 37) % 3 != 0;
	if (next() % 5 == 0)
		v[4][0] = logu(10, 30), v[4][1] = logu(-3, 6), v[4][3] = logu(6, 16);
	/* 5: steps of x10 every 500 passes */
	v[5][0] = 1e3 * exp10((double)((k / 500) % 6));
	v[5][1] = (k / 500) % 2 ? 0.5 : 0;
	v[5][3] = v[5][0] / 100;
	/* 6: latency and the shaper's rate too (tracked) */
	v[6][0] = logu(20, 26), v[6][1] = logu(-2, 5), v[6][2] = next() % 3 ? 0 : logu(0, 8);
	v[6][3] = logu(8, 18);
	/* 7: a slow random walk around 50 mbit/s */
	f[7].walk = (f[7].walk ? f[7].walk : 50e6) * (0.98 + 0.04 * uni());
	v[7][0] = f[7].walk, v[7][1] = f[7].walk / 1e7, v[7][2] = uni() < 0.1, v[7][3] = 3e4 * uni();
	for (int i = 0; i < N_SER; i++) {
		if (!push[i])
			continue;
		gw_history_push(h, (size_t)i, v[i][0], v[i][1], v[i][2], v[i][3]);
		hm_push(r, (size_t)i, v[i][0], v[i][1], v[i][2], v[i][3]);
	}
	if (next() % 4) {
		double b = next() % 7 ? logu(2, 6) : NAN, p50 = b * 1.5, p99 = next() % 9 ? b * 3 : 0;

		gw_history_push_latency(h, 6, b, p50, p99);
		hm_push_latency(r, 6, b, p50, p99);
	}
	if (next() % 3) {
		double s = next() % 10 ? logu(20, 27) : -5;

		gw_history_push_shaper(h, 6, s);
		hm_push_shaper(r, 6, s);
	}
	/* untracked and out-of-range series: ignored by both */
	gw_history_push_latency(h, 2, 1, 2, 3);
	hm_push_latency(r, 2, 1, 2, 3);
	gw_history_push(h, N_SER + 3, 1, 1, 1, 1);
	hm_push(r, N_SER + 3, 1, 1, 1, 1);
}

/* A figure against the exact value want: 0 for what is no positive number (0, negative,
 * NAN); else the code nearest to want, give or take slack codes (a sum in single precision)
 * and what the float the answer comes in rounds (well under 1/1000 of a code). One code off
 * is 0.07%: a stored value that comes back a code wrong fails here. */
static bool near(float got, double want, double slack)
{
	double pos = hm_code_pos(want);

	if (pos == 0)
		return got == 0;
	if (slack >= 1024 / log(2) / 2)
		return true;	/* a mean of values that cancel: a sum no float can judge */
	return got > 0 && fabs(hm_code_pos(got) - pos) <= 0.5 + slack + 1e-3;
}

/* A latency or shaper figure: none (NAN) where the model has none, else as near() */
static bool near_or_none(float got, double want)
{
	return isnan(want) ? isnan(got) : near(got, want, 0);
}

static bool near_point(const struct gw_hist_point *a, const struct hm_point *b)
{
	const float f[HM_NF] = { a->rate_bps_min, a->rate_bps_avg, a->rate_bps_max,
				 a->delay_ms_min, a->delay_ms_avg, a->delay_ms_max,
				 a->drops_per_s_avg, a->backlog_bytes_avg };

	for (int k = 0; k < HM_NF; k++)
		if (!near(f[k], b->f[k], b->slack[k]))
			return false;
	return a->t == b->t && near_or_none(a->baseline_ms, b->lat[HM_BASE]) &&
	       near_or_none(a->loaded_p50_ms, b->lat[HM_P50]) &&
	       near_or_none(a->loaded_p99_ms, b->lat[HM_P99]) && a->has_shaper == b->has_shaper &&
	       near_or_none(a->shaper_bps, b->shaper);
}

static struct gw_hist_point got[MAXPTS];
static struct hm_point want[MAXPTS];

/* One query to both; 1 when every point is near the model's. */
static int same_query(struct gw_history *h, struct hm *r, size_t i, double from,
		      double to, bool minute, size_t max, char *why, size_t whylen)
{
	int n = gw_history_query(h, i, from, to, minute, got, max);
	int m = hm_query(r, i, from, to, minute, want, max);

	if (n != m) {
		snprintf(why, whylen, "series %zu %s: %d points, want %d", i,
			 minute ? "minute" : "raw", n, m);
		return 0;
	}
	for (int k = 0; k < n; k++)
		if (!near_point(&got[k], &want[k])) {
			const struct hm_point *w = &want[k];

			snprintf(why, whylen, "series %zu %s point %d (t %.1f, want %.1f): rate "
				 "%g/%g/%g want %g/%g/%g, delay avg %g want %g, drops %g want %g, "
				 "backlog %g want %g, p99 %g want %g, shaper %g want %g",
				 i, minute ? "minute" : "raw", k, got[k].t, w->t, got[k].rate_bps_min,
				 got[k].rate_bps_avg, got[k].rate_bps_max, w->f[HM_RATE_MIN],
				 w->f[HM_RATE_AVG], w->f[HM_RATE_MAX], got[k].delay_ms_avg,
				 w->f[HM_DELAY_AVG], got[k].drops_per_s_avg, w->f[HM_DROPS_AVG],
				 got[k].backlog_bytes_avg, w->f[HM_BACKLOG_AVG], got[k].loaded_p99_ms,
				 w->lat[HM_P99], got[k].shaper_bps, w->shaper);
			return 0;
		}
	return 1;
}

/* Every series, both resolutions, the whole range, a part of it and a short max. */
static int same_all(struct gw_history *h, struct hm *r, size_t n_series, double now,
		    char *why, size_t whylen)
{
	for (size_t i = 0; i < n_series + 1; i++)
		for (int mn = 0; mn < 2; mn++)
			if (!same_query(h, r, i, 0, 1e12, mn, MAXPTS, why, whylen) ||
			    !same_query(h, r, i, now - (mn ? 20000 : 333), now - (mn ? 7000 : 100),
					mn, MAXPTS, why, whylen) ||
			    !same_query(h, r, i, 0, 1e12, mn, 77, why, whylen))
				return 0;
	return 1;
}

/* Fill both through both rings' wraps; compare along the way. */
static void run(int64_t interval_us, const char *name)
{
	struct gw_history *h = gw_history_new(N_SER, interval_us), *h2;
	struct hm *r = hm_new(N_SER, interval_us), *r2;
	struct feed f[N_SER];
	const long map[N_SER + 1] = { 7, 6, 5, 4, 3, 2, 1, 0, -1 };
	double t = 1800000017.25, dt = (double)interval_us / 1e6;
	char why[512] = "";
	int checks = 0, ok = 1;
	uint64_t k = 0;

	if (!CHECK(h && r, "%s: made", name))
		return;
	memset(f, 0, sizeof(f));
	for (int i = 0; i < N_SER; i++)
		f[i].first = true;
	CHECK(gw_history_track_shaper(h, 6) == 0, "%s: series 6 keeps latency and the shaper's rate",
	      name);
	hm_track_shaper(r, 6);
	/* A: the sampling interval for longer than a block; B: a pass every 19 s for more than
	 * 24 h of minutes (the minute ring wraps); a jump of an hour; C: the interval again
	 * until the raw ring wrapped */
	for (int phase = 0; phase < 3 && ok; phase++) {
		uint64_t passes = phase == 1 ? 4700 : phase == 0 ? 300 : 1300;
		double step = phase == 1 ? 19 : dt;

		if (phase == 2)
			t += 3600;
		for (uint64_t j = 0; j < passes && ok; j++, k++) {
			pass(h, r, f, k, t, step);
			t += step;
			if (k % 613 == 0 || j == passes - 1) {
				ok = same_all(h, r, N_SER, t, why, sizeof(why));
				checks++;
			}
		}
	}
	CHECK(ok, "%s: %d comparisons after %llu passes: every answer the model's%s%s",
	      name, checks, (unsigned long long)k, ok ? "" : ": ", why);
	/* a reload: series in another order, one new (starts empty), then more passes */
	h2 = gw_history_new(N_SER + 1, interval_us);
	r2 = hm_new(N_SER + 1, interval_us);
	if (!CHECK(h2 && r2, "%s: the reload's history made", name))
		goto out;
	gw_history_track_latency(h2, 1);
	hm_track_latency(r2, 1);
	gw_history_carry(h2, h, map);
	hm_carry(r2, r, map);
	ok = same_all(h2, r2, N_SER + 1, t, why, sizeof(why));
	CHECK(ok, "%s: carried over in another order%s%s", name, ok ? "" : ": ", why);
	gw_history_free(h);
	hm_free(r);
	h = h2, r = r2;
	for (int j = 0; j < 150 && ok; j++, k++) {
		pass(h, r, f, k, t, dt);
		t += dt;
	}
	ok = ok && same_all(h, r, N_SER + 1, t, why, sizeof(why));
	CHECK(ok, "%s: and 150 passes after the carry%s%s", name, ok ? "" : ": ", why);
out:
	gw_history_free(h);
	hm_free(r);
}

/* 1000 series for 24 h and 15 min at 1 s in a few seconds: one pass every 20 s of the
 * first 24 h, then 15 min of 1 s passes. */
static size_t fill(struct gw_history *h, size_t n, bool busy, double t)
{
	for (int k = 0; k < 1440 * 3 + 900; k++) {
		gw_history_pass(h, t);
		for (size_t i = 0; i < n; i++)
			if (busy)
				gw_history_push(h, i, 1e6 * (0.5 + uni()), logu(-1, 4),
						next() % 2 ? 0 : logu(0, 6), logu(10, 16));
			else
				gw_history_push(h, i, 0, 0, 0, 0);
		t += k < 1440 * 3 ? 20 : 1;
	}
	return gw_history_packed_bytes(h);
}

static void test_cost(void)
{
	struct gw_history *h = gw_history_new(1000, 1000000);
	size_t fixed, packed;
	/* what the unpacked rings took: 8 bytes a raw point, 16 a minute point */
	const double before = 900 * 8 + 1440 * 16;

	if (!CHECK(h != NULL, "cost: 1000 series"))
		return;
	fixed = gw_history_bytes(h) / 1000;
	CHECK(fixed < 3000, "cost: %zu bytes a series made at start (unpacked: %.0f)", fixed,
	      before);
	packed = fill(h, 1000, false, 1800000000);
	CHECK(packed == 0, "cost: 24 h of idle series pack into nothing (%zu bytes)", packed);
	CHECK_EQ_INT(gw_history_query(h, 5, 0, 1e12, true, got, MAXPTS), 1440,
		     "cost: the idle series still answer 1440 minute points");
	gw_history_free(h);
	h = gw_history_new(1000, 1000000);
	if (!h)
		return;
	packed = fill(h, 1000, true, 1800000000) / 1000;
	CHECK(packed > 0 && packed < before,
	      "cost: busy series (random rates, delays, drops and backlog) pack into %zu bytes "
	      "a series, %.0f%% of the unpacked %.0f", packed, 100 * (double)packed / before,
	      before);
	gw_history_free(h);
}

static void test_bits(void)
{
	struct gw_history *h = gw_history_new(1, 1000000);
	struct gw_hist_point p[GW_HIST_BLK * 2];
	bool ok = true;
	int n;

	/* codes 1 .. 65535 (every width) and 0 between them, through one sealed block */
	gw_history_pass(h, 1000);
	for (int k = 0; k < GW_HIST_BLK; k++) {
		double v = k % 3 == 0 ? 0 : gw_hist_decode((uint16_t)(1 + ((uint32_t)k * 1031) % 65535));

		gw_history_push(h, 0, v, k == 5 ? 1e300 : 0, k == 7 ? 1e-300 : 0, v);
		gw_history_pass(h, 1001 + k);
	}
	n = gw_history_query(h, 0, 0, 1e12, false, p, GW_HIST_BLK * 2);
	for (int k = 0; k < GW_HIST_BLK && n == GW_HIST_BLK + 1; k++) {
		double v = k % 3 == 0 ? 0 : gw_hist_decode((uint16_t)(1 + ((uint32_t)k * 1031) % 65535));

		ok = ok && p[k].rate_bps_avg == (float)v && p[k].backlog_bytes_avg == (float)v &&
		     p[k].delay_ms_avg == (k == 5 ? (float)gw_hist_decode(65535) : 0) &&
		     p[k].drops_per_s_avg == (k == 7 ? (float)gw_hist_decode(1) : 0);
	}
	CHECK(n == GW_HIST_BLK + 1 && ok, "bits: 16-bit codes from 1 to 65535 and 0 between them "
	      "come back out of a packed block");
	gw_history_free(h);
}

int main(void)
{
	run(1000000, "1 s");
	run(7000000, "7 s (a raw ring of 128 points, two blocks)");
	run(300000, "0.3 s (3000 raw points)");
	test_bits();
	test_cost();
	return tap_done();
}
