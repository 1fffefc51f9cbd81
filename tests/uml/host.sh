# tests/uml/host.sh: the host side of a UML suite whose checks all run in one guest script.
# Source it from tests/uml/test_NAME.sh, then call uml_suite. Runs from the repo root.
# shellcheck shell=bash
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
GATEWAYD=${GATEWAYD:-$PWD/build/gatewayd}

# uml_suite WHAT TIMEOUT GUEST...: skip without root; else boot one guest (tests/uml/uml-run,
# TIMEOUT seconds for each GUEST) that runs each GUEST ("SCRIPT [ARGS]",
# tests/uml/guest/SCRIPT with the gatewayd binary and ARGS) in turn: several through
# guest/seq.sh, which saves a boot each. The guest's ok / not ok lines pass straight through;
# a run that ends with another status than 0 adds a not ok of its own. Exits 0: the counted
# lines are the verdict.
uml_suite() {
	local what=$1 tmo=$2 guest rc words=()
	shift 2
	if [ "$(id -u)" != 0 ]; then
		echo "skip - $what: needs root"
		exit 0
	fi
	for guest in "$@"; do
		# shellcheck disable=SC2206  # "SCRIPT ARGS" are words
		words+=($guest --)
	done
	if [ $# -eq 1 ]; then
		tests/uml/uml-run --timeout "$tmo" "tests/uml/guest/${words[0]}" "$GATEWAYD" \
			"${words[@]:1:${#words[@]}-2}"
	else
		tests/uml/uml-run --timeout $((tmo * $#)) tests/uml/guest/seq.sh "$GATEWAYD" \
			"${words[@]}"
	fi
	rc=$?
	[ $rc -eq 0 ] || echo "not ok - the UML guest run of $* ended with status $rc"
	exit 0
}

# For a suite that judges on the host what a guest measured (gatewayd --compare --kernel uml):
# ok NAME, not_ok NAME DETAIL, skip, check_detail NAME DETAIL CMD...: its counted lines.
. tests/tap.sh
# uml_scratch WHAT PREFIX: skip without root (exit 0); else T, a scratch directory under
# /var/tmp (the guest's /tmp is its own), removed on exit, with the guest's run directory in
# it (UML_RUN_TMPDIR: the other lane's UML suites count theirs in /var/tmp meanwhile).
uml_scratch() {
	if [ "$(id -u)" != 0 ]; then
		echo "skip - $1: needs root"
		exit 0
	fi
	T=$(mktemp -d "/var/tmp/$2.XXXXXX") || exit 1
	# shellcheck disable=SC2064  # T is set now, for good
	trap "rm -rf '$T'" EXIT
	export UML_RUN_TMPDIR=$T/uml
	mkdir -p "$UML_RUN_TMPDIR"
}
# uml_runs_left: the counted line that the guest left no run directory behind.
uml_runs_left() {
	local left
	left=$(find "$UML_RUN_TMPDIR" -mindepth 1 -maxdepth 1 | wc -l)
	check_detail "no UML run directory left ($left)" "$left in $UML_RUN_TMPDIR" test "$left" = 0
}
