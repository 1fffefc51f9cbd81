#!/usr/bin/env bash
# tests/uml/test_probe.sh: the latency prober on netem paths inside User-Mode Linux (the host
# kernel has no netem): RTT against ping's at 20 ms, loss at 5%, reordering and duplicates.
# Run from the repo root as root.
set -u
cd "$(dirname "$0")/../.." || exit 1
GATEWAYD=${GATEWAYD:-$PWD/build/gatewayd}
if [ "$(id -u)" != 0 ]; then
	echo "skip - prober in UML: needs root"
	exit 0
fi
tests/uml/uml-run --timeout 150 tests/uml/guest/probe.sh "$GATEWAYD"
rc=$?
[ $rc -eq 0 ] || echo "not ok - the UML guest run ended with status $rc"
exit 0
