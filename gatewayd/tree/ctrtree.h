/* gatewayd/tree/ctrtree.h: the tree one container's interface gets, as a one-link config: what
 * the daemon's container shaping (gatewayd/containers.c) and the CNI plugin (gatewayd/cni/)
 * both run through gw_apply, so a container is shaped the same way by either. */
#ifndef GW_TREE_CTRTREE_H
#define GW_TREE_CTRTREE_H

#include <stddef.h>
#include "config/config.h"

#define GW_CTR_IFB_PREFIX GW_CTR_RESERVED_PREFIX	/* container ifbs: "gwc-" + the interface's index */
#define GW_CTR_LINK_PREFIX "ctr:"	/* link names in the snapshot */

/* "gwc-" + ifindex: at most 14 characters, unique while the interface exists. */
void gw_ctr_ifb_name(int ifindex, char *buf, size_t len);

/* The one-link config a container is shaped by; classes must have room for 2. */
struct gw_ctr_synth {
	struct gw_config cfg;
	struct gw_link_cfg link;
	struct gw_class_cfg cls[2];
};
/* htb with one class per present direction of r (rate assured, capped at ceil, r's child under
 * it), on interface ifname; ingress through "gwc-IFINDEX". main_cfg gives the file name and
 * interval. */
void gw_ctr_synthesize(const struct gw_config *main_cfg, const struct gw_container_cfg *r,
		       const char *ifname, int ifindex, struct gw_ctr_synth *out);

#endif
