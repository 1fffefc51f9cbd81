/* tree/reload.h: SIGHUP. A new config that does not validate changes nothing. Otherwise
 * the running plan and the new one are compared tree by tree (a device's root tree, an
 * interface's ingress hook) and only what differs is touched: changed rates and knobs are
 * changed in place, classes added or removed are created or deleted one by one, a leaf queue
 * whose kind changed or that lost a knob is replaced alone (its class stays), a link added gets
 * its trees (and ifb), a link removed loses exactly its objects (and its ifb), a link whose
 * ingress or name changed keeps its interface's tree (compared as above), a tree that
 * cannot be changed so (shaper kind, htb's default class, a class knob removed) is recreated
 * alone. Every other queue and counter stays. If the kernel refuses any of it, the running
 * tree is read back and put back object by object; only if that fails is the whole tree
 * rebuilt for the new config, or the old one put back: all or nothing. */
#ifndef GW_RELOAD_H
#define GW_RELOAD_H

#include "config/config.h"
#include "tree/apply.h"
#include "qdisc/monitor.h"

enum gw_reload_how {
	GW_RELOAD_UNCHANGED,
	GW_RELOAD_IN_PLACE,	/* rates and knobs changed */
	GW_RELOAD_CLASSES,	/* objects, trees or links added, removed or replaced, the rest kept */
	GW_RELOAD_REBUILT,	/* the whole tree */
};

/* What a reload did. */
struct gw_reload_done {
	enum gw_reload_how how;
	unsigned int changed, created, deleted, replaced;	/* objects */
	unsigned int trees, links_added, links_removed;	/* trees recreated alone; links */
	/* per object of the new plan: made by this reload, so its counters start from zero;
	 * NULL after a whole rebuild (everything is new) */
	bool *fresh;
	char summary[512];	/* for the log: "changed in place (2 objects)"... */
};

/* Put the tree of next in place of the one a holds for cur. On success a describes the new
 * tree and done says what was done (free with gw_reload_done_free); on failure the kernel
 * holds what it held before and err says why. */
int gw_reload(struct gw_nl *nl, struct gw_monitor *mon, const struct gw_config *cur,
	      const struct gw_config *next, struct gw_applied *a, struct gw_reload_done *done,
	      char *err, size_t errlen);
void gw_reload_done_free(struct gw_reload_done *done);
/* Healing: make the links redo names (per link of cfg) again, whose remains the caller has
 * removed, and keep every other link's objects as they are; the links stuck names are not
 * checked (their objects wait for a cause to go). On failure what this made is out again and
 * the caller rebuilds the whole tree. */
int gw_reload_redo(struct gw_nl *nl, const struct gw_config *cfg, struct gw_applied *a,
		   const bool *redo, const bool *stuck, struct gw_reload_done *done, char *err,
		   size_t errlen);

#endif
