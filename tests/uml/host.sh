# tests/uml/host.sh: the host side of a UML suite whose checks all run in one guest script.
# Source it from tests/uml/test_NAME.sh, then call uml_suite. Runs from the repo root.
# shellcheck shell=bash
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
GATEWAYD=${GATEWAYD:-$PWD/build/gatewayd}

# uml_suite WHAT TIMEOUT GUEST...: skip without root; else boot a guest for each GUEST
# ("SCRIPT [ARGS]", tests/uml/uml-run, TIMEOUT seconds each) running tests/uml/guest/SCRIPT
# with the gatewayd binary and ARGS. The guest's ok / not ok lines pass straight through; a run that ends with
# another status than 0 adds a not ok of its own. Exits 0: the counted lines are the verdict.
uml_suite() {
	local what=$1 tmo=$2 guest script args rc
	shift 2
	if [ "$(id -u)" != 0 ]; then
		echo "skip - $what: needs root"
		exit 0
	fi
	for guest in "$@"; do
		read -r script args <<<"$guest"
		# shellcheck disable=SC2086  # ARGS are words
		tests/uml/uml-run --timeout "$tmo" "tests/uml/guest/$script" "$GATEWAYD" $args
		rc=$?
		[ $rc -eq 0 ] || echo "not ok - the UML guest run of $guest ended with status $rc"
	done
	exit 0
}
