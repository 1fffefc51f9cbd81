/* qdisc/stats.h: the counters of a qdisc or class as the kernel dumps them, plus the extended
 * statistics of the kinds that have them (fq_codel, cake). */
#ifndef GW_QDISC_STATS_H
#define GW_QDISC_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/netlink.h>
#include "qdisc/qdisc.h"

#define GW_CAKE_MAX_TINS 8

struct gw_cake_tin_stats {
	uint64_t threshold_rate;	/* bytes/s */
	uint64_t sent_bytes;
	uint32_t sent_packets, dropped_packets, ecn_marked_packets, acks_dropped_packets;
	uint32_t backlog_bytes, backlog_packets;
	uint32_t peak_delay_us, avg_delay_us, base_delay_us;
	uint32_t sparse_flows, bulk_flows, unresponsive_flows;
};

struct gw_tc_stats {
	enum gw_obj_type type;
	int ifindex;
	uint32_t handle, parent;
	enum gw_kind kind;		/* GW_KIND_NONE for kinds gatewayd does not model */
	uint64_t bytes;
	uint64_t packets;		/* 64-bit where the kernel sends TCA_STATS_PKT64 */
	uint32_t drops, overlimits, requeues;
	uint32_t backlog_bytes, qlen;
	bool has_fq_codel;
	struct {
		uint32_t maxpacket, drop_overlimit, ecn_mark, new_flow_count;
		uint32_t new_flows_len, old_flows_len, ce_mark, memory_usage, drop_overmemory;
	} fq_codel;
	bool has_cake;
	struct {
		uint64_t capacity_estimate;	/* bytes/s */
		uint32_t memory_limit, memory_used;
		int n_tins;
		struct gw_cake_tin_stats tins[GW_CAKE_MAX_TINS];
	} cake;
};

/* Parse one dumped RTM_NEWQDISC or RTM_NEWTCLASS. Missing statistics read as zero. */
int gw_stats_parse(const struct nlmsghdr *nlh, struct gw_tc_stats *out);

/* Per-kind extended statistics (TCA_STATS_APP), behind the ops table. */
int gw_fq_codel_xstats(const struct nlattr *app, struct gw_tc_stats *out);
int gw_cake_xstats(const struct nlattr *app, struct gw_tc_stats *out);

#endif
