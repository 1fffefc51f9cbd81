/* qdisc/cake.c: cake. libnl-route has no cake module, so TCA_CAKE_* is encoded here with the
 * uapi types exactly: rates u64, overhead s32, everything else u32. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include "qdisc/knob.h"
#include "qdisc/stats.h"

/* tc(8)'s words for the kernel's enum values; the config names them the same. */
static const struct gw_key_word diffserv_words[] = {
	{ "besteffort", CAKE_DIFFSERV_BESTEFFORT, "besteffort" },
	{ "diffserv3", CAKE_DIFFSERV_DIFFSERV3, "diffserv3" },
	{ "diffserv4", CAKE_DIFFSERV_DIFFSERV4, "diffserv4" },
	{ "diffserv8", CAKE_DIFFSERV_DIFFSERV8, "diffserv8" },
	{ "precedence", CAKE_DIFFSERV_PRECEDENCE, "precedence" },
};
static const struct gw_key_word flow_words[] = {
	{ "flowblind", CAKE_FLOW_NONE, "flowblind" }, { "srchost", CAKE_FLOW_SRC_IP, "srchost" },
	{ "dsthost", CAKE_FLOW_DST_IP, "dsthost" }, { "hosts", CAKE_FLOW_HOSTS, "hosts" },
	{ "flows", CAKE_FLOW_FLOWS, "flows" },
	{ "dual-srchost", CAKE_FLOW_DUAL_SRC, "dual-srchost" },
	{ "dual-dsthost", CAKE_FLOW_DUAL_DST, "dual-dsthost" },
	{ "triple-isolate", CAKE_FLOW_TRIPLE, "triple-isolate" },
};
static const struct gw_key_word atm_words[] = {
	{ NULL, CAKE_ATM_NONE, "noatm" }, { NULL, CAKE_ATM_ATM, "atm" },
	{ NULL, CAKE_ATM_PTM, "ptm" },
};
/* ack_filter: true/false, or "aggressive" for cake's third mode */
static const struct gw_key_word ack_words[] = {
	{ NULL, CAKE_ACK_NONE, "no-ack-filter" }, { NULL, CAKE_ACK_FILTER, "ack-filter" },
	{ "aggressive", CAKE_ACK_AGGRESSIVE, "ack-filter-aggressive" },
};
/* bandwidth: a rate, or "unlimited" (0), which is how cake spells "do not shape" */
static const struct gw_key_word bandwidth_words[] = { { "unlimited", 0, "unlimited" } };
#define FLAG_WORDS(name, on, off) \
	static const struct gw_key_word name[] = { { NULL, 0, off }, { NULL, 1, on } }
FLAG_WORDS(nat_words, "nat", "nonat");
FLAG_WORDS(wash_words, "wash", "nowash");
FLAG_WORDS(gso_words, "split-gso", "no-split-gso");
FLAG_WORDS(ingress_words, "ingress", "egress");

#define WORDS(w) .words = (w), .n_words = GW_KEYS_N(w)
#define FLAG(key, w, a, member) \
	{ .name = (key), .unit = GW_KU_BOOL, WORDS(w), .attr = (a), .wire = GW_KW_U32, \
	  GW_KEY_AT(cake.member, GW_KF_INT) }

/* In config and tc order. atm, overhead and mpu come from the link's sizing (the plan). */
static const struct gw_key cake_keys[] = {
	{ .name = "bandwidth", .unit = GW_KU_RATE, .min = GW_MIN_RATE, .max = GW_MAX_RATE,
	  WORDS(bandwidth_words), .tc = "bandwidth", .dflt = "unlimited",
	  .attr = TCA_CAKE_BASE_RATE64, .wire = GW_KW_U64, GW_KEY_AT(cake.bandwidth, GW_KF_INT64) },
	{ .name = "diffserv", .unit = GW_KU_ENUM, WORDS(diffserv_words), .dflt = "diffserv3",
	  .attr = TCA_CAKE_DIFFSERV_MODE, .wire = GW_KW_U32, GW_KEY_AT(cake.diffserv, GW_KF_INT) },
	{ .name = "flow_mode", .unit = GW_KU_ENUM, WORDS(flow_words), .dflt = "triple-isolate",
	  .attr = TCA_CAKE_FLOW_MODE, .wire = GW_KW_U32, GW_KEY_AT(cake.flow_mode, GW_KF_INT) },
	FLAG("nat", nat_words, TCA_CAKE_NAT, nat),
	FLAG("wash", wash_words, TCA_CAKE_WASH, wash),
	FLAG("split_gso", gso_words, TCA_CAKE_SPLIT_GSO, split_gso),
	FLAG("ingress", ingress_words, TCA_CAKE_INGRESS, ingress),
	FLAG("ack_filter", ack_words, TCA_CAKE_ACK_FILTER, ack_filter),
	{ .name = "rtt", .unit = GW_KU_TIME, .min = 1, .max = 3600LL * 1000000, .tc = "rtt",
	  .dflt = "100ms", .attr = TCA_CAKE_RTT, .wire = GW_KW_U32, .approx = true,
	  GW_KEY_AT(cake.rtt_us, GW_KF_INT64) },
	{ .unit = GW_KU_ENUM, WORDS(atm_words), .attr = TCA_CAKE_ATM, .wire = GW_KW_U32,
	  GW_KEY_AT(cake.atm, GW_KF_INT) },
	{ .unit = GW_KU_COUNT, .tc = "overhead", .attr = TCA_CAKE_OVERHEAD, .wire = GW_KW_S32,
	  GW_KEY_AT(cake.overhead, GW_KF_INT64) },
	{ .unit = GW_KU_COUNT, .tc = "mpu", .attr = TCA_CAKE_MPU, .wire = GW_KW_U32,
	  GW_KEY_AT(cake.mpu, GW_KF_INT64) },
};
#define N_KEYS GW_KEYS_N(cake_keys)

/* What the shaper above a cake child allows of its bandwidth; see gatewayd.conf(5). */
static int cake_check(const union gw_qopts *o, const struct gw_qdisc_ops *shaper,
		      const char **key, char *msg, size_t len)
{
	if (o->cake.bandwidth == GW_UNSET)
		return 0;
	*key = "bandwidth";
	if (shaper == &gw_cake_ops) {
		snprintf(msg, len, "'bandwidth' is not allowed here: the direction's 'rate' is "
			 "cake's bandwidth");
		return -EINVAL;
	}
	if (o->cake.bandwidth > 0) {
		snprintf(msg, len, "cake 'bandwidth' must be \"unlimited\" or left out under %s: "
			 "the outer shaper already limits the rate, and a shaping cake child is "
			 "non-work-conserving (htb skips the class)", shaper ? shaper->name : "");
		return -EINVAL;
	}
	return 0;
}

/* Its extended statistics: the whole qdisc's, then one group per tin (JSON "tins", label
 * tin). Rates are kept in bits/s, as JSON shows them; delays in microseconds. */
enum { X_CAPACITY, X_MEM_USED, X_MEM_LIMIT, X_N };
static const struct gw_xstat cake_fields[X_N] = {
	[X_CAPACITY] = { "capacity_estimate_bits_per_second",
			 "gatewayd_cake_capacity_estimate_bytes_per_second", "gauge",
			 "cake's estimate of the link capacity.", 0.125, 1 },
	[X_MEM_USED] = { "memory_used_bytes", "gatewayd_cake_memory_used_bytes", "gauge",
			 "Memory cake uses now.", 1, 1 },
	[X_MEM_LIMIT] = { "memory_limit_bytes", "gatewayd_cake_memory_limit_bytes", "gauge",
			  "cake's memory limit.", 1, 1 },
};

enum { T_THRESHOLD, T_SENT_BYTES, T_SENT_PACKETS, T_DROPPED, T_ECN, T_ACKS, T_BACKLOG,
       T_PEAK, T_AVG, T_BASE, T_SPARSE, T_BULK, T_UNRESPONSIVE, T_N };
static const struct gw_xstat tin_fields[T_N] = {
	[T_THRESHOLD] = { "threshold_bits_per_second",
			  "gatewayd_cake_tin_threshold_bytes_per_second", "gauge",
			  "The tin's bandwidth share.", 0.125, 1 },
	[T_SENT_BYTES] = { "sent_bytes", "gatewayd_cake_tin_sent_bytes_total", "counter",
			   "Bytes the tin sent.", 1, 1 },
	[T_SENT_PACKETS] = { "sent_packets", "gatewayd_cake_tin_sent_packets_total", "counter",
			     "Packets the tin sent.", 1, 1 },
	[T_DROPPED] = { "dropped_packets", "gatewayd_cake_tin_dropped_packets_total", "counter",
			"Packets the tin dropped.", 1, 1 },
	[T_ECN] = { "ecn_marked_packets", "gatewayd_cake_tin_ecn_marked_packets_total", "counter",
		    "Packets the tin ECN-marked.", 1, 1 },
	[T_ACKS] = { "ack_dropped_packets", "gatewayd_cake_tin_ack_dropped_packets_total",
		     "counter", "ACKs the tin's ACK filter dropped.", 1, 1 },
	[T_BACKLOG] = { "backlog_bytes", "gatewayd_cake_tin_backlog_bytes", "gauge",
			"Bytes queued in the tin now.", 1, 1 },
	[T_PEAK] = { "peak_delay_ms", "gatewayd_cake_tin_peak_delay_seconds", "gauge",
		     "The tin's peak queueing delay.", 1e-6, 1e-3 },
	[T_AVG] = { "average_delay_ms", "gatewayd_cake_tin_average_delay_seconds", "gauge",
		    "The tin's average queueing delay.", 1e-6, 1e-3 },
	[T_BASE] = { "base_delay_ms", "gatewayd_cake_tin_base_delay_seconds", "gauge",
		     "The tin's base (minimum) delay.", 1e-6, 1e-3 },
	[T_SPARSE] = { "sparse_flows", "gatewayd_cake_tin_sparse_flows", "gauge",
		       "Sparse flows in the tin now.", 1, 1 },
	[T_BULK] = { "bulk_flows", "gatewayd_cake_tin_bulk_flows", "gauge",
		     "Bulk flows in the tin now.", 1, 1 },
	[T_UNRESPONSIVE] = { "unresponsive_flows", "gatewayd_cake_tin_unresponsive_flows",
			     "gauge", "Unresponsive flows in the tin now.", 1, 1 },
};

/* The tins as tc -s names them: which diffserv mode is running shows in how many there are
 * (besteffort 1, diffserv3 3, diffserv4 4; diffserv8 and precedence are numbered only). */
static const char *cake_tin_name(int g, int n)
{
	static const char *const three[] = { "Bulk", "Best effort", "Voice" };
	static const char *const four[] = { "Bulk", "Best effort", "Video", "Voice" };

	if (g < 0 || g >= n)
		return NULL;
	return n == 1 ? "Best effort" : n == 3 ? three[g] : n == 4 ? four[g] : NULL;
}

static const struct gw_xstats_desc cake_xdesc = {
	.json = "cake",
	.json_always = true,
	.fields = cake_fields,
	.n_fields = X_N,
	.group_json = "tins",
	.group_label = "tin",
	.group_index_json = "index",
	.group_name = cake_tin_name,
	.group_fields = tin_fields,
	.n_group_fields = T_N,
};

static void cake_tin(struct nlattr *nest, uint64_t *t)
{
	struct nlattr *tb[TCA_CAKE_TIN_STATS_MAX + 1];

	if (nla_parse_nested(tb, TCA_CAKE_TIN_STATS_MAX, nest, NULL) < 0)
		return;
	t[T_THRESHOLD] = gw_attr_u64(tb[TCA_CAKE_TIN_STATS_THRESHOLD_RATE64]) * 8;
	t[T_SENT_BYTES] = gw_attr_u64(tb[TCA_CAKE_TIN_STATS_SENT_BYTES64]);
	t[T_SENT_PACKETS] = gw_attr_u32(tb[TCA_CAKE_TIN_STATS_SENT_PACKETS]);
	t[T_DROPPED] = gw_attr_u32(tb[TCA_CAKE_TIN_STATS_DROPPED_PACKETS]);
	t[T_ECN] = gw_attr_u32(tb[TCA_CAKE_TIN_STATS_ECN_MARKED_PACKETS]);
	t[T_ACKS] = gw_attr_u32(tb[TCA_CAKE_TIN_STATS_ACKS_DROPPED_PACKETS]);
	t[T_BACKLOG] = gw_attr_u32(tb[TCA_CAKE_TIN_STATS_BACKLOG_BYTES]);
	t[T_PEAK] = gw_attr_u32(tb[TCA_CAKE_TIN_STATS_PEAK_DELAY_US]);
	t[T_AVG] = gw_attr_u32(tb[TCA_CAKE_TIN_STATS_AVG_DELAY_US]);
	t[T_BASE] = gw_attr_u32(tb[TCA_CAKE_TIN_STATS_BASE_DELAY_US]);
	t[T_SPARSE] = gw_attr_u32(tb[TCA_CAKE_TIN_STATS_SPARSE_FLOWS]);
	t[T_BULK] = gw_attr_u32(tb[TCA_CAKE_TIN_STATS_BULK_FLOWS]);
	t[T_UNRESPONSIVE] = gw_attr_u32(tb[TCA_CAKE_TIN_STATS_UNRESPONSIVE_FLOWS]);
}

/* The common shape: ECN marks and flows summed over the tins, the worst tin's average delay
 * as the queue's. */
static int cake_xstats(const struct nlattr *app, struct gw_tc_stats *out)
{
	struct nlattr *tb[TCA_CAKE_STATS_MAX + 1], *tin;
	int rem;

	if (nla_parse_nested(tb, TCA_CAKE_STATS_MAX, (struct nlattr *)app, NULL) < 0)
		return -EBADMSG;
	out->x.desc = &cake_xdesc;
	out->has_delay = true;
	out->x.v[X_CAPACITY] = gw_attr_u64(tb[TCA_CAKE_STATS_CAPACITY_ESTIMATE64]) * 8;
	out->x.v[X_MEM_LIMIT] = gw_attr_u32(tb[TCA_CAKE_STATS_MEMORY_LIMIT]);
	out->x.v[X_MEM_USED] = gw_attr_u32(tb[TCA_CAKE_STATS_MEMORY_USED]);
	if (!tb[TCA_CAKE_STATS_TIN_STATS])
		return 0;
	/* tins are nested by index 1..n; more than cake has ever had is ignored */
	nla_for_each_nested(tin, tb[TCA_CAKE_STATS_TIN_STATS], rem) {
		int i = nla_type(tin) - 1;

		if (i < 0 || i >= GW_XGROUPS_MAX)
			continue;
		memset(out->x.g[i], 0, sizeof(out->x.g[i]));
		cake_tin(tin, out->x.g[i]);
		if (i + 1 > out->x.n_groups)
			out->x.n_groups = i + 1;
	}
	for (int i = 0; i < out->x.n_groups; i++) {
		const uint64_t *t = out->x.g[i];

		out->ecn_marks += t[T_ECN];
		out->flows += (uint32_t)(t[T_SPARSE] + t[T_BULK] + t[T_UNRESPONSIVE]);
		if (t[T_AVG] > out->delay_us)
			out->delay_us = (uint32_t)t[T_AVG];
	}
	return 0;
}

/* As the shaper, the direction's rate is cake's bandwidth. */
static void cake_set_shape(union gw_qopts *o, const struct gw_shape *sh)
{
	o->cake.bandwidth = (int64_t)sh->rate;
}

/* cake counts the link's overhead itself, from the link's sizing. */
static void cake_plan_leaf(union gw_qopts *o, uint64_t rate, const struct gw_sizing *s)
{
	(void)rate;
	if (!s->set)
		return;
	o->cake.atm = s->linklayer == GW_LL_ATM ? CAKE_ATM_ATM :
		      s->linklayer == GW_LL_PTM ? CAKE_ATM_PTM : CAKE_ATM_NONE;
	o->cake.overhead = s->overhead;
	o->cake.mpu = s->mpu;
}

const struct gw_qdisc_ops gw_cake_ops = {
	.name = "cake",
	.module = "sch_cake",
	.xstats = cake_xstats,
	.xdesc = &cake_xdesc,
	.keys = cake_keys,
	.n_keys = N_KEYS,
	.maxattr = TCA_CAKE_MAX,
	.leaf = true,
	.check = cake_check,
	.shaper = GW_SHAPER_SELF,
	.set_shape = cake_set_shape,
	.plan_leaf = cake_plan_leaf,
	.bench = "",
	.bench_ingress = "ingress = true;",
};
