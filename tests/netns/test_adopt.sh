#!/usr/bin/env bash
# kill -9 under traffic, then a restart: the tree left behind is adopted, not rebuilt, so
# there is no moment without shaping and the kernel's counters continue. A changed rate is
# changed in place on adoption.
. "$(dirname "$0")/lib.sh"

topo_chain || { not_ok "topology"; exit 1; }
conf() {
	cat >"$TMPD/k.conf" <<CONF
links = ( { name = "wan"; interface = "r1";
  egress = { shaper = "htb"; rate = "$1"; classes = (
    { name = "bulk"; rate = "20mbit"; default = true; child = { kind = "fifo"; limit = 200; }; } ); };
  ingress = { shaper = "tbf"; rate = "40mbit"; ifb = "ifb-$RUN_ID"; child = { kind = "fifo"; }; }; } );
CONF
}
conf 40mbit
gw_start "$NS_R" "$TMPD/k.conf" || { not_ok "gatewayd starts" "$(cat "$GW_LOG")"; exit 1; }
ip netns exec "$NS_S" timeout 30 iperf3 -s -1 -B 10.77.2.2 >/dev/null 2>&1 &
PIDS+=($!)
wait_listening "$NS_S" 5201 || { not_ok "iperf3 server listens"; exit 1; }
ip netns exec "$NS_C" timeout 30 iperf3 -c 10.77.2.2 -P 2 -t 6 >/dev/null 2>&1 &
IPERF=$!
bytes() { ip netns exec "$NS_R" tc -s class show dev r1 | grep -A1 "e000:10 " | sed -n 's/.*Sent \([0-9]*\) bytes.*/\1/p'; }
# under traffic: the flows are through slow start (2 MB at 20 mbit is ~0.8 s of it)
wait_for '[ "$(bytes)" -gt 2000000 ]' 10 "2 MB through class e000:10" || { not_ok "traffic flows"; exit 1; }
# watch the root from the side, every 10 ms, while gatewayd dies and comes back (the sleep
# paces the watcher: 300 looks span the restart)
( for _ in $(seq 300); do ip netns exec "$NS_R" tc qdisc show dev r1 | grep -q 'htb e000:' || echo gap; sleep 0.01; done ) >"$TMPD/watch" &
WATCH=$!
before=$(bytes)
kill -9 "$GW_PID"
wait "$GW_PID" 2>/dev/null
check "after kill -9 the tree is still in the kernel" bash -c "ip netns exec $NS_R tc qdisc show dev r1 | grep -q 'htb e000:'"
gw_start "$NS_R" "$TMPD/k.conf" || { not_ok "gatewayd restarts" "$(cat "$GW_LOG")"; exit 1; }
check "the restart adopted the tree instead of rebuilding it" grep -q "adopted, not rebuilt" "$GW_LOG"
after=$(bytes)
wait "$WATCH"
check "no moment without the root qdisc during the restart ($(grep -c gap "$TMPD/watch") gaps seen)" \
	test ! -s "$TMPD/watch"
check "the class's counter continued ($before -> $after bytes)" test "${after:-0}" -ge "${before:-1}"
wait $IPERF

# a changed rate: adopted and changed in place
kill -9 "$GW_PID"
wait "$GW_PID" 2>/dev/null
conf 30mbit
sed -i 's/rate = "20mbit"/rate = "15mbit"/' "$TMPD/k.conf"
before=$(bytes)
gw_start "$NS_R" "$TMPD/k.conf" || { not_ok "gatewayd restarts with a new rate" "$(cat "$GW_LOG")"; exit 1; }
check "a changed rate is adopted and changed in place" grep -q "adopted, not rebuilt" "$GW_LOG"
check "... the new rates are in the kernel" \
	bash -c "ip netns exec $NS_R tc class show dev r1 | grep -q 'e000:1 root rate 30Mbit' && ip netns exec $NS_R tc class show dev r1 | grep -q 'e000:10 .*rate 15Mbit'"
check "... and the counter did not reset" test "$(bytes)" -ge "${before:-1}"
gw_stop
check "a clean stop after adoption removes everything" \
	bash -c "ip netns exec $NS_R tc qdisc show dev r1 | grep -q noqueue && ! ip -n $NS_R link show ifb-$RUN_ID 2>/dev/null"

# keep_on_stop: a clean stop leaves the tree, the next start adopts it
sed -i '1i keep_on_stop = true;' "$TMPD/k.conf"
gw_start "$NS_R" "$TMPD/k.conf" || { not_ok "gatewayd starts with keep_on_stop" "$(cat "$GW_LOG")"; exit 1; }
gw_stop
check "keep_on_stop: stop exits 0 and the tree stays" \
	bash -c "[ $? -eq 0 ] && ip netns exec $NS_R tc qdisc show dev r1 | grep -q 'htb e000:' && ip -n $NS_R link show ifb-$RUN_ID >/dev/null"
gw_start "$NS_R" "$TMPD/k.conf" || { not_ok "gatewayd starts again" "$(cat "$GW_LOG")"; exit 1; }
check "keep_on_stop: the next start adopts the tree" grep -q "adopted, not rebuilt" "$GW_LOG"
sed -i '/keep_on_stop/d' "$TMPD/k.conf"
kill -9 "$GW_PID"
wait "$GW_PID" 2>/dev/null
gw_start "$NS_R" "$TMPD/k.conf" && gw_stop
check "without keep_on_stop the last stop removes it all" \
	bash -c "ip netns exec $NS_R tc qdisc show dev r1 | grep -q noqueue && ! ip -n $NS_R link show ifb-$RUN_ID 2>/dev/null"
