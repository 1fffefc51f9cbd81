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

# reflector in the server namespace, both families on one socket
RLOG=$TMPD/reflect.log
ip netns exec "$NS_S" "$GATEWAYD" --reflect "[::]:$PORT" 2>"$RLOG" &
RPID=$!
PIDS+=("$RPID")
for _ in $(seq 50); do grep -q "answering" "$RLOG" && break; sleep 0.05; done
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

# 2. RTT against ping's on the same path, same moment: medians of 200 each, interleaved runs
for t in 10.77.2.2 fd77:2::2; do
	conf "$TMPD/cmp.conf" icmp 20ms 1s "$t"
	ip netns exec "$NS_C" timeout 20 "$GATEWAYD" -c "$TMPD/cmp.conf" --probe 200 >"$TMPD/cmp.out" 2>&1 &
	pm=$(ping_median "$t" 200)
	wait $!
	gm=$(summary "$TMPD/cmp.out" "$t" p50)
	echo "# $t: median RTT gatewayd $gm ms, ping $pm ms"
	# loopback-scale figures (tens of microseconds) on a shared, noisy machine: agree within
	# 0.15 ms or 50% of ping's (ping stamps its send in user space, so it reads a little higher)
	check "$t: median RTT agrees with ping's ($gm vs $pm ms)" awk -v g="$gm" -v p="$pm" \
		'BEGIN { d = g - p; if (d < 0) d = -d; exit !(g > 0 && (d < 0.15 || d < p / 2)) }'
done

# 3. a target that is silent, answers, then goes quiet again: down, up, down; none of its
# losses is the link's; the healthy target beside it is unaffected
conf "$TMPD/health.conf" icmp 20ms 200ms 10.77.2.2 10.77.2.3
ip netns exec "$NS_C" timeout 30 "$GATEWAYD" -c "$TMPD/health.conf" --probe 300 >"$TMPD/health.out" 2>&1 &
HP=$!
sleep 1
ip -n "$NS_S" addr add 10.77.2.3/24 dev s0
sleep 1.5
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
	awk -v r="$(summary "$TMPD/health.out" 10.77.2.3 received)" 'BEGIN { exit !(r >= 40) }'
check "silent target: summary says down" grep -q "^# 10.77.2.3: .*; down$" "$TMPD/health.out"
check "healthy target beside it: 300 of 300, up throughout" \
	test "$(summary "$TMPD/health.out" 10.77.2.2 received)" = 300 -a \
	"$(grep -c '^10.77.2.2 seq=.* up=1' "$TMPD/health.out")" = 300

# 4. junk at the reflector: refused, counted, never answered; it answers probes after
cat >"$TMPD/junk.py" <<'EOF'
import socket, struct, sys
fam = socket.AF_INET6 if ':' in sys.argv[1] else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
s.connect((sys.argv[1], int(sys.argv[2])))
s.settimeout(0.3)
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
kill -USR1 "$RPID"; sleep 0.2
before=$(grep -c "^reflect: answered" "$RLOG")
for a in 10.77.2.2 fd77:2::2; do
	n=$(ip netns exec "$NS_C" timeout 10 python3 "$TMPD/junk.py" "$a" "$PORT")
	check "reflector answers none of 10 malformed packets over $a" test "$n" = 0
done
kill -USR1 "$RPID"
for _ in $(seq 20); do [ "$(grep -c '^reflect: answered' "$RLOG")" -gt "$before" ] && break; sleep 0.05; done
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
sent=$(ip netns exec "$NS_C" timeout 20 python3 "$TMPD/flood.py" 10.77.2.2 "$PORT" 3)
r1=$(rss)
kill -USR1 "$RPID"; sleep 0.2
echo "# flood: $sent datagrams in 3 s; reflector RSS $r0 kB before, $r1 kB after"
echo "# $(grep '^reflect: answered' "$RLOG" | tail -1)"
check "reflector RSS flat under the flood (+$((r1 - r0)) kB, < 512)" test $((r1 - r0)) -lt 512
check "reflector alive after the flood" kill -0 "$RPID"
ip netns exec "$NS_C" timeout 20 "$GATEWAYD" -c "$TMPD/after.conf" --probe 10 >"$TMPD/after2.out" 2>&1
check "reflector answers after the flood" test "$(summary "$TMPD/after2.out" 10.77.2.2 received)" = 10
