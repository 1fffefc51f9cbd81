#!/usr/bin/env bash
# tests/fuzz/make-nft-seeds.sh: regenerate the real-kernel seeds of fuzz_nft and fuzz_peer
# (root). In a namespace of its own, with gatewayd's notification sockets open
# (build-fuzz/nft_seeds), gatewayd --oneshot applies a config with classes matched both ways
# (its nft table, the ifb's u32 filters: the nf_tables, tc and link notifications), then someone
# else's table comes and goes and ours is changed, flushed and deleted; nftables batches the
# kernel accepts and refuses give the acks. For fuzz_peer, a veth whose peer lives in a second
# namespace, with addresses there, is asked about as container tracking asks (its link, the link
# dump, both namespace files' ids, the peer's addresses in its namespace). Both
# namespaces are removed at the end, also on failure.
# usage: tests/fuzz/make-nft-seeds.sh [NFT_DIR [PEER_DIR]]
#        (default tests/fuzz/corpus/nft and tests/fuzz/corpus/peer)
set -eu
cd "$(dirname "$0")/../.."
nft_out=${1:-tests/fuzz/corpus/nft}
peer_out=${2:-tests/fuzz/corpus/peer}
bin=$PWD/build-fuzz/nft_seeds
gw=$PWD/build/gatewayd
[ "$(id -u)" -eq 0 ] || { echo "make-nft-seeds.sh: needs root (network namespaces)" >&2; exit 1; }

ns=gwfuzz-nft-$$
ctr=gwfuzz-nftc-$$
scratch=$(mktemp -d)
cleanup() {
	ip netns del "$ns" 2>/dev/null || true
	ip netns del "$ctr" 2>/dev/null || true
	rm -rf "$scratch"
}
trap cleanup EXIT
make -s build-fuzz/nft_seeds build/gatewayd
mkdir -p "$nft_out" "$peer_out"
n() { ip netns exec "$ns" "$@"; }

ip netns add "$ns"
ip netns add "$ctr"
n ip link set lo up
n ip link add v0 type veth peer name v1
for d in v0 v1; do n ip link set "$d" up; done
# the config fuzz_nft's own is (tests/fuzz/fuzz_nft.c)
cat >"$scratch/gw.conf" <<'CONF'
links = ( { name = "wan"; interface = "v0";
  egress = { shaper = "htb"; rate = "20mbit"; classes = (
    { name = "voice"; rate = "5mbit"; prio = 0; match = { dscp = [ "ef" ]; };
      child = { kind = "fifo"; }; },
    { name = "bulk"; rate = "15mbit"; default = true; child = { kind = "fifo"; }; } ); };
  ingress = { ifb = "ifb0"; shaper = "htb"; rate = "20mbit"; classes = (
    { name = "voice"; rate = "5mbit"; prio = 0; match = { dscp = [ "ef" ]; };
      child = { kind = "fifo"; }; },
    { name = "bulk"; rate = "15mbit"; default = true; child = { kind = "fifo"; }; } ); }; } );
CONF
n "$bin" monitor "$nft_out" apply "$gw --oneshot -c $scratch/gw.conf"
n "$bin" monitor "$nft_out" foreign "nft add table inet other && \
	nft add chain inet other c '{ type filter hook forward priority 0; }' && \
	nft add rule inet other c counter && nft delete table inet other"
n "$bin" monitor "$nft_out" changed "nft add rule inet gatewayd gw-forward counter && \
	nft flush chain inet gatewayd gw-forward && nft delete table inet gatewayd && \
	tc qdisc del dev v0 root"
n "$bin" acks "$nft_out"

# a container: vc0 here, its peer eth0 in $ctr with an address of each family
n ip link add vc0 type veth peer name eth0 netns "$ctr"
ip netns exec "$ctr" ip link set lo up
ip netns exec "$ctr" ip link set eth0 up
ip netns exec "$ctr" ip addr add 10.0.0.5/24 dev eth0
ip netns exec "$ctr" ip addr add fd00:1::5/64 dev eth0 nodad
n ip link set vc0 up
n "$bin" links "$peer_out" veth vc0 "/run/netns/$ctr" "/run/netns/$ns"
ls "$nft_out" | wc -l | sed 's/^/nft seeds: /'
ls "$peer_out" | wc -l | sed 's/^/peer seeds: /'
