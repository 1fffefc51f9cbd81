#!/usr/bin/env bash
# tests/uml/test_gatewayd.sh: gatewayd's fq_codel and cake trees and their effect under load,
# inside User-Mode Linux (the host kernel has neither). Run from the repo root as root.
set -u
cd "$(dirname "$0")/../.." || exit 1
GATEWAYD=${GATEWAYD:-$PWD/build/gatewayd}
if [ "$(id -u)" != 0 ]; then
	echo "skip - gatewayd in UML: needs root"
	exit 0
fi
tests/uml/uml-run --timeout 240 tests/uml/guest/gatewayd-kinds.sh "$GATEWAYD"
rc=$?
[ $rc -eq 0 ] || echo "not ok - the UML guest run ended with status $rc"
tests/uml/uml-run --timeout 120 tests/uml/guest/sfq.sh "$GATEWAYD"
rc=$?
[ $rc -eq 0 ] || echo "not ok - the sfq guest run ended with status $rc"
tests/uml/uml-run --timeout 120 tests/uml/guest/pie.sh "$GATEWAYD"
rc=$?
[ $rc -eq 0 ] || echo "not ok - the pie guest run ended with status $rc"
exit 0
