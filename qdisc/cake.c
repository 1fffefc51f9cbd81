/* qdisc/cake.c: cake. libnl-route has no cake module, so TCA_CAKE_* is encoded here with the
 * uapi types exactly: rates u64, overhead s32, everything else u32. */
#include <errno.h>
#include <stdio.h>
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

static const char *cake_tc_kind(const union gw_qopts *o)
{
	(void)o;
	return "cake";
}

static void cake_init(union gw_qopts *o)
{
	gw_keys_init(o, cake_keys, N_KEYS);
}

static int cake_encode(struct nl_msg *msg, const union gw_qopts *o)
{
	return gw_keys_encode(msg, o, cake_keys, N_KEYS);
}

static int cake_decode(const struct nlattr *opts, union gw_qopts *o)
{
	return gw_keys_decode(opts, o, cake_keys, N_KEYS, TCA_CAKE_MAX);
}

static int cake_format(char *buf, size_t len, const union gw_qopts *o)
{
	return gw_keys_format(buf, len, o, cake_keys, N_KEYS);
}

static int cake_same(const union gw_qopts *want, const union gw_qopts *got)
{
	return gw_keys_same(want, got, cake_keys, N_KEYS);
}

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

const struct gw_qdisc_ops gw_cake_ops = {
	.name = "cake",
	.module = "sch_cake",
	.tc_kind = cake_tc_kind,
	.init = cake_init,
	.encode = cake_encode,
	.decode = cake_decode,
	.format = cake_format,
	.same = cake_same,
	.xstats = gw_cake_xstats,
	.keys = cake_keys,
	.n_keys = N_KEYS,
	.leaf = true,
	.check = cake_check,
	.self_shaping = true,
};
