#!/bin/bash
# tests/uml/guest/gatewayd-kinds.sh: guest side of tests/uml/test_gatewayd.sh. gatewayd builds
# what the host kernel cannot: fq_codel and cake children under htb, cake as its own shaper,
# cake on ingress through an ifb; each tree is checked with tc -j, and a short load through
# the router shows the child in effect (fifo vs fq_codel vs cake under saturation, netem 10 ms
# on the far side). Argument: the gatewayd binary.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$UML_LIB" || exit 1
uml_guest_begin "$@"
uml_netem_far 10ms limit 10000

# 1. htb with fq_codel and cake children, egress; cake on ingress through an ifb.
cat >"$T/a.conf" <<CONF
links = ( { name = "wan"; interface = "r1"; linklayer = "docsis";
  egress = { shaper = "htb"; rate = "20mbit"; classes = (
      { name = "fast"; rate = "5mbit"; prio = 0; child = { kind = "fq_codel"; target = "3ms"; ecn = false; }; },
      { name = "rest"; rate = "15mbit"; default = true; child = { kind = "cake"; diffserv = "besteffort"; }; } ); };
  ingress = { shaper = "cake"; rate = "30mbit"; ifb = "ifb-wan"; child = { kind = "cake"; ingress = true; }; }; } );
CONF
out=$("$GW" -c "$T/a.conf" --check 2>&1)
check_detail "--check: this kernel has every kind" "$out" test $? -eq 0
if uml_gw_start "$T/a.conf"; then
	ok "htb + fq_codel + cake children, cake ingress: applied and verified"
	expect_qdisc "egress root is htb e000:" r1 root gwr htb '.handle == "e000:"'
	expect_qdisc "class fast: fq_codel target 3ms, noecn" r1 e000:10 gwr fq_codel \
		'.options.target == 2999 and (.options.ecn | not)'
	expect_qdisc "class rest: cake unlimited (no second shaper), docsis overhead" r1 e000:11 gwr cake \
		'.options.bandwidth == "unlimited" and .options.overhead == 18 and .options.mpu == 64 and .options.diffserv == "besteffort"'
	expect_qdisc "ingress hook on r1" r1 ingress gwr ingress
	expect_qdisc "ifb root: cake 30mbit ingress mode" ifb-wan root gwr cake \
		'.options.bandwidth == 3750000 and .options.ingress == true and .options.overhead == 18'
	# traffic from the server into the router's r1 goes through the ifb's cake
	timeout 10 ip netns exec $UML_NS_S ping -q -c 5 -i 0.2 $UML_IP_C >/dev/null
	p=$(qdisc_packets ifb-wan root gwr)
	check_detail "ingress traffic passes the ifb's cake ($p packets)" "$p" num_between "${p:-0}" 5 100000
	uml_gw_stop
	rc=$?
	check_detail "SIGTERM: exit 0" "status $rc" test $rc -eq 0
	check_detail "stop removes the ifb" "ifb-wan still there" bash -c "! ip -n gwr link show ifb-wan 2>/dev/null"
	expect_qdisc "stop gives r1 its default qdisc back" r1 root gwr noqueue
else
	not_ok "htb + fq_codel + cake children, cake ingress" "gatewayd failed"
fi

# 2. cake as its own shaper
cat >"$T/b.conf" <<CONF
links = ( { name = "wan"; interface = "r1"; overhead = 38; mpu = 84;
  egress = { shaper = "cake"; rate = "20mbit"; child = { kind = "cake"; diffserv = "diffserv4"; flow_mode = "dual-srchost"; nat = true; }; }; } );
CONF
if uml_gw_start "$T/b.conf"; then
	expect_qdisc "cake shaper: root cake 20mbit diffserv4 dual-srchost nat overhead 38 mpu 84" r1 root gwr cake \
		'.handle == "e000:" and .options.bandwidth == 2500000 and .options.diffserv == "diffserv4" and .options.flowmode == "dual-srchost" and .options.nat == true and .options.overhead == 38 and .options.mpu == 84'
	uml_gw_stop
else
	not_ok "cake as shaper" "gatewayd failed"
fi

# 3. the child in effect, in two phases through htb 3mbit: 4 TCP flows for goodput; then a
# UDP flood that never backs off (10 Mbit/s into 3) with pings alongside: a fifo fills to its
# limit, fq_codel and cake give the flood its own queue and keep the pings near the path's RTT.
# (3 mbit: the guest's one CPU sends UDP at about 18 Mbit/s on a quiet machine and under 7 on
# a busy one (5.5 seen with fuzzers running), and the flood must outrun the shaper.)
load() {	# load CHILD_BLOCK NAME: prints "goodput ping_avg"
	cat >"$T/l.conf" <<CONF
interval = "500ms";
links = ( { name = "wan"; interface = "r1";
  egress = { shaper = "htb"; rate = "3mbit"; child = { $1 }; }; } );
CONF
	uml_gw_start "$T/l.conf" || { echo "0 0"; return; }
	local g srv cli
	g=$(uml_iperf 4 4)
	timeout 10 ip netns exec $UML_NS_S iperf3 -s -1 -B $UML_IP_S -p 5202 >/dev/null 2>&1 &
	srv=$!
	uml_wait_listening $UML_NS_S 5202
	timeout 10 ip netns exec $UML_NS_C iperf3 -c $UML_IP_S -p 5202 -u -b 10M -l 1400 -t 4 >"$T/udp-$2" 2>&1 &
	cli=$!
	sleep 1.5	# a duration: the flood runs 1.5 s (the queue builds) before the ping looks
	timeout 8 ip netns exec $UML_NS_C ping -q -n -i 0.1 -w 2 $UML_IP_S >"$T/ping" 2>&1
	wait $cli $srv
	# an AQM queue keeps dropping while it drains: compare once the counters stand still
	# (the JSON is at most one 500 ms interval behind tc)
	local prev="" cur seq0 kname=$2
	# still: the counters are what they were a look ago (looks 0.7 s apart: the window they
	# must stand still over)
	still() {
		cur=$(tc -n $UML_NS_R -s -j qdisc show dev r1 | tee "$T/tc-$kname.json" | jq -c '[.[] | [.drops, .packets]]')
		[ "$cur" = "$prev" ] && return 0
		prev=$cur
		return 1
	}
	WAIT_FOR_STEP=0.7 wait_for still 7 "r1's counters to stand still"
	# and the daemon's next sample, taken after that
	seq_now() { ip netns exec $UML_NS_R curl -s --max-time 5 http://127.0.0.1:9180/api/status | jq -r '.sample.seq // -1'; }
	seq0=$(seq_now)
	wait_for '[ "$(seq_now)" -gt "$seq0" ]' 5 "a sample after the counters stood still"
	ip netns exec $UML_NS_R curl -s --max-time 5 http://127.0.0.1:9180/api/status >"$T/status-$2.json"
	# a stray packet (a late ACK, neighbour discovery) can still come between the two reads:
	# the status is then tc's as read just after it
	tc -n $UML_NS_R -s -j qdisc show dev r1 >"$T/tc2-$2.json"
	uml_gw_stop
	echo "${g:-0} $(sed -n 's|^rtt [^=]*= [0-9.]*/\([0-9.]*\)/.*|\1|p' "$T/ping")"
}
# (no process substitution: the guest has no /dev/fd)
load 'kind = "fifo"; limit = 200;' fifo >"$T/r"; read -r g_fifo p_fifo <"$T/r"
load 'kind = "fq_codel";' fq_codel >"$T/r"; read -r g_fq p_fq <"$T/r"
load 'kind = "cake";' cake >"$T/r"; read -r g_cake p_cake <"$T/r"
echo "# htb 3mbit, netem 10ms: 4 TCP flows: fifo ${g_fifo}, fq_codel ${g_fq}, cake ${g_cake} Mbit/s; ping beside a 10 Mbit/s UDP flood: fifo ${p_fifo} ms, fq_codel ${p_fq} ms, cake ${p_cake} ms"
# one guest CPU shared with the senders: goodput is checked loosely here; the host-kernel
# suite checks shaping accuracy tightly
for k in fifo fq cake; do
	eval "g=\$g_$k"
	check_detail "$k: TCP goodput $g Mbit/s within 2.1-3.02 of 3mbit" "$g" num_between "$g" 2.1 3.02
done
# what the flood's sender got out (Mbit/s): a guest the host starves sends less than the shaper
# passes (2.1 Mbit/s seen in CI), and then no queue fills whatever the child
flood_mbit() {
	awk '/sender$/ { for (i = 2; i <= NF; i++) if ($i ~ /bits\/sec$/) { v = $(i - 1); u = $i } }
		END { if (u ~ /^K/) v /= 1000; else if (u ~ /^G/) v *= 1000; print v + 0 }' "$T/udp-$1"
}
f_fifo=$(flood_mbit fifo)
echo "# the floods' senders: fifo $f_fifo, fq_codel $(flood_mbit fq_codel), cake $(flood_mbit cake) Mbit/s"
if awk -v f="$f_fifo" 'BEGIN { exit !(f < 3.3) }' &&
	! awk -v f="$p_fifo" -v q="$p_fq" 'BEGIN { exit !(f != "" && f > 50 && f > 4 * q) }'; then
	skip "fifo fills under the flood" "the flood's sender got out only $f_fifo Mbit/s, under 1.1x the 3 mbit shaper (the host starved the guest): ping $p_fifo ms"
else
	check_detail "fifo fills under the flood: ping $p_fifo ms, over 50 ms and 4x fq_codel's $p_fq" "$p_fifo; flood: $(tail -4 "$T/udp-fifo" | tr '\n' ' ')" \
		awk -v f="$p_fifo" -v q="$p_fq" 'BEGIN { exit !(f != "" && f > 50 && f > 4 * q) }'
fi
check_detail "fq_codel isolates the flood: ping $p_fq ms under 25 ms" "$p_fq" num_below "$p_fq" 25
check_detail "cake isolates the flood: ping $p_cake ms under 25 ms" "$p_cake" num_below "$p_cake" 25

# 4. the extended statistics reach /api/status, equal to tc's
cls() { jq -r ".links[0].directions[0].classes[0].$2" "$T/status-$1.json"; }
tcq() { jq -r ".[] | select(.handle == \"1000:\") | $2" "$T/tc-$1.json"; }
tcq2() { jq -r ".[] | select(.handle == \"1000:\") | $2" "$T/tc2-$1.json"; }
# same Q VALUE TC_EXPR: VALUE is tc's TC_EXPR as read before the status or just after it
same() { [ "$2" = "$(tcq "$1" "$3" | jq -c .)" ] || [ "$2" = "$(tcq2 "$1" "$3" | jq -c .)" ]; }
check_detail "fq_codel: maxpacket $(cls fq_codel fq_codel.max_packet_bytes) equals tc's" "$(tcq fq_codel .maxpacket)" \
	test "$(cls fq_codel fq_codel.max_packet_bytes)" = "$(tcq fq_codel .maxpacket)"
check_detail "fq_codel: new_flow_count $(cls fq_codel fq_codel.new_flow_count) > 0 and equals tc's" "$(tcq fq_codel .new_flow_count)" \
	eval 'same fq_codel "$(cls fq_codel fq_codel.new_flow_count)" .new_flow_count && [ "$(tcq fq_codel .new_flow_count)" -gt 0 ]'
check_detail "fq_codel: drop_overlimit equals tc's ($(cls fq_codel fq_codel.drop_overlimit_packets))" "$(tcq fq_codel .drop_overlimit)" \
	same fq_codel "$(cls fq_codel fq_codel.drop_overlimit_packets)" .drop_overlimit
check_detail "fq_codel: the class's drops $(cls fq_codel dropped_packets) are its queue's, tc: $(tcq fq_codel .drops)" "" \
	eval 'same fq_codel "$(cls fq_codel dropped_packets)" .drops && [ "$(tcq fq_codel .drops)" -gt 0 ]'
ntins=$(jq -r '.links[0].directions[0].classes[0].cake.tins | length' "$T/status-cake.json")
check_detail "cake: $ntins tins, as tc shows" "$(tcq cake '.tins | length')" test "$ntins" = "$(tcq cake '.tins | length')" -a "$ntins" -ge 1
ours=$(jq -c '[.links[0].directions[0].classes[0].cake.tins[].sent_bytes]' "$T/status-cake.json")
check_detail "cake: per-tin sent bytes $ours equal tc's" "$(tcq cake '[.tins[].sent_bytes]')" \
	eval '[ -n "$ours" ] && [ "$ours" != "[]" ] && same cake "$ours" "[.tins[].sent_bytes]"'
check_detail "cake: the busy tin has flows and a peak delay" "$(jq -c '.links[0].directions[0].classes[0].cake' "$T/status-cake.json" | head -c 600)" \
	test "$(jq '[.links[0].directions[0].classes[0].cake.tins[] | select(.sent_bytes > 100000 and .peak_delay_ms > 0 and .bulk_flows + .sparse_flows >= 0)] | length' "$T/status-cake.json")" -ge 1
tap_status
