/* tree/own.h: telling gatewayd's own ifbs and ingress hooks from anyone else's. */
#ifndef GW_TREE_OWN_H
#define GW_TREE_OWN_H

#include <stdbool.h>
#include <stddef.h>
#include "qdisc/link.h"
#include "qdisc/nl.h"

/* The ifalias of every ifb gatewayd creates: "gatewayd:" and the creating process's pid. */
#define GW_OWN_IFB_MARK "gatewayd:"

/* This process's mark, "gatewayd:PID", into buf. */
void gw_own_ifb_mark(char *buf, size_t len);
/* Is a device of this kind and alias an ifb gatewayd made (this run or an earlier one)? */
bool gw_own_ifb(const char *kind, const char *alias);
/* Delete the ifb called name if it is one of gatewayd's (gw_own_ifb); 0 when deleted or not
 * there, 1 when a device of that name is there and is not gatewayd's (left alone, what into
 * what, e.g. "a veth" or "an ifb without gatewayd's mark"), -errno. */
int gw_own_ifb_del(struct gw_nl *nl, const char *name, char *what, size_t whatlen,
		   struct gw_nl_error *e);

/* What sits in a device's ingress hook (ffff:). */
enum gw_own_hook {
	GW_HOOK_NONE,		/* nothing */
	GW_HOOK_OURS,		/* one gatewayd may take for its own (see own.c) */
	GW_HOOK_FOREIGN,	/* someone else's: never deleted without replace = true */
};

/* Look at ifindex's ingress hook: its kind into kind ("" for none), whose it is, and whether
 * gatewayd's redirect filter is on it (*redirect). made_ifb: this run made a hook there that
 * redirects to that ifb (which may be gone already; -1: its index not known); 0: a hook found,
 * maker unknown. 0 or
 * -errno. */
int gw_own_hook(struct gw_nl *nl, int ifindex, int made_ifb, enum gw_own_hook *out,
		bool *redirect, char *kind, size_t kindlen);

#endif
