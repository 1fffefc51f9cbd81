/* gatewayd/heal.h: putting the tree back when someone else takes it away: a deleted or
 * replaced qdisc, an interface deleted and created again (PPPoE reconnect, container
 * restart). Events only trigger a check; the check is a read-back against the plan. */
#ifndef GW_HEAL_H
#define GW_HEAL_H

#include <stdbool.h>
#include "config/config.h"
#include "tree/apply.h"
#include "gatewayd/sampler.h"
#include "qdisc/monitor.h"

/* Read pending notifications; true when one not raised by gatewayd's own requests (nl's port
 * id) concerns a device gatewayd shapes (any qdisc, class or ingress redirect of it), its nft
 * table or its ingress filters (or some were lost, so nothing can be assumed). A change to the
 * classifiers marks a->classify_stale for gw_heal. */
bool gw_heal_pending(struct gw_monitor *m, struct gw_nl *nl, const struct gw_config *cfg,
		     struct gw_applied *a);
/* Read the notifications gatewayd's own changes raised (a reload, a heal), right after them:
 * those of its own requests (their port id is nl's, or for nf_tables that of one of its
 * batches on nl's kernel, gw_nft_portid_ours) are passed over; anyone
 * else's that came meanwhile, or events lost, set a->heal_due, which the caller turns into a
 * heal check. Returns a->heal_due. */
bool gw_heal_absorb(struct gw_monitor *m, struct gw_nl *nl, const struct gw_config *cfg,
		    struct gw_applied *a);
/* Check the tree; rebuild it if it differs from the plan; with a->classify_stale and the tree
 * intact, put the classifiers back (the nft table replaced, the ingress filters made anew). When looking alone shows the
 * rebuild cannot succeed (an interface gone, a foreign root where replace is false), nothing
 * is removed or created and that cause is returned. First, a link whose interface came, went
 * or came back under another index is made again from what is there (gone: it waits, with no
 * objects and its ifb deleted; required links excepted, whose interface gone is such a cause).
 * Objects someone else changed or deleted (a class's rate, a leaf, the redirect) are mended
 * in place (tree/heal_inplace.c) where they can be; a root gone or replaced makes the link
 * again. Returns 0 when it was intact, 1 when the tree was restored (links shaped again among
 * it), 2 when only the classifiers were, 3 when links only started waiting, 4 when objects
 * were mended in place (err says what was found, object by object), -errno when it could not
 * be (err says why; the old state is kept). */
int gw_heal(struct gw_nl *nl, struct gw_monitor *m, const struct gw_config *cfg,
	    struct gw_applied *a, struct gw_sampler *s, char *err, size_t errlen);

/* A heal that failed is tried again at once on a relevant notification (the foreign root
 * removed, the interface back), otherwise after a wait that doubles from GW_HEAL_RETRY_MIN_S
 * to GW_HEAL_RETRY_MAX_S while the cause stays the same. */
#define GW_HEAL_RETRY_MIN_S 1.0
#define GW_HEAL_RETRY_MAX_S 32.0

struct gw_heal_retry {
	bool broken;
	double wait, next;	/* seconds; monotonic time of the next periodic try */
	char cause[1024];
};

/* Note a heal's result r (and err) at monotonic time now. True when err is a new cause,
 * which the caller logs (once per cause). */
bool gw_heal_retry_note(struct gw_heal_retry *h, int r, const char *err, double now);
bool gw_heal_retry_due(const struct gw_heal_retry *h, double now);

#endif
