#!/bin/bash
# tests/uml/guest/probe.sh: guest side of tests/uml/test_probe.sh: the prober against ping on a
# netem path (delay 20 ms: medians agree within 0.2 ms), under netem loss (5%: 3..7% measured
# over 2,000 probes), and under reordering and duplication (every probe reported exactly once).
# Argument: the gatewayd binary.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$UML_LIB" || exit 1
GW=${1:?gatewayd binary}
T=$(mktemp -d)
T0=$(date +%s.%N)
lap() { echo "# $(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s: $*"; }

[ -z "$UML_MODULES_FAILED" ] || not_ok "guest modules" "not loaded: $UML_MODULES_FAILED"
uml_topology || { not_ok "topology" "uml_topology failed"; exit 1; }

conf() {	# conf FILE METHOD INTERVAL TIMEOUT TARGET
	cat >"$1" <<-CONF
	links = ( { name = "up"; interface = "c0"; egress = { shaper = "tbf"; rate = "1gbit"; }; } );
	probe = { method = "$2"; targets = [ "$5" ]; interval = "$3"; timeout = "$4"; };
	CONF
}
field() {	# field FILE KEY: a number from the summary line
	sed -nE "s/^# .* $2 ([0-9.na-]+).*/\1/p" "$1"
}
probe() {	# probe CONF COUNT OUT: the prober alone, from the client
	ip netns exec $UML_NS_C timeout 120 "$GW" -c "$1" --probe "$2" >"$3" 2>&1
}

ip netns exec $UML_NS_S "$GW" --reflect 0.0.0.0:2112 2>"$T/reflect.log" &
RPID=$!

lap topology
# 1. delay 20 ms: the prober's median against ping's, same path, same moment. ping stamps its
# send in user space before sendmsg(); the prober uses the kernel's stamp as the probe enters
# the queue. In UML a system call costs tens of microseconds, so ping reads a few tenths of a
# millisecond high: that offset is measured at the same time on the router's near side (no
# netem), where ping prints microseconds, and taken off ping's figure for ICMP. A UDP RTT has
# the same kind of cost in it, the reflector's send (its send time is read before sendmsg()),
# so UDP is held to ping's own figure.
ping_med() {	# ping_med ADDR: median of 150 pings at 20 ms
	ip netns exec $UML_NS_C ping -n -c 150 -i 0.02 -W 2 "$1" |
		sed -nE 's/.*time=([0-9.]+) ms.*/\1/p' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
uml_netem_far 20ms limit 10000
conf "$T/icmp.conf" icmp 20ms 1s "$UML_IP_S\", \"$UML_IP_R0"
conf "$T/udp.conf" udp 20ms 1s $UML_IP_S
probe "$T/icmp.conf" 150 "$T/icmp.out" &
p1=$!
probe "$T/udp.conf" 150 "$T/udp.out" &
p2=$!
ping_med $UML_IP_R0 >"$T/near.ping" &
p3=$!
far_ping=$(ping_med $UML_IP_S)
wait $p1 $p2 $p3
lap delay runs
near_ping=$(cat "$T/near.ping")
near_gw=$(sed -nE "s/^# $UML_IP_R0: .* p50 ([0-9.]+).*/\1/p" "$T/icmp.out")
off=$(awk -v p="$near_ping" -v g="$near_gw" 'BEGIN { printf "%.3f", p - g }')
echo "# near side, no netem: gatewayd median $near_gw ms, ping $near_ping ms: ping's own overhead $off ms"
check "near side: ping's overhead is small (${off} ms, -0.05..0.6)" "$near_gw vs $near_ping" \
	num_between "$off" -0.05 0.6
for m in icmp udp; do
	sed -i "/^# $UML_IP_R0: /d" "$T/$m.out"
	med=$(field "$T/$m.out" p50)
	ref=$far_ping
	[ $m = icmp ] && ref=$(awk -v p="$far_ping" -v o="$off" 'BEGIN { printf "%.3f", p - o }')
	echo "# netem 20ms, $m: gatewayd median $med ms (p99 $(field "$T/$m.out" p99)," \
		"kernel stamps tx $(field "$T/$m.out" tx) rx $(field "$T/$m.out" rx) of" \
		"$(field "$T/$m.out" received)), ping median $far_ping ms, held to $ref ms"
	check "netem 20ms, $m: median RTT within 0.2 ms of ping's ($med vs $ref)" \
		"$(tail -n 1 "$T/$m.out")" awk -v g="$med" -v p="$ref" \
		'BEGIN { d = g - p; if (d < 0) d = -d; exit !(g >= 20 && d <= 0.2) }'
	check "netem 20ms, $m: every RTT from kernel stamps" "$(tail -n 1 "$T/$m.out")" \
		test "$(field "$T/$m.out" tx)/$(field "$T/$m.out" rx)" = 150/150
done
lap delay
# 2. loss 5% on the replies' way: 2,000 probes at 10 ms, measured loss 3..7%, all the link's
uml_netem_far 1ms loss 5% limit 10000
conf "$T/loss.conf" icmp 10ms 200ms $UML_IP_S
probe "$T/loss.conf" 2000 "$T/loss.out"
lap loss run
s=$(field "$T/loss.out" samples)
lost=$(field "$T/loss.out" lost)
pct=$(awk -v l="$lost" -v s="$s" 'BEGIN { if (s > 0) printf "%.2f", 100 * l / s }')
echo "# netem loss 5%: $lost of $s probes lost ($pct%), link_lost $(field "$T/loss.out" link_lost)"
check "netem loss 5%: 2000 probes reported" "samples $s" test "$s" = 2000
check "netem loss 5%: measured loss 3..7% ($pct%)" "$(tail -n 1 "$T/loss.out")" num_between "$pct" 3 7
check "netem loss 5%: every loss counted as the link's (target stayed up)" \
	"$(tail -n 1 "$T/loss.out")" test "$(field "$T/loss.out" link_lost)" = "$lost"

lap loss
# 3. reordering and duplication (jitter larger than the interval, 10% duplicates), over UDP:
# every seq reported exactly once, none lost, and the reordering and duplicates seen
uml_netem_far 20ms 15ms duplicate 10% limit 10000
conf "$T/reo.conf" udp 10ms 1s $UML_IP_S
probe "$T/reo.conf" 300 "$T/reo.out"
seqs=$(grep -c ' seq=' "$T/reo.out")
uniq=$(sed -nE 's/.* seq=([0-9]+) .*/\1/p' "$T/reo.out" | sort -n | uniq | wc -l)
range=$(sed -nE 's/.* seq=([0-9]+) .*/\1/p' "$T/reo.out" | sort -n | sed -n '1p;$p' | tr '\n' ' ')
echo "# reorder: $seqs lines, $uniq distinct seqs ($range), lost $(field "$T/reo.out" lost)," \
	"reordered $(field "$T/reo.out" reordered), duplicates $(field "$T/reo.out" duplicates)"
check "reordering: each of the 300 probes reported exactly once" "$seqs lines, $uniq seqs, $range" \
	test "$seqs/$uniq/$range" = "300/300/0 299 "
check "reordering: none lost" "$(tail -n 1 "$T/reo.out")" test "$(field "$T/reo.out" lost)" = 0
check "reordering: seen and flagged" "$(tail -n 1 "$T/reo.out")" \
	test "$(field "$T/reo.out" reordered)" -gt 10
check "duplicates: seen, counted, not reported as samples" "$(tail -n 1 "$T/reo.out")" \
	test "$(field "$T/reo.out" duplicates)" -gt 10

lap reorder
kill -TERM $RPID
wait $RPID
echo "# $(tail -n 1 "$T/reflect.log")"
uml_status
