#!/usr/bin/env bash
# The latency prober through a router on the host kernel: ICMP (ping and raw sockets) and UDP to
# `gatewayd --reflect`, IPv4 and IPv6; its RTT against ping's on the same path; a target that
# answers late in life and then goes quiet (down, up, down, and none of it the link's loss); the
# reflector refusing junk, still answering, and its memory flat under a flood.
. "$(dirname "$0")/lib.sh"

PORT=2112
topo_chain || { not_ok "topology"; exit 1; }
ip netns exec "$NS_C" ping -c 2 -i 0.2 -W 1 10.77.2.2 >/dev/null 2>&1 # ARP and ND settle
ip netns exec "$NS_C" ping -c 2 -i 0.2 -W 1 fd77:2::2 >/dev/null 2>&1

# conf FILE METHOD INTERVAL TIMEOUT TARGET...: a config whose probe link is the client's c0
conf() {
	local f=$1 m=$2 iv=$3 to=$4 t
	shift 4
	local list=""
	for t in "$@"; do list="$list${list:+, }\"$t\""; done
	cat >"$f" <<-EOF
	links = ( { name = "up"; interface = "c0"; egress = { shaper = "tbf"; rate = "1gbit"; }; } );
	probe = { method = "$m"; targets = [ $list ]; interval = "$iv"; timeout = "$to"; };
	EOF
}

# summary FILE TARGET FIELD: a number from the "# TARGET: ..." summary line
summary() {
	grep "^# $2: " "$1" | sed -E "s/.* $3 ([0-9.na-]+).*/\1/"
}

# median of ping's RTTs (ms) over COUNT pings to ADDR from the client
ping_median() {
	ip netns exec "$NS_C" ping -n -c "$2" -i 0.02 -W 1 "$1" 2>/dev/null |
		sed -nE 's/.*time=([0-9.]+) ms.*/\1/p' | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'
}

# the command line's refusals: exit 2 and a message
"$GATEWAYD" --reflect nonsense >/dev/null 2>"$TMPD/e"
check "--reflect without IP:PORT: exit 2, says what it wants" \
	bash -c "[ $? -eq 2 ] && grep -q 'expected IP:PORT' '$TMPD/e'"
printf 'links = ( { name = "up"; interface = "c0"; egress = { shaper = "tbf"; rate = "1gbit"; }; } );\n' >"$TMPD/noprobe.conf"
"$GATEWAYD" -c "$TMPD/noprobe.conf" --probe 3 >/dev/null 2>"$TMPD/e"
check "--probe without a probe block: exit 2" bash -c "[ $? -eq 2 ] && grep -q 'no probe block' '$TMPD/e'"
"$GATEWAYD" -c "$TMPD/noprobe.conf" --probe x3 >/dev/null 2>&1
check "--probe with no count: exit 2" test $? -eq 2

# reflector in the server namespace, both families on one socket
RLOG=$TMPD/reflect.log
ip netns exec "$NS_S" "$GATEWAYD" --reflect "[::]:$PORT" 2>"$RLOG" &
RPID=$!
PIDS+=("$RPID")
wait_for "grep -q answering '$RLOG'" 5 "the reflector to log that it answers"
# refl_stats: SIGUSR1 the reflector and wait until it logged its counters ("reflect: answered ...")
refl_stats() {
	local n
	n=$(grep -c "^reflect: answered" "$RLOG")
	kill -USR1 "$RPID"
	wait_for '[ "$(grep -c "^reflect: answered" "$RLOG")" -gt '"$n"' ]' 5 "the reflector's counters in its log"
}
check "reflector starts on [::]:$PORT" grep -q "answering probes on \[::\]:$PORT" "$RLOG"

# 1. every method and family through the router, 100 probes each, all answered, kernel stamps
ip netns exec "$NS_C" sysctl -qw net.ipv4.ping_group_range="1 0"
for m in icmp udp; do
	conf "$TMPD/$m.conf" "$m" 10ms 1s 10.77.2.2 fd77:2::2
	ip netns exec "$NS_C" timeout 20 "$GATEWAYD" -c "$TMPD/$m.conf" --probe 100 >"$TMPD/$m.out" 2>&1
	check "$m: --probe exits 0" test $? -eq 0
	for t in 10.77.2.2 fd77:2::2; do
		r=$(summary "$TMPD/$m.out" "$t" received)
		lost=$(summary "$TMPD/$m.out" "$t" lost)
		tx=$(summary "$TMPD/$m.out" "$t" tx)
		rx=$(summary "$TMPD/$m.out" "$t" rx)
		echo "# $m $t: received $r lost $lost, kernel stamps tx $tx rx $rx, p50 $(summary "$TMPD/$m.out" "$t" p50) ms"
		check "$m $t: 100 of 100 answered" test "$r" = 100
		check "$m $t: every RTT from kernel stamps on both ends" test "$tx" = 100 -a "$rx" = 100
		n=$(grep -c "^$t seq=" "$TMPD/$m.out")
		check "$m $t: one line per probe ($n)" test "$n" = 100
	done
done
check "icmp without ping_group_range: raw sockets" grep -q "icmp (raw socket)" "$TMPD/icmp.out"
# unprivileged ping sockets where the group may use them
ip netns exec "$NS_C" sysctl -qw net.ipv4.ping_group_range="0 2147483647"
ip netns exec "$NS_C" timeout 20 "$GATEWAYD" -c "$TMPD/icmp.conf" --probe 50 >"$TMPD/ping.out" 2>&1
check "icmp with ping_group_range: ping sockets" grep -q "icmp (ping socket)" "$TMPD/ping.out"
for t in 10.77.2.2 fd77:2::2; do
	check "ping socket $t: 50 of 50 answered, kernel-stamped" \
		test "$(summary "$TMPD/ping.out" "$t" received)/$(summary "$TMPD/ping.out" "$t" tx)" = 50/50
done

# started before the link has a route (a WAN still dialling): probes lost, not a failure, and
# answered once the route is there
ip -n "$NS_C" route del default
ip -n "$NS_C" -6 route del default
for m in icmp udp; do
	conf "$TMPD/route-$m.conf" "$m" 20ms 100ms 10.77.2.2 fd77:2::2
	ip netns exec "$NS_C" timeout 20 "$GATEWAYD" -c "$TMPD/route-$m.conf" --probe 100 >"$TMPD/route-$m.out" 2>&1 &
	RP1=$!
	wait_for "grep -q '^fd77:2::2 seq=.* lost=1' '$TMPD/route-$m.out'" 5 "a lost probe to fd77:2::2 ($m)"
	ip -n "$NS_C" route add default via 10.77.1.1
	ip -n "$NS_C" -6 route add default via fd77:1::1
	wait $RP1
	check "$m started without a route: runs, then answered once the route came (v4 $(summary "$TMPD/route-$m.out" 10.77.2.2 received), v6 $(summary "$TMPD/route-$m.out" fd77:2::2 received) of 100, invalid $(summary "$TMPD/route-$m.out" 10.77.2.2 invalid))" \
		awk -v a="$(summary "$TMPD/route-$m.out" 10.77.2.2 received)" \
		-v b="$(summary "$TMPD/route-$m.out" fd77:2::2 received)" \
		-v c="$(summary "$TMPD/route-$m.out" 10.77.2.2 invalid)" 'BEGIN { exit !(a >= 50 && b >= 50 && c == 0) }'
	[ $m = icmp ] && { ip -n "$NS_C" route del default; ip -n "$NS_C" -6 route del default; }
done

# the probes leave through the probe link's interface, with its fwmark: bound to lo they reach
# nothing; marked 7 they follow a rule into a table that blackholes the server
sed 's/interface = "c0"/interface = "lo"/' "$TMPD/udp.conf" >"$TMPD/lo.conf"
ip netns exec "$NS_C" timeout 20 "$GATEWAYD" -c "$TMPD/lo.conf" --probe 5 >"$TMPD/lo.out" 2>&1
check "link interface lo: nothing answers through it (SO_BINDTODEVICE)" \
	test "$(summary "$TMPD/lo.out" 10.77.2.2 received)" = 0
ip -n "$NS_C" rule add fwmark 7 lookup 100
ip -n "$NS_C" route add blackhole 10.77.2.0/24 table 100
sed 's/timeout = "1s"; };/timeout = "1s"; fwmark = 7; };/' "$TMPD/udp.conf" >"$TMPD/mark.conf"
ip netns exec "$NS_C" timeout 20 "$GATEWAYD" -c "$TMPD/mark.conf" --probe 5 >"$TMPD/mark.out" 2>&1
check "fwmark 7: the probes follow the marked route (blackholed), v6 unaffected" \
	test "$(summary "$TMPD/mark.out" 10.77.2.2 received)/$(summary "$TMPD/mark.out" fd77:2::2 received)" = 0/5
ip -n "$NS_C" rule del fwmark 7 lookup 100

# 2. RTT against ping's on the same path, same moment: medians of 150 each
for t in 10.77.2.2 fd77:2::2; do
	conf "$TMPD/cmp.conf" icmp 20ms 1s "$t"
	ip netns exec "$NS_C" timeout 20 "$GATEWAYD" -c "$TMPD/cmp.conf" --probe 150 >"$TMPD/cmp.out" 2>&1 &
	pm=$(ping_median "$t" 150)
	wait $!
	gm=$(summary "$TMPD/cmp.out" "$t" p50)
	echo "# $t: median RTT gatewayd $gm ms, ping $pm ms"
	# loopback-scale figures (tens of microseconds) on a shared, noisy machine: agree within
	# 0.15 ms or 50% of ping's (ping stamps its send in user space, so it reads a little higher)
	check "$t: median RTT agrees with ping's ($gm vs $pm ms)" awk -v g="$gm" -v p="$pm" \
		'BEGIN { d = g - p; if (d < 0) d = -d; exit !(g > 0 && (d < 0.15 || d < p / 2)) }'
done

# 2b. a queue in the probe link's own egress shaper counts: the send stamp is taken as the probe
# enters the qdisc (TX_SCHED), not as it leaves the driver. htb 2 mbit with a 100-packet fifo on
# c0, filled by a UDP flood from the client: the prober's RTT climbs with ping's
ip netns exec "$NS_C" tc qdisc add dev c0 root handle 1: htb default 1
ip netns exec "$NS_C" tc class add dev c0 parent 1: classid 1:1 htb rate 2mbit
ip netns exec "$NS_C" tc qdisc add dev c0 parent 1:1 pfifo limit 100
cat >"$TMPD/bloat.py" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end, pkt = time.time() + float(sys.argv[1]), bytes(1200)
while time.time() < end:
    for _ in range(10):
        try:
            s.sendto(pkt, ('10.77.2.2', 9))
        except OSError:
            pass
    time.sleep(0.01)    # pacing: 10 datagrams every 10 ms
EOF
conf "$TMPD/bloat.conf" icmp 100ms 2s 10.77.2.2
ip netns exec "$NS_C" timeout 30 python3 "$TMPD/bloat.py" 25 &
FP=$!
# until the fifo stands (50 packets or more queued), 10 s at most
backlog() { ip netns exec "$NS_C" tc -s qdisc show dev c0 | sed -nE 's/.*backlog [0-9]+b ([0-9]+)p.*/\1/p' | sort -n | tail -n 1; }
wait_for 'b=$(backlog); [ "${b:-0}" -ge 50 ]' 10 "50 packets queued in c0's fifo"
echo "# the fifo holds ${b:-0} packets"
ip netns exec "$NS_C" timeout 20 "$GATEWAYD" -c "$TMPD/bloat.conf" --probe 20 >"$TMPD/bloat.out" 2>&1 &
BP=$!
pm=$(ip netns exec "$NS_C" ping -n -c 20 -i 0.1 -W 2 10.77.2.2 2>/dev/null |
	sed -nE 's/.*time=([0-9.]+) ms.*/\1/p' | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
wait $BP
kill $FP 2>/dev/null
wait $FP
ip netns exec "$NS_C" tc qdisc del dev c0 root
gm=$(summary "$TMPD/bloat.out" 10.77.2.2 p50)
echo "# through a full 2 mbit fifo on c0: median RTT gatewayd $gm ms, ping $pm ms"
check "a full local shaper queue shows in the RTT, as in ping's ($gm vs $pm ms)" \
	awk -v g="$gm" -v p="$pm" 'BEGIN { exit !(p > 100 && g > p * 0.5 && g < p * 2) }'

# 3. a target that is silent, answers, then goes quiet again: down, up, down; none of its
# losses is the link's; the healthy target beside it is unaffected
conf "$TMPD/health.conf" icmp 20ms 200ms 10.77.2.2 10.77.2.3
ip netns exec "$NS_C" timeout 30 "$GATEWAYD" -c "$TMPD/health.conf" --probe 250 >"$TMPD/health.out" 2>&1 &
HP=$!
# wait_line RE: until the prober has printed a line matching RE (10 s at most)
wait_line() { wait_for "grep -q '$1' '$TMPD/health.out'" 10 "the prober to print $1"; }
wait_line '^10.77.2.3 seq=.* lost=1 ' || not_ok "silent target: no sample while silent"
ip -n "$NS_S" addr add 10.77.2.3/24 dev s0
wait_line '^10.77.2.3 seq=.* lost=0 .* up=1' || not_ok "silent target: never answered"
sleep 0.5	# a duration: the target answers for half a second more, then goes silent again
ip -n "$NS_S" addr del 10.77.2.3/24 dev s0
wait $HP
check "health run exits 0" test $? -eq 0
# the up= field of 10.77.2.3's samples in seq order, runs collapsed: want 0 1 0
states=$(grep "^10.77.2.3 seq=" "$TMPD/health.out" | sed -E 's/.*seq=([0-9]+).* up=([01]).*/\1 \2/' |
	sort -n | awk '{ if (NR == 1 || $2 != last) printf "%s ", $2; last = $2 }')
echo "# 10.77.2.3 up states over time: $states"
check "silent target: down, then up when it answers, down when it stops" test "$states" = "0 1 0 "
check "silent target: none of its losses counted as the link's" \
	test "$(summary "$TMPD/health.out" 10.77.2.3 link_lost)" = 0
check "silent target: answered in the middle" \
	awk -v r="$(summary "$TMPD/health.out" 10.77.2.3 received)" 'BEGIN { exit !(r >= 20) }'
check "silent target: summary says down" grep -q "^# 10.77.2.3: .*; down$" "$TMPD/health.out"
check "healthy target beside it: 250 of 250, up throughout" \
	test "$(summary "$TMPD/health.out" 10.77.2.2 received)" = 250 -a \
	"$(grep -c '^10.77.2.2 seq=.* up=1' "$TMPD/health.out")" = 250

# 4. junk at the reflector: refused, counted, never answered; it answers probes after
cat >"$TMPD/junk.py" <<'EOF'
import socket, struct, sys
fam = socket.AF_INET6 if ':' in sys.argv[1] else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
s.connect((sys.argv[1], int(sys.argv[2])))
s.settimeout(0.15)
hdr = lambda magic=b'GWPR', ver=1, typ=1: magic + bytes([ver, typ]) + bytes(34)
junk = [b'', b'GWPR', hdr()[:39], hdr() + bytes(1500), bytes(64), hdr(b'GWPX'),
        hdr(ver=2), hdr(typ=2), hdr(typ=9), hdr() + bytes(1433)]
answered = 0
for j in junk:
    s.send(j)
    try:
        s.recv(4096)
        answered += 1
    except socket.timeout:
        pass
print(answered)
EOF
refl_stats
before=$(grep -c "^reflect: answered" "$RLOG")
for a in 10.77.2.2 fd77:2::2; do
	n=$(ip netns exec "$NS_C" timeout 10 python3 "$TMPD/junk.py" "$a" "$PORT")
	check "reflector answers none of 10 malformed packets over $a" test "$n" = 0
done
refl_stats
line=$(grep "^reflect: answered" "$RLOG" | tail -1)
echo "# $line"
# per family: 3 too short, 2 too long, 2 bad magic, 1 bad version, 2 not a request
check "reflector counts what it refused, by kind" bash -c "echo '$line' | grep -q \
	'too_short 6 too_long 4 bad_magic 4 bad_version 2 not_request 4'"
conf "$TMPD/after.conf" udp 10ms 1s 10.77.2.2 "[fd77:2::2]:$PORT"
ip netns exec "$NS_C" timeout 20 "$GATEWAYD" -c "$TMPD/after.conf" --probe 20 >"$TMPD/after.out" 2>&1
check "after the junk the reflector still answers (v4 20/20, v6 20/20)" \
	test "$(summary "$TMPD/after.out" 10.77.2.2 received)/$(summary "$TMPD/after.out" "\[fd77:2::2\]:$PORT" received)" = 20/20

# 5. a flood of junk and of valid probes from 4,000 source ports: the reflector's RSS stays flat
cat >"$TMPD/flood.py" <<'EOF'
import os, socket, sys, time
dst, port, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
socks = []
for i in range(4000):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setblocking(False)
    socks.append(s)
hdr = b'GWPR\x01\x01' + bytes(34)
pkts = [os.urandom(n) for n in (0, 7, 39, 64, 900, 1472, 3000)] + [hdr + bytes(24), hdr + bytes(1432)]
end, n = time.time() + secs, 0
while time.time() < end:
    for s in socks[n % 4000:n % 4000 + 50]:
        try:
            s.sendto(pkts[n % len(pkts)], (dst, port))
        except OSError:
            pass
        n += 1
print(n)
EOF
rss() { awk '/VmRSS/ { print $2 }' "/proc/$RPID/status"; }
r0=$(rss)
sent=$(ip netns exec "$NS_C" timeout 20 python3 "$TMPD/flood.py" 10.77.2.2 "$PORT" 2)
r1=$(rss)
refl_stats
echo "# flood: $sent datagrams in 2 s; reflector RSS $r0 kB before, $r1 kB after"
echo "# $(grep '^reflect: answered' "$RLOG" | tail -1)"
check "reflector RSS flat under the flood (+$((r1 - r0)) kB, < 512)" test $((r1 - r0)) -lt 512
check "reflector alive after the flood" kill -0 "$RPID"
ip netns exec "$NS_C" timeout 20 "$GATEWAYD" -c "$TMPD/after.conf" --probe 10 >"$TMPD/after2.out" 2>&1
check "reflector answers after the flood" test "$(summary "$TMPD/after2.out" 10.77.2.2 received)" = 10
