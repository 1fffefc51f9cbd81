#!/usr/bin/env bash
# The comparison bench is a program of its own, gatewayd-bench: `gatewayd --compare ARGS` and
# `gatewayd --compare-report ARGS` run it with the same arguments, found beside the gatewayd
# binary, else in ../libexec/gatewayd/ (installed); a gatewayd without it says so (exit 2);
# and the daemon's binary holds none of the bench's code (no symbol of bench/'s archive).
# A stand-in bench that records its arguments, in copies of the daemon's binary; nothing runs
# a real bench here (tests/netns/test_lastcmp.sh does, both ways). No root needed.
. "$(dirname "$0")/lib.sh"

BIN=$(dirname "$GATEWAYD")
# stand_in PATH: a gatewayd-bench that writes its name and each argument (a line each) to
# PATH.argv and exits 7
stand_in() {
	cat >"$1" <<STUB
#!/bin/sh
{ echo "\$0"; for a in "\$@"; do echo "\$a"; done; } >"$1.argv"
exit 7
STUB
	chmod 0755 "$1"
}
# ran_with FILE ARGS...: FILE holds the stand-in's path, then exactly ARGS
ran_with() {
	local file=$1
	shift
	[ "$(cat "$file")" = "$(printf '%s\n' "$@")" ]
}

mkdir -p "$TMPD/side" "$TMPD/inst/sbin" "$TMPD/inst/libexec/gatewayd" "$TMPD/lone"
cp "$GATEWAYD" "$TMPD/side/gatewayd"
stand_in "$TMPD/side/gatewayd-bench"
args=(--compare --qdiscs 'fifo,fq_codel:target=2ms' --rate '8mbit/4mbit' --out "$TMPD/a dir" -c x.conf)
"$TMPD/side/gatewayd" "${args[@]}" >"$TMPD/out" 2>&1
rc=$?
check "gatewayd --compare ARGS runs gatewayd-bench beside it with the same ARGS, its status (7) back ($rc)" \
	eval '[ $rc -eq 7 ] && ran_with "$TMPD/side/gatewayd-bench.argv" "$TMPD/side/gatewayd-bench" "${args[@]}"'
args=(--compare-report --out "$TMPD/rep" "$TMPD/r1=one" "$TMPD/r2")
"$TMPD/side/gatewayd" "${args[@]}" >"$TMPD/out" 2>&1
rc=$?
check "gatewayd --compare-report ARGS too ($rc)" \
	eval '[ $rc -eq 7 ] && ran_with "$TMPD/side/gatewayd-bench.argv" "$TMPD/side/gatewayd-bench" "${args[@]}"'
args=(-v --compare --help)
"$TMPD/side/gatewayd" "${args[@]}" >"$TMPD/out" 2>&1
check "--compare after another option: the whole command line, as given" \
	ran_with "$TMPD/side/gatewayd-bench.argv" "$TMPD/side/gatewayd-bench" "${args[@]}"

# installed: sbin/gatewayd and libexec/gatewayd/gatewayd-bench
cp "$GATEWAYD" "$TMPD/inst/sbin/gatewayd"
stand_in "$TMPD/inst/libexec/gatewayd/gatewayd-bench"
"$TMPD/inst/sbin/gatewayd" --compare --duration 4s >"$TMPD/out" 2>&1
rc=$?
check "installed, it is found in ../libexec/gatewayd/ ($rc)" \
	eval '[ $rc -eq 7 ] && ran_with "$TMPD/inst/libexec/gatewayd/gatewayd-bench.argv" \
		"$TMPD/inst/sbin/../libexec/gatewayd/gatewayd-bench" --compare --duration 4s'

cp "$GATEWAYD" "$TMPD/lone/gatewayd"
out=$("$TMPD/lone/gatewayd" --compare --duration 4s 2>&1)
rc=$?
check "a gatewayd without the bench says it is not installed, and where it looked: exit $rc, $out" \
	eval '[ $rc -eq 2 ] && grep -qF "gatewayd: the comparison bench is not installed: no gatewayd-bench in $TMPD/lone/ or $TMPD/lone/../libexec/gatewayd/" <<<"$out"'
out=$("$TMPD/lone/gatewayd" --version 2>&1)
check "  and runs as a daemon all the same ($out)" test "$out" = "gatewayd $(sed -n 's/^VERSION := //p' "$TOP/Makefile")"

# no symbol the bench's archive defines is in the daemon's binary
if [ -f "$BIN/lib/bench.a" ] && command -v nm >/dev/null; then
	nm --defined-only -g "$BIN/lib/bench.a" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u >"$TMPD/bench.syms"
	nm "$GATEWAYD" | awk '{ print $NF }' | sort -u >"$TMPD/daemon.syms"
	shared=$(comm -12 "$TMPD/bench.syms" "$TMPD/daemon.syms" | head -5 | tr '\n' ' ')
	check "the daemon holds no bench code: none of bench.a's $(wc -l <"$TMPD/bench.syms") symbols in $GATEWAYD${shared:+ (it has $shared)}" \
		eval '[ -s "$TMPD/bench.syms" ] && [ -z "$shared" ]'
	check "  while gatewayd-bench has them (the check can fail)" \
		bash -c "nm '$BIN/gatewayd-bench' | grep -qw '$(head -1 "$TMPD/bench.syms")'"
else
	skip "the daemon holds no bench code" "no $BIN/lib/bench.a or no nm"
fi
tap_status
