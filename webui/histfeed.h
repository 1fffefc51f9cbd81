/* webui/histfeed.h: the web process's history, fed from the snapshots it is sent: one
 * series per link, direction and class (or "total"), one pass per snapshot, and, when the
 * set of series changes (a reload, a container come or gone), a new history that takes the
 * old one's points over by name. */
#ifndef GW_HISTFEED_H
#define GW_HISTFEED_H

#include <stdbool.h>
#include <stddef.h>
#include "webui/history.h"
#include "webui/snapshot.h"

struct gw_histfeed;

int gw_histfeed_new(struct gw_histfeed **out);
void gw_histfeed_free(struct gw_histfeed *f);
/*
 * One snapshot as one pass, its figures as the sampler had them: rate achieved*8 (bits/s),
 * queue delay, drops/s, backlog; the latency of directions with latency.present (baseline,
 * the pass's loaded p50 and p99), the shaper's rate where autorate.present. From one thread
 * (the one that reads the daemon's frames). 0 or -ENOMEM (the pass is lost; the history kept).
 */
int gw_histfeed_push(struct gw_histfeed *f, const struct gw_snapshot *s);
/* /api/history for a series (class "total" for the direction's), as gw_history_query;
 * -ENOENT for none, or before the first snapshot. Safe from any thread. */
int gw_histfeed_query(struct gw_histfeed *f, const char *link, const char *direction,
		      const char *class_name, double from, double to, bool minute,
		      struct gw_hist_point *out, size_t max);
/* The series the history holds now (tests). */
size_t gw_histfeed_series(struct gw_histfeed *f);

#endif
