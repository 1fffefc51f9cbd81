#!/usr/bin/env bash
# tests/bench/rest.sh: the daemon at rest. It holds an htb tree of N classes (fifo leaves),
# samples it every second and nobody asks it anything. After it applied the tree and SETTLE
# seconds passed, CPU over WINDOW seconds from /proc/PID/stat (utime + stime of all its threads,
# as % of one core) and VmRSS/VmHWM at both ends. The history rings are sized at start and fill
# as time goes by (a raw point per pass, a minute point per wall-clock minute), so RSS is also
# read after the first minute point (if the window had none), with the part of the rings
# resident then, and what the rings reserve (-v logs "history: N bytes"). Prints a markdown
# table; exits 1 only if something broke (targets: < 1% CPU, < 16 MB). The history and the
# HTTP side live in the web process (gatewayd(8) PRIVILEGES), which its launcher forks: the
# rings are looked for in the web process, and the last rows add up all three processes.
# FILL=idle or busy adds what the three processes would hold with every ring full (target:
# issue 13's 24 MB at 1000 classes, 200 MB at 10,000): the web process's history at rest
# swapped for a full one of the same series, both measured by build/bench/histfill
# (tests/bench/histfill.c, the daemon's own history.c: 24 h 15 min of points, zeros or random
# traffic in every series; `make bench-bins`), so no knob in the daemon fills its rings.
# env: REST_N (1000), SETTLE (5 s), WINDOW (30 s), MINUTE (1: wait for a minute point),
# FILL (none, idle or busy), HISTFILL (the histfill program; build/bench/histfill beside
# GATEWAYD's build)
. "$(dirname "$0")/lib.bash"
bench_preflight curl jq

N=${REST_N:-1000}
SETTLE=${SETTLE:-5}
WINDOW=${WINDOW:-30}
MINUTE=${MINUTE:-1}
FILL=${FILL:-none}
HISTFILL=${HISTFILL:-$(dirname "$GATEWAYD")/bench/histfill}
case $FILL in
none) ;;
idle | busy) [ -x "$HISTFILL" ] || die "FILL=$FILL needs $HISTFILL (make bench-bins)" ;;
*) die "FILL must be none, idle or busy" ;;
esac
# with full rings: issue 13's bounds
case $N in
1000) TARGET_FULL_MB=24 ;;
10000) TARGET_FULL_MB=200 ;;
*) TARGET_FULL_MB= ;;
esac
TARGET_CPU=1
TARGET_MB=16
failed=0
hz=$(getconf CLK_TCK)

# cpu_ticks PID: utime + stime (fields 14 and 15 of /proc/PID/stat, counted after the
# parenthesised command name, which may hold spaces)
cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

gen_conf_daemon "$N" "$TMPD/c.conf" 1s
ns_fresh NS rest || die "could not make a namespace"
t_start=$(now)
daemon_start GW_PID "$NS" "$TMPD/c.conf" "$TMPD/daemon.log" -v
wait_log "$GW_PID" "$TMPD/daemon.log" "applied and verified" 120 ||
	die "the daemon did not apply the tree: $(tail -n 5 "$TMPD/daemon.log" | tr '\n' ' ')"
wait_healthz "$GW_PID" "$NS" 60 || die "the daemon never answered /healthz 200"
WEB_PID=$(ip netns exec "$NS" curl -s -m 5 http://127.0.0.1:9180/api/status | jq -r '.web.pid // 0')
[ "$WEB_PID" -gt 0 ] || die "no web process in /api/status"
LAUNCH_PID=$(awk '$1 == "PPid:" { print $2 }' "/proc/$WEB_PID/status")
hist=$(sed -n 's/.*history: \([0-9]*\) bytes.*/\1/p' "$TMPD/daemon.log" | head -n 1)
[ -n "$hist" ] || { log "no \"history: N bytes\" line in the -v log"; hist=0; }
sleep "$SETTLE"

# the window: no HTTP request at all (the server renders /api/status and /metrics lazily, on
# request, and that allocates), only /proc reads
read -r hwm0 rss0 _ <<<"$(mem_kb "$GW_PID")"
c0=$(cpu_ticks "$GW_PID")
s=$(now)
sleep "$WINDOW"
c1=$(cpu_ticks "$GW_PID")
e=$(now)
read -r hwm1 rss1 _ <<<"$(mem_kb "$GW_PID")"
read -r ring_size ring_rss1 <<<"$(ring_kb "$WEB_PID" "$hist")"
secs=$(elapsed "$s" "$e")
cpu=$(awk -v t="$((c1 - c0))" -v hz="$hz" -v s="$secs" 'BEGIN { printf "%.2f", t / hz / s * 100 }')
# wall-clock minutes that ended since the daemon started: minute points written so far
minutes() { awk -v a="$t_start" -v b="$(now)" 'BEGIN { print int(b / 60) - int(a / 60) }'; }
m1=$(minutes)
log "CPU $cpu% over $secs s ($((c1 - c0)) ticks at $hz Hz); RSS $rss0 -> $rss1 kB, HWM $hwm1 kB;" \
	"rings $ring_rss1 of $ring_size kB resident; minute points so far $m1"

# then one client reads each rendered page once, as a scraper or the page would
read -r seq dur lag ptot late <<<"$(sample_fields "$NS")"
mbytes=$(ip netns exec "$NS" curl -s -m 5 -o /dev/null -w '%{size_download}' http://127.0.0.1:9180/metrics)
sbytes=$(ip netns exec "$NS" curl -s -m 5 -o /dev/null -w '%{size_download}' http://127.0.0.1:9180/api/status)
sleep 0.5
read -r hwm2 rss2 _ <<<"$(mem_kb "$GW_PID")"
log "after one /api/status and one /metrics ($sbytes and $mbytes bytes): RSS $rss2 kB, HWM $hwm2 kB"

# after the first minute point, if the window had none
m3=$m1 hwm3=$hwm2 rss3=$rss2 ring_rss3=$ring_rss1
if [ "$MINUTE" = 1 ] && [ "$m1" -lt 1 ]; then
	wait_s=$(awk -v b="$(now)" 'BEGIN { printf "%.1f", 60 - (b % 60) + 3 }')
	log "waiting $wait_s s for the first minute point"
	sleep "$wait_s"
	m3=$(minutes)
	read -r hwm3 rss3 _ <<<"$(mem_kb "$GW_PID")"
	read -r _ ring_rss3 <<<"$(ring_kb "$WEB_PID" "$hist")"
	log "after the first minute point: RSS $rss3 kB, HWM $hwm3 kB, rings $ring_rss3 kB resident"
fi
threads=$(ls "/proc/$GW_PID/task" | wc -l)
# the three processes: RSS counts the binary's and libraries' pages in each; Pss shares them out
pss_kb() { awk '$1 == "Pss:" { print $2 }' "/proc/$1/smaps_rollup"; }
read -r _ _ _ passes _ <<<"$(sample_fields "$NS")"
read -r whwm wrss _ <<<"$(mem_kb "$WEB_PID")"
read -r lhwm lrss _ <<<"$(mem_kb "$LAUNCH_PID")"
sum_rss=$((rss3 + wrss + lrss))
sum_pss=$(( $(pss_kb "$GW_PID") + $(pss_kb "$WEB_PID") + $(pss_kb "$LAUNCH_PID") ))
# FILL: the web process's history as it is now (as many passes, of idle classes) and full, each
# in a process of its own; one series per class and the direction's total
if [ "$FILL" != none ]; then
	kv() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"; }
	h_rest=$("$HISTFILL" -p "${passes:-0}" "$((N + 1))" 1 idle) || die "$HISTFILL failed"
	h_full=$("$HISTFILL" "$((N + 1))" 1 "$FILL") || die "$HISTFILL failed"
	log "histfill at rest: $h_rest"
	log "histfill full: $h_full"
	# the same rings as the web process's, or the swap below is of unlike things
	[ "$(kv bytes_at_start "$h_full")" = "$hist" ] ||
		log "warning: histfill's rings take $(kv bytes_at_start "$h_full") bytes at start, the web process's $hist"
	rest_kb=$(kv rss_kb "$h_rest") hfull_kb=$(kv rss_kb "$h_full")
	fwrss=$((wrss - rest_kb + hfull_kb))
	fsum_rss=$((sum_rss - rest_kb + hfull_kb))
	fsum_pss=$((sum_pss - rest_kb + hfull_kb))
fi
read -r ranon rfile <<<"$(awk '$1 == "RssAnon:" { a = $2 } $1 == "RssFile:" { f = $2 } END { print a, f }' "/proc/$GW_PID/status")"

daemon_stop rc "$GW_PID" 60
[ "$rc" = 0 ] || { log "daemon exited $rc after SIGTERM: $(tail -n 3 "$TMPD/daemon.log" | tr '\n' ' ')"; failed=1; }
ns_gone "$NS"

mb() { awk -v k="$1" 'BEGIN { printf "%.1f MB", k * 1024 / 1e6 }'; }
verdict_mb() { awk -v k="$1" -v t="${2:-$TARGET_MB}" 'BEGIN { print (k * 1024 / 1e6 < t) ? "met" : "**missed**" }'; }
full_target() { [ -n "$TARGET_FULL_MB" ] && echo "< $TARGET_FULL_MB MB (issue 13) | $(verdict_mb "$1" "$TARGET_FULL_MB")" || echo "- | -"; }
# everything but the rings, plus the rings in full: the RSS once 24 h of history are in
full_kb=$(awk -v r="$rss3" -v rr="$ring_rss3" -v h="$hist" 'BEGIN { printf "%d", r - rr + h / 1024 }')
echo "| $N classes, interval 1 s, at rest | value | target | |"
echo "|---|---:|---:|---|"
echo "| CPU over ${secs} s, no HTTP clients (utime + stime, % of one core) | ${cpu}% | < ${TARGET_CPU}% | $(awk -v c="$cpu" -v t="$TARGET_CPU" 'BEGIN { print (c < t) ? "met" : "**missed**" }') |"
echo "| VmRSS at the window's start (+${SETTLE} s after /healthz) | $(mb "$rss0") | < $TARGET_MB MB | $(verdict_mb "$rss0") |"
echo "| VmRSS / VmHWM at the window's end ($m1 minute points written) | $(mb "$rss1") / $(mb "$hwm1") | < $TARGET_MB MB | $(verdict_mb "$hwm1") |"
echo "| VmRSS / VmHWM after one GET of /api/status ($sbytes B) and /metrics ($mbytes B) | $(mb "$rss2") / $(mb "$hwm2") | < $TARGET_MB MB | $(verdict_mb "$hwm2") |"
[ "$m3" != "$m1" ] &&
	echo "| VmRSS / VmHWM after the first minute point ($m3 written) | $(mb "$rss3") / $(mb "$hwm3") | < $TARGET_MB MB | $(verdict_mb "$hwm3") |"
echo "| history rings reserved (\`history: N bytes\`) | $(awk -v b="$hist" 'BEGIN { printf "%.1f MB", b / 1e6 }') | | mapping holding them, resident: $(mb "$ring_rss1") at the window's end, $(mb "$ring_rss3") last |"
echo "| of the last VmRSS: file-backed (binary, shared libraries) / anonymous / the rings' mapping | $(mb "$rfile") / $(mb "$ranon") / $(mb "$ring_rss3") | | |"
[ "$FILL" = none ] &&
	echo "| VmRSS once the rings are full (15 min raw, 24 h minute points; computed) | at least $(mb "$full_kb") | $(full_target "$full_kb") |"
echo "| the web process (history, HTTP): VmRSS / VmHWM | $(mb "$wrss") / $(mb "$whwm") | | |"
echo "| its launcher: VmRSS / VmHWM | $(mb "$lrss") / $(mb "$lhwm") | | |"
if [ "$FILL" = none ]; then
	echo "| the daemon, the web process and the launcher: VmRSS summed / Pss summed | $(mb "$sum_rss") / $(mb "$sum_pss") | $(full_target "$sum_pss") |"
else
	echo "| the daemon, the web process and the launcher: VmRSS summed / Pss summed | $(mb "$sum_rss") / $(mb "$sum_pss") | | |"
	echo "| a history of $((N + 1)) series (tests/bench/histfill): VmRSS it adds after the web process's $passes passes / with every ring full (FILL=$FILL: 24 h 15 min of points; $(kv packed_bytes "$h_full") bytes packed) | $(mb "$rest_kb") / $(mb "$hfull_kb") | | |"
	echo "| with every ring full (the history at rest swapped for the full one): the web process's VmRSS | $(mb "$fwrss") | | |"
	echo "| with every ring full: the three processes' VmRSS summed / Pss summed | $(mb "$fsum_rss") / $(mb "$fsum_pss") | $(full_target "$fsum_pss") |"
fi
echo
echo "The last pass took $dur ms (lag $lag ms); $late of $ptot passes late." \
	"$threads threads. The rings live in one anonymous mapping of $(mb "$ring_size") (glibc mmaps each big" \
	"calloc and the kernel merges neighbours, so other big arrays may share it); \"resident\" is its Rss" \
	"in /proc/PID/smaps. \"Once the rings are full\" is the last VmRSS minus that Rss plus the rings'" \
	"reserved size (a lower bound: the rest of the mapping is left out). MB = 10^6 bytes. SIGTERM: exit $rc."
exit "$failed"
