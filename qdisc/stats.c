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

/* Copy an attribute's payload into dst, zero-padding a short one. */
static void copy_attr(void *dst, size_t len, const struct nlattr *a)
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
	copy_attr(&b, sizeof(b), tb[TCA_STATS_BASIC]);
	copy_attr(&q, sizeof(q), tb[TCA_STATS_QUEUE]);
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

int gw_fq_codel_xstats(const struct nlattr *app, struct gw_tc_stats *out)
{
	struct tc_fq_codel_xstats x;

	copy_attr(&x, sizeof(x), app);
	if (x.type != TCA_FQ_CODEL_XSTATS_QDISC)
		return 0;
	out->has_fq_codel = true;
	out->fq_codel.maxpacket = x.qdisc_stats.maxpacket;
	out->fq_codel.drop_overlimit = x.qdisc_stats.drop_overlimit;
	out->fq_codel.ecn_mark = x.qdisc_stats.ecn_mark;
	out->fq_codel.new_flow_count = x.qdisc_stats.new_flow_count;
	out->fq_codel.new_flows_len = x.qdisc_stats.new_flows_len;
	out->fq_codel.old_flows_len = x.qdisc_stats.old_flows_len;
	out->fq_codel.ce_mark = x.qdisc_stats.ce_mark;
	out->fq_codel.memory_usage = x.qdisc_stats.memory_usage;
	out->fq_codel.drop_overmemory = x.qdisc_stats.drop_overmemory;
	return 0;
}

static uint64_t get64(struct nlattr *a)
{
	return a && nla_len(a) >= 8 ? nla_get_u64(a) : 0;
}

static uint32_t get32(struct nlattr *a)
{
	return a && nla_len(a) >= 4 ? nla_get_u32(a) : 0;
}

static void cake_tin(struct nlattr *nest, struct gw_cake_tin_stats *t)
{
	struct nlattr *tb[TCA_CAKE_TIN_STATS_MAX + 1];

	memset(t, 0, sizeof(*t));
	if (nla_parse_nested(tb, TCA_CAKE_TIN_STATS_MAX, nest, NULL) < 0)
		return;
	t->threshold_rate = get64(tb[TCA_CAKE_TIN_STATS_THRESHOLD_RATE64]);
	t->sent_bytes = get64(tb[TCA_CAKE_TIN_STATS_SENT_BYTES64]);
	t->sent_packets = get32(tb[TCA_CAKE_TIN_STATS_SENT_PACKETS]);
	t->dropped_packets = get32(tb[TCA_CAKE_TIN_STATS_DROPPED_PACKETS]);
	t->ecn_marked_packets = get32(tb[TCA_CAKE_TIN_STATS_ECN_MARKED_PACKETS]);
	t->acks_dropped_packets = get32(tb[TCA_CAKE_TIN_STATS_ACKS_DROPPED_PACKETS]);
	t->backlog_bytes = get32(tb[TCA_CAKE_TIN_STATS_BACKLOG_BYTES]);
	t->backlog_packets = get32(tb[TCA_CAKE_TIN_STATS_BACKLOG_PACKETS]);
	t->peak_delay_us = get32(tb[TCA_CAKE_TIN_STATS_PEAK_DELAY_US]);
	t->avg_delay_us = get32(tb[TCA_CAKE_TIN_STATS_AVG_DELAY_US]);
	t->base_delay_us = get32(tb[TCA_CAKE_TIN_STATS_BASE_DELAY_US]);
	t->sparse_flows = get32(tb[TCA_CAKE_TIN_STATS_SPARSE_FLOWS]);
	t->bulk_flows = get32(tb[TCA_CAKE_TIN_STATS_BULK_FLOWS]);
	t->unresponsive_flows = get32(tb[TCA_CAKE_TIN_STATS_UNRESPONSIVE_FLOWS]);
}

int gw_cake_xstats(const struct nlattr *app, struct gw_tc_stats *out)
{
	struct nlattr *tb[TCA_CAKE_STATS_MAX + 1], *tin;
	int rem;

	if (nla_parse_nested(tb, TCA_CAKE_STATS_MAX, (struct nlattr *)app, NULL) < 0)
		return -EBADMSG;
	out->has_cake = true;
	out->cake.capacity_estimate = get64(tb[TCA_CAKE_STATS_CAPACITY_ESTIMATE64]);
	out->cake.memory_limit = get32(tb[TCA_CAKE_STATS_MEMORY_LIMIT]);
	out->cake.memory_used = get32(tb[TCA_CAKE_STATS_MEMORY_USED]);
	if (!tb[TCA_CAKE_STATS_TIN_STATS])
		return 0;
	/* tins are nested by index 1..n; more than cake has ever had is ignored */
	nla_for_each_nested(tin, tb[TCA_CAKE_STATS_TIN_STATS], rem) {
		int i = nla_type(tin) - 1;

		if (i < 0 || i >= GW_CAKE_MAX_TINS)
			continue;
		cake_tin(tin, &out->cake.tins[i]);
		if (i + 1 > out->cake.n_tins)
			out->cake.n_tins = i + 1;
	}
	return 0;
}
