#!/usr/bin/env bash
# Self-healing of what someone else changed, not only removed: a foreign `tc class change` of
# an htb class's rate, a leaf qdisc deleted, replaced by another kind or changed to another
# limit, the ingress redirect changed or deleted: each put back within 1 s, in place, with one
# log line naming the object and what differed; traffic through the class is still shaped at
# its rate afterwards. gatewayd's own changes are not taken for foreign ones: a reload that
# changes a rate is not reverted, nor are autorate's moves under load; a foreign change made
# while a reload runs is still healed after it.
LIB_RUN_PREFIX=hc
. "$(dirname "$0")/lib.sh"

topo_chain || { not_ok "namespaces"; exit 1; }
IFB="ifb-$RUN_ID"
# conf BULK [AUTORATE]: the wan link; bulk's rate and ceil; an autorate block for egress
conf() {
	cat >"$TMPD/c.conf" <<CONF
interval = "200ms";
links = ( { name = "wan"; interface = "r1";
  egress = { shaper = "htb"; rate = "20mbit";
    classes = (
      { name = "probe"; rate = "1mbit"; ceil = "20mbit"; prio = 0;
        match = ( { proto = "udp"; dport = [ 2112 ]; }, { proto = "icmp"; } );
        child = { kind = "fifo"; limit = 50; }; },
      { name = "bulk"; rate = "$1"; ceil = "$1"; prio = 1; default = true;
        child = { kind = "fifo"; limit = 100; }; } ); ${2:-} };
  ingress = { shaper = "tbf"; rate = "40mbit"; ifb = "$IFB"; child = { kind = "fifo"; }; }; } );
${3:-}
CONF
}
conf 10mbit
gw_start "$NS_R" "$TMPD/c.conf" || { not_ok "gatewayd starts" "$(cat "$GW_LOG")"; exit 1; }
tcr() { ip netns exec "$NS_R" tc "$@"; }
found() { grep -c 'changed from outside' "$GW_LOG"; }
rebuilt() { grep -c 'restored the tree' "$GW_LOG"; }

# the planned objects, as tc shows them: one tc for the whole picture, so that the time to
# see the tree back is the daemon's, not that of a row of tc commands
snap() { printf 'class show dev r1\nqdisc show dev r1\nfilter show dev r1 ingress\n' | tc -n "$NS_R" -batch -; }
bulk_at() { snap | grep -q "class htb e000:11 parent e000:1 .*rate $1 ceil $1 "; }
probe_ok() { snap | grep -q 'class htb e000:10 parent e000:1 .*rate 1Mbit ceil 20Mbit '; }
whole() {
	local s
	s=$(snap)
	grep -q 'class htb e000:11 parent e000:1 .*rate 10Mbit ceil 10Mbit ' <<<"$s" &&
		grep -q 'class htb e000:10 parent e000:1 .*rate 1Mbit ceil 20Mbit ' <<<"$s" &&
		[ "$(grep -c 'parent e000:11 ' <<<"$s")" -eq 1 ] &&
		grep -qx 'qdisc pfifo 1001: parent e000:11 limit 100p' <<<"$s" &&
		[ "$(grep -c 'Egress Redirect' <<<"$s")" -eq 1 ] &&
		grep -q "Redirect to device $IFB" <<<"$s"
}
check "the tree as planned at start" whole

# trial NAME GREP ACTION...: after ACTION, the tree is whole again within 1 s, and one more
# line said what was found, naming the object and matching GREP
trial() {
	local name=$1 pat=$2 n0 r0 ms
	shift 2
	n0=$(found)
	r0=$(rebuilt)
	"$@" || { not_ok "$name: the foreign change ($*)"; return; }
	if WAIT_FOR_STEP=0.02 wait_for whole 1 "$name: the tree back" 2>/dev/null; then
		ms=$WAIT_FOR_MS
		check "$name: put back within 1 s ($ms ms)" true
	else
		not_ok "$name: put back within 1 s" "$(tcr class show dev r1; tcr qdisc show dev r1; tail -3 "$GW_LOG")"
	fi
	wait_for "[ \$(found) -gt $n0 ]" 2 "$name: the log line" 2>/dev/null
	sleep 0.3	# a duration, not a wait: the time given to (wrongly) say it twice
	check "$name: one log line ($(grep 'changed from outside' "$GW_LOG" | tail -1 | sed 's/.*changed from outside: //'))" \
		test "$(found)" -eq $((n0 + 1))
	check "$name: ... naming what differed" bash -c "grep 'changed from outside' '$GW_LOG' | tail -1 | grep -q -- '$pat'"
	check "$name: mended in place, the link not made again" test "$(rebuilt)" -eq "$r0"
}
trial "tc class change of bulk's rate" "class bulk (e000:11) on r1: rate 2mbit, expected 10mbit, ceil 2mbit, expected 10mbit" \
	tcr class change dev r1 parent e000:1 classid e000:11 htb rate 2mbit ceil 2mbit
trial "tc qdisc del of bulk's leaf" "qdisc of class bulk (1001:) on r1: not there" \
	tcr qdisc del dev r1 parent e000:11 handle 1001:
trial "tc qdisc replace of bulk's leaf by a bfifo" "qdisc of class bulk (1001:) on r1: not there" \
	tcr qdisc replace dev r1 parent e000:11 bfifo limit 30000
trial "tc qdisc change of bulk's leaf's limit" "it is pfifo limit 7, expected pfifo limit 100" \
	tcr qdisc change dev r1 parent e000:11 handle 1001: pfifo limit 7
handle=$(tcr filter show dev r1 ingress | sed -n 's/.* fh \([0-9a-f:]*\) .*order.*/\1/p' | head -1)
trial "tc filter replace of the ingress redirect (to r0, handle $handle)" "ingress redirect on r1: redirects to ifindex" \
	tcr filter replace dev r1 parent ffff: protocol all prio 49152 handle "$handle" u32 \
	match u32 0 0 action mirred egress redirect dev r0
trial "tc filter del of the ingress redirect" "ingress redirect on r1: not there" \
	tcr filter del dev r1 parent ffff: protocol all prio 49152

# still shaped at bulk's rate: one TCP flow through it for 3 s (its first second left out)
ip netns exec "$NS_S" timeout 20 iperf3 -s -1 -B 10.77.2.2 -p 5201 >/dev/null 2>&1 &
PIDS+=($!)
wait_listening "$NS_S" 5201 || not_ok "iperf3 server listens"
bps=$(timeout 15 ip netns exec "$NS_C" iperf3 -c 10.77.2.2 -p 5201 -t 3 -O 1 -J 2>/dev/null |
	jq -r '.end.sum_received.bits_per_second // 0')
check "traffic through bulk after all that: $(awk -v b="${bps:-0}" 'BEGIN { printf "%.2f", b / 1e6 }') Mbit/s of goodput at 10mbit (85-100%)" \
	awk -v b="${bps:-0}" 'BEGIN { exit !(b >= 8.5e6 && b <= 10.0e6) }'

# a reload that changes bulk's rate is gatewayd's own: not said, not reverted
n0=$(found)
conf 8mbit
gw_reload && grep -q 'reloaded ' "$GW_LOG" || not_ok "the reload to 8mbit" "$(tail -3 "$GW_LOG")"
check "reload: bulk at the new 8mbit" bulk_at 8Mbit
sleep 1	# a duration, not a wait: the time given to (wrongly) put 10mbit back
check "reload: ... still, a second later" bulk_at 8Mbit
check "reload: not taken for a foreign change" test "$(found)" -eq "$n0"

# a foreign change made while a reload runs: foreign changes of probe's rate every few ms
# from before the SIGHUP until after the reload ended; the last one is still healed after,
# and the reload's own rate stays
conf 12mbit
( end=$((SECONDS + 2)); while [ $SECONDS -lt $end ]; do
	tcr class change dev r1 parent e000:1 classid e000:10 htb rate 300kbit ceil 20mbit
done ) &
CHANGER=$!
PIDS+=($CHANGER)
sleep 0.3	# a duration: the changes under way before the reload
gw_reload || not_ok "the reload during foreign changes" "$(tail -3 "$GW_LOG")"
wait "$CHANGER"
check "during a reload: the reload was taken ($(grep -E 'reloaded |still running' "$GW_LOG" | tail -1 | sed 's/.*: //'))" \
	bash -c "grep -E 'reloaded |still running' '$GW_LOG' | tail -1 | grep -q 'reloaded '"
WAIT_FOR_STEP=0.02 wait_for probe_ok 1 "probe's rate back" 2>/dev/null
check "during a reload: the foreign change to probe's rate put back within 1 s of the last" probe_ok
check "during a reload: bulk at the reload's 12mbit" bulk_at 12Mbit
gw_stop

# autorate raises the rate under load (htb's top class and every class in proportion): its
# moves are gatewayd's own, never put back as if foreign
ip netns exec "$NS_S" "$GATEWAYD" --reflect 10.77.2.2:2112 2>"$TMPD/reflect" &
PIDS+=($!)
wait_for "grep -q answering '$TMPD/reflect'" 5 "the reflector"
# bulk may carry the whole rate: loaded is judged against the direction's rate
conf 19mbit 'autorate = { min = "5mbit"; max = "40mbit"; };' \
	'probe = { method = "udp"; interval = "50ms"; timeout = "1s"; targets = [ "10.77.2.2:2112" ]; };'
gw_start "$NS_R" "$TMPD/c.conf" || { not_ok "gatewayd starts with autorate" "$(cat "$GW_LOG")"; exit 1; }
api_rate() { ip netns exec "$NS_R" curl -s --max-time 3 http://127.0.0.1:9180/api/status |
	jq -r '.links[0].directions[0].autorate.rate_bits_per_second // 0'; }
top_rate() { tcr class show dev r1 classid e000:1 | sed -n 's/.* rate \([0-9.]*[KMG]*bit\) .*/\1/p'; }
ip netns exec "$NS_S" timeout 20 iperf3 -s -1 -B 10.77.2.2 -p 5202 >/dev/null 2>&1 &
PIDS+=($!)
wait_listening "$NS_S" 5202 || not_ok "iperf3 server listens"
timeout 15 ip netns exec "$NS_C" iperf3 -c 10.77.2.2 -p 5202 -P 2 -t 5 >/dev/null 2>&1 &
IPERF=$!
PIDS+=($IPERF)
wait_for "[ \$(api_rate) -gt 20000000 ]" 8 "autorate to raise the rate past 20mbit" 2>/dev/null
raised=$(api_rate)
kernel=$(top_rate)
wait "$IPERF" 2>/dev/null
check "autorate: raised the rate under load (to $raised bit/s; htb's top class reads $kernel)" \
	test "$raised" -gt 20000000
check "autorate: its moves are not taken for foreign changes" test "$(found)" -eq 0
check "autorate: ... nor made again" test "$(rebuilt)" -eq 0
check "autorate: the kernel's top class follows autorate, not the config's 20mbit" \
	bash -c "[ \"\$(ip netns exec $NS_R tc class show dev r1 classid e000:1 | grep -c 'rate 20Mbit ')\" -eq 0 ]"
gw_stop
check "stop: exit 0" test $? -eq 0
