/* qdisc/fq_codel.c: fq_codel, the default leaf: per-flow queues with CoDel AQM. */
#include <errno.h>
#include <linux/pkt_sched.h>
#include "qdisc/knob.h"
#include "qdisc/stats.h"

static const struct gw_knob fq_codel_knobs[] = {
	GW_KNOB(TCA_FQ_CODEL_LIMIT, fq_codel.limit, GW_KF_INT64, GW_KW_U32),
	GW_KNOB(TCA_FQ_CODEL_FLOWS, fq_codel.flows, GW_KF_INT64, GW_KW_U32),
	GW_KNOB_TIME(TCA_FQ_CODEL_TARGET, fq_codel.target_us),
	GW_KNOB_TIME(TCA_FQ_CODEL_INTERVAL, fq_codel.interval_us),
	GW_KNOB(TCA_FQ_CODEL_QUANTUM, fq_codel.quantum, GW_KF_INT64, GW_KW_U32),
	GW_KNOB_TIME(TCA_FQ_CODEL_CE_THRESHOLD, fq_codel.ce_threshold_us),
	GW_KNOB(TCA_FQ_CODEL_MEMORY_LIMIT, fq_codel.memory_limit, GW_KF_INT64, GW_KW_U32),
	GW_KNOB(TCA_FQ_CODEL_ECN, fq_codel.ecn, GW_KF_INT, GW_KW_U32),
};
#define N_KNOBS (sizeof(fq_codel_knobs) / sizeof(fq_codel_knobs[0]))

static const char *fq_codel_tc_kind(const union gw_qopts *o)
{
	(void)o;
	return "fq_codel";
}

static void fq_codel_init(union gw_qopts *o)
{
	struct gw_fq_codel_opts *f = &o->fq_codel;

	f->limit = f->flows = f->target_us = f->interval_us = GW_UNSET;
	f->quantum = f->ce_threshold_us = f->memory_limit = GW_UNSET;
	f->ecn = -1;
}

static int fq_codel_encode(struct nl_msg *msg, const union gw_qopts *o)
{
	return gw_knobs_encode(msg, o, fq_codel_knobs, N_KNOBS);
}

static int fq_codel_decode(const struct nlattr *opts, union gw_qopts *o)
{
	return gw_knobs_decode(opts, o, fq_codel_knobs, N_KNOBS, TCA_FQ_CODEL_MAX);
}

static int fq_codel_format(char *buf, size_t len, const union gw_qopts *o)
{
	const struct gw_fq_codel_opts *f = &o->fq_codel;
	size_t pos = 0;
	char t[32];
	int err = 0;

	buf[0] = '\0';
	if (f->limit != GW_UNSET)
		err |= gw_fmt(buf, len, &pos, " limit %lld", (long long)f->limit);
	if (f->flows != GW_UNSET)
		err |= gw_fmt(buf, len, &pos, " flows %lld", (long long)f->flows);
	if (f->target_us != GW_UNSET) {
		gw_format_time(f->target_us, t, sizeof(t));
		err |= gw_fmt(buf, len, &pos, " target %s", t);
	}
	if (f->interval_us != GW_UNSET) {
		gw_format_time(f->interval_us, t, sizeof(t));
		err |= gw_fmt(buf, len, &pos, " interval %s", t);
	}
	if (f->quantum != GW_UNSET)
		err |= gw_fmt(buf, len, &pos, " quantum %lld", (long long)f->quantum);
	if (f->ce_threshold_us != GW_UNSET) {
		gw_format_time(f->ce_threshold_us, t, sizeof(t));
		err |= gw_fmt(buf, len, &pos, " ce_threshold %s", t);
	}
	if (f->memory_limit != GW_UNSET)
		err |= gw_fmt(buf, len, &pos, " memory_limit %lld", (long long)f->memory_limit);
	if (f->ecn >= 0)
		err |= gw_fmt(buf, len, &pos, f->ecn ? " ecn" : " noecn");
	return err ? -ENOSPC : (int)pos;
}

static int fq_codel_same(const union gw_qopts *want, const union gw_qopts *got)
{
	return gw_knobs_same(want, got, fq_codel_knobs, N_KNOBS);
}

const struct gw_qdisc_ops gw_fq_codel_ops = {
	.kind = GW_KIND_FQ_CODEL,
	.name = "fq_codel",
	.module = "sch_fq_codel",
	.tc_kind = fq_codel_tc_kind,
	.init = fq_codel_init,
	.encode = fq_codel_encode,
	.decode = fq_codel_decode,
	.format = fq_codel_format,
	.same = fq_codel_same,
	.xstats = gw_fq_codel_xstats,
};
