#!/usr/bin/env bash
# tests/fuzz/run.sh NAME...: run each build-fuzz/fuzz_NAME for FUZZ_SECONDS (default 60) over
# its committed corpus tests/fuzz/corpus/NAME, and say "ok - fuzz NAME: N runs, no crash" or
# "not ok - fuzz NAME: what it found" (with the saved input and the report's tail as "#" lines).
# New inputs go to a scratch directory that is removed afterwards, so the committed corpus only
# changes when someone merges into it (tests/fuzz/README.md); a crashing input is kept in
# build-fuzz/artifacts/. `make fuzz` and tests/run-all (FUZZ_SECONDS=6) both run this.
# Environment: FUZZ_SECONDS, FUZZ_BUILD (default build-fuzz), FUZZ_ARGS (more libFuzzer flags).
set -u
cd "$(dirname "$0")/../.."
secs=${FUZZ_SECONDS:-60}
build=${FUZZ_BUILD:-build-fuzz}
# libconfig 1.5 leaks its string buffer on an unterminated string (strbuf_append, under
# config_read_string: a library bug, not ours; load_text does call config_destroy)
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

[ $# -ge 1 ] || { echo "usage: tests/fuzz/run.sh NAME..." >&2; exit 2; }
case $secs in '' | *[!0-9]*) echo "run.sh: FUZZ_SECONDS must be whole seconds" >&2; exit 2 ;; esac

# the largest input worth trying: a bit past the biggest seed of each kind
max_len() {
	case $1 in
	config) echo 16384 ;;	# the example configs are 2-4 KiB
	netlink) echo 8192 ;;	# a cake qdisc with its tins is about 1 KiB, a link 1.5 KiB
	http) echo 4096 ;;	# past the 1024-byte URL bound, well inside the 16 KiB header memory
	lastcmp) echo 16384 ;;	# a 5 s fifo run's results.json is 12 KiB
	iperf3) echo 16384 ;;	# a 2 s report of two flows both ways is 11 KiB
	wire) echo 12288 ;;	# the full seed snapshot (every field, 9 classes) is 10.5 KiB
	ctrreg) echo 9216 ;;	# past the control socket's 8 KiB message bound
	*) echo 4096 ;;
	esac
}

# more libFuzzer flags for one target
extra_args() {
	case $1 in
	# libconfig leaks on most syntax errors (lsan.supp): checking for leaks after every such
	# input costs a full heap scan and 40 times the speed, so config's leaks are looked for
	# once, at exit (rerun with FUZZ_ARGS=-detect_leaks=1 to find the input behind one)
	config) echo -detect_leaks=0 ;;
	esac
}

stat_of() {	# stat_of LOG KEY: a -print_final_stats=1 number
	sed -n "s/^stat::$2: *//p" "$1" | tail -n 1
}

fail=0
for name in "$@"; do
	bin=$build/fuzz_$name
	corpus=tests/fuzz/corpus/$name
	if [ ! -x "$bin" ]; then
		echo "not ok - fuzz $name: $bin is not built (make fuzz-bins)"
		fail=1
		continue
	fi
	if [ ! -d "$corpus" ]; then
		echo "not ok - fuzz $name: no corpus $corpus"
		fail=1
		continue
	fi
	scratch=$(mktemp -d "${TMPDIR:-/tmp}/gw-fuzz-$name.XXXXXX")
	mkdir -p "$scratch/new" "$build/artifacts"
	# the first directory takes new inputs; the committed one is only read
	# shellcheck disable=SC2086  # FUZZ_ARGS is a list of flags
	timeout -k 10 $((secs + 120)) "$bin" -max_total_time="$secs" -max_len="$(max_len "$name")" \
		-timeout=5 -rss_limit_mb=1024 -print_final_stats=1 \
		-artifact_prefix="$build/artifacts/$name-" $(extra_args "$name") ${FUZZ_ARGS:-} \
		"$scratch/new" "$corpus" >"$scratch/log" 2>&1
	rc=$?
	runs=$(stat_of "$scratch/log" number_of_executed_units)
	speed=$(stat_of "$scratch/log" average_exec_per_sec)
	if [ "$rc" -eq 0 ] && [ -n "$runs" ]; then
		echo "ok - fuzz $name: $runs runs, no crash"
		echo "# fuzz $name: ${secs} s, ${speed:-?} exec/s, $(ls "$corpus" | wc -l) seeds," \
			"$(ls "$scratch/new" | wc -l) new inputs (discarded), peak RSS" \
			"$(stat_of "$scratch/log" peak_rss_mb) MB"
	else
		what=$(grep -m1 -E '^SUMMARY: |ERROR: libFuzzer: ' "$scratch/log" |
			sed -e 's/^SUMMARY: //' -e 's/^==[0-9]*== *//')
		[ "$rc" -eq 124 ] && what="still running $((secs + 120)) s after a ${secs} s budget"
		input=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$scratch/log" | tail -n 1)
		if grep -q '^Done [0-9]* runs' "$scratch/log" && grep -q 'LeakSanitizer' "$scratch/log"
		then	# not one input's: the whole run's, at exit
			what="$what, found at exit (rerun with FUZZ_ARGS=-detect_leaks=1 for the input)"
			input=""
		fi
		echo "not ok - fuzz $name: ${what:-exit status $rc}${input:+, input saved as $input}" \
			"(${runs:-?} runs)"
		grep -m1 '^INFO: Seed:' "$scratch/log" | sed 's/^/# /'
		grep -v -E '^(#[0-9]+|INFO:|"|###### |MS: |artifact_prefix|Base64|stat::)' \
			"$scratch/log" | tail -n 60 | sed 's/^/# /'
		fail=1
	fi
	rm -rf "$scratch"
done
exit $fail
