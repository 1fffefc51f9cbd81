/* qdisc/sfq.c: sfq, stochastic fairness queueing (what wondershaper ships): flows hashed into
 * buckets served round robin. Its options travel as one struct tc_sfq_qopt_v1, whose zero
 * fields the kernel reads as "keep the default", so only what the user set is non-zero. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/pkt_sched.h>
#include <netlink/attr.h>
#include "qdisc/knob.h"
#include "qdisc/stats.h"

#define SFQ_MAX_DEPTH 127	/* the kernel's bounds (sch_sfq.c) */
#define SFQ_MAX_FLOWS 65408
#define SFQ_DEFAULT_DEPTH 127
#define SFQ_DEFAULT_FLOWS 128

/* its knobs, in options.knob[] */
enum { K_LIMIT, K_PERTURB, K_QUANTUM, K_DIVISOR, K_FLOWS, K_DEPTH, K_HEADDROP, K_N };

static const struct gw_key_word headdrop_words[] = { { NULL, 0, NULL }, { NULL, 1, "headdrop" } };

/* In config and tc order; the defaults are the kernel's (tc-sfq(8)). perturb is kept in
 * microseconds like every time, and travels (and prints) as whole seconds. */
static const struct gw_key sfq_keys[K_N] = {
	[K_LIMIT] = { .name = "limit", .unit = GW_KU_COUNT, .min = 2,
		      .max = SFQ_MAX_DEPTH * SFQ_MAX_FLOWS, .tc = "limit", .dflt = "127",
		      GW_KEY_KNOB(K_LIMIT) },
	[K_PERTURB] = { .name = "perturb", .unit = GW_KU_TIME, .min = 1000000,
			.max = 3600LL * 1000000, .dflt = "0 (never rehash)",
			GW_KEY_KNOB(K_PERTURB) },
	[K_QUANTUM] = { .name = "quantum", .unit = GW_KU_SIZE, .min = 64, .max = 1 << 20,
			.tc = "quantum", .dflt = "the MTU", GW_KEY_KNOB(K_QUANTUM) },
	[K_DIVISOR] = { .name = "divisor", .unit = GW_KU_COUNT, .min = 1, .max = 65536,
			.tc = "divisor", .dflt = "1024", GW_KEY_KNOB(K_DIVISOR) },
	[K_FLOWS] = { .name = "flows", .unit = GW_KU_COUNT, .min = 1, .max = SFQ_MAX_FLOWS,
		      .tc = "flows", .dflt = "128", GW_KEY_KNOB(K_FLOWS) },
	[K_DEPTH] = { .name = "depth", .unit = GW_KU_COUNT, .min = 1, .max = SFQ_MAX_DEPTH,
		      .tc = "depth", .dflt = "127", GW_KEY_KNOB(K_DEPTH) },
	[K_HEADDROP] = { .name = "headdrop", .unit = GW_KU_BOOL, .words = headdrop_words,
			 .n_words = 2, .dflt = "off (tail drop)", GW_KEY_KNOB(K_HEADDROP) },
};

static int64_t knob(const union gw_qopts *o, int k)
{
	return o->knob[k];
}

static uint32_t knob_u32(const union gw_qopts *o, int k)
{
	return o->knob[k] == GW_UNSET ? 0 : (uint32_t)o->knob[k];
}

static void sfq_init(union gw_qopts *o)
{
	gw_keys_init(o, sfq_keys, K_N);
}

static int sfq_encode(struct nl_msg *msg, const union gw_qopts *o)
{
	struct tc_sfq_qopt_v1 q;

	memset(&q, 0, sizeof(q));
	q.v0.limit = knob_u32(o, K_LIMIT);
	q.v0.quantum = knob_u32(o, K_QUANTUM);
	q.v0.divisor = knob_u32(o, K_DIVISOR);
	q.v0.flows = knob_u32(o, K_FLOWS);
	/* 0 is the kernel's own default: never rehash */
	q.v0.perturb_period = knob(o, K_PERTURB) == GW_UNSET ? 0 :
			      (int)(knob(o, K_PERTURB) / 1000000);
	q.depth = knob_u32(o, K_DEPTH);
	q.headdrop = knob_u32(o, K_HEADDROP);
	return nla_put(msg, TCA_OPTIONS, sizeof(q), &q) < 0 ? -EMSGSIZE : 0;
}

/* The kernel dumps every value it runs with (v1 since Linux 3.3; v0 before). */
static int sfq_decode(const struct nlattr *opts, union gw_qopts *o)
{
	struct tc_sfq_qopt_v1 q;
	int len;

	if (!opts)
		return 0;
	len = nla_len(opts);
	if (len < (int)sizeof(q.v0))
		return -EBADMSG;
	memset(&q, 0, sizeof(q));
	memcpy(&q, nla_data(opts), (size_t)len < sizeof(q) ? (size_t)len : sizeof(q));
	o->knob[K_LIMIT] = q.v0.limit;
	o->knob[K_QUANTUM] = q.v0.quantum;
	o->knob[K_DIVISOR] = q.v0.divisor;
	o->knob[K_FLOWS] = q.v0.flows;
	o->knob[K_PERTURB] = (int64_t)q.v0.perturb_period * 1000000;
	if ((size_t)len >= sizeof(q)) {
		o->knob[K_DEPTH] = q.depth;
		o->knob[K_HEADDROP] = q.headdrop;
	}
	return 0;
}

/* tc's words; perturb in whole seconds, as tc-sfq(8) takes it. */
static int sfq_format(char *buf, size_t len, const union gw_qopts *o)
{
	int n = gw_keys_format(buf, len, o, sfq_keys, K_N);
	size_t pos;

	if (n < 0 || knob(o, K_PERTURB) == GW_UNSET)
		return n;
	pos = (size_t)n;
	if (gw_fmt(buf, len, &pos, " perturb %lld", (long long)(knob(o, K_PERTURB) / 1000000)))
		return -ENOSPC;
	return (int)pos;
}

static int sfq_same(const union gw_qopts *want, const union gw_qopts *got)
{
	return gw_keys_same(want, got, sfq_keys, K_N);
}

/* What the kernel would quietly change: a divisor that is not a power of two is refused, a
 * limit above depth x flows or fewer packets than flows is clamped (and reads back other). */
static int sfq_check(const union gw_qopts *o, const struct gw_qdisc_ops *shaper,
		     const char **key, char *msg, size_t len)
{
	int64_t div = knob(o, K_DIVISOR), lim = knob(o, K_LIMIT), fl = knob(o, K_FLOWS);
	int64_t depth = knob(o, K_DEPTH);

	(void)shaper;
	if (div != GW_UNSET && (div & (div - 1))) {
		*key = "divisor";
		snprintf(msg, len, "'divisor' %lld must be a power of two", (long long)div);
		return -EINVAL;
	}
	if (knob(o, K_PERTURB) != GW_UNSET && knob(o, K_PERTURB) % 1000000) {
		*key = "perturb";
		snprintf(msg, len, "'perturb' must be whole seconds (sfq rehashes every N s)");
		return -EINVAL;
	}
	if (fl == GW_UNSET)
		fl = SFQ_DEFAULT_FLOWS;
	if (depth == GW_UNSET)
		depth = SFQ_DEFAULT_DEPTH;
	if (lim != GW_UNSET && lim > depth * fl) {
		*key = "limit";
		snprintf(msg, len, "'limit' %lld is more than 'depth' x 'flows' (%lld x %lld): sfq "
			 "holds no more", (long long)lim, (long long)depth, (long long)fl);
		return -EINVAL;
	}
	if (lim != GW_UNSET && knob(o, K_FLOWS) != GW_UNSET && lim < knob(o, K_FLOWS)) {
		*key = "flows";
		snprintf(msg, len, "'flows' %lld is more than 'limit' %lld: sfq would use only "
			 "%lld", (long long)knob(o, K_FLOWS), (long long)lim, (long long)lim);
		return -EINVAL;
	}
	return 0;
}

/* Extended statistics: the kernel reports allot (the bytes a flow may still send this round)
 * per flow (its classes); a qdisc-level reply that carries it is decoded the same way. */
enum { X_ALLOT, X_N };
static const struct gw_xstat sfq_fields[X_N] = {
	[X_ALLOT] = { "allot_bytes", "gatewayd_sfq_allot_bytes", "gauge",
		      "Bytes sfq's flow may still send in this round.", 1, 1 },
};

static const struct gw_xstats_desc sfq_xdesc = {
	.json = "sfq",
	.fields = sfq_fields,
	.n_fields = X_N,
};

static int sfq_xstats(const struct nlattr *app, struct gw_tc_stats *out)
{
	struct tc_sfq_xstats x;

	if (nla_len(app) < (int)sizeof(x))
		return 0;
	gw_stats_copy_attr(&x, sizeof(x), app);
	out->x.desc = &sfq_xdesc;
	out->x.v[X_ALLOT] = x.allot > 0 ? (uint64_t)x.allot : 0;
	return 0;
}

const struct gw_qdisc_ops gw_sfq_ops = {
	.name = "sfq",
	.module = "sch_sfq",
	.init = sfq_init,
	.encode = sfq_encode,
	.decode = sfq_decode,
	.format = sfq_format,
	.same = sfq_same,
	.xstats = sfq_xstats,
	.xdesc = &sfq_xdesc,
	.keys = sfq_keys,
	.n_keys = K_N,
	.leaf = true,
	.check = sfq_check,
	/* Linux 6.1 answers a change with "Change operation not supported": replaced instead */
	.no_change = true,
	.bench = "",
};
