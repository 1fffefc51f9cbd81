/* qdisc/pie.c: pie, Proportional Integral controller Enhanced (what DOCSIS 3.1 modems run): one
 * queue that drops (or marks) with a probability steered by the queueing delay. Its options
 * are a nest of TCA_PIE_* u32s; its statistics a struct tc_pie_xstats. */
#include <errno.h>
#include <stdio.h>
#include <linux/pkt_sched.h>
#include "qdisc/knob.h"
#include "qdisc/stats.h"

/* its knobs, in options.knob[] */
enum { K_LIMIT, K_TARGET, K_TUPDATE, K_ALPHA, K_BETA, K_ECN, K_BYTEMODE, K_DQ_RATE, K_N };

#define FLAG_WORDS(name, on, off) \
	static const struct gw_key_word name[] = { { NULL, 0, off }, { NULL, 1, on } }
FLAG_WORDS(ecn_words, "ecn", "noecn");
FLAG_WORDS(bytemode_words, "bytemode", "nobytemode");
FLAG_WORDS(dq_rate_words, "dq_rate_estimator", "no_dq_rate_estimator");

#define U32(a) .attr = (a), .wire = GW_KW_U32
#define FLAG(key, w, a, k, d) \
	{ .name = (key), .unit = GW_KU_BOOL, .words = (w), .n_words = 2, .dflt = (d), U32(a), \
	  GW_KEY_KNOB(k) }

/* In config and tc order; the defaults are the kernel's (tc-pie(8)). */
static const struct gw_key pie_keys[K_N] = {
	[K_LIMIT] = { .name = "limit", .unit = GW_KU_COUNT, .min = 1, .max = 1000000,
		      .tc = "limit", .dflt = "1000", U32(TCA_PIE_LIMIT), GW_KEY_KNOB(K_LIMIT) },
	[K_TARGET] = { .name = "target", .unit = GW_KU_TIME, .min = 1, .max = 1000000,
		       .tc = "target", .dflt = "15ms", U32(TCA_PIE_TARGET), .approx = true,
		       GW_KEY_KNOB(K_TARGET) },
	[K_TUPDATE] = { .name = "tupdate", .unit = GW_KU_TIME, .min = 1000, .max = 1000000,
			.tc = "tupdate", .dflt = "15ms", U32(TCA_PIE_TUPDATE),
			GW_KEY_KNOB(K_TUPDATE) },
	[K_ALPHA] = { .name = "alpha", .unit = GW_KU_COUNT, .min = 0, .max = 32, .tc = "alpha",
		      .dflt = "2", U32(TCA_PIE_ALPHA), GW_KEY_KNOB(K_ALPHA) },
	[K_BETA] = { .name = "beta", .unit = GW_KU_COUNT, .min = 0, .max = 32, .tc = "beta",
		     .dflt = "20", U32(TCA_PIE_BETA), GW_KEY_KNOB(K_BETA) },
	[K_ECN] = FLAG("ecn", ecn_words, TCA_PIE_ECN, K_ECN, "off"),
	[K_BYTEMODE] = FLAG("bytemode", bytemode_words, TCA_PIE_BYTEMODE, K_BYTEMODE, "off"),
	[K_DQ_RATE] = FLAG("dq_rate_estimator", dq_rate_words, TCA_PIE_DQ_RATE_ESTIMATOR,
			   K_DQ_RATE, "off (delay from timestamps)"),
};

/* The kernel keeps tupdate in jiffies: it reads back rounded up to one (10 ms at HZ=100). */
static int pie_same(const union gw_qopts *want, const union gw_qopts *got)
{
	int64_t w = want->knob[K_TUPDATE], g = got->knob[K_TUPDATE];

	if (w != GW_UNSET && (g < w - w / 100 - 1 || g > w + 10000 + w / 100))
		return 0;
	for (size_t i = 0; i < K_N; i++)
		if (i != K_TUPDATE && !gw_keys_same(want, got, &pie_keys[i], 1))
			return 0;
	return 1;
}

/* Its statistics, by name: the drop probability (the kernel's u64 fraction of 2^64), the
 * delay it steers by (us), the dequeue rate it estimates (bytes/s), and its counters. */
enum { X_PROB, X_DELAY, X_DQ_RATE, X_ESTIMATING, X_PACKETS_IN, X_DROPPED, X_OVERLIMIT, X_MAXQ,
       X_ECN, X_N };
#define TWO_TO_MINUS_64 5.42101086242752217e-20
static const struct gw_xstat pie_fields[X_N] = {
	[X_PROB] = { "drop_probability", "gatewayd_pie_drop_probability", "gauge",
		     "The probability pie drops or marks a packet with now.", TWO_TO_MINUS_64,
		     TWO_TO_MINUS_64 },
	[X_DELAY] = { "queue_delay_ms", "gatewayd_pie_queue_delay_seconds", "gauge",
		      "The queueing delay pie steers by now.", 1e-6, 1e-3 },
	[X_DQ_RATE] = { "dequeue_rate_bytes_per_second",
			"gatewayd_pie_dequeue_rate_bytes_per_second", "gauge",
			"pie's estimate of its dequeue rate (with dq_rate_estimator).", 1, 1 },
	[X_ESTIMATING] = { "dq_rate_estimating", NULL, "gauge", NULL, 1, 1 },
	[X_PACKETS_IN] = { "packets_in", "gatewayd_pie_packets_in_total", "counter",
			   "Packets pie took in.", 1, 1 },
	[X_DROPPED] = { "dropped_packets", "gatewayd_pie_dropped_packets_total", "counter",
			"Packets pie dropped early, by its drop probability.", 1, 1 },
	[X_OVERLIMIT] = { "overlimit_packets", "gatewayd_pie_overlimit_packets_total", "counter",
			  "Packets pie dropped because its limit was reached.", 1, 1 },
	[X_MAXQ] = { "max_queue_packets", "gatewayd_pie_max_queue_packets", "gauge",
		     "The longest pie's queue has been, in packets.", 1, 1 },
	[X_ECN] = { "ecn_marked_packets", "gatewayd_pie_ecn_marked_packets_total", "counter",
		    "Packets pie ECN-marked instead of dropping them.", 1, 1 },
};

static const struct gw_xstats_desc pie_xdesc = {
	.json = "pie",
	.fields = pie_fields,
	.n_fields = X_N,
};

/* The common shape: its ECN marks and its own delay. */
static int pie_xstats(const struct nlattr *app, struct gw_tc_stats *out)
{
	struct tc_pie_xstats x;
	uint64_t *v = out->x.v;

	gw_stats_copy_attr(&x, sizeof(x), app);
	out->x.desc = &pie_xdesc;
	v[X_PROB] = x.prob;
	v[X_DELAY] = x.delay;
	v[X_DQ_RATE] = x.avg_dq_rate;
	v[X_ESTIMATING] = x.dq_rate_estimating;
	v[X_PACKETS_IN] = x.packets_in;
	v[X_DROPPED] = x.dropped;
	v[X_OVERLIMIT] = x.overlimit;
	v[X_MAXQ] = x.maxq;
	v[X_ECN] = x.ecn_mark;
	out->ecn_marks = x.ecn_mark;
	out->has_delay = true;
	out->delay_us = x.delay;
	return 0;
}

const struct gw_qdisc_ops gw_pie_ops = {
	.name = "pie",
	.module = "sch_pie",
	.same = pie_same,
	.xstats = pie_xstats,
	.xdesc = &pie_xdesc,
	.keys = pie_keys,
	.n_keys = K_N,
	.maxattr = TCA_PIE_MAX,
	.leaf = true,
	.bench = "",
};
