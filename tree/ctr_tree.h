/* tree/ctr_tree.h: the tree one container's interface gets, as a one-link config: what
 * the daemon's container shaping (gatewayd/ctr_followed.c) and the CNI plugin (cni/)
 * both run through gw_apply, so a container is shaped the same way by either. */
#ifndef GW_TREE_CTR_TREE_H
#define GW_TREE_CTR_TREE_H

#include <stddef.h>
#include "config/config.h"

#define GW_CTR_IFB_PREFIX GW_CTR_RESERVED_PREFIX	/* container ifbs: "gwc-" + the interface's index */
#define GW_CTR_LINK_PREFIX "ctr:"	/* link names in the snapshot */

/* "gwc-" + ifindex: at most 14 characters, unique while the interface exists. */
void gw_ctr_ifb_name(int ifindex, char *buf, size_t len);

/* A CNI container's subnets (unshapedSubnets, shapedSubnets): at most this many, and the rate
 * of the class that does not shape, 100 Gbit/s (a veth has no line rate to take). */
#define GW_CTR_SUBNETS_MAX 64
#define GW_CTR_UNSHAPED_RATE 12500000000ULL
#define GW_CTR_MATCH_GROUPS (GW_CTR_SUBNETS_MAX / GW_MATCH_LIST_MAX)

/* The one-link config a container is shaped by. It points into itself: never copy one. */
struct gw_ctr_synth {
	struct gw_config cfg;
	struct gw_link_cfg link;
	struct gw_class_cfg cls[2][2];	/* per direction: the limited class, the unlimited */
	/* NULL, or gw_ctr_subnets' match groups, 2 x GW_CTR_MATCH_GROUPS (18 KB: on the heap,
	 * so that the many containers without subnets do not carry them) */
	struct gw_match *match;
};
/* htb with one class per present direction of r (rate assured, capped at ceil, r's child under
 * it), on interface ifname; ingress through "gwc-IFINDEX". main_cfg gives the file name and
 * interval. out is written whole: free what gw_ctr_subnets gave an earlier one first. */
void gw_ctr_synthesize(const struct gw_config *main_cfg, const struct gw_ctr_cfg *r,
		       const char *ifname, int ifindex, struct gw_ctr_synth *out);
/* Subnets into an out of gw_ctr_synthesize: each present direction gets a second class, not
 * limited (GW_CTR_UNSHAPED_RATE, the same child), under a top class at that rate. listed_shaped
 * false (unshapedSubnets): the limited class is the default and the subnets go to the other;
 * true (shapedSubnets): the other way round. The remote end's address is matched: the source
 * on the host end's egress (into the container), the destination on the ifb (out of it), by
 * u32 filters on both roots (cfg.classify_u32). n: 1..GW_CTR_SUBNETS_MAX. 0, or -ENOMEM (s
 * unchanged). */
int gw_ctr_subnets(struct gw_ctr_synth *s, const struct gw_prefix *v, size_t n,
		   bool listed_shaped);
/* What gw_ctr_subnets allocated (nothing when s->match is NULL); s is not used after. */
void gw_ctr_synth_free(struct gw_ctr_synth *s);

#endif
