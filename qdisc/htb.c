/* qdisc/htb.c: the htb qdisc and its classes. Rates go in a tc_ratespec marked as
 * ethernet-linklayer (so the kernel needs no rate table) plus RATE64/CEIL64 at and above
 * 2^32 bytes/s; bursts travel as psched ticks (64 ns). */
#include <errno.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include "qdisc/qdisc.h"

#define PSCHED_TICK_NS 64ULL
#define NSEC_PER_SEC 1000000000ULL
#define HTB_DEFAULT_R2Q 10	/* what tc sends; the kernel clamps derived quanta */
#define HTB_DEFAULT_BUFFER 1600	/* tc's default burst on high-resolution kernels */

/* Rounded as tc rounds (down to whole microseconds first), so that the tc commands --dry-run
 * prints build exactly the tree gatewayd builds; the loss is under a microsecond of burst. */
uint32_t gw_ticks_from_bytes(uint64_t bytes, uint64_t rate)
{
	unsigned __int128 us;

	if (!rate)
		return 0;
	us = (unsigned __int128)bytes * 1000000 / rate;
	us = us * 1000 / PSCHED_TICK_NS;
	return us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

uint64_t gw_bytes_from_ticks(uint32_t ticks, uint64_t rate)
{
	unsigned __int128 b = (unsigned __int128)ticks * PSCHED_TICK_NS * rate;

	return (uint64_t)(b / NSEC_PER_SEC);
}

static void ratespec(struct tc_ratespec *r, uint64_t rate)
{
	memset(r, 0, sizeof(*r));
	r->linklayer = TC_LINKLAYER_ETHERNET;
	r->rate = rate >= UINT32_MAX ? UINT32_MAX : (uint32_t)rate;
}

static void htb_init(union gw_qopts *o)
{
	o->htb.defcls = 0;
	o->htb.r2q = GW_UNSET;
	o->htb.direct_qlen = GW_UNSET;
}

static int htb_encode(struct nl_msg *msg, const union gw_qopts *o)
{
	struct tc_htb_glob g = { .version = 3, .rate2quantum = HTB_DEFAULT_R2Q };
	struct nlattr *nest = nla_nest_start(msg, TCA_OPTIONS);

	if (!nest)
		return -EMSGSIZE;
	g.defcls = o->htb.defcls;
	if (o->htb.r2q != GW_UNSET)
		g.rate2quantum = (uint32_t)o->htb.r2q;
	if (nla_put(msg, TCA_HTB_INIT, sizeof(g), &g) < 0)
		return -EMSGSIZE;
	if (o->htb.direct_qlen != GW_UNSET &&
	    nla_put_u32(msg, TCA_HTB_DIRECT_QLEN, (uint32_t)o->htb.direct_qlen) < 0)
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int htb_decode(const struct nlattr *opts, union gw_qopts *o)
{
	struct nlattr *tb[TCA_HTB_MAX + 1];
	struct tc_htb_glob g;

	if (!opts)
		return 0;
	if (nla_parse_nested(tb, TCA_HTB_MAX, (struct nlattr *)opts, NULL) < 0)
		return -EBADMSG;
	if (tb[TCA_HTB_INIT]) {
		if (nla_len(tb[TCA_HTB_INIT]) < (int)sizeof(g))
			return -EBADMSG;
		memcpy(&g, nla_data(tb[TCA_HTB_INIT]), sizeof(g));
		o->htb.defcls = g.defcls;
		o->htb.r2q = g.rate2quantum;
	}
	if (tb[TCA_HTB_DIRECT_QLEN]) {
		if (nla_len(tb[TCA_HTB_DIRECT_QLEN]) < 4)
			return -EBADMSG;
		o->htb.direct_qlen = nla_get_u32(tb[TCA_HTB_DIRECT_QLEN]);
	}
	return 0;
}

static int htb_format(char *buf, size_t len, const union gw_qopts *o)
{
	size_t pos = 0;
	int err = 0;

	buf[0] = '\0';
	/* tc reads the default class id in hex */
	err |= gw_fmt(buf, len, &pos, " default %x", o->htb.defcls);
	if (o->htb.r2q != GW_UNSET)
		err |= gw_fmt(buf, len, &pos, " r2q %lld", (long long)o->htb.r2q);
	if (o->htb.direct_qlen != GW_UNSET)
		err |= gw_fmt(buf, len, &pos, " direct_qlen %lld", (long long)o->htb.direct_qlen);
	return err ? -ENOSPC : (int)pos;
}

static int htb_same(const union gw_qopts *want, const union gw_qopts *got)
{
	return want->htb.defcls == got->htb.defcls &&
	       (want->htb.r2q == GW_UNSET || want->htb.r2q == got->htb.r2q) &&
	       (want->htb.direct_qlen == GW_UNSET ||
		want->htb.direct_qlen == got->htb.direct_qlen);
}

static void htb_set_shape(union gw_qopts *o, const struct gw_shape *sh)
{
	o->htb.defcls = sh->defcls;
}

const struct gw_qdisc_ops gw_htb_ops = {
	.name = "htb",
	.module = "sch_htb",
	.init = htb_init,
	.encode = htb_encode,
	.decode = htb_decode,
	.format = htb_format,
	.same = htb_same,
	.shaper = GW_SHAPER_CLASSES,
	.set_shape = htb_set_shape,
	.no_change = true,
};

int gw_htb_class_encode(struct nl_msg *msg, const struct gw_htb_class_opts *c)
{
	struct nlattr *nest = nla_nest_start(msg, TCA_OPTIONS);
	struct tc_htb_opt opt;
	int64_t burst = c->burst != GW_UNSET ? c->burst : HTB_DEFAULT_BUFFER;
	int64_t cburst = c->cburst != GW_UNSET ? c->cburst : HTB_DEFAULT_BUFFER;

	if (!nest || !c->rate || !c->ceil)
		return nest ? -EINVAL : -EMSGSIZE;
	memset(&opt, 0, sizeof(opt));
	ratespec(&opt.rate, c->rate);
	ratespec(&opt.ceil, c->ceil);
	opt.buffer = gw_ticks_from_bytes((uint64_t)burst, c->rate);
	opt.cbuffer = gw_ticks_from_bytes((uint64_t)cburst, c->ceil);
	opt.quantum = c->quantum != GW_UNSET ? (uint32_t)c->quantum : 0;
	opt.prio = c->prio != GW_UNSET ? (uint32_t)c->prio : 0;
	if (nla_put(msg, TCA_HTB_PARMS, sizeof(opt), &opt) < 0)
		return -EMSGSIZE;
	if (c->rate >= UINT32_MAX && nla_put_u64(msg, TCA_HTB_RATE64, c->rate) < 0)
		return -EMSGSIZE;
	if (c->ceil >= UINT32_MAX && nla_put_u64(msg, TCA_HTB_CEIL64, c->ceil) < 0)
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

int gw_htb_class_decode(const struct nlattr *opts, struct gw_htb_class_opts *c)
{
	struct nlattr *tb[TCA_HTB_MAX + 1];
	struct tc_htb_opt opt;

	if (!opts || nla_parse_nested(tb, TCA_HTB_MAX, (struct nlattr *)opts, NULL) < 0 ||
	    !tb[TCA_HTB_PARMS] || nla_len(tb[TCA_HTB_PARMS]) < (int)sizeof(opt))
		return -EBADMSG;
	memcpy(&opt, nla_data(tb[TCA_HTB_PARMS]), sizeof(opt));
	c->rate = tb[TCA_HTB_RATE64] ? nla_get_u64(tb[TCA_HTB_RATE64]) : opt.rate.rate;
	c->ceil = tb[TCA_HTB_CEIL64] ? nla_get_u64(tb[TCA_HTB_CEIL64]) : opt.ceil.rate;
	c->burst = (int64_t)gw_bytes_from_ticks(opt.buffer, c->rate);
	c->cburst = (int64_t)gw_bytes_from_ticks(opt.cbuffer, c->ceil);
	c->quantum = opt.quantum;
	c->prio = opt.prio;
	return 0;
}

int gw_htb_class_format(char *buf, size_t len, const struct gw_htb_class_opts *c)
{
	char rate[32], ceil[32];
	size_t pos = 0;
	int err = 0;

	gw_format_rate(c->rate, rate, sizeof(rate));
	gw_format_rate(c->ceil, ceil, sizeof(ceil));
	buf[0] = '\0';
	err |= gw_fmt(buf, len, &pos, " rate %s ceil %s", rate, ceil);
	if (c->burst != GW_UNSET)
		err |= gw_fmt(buf, len, &pos, " burst %lld", (long long)c->burst);
	if (c->cburst != GW_UNSET)
		err |= gw_fmt(buf, len, &pos, " cburst %lld", (long long)c->cburst);
	if (c->quantum != GW_UNSET)
		err |= gw_fmt(buf, len, &pos, " quantum %lld", (long long)c->quantum);
	if (c->prio != GW_UNSET)
		err |= gw_fmt(buf, len, &pos, " prio %lld", (long long)c->prio);
	return err ? -ENOSPC : (int)pos;
}
