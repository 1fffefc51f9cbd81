/* qdisc/peer.c: interface, veth peer and namespace queries for container tracking. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_addr.h>
#include <linux/net_namespace.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include "qdisc/link.h"
#include "qdisc/peer.h"
#include "qdisc/req.h"

int gw_plink_parse(const struct nlmsghdr *nlh, struct gw_plink *out)
{
	struct nlattr *tb[IFLA_MAX + 1];
	const struct ifinfomsg *ifi;

	memset(out, 0, sizeof(*out));
	if (gw_link_msg(nlh, true, &ifi, tb, out->kind, sizeof(out->kind)))
		return -EBADMSG;
	out->ifindex = ifi->ifi_index;
	out->flags = ifi->ifi_flags;
	out->peer_nsid = -1;
	if (tb[IFLA_IFNAME])
		nla_strlcpy(out->name, tb[IFLA_IFNAME], sizeof(out->name));
	gw_link_alias(tb, out->alias, sizeof(out->alias));
	if (tb[IFLA_LINK] && nla_len(tb[IFLA_LINK]) >= 4)
		out->peer_ifindex = (int)nla_get_u32(tb[IFLA_LINK]);
	if (tb[IFLA_LINK_NETNSID] && nla_len(tb[IFLA_LINK_NETNSID]) >= 4)
		out->peer_nsid = (int)nla_get_s32(tb[IFLA_LINK_NETNSID]);
	return out->ifindex > 0 ? 0 : -EBADMSG;
}

static int one_cb(const struct nlmsghdr *nlh, void *arg)
{
	return gw_plink_parse(nlh, arg) ? -EBADMSG : 0;
}

int gw_plink_get(struct gw_nl *nl, int ifindex, struct gw_plink *out, struct gw_nl_error *e)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };
	int err;

	memset(out, 0, sizeof(*out));
	err = gw_req_send(nl, gw_req_new(RTM_GETLINK, 0, &ifi, sizeof(ifi)), one_cb, out, e);
	if (!err && !out->ifindex)
		err = -ENODEV;
	return err;
}

struct dump_arg {
	int (*cb)(const struct gw_plink *l, void *arg);
	void *arg;
};

static int dump_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct dump_arg *d = arg;
	struct gw_plink l;

	if (gw_plink_parse(nlh, &l))
		return 0;
	return d->cb(&l, d->arg);
}

int gw_plink_dump(struct gw_nl *nl, int (*cb)(const struct gw_plink *l, void *arg), void *arg)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct dump_arg d = { cb, arg };

	return gw_req_send(nl, gw_req_new(RTM_GETLINK, NLM_F_DUMP, &ifi, sizeof(ifi)), dump_cb,
			   &d, NULL);
}

static int nsid_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[NETNSA_MAX + 1];

	if (nlh->nlmsg_type != RTM_NEWNSID ||
	    nlmsg_parse((struct nlmsghdr *)nlh, sizeof(struct rtgenmsg), tb, NETNSA_MAX,
			NULL) < 0)
		return -EBADMSG;
	if (tb[NETNSA_NSID] && nla_len(tb[NETNSA_NSID]) >= 4)
		*(int *)arg = nla_get_s32(tb[NETNSA_NSID]);
	return 0;
}

int gw_netns_id(struct gw_nl *nl, int fd, int *nsid)
{
	struct rtgenmsg g = { .rtgen_family = AF_UNSPEC };
	struct nl_msg *msg = gw_req_new(RTM_GETNSID, 0, &g, sizeof(g));
	int err, id = NETNSA_NSID_NOT_ASSIGNED;

	if (msg && nla_put_u32(msg, NETNSA_FD, (uint32_t)fd) < 0)
		msg = gw_req_drop(msg);
	err = gw_req_send(nl, msg, nsid_cb, &id, NULL);
	if (err)
		return err;
	if (id < 0)
		return -ENOENT;
	*nsid = id;
	return 0;
}

struct addr_arg {
	int ifindex;
	int (*cb)(int family, const void *addr, void *arg);
	void *arg;
};

static int addr_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct addr_arg *a = arg;
	struct nlattr *tb[IFA_MAX + 1], *at;
	const struct ifaddrmsg *ifa;
	size_t want;

	if (nlh->nlmsg_type != RTM_NEWADDR || nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)) ||
	    nlmsg_parse((struct nlmsghdr *)nlh, sizeof(*ifa), tb, IFA_MAX, NULL) < 0)
		return 0;
	ifa = nlmsg_data(nlh);
	if ((int)ifa->ifa_index != a->ifindex)
		return 0;
	/* IFA_LOCAL is the interface's own address on point-to-point links */
	at = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
	want = ifa->ifa_family == AF_INET ? 4 : ifa->ifa_family == AF_INET6 ? 16 : 0;
	if (!at || !want || (size_t)nla_len(at) < want)
		return 0;
	return a->cb(ifa->ifa_family, nla_data(at), a->arg);
}

int gw_peer_addrs(struct gw_nl *nl, int nsid, int ifindex,
		  int (*cb)(int family, const void *addr, void *arg), void *arg)
{
	static const int families[] = { AF_INET, AF_INET6 };
	struct addr_arg a = { ifindex, cb, arg };
	int err = 0;

	for (size_t f = 0; f < 2 && !err; f++) {
		struct ifaddrmsg ifa = { .ifa_family = (unsigned char)families[f],
					 .ifa_index = (unsigned int)ifindex };
		struct nl_msg *msg = gw_req_new(RTM_GETADDR, NLM_F_DUMP, &ifa, sizeof(ifa));

		if (msg && nsid >= 0 && nla_put_s32(msg, IFA_TARGET_NETNSID, nsid) < 0)
			msg = gw_req_drop(msg);
		err = gw_req_send(nl, msg, addr_cb, &a, NULL);
	}
	return err;
}
