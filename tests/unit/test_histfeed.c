/* tests/unit/test_histfeed.c: the web process's history from snapshots: every figure lands in
 * its series as the sampler pushed it (the same points as a history pushed by hand), latency
 * and the shaper's rate where the snapshot has them, and a changed set of series (a class
 * added, a direction gone, a container come) keeps every point by name, latency included. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "webui/histfeed.h"
#include "webui/history.h"
#include "tests/unit/tap.h"

#define MAXPTS 1000
#define T0 1.7e9

struct spec {
	const char *link, *dir;
	size_t n;			/* classes */
	const char *names[4];
	bool lat, ar;
};

/* A snapshot of specs at pass p (figures a function of link, class and pass). */
static struct gw_snapshot *snap(const struct spec *sp, size_t n, int p)
{
	struct gw_snapshot *s = calloc(1, sizeof(*s));

	atomic_init(&s->refs, 1);
	s->unix_time = T0 + p;
	s->interval_us = 1000000;
	s->n_dirs = n;
	s->dirs = calloc(n, sizeof(*s->dirs));
	for (size_t i = 0; i < n; i++) {
		struct gw_snap_dir *d = &s->dirs[i];
		unsigned h = (unsigned)sp[i].link[0] * 7 + (unsigned)sp[i].dir[0];

		snprintf(d->link, sizeof(d->link), "%s", sp[i].link);
		snprintf(d->direction, sizeof(d->direction), "%s", sp[i].dir);
		d->n_classes = sp[i].n;
		d->classes = calloc(sp[i].n ? sp[i].n : 1, sizeof(*d->classes));
		for (size_t k = 0; k <= sp[i].n; k++) {
			struct gw_snap_class *c = k ? &d->classes[k - 1] : &d->total;

			snprintf(c->name, sizeof(c->name), "%s", k ? sp[i].names[k - 1] : "total");
			c->achieved_bytes_per_s = 1000.0 * (h + k + 1) + p;
			c->queue_delay_ms = 0.5 + k + p % 7;
			c->drops_per_s = p % 3 ? 0 : 2.0 + (double)k;
			c->backlog_bytes = 1500u * (unsigned)(k + 1) + (unsigned)p;
		}
		d->latency.present = sp[i].lat;
		d->latency.baseline_ms = 10 + h % 5;
		d->latency.pass_loaded_p50_ms = p % 4 ? 12.0 + p % 9 : NAN;
		d->latency.pass_loaded_p99_ms = p % 4 ? 20.0 + p % 11 : NAN;
		d->autorate.present = sp[i].ar;
		d->autorate.rate_bytes_per_s = 125000u * (unsigned)(10 + p % 5);
	}
	return s;
}

/* What the sampler, prober and autorate pushed for the same snapshot, into ref. */
static void ref_push(struct gw_history *ref, const struct gw_snapshot *s)
{
	size_t series = 0;

	gw_history_pass(ref, s->unix_time);
	for (size_t i = 0; i < s->n_dirs; i++) {
		const struct gw_snap_dir *d = &s->dirs[i];
		size_t total = series;

		for (size_t k = 0; k <= d->n_classes; k++) {
			const struct gw_snap_class *c = k ? &d->classes[k - 1] : &d->total;

			gw_history_push(ref, series++, c->achieved_bytes_per_s * 8,
					c->queue_delay_ms, c->drops_per_s, c->backlog_bytes);
		}
		if (d->latency.present)
			gw_history_push_latency(ref, total, d->latency.baseline_ms,
						d->latency.pass_loaded_p50_ms,
						d->latency.pass_loaded_p99_ms);
		if (d->autorate.present)
			gw_history_push_shaper(ref, total,
					       (double)d->autorate.rate_bytes_per_s * 8);
	}
}

static bool same_pts(const struct gw_hist_point *a, const struct gw_hist_point *b, int n)
{
	for (int i = 0; i < n; i++)
		if (memcmp(&a[i], &b[i], sizeof(*a)) &&
		    /* NAN != NAN under memcmp only if the bits differ: compare fields */
		    (a[i].t != b[i].t || a[i].rate_bps_avg != b[i].rate_bps_avg ||
		     a[i].delay_ms_max != b[i].delay_ms_max ||
		     a[i].drops_per_s_avg != b[i].drops_per_s_avg ||
		     a[i].backlog_bytes_avg != b[i].backlog_bytes_avg ||
		     a[i].has_shaper != b[i].has_shaper ||
		     (a[i].has_shaper && a[i].shaper_bps != b[i].shaper_bps) ||
		     !(a[i].baseline_ms == b[i].baseline_ms ||
		       (isnan(a[i].baseline_ms) && isnan(b[i].baseline_ms))) ||
		     !(a[i].loaded_p99_ms == b[i].loaded_p99_ms ||
		       (isnan(a[i].loaded_p99_ms) && isnan(b[i].loaded_p99_ms)))))
			return false;
	return true;
}

static struct gw_hist_point got[MAXPTS], want[MAXPTS];

static void feed(struct gw_histfeed *f, struct gw_history *ref, const struct spec *sp, size_t n,
		 int from, int to)
{
	for (int p = from; p < to; p++) {
		struct gw_snapshot *s = snap(sp, n, p);

		if (gw_histfeed_push(f, s))
			CHECK(0, "push pass %d", p);
		if (ref)
			ref_push(ref, s);
		gw_snapshot_put(s);
	}
}

int main(void)
{
	const struct spec a[] = {
		{ "wan", "egress", 2, { "voip", "bulk" }, true, true },
		{ "wan", "ingress", 1, { "bulk" }, true, false },
		{ "lan", "egress", 0, { NULL }, false, false },
	};
	/* a reload: a class added before bulk, wan ingress gone, a container after */
	const struct spec b[] = {
		{ "wan", "egress", 3, { "voip", "games", "bulk" }, true, true },
		{ "lan", "egress", 0, { NULL }, false, false },
		{ "ctr:veth1", "egress", 0, { NULL }, false, false },
	};
	struct gw_histfeed *f;
	struct gw_history *ref = gw_history_new(6, 1000000);
	int n, m;

	CHECK(gw_histfeed_new(&f) == 0, "a feed");
	CHECK_EQ_INT(gw_histfeed_query(f, "wan", "egress", "total", 0, 1e10, false, got, MAXPTS),
		     -ENOENT, "no series before the first snapshot");
	gw_history_track_shaper(ref, 0);
	gw_history_track_latency(ref, 3);
	feed(f, ref, a, 3, 0, 200);
	CHECK_EQ_INT(gw_histfeed_series(f), 6, "one series per class and total");
	{
		static const struct { const char *l, *d, *c; size_t ref; } q[] = {
			{ "wan", "egress", "total", 0 }, { "wan", "egress", "voip", 1 },
			{ "wan", "egress", "bulk", 2 }, { "wan", "ingress", "total", 3 },
			{ "wan", "ingress", "bulk", 4 }, { "lan", "egress", "total", 5 },
		};

		for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
			for (int minute = 0; minute < 2; minute++) {
				n = gw_histfeed_query(f, q[i].l, q[i].d, q[i].c, 0, 1e10, minute, got,
						      MAXPTS);
				m = gw_history_query(ref, q[i].ref, 0, 1e10, minute, want, MAXPTS);
				CHECK(n == m && n > 0 && same_pts(got, want, n),
				      "%s %s %s %s: the sampler's points (%d, want %d)", q[i].l,
				      q[i].d, q[i].c, minute ? "minute" : "raw", n, m);
			}
		}
	}
	n = gw_histfeed_query(f, "wan", "egress", "total", 0, 1e10, false, got, MAXPTS);
	CHECK(n == 200 && got[199].t == T0 + 199 && got[199].rate_bps_avg > 8000 &&
	      got[199].has_shaper && got[5].shaper_bps > 0 && !isnan(got[5].baseline_ms) &&
	      !isnan(got[5].loaded_p99_ms) && isnan(got[4].loaded_p99_ms),
	      "wan egress total: rate, shaper, latency (NAN where the pass had none)");
	n = gw_histfeed_query(f, "lan", "egress", "total", 0, 1e10, false, got, MAXPTS);
	CHECK(n == 200 && isnan(got[5].baseline_ms) && !got[5].has_shaper,
	      "lan: no latency or shaper kept");
	CHECK_EQ_INT(gw_histfeed_query(f, "wan", "egress", "nope", 0, 1e10, false, got, MAXPTS),
		     -ENOENT, "an unknown class");
	CHECK_EQ_INT(gw_histfeed_query(f, "wan", "upward", "total", 0, 1e10, false, got, MAXPTS),
		     -ENOENT, "an unknown direction");

	/* what voip and wan egress total held before the change */
	m = gw_histfeed_query(f, "wan", "egress", "voip", 0, 1e10, false, want, MAXPTS);
	feed(f, NULL, b, 3, 200, 260);
	CHECK_EQ_INT(gw_histfeed_series(f), 6, "the new set of series: 4 + 1 + 1");
	n = gw_histfeed_query(f, "wan", "egress", "voip", 0, 1e10, false, got, MAXPTS);
	CHECK(n == 260 && m == 200 && same_pts(got, want, m) && got[259].t == T0 + 259,
	      "voip keeps its 200 points across the change, and goes on (%d)", n);
	n = gw_histfeed_query(f, "wan", "egress", "bulk", 0, 1e10, false, got, MAXPTS);
	CHECK(n == 260 && got[0].rate_bps_avg > 0 && got[10].backlog_bytes_avg > 4000,
	      "bulk, now third, keeps its points by name (%d)", n);
	n = gw_histfeed_query(f, "wan", "egress", "games", 0, 1e10, false, got, MAXPTS);
	CHECK(n == 260 && got[0].rate_bps_avg == 0 && got[259].rate_bps_avg > 0,
	      "games, new: empty before the change");
	n = gw_histfeed_query(f, "wan", "egress", "total", 0, 1e10, false, got, MAXPTS);
	CHECK(n == 260 && !isnan(got[5].baseline_ms) && got[5].has_shaper && got[5].shaper_bps > 0,
	      "latency and shaper points carried across the change");
	CHECK_EQ_INT(gw_histfeed_query(f, "wan", "ingress", "total", 0, 1e10, false, got, MAXPTS),
		     -ENOENT, "a direction gone is gone");
	n = gw_histfeed_query(f, "ctr:veth1", "egress", "total", 0, 1e10, false, got, MAXPTS);
	CHECK(n == 260 && got[199].rate_bps_avg == 0 && got[200].rate_bps_avg > 0,
	      "a container come: points from its first pass");
	n = gw_histfeed_query(f, "wan", "egress", "total", 0, 1e10, true, got, MAXPTS);
	CHECK(n >= 4, "minute points carried (%d)", n);

	/* a reload that changes nothing of the series keeps the same history */
	feed(f, NULL, b, 3, 260, 270);
	n = gw_histfeed_query(f, "lan", "egress", "total", 0, 1e10, false, got, MAXPTS);
	CHECK_EQ_INT(n, 270, "the same series: the same history");

	gw_histfeed_free(f);
	gw_history_free(ref);
	return tap_failed ? 1 : 0;
}
