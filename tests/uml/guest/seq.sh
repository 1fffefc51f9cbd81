#!/bin/bash
# tests/uml/guest/seq.sh: several guest scripts of one suite in one boot (a boot is ~8 s of a
# suite). Arguments: the gatewayd binary, then each script and its arguments, the scripts
# separated by "--": seq.sh GW a.sh -- b.sh ARG -- c.sh ARG. Each runs as its own process
# with the binary first (each sets its topology up afresh: uml_topology cleans the last
# one's); their ok / not ok lines pass through. Exit status: 0 when each exited 0, else the
# last non-zero one, after a not ok naming each script that did.
gw=${1:?gatewayd binary}
shift
here=$(dirname "$0")
rc=0
while [ $# -gt 0 ]; do
	cmd=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		cmd+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	[ ${#cmd[@]} -gt 0 ] || continue
	"$here/${cmd[0]}" "$gw" "${cmd[@]:1}"
	r=$?
	if [ $r -ne 0 ]; then
		echo "not ok - the guest script ${cmd[*]} ended with status $r"
		rc=$r
	fi
done
exit $rc
