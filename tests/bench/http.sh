#!/usr/bin/env bash
# tests/bench/http.sh: the status server under load. The daemon holds an htb tree of N classes
# (fifo leaves) and samples it every second; wrk hammers /metrics and /api/status over the
# namespace's loopback, with CONNS connections each. Reports requests/s and p99 latency (wrk
# --latency), the body sizes, and whether sampling stayed on time over the same window: passes
# taken vs expected (from /api/status read before and after), late passes, and the largest
# .sample.lag_ms and .sample.duration_ms seen by a once-a-second poller. Prints a markdown
# table; exits 1 only if something broke (the daemon, wrk, the poller), not for a missed target.
# 32 connections is the server's limit per client address (webui/http.c): wrk's connections
# beyond it are closed at once and wrk reconnects them in a loop, counted as socket errors.
# env: HTTP_SIZES ("100 1000"), CONNS ("16 32 64"), THREADS (2), DURATION (10 s),
#      PATHS ("/metrics /api/status")
. "$(dirname "$0")/lib.bash"
bench_preflight wrk curl jq

HTTP_SIZES=${HTTP_SIZES:-100 1000}
CONNS=${CONNS:-16 32 64}
THREADS=${THREADS:-2}
DURATION=${DURATION:-10}
PATHS=${PATHS:-/metrics /api/status}
TARGET_RPS=10000
TARGET_P99_MS=5
failed=0
ROWS=()
SIZES_NOTE=()

# to_ms VALUE: wrk's "850.00us" / "1.23ms" / "2.00s" / "1.00m" in ms
to_ms() {
	awk -v v="$1" 'BEGIN {
		n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
		f = (u == "us") ? 0.001 : (u == "ms") ? 1 : (u == "s") ? 1000 : (u == "m") ? 60000 : -1
		if (f < 0) print "?"; else printf "%.2f", n * f }'
}

# poller NS OUT STOPFILE: one sample_fields line a second to OUT until STOPFILE exists
poller() {
	while [ ! -e "$3" ]; do
		sample_fields "$1" >>"$2"
		sleep 1
	done
}

# load NS N PATH CONNS: one wrk run with the poller beside it; appends a table row
load() {
	local ns=$1 n=$2 path=$3 conns=$4 tag="$2${3//\//_}.$4" b a ppid
	local out="$TMPD/wrk.$tag" polls="$TMPD/poll.$tag" stop="$TMPD/stop.$tag"
	b=$(ip netns exec "$ns" curl -s -m 5 --interface 127.0.0.2 http://127.0.0.1:9180/api/status |
		jq -r '.sample | "\(.time_unix_seconds) \(.samples_total) \(.late_samples_total)"')
	: >"$polls"
	poller "$ns" "$polls" "$stop" &
	ppid=$!
	PIDS+=("$ppid")
	if ! ip netns exec "$ns" wrk -t"$THREADS" -c"$conns" -d"${DURATION}s" --latency \
		"http://127.0.0.1:9180$path" >"$out" 2>&1; then
		log "wrk failed on $path: $(tail -n 3 "$out" | tr '\n' ' ')"
		failed=1
	fi
	touch "$stop"
	wait "$ppid"
	pids_drop "$ppid"
	sleep 1.2 # the next pass after the window, so that "after" covers all of it
	a=$(ip netns exec "$ns" curl -s -m 5 --interface 127.0.0.2 http://127.0.0.1:9180/api/status |
		jq -r '.sample | "\(.time_unix_seconds) \(.samples_total) \(.late_samples_total)"')
	local t0 s0 l0 t1 s1 l1 rps p50 p99 reqs errs non2xx taken expect late maxlag maxdur ok
	read -r t0 s0 l0 <<<"$b"
	read -r t1 s1 l1 <<<"$a"
	if [ -z "$t0" ] || [ -z "$t1" ] || [ "$t0" = null ] || [ "$t1" = null ]; then
		log "N=$n $path c$conns: /api/status did not answer before or after the run"
		failed=1
		return
	fi
	rps=$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' "$out")
	p50=$(to_ms "$(awk '$1 == "50%" { print $2 }' "$out")")
	p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' "$out")")
	reqs=$(awk '/requests in/ { print $1 }' "$out")
	errs=$(awk '/Socket errors:/ { gsub(/,/, ""); print $4 + $6 + $8 + $10 }' "$out")
	non2xx=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$out")
	[ -n "$rps" ] && [ -n "$reqs" ] || { log "N=$n $path c$conns: no figures from wrk"; cat "$out" >&2; failed=1; return; }
	taken=$((s1 - s0))
	expect=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') # interval 1 s
	late=$((l1 - l0))
	maxlag=$(awk '$3 != "null" && $3 > m { m = $3 } END { printf "%.2f", m }' "$polls")
	maxdur=$(awk '$2 != "null" && $2 > m { m = $2 } END { printf "%.2f", m }' "$polls")
	npolls=$(awk 'NF == 5' "$polls" | wc -l)
	ok=yes
	{ [ "$taken" -lt "$expect" ] || [ "$late" -gt 0 ]; } && ok=NO
	local tr tp
	tr=$(awk -v r="$rps" -v t="$TARGET_RPS" 'BEGIN { printf "%.2fx%s", r / t, (r >= t) ? "" : " (missed)" }')
	tp=$(awk -v p="$p99" -v t="$TARGET_P99_MS" 'BEGIN { printf "%s", (p < t) ? "" : " (missed)" }')
	ROWS+=("| $n | \`$path\` | $conns | $rps | $tr | $p50 ms | $p99 ms$tp | $reqs | ${errs:-0}${non2xx:+ + $non2xx non-2xx} | $taken / $expect, $late late: $ok | $maxlag ms | $maxdur ms ($npolls polls) |")
	log "N=$n $path c$conns: $rps req/s, p99 $p99 ms, errors ${errs:-0}; passes $taken/$expect, late $late, max lag $maxlag ms, max duration $maxdur ms"
}

for n in $HTTP_SIZES; do
	gen_conf_daemon "$n" "$TMPD/c$n.conf" 1s
	ns_fresh NS "http$n" || die "could not make a namespace"
	daemon_start GW_PID "$NS" "$TMPD/c$n.conf" "$TMPD/daemon$n.log"
	if ! wait_healthz "$GW_PID" "$NS" 120; then
		log "N=$n: the daemon never became healthy: $(tail -n 5 "$TMPD/daemon$n.log" | tr '\n' ' ')"
		exit 1
	fi
	sleep 2
	for path in $PATHS; do
		size=$(ip netns exec "$NS" curl -s -m 5 -o /dev/null -w '%{size_download}' "http://127.0.0.1:9180$path")
		SIZES_NOTE+=("N=$n \`$path\`: $size bytes")
	done
	for path in $PATHS; do
		for c in $CONNS; do
			load "$NS" "$n" "$path" "$c"
			sleep 1
		done
	done
	daemon_stop rc "$GW_PID" 60
	[ "$rc" = 0 ] || { log "N=$n: daemon exited $rc after SIGTERM: $(tail -n 3 "$TMPD/daemon$n.log" | tr '\n' ' ')"; failed=1; }
	ns_gone "$NS"
done

echo "| N classes | path | connections | requests/s | vs 10,000 req/s | p50 | p99 (target < 5 ms) | requests | socket errors | sampling passes taken / expected, late | max lag_ms | max duration_ms |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"
printf '%s\n' "${ROWS[@]}"
echo
echo "wrk -t$THREADS -c<connections> -d${DURATION}s --latency, inside the daemon's namespace, against" \
	"http://127.0.0.1:9180 (interval 1 s). Body sizes: $(printf '%s; ' "${SIZES_NOTE[@]}")" \
	"Passes expected = seconds between the before and after snapshots; lag and duration polled once" \
	"a second from 127.0.0.2 during the run. wrk and the daemon share the machine's $(nproc) CPUs."
exit "$failed"
