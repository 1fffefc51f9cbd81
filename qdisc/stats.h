/* qdisc/stats.h: the counters of a qdisc or class as the kernel dumps them, plus the extended
 * statistics in one common shape and each kind's own by name (qdisc/kind.h). */
#ifndef GW_QDISC_STATS_H
#define GW_QDISC_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/netlink.h>
#include "qdisc/qdisc.h"

struct gw_tc_stats {
	enum gw_obj_type type;
	int ifindex;
	uint32_t handle, parent;
	enum gw_kind kind;		/* GW_KIND_NONE for kinds gatewayd does not model */
	uint64_t bytes;
	uint64_t packets;		/* 64-bit where the kernel sends TCA_STATS_PKT64 */
	uint32_t drops, overlimits, requeues;
	uint32_t backlog_bytes, qlen;
	/* the common shape of a queue's extended statistics, whatever its kind */
	uint64_t ecn_marks;		/* packets the queue ECN-marked */
	bool has_delay;			/* the queue reports its own delay (cake, pie) */
	uint32_t delay_us;		/* its queueing delay now (cake: the worst tin's average) */
	uint32_t flows;			/* flows queued now, where the kind counts them */
	/* and each kind's own, by name */
	struct gw_xstats x;
};

/* Parse one dumped RTM_NEWQDISC or RTM_NEWTCLASS. Missing statistics read as zero. */
int gw_stats_parse(const struct nlmsghdr *nlh, struct gw_tc_stats *out);

/* For the kinds' xstats decoders: an attribute's payload into dst, zero-padding a short one;
 * a u32/u64 attribute, 0 when missing or short. */
void gw_stats_copy_attr(void *dst, size_t len, const struct nlattr *a);
uint32_t gw_attr_u32(const struct nlattr *a);
uint64_t gw_attr_u64(const struct nlattr *a);

#endif
