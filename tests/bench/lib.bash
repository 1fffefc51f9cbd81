# tests/bench/lib.bash: shared by the benches, on top of the netns tests' helpers: namespaces
# and processes a bench makes are recorded (NAMESPACES, PIDS) and removed on exit, failure or
# interrupt (a daemon with a big tree gets 20 s to stop); scratch files live in one mktemp dir
# (TMPD); ns_new, wait_for, wait_listening, monitors_ready come from there too.
# shellcheck disable=SC2034  # read by tests/netns/lib.sh
LIB_RUN_PREFIX=gwb LIB_TMP_PREFIX=gwbench LIB_STOP_WAIT=20
. "$(dirname "${BASH_SOURCE[0]}")/../netns/lib.sh"

log() { echo "bench: $*" >&2; }
die() { echo "bench: FAIL: $*" >&2; exit 1; }

# bench_preflight [COMMAND...]: root, the binary, tc and each COMMAND there, or die
bench_preflight() {
	local c
	[ "$(id -u)" -eq 0 ] || die "needs root (sudo make bench)"
	[ -x "$GATEWAYD" ] || die "$GATEWAYD not built (make all)"
	for c in tc "$@"; do command -v "$c" >/dev/null || die "$c missing (apt-get install $c)"; done
}

# now: wall clock in seconds with microseconds
now() { echo "$EPOCHREALTIME"; }
# elapsed START END: END - START in seconds, 3 decimals
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
# median X...: the middle value (the lower middle for an even count)
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# ratio A B: A / B, 1 decimal
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "n/a" }'; }

# gen_conf N FILE: htb 10gbit on v0 with N classes of 1mbit (ceil 10gbit), fifo leaves; the
# class rate is CLASS_RATE if set (the rates must add up to at most 10gbit: 500kbit for 16,000)
gen_conf() {
	local n=$1 i def sep rate=${CLASS_RATE:-1mbit}
	{
		echo 'links = ( { name = "bench"; interface = "v0";'
		echo '  egress = { shaper = "htb"; rate = "10gbit"; classes = ('
		for ((i = 0; i < n; i++)); do # no subshells here: a fork costs ~10 ms on a busy VM
			def='' sep=,
			((i == 0)) && def=' default = true;'
			((i == n - 1)) && sep=''
			printf '    { name = "c%d"; rate = "%s"; ceil = "10gbit";%s child = { kind = "fifo"; }; }%s\n' \
				"$i" "$rate" "$def" "$sep"
		done
		echo '  ); }; } );'
	} >"$2"
}

# ns_fresh VAR TAG: a new namespace with lo up and a veth v0 <-> v1, both up
ns_fresh() {
	local _nsname="$RUN_ID-$2"
	ip netns add "$_nsname" || return 1
	NAMESPACES+=("$_nsname")
	# no IPv6 on the veths: no router solicitations or MLD reports trickling through the tree
	# while a slow method builds it
	ip netns exec "$_nsname" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 &&
		ip -n "$_nsname" link set lo up &&
		ip -n "$_nsname" link add v0 type veth peer name v1 &&
		ip -n "$_nsname" link set v0 up &&
		ip -n "$_nsname" link set v1 up || return 1
	printf -v "$1" '%s' "$_nsname"
}

# ns_gone NS: remove the tree synchronously (so its teardown does not run in the kernel's
# background during the next trial), then the namespace
ns_gone() {
	local ns=$1 keep=() n
	ip netns exec "$ns" tc qdisc del dev v0 root 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	# the kernel dismantles a namespace in a background worker: give it a moment on 2 CPUs
	sleep "${SETTLE_NS:-0.3}"
	for n in "${NAMESPACES[@]}"; do [ "$n" = "$ns" ] || keep+=("$n"); done
	NAMESPACES=("${keep[@]}")
}

# tree_snapshot NS OUT: writes "CLASSES QDISCS DIGEST" for v0 to OUT and the listing it hashed
# to OUT.tree; the digest covers the sorted qdisc and class listings with the two figures that
# count events rather than describe the tree (refcnt, htb's direct_packets_stat) blanked, so
# equal digests mean equal trees
tree_snapshot() {
	local ns=$1 out=$2 c q d
	ip netns exec "$ns" tc class show dev v0 >"$TMPD/classes" || return 1
	ip netns exec "$ns" tc qdisc show dev v0 >"$TMPD/qdiscs" || return 1
	c=$(wc -l <"$TMPD/classes")
	q=$(wc -l <"$TMPD/qdiscs")
	cat "$TMPD/qdiscs" "$TMPD/classes" |
		sed -E 's/refcnt [0-9]+ //; s/direct_packets_stat [0-9]+/direct_packets_stat -/' |
		sort >"$out.tree"
	d=$(sha256sum <"$out.tree" | cut -c1-12)
	echo "$c $q $d" >"$out"
}

# --- the daemon, for the benches that need it running ---------------------------------------

# gen_conf_daemon N FILE [INTERVAL]: gen_conf plus the daemon's keys (listen, interval)
gen_conf_daemon() {
	gen_conf "$1" "$2.links"
	{
		echo 'listen = "127.0.0.1:9180";'
		echo "interval = \"${3:-1s}\";"
		cat "$2.links"
	} >"$2"
	rm -f "$2.links"
}

# daemon_start VAR NS CONF LOG [ARGS...]: runs gatewayd -c CONF in NS in the background (its
# stdout and stderr to LOG); its pid goes to VAR and to PIDS (killed on exit). `ip netns exec`
# execs the program, so the pid is gatewayd's own.
daemon_start() {
	local _var=$1 ns=$2 conf=$3 dlog=$4 _pid
	shift 4
	ip netns exec "$ns" "$GATEWAYD" -c "$conf" "$@" >"$dlog" 2>&1 &
	_pid=$!
	PIDS+=("$_pid")
	printf -v "$_var" '%s' "$_pid"
}

# wait_log PID LOG PATTERN SECONDS: 0 once LOG has a line matching PATTERN; 1 if PID exited
# or SECONDS passed first
wait_log() {
	local pid=$1 dlog=$2 pat=$3
	wait_for "grep -q -- '$pat' '$dlog' || ! kill -0 $pid 2>/dev/null" "$4" "'$pat' in $dlog" &&
		grep -q -- "$pat" "$dlog"
}

# http_code NS PATH: the status code of GET http://127.0.0.1:9180PATH inside NS (000: no answer)
http_code() {
	ip netns exec "$1" curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:9180$2"
}

# wait_healthz PID NS SECONDS: 0 once /healthz answers 200 (the tree is in and sampled)
wait_healthz() {
	local pid=$1 ns=$2
	WAIT_FOR_STEP=0.2 wait_for "[ \"\$(http_code $ns /healthz)\" = 200 ] || ! kill -0 $pid 2>/dev/null" "$3" \
		"/healthz 200 in $ns" && kill -0 "$pid" 2>/dev/null
}

# sample_fields NS: "SEQ DURATION_MS LAG_MS SAMPLES_TOTAL LATE_TOTAL" from /api/status (from
# 127.0.0.2, so that a load generator's connections from 127.0.0.1 do not count against the
# server's per-address connection limit); empty if the server did not answer
sample_fields() {
	ip netns exec "$1" curl -s -m 5 --interface 127.0.0.2 http://127.0.0.1:9180/api/status |
		jq -r '.sample | "\(.seq) \(.duration_ms) \(.lag_ms) \(.samples_total) \(.late_samples_total)"' 2>/dev/null
}

# daemon_stop VAR PID SECONDS: SIGTERM, wait up to SECONDS; VAR gets the exit status (or "hung"
# after a SIGKILL) and the pid leaves PIDS. Call it directly, not in $(...): wait needs the
# parent shell.
daemon_stop() {
	local _var=$1 pid=$2 _rc=0
	kill -TERM "$pid" 2>/dev/null
	wait_for "! kill -0 $pid 2>/dev/null" "$3" "pid $pid to exit"
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		_rc=hung
	else
		wait "$pid" || _rc=$?
	fi
	pids_drop "$pid"
	printf -v "$_var" '%s' "$_rc"
}

# pids_drop PID: PID has ended; no need to kill it on exit
pids_drop() {
	local keep=() p
	for p in "${PIDS[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
	PIDS=("${keep[@]}")
}

# mem_kb PID: "VmHWM VmRSS VmSize" in kB, read in one pass
mem_kb() {
	awk '$1 == "VmHWM:" { h = $2 } $1 == "VmRSS:" { r = $2 } $1 == "VmSize:" { v = $2 }
		END { print h, r, v }' "/proc/$1/status"
}
# mib KB: "12.3 MiB"
mib() { awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; }

# ring_kb PID BYTES: "SIZE_KB RSS_KB" of the smallest anonymous mapping of PID at least BYTES
# long: the history rings (gatewayd -v logs "history: BYTES bytes"). glibc mmaps each big
# calloc and the kernel merges neighbouring ones, so the mapping may be a little larger.
ring_kb() {
	awk -v want="$2" '
		/^[0-9a-f]+-[0-9a-f]+ / { anon = (NF == 5); next }
		$1 == "Size:" { size = $2; next }
		$1 == "Rss:" && anon && size * 1024 >= want && (best == "" || size < best) {
			best = size; rss = $2 }
		END { if (best != "") print best, rss; else print "- -" }' "/proc/$1/smaps"
}
