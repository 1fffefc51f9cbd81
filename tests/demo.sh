#!/usr/bin/env bash
# tests/demo.sh (sudo make demo; the Makefile has run `make deps` and built gatewayd): the
# comparison bench on its defaults: a dumb 1000-packet fifo, fq_codel, cake under htb, and
# cake as its own shaper, each at 20 mbit both ways with a 40 ms RTT, loaded by 4+4 TCP flows
# and a UDP flood. Inside a User-Mode Linux guest when this kernel lacks netem, fq_codel or
# cake. Prints the table; results.json and the SVG plots go to DEMO_OUT (by default
# /var/lib/gatewayd/compare, where the status page of a running gatewayd shows them).
set -u
cd "$(dirname "$0")/.." || exit 1
GATEWAYD=${GATEWAYD:-$PWD/build/gatewayd}
# where a running gatewayd shows the last comparison (compare_dir's default)
OUT=${DEMO_OUT:-/var/lib/gatewayd/compare}
if [ "$(id -u)" != 0 ]; then
	echo "demo: needs root (network namespaces, qdiscs): sudo make demo" >&2
	exit 1
fi
echo "== gatewayd --compare --out $OUT ${DEMO_ARGS:-}"
start=$SECONDS
# shellcheck disable=SC2086  # DEMO_ARGS: extra options, word-split on purpose
"$GATEWAYD" --compare --out "$OUT" ${DEMO_ARGS:-}
rc=$?
echo "== finished in $((SECONDS - start)) s (status $rc)"
if [ $rc -eq 0 ]; then
	echo "== open $OUT/latency-cdf.svg, latency-time.svg and flows-*.svg in a browser;"
	echo "   results.json is described in docs/compare-schema.md"
fi
exit $rc
