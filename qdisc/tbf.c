/* qdisc/tbf.c: the token bucket shaper. The bucket travels as TCA_TBF_BURST in bytes (the
 * kernel derives its time budget from it) and, for old readers, as ticks in the parms. */
#include <errno.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include "qdisc/qdisc.h"

static void tbf_init(union gw_qopts *o)
{
	o->tbf.rate = 0;
	o->tbf.burst = GW_UNSET;
	o->tbf.limit = GW_UNSET;
	o->tbf.mtu = GW_UNSET;
}

static int tbf_encode(struct nl_msg *msg, const union gw_qopts *o)
{
	const struct gw_tbf_opts *t = &o->tbf;
	struct nlattr *nest;
	struct tc_tbf_qopt q;

	/* rate, bucket and queue have no kernel default: the plan always sets them */
	if (!t->rate || t->burst == GW_UNSET || t->limit == GW_UNSET)
		return -EINVAL;
	nest = nla_nest_start(msg, TCA_OPTIONS);
	if (!nest)
		return -EMSGSIZE;
	memset(&q, 0, sizeof(q));
	q.rate.linklayer = TC_LINKLAYER_ETHERNET;
	q.rate.rate = t->rate >= UINT32_MAX ? UINT32_MAX : (uint32_t)t->rate;
	q.limit = (uint32_t)t->limit;
	q.buffer = gw_ticks_from_bytes((uint64_t)t->burst, t->rate);
	if (nla_put(msg, TCA_TBF_PARMS, sizeof(q), &q) < 0 ||
	    nla_put_u32(msg, TCA_TBF_BURST, (uint32_t)t->burst) < 0)
		return -EMSGSIZE;
	if (t->rate >= UINT32_MAX && nla_put_u64(msg, TCA_TBF_RATE64, t->rate) < 0)
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int tbf_decode(const struct nlattr *opts, union gw_qopts *o)
{
	struct nlattr *tb[TCA_TBF_MAX + 1];
	struct tc_tbf_qopt q;

	if (!opts || nla_parse_nested(tb, TCA_TBF_MAX, (struct nlattr *)opts, NULL) < 0 ||
	    !tb[TCA_TBF_PARMS] || nla_len(tb[TCA_TBF_PARMS]) < (int)sizeof(q) ||
	    (tb[TCA_TBF_BURST] && nla_len(tb[TCA_TBF_BURST]) < 4))
		return -EBADMSG;
	memcpy(&q, nla_data(tb[TCA_TBF_PARMS]), sizeof(q));
	o->tbf.rate = tb[TCA_TBF_RATE64] ? nla_get_u64(tb[TCA_TBF_RATE64]) : q.rate.rate;
	o->tbf.limit = q.limit;
	o->tbf.burst = tb[TCA_TBF_BURST] ? nla_get_u32(tb[TCA_TBF_BURST]) :
		       (int64_t)gw_bytes_from_ticks(q.buffer, o->tbf.rate);
	return 0;
}

static int tbf_format(char *buf, size_t len, const union gw_qopts *o)
{
	char rate[32];
	size_t pos = 0;

	gw_format_rate(o->tbf.rate, rate, sizeof(rate));
	buf[0] = '\0';
	if (gw_fmt(buf, len, &pos, " rate %s burst %lld limit %lld", rate,
		   (long long)o->tbf.burst, (long long)o->tbf.limit))
		return -ENOSPC;
	return (int)pos;
}

static int tbf_same(const union gw_qopts *want, const union gw_qopts *got)
{
	return want->tbf.rate == got->tbf.rate && want->tbf.limit == got->tbf.limit &&
	       gw_near(want->tbf.burst, got->tbf.burst);
}

static void tbf_set_shape(union gw_qopts *o, const struct gw_shape *sh)
{
	o->tbf.rate = sh->rate;
	o->tbf.burst = sh->burst;
	o->tbf.limit = sh->limit;
}

const struct gw_qdisc_ops gw_tbf_ops = {
	.name = "tbf",
	.module = "sch_tbf",
	.init = tbf_init,
	.encode = tbf_encode,
	.decode = tbf_decode,
	.format = tbf_format,
	.same = tbf_same,
	.shaper = GW_SHAPER_BUCKET,
	.set_shape = tbf_set_shape,
};
