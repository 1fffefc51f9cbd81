# tests/webui/lib.sh: shared by the webui suites (no root): a scratch directory, the checks'
# output ("ok - ..." / "not ok - ..." for tests/run), free ports, and the fake snapshot
# server started and waited for. Sourced from the repo root; everything started is in
# $pids and is stopped on exit, with the scratch directory removed.
set -u
BUILD=${BUILD:-build}
FAKE=$BUILD/tests/webui-fake-server
tmp=$(mktemp -d)
pids=()
# wait_for CONDITION TIMEOUT [WHAT]
. tests/wait_for.sh

cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# ok, not_ok NAME [DETAIL], skip, check NAME CMD...; tap_status at the end
. tests/tap.sh

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_fake NAME ARGS...: runs the fake server, waits for "ready", sets $port and $fpid
start_fake() {
	local name=$1
	shift
	port=$(free_port)
	"$FAKE" -l "127.0.0.1:$port" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	fpid=$!
	pids+=($fpid)
	wait_for "grep -q ready '$tmp/$name.out' 2>/dev/null" 5 "the fake server $name to say ready" && return 0
	echo "# $name did not start: $(cat "$tmp/$name.err")"
	return 1
}

if [ ! -x "$FAKE" ]; then
	not_ok "fake server $FAKE is built (make unit-bins)"
	exit 1
fi
