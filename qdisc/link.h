/* qdisc/link.h: the few link operations shaping needs: look up, create and delete an ifb. */
#ifndef GW_QDISC_LINK_H
#define GW_QDISC_LINK_H

#include <net/if.h>
#include "qdisc/nl.h"

struct gw_link_info {
	int ifindex;
	unsigned int mtu;
	unsigned short arptype;	/* ARPHRD_*: ethernet-like devices carry a 14-byte header */
	unsigned int flags;	/* IFF_* */
	char kind[16];		/* IFLA_INFO_KIND ("veth", "ifb"...), "" for none */
};

/* -ENODEV when there is no such interface. */
int gw_link_get(struct gw_nl *nl, const char *name, struct gw_link_info *out,
		struct gw_nl_error *e);
int gw_link_get_index(struct gw_nl *nl, int ifindex, struct gw_link_info *out,
		      struct gw_nl_error *e);
/* Create an ifb device, administratively up. */
int gw_link_add_ifb(struct gw_nl *nl, const char *name, struct gw_nl_error *e);
int gw_link_del(struct gw_nl *nl, const char *name, struct gw_nl_error *e);
/* The message part, for unit tests. */
int gw_link_parse(const struct nlmsghdr *nlh, struct gw_link_info *out);

#endif
