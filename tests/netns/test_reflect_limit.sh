#!/usr/bin/env bash
# The reflector's rate per source on the host kernel: a flood of valid probes from one address
# (10,000 a second, for a bounded 2 s: what even the sanitizer build reads without its socket
# overflowing, so what is not answered is the limit's doing) is answered at no more than
# --reflect-rate, while the prober's 20 Hz stream from a second address, at the same time, is
# answered in full; the drops are counted and their log lines bounded. Without the option the
# reflector says its default (200 a second). An IPv6 source is its /64: a flood from 64
# addresses of one /64 is answered as one source's, while a prober in the next /64 is answered
# in full. And all answers have a cap of their own (--reflect-total): three sources, each over
# its rate, are answered at the total, not at three times the rate.
. "$(dirname "$0")/lib.sh"

PORT=2112
RATE=100
ns_new NS_R rlim-r && ns_new NS_C rlim-c || { not_ok "namespaces"; exit 1; }
ip link add rlr0 netns "$NS_R" type veth peer name rlc0 netns "$NS_C" || { not_ok "veth"; exit 1; }
ip -n "$NS_R" addr add 10.82.0.1/24 dev rlr0
ip -n "$NS_C" addr add 10.82.0.2/24 dev rlc0	# the flood's source
ip -n "$NS_C" addr add 10.82.0.3/24 dev rlc0	# the prober's
ip -n "$NS_R" link set rlr0 up
ip -n "$NS_C" link set rlc0 up
ip netns exec "$NS_C" ping -c 2 -i 0.2 -W 1 10.82.0.1 >/dev/null 2>&1	# ARP settles

RLOG=$TMPD/reflect.log
ip netns exec "$NS_R" "$GATEWAYD" --reflect "10.82.0.1:$PORT" --reflect-rate $RATE 2>"$RLOG" &
RPID=$!
PIDS+=("$RPID")
wait_for "grep -q answering '$RLOG'" 5 "the reflector to log that it answers"
check "the reflector says its rate per source" grep -q "at most $RATE a second from one address" "$RLOG"
check "bound, the reflector runs as nobody with no capabilities and no_new_privs ($(privs "$RPID"))" \
	test "$(privs "$RPID")" = "$DROPPED"

# the flood: valid requests (docs/probe-protocol.md) from SRC (addresses separated by commas,
# taken in turn) at PPS a second for 2 s, replies drained as they come; prints "SENT REPLIES"
cat >"$TMPD/flood.py" <<'PY'
import socket, struct, sys, time
srcs, dst, port, secs = sys.argv[1].split(","), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
pps = int(sys.argv[5])
fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
socks = []
for src in srcs:
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    s.bind((src, 0))
    s.setblocking(False)
    socks.append(s)
cookie = 0x5eed
sent = got = 0
t0 = time.monotonic()
end = t0 + secs
def drain():
    global got
    for s in socks:
        while True:
            try:
                b = s.recv(2048)
            except BlockingIOError:
                break
            if b[:4] == b"GWPR" and b[5] == 2:
                got += 1
while time.monotonic() < end:
    # paced: no more than pps a second so far (a burst of 64 at most)
    if sent >= (time.monotonic() - t0) * pps:
        drain()
        time.sleep(0.001)
        continue
    for _ in range(64):
        pkt = b"GWPR" + struct.pack("!BBHIIQQQ", 1, 1, 0, sent, cookie, time.time_ns(), 0, 0)
        try:
            socks[sent % len(socks)].sendto(pkt, (dst, port))
            sent += 1
        except BlockingIOError:
            break
    drain()
stop = time.monotonic() + 0.5   # a duration: the last replies in flight
while time.monotonic() < stop:
    drain()
    time.sleep(0.01)
print(sent, got)
PY

cat >"$TMPD/probe.conf" <<EOF
links = ( { name = "up"; interface = "rlc0";
            egress = { shaper = "tbf"; rate = "1gbit"; child = { kind = "fifo"; }; }; } );
probe = { method = "udp"; targets = [ "10.82.0.1:$PORT" ]; interval = "50ms"; timeout = "1s";
          source = "10.82.0.3"; };
EOF

PPS=10000
coproc FLOOD { ip netns exec "$NS_C" timeout 20 python3 "$TMPD/flood.py" 10.82.0.2 10.82.0.1 $PORT 2 $PPS; }
PIDS+=("$FLOOD_PID")
# 40 probes at 20 Hz from the other address while the flood runs
ip netns exec "$NS_C" timeout 20 "$GATEWAYD" -c "$TMPD/probe.conf" --probe 36 >"$TMPD/probe.out" 2>&1
read -r -t 15 sent replies <&"${FLOOD[0]}"
secs=2
max=$((RATE * secs + RATE + RATE / 10))	# the rate over 2 s, the 1 s burst, and a tenth
echo "# flood: $sent probes sent in $secs s ($((${sent:-0} / secs)) a second), $replies answered (at most $max)"
check "the flood sent thousands a second ($sent in $secs s, at most $PPS a second)" \
	test "${sent:-0}" -ge $((PPS * secs / 2))
check "the flood answered at no more than the rate ($replies <= $max)" test "${replies:-99999}" -le $max
check "the flood answered at the rate, not refused outright ($replies >= $((RATE * secs * 8 / 10)))" \
	test "${replies:-0}" -ge $((RATE * secs * 8 / 10))
grep "^# 10.82.0.1" "$TMPD/probe.out" | sed 's/^/# prober: /'
rcv=$(grep "^# 10.82.0.1" "$TMPD/probe.out" | sed -E 's/.* received ([0-9]+).*/\1/')
check "the prober's 20 Hz from another address beside it: 36 of 36 answered (${rcv:-none})" \
	test "${rcv:-0}" = 36

n=$(grep -c "^reflect: answered" "$RLOG")
kill -USR1 "$RPID"
wait_for '[ "$(grep -c "^reflect: answered" "$RLOG")" -gt '"$n"' ]' 5 "the reflector's counters"
line=$(grep "^reflect: answered" "$RLOG" | tail -1)
echo "# $line"
limited=$(echo "$line" | sed -E 's/.*rate_limited ([0-9]+).*/\1/')
answered=$(echo "$line" | sed -E 's/^reflect: answered ([0-9]+).*/\1/')
# (what the socket's queue dropped before the reflector read it is the kernel's, not counted)
check "counted: rate_limited $limited, the flood less what it was answered; with answered $answered no more than came ($sent + 36)" \
	test "$((limited + answered))" -le "$((sent + 36))" -a "$limited" -ge "$((sent - max - sent / 20))"
lines=$(grep -c "^reflect: probes from" "$RLOG")
check "$limited drops logged in at most one line over these seconds ($lines)" test "$lines" -eq 1
check "the drop's line names the source and the rate" \
	grep -q "^reflect: probes from 10.82.0.2 over $RATE a second: not answered" "$RLOG"
kill -TERM "$RPID"
wait_for "! kill -0 $RPID 2>/dev/null" 5 "the reflector to stop"

# the default
ip netns exec "$NS_R" "$GATEWAYD" --reflect "10.82.0.1:$PORT" 2>"$TMPD/default.log" &
DPID=$!
PIDS+=($DPID)
wait_for "grep -q answering '$TMPD/default.log'" 5 "the reflector to start"
check "without --reflect-rate: 200 a second from one address, 10,000 in all" \
	grep -q "at most 200 a second from one address, an IPv6 /64; 10000 a second in all" "$TMPD/default.log"
ip netns exec "$NS_R" timeout 5 "$GATEWAYD" --reflect "10.82.0.1:$PORT" --reflect-rate 0 >"$TMPD/e" 2>&1
check "--reflect-rate 0: exit 2" test $? -eq 2
kill -TERM "$DPID"
wait_for "! kill -0 $DPID 2>/dev/null" 5 "the reflector on its defaults to stop"

# -- IPv6: a source is its /64. 64 addresses of fd82:0:0:1::/64 flood together; the prober is
# in fd82:0:0:2::/64 (on the same link: the reflector's route to it is the link)
ip -n "$NS_R" addr add fd82:0:0:1::1/64 dev rlr0 nodad
ip -n "$NS_R" route add fd82:0:0:2::/64 dev rlr0
ip -n "$NS_C" addr add fd82:0:0:2::3/64 dev rlc0 nodad
srcs=
for i in $(seq 1 64); do
	a=fd82:0:0:1::$(printf %x $((0x100 + i)))
	ip -n "$NS_C" addr add "$a/64" dev rlc0 nodad
	srcs=${srcs:+$srcs,}$a
done
ip netns exec "$NS_C" ping -c 2 -i 0.2 -W 1 fd82:0:0:1::1 >/dev/null 2>&1	# neighbours settle
RLOG6=$TMPD/reflect6.log
ip netns exec "$NS_R" "$GATEWAYD" --reflect "[fd82:0:0:1::1]:$PORT" --reflect-rate $RATE 2>"$RLOG6" &
RPID=$!
PIDS+=("$RPID")
wait_for "grep -q answering '$RLOG6'" 5 "the IPv6 reflector to log that it answers"
cat >"$TMPD/probe6.conf" <<EOF
links = ( { name = "up"; interface = "rlc0";
            egress = { shaper = "tbf"; rate = "1gbit"; child = { kind = "fifo"; }; }; } );
probe = { method = "udp"; targets = [ "[fd82:0:0:1::1]:$PORT" ]; interval = "50ms"; timeout = "1s";
          source = "fd82:0:0:2::3"; };
EOF
ip netns exec "$NS_C" timeout 20 python3 "$TMPD/flood.py" "$srcs" fd82:0:0:1::1 $PORT 2 $PPS \
	>"$TMPD/flood6.out" &
FLOOD6=$!
PIDS+=("$FLOOD6")
ip netns exec "$NS_C" timeout 20 "$GATEWAYD" -c "$TMPD/probe6.conf" --probe 36 >"$TMPD/probe6.out" 2>&1
wait "$FLOOD6"
read -r sent replies <"$TMPD/flood6.out"
echo "# IPv6 flood from 64 addresses of one /64: $sent sent in $secs s, $replies answered (one address's at most: $max)"
check "the flood from 64 addresses of one /64 was sent ($sent)" test "${sent:-0}" -ge $((PPS * secs / 2))
check "64 addresses of one /64 are answered as one source: $replies <= $max" \
	test "${replies:-99999}" -le $max -a "${replies:-0}" -ge $((RATE * secs * 8 / 10))
grep "^# \[\?fd82" "$TMPD/probe6.out" | sed 's/^/# prober: /'
rcv=$(grep "^# \[\?fd82" "$TMPD/probe6.out" | sed -E 's/.* received ([0-9]+).*/\1/')
check "the prober's 20 Hz from the next /64 beside it: 36 of 36 answered (${rcv:-none})" \
	test "${rcv:-0}" = 36
check "the drop's line names the /64" \
	grep -q "^reflect: probes from fd82:0:0:1::/64 over $RATE a second: not answered" "$RLOG6"
kill -TERM "$RPID"
wait_for "! kill -0 $RPID 2>/dev/null" 5 "the IPv6 reflector to stop"

# -- the cap on all answers: 3 sources at 1,000 a second each, each over its rate of 100; 150
# a second in all (and its one-second burst) answered
TOTAL=150
ip -n "$NS_C" addr add 10.82.0.4/24 dev rlc0
ip -n "$NS_C" addr add 10.82.0.5/24 dev rlc0
RLOGT=$TMPD/reflect-total.log
ip netns exec "$NS_R" "$GATEWAYD" --reflect "10.82.0.1:$PORT" --reflect-rate $RATE \
	--reflect-total $TOTAL 2>"$RLOGT" &
RPID=$!
PIDS+=("$RPID")
wait_for "grep -q answering '$RLOGT'" 5 "the reflector with a total to log that it answers"
check "it says its total" grep -q "$TOTAL a second in all" "$RLOGT"
ip netns exec "$NS_C" timeout 20 python3 "$TMPD/flood.py" 10.82.0.2,10.82.0.4,10.82.0.5 10.82.0.1 \
	$PORT 2 3000 >"$TMPD/flood3.out"
read -r sent replies <"$TMPD/flood3.out"
tmax=$((TOTAL * secs + TOTAL + TOTAL / 5))
echo "# 3 sources at 1000 a second each: $sent sent, $replies answered (the total's at most: $tmax; each source's rate alone would allow $((3 * max)))"
check "three sources over their rates are answered at the total, not 3 x the rate: $replies <= $tmax" \
	test "${replies:-99999}" -le $tmax -a "${replies:-0}" -ge $((TOTAL * secs * 8 / 10))
n=$(grep -c "^reflect: answered" "$RLOGT")
kill -USR1 "$RPID"
wait_for '[ "$(grep -c "^reflect: answered" "$RLOGT")" -gt '"$n"' ]' 5 "the reflector's counters"
line=$(grep "^reflect: answered" "$RLOGT" | tail -1)
echo "# $line"
tl=$(echo "$line" | sed -E 's/.*total_limited ([0-9]+).*/\1/')
check "the ones over the total counted apart (total_limited $tl)" test "${tl:-0}" -gt 0
check "... and logged in one line" \
	test "$(grep -c "^reflect: over $TOTAL answers a second in all" "$RLOGT")" -eq 1
ip netns exec "$NS_R" timeout 5 "$GATEWAYD" --reflect "10.82.0.1:$PORT" --reflect-total 0 >"$TMPD/e" 2>&1
check "--reflect-total 0: exit 2" test $? -eq 2
