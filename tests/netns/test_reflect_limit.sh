#!/usr/bin/env bash
# The reflector's rate per source on the host kernel: a flood of valid probes from one address
# (10,000 a second, for a bounded 2 s: what even the sanitizer build reads without its socket
# overflowing, so what is not answered is the limit's doing) is answered at no more than
# --reflect-rate, while the prober's 20 Hz stream from a second address, at the same time, is
# answered in full; the drops are counted and their log lines bounded. Without the option the
# reflector says its default (200 a second).
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

# the flood: valid requests (docs/probe-protocol.md) from 10.82.0.2 at PPS a second for 2 s,
# replies drained as they come; prints "SENT REPLIES"
cat >"$TMPD/flood.py" <<'PY'
import socket, struct, sys, time
src, dst, port, secs = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
pps = int(sys.argv[5])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
s.bind((src, 0))
s.setblocking(False)
cookie = 0x5eed
sent = got = 0
t0 = time.monotonic()
end = t0 + secs
def drain():
    global got
    while True:
        try:
            b = s.recv(2048)
        except BlockingIOError:
            return
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
            s.sendto(pkt, (dst, port))
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
PIDS+=($!)
wait_for "grep -q answering '$TMPD/default.log'" 5 "the reflector to start"
check "without --reflect-rate: 200 a second from one address" \
	grep -q "at most 200 a second from one address" "$TMPD/default.log"
ip netns exec "$NS_R" timeout 5 "$GATEWAYD" --reflect "10.82.0.1:$PORT" --reflect-rate 0 >"$TMPD/e" 2>&1
check "--reflect-rate 0: exit 2" test $? -eq 2
