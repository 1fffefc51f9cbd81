/* gatewayd/reload.h: SIGHUP. A new config that does not validate changes nothing. One with the
 * same tree shape (the same objects, only rates and knobs differ) is changed in place, so
 * queues and counters stay; any other is rebuilt. Either way all or nothing. */
#ifndef GW_RELOAD_H
#define GW_RELOAD_H

#include "config/config.h"
#include "gatewayd/apply.h"
#include "qdisc/monitor.h"

enum gw_reload_how { GW_RELOAD_UNCHANGED, GW_RELOAD_IN_PLACE, GW_RELOAD_REBUILT };

/* Put the tree of next in place of the one a holds for cur. On success a describes the new
 * tree and *how says what was done; on failure the kernel holds what it held before. */
int gw_reload(struct gw_nl *nl, struct gw_monitor *mon, const struct gw_config *cur,
	      const struct gw_config *next, struct gw_applied *a, enum gw_reload_how *how,
	      char *err, size_t errlen);
/* Can the trees of two configs be changed into each other in place? (links, devices,
 * directions, shapers, classes and kinds the same) */
bool gw_reload_same_shape(const struct gw_plan *old, const struct gw_plan *next);

#endif
