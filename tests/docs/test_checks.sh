#!/usr/bin/env bash
# tests/docs/test_checks.sh: the build's docs checks (tests/docs/) pass on this tree and fail,
# naming the file, on doctored copies of it: a source file missing from docs/design.md's
# layout or named there but gone; a kind missing from, or foreign to, a marked list in the
# README or a man page, or added to the registry (a lister that says so); the README's copy of
# the demo's table edited by hand. And the demo's table has every row the README says to read,
# and tests/demo.sh writes it (with root, a stand-in for the bench). Needs $BUILD/list-kinds
# (make all) and jq; no root but for the last.
# shellcheck disable=SC2016  # the checks given to eval expand there, not here
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
. tests/tap.sh
TOP=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
FOLDERS=(sys qdisc config tree probe load webui gatewayd cni bench)
LISTER=$TOP/$BUILD/list-kinds
PROSE=$(ls ./*.md docs/*.md webui/*.md man/*.[1-9])

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
expect_fail "design-check: a file renamed and the layout not is named both ways" \
	'the gatewayd/ row names `heal\.c`, which is not there' layout docs/design.md
mv gatewayd/selfheal.c gatewayd/heal.c
check "design-check: the copy passes again once undoctored" layout docs/design.md
cd "$TOP" || exit 1

# -- every marked list of kinds is the registry's ---------------------------------------
if [ ! -x "$LISTER" ]; then
	not_ok "kinds-check: $LISTER is built (make all)"
	tap_status
	exit
fi
check "kinds-check: the registry lists leaf and shaper kinds ($("$LISTER" | paste -sd';'))" \
	eval '"$LISTER" | grep -qx "leaf fifo.*" && "$LISTER" | grep -qx "shaper .*"'
# shellcheck disable=SC2086  # the prose files, word-split on purpose
check "kinds-check: every marked list in README, docs/ and man/ is the registry's" \
	bash tests/docs/check_kinds.sh "$LISTER" $PROSE
# shellcheck disable=SC2086
lists=$(grep -hcE -e '(^|[^`])<!-- kinds:leaf -->' -e '^\.\\" kinds:leaf$' $PROSE |
	awk '{ n += $1 } END { print n + 0 }')
check "kinds-check: the README and the man pages mark their lists ($lists of leaf kinds)" \
	[ "$lists" -ge 4 ]
# a kind added to the registry: every leaf list fails until the prose names it
printf '#!/bin/sh\n"%s" | sed "/^leaf /s/$/ red/"\n' "$LISTER" >"$tmp/lister-red"
chmod +x "$tmp/lister-red"
# shellcheck disable=SC2086
out=$(bash tests/docs/check_kinds.sh "$tmp/lister-red" $PROSE 2>&1)
n=$(printf '%s\n' "$out" | grep -c 'missing: red')
check_detail "kinds-check: a kind added to the registry fails each of the $lists leaf lists ($n)" \
	"$out" [ "$n" -eq "$lists" ]
sed 's/, \*\*sfq\*\* or \*\*pie\*\*<!-- \/kinds -->/ or **sfq**<!-- \/kinds -->/' README.md \
	>"$tmp/README-nopie.md"
expect_fail "kinds-check: the README's list without pie fails" \
	'README-nopie\.md:[0-9]+: the leaf kinds .*missing: pie' \
	bash tests/docs/check_kinds.sh "$LISTER" "$tmp/README-nopie.md"
sed 's/\*\*pie\*\*<!-- \/kinds -->/**pie** or **codel**<!-- \/kinds -->/' README.md \
	>"$tmp/README-codel.md"
expect_fail "kinds-check: a word in a list that is no kind fails" 'not kinds: codel' \
	bash tests/docs/check_kinds.sh "$LISTER" "$tmp/README-codel.md"
grep -v '^\.BR pie ),' man/gatewayd-cni.8 >"$tmp/cni-nopie.8"
expect_fail "kinds-check: the CNI man page's list without pie fails" \
	'cni-nopie\.8:[0-9]+: the leaf kinds .*missing: pie' \
	bash tests/docs/check_kinds.sh "$LISTER" "$tmp/cni-nopie.8"
sed '0,/^\.\\" \/kinds$/{/^\.\\" \/kinds$/d}' man/gatewayd.8 >"$tmp/unclosed.8"
expect_fail "kinds-check: a list left open fails" 'opened inside|not closed' \
	bash tests/docs/check_kinds.sh "$LISTER" "$tmp/unclosed.8"
expect_fail "kinds-check: prose with no marked list at all fails" 'no marked list' \
	bash tests/docs/check_kinds.sh "$LISTER" BENCHMARKS.md

# -- the README's copy of the demo's table ------------------------------------------------
check "copies-check: the README's copy of docs/demo-table.md is that file" \
	bash tests/docs/copies.sh check README.md
mkdir -p "$tmp/copy/docs"
cp README.md "$tmp/copy/"
sed '0,/| A+ |/s/| A+ |/| A |/' docs/demo-table.md >"$tmp/copy/docs/demo-table.md"
cd "$tmp/copy" || exit 1
expect_fail "copies-check: a figure changed on one side fails" \
	'README\.md:[0-9]+: the copy of docs/demo-table\.md differs' \
	bash "$TOP/tests/docs/copies.sh" check README.md
check "copies-check: update brings the copy in line" \
	eval 'bash "$TOP/tests/docs/copies.sh" update README.md &&
		bash "$TOP/tests/docs/copies.sh" check README.md &&
		grep -qF "$(sed -n "/| A |/p" docs/demo-table.md | head -1)" README.md'
grep -v '^<!-- /copy -->$' README.md >README-open.md
expect_fail "copies-check: a copy left open fails" 'not closed' \
	bash "$TOP/tests/docs/copies.sh" check README-open.md
grep -v -e '^<!-- copy of ' -e '^<!-- /copy -->$' README.md >README-none.md
expect_fail "copies-check: a README whose copy is no longer marked fails" 'holds no copy' \
	bash "$TOP/tests/docs/copies.sh" check README-none.md
cd "$TOP" || exit 1

# -- the demo's table: the rows the README says to read, from a results.json --------------
if ! command -v jq >/dev/null; then
	skip "the demo's table from results.json" "no jq (make deps installs it)"
	tap_status
	exit
fi
table=$(bash tests/docs/demo_table.sh tests/webui/compare/results.json)
check_detail "demo table: a fixture's results.json gives a row per figure, a column per queue" \
	"$table" eval '[ "$(printf "%s\n" "$table" | grep -c "^| ")" -eq 11 ] &&
		printf "%s\n" "$table" | grep -q "^| | fifo |$" &&
		printf "%s\n" "$table" | grep -q "^| induced p50 / p95 (ms) | 335.1 / 657.6 |$"'
# each row the README's text names in bold ("Read the **induced** row first ...") is there
read_first=$(sed -n '/^Read the \*\*induced\*\*/,/^$/p' README.md | grep -o '\*\*[^*]*\*\*' |
	tr -d '*')
missing=$(printf '%s\n' "$read_first" | while IFS= read -r r; do
	grep -q "^| $r" docs/demo-table.md || echo "$r"
done)
check_detail "demo table: every row the README says to read is in it ($(printf '%s\n' \
	"$read_first" | paste -sd,))" "missing: $missing" eval '[ -n "$read_first" ] && [ -z "$missing" ]'

# -- tests/demo.sh's docs step, the bench stood in for by a fixture's run --------------------
if [ "$(id -u)" -ne 0 ]; then
	skip "demo.sh writes the table and plots" "tests/demo.sh needs root"
	tap_status
	exit
fi
cat >"$tmp/bench" <<EOF
#!/bin/sh
# a stand-in for gatewayd --compare --out DIR: a saved run's files into DIR
while [ \$# -gt 0 ]; do [ "\$1" = --out ] && out=\$2; shift; done
mkdir -p "\$out" && cp "$TOP"/tests/webui/compare/* "\$out/"
EOF
chmod +x "$tmp/bench"
mkdir "$tmp/docs"
out=$(GATEWAYD=$tmp/bench DEMO_OUT=$tmp/run DEMO_DOCS=$tmp/docs bash tests/demo.sh 2>&1)
check_detail "demo.sh: the run's table into DEMO_DOCS/demo-table.md, its plots into compare/" \
	"$out" eval 'cmp -s "$tmp/docs/demo-table.md" <(bash tests/docs/demo_table.sh \
		tests/webui/compare/results.json) && [ -f "$tmp/docs/compare/latency-cdf.svg" ]'
rm -rf "${tmp:?}/docs"/*
out=$(GATEWAYD=$tmp/bench DEMO_OUT=$tmp/run DEMO_ARGS="--duration 5s" bash tests/demo.sh 2>&1)
check_detail "demo.sh: a run other than the defaults (DEMO_ARGS) writes no docs" "$out" \
	eval '! printf "%s\n" "$out" | grep -q "== wrote" && [ -z "$(ls "$tmp/docs")" ]'
tap_status
