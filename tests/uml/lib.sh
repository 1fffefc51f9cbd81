# tests/uml/lib.sh: helpers for scripts that uml-run runs inside the guest. Source it:
#   . "$UML_LIB"          (uml-run passes UML_LIB; or source tests/uml/lib.sh by path)
# The guest is a private kernel, so the fixed namespace names below cannot collide with
# another run or with the host; addresses 10.77.x exist only inside these namespaces.
# shellcheck shell=bash

UML_NS_C=gwc  # client: c0 10.77.1.2
UML_NS_R=gwr  # router: r0 10.77.1.1 (client side), r1 10.77.2.1 (server side, egress to shape)
UML_NS_S=gws  # server: s0 10.77.2.2
UML_IP_C=10.77.1.2
UML_IP_R0=10.77.1.1
UML_IP_R1=10.77.2.1
UML_IP_S=10.77.2.2

# wait_for CONDITION TIMEOUT [WHAT]: poll every 0.1 s here (one exec costs ~0.15 s in UML).
. "$(dirname "${BASH_SOURCE[0]}")/../wait_for.sh"
# shellcheck disable=SC2034  # read by wait_for
WAIT_FOR_STEP=0.1

# ---- reporting: the lines tests/run counts ---------------------------------------------
# ok, not_ok NAME [DETAIL], skip, check_detail NAME DETAIL CMD...; a guest script ends with
# tap_status (1 if it printed a not ok)
# shellcheck source=tests/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

# in_ns NS CMD...: run CMD in namespace NS ("" = the guest's initial namespace).
in_ns() {
	local ns=$1
	shift
	if [ -n "$ns" ]; then ip netns exec "$ns" "$@"; else "$@"; fi
}

# uml_guest_begin GATEWAYD [no-topology]: how a guest script starts: GW (the gatewayd binary
# its host side passed), T (a scratch directory), a not_ok for each wanted module that did not
# load, and the topology below (unless no-topology). Exits the script when that fails.
uml_guest_begin() {
	GW=${1:?gatewayd binary}
	T=$(mktemp -d)
	# once started the daemon is user gatewayd (the guest's passwd is the host's), and a
	# reload reads its config as that user: the scratch directory lets it in (the files in
	# it are the umask's, 0644)
	chmod 0755 "$T"
	[ -z "${UML_MODULES_FAILED:-}" ] || not_ok "guest modules" "not loaded: $UML_MODULES_FAILED"
	[ "${2:-}" = no-topology ] && return 0
	uml_topology || { not_ok "topology" "uml_topology failed"; exit 1; }
}

# uml_gw_start CONF [NS [ARG...]]: gatewayd -c CONF [ARG...] in NS (the router's), its log in
# $T/log; waits (30 s) until it logged "applied and verified". Sets GWPID. On failure prints the
# log as a comment.
uml_gw_start() {
	# emptied here, not by the background shell's redirection: a look before that would read
	# the previous daemon's "applied and verified"
	: >"$T/log"
	ip netns exec "${2:-$UML_NS_R}" "$GW" -c "$1" "${@:3}" >>"$T/log" 2>&1 &
	GWPID=$!
	# builtins only in the condition: an exec costs ~0.15 s here
	wait_for '[[ $(<"$T/log") == *"applied and verified"* ]] || ! kill -0 $GWPID 2>/dev/null' 30 \
		"gatewayd to log 'applied and verified'" &&
		[[ $(<"$T/log") == *"applied and verified"* ]] && return 0
	echo "# $(cat "$T/log")"
	return 1
}
# uml_gw_stop: SIGTERM and wait for it.
uml_gw_stop() {
	kill -TERM $GWPID
	wait $GWPID
}

# uml_listening NS PORT [udp]: something in NS listens on PORT (TCP, or UDP).
uml_listening() { [[ $(ip netns exec "$1" ss -Hln"$([ "${3:-}" = udp ] && echo u || echo t)" "sport = :$2") ]]; }
# uml_wait_listening NS PORT [udp]: wait (5 s) until it does.
uml_wait_listening() { wait_for "uml_listening $1 $2 ${3:-}" 5 "a listener on port $2 in $1"; }

# ---- topology ----------------------------------------------------------------------------
# client (gwc) c0 --- r0 router (gwr) r1 --- s0 server (gws). Link names are never a, b or x:
# `ip link add a type veth` parses "a" as "address".
uml_topology() {
	uml_topology_clean
	# Batched: every exec costs ~0.13 s in UML, one ip per step took 2.4 s, this ~0.8 s.
	ip -b - <<-EOF || return 1
		netns add $UML_NS_C
		netns add $UML_NS_R
		netns add $UML_NS_S
		link add c0 netns $UML_NS_C type veth peer name r0 netns $UML_NS_R
		link add r1 netns $UML_NS_R type veth peer name s0 netns $UML_NS_S
	EOF
	uml_end_host $UML_NS_C c0 $UML_IP_C $UML_IP_R0 || return 1
	ip -n $UML_NS_R -b - <<-EOF || return 1
		link set lo up
		addr add $UML_IP_R0/24 dev r0
		addr add $UML_IP_R1/24 dev r1
		link set r0 up
		link set r1 up
	EOF
	uml_end_host $UML_NS_S s0 $UML_IP_S $UML_IP_R1 || return 1
	ip netns exec $UML_NS_R sysctl -qw net.ipv4.ip_forward=1 || return 1
	# The first packets wait for ARP; settle it now so a test's first probe is not an outlier.
	ip netns exec $UML_NS_C ping -c 1 -W 2 $UML_IP_S >/dev/null || return 1
}

# uml_end_host NS DEV IP GATEWAY: an end of the chain: lo and DEV up, IP/24 on DEV, the
# default route via GATEWAY (one batched ip).
uml_end_host() {
	ip -n "$1" -b - <<-EOF
		link set lo up
		addr add $3/24 dev $2
		link set $2 up
		route add default via $4
	EOF
}

# Remove the namespaces (their veths go with them). The guest halts after the script anyway;
# this is for scripts that build the topology more than once.
uml_topology_clean() {
	local ns
	for ns in $UML_NS_C $UML_NS_R $UML_NS_S; do
		[ -e "/run/netns/$ns" ] && ip netns del "$ns"
	done
	return 0
}

# uml_netem_far DELAY [netem args...]: delay on the server's s0, i.e. past the router's
# shaped egress r1, so the bottleneck queue is the router's and the RTT grows by DELAY.
uml_netem_far() {
	local delay=$1
	shift
	ip netns exec $UML_NS_S tc qdisc replace dev s0 root netem delay "$delay" "$@"
}

# ---- reading qdiscs back (tc -j + jq) ------------------------------------------------------
# qdisc_json DEV [NS]: `tc -s -j qdisc show dev DEV` (a JSON array; stats included).
qdisc_json() {
	# tc -n, not `ip netns exec NS tc`: one exec instead of two (each ~0.15 s in UML).
	tc ${2:+-n "$2"} -s -j qdisc show dev "$1"
}

# qdisc_get DEV WHERE [NS] [JQ]: apply JQ (default ".") to the one qdisc at WHERE on DEV.
# WHERE: "root", "ingress", a parent class ("1:10") or a handle ("h:10:").
qdisc_get() {
	local dev=$1 where=$2 ns=${3:-} filter=${4:-.}
	qdisc_json "$dev" "$ns" | jq -e -r --arg w "$where" "
		map(select(
			if \$w == \"root\" then .root == true
			elif \$w == \"ingress\" then .kind == \"ingress\" or .kind == \"clsact\"
			elif (\$w | startswith(\"h:\")) then .handle == (\$w | ltrimstr(\"h:\"))
			else .parent == \$w end)) | first | $filter"
}

# qdisc_kind DEV WHERE [NS]: the kind ("htb", "fq_codel", ...) of the qdisc at WHERE.
qdisc_kind() { qdisc_get "$1" "$2" "${3:-}" .kind; }

# qdisc_opt DEV WHERE NS KEY: one of the qdisc's options, e.g. bandwidth, target, delay.
qdisc_opt() { qdisc_get "$1" "$2" "$3" ".options.$4"; }

# expect_qdisc NAME DEV WHERE NS KIND [JQ_TEST]: ok if the qdisc at WHERE is KIND and, when
# given, JQ_TEST (e.g. '.options.bandwidth == 2500000') holds for it; else not ok with the JSON.
expect_qdisc() {
	local name=$1 dev=$2 where=$3 ns=$4 kind=$5 test=${6:-true}
	if qdisc_get "$dev" "$where" "$ns" ".kind == \"$kind\" and ($test)" >/dev/null; then
		ok "$name"
	else
		not_ok "$name" "want $kind${6:+ with $6} at $where of $dev, have $(qdisc_json "$dev" "$ns" | tr -d '\n')"
	fi
}

# qdisc_packets DEV WHERE [NS]: packets the qdisc has sent.
qdisc_packets() { qdisc_get "$1" "$2" "${3:-}" .packets; }

# ---- load and latency -------------------------------------------------------------------
# uml_iperf SECS FLOWS [iperf3 client args...]: TCP from client to server through the router;
# prints the receiver's goodput in Mbit/s (payload, not wire rate). Slow start (first second)
# is omitted. Every process is bounded by timeout.
uml_iperf() {
	local secs=$1 flows=$2 json
	shift 2
	timeout $((secs + 10)) ip netns exec $UML_NS_S iperf3 -s -1 -B $UML_IP_S >/dev/null 2>&1 &
	local srv=$!
	uml_wait_listening $UML_NS_S 5201
	json=$(timeout $((secs + 8)) ip netns exec $UML_NS_C \
		iperf3 -c $UML_IP_S -t "$secs" -O 1 -P "$flows" -J "$@" 2>&1)
	wait "$srv" 2>/dev/null
	echo "$json" | jq -e -r '.end.sum_received.bits_per_second / 1e6 | . * 10 | round / 10' \
		2>/dev/null || { echo "uml_iperf: no result: $(echo "$json" | head -c 300)" >&2; return 1; }
}

# uml_ping_avg COUNT [INTERVAL]: ping client -> server, print the average RTT in ms.
uml_ping_avg() {
	local out
	out=$(timeout $(($1 + 5)) ip netns exec $UML_NS_C ping -q -n -c "$1" -i "${2:-0.1}" $UML_IP_S)
	echo "$out" | sed -n 's|^rtt [^=]*= [0-9.]*/\([0-9.]*\)/.*|\1|p' | grep . ||
		{ echo "uml_ping_avg: no result: $out" >&2; return 1; }
}

# uml_cpu_stat: the guest CPU's "busy total" jiffies so far (busy: all but idle and iowait).
# uml_cpu_busy "A" "B": percent busy between two uml_cpu_stat readings. The guest's one CPU is
# a host process: when the host is busy the guest reads that as its own time busy, so a figure
# near 100 means the load was held back by the CPU, not by the qdisc under test.
uml_cpu_stat() { awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t; exit }' /proc/stat; }
uml_cpu_busy() {
	awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " ")
		if (y[2] <= x[2]) exit 1; printf "%.0f\n", 100 * (y[1] - x[1]) / (y[2] - x[2]) }'
}

# num_between VALUE LOW HIGH: LOW <= VALUE <= HIGH for decimals.
num_between() { awk -v v="$1" -v l="$2" -v h="$3" 'BEGIN { exit !(v != "" && v >= l && v <= h) }'; }
# num_below VALUE LIMIT
num_below() { awk -v v="$1" -v l="$2" 'BEGIN { exit !(v != "" && v < l) }'; }
