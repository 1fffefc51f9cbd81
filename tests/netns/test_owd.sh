#!/usr/bin/env bash
# One-way delays on the host kernel: UDP probes to `gatewayd --reflect` and ICMP timestamp
# requests (method "icmp-timestamp", answered by the peer's kernel) across a namespace pair.
# Idle, both give finite one-way delays near the path's (one clock here: small, not negative
# beyond the timestamp's millisecond); then a deep queue loaded in one direction only raises
# that direction's delay while the other's stays near idle, each direction in turn. Also:
# /api/status and /metrics carry the last ones per target; icmp-timestamp without CAP_NET_RAW
# says what it needs.
. "$(dirname "$0")/lib.sh"

PORT=2112
ns_new NS_A owd-a && ns_new NS_B owd-b || { not_ok "namespaces"; exit 1; }
ip link add owda0 netns "$NS_A" type veth peer name owdb0 netns "$NS_B" || { not_ok "veth"; exit 1; }
ip -n "$NS_A" addr add 10.78.0.1/24 dev owda0
ip -n "$NS_B" addr add 10.78.0.2/24 dev owdb0
ip -n "$NS_A" link set owda0 up
ip -n "$NS_B" link set owdb0 up
ip netns exec "$NS_A" ping -c 2 -i 0.2 -W 1 10.78.0.2 >/dev/null 2>&1	# ARP settles

RLOG=$TMPD/reflect.log
ip netns exec "$NS_B" "$GATEWAYD" --reflect "10.78.0.2:$PORT" 2>"$RLOG" &
PIDS+=($!)
wait_for "grep -q answering '$RLOG'" 5 "the reflector to log that it answers"

# conf FILE METHOD INTERVAL [LISTEN]: probe the peer from A, through owda0
conf() {
	cat >"$1" <<-EOF
	listen = "${4:-127.0.0.1:9180}";
	links = ( { name = "up"; interface = "owda0";
	            egress = { shaper = "tbf"; rate = "1gbit"; child = { kind = "fifo"; }; }; } );
	probe = { method = "$2"; targets = [ "10.78.0.2" ]; interval = "$3"; timeout = "2s"; };
	EOF
}
conf "$TMPD/udp.conf" udp 20ms
conf "$TMPD/ts.conf" icmp-timestamp 20ms

# field FILE NAME: a number from the target's summary line ("... NAME VALUE ...")
field() { grep "^# 10.78.0.2: " "$1" | sed -E "s/.* $2 ([0-9.na-]+).*/\1/"; }
# owd_lines FILE: sample lines with both one-way delays finite
owd_lines() { grep -cE '^10\.78\.0\.2 seq=.* owd_up_ms=-?[0-9.]+ owd_down_ms=-?[0-9.]+$' "$1"; }
# between LO X HI: LO <= X <= HI
between() { awk -v lo="$1" -v x="$2" -v hi="$3" 'BEGIN { exit !(x != "" && x >= lo && x <= hi) }'; }
export -f between

# 1. idle: every reply gives both one-way delays, near the veth's (tens of µs). UDP's stamps
# are nanoseconds of one clock: not negative. ICMP's are whole milliseconds, counted from the
# middle of theirs: within half a millisecond of the truth, so no lower than -0.5 ms.
for m in udp ts; do
	ip netns exec "$NS_A" timeout 20 "$GATEWAYD" -c "$TMPD/$m.conf" --probe 100 >"$TMPD/$m.out" 2>&1
	check "$m idle: --probe exits 0" test $? -eq 0
	r=$(field "$TMPD/$m.out" received)
	n=$(owd_lines "$TMPD/$m.out")
	echo "# $m idle: received $r, with one-way delays $n; up min $(field "$TMPD/$m.out" up_min) p50 $(field "$TMPD/$m.out" up_p50) p99 $(field "$TMPD/$m.out" up_p99), down min $(field "$TMPD/$m.out" down_min) p50 $(field "$TMPD/$m.out" down_p50) p99 $(field "$TMPD/$m.out" down_p99) ms"
	check "$m idle: 100 of 100 answered, each with both one-way delays ($r, $n)" \
		test "$r/$n" = 100/100
	lo=0
	[ $m = ts ] && lo=-0.5
	for d in up down; do
		check "$m idle: $d delay from $lo ms, p50 under 2 ms (min $(field "$TMPD/$m.out" ${d}_min), p50 $(field "$TMPD/$m.out" ${d}_p50))" \
			bash -c "between $lo $(field "$TMPD/$m.out" ${d}_min) 2 && between $lo $(field "$TMPD/$m.out" ${d}_p50) 2"
	done
done
check "icmp-timestamp: said so in the header" grep -q "^# probing 1 target by icmp-timestamp .* 20 bytes" "$TMPD/ts.out"
check "icmp-timestamp: kernel stamps on both ends ($(field "$TMPD/ts.out" tx)/$(field "$TMPD/ts.out" rx))" \
	test "$(field "$TMPD/ts.out" tx)/$(field "$TMPD/ts.out" rx)" = 100/100
# an icmp run's lines carry none (and its output is as it always was)
cat >"$TMPD/icmp.conf" <<-EOF
links = ( { name = "up"; interface = "owda0"; egress = { shaper = "tbf"; rate = "1gbit"; }; } );
probe = { method = "icmp"; targets = [ "10.78.0.2" ]; interval = "20ms"; };
EOF
ip netns exec "$NS_A" timeout 20 "$GATEWAYD" -c "$TMPD/icmp.conf" --probe 10 >"$TMPD/icmp.out" 2>&1
check "icmp echo: no one-way delays printed ($(grep -c "^10.78.0.2 seq=" "$TMPD/icmp.out") lines)" \
	bash -c "[ \$(grep -c '^10.78.0.2 seq=' '$TMPD/icmp.out') = 10 ] && ! grep -q owd_ '$TMPD/icmp.out'"

# 2. without CAP_NET_RAW: icmp-timestamp cannot use a ping socket, and says what it needs
ip netns exec "$NS_A" setpriv --inh-caps=-net_raw --bounding-set=-net_raw \
	"$GATEWAYD" -c "$TMPD/ts.conf" --probe 3 >"$TMPD/nocap.out" 2>&1
rc=$?
check "icmp-timestamp without CAP_NET_RAW: exit 1, says it needs CAP_NET_RAW (rc $rc)" \
	bash -c "[ $rc -eq 1 ] && grep -q 'icmp-timestamp probes need CAP_NET_RAW' '$TMPD/nocap.out'"
printf 'links = ( { name = "up"; interface = "owda0"; egress = { shaper = "tbf"; rate = "1gbit"; }; } );\nprobe = { method = "icmp-timestamp";\n  targets = [ "fd78::2" ]; };\n' >"$TMPD/v6.conf"
"$GATEWAYD" -c "$TMPD/v6.conf" --check >/dev/null 2>"$TMPD/v6.err"
rc=$?
check "icmp-timestamp to an IPv6 target: exit 2, FILE:3: IPv4 only ($(head -c 160 "$TMPD/v6.err"))" \
	bash -c "[ $rc -eq 2 ] && grep -q 'v6.conf:3: probe: target \"fd78::2\": icmp-timestamp takes IPv4 targets only' '$TMPD/v6.err'"

# 3. the daemon: /api/status has each target's last one-way delays and the method
for m in udp ts; do
	gw_start "$NS_A" "$TMPD/$m.conf" || { not_ok "$m: daemon starts" "$(tail -5 "$GW_LOG")"; continue; }
	api() { ip netns exec "$NS_A" curl -s --max-time 3 http://127.0.0.1:9180/api/status; }
	wait_for 'J=$(api); [ "$(echo "$J" | jq ".probe.targets[0].received")" -ge 10 ] 2>/dev/null' 10 \
		"10 replies on /api/status ($m)"
	J=$(api)
	t=$(echo "$J" | jq -c '.probe.targets[0] | {last_rtt_ms, last_owd_up_ms, last_owd_down_ms}')
	want=$([ $m = ts ] && echo icmp-timestamp || echo udp)
	echo "# $m /api/status: method $(echo "$J" | jq -r .probe.method), $t"
	check "$m: /api/status says method \"$want\"" test "$(echo "$J" | jq -r .probe.method)" = "$want"
	check "$m: /api/status has the target's last one-way delays ($t)" bash -c \
		"echo '$t' | jq -e '(.last_owd_up_ms | type) == \"number\" and (.last_owd_down_ms | type) == \"number\" and .last_owd_up_ms < 5 and .last_owd_down_ms < 5' >/dev/null"
	ip netns exec "$NS_A" curl -s --max-time 3 http://127.0.0.1:9180/metrics >"$TMPD/$m.metrics"
	check "$m: /metrics has gatewayd_probe_target_last_owd_{up,down}_seconds" bash -c \
		"grep -qE '^gatewayd_probe_target_last_owd_up_seconds\{target=\"10.78.0.2\"\} -?[0-9.e-]+$' '$TMPD/$m.metrics' &&
		 grep -qE '^gatewayd_probe_target_last_owd_down_seconds\{target=\"10.78.0.2\"\} -?[0-9.e-]+$' '$TMPD/$m.metrics'"
	# the page shows them beside the target's RTT (the DOM after its scripts ran)
	if [ $m = udp ] && [ -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
		ip netns exec "$NS_A" timeout 60 "${CHROMIUM:-/usr/bin/chromium}" --headless --no-sandbox \
			--disable-gpu --virtual-time-budget=5000 --dump-dom http://127.0.0.1:9180/ \
			>"$TMPD/page.html" 2>/dev/null
		check "udp: the page shows the target's one-way delays ($(grep -o '<span class="name">10.78.0.2</span>[^<]*' "$TMPD/page.html" | sed 's/<[^>]*>//g'))" \
			grep -qE '<span class="name">10.78.0.2</span> [^<]* \(↑ [^<]* ↓ [^<]*\)' "$TMPD/page.html"
	elif [ $m = udp ]; then
		skip "udp: the page shows the one-way delays" "no chromium (make deps installs it)"
	fi
	gw_stop
done

# 4. one direction loaded behind a deep queue: htb 4 mbit with a 250 kB bfifo (500 ms when
# full) on one end's egress, a UDP flood into it for a few seconds (12 Mbit/s of 1200-byte
# datagrams, paced by the clock so a slow wake-up does not thin it; a send buffer big enough
# to keep the fifo full). The probes in that direction wait behind it; the other direction's
# do not. Both methods at once, 40 probes each.
cat >"$TMPD/flood.py" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 32, 1 << 20)    # SO_SNDBUFFORCE (root): past wmem_max
pkt, rate = bytes(1200), 12e6 / 8 / 1200        # datagrams per second
start = time.time()
end, sent = start + float(sys.argv[2]), 0
while time.time() < end:
    due = min(int((time.time() - start) * rate), sent + 50)
    while sent < due:
        try:
            s.sendto(pkt, (sys.argv[1], 9))
        except OSError:
            pass
        sent += 1
    time.sleep(0.005)
EOF
# backlog NS DEV: bytes queued in DEV's bfifo
backlog() { ip netns exec "$1" tc -s qdisc show dev "$2" | sed -nE 's/.*backlog ([0-9]+)b .*/\1/p' | sort -n | tail -n 1; }
conf "$TMPD/udp50.conf" udp 50ms
conf "$TMPD/ts50.conf" icmp-timestamp 50ms
# loaded NS DEV DST NAME: the queue on NS's DEV, the flood from NS to DST, probes from A
loaded() {
	local ns=$1 dev=$2 dst=$3 name=$4 fp b
	ip netns exec "$ns" tc qdisc add dev "$dev" root handle 1: htb default 1
	ip netns exec "$ns" tc class add dev "$dev" parent 1: classid 1:1 htb rate 4mbit
	ip netns exec "$ns" tc qdisc add dev "$dev" parent 1:1 bfifo limit 250000
	ip netns exec "$ns" timeout 30 python3 "$TMPD/flood.py" "$dst" 20 &
	fp=$!
	wait_for 'b=$(backlog '"$ns $dev"'); [ "${b:-0}" -ge 150000 ]' 10 "150 kB queued on $dev"
	echo "# $name: $(backlog "$ns" "$dev") bytes queued on $dev"
	ip netns exec "$NS_A" timeout 20 "$GATEWAYD" -c "$TMPD/udp50.conf" --probe 40 >"$TMPD/$name-udp.out" 2>&1 &
	local p1=$!
	ip netns exec "$NS_A" timeout 20 "$GATEWAYD" -c "$TMPD/ts50.conf" --probe 40 >"$TMPD/$name-ts.out" 2>&1
	wait $p1
	kill "$fp" 2>/dev/null
	wait "$fp" 2>/dev/null
	ip netns exec "$ns" tc qdisc del dev "$dev" root
}
loaded "$NS_A" owda0 10.78.0.2 uplinkload
loaded "$NS_B" owdb0 10.78.0.1 downlinkload
for m in udp ts; do
	u=$TMPD/uplinkload-$m.out
	d=$TMPD/downlinkload-$m.out
	echo "# $m, queue on A's egress: up p50 $(field "$u" up_p50) ms, down p50 $(field "$u" down_p50) ms, rtt p50 $(field "$u" p50) ms ($(field "$u" received) of 40)"
	echo "# $m, queue on B's egress: up p50 $(field "$d" up_p50) ms, down p50 $(field "$d" down_p50) ms, rtt p50 $(field "$d" p50) ms ($(field "$d" received) of 40)"
	check "$m: the loaded direction's delay rises (up p50 $(field "$u" up_p50) ms > 20), the other stays near idle (down p50 $(field "$u" down_p50) ms < 3)" \
		bash -c "between 20 $(field "$u" up_p50) 10000 && between -1 $(field "$u" down_p50) 3"
	check "$m: the other way round (down p50 $(field "$d" down_p50) ms > 20, up p50 $(field "$d" up_p50) ms < 3)" \
		bash -c "between 20 $(field "$d" down_p50) 10000 && between -1 $(field "$d" up_p50) 3"
done
