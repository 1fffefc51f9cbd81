#!/bin/bash
# tests/uml/guest/latency-kinds.sh: guest side of tests/uml/test_latency.sh. gatewayd shapes
# the router's r1 egress with htb 20mbit and, in turn, a large fifo, fq_codel and cake, and
# probes the server (netem 10 ms on its far side) by ICMP every 20 ms. Idle first, then 4 TCP
# flows and a UDP flood that never backs off, forwarded from the client through the router:
# the daemon's own figures must show the fifo's bloat (large induced latency, a poor grade) and
# fq_codel's and cake's control of it (induced p99 under 15 ms, grade A or A+).
# Argument: the gatewayd binary.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$UML_LIB" || exit 1
GW=${1:?gatewayd binary}
T=$(mktemp -d)

# ICMP every 20 ms: p99 is then the 3rd or 4th worst of ~300 loaded samples, not one hiccup
[ -z "$UML_MODULES_FAILED" ] || not_ok "guest modules" "not loaded: $UML_MODULES_FAILED"
uml_topology || { not_ok "topology" "uml_topology failed"; exit 1; }
uml_netem_far 10ms limit 10000

T0=$(date +%s.%N)
gw_run() {	# gw_run CONF: start gatewayd in the router namespace, wait for "applied"
	# the kinds are known here (tests/uml/test_gatewayd.sh checks them): no probe fork
	GATEWAYD_SKIP_KIND_PROBE=1 ip netns exec $UML_NS_R "$GW" -c "$1" >"$T/log" 2>&1 &
	GWPID=$!
	for _ in $(seq 20); do
		sleep 0.5
		[[ $(<"$T/log") == *"applied and verified"* ]] && return 0
		kill -0 $GWPID 2>/dev/null || break
	done
	echo "# $(cat "$T/log")"
	return 1
}
# rate FILE: an iperf3 output's receiver rate as "VALUE UNIT" (builtins only), "0 bits/sec"
rate() {
	local l w prev="0" out="0 bits/sec"
	while read -r l; do
		[[ $l == *receiver* ]] || continue
		for w in $l; do
			[[ $w == *bits/sec ]] && out="$prev $w"
			prev=$w
		done
	done <"$1"
	echo "$out"
}
api() { ip netns exec $UML_NS_R curl -s --max-time 5 http://127.0.0.1:9180/api/status; }

# run KIND CHILD_BLOCK: idle, then loaded; leaves $T/load-KIND.json (read once the load is
# over: every exec is slow in the guest, and the samples stay in the 60 s window, each judged
# idle or loaded as it came). Commands are batched per namespace: each exec costs here.
run() {
	local kind=$1 srv rc
	printf '%s\n' 'interval = "500ms";' \
		"links = ( { name = \"wan\"; interface = \"r1\";" \
		"  egress = { shaper = \"htb\"; rate = \"20mbit\"; child = { $2 }; }; } );" \
		"probe = { targets = [ \"$UML_IP_S\" ]; method = \"icmp\"; interval = \"20ms\"; };" \
		>"$T/$kind.conf"
	gw_run "$T/$kind.conf" || { not_ok "$kind: gatewayd starts" "$(tail -3 "$T/log")"; return 1; }
	# (timeout signals its whole process group: both servers, both clients)
	ip netns exec $UML_NS_S timeout 30 sh -c "iperf3 -s -1 -B $UML_IP_S >/dev/null 2>&1 &
		iperf3 -s -1 -B $UML_IP_S -p 5202 >/dev/null 2>&1 & wait" &
	srv=$!
	sleep 2	# idle probes
	# 4 TCP flows for 7 s, and from the 2nd second 5 Mbit/s of UDP that never backs off
	ip netns exec $UML_NS_C timeout 20 sh -c "iperf3 -c $UML_IP_S -P 4 -t 7 >$T/tcp-$kind 2>&1 &
		sleep 1; iperf3 -c $UML_IP_S -p 5202 -u -b 5M -l 1400 -t 5 >$T/udp-$kind 2>&1; wait"
	api >"$T/load-$kind.json"
	# what got through, from iperf3's receiver lines ("... 14.6 Mbits/sec ... receiver")
	echo "$kind $(rate "$T/tcp-$kind") $(rate "$T/udp-$kind")" >>"$T/rates"
	kill -TERM $GWPID $srv 2>/dev/null	# the servers are gone unless a client failed
	wait $GWPID
	rc=$?
	wait $srv 2>/dev/null
	check "$kind: gatewayd exits 0" "status $rc: $(tail -3 "$T/log")" test $rc -eq 0
}

el() { awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
KINDS=${GW_LAT_KINDS:-fifo fq_codel cake}
for k in $KINDS; do
	case $k in
	fifo) run fifo 'kind = "fifo"; limit = 1000;' ;;
	fq_codel) run fq_codel 'kind = "fq_codel";' ;;
	cake) run cake 'kind = "cake";' ;;
	esac
	echo "# $k done at $(el) s"
done

# one jq per kind (every exec costs in the guest): the figures, then one awk for the checks
for k in $KINDS; do
	jq -r --arg k "$k" '.links[0].directions[0].latency as $l |
		[$k, $l.idle.samples, $l.idle.p50_ms, $l.baseline_ms, $l.baseline_ms,
		 $l.loaded.samples, $l.loaded.p50_ms, $l.loaded.p99_ms, $l.loaded.loss,
		 $l.induced_p50_ms, $l.induced_p99_ms, $l.induced_mean_ms, ($l.grade // "-")] |
		map(tostring) | join(" ")' "$T/load-$k.json" >>"$T/results" ||
		not_ok "$k: figures" "no status documents"
done
awk 'FILENAME ~ /rates$/ {	# KIND TCP UNIT UDP UNIT: Mbit/s through the shaper
	got[$1] = mbit($2, $3) + mbit($4, $5)
	tcp[$1] = mbit($2, $3)
	next
}
{
	k = $1
	print "# " k ": through the shaper: TCP " tcp[k] " + UDP " got[k] - tcp[k] " Mbit/s of goodput"
	# a guest starved by a busy host cannot keep 20 mbit full: with fewer than 40% of the
	# ~350 probes sent during the load judged loaded, there is no load to judge
	if ($6 < 140) {
		print "skip - " k ": latency under load: only " $6 " of ~350 probes during the load found the link loaded (the host starves the guest; p99 " $8 " ms)"
		next
	}
	print "# " k ": idle " $2 " samples, baseline " $5 " ms; loaded " $6 " samples, p50 " $7 \
		" ms, p99 " $8 " ms, loss " $9 "; induced p50 " $10 " ms, p99 " $11 " ms, mean " $12 " ms; grade " $13
	r(k ": idle samples before the load (" $2 ", p50 " $3 " ms), a baseline near netem 10 ms (" $4 ")",
	  $2 >= 50 && $4 > 9.5 && $4 < 15)
	if (k == "fifo")
		r("fifo: induced latency large (mean " $12 " ms > 60) and the grade poor (" $13 ")",
		  $12 > 60 && ($13 == "C" || $13 == "D" || $13 == "F"))
	else
		r(k ": induced p99 " $11 " ms under 15 ms, grade " $13 " (A or A+)",
		  $11 != "null" && $11 < 15 && ($13 == "A" || $13 == "A+"))
}
function mbit(v, u) { return u ~ /^G/ ? v * 1000 : u ~ /^M/ ? v : u ~ /^K/ ? v / 1000 : v / 1e6 }
function r(name, cond) { print (cond ? "ok - " : "not ok - ") name; if (!cond) bad++ }
END { exit bad > 0 }' "$T/rates" "$T/results" || uml_fails=$((uml_fails + 1))
uml_status
