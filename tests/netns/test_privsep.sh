#!/usr/bin/env bash
# The web process drops before it serves, every time, in every thread: gatewayd started as
# root under `strace -f -tt` with a curl loop already hammering its page (connections wait in
# the listen backlog for whoever accepts first, as a client racing the start would), then its
# web process killed (kill -9) and a reload that moves `listen`. In the trace every web process
# (and each of its threads) accepts its first connection, and reads a client's bytes, only
# after its setresuid to a user of its own and after its seccomp filter (privsep_order.py).
# The web process's uid is not the daemon's, at each of the three.
. "$(dirname "$0")/lib.sh"

command -v strace >/dev/null || { skip "web process drop order" "strace is not installed"; exit 0; }
command -v curl >/dev/null || { skip "web process drop order" "curl is not installed"; exit 0; }
ns_new NS privsep || { not_ok "namespace"; exit 1; }
ip -n "$NS" link add ps0 type veth peer name ps1
ip -n "$NS" link set ps0 up
ip -n "$NS" link set ps1 up
conf() {	# conf PORT
	cat >"$TMPD/run.conf" <<CONF
listen = "127.0.0.1:$1";
interval = "500ms";
links = ( { name = "wan"; interface = "ps0";
  egress = { shaper = "tbf"; rate = "10mbit"; child = { kind = "fifo"; }; }; } );
CONF
}
# curl_loop PORT: requests one after another, from before the page is up until killed
curl_loop() {
	ip netns exec "$NS" bash -c "while :; do curl -s -o /dev/null --max-time 2 \
		http://127.0.0.1:$1/api/status; done" &
	PIDS+=($!)
	LOOPS+=($!)
}
code() { ip netns exec "$NS" curl -s --max-time 3 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/api/status"; }
# the web process serving PORT: it holds the listening socket beside the daemon
web_pid() { ip netns exec "$NS" ss -Hltnp "sport = :$1" | grep -o 'pid=[0-9]*' | cut -d= -f2 | grep -vx "$GW_PID" | head -1; }
uid_of() { awk '/^Uid:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
LOOPS=()

conf 9191
curl_loop 9191
curl_loop 9191
ip netns exec "$NS" strace -f -tt -qq -o "$TMPD/strace" \
	-e trace=clone,clone3,fork,vfork,execve,prctl,setresuid,seccomp,accept4,accept,read,recvfrom,recvmsg \
	"$GATEWAYD" -c "$TMPD/run.conf" >"$TMPD/gw.log" 2>&1 &
ST_PID=$!
PIDS+=("$ST_PID")
wait_for "pgrep -P $ST_PID >/dev/null" 5 "strace to start gatewayd"
GW_PID=$(pgrep -P "$ST_PID" | head -1)
PIDS+=("$GW_PID")
check "a root start: the page answers (through the racing clients)" \
	wait_for '[ "$(code 9191)" = 200 ]' 10 "the page"
W1=$(web_pid 9191)
check "  its web process ($W1) runs as uid $(uid_of "$W1"), not the daemon's ($(uid_of "$GW_PID"))" \
	eval '[ -n "$W1" ] && [ "$(uid_of "$W1")" != "$(uid_of "$GW_PID")" ] && [ "$(uid_of "$W1")" != 0 ]'

kill -9 "$W1"
check "after kill -9 of the web process: the page answers again" \
	wait_for "[ -n \"\$(web_pid 9191)\" ] && [ \"\$(web_pid 9191)\" != $W1 ] && [ \"\$(code 9191)\" = 200 ]" 10 "a new web process"
W2=$(web_pid 9191)
check "  the new one ($W2) runs as uid $(uid_of "$W2"), not the daemon's" \
	eval '[ -n "$W2" ] && [ "$(uid_of "$W2")" != "$(uid_of "$GW_PID")" ] && [ "$(uid_of "$W2")" != 0 ]'

curl_loop 9192
curl_loop 9192
conf 9192
kill -HUP "$GW_PID"
check "a reload that moves listen: the new port answers" \
	wait_for '[ "$(code 9192)" = 200 ]' 10 "the new port"
W3=$(web_pid 9192)
check "  from a new web process ($W3) as uid $(uid_of "$W3"), not the daemon's" \
	eval '[ -n "$W3" ] && [ "$W3" != "$W2" ] && [ "$(uid_of "$W3")" != "$(uid_of "$GW_PID")" ] && [ "$(uid_of "$W3")" != 0 ]'
# let each process serve the waiting clients a while, then stop everything
wait_for "[ \$(grep -c 'accept4(' '$TMPD/strace') -ge 20 ]" 5 "accepts in the trace"
for p in "${LOOPS[@]}"; do kill "$p" 2>/dev/null; done
kill -TERM "$GW_PID"
wait_for "! kill -0 $ST_PID 2>/dev/null" 10 "strace to end with the daemon"

python3 "$TOP/tests/netns/privsep_order.py" "$TMPD/strace" >"$TMPD/order" 2>&1
rc=$?
sed 's/^/# /' "$TMPD/order"
check "every web process and thread accepted and read only after its setresuid and its filter" \
	test "$rc" -eq 0
check "  three web processes in the trace (start, after kill -9, after the reload), each of which accepted" \
	test "$(grep -c '^web .*first accept [0-9]' "$TMPD/order")" -ge 3
