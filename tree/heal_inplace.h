/* tree/heal_inplace.h: putting back in place what someone else changed or deleted in the
 * running tree (a class's rate, a leaf queue, the ingress redirect), object by object. */
#ifndef GW_HEAL_INPLACE_H
#define GW_HEAL_INPLACE_H

#include "tree/apply.h"

/* Say at most this many objects by name in what was found; the rest are counted. */
#define GW_HEAL_INPLACE_SAY_MAX 4

/*
 * Mend the objects a read-back judged (state[i], and got[i] as read where it differs: see
 * gw_readback_got), except those of links skip[] names (may be NULL): a class changed back
 * (a change request) or made again, a leaf made again under its class (replacing whatever
 * took its place), a leaf of another kind or another tc kind deleted and made again, the
 * ingress redirect's priority emptied and the redirect made again. Deletes go first (a
 * deletion that finds nothing is not a failure), then changes and creates in plan order
 * (parents first) in one batch. found says what differed, one clause per object: "egress
 * class web (e000:11) on v0: rate 800kbit, expected 8mbit". Returns how many objects it
 * mended, 0 when none differed; -EAGAIN, having sent nothing, when one cannot be mended in
 * place (a root qdisc gone or of another kind, an ingress hook): the link is made again
 * instead; another -errno when the kernel refused (err says which object and why).
 */
int gw_heal_inplace(struct gw_nl *nl, const struct gw_config *cfg, const struct gw_applied *a,
	    const enum gw_obj_state *state, const struct gw_tc_obj *got, const bool *skip,
	    char *found, size_t foundlen, char *err, size_t errlen);

/* One clause of found for plan object p (got NULL: not in the kernel). */
void gw_heal_inplace_say(const struct gw_plan_obj *p, const struct gw_tc_obj *got, char *buf,
		 size_t len);

#endif
