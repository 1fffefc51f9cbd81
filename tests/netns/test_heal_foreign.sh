#!/usr/bin/env bash
# A foreign root qdisc in gatewayd's place on one of two links, with replace = false: gatewayd
# sees that by looking and does nothing else: no ifb created or deleted, no qdisc touched on
# either link (the other link and the blocked link's ingress keep shaping, same objects), the
# cause logged once. When the foreign root goes, the tree is back within 1 s (the notification,
# not the retry timer, brings it back).
. "$(dirname "$0")/lib.sh"

ns_new NS hf || { not_ok "namespace"; exit 1; }
for p in "v0 v1" "v2 v3"; do
	set -- $p
	ip -n "$NS" link add "$1" type veth peer name "$2" &&
		ip -n "$NS" link set "$1" up && ip -n "$NS" link set "$2" up ||
		{ not_ok "veths"; exit 1; }
done
IFA="ifa-$RUN_ID" IFB="ifb-$RUN_ID"
cat >"$TMPD/f.conf" <<CONF
interval = "500ms";
links = ( { name = "wan"; interface = "v0";
  egress = { shaper = "htb"; rate = "50mbit"; classes = (
    { name = "b"; rate = "30mbit"; default = true; child = { kind = "fifo"; limit = 100; }; } ); };
  ingress = { shaper = "tbf"; rate = "40mbit"; ifb = "$IFA"; child = { kind = "fifo"; }; }; },
  { name = "lan"; interface = "v2"; replace = false;
  egress = { shaper = "tbf"; rate = "20mbit"; child = { kind = "fifo"; }; };
  ingress = { shaper = "tbf"; rate = "30mbit"; ifb = "$IFB"; child = { kind = "fifo"; }; }; } );
CONF
gw_start "$NS" "$TMPD/f.conf" || { not_ok "gatewayd starts" "$(cat "$GW_LOG")"; exit 1; }
nostats() { sed -E 's/ (Sent|backlog|lended|tokens|ctokens) .*//'; }
picture() {	# the objects of every device but v2's root tree, and the ifbs' indexes
	for d in v0 "$IFA" "$IFB"; do tree "$NS" "$d" | nostats; done
	ip netns exec "$NS" tc qdisc show dev v2 ingress
	ip netns exec "$NS" tc filter show dev v2 ingress
	ip -n "$NS" -o link show "$IFA" | cut -d: -f1
	ip -n "$NS" -o link show "$IFB" | cut -d: -f1
}
before=$(picture)

# every link and qdisc notification in the namespace while the foreign root sits there
ip netns exec "$NS" ip monitor link >"$TMPD/links" 2>&1 &
MON1=$!
PIDS+=($MON1)
ip netns exec "$NS" tc monitor >"$TMPD/qdiscs" 2>&1 &
MON2=$!
PIDS+=($MON2)
monitors_ready "$NS" "$TMPD/links" "$TMPD/qdiscs" || not_ok "the kernel's notifications are monitored"
ip netns exec "$NS" tc qdisc replace dev v2 root handle 7: pfifo limit 7
sleep 4.5	# a duration, not a wait: the window watched, over the daemon's retries
kill $MON1 $MON2
wait $MON1 $MON2 2>/dev/null
ifb_events=$(grep -cE "$IFA|$IFB" "$TMPD/links")
# ours: anything but the foreign root going in (and the kernel's report of our root going out),
# and the monitors' own test on gwmon0
others=$(grep -v 'dev gwmon' "$TMPD/qdiscs" |
	grep -vE '^qdisc pfifo 7: dev v2 root|^deleted qdisc tbf e000: dev v2 root|^deleted qdisc pfifo 1000: dev v2 parent e000:|^$' | grep -c .)
echo "# 4.5 s with a foreign root on lan's v2: $ifb_events ifb link events, $others qdisc events besides the foreign root's own"
check "no ifb created or deleted while blocked ($ifb_events link events)" test "$ifb_events" -eq 0
check "no qdisc of ours touched while blocked ($others other qdisc events)" test "$others" -eq 0
after=$(picture)
check "wan's tree, lan's ingress and both ifbs are the same objects as before" \
	test "$before" = "$after"
check "... lan's ingress hook is still there, redirecting to its ifb" \
	bash -c "ip netns exec $NS tc qdisc show dev v2 | grep -q 'ingress ffff:' && ip netns exec $NS tc filter show dev v2 ingress | grep -q $IFB"
check "the foreign root is left alone" bash -c "ip netns exec $NS tc qdisc show dev v2 | grep -q 'pfifo 7: root'"
check "the cause is logged once ($(grep -c 'replace = true' "$GW_LOG") lines)" \
	test "$(grep -c 'replace = true' "$GW_LOG")" -eq 1

# ms_until CMD...: wait until CMD holds (2 s, polled every 20 ms); prints the milliseconds
# since $t0, nothing on time-out
ms_until() {
	WAIT_FOR_STEP=0.02 wait_for "$(printf '%q ' "$@")" 2 || return 0
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1000 }'
}

# while lan waits, wan's root is deleted: wan is made again at once, lan's foreign root stays
ifb_idx=$(ip -n "$NS" -o link show "$IFB" | cut -d: -f1)
t0=$EPOCHREALTIME
ip netns exec "$NS" tc qdisc del dev v0 root
wan_back() {
	ip netns exec "$NS" tc qdisc show dev v0 | grep -q 'htb e000: root' &&
		[ "$(ip netns exec "$NS" tc class show dev v0 | wc -l)" -eq 2 ]
}
ms=$(ms_until wan_back)
echo "# wan's root deleted while lan waits: back in ${ms:-(never)} ms"
check "while lan waits for its foreign root to go, wan's deleted root is back within 1 s (${ms:-never} ms)" \
	test -n "$ms"
check "... lan's foreign root is still left alone, its ifb the same device" \
	bash -c "ip netns exec $NS tc qdisc show dev v2 | grep -q 'pfifo 7: root' && [ \"\$(ip -n $NS -o link show $IFB | cut -d: -f1)\" = '$ifb_idx' ]"

# wan's counters must go on through lan's healing: a few packets out of v0 and into v0 first
wan_bytes() {	# root bytes of v0 and of wan's ifb
	for d in v0 "$IFA"; do
		tc -n "$NS" -s qdisc show dev "$d" | awk '/^qdisc (tbf|htb) e000:/ { c = 1 } /Sent/ && c { print $2; exit }'
	done | tr '\n' ' '
}
wan_traffic() {
	ip netns exec "$NS" ping -6 -q -c 20 -i 0.01 -W 1 -I v0 ff02::1 >/dev/null 2>&1
	ip netns exec "$NS" ping -6 -q -c 20 -i 0.01 -W 1 -I v1 ff02::1 >/dev/null 2>&1
}
wan_traffic
wan0=$(wan_bytes)
wan_tree=$(for d in v0 "$IFA"; do tree "$NS" "$d"; done | nostats)

# the foreign root goes: the tree is back at once, not at the next retry (which is seconds away)
t0=$EPOCHREALTIME
ip netns exec "$NS" tc qdisc del dev v2 root
lan_root() { ip netns exec "$NS" tc qdisc show dev v2 | grep -q 'tbf e000: root'; }
ms=$(ms_until lan_root)
echo "# the foreign root removed: lan's root back in ${ms:-(never)} ms"
check "foreign root removed: lan's tree back within 1 s (${ms:-never} ms)" test -n "$ms"
planned() {
	ip netns exec "$NS" tc qdisc show dev v2 | grep -q 'pfifo 1000: parent e000:1' &&
		ip netns exec "$NS" tc qdisc show dev "$IFB" | grep -q 'tbf e000: root' &&
		ip netns exec "$NS" tc qdisc show dev v0 | grep -q 'htb e000: root'
}
check "... and it is the whole planned tree again" wait_for planned 2
check "... logged as restored" wait_for "grep -q 'restored the tree' '$GW_LOG'" 2
wan1=$(wan_bytes)
check "... lan alone was made again: wan's objects are the same and its counters went on ($wan0-> $wan1)" \
	bash -c "[ \"\$1\" = \"\$2\" ] && awk -v a='$wan0' -v b='$wan1' 'BEGIN { split(a, x, \" \"); split(b, y, \" \"); exit !(x[1] > 0 && x[2] > 0 && y[1] >= x[1] && y[2] >= x[2]) }'" _ \
	"$wan_tree" "$(for d in v0 "$IFA"; do tree "$NS" "$d"; done | nostats)"

# lan's interface deleted and created again (a PPPoE reconnect): lan back within 1 s, wan as it was
wan_traffic
wan0=$(wan_bytes)
t0=$EPOCHREALTIME
ip -n "$NS" link del v2
ip -n "$NS" link add v2 type veth peer name v3 && ip -n "$NS" link set v2 up && ip -n "$NS" link set v3 up
lan_back() { lan_root && ip netns exec "$NS" tc qdisc show dev v2 | grep -q 'ingress ffff:'; }
ms=$(ms_until lan_back)
echo "# lan's interface deleted and created again: back in ${ms:-(never)} ms"
check "lan's interface deleted and created again: its tree back within 1 s (${ms:-never} ms)" test -n "$ms"
sleep 0.3	# a duration, not a wait: the time the daemon is given to (wrongly) touch wan too
wan1=$(wan_bytes)
check "... wan's objects are the same and its counters went on ($wan0-> $wan1)" \
	bash -c "[ \"\$1\" = \"\$2\" ] && awk -v a='$wan0' -v b='$wan1' 'BEGIN { split(a, x, \" \"); split(b, y, \" \"); exit !(y[1] >= x[1] && y[2] >= x[2]) }'" _ \
	"$wan_tree" "$(for d in v0 "$IFA"; do tree "$NS" "$d"; done | nostats)"
gw_stop
check "stop: exit 0, both ifbs gone" \
	bash -c "[ $? -eq 0 ] && ! ip -n $NS link show $IFA >/dev/null 2>&1 && ! ip -n $NS link show $IFB >/dev/null 2>&1"
