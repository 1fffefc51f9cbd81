/* tests/unit/test_stats.c: counters out of dumped messages (basic, queue, fq_codel and cake
 * extended statistics), counter wrap and reset, and the history rings. */
#include <errno.h>
#include <math.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include "webui/history.h"
#include "gatewayd/sampler.h"
#include "qdisc/stats.h"
#include "tests/unit/stats_msgs.h"
#include "tests/unit/tap.h"
#include "tests/unit/xstats.h"

static void test_parse(void)
{
	struct nl_msg *m = dumped("pfifo", 0x10000000, NULL);
	struct gw_tc_stats s;

	CHECK(gw_stats_parse(nlmsg_hdr(m), &s) == 0, "stats: parses");
	CHECK(s.bytes == 5000000000ULL && s.packets == 6000000000ULL,
	      "stats: 64-bit bytes, and packets from TCA_STATS_PKT64");
	CHECK(s.qlen == 7 && s.backlog_bytes == 10598 && s.drops == 12 && s.overlimits == 99 &&
	      s.requeues == 1, "stats: queue counters");
	CHECK(s.kind == GW_KIND_FIFO && !s.x.desc && !s.ecn_marks && !s.has_delay,
	      "stats: fifo has no xstats");
	nlmsg_free(m);

	m = dumped("fq_codel", 0x10010000, fill_fq_codel);
	gw_stats_parse(nlmsg_hdr(m), &s);
	CHECK(s.x.desc == gw_fq_codel_ops.xdesc && xstat_get(&s.x, "ecn_marked_packets") == 33 &&
	      xstat_get(&s.x, "max_packet_bytes") == 1514 &&
	      xstat_get(&s.x, "new_flow_count") == 8 &&
	      xstat_get(&s.x, "drop_overlimit_packets") == 2, "stats: fq_codel xstats");
	CHECK(s.ecn_marks == 33 && !s.has_delay, "stats: fq_codel's common shape: its ECN marks");
	nlmsg_free(m);

	m = dumped("cake", 0xE0000000, fill_cake);
	gw_stats_parse(nlmsg_hdr(m), &s);
	CHECK(s.x.desc == gw_cake_ops.xdesc &&
	      xstat_get(&s.x, "capacity_estimate_bits_per_second") == 2500000ULL * 8 &&
	      xstat_get(&s.x, "memory_used_bytes") == 4096, "stats: cake capacity and memory");
	CHECK_EQ_INT(s.x.n_groups, 4, "stats: four tins, the stray index ignored");
	CHECK(xstat_gget(&s.x, 3, "sent_bytes") == 4000 &&
	      xstat_gget(&s.x, 3, "ecn_marked_packets") == 4 &&
	      xstat_gget(&s.x, 3, "average_delay_ms") == 2000 &&
	      xstat_gget(&s.x, 0, "bulk_flows") == 2, "stats: per-tin counters and delays");
	{
		uint64_t marks = 0, worst = 0;

		for (int t = 0; t < 4; t++) {
			marks += xstat_gget(&s.x, t, "ecn_marked_packets");
			if (xstat_gget(&s.x, t, "average_delay_ms") > worst)
				worst = xstat_gget(&s.x, t, "average_delay_ms");
		}
		CHECK(s.ecn_marks == marks && s.has_delay && s.delay_us == worst && worst,
		      "stats: cake's common shape: marks summed over tins, the worst tin's delay");
	}
	nlmsg_free(m);

	m = dumped("fq_codel", 0x10010000, NULL);
	nlmsg_hdr(m)->nlmsg_len = NLMSG_LENGTH(4);
	CHECK(gw_stats_parse(nlmsg_hdr(m), &s) == -EBADMSG, "stats: truncated message refused");
	nlmsg_free(m);
}

static void test_counters(void)
{
	struct gw_counters total = { 0 }, last = { 0 }, now = { 0 }, d;

	now.bytes = 1000;
	now.drops = 4294967290u;
	gw_counters_advance(&total, &last, &now, true, &d);
	CHECK(total.bytes == 1000 && d.bytes == 1000,
	      "counters: the first reading counts whole (gatewayd made the object)");
	now.bytes = 5000;
	now.drops = 5;	/* the 32-bit counter wrapped: 11 more drops */
	gw_counters_advance(&total, &last, &now, false, &d);
	CHECK(d.bytes == 4000 && d.drops == 11 && total.drops == 4294967290u + 11ULL,
	      "counters: a 32-bit wrap is 11 more drops, and totals go past 2^32");
	now.bytes = 300;
	now.drops = 2;	/* recreated: counts from zero */
	gw_counters_advance(&total, &last, &now, false, &d);
	CHECK(d.bytes == 300 && total.bytes == 5300 && total.drops == 4294967290u + 13ULL,
	      "counters: a reset (bytes went back) adds the new counts, never a huge delta");
}

static void test_history(void)
{
	struct gw_history *h = gw_history_new(2, 1000000);
	struct gw_hist_point p[2000];
	double t = 1800000000;	/* a minute boundary */
	int n;

	CHECK(h != NULL, "history: created");
	CHECK(fabs(gw_hist_decode(gw_hist_encode(20e6)) / 20e6 - 1) < 0.001 &&
	      gw_hist_encode(0) == 0 && gw_hist_encode(NAN) == 0 &&
	      fabs(gw_hist_decode(gw_hist_encode(0.25)) - 0.25) < 0.001,
	      "history: 16-bit log encoding within 0.1%%");
	for (int i = 0; i < 1000; i++) {	/* more than 15 minutes at 1 s */
		gw_history_pass(h, t + i);
		gw_history_push(h, 1, 1e6 * (i % 60), 5, 0, 100);
	}
	n = gw_history_query(h, 1, 0, 1e12, false, p, 2000);
	CHECK_EQ_INT(n, 900, "history: the raw ring keeps 15 minutes at 1 s");
	CHECK(n == 900 && fabs(p[0].t - (t + 100)) < 0.01 && fabs(p[899].t - (t + 999)) < 0.01,
	      "history: oldest first, the oldest 100 dropped");
	n = gw_history_query(h, 1, 0, 1e12, true, p, 2000);
	CHECK_EQ_INT(n, 16, "history: 16 closed minutes");
	CHECK(n > 0 && fabs(p[0].rate_bps_min) < 1 && fabs(p[0].rate_bps_max / 59e6 - 1) < 0.001 &&
	      fabs(p[0].rate_bps_avg / 29.5e6 - 1) < 0.001, "history: minute min/avg/max");
	n = gw_history_query(h, 1, t + 500, t + 509, false, p, 2000);
	CHECK_EQ_INT(n, 10, "history: a time range");
	n = gw_history_query(h, 0, 0, 1e12, false, p, 2000);
	CHECK(n == 900 && p[0].rate_bps_avg == 0, "history: a series never pushed reads zeros at the pass times");
	CHECK(gw_history_bytes(h) < 2 * (900 * 8 + 1440 * 16) + 900 * 8 + 1440 * 4 + 4096,
	      "history: at most 8 bytes a raw point and 16 a minute point per series (%zu bytes for 2 at start)",
	      gw_history_bytes(h));
	CHECK(gw_history_query(h, 2, 0, 1e12, false, p, 10) == -ENOENT, "history: no such series");
	CHECK_EQ_INT(gw_history_query(h, 1, 0, 1e12, false, p, 10), 10, "history: bounded by max");
	gw_history_free(h);
}

int main(void)
{
	test_parse();
	test_counters();
	test_history();
	return tap_done();
}
