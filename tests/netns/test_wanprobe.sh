#!/usr/bin/env bash
# One probe per WAN on the host kernel: a router with two uplinks (u1 to ISP namespace i1, u2 to
# i2), each link with a probe block of its own: wan1 pings ISP1's address, wan2 sends UDP from
# a source address to `gatewayd --reflect` on an address that only ISP2 has, though the
# router's preferred route to it goes through u1 (so an answer proves the probes left by u2).
# The source address is not on u2 when the daemon starts: the prober runs all the same and is
# answered once the address comes; ISP2 counts the probes from that address.
# One uplink (wan1, htb 10 mbit + a 400 kB bfifo) is flooded through the router for a few
# seconds: /api/status shows induced latency on wan1 alone, wan2 stays near idle; each link's
# probe counters count only its own targets, and neither ISP sees the other link's probes.
# Then reloads: one link's block changed (the other's figures kept), one removed.
LIB_RUN_PREFIX=wanprobe
. "$(dirname "$0")/lib.sh"

PORT=2112
ANY=192.0.2.53		# the reflector's address: on ISP2 only
ns_new NS_C c && ns_new NS_R r && ns_new NS_1 i1 && ns_new NS_2 i2 || { not_ok "namespaces"; exit 1; }
ip link add c0 netns "$NS_C" type veth peer name r0 netns "$NS_R" &&
	ip link add u1 netns "$NS_R" type veth peer name p1 netns "$NS_1" &&
	ip link add u2 netns "$NS_R" type veth peer name p2 netns "$NS_2" || { not_ok "veths"; exit 1; }
ip -n "$NS_C" addr add 10.78.0.2/24 dev c0
ip -n "$NS_R" addr add 10.78.0.1/24 dev r0
ip -n "$NS_R" addr add 10.78.1.1/24 dev u1
ip -n "$NS_1" addr add 10.78.1.2/24 dev p1
ip -n "$NS_R" addr add 10.78.2.1/24 dev u2
ip -n "$NS_2" addr add 10.78.2.2/24 dev p2
ip -n "$NS_2" addr add "$ANY/32" dev lo
for l in "$NS_C c0" "$NS_R r0" "$NS_R u1" "$NS_R u2" "$NS_1 p1" "$NS_2 p2"; do
	set -- $l
	ip -n "$1" link set "$2" up
done
ip -n "$NS_C" route add default via 10.78.0.1
ip -n "$NS_1" route add 10.78.0.0/16 via 10.78.1.1
ip -n "$NS_2" route add 10.78.0.0/16 via 10.78.2.1
# the router prefers ISP1 for the reflector's address (which ISP1 does not have); a probe
# bound to u2 takes the other route
ip -n "$NS_R" route add "$ANY/32" via 10.78.1.2 dev u1 metric 10
ip -n "$NS_R" route add "$ANY/32" via 10.78.2.2 dev u2 metric 100
ip netns exec "$NS_R" sysctl -qw net.ipv4.ip_forward=1
# the reflector's answers come in by u2, against the preferred route: no strict reverse path
ip netns exec "$NS_R" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.u2.rp_filter=0
# per ISP: the echo requests and the UDP probes that reach it
for ns in "$NS_1" "$NS_2"; do
	ip netns exec "$ns" nft -f - <<-'NFT' || not_ok "nft counters in $ns"
	table ip wanprobe {
		counter pings { }
		counter probes { }
		counter fromsrc { }
		counter pingsrc { }
		chain pre {
			type filter hook prerouting priority 0;
			icmp type echo-request counter name pings
			udp dport 2112 counter name probes
			ip saddr 10.78.2.9 udp dport 2112 counter name fromsrc
			ip saddr 10.78.1.9 icmp type echo-request counter name pingsrc
		}
	}
	NFT
done
# counters NS: its pings, probes, fromsrc and pingsrc counts, from one dump
counters() {
	ip netns exec "$1" nft -j list counters table ip wanprobe |
		jq -r '[.nftables[] | select(.counter) | .counter | {(.name): .packets}] | add |
		       "\(.pings) \(.probes) \(.fromsrc) \(.pingsrc)"'
}

RLOG=$TMPD/reflect.log
ip netns exec "$NS_2" "$GATEWAYD" --reflect "$ANY:$PORT" 2>"$RLOG" &
PIDS+=($!)
wait_for "grep -q answering '$RLOG'" 5 "the reflector to log that it answers"

# conf WAN2_PROBE: wan1 always its own block; wan2 as given ("" for none)
conf() {
	cat <<-CONF
	interval = "500ms";
	links = (
	  { name = "wan1"; interface = "u1";
	    egress = { shaper = "htb"; rate = "10mbit"; child = { kind = "fifo"; limit = "400k"; }; };
	    probe = { targets = [ "10.78.1.2" ]; interval = "50ms"; timeout = "3s"; }; },
	  { name = "wan2"; interface = "u2";
	    egress = { shaper = "htb"; rate = "10mbit"; child = { kind = "fifo"; limit = "400k"; }; };
	    $1 } );
	CONF
}
SRC=10.78.2.9	# wan2's source: a second address on u2, added once the daemon runs
conf "probe = { method = \"udp\"; targets = [ \"$ANY\" ]; source = \"$SRC\"; interval = \"50ms\"; timeout = \"3s\"; };" \
	>"$TMPD/w.conf"
gw_start "$NS_R" "$TMPD/w.conf" || { not_ok "gatewayd starts" "$(cat "$GW_LOG")"; exit 1; }
ok "gatewayd starts with a probe block per link"
api() { ip netns exec "$NS_R" curl -s --max-time 3 "http://127.0.0.1:9180$1"; }
# lat LINK FIELD: LINK's egress latency field from $J
lat() { echo "$J" | jq -r ".links[] | select(.name == \"$1\") | .directions[0].latency.$2"; }
# tgt LINK FIELD: LINK's first target's field in probes
tgt() { echo "$J" | jq -r ".probes[] | select(.link == \"$1\") | .targets[0].$2"; }

# the source address is not there yet: wan2's prober runs, its probes go unanswered
wait_for 'J=$(api /api/status); [ "$(tgt wan2 sent)" -ge 10 ] 2>/dev/null' 10 "wan2's first 10 probes"
check "a source the link does not carry yet: the prober runs ($(tgt wan2 sent) sent, $(tgt wan2 received) answered, last_error '$(echo "$J" | jq -r .sample.last_error)')" \
	bash -c "[ '$(tgt wan2 received)' = 0 ] && [ '$(echo "$J" | jq -r .sample.last_error)' = null ]"
ip -n "$NS_R" addr add "$SRC/24" dev u2

idle_seen() {
	J=$(api /api/status)
	[ "$(lat wan1 idle.samples)" -ge 20 ] 2>/dev/null && [ "$(lat wan2 idle.samples)" -ge 20 ] 2>/dev/null
}
wait_for idle_seen 15 "20 idle samples on each link"
echo "# idle: wan1 $(lat wan1 idle | jq -c '{samples, p50_ms}'), wan2 $(lat wan2 idle | jq -c '{samples, p50_ms}')"
check "probes lists both links' probers ($(echo "$J" | jq -c '[.probes[].link]'))" \
	test "$(echo "$J" | jq -c '[.probes[].link]')" = '["wan1","wan2"]'
check "each prober has its own targets alone ($(echo "$J" | jq -c '[.probes[] | [.targets[].host]]'))" \
	test "$(echo "$J" | jq -c '[.probes[] | [.targets[].host]]')" = "[[\"10.78.1.2\"],[\"$ANY\"]]"
check "wan2's prober shows its method and source" \
	test "$(echo "$J" | jq -c '.probes[1] | [.method, .source]')" = "[\"udp\",\"$SRC\"]"
check "probe (the first link's, no global block) is wan1's" test "$(echo "$J" | jq -r .probe.link)" = wan1
check "wan2's target, reachable only through u2, answers ($(tgt wan2 received) of $(tgt wan2 sent))" \
	bash -c "[ '$(tgt wan2 received)' -ge 20 ] && [ '$(tgt wan2 up)' = true ]"
check "wan1's target answers ($(tgt wan1 received) of $(tgt wan1 sent))" test "$(tgt wan1 received)" -ge 20
check "idle: both links have a baseline under 5 ms ($(lat wan1 baseline_ms), $(lat wan2 baseline_ms))" \
	awk -v a="$(lat wan1 baseline_ms)" -v b="$(lat wan2 baseline_ms)" 'BEGIN { exit !(a > 0 && a < 5 && b > 0 && b < 5) }'

# a UDP flood from the client to ISP1 through wan1 (3x its rate, 6 s): wan1's bfifo fills
ip netns exec "$NS_1" timeout 20 iperf3 -s -1 -B 10.78.1.2 >/dev/null 2>&1 &
PIDS+=($!)
wait_listening "$NS_1" 5201 || not_ok "iperf3 server listens"
timeout 20 ip netns exec "$NS_C" iperf3 -c 10.78.1.2 -u -b 30M -l 1400 -t 6 >/dev/null 2>&1 &
IPERF=$!
PIDS+=($IPERF)
loaded_seen() {
	J=$(api /api/status)
	[ "$(lat wan1 loaded.samples)" -ge 30 ] 2>/dev/null
}
wait_for loaded_seen 12 "30 loaded samples on wan1"
wait_for "! kill -0 $IPERF 2>/dev/null" 15 "the flood to end"
J=$(api /api/status)
echo "# loaded wan1: $(lat wan1 loaded | jq -c '{samples, p50_ms, p99_ms}') induced p50 $(lat wan1 induced_p50_ms) ms, grade $(lat wan1 grade)"
echo "# wan2 meanwhile: $(lat wan2 idle | jq -c '{samples, p50_ms, p99_ms}'), $(lat wan2 loaded.samples) loaded"
check "wan1: loaded samples ($(lat wan1 loaded.samples))" test "$(lat wan1 loaded.samples)" -ge 30
check "wan1: the bfifo's induced latency (p50 $(lat wan1 induced_p50_ms) ms > 100 ms)" \
	awk -v v="$(lat wan1 induced_p50_ms)" 'BEGIN { exit !(v > 100) }'
check "wan2: no loaded samples (its own load stayed idle)" test "$(lat wan2 loaded.samples)" = 0
check "wan2: still near idle (idle p99 $(lat wan2 idle.p99_ms) ms < 20 ms)" \
	awk -v v="$(lat wan2 idle.p99_ms)" 'BEGIN { exit !(v > 0 && v < 20) }'
check "wan2: no induced latency figure (null)" test "$(lat wan2 induced_p50_ms)" = null

# each ISP saw its own link's probes only: ICMP at ISP1, UDP at ISP2
read -r e1 u1 _ _ < <(counters "$NS_1")
read -r e2 u2 s2 _ < <(counters "$NS_2")
echo "# ISP1: $e1 echo requests, $u1 UDP probes; ISP2: $e2 echo requests, $u2 UDP probes ($s2 from $SRC)"
check "ISP1 saw wan1's pings ($e1) and none of wan2's UDP probes ($u1)" \
	bash -c "[ '$e1' -ge '$(tgt wan1 received)' ] && [ '$u1' = 0 ]"
check "ISP2 saw wan2's UDP probes ($u2) and none of wan1's pings ($e2)" \
	bash -c "[ '$u2' -ge '$(tgt wan2 received)' ] && [ '$e2' = 0 ]"
check "every UDP probe left from the source address ($s2 of $u2)" \
	bash -c "[ '$s2' = '$u2' ] && [ '$s2' -gt 0 ]"
# /api/status is the last sampling pass's: two passes after the counters were read, wan1's
# figures include every ping ISP1 counted
gw_samples "$NS_R" 2 >/dev/null
J=$(api /api/status)
check "wan1 sent at least what ISP1 got ($(tgt wan1 sent) sent, ISP1 got $e1)" \
	test "$(tgt wan1 sent)" -ge "$e1"

api /metrics >"$TMPD/metrics"
check "/metrics: target counters with a link label, one interval per link" python3 -c '
import re, sys
t = open(sys.argv[1]).read()
assert re.search(r"gatewayd_probe_target_sent_total\{link=\"wan1\",target=\"10.78.1.2\"\} [1-9]", t)
assert re.search(r"gatewayd_probe_target_received_total\{link=\"wan2\",target=\"" + sys.argv[2] + r"\"\} [1-9]", t)
assert not re.search(r"gatewayd_probe_target_sent_total\{target=", t)
assert re.search(r"gatewayd_probe_interval_seconds\{link=\"wan2\"\} 0.05\n", t)
assert re.search(r"gatewayd_probe_info\{link=\"wan2\",method=\"udp\"\} 1\n", t)
assert re.search(r"gatewayd_probe_window_samples\{link=\"wan1\",direction=\"egress\",state=\"loaded\"\} [1-9]", t)
assert re.search(r"gatewayd_probe_window_samples\{link=\"wan2\",direction=\"egress\",state=\"loaded\"\} 0\n", t)
' "$TMPD/metrics" "$ANY"
if command -v promtool >/dev/null; then
	check "promtool check metrics passes" bash -c "promtool check metrics <'$TMPD/metrics'"
fi
H=$(api "/api/history?link=wan2&direction=egress")
check "history: wan2's total keeps its own baseline" bash -c "echo '$H' | jq -e \
	'[.points[] | select(.[9] != null)] | length >= 5' >/dev/null"

# reload: wan2's block changes (its interval), wan1's stays: wan1 keeps its prober and figures
w1=$(lat wan1 replies_total) w1l=$(lat wan1 loaded.samples)
conf "probe = { method = \"udp\"; targets = [ \"$ANY\" ]; source = \"$SRC\"; interval = \"100ms\"; timeout = \"3s\"; };" \
	>"$TMPD/w.conf"
gw_reload
wait_for 'J=$(api /api/status); [ "$(echo "$J" | jq ".probes[1].interval_seconds")" = 0.1 ] && [ "$(lat wan1 replies_total)" -gt "$w1" ]' 5 \
	"wan2's new interval on /api/status"
check "reload: wan2's prober restarted at 100 ms, wan1's figures kept ($w1 -> $(lat wan1 replies_total) replies, loaded $(lat wan1 loaded.samples))" \
	bash -c "[ \"\$(echo '$J' | jq '.probes[1].interval_seconds')\" = 0.1 ] && [ '$(lat wan1 loaded.samples)' -ge '$w1l' ]"
check "the daemon names the link it restarted" grep -q "reload: link 'wan2': restarting the prober" "$GW_LOG"
check "...and did not restart wan1's" bash -c "! grep -q \"link 'wan1': restarting\" '$GW_LOG'"
# wan2's block removed: wan2 is not probed any more
conf "" >"$TMPD/w.conf"
gw_reload
wait_for 'J=$(api /api/status); [ "$(echo "$J" | jq "[.probes[].link]" -c)" = "[\"wan1\"]" ]' 5 \
	"only wan1 in probes"
check "reload without wan2's block: wan2 has no latency, wan1 goes on" \
	bash -c "echo '$J' | jq -e '(.links[1].directions[0].latency == null) and (.links[0].directions[0].latency.replies_total > 0)' >/dev/null"
check "the daemon says it stopped wan2's prober" grep -q "reload: link 'wan2': stopping the prober" "$GW_LOG"
gw_stop
check "gatewayd exits 0" test $? = 0

# --probe without a global block: the first link's own block, through its interface, here
# with a source address (ICMP: a raw socket bound to it)
ip -n "$NS_R" addr add 10.78.1.9/24 dev u1
sed -i 's|targets = \[ "10.78.1.2" \];|& source = "10.78.1.9";|' "$TMPD/w.conf"
read -r _ _ _ before < <(counters "$NS_1")
ip netns exec "$NS_R" timeout 20 "$GATEWAYD" -c "$TMPD/w.conf" --probe 5 >"$TMPD/cli.out" 2>&1
check "--probe runs wan1's own block through u1 (exit $?)" \
	bash -c "grep -q 'from u1, source 10.78.1.9' '$TMPD/cli.out' && [ \$(grep -c '^10.78.1.2 seq=.* lost=0' '$TMPD/cli.out') = 5 ]"
read -r _ _ _ after < <(counters "$NS_1")
check "...its 5 pings from the source address ($((after - before)) counted at ISP1)" \
	test $((after - before)) = 5
