#!/usr/bin/env bash
# tests/bench/sample.sh: one sampling pass over a big tree against reading the same counters
# with tc. Builds an htb tree of N classes (fifo leaves) with gatewayd --oneshot, times
# `tc -s -j class show dev v0` + `tc -s -j qdisc show dev v0` (gatewayd reads both; median of
# REPS), then starts the daemon on the same config (interval 1 s; it takes the tree over by
# deleting and recreating it), waits for /healthz and a few passes, and takes the median of
# .sample.duration_ms over REPS distinct passes. Prints a markdown table; exits 1 only if
# something broke, not for a missed target (gatewayd at most half of tc's time).
# env: SAMPLE_N (16000), REPS (5), SETTLE (6 s after /healthz first answers 200)
. "$(dirname "$0")/lib.bash"
bench_preflight curl jq

N=${SAMPLE_N:-16000}
REPS=${REPS:-5}
SETTLE=${SETTLE:-6}
failed=0

# 16,000 classes of 1mbit would add up to more than the root's 10gbit, which the config refuses
CLASS_RATE=$(awk -v n="$N" 'BEGIN { print (n > 10000) ? "500kbit" : "1mbit" }') gen_conf_daemon "$N" "$TMPD/c.conf" 1s
ns_fresh NS sample || die "could not make a namespace"

# 1. the tree, left in place by --oneshot
s=$(now)
ip netns exec "$NS" "$GATEWAYD" -c "$TMPD/c.conf" --oneshot 2>"$TMPD/oneshot.log" ||
	die "gatewayd --oneshot failed: $(tail -n 3 "$TMPD/oneshot.log" | tr '\n' ' ')"
t_oneshot=$(elapsed "$s" "$(now)")
nclass=$(ip netns exec "$NS" tc class show dev v0 | wc -l)
nqdisc=$(ip netns exec "$NS" tc qdisc show dev v0 | wc -l)
[ "$nclass" -eq $((N + 1)) ] && [ "$nqdisc" -eq $((N + 1)) ] ||
	die "--oneshot left $nclass classes and $nqdisc qdiscs, want $((N + 1)) each"
log "tree of $N classes built by --oneshot in $t_oneshot s"

# 2. tc, timed inside the namespace (one `ip netns exec` for all runs, so its own start-up is
# not counted; each tc is a fresh process, as when a user or a script runs it)
ip netns exec "$NS" bash -c '
	for ((r = 0; r < '"$REPS"'; r++)); do
		s=$EPOCHREALTIME
		tc -s -j class show dev v0 >/dev/null || exit 1
		m=$EPOCHREALTIME
		tc -s -j qdisc show dev v0 >/dev/null || exit 1
		e=$EPOCHREALTIME
		echo "$s $m $e"
	done' >"$TMPD/tc.times" || die "tc -s -j failed"
tc_cls=() tc_qd=() tc_sum=()
while read -r s m e; do
	tc_cls+=("$(awk -v a="$s" -v b="$m" 'BEGIN { printf "%.2f", (b - a) * 1000 }')")
	tc_qd+=("$(awk -v a="$m" -v b="$e" 'BEGIN { printf "%.2f", (b - a) * 1000 }')")
	tc_sum+=("$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.2f", (b - a) * 1000 }')")
done <"$TMPD/tc.times"
cls_bytes=$(ip netns exec "$NS" tc -s -j class show dev v0 | wc -c)
qd_bytes=$(ip netns exec "$NS" tc -s -j qdisc show dev v0 | wc -c)
log "tc: class ${tc_cls[*]} ms; qdisc ${tc_qd[*]} ms; sum ${tc_sum[*]} ms"

# 3. the daemon's own pass over the same tree
s=$(now)
daemon_start GW_PID "$NS" "$TMPD/c.conf" "$TMPD/daemon.log"
if ! wait_healthz "$GW_PID" "$NS" 600; then
	log "the daemon never became healthy: $(tail -n 5 "$TMPD/daemon.log" | tr '\n' ' ')"
	exit 1
fi
t_healthy=$(elapsed "$s" "$(now)")
takeover=$(sed -n 's/.*\(applied and verified .*\)/\1/p' "$TMPD/daemon.log" | head -n 1)
log "daemon healthy after $t_healthy s ($takeover)"
sleep "$SETTLE"
durs=() lags=() seen="" tot=- late=-
for ((i = 0; i < REPS * 4 && ${#durs[@]} < REPS; i++)); do
	read -r seq dur lag tot late <<<"$(sample_fields "$NS")"
	if [ -n "${seq:-}" ] && [ "$seq" != null ] && [ "$seq" != "$seen" ]; then
		durs+=("$(awk -v d="$dur" 'BEGIN { printf "%.2f", d }')")
		lags+=("$(awk -v d="$lag" 'BEGIN { printf "%.2f", d }')")
		seen=$seq
	fi
	sleep 1.1
done
[ "${#durs[@]}" -ge 1 ] || { log "no sampling pass read from /api/status"; failed=1; }
log "gatewayd duration_ms: ${durs[*]}; lag_ms: ${lags[*]}; passes $tot, late $late"
read -r hwm rss vsz <<<"$(mem_kb "$GW_PID")"

s=$(now)
daemon_stop rc "$GW_PID" 120
t_stop=$(elapsed "$s" "$(now)")
[ "$rc" = 0 ] || { log "daemon exited $rc after SIGTERM: $(tail -n 3 "$TMPD/daemon.log" | tr '\n' ' ')"; failed=1; }
left=$(ip netns exec "$NS" tc class show dev v0 | wc -l)
[ "$left" -eq 0 ] || { log "$left classes left on v0 after SIGTERM"; failed=1; }
ns_gone "$NS"

tc_med=$(median "${tc_sum[@]}")
gw_med=$(median "${durs[@]:-0}")
r=$(awk -v g="$gw_med" -v t="$tc_med" 'BEGIN { if (t > 0) printf "%.2f", g / t; else print "n/a" }')
verdict=$(awk -v r="$r" 'BEGIN { print (r + 0 <= 0.5) ? "met" : "missed" }')
echo "| $N classes ($((N + 1)) classes + $((N + 1)) qdiscs on v0) | median of $REPS (ms) | runs (ms) |"
echo "|---|---:|---|"
echo "| \`tc -s -j class show dev v0\` | $(median "${tc_cls[@]}") | ${tc_cls[*]} |"
echo "| \`tc -s -j qdisc show dev v0\` | $(median "${tc_qd[@]}") | ${tc_qd[*]} |"
echo "| both tc commands | $tc_med | ${tc_sum[*]} |"
echo "| gatewayd sampling pass (\`.sample.duration_ms\`) | $gw_med | ${durs[*]} |"
echo "| gatewayd / tc | **${r}x** (target at most 0.5x: $verdict) | |"
echo
echo "tc output: $cls_bytes bytes (classes) + $qd_bytes bytes (qdiscs); each tc is a fresh process run" \
	"inside the namespace. --oneshot built the tree in $t_oneshot s; the daemon took it over (delete and" \
	"recreate) and answered /healthz 200 after $t_healthy s ($takeover). Its lag_ms over the same passes:" \
	"${lags[*]}; $late late of $tot passes. Daemon VmRSS $(mib "$rss"), VmHWM $(mib "$hwm")." \
	"SIGTERM: exit $rc in $t_stop s, $left classes left."
exit "$failed"
