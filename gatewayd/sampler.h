/* gatewayd/sampler.h: one pass every interval reads the counters of every gatewayd-owned
 * qdisc and class (one qdisc dump, one class dump per shaped device), derives rates, accuracy
 * and queue depth and builds the snapshot the web process shows (and keeps the history of). */
#ifndef GW_SAMPLER_H
#define GW_SAMPLER_H

#include "config/config.h"
#include "tree/apply.h"
#include "webui/snapshot.h"

struct gw_sampler;

int gw_sampler_new(const struct gw_config *cfg, const struct gw_applied *a,
		   struct gw_sampler **out);
void gw_sampler_free(struct gw_sampler *s);
/* One pass at wall time now. The rates are over the monotonic times at which the counters
 * were asked for, taken right before the qdisc dump, not when the pass began: a pass held
 * up before its dump (a busy CPU, other samplers' dumps) would count the bytes of a longer
 * interval than it divides by. On success *out is a new snapshot holding one reference. */
int gw_sampler_pass(struct gw_sampler *s, struct gw_nl *nl, double now,
		    struct gw_snapshot **out, char *err, size_t errlen);
/* gw_sampler_pass in steps, for samplers sharing one qdisc dump of the namespace (a dump
 * walks every qdisc there, whatever device it is for): begin each, one
 * gw_sampler_dump_routed for them all, then finish each (its class dumps, the rates, the
 * snapshot). */
void gw_sampler_begin(struct gw_sampler *s);
/* mono: gw_mono_now() taken right before the shared dump was asked for */
int gw_sampler_finish(struct gw_sampler *s, struct gw_nl *nl, double mono, double now,
		      struct gw_snapshot **out, char *err, size_t errlen);
/* The shared dump itself: v (n entries, sorted here by ifindex) says which sampler each
 * device's qdiscs go to; one RTM_GETQDISC dump of the namespace is passed to them (each
 * begun already). Containers, the daemon's and gatewayd-cni's registered ones, share it: one
 * dump per container would cost n^2 every pass. */
struct gw_sampler_route {
	int ifindex;
	struct gw_sampler *s;
};
int gw_sampler_dump_routed(struct gw_nl *nl, struct gw_sampler_route *v, size_t n);
/* The config was reloaded with the same tree shape: new names from cfg, new rates and ceils
 * from a's plan (the one the reload applied). */
void gw_sampler_retarget(struct gw_sampler *s, const struct gw_config *cfg,
			 const struct gw_applied *a);
/* The tree was rebuilt (new objects, maybe new ifindexes): follow it, keeping totals. */
void gw_sampler_rebind(struct gw_sampler *s, const struct gw_applied *a);
/* The same, when only the objects fresh names (per object of a's plan) were made again: the
 * others' counters go on. */
void gw_sampler_refresh(struct gw_sampler *s, const struct gw_applied *a, const bool *fresh);
/* After a reload that created or deleted objects: s is new for the new tree (a's plan), from
 * the sampler that ran until now. Every class whose link, direction and name carry on keeps
 * its running totals; fresh (per object of a's plan, NULL: all) says which objects
 * the reload made, whose kernel counters start again from zero. */
void gw_sampler_carry(struct gw_sampler *s, const struct gw_sampler *from,
		      const struct gw_applied *a, const bool *fresh);
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
