#!/usr/bin/env bash
# tests/docs/demo_table.sh RESULTS.JSON: the demo's short table, in Markdown, from a run's
# results.json (docs/compare-schema.md): a line on where and how it ran, then the rows a
# newcomer reads first, a column per queue. tests/demo.sh writes it to docs/demo-table.md,
# which the README holds a checked copy of (tests/docs/copies.sh); never pasted by hand.
set -u -o pipefail
if [ $# -ne 1 ]; then
	echo "usage: $0 RESULTS.JSON" >&2
	exit 2
fi
command -v jq >/dev/null || { echo "$0: needs jq (make deps installs it)" >&2; exit 2; }
# (jq 1.6 takes `label` for its keyword: the field is read as .["label"])
# jq marks each number with its decimals; awk prints it as C's printf does, so a figure rounds
# as the bench's own table rounds it
jq -r '
	def fix($d): if . == null then "-" else "\u0001\($d):\(.)\u0002" end;
	def pair(a; b; $d): (a | fix($d)) + " / " + (b | fix($d));
	def mbit: if . == null then null else . / 1e6 end;
	def pct: if . == null then null else . * 100 end;
	.config as $c
	| [.runs[] | select(.repeat == null or .repeat == 0)] as $runs
	| def row($name; f): "| " + $name + " | " +
		([$runs[] | if .ran then f else "did not run" end] | join(" | ")) + " |";
	("`sudo make demo`, " + (.generated_unix | strftime("%Y-%m-%d")) + ", gatewayd " +
		.gatewayd_version + (if .kernel == "uml" then " in User-Mode Linux " else
		" on Linux " end) + .kernel_release + ": " +
		(($c.rate_bps_down // $c.rate_bps) | mbit | fix(0)) + "/" +
		(($c.rate_bps_up // $c.rate_bps) | mbit | fix(0)) + " Mbit/s down/up, " +
		(if $c.netem == false then "no added delay" else
			"base RTT " + ($c.rtt_ms | fix(0)) + " ms" end) + ", " +
		($c.duration_s | fix(0)) + " s per queue: idle, " +
		($c.tcp_flows_down // $c.tcp_flows_per_direction // 4 | tostring) + "+" +
		($c.tcp_flows_up // $c.tcp_flows_per_direction // 4 | tostring) + " TCP flows" +
		(if ($c.udp_flood_bps // 0) > 0 then ", the same and a UDP flood" else "" end) +
		", idle."),
	"",
	"| | " + ([$runs[] | .["label"] // .qdisc] | join(" | ")) + " |",
	"|---|" + ([$runs[] | "--:"] | join("|")) + "|",
	row("induced p50 / p95 (ms)"; pair(.latency_ms.induced.p50; .latency_ms.induced.p95; 1)),
	row("VoIP induced p95 (ms)"; .udp_latency_ms.rtt.induced.p95 | fix(1)),
	row("VoIP one-way up / down p95 (ms)";
		pair(.udp_latency_ms.up.induced.p95; .udp_latency_ms.down.induced.p95; 1)),
	row("VoIP jitter up / down (ms)"; pair(.udp_latency_ms.up.jitter; .udp_latency_ms.down.jitter; 2)),
	row("VoIP lost (loaded)"; (.udp_latency_ms.rtt.loaded.lost | fix(0)) + "/" +
		(.udp_latency_ms.rtt.loaded.samples | fix(0))),
	row("TCP RTT up / down p50 (ms)"; pair(.tcp_rtt.up.p50_ms; .tcp_rtt.down.p50_ms; 1)),
	row("goodput up / down (Mbit/s)"; pair(.goodput_bps.up | mbit; .goodput_bps.down | mbit; 2)),
	row("Jain'\''s fairness (TCP)"; .jain_fairness | fix(3)),
	row("bench CPU busy (%)"; .cpu_busy | pct | fix(0)),
	row("grade (induced mean)"; .grade // "-")
' "$1" | awk '{
	out = ""
	while (match($0, /\001[0-9]+:[^\002]*\002/)) {
		m = substr($0, RSTART + 1, RLENGTH - 2)
		d = m; sub(/:.*/, "", d)
		v = m; sub(/^[0-9]+:/, "", v)
		out = out substr($0, 1, RSTART - 1) sprintf("%." d "f", v + 0)
		$0 = substr($0, RSTART + RLENGTH)
	}
	print out $0
}'
