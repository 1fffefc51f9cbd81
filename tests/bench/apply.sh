#!/usr/bin/env bash
# tests/bench/apply.sh: time building one htb tree of N classes (each with a fifo leaf) three
# ways: gatewayd --oneshot, one tc process per object, and tc -batch, all from the same plan
# (gatewayd --dry-run), each trial in a fresh namespace. Prints a markdown table of medians
# and ratios; exits 1 if a run fails or the three trees differ.
# env: SIZES ("100 1000 10000"), REPS (3), PERCMD_REPS_LARGE (1: one-tc-per-object runs for
# N > 100; each costs a fork+exec per object, ~10-15 ms apiece on a busy 2-core VM)
. "$(dirname "$0")/lib.bash"
bench_preflight

SIZES=${SIZES:-100 1000 10000}
REPS=${REPS:-3}
PERCMD_REPS_LARGE=${PERCMD_REPS_LARGE:-1}
failed=0
declare -A TIMES KTIMES SNAPS RUNS

# runs one tc process per plan line, inside the namespace: bash reads the plan on stdin
# (comment and blank lines skipped) and stops at the first failing command
PERCMD_LOOP='while read -r -a w; do
	case ${w[0]:-#} in "#"*) continue ;; esac
	"${w[@]}" </dev/null || { echo "failed: ${w[*]}" >&2; exit 1; }
done'

# trial METHOD N REP: one timed build in a fresh namespace; records the wall time, the
# gatewayd-reported time and the tree snapshot
trial() {
	local m=$1 n=$2 r=$3 ns s e rc=0 k=-
	local err="$TMPD/err.$m.$n.$r"
	ns_fresh ns "$n-$m-$r" || die "could not make a namespace"
	case $m in
	gatewayd)
		s=$(now)
		ip netns exec "$ns" "$GATEWAYD" -c "$TMPD/c$n.conf" --oneshot 2>"$err" || rc=$?
		e=$(now)
		k=$(sed -n 's/.*applied and verified .* in \([0-9.]*\) ms.*/\1/p' "$err")
		;;
	percmd)
		s=$(now)
		ip netns exec "$ns" bash -c "$PERCMD_LOOP" <"$TMPD/plan$n" 2>"$err" || rc=$?
		e=$(now)
		;;
	batch)
		s=$(now)
		ip netns exec "$ns" tc -batch "$TMPD/batch$n" 2>"$err" || rc=$?
		e=$(now)
		;;
	esac
	if [ "$rc" -ne 0 ]; then
		log "$m N=$n run $r exited $rc: $(tail -n 3 "$err" | tr '\n' ' ')"
		failed=1
	fi
	local snap="$TMPD/snap.$m.$n.$r"
	tree_snapshot "$ns" "$snap" || { log "$m N=$n: cannot read the tree back"; failed=1; }
	ns_gone "$ns"
	TIMES[$m,$n]+="$(elapsed "$s" "$e") "
	[ -n "$k" ] && KTIMES[$m,$n]+="$k "
	SNAPS[$m,$n]+="$(cat "$snap") $snap|"
	RUNS[$m,$n]=$((${RUNS[$m,$n]:-0} + 1))
	log "$m N=$n run $r: $(elapsed "$s" "$e") s${k:+ (reports $k ms)}, tree $(cat "$snap")"
}

# check_trees N: every trial of every method built N+1 classes and N+1 qdiscs, same digest
# (on a mismatch, the first lines of the difference go to stderr)
check_trees() {
	local n=$1 want="$(($1 + 1)) $(($1 + 1))" first="" ffile="" snap m c q d f rc=0
	for m in gatewayd percmd batch; do
		IFS='|' read -r -a snaps <<<"${SNAPS[$m,$n]}"
		for snap in "${snaps[@]}"; do
			[ -n "$snap" ] || continue
			read -r c q d f <<<"$snap"
			if [ "$c $q" != "$want" ]; then
				log "MISMATCH N=$n $m: classes/qdiscs $c $q, want $want"
				rc=1
				continue
			fi
			[ -n "$first" ] || { first=$d; ffile=$f; }
			if [ "$d" != "$first" ]; then
				log "MISMATCH N=$n $m: tree digest $d differs from $first:"
				diff "$ffile.tree" "$f.tree" | head -n 6 >&2
				rc=1
			fi
		done
	done
	return "$rc"
}

for n in $SIZES; do
	gen_conf "$n" "$TMPD/c$n.conf"
	"$GATEWAYD" -c "$TMPD/c$n.conf" --dry-run >"$TMPD/plan$n" || die "gatewayd --dry-run failed for N=$n"
	grep -v '^#' "$TMPD/plan$n" | grep -qv '^tc ' && die "dry-run printed a line that is not a tc command"
	grep -v '^#' "$TMPD/plan$n" | sed 's/^tc //' >"$TMPD/batch$n"
	OBJS[$n]=$(wc -l <"$TMPD/batch$n")
	pc_reps=$REPS
	[ "$n" -gt 100 ] && pc_reps=$PERCMD_REPS_LARGE
	# interleaved, and the first of the two fast methods alternating, so that a noisy moment
	# on the machine (or the previous namespace's teardown) does not hit one method only
	for ((r = 1; r <= REPS; r++)); do
		if ((r % 2)); then
			trial gatewayd "$n" "$r"
			trial batch "$n" "$r"
		else
			trial batch "$n" "$r"
			trial gatewayd "$n" "$r"
		fi
		[ "$r" -le "$pc_reps" ] && trial percmd "$n" "$r"
	done
	if check_trees "$n"; then TREE[$n]="$((n + 1)) / $((n + 1)), equal"; else TREE[$n]="MISMATCH"; failed=1; fi
done

echo "| N classes | tc objects | gatewayd --oneshot (wall) | gatewayd's own figure | one tc per object | tc -batch | per-object tc / gatewayd | tc -batch / gatewayd | classes / qdiscs on v0 |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for n in $SIZES; do
	g=$(median ${TIMES[gatewayd,$n]})
	k=$(median ${KTIMES[gatewayd,$n]:-0})
	p=$(median ${TIMES[percmd,$n]})
	b=$(median ${TIMES[batch,$n]})
	rp=$(ratio "$p" "$g")
	rb=$(ratio "$b" "$g")
	mp=$(awk -v x="$rp" 'BEGIN { print (x >= 50) ? "" : " (target 50x missed)" }')
	mb=$(awk -v b="$b" -v g="$g" 'BEGIN { print (g <= b) ? "" : " (slower than tc -batch)" }')
	printf '| %s | %s | %s s | %s ms | %s s (%s run%s) | %s s | %sx%s | %sx%s | %s |\n' \
		"$n" "${OBJS[$n]}" "$g" "$k" "$p" "${RUNS[percmd,$n]}" \
		"$([ "${RUNS[percmd,$n]}" -gt 1 ] && echo s)" "$b" "$rp" "$mp" "$rb" "$mb" "${TREE[$n]}"
done
echo
echo "Medians of $REPS runs (gatewayd, tc -batch); wall clock of the whole command including" \
	"\`ip netns exec\`; each run in a fresh namespace. \"gatewayd's own figure\" is the time it logs" \
	"for apply + read-back verify."
exit "$failed"
