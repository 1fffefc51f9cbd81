#!/usr/bin/env bash
# tests/docs/test_checks.sh: the build's docs checks (tests/docs/) pass on this tree and fail,
# naming the file, on doctored copies of it: a source file missing from docs/design.md's
# layout, or named there but gone. No root.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/tap.sh
TOP=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
FOLDERS=(sys qdisc config tree probe load webui gatewayd cni bench)

# expect_fail NAME PATTERN CMD...: CMD exits 1 and says PATTERN (a grep -E)
expect_fail() {
	local name=$1 pattern=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -qE -- "$pattern"; then
		ok "$name ($(printf '%s\n' "$out" | grep -E -- "$pattern" | head -1))"
	else
		not_ok "$name" "exit $rc, wanted /$pattern/: $(printf '%s\n' "$out" | head -3)"
	fi
}

# -- every source file named in docs/design.md's layout ---------------------------------
check "design-check: this tree's docs/design.md names every source file" \
	bash tests/docs/check_layout.sh docs/design.md "${FOLDERS[@]}"
# a copy of the tree's folders and design page to doctor
mkdir "$tmp/tree"
cp -r "${FOLDERS[@]}" docs "$tmp/tree/"
cd "$tmp/tree" || exit 1
layout() { bash "$TOP/tests/docs/check_layout.sh" "$@" "${FOLDERS[@]}"; }
# shellcheck disable=SC2016  # backticks of Markdown, not a command
sed 's/(`heal.c`)/(self-healing)/' docs/design.md >"$tmp/design-noheal.md"
expect_fail "design-check: a file the layout no longer names fails" \
	'gatewayd/heal\.c is not named in the layout' layout "$tmp/design-noheal.md"
printf '/* gatewayd/newjob.c: a job nobody wrote down. */\n' >gatewayd/newjob.c
expect_fail "design-check: a new .c file not in the layout fails" \
	'gatewayd/newjob\.c is not named' layout docs/design.md
rm gatewayd/newjob.c
printf '#!/bin/sh\n' >bench/uml/gatewayd-uml-new
expect_fail "design-check: a new script under bench/uml/ not in the layout fails" \
	'bench/uml/gatewayd-uml-new is not named' layout docs/design.md
rm bench/uml/gatewayd-uml-new
printf '/* tree/alone.h: a header without its .c */\n' >tree/alone.h
expect_fail "design-check: a header of its own (no .c of its stem) not in the layout fails" \
	'tree/alone\.h is not named' layout docs/design.md
rm tree/alone.h
mv gatewayd/heal.c gatewayd/selfheal.c
# shellcheck disable=SC2016  # backticks of Markdown, not a command
expect_fail "design-check: a file renamed and the layout not is named both ways" \
	'the gatewayd/ row names `heal\.c`, which is not there' layout docs/design.md
mv gatewayd/selfheal.c gatewayd/heal.c
check "design-check: the copy passes again once undoctored" layout docs/design.md
cd "$TOP" || exit 1

tap_status
