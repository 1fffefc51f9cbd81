/* gatewayd/probing.h: the daemon's probing: runs gatewayd/probe/prober.c on the probed link,
 * judges every sample against each direction's load as the sampling passes saw it, keeps a
 * gw_latency per direction, and fills the snapshot's latency and probe sections. */
#ifndef GW_PROBING_H
#define GW_PROBING_H

#include <stddef.h>
#include "config/config.h"
#include "gatewayd/probe/prober.h"
#include "gatewayd/sampler.h"
#include "webui/snapshot.h"

#define GW_PROBING_WINDOW_S 60.0	/* what the idle and loaded statistics look back over */

struct gw_probing;

/* Always made (even without a probe block, then it does nothing), so the loop watches one fd
 * for its whole life. A prober that cannot start is logged once and said by
 * gw_probing_error(); shaping goes on. 0 or -ENOMEM. */
int gw_probing_new(const struct gw_config *cfg, struct gw_probing **out);
void gw_probing_free(struct gw_probing *m);
/* Readable when the prober has something to do; then call gw_probing_run. */
int gw_probing_fd(const struct gw_probing *m);
void gw_probing_run(struct gw_probing *m);
/* After a sampling pass at monotonic time mono: take each probed direction's load from the
 * snapshot, judge the samples waiting for it, fill snap's latency and probe sections, and
 * push the history's latency figures through s (same direction order as the snapshot; NULL:
 * none). */
void gw_probing_pass(struct gw_probing *m, struct gw_snapshot *snap, struct gw_sampler *s,
		    double mono);
/* A reload: a changed probe block (or probed link) recreates the prober; the accumulators
 * stay when the link is the same. */
void gw_probing_reload(struct gw_probing *m, const struct gw_config *next);
/* What the prober's callback does with a sample (it waits for its pass); for tests. */
void gw_probing_sample(struct gw_probing *m, const struct gw_probe_sample *s);
/* While fn is set, every sample the prober reports goes to fn as well, as it arrives (a load
 * test reading the daemon's probes: one probe stream on the link, not two). NULL clears it. */
void gw_probing_tap(struct gw_probing *m, gw_probe_cb fn, void *ctx);
/* Every sample the prober reports, as it arrives, also goes to fn with the name of the link it
 * probes (autorate: gatewayd/autorate.c); NULL clears it. Unlike the tap, it stays across
 * load tests and reloads. */
typedef void (*gw_probing_sample_fn)(void *ctx, const char *link, const struct gw_probe_sample *s);
void gw_probing_on_sample(struct gw_probing *m, gw_probing_sample_fn fn, void *ctx);
/* Whether the prober is running now. */
bool gw_probing_probing(const struct gw_probing *m);
/* "" or why the prober is not running. */
const char *gw_probing_error(const struct gw_probing *m);

#endif
