/* tree/retune.h: moving one direction's shaping rate in place (autorate): the
 * kernel's change requests for the objects that carry the rate, in one batch, and the applied
 * plan updated so read-back and sampling see the new rate as gatewayd's own. */
#ifndef GW_RETUNE_H
#define GW_RETUNE_H

#include "tree/apply.h"

/*
 * Shape link's direction d at rate bytes/s: cake's bandwidth (a qdisc change), tbf's rate and
 * bucket (a qdisc change; its child is kept), or htb's top class and every class's rate and
 * ceil scaled by rate / the configured rate (class changes), each with the burst and quantum
 * the plan would derive at that rate unless the config set them. No qdisc is replaced, no leaf
 * touched. On success a's plan holds the new values (and *n_msgs, if not NULL, how many
 * requests went). On a refusal every object is sent back its old values, a's plan is left as
 * it was, and err says which object, its tc command and the kernel's message. 0 or -errno.
 */
int gw_retune(struct gw_nl *nl, const struct gw_config *cfg, struct gw_applied *a, size_t link,
	      enum gw_direction d, uint64_t rate, size_t *n_msgs, char *err, size_t errlen);

/* The rate a's plan shapes link's direction d to (its root's shaper_rate), 0 if none. */
uint64_t gw_retune_rate(const struct gw_applied *a, size_t link, enum gw_direction d);

#endif
