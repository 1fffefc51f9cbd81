#!/usr/bin/env bash
# The active load test on the host kernel: a router shaping its WAN (r1) with htb 20mbit both
# ways (ingress through the ifb), a sink in the server namespace. `--load-test` from the router:
# download and upload goodput within 85-100% of the rate (the TCP goodput ceiling is 95.6% of
# the wire rate), probes judged loaded in every phase, the table printed; it refuses without a
# sink. The sink refuses malformed headers, holds at most its bound of connections with its
# memory flat, and keeps serving a normal client (a client written here from
# docs/load-protocol.md, over IPv6). The daemon's SIGUSR1 test shows in /api/status. The same
# goodput check against `iperf3 -s` as the sink; its client, from `--load-test` and from the
# daemon (through its web launcher), runs as nobody with no capability (ambient included) and
# two environment variables, by its absolute path. Every load is bounded by its duration and
# by timeout.
. "$(dirname "$0")/lib.sh"

PORT=7070
RATE_MBIT=20
topo_chain || { not_ok "topology"; exit 1; }
ip netns exec "$NS_R" ping -c 2 -i 0.2 -W 1 10.77.2.2 >/dev/null 2>&1 # ARP settles

# the sink serves the router by its token (docs/load-protocol.md, version 2 headers)
TOKEN_FILE=$TMPD/sink.token
head -c 24 /dev/urandom | base64 >"$TOKEN_FILE"
# a secret file: not for others; the daemon reads it at each test as user gatewayd
chgrp gatewayd "$TOKEN_FILE" 2>/dev/null
chmod 640 "$TOKEN_FILE"
TOKEN=$(cat "$TOKEN_FILE")

# conf FILE SINK DURATION: the router's WAN shaped both ways, probes to the server; a gatewayd
# sink is given the token file
conf() {
	local tok=""
	case $2 in "" | iperf3:*) ;; *) tok="sink_token_file = \"$TOKEN_FILE\";" ;; esac
	cat >"$1" <<-EOF
	links = ( { name = "wan"; interface = "r1";
	  egress = { shaper = "htb"; rate = "${RATE_MBIT}mbit"; child = { kind = "fifo"; limit = 1000; }; };
	  ingress = { shaper = "htb"; rate = "${RATE_MBIT}mbit"; child = { kind = "fifo"; limit = 1000; }; }; } );
	probe = { targets = [ "10.77.2.2" ]; interval = "100ms"; ${2:+sink = \"$2\";} $tok
	  load_duration = "$3"; load_flows = 4; };
	EOF
}

# row FILE DIRECTION COLUMN: a field of the table's row for DIRECTION ($2 = Mbit/s number)
row() { awk -v d="$2" -v c="$3" '$1 == d { print $c; exit }' "$1"; }

# goodput_checks NAME FILE: download and upload within 85-100%, loaded probes in each phase
goodput_checks() {
	local name=$1 out=$2 d bps ratio n
	for d in download upload; do
		bps=$(row "$out" "$d" 2)
		ratio=$(awk -v b="${bps:-0}" -v m="$RATE_MBIT" 'BEGIN { printf "%.3f", b / m }')
		echo "# $name $d: goodput $bps Mbit/s of $RATE_MBIT = $ratio"
		check "$name $d: goodput $ratio of the rate, within 0.85-1.00" \
			awk -v r="$ratio" 'BEGIN { exit !(r >= 0.85 && r <= 1.00) }'
	done
	for d in download upload both; do
		n=$(awk -v d="$d" '$1 == d { print $(NF - 1); exit }' "$out")
		check "$name $d: probes judged loaded (${n:-none})" test "${n:-0}" -ge 5
	done
}

# 1. no sink: refused, exit 2, saying why
conf "$TMPD/nosink.conf" "" 3s
ip netns exec "$NS_R" timeout 10 "$GATEWAYD" -c "$TMPD/nosink.conf" --load-test >"$TMPD/nosink.out" 2>&1
check "--load-test without a sink: exit 2" test $? -eq 2
check "--load-test without a sink: says so" grep -q "no sink configured" "$TMPD/nosink.out"

# 2. the sink, both families. Every connection of the hostile clients below comes from the
# router's one address: its share of the slots is the whole, so they meet the total bound (the
# share per address has its own test, test_sink_access.sh)
SLOG=$TMPD/sink.log
ip netns exec "$NS_S" "$GATEWAYD" --sink "10.77.2.2:$PORT" --sink "[fd77:2::2]:$PORT" \
	--token-file "$TOKEN_FILE" --max-per-address 128 2>"$SLOG" &
SPID=$!
PIDS+=("$SPID")
wait_for '[ "$(grep -c listening "$SLOG")" -ge 2 ]' 5 "the sink to log both listeners"
check "sink listens on IPv4 and IPv6" test "$(grep -c 'sink: listening' "$SLOG")" -eq 2

# 3. the daemon shapes (its own test 1 s a phase, for SIGUSR1 below); --load-test beside it
conf "$TMPD/daemon.conf" "10.77.2.2:$PORT" 1s
conf "$TMPD/lt.conf" "10.77.2.2:$PORT" 2s
gw_start "$NS_R" "$TMPD/daemon.conf" || { not_ok "gatewayd applies" "$(cat "$GW_LOG")"; exit 1; }
wait_for '[ "$(net_privs $GW_PID)" = "$NET_ONLY" ]' 5 "the daemon to give up its other capabilities"
check "started as root, the daemon becomes its user ($GW_USER) keeping CAP_NET_ADMIN and CAP_NET_RAW alone, bounding set too, and no_new_privs ($(net_privs $GW_PID))" \
	test "$(net_privs $GW_PID)" = "$NET_ONLY"
t0=$(date +%s.%N)
ip netns exec "$NS_R" timeout 40 "$GATEWAYD" -c "$TMPD/lt.conf" --load-test >"$TMPD/lt.out" 2>&1 &
LT_PID=$!
# it holds the namespace's load-test lock once it printed its plan
wait_for "grep -q '^load test: sink' '$TMPD/lt.out'" 10 "--load-test to start"
kill -USR1 "$GW_PID"	# the daemon's own test would share the link: refused while this runs
wait "$LT_PID"
rc=$?
check "one test per namespace: the daemon's SIGUSR1 refused while --load-test runs" \
	grep -q "another load test is running" "$GW_LOG"
sed 's/^/# /' "$TMPD/lt.out"
check "--load-test exits 0" test $rc -eq 0
check "--load-test took the time it said ($(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s)" \
	awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { exit !(b - a < 16) }'
check "the table has a row per direction" \
	test "$(grep -cE '^(download|upload|both) ' "$TMPD/lt.out")" -eq 3
goodput_checks sink "$TMPD/lt.out"
# each flow's goodput under its row: as many as flows, adding up to the row's goodput
for d in download upload; do
	sum=$(awk -v d="$d" '$1 == d { row = 1; g = $2; next } row && /per flow/ {
		n = 0; s = 0; for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/) { n++; s += $i }
		printf "%d %.2f %.2f", n, s, g; exit }' "$TMPD/lt.out")
	check "--load-test $d: a goodput per flow under the row, adding up to it (flows, sum, row: $sum)" \
		awk -v x="$sum" 'BEGIN { split(x, v, " "); exit !(v[1] == 4 && v[2] > 0 && (v[2] - v[3]) ^ 2 < 0.03 ^ 2) }'
done
# a 1000-packet fifo at 20 mbit holds 600 ms: the load must show in the latency
lp50=$(row "$TMPD/lt.out" download 8)
ip50=$(row "$TMPD/lt.out" download 6)
check "download: loaded p50 ${lp50} ms well above idle ${ip50} ms (bufferbloat behind the fifo)" \
	awk -v l="${lp50:-0}" -v i="${ip50:-0}" 'BEGIN { exit !(l > i + 20) }'

# 4. meanwhile (no load, so nothing else is disturbed): an iperf3 sink nobody serves
conf "$TMPD/noip.conf" "iperf3:10.77.2.2:5999" 2s
ip netns exec "$NS_R" timeout 30 "$GATEWAYD" -c "$TMPD/noip.conf" --load-test >"$TMPD/noip.out" 2>&1 &
NOIP_PID=$!

# 5. the sink under hostile clients: 200 silent ones, then junk beside a normal client
sink_rss() { awk '/^VmRSS/ { print $2 }' "/proc/$SPID/status"; }
rss0=$(sink_rss)
cat >"$TMPD/clients.py" <<'PY'
import socket, struct, sys, time
host4, host6, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
what, token = sys.argv[4], sys.argv[5].encode()
if what == "silent":
    # 200 connections that never send a header: the sink holds at most its bound
    socks = []
    for _ in range(200):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(2)
        try:
            s.connect((host4, port))
            socks.append(s)
        except OSError:
            pass
    print(len(socks))
    sys.stdout.flush()
    time.sleep(4)           # a duration: held past the sink's header time-out (2 s)
elif what == "normal":
    # junk clients beside a normal download (IPv6), as docs/load-protocol.md says (version
    # 3 is one the sink does not speak)
    junk = [b"GET / HTTP/1.1\r\n\r\n", b"GWLT\x03\x01\x00\x00\x00\x00\x03\xe8",
            b"GWLT\x01\x07\x00\x00\x00\x00\x03\xe8", b"GWLT\x01\x01\x00\x00\xff\xff\xff\xff"]
    refused = 0
    for i in range(100):
        j = socket.create_connection((host4, port), timeout=2)
        j.sendall(junk[i % len(junk)])
        try:
            r = j.recv(8)
            refused += (r == b"" or r[:4] == b"GWLR" and r[5] != 0)
        except ConnectionResetError:
            refused += 1
        j.close()
    c = socket.create_connection((host6, port), timeout=5)
    c.sendall(b"GWLT" + struct.pack("!BBHI", 2, 2, 0, 1000) + token.ljust(64, b"\0"))
    rep = c.recv(8, socket.MSG_WAITALL)
    t0, n = time.monotonic(), 0
    while True:
        b = c.recv(65536)
        if not b:
            break
        n += len(b)
    print(refused, rep[:4].decode(), rep[5], n, "%.2f" % (time.monotonic() - t0))
PY
coproc SILENT { ip netns exec "$NS_R" timeout 20 python3 "$TMPD/clients.py" 10.77.2.2 fd77:2::2 $PORT silent "$TOKEN"; }
PIDS+=("$SILENT_PID")
read -r -t 15 connected <&"${SILENT[0]}"
sink_open() { ip netns exec "$NS_S" ss -Htn state established "( sport = :$PORT )" | wc -l; }
# the sink has accepted what it will hold (at least 100 of them)
wait_for '[ "$(sink_open)" -ge 100 ]' 2 "the sink to accept the silent clients"
open=$(sink_open)
echo "# 200 silent clients: $connected connected, $open open at the sink"
check "200 silent clients: at most 128 open at the sink ($open)" test "$open" -le 128 -a "$open" -ge 100
# the header time-out (2 s from their connect, a moment ago) closes what the sink held; the
# clients hold theirs 4 s, so waiting at most 2.5 s sees the sink's doing alone
wait_for '[ "$(sink_open)" -eq 0 ]' 2.5 "the sink to close the silent clients"
open=$(sink_open)
check "silent clients closed by the sink after its header time-out ($open open)" test "$open" -eq 0
# (the clients end by themselves a second later)
read -r refused magic status bytes secs < <(ip netns exec "$NS_R" timeout 20 python3 \
	"$TMPD/clients.py" 10.77.2.2 fd77:2::2 $PORT normal "$TOKEN" 2>&1)
echo "# junk: $refused of 100 refused; normal client: reply $magic status $status, $bytes bytes in $secs s"
check "100 junk clients all refused ($refused)" test "${refused:-0}" -eq 100
check "a normal client is served over IPv6 (reply ok, data)" \
	test "$magic" = GWLR -a "${status:-1}" = 0 -a "${bytes:-0}" -gt 100000
check "its 1 s download ends on time ($secs s)" awk -v s="${secs:-9}" 'BEGIN { exit !(s > 0.8 && s < 1.6) }'
rss1=$(sink_rss)
echo "# sink RSS: $rss0 kB before the hostile clients, $rss1 kB after"
check "sink memory flat ($rss0 -> $rss1 kB)" test $((rss1 - rss0)) -le 512
n=$(grep -c "sink: .* open" "$SLOG")
kill -USR1 "$SPID"
wait_for '[ "$(grep -c "sink: .* open" "$SLOG")" -gt $n ]' 5 "the sink's counters in its log"
grep "sink: .* open" "$SLOG" | tail -1 | sed 's/^/# /'
check "the sink counted refusals, malformed headers and idle clients" \
	bash -c "tail -1 '$SLOG' | grep -qE ' [1-9][0-9]* refused .* [1-9][0-9]+ malformed, [1-9][0-9]+ idle closed'"

# the iperf3 sink nobody serves: the test failed with iperf3's own reason, exit 1
wait "$NOIP_PID"
rc=$?
grep "load-test:" "$TMPD/noip.out" | sed 's/^/# /'
check "an iperf3 sink nobody serves: exit 1, iperf3's reason" \
	bash -c "[ $rc -eq 1 ] && grep -q 'load-test: download: iperf3: .*refused' '$TMPD/noip.out'"

# 6. the daemon: SIGUSR1, then the result in /api/status. The test reads the daemon's own
# probes (one every 100 ms to the server): the echo requests the server gets stay at that rate
# (a prober of the test's own beside the daemon's would double it)
echos() {	# the server namespace's ICMP echo requests received so far
	ip netns exec "$NS_S" awk '$1 == "Icmp:" { if (!c) { for (i = 2; i <= NF; i++)
		if ($i == "InEchos") c = i } else { print $c; exit } }' /proc/net/snmp
}
rate_since() {	# rate_since T0 E0: echo requests a second since then
	awk -v a="$1" -v b="$(date +%s.%N)" -v n=$(($(echos) - $2)) 'BEGIN { printf "%.1f", n / (b - a) }'
}
e0=$(echos)
t0=$(date +%s.%N)
sleep 2	# a duration: the idle probe rate is counted over these 2 s
idle_per_s=$(rate_since "$t0" "$e0")
e0=$(echos)
t0=$(date +%s.%N)
kill -USR1 "$GW_PID"
st=""
phases=""
lt_finished() {	# one look at /api/status: the phase seen, and has the test finished?
	st=$(ip netns exec "$NS_R" curl -s --max-time 2 http://127.0.0.1:9180/api/status)
	phases="$phases $(echo "$st" | jq -r 'if .loadtest.running then .loadtest.phase else empty end' 2>/dev/null)"
	echo "$st" | jq -e '.loadtest.finished_unix_seconds != null' >/dev/null 2>&1
}
WAIT_FOR_STEP=0.5 wait_for lt_finished 30 "the daemon's load test to finish on /api/status"
per_s=$(rate_since "$t0" "$e0")
echo "# phases seen while running:$phases"
echo "# echo requests at the server: $idle_per_s a second before the test, $per_s during it"
check "SIGUSR1: one stream of probes during the test ($per_s a second, $idle_per_s before it)" \
	awk -v r="$per_s" -v i="$idle_per_s" 'BEGIN { exit !(i >= 7 && r >= 0.7 * i && r <= 1.3 * i) }'
check "SIGUSR1: /api/status showed the test running, with its phase" \
	bash -c "echo '$phases' | grep -qE 'idle|download|upload|both|gap'"
echo "$st" | jq -c '.loadtest.directions[]? | [.direction, .goodput_bits_per_second, .loaded_p50_ms, .grade]' | sed 's/^/# api: /'
check "SIGUSR1: the test finished and shows in /api/status" \
	bash -c "echo '$st' | jq -e '.loadtest.running == false and (.loadtest.directions | length) == 3 and .loadtest.error == null' >/dev/null"
check "SIGUSR1: its download goodput is there (> 80% of the rate), 4 flows, a fairness" \
	bash -c "echo '$st' | jq -e '.loadtest.directions[0] | .goodput_bits_per_second > 0.8 * $RATE_MBIT * 1e6 and .flows == 4 and .fairness > 0' >/dev/null"
check "SIGUSR1: every phase judged from the daemon's probes (an idle p50, loaded samples and their p50)" \
	bash -c "echo '$st' | jq -e '[.loadtest.directions[] | .idle_p50_ms > 0 and .loaded_samples >= 5 and .loaded_p50_ms > 0] | all' >/dev/null"
check "SIGUSR1: each flow's goodput: 4 a direction, adding up to its share (download, upload; both: 4 + 4)" \
	bash -c "echo '$st' | jq -e '[.loadtest.directions[] | . as \$d |
		(if .direction == \"upload\" then [] else [.download_flow_bits_per_second, \$d.download_bits_per_second] end),
		(if .direction == \"download\" then [] else [.upload_flow_bits_per_second, \$d.upload_bits_per_second] end) |
		select(length == 2) | (.[0] | length) == 4 and ((.[0] | add) - .[1] | fabs) < 1e-3 * .[1]] |
		length == 4 and all' >/dev/null"
check "SIGUSR1: both directions at once, each share reported" \
	bash -c "echo '$st' | jq -e '.loadtest.directions[2] | .download_bits_per_second > 0 and .upload_bits_per_second > 0 and .flows == 8' >/dev/null"
check "the daemon logged the run" grep -q "load test (SIGUSR1)" "$GW_LOG"

# 7. iperf3 -s as the sink: the same goodput check
ip netns exec "$NS_S" timeout 40 iperf3 -s -B 10.77.2.2 -p 5201 >/dev/null 2>&1 &
PIDS+=($!)
wait_listening "$NS_S" 5201 || not_ok "iperf3 server listens"
conf "$TMPD/iperf3.conf" "iperf3:10.77.2.2:5201" 2s
# iperf3_seen FILE: the first iperf3 client in the router's namespace, its /proc status and
# environment and the program it runs copied to FILE while it runs (it parses what the server
# sends: it must hold nothing)
iperf3_seen() {
	local p
	for p in $(ip netns pids "$NS_R"); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = iperf3 ] || continue
		{ cat "/proc/$p/status"; tr '\0' '\n' <"/proc/$p/environ" | sed 's/^/env /'
		  echo "exe $(readlink "/proc/$p/exe")"
		  echo "parent $(cat "/proc/$(awk '/^PPid:/ { print $2 }' "/proc/$p/status")/comm")"
		} >"$1.tmp" 2>/dev/null &&
			grep -q '^exe /' "$1.tmp" && mv "$1.tmp" "$1" && return 0
	done
	return 1
}
field_of() { awk -v k="$2:" '$1 == k { print $2 }' "$1"; }
# bare FILE WHO: nobody's uid, not 0 and not WHO's; no capability, ambient included; no_new_privs;
# PATH and LC_ALL alone; an absolute path
bare() {
	[ "$(field_of "$1" Uid)" = "$(id -u nobody)" ] && [ "$(field_of "$1" Uid)" != 0 ] &&
		[ "$(field_of "$1" Uid)" != "$2" ] &&
		[ "$(field_of "$1" CapEff)$(field_of "$1" CapPrm)$(field_of "$1" CapAmb)" = \
			000000000000000000000000000000000000000000000000 ] &&
		[ "$(field_of "$1" NoNewPrivs)" = 1 ] &&
		[ "$(grep '^env ' "$1" | sort | tr '\n' ' ')" = "env LC_ALL=C env PATH=/usr/bin:/bin " ] &&
		grep -qE '^exe /(usr/(local/)?)?bin/iperf3$' "$1"
}
privs_of() { echo "uid $(field_of "$1" Uid), CapEff $(field_of "$1" CapEff), CapPrm $(field_of "$1" CapPrm), CapAmb $(field_of "$1" CapAmb), NoNewPrivs $(field_of "$1" NoNewPrivs), $(grep -c '^env ' "$1") variables, $(sed -n 's/^exe //p' "$1")"; }
ip netns exec "$NS_R" timeout 40 "$GATEWAYD" -c "$TMPD/iperf3.conf" --load-test >"$TMPD/ip.out" 2>&1 &
LT_PID=$!
WAIT_FOR_STEP=0.02 wait_for "iperf3_seen '$TMPD/ip.status'" 10 "an iperf3 client of --load-test"
wait "$LT_PID"
rc=$?
sed 's/^/# /' "$TMPD/ip.out"
check "--load-test against iperf3 -s exits 0" test $rc -eq 0
goodput_checks iperf3 "$TMPD/ip.out"
check "against iperf3 (sums only) no per-flow line" bash -c "! grep -q 'per flow' '$TMPD/ip.out'"
check "--load-test as root: its iperf3 ran as nobody with nothing, by its absolute path ($(privs_of "$TMPD/ip.status"))" \
	bare "$TMPD/ip.status" 0
check "no iperf3 client left in the router's namespace" \
	bash -c "! ip netns pids '$NS_R' | xargs -r ps -o comm= -p | grep -qx iperf3"

# 8. the daemon's own test against iperf3 (SIGUSR1): its iperf3 is started by the web
# launcher (the daemon holds no CAP_SETUID by then) as nobody, with no capability
conf "$TMPD/daemon.conf" "iperf3:10.77.2.2:5201" 1s
gw_reload
kill -USR1 "$GW_PID"
WAIT_FOR_STEP=0.02 wait_for "iperf3_seen '$TMPD/gw-ip.status'" 10 "an iperf3 client of the daemon"
GW_UID=$(awk '/^Uid:/ { print $2 }' "/proc/$GW_PID/status")
check "SIGUSR1 against iperf3: its iperf3 ran as nobody (not the daemon's uid $GW_UID) with nothing, by its absolute path ($(privs_of "$TMPD/gw-ip.status"))" \
	bare "$TMPD/gw-ip.status" "$GW_UID"
check "  started by the web launcher ($(sed -n 's/^parent //p' "$TMPD/gw-ip.status"))" \
	grep -qx 'parent gatewayd-weblau' "$TMPD/gw-ip.status"
done_ip() { ip netns exec "$NS_R" curl -s --max-time 2 http://127.0.0.1:9180/api/status |
	jq -e '.loadtest.running == false and .loadtest.error == null and (.loadtest.directions | length) == 3 and .loadtest.sink == "iperf3:10.77.2.2:5201"' >/dev/null; }
check "  and the test finished without an error" wait_for done_ip 20 "the daemon's iperf3 test"
check "  no iperf3 client left in the router's namespace" \
	bash -c "! ip netns pids '$NS_R' | xargs -r ps -o comm= -p | grep -qx iperf3"
grep "load test" "$GW_LOG" | sed "s/^/# log: /"
gw_stop
