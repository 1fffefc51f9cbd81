#!/usr/bin/env bash
# tests/bench/rss.sh: peak memory for holding an htb tree of N classes (fifo leaves): the
# daemon's VmHWM/VmRSS once it has applied and verified the tree (and again a few seconds
# later, after its stats sampling has run), gatewayd --oneshot and tc -batch of the same
# plan (peak RSS of the process). Then SIGTERM: the daemon must exit 0 and leave no tree.
# VmSize is shown too: memory the daemon has reserved but not yet touched (calloc'd rings)
# becomes RSS as it fills; the daemon runs with -v, which logs what the history rings reserve.
# FILL=idle or busy adds a row: the memory the web process's history of N + 1 series takes with
# every ring full (24 h 15 min of zeros, or of random traffic in every series), measured by
# build/bench/histfill (tests/bench/histfill.c, the daemon's own history.c; `make
# bench-bins`): the rings live in the web process, not in the daemon measured here (rest.sh
# adds the three processes up). Prints a markdown table; exits 1 if anything fails.
# env: RSS_N (10000), SETTLE (5 s), FILL (none, idle or busy), HISTFILL (the histfill program;
# build/bench/histfill beside GATEWAYD's build)
. "$(dirname "$0")/lib.bash"
bench_preflight

N=${RSS_N:-10000}
SETTLE=${SETTLE:-5}
FILL=${FILL:-none}
HISTFILL=${HISTFILL:-$(dirname "$GATEWAYD")/bench/histfill}
failed=0
case $FILL in
none) ;;
idle | busy) [ -x "$HISTFILL" ] || die "FILL=$FILL needs $HISTFILL (make bench-bins)" ;;
*) die "FILL must be none, idle or busy" ;;
esac

gen_conf "$N" "$TMPD/c.conf"
"$GATEWAYD" -c "$TMPD/c.conf" --dry-run | grep -v '^#' | sed 's/^tc //' >"$TMPD/batch" ||
	die "gatewayd --dry-run failed"

# status_kb PID FIELD: a /proc/PID/status figure in kB
status_kb() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null; }
# peak_kb NS CMD...: runs CMD in NS; prints "PEAK_KB SECONDS RC". Uses GNU time's maxrss if
# installed, else polls VmHWM every 5 ms (which may miss the last few ms of growth).
peak_kb() {
	local ns=$1 s e rc=0 pid hwm=0 v
	shift
	if [ -x /usr/bin/time ]; then
		s=$(now)
		/usr/bin/time -f '%M' -o "$TMPD/time.out" ip netns exec "$ns" "$@" 2>"$TMPD/peak.err" || rc=$?
		e=$(now)
		hwm=$(tail -n 1 "$TMPD/time.out")
	else
		s=$(now)
		ip netns exec "$ns" "$@" 2>"$TMPD/peak.err" &
		pid=$!
		while kill -0 "$pid" 2>/dev/null; do
			v=$(status_kb "$pid" VmHWM)
			[ -n "$v" ] && [ "$v" -gt "$hwm" ] && hwm=$v
			sleep 0.005
		done
		wait "$pid" || rc=$?
		e=$(now)
	fi
	echo "$hwm $(elapsed "$s" "$e") $rc"
}

# counts NS: "CLASSES QDISCS" lines on v0
counts() {
	echo "$(ip netns exec "$1" tc class show dev v0 | wc -l) $(ip netns exec "$1" tc qdisc show dev v0 | wc -l)"
}
want="$((N + 1)) $((N + 1))"

# 1. the daemon holding the tree
ns_fresh NS daemon || die "could not make a namespace"
GW_LOG=$TMPD/daemon.log
s=$(now)
ip netns exec "$NS" "$GATEWAYD" -c "$TMPD/c.conf" -v >"$GW_LOG" 2>&1 &
GW_PID=$!
PIDS+=("$GW_PID")
ready=0
for _ in $(seq 1 1200); do # up to 120 s
	grep -q "applied and verified" "$GW_LOG" && { ready=1; break; }
	kill -0 "$GW_PID" 2>/dev/null || break
	sleep 0.1
done
t_ready=$(elapsed "$s" "$(now)")
if [ "$ready" -ne 1 ]; then
	log "daemon did not apply the tree: $(tail -n 5 "$GW_LOG" | tr '\n' ' ')"
	exit 1
fi
comm=$(cat "/proc/$GW_PID/comm")
[ "$comm" = gatewayd ] || log "warning: pid $GW_PID is '$comm', not gatewayd"
read -r hwm1 rss1 vsz1 <<<"$(mem_kb "$GW_PID")"
# -v: "history: N bytes", what the rings reserve (logged next to "applied and verified")
wait_log "$GW_PID" "$GW_LOG" "history: " 10
hist=$(sed -n 's/.*history: \([0-9]*\) bytes.*/\1/p' "$GW_LOG" | head -n 1)
[ -n "$hist" ] || { log "no \"history: N bytes\" line in the -v log"; hist=0; }
read -r ring_size ring1 <<<"$(ring_kb "$GW_PID" "$hist")"
c=$(counts "$NS")
[ "$c" = "$want" ] || { log "daemon tree has classes/qdiscs $c, want $want"; failed=1; }
sleep "$SETTLE"
read -r hwm2 rss2 vsz2 <<<"$(mem_kb "$GW_PID")"
read -r _ ring2 <<<"$(ring_kb "$GW_PID" "$hist")"
log "daemon ready in $t_ready s; VmHWM/VmRSS/VmSize $hwm1 $rss1 $vsz1 kB; ${SETTLE} s later $hwm2 $rss2 $vsz2 kB"

s=$(now)
kill -TERM "$GW_PID"
rc=0
for _ in $(seq 1 600); do kill -0 "$GW_PID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$GW_PID" 2>/dev/null; then
	log "daemon still running 60 s after SIGTERM"
	failed=1
else
	wait "$GW_PID" || rc=$?
fi
t_stop=$(elapsed "$s" "$(now)")
PIDS=()
left=$(counts "$NS")
htb_left=$(ip netns exec "$NS" tc qdisc show dev v0 | grep -c htb)
[ "$rc" -eq 0 ] || { log "daemon exited $rc after SIGTERM: $(tail -n 3 "$GW_LOG" | tr '\n' ' ')"; failed=1; }
[ "${left%% *}" -eq 0 ] && [ "$htb_left" -eq 0 ] ||
	{ log "tree left behind after SIGTERM: classes/qdiscs $left"; failed=1; }
log "SIGTERM: exit $rc in $t_stop s; left on v0: $left (classes, qdisc lines), htb $htb_left"
ns_gone "$NS"

# 2. gatewayd --oneshot and tc -batch, peak RSS of the whole process
ns_fresh NS oneshot || die "could not make a namespace"
read -r os_kb os_s os_rc <<<"$(peak_kb "$NS" "$GATEWAYD" -c "$TMPD/c.conf" --oneshot)"
c=$(counts "$NS")
[ "$os_rc" -eq 0 ] && [ "$c" = "$want" ] ||
	{ log "oneshot exited $os_rc, tree $c: $(tail -n 3 "$TMPD/peak.err" | tr '\n' ' ')"; failed=1; }
ns_gone "$NS"

ns_fresh NS batch || die "could not make a namespace"
read -r tb_kb tb_s tb_rc <<<"$(peak_kb "$NS" tc -batch "$TMPD/batch")"
c=$(counts "$NS")
[ "$tb_rc" -eq 0 ] && [ "$c" = "$want" ] ||
	{ log "tc -batch exited $tb_rc, tree $c: $(tail -n 3 "$TMPD/peak.err" | tr '\n' ' ')"; failed=1; }
ns_gone "$NS"

how="GNU time maxrss"
[ -x /usr/bin/time ] || how="VmHWM polled every 5 ms"
echo "| $N classes, $((N * 2 + 2)) objects | peak RSS | RSS | VmSize | notes |"
echo "|---|---:|---:|---:|---|"
echo "| gatewayd daemon, at \"applied and verified\" | $(mib "$hwm1") | $(mib "$rss1") | $(mib "$vsz1") | VmHWM / VmRSS / VmSize; ready ${t_ready} s after start; mapping with the history rings: $(mib "$ring1") resident |"
echo "| gatewayd daemon, ${SETTLE} s later | $(mib "$hwm2") | $(mib "$rss2") | $(mib "$vsz2") | while it samples the tree's counters; mapping with the history rings: $(mib "$ring2") resident |"
echo "| gatewayd --oneshot | $(mib "$os_kb") | - | - | $how; ${os_s} s |"
echo "| tc -batch | $(mib "$tb_kb") | - | - | $how; ${tb_s} s |"
echo
echo "History rings: $hist bytes reserved ($(awk -v b="$hist" 'BEGIN { printf "%.1f MiB", b / 1048576 }');" \
	"\`gatewayd -v\` logs it). They live in one anonymous mapping of $(mib "$ring_size") (glibc mmaps each" \
	"big calloc and the kernel merges neighbouring ones, so other big arrays share it); \"resident\" is" \
	"that mapping's Rss in /proc/PID/smaps. The rings fill as time goes by: RSS grows toward the reserved size."
if [ "$FILL" != none ]; then
	filled=$("$HISTFILL" "$((N + 1))" 1 "$FILL") || { log "$HISTFILL failed"; failed=1; }
	fkb=$(sed -n 's/.*rss_kb=\([0-9]*\).*/\1/p' <<<"$filled")
	echo "The web process's history with every ring full (FILL=$FILL, measured in a process of" \
		"its own, \`histfill $((N + 1)) 1 $FILL\`; the rings live in the web process, not in the" \
		"daemon above): $(mib "${fkb:-0}") of RSS; \`$filled\`."
fi
echo "SIGTERM: daemon exited $rc in ${t_stop} s; classes left on v0: ${left%% *}, htb qdiscs left: $htb_left."
exit "$failed"
