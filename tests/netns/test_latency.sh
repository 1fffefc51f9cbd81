#!/usr/bin/env bash
# Latency under load, end to end on the host kernel: a router shaping its WAN (r1) egress with
# htb 20 mbit and a 1000-packet fifo, gatewayd probing the server by ICMP through it, and a
# target that never answers. Idle: idle samples only, a sub-ms baseline, no loss from the dead
# target, nor once it answers again. Under 4 TCP flows through the router: loaded samples,
# induced latency of a bloated fifo and a poor grade; /metrics has the RTT histogram; the
# history has the latency columns. A reload that changes the probe block keeps the figures;
# a prober without permission leaves shaping alone and says so in last_error.
. "$(dirname "$0")/lib.sh"

topo_chain || { not_ok "topology"; exit 1; }
conf() { # conf PROBE_INTERVAL [no-probe]
	cat <<CONF
interval = "500ms";
links = ( { name = "wan"; interface = "r1";
  egress = { shaper = "htb"; rate = "20mbit"; child = { kind = "fifo"; limit = 1000; }; }; } );
CONF
	[ "${2:-}" = no-probe ] ||
		echo "probe = { targets = [ \"10.77.2.2\", \"10.77.2.99\" ]; interval = \"$1\"; timeout = \"500ms\"; };"
}
conf 100ms >"$TMPD/l.conf"
gw_start "$NS_R" "$TMPD/l.conf" || { not_ok "gatewayd starts" "$(cat "$GW_LOG")"; exit 1; }
api() { ip netns exec "$NS_R" curl -s --max-time 3 "http://127.0.0.1:9180$1"; }
lat() { echo "$J" | jq -r ".links[0].directions[0].latency.$1"; }

# idle: probes at 100 ms, until both targets are judged (one up, one down and losing)
idle_seen() {
	J=$(api /api/status)
	[ "$(lat idle.samples)" -ge 15 ] && [ "$(echo "$J" | jq -c '[.probe.targets[].up]')" = '[true,false]' ] &&
		[ "$(echo "$J" | jq '.probe.targets[1].lost')" -gt 0 ]
}
wait_for idle_seen 10 "15 idle samples, the live target up and the dead one down"
echo "# idle: $(lat idle | jq -c '{samples, lost, p50_ms, p99_ms}') baseline $(lat baseline_ms) ms"
check "idle: idle samples ($(lat idle.samples)), no loaded ones" \
	bash -c "[ '$(lat idle.samples)' -ge 15 ] && [ '$(lat loaded.samples)' = 0 ]"
check "idle: a baseline under 5 ms on veth ($(lat baseline_ms) ms)" \
	awk -v b="$(lat baseline_ms)" 'BEGIN { exit !(b > 0 && b < 5) }'
check "the dead target is down, the live one up" \
	bash -c "[ \"\$(echo '$J' | jq -c '[.probe.targets[].up]')\" = '[true,false]' ]"
check "the dead target does not pollute the link's loss (idle loss $(lat idle.loss))" \
	test "$(lat idle.lost)" = 0
check "the dead target's own losses are counted ($(echo "$J" | jq '.probe.targets[1].lost'))" \
	test "$(echo "$J" | jq '.probe.targets[1].lost')" -gt 0
check "no grade without load" test "$(lat grade)" = null

# the dead target comes to life: up again, and still no loss on the link
ip -n "$NS_S" addr add 10.77.2.99/24 dev s0
wait_for 'J=$(api /api/status); [ "$(echo "$J" | jq -c "[.probe.targets[].up]")" = "[true,true]" ]' 10 \
	"the target that answers again marked up"
check "a target that answers again is marked up ($(echo "$J" | jq -c '[.probe.targets[].up]'))" \
	bash -c "[ \"\$(echo '$J' | jq -c '[.probe.targets[].up]')\" = '[true,true]' ]"
check "...and its silence before never counted as the link's loss (idle lost $(lat idle.lost) of $(lat idle.samples))" \
	test "$(lat idle.lost)" = 0

# 4 TCP flows client -> server through the shaped r1 egress, 9 s
ip netns exec "$NS_S" timeout 30 iperf3 -s -1 -B 10.77.2.2 >/dev/null 2>&1 &
PIDS+=($!)
wait_listening "$NS_S" 5201 || not_ok "iperf3 server listens"
timeout 20 ip netns exec "$NS_C" iperf3 -c 10.77.2.2 -P 4 -t 9 >/dev/null 2>&1 &
IPERF=$!
sleep 7.5	# a duration: the load runs 7.5 of its 9 s before the figures are read
J=$(api /api/status)
wait $IPERF
echo "# loaded: $(lat loaded | jq -c '{samples, lost, p50_ms, p90_ms, p99_ms, jitter_ms}')"
echo "# induced p50 $(lat induced_p50_ms) ms, p99 $(lat induced_p99_ms) ms, mean $(lat induced_mean_ms) ms, grade $(lat grade); utilisation $(echo "$J" | jq '.links[0].directions[0].total.utilisation')"
check "loaded samples during the load ($(lat loaded.samples))" test "$(lat loaded.samples)" -ge 20
check "idle samples from before are still in the window" test "$(lat idle.samples)" -ge 15
check "the fifo's induced latency is large (p50 $(lat induced_p50_ms) ms > 50 ms)" \
	awk -v v="$(lat induced_p50_ms)" 'BEGIN { exit !(v > 50) }'
# each reply is held to its own target's baseline and the link's is the mean of the two, each
# at least 0: so the induced p50 lies within the link's baseline of loaded p50 - baseline
# (microseconds apart here; float rounding: 0.01 ms)
check "induced = loaded p50 - baseline, within the baseline ($(lat baseline_ms) ms) the two targets' own baselines differ by" \
	awk -v i="$(lat induced_p50_ms)" -v p="$(lat loaded.p50_ms)" -v b="$(lat baseline_ms)" \
	'BEGIN { d = i - (p - b); exit !(d < b + 0.01 && d > -b - 0.01) }'
check "the grade is poor under the fifo ($(lat grade))" \
	bash -c "case '$(lat grade)' in C|D|F) true;; *) false;; esac"
check "the dead target still does not count as loss (idle lost $(lat idle.lost))" \
	test "$(lat idle.lost)" = 0

api /metrics >"$TMPD/metrics"
check "/metrics: the RTT histogram, with replies above 50 ms" python3 -c '
import re, sys
t = open(sys.argv[1]).read()
lab = "link=\"wan\",direction=\"egress\""
b = {m.group(1): float(m.group(2)) for m in re.finditer(
    r"gatewayd_probe_rtt_seconds_bucket\{" + lab + r",le=\"([^\"]+)\"\} (\S+)", t)}
c = float(re.search(r"gatewayd_probe_rtt_seconds_count\{" + lab + r"\} (\S+)", t).group(1))
assert len(b) == 15 and b["+Inf"] == c and c > 50 and b["0.05"] < c, (b, c)
assert re.search(r"gatewayd_probe_target_up\{target=\"10.77.2.99\"\} 1", t)
assert re.search(r"gatewayd_probe_loss_ratio\{" + lab + r",state=\"idle\"\} 0\n", t)
assert re.search(r"gatewayd_probe_induced_latency_p99_seconds\{" + lab + r"\} 0\.[0-9]", t)
' "$TMPD/metrics"
if command -v promtool >/dev/null; then
	check "promtool check metrics passes" bash -c "promtool check metrics <'$TMPD/metrics'"
else
	skip "promtool check metrics" "promtool is not installed (make deps installs prometheus)"
fi
H=$(api "/api/history?link=wan&direction=egress")
check "history: the total has baseline and loaded p99 points" bash -c "echo '$H' | jq -e \
	'(.columns[9:] == [\"baseline_ms\",\"loaded_p50_ms\",\"loaded_p99_ms\"]) and
	 ([.points[] | select(.[11] != null and .[11] > 50)] | length >= 3) and
	 ([.points[] | select(.[9] != null)] | length >= 10)' >/dev/null"

# reload: a faster probe keeps the link's figures; then no probe block at all
before=$(lat replies_total)
conf 50ms >"$TMPD/l.conf"
gw_reload
wait_for 'J=$(api /api/status); [ "$(lat replies_total)" -gt "$before" ] && [ "$(echo "$J" | jq .probe.interval_seconds)" = 0.05 ]' 5 \
	"the restarted prober's replies at 50 ms on /api/status"
check "reload with a changed probe block: the prober restarts, the figures stay ($before -> $(lat replies_total) replies, $(lat loaded.samples) loaded)" \
	bash -c "[ '$(lat replies_total)' -gt '$before' ] && [ '$(lat loaded.samples)' -ge 20 ] && \
		 [ \"\$(echo '$J' | jq '.probe.interval_seconds')\" = 0.05 ]"
check "the daemon says so" grep -q "restarting the prober (the link's latency figures are kept)" "$GW_LOG"
conf 50ms no-probe >"$TMPD/l.conf"
gw_reload
wait_for 'J=$(api /api/status); echo "$J" | jq -e ".probe == null" >/dev/null' 5 "no probe on /api/status"
check "reload without a probe block: probe and latency are null" \
	bash -c "echo '$J' | jq -e '.probe == null and .links[0].directions[0].latency == null' >/dev/null"
gw_stop
check "gatewayd exits 0" test $? = 0

# no permission for ICMP: no ping sockets for anyone, and no CAP_NET_RAW
ip netns exec "$NS_R" sysctl -qw net.ipv4.ping_group_range="1 0"
conf 100ms >"$TMPD/l.conf"
GW_LOG=$TMPD/noperm.log
ip netns exec "$NS_R" setpriv --bounding-set -net_raw --inh-caps -net_raw \
	"$GATEWAYD" -c "$TMPD/l.conf" >"$GW_LOG" 2>&1 &
GW_PID=$!
PIDS+=("$GW_PID")
wait_for 'J=$(api /api/status); jq -r .sample.last_error <<<"$J" 2>/dev/null | grep -q "not running"' 10 \
	"last_error to say the prober is not running"
# two more sampling passes: the time it has to (wrongly) log it again
wait_for '[ "$(gw_seq "$NS_R")" -ge $(($(jq .sample.seq <<<"$J") + 2)) ]' 5 "two more samples"
echo "# without permission: $(echo "$J" | jq -r .sample.last_error)"
check "a prober without permission: the daemon still shapes" \
	bash -c "kill -0 $GW_PID && ip netns exec $NS_R tc qdisc show dev r1 | grep -q 'htb e000:'"
echo "$J" >"$TMPD/noperm.json"
check "...and says why in last_error" \
	bash -c "jq -r .sample.last_error '$TMPD/noperm.json' | grep -q 'prober on link .wan. (r1) not running'"
check "...logged once" test "$(grep -c 'not running' "$GW_LOG")" = 1
check "...probe shows its targets, latency no samples" bash -c "jq -e \
	'(.probe.targets | length == 2) and .links[0].directions[0].latency.idle.samples == 0' \
	'$TMPD/noperm.json' >/dev/null"
gw_stop
check "gatewayd exits 0" test $? = 0
