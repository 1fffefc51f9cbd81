/* webui/benchrows.c: the bench's table: its rows, each a figure's path in a run of
 * results.json, its unit and decimals, and one cell's text (webui/benchrows.h). */
#include <stdio.h>
#include <json-c/json.h>
#include "webui/benchfile.h"
#include "webui/benchrows.h"

#define NUM(l, p, s, d) { l, GW_BENCH_ROW_NUM, p, NULL, s, d, false }
#define PAGE(l, p, s, d) { l, GW_BENCH_ROW_NUM, p, NULL, s, d, true }
#define PAIR(l, a, b, page) { l, GW_BENCH_ROW_PAIR, a, b, 1, 0, page }

const struct gw_bench_row gw_bench_rows[] = {
	PAGE("goodput up (Mbit/s)", "goodput_bps.up", 1e-6, 2),
	PAGE("goodput down (Mbit/s)", "goodput_bps.down", 1e-6, 2),
	NUM("shaper accuracy up (%)", "shaper_accuracy.up", 100, 1),
	NUM("shaper accuracy down (%)", "shaper_accuracy.down", 100, 1),
	NUM("idle RTT p50 (ms)", "latency_ms.idle.p50", 1, 1),
	NUM("idle RTT p95 (ms)", "latency_ms.idle.p95", 1, 1),
	NUM("idle RTT p99 (ms)", "latency_ms.idle.p99", 1, 1),
	NUM("loaded RTT p50 (ms)", "latency_ms.loaded.p50", 1, 1),
	NUM("loaded RTT p95 (ms)", "latency_ms.loaded.p95", 1, 1),
	NUM("loaded RTT p99 (ms)", "latency_ms.loaded.p99", 1, 1),
	PAGE("induced p50 (ms)", "latency_ms.induced.p50", 1, 1),
	NUM("induced p95 (ms)", "latency_ms.induced.p95", 1, 1),
	PAGE("induced p99 (ms)", "latency_ms.induced.p99", 1, 1),
	NUM("induced mean (ms)", "latency_ms.induced.mean", 1, 1),
	/* the UDP probes, a VoIP-like stream (files older than them lack these: "-") */
	NUM("VoIP induced p95 (ms)", "udp_latency_ms.rtt.induced.p95", 1, 1),
	NUM("VoIP one-way up p95", "udp_latency_ms.up.induced.p95", 1, 1),
	NUM("VoIP one-way down p95", "udp_latency_ms.down.induced.p95", 1, 1),
	NUM("VoIP jitter up (ms)", "udp_latency_ms.up.jitter", 1, 2),
	NUM("VoIP jitter down (ms)", "udp_latency_ms.down.jitter", 1, 2),
	NUM("Jain's fairness (TCP)", "jain_fairness", 1, 3),
	NUM("bench CPU busy (%)", "cpu_busy", 100, 0),
	/* the whole qdisc's backlog at its fullest, every flow's packets together: under an FQ
	 * queue that is mostly the flood's own, which no other flow waits behind; what the bulk
	 * flows themselves wait is their senders' RTT, below */
	NUM("peak backlog up (ms)", "peak_queue.up.ms", 1, 1),
	NUM("peak backlog down (ms)", "peak_queue.down.ms", 1, 1),
	/* a run saved before the bulk flows' RTT was measured has none: "-" */
	NUM("TCP RTT up p50 (ms)", "tcp_rtt.up.p50_ms", 1, 1),
	NUM("TCP RTT up p95 (ms)", "tcp_rtt.up.p95_ms", 1, 1),
	NUM("TCP RTT up p99 (ms)", "tcp_rtt.up.p99_ms", 1, 1),
	NUM("TCP RTT down p50 (ms)", "tcp_rtt.down.p50_ms", 1, 1),
	NUM("TCP RTT down p95 (ms)", "tcp_rtt.down.p95_ms", 1, 1),
	NUM("TCP RTT down p99 (ms)", "tcp_rtt.down.p99_ms", 1, 1),
	NUM("TCP induced up p50 (ms)", "tcp_rtt.up.induced_p50_ms", 1, 1),
	NUM("TCP induced down p50 (ms)", "tcp_rtt.down.induced_p50_ms", 1, 1),
	NUM("TCP induced up mean (ms)", "tcp_rtt.up.induced_mean_ms", 1, 1),
	NUM("TCP induced down mean (ms)", "tcp_rtt.down.induced_mean_ms", 1, 1),
	PAIR("peak backlog up/dn (pkts)", "peak_queue.up.packets", "peak_queue.down.packets", false),
	PAIR("drops up/down", "drops.up", "drops.down", true),
	PAIR("ECN marks up/down", "ecn_marks.up", "ecn_marks.down", false),
	PAIR("probes lost (loaded)", "latency_ms.loaded.lost", "latency_ms.loaded.samples", false),
	PAIR("VoIP lost (loaded)", "udp_latency_ms.rtt.loaded.lost",
	     "udp_latency_ms.rtt.loaded.samples", false),
	{ "grade (induced mean)", GW_BENCH_ROW_GRADE, "grade", NULL, 1, 0, true },
};
const size_t gw_bench_n_rows = sizeof(gw_bench_rows) / sizeof(gw_bench_rows[0]);

void gw_bench_cell(const struct gw_bench_row *row, struct json_object *fig, char *buf,
		   size_t len)
{
	struct json_object *a = fig ? gw_bench_at(fig, row->path) : NULL;
	struct json_object *b = fig && row->path2 ? gw_bench_at(fig, row->path2) : NULL;

	if (!fig)
		snprintf(buf, len, "skipped");
	else if (!a || (row->kind == GW_BENCH_ROW_PAIR && !b))
		snprintf(buf, len, "-");
	else if (row->kind == GW_BENCH_ROW_NUM)
		snprintf(buf, len, "%.*f", row->dec, json_object_get_double(a) * row->scale);
	else if (row->kind == GW_BENCH_ROW_PAIR)
		snprintf(buf, len, "%lld/%lld", (long long)json_object_get_int64(a),
			 (long long)json_object_get_int64(b));
	else
		snprintf(buf, len, "%s", json_object_get_string(a));
}
