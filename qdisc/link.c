/* qdisc/link.c: link look-up and the ifb devices that carry ingress shaping. */
#include <errno.h>
#include <string.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include "qdisc/link.h"
#include "qdisc/req.h"

int gw_link_msg(const struct nlmsghdr *nlh, bool del_ok, const struct ifinfomsg **ifi,
		struct nlattr **tb, char *kind, size_t kindlen)
{
	struct nlattr *li[IFLA_INFO_MAX + 1];

	if ((nlh->nlmsg_type != RTM_NEWLINK && !(del_ok && nlh->nlmsg_type == RTM_DELLINK)) ||
	    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(**ifi)) ||
	    nlmsg_parse((struct nlmsghdr *)nlh, sizeof(**ifi), tb, IFLA_MAX, NULL) < 0)
		return -EBADMSG;
	*ifi = nlmsg_data(nlh);
	kind[0] = '\0';
	if (tb[IFLA_LINKINFO] &&
	    nla_parse_nested(li, IFLA_INFO_MAX, tb[IFLA_LINKINFO], NULL) == 0 &&
	    li[IFLA_INFO_KIND])
		nla_strlcpy(kind, li[IFLA_INFO_KIND], kindlen);
	return 0;
}

int gw_link_parse(const struct nlmsghdr *nlh, struct gw_link_info *out)
{
	struct nlattr *tb[IFLA_MAX + 1];
	const struct ifinfomsg *ifi;

	memset(out, 0, sizeof(*out));
	if (gw_link_msg(nlh, false, &ifi, tb, out->kind, sizeof(out->kind)))
		return -EBADMSG;
	out->ifindex = ifi->ifi_index;
	out->arptype = ifi->ifi_type;
	out->flags = ifi->ifi_flags;
	if (tb[IFLA_MTU] && nla_len(tb[IFLA_MTU]) >= 4)
		out->mtu = nla_get_u32(tb[IFLA_MTU]);
	gw_link_alias(tb, out->alias, sizeof(out->alias));
	return 0;
}

void gw_link_alias(struct nlattr **tb, char *alias, size_t len)
{
	alias[0] = '\0';
	if (tb[IFLA_IFALIAS] && nla_len(tb[IFLA_IFALIAS]) > 0)
		nla_strlcpy(alias, tb[IFLA_IFALIAS], len);
}

static int link_cb(const struct nlmsghdr *nlh, void *arg)
{
	return gw_link_parse(nlh, arg) ? -EBADMSG : 0;
}

static int link_query(struct gw_nl *nl, const char *name, int ifindex,
		      struct gw_link_info *out, struct gw_nl_error *e)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };
	struct nl_msg *msg = gw_req_new(RTM_GETLINK, 0, &ifi, sizeof(ifi));
	int err;

	out->ifindex = 0;
	if (msg && name && nla_put_string(msg, IFLA_IFNAME, name) < 0)
		msg = gw_req_drop(msg);
	err = gw_req_send(nl, msg, link_cb, out, e);
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

int gw_link_set_alias(struct gw_nl *nl, const char *name, const char *alias,
		      struct gw_nl_error *e)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nl_msg *msg = gw_req_new(RTM_NEWLINK, 0, &ifi, sizeof(ifi));

	if (msg && (nla_put_string(msg, IFLA_IFNAME, name) < 0 ||
		    nla_put_string(msg, IFLA_IFALIAS, alias) < 0))
		msg = gw_req_drop(msg);
	return gw_req_send(nl, msg, NULL, NULL, e);
}

static int add_ifb(struct gw_nl *nl, const char *name, struct gw_nl_error *e)
{
	/* created up in the same request, so no window exists where it is down */
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_flags = IFF_UP,
				 .ifi_change = IFF_UP };
	struct nl_msg *msg = gw_req_new(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, &ifi, sizeof(ifi));
	struct nlattr *info = NULL;

	if (msg && (nla_put_string(msg, IFLA_IFNAME, name) < 0 ||
		    !(info = nla_nest_start(msg, IFLA_LINKINFO)) ||
		    nla_put_string(msg, IFLA_INFO_KIND, "ifb") < 0))
		msg = gw_req_drop(msg);
	if (msg)
		nla_nest_end(msg, info);
	return gw_req_send(nl, msg, NULL, NULL, e);
}

int gw_link_add_ifb(struct gw_nl *nl, const char *name, const char *alias,
		    struct gw_nl_error *e)
{
	int r = add_ifb(nl, name, e);

	if (r || !alias || !alias[0])
		return r;
	if ((r = gw_link_set_alias(nl, name, alias, e)))
		gw_link_del(nl, name, NULL);
	return r;
}

/* By name, not index: an index can be reused by another device after ours went away. */
int gw_link_del(struct gw_nl *nl, const char *name, struct gw_nl_error *e)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nl_msg *msg = gw_req_new(RTM_DELLINK, 0, &ifi, sizeof(ifi));

	if (msg && nla_put_string(msg, IFLA_IFNAME, name) < 0)
		msg = gw_req_drop(msg);
	return gw_req_send(nl, msg, NULL, NULL, e);
}
