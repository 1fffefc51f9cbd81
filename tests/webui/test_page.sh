#!/usr/bin/env bash
# tests/webui/test_page.sh: the status page in headless Chromium (Debian's chromium, driven
# over --remote-debugging-pipe by tests/webui/cdp.py) against the fake server: it loads with no
# console errors, polls, draws real and changing data, fits a phone, shows each class's queue
# statistics by name (cake's tins as a table, the fake's pie class with no code of its own),
# shows every figure, table and chart it should, each found by its id and drawn in a
# screenshot, and its script names no queue kind; screenshots are saved in $BUILD/screenshots/
# (`make screenshot` copies the first to docs/status-page.png). No root. Prints "ok - ..." /
# "not ok - ..." / "skip - ..." lines.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
FAKE=$BUILD/tests/webui-fake-server
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
tmp=$(mktemp -d)
pid=

cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

if [ ! -x "$CHROMIUM" ]; then
	echo "skip - headless page test: $CHROMIUM not installed (Debian package chromium)"
	exit 0
fi
if [ ! -x "$FAKE" ]; then
	echo "not ok - fake server $FAKE is built (make unit-bins)"
	exit 1
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# a real comparison's results.json and plots (gatewayd --compare --kernel host --qdiscs fifo)
# (-p: a prober per link, wan's and lan's own, as a probe block per link gives them)
"$FAKE" -l "127.0.0.1:$port" -c "$PWD/tests/webui/compare" -p >"$tmp/fake.out" 2>&1 &
pid=$!
. tests/wait_for.sh
wait_for "grep -q ready '$tmp/fake.out'" 5 "the fake server to say ready"
if ! grep -q ready "$tmp/fake.out"; then
	echo "not ok - fake server starts: $(cat "$tmp/fake.out")"
	exit 1
fi
mkdir -p "$BUILD/screenshots"
size=$(cat webui/page/* | wc -c)
if [ "$size" -lt 153600 ]; then
	echo "ok - the page's files are $size bytes, under 150 KB"
else
	echo "not ok - the page's files are $size bytes, over 150 KB"
fi
# the page's script holds no queue kind's name: every kind's statistics are shown by name
# from the JSON ("ingress" is also a direction's name there)
kinds=$(sed -n '/^const struct gw_qdisc_ops gw_.*_ops = {/,/}/s/^\t\.name = "\([a-z_]*\)",/\1/p' qdisc/*.c |
	grep -vx ingress)
named=$(for k in $kinds; do grep -lE "[\"'\`]$k[\"'\`]" webui/page/app.js >/dev/null && echo "$k"; done)
if [ -n "$kinds" ] && [ -z "$named" ]; then
	echo "ok - the page's script names no queue kind ($(echo $kinds))"
else
	echo "not ok - the page's script names no queue kind (found: $(echo $named); kinds: $(echo $kinds))"
fi
CDP_NEW_KIND=pie CDP_COMPARE_RUNS=1 CDP_PROBERS=wan,lan CDP_TARGETS=3,1 timeout 120 python3 tests/webui/cdp.py "$CHROMIUM" "http://127.0.0.1:$port/" "$BUILD/screenshots"
rc=$?
[ $rc -eq 124 ] && echo "not ok - the headless browser run timed out"
exit $rc
