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

/* Its extended statistics, in JSON and /metrics order (docs: webui/status-schema.md). */
enum { X_MAXPACKET, X_DROP_OVERLIMIT, X_NEW_FLOW_COUNT, X_ECN, X_CE, X_NEW_FLOWS, X_OLD_FLOWS,
       X_MEMORY, X_N };
static const struct gw_xstat fq_codel_fields[X_N] = {
	[X_MAXPACKET] = { "max_packet_bytes", "gatewayd_fq_codel_max_packet_bytes", "gauge",
			  "Largest packet fq_codel has seen.", 1, 1 },
	[X_DROP_OVERLIMIT] = { "drop_overlimit_packets",
			       "gatewayd_fq_codel_drop_overlimit_packets_total", "counter",
			       "Packets fq_codel dropped because its limit was reached.", 1, 1 },
	[X_NEW_FLOW_COUNT] = { "new_flow_count", "gatewayd_fq_codel_new_flows_total", "counter",
			       "Flows fq_codel saw start.", 1, 1 },
	[X_ECN] = { "ecn_marked_packets", "gatewayd_fq_codel_ecn_marked_packets_total", "counter",
		    "Packets fq_codel ECN-marked.", 1, 1 },
	[X_CE] = { "ce_marked_packets", "gatewayd_fq_codel_ce_threshold_marked_packets_total",
		   "counter", "Packets fq_codel CE-marked above ce_threshold.", 1, 1 },
	[X_NEW_FLOWS] = { "new_flows", "gatewayd_fq_codel_new_flow_queues", "gauge",
			  "Flows in fq_codel's new-flows list now.", 1, 1 },
	[X_OLD_FLOWS] = { "old_flows", "gatewayd_fq_codel_old_flow_queues", "gauge",
			  "Flows in fq_codel's old-flows list now.", 1, 1 },
	[X_MEMORY] = { "memory_used_bytes", "gatewayd_fq_codel_memory_used_bytes", "gauge",
		       "Memory fq_codel's packets use now.", 1, 1 },
};

static const struct gw_xstats_desc fq_codel_xdesc = {
	.json = "fq_codel",
	.json_always = true,
	.fields = fq_codel_fields,
	.n_fields = X_N,
};

static int fq_codel_xstats(const struct nlattr *app, struct gw_tc_stats *out)
{
	struct tc_fq_codel_xstats x;
	uint64_t *v = out->x.v;

	gw_stats_copy_attr(&x, sizeof(x), app);
	if (x.type != TCA_FQ_CODEL_XSTATS_QDISC)
		return 0;
	out->x.desc = &fq_codel_xdesc;
	v[X_MAXPACKET] = x.qdisc_stats.maxpacket;
	v[X_DROP_OVERLIMIT] = x.qdisc_stats.drop_overlimit;
	v[X_NEW_FLOW_COUNT] = x.qdisc_stats.new_flow_count;
	v[X_ECN] = x.qdisc_stats.ecn_mark;
	v[X_CE] = x.qdisc_stats.ce_mark;
	v[X_NEW_FLOWS] = x.qdisc_stats.new_flows_len;
	v[X_OLD_FLOWS] = x.qdisc_stats.old_flows_len;
	v[X_MEMORY] = x.qdisc_stats.memory_usage;
	out->ecn_marks = x.qdisc_stats.ecn_mark;
	out->flows = x.qdisc_stats.new_flows_len + x.qdisc_stats.old_flows_len;
	return 0;
}

/* As sqm-scripts: target = max(5 ms, time of 33 ATM cells (1 MTU) at the rate), interval =
 * 95 ms + target, applied only when the user set neither (gatewayd.conf(5)). */
static void derive(uint64_t rate, struct gw_fq_codel_opts *f)
{
	uint64_t kbps = rate * 8 / 1000;
	int64_t target;

	if (f->target_us != GW_UNSET || f->interval_us != GW_UNSET || !kbps)
		return;
	target = (int64_t)(33ULL * 53 * 8 * 1000 / kbps);
	if (target <= 5000)
		return;		/* the kernel's 5 ms / 100 ms defaults stand */
	f->target_us = target;
	f->interval_us = 95000 + target;
}

static void fq_codel_plan_leaf(union gw_qopts *o, uint64_t rate, const struct gw_sizing *s)
{
	(void)s;
	derive(rate, &o->fq_codel);
}

const struct gw_qdisc_ops gw_fq_codel_ops = {
	.name = "fq_codel",
	.module = "sch_fq_codel",
	.xstats = fq_codel_xstats,
	.xdesc = &fq_codel_xdesc,
	.keys = fq_codel_keys,
	.n_keys = N_KEYS,
	.maxattr = TCA_FQ_CODEL_MAX,
	.leaf = true,
	.check = fq_codel_check,
	.plan_leaf = fq_codel_plan_leaf,
	.bench = "",
};
