/* gatewayd/history.h: bounded per-series history (rate, delay, drops, backlog) for the charts
 * and /api/history: the last 15 minutes at the sampling interval and the last 24 hours at one
 * minute (min/avg/max). Every series is sampled in the same pass, so the times are kept once
 * for all of them. All memory is allocated at creation; nothing grows with time. */
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
/* Bytes reserved (for the docs and the memory benchmark). */
size_t gw_history_bytes(const struct gw_history *h);
/* Start a sampling pass at unix time t; then push each series once. */
void gw_history_pass(struct gw_history *h, double t);
void gw_history_push(struct gw_history *h, size_t series, double rate_bps, double delay_ms,
		     double drops_per_s, double backlog_bytes);
/* Points with from <= t <= to, oldest first, at most max; returns the count, -ENOENT for no
 * such series. */
int gw_history_query(struct gw_history *h, size_t series, double from, double to, bool minute,
		     struct gw_hist_point *out, size_t max);

/* A new history takes over the points of an older one (same interval): series i of h gets
 * series map[i] of from (-1: none, it starts empty). */
void gw_history_carry(struct gw_history *h, struct gw_history *from, const long *map);

/* The 16-bit log encoding the rings use (relative precision 0.07%), for tests. */
uint16_t gw_hist_encode(double v);
double gw_hist_decode(uint16_t c);

#endif
