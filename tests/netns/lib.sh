# tests/netns/lib.sh: shared by the host-kernel tests. Each test builds its own namespaces with
# names unique to the run, and removes them (and every process it started) on exit, failure or
# interrupt. Addresses live only inside those namespaces. The benches (tests/bench/lib.bash)
# build on it too, with LIB_RUN_PREFIX, LIB_TMP_PREFIX and LIB_STOP_WAIT set before sourcing.
set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
GATEWAYD=${GATEWAYD:-$TOP/build/gatewayd}
RUN_ID="${LIB_RUN_PREFIX:-gw}$$"
NAMESPACES=()
PIDS=()
TMPD=$(mktemp -d "/tmp/${LIB_TMP_PREFIX:-gwtest}.XXXXXX")
# the daemon's web process runs as nobody: the compare_dir a test puts in here must be
# reachable by it, as /var/lib/gatewayd/compare is (files stay the umask's)
chmod 755 "$TMPD"
# The daemon's own user: started as root, it becomes this user once started (gatewayd(8)
# PRIVILEGES; `make deps` creates it). Where it is missing the daemon stays uid 0.
GW_USER=gatewayd
GW_UID=$(id -u "$GW_USER" 2>/dev/null || echo 0)
# daemon_reads FILE...: files the daemon reads again once it runs as its user (a reload's
# config, auth and TLS files, a load test's token) given to its group, readable by it
daemon_reads() {
	[ "$GW_UID" = 0 ] || { chgrp "$GW_USER" "$@" && chmod g+r "$@"; }
}
# wait_for CONDITION TIMEOUT [WHAT]
. "$TOP/tests/wait_for.sh"
# ok, not_ok NAME [DETAIL], skip NAME [WHY], check NAME CMD..., check_detail NAME DETAIL CMD...
. "$TOP/tests/tap.sh"

cleanup() {
	local p ns
	for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do
		wait_for "! kill -0 $p 2>/dev/null" "${LIB_STOP_WAIT:-2}" 2>/dev/null || kill -KILL "$p" 2>/dev/null
	done
	for ns in "${NAMESPACES[@]}"; do ip netns del "$ns" 2>/dev/null; done
	rm -rf "$TMPD"
}
trap cleanup EXIT
[ -n "${KEEP_LOGS:-}" ] && trap 'cp -r "$TMPD" /tmp/kept-logs 2>/dev/null; cleanup' EXIT
trap 'exit 130' INT TERM

# ns_new VAR SUFFIX: a fresh namespace named $RUN_ID-SUFFIX with lo up, its name put in VAR.
# (Not "$(ns_new)": a subshell would lose the record that cleanup needs.)
ns_new() {
	local ns="$RUN_ID-$2"
	ip netns add "$ns" || return 1
	NAMESPACES+=("$ns")
	ip -n "$ns" link set lo up
	printf -v "$1" '%s' "$ns"
}

# topo_chain: client - router - server, veth between them, forwarding in the router.
#   $NS_C (c0 10.77.1.2) -- (r0 10.77.1.1) $NS_R (r1 10.77.2.1) -- (s0 10.77.2.2) $NS_S
# The router's r1 is the "WAN" whose egress shapes client->server traffic; r0's egress shapes
# server->client (and r1's ingress, through an ifb).
topo_chain() {
	ns_new NS_C c && ns_new NS_R r && ns_new NS_S s || return 1
	ip link add c0 netns "$NS_C" type veth peer name r0 netns "$NS_R" || return 1
	ip link add r1 netns "$NS_R" type veth peer name s0 netns "$NS_S" || return 1
	ip -n "$NS_C" addr add 10.77.1.2/24 dev c0
	ip -n "$NS_R" addr add 10.77.1.1/24 dev r0
	ip -n "$NS_R" addr add 10.77.2.1/24 dev r1
	ip -n "$NS_S" addr add 10.77.2.2/24 dev s0
	ip -n "$NS_C" -6 addr add fd77:1::2/64 dev c0 nodad
	ip -n "$NS_R" -6 addr add fd77:1::1/64 dev r0 nodad
	ip -n "$NS_R" -6 addr add fd77:2::1/64 dev r1 nodad
	ip -n "$NS_S" -6 addr add fd77:2::2/64 dev s0 nodad
	local l
	for l in "$NS_C c0" "$NS_R r0" "$NS_R r1" "$NS_S s0"; do
		set -- $l
		ip -n "$1" link set "$2" up
	done
	ip -n "$NS_C" route add default via 10.77.1.1
	ip -n "$NS_S" route add default via 10.77.2.1
	ip -n "$NS_C" -6 route add default via fd77:1::1
	ip -n "$NS_S" -6 route add default via fd77:2::1
	ip netns exec "$NS_R" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
}

# gw_start NS CONF [ARGS]: run the daemon in NS; waits until it logged "applied" (or died).
# Sets GW_PID and GW_LOG. GW_NET_ONLY=1: enter only the network namespace (nsenter), as a
# daemon on a real host runs: `ip netns exec` mounts a sysfs of its own, without the cgroup
# hierarchy.
gw_start() {
	local ns=$1 conf=$2
	shift 2
	GW_LOG=$TMPD/gatewayd.$RANDOM.log
	if [ "${GW_NET_ONLY:-0}" = 1 ]; then
		nsenter --net="/run/netns/$ns" "$GATEWAYD" -c "$conf" "$@" >"$GW_LOG" 2>&1 &
	else
		ip netns exec "$ns" "$GATEWAYD" -c "$conf" "$@" >"$GW_LOG" 2>&1 &
	fi
	GW_PID=$!
	PIDS+=("$GW_PID")
	wait_for "grep -q 'applied and verified' '$GW_LOG' || ! kill -0 $GW_PID 2>/dev/null" 8 \
		"gatewayd to log 'applied and verified' (or die)"
	grep -q "applied and verified" "$GW_LOG" || return 1
	gw_runs_as_user
}

# gw_runs_as_user: started as root, the daemon becomes its own user once started (gatewayd(8)
# PRIVILEGES), so every suite's daemon does its work that way: waits (5 s) for it, or for its
# end (a --oneshot); a "not ok" line when it is still another uid.
gw_uid_of() { awk '$1 == "Uid:" { print $2 }' "/proc/$1/status" 2>/dev/null; }
gw_runs_as_user() {
	[ "$GW_UID" = 0 ] && return 0
	wait_for "[ \"\$(gw_uid_of $GW_PID)\" = $GW_UID ] || ! kill -0 $GW_PID 2>/dev/null" 5 \
		"gatewayd (pid $GW_PID) to become user $GW_USER" && return 0
	not_ok "gatewayd (pid $GW_PID) runs as user $GW_USER (uid $GW_UID) once started" \
		"uid $(gw_uid_of "$GW_PID")"
}

# gw_reloads: how many reloads the daemon has finished, as its log says ("reloaded FILE: ..."
# or "reload: ...; still running the previous config"). Count these, not the SIGHUPs sent:
# standard signals merge, two sent close together may be one reload.
gw_reloads() { grep -cE '(^|[^a-z_])reloaded |still running the previous config' "$GW_LOG"; }
# gw_reload [TIMEOUT]: SIGHUP the daemon and wait (10 s) until it logged the end of one more
# reload, applied or refused; 1 on time-out.
gw_reload() {
	local n
	n=$(gw_reloads)
	kill -HUP "$GW_PID" || return 1
	wait_for "[ \$(gw_reloads) -gt $n ]" "${1:-10}" "gatewayd to log the end of reload $((n + 1))"
}

# ns_listening NS PORT [udp]: something in NS listens on PORT (TCP; UDP with "udp").
ns_listening() { ip netns exec "$1" ss -Hln"$([ "${3:-}" = udp ] && echo u || echo t)" "sport = :$2" | grep -q .; }
# wait_listening NS PORT [udp]: wait (5 s) until it does, e.g. for iperf3 -s before a client.
wait_listening() { wait_for "ns_listening $1 $2 ${3:-}" 5 "a listener on port $2 in $1"; }

# gw_seq NS [PORT]: the sequence number of the daemon's latest sample, from its /api/status.
gw_seq() { ip netns exec "$1" curl -s --max-time 3 "http://127.0.0.1:${2:-9180}/api/status" | jq -r '.sample.seq // -1'; }
# gw_samples NS N [PORT]: wait until the daemon took N more samples (N intervals, plus 5 s).
gw_samples() {
	local s
	s=$(gw_seq "$1" "${3:-9180}")
	wait_for "[ \$(gw_seq $1 ${3:-9180}) -ge $((s + $2)) ]" $(($2 * 2 + 5)) "$2 more samples on /api/status in $1"
}

# monitors_ready NS LINKFILE TCFILE: wait (5 s) until an `ip monitor link` writing LINKFILE and
# a `tc monitor` writing TCFILE, both just started in NS, report what happens: a veth pair made
# for that (gwmon0, a name no config here matches) is changed until both have reported it,
# then deleted. Every line they wrote about it names gwmon0 (`grep -v gwmon` drops them).
monitors_ready() {
	local ns=$1 lf=$2 tf=$3 r
	ip -n "$ns" link add gwmon0 type veth peer name gwmon1 || return 1
	# each look changes the link and its qdisc once more: a change made before a monitor
	# had subscribed is never reported
	monitors_poke() {
		ip -n "$ns" link set gwmon0 mtu $((1300 + RANDOM % 200)) &&
			tc -n "$ns" qdisc replace dev gwmon0 root pfifo limit $((100 + RANDOM % 100)) &&
			grep -q gwmon0 "$lf" && grep -q 'dev gwmon0' "$tf"
	}
	WAIT_FOR_STEP=0.1 wait_for monitors_poke 5 "ip monitor and tc monitor in $ns to report gwmon0"
	r=$?
	ip -n "$ns" link del gwmon0
	return $r
}

# monitors_start NS LINKFILE TCFILE: `ip -ts monitor link` and `tc -ts monitor` in NS (at most
# 900 s), their pids in PIDS, and monitors_ready.
monitors_start() {
	timeout 900 ip -n "$1" -ts monitor link >"$2" 2>/dev/null &
	PIDS+=($!)
	timeout 900 tc -n "$1" -ts monitor >"$3" 2>/dev/null &
	PIDS+=($!)
	monitors_ready "$@"
}

# gw_stop: SIGTERM the daemon and wait; returns its exit status.
gw_stop() {
	kill -TERM "$GW_PID" 2>/dev/null
	wait "$GW_PID"
}

# tree NS DEV: a stable text picture of a device's qdiscs, classes and ingress filters.
tree() {
	local ns=$1 dev=$2
	{
		tc -n "$ns" qdisc show dev "$dev"
		tc -n "$ns" class show dev "$dev"
		tc -n "$ns" filter show dev "$dev" ingress 2>/dev/null |
			sed -E 's/ (index|ref|bind) [0-9]+//g'
	} | sed -E 's/refcnt [0-9]+ //; s/direct_packets_stat [0-9]+ //' | sort
}

# qdisc_json NS DEV: tc -j qdisc show.
qdisc_json() { ip netns exec "$1" tc -j qdisc show dev "$2"; }
# privs PID: "UID CAPEFF CAPPRM NONEWPRIVS" of a process, from its /proc status
privs() { awk '/^Uid:/ { u = $2 } /^CapEff:/ { e = $2 } /^CapPrm:/ { p = $2 } /^NoNewPrivs:/ { n = $2 }
	END { print u, e, p, n }' "/proc/$1/status" 2>/dev/null; }
# what privs says of a server that gave up root (gw_drop_to_nobody)
DROPPED="$(id -u nobody 2>/dev/null || echo 65534) 0000000000000000 0000000000000000 1"
# what privs and the bounding set (CapBnd) say of the daemon started as root: its user,
# CAP_NET_ADMIN (12) and CAP_NET_RAW (13) alone (gw_become_daemon_user)
NET_ONLY="$GW_UID 0000000000003000 0000000000003000 1 0000000000003000"
net_privs() { echo "$(privs "$1") $(awk '/^CapBnd:/ { print $2 }' "/proc/$1/status" 2>/dev/null)"; }
