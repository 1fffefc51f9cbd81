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

ip netns exec $UML_NS_S "$GW" --reflect 0.0.0.0:2112 2>/dev/null &
RPID=$!
ip netns exec $UML_NS_S irtt server -b "$UML_IP_S:2113" >/dev/null 2>&1 &
IPID=$!
uml_wait_listening $UML_NS_S 2112 udp && uml_wait_listening $UML_NS_S 2113 udp
. "$(dirname "$0")/../../bench/probe-precision.bash"
probe_precision "$T" "$N" "$GW" $UML_NS_C $UML_IP_S
kill -TERM $RPID $IPID 2>/dev/null

. "$(dirname "$0")/../../bench/probe-table.bash" "$T" "$N" "UML (one CPU), netem 20 ms on the far side"
