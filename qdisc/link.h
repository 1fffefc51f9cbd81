/* qdisc/link.h: the few link operations shaping needs: look up, create and delete an ifb. */
#ifndef GW_QDISC_LINK_H
#define GW_QDISC_LINK_H

#include <net/if.h>
#include <stdbool.h>
#include <linux/rtnetlink.h>
#include "qdisc/nl.h"

#define GW_LINK_ALIAS_MAX 64	/* of IFLA_IFALIAS (the kernel allows 255): enough to tell a mark */

struct gw_link_info {
	int ifindex;
	unsigned int mtu;
	unsigned short arptype;	/* ARPHRD_*: ethernet-like devices carry a 14-byte header */
	unsigned int flags;	/* IFF_* */
	char kind[16];		/* IFLA_INFO_KIND ("veth", "ifb"...), "" for none */
	char alias[GW_LINK_ALIAS_MAX];	/* IFLA_IFALIAS, cut to fit; "" for none */
};

/* -ENODEV when there is no such interface. */
int gw_link_get(struct gw_nl *nl, const char *name, struct gw_link_info *out,
		struct gw_nl_error *e);
int gw_link_get_index(struct gw_nl *nl, int ifindex, struct gw_link_info *out,
		      struct gw_nl_error *e);
/* Create an ifb device, administratively up, with alias as its IFLA_IFALIAS (the kernel takes
 * no alias in a create: a second request sets it; if that fails the ifb is deleted again). */
int gw_link_add_ifb(struct gw_nl *nl, const char *name, const char *alias,
		    struct gw_nl_error *e);
/* Set the IFLA_IFALIAS of an existing link, by name. */
int gw_link_set_alias(struct gw_nl *nl, const char *name, const char *alias,
		      struct gw_nl_error *e);
/* IFLA_IFALIAS of a link message into alias ("" for none); for gw_plink_parse too. */
void gw_link_alias(struct nlattr **tb, char *alias, size_t len);
int gw_link_del(struct gw_nl *nl, const char *name, struct gw_nl_error *e);
/* The message part, for unit tests. */
int gw_link_parse(const struct nlmsghdr *nlh, struct gw_link_info *out);
/* What every reader of a link message starts with (gw_link_parse, gw_plink_parse): an
 * RTM_NEWLINK (or, with del_ok, RTM_DELLINK) message's header and attributes (tb[IFLA_MAX + 1]),
 * and its IFLA_INFO_KIND into kind (or "" for none). 0 or -EBADMSG. */
int gw_link_msg(const struct nlmsghdr *nlh, bool del_ok, const struct ifinfomsg **ifi,
		struct nlattr **tb, char *kind, size_t kindlen);

#endif
