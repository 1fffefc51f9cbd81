/* qdisc/cake.c: cake. libnl-route has no cake module, so TCA_CAKE_* is encoded here with the
 * uapi types exactly: rates u64, overhead s32, everything else u32. */
#include <errno.h>
#include <linux/pkt_sched.h>
#include "qdisc/knob.h"
#include "qdisc/stats.h"

static const struct gw_knob cake_knobs[] = {
	GW_KNOB(TCA_CAKE_BASE_RATE64, cake.bandwidth, GW_KF_INT64, GW_KW_U64),
	GW_KNOB(TCA_CAKE_DIFFSERV_MODE, cake.diffserv, GW_KF_INT, GW_KW_U32),
	GW_KNOB(TCA_CAKE_FLOW_MODE, cake.flow_mode, GW_KF_INT, GW_KW_U32),
	GW_KNOB(TCA_CAKE_ATM, cake.atm, GW_KF_INT, GW_KW_U32),
	GW_KNOB(TCA_CAKE_OVERHEAD, cake.overhead, GW_KF_INT64, GW_KW_S32),
	GW_KNOB(TCA_CAKE_MPU, cake.mpu, GW_KF_INT64, GW_KW_U32),
	GW_KNOB_TIME(TCA_CAKE_RTT, cake.rtt_us),
	GW_KNOB(TCA_CAKE_NAT, cake.nat, GW_KF_INT, GW_KW_U32),
	GW_KNOB(TCA_CAKE_WASH, cake.wash, GW_KF_INT, GW_KW_U32),
	GW_KNOB(TCA_CAKE_INGRESS, cake.ingress, GW_KF_INT, GW_KW_U32),
	GW_KNOB(TCA_CAKE_ACK_FILTER, cake.ack_filter, GW_KF_INT, GW_KW_U32),
	GW_KNOB(TCA_CAKE_SPLIT_GSO, cake.split_gso, GW_KF_INT, GW_KW_U32),
};
#define N_KNOBS (sizeof(cake_knobs) / sizeof(cake_knobs[0]))

/* tc(8)'s words for the kernel's enum values, indexed by value. */
static const char *const diffserv_words[] = {
	[CAKE_DIFFSERV_DIFFSERV3] = "diffserv3", [CAKE_DIFFSERV_DIFFSERV4] = "diffserv4",
	[CAKE_DIFFSERV_DIFFSERV8] = "diffserv8", [CAKE_DIFFSERV_BESTEFFORT] = "besteffort",
	[CAKE_DIFFSERV_PRECEDENCE] = "precedence",
};
static const char *const flow_words[] = {
	[CAKE_FLOW_NONE] = "flowblind", [CAKE_FLOW_SRC_IP] = "srchost",
	[CAKE_FLOW_DST_IP] = "dsthost", [CAKE_FLOW_HOSTS] = "hosts", [CAKE_FLOW_FLOWS] = "flows",
	[CAKE_FLOW_DUAL_SRC] = "dual-srchost", [CAKE_FLOW_DUAL_DST] = "dual-dsthost",
	[CAKE_FLOW_TRIPLE] = "triple-isolate",
};
static const char *const atm_words[] = {
	[CAKE_ATM_NONE] = "noatm", [CAKE_ATM_ATM] = "atm", [CAKE_ATM_PTM] = "ptm",
};
static const char *const ack_words[] = {
	[CAKE_ACK_NONE] = "no-ack-filter", [CAKE_ACK_FILTER] = "ack-filter",
	[CAKE_ACK_AGGRESSIVE] = "ack-filter-aggressive",
};

static const char *word(const char *const *words, size_t n, int v)
{
	return v >= 0 && (size_t)v < n && words[v] ? words[v] : NULL;
}
#define WORD(tbl, v) word((tbl), sizeof(tbl) / sizeof((tbl)[0]), (v))

static const char *cake_tc_kind(const union gw_qopts *o)
{
	(void)o;
	return "cake";
}

static void cake_init(union gw_qopts *o)
{
	struct gw_cake_opts *c = &o->cake;

	c->bandwidth = c->rtt_us = c->overhead = c->mpu = GW_UNSET;
	c->diffserv = c->flow_mode = c->nat = c->wash = c->split_gso = -1;
	c->ingress = c->ack_filter = c->atm = -1;
}

static int cake_encode(struct nl_msg *msg, const union gw_qopts *o)
{
	return gw_knobs_encode(msg, o, cake_knobs, N_KNOBS);
}

static int cake_decode(const struct nlattr *opts, union gw_qopts *o)
{
	return gw_knobs_decode(opts, o, cake_knobs, N_KNOBS, TCA_CAKE_MAX);
}

static int cake_bool(char *buf, size_t len, size_t *pos, int v, const char *on, const char *off)
{
	if (v < 0)
		return 0;
	return gw_fmt(buf, len, pos, " %s", v ? on : off);
}

static int cake_format(char *buf, size_t len, const union gw_qopts *o)
{
	const struct gw_cake_opts *c = &o->cake;
	const char *w;
	size_t pos = 0;
	char t[32];
	int err = 0;

	buf[0] = '\0';
	if (c->bandwidth == 0) {
		err |= gw_fmt(buf, len, &pos, " unlimited");
	} else if (c->bandwidth != GW_UNSET) {
		gw_format_rate((uint64_t)c->bandwidth, t, sizeof(t));
		err |= gw_fmt(buf, len, &pos, " bandwidth %s", t);
	}
	if ((w = WORD(diffserv_words, c->diffserv)))
		err |= gw_fmt(buf, len, &pos, " %s", w);
	if ((w = WORD(flow_words, c->flow_mode)))
		err |= gw_fmt(buf, len, &pos, " %s", w);
	err |= cake_bool(buf, len, &pos, c->nat, "nat", "nonat");
	err |= cake_bool(buf, len, &pos, c->wash, "wash", "nowash");
	err |= cake_bool(buf, len, &pos, c->split_gso, "split-gso", "no-split-gso");
	err |= cake_bool(buf, len, &pos, c->ingress, "ingress", "egress");
	if ((w = WORD(ack_words, c->ack_filter)))
		err |= gw_fmt(buf, len, &pos, " %s", w);
	if (c->rtt_us != GW_UNSET) {
		gw_format_time(c->rtt_us, t, sizeof(t));
		err |= gw_fmt(buf, len, &pos, " rtt %s", t);
	}
	if ((w = WORD(atm_words, c->atm)))
		err |= gw_fmt(buf, len, &pos, " %s", w);
	if (c->overhead != GW_UNSET)
		err |= gw_fmt(buf, len, &pos, " overhead %lld", (long long)c->overhead);
	if (c->mpu != GW_UNSET)
		err |= gw_fmt(buf, len, &pos, " mpu %lld", (long long)c->mpu);
	return err ? -ENOSPC : (int)pos;
}

static int cake_same(const union gw_qopts *want, const union gw_qopts *got)
{
	return gw_knobs_same(want, got, cake_knobs, N_KNOBS);
}

const struct gw_qdisc_ops gw_cake_ops = {
	.kind = GW_KIND_CAKE,
	.name = "cake",
	.module = "sch_cake",
	.tc_kind = cake_tc_kind,
	.init = cake_init,
	.encode = cake_encode,
	.decode = cake_decode,
	.format = cake_format,
	.same = cake_same,
	.xstats = gw_cake_xstats,
};
