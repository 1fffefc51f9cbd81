/* webui/history.h: bounded per-series history (rate, delay, drops, backlog, and latency for
 * the probed link's direction totals) for the charts
 * and /api/history: the last 15 minutes at the sampling interval and the last 24 hours at one
 * minute (min/avg/max). Every series is sampled in the same pass, so the times are kept once
 * for all of them. Points are packed in blocks of GW_HIST_BLK: what a block holds depends on
 * how much its values vary (nothing for a column that did not change), never more than 16
 * bits a value, and a block that falls out of the ring is freed, so memory is bounded by the
 * rings' length and does not grow with time. */
#ifndef GW_HISTORY_H
#define GW_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "webui/snapshot.h"

#define GW_HIST_RAW_SECONDS (15 * 60)
#define GW_HIST_MINUTES (24 * 60)

struct gw_history;

struct gw_history *gw_history_new(size_t n_series, int64_t interval_us);
void gw_history_free(struct gw_history *h);
#define GW_HIST_BLK 64	/* points a packed block holds */

/* Bytes allocated at creation (for the docs and the memory benchmark); the packed blocks
 * come on top, gw_history_packed_bytes. */
size_t gw_history_bytes(const struct gw_history *h);
/* Series the history was made for. */
size_t gw_history_series(const struct gw_history *h);
/* What the packed blocks' data hold now (at most 16 bits a value; 0 for idle series). */
size_t gw_history_packed_bytes(struct gw_history *h);
/* Start a sampling pass at unix time t; then push each series once. */
void gw_history_pass(struct gw_history *h, double t);
void gw_history_push(struct gw_history *h, size_t series, double rate_bps, double delay_ms,
		     double drops_per_s, double backlog_bytes);
/* Latency (idle baseline, loaded p50 and p99, ms) is kept only for the series asked for
 * here (the probed links' direction totals; at most GW_HIST_LAT_MAX): 6 bytes a raw point
 * and 6 a minute point (avg baseline, avg p50, worst p99). Call before the first pass.
 * 0, -ENOENT (no such series) or -ENOSPC / -ENOMEM. */
#define GW_HIST_LAT_MAX 128	/* both directions of GW_MAX_LINKS links */
int gw_history_track_latency(struct gw_history *h, size_t series);
/* In a pass, after gw_history_pass; NAN for a figure there is none of. Untracked: ignored. */
void gw_history_push_latency(struct gw_history *h, size_t series, double baseline_ms,
			     double p50_ms, double p99_ms);
/* Where autorate moves a direction: its total's series keeps the shaper's rate too (2 bytes
 * a raw point, 2 a minute point: the minute's average), also tracked for latency. 0, -ENOENT,
 * -ENOSPC or -ENOMEM as gw_history_track_latency. */
int gw_history_track_shaper(struct gw_history *h, size_t series);
/* In a pass, after gw_history_pass: the rate the shaper had (bits/s). Untracked: ignored. */
void gw_history_push_shaper(struct gw_history *h, size_t series, double rate_bps);
/* Points with from <= t <= to, oldest first, at most max; returns the count, -ENOENT for no
 * such series. */
int gw_history_query(struct gw_history *h, size_t series, double from, double to, bool minute,
		     struct gw_hist_point *out, size_t max);

/* A new history takes over the points of an older one (same interval): series i of h gets
 * series map[i] of from (-1: none, it starts empty), latency and shaper points too where h
 * tracks them for series i (track before carrying). */
void gw_history_carry(struct gw_history *h, struct gw_history *from, const long *map);

/* The 16-bit log encoding the rings use (relative precision 0.07%), for tests. */
uint16_t gw_hist_encode(double v);
double gw_hist_decode(uint16_t c);

#endif
