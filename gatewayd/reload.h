/* gatewayd/reload.h: SIGHUP. A new config that does not validate changes nothing. On the same
 * links, only what differs is touched: changed rates and knobs are changed in place, classes
 * added or removed are created or deleted one by one, every other queue and counter stays.
 * What cannot be done that way (a shaper or kind changed, a knob unset, links changed) is
 * rebuilt. Either way all or nothing. */
#ifndef GW_RELOAD_H
#define GW_RELOAD_H

#include "config/config.h"
#include "gatewayd/apply.h"
#include "qdisc/monitor.h"

enum gw_reload_how {
	GW_RELOAD_UNCHANGED,
	GW_RELOAD_IN_PLACE,	/* rates and knobs changed */
	GW_RELOAD_CLASSES,	/* classes added or removed one by one, the rest kept */
	GW_RELOAD_REBUILT,
};

/* Put the tree of next in place of the one a holds for cur. On success a describes the new
 * tree and *how says what was done; on failure the kernel holds what it held before. */
int gw_reload(struct gw_nl *nl, struct gw_monitor *mon, const struct gw_config *cur,
	      const struct gw_config *next, struct gw_applied *a, enum gw_reload_how *how,
	      char *err, size_t errlen);

#endif
