/* tests/unit/stats_msgs.h: dumped qdisc messages carrying statistics as the kernel sends them
 * (basic and queue stats, fq_codel's and cake's xstats), built for tests/unit/test_stats.c
 * and as seeds for the netlink fuzzer (tests/fuzz/netlink_seeds.c): one copy of the values
 * both check against. */
#ifndef GW_TESTS_STATS_MSGS_H
#define GW_TESTS_STATS_MSGS_H

#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

/* A dumped qdisc message with basic and queue stats, and xstats from fill(). */
static inline struct nl_msg *dumped(const char *kind, uint32_t handle,
				    void (*fill)(struct nl_msg *))
{
	struct nl_msg *m = nlmsg_alloc_size(8192);
	struct tcmsg t = { .tcm_ifindex = 3, .tcm_handle = handle, .tcm_parent = TC_H_ROOT };
	struct gnet_stats_basic b = { .bytes = 5000000000ULL, .packets = 4000000 };
	struct gnet_stats_queue q = { .qlen = 7, .backlog = 10598, .drops = 12, .requeues = 1,
				      .overlimits = 99 };
	struct nlattr *st;

	nlmsg_put(m, 0, 0, RTM_NEWQDISC, 0, NLM_F_MULTI);
	nlmsg_append(m, &t, sizeof(t), NLMSG_ALIGNTO);
	nla_put_string(m, TCA_KIND, kind);
	st = nla_nest_start(m, TCA_STATS2);
	nla_put(m, TCA_STATS_BASIC, sizeof(b), &b);
	nla_put(m, TCA_STATS_QUEUE, sizeof(q), &q);
	nla_put_u64(m, TCA_STATS_PKT64, 6000000000ULL);
	if (fill)
		fill(m);
	nla_nest_end(m, st);
	return m;
}

static inline void fill_fq_codel(struct nl_msg *m)
{
	struct tc_fq_codel_xstats x = { .type = TCA_FQ_CODEL_XSTATS_QDISC };

	x.qdisc_stats.maxpacket = 1514;
	x.qdisc_stats.ecn_mark = 33;
	x.qdisc_stats.new_flow_count = 8;
	x.qdisc_stats.drop_overlimit = 2;
	x.qdisc_stats.ce_mark = 5;
	x.qdisc_stats.memory_usage = 123456;
	nla_put(m, TCA_STATS_APP, sizeof(x), &x);
}

static inline void fill_cake(struct nl_msg *m)
{
	struct nlattr *app = nla_nest_start(m, TCA_STATS_APP), *tins;

	nla_put_u64(m, TCA_CAKE_STATS_CAPACITY_ESTIMATE64, 2500000);
	nla_put_u32(m, TCA_CAKE_STATS_MEMORY_LIMIT, 4194304);
	nla_put_u32(m, TCA_CAKE_STATS_MEMORY_USED, 4096);
	tins = nla_nest_start(m, TCA_CAKE_STATS_TIN_STATS);
	for (int i = 1; i <= 4; i++) {
		struct nlattr *tin = nla_nest_start(m, i);

		nla_put_u64(m, TCA_CAKE_TIN_STATS_THRESHOLD_RATE64, 625000ULL * i);
		nla_put_u64(m, TCA_CAKE_TIN_STATS_SENT_BYTES64, 1000ULL * i);
		nla_put_u32(m, TCA_CAKE_TIN_STATS_SENT_PACKETS, 10u * i);
		nla_put_u32(m, TCA_CAKE_TIN_STATS_DROPPED_PACKETS, 1);
		nla_put_u32(m, TCA_CAKE_TIN_STATS_ECN_MARKED_PACKETS, (uint32_t)i);
		nla_put_u32(m, TCA_CAKE_TIN_STATS_ACKS_DROPPED_PACKETS, 0);
		nla_put_u32(m, TCA_CAKE_TIN_STATS_BACKLOG_BYTES, 1514);
		nla_put_u32(m, TCA_CAKE_TIN_STATS_BACKLOG_PACKETS, 1);
		nla_put_u32(m, TCA_CAKE_TIN_STATS_PEAK_DELAY_US, 900u * i);
		nla_put_u32(m, TCA_CAKE_TIN_STATS_AVG_DELAY_US, 500u * i);
		nla_put_u32(m, TCA_CAKE_TIN_STATS_BASE_DELAY_US, 100u * i);
		nla_put_u32(m, TCA_CAKE_TIN_STATS_SPARSE_FLOWS, 1);
		nla_put_u32(m, TCA_CAKE_TIN_STATS_BULK_FLOWS, 2);
		nla_put_u32(m, TCA_CAKE_TIN_STATS_UNRESPONSIVE_FLOWS, 0);
		nla_nest_end(m, tin);
	}
	/* a tin index cake never has: ignored, not written past the array */
	nla_nest_end(m, nla_nest_start(m, 40));
	nla_nest_end(m, tins);
	nla_nest_end(m, app);
}

#endif
