/* gatewayd/sampler.h: one pass every interval reads the counters of every gatewayd-owned
 * qdisc and class (one qdisc dump, one class dump per shaped device), derives rates, accuracy
 * and queue depth, feeds the history and builds the snapshot the HTTP side shows. */
#ifndef GW_SAMPLER_H
#define GW_SAMPLER_H

#include "config/config.h"
#include "gatewayd/apply.h"
#include "gatewayd/history.h"
#include "webui/snapshot.h"

struct gw_sampler;

int gw_sampler_new(const struct gw_config *cfg, const struct gw_applied *a,
		   struct gw_sampler **out);
void gw_sampler_free(struct gw_sampler *s);
/* One pass at monotonic time mono (seconds) and wall time now. On success *out is a new
 * snapshot holding one reference. */
int gw_sampler_pass(struct gw_sampler *s, struct gw_nl *nl, double mono, double now,
		    struct gw_snapshot **out, char *err, size_t errlen);
struct gw_history *gw_sampler_history(struct gw_sampler *s);
/* The config was reloaded with the same tree shape: new rates, ceils and names. */
void gw_sampler_retarget(struct gw_sampler *s, const struct gw_config *cfg);
/* The tree was rebuilt (new objects, maybe new ifindexes): follow it, keeping totals and
 * history. */
void gw_sampler_rebind(struct gw_sampler *s, const struct gw_applied *a);
/* This pass's latency figures of the direction at index dir (the snapshot's order) into the
 * history; only the probed link's totals keep them (see gw_history_track_latency). */
void gw_sampler_push_latency(struct gw_sampler *s, size_t dir, double baseline_ms,
			     double loaded_p50_ms, double loaded_p99_ms);
/* The history series of link/direction/class ("total" for the direction), or -ENOENT. */
int gw_sampler_series(const struct gw_sampler *s, const char *link, const char *direction,
		      const char *class_name);

/* Derivation over one interval, separated for unit tests. */
struct gw_counters {
	uint64_t bytes, packets, drops, overlimits, requeues, marks;
	uint32_t backlog_bytes, backlog_packets;
};
/* Fold a new raw reading into running totals. The first reading counts whole (gatewayd made
 * the object); u64 bytes going back means the object was recreated (counted from zero again);
 * 32-bit counters otherwise wrap modulo 2^32. Returns the increments in *delta. */
void gw_counters_advance(struct gw_counters *total, struct gw_counters *last,
			 const struct gw_counters *now, bool first, struct gw_counters *delta);

#endif
