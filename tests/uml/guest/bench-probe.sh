#!/bin/bash
# tests/uml/guest/bench-probe.sh: guest side of tests/bench/probe.sh: gatewayd (ICMP and UDP),
# ping and irtt probe the same netem 20 ms path at the same time, every 20 ms, GW_COUNT probes
# each; prints a markdown table: each tool's median and p99, and the k-th RTT of each tool less
# gatewayd ICMP's k-th (probes sent within the same few ms): median and p99 of those
# differences. Argument: the gatewayd binary.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$UML_LIB" || exit 1
GW=${1:?gatewayd binary}
N=${GW_COUNT:-500}
T=$(mktemp -d)
uml_topology || { echo "topology failed"; exit 1; }
uml_netem_far 20ms limit 10000

for m in icmp udp; do
	cat >"$T/$m.conf" <<-CONF
	links = ( { name = "up"; interface = "c0"; egress = { shaper = "tbf"; rate = "1gbit"; }; } );
	probe = { method = "$m"; targets = [ "$UML_IP_S" ]; interval = "20ms"; timeout = "1s"; };
	CONF
done
ip netns exec $UML_NS_S "$GW" --reflect 0.0.0.0:2112 2>/dev/null &
RPID=$!
ip netns exec $UML_NS_S irtt server -b "$UML_IP_S:2113" >/dev/null 2>&1 &
IPID=$!
sleep 1
secs=$(awk -v n="$N" 'BEGIN { printf "%.2f", n * 0.02 }')
ip netns exec $UML_NS_C "$GW" -c "$T/icmp.conf" --probe "$N" >"$T/gw-icmp" 2>&1 &
p1=$!
ip netns exec $UML_NS_C "$GW" -c "$T/udp.conf" --probe "$N" >"$T/gw-udp" 2>&1 &
p2=$!
ip netns exec $UML_NS_C ping -n -c "$N" -i 0.02 -W 2 $UML_IP_S >"$T/ping" 2>&1 &
p3=$!
ip netns exec $UML_NS_C timeout 120 irtt client -q -i 20ms -d "${secs}s" -o "$T/irtt.json" \
	"$UML_IP_S:2113" >/dev/null 2>&1 &
p4=$!
wait $p1 $p2 $p3 $p4
kill -TERM $RPID $IPID 2>/dev/null

. "$(dirname "$0")/../../bench/probe-table.bash" "$T" "$N" "UML (one CPU), netem 20 ms on the far side"
