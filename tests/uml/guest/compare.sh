#!/bin/bash
# tests/uml/guest/compare.sh: guest side of tests/uml/test_compare.sh. `gatewayd --compare`
# on this (UML) kernel, all four queues, results into OUT (on the host's disk); then nothing
# may be left behind (namespaces, ifb devices, gatewayd processes, scratch
# directories). (SIGINT is tested on the host kernel, by test_compare.sh: the same code.)
# Arguments: the gatewayd binary, OUT, the per-queue duration, the --qdiscs list (default:
# the bench's own), and where its output goes (default: a scratch file in the guest; a host
# path lets the host follow the run, and read the status page it announces).
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$UML_LIB" || exit 1
GW=${1:?gatewayd binary}
OUT=${2:?output directory}
DUR=${3:-10s}
QDISCS=${4:-fifo,fq_codel,cake,cake-shaper}
T=$(mktemp -d)
LOG=${5:-$T/full}

leftovers() {
	local ns procs dirs ifb
	ns=$(ip netns list | grep -c gwcmp)
	# the daemons, and the bench's own children (its status page relay: relay.c)
	procs=$(($(pgrep -c -f 'gatewayd -c') + $(pgrep -c -f -- '--compare --kernel host')))
	dirs=$(find /tmp -maxdepth 1 -name 'gwcmp.*' | wc -l)
	ifb=$(ip -o link show type ifb | wc -l)
	echo "namespaces $ns, processes $procs, scratch dirs $dirs, ifb $ifb"
	[ "$ns" = 0 ] && [ "$procs" = 0 ] && [ "$dirs" = 0 ] && [ "$ifb" = 0 ]
}

s0=$SECONDS
"$GW" --compare --kernel host --in-uml --duration "$DUR" --qdiscs "$QDISCS" --out "$OUT" >"$LOG" 2>&1
rc=$?
sed 's/^/# /' "$LOG" | grep -v '^#     '	# the table, without the progress lines
echo "# the run took $((SECONDS - s0)) s"
check_detail "--compare ends with status 0 (status $rc)" "$(tail -5 "$LOG" | tr '\n' ' ')" test $rc -eq 0
left=$(leftovers)
check_detail "a whole run leaves nothing behind: $left" "$left" eval "leftovers >/dev/null"

rm -rf "$T"
tap_status
