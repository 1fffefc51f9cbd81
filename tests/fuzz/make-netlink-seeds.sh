#!/usr/bin/env bash
# tests/fuzz/make-netlink-seeds.sh: regenerate fuzz_netlink's seeds from a real kernel (root).
# Builds a namespace with the trees gatewayd makes (htb with classes, leaves and a size table;
# tbf with a child; ingress with a u32 mirred redirect to an ifb with its own shaper), sends a
# little traffic so counters are not all zero, dumps every qdisc, class, filter and link through
# gatewayd's own netlink code (build-fuzz/netlink_seeds: gw_nl_dump_tc, gw_nl_request), saves
# the kernel's error acks for refused requests, and removes the namespace. The host kernel has
# no fq_codel or cake: their leaves are pfifo/bfifo there, and with --uml the same is done
# again inside User-Mode Linux (tests/uml/uml-run), where they exist. Synthetic fq_codel and
# cake xstats, error acks, and gatewayd's own requests for a config that sets every knob
# (planned-*) are added either way.
# usage: tests/fuzz/make-netlink-seeds.sh [--uml] [OUT_DIR]   (default tests/fuzz/corpus/netlink)
set -eu
cd "$(dirname "$0")/../.."
uml=0 guest=0
case ${1:-} in
--uml) uml=1; shift ;;
--guest) guest=1; shift ;;	# internal: we are the script uml-run started
esac
out=${1:-tests/fuzz/corpus/netlink}
bin=build-fuzz/netlink_seeds
[ "$(id -u)" -eq 0 ] || { echo "make-netlink-seeds.sh: needs root (network namespaces)" >&2; exit 1; }

ns=gwfuzz-seeds-$$
n() { ip netns exec "$ns" "$@"; }
has_kind() {	# has_kind KIND ARGS...: can this kernel make that qdisc?
	n tc qdisc add dev lo root handle 9: "$@" >/dev/null 2>&1 &&
		n tc qdisc del dev lo root >/dev/null 2>&1
}

# build the tree in $ns, dump it into $out with names starting real-$1-
capture() {
	local tag=$1 codel=(pfifo limit 500) cake=(bfifo limit 96kb) ifbq=(tbf rate 50mbit burst 16k latency 20ms)
	ip netns add "$ns"
	trap 'ip netns del "$ns" 2>/dev/null || true' EXIT
	n ip link set lo up
	if has_kind fq_codel; then
		codel=(fq_codel limit 1000 flows 64 target 2ms interval 40ms ecn ce_threshold 1ms memory_limit 4Mb)
	fi
	if has_kind cake; then
		cake=(cake unlimited diffserv4 nat wash ack-filter rtt 50ms)
		ifbq=(cake bandwidth 50mbit besteffort dual-srchost ingress)
	fi
	n ip link add v0 type veth peer name v1
	n ip link add ifb0 type ifb
	n ip addr add 10.99.0.1/24 dev v0
	n ip addr add 10.99.0.2/24 dev v1
	for d in v0 v1 ifb0; do n ip link set "$d" up; done
	n tc -b - <<-EOF
	qdisc add dev v0 root handle e000: stab overhead 4 mpu 64 linklayer ethernet htb default 11
	class add dev v0 parent e000: classid e000:1 htb rate 100mbit ceil 100mbit burst 15k cburst 15k
	class add dev v0 parent e000:1 classid e000:10 htb rate 10mbit ceil 100mbit prio 0 quantum 1514
	class add dev v0 parent e000:1 classid e000:11 htb rate 80mbit ceil 100mbit prio 1
	class add dev v0 parent e000:1 classid e000:12 htb rate 10mbit ceil 20mbit prio 7
	qdisc add dev v0 parent e000:10 handle 1000: ${codel[*]}
	qdisc add dev v0 parent e000:11 handle 1001: ${cake[*]}
	qdisc add dev v0 parent e000:12 handle 1002: bfifo limit 64kb
	qdisc add dev v0 handle ffff: ingress
	filter add dev v0 parent ffff: protocol all prio 49152 u32 match u32 0 0 action mirred egress redirect dev ifb0
	qdisc add dev ifb0 root handle e000: stab overhead 40 linklayer atm ${ifbq[*]}
	qdisc add dev v1 root handle e000: tbf rate 20mbit burst 32k latency 20ms
	qdisc add dev v1 parent e000:1 handle 1000: ${codel[*]}
	EOF
	# a little traffic both ways (one packet in each dscp class for cake's tins)
	n ping -q -c 20 -i 0.01 -s 1200 10.99.0.2 >/dev/null || true
	for tos in 0x20 0xb8 0x88; do n ping -q -c 3 -i 0.01 -Q $tos 10.99.0.1 >/dev/null || true; done
	mkdir -p "$out/tmp-$tag"
	n "$bin" dump "$out/tmp-$tag" v0 v1 ifb0
	n "$bin" errors "$out/tmp-$tag" v0
	for f in "$out/tmp-$tag"/real-*; do mv "$f" "$out/real-$tag-${f##*/real-}"; done
	rmdir "$out/tmp-$tag"
	ip netns del "$ns"
	trap - EXIT
}

if [ "$guest" = 1 ]; then
	capture uml
	exit 0
fi
make -s "$bin"
mkdir -p "$out"
rm -f "$out"/real-* "$out"/synth-* "$out"/planned-*
capture host
if [ "$uml" = 1 ]; then
	tests/uml/uml-run --timeout 120 "$0" --guest "$out"
fi
"$bin" synthetic "$out"
echo "$(ls "$out" | wc -l) seeds in $out"
