#!/usr/bin/env bash
# tests/bench/probe.sh: the latency prober. (1) On the host: CPU and RSS of `gatewayd --probe`
# at 10 Hz to 5 targets (ICMP, then UDP to `gatewayd --reflect`) over WINDOW seconds, from
# /proc/PID/stat, beside 5 `ping -i 0.1` for scale. (2) Inside User-Mode Linux with netem 20 ms
# on the far side: gatewayd (ICMP and UDP), ping and irtt probing the same path at the same time
# every 20 ms; each tool's median and p99, and the k-th probe of each against gatewayd's k-th:
# median and p99 of those differences. Prints markdown tables; exits 1 only if something broke
# (target: < 0.5% of one core).
# env: WINDOW (30 s), SETTLE (3 s), UML_COUNT (500 probes at 20 ms), UML (1; 0: host part only)
. "$(dirname "$0")/lib.bash"
bench_preflight
WINDOW=${WINDOW:-30}
SETTLE=${SETTLE:-3}
UML_COUNT=${UML_COUNT:-500}
TARGET_CPU=0.5
hz=$(getconf CLK_TCK)
cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

# client c0 10.77.2.1 -- s0 server with 10.77.2.2..6
ns_new NC c && ns_new NS s || die "namespaces"
ip link add c0 netns "$NC" type veth peer name s0 netns "$NS" || die "veth"
ip -n "$NC" addr add 10.77.2.1/24 dev c0
for i in 2 3 4 5 6; do ip -n "$NS" addr add 10.77.2.$i/24 dev s0; done
ip -n "$NC" link set c0 up
ip -n "$NS" link set s0 up
ip netns exec "$NC" ping -c 1 -W 2 10.77.2.2 >/dev/null || die "no path"
ip netns exec "$NS" "$GATEWAYD" --reflect 0.0.0.0:2112 2>"$TMPD/reflect.log" &
PIDS+=($!)

# measure NAME CMD...: start CMD in the client namespace (it may fork: every process of the
# namespace's tree is counted through its pid list), CPU and RSS over WINDOW
measure() {
	local name=$1 pids p c0=0 c1=0 rss=0 s e
	shift
	ip netns exec "$NC" "$@" >"$TMPD/$name.out" 2>&1 &
	local top=$!
	PIDS+=("$top")
	sleep "$SETTLE"
	pids=$(ip netns pids "$NC")
	for p in $pids; do c0=$((c0 + $(cpu_ticks "$p"))); done
	s=$(now)
	sleep "$WINDOW"
	e=$(now)
	for p in $pids; do
		c1=$((c1 + $(cpu_ticks "$p")))
		rss=$((rss + $(awk '$1 == "VmRSS:" { print $2 }' "/proc/$p/status")))
	done
	for p in $pids; do kill -TERM "$p" 2>/dev/null; done
	wait "$top" 2>/dev/null
	pids_drop "$top"
	awk -v t="$((c1 - c0))" -v hz="$hz" -v s="$(elapsed "$s" "$e")" -v r="$rss" -v n="$name" \
		'BEGIN { printf "%s %.3f %d\n", n, t / hz / s * 100, r }'
}

conf() {
	cat >"$TMPD/$1.conf" <<-EOF
	links = ( { name = "up"; interface = "c0"; egress = { shaper = "tbf"; rate = "1gbit"; }; } );
	probe = { method = "$1"; targets = [ "10.77.2.2", "10.77.2.3", "10.77.2.4", "10.77.2.5",
	          "10.77.2.6" ]; interval = "100ms"; };
	EOF
}
conf icmp
conf udp
log "CPU and RSS over $WINDOW s each: gatewayd --probe icmp, udp; 5 pings"
read -r _ cpu_i rss_i <<<"$(measure gw-icmp "$GATEWAYD" -c "$TMPD/icmp.conf" --probe 0)"
read -r _ cpu_u rss_u <<<"$(measure gw-udp "$GATEWAYD" -c "$TMPD/udp.conf" --probe 0)"
read -r _ cpu_p rss_p <<<"$(measure ping bash -c 'for i in 2 3 4 5 6; do ping -n -q -i 0.1 10.77.2.$i >/dev/null & done; wait')"
# the runs must have probed: a summary with samples from every target
for m in icmp udp; do
	n=$(grep -c "^# 10.77.2.[2-6]: samples" "$TMPD/gw-$m.out")
	[ "$n" = 5 ] || die "gatewayd --probe $m: no summary for 5 targets: $(tail -n 3 "$TMPD/gw-$m.out")"
	lost=$(grep "^# 10.77.2.2: " "$TMPD/gw-$m.out" | sed -E 's/.* lost ([0-9]+).*/\1/')
	[ "$lost" = 0 ] || log "gatewayd --probe $m lost $lost probes to 10.77.2.2"
done
verdict() { awk -v c="$1" -v t="$TARGET_CPU" 'BEGIN { print (c < t ? "ok" : "missed") }'; }
echo "### CPU and memory, 10 Hz to 5 targets, $WINDOW s (host kernel, $(nproc) CPUs)"
echo
echo "| what | CPU (% of one core) | RSS | target < $TARGET_CPU% |"
echo "|---|---|---|---|"
echo "| gatewayd --probe, ICMP (a line per sample to a file) | $cpu_i | $(mib "$rss_i") | $(verdict "$cpu_i") |"
echo "| gatewayd --probe, UDP to --reflect | $cpu_u | $(mib "$rss_u") | $(verdict "$cpu_u") |"
echo "| 5 x ping -i 0.1 (for scale) | $cpu_p | $(mib "$rss_p") | |"
echo

if ! command -v irtt >/dev/null; then
	echo "(RTT precision: irtt missing: apt-get install irtt)"
	exit 0
fi
# (2) precision on the host's veth path (no netem on the host kernel): the four tools at once
N=$UML_COUNT
ip netns exec "$NS" irtt server -b 10.77.2.2:2113 >/dev/null 2>&1 &
PIDS+=($!)
wait_listening "$NS" 2112 udp && wait_listening "$NS" 2113 udp || die "the reflector or irtt server does not listen"
log "RTT precision on the host: $N probes at 20 ms, gatewayd ICMP and UDP, ping, irtt at once"
mkdir -p "$TMPD/host"
. "$TOP/tests/bench/probe-precision.bash"
probe_precision "$TMPD/host" "$N" "$GATEWAYD" "$NC" 10.77.2.2
. "$TOP/tests/bench/probe-table.bash" "$TMPD/host" "$N" "host kernel, veth, no netem"
echo

# (3) precision on a netem path, in UML
[ "${UML:-1}" = 0 ] && exit 0
log "RTT precision in UML: $UML_COUNT probes at 20 ms, netem 20 ms"
GW_COUNT=$UML_COUNT "$TOP/tests/uml/uml-run" --timeout 240 "$TOP/tests/uml/guest/bench-probe.sh" \
	"$GATEWAYD" >"$TMPD/uml.out" 2>&1
rc=$?
grep -v '^gatewayd-uml: note' "$TMPD/uml.out"
[ "$rc" -eq 0 ] || die "the UML run ended with status $rc: $(tail -n 5 "$TMPD/uml.out")"
