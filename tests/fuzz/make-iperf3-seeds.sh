#!/usr/bin/env bash
# tests/fuzz/make-iperf3-seeds.sh: regenerate fuzz_iperf3's seeds from a real iperf3 (root): in
# a namespace of its own, an iperf3 server on its loopback and the client run as the load test
# runs it (-J, -P, -O, -i, -t; -R for the download, --bidir for both), 2 s with a 1 s ramp in
# 0.5 s intervals as fuzz_iperf3 assumes, for each phase with 1 and 2 flows, and the report of a
# refused connection (no server). Each file: 2 bytes (the phase, the flows), then the report.
# The namespace and the server go at the end, also on failure.
# usage: tests/fuzz/make-iperf3-seeds.sh [OUT_DIR]   (default tests/fuzz/corpus/iperf3)
set -eu
cd "$(dirname "$0")/../.."
out=${1:-tests/fuzz/corpus/iperf3}
[ "$(id -u)" -eq 0 ] || { echo "make-iperf3-seeds.sh: needs root (a network namespace)" >&2; exit 1; }
command -v iperf3 >/dev/null || { echo "make-iperf3-seeds.sh: needs iperf3" >&2; exit 1; }
ns=gwfuzz-ip3-$$
srv=
cleanup() {
	# (set -e: a failing last command here would skip the namespace's removal)
	if [ -n "$srv" ]; then kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null || true; fi
	ip netns del "$ns" 2>/dev/null || true
}
trap cleanup EXIT
ip netns add "$ns"
ip netns exec "$ns" ip link set lo up
ip netns exec "$ns" iperf3 -s -p 5201 >/dev/null 2>&1 &
srv=$!
mkdir -p "$out"
. tests/wait_for.sh
wait_for "ip netns exec $ns ss -Hltn 'sport = :5201' | grep -q ." 5 "iperf3 -s to listen in $ns"
# seed PHASE FLOWS NAME ARGS...: phase 0 download (-R), 1 upload, 2 both (--bidir)
seed() {
	local phase=$1 flows=$2 name=$3
	shift 3
	{
		printf "\\x$(printf %02x "$phase")\\x$(printf %02x $((flows - 1)))"
		ip netns exec "$ns" iperf3 -c 127.0.0.1 -p "${PORT:-5201}" -t 1 -O 1 -P "$flows" \
			-i 0.50 -J --connect-timeout 3000 "$@" || true
	} >"$out/seed-$name"
}
seed 0 1 download-1 -R
seed 0 2 download-2 -R
seed 1 1 upload-1
seed 1 2 upload-2
seed 2 1 both-1 --bidir
seed 2 2 both-2 --bidir
PORT=5299 seed 1 1 refused
ls "$out" | wc -l | sed 's/^/iperf3 seeds: /'
