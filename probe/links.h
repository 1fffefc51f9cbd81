/* probe/links.h: the probers of the config's links, the daemon's probing: a prober
 * (probe/prober.c) on each probed link (the link's own probe block, or the global one's
 * link), every sample judged against each direction's load of that link as the sampling
 * passes saw it, a gw_latency per link and direction, and the snapshot's latency and probe
 * sections filled. */
#ifndef GW_PROBE_LINKS_H
#define GW_PROBE_LINKS_H

#include <stddef.h>
#include "config/config.h"
#include "probe/latency.h"
#include "probe/prober.h"
#include "webui/snapshot.h"

#define GW_PROBE_LINKS_WINDOW_S 60.0	/* what the idle and loaded statistics look back over */

struct gw_probe_links;

/* One direction's load in the pass a sample is judged by. */
struct gw_probe_links_load {
	bool present;			/* the link shapes this direction */
	enum gw_load_state state;	/* GW_LOAD_UNKNOWN: no verdict (first pass, no rates) */
	double achieved_bytes_per_s;	/* the direction's total over that pass */
	double utilisation;		/* achieved / configured rate */
	uint64_t rate_bytes_per_s;	/* the rate in force (the running plan's) */
};

/* A probe sample as its link's prober judges it, with the load it is judged against. */
struct gw_probe_links_judged {
	const char *link;			/* the link's name (the config's) */
	const struct gw_probe_sample *sample;	/* rtt_ms (NAN when lost), target, sent_mono */
	struct gw_probe_links_load dir[2];		/* indexed by enum gw_direction */
};

/* Called for every sample of every probed link as it is judged (from gw_probe_links_pass, or
 * from gw_probe_links_run when the waiting queue overflows); the structs live for the call. */
typedef void (*gw_probe_links_hook)(void *ctx, const struct gw_probe_links_judged *j);

/* Always made (even without a probe block, then it does nothing), so the loop watches one fd
 * for its whole life: an epoll over every link's prober. A prober that cannot start is logged
 * once and said by gw_probe_links_error(); shaping goes on. 0 or -ENOMEM. */
int gw_probe_links_new(const struct gw_config *cfg, struct gw_probe_links **out);
void gw_probe_links_free(struct gw_probe_links *m);
/* Readable when the prober has something to do; then call gw_probe_links_run. */
int gw_probe_links_fd(const struct gw_probe_links *m);
void gw_probe_links_run(struct gw_probe_links *m);
/* After a sampling pass at monotonic time mono: take each probed direction's load from the
 * snapshot, judge the samples waiting for it, fill snap's latency (with the pass's own loaded
 * p50 and p99, which the web process's history keeps) and probe sections. */
void gw_probe_links_pass(struct gw_probe_links *m, struct gw_snapshot *snap, double mono);
/* A reload: per link, a changed probe block (or interface) recreates its prober and the
 * accumulators stay when the interface is the same; a link newly probed gets one, a link no
 * longer probed loses its own. */
void gw_probe_links_reload(struct gw_probe_links *m, const struct gw_config *next);
/* A link's interface came or came back under another index (there; a socket bound to the old
 * one sends nowhere): that link's prober is made again for it, the figures kept. Or it went
 * (!there): the prober stops until it comes, which the heal's log line says. A link that is
 * not probed: nothing. */
void gw_probe_links_relink(struct gw_probe_links *m, const char *link, bool there);
/* What a prober's callback does with a sample (it waits for its pass); for tests. The first
 * probed link's, or link's (-ENOENT: that link is not probed). */
void gw_probe_links_sample(struct gw_probe_links *m, const struct gw_probe_sample *s);
int gw_probe_links_sample_link(struct gw_probe_links *m, const char *link,
			   const struct gw_probe_sample *s);
/* While fn is set, every sample the global probe block's prober reports goes to fn as well,
 * as it arrives (a load test reading the daemon's probes: one probe stream on the link, not
 * two). NULL clears it. */
void gw_probe_links_tap(struct gw_probe_links *m, gw_probe_cb fn, void *ctx);
/* Every judged sample of every link to fn, with that link's load as the passes saw it; NULL
 * clears it. */
void gw_probe_links_set_hook(struct gw_probe_links *m, gw_probe_links_hook fn, void *ctx);
/* Every sample a prober reports, as it arrives (before it is judged), also goes to fn with the
 * name of the link it probes (autorate: gatewayd/autorate.c); NULL clears it. Unlike the tap,
 * it stays across load tests and reloads. */
typedef void (*gw_probe_links_sample_fn)(void *ctx, const char *link,
					 const struct gw_probe_sample *s);
void gw_probe_links_on_sample(struct gw_probe_links *m, gw_probe_links_sample_fn fn, void *ctx);
/* Whether the global probe block's prober (the load test's) is running now. */
bool gw_probe_links_running(const struct gw_probe_links *m);
/* How many links are probed. */
size_t gw_probe_links_count(const struct gw_probe_links *m);
/* "" or why probers are not running (each link's reason, joined by "; "). */
const char *gw_probe_links_error(const struct gw_probe_links *m);

#endif
