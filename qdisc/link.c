/* qdisc/link.c: link look-up and the ifb devices that carry ingress shaping. */
#include <errno.h>
#include <string.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include "qdisc/link.h"

int gw_link_parse(const struct nlmsghdr *nlh, struct gw_link_info *out)
{
	struct nlattr *tb[IFLA_MAX + 1], *li[IFLA_INFO_MAX + 1];
	const struct ifinfomsg *ifi;

	if (nlh->nlmsg_type != RTM_NEWLINK || nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)) ||
	    nlmsg_parse((struct nlmsghdr *)nlh, sizeof(*ifi), tb, IFLA_MAX, NULL) < 0)
		return -EBADMSG;
	ifi = nlmsg_data(nlh);
	memset(out, 0, sizeof(*out));
	out->ifindex = ifi->ifi_index;
	out->arptype = ifi->ifi_type;
	out->flags = ifi->ifi_flags;
	if (tb[IFLA_MTU] && nla_len(tb[IFLA_MTU]) >= 4)
		out->mtu = nla_get_u32(tb[IFLA_MTU]);
	if (tb[IFLA_LINKINFO] &&
	    nla_parse_nested(li, IFLA_INFO_MAX, tb[IFLA_LINKINFO], NULL) == 0 &&
	    li[IFLA_INFO_KIND])
		nla_strlcpy(out->kind, li[IFLA_INFO_KIND], sizeof(out->kind));
	return 0;
}

static int link_cb(const struct nlmsghdr *nlh, void *arg)
{
	return gw_link_parse(nlh, arg) ? -EBADMSG : 0;
}

static int link_query(struct gw_nl *nl, const char *name, int ifindex,
		      struct gw_link_info *out, struct gw_nl_error *e)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };
	struct nl_msg *msg = nlmsg_alloc_simple(RTM_GETLINK, 0);
	int err;

	if (!msg)
		return -ENOMEM;
	out->ifindex = 0;
	if (nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0 ||
	    (name && nla_put_string(msg, IFLA_IFNAME, name) < 0)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	err = gw_nl_request(nl, msg, link_cb, out, e);
	nlmsg_free(msg);
	if (!err && !out->ifindex)
		err = -ENODEV;
	return err;
}

int gw_link_get(struct gw_nl *nl, const char *name, struct gw_link_info *out,
		struct gw_nl_error *e)
{
	return link_query(nl, name, 0, out, e);
}

int gw_link_get_index(struct gw_nl *nl, int ifindex, struct gw_link_info *out,
		      struct gw_nl_error *e)
{
	return link_query(nl, NULL, ifindex, out, e);
}

int gw_link_add_ifb(struct gw_nl *nl, const char *name, struct gw_nl_error *e)
{
	/* created up in the same request, so no window exists where it is down */
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_flags = IFF_UP,
				 .ifi_change = IFF_UP };
	struct nl_msg *msg = nlmsg_alloc_simple(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
	struct nlattr *info;
	int err = -ENOMEM;

	if (!msg)
		return -ENOMEM;
	if (nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0 ||
	    nla_put_string(msg, IFLA_IFNAME, name) < 0 ||
	    !(info = nla_nest_start(msg, IFLA_LINKINFO)) ||
	    nla_put_string(msg, IFLA_INFO_KIND, "ifb") < 0)
		goto out;
	nla_nest_end(msg, info);
	err = gw_nl_request(nl, msg, NULL, NULL, e);
out:
	nlmsg_free(msg);
	return err;
}

/* By name, not index: an index can be reused by another device after ours went away. */
int gw_link_del(struct gw_nl *nl, const char *name, struct gw_nl_error *e)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nl_msg *msg = nlmsg_alloc_simple(RTM_DELLINK, 0);
	int err;

	if (!msg)
		return -ENOMEM;
	if (nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0 ||
	    nla_put_string(msg, IFLA_IFNAME, name) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	err = gw_nl_request(nl, msg, NULL, NULL, e);
	nlmsg_free(msg);
	return err;
}
