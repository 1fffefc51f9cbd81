#!/bin/bash
# tests/uml/guest/gatewayd-kinds.sh: guest side of tests/uml/test_gatewayd.sh. gatewayd builds
# what the host kernel cannot: fq_codel and cake children under htb, cake as its own shaper,
# cake on ingress through an ifb; each tree is checked with tc -j, and a short load through
# the router shows the child in effect (fifo vs fq_codel vs cake under saturation, netem 10 ms
# on the far side). Argument: the gatewayd binary.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$UML_LIB" || exit 1
GW=${1:?gatewayd binary}
T=$(mktemp -d)

[ -z "$UML_MODULES_FAILED" ] || not_ok "guest modules" "not loaded: $UML_MODULES_FAILED"
uml_topology || { not_ok "topology" "uml_topology failed"; exit 1; }
uml_netem_far 10ms limit 10000

gw_run() {	# gw_run CONF: start gatewayd in the router namespace, wait for "applied"
	ip netns exec $UML_NS_R "$GW" -c "$1" >"$T/log" 2>&1 &
	GWPID=$!
	for _ in $(seq 100); do
		grep -q "applied and verified" "$T/log" && return 0
		kill -0 $GWPID 2>/dev/null || break
		sleep 0.1
	done
	echo "# $(cat "$T/log")"
	return 1
}
gw_end() {
	kill -TERM $GWPID
	wait $GWPID
}

# 1. htb with fq_codel and cake children, egress; cake on ingress through an ifb.
cat >"$T/a.conf" <<CONF
links = ( { name = "wan"; interface = "r1"; linklayer = "docsis";
  egress = { shaper = "htb"; rate = "20mbit"; classes = (
      { name = "fast"; rate = "5mbit"; prio = 0; child = { kind = "fq_codel"; target = "3ms"; ecn = false; }; },
      { name = "rest"; rate = "15mbit"; default = true; child = { kind = "cake"; diffserv = "besteffort"; }; } ); };
  ingress = { shaper = "cake"; rate = "30mbit"; ifb = "ifb-wan"; child = { kind = "cake"; ingress = true; }; }; } );
CONF
out=$("$GW" -c "$T/a.conf" --check 2>&1)
check "--check: this kernel has every kind" "$out" test $? -eq 0
if gw_run "$T/a.conf"; then
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
	check "ingress traffic passes the ifb's cake ($p packets)" "$p" num_between "${p:-0}" 5 100000
	gw_end
	rc=$?
	check "SIGTERM: exit 0" "status $rc" test $rc -eq 0
	check "stop removes the ifb" "ifb-wan still there" bash -c "! ip -n gwr link show ifb-wan 2>/dev/null"
	expect_qdisc "stop gives r1 its default qdisc back" r1 root gwr noqueue
else
	not_ok "htb + fq_codel + cake children, cake ingress" "gatewayd failed"
fi

# 2. cake as its own shaper
cat >"$T/b.conf" <<CONF
links = ( { name = "wan"; interface = "r1"; overhead = 38; mpu = 84;
  egress = { shaper = "cake"; rate = "20mbit"; child = { kind = "cake"; diffserv = "diffserv4"; flow_mode = "dual-srchost"; nat = true; }; }; } );
CONF
if gw_run "$T/b.conf"; then
	expect_qdisc "cake shaper: root cake 20mbit diffserv4 dual-srchost nat overhead 38 mpu 84" r1 root gwr cake \
		'.handle == "e000:" and .options.bandwidth == 2500000 and .options.diffserv == "diffserv4" and .options.flowmode == "dual-srchost" and .options.nat == true and .options.overhead == 38 and .options.mpu == 84'
	gw_end
else
	not_ok "cake as shaper" "gatewayd failed"
fi

# 3. the child in effect: 4 TCP flows + a UDP flood through htb 20mbit, ping alongside
load() {	# load CHILD_BLOCK NAME: prints "goodput ping_avg"
	cat >"$T/l.conf" <<CONF
links = ( { name = "wan"; interface = "r1";
  egress = { shaper = "htb"; rate = "20mbit"; child = { $1 }; }; } );
CONF
	gw_run "$T/l.conf" || { echo "0 0"; return; }
	timeout 12 ip netns exec $UML_NS_C ping -q -n -i 0.1 -w 5 $UML_IP_S >"$T/ping" 2>&1 &
	local pp=$! g
	g=$(uml_iperf 4 4)
	wait $pp
	gw_end
	echo "${g:-0} $(sed -n 's|^rtt [^=]*= [0-9.]*/\([0-9.]*\)/.*|\1|p' "$T/ping")"
}
# (no process substitution: the guest has no /dev/fd)
load 'kind = "fifo"; limit = 1000;' >"$T/r"; read -r g_fifo p_fifo <"$T/r"
load 'kind = "fq_codel";' >"$T/r"; read -r g_fq p_fq <"$T/r"
load 'kind = "cake";' >"$T/r"; read -r g_cake p_cake <"$T/r"
echo "# htb 20mbit, 4 TCP flows, netem 10ms: fifo ${g_fifo} Mbit/s ping ${p_fifo} ms; fq_codel ${g_fq} Mbit/s ping ${p_fq} ms; cake ${g_cake} Mbit/s ping ${p_cake} ms"
for k in fifo fq cake; do
	eval "g=\$g_$k"
	check "$k: goodput $g Mbit/s within 16-20.1 of 20mbit" "$g" num_between "$g" 16 20.1
done
check "fq_codel keeps loaded ping ($p_fq ms) under 25 ms" "$p_fq" num_below "$p_fq" 25
check "cake keeps loaded ping ($p_cake ms) under 25 ms" "$p_cake" num_below "$p_cake" 25
check "fifo's loaded ping ($p_fifo ms) is over twice fq_codel's" "$p_fifo vs $p_fq" \
	awk -v f="$p_fifo" -v q="$p_fq" 'BEGIN { exit !(f > 2 * q) }'
uml_status
