/* qdisc/peer.h: what container tracking asks the kernel about an interface: its name and
 * kind, the other end of a veth pair (index, and the namespace it lives in), the namespace id
 * of a namespace file, and the addresses on an interface in another namespace. */
#ifndef GW_QDISC_PEER_H
#define GW_QDISC_PEER_H

#include <net/if.h>
#include <stdbool.h>
#include "qdisc/link.h"
#include "qdisc/nl.h"

struct gw_plink {
	int ifindex;
	char name[IFNAMSIZ];
	char kind[16];		/* IFLA_INFO_KIND: "veth", "ifb"...; "" for none */
	char alias[GW_LINK_ALIAS_MAX];	/* IFLA_IFALIAS, cut to fit; "" for none */
	unsigned int flags;	/* IFF_* */
	int peer_ifindex;	/* IFLA_LINK: the other end's index, in its own namespace; 0 none */
	int peer_nsid;		/* IFLA_LINK_NETNSID; -1: the other end is in our namespace */
};

/* An RTM_NEWLINK or RTM_DELLINK message (a dump entry or a notification). */
int gw_plink_parse(const struct nlmsghdr *nlh, struct gw_plink *out);
/* One interface by index; -ENODEV when there is none. */
int gw_plink_get(struct gw_nl *nl, int ifindex, struct gw_plink *out, struct gw_nl_error *e);
/* Every interface of our namespace, one call of cb each (non-zero from cb stops). */
int gw_plink_dump(struct gw_nl *nl, int (*cb)(const struct gw_plink *l, void *arg), void *arg);

/* The id our namespace knows the namespace of file fd by (RTM_GETNSID); -ENOENT when it has
 * none (then no interface of ours leads there). */
int gw_netns_id(struct gw_nl *nl, int fd, int *nsid);

/*
 * The addresses on interface ifindex of namespace nsid (-1: ours), each passed to cb with its
 * family (AF_INET, AF_INET6) and bytes in network order; non-zero from cb stops. nl must be
 * strict (gw_nl_set_strict): the kernel only honours the target namespace then.
 */
int gw_peer_addrs(struct gw_nl *nl, int nsid, int ifindex,
		  int (*cb)(int family, const void *addr, void *arg), void *arg);

#endif
