#!/usr/bin/env bash
# tests/bench/cni-side.sh: the reference CNI bandwidth plugin (a tbf each way) against
# gatewayd-cni (htb + fq_codel each way) at the same rates, 20 Mbit/s each way and the same
# 32 KiB burst, in one User-Mode Linux guest per run (the host kernel has no fq_codel):
# 4 TCP flows into each container and out of it, CNI_SECS seconds each, pinged from the host
# every 0.1 s (tests/uml/guest/cni-side.sh). CNI_RUNS runs; prints the medians and the
# latency ratios as a markdown table. Exits 1 when a run did not finish.
# env: CNI_RUNS (3), CNI_SECS (15)
. "$(dirname "$0")/lib.bash"
bench_preflight jq iperf3

RUNS=${CNI_RUNS:-3}
SECS=${CNI_SECS:-15}
for r in $(seq 1 "$RUNS"); do
	log "run $r of $RUNS ($SECS s each way and plugin)"
	tests/uml/uml-run --timeout $((SECS * 6 + 120)) tests/uml/guest/cni-side.sh "$GATEWAYD" "$SECS" \
		>"$TMPD/run$r" 2>&1 || { cat "$TMPD/run$r" >&2; die "run $r did not finish"; }
	grep -E '^(not ok|# (ref|gw) )' "$TMPD/run$r" >&2
done
# fig WHO DIR FIELD: the median over the runs of one figure of the guest's "# WHO DIR: ..." lines
# (a run's last try, where a miss made the guest measure twice)
fig() {
	local v=() f
	for f in "$TMPD"/run*; do
		v+=("$(sed -n "s/^# $1 $2: \([0-9.]*\) Mbit\/s, ping p95 \([0-9.]*\) ms, idle median \([0-9.]*\) ms, induced \([0-9.]*\) ms.*/\\$3/p" "$f" | tail -1)")
	done
	median "${v[@]}"
}
echo "| plugin (20 Mbit/s each way, 4 TCP flows) | goodput in (Mbit/s) | goodput out (Mbit/s) | induced p95 in (ms) | induced p95 out (ms) | idle RTT (ms) |"
echo "|---|---|---|---|---|---|"
for who in ref gw; do
	name="reference \`bandwidth\` (tbf)"
	[ $who = gw ] && name="gatewayd-cni (htb + fq_codel)"
	echo "| $name | $(fig $who in 1) | $(fig $who out 1) | $(fig $who in 4) | $(fig $who out 4) | $(fig $who in 3) |"
done
echo
echo "Medians of $RUNS runs, $SECS s per direction; induced = ping p95 under load less the idle median."
echo "Latency ratio reference / gatewayd-cni: into the container $(ratio "$(fig ref in 4)" "$(fig gw in 4)")x, out of it $(ratio "$(fig ref out 4)" "$(fig gw out 4)")x;" \
	"goodput ratio gatewayd-cni / reference: in $(awk -v a="$(fig gw in 1)" -v b="$(fig ref in 1)" 'BEGIN { printf "%.3f", a / b }'), out $(awk -v a="$(fig gw out 1)" -v b="$(fig ref out 1)" 'BEGIN { printf "%.3f", a / b }')."
