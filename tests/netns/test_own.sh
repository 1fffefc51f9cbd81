#!/usr/bin/env bash
# gatewayd owns only what it made (gatewayd(8) OWNERSHIP): a clsact with a filter put in place
# of its ingress hook survives heal and SIGTERM, the link's ingress then unshaped and said so
# (log, /api/status foreign_hook) while egress stays shaped; a foreign clsact found at start the
# same, until replace = true, when it is replaced and traffic through the ifb is shaped both
# ways; a device of another kind, or an ifb without gatewayd's mark, under the ifb's name is an
# error and survives; a second instance in one namespace exits 1 naming the first's pid; its own
# ifb (marked) and hook go on stop; a marked container ifb left by a kill -9 is cleaned at the
# next start, an unmarked one survives.
. "$(dirname "$0")/lib.sh"
IFB="ifo-$$"	# the link's ifb: a name unique to this run
RATE_E=20	# mbit, r1's egress (client -> server)
RATE_I=10	# mbit, r1's ingress (server -> client)

topo_chain || { not_ok "topology"; exit 1; }

conf() {	# conf FILE REPLACE
	cat >"$1" <<CONF
listen = "127.0.0.1:9180";
interval = "500ms";
links = (
  { name = "wan"; interface = "r1"; replace = $2;
    egress = { shaper = "tbf"; rate = "${RATE_E}mbit"; child = { kind = "fifo"; limit = 200; }; };
    ingress = { shaper = "tbf"; rate = "${RATE_I}mbit"; ifb = "$IFB";
      child = { kind = "fifo"; limit = 200; }; }; } );
CONF
}
conf "$TMPD/o.conf" false
conf "$TMPD/r.conf" true

rtc() { ip netns exec "$NS_R" tc "$@"; }
hook_kind() { rtc -j qdisc show dev r1 | jq -r '.[] | select(.handle == "ffff:") | .kind'; }
# the foreign firewall: a clsact with one u32 filter at prio 7 on its ingress side
foreign_filter() { rtc filter show dev r1 ingress | grep -q "pref 7 u32"; }
# gatewayd's hook deleted and the clsact put in its place while the daemon is stopped (it puts
# its hook back within milliseconds of seeing it gone); it reads the notifications when it goes on
put_clsact() {
	kill -STOP "$GW_PID"
	rtc qdisc del dev r1 ingress &&
		rtc qdisc add dev r1 clsact &&
		rtc filter add dev r1 ingress protocol ip prio 7 u32 match ip dst 10.9.9.9/32 classid 1:1
	local r=$?
	kill -CONT "$GW_PID"
	return $r
}
clsact_there() { [ "$(hook_kind)" = clsact ] && foreign_filter; }
status_dir() {	# status_dir DIRECTION JQ: the JSON of link wan's direction, through JQ
	ip netns exec "$NS_R" curl -s --max-time 3 http://127.0.0.1:9180/api/status |
		jq -e ".links[] | select(.name == \"wan\") | .directions[] |
			select(.direction == \"$1\") | $2" >/dev/null
}
ifb_alias() { ip -n "$NS_R" -j -d link show "$1" 2>/dev/null | jq -r '.[0].ifalias // ""'; }
egress_ours() { rtc -j qdisc show dev r1 | jq -e '.[] | select(.root == true and .handle == "e000:")' >/dev/null; }

# 1. gatewayd's own: a marked ifb, its hook; all of it gone on stop
BEFORE=$(tree "$NS_R" r1)
gw_start "$NS_R" "$TMPD/o.conf" || { not_ok "start" "$(cat "$GW_LOG")"; exit 1; }
FIRST_PID=$GW_PID
check "its ifb carries the mark gatewayd:PID in its alias" test "$(ifb_alias "$IFB")" = "gatewayd:$GW_PID"
check "its hook is kind ingress at ffff:" test "$(hook_kind)" = ingress
check "status: ingress shaped, foreign_hook null" status_dir ingress '.foreign_hook == null and .total != null'

# 2. a second instance in the same namespace: exit 1, naming the first's pid, nothing touched
TREE=$(tree "$NS_R" r1)
ip netns exec "$NS_R" "$GATEWAYD" -c "$TMPD/o.conf" >"$TMPD/second.log" 2>&1
rc=$?
check "a second instance in the namespace exits 1" test $rc -eq 1
check "... naming the first's pid and uid" grep -q "another gatewayd (pid $FIRST_PID, uid [0-9]*) runs in this network namespace" "$TMPD/second.log"
check "... touching nothing" test "$(tree "$NS_R" r1)" = "$TREE"
ip netns exec "$NS_R" "$GATEWAYD" -c "$TMPD/o.conf" --oneshot >"$TMPD/second.log" 2>&1
check "--oneshot beside it exits 1 too" test $? -eq 1
check "the first one still runs" kill -0 "$FIRST_PID"

# 3. a clsact with a filter put in place of gatewayd's hook while it runs: heal leaves it,
# says so, and keeps egress shaped
put_clsact
check "the foreign clsact and its filter are in place" clsact_there
wait_for "grep -q \"r1 already has an ingress hook (clsact) that gatewayd did not create\" '$GW_LOG'" 5 "the log line about the foreign hook"
check "heal logs one line naming the device and the hook" grep -q "link 'wan': r1 already has an ingress hook (clsact) that gatewayd did not create: left in place, and the link's ingress unshaped" "$GW_LOG"
wait_for "status_dir ingress '.foreign_hook == \"clsact\"'" 5 "status to show the foreign hook"
check "status: ingress foreign_hook \"clsact\", no counters" status_dir ingress '.foreign_hook == "clsact" and .total == null and .waiting == false'
check "status: egress still shaped" status_dir egress '.foreign_hook == null and .total != null'
check "after heal: the clsact is still there" test "$(hook_kind)" = clsact
check "... with its filter" foreign_filter
check "after heal: egress still gatewayd's tbf e000:" egress_ours
check "after heal: the ingress ifb is gone (nothing shapes through it)" bash -c "! ip -n $NS_R link show $IFB >/dev/null 2>&1"
check "the daemon still runs" kill -0 "$GW_PID"
check "SIGTERM: exit 0" gw_stop
check "after SIGTERM: the clsact is still there" test "$(hook_kind)" = clsact
check "... with its filter" foreign_filter
check "after SIGTERM: gatewayd's egress root is gone" bash -c "! ip netns exec $NS_R tc -j qdisc show dev r1 | jq -e '.[] | select(.handle == \"e000:\")' >/dev/null"
check "the log says it left the hook" grep -q "left the ingress hook of r1 in place\|r1 already has an ingress hook (clsact)" "$GW_LOG"

# 4. a foreign clsact found at start, no replace: start, egress shaped, ingress unshaped
cp "$TMPD/o.conf" "$TMPD/live.conf"
gw_start "$NS_R" "$TMPD/live.conf"
check "start beside a foreign clsact: runs" kill -0 "$GW_PID"
check "... logs the foreign hook" grep -q "r1 already has an ingress hook (clsact) that gatewayd did not create" "$GW_LOG"
check "... egress shaped" egress_ours
check "... no ifb made" bash -c "! ip -n $NS_R link show $IFB >/dev/null 2>&1"
wait_for "status_dir ingress '.foreign_hook == \"clsact\"'" 5 "status to show the foreign hook"
check "... status says ingress unshaped by a clsact" status_dir ingress '.foreign_hook == "clsact"'
gw_reload
check "... still there after the reload" clsact_there
check "... egress still shaped" egress_ours
check "SIGTERM: exit 0" gw_stop
check "... the clsact and its filter survive" clsact_there

# 4b. the same, then a reload that says replace = true: the clsact goes, ingress is shaped
gw_start "$NS_R" "$TMPD/live.conf"
cp "$TMPD/r.conf" "$TMPD/live.conf"
gw_reload
check "reload to replace = true: the hook is gatewayd's ingress" test "$(hook_kind)" = ingress
check "... its ifb made, marked" test "$(ifb_alias "$IFB")" = "gatewayd:$GW_PID"
wait_for "status_dir ingress '.foreign_hook == null and .total != null'" 5 "status to show ingress shaped"
check "... status: ingress shaped" status_dir ingress '.foreign_hook == null and .total != null'
check "SIGTERM: exit 0" gw_stop
check "... nothing of gatewayd's left: r1 as it was at first" test "$(tree "$NS_R" r1)" = "$BEFORE"
put_clsact_stopped() {
	rtc qdisc add dev r1 clsact &&
		rtc filter add dev r1 ingress protocol ip prio 7 u32 match ip dst 10.9.9.9/32 classid 1:1
}
put_clsact_stopped

# 5. replace = true: the clsact is replaced, and traffic is shaped both ways through the ifb
gw_start "$NS_R" "$TMPD/r.conf"
check "replace = true: runs" kill -0 "$GW_PID"
check "... the hook is gatewayd's ingress now" test "$(hook_kind)" = ingress
check "... its ifb is there, marked" test "$(ifb_alias "$IFB")" = "gatewayd:$GW_PID"
ip netns exec "$NS_S" timeout 60 iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
PIDS+=($!)
wait_listening "$NS_S" 5201
up=$(ip netns exec "$NS_C" timeout 30 iperf3 -c 10.77.2.2 -p 5201 -t 4 -O 1 -J 2>/dev/null | jq '.end.sum_received.bits_per_second // 0')
ip netns exec "$NS_S" timeout 60 iperf3 -s -1 -p 5202 >/dev/null 2>&1 &
PIDS+=($!)
wait_listening "$NS_S" 5202
down=$(ip netns exec "$NS_C" timeout 30 iperf3 -c 10.77.2.2 -p 5202 -t 4 -O 1 -R -J 2>/dev/null | jq '.end.sum_received.bits_per_second // 0')
echo "# client->server (r1 egress, ${RATE_E} mbit): $up bit/s; server->client (r1 ingress via $IFB, ${RATE_I} mbit): $down bit/s"
inrange() { awk -v v="$1" -v r="$2" 'BEGIN { exit !(v >= 0.80 * r * 1e6 && v <= 1.02 * r * 1e6) }'; }
check "egress shaped: TCP goodput 80-102% of ${RATE_E} mbit ($up)" inrange "$up" "$RATE_E"
check "ingress shaped through the ifb: TCP goodput 80-102% of ${RATE_I} mbit ($down)" inrange "$down" "$RATE_I"
sent=$(rtc -s -j qdisc show dev "$IFB" | jq '[.[] | select(.root == true) | .bytes] | add // 0')
check "the ifb's root sent the download ($sent bytes)" test "$sent" -gt 1000000
check "SIGTERM: exit 0" gw_stop
check "... nothing of gatewayd's left: r1 as it was at first" test "$(tree "$NS_R" r1)" = "$BEFORE"
check "... its ifb deleted" bash -c "! ip -n $NS_R link show $IFB >/dev/null 2>&1"

# 6. a device of another kind under the ifb's name: start fails naming it, and it survives
ip -n "$NS_R" link add "$IFB" type veth peer name "ifp-$$"
ip netns exec "$NS_R" "$GATEWAYD" -c "$TMPD/o.conf" >"$TMPD/veth.log" 2>&1
check "a veth named like the ifb: start exits 1" test $? -eq 1
check "... saying which device and its kind" grep -q "link 'wan': $IFB exists and is not an ifb device (it is veth)" "$TMPD/veth.log"
check "... and the veth survives" bash -c "ip -n $NS_R -d link show $IFB | grep -q veth"
check "... r1 untouched" test "$(tree "$NS_R" r1)" = "$BEFORE"
ip -n "$NS_R" link del "$IFB"

# 7. an ifb without gatewayd's mark under the name: an error, unless replace = true; then used
# and left in place on stop
ip -n "$NS_R" link add "$IFB" type ifb
ip netns exec "$NS_R" "$GATEWAYD" -c "$TMPD/o.conf" >"$TMPD/unmarked.log" 2>&1
check "an unmarked ifb under the name: start exits 1" test $? -eq 1
check "... saying gatewayd did not create it" grep -q "ifb $IFB exists and gatewayd did not create it" "$TMPD/unmarked.log"
check "... it survives" bash -c "ip -n $NS_R link show $IFB >/dev/null"
gw_start "$NS_R" "$TMPD/r.conf"
check "with replace = true: runs, shaping through it" bash -c "ip netns exec $NS_R tc -j qdisc show dev $IFB | jq -e '.[] | select(.root == true and .handle == \"e000:\")' >/dev/null"
check "SIGTERM: exit 0" gw_stop
check "... the ifb it did not make is left" bash -c "ip -n $NS_R link show $IFB >/dev/null"
check "... without gatewayd's tree on it" bash -c "! ip netns exec $NS_R tc -j qdisc show dev $IFB | jq -e '.[] | select(.handle == \"e000:\")' >/dev/null"
ip -n "$NS_R" link del "$IFB"

# 8. while it runs, its ifb replaced by a veth of the same name: never deleted
# (while the daemon is stopped, as in 3)
gw_start "$NS_R" "$TMPD/o.conf"
kill -STOP "$GW_PID"
ip -n "$NS_R" link del "$IFB" && ip -n "$NS_R" link add "$IFB" type veth peer name "ifp-$$"
kill -CONT "$GW_PID"
check "a veth took the ifb's name" bash -c "ip -n $NS_R -d link show $IFB | grep -q veth"
wait_for "grep -q \"$IFB exists and is not an ifb device\" '$GW_LOG'" 5 "heal to refuse the veth"
check "heal says the name is taken by a veth" grep -q "$IFB exists and is not an ifb device (it is veth)" "$GW_LOG"
check "SIGTERM: exit 0" gw_stop
check "... the veth survives" bash -c "ip -n $NS_R -d link show $IFB | grep -q veth"
ip -n "$NS_R" link del "$IFB"

# 9. containers: a marked gwc-* ifb left by a kill -9 is cleaned at the next start, an unmarked
# one survives
ns_new NS_H host || { not_ok "namespace"; exit 1; }
cat >"$TMPD/c.conf" <<CONF
containers = ( { interfaces = "vo*";
    egress = { rate = "5mbit"; child = { kind = "fifo"; }; };
    ingress = { rate = "3mbit"; child = { kind = "fifo"; }; }; } );
CONF
ip -n "$NS_H" link add vo0 type veth peer name vp0
ip -n "$NS_H" link set vo0 up
ip -n "$NS_H" link set vp0 up
IDX=$(ip -n "$NS_H" -j link show vo0 | jq '.[0].ifindex')
gw_start "$NS_H" "$TMPD/c.conf"
wait_for "ip -n $NS_H link show gwc-$IDX >/dev/null 2>&1" 5 "the container's ifb"
check "the container's ifb gwc-$IDX carries the mark" test "$(ip -n "$NS_H" -j -d link show "gwc-$IDX" | jq -r '.[0].ifalias')" = "gatewayd:$GW_PID"
kill -KILL "$GW_PID"
wait "$GW_PID" 2>/dev/null
ip -n "$NS_H" link del vo0	# the container went while gatewayd was dead
ip -n "$NS_H" link add gwc-77 type ifb	# someone else's, named like a container ifb
check "after kill -9: the marked gwc-$IDX is left over" bash -c "ip -n $NS_H link show gwc-$IDX >/dev/null"
gw_start "$NS_H" "$TMPD/c.conf"
wait_for "! ip -n $NS_H link show gwc-$IDX >/dev/null 2>&1" 5 "the leftover to be cleaned"
check "the next start removes the marked leftover gwc-$IDX" bash -c "! ip -n $NS_H link show gwc-$IDX >/dev/null 2>&1"
check "... and leaves the unmarked gwc-77" bash -c "ip -n $NS_H link show gwc-77 >/dev/null"
check "SIGTERM: exit 0" gw_stop
check "... gwc-77 still there" bash -c "ip -n $NS_H link show gwc-77 >/dev/null"
