#!/usr/bin/env bash
# tests/uml/test_containers.sh: a container shaped with the default child, fq_codel, which the
# host kernel lacks: inside User-Mode Linux (tests/uml/guest/containers.sh does the work).
# Run from the repo root as root.
set -u
cd "$(dirname "$0")/../.." || exit 1
GATEWAYD=${GATEWAYD:-$PWD/build/gatewayd}
if [ "$(id -u)" != 0 ]; then
	echo "skip - containers in UML: needs root"
	exit 0
fi
tests/uml/uml-run --timeout 150 tests/uml/guest/containers.sh "$GATEWAYD"
rc=$?
[ $rc -eq 0 ] || echo "not ok - the UML guest run ended with status $rc"
exit 0
