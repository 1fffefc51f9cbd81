/* qdisc/fq_codel.c: fq_codel, the default leaf: per-flow queues with CoDel AQM. */
#include <errno.h>
#include <stdio.h>
#include <linux/pkt_sched.h>
#include "qdisc/knob.h"
#include "qdisc/stats.h"

static const struct gw_key_word ecn_words[] = { { NULL, 0, "noecn" }, { NULL, 1, "ecn" } };

/* In config, tc and wire order; the defaults are the kernel's (tc-fq_codel(8)). */
static const struct gw_key fq_codel_keys[] = {
	{ .name = "limit", .unit = GW_KU_COUNT, .min = 1, .max = 1000000, .tc = "limit",
	  .dflt = "10240", .attr = TCA_FQ_CODEL_LIMIT, .wire = GW_KW_U32,
	  GW_KEY_AT(fq_codel.limit, GW_KF_INT64) },
	{ .name = "flows", .unit = GW_KU_COUNT, .min = 1, .max = 65536, .tc = "flows",
	  .dflt = "1024", .attr = TCA_FQ_CODEL_FLOWS, .wire = GW_KW_U32,
	  GW_KEY_AT(fq_codel.flows, GW_KF_INT64) },
	{ .name = "target", .unit = GW_KU_TIME, .min = 1, .max = 1000000, .tc = "target",
	  .dflt = "5ms", .attr = TCA_FQ_CODEL_TARGET, .wire = GW_KW_U32, .approx = true,
	  GW_KEY_AT(fq_codel.target_us, GW_KF_INT64) },
	{ .name = "interval", .unit = GW_KU_TIME, .min = 1000, .max = 10000000, .tc = "interval",
	  .dflt = "100ms", .attr = TCA_FQ_CODEL_INTERVAL, .wire = GW_KW_U32, .approx = true,
	  GW_KEY_AT(fq_codel.interval_us, GW_KF_INT64) },
	{ .name = "quantum", .unit = GW_KU_SIZE, .min = 64, .max = 1 << 20, .tc = "quantum",
	  .dflt = "the MTU", .attr = TCA_FQ_CODEL_QUANTUM, .wire = GW_KW_U32,
	  GW_KEY_AT(fq_codel.quantum, GW_KF_INT64) },
	{ .name = "ce_threshold", .unit = GW_KU_TIME, .min = 1, .max = 1000000,
	  .tc = "ce_threshold", .dflt = "off", .attr = TCA_FQ_CODEL_CE_THRESHOLD,
	  .wire = GW_KW_U32, .approx = true, GW_KEY_AT(fq_codel.ce_threshold_us, GW_KF_INT64) },
	{ .name = "memory_limit", .unit = GW_KU_SIZE, .min = 4096, .max = 2LL << 30,
	  .tc = "memory_limit", .dflt = "32m", .attr = TCA_FQ_CODEL_MEMORY_LIMIT,
	  .wire = GW_KW_U32, GW_KEY_AT(fq_codel.memory_limit, GW_KF_INT64) },
	{ .name = "ecn", .unit = GW_KU_BOOL, .words = ecn_words, .n_words = 2, .dflt = "on",
	  .attr = TCA_FQ_CODEL_ECN, .wire = GW_KW_U32, GW_KEY_AT(fq_codel.ecn, GW_KF_INT) },
};
#define N_KEYS GW_KEYS_N(fq_codel_keys)

static const char *fq_codel_tc_kind(const union gw_qopts *o)
{
	(void)o;
	return "fq_codel";
}

static void fq_codel_init(union gw_qopts *o)
{
	gw_keys_init(o, fq_codel_keys, N_KEYS);
}

static int fq_codel_encode(struct nl_msg *msg, const union gw_qopts *o)
{
	return gw_keys_encode(msg, o, fq_codel_keys, N_KEYS);
}

static int fq_codel_decode(const struct nlattr *opts, union gw_qopts *o)
{
	return gw_keys_decode(opts, o, fq_codel_keys, N_KEYS, TCA_FQ_CODEL_MAX);
}

static int fq_codel_format(char *buf, size_t len, const union gw_qopts *o)
{
	return gw_keys_format(buf, len, o, fq_codel_keys, N_KEYS);
}

static int fq_codel_same(const union gw_qopts *want, const union gw_qopts *got)
{
	return gw_keys_same(want, got, fq_codel_keys, N_KEYS);
}

/* CoDel's interval is the window it watches target in: a shorter one never drops sanely. */
static int fq_codel_check(const union gw_qopts *o, const struct gw_qdisc_ops *shaper,
			  const char **key, char *msg, size_t len)
{
	const struct gw_fq_codel_opts *f = &o->fq_codel;
	char t[32], i[32];

	(void)shaper;
	if (f->target_us == GW_UNSET || f->interval_us == GW_UNSET ||
	    f->interval_us > f->target_us)
		return 0;
	gw_format_time(f->target_us, t, sizeof(t));
	gw_format_time(f->interval_us, i, sizeof(i));
	*key = "interval";
	snprintf(msg, len, "'interval' %s must be longer than 'target' %s", i, t);
	return -EINVAL;
}

const struct gw_qdisc_ops gw_fq_codel_ops = {
	.name = "fq_codel",
	.module = "sch_fq_codel",
	.tc_kind = fq_codel_tc_kind,
	.init = fq_codel_init,
	.encode = fq_codel_encode,
	.decode = fq_codel_decode,
	.format = fq_codel_format,
	.same = fq_codel_same,
	.xstats = gw_fq_codel_xstats,
	.keys = fq_codel_keys,
	.n_keys = N_KEYS,
	.leaf = true,
	.check = fq_codel_check,
};
