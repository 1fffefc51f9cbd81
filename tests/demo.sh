#!/usr/bin/env bash
# tests/demo.sh (sudo make demo; the Makefile has run `make deps` and built gatewayd): the
# comparison bench on its defaults: a dumb 1000-packet fifo, fq_codel, cake under htb, and
# cake as its own shaper, each at 20 mbit both ways with a 40 ms RTT, loaded by 4+4 TCP flows
# and a UDP flood. Inside a User-Mode Linux guest when this kernel lacks netem, fq_codel or
# cake. Prints the table; results.json and the SVG plots go to DEMO_OUT (by default
# /var/lib/gatewayd/compare, where the status page of a running gatewayd shows them).
#
# Then the README's bench table, from results.json: the short table into DEMO_DOCS
# (docs/ of this tree, unless DEMO_ARGS makes it another run than the defaults) as
# demo-table.md (tests/docs/demo_table.sh), with its plots in compare/, and the README's copy
# of the table brought in line (tests/docs/copies.sh); DEMO_DOCS= writes none.
set -u
cd "$(dirname "$0")/.." || exit 1
GATEWAYD=${GATEWAYD:-$PWD/build/gatewayd}
# where a running gatewayd shows the last comparison (compare_dir's default)
OUT=${DEMO_OUT:-/var/lib/gatewayd/compare}
if [ -z "${DEMO_ARGS:-}" ]; then
	DOCS=${DEMO_DOCS-docs}
else
	DOCS=${DEMO_DOCS:-}
fi
if [ "$(id -u)" != 0 ]; then
	echo "demo: needs root (network namespaces, qdiscs): sudo make demo" >&2
	exit 1
fi

# demo_docs OUT DOCS: the run's short table and plots into DOCS, owned as DOCS is
demo_docs() {
	local out=$1 docs=$2 f written=()
	mkdir -p "$docs/compare" || return 1
	tests/docs/demo_table.sh "$out/results.json" >"$docs/demo-table.md.new" &&
		mv "$docs/demo-table.md.new" "$docs/demo-table.md" || return 1
	written+=("$docs/demo-table.md")
	for f in "$out"/latency-cdf.svg "$out"/latency-time.svg "$out"/flows-*.svg; do
		[ -f "$f" ] || continue
		cp "$f" "$docs/compare/" || return 1
		written+=("$docs/compare/${f##*/}")
	done
	if [ "$docs" -ef docs ]; then
		tests/docs/copies.sh update README.md || return 1
		written+=(README.md)
	fi
	# the tree's owner keeps its files (sudo make demo runs this as root)
	chown --reference="$docs" "${written[@]}" 2>/dev/null
	echo "== wrote ${written[*]}"
}

echo "== gatewayd --compare --out $OUT ${DEMO_ARGS:-}"
start=$SECONDS
# shellcheck disable=SC2086  # DEMO_ARGS: extra options, word-split on purpose
"$GATEWAYD" --compare --out "$OUT" ${DEMO_ARGS:-}
rc=$?
echo "== finished in $((SECONDS - start)) s (status $rc)"
if [ $rc -eq 0 ]; then
	echo "== open $OUT/report.html, or latency-cdf.svg, latency-time.svg and flows-*.svg,"
	echo "   in a browser; results.json is described in docs/compare-schema.md"
	if [ -n "$DOCS" ]; then
		demo_docs "$OUT" "$DOCS" || rc=1
	fi
fi
exit $rc
