#!/usr/bin/env bash
# The trees gatewayd builds on the host kernel (htb + classes + fifo, tbf + fifo, ingress
# through an ifb), checked with tc -j; then SIGTERM leaves nothing behind.
. "$(dirname "$0")/lib.sh"

ns_new NS tree || { not_ok "namespace"; exit 1; }
ip -n "$NS" link add v0 type veth peer name v1
ip -n "$NS" link set v0 up
ip -n "$NS" link set v1 up
BEFORE_V0=$(tree "$NS" v0)
BEFORE_V1=$(tree "$NS" v1)

cat >"$TMPD/t.conf" <<CONF
links = (
  { name = "wan"; interface = "v0";
    egress = { shaper = "htb"; rate = "100mbit";
      classes = (
        { name = "voice"; rate = "10mbit"; prio = 0; child = { kind = "fifo"; limit = 100; }; },
        { name = "web"; rate = "30mbit"; ceil = "80mbit"; prio = 1; child = { kind = "fifo"; }; },
        { name = "bulk"; rate = "60mbit"; prio = 2; default = true;
          child = { kind = "fifo"; limit = "64k"; }; } ); };
    ingress = { shaper = "tbf"; rate = "50mbit"; ifb = "ifb-$RUN_ID";
      child = { kind = "fifo"; limit = 500; }; }; },
  { name = "lan"; interface = "v1"; overhead = 18; mpu = 64; linklayer = "atm";
    egress = { shaper = "tbf"; rate = "20mbit"; latency = "10ms"; child = { kind = "fifo"; }; }; }
);
CONF

gw_start "$NS" "$TMPD/t.conf"
check "daemon applies the tree" kill -0 "$GW_PID"
J=$(qdisc_json "$NS" v0)
jqc() { echo "$J" | jq -e "$1" >/dev/null; }
check "v0 root is htb e000: with default class 0x12" \
	jqc '.[] | select(.root == true) | select(.kind == "htb" and .handle == "e000:" and .options.default == "0x12")'
check "voice leaf: pfifo 1000: limit 100 under e000:10" \
	jqc '.[] | select(.handle == "1000:") | select(.kind == "pfifo" and .parent == "e000:10" and .options.limit == 100)'
check "web leaf: pfifo 1001: under e000:11" \
	jqc '.[] | select(.handle == "1001:") | select(.kind == "pfifo" and .parent == "e000:11")'
check "bulk leaf: bfifo 1002: limit 65536 under e000:12" \
	jqc '.[] | select(.handle == "1002:") | select(.kind == "bfifo" and .parent == "e000:12" and .options.limit == 65536)'
check "ingress hook on v0" jqc '.[] | select(.kind == "ingress" and .handle == "ffff:")'
# iproute2 6.1 prints classes as text even with -j
C=$(ip netns exec "$NS" tc class show dev v0)
check "top class e000:1 at 100Mbit" grep -q "class htb e000:1 root rate 100Mbit ceil 100Mbit" <<<"$C"
check "voice class 10Mbit, ceil 100Mbit, prio 0" \
	grep -qE "class htb e000:10 parent e000:1 leaf 1000: prio 0 rate 10Mbit ceil 100Mbit" <<<"$C"
check "web class 30Mbit ceil 80Mbit prio 1" \
	grep -qE "class htb e000:11 parent e000:1 leaf 1001: prio 1 rate 30Mbit ceil 80Mbit" <<<"$C"
check "bulk class 60Mbit" grep -qE "class htb e000:12 parent e000:1 leaf 1002: prio 2 rate 60Mbit" <<<"$C"
check "bursts are 1 ms at the rate (bulk 7500b, top 12500b)" \
	bash -c "grep -q 'e000:12 .*burst 7500b cburst 12500b' <<<'$C' && grep -q 'e000:1 root.*burst 12500b' <<<'$C'"
F=$(ip netns exec "$NS" tc filter show dev v0 ingress)
check "u32 match-all redirects v0's ingress to the ifb" \
	grep -q "mirred (Egress Redirect to device ifb-$RUN_ID)" <<<"$F"
JI=$(qdisc_json "$NS" "ifb-$RUN_ID")
check "ifb root is tbf 50mbit" \
	bash -c "echo '$JI' | jq -e '.[] | select(.root == true) | select(.kind == \"tbf\" and .options.rate == 6250000)' >/dev/null"
check "ifb leaf pfifo limit 500 under e000:1" \
	bash -c "echo '$JI' | jq -e '.[] | select(.kind == \"pfifo\" and .parent == \"e000:1\" and .options.limit == 500)' >/dev/null"
J1=$(qdisc_json "$NS" v1)
check "v1 root is tbf 20mbit, burst 2500 (1 ms), queue 10 ms beyond the bucket" \
	bash -c "echo '$J1' | jq -e '.[] | select(.root == true) | select(.kind == \"tbf\" and .options.rate == 2500000 and .options.burst == 2500 and .options.lat == 10000)' >/dev/null"
S=$(ip netns exec "$NS" tc -s -d qdisc show dev v1 | head -3)
check "v1 has an ATM size table (stab overhead 4 = 18 - 14, mpu 64, atm)" \
	grep -qE "linklayer atm overhead 4 mpu 64" <<<"$S"

check "SIGTERM: exit status 0" gw_stop
check "SIGTERM: v0 back to what it was" test "$(tree "$NS" v0)" = "$BEFORE_V0"
check "SIGTERM: v1 back to what it was" test "$(tree "$NS" v1)" = "$BEFORE_V1"
check "SIGTERM: the ifb is gone" bash -c "! ip -n $NS link show ifb-$RUN_ID 2>/dev/null"
check "log says everything was removed" grep -q "removed everything gatewayd created" "$GW_LOG"

# SIGINT works the same, and --oneshot leaves the tree for the next run to take over
gw_start "$NS" "$TMPD/t.conf"
kill -INT "$GW_PID"
wait "$GW_PID"
check "SIGINT: exit 0 and nothing left" test $? -eq 0 -a "$(tree "$NS" v0)" = "$BEFORE_V0"
ip netns exec "$NS" "$GATEWAYD" -c "$TMPD/t.conf" --oneshot 2>"$TMPD/oneshot.log"
check "--oneshot exits 0 and leaves the tree" \
	bash -c "ip netns exec $NS tc qdisc show dev v0 | grep -q 'htb e000:'"
gw_start "$NS" "$TMPD/t.conf"
check "a new run takes over the tree left by --oneshot" kill -0 "$GW_PID"
gw_stop
check "and removes it on stop" test "$(tree "$NS" v0)" = "$BEFORE_V0"
