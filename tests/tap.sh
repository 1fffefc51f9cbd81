# tests/tap.sh: the lines tests/run counts ("ok - ", "not ok - ", "skip - "), one definition
# for every shell suite. Sourced beside tests/wait_for.sh by tests/netns/lib.sh (so the netns,
# systemd, pkg and bench scripts), tests/uml/lib.sh (the guest scripts: the guest mounts the
# host's root, so this path is there too), tests/uml/host.sh, tests/uml/test_harness.sh and
# tests/webui/lib.sh.
# shellcheck shell=bash

# not_ok lines printed so far by this shell (tap_status); one printed in a subshell (a pipe's
# loop, $(...)) is printed all the same, but not counted here
tap_fails=0

# ok NAME...: a check that held.
ok() { echo "ok - $*"; }

# not_ok NAME [DETAIL]: a check that failed, and what was seen instead ("NAME: DETAIL").
not_ok() {
	echo "not ok - $1${2:+: $2}"
	tap_fails=$((tap_fails + 1))
}

# skip NAME [WHY]: a check that could not run here (a tool, root or a kernel feature missing).
skip() { echo "skip - $1${2:+: $2}"; }

# check NAME CMD...: ok if CMD succeeds, else not ok with the command that failed.
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name" "failed: $*"; fi
}

# check_detail NAME DETAIL CMD...: the same, with DETAIL (the figures CMD judged, a log's
# tail) in the not ok instead of the command.
check_detail() {
	local name=$1 detail=$2
	shift 2
	if "$@"; then ok "$name"; else not_ok "$name" "$detail"; fi
}

# tap_status: the status to end a script with: 1 if this shell printed a not ok.
tap_status() { [ "$tap_fails" -eq 0 ]; }
