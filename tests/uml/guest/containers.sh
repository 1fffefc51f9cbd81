#!/bin/bash
# tests/uml/guest/containers.sh: guest side of tests/uml/test_containers.sh. One container
# appears after gatewayd started, under an entry with no child (so fq_codel, the default, which
# the host kernel lacks): its tree is checked with tc -j, traffic from the container is held
# at the ingress cap through the ifb's fq_codel, and when the container goes its ifb goes. Argument:
# the gatewayd binary.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$UML_LIB" || exit 1
H=ch		# the host namespace gatewayd runs in
C=ctr-web1	# the container
uml_guest_begin "$1" no-topology
ip -b - <<EOF || { not_ok "namespaces" "ip netns add failed"; exit 1; }
netns add $H
netns add $C
EOF
ip -n $H link set lo up
cat >"$T/c.conf" <<CONF
containers = ( { interfaces = "vc*"; netns = "ctr-*";
    egress = { rate = "10mbit"; ceil = "20mbit"; };
    ingress = { rate = "4mbit"; }; } );
CONF
out=$("$GW" -c "$T/c.conf" --check 2>&1)
check_detail "--check: the default child fq_codel is there in this kernel" "$out" test $? -eq 0
: >"$T/log"	# there before the first look
ip netns exec $H "$GW" -c "$T/c.conf" >>"$T/log" 2>&1 &
GWPID=$!
wait_for '[[ $(<"$T/log") == *"following containers"* ]]' 10 "gatewayd to log that it follows containers"

# the container's pair, made from inside it: vc1 appears in the host namespace
ip -n $C -b - <<EOF
link add eth0 type veth peer name vc1 netns $H
link set lo up
addr add 10.66.0.2/24 dev eth0
link set eth0 up
EOF
ip -n $H -b - <<EOF
addr add 10.66.0.1/24 dev vc1
link set vc1 up
EOF
idx=$(ip -n $H -j link show dev vc1 | jq -r '.[0].ifindex')
wait_for '[ "$(qdisc_kind gwc-$idx h:1000: $H 2>/dev/null)" = fq_codel ]' 5 "fq_codel on gwc-$idx"
expect_qdisc "egress of vc1: htb at the ceil's cap" vc1 root $H htb '.handle == "e000:"'
expect_qdisc "its class's queue: fq_codel (the default child)" vc1 e000:10 $H fq_codel
expect_qdisc "the ingress hook on vc1" vc1 ingress $H ingress
expect_qdisc "ingress through gwc-$idx: fq_codel under htb" gwc-$idx e000:10 $H fq_codel

# Traffic from the container is ingress for vc1: through the ifb, at 4 mbit (low, so that a busy
# host's slow guest still outruns the shaper). A UDP flood at 1.5x the cap: what arrives is
# the shaper's output, payload 1400 of 1442 bytes on the wire (0.971 of the cap). Then TCP, for
# the record only (the guest's one CPU, on a busy host, gave 2.8 to 3.8 Mbit/s over runs).
iperf_srv() {
	timeout 30 ip netns exec $H iperf3 -s -1 -B 10.66.0.1 >/dev/null 2>&1 &
	SRV=$!
	uml_wait_listening $H 5201
}
# a sender starved of CPU (the guest shares a busy host) offers less than the cap and proves
# nothing: then the run is made once more
for try in 1 2; do
	iperf_srv
	json=$(timeout 25 ip netns exec $C iperf3 -c 10.66.0.1 -u -l 1400 -b 6M -t 3 -O 1 -J 2>&1)
	wait $SRV
	mbit=$(echo "$json" | jq -r '.end.sum_received.bits_per_second / 1e6 | . * 100 | round / 100' 2>/dev/null)
	sent=$(echo "$json" | jq -r '.end.sum_sent.bits_per_second / 1e6 | . * 100 | round / 100' 2>/dev/null)
	echo "# UDP from the container, try $try: $sent Mbit/s offered, $mbit Mbit/s arrived, of the 4 mbit ingress cap"
	[ -n "$mbit" ] || echo "# iperf3: $(echo "$json" | grep -m1 error)"
	num_below "${sent:-0}" 4.8 || break
done
check_detail "the container's traffic held at 90-100% of its ingress cap ($mbit Mbit/s)" "$mbit" \
	num_between "${mbit:-0}" 3.6 4
iperf_srv
json=$(timeout 25 ip netns exec $C iperf3 -c 10.66.0.1 -t 3 -O 1 -P 2 -J 2>&1)
echo "# TCP from the container, 2 flows: $(echo "$json" | jq -r '.end.sum_received.bits_per_second / 1e6 | . * 100 | round / 100' 2>/dev/null) Mbit/s"
wait $SRV
p=$(qdisc_get gwc-$idx e000:10 $H .packets)
check_detail "the ifb's fq_codel carried it ($p packets)" "$p" num_between "${p:-0}" 1000 100000000

# the container goes: its ifb goes with it
ip netns del $C
check_detail "container gone: ifb gwc-$idx removed" "still there" wait_for "! ip -n $H link show gwc-$idx >/dev/null 2>&1" 5
kill -TERM $GWPID
wait $GWPID
rc=$?
check_detail "SIGTERM: exit 0" "status $rc" test $rc -eq 0
grep -q "container vc1: shaped" "$T/log" || echo "# log: $(tr '\n' '|' <"$T/log")"
tap_status
