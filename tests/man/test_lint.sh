#!/usr/bin/env bash
# tests/man/test_lint.sh: every page in man/ renders without a single groff or tbl warning, as
# `man -l` would render it (groff -t -ww -z: tables, all warnings, no output). No root needed.
set -u
cd "$(dirname "$0")/../.." || exit 1
if ! command -v groff >/dev/null 2>&1; then
	echo "skip - man pages: no groff (make deps installs groff-base)"
	exit 0
fi
for page in man/*.[1-9]; do
	warn=$(LC_ALL=C.UTF-8 groff -t -ww -z -man -Tutf8 "$page" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && [ -z "$warn" ]; then
		echo "ok - $page renders without warnings"
	else
		echo "not ok - $page: groff exited $rc:"
		printf '%s\n' "$warn" | sed 's/^/#   /'
	fi
done
