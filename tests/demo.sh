#!/usr/bin/env bash
# tests/demo.sh (sudo make demo): a router in a network namespace shaped by gatewayd on a
# built-in config, loaded by 4 TCP flows from a client namespace, with latency measured idle
# and under load. Everything runs in namespaces this script makes and removes.
. "$(dirname "$0")/netns/lib.sh"

RATE=${DEMO_RATE:-20}
SECS=${DEMO_SECONDS:-10}
topo_chain || { echo "demo: could not build the namespaces (are you root?)" >&2; exit 1; }

child=fq_codel
cat >"$TMPD/demo.conf" <<CONF
links = ( { name = "wan"; interface = "r1";
  egress = { shaper = "htb"; rate = "${RATE}mbit"; child = { kind = "$child"; }; }; } );
CONF
if ! ip netns exec "$NS_R" "$GATEWAYD" -c "$TMPD/demo.conf" --check >/dev/null 2>"$TMPD/check"; then
	echo "== this kernel has no fq_codel ($(sed 's/.*the kernel said: //; s/);.*//' "$TMPD/check"));"
	echo "== using a 1000-packet fifo: what a plain router does (the bufferbloat baseline)"
	child=fifo
	sed -i 's/kind = "fq_codel"/kind = "fifo"; limit = 1000/' "$TMPD/demo.conf"
fi
echo "== config:"
sed 's/^/   /' "$TMPD/demo.conf"
gw_start "$NS_R" "$TMPD/demo.conf" || { cat "$GW_LOG"; exit 1; }
echo "== $(grep 'applied and verified' "$GW_LOG" | sed 's/^gatewayd: info: //')"
echo "== the tree on the router's WAN side:"
ip netns exec "$NS_R" tc qdisc show dev r1 | sed 's/^/   /'

pct() {	# pct P < values: the P-th percentile
	sort -n | awk -v p="$1" '{ v[NR] = $1 } END { if (!NR) { print "-"; exit }
		i = int(p / 100 * NR + 0.5); if (i < 1) i = 1; if (i > NR) i = NR; printf "%.1f", v[i] }'
}
rtts() { grep -o 'time=[0-9.]*' "$1" | cut -d= -f2; }

echo "== idle latency (3 s of pings)"
timeout 10 ip netns exec "$NS_C" ping -n -i 0.1 -c 30 10.77.2.2 >"$TMPD/idle" 2>&1
ip netns exec "$NS_S" timeout $((SECS + 20)) iperf3 -s -1 -B 10.77.2.2 >/dev/null 2>&1 &
PIDS+=($!)
sleep 0.3
echo "== loaded: 4 TCP flows through the router for $SECS s, pings alongside"
timeout $((SECS + 10)) ip netns exec "$NS_C" ping -n -i 0.1 -w "$SECS" 10.77.2.2 >"$TMPD/loaded" 2>&1 &
PIDS+=($!)
bps=$(timeout $((SECS + 20)) ip netns exec "$NS_C" iperf3 -c 10.77.2.2 -P 4 -t "$SECS" -O 1 -J |
	jq -r '.end.sum_received.bits_per_second // 0')
wait "${PIDS[-1]}" 2>/dev/null
stats=$(ip netns exec "$NS_R" tc -s qdisc show dev r1 | grep -m1 -A2 'htb e000:' | tr -s ' ')

printf '\n%-28s %s\n' "shaper" "htb ${RATE}mbit, $child queue"
printf '%-28s %.1f Mbit/s (%.1f%% of the configured rate)\n' "TCP goodput" \
	"$(awk -v b="$bps" 'BEGIN { print b / 1e6 }')" "$(awk -v b="$bps" -v r="$RATE" 'BEGIN { print b / (r * 1e4) }')"
printf '%-28s p50 %s ms, p95 %s ms\n' "ping idle" "$(rtts "$TMPD/idle" | pct 50)" "$(rtts "$TMPD/idle" | pct 95)"
printf '%-28s p50 %s ms, p95 %s ms\n' "ping under load" "$(rtts "$TMPD/loaded" | pct 50)" "$(rtts "$TMPD/loaded" | pct 95)"
printf '%-28s %s\n' "router's qdisc counters" "$(echo "$stats" | sed -n 2p)"
echo
if [ "$child" = fifo ]; then
	echo "A plain fifo lets the queue grow to its limit: the latency under load above is what"
	echo "bufferbloat looks like. fq_codel or cake (on a kernel that has them) keep it near 5 ms."
fi
gw_stop
echo "== gatewayd stopped; the router's qdisc is back to: $(ip netns exec "$NS_R" tc qdisc show dev r1)"
