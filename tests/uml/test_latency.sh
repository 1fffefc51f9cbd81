#!/usr/bin/env bash
# tests/uml/test_latency.sh: gatewayd's own latency figures under a saturating load through a
# large fifo, fq_codel and cake at 20 mbit, inside User-Mode Linux (the host kernel has neither
# AQM). Run from the repo root as root. The numbers are printed as "# ..." lines.
set -u
cd "$(dirname "$0")/../.." || exit 1
GATEWAYD=${GATEWAYD:-$PWD/build/gatewayd}
if [ "$(id -u)" != 0 ]; then
	echo "skip - latency under load in UML: needs root"
	exit 0
fi
tests/uml/uml-run --timeout 150 tests/uml/guest/latency-kinds.sh "$GATEWAYD"
rc=$?
[ $rc -eq 0 ] || echo "not ok - the UML guest run ended with status $rc"
exit 0
