#!/usr/bin/env bash
# Autorate on the host kernel: client - router (gatewayd, htb 40 mbit with autorate on the WAN's
# egress) - modem (its own bottleneck: htb with a deep 1000-packet fifo, the queue a modem
# keeps) - server (three UDP reflectors, an iperf3 server). Under 4 TCP flows the modem's
# capacity steps down 40 -> 12 Mbit/s and back: gatewayd's rate follows it down within a few
# seconds, the delay the modem's queue adds stays small once 3 s have passed (p95 of a ping
# that htb gives a class of its own, against the idle baseline), the modem passes at least 80%
# of its capacity, and the rate rises again when the capacity returns. Figures from
# /api/status, the ping and the modem's counters.
. "$(dirname "$0")/lib.sh"

ns_new NS_C ac && ns_new NS_R ar && ns_new NS_M am && ns_new NS_S as || { not_ok "namespaces"; exit 1; }
ip link add c0 netns "$NS_C" type veth peer name r0 netns "$NS_R" &&
	ip link add r1 netns "$NS_R" type veth peer name m0 netns "$NS_M" &&
	ip link add m1 netns "$NS_M" type veth peer name s0 netns "$NS_S" || { not_ok "veths"; exit 1; }
ip -n "$NS_C" addr add 10.78.1.2/24 dev c0
ip -n "$NS_R" addr add 10.78.1.1/24 dev r0
ip -n "$NS_R" addr add 10.78.2.1/24 dev r1
ip -n "$NS_M" addr add 10.78.2.2/24 dev m0
ip -n "$NS_M" addr add 10.78.3.1/24 dev m1
ip -n "$NS_S" addr add 10.78.3.2/24 dev s0
for l in "$NS_C c0" "$NS_R r0" "$NS_R r1" "$NS_M m0" "$NS_M m1" "$NS_S s0"; do
	set -- $l
	ip -n "$1" link set "$2" up
done
# a modem's line carries frames, not the 64 KB GSO packets veth would pass on (each one 43 ms
# at 12 Mbit/s ahead of a probe, whatever the rates): the client sends single segments
ip -n "$NS_C" link set c0 gso_max_segs 1
ip -n "$NS_C" route add default via 10.78.1.1
ip -n "$NS_R" route add default via 10.78.2.2
ip -n "$NS_M" route add 10.78.1.0/24 via 10.78.2.1
ip -n "$NS_S" route add default via 10.78.3.1
ip netns exec "$NS_R" sysctl -qw net.ipv4.ip_forward=1
ip netns exec "$NS_M" sysctl -qw net.ipv4.ip_forward=1

# the modem: its capacity towards the server, and the deep queue in front of it
modem_rate() { tc -n "$NS_M" class "$1" dev m1 parent 1: classid 1:1 htb rate "$2" ceil "$2" burst 6000 cburst 6000; }
tc -n "$NS_M" qdisc add dev m1 root handle 1: htb default 1 &&
	modem_rate add 40mbit &&
	tc -n "$NS_M" qdisc add dev m1 parent 1:1 handle 10: pfifo limit 1000 || { not_ok "the modem's bottleneck"; exit 1; }

for port in 2112 2113 2114; do
	ip netns exec "$NS_S" "$GATEWAYD" --reflect "10.78.3.2:$port" 2>"$TMPD/reflect.$port" &
	PIDS+=($!)
done
for port in 2112 2113 2114; do
	wait_for "grep -q answering '$TMPD/reflect.$port'" 5 "the reflector on port $port"
done

# the probes (and the test's own ping) in a class of their own, as cake would keep a sparse
# flow apart: the delay they see is the modem's queue, not the gateway's
cat >"$TMPD/a.conf" <<'CONF'
interval = "200ms";
links = ( { name = "wan"; interface = "r1";
  egress = { shaper = "htb"; rate = "40mbit";
    classes = (
      { name = "probe"; rate = "1mbit"; ceil = "40mbit"; prio = 0;
        match = ( { proto = "udp"; dport = [ 2112, 2113, 2114 ]; }, { proto = "icmp"; } );
        child = { kind = "fifo"; limit = 100; }; },
      { name = "bulk"; rate = "39mbit"; ceil = "40mbit"; prio = 1; default = true;
        child = { kind = "fifo"; limit = 30; }; } );
    autorate = { min = "4mbit"; max = "60mbit"; }; }; } );
probe = { method = "udp"; interval = "50ms"; timeout = "1s";
  targets = [ "10.78.3.2:2112", "10.78.3.2:2113", "10.78.3.2:2114" ]; };
CONF
gw_start "$NS_R" "$TMPD/a.conf" || { not_ok "gatewayd starts" "$(cat "$GW_LOG")"; exit 1; }
api() { ip netns exec "$NS_R" curl -s --max-time 3 "http://127.0.0.1:9180$1"; }
ar() { api /api/status | jq -r ".links[0].directions[0].autorate.$1"; }
check "autorate shows in /api/status, at the configured rate" \
	bash -c "[ \"\$(api() { ip netns exec $NS_R curl -s --max-time 3 http://127.0.0.1:9180/api/status; }; api | jq -c '.links[0].directions[0].autorate | [.rate_bits_per_second, .min_bits_per_second, .base_bits_per_second, .max_bits_per_second]')\" = '[40000000,4000000,40000000,60000000]' ]"

# the delay seen from the router, every 50 ms, for the whole run (unix-time stamps)
ip netns exec "$NS_R" timeout 120 ping -D -n -i 0.05 -W 2 10.78.3.2 >"$TMPD/ping" 2>&1 &
PIDS+=($!)
# and to the modem itself, past the gateway's shaper but not the modem's queue: what this
# machine's scheduling alone adds (the machine is shared), to tell it from the queue's delay
ip netns exec "$NS_R" timeout 120 ping -D -n -i 0.05 -W 2 10.78.2.2 >"$TMPD/ping.ref" 2>&1 &
PIDS+=($!)
# the daemon's autorate and achieved rate, every 250 ms
( while :; do
	printf '%s ' "$(date +%s.%N)"
	api /api/status | jq -r '.links[0].directions[0] | "\(.autorate.rate_bits_per_second) \(.total.achieved_bits_per_second // 0) \(.autorate.state)"'
	sleep 0.25
done ) >"$TMPD/rates" 2>/dev/null &
PIDS+=($!)
sleep 3	# a duration: 3 s of idle ping before the load
T_LOAD=$(date +%s.%N)

ip netns exec "$NS_S" timeout 80 iperf3 -s -1 -B 10.78.3.2 >/dev/null 2>&1 &
PIDS+=($!)
wait_listening "$NS_S" 5201 || not_ok "iperf3 server listens"
# 4 flows, bounded: 44 s
ip netns exec "$NS_C" timeout 60 iperf3 -c 10.78.3.2 -P 4 -t 44 >"$TMPD/iperf" 2>&1 &
IPERF=$!
PIDS+=($IPERF)
modem_bytes() { tc -n "$NS_M" -s -j qdisc show dev m1 | jq '.[] | select(.handle == "1:") | .bytes'; }

sleep 10	# a duration: 10 s at 40 Mbit/s
T_DOWN=$(date +%s.%N)
modem_rate change 12mbit
sleep 3	# a duration: the 3 s the brief gives autorate to follow
B1=$(modem_bytes)
T1=$(date +%s.%N)
sleep 12	# a duration: 12 s judged at 12 Mbit/s
B2=$(modem_bytes)
T2=$(date +%s.%N)
T_UP=$T2
modem_rate change 40mbit
sleep 14	# a duration: the capacity back
T_END=$(date +%s.%N)
kill "$IPERF" 2>/dev/null
wait "$IPERF" 2>/dev/null

# judged from the files
python3 - "$TMPD/ping" "$TMPD/ping.ref" "$TMPD/rates" "$T_LOAD" "$T_DOWN" "$T1" "$T2" "$T_UP" "$T_END" "$B1" "$B2" >"$TMPD/judge" <<'PY'
import re, sys
ping, ref, rates = sys.argv[1], sys.argv[2], sys.argv[3]
t_load, t_down, t1, t2, t_up, t_end = map(float, sys.argv[4:10])
b1, b2 = float(sys.argv[10]), float(sys.argv[11])
def pings(f):
    out = []
    for line in open(f):
        m = re.match(r"\[(\d+\.\d+)\].*time=([\d.]+) ms", line)
        if m:
            out.append((float(m.group(1)), float(m.group(2))))
    return out
def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p / 100 * len(v)))] if v else float("nan")
rtt, rrtt = pings(ping), pings(ref)
base = pct([r for t, r in rtt if t < t_load], 50)
rbase = pct([r for t, r in rrtt if t < t_load], 50)
low = [r - base for t, r in rtt if t1 <= t < t2]
rlow = [r - rbase for t, r in rrtt if t1 <= t < t2]
peak = max([r - base for t, r in rtt if t_down <= t < t1] or [float("nan")])
rate = [tuple(l.split()[:3]) for l in open(rates) if len(l.split()) >= 3 and l.split()[1] != "null"]
rate = [(float(t), float(r), float(a)) for t, r, a in rate]
follow = [t - t_down for t, r, a in rate if t >= t_down and r <= 15e6]
rise = [t - t_up for t, r, a in rate if t >= t_up and r >= 30e6]
print("idle_base_ms %.3f" % base)
print("peak_after_drop_ms %.1f" % peak)
print("low_p50_ms %.2f" % pct(low, 50))
print("low_p95_ms %.2f" % pct(low, 95))
print("low_samples %d" % len(low))
print("ref_p95_ms %.2f" % pct(rlow, 95))
print("queue_p95_ms %.2f" % (pct(low, 95) - max(0, pct(rlow, 95))))
print("low_share %.3f" % ((b2 - b1) * 8 / (t2 - t1) / 12e6))
print("follow_s %.2f" % (follow[0] if follow else 99))
print("rise_s %.2f" % (rise[0] if rise else 99))
print("rate_low_mbit %.2f" % (sum(r for t, r, a in rate if t1 <= t < t2) / max(1, len([1 for t, r, a in rate if t1 <= t < t2])) / 1e6))
PY
cat "$TMPD/judge" | sed 's/^/# /'
val() { awk -v k="$1" '$1 == k { print $2 }' "$TMPD/judge"; }
check "the idle baseline is known ($(val idle_base_ms) ms)" awk -v v="$(val idle_base_ms)" 'BEGIN { exit !(v > 0 && v < 5) }'
check "the drop builds a queue in the modem before autorate acts (peak $(val peak_after_drop_ms) ms > 30 ms)" \
	awk -v v="$(val peak_after_drop_ms)" 'BEGIN { exit !(v > 30) }'
check "gatewayd's rate follows the capacity down within 3 s ($(val follow_s) s to <= 15 Mbit/s)" \
	awk -v v="$(val follow_s)" 'BEGIN { exit !(v <= 3) }'
check "once 3 s have passed, the modem's queue adds at most 15 ms at p95 ($(val queue_p95_ms) ms: the ping's p95 $(val low_p95_ms) ms over idle, p50 $(val low_p50_ms), less the $(val ref_p95_ms) ms a ping to the modem itself saw; $(val low_samples) pings)" \
	awk -v v="$(val queue_p95_ms)" -v n="$(val low_samples)" 'BEGIN { exit !(v <= 15 && n >= 100) }'
check "...and the modem passes at least 80% of its 12 Mbit/s ($(val low_share))" \
	awk -v v="$(val low_share)" 'BEGIN { exit !(v >= 0.8) }'
check "the rate rises again when the capacity returns ($(val rise_s) s to >= 30 Mbit/s)" \
	awk -v v="$(val rise_s)" 'BEGIN { exit !(v <= 12) }'

J=$(api /api/status)
echo "# autorate: $(echo "$J" | jq -c '.links[0].directions[0].autorate')"
check "changes counted by reason: bloat and load" bash -c "echo '$J' | jq -e \
	'.links[0].directions[0].autorate | .changes.bloat >= 1 and .changes.load >= 1 and .last_reason != null and .last_change_unix > 0' >/dev/null"
api /metrics >"$TMPD/metrics"
check "/metrics: the rate and the changes by reason" bash -c "
	grep -qE '^gatewayd_autorate_rate_bytes_per_second\{link=\"wan\",direction=\"egress\"\} [0-9]' '$TMPD/metrics' &&
	grep -qE '^gatewayd_autorate_changes_total\{link=\"wan\",direction=\"egress\",reason=\"bloat\"\} [1-9]' '$TMPD/metrics'"
if command -v promtool >/dev/null; then
	check "promtool check metrics passes" bash -c "promtool check metrics <'$TMPD/metrics'"
fi
# one line per direction per 10 s at most: over the run's ~50 s, at most 6 after the first
check "the log says why the rate moved, at most once per 10 s" bash -c "
	n=\$(grep -cE 'autorate: link .wan. egress ([0-9.]* -> |at [0-9.]* Mbit/s, )' '$GW_LOG')
	[ \$n -ge 2 ] && [ \$n -le 7 ] && grep -qE 'autorate: link .wan. egress .*(bloat: delay|bloat [1-9])' '$GW_LOG'"
grep 'autorate:' "$GW_LOG" | head -8 | sed 's/^/# /'
H=$(api "/api/history?link=wan&direction=egress")
check "history: the total keeps the shaper's rate, which went under 15 Mbit/s and back over 30" \
	bash -c "echo '$H' | jq -e '(.columns | index(\"shaper_rate_bits_per_second\")) as \$k |
		\$k == 12 and ([.points[][\$k] | select(. != null)] | (min < 15e6 and max > 30e6))' >/dev/null"
check "history: a class keeps none" bash -c "api() { ip netns exec $NS_R curl -s --max-time 3 \"http://127.0.0.1:9180\$1\"; }
	api '/api/history?link=wan&direction=egress&class=bulk' | jq -e '.columns | length == 12' >/dev/null"
check "the kernel's classes hold the rate /api/status says (read back)" bash -c "
	r=\$(tc -n $NS_R class show dev r1 | sed -n 's/.*class htb e000:1 root .*rate \([0-9.]*[KMG]*bit\).*/\1/p')
	[ -n \"\$r\" ]"
check "the heal check sees the new rate as gatewayd's own: nothing restored" \
	bash -c "! grep -q 'restored' '$GW_LOG'"
# a reload with the same file: the rate back at the configured 40 mbit, the counts kept
before=$(echo "$J" | jq '.links[0].directions[0].autorate.changes.bloat')
gw_reload
wait_for '[ "$(ar rate_bits_per_second)" = 40000000 ]' 5 "the configured rate after the reload"
check "reload: the rate back at the configured 40 mbit, in the kernel too ($(ar rate_bits_per_second))" \
	bash -c "[ '$(ar rate_bits_per_second)' = 40000000 ] &&
		tc -n $NS_R class show dev r1 | grep -q 'class htb e000:1 root .*rate 40Mbit ceil 40Mbit'"
check "reload: the change counts kept ($before -> $(ar changes.bloat))" test "$(ar changes.bloat)" -ge "$before"
gw_stop
check "gatewayd exits 0" test $? = 0

# 100 rate changes under load lose no packet the change itself dropped: autorate set to move
# at every sample and pass (a 1 ms threshold on one sample, no hold, raises every pass), a
# UDP stream with sequence numbers in a class of its own far below its share of min, and TCP
# whose windows (2 x 32 KB) fit the fifos, so nothing overflows; before and after: the same
# qdisc handles, no qdisc created or deleted (tc monitor), counters that only grow, no drops
modem_rate change 12mbit
cat >"$TMPD/churn.conf" <<'CONF'
interval = "100ms";
links = ( { name = "wan"; interface = "r1";
  egress = { shaper = "htb"; rate = "40mbit";
    classes = (
      { name = "probe"; rate = "1mbit"; ceil = "40mbit"; prio = 0;
        match = ( { proto = "udp"; dport = [ 2112, 2113, 2114 ]; }, { proto = "icmp"; } );
        child = { kind = "fifo"; limit = 100; }; },
      { name = "stream"; rate = "10mbit"; ceil = "40mbit"; prio = 0;
        match = { proto = "udp"; dport = 5202; };
        child = { kind = "fifo"; limit = 100; }; },
      { name = "bulk"; rate = "29mbit"; ceil = "40mbit"; prio = 1; default = true;
        child = { kind = "fifo"; limit = 200; }; } );
    autorate = { min = "4mbit"; max = "60mbit"; delay_threshold = "1ms"; window = 1;
      bloat_samples = 1; hold = "0ms"; raise_every = "10ms"; raise = 1.2; cut = 0.8; }; }; } );
probe = { method = "udp"; interval = "50ms"; timeout = "1s";
  targets = [ "10.78.3.2:2112", "10.78.3.2:2113", "10.78.3.2:2114" ]; };
CONF
gw_start "$NS_R" "$TMPD/churn.conf" || { not_ok "gatewayd starts (churn)" "$(cat "$GW_LOG")"; exit 1; }
changes() { api /api/status | jq '.links[0].directions[0].autorate.changes | .bloat + .load + .idle + .queue'; }
handles() { tc -n "$NS_R" qdisc show dev r1 | awk '{ print $2, $3 }' | sort | tr '\n' ' '; }
leafdrops() { tc -n "$NS_R" -s -j qdisc show dev r1 | jq '[.[] | select(.handle != "e000:") | .drops] | add'; }
H0=$(handles)
timeout 120 tc -n "$NS_R" monitor >"$TMPD/tcmon" 2>/dev/null &
PIDS+=($!)
ip netns exec "$NS_S" timeout 80 iperf3 -s -1 -p 5201 -B 10.78.3.2 >/dev/null 2>&1 &
PIDS+=($!)
ip netns exec "$NS_S" timeout 80 iperf3 -s -1 -p 5202 -B 10.78.3.2 >/dev/null 2>&1 &
PIDS+=($!)
wait_listening "$NS_S" 5201 && wait_listening "$NS_S" 5202 || not_ok "iperf3 servers listen"
ip netns exec "$NS_C" timeout 60 iperf3 -c 10.78.3.2 -p 5201 -P 2 -w 32K -t 30 >/dev/null 2>&1 &
TCP=$!
PIDS+=($TCP)
ip netns exec "$NS_C" timeout 60 iperf3 -c 10.78.3.2 -p 5202 -u -b 500K -l 500 -t 30 -J \
	>"$TMPD/udp.json" 2>&1 &
UDP=$!
PIDS+=($UDP)
sleep 2	# a duration: both flows running before the counters are read
C0=$(changes)
B0=$(tc -n "$NS_R" -s -j qdisc show dev r1 | jq '.[] | select(.handle == "e000:") | .bytes')
wait_for '[ $(($(changes) - C0)) -ge 100 ]' 25 "100 rate changes"
C1=$(changes)
B1=$(tc -n "$NS_R" -s -j qdisc show dev r1 | jq '.[] | select(.handle == "e000:") | .bytes')
D1=$(leafdrops)
H1=$(handles)
wait "$UDP"
wait "$TCP"
echo "# churn: $((C1 - C0)) changes; $(api /api/status | jq -c '.links[0].directions[0].autorate.changes')"
check "100 rate changes under load ($((C1 - C0)))" test $((C1 - C0)) -ge 100
check "the same qdiscs, by handle ($H1)" test "$H0" = "$H1"
check "no qdisc created or deleted while the rates moved" \
	bash -c "! grep -qE '^(deleted )?qdisc ' '$TMPD/tcmon'"
check "the classes were changed ($(grep -c 'class htb' "$TMPD/tcmon") class events)" \
	test "$(grep -c 'class htb' "$TMPD/tcmon")" -ge 100
check "the root's counters only grew ($B0 -> $B1 bytes)" test "$B1" -gt "$B0"
check "no leaf dropped a packet ($D1)" test "$D1" = 0
check "the modem dropped nothing" test "$(tc -n "$NS_M" -s -j qdisc show dev m1 | jq '[.[].drops] | add')" = 0
check "the UDP stream lost nothing ($(jq -c '.end.sum | {packets, lost_packets}' "$TMPD/udp.json"))" \
	bash -c "jq -e '.end.sum.packets > 2000 and .end.sum.lost_packets == 0' '$TMPD/udp.json' >/dev/null"
gw_stop
check "gatewayd exits 0" test $? = 0
