/* gatewayd/autorate.h: autorate in the daemon: feeds the controller (tree/autorate_ctl.c)
 * with the probers' samples and the sampling passes' achieved rates, moves the kernel's rates
 * in place (tree/retune.c), logs why (rate-limited) and fills the snapshot's autorate
 * sections. */
#ifndef GW_AUTORATE_H
#define GW_AUTORATE_H

#include "config/config.h"
#include "probe/prober.h"
#include "gatewayd/sampler.h"
#include "tree/apply.h"
#include "webui/snapshot.h"

#define GW_AUTORATE_LOG_EVERY_S 10.0	/* at most one line per direction this often */

struct gw_autorate;

/* For cfg's directions with an autorate block (none: *out is still made, and does nothing).
 * nl, a and sampler are the loop's; they outlive it (*sampler is the one in use, which a
 * reload may replace: a step retargets it). 0 or -ENOMEM. */
int gw_autorate_new(const struct gw_config *cfg, struct gw_nl *nl, struct gw_applied *a,
		    struct gw_sampler **sampler, struct gw_autorate **out);
void gw_autorate_free(struct gw_autorate *ar);
/* One probe's outcome on the link named link, as it arrives (gw_probe_links_on_sample's shape:
 * ctx is the gw_autorate). */
void gw_autorate_sample(void *ctx, const char *link, const struct gw_probe_sample *s);
/* After a sampling pass at monotonic time mono: each direction's achieved rate from snap
 * steps its controller; then snap's autorate sections are filled. */
void gw_autorate_pass(struct gw_autorate *ar, struct gw_snapshot *snap, double mono);
/* The config was reloaded (the reload put each direction back at its configured rate): a
 * direction whose link and autorate block stayed keeps its reflectors' baselines and counts;
 * the rest start afresh. Call it before the old config is freed: ar still points at it, to
 * compare. 0 or -ENOMEM (autorate then stops). */
int gw_autorate_reload(struct gw_autorate *ar, const struct gw_config *cfg);

#endif
