/* qdisc/stats.c: counters out of dumped qdiscs and classes, bounded by what the message
 * holds: a short or missing attribute reads as zero, never past the buffer. */
#include <errno.h>
#include <string.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include "qdisc/stats.h"

void gw_stats_copy_attr(void *dst, size_t len, const struct nlattr *a)
{
	size_t n = a ? (size_t)nla_len(a) : 0;

	memset(dst, 0, len);
	if (n > len)
		n = len;
	if (n)
		memcpy(dst, nla_data(a), n);
}

static int parse_stats2(struct nlattr *st, struct gw_tc_stats *out, struct nlattr **app)
{
	struct nlattr *tb[TCA_STATS_MAX + 1];
	struct gnet_stats_basic b;
	struct gnet_stats_queue q;

	if (nla_parse_nested(tb, TCA_STATS_MAX, st, NULL) < 0)
		return -EBADMSG;
	gw_stats_copy_attr(&b, sizeof(b), tb[TCA_STATS_BASIC]);
	gw_stats_copy_attr(&q, sizeof(q), tb[TCA_STATS_QUEUE]);
	out->bytes = b.bytes;
	out->packets = b.packets;
	if (tb[TCA_STATS_PKT64] && nla_len(tb[TCA_STATS_PKT64]) >= 8)
		out->packets = nla_get_u64(tb[TCA_STATS_PKT64]);
	out->qlen = q.qlen;
	out->backlog_bytes = q.backlog;
	out->drops = q.drops;
	out->requeues = q.requeues;
	out->overlimits = q.overlimits;
	*app = tb[TCA_STATS_APP];
	return 0;
}

int gw_stats_parse(const struct nlmsghdr *nlh, struct gw_tc_stats *out)
{
	struct nlattr *tb[TCA_MAX + 1], *app = NULL;
	const struct gw_qdisc_ops *ops = NULL;
	const struct tcmsg *t;
	char kind[16] = "";

	memset(out, 0, sizeof(*out));
	if ((nlh->nlmsg_type != RTM_NEWQDISC && nlh->nlmsg_type != RTM_NEWTCLASS) ||
	    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*t)) ||
	    nlmsg_parse((struct nlmsghdr *)nlh, sizeof(*t), tb, TCA_MAX, NULL) < 0)
		return -EBADMSG;
	t = nlmsg_data(nlh);
	out->type = nlh->nlmsg_type == RTM_NEWQDISC ? GW_OBJ_QDISC : GW_OBJ_CLASS;
	out->ifindex = t->tcm_ifindex;
	out->handle = t->tcm_handle;
	out->parent = t->tcm_parent;
	if (tb[TCA_KIND])
		nla_strlcpy(kind, tb[TCA_KIND], sizeof(kind));
	if ((ops = gw_qdisc_ops_by_tc_kind(kind)))
		out->kind = gw_qdisc_kind(ops);
	if (tb[TCA_STATS2] && parse_stats2(tb[TCA_STATS2], out, &app))
		return -EBADMSG;
	if (!app)
		app = tb[TCA_XSTATS];
	/* a class's extended stats belong to the classful qdisc, not to a leaf kind */
	if (app && ops && ops->xstats && out->type == GW_OBJ_QDISC)
		return ops->xstats(app, out);
	return 0;
}

uint64_t gw_attr_u64(const struct nlattr *a)
{
	return a && nla_len(a) >= 8 ? nla_get_u64((struct nlattr *)a) : 0;
}

uint32_t gw_attr_u32(const struct nlattr *a)
{
	return a && nla_len(a) >= 4 ? nla_get_u32((struct nlattr *)a) : 0;
}
