#!/usr/bin/env bash
# tests/bench/autorate.sh: what autorate costs. The daemon shapes a router's WAN (htb 40 mbit,
# autorate 4..60 mbit, interval 200 ms) towards a "modem" namespace whose own htb passes 20
# Mbit/s over a deep fifo, probes 3 reflectors (one `gatewayd --reflect` per address) at 20 Hz
# each by UDP, and moves its rate under a TCP load through it. Beside it, in the same run and
# window, 3 `ping -i 0.05` to the same 3 addresses. CPU of each over WINDOW seconds from
# /proc/PID/task/*/schedstat (time on a CPU of all threads, ns; utime + stime from
# /proc/PID/stat beside it), as % of one core, the ratio, the rate changes
# the daemon made. Prints a markdown table; exits 1 only if something broke (target: the
# daemon under 1% of one core).
# env: WINDOW (60 s), SETTLE (5 s)
. "$(dirname "$0")/lib.bash"
bench_preflight curl jq iperf3 ping

WINDOW=${WINDOW:-60}
SETTLE=${SETTLE:-5}
TARGET_CPU=1
hz=$(getconf CLK_TCK)
cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
# cpu_ns PID: time on a CPU of all its threads, ns (schedstat: finer than utime's 10 ms ticks,
# which a ping at 20 Hz does not reach in a minute)
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }'; }
pct() { awk -v t="$1" -v hz="$hz" -v s="$2" 'BEGIN { printf "%.2f", t / hz / s * 100 }'; }
pct_ns() { awk -v t="$1" -v s="$2" 'BEGIN { printf "%.3f", t / 1e9 / s * 100 }'; }

ns_new NS_R ar && ns_new NS_M am && ns_new NS_S as || die "namespaces"
ip link add r1 netns "$NS_R" type veth peer name m0 netns "$NS_M" &&
	ip link add m1 netns "$NS_M" type veth peer name s0 netns "$NS_S" || die "veths"
ip -n "$NS_R" addr add 10.79.2.1/24 dev r1
ip -n "$NS_M" addr add 10.79.2.2/24 dev m0
ip -n "$NS_M" addr add 10.79.3.1/24 dev m1
for a in 2 3 4; do ip -n "$NS_S" addr add "10.79.3.$a/24" dev s0; done
for l in "$NS_R r1" "$NS_M m0" "$NS_M m1" "$NS_S s0"; do
	set -- $l
	ip -n "$1" link set "$2" up
done
ip -n "$NS_R" route add default via 10.79.2.2
ip -n "$NS_S" route add default via 10.79.3.1
ip netns exec "$NS_M" sysctl -qw net.ipv4.ip_forward=1
ip netns exec "$NS_R" sysctl -qw net.ipv4.ping_group_range="0 2147483647"
tc -n "$NS_M" qdisc add dev m1 root handle 1: htb default 1 &&
	tc -n "$NS_M" class add dev m1 parent 1: classid 1:1 htb rate 20mbit ceil 20mbit quantum 1514 &&
	tc -n "$NS_M" qdisc add dev m1 parent 1:1 handle 10: pfifo limit 1000 || die "the modem"
for a in 2 3 4; do
	ip netns exec "$NS_S" "$GATEWAYD" --reflect "10.79.3.$a:2112" 2>"$TMPD/reflect.$a" &
	PIDS+=($!)
done
for a in 2 3 4; do
	wait_for "grep -q answering '$TMPD/reflect.$a'" 5 "reflector $a" || die "reflector $a"
done

cat >"$TMPD/a.conf" <<'CONF'
interval = "200ms";
links = ( { name = "wan"; interface = "r1";
  egress = { shaper = "htb"; rate = "40mbit";
    classes = (
      { name = "probe"; rate = "1mbit"; ceil = "40mbit"; prio = 0;
        match = ( { proto = "udp"; dport = 2112; }, { proto = "icmp"; } );
        child = { kind = "fifo"; limit = 100; }; },
      { name = "bulk"; rate = "39mbit"; ceil = "40mbit"; prio = 1; default = true;
        child = { kind = "fifo"; limit = 100; }; } );
    autorate = { min = "4mbit"; max = "60mbit"; }; }; } );
probe = { method = "udp"; interval = "50ms";
  targets = [ "10.79.3.2:2112", "10.79.3.3:2112", "10.79.3.4:2112" ]; };
CONF
daemon_start GW_PID "$NS_R" "$TMPD/a.conf" "$TMPD/daemon.log"
wait_log "$GW_PID" "$TMPD/daemon.log" "applied and verified" 30 ||
	die "the daemon did not start: $(tail -n 5 "$TMPD/daemon.log" | tr '\n' ' ')"
pings=()
for a in 2 3 4; do
	# no timeout(1) in between: the pid is ping's own (-w bounds it)
	ip netns exec "$NS_R" ping -q -i 0.05 -w $((WINDOW + SETTLE + 60)) "10.79.3.$a" >/dev/null 2>&1 &
	PIDS+=($!)
	pings+=($!)
done
ip netns exec "$NS_S" timeout $((WINDOW + SETTLE + 60)) iperf3 -s -1 -B 10.79.3.2 >/dev/null 2>&1 &
PIDS+=($!)
wait_listening "$NS_S" 5201 || die "iperf3 server"
ip netns exec "$NS_R" timeout $((WINDOW + SETTLE + 30)) iperf3 -c 10.79.3.2 -P 4 \
	-t $((WINDOW + SETTLE + 5)) >/dev/null 2>&1 &
PIDS+=($!)
sleep "$SETTLE"	# a duration: the load and the pings running before the window

changes() {
	ip netns exec "$NS_R" curl -s -m 3 http://127.0.0.1:9180/api/status |
		jq '.links[0].directions[0].autorate.changes | .bloat + .load + .idle + .queue'
}
ch0=$(changes)
g0=$(cpu_ticks "$GW_PID")
gn0=$(cpu_ns "$GW_PID")
pn0=0
for p in "${pings[@]}"; do pn0=$((pn0 + $(cpu_ns "$p"))); done
s=$(now)
sleep "$WINDOW"
g1=$(cpu_ticks "$GW_PID")
gn1=$(cpu_ns "$GW_PID")
pn1=0
for p in "${pings[@]}"; do pn1=$((pn1 + $(cpu_ns "$p"))); done
e=$(now)
ch1=$(changes)
secs=$(elapsed "$s" "$e")
gtick=$(pct $((g1 - g0)) "$secs")
gcpu=$(pct_ns $((gn1 - gn0)) "$secs")
pcpu=$(pct_ns $((pn1 - pn0)) "$secs")
loadavg=$(cut -d' ' -f1-3 /proc/loadavg)
log "daemon $((gn1 - gn0)) ns ($((g1 - g0)) ticks at $hz Hz), 3 pings $((pn1 - pn0)) ns over $secs s; $((ch1 - ch0)) changes"
daemon_stop rc "$GW_PID" 20
[ "$rc" = 0 ] || die "daemon exited $rc: $(tail -n 3 "$TMPD/daemon.log" | tr '\n' ' ')"

met() { awk -v v="$1" -v t="$2" 'BEGIN { exit !(v < t) }' && echo met || echo "**missed**"; }
echo "| over ${secs} s, load average $loadavg | CPU, % of one core | target |"
echo "|---|---:|---|"
echo "| gatewayd: htb 2 classes, autorate, 3 UDP reflectors at 20 Hz, 200 ms passes, $((ch1 - ch0)) rate changes | $gcpu (utime + stime: $gtick) | < ${TARGET_CPU}%: $(met "$gcpu" "$TARGET_CPU") |"
echo "| 3 x \`ping -i 0.05\` to the same hosts | $pcpu | |"
echo "| ratio gatewayd / pings | $(ratio "$gcpu" "$pcpu") | |"
