#!/bin/bash
# tests/uml/guest/compare.sh: guest side of tests/uml/test_compare.sh. `gatewayd --compare`
# on this (UML) kernel, all four queues, results into OUT (on the host's disk); then nothing
# may be left behind (namespaces, ifb devices, gatewayd or iperf3 processes, scratch
# directories); then a run interrupted with SIGINT during the load, and the same check.
# Arguments: the gatewayd binary, OUT, the per-queue duration.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$UML_LIB" || exit 1
GW=${1:?gatewayd binary}
OUT=${2:?output directory}
DUR=${3:-10s}
T=$(mktemp -d)

leftovers() {
	local ns procs dirs ifb
	ns=$(ip netns list | grep -c gwcmp)
	procs=$(pgrep -c -f 'iperf3|gatewayd -c')
	dirs=$(find /tmp -maxdepth 1 -name 'gwcmp.*' | wc -l)
	ifb=$(ip -o link show type ifb | wc -l)
	echo "namespaces $ns, processes $procs, scratch dirs $dirs, ifb $ifb"
	[ "$ns" = 0 ] && [ "$procs" = 0 ] && [ "$dirs" = 0 ] && [ "$ifb" = 0 ]
}

s0=$SECONDS
"$GW" --compare --kernel host --in-uml --duration "$DUR" --out "$OUT" >"$T/full" 2>&1
rc=$?
sed 's/^/# /' "$T/full" | grep -v '^#     '	# the table, without the progress lines
echo "# the run took $((SECONDS - s0)) s"
check "--compare ends with status 0 (status $rc)" "$(tail -5 "$T/full" | tr '\n' ' ')" test $rc -eq 0
left=$(leftovers)
check "a whole run leaves nothing behind: $left" "$left" eval "leftovers >/dev/null"

timeout 60 "$GW" --compare --kernel host --qdiscs fifo --duration 6s >"$T/int" 2>&1 &
pid=$!
for _ in $(seq 150); do grep -q ' tcp ' "$T/int" 2>/dev/null && break; sleep 0.1; done
sleep 1
kill -INT $pid
wait $pid
rc=$?
check "SIGINT during the load: status 130 (status $rc)" "$(tail -5 "$T/int" | tr '\n' ' ')" test $rc -eq 130
check "SIGINT: it says it removes the testbed" "$(tail -3 "$T/int" | tr '\n' ' ')" grep -q "interrupted: removing the testbed" "$T/int"
left=$(leftovers)
check "SIGINT leaves nothing behind: $left" "$left" eval "leftovers >/dev/null"
rm -rf "$T"
uml_status
