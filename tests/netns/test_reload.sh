#!/usr/bin/env bash
# SIGHUP: a config that changes only rates and knobs is changed in place under traffic (the
# unchanged class keeps its queue and counters); an invalid one changes nothing and says so on
# /api/status; one that changes the tree's shape is rebuilt.
. "$(dirname "$0")/lib.sh"

topo_chain || { not_ok "topology"; exit 1; }
conf() {	# conf FILE BULK_RATE [EXTRA_CLASS]
	cat >"$1" <<CONF
interval = "500ms";
links = ( { name = "wan"; interface = "r1";
  egress = { shaper = "htb"; rate = "50mbit"; classes = (
    { name = "other"; rate = "10mbit"; child = { kind = "fifo"; limit = 100; }; },
    { name = "bulk"; rate = "$2"; default = true; child = { kind = "fifo"; limit = "64k"; }; } ${3:-} ); }; } );
CONF
}
conf "$TMPD/a.conf" 30mbit
conf "$TMPD/b.conf" 25mbit
cp "$TMPD/a.conf" "$TMPD/run.conf"
gw_start "$NS_R" "$TMPD/run.conf" || { not_ok "gatewayd starts" "$(cat "$GW_LOG")"; exit 1; }
api() { ip netns exec "$NS_R" curl -s --max-time 3 "http://127.0.0.1:9180$1"; }
# The same 8 s load twice: once left alone, once with 100 reloads alternating a and b (bulk at
# 30 or 25 mbit; its ceil, the link's 50, is what the flows get either way). Reloads must cost
# no goodput (within 5%) and no drops beyond what the shaper drops anyway. Each SIGHUP waits
# for the daemon to log its reload before the next: two sent close together would merge.
class_bytes() {	# the kernel's byte counter of class e000:1N
	ip netns exec "$NS_R" tc -s class show dev r1 | grep -A1 "class htb e000:1$1 " |
		sed -n 's/.*Sent \([0-9]*\) bytes.*/\1/p'
}
root_drops() {
	ip netns exec "$NS_R" tc -s -j qdisc show dev r1 | jq '.[] | select(.handle == "e000:") | .drops'
}
load() {	# load RELOADS: prints "goodput drops monotonic"
	local drops0 mono=1 prev=0 b
	ip netns exec "$NS_S" timeout 30 iperf3 -s -1 -B 10.77.2.2 >/dev/null 2>&1 &
	PIDS+=($!)
	wait_listening "$NS_S" 5201 >&2
	drops0=$(root_drops)
	ip netns exec "$NS_C" timeout 30 iperf3 -c 10.77.2.2 -P 4 -t 8 -J >"$TMPD/iperf.json" 2>&1 &
	local ip=$!
	# the flows under way: 1 MB through the bulk class
	local b0
	b0=$(class_bytes 1)
	wait_for '[ "$(class_bytes 1)" -gt $((b0 + 1000000)) ]' 5 "1 MB more through the bulk class" >&2
	for i in $(seq 1 "$1"); do
		if [ $((i % 2)) -eq 1 ]; then cp "$TMPD/b.conf" "$TMPD/run.conf"; else cp "$TMPD/a.conf" "$TMPD/run.conf"; fi
		gw_reload >&2	# (each takes ~0.1 s: the 100 span the 8 s load)
		b=$(class_bytes 1)
		[ "${b:-0}" -ge "$prev" ] || mono=0
		prev=${b:-0}
	done
	wait $ip
	echo "$(jq -r '.end.sum_received.bits_per_second // 0' "$TMPD/iperf.json") $(( $(root_drops) - drops0 )) $mono"
}
load 0 >"$TMPD/base"
read -r g0 d0 _ <"$TMPD/base"
load 100 >"$TMPD/hup"
read -r g1 d1 mono <"$TMPD/hup"
echo "# 8 s of 4 TCP flows: without reloads $g0 bit/s, $d0 drops; with 100 reloads $g1 bit/s, $d1 drops"
check "100 reloads: goodput within 5% of the same load without them" \
	awk -v a="$g1" -v b="$g0" 'BEGIN { exit !(b > 0 && a >= 0.95 * b) }'
# the shaper's own drops vary run to run on a busy machine (557 vs 744 seen with no cause but
# load): a reload that dropped queues would lose thousands, so the margin is wide
check "100 reloads: no drops beyond the shaper's own ($d1 vs $d0, allowing 50% + 200)" \
	awk -v a="$d1" -v b="$d0" 'BEGIN { exit !(a <= b * 1.5 + 200) }'
check "the bulk class's kernel counter never went back through the reloads" test "$mono" -eq 1
check "every reload was done in place" \
	bash -c "[ \$(grep -c 'changed in place' '$GW_LOG') -eq 100 ]"
check "no reload rebuilt the tree" bash -c "! grep -q 'rebuilt' '$GW_LOG'"
check "the last config's rate is in the kernel (bulk 30Mbit)" \
	bash -c "ip netns exec $NS_R tc class show dev r1 | grep -q 'e000:11 .*rate 30Mbit'"
# one more in place (bulk to 25 mbit): /api/status shows the rate the reload gave the kernel
cp "$TMPD/b.conf" "$TMPD/run.conf"
gw_reload
gw_samples "$NS_R" 1
check "an in-place reload's rate is on /api/status (bulk 25000000 bit/s, ceil 50000000)" \
	bash -c "api() { ip netns exec $NS_R curl -s --max-time 3 http://127.0.0.1:9180\$1; }; api /api/status | jq -e '.links[0].directions[0].classes[1] | .name == \"bulk\" and .rate_bits_per_second == 25000000 and .ceil_bits_per_second == 50000000' >/dev/null"
cp "$TMPD/a.conf" "$TMPD/run.conf"	# and back, for what follows
gw_reload

# an invalid config: nothing changes, and /api/status says why
tree_before=$(tree "$NS_R" r1 | sed -E 's/ (Sent|backlog|lended|tokens|ctokens) .*//')
printf 'links = ( { name = "wan"; interface = "r1";\n  egress = { shaper = "htb"; rate = "fast"; }; } );\n' >"$TMPD/run.conf"
gw_reload
# the refusal is on /api/status from the next sample on
gw_samples "$NS_R" 1
check "an invalid config on SIGHUP: the daemon keeps running" kill -0 "$GW_PID"
check "... the tree is unchanged" test "$(tree "$NS_R" r1 | sed -E 's/ (Sent|backlog|lended|tokens|ctokens) .*//')" = "$tree_before"
check "... the log has FILE:LINE: message" grep -q "reload: .*run.conf:2: " "$GW_LOG"
check "... /api/status says the last reload failed" \
	bash -c "api() { ip netns exec $NS_R curl -s --max-time 3 http://127.0.0.1:9180\$1; }; api /api/status | jq -e '.sample.last_error | test(\"last reload failed\")' >/dev/null"

# a class added, then one removed: one by one, every other class keeps its queue and counter
bulk_before=$(class_bytes 1)
conf "$TMPD/run.conf" 30mbit ', { name = "new"; rate = "5mbit"; child = { kind = "fifo"; }; }'
gw_reload
gw_samples "$NS_R" 1	# /api/status shows it from the next sample on
check "a class added: created alone (the log says so)" grep -q "in place, the rest kept: 0 changed, 2 created" "$GW_LOG"
check "... it is in the kernel" \
	bash -c "ip netns exec $NS_R tc class show dev r1 | grep -q 'e000:12 .*rate 5Mbit'"
check "... bulk's counter went on ($bulk_before -> $(class_bytes 1) bytes)" test "$(class_bytes 1)" -ge "$bulk_before"
check "... and the failure note is gone from /api/status" \
	bash -c "ip netns exec $NS_R curl -s --max-time 3 http://127.0.0.1:9180/api/status | jq -e '.sample.last_error == null' >/dev/null"
check "... the new class is on /api/status" \
	bash -c "ip netns exec $NS_R curl -s --max-time 3 http://127.0.0.1:9180/api/status | jq -e '.links[0].directions[0].classes[2].name == \"new\"' >/dev/null"
cat >"$TMPD/run.conf" <<CONF
interval = "500ms";
links = ( { name = "wan"; interface = "r1";
  egress = { shaper = "htb"; rate = "50mbit"; classes = (
    { name = "bulk"; rate = "30mbit"; default = true; child = { kind = "fifo"; limit = "64k"; }; },
    { name = "new"; rate = "5mbit"; child = { kind = "fifo"; }; } ); }; } );
CONF
bulk_before=$(class_bytes 1)
gw_reload
gw_samples "$NS_R" 1	# /api/status shows it from the next sample on
check "a class removed: deleted alone, the others keep their handles" \
	bash -c "! ip netns exec $NS_R tc class show dev r1 | grep -q 'e000:10 ' && ip netns exec $NS_R tc class show dev r1 | grep -q 'e000:11 .*rate 30Mbit' && ip netns exec $NS_R tc class show dev r1 | grep -q 'e000:12 .*rate 5Mbit'"
check "... bulk's counter went on ($bulk_before -> $(class_bytes 1) bytes)" test "$(class_bytes 1)" -ge "$bulk_before"
check "... no reload so far rebuilt the tree" bash -c "! grep -q 'rebuilt' '$GW_LOG'"
check "... /api/status follows: bulk and new" \
	bash -c "ip netns exec $NS_R curl -s --max-time 3 http://127.0.0.1:9180/api/status | jq -e '[.links[0].directions[0].classes[].name] == [\"bulk\", \"new\"]' >/dev/null"
# back to the first config: 'other' comes back as a new class on a slot not used a moment ago
conf "$TMPD/run.conf" 30mbit
gw_reload
# a knob removed: a change would keep the old value, so that queue alone is replaced
bulk_before=$(class_bytes 1)
sed -i 's/child = { kind = "fifo"; limit = 100; }/child = { kind = "fifo"; }/' "$TMPD/run.conf"
gw_reload
check "a knob removed: the kernel's default comes back (pfifo limit 1000)" \
	bash -c "ip netns exec $NS_R tc qdisc show dev r1 | grep -qE 'pfifo [0-9a-f]+: parent e000:[0-9a-f]+ limit 1000p'"
check "... by replacing that queue alone, no rebuild" \
	bash -c "grep -q '1 queues replaced, 0 trees recreated' '$GW_LOG' && ! grep -q rebuilt '$GW_LOG'"
check "... bulk's counter went on ($bulk_before -> $(class_bytes 1) bytes)" test "$(class_bytes 1)" -ge "$bulk_before"
# a class removed and the default moved to another in one reload: htb's default is fixed at
# creation, so the tree is recreated (alone: the class's own deletion is not sent as well)
cat >"$TMPD/run.conf" <<CONF
interval = "500ms";
links = ( { name = "wan"; interface = "r1";
  egress = { shaper = "htb"; rate = "50mbit"; classes = (
    { name = "other"; rate = "10mbit"; default = true; child = { kind = "fifo"; }; } ); }; } );
CONF
gw_reload
check "a class removed and the default moved: the tree recreated, no reload refused" \
	bash -c "grep -q '1 trees recreated' '$GW_LOG' && ! grep -q 'reload: .*refused' '$GW_LOG'"
check "... the kernel has one class, the default" \
	bash -c "[ \$(ip netns exec $NS_R tc class show dev r1 | grep -c 'parent e000:1 ') -eq 1 ] && ip netns exec $NS_R tc qdisc show dev r1 | grep -q 'htb e000: root.*default 0x1'"
gw_stop
check "stop after reloads: exit 0, default qdisc back" \
	bash -c "[ $? -eq 0 ] && ip netns exec $NS_R tc qdisc show dev r1 | grep -q noqueue"
