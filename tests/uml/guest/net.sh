#!/bin/bash
# tests/uml/guest/net.sh MODE DIR: guest side of test_harness.sh (e), gatewayd-uml --net.
# MODE net: print the guest's address (GWUML_NET_ADDR) and vec0's, serve DIR (a folder on the
# host's disk) over HTTP on that address, port 9181, and say "listening"; then wait until the
# host, having fetched from it, creates DIR/done (30 s at most). MODE nonet: say whether the
# guest got a network it was not asked for. MODE hang: ignore SIGTERM and sleep past every
# deadline (the launcher's timeout path).
# shellcheck source-path=SCRIPTDIR source=../../wait_for.sh
. "$(dirname "$0")/../../wait_for.sh" || exit 1
MODE=${1:?mode}
DIR=${2:?folder}
case $MODE in
net)
	echo "net addr=${GWUML_NET_ADDR:-none} host=${GWUML_NET_HOST:-none}"
	ip -o -4 addr show dev vec0
	[ -n "${GWUML_NET_ADDR:-}" ] || exit 3
	# python3's own server: nothing to build, and the host reads a file it wrote itself
	timeout 40 /usr/bin/python3 -m http.server --bind "$GWUML_NET_ADDR" --directory "$DIR" 9181 \
		>/dev/null 2>&1 &
	srv=$!
	# 9181 in hex, listening
	wait_for 'grep -q ":23BD " /proc/net/tcp' 10 "the HTTP server to listen" || :
	echo "listening on $GWUML_NET_ADDR:9181"
	wait_for '[ -e "$DIR/done" ]' 30 "the host to fetch from it" || :
	kill $srv
	wait $srv
	[ -e "$DIR/done" ] || exit 4
	;;
nonet)
	echo "nonet addr=${GWUML_NET_ADDR:-none} vec0=$(ip -o link show dev vec0 2>/dev/null | wc -l)"
	;;
hang)
	trap '' TERM
	echo "hanging"
	sleep 120
	;;
esac
exit 0
