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
