/* gatewayd/heal.h: putting the tree back when someone else takes it away: a deleted or
 * replaced qdisc, an interface deleted and created again (PPPoE reconnect, container
 * restart). Events only trigger a check; the check is a read-back against the plan. */
#ifndef GW_HEAL_H
#define GW_HEAL_H

#include <stdbool.h>
#include "config/config.h"
#include "gatewayd/apply.h"
#include "gatewayd/sampler.h"
#include "qdisc/monitor.h"

/* Read pending notifications; true when one concerns a device gatewayd shapes (or some were
 * lost, so nothing can be assumed). */
bool gw_heal_pending(struct gw_monitor *m, const struct gw_config *cfg,
		     const struct gw_applied *a);
/* Check the tree; rebuild it if it differs from the plan. Returns 0 when it was intact, 1 when
 * it was restored, -errno when it could not be (err says why; the old state is kept). */
int gw_heal(struct gw_nl *nl, struct gw_monitor *m, const struct gw_config *cfg,
	    struct gw_applied *a, struct gw_sampler *s, char *err, size_t errlen);

#endif
