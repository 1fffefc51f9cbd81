#!/usr/bin/env bash
# Who `gatewayd --sink` serves (docs/load-protocol.md, "Who the sink serves"), on the host
# kernel: bound beyond loopback without a token or an allow-list it does not start, and says
# why; on loopback it starts as before. With --token-file, a client without the token (a
# version 1 header) and one with a wrong token get status 3, one with it is served; refusals
# are counted and their log lines bounded. With --allow, only the prefix is served; with both,
# either admits. --max-per-address holds one address to its share while another is served.
# Clients are written here from the protocol page, each bound to one of two addresses.
. "$(dirname "$0")/lib.sh"

ns_new NS_S sinkacc-s && ns_new NS_C sinkacc-c || { not_ok "namespaces"; exit 1; }
ip link add sacs0 netns "$NS_S" type veth peer name sacc0 netns "$NS_C" || { not_ok "veth"; exit 1; }
ip -n "$NS_S" addr add 10.81.0.1/16 dev sacs0
ip -n "$NS_C" addr add 10.81.1.2/16 dev sacc0	# inside --allow 10.81.1.0/24 below
ip -n "$NS_C" addr add 10.81.2.2/16 dev sacc0	# outside it
ip -n "$NS_S" link set sacs0 up
ip -n "$NS_C" link set sacc0 up
ip netns exec "$NS_C" ping -c 2 -i 0.2 -W 1 10.81.0.1 >/dev/null 2>&1	# ARP settles
IN=10.81.1.2
OUT=10.81.2.2
SINK=10.81.0.1

TOKEN_FILE=$TMPD/token
echo "sink-access-test-token-0123456789" >"$TOKEN_FILE"
chmod 600 "$TOKEN_FILE"	# a secret file others may read is refused
TOKEN=$(cat "$TOKEN_FILE")

cat >"$TMPD/client.py" <<'PY'
import socket, struct, sys, time
what, src, dst, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def conn():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((src, 0))
    s.settimeout(3)
    s.connect((dst, port))
    return s
if what == "one":
    # one download of 500 ms: "STATUS BYTES" (status -1: no reply)
    ver, token = int(sys.argv[5]), sys.argv[6].encode()
    s = conn()
    hdr = b"GWLT" + struct.pack("!BBHI", ver, 2, 0, 500)
    if ver == 2:
        hdr += token.ljust(64, b"\0")
    s.sendall(hdr)
    try:
        rep = s.recv(8, socket.MSG_WAITALL)
    except OSError:
        rep = b""
    status = rep[5] if len(rep) == 8 and rep[:4] == b"GWLR" else -1
    n = 0
    try:
        while status == 0:
            b = s.recv(65536)
            if not b:
                break
            n += len(b)
    except OSError:
        pass
    print(status, n)
elif what == "many":
    # N clients without the token one after the other: how many got status 3
    n, got = int(sys.argv[5]), 0
    for _ in range(n):
        s = conn()
        s.sendall(b"GWLT" + struct.pack("!BBHI", 1, 2, 0, 500))
        try:
            rep = s.recv(8, socket.MSG_WAITALL)
            got += len(rep) == 8 and rep[5] == 3
        except OSError:
            pass
        s.close()
    print(got)
elif what == "hold":
    # N connections without a header: how many the sink keeps open (it resets the rest)
    n, secs = int(sys.argv[5]), float(sys.argv[6])
    socks = []
    for _ in range(n):
        try:
            socks.append(conn())
        except OSError:     # reset before connect() returned: one the sink refused
            pass
    time.sleep(0.5)         # a duration: the sink's accept and reset are immediate
    open_ = 0
    for s in socks:
        s.setblocking(False)
        try:
            s.recv(1)
        except BlockingIOError:
            open_ += 1
        except OSError:
            pass
    print(open_)
    sys.stdout.flush()
    time.sleep(secs)        # a duration: they are held while the test looks
PY
client() { ip netns exec "$NS_C" timeout 20 python3 "$TMPD/client.py" "$@"; }

# sink_start NAME ARGS...: a sink in NS_S; SPID and SLOG set, waits for its listening line
sink_start() {
	local name=$1
	shift
	SLOG=$TMPD/$name.log
	: >"$SLOG"
	ip netns exec "$NS_S" "$GATEWAYD" "$@" 2>"$SLOG" &
	SPID=$!
	PIDS+=("$SPID")
	wait_for "grep -q 'sink: serving' '$SLOG'" 5 "the sink $name to start"
}
sink_stop() { kill -TERM "$SPID"; wait_for "! kill -0 $SPID 2>/dev/null" 5 "the sink to stop"; }
# sink_stats: SIGUSR1, then its newest counters line
sink_stats() {
	local n
	n=$(grep -c "sink: .* open" "$SLOG")
	kill -USR1 "$SPID"
	wait_for '[ "$(grep -c "sink: .* open" "$SLOG")" -gt '"$n"' ]' 5 "the sink's counters"
	grep "sink: .* open" "$SLOG" | tail -1
}

# 1. beyond loopback, neither a token nor an allow-list: it does not start
for a in "$SINK:7100" "0.0.0.0:7100"; do
	ip netns exec "$NS_S" timeout 5 "$GATEWAYD" --sink "$a" >"$TMPD/e" 2>&1
	rc=$?
	check "--sink $a without --token-file or --allow: exit 2 ($rc)" test $rc -eq 2
	check "--sink $a: says why and what to give it" \
		grep -q "reachable beyond this host.*--token-file.*--allow" "$TMPD/e"
done
ip netns exec "$NS_S" timeout 5 "$GATEWAYD" --sink "$SINK:7100" --allow 10.81.1.1/24 >"$TMPD/e" 2>&1
check "--allow with host bits past its length: exit 2" test $? -eq 2
echo short >"$TMPD/short"
chmod 600 "$TMPD/short"
ip netns exec "$NS_S" timeout 5 "$GATEWAYD" --sink "$SINK:7100" --token-file "$TMPD/short" >"$TMPD/e" 2>&1
check "--token-file with a 5-character token: exit 2, says so" \
	bash -c "[ $? -eq 2 ] && grep -q 'printable characters' '$TMPD/e'"
ip netns exec "$NS_S" timeout 5 "$GATEWAYD" --sink "$SINK:7100" --token-file "$TMPD/none" >"$TMPD/e" 2>&1
check "--token-file that does not exist: exit 2, names it" \
	bash -c "[ $? -eq 2 ] && grep -q '$TMPD/none' '$TMPD/e'"
cp "$TOKEN_FILE" "$TMPD/shared"
chmod 644 "$TMPD/shared"
ip netns exec "$NS_S" timeout 5 "$GATEWAYD" --sink "$SINK:7100" --token-file "$TMPD/shared" >"$TMPD/e" 2>&1
rc=$?
check "--token-file that every user may read: exit 2, says so ($(cat "$TMPD/e"))" \
	bash -c "[ $rc -eq 2 ] && grep -q '$TMPD/shared: mode 0644 lets every user read it' '$TMPD/e'"
# on loopback it serves as before, without either
sink_start lo --sink 127.0.0.1:7101
check "--sink 127.0.0.1 without either starts, serving every client (loopback only)" \
	grep -q "serving every client (loopback only)" "$SLOG"
read -r st bytes < <(ip netns exec "$NS_S" timeout 10 python3 "$TMPD/client.py" one 127.0.0.1 127.0.0.1 7101 1 x)
check "on loopback a version 1 client is served (status ${st:-none}, $bytes bytes)" \
	test "${st:-1}" = 0 -a "${bytes:-0}" -gt 100000
sink_stop

# 2. --token-file: the token admits, its absence or a wrong one does not
sink_start token --sink "$SINK:7102" --token-file "$TOKEN_FILE"
check "bound and the token read, the sink runs as nobody with no capabilities and no_new_privs ($(privs "$SPID"))" \
	test "$(privs "$SPID")" = "$DROPPED"
read -r st bytes < <(client one "$IN" "$SINK" 7102 2 "$TOKEN")
check "token: a client with it is served (status ${st:-none}, $bytes bytes)" \
	test "${st:-1}" = 0 -a "${bytes:-0}" -gt 100000
read -r st bytes < <(client one "$IN" "$SINK" 7102 1 x)
check "token: a version 1 client (no token) gets status 3, no data (${st:-none}, $bytes)" \
	test "${st:-0}" = 3 -a "${bytes:-1}" = 0
read -r st bytes < <(client one "$IN" "$SINK" 7102 2 "${TOKEN}x")
check "token: a wrong token (the right one and a byte more) gets status 3 (${st:-none})" \
	test "${st:-0}" = 3 -a "${bytes:-1}" = 0
read -r st bytes < <(client one "$IN" "$SINK" 7102 2 "")
check "token: an empty token field gets status 3 (${st:-none})" test "${st:-0}" = 3
check "token: the refusal is logged with the client's address and why" \
	grep -q "sink: refused $IN port [0-9]*: no token" "$SLOG"
got=$(client many "$OUT" "$SINK" 7102 300)
check "token: 300 clients without it all refused with status 3 (${got:-0})" test "${got:-0}" -eq 300
lines=$(grep -c "sink: refused" "$SLOG")
check "token: 303 refusals in a few seconds logged in at most 2 lines ($lines)" test "$lines" -le 2
line=$(sink_stats)
echo "# $line"
check "token: the counters say 303 refused for the token, 1 download served" \
	bash -c "echo '$line' | grep -qE ' 1 downloads, .* 303 refused \(no token or not allowed\)'"
sink_stop

# 3. --allow: only its prefix
sink_start allow --sink "$SINK:7103" --allow 10.81.1.0/24,fd81::/16
read -r st bytes < <(client one "$IN" "$SINK" 7103 1 x)
check "allow: $IN (in 10.81.1.0/24) served without a token (${st:-none}, $bytes bytes)" \
	test "${st:-1}" = 0 -a "${bytes:-0}" -gt 100000
read -r st bytes < <(client one "$OUT" "$SINK" 7103 1 x)
check "allow: $OUT (outside it) gets status 3 (${st:-none})" test "${st:-0}" = 3 -a "${bytes:-1}" = 0
read -r st bytes < <(client one "$OUT" "$SINK" 7103 2 "$TOKEN")
check "allow: $OUT with a token the sink was not given: still status 3 (${st:-none})" \
	test "${st:-0}" = 3
check "allow: the refusal names the address and --allow" \
	grep -q "sink: refused $OUT port [0-9]*: its address is not in --allow" "$SLOG"
sink_stop

# 4. both: either one admits
sink_start both --sink "$SINK:7104" --allow 10.81.1.0/24 --token-file "$TOKEN_FILE"
read -r st1 _ < <(client one "$IN" "$SINK" 7104 1 x)
read -r st2 _ < <(client one "$OUT" "$SINK" 7104 2 "$TOKEN")
read -r st3 _ < <(client one "$OUT" "$SINK" 7104 1 x)
check "both: allowed address without a token served (${st1:-none}), outside with the token served (${st2:-none}), outside without refused (${st3:-none})" \
	test "${st1:-1}" = 0 -a "${st2:-1}" = 0 -a "${st3:-0}" = 3
sink_stop

# 5. --max-per-address: one address holds its share, another is still served
sink_start share --sink "$SINK:7105" --token-file "$TOKEN_FILE" --max-per-address 4
check "share: the sink says its share per address (4)" \
	grep -q "at most 4 connections from one address" "$SLOG"
coproc HOLD { client hold "$IN" "$SINK" 7105 10 3; }
PIDS+=("$HOLD_PID")
read -r -t 10 held <&"${HOLD[0]}"
open_from() {
	ip netns exec "$NS_S" ss -Htn state established "( sport = :7105 and dst $1 )" | wc -l
}
n_in=$(open_from "$IN")
check "share: 10 connections from $IN: 4 kept (client sees ${held:-?}, sink holds $n_in)" \
	test "${held:-0}" -eq 4 -a "$n_in" -eq 4
read -r st bytes < <(client one "$OUT" "$SINK" 7105 2 "$TOKEN")
check "share: meanwhile $OUT is served (${st:-none}, $bytes bytes)" \
	test "${st:-1}" = 0 -a "${bytes:-0}" -gt 100000
line=$(sink_stats)
echo "# $line"
check "share: the counters say 6 refused from one address" \
	bash -c "echo '$line' | grep -qE ' 6 refused \(4 from one address\)'"
check "share: the refusal is logged, naming the address" \
	grep -q "sink: refused $IN port [0-9]*: 4 connections from it are open already" "$SLOG"
sink_stop
