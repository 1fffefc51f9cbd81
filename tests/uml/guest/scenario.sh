#!/bin/bash
# tests/uml/guest/scenario.sh: guest side of tests/uml/test_scenario.sh. `gatewayd --compare
# --scenario variable` on this (UML) kernel, the ways given, results into OUT (on the host's
# disk); then nothing may be left behind (namespaces, ifb devices, gatewayd processes, scratch
# directories).
# Arguments: the gatewayd binary, OUT, the step length, the ways.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$UML_LIB" || exit 1
GW=${1:?gatewayd binary}
OUT=${2:?output directory}
STEP=${3:-9s}
WAYS=${4:-autorate,fixed,none}
T=$(mktemp -d)

leftovers() {
	local ns procs dirs ifb
	ns=$(ip netns list | grep -c gwcmp)
	procs=$(pgrep -c -f 'gatewayd -c')
	dirs=$(find /tmp -maxdepth 1 -name 'gwcmp.*' | wc -l)
	ifb=$(ip -o link show type ifb | wc -l)
	echo "namespaces $ns, processes $procs, scratch dirs $dirs, ifb $ifb"
	[ "$ns" = 0 ] && [ "$procs" = 0 ] && [ "$dirs" = 0 ] && [ "$ifb" = 0 ]
}

s0=$SECONDS
"$GW" --compare --kernel host --in-uml --scenario variable --step-time "$STEP" --ways "$WAYS" \
	--out "$OUT" >"$T/full" 2>&1
rc=$?
sed 's/^/# /' "$T/full" | grep -v '^#     '	# the table, without the progress lines
echo "# the run took $((SECONDS - s0)) s"
check_detail "--compare --scenario variable ends with status 0 (status $rc)" "$(tail -5 "$T/full" | tr '\n' ' ')" test $rc -eq 0
left=$(leftovers)
check_detail "the scenario leaves nothing behind: $left" "$left" eval "leftovers >/dev/null"

rm -rf "$T"
tap_status
