#!/usr/bin/env bash
# Real traffic: client -> router -> server, the router shaping its egress with gatewayd.
# iperf3's TCP goodput must land within 90-100% of the configured rate at 10, 100 and 1000
# mbit (the goodput ceiling is 1448/1514 = 95.6% of the wire rate; tc's default burst reaches
# only ~90% at 1 gbit here). Every load is bounded by iperf3's -t and by timeout.
. "$(dirname "$0")/lib.sh"

topo_chain || { not_ok "topology"; exit 1; }
ip netns exec "$NS_S" timeout 120 iperf3 -s -B 10.77.2.2 -p 5201 >/dev/null 2>&1 &
PIDS+=($!)
wait_listening "$NS_S" 5201 || not_ok "iperf3 server listens"

measure() {	# measure NAME SHAPER RATE_MBIT [child]
	local name=$1 shaper=$2 mbit=$3 child=${4:-fifo} out bps ratio
	cat >"$TMPD/$name.conf" <<CONF
links = ( { name = "wan"; interface = "r1";
  egress = { shaper = "$shaper"; rate = "${mbit}mbit"; child = { kind = "$child"; }; }; } );
CONF
	if ! gw_start "$NS_R" "$TMPD/$name.conf"; then
		not_ok "$name: gatewayd applies" "$(cat "$GW_LOG")"
		return
	fi
	out=$(timeout 30 ip netns exec "$NS_C" iperf3 -c 10.77.2.2 -p 5201 -P 4 -t 5 -O 1 -J 2>&1)
	bps=$(echo "$out" | jq -r '.end.sum_received.bits_per_second // empty' 2>/dev/null)
	gw_stop
	if [ -z "$bps" ]; then
		not_ok "$name: iperf3 result" "$(echo "$out" | tail -3)"
		return
	fi
	ratio=$(awk -v b="$bps" -v m="$mbit" 'BEGIN { printf "%.3f", b / (m * 1e6) }')
	echo "# $name: goodput $(awk -v b="$bps" 'BEGIN { printf "%.1f", b / 1e6 }') Mbit/s of ${mbit} configured = $ratio"
	check "$name: TCP goodput $ratio of the configured rate, within 0.90-1.00" \
		awk -v r="$ratio" 'BEGIN { exit !(r >= 0.90 && r <= 1.00) }'
}

measure htb-10mbit htb 10
measure htb-100mbit htb 100
measure htb-1000mbit htb 1000
measure tbf-100mbit tbf 100

# IPv6 goes through the same shaper
cat >"$TMPD/v6.conf" <<CONF
links = ( { name = "wan"; interface = "r1";
  egress = { shaper = "htb"; rate = "50mbit"; child = { kind = "fifo"; }; }; } );
CONF
gw_start "$NS_R" "$TMPD/v6.conf"
ip netns exec "$NS_S" timeout 30 iperf3 -s -B fd77:2::2 -p 5202 -1 >/dev/null 2>&1 &
PIDS+=($!)
wait_listening "$NS_S" 5202 || not_ok "iperf3 server listens"
bps=$(timeout 30 ip netns exec "$NS_C" iperf3 -c fd77:2::2 -p 5202 -P 2 -t 4 -O 1 -J 2>/dev/null |
	jq -r '.end.sum_received.bits_per_second // 0')
gw_stop
ratio=$(awk -v b="${bps:-0}" 'BEGIN { printf "%.3f", b / 50e6 }')
echo "# ipv6 htb 50mbit: goodput ratio $ratio"
check "IPv6 through htb 50mbit: goodput $ratio within 0.88-1.00 (40-byte header)" \
	awk -v r="$ratio" 'BEGIN { exit !(r >= 0.88 && r <= 1.00) }'
