#!/usr/bin/env bash
# Containers: limits that follow interfaces as they come and go. gatewayd runs in a "host"
# namespace; each "container" is a namespace of its own joined to it by a veth pair whose host
# end is named vcN. After gatewayd starts, CTR_COUNT containers appear: each must be shaped
# within 1 s (timed by the kernel's notifications), each one's rate under an iperf3 flood must
# be within 90-100% of its cap in both directions (a few at a time), while a veth that matches
# no entry keeps its full speed. Then CTR_BURST (32) more made in one `ip -b` batch, each
# shaped within 1 s. Then renames, an index reused by a new interface, and
# CTR_CYCLES create/delete cycles (their history asked for meanwhile): nothing of gatewayd's
# may be left behind, and its memory must stay flat. Each container's history on
# /api/history. Then reloads: an entry changed, the last entry removed, the first brought back,
# each checked with a flood through a container.
. "$(dirname "$0")/lib.sh"
COUNT=${CTR_COUNT:-32}
CYCLES=${CTR_CYCLES:-200}
AT_ONCE=4
EG_CAP=8	# mbit: the entry's egress ceil (host -> container)
IN_CAP=4	# mbit: its ingress ceil (container -> host)

ns_new H host || { not_ok "namespace"; exit 1; }
cat >"$TMPD/c.conf" <<CONF
containers = (
  { interfaces = "vc*"; netns = "$RUN_ID-c*";
    egress = { rate = "4mbit"; ceil = "${EG_CAP}mbit"; child = { kind = "fifo"; limit = 50; }; };
    ingress = { rate = "${IN_CAP}mbit"; child = { kind = "fifo"; limit = 50; }; }; },
  { interfaces = "va*"; address = "10.99.0.0/16";
    egress = { rate = "5mbit"; child = { kind = "fifo"; }; }; }
);
CONF

# The client W: hw0 10.86.0.1 in H, w0 10.86.0.2 in W; all load is forwarded through H, as
# traffic to and from a container is (a sender in H itself would be held back by TCP small
# queues). Container N: namespace $RUN_ID-cN, eth0 10.88.N.2/24 there, its peer vcN in H with
# 10.88.N.1/24.
ns_new W client || { not_ok "namespace"; exit 1; }
ip -n "$H" link add hw0 type veth peer name w0 netns "$W"
ip -n "$H" -b - <<EOF
addr add 10.86.0.1/24 dev hw0
link set hw0 up
EOF
ip -n "$W" -b - <<EOF
addr add 10.86.0.2/24 dev w0
link set w0 up
route add 10.88.0.0/16 via 10.86.0.1
route add 10.87.0.0/16 via 10.86.0.1
EOF
ip netns exec "$H" sysctl -qw net.ipv4.ip_forward=1
now_us() { echo "${EPOCHREALTIME/./}"; }
# ctr_make N...: the containers' namespaces, then each pair made from inside the container (one
# exec each: the host end vcN appears in H at once), then the host ends' addresses in one batch
ctr_make() {
	local n
	for n in "$@"; do NAMESPACES+=("$RUN_ID-c$n"); done
	for n in "$@"; do echo "netns add $RUN_ID-c$n"; done | ip -b - || return 1
	for n in "$@"; do
		ip -n "$RUN_ID-c$n" -b - <<-EOF || return 1
			link add eth0 type veth peer name vc$n netns $H
			link set lo up
			addr add 10.88.$n.2/24 dev eth0
			link set eth0 up
			route add default via 10.88.$n.1
		EOF
	done
	for n in "$@"; do printf 'addr add 10.88.%s.1/24 dev vc%s\nlink set vc%s up\n' "$n" "$n" "$n"; done |
		ip -n "$H" -b -
}
ifindex() { ip -n "$H" -j link show dev "$1" 2>/dev/null | jq -r '.[0].ifindex'; }
# shaped NAME: the whole tree is in the kernel: htb and the ingress hook on NAME, htb on its ifb
shaped() {
	local idx q
	idx=$(ifindex "$1") || return 1
	q=$(tc -n "$H" qdisc show)
	grep -q "htb e000: dev $1 root" <<<"$q" && grep -q "ingress ffff: dev $1 " <<<"$q" &&
		grep -q "pfifo 1000: dev gwc-$idx parent e000:10" <<<"$q"
}
# wait_ms SECONDS CMD...: wait_for CMD, polled every 10 ms; prints the milliseconds until it held
wait_ms() {
	local t=$1
	shift
	WAIT_FOR_STEP=0.01 wait_for "$(printf '%q ' "$@")" "$t" || return 1
	echo "$WAIT_FOR_MS"
}
has_root() { [[ $(tc -n "$H" qdisc show dev "$1" 2>/dev/null) == *"htb e000:"* ]]; }
no_gw_tree() {	# no_gw_tree NAME: nothing of gatewayd's on NAME
	! tc -n "$H" qdisc show dev "$1" 2>/dev/null | grep -q 'e000:\|ffff:'
}
# ctr_removed IDX NAME: the container ifb gwc-IDX gone and nothing of gatewayd's on NAME
ctr_removed() { ! ip -n "$H" link show "gwc-$1" >/dev/null 2>&1 && no_gw_tree "$2"; }
status() { ip netns exec "$H" curl -s --max-time 2 http://127.0.0.1:9180/api/status; }
ctr_links() { status | jq -r '[.links[].name | select(startswith("ctr:"))] | sort | join(" ")'; }
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$GW_PID/status"; }

gw_start "$H" "$TMPD/c.conf" || { not_ok "gatewayd starts" "$(cat "$GW_LOG")"; exit 1; }

# ---- 1. COUNT containers appear; each shaped within 1 s ---------------------------------------
# Timed by the kernel's own notifications (ip/tc monitor, microsecond timestamps): from the
# first RTM_NEWLINK of vcN to the last object of its tree, the leaf under the ifb's class.
monitors_start "$H" "$TMPD/link.mon" "$TMPD/tc.mon" || not_ok "the kernel's notifications are monitored"
# appear_ms NAME IFINDEX: ms from NAME's first link notification to gwc-IFINDEX's leaf
appear_ms() {
	awk -v name="$1" -v ifb="gwc-$2" '
		function ts(s) { split(substr(s, 13, 15), t, ":"); return t[1] * 3600 + t[2] * 60 + t[3] }
		FILENAME ~ /link/ && !a && index($0, " " name "@") { a = ts($1) }
		FILENAME ~ /tc/ && index($0, "dev " ifb " parent e000:10") && !/^\[[^]]*\] deleted/ { q = ts($1) }
		END { if (a && q) printf "%d", (q - a) * 1000; else print "" }' "$TMPD/link.mon" "$TMPD/tc.mon"
}
# appear_all PREFIX N: appear_ms of PREFIX1..PREFIXN into all_ms (99999: never shaped), and
# in slow how many took more than 1 s
appear_all() {
	local n ms
	slow=0 all_ms=()
	for n in $(seq 1 "$2"); do
		ms=$(appear_ms "$1$n" "$(ifindex "$1$n")")
		all_ms+=("${ms:-99999}")
		[ "${ms:-99999}" -gt 1000 ] && slow=$((slow + 1))
	done
}
ctr_make $(seq 1 "$COUNT") || { not_ok "containers created"; exit 1; }
all_shaped() { local n; for n in $(seq 1 "$COUNT"); do shaped "vc$n" || return 1; done; }
wait_ms 5 all_shaped >/dev/null
appear_all vc "$COUNT"
pct() { printf '%s\n' "${all_ms[@]}" | sort -n | awk -v p="$1" '{ v[NR] = $1 } END { i = int(NR * p / 100 + 0.999); print v[i < 1 ? 1 : i] }'; }
echo "# $COUNT containers: link notification to the whole tree in the kernel: p50 $(pct 50) ms, max $(pct 100) ms"
check "each of $COUNT containers shaped within 1 s of appearing ($slow slower)" test "$slow" -eq 0
want=$(for n in $(seq 1 "$COUNT"); do echo "ctr:vc$n"; done | sort | paste -sd' ')
# (the next sampling pass takes them up)
check "the status lists the $COUNT containers as links ctr:vcN" wait_for '[ "$(ctr_links)" = "$want" ]' 5
check "their metrics carry link=\"ctr:vcN\"" \
	bash -c "ip netns exec $H curl -s http://127.0.0.1:9180/metrics | grep -q 'gatewayd_direction_info{link=\"ctr:vc$COUNT\",direction=\"ingress\"'"


echo "# at ${SECONDS} s"
# ---- 2. load, AT_ONCE containers at a time ---------------------------------------------------
# Per stream a UDP flood at 1.5x the cap (W -> container: the host veth's egress; container ->
# W: its ingress, through the ifb), forwarded through H. Each round floods AT_ONCE containers
# towards them and AT_ONCE others from them (a container's two directions are loaded in
# different rounds: iperf3's UDP handshake goes the other way and, behind a full queue, is lost
# often enough to stall a client). A 50-packet fifo keeps the queue short (72 ms at 8 mbit).
#
# The rate judged is what the shaper sent: the kernel's byte counter of the direction's root as
# gatewayd reads it every second (the status's sent_bytes and sample time, checked against tc
# and iperf3 in test_status.sh), over the last two intervals of the flood, in which the queue
# stayed backlogged ("saturated"); wire bytes, so 1.0 of the cap when the limit holds.
# What iperf3's receiver got is printed beside it: on this shared machine a receiver starved of
# CPU loses packets from its socket buffer after the shaper, and a starved sender does not fill
# the queue; a stream with no saturated interval is run again alone, once.
# The iperf3 servers all live in W: two sets, used by turns, so that no round finds a server
# still closing the last round's test ("busy").
SERVERS=()
for p in $(seq 6000 $((6000 + 4 * AT_ONCE - 1))); do	# 2 sets x 2 AT_ONCE streams
	timeout 300 ip netns exec "$W" iperf3 -s -p "$p" >/dev/null 2>&1 &
	SERVERS+=($!)
	PIDS+=($!)
done
listening() { [ "$(ip netns exec "$W" ss -Hltn | grep -c ':60[0-9][0-9] ')" -ge $((4 * AT_ONCE)) ]; }
wait_ms 20 listening >/dev/null || not_ok "iperf3 servers listening" "$(ip netns exec "$W" ss -Hltn | wc -l)"
mbit() { jq -r '.end.sum_received.bits_per_second / 1e6' "$1" 2>/dev/null | grep . || echo 0; }
# shaped_mbit SNAPSHOTS N DIR: ctr:vcN's direction as the kernel's byte counter of its root saw
# it, between gatewayd's passes: over the last two saturated intervals in a row, else over the
# last saturated one, else 0 (never saturated)
shaped_mbit() {
	jq -rs --arg l "ctr:vc$2" --arg d "$3" '[.[] | . as $s | .links[]? | select(.name == $l) |
		.directions[] | select(.direction == $d) | { seq: $s.sample.seq,
		t: $s.sample.time_unix_seconds, b: .total.sent_bytes, sat: .total.saturated }] |
		unique_by(.seq) | . as $e | ([range(0; length) | select($e[.].sat)] | last) as $i |
		if $i == null then 0
		elif $i >= 2 and $e[$i - 1].sat then
			($e[$i].b - $e[$i - 2].b) * 8 / ($e[$i].t - $e[$i - 2].t) / 1e6
		elif $i >= 1 then ($e[$i].b - $e[$i - 1].b) * 8 / ($e[$i].t - $e[$i - 1].t) / 1e6
		else 0 end' "$1" 2>/dev/null | grep . || echo 0
}
ROUND=0
load_round() {	# load_round DIR:N...: prints "DIR N shaper_mbit received_mbit" per stream
	local x d n k=$((ROUND % 2 * 2 * AT_ONCE)) pids=()
	for x in "$@"; do
		d=${x%%:*} n=${x#*:}
		if [ "$d" = eg ]; then set -- -R -b $((EG_CAP * 3 / 2))M; else set -- -b $((IN_CAP * 3 / 2))M; fi
		timeout 20 ip netns exec "$RUN_ID-c$n" iperf3 -c 10.86.0.2 -p $((6000 + k)) -u -l 1400 \
			"$@" -t 3 -O 1 -J >"$TMPD/$d.$n" 2>&1 &
		pids+=($!)
		k=$((k + 1))
	done
	# status snapshots while the floods run (gatewayd samples once a second)
	: >"$TMPD/snaps.$ROUND"
	for _ in 1 2 3 4; do
		sleep 1	# pacing: one snapshot per sampling interval while the 4 s floods run
		status >>"$TMPD/snaps.$ROUND"
	done
	wait "${pids[@]}"
	for x in ${ROUND_ARGS}; do
		d=${x%%:*} n=${x#*:}
		echo "$d $n $(shaped_mbit "$TMPD/snaps.$ROUND" "$n" "$([ "$d" = eg ] && echo egress || echo ingress)") $(mbit "$TMPD/$d.$n")"
	done
}
bad=0 results=() starved=() outside=() FINAL=0
judge() {	# judge LINE...: "DIR N shaper_mbit received_mbit" against the cap
	local l cap
	for l in "$@"; do
		set -- $l
		cap=$([ "$1" = eg ] && echo $EG_CAP || echo $IN_CAP)
		if [ "$3" = 0 ]; then
			starved+=("$1:$2")
			echo "# container $2 $1: the queue never stayed backlogged for an interval (received $4 Mbit/s)"
			continue
		fi
		# the upper bound has room for the measurement, not the shaper: two 1 s intervals
		# timed by when a pass ran, which a loaded machine delays by tens of ms (1.026 was
		# seen); a cap not in force shows the flood's 1.5. A reading outside is taken again
		# alone, once, as a starved one is: with the other lane's suites on both cores the
		# kernel's own dequeueing falls behind now and then (CI saw 3 of 16 in one run).
		if awk -v v="$3" -v c="$cap" 'BEGIN { exit !(v / c >= 0.90 && v / c <= 1.05) }'; then
			results+=("$l")
		elif [ "$FINAL" = 0 ]; then
			outside+=("$1:$2")
			echo "# container $2 $1: shaper sent $3 Mbit/s of $cap (received $4): taken again alone"
		else
			results+=("$l")
			bad=$((bad + 1))
			echo "# container $2 $1: shaper sent $3 Mbit/s of $cap (received $4)"
		fi
	done
}
rounds=$(((COUNT + AT_ONCE - 1) / AT_ONCE))
for r in $(seq 0 $((rounds - 1))); do
	t0=$SECONDS
	ROUND_ARGS=
	for n in $(seq $((r * AT_ONCE + 1)) $((r * AT_ONCE + AT_ONCE))); do
		[ "$n" -le "$COUNT" ] && ROUND_ARGS+=" eg:$n"
	done
	for n in $(seq $(((r + 1) % rounds * AT_ONCE + 1)) $(((r + 1) % rounds * AT_ONCE + AT_ONCE))); do
		[ "$n" -le "$COUNT" ] && ROUND_ARGS+=" in:$n"
	done
	mapfile -t lines < <(load_round $ROUND_ARGS)
	judge "${lines[@]}"
	ROUND=$((ROUND + 1))
	echo "# round $ROUND: $((SECONDS - t0)) s"
done
again=("${starved[@]}" "${outside[@]}")
starved=()
FINAL=1
for x in "${again[@]}"; do
	ROUND_ARGS=" $x"
	mapfile -t lines < <(load_round "$x")
	ROUND=$((ROUND + 1))
	judge "${lines[@]}"
done
summary() {	# summary DIR CAP COLUMN: min median max of that direction's column / cap
	printf '%s\n' "${results[@]}" | awk -v d="$1" -v c="$2" -v k="$3" '$1 == d { print $k / c }' |
		sort -g | awk '{ v[NR] = $1 } END { printf "min %.3f median %.3f max %.3f", v[1], v[int((NR + 1) / 2)], v[NR] }'
}
echo "# the shaper's rate / cap (wire bytes, over 2 saturated intervals), $COUNT containers, $AT_ONCE at a time: egress $(summary eg $EG_CAP 3); ingress $(summary in $IN_CAP 3)"
echo "# iperf3's received payload / cap (the limit exactly: 0.971): egress $(summary eg $EG_CAP 4); ingress $(summary in $IN_CAP 4)"
check "each container's rate within 90-100% of its cap under load (read to 1.05 for the timing of the reads), both directions ($bad of $((2 * COUNT)) outside; ${#outside[@]} taken again alone)" test "$bad" -eq 0
check "every stream saturated its queue (${#starved[@]} of $((2 * COUNT)) did not, even alone)" test "${#starved[@]}" -eq 0
# TCP, one container, both directions at once, 2 flows each, for the record: goodput is at
# most 95.6% of the wire rate the shaper charges, less when the senders are starved of CPU
timeout 20 ip netns exec "$RUN_ID-c3" iperf3 -c 10.86.0.2 -p 6000 -R -P 2 -t 3 -O 1 -J >"$TMPD/teg" 2>&1 &
tpid=$!
timeout 20 ip netns exec "$RUN_ID-c3" iperf3 -c 10.86.0.2 -p 6001 -P 2 -t 3 -O 1 -J >"$TMPD/tin" 2>&1
wait "$tpid"
echo "# TCP goodput through container 3, both directions at once: egress $(mbit "$TMPD/teg") Mbit/s of $EG_CAP, ingress $(mbit "$TMPD/tin") Mbit/s of $IN_CAP"
# each container's history is on /api/history as link=ctr:vcN: vc1's egress and the first
# ingress of round 0 (vc5 when there are two rounds or more) were flooded, so their raw series
# hold intervals at the cap
hist() {	# hist N DIR: the HTTP status; the body in $TMPD/hist
	ip netns exec "$H" curl -s -o "$TMPD/hist" -w '%{http_code}' --max-time 2 \
		"http://127.0.0.1:9180/api/history?link=ctr:vc$1&direction=$2"
}
for x in 1:egress:$EG_CAP $((1 % rounds * AT_ONCE + 1)):ingress:$IN_CAP; do
	IFS=: read -r n d cap <<<"$x"
	code=$(hist "$n" "$d")
	peak=$(jq -r '(.columns | index("rate_bits_per_second_avg")) as $k |
		[.points[] | .[$k] // 0] | (max // 0) / 1e6 | . * 1000 | round / 1000' "$TMPD/hist" 2>/dev/null)
	npts=$(jq -r '.points | length' "$TMPD/hist" 2>/dev/null)
	echo "# /api/history ctr:vc$n $d: HTTP $code, ${npts:-0} points, peak ${peak:-?} Mbit/s"
	check "/api/history for ctr:vc$n $d: its points (${npts:-0}), the flood's peak ${peak:-?} Mbit/s at the $cap mbit cap (0.85-1.1)" \
		awk -v c="$code" -v p="${peak:-0}" -v cap="$cap" -v n="${npts:-0}" \
			'BEGIN { exit !(c == 200 && n >= 10 && p / cap >= 0.85 && p / cap <= 1.1) }'
done
check "/api/history for a container that is not there: 404" test "$(hist 999 egress)" = 404
check "/api/history for a malformed container link: 400" test "$(ip netns exec "$H" curl -s -o /dev/null \
	-w '%{http_code}' --max-time 2 'http://127.0.0.1:9180/api/history?link=ctr:a/b&direction=egress')" = 400

kill "${SERVERS[@]}" 2>/dev/null
wait "${SERVERS[@]}" 2>/dev/null

# a veth that matches no entry (its peer is in a namespace the entry does not name) is left alone
ns_new O other
ip -n "$H" link add vco type veth peer name eth0 netns "$O"
ip -n "$H" addr add 10.87.0.1/24 dev vco
ip -n "$H" link set vco up
ip -n "$O" addr add 10.87.0.2/24 dev eth0
ip -n "$O" link set eth0 up
ip -n "$O" route add default via 10.87.0.1
timeout 10 ip netns exec "$O" iperf3 -s -1 >/dev/null 2>&1 &
wait_listening "$O" 5201 || not_ok "iperf3 server in $O listens"
free_mbit=$(timeout 8 ip netns exec "$W" iperf3 -c 10.87.0.2 -t 2 -O 1 -J 2>/dev/null |
	jq -r '.end.sum_received.bits_per_second / 1e6 | floor')
echo "# a veth matching no entry: ${free_mbit} Mbit/s"
check "a veth whose namespace matches no entry gets no tree" no_gw_tree vco
check "and runs far above the cap (${free_mbit:-?} Mbit/s > $((EG_CAP * 5)))" test "${free_mbit:-0}" -gt $((EG_CAP * 5))

# the address criterion: va1's container has an address in 10.99.0.0/16 (given after the veth
# appeared: a notification from its namespace, or the retry, finds it), va2's has not
ip netns add "$RUN_ID-a1" && NAMESPACES+=("$RUN_ID-a1")
ip netns add "$RUN_ID-a2" && NAMESPACES+=("$RUN_ID-a2")
ip -n "$H" link add va1 type veth peer name eth0 netns "$RUN_ID-a1"
ip -n "$H" link add va2 type veth peer name eth0 netns "$RUN_ID-a2"
sleep 0.3	# a duration, not a wait: the time va1 is given to be (wrongly) shaped without an address
check "va1 waits while its container has no address in the prefix" no_gw_tree va1
ip -n "$RUN_ID-a1" addr add 10.99.1.2/24 dev eth0
ip -n "$RUN_ID-a2" addr add 10.98.1.2/24 dev eth0
if ms=$(wait_ms 1 has_root va1); then
	ok "va1 shaped ${ms} ms after its container got 10.99.1.2"
else
	not_ok "va1 shaped within 1 s of its container getting 10.99.1.2" "$(tc -n "$H" qdisc show dev va1)"
fi
sleep 0.3	# a duration, not a wait: the time va2 is given to be (wrongly) shaped
check "va2, whose container is at 10.98.1.2, is left alone" no_gw_tree va2
check "an egress-only entry makes no ifb" bash -c "! ip -n $H link show gwc-$(ifindex va1) 2>/dev/null"

echo "# at ${SECONDS} s"
# ---- 1b. a burst: BURST veths in one ip batch, all pending at once -----------------------------
# Made from the host side in one batch (the host ends vcbN appear within a few ms of each
# other), so gatewayd finds them all waiting at once; each is timed as above and must be shaped
# within 1 s. After the load (tearing down BURST namespaces busies the kernel); then removed:
# their namespaces, and with them the veths; gatewayd takes the ifbs away.
BURST=${CTR_BURST:-32}
ifbs_before=$(ip -n "$H" -br link 2>/dev/null | grep -c '^gwc-')
# recorded for the cleanup here, not in the pipe below (its loop is a subshell)
for n in $(seq 1 "$BURST"); do NAMESPACES+=("$RUN_ID-cb$n"); done
for n in $(seq 1 "$BURST"); do echo "netns add $RUN_ID-cb$n"; done |
	ip -b - || not_ok "burst namespaces"
for n in $(seq 1 "$BURST"); do echo "link add vcb$n type veth peer name eth0 netns $RUN_ID-cb$n"; done |
	ip -n "$H" -b - || not_ok "burst veths"
burst_shaped() { local n; for n in $(seq 1 "$BURST"); do shaped "vcb$n" || return 1; done; }
wait_ms 10 burst_shaped >/dev/null
appear_all vcb "$BURST"
echo "# $BURST containers in one batch: link notification to the whole tree in the kernel: p50 $(pct 50) ms, max $(pct 100) ms"
check "each of $BURST containers made in one batch shaped within 1 s ($slow slower)" test "$slow" -eq 0
for n in $(seq 1 "$BURST"); do echo "netns del $RUN_ID-cb$n"; done | ip -b - 2>/dev/null
burst_gone() {
	! ip -n "$H" -br link 2>/dev/null | grep -q '^vcb' &&
		[ "$(ip -n "$H" -br link 2>/dev/null | grep -c '^gwc-')" -eq "$ifbs_before" ]
}
wait_ms 10 burst_gone >/dev/null
check "the burst's veths and ifbs are gone after their namespaces" burst_gone

# ---- 3. renames and a reused index ------------------------------------------------------------
before=$(tc -n "$H" -s -j qdisc show dev vc1 | jq '.[] | select(.handle == "e000:") | .bytes')
renames() { grep -c "container .*: renamed " "$GW_LOG"; }
n=$(renames)
ip -n "$H" link set vc1 name vcr1
wait_for '[ "$(renames)" -gt $n ]' 5 "gatewayd to log the rename of vc1"
after=$(tc -n "$H" -s -j qdisc show dev vcr1 | jq '.[] | select(.handle == "e000:") | .bytes')
check "renamed vc1 -> vcr1 (still matching): the same tree stays (bytes $before -> $after)" \
	test -n "$after" -a "${after:-0}" -ge "${before:-1}"
status_renamed() {	# ctr:vcr1 on /api/status, no ctr:vc1
	local ctr
	ctr=$(status | jq -r '.links[].name')
	grep -qx ctr:vcr1 <<<"$ctr" && ! grep -qx ctr:vc1 <<<"$ctr"
}
check "and the status follows the name (ctr:vcr1, no ctr:vc1)" wait_for status_renamed 5
idx=$(ifindex vcr1)
ip -n "$H" link set vcr1 name zz1
# (removal has no deadline of its own: 3 s, for an ifb's deletion on a loaded machine)
if ms=$(wait_ms 3 ctr_removed "$idx" zz1); then
	ok "renamed to zz1 (matching no entry): its tree and ifb gwc-$idx are removed (${ms} ms)"
else
	not_ok "renamed to zz1: tree and ifb gwc-$idx removed" "$(tc -n "$H" qdisc show dev zz1; ip -n "$H" -br link show gwc-$idx; tail -5 "$GW_LOG")"
fi
ip -n "$H" link set zz1 name vc1
if ms=$(wait_ms 1 shaped vc1); then ok "renamed back to vc1: shaped again (${ms} ms)"
else not_ok "renamed back to vc1: shaped again within 1 s"; fi

# the index of a deleted container reused at once by a new interface, in one batch so that
# gatewayd sees the removal and the new one together
idx=$(ifindex vc2)
ip -n "$H" -b - <<EOF
link del vc2
link add vcq2 index $idx type veth peer name eth1 netns $RUN_ID-c2
link set vcq2 up
EOF
if wait_ms 1 shaped vcq2 >/dev/null && [ "$(ifindex vcq2)" = "$idx" ]; then
	ok "index $idx reused by a new matching interface at once: shaped afresh (ifb gwc-$idx)"
else
	not_ok "index reused by a new matching interface" "$(tc -n "$H" qdisc show; cat "$GW_LOG" | tail -5)"
fi
ip -n "$H" -b - <<EOF
link del vcq2
link add zq2 index $idx type veth peer name eth1 netns $RUN_ID-c2
link set zq2 up
EOF
# the ifb going is the sign gatewayd took in the batch (vcq2 gone, zq2 new)
if wait_ms 3 ctr_removed "$idx" zq2 >/dev/null; then
	ok "index $idx reused by an interface matching no entry: nothing of gatewayd's on it, ifb gone"
else
	not_ok "index reused by a non-matching interface" "$(tc -n "$H" qdisc show dev zq2; ip -n "$H" -br link)"
fi
ip -n "$H" link del zq2

echo "# at ${SECONDS} s"
# ---- 4. create/delete cycles -------------------------------------------------------------------
# BATCH containers appear at once, are shaped, and go (half by deleting the veth, half by
# deleting the namespace, as a container runtime does), CYCLES of them in all. RSS is compared
# after the first quarter and at the end.
BATCH=10
cyc_slow=0 rss50=
# meanwhile the HTTP side asks for the history of containers as they come and go (a reader on
# another thread than the one that frees them: the sanitizer build runs this too); vcy0 is
# never there
timeout 300 ip netns exec "$H" bash -c 'while :; do
	for l in $(ip -br link | sed -n "s/^\(vcy[0-9]*\)@.*/\1/p") vcy0; do
		curl -s -o /dev/null -w "%{http_code}\n" --max-time 2 \
			"http://127.0.0.1:9180/api/history?link=ctr:$l&direction=egress"; done; done' \
	>"$TMPD/hist.codes" 2>/dev/null &
HPID=$!
PIDS+=($HPID)
# settled: the cycles' veths are gone and the ifbs left are exactly the live containers'
# (vc2's index went to vcq2, then zq2): the state the RSS is read in
ifbs_live() { ip -n "$H" -br link | awk '$1 ~ /^gwc-/ { print $1 }' | sort | paste -sd' '; }
want_ifbs=$(for n in $(seq 1 "$COUNT"); do l=vc$n; [ "$n" = 2 ] && continue; echo "gwc-$(ifindex "$l")"; done | sort | paste -sd' ')
settled() { ! ip -n "$H" -br link | grep -q '^vcy' && [ "$(ifbs_live)" = "$want_ifbs" ]; }
for b in $(seq 0 $((CYCLES / BATCH - 1))); do
	ids=$(seq $((b * BATCH + 1)) $((b * BATCH + BATCH)))
	kept=${#NAMESPACES[@]}
	for i in $ids; do NAMESPACES+=("$RUN_ID-cy$i"); done
	for i in $ids; do echo "netns add $RUN_ID-cy$i"; done | ip -b - ||
		{ not_ok "cycle batch $b: namespaces"; break; }
	for i in $ids; do echo "link add vcy$i type veth peer name eth0 netns $RUN_ID-cy$i"; done |
		ip -n "$H" -b - || { not_ok "cycle batch $b: veths"; break; }
	batch_shaped() {
		local q i
		q=$(tc -n "$H" qdisc show 2>/dev/null)
		for i in $ids; do [[ $q == *"htb e000: dev vcy$i root"* ]] || return 1; done
	}
	wait_ms 1 batch_shaped >/dev/null || cyc_slow=$((cyc_slow + 1))
	for i in $ids; do [ $((i % 2)) -eq 0 ] && echo "link del vcy$i"; done | ip -n "$H" -b -
	for i in $ids; do echo "netns del $RUN_ID-cy$i"; done | ip -b - && NAMESPACES=("${NAMESPACES[@]:0:kept}")
	[ $(((b + 1) * BATCH)) -eq $((CYCLES / 4)) ] && { wait_for settled 10 "the first quarter's containers gone"; rss50=$(rss_kb); }
done
check "$CYCLES create/delete cycles, $BATCH at once: each batch shaped within 1 s ($cyc_slow slower)" test "$cyc_slow" -eq 0
kill "$HPID" 2>/dev/null
wait "$HPID" 2>/dev/null
h200=$(grep -c '^200$' "$TMPD/hist.codes") h404=$(grep -c '^404$' "$TMPD/hist.codes")
hother=$(grep -vc '^200$\|^404$' "$TMPD/hist.codes")
echo "# history asked for during the cycles: $h200 answered 200, $h404 404 (gone or not yet), $hother other"
check "history of containers coming and going: every answer 200 or 404 ($h200/$h404/$hother)" \
	test $((h200 + h404)) -ge 10 -a "$hother" -le 1
# deleted namespaces take their veths with them a little later
wait_for settled 10 "every cycle's container gone"
rss200=$(rss_kb)
live_ifbs=$(ifbs_live)
check "no ifb left but the live containers' (${COUNT} - 1 = $(wc -w <<<"$live_ifbs"))" test "$live_ifbs" = "$want_ifbs"
check "no gatewayd qdisc left on a device that is gone or unmatched" \
	bash -c "! tc -n $H qdisc show | grep -E 'dev (vcy|zq|vco|va2)' | grep -q 'e000:\|ffff:'"
want=$(for n in $(seq 1 "$COUNT"); do [ "$n" = 2 ] && continue; echo "ctr:vc$n"; done; echo ctr:va1)
want=$(sort <<<"$want" | paste -sd' ')
# /api/status is the last sampling pass's: it says a container is gone a pass after its ifb is
wait_for '[ "$(ctr_links)" = "$want" ]' 5 "/api/status to list only the live containers"
check "gatewayd's state holds exactly the live containers" test "$(ctr_links)" = "$want"
echo "# RSS after cycle $((CYCLES / 4)): ${rss50} kB, after cycle $CYCLES: ${rss200} kB"
if [ -n "${ASAN_BUILD:-}" ] || ldd "$GATEWAYD" | grep -q libasan; then
	skip "RSS flat over the cycles" "ASan keeps freed memory in quarantine (leaks: checked at exit)"
else
	# a container's own allocations are ~120 kB (its sampler's history rings): a leak of one per
	# cycle would be 18 MB; below 2 MB is the allocator's own give and take
	check "RSS flat over the cycles (growth $((rss200 - rss50)) kB <= 2048 kB)" \
		test $((rss200 - rss50)) -le 2048
fi

echo "# at ${SECONDS} s"
# ---- 4b. reloads: entries change, the last one goes, the first one comes back -----------------
# c2: the vc* entry with a lower egress ceil, the va* entry gone, and a link on hw0 (a config
# needs a link or a containers entry); c0: that link alone
cat >"$TMPD/c2.conf" <<CONF
links = ( { name = "lan"; interface = "hw0";
  egress = { shaper = "tbf"; rate = "1gbit"; child = { kind = "fifo"; }; }; } );
containers = (
  { interfaces = "vc*"; netns = "$RUN_ID-c*";
    egress = { rate = "4mbit"; ceil = "6mbit"; child = { kind = "fifo"; limit = 50; }; };
    ingress = { rate = "${IN_CAP}mbit"; child = { kind = "fifo"; limit = 50; }; }; }
);
CONF
sed '/^containers/,$d' "$TMPD/c2.conf" >"$TMPD/c0.conf"
live_vc() { for n in $(seq 1 "$COUNT"); do [ "$n" = 2 ] || echo "vc$n"; done; }
want_vc=$(live_vc | sed 's/^/ctr:/' | sort | paste -sd' ')
ceil6() { tc -n "$H" class show dev vc1 | grep -q 'ceil 6Mbit'; }
all_live_shaped() { local l; for l in $(live_vc); do shaped "$l" || return 1; done; }
no_ctr_tree() { ! ip -n "$H" -br link | grep -q '^gwc-' && ! tc -n "$H" qdisc show | grep -E 'dev v[ca]' | grep -q 'e000:\|ffff:'; }
# flood_eg N: W -> container N, UDP at 12 Mbit/s for 3 s; prints what its egress shaper sent
# (0 when it has none) and what the container received, Mbit/s
flood_eg() {
	local srv cl
	timeout 20 ip netns exec "$W" iperf3 -s -1 -p 6100 >/dev/null 2>&1 &
	srv=$!
	PIDS+=($srv)
	wait_ms 5 bash -c "ip netns exec $W ss -Hltn | grep -q ':6100 '" >/dev/null
	timeout 20 ip netns exec "$RUN_ID-c$1" iperf3 -c 10.86.0.2 -p 6100 -u -l 1400 -R -b 12M \
		-t 3 -O 1 -J >"$TMPD/flood.json" 2>&1 &
	cl=$!
	: >"$TMPD/snaps.flood"
	for _ in 1 2 3 4; do
		sleep 1	# pacing: one snapshot per sampling interval while the 4 s flood runs
		status >>"$TMPD/snaps.flood"
	done
	wait "$cl" "$srv" 2>/dev/null
	echo "$(shaped_mbit "$TMPD/snaps.flood" "$1" egress) $(mbit "$TMPD/flood.json")"
}
cp "$TMPD/c2.conf" "$TMPD/c.conf"
kill -HUP "$GW_PID"
if ms=$(wait_ms 20 ceil6); then ok "reload with a changed entry: vc1 reshaped to ceil 6 mbit (${ms} ms)"
else not_ok "reload with a changed entry: vc1 at ceil 6 mbit" "$(tc -n "$H" class show dev vc1)"; fi
wait_ms 20 all_live_shaped >/dev/null
check "and every live vcN shaped under it" all_live_shaped
check "va1, whose entry went, has no tree any more" no_gw_tree va1
read -r v got < <(flood_eg 1)
echo "# after the reload: vc1's egress shaper sent $v Mbit/s of a 12 Mbit/s flood (ceil 6), the container got $got"
check "vc1's egress under load holds the new ceil ($v Mbit/s of 6, 0.90-1.05)" \
	awk -v v="$v" 'BEGIN { exit !(v / 6 >= 0.90 && v / 6 <= 1.05) }'
cp "$TMPD/c0.conf" "$TMPD/c.conf"
kill -HUP "$GW_PID"
if ms=$(wait_ms 20 no_ctr_tree); then ok "reload without containers: every container tree and ifb removed (${ms} ms)"
else not_ok "reload without containers: every container tree and ifb removed" "$(tc -n "$H" qdisc show | grep gwc- | head -3)"; fi
check "the status lists no ctr: link" wait_for '[ -z "$(ctr_links)" ]' 5
check "the log says so" grep -q "no containers entry any more" "$GW_LOG"
read -r _ got < <(flood_eg 1)
echo "# without containers: container 1 got $got Mbit/s of the 12 Mbit/s flood"
check "and vc1 runs uncapped ($got Mbit/s of the 12 offered > 9)" awk -v v="$got" 'BEGIN { exit !(v > 9) }'
cp "$TMPD/c2.conf" "$TMPD/c.conf"
kill -HUP "$GW_PID"
if ms=$(wait_ms 20 all_live_shaped); then ok "reload bringing containers back: every live vcN shaped again (${ms} ms)"
else not_ok "reload bringing containers back: every live vcN shaped again" "$(tc -n "$H" qdisc show | grep -c 'htb e000')"; fi
check "the status lists them again" wait_for '[ "$(ctr_links)" = "$want_vc" ]' 5
read -r v got < <(flood_eg 1)
echo "# containers back: vc1's egress shaper sent $v Mbit/s (ceil 6), the container got $got"
check "vc1's egress under load at its ceil again ($v Mbit/s of 6, 0.90-1.05)" \
	awk -v v="$v" 'BEGIN { exit !(v / 6 >= 0.90 && v / 6 <= 1.05) }'
grep -a "reload" "$GW_LOG" | sed 's/^/# log: /'

echo "# at ${SECONDS} s"
# ---- 5. stop: everything goes --------------------------------------------------------------------
gw_stop
rc=$?
check "gatewayd exits 0 on SIGTERM (under ASan: no leak)" test "$rc" -eq 0
check "no gwc- ifb left after stop" bash -c "! ip -n $H -br link | grep -q '^gwc-'"
check "no gatewayd qdisc left after stop" bash -c "! tc -n $H qdisc show | grep -q 'e000:\|ffff:'"
