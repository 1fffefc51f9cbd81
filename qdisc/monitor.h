/* qdisc/monitor.h: notifications of links and tc objects (rtnetlink) and of nf_tables
 * (netfilter), for self-healing. The two kinds come through one callback: an nf_tables
 * message's type is (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_..., beyond every RTM_ type. */
#ifndef GW_QDISC_MONITOR_H
#define GW_QDISC_MONITOR_H

#include <stdbool.h>
#include "qdisc/nl.h"

struct gw_monitor;

int gw_monitor_open(struct gw_monitor **out);
/* A monitor of other rtnetlink groups alone (RTMGRP_*: container tracking's links and
 * addresses), read the same way. all_nsid: the groups' notifications from every namespace
 * ours has an id for, too (NETLINK_LISTEN_ALL_NSID; a kernel without it gives ours only). */
int gw_monitor_open_groups(unsigned int groups, bool all_nsid, struct gw_monitor **out);

/* The seam (as gw_nl_ops): notifications from elsewhere, such as the unit tests' in-memory
 * kernel. read is gw_monitor_read's, nf_tables' among them when nft says so; such a monitor
 * has no fd (-1). */
struct gw_monitor_ops {
	int (*read)(void *priv, gw_nl_cb cb, void *arg);
	void (*close)(void *priv);	/* may be NULL */
	bool (*nft)(void *priv);	/* gw_monitor_nft's answer (NULL: false) */
};

int gw_monitor_open_ops(const struct gw_monitor_ops *ops, void *priv, struct gw_monitor **out);
void gw_monitor_close(struct gw_monitor *m);
/* One fd (an epoll of both sockets) that is readable when something is pending. */
int gw_monitor_fd(const struct gw_monitor *m);
/* Are nf_tables' notifications watched too (false: the kernel has no nf_tables)? */
bool gw_monitor_nft(const struct gw_monitor *m);
/* Pass every pending notification to cb. Returns 0, or -ENOBUFS when the kernel dropped some
 * (the caller must then check the whole state instead of trusting the events); m NULL: 0. */
int gw_monitor_read(struct gw_monitor *m, gw_nl_cb cb, void *arg);

#endif
