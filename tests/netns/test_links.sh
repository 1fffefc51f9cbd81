#!/usr/bin/env bash
# Links whose interface is not there yet (a PPPoE or LTE router at boot) or goes and comes back
# (a reconnect): gatewayd starts, says READY=1, shows the link as waiting in /api/status and
# /metrics, and shapes it within 1 s of the interface appearing, whatever its index, again
# each of 20 times it is deleted and created under traffic; the other link of a two-link config
# is shaped at once and keeps its objects and counters; `required = true` keeps the old exit 1.
. "$(dirname "$0")/../systemd/lib.sh"
CYCLES=${LINKS_CYCLES:-20}

ns_new NS links || { not_ok "namespace"; exit 1; }
ns_new NP linkspeer || { not_ok "namespace"; exit 1; }
IFB=ifb-$RUN_ID
API=http://127.0.0.1:9180
conf() {	# conf FILE [EXTRA-LINK]: wan on lk0 (htb both ways, ingress through $IFB)
	cat >"$1" <<CONF
links = ( { name = "wan"; interface = "lk0";
  egress = { shaper = "htb"; rate = "20mbit"; classes = (
    { name = "voice"; rate = "2mbit"; child = { kind = "fifo"; }; match = { dscp = "ef"; }; },
    { name = "bulk"; rate = "18mbit"; default = true; child = { kind = "fifo"; limit = 200; }; } );
    autorate = { min = "5mbit"; max = "40mbit"; load_threshold = 0.5; }; };
  ingress = { shaper = "tbf"; rate = "30mbit"; ifb = "$IFB"; child = { kind = "fifo"; }; }; }${2:-} );
probe = { targets = [ "10.78.1.2" ]; interval = "100ms"; };
CONF
}
# mklink: lk0 in NS, its peer lk1 in NP; linkup: addresses on both (the routes come with
# them), both up
mklink() { ip -n "$NS" link add lk0 type veth peer name lk1 netns "$NP"; }
linkup() {
	ip -n "$NS" addr add 10.78.1.1/24 dev lk0 && ip -n "$NP" addr add 10.78.1.2/24 dev lk1 &&
		ip -n "$NS" link set lk0 up && ip -n "$NP" link set lk1 up
}
status() { ip netns exec "$NS" curl -s --max-time 3 "$API/api/status"; }
metrics() { ip netns exec "$NS" curl -s --max-time 3 "$API/metrics"; }
# st_is FILTER: /api/status answers and FILTER holds on it
st_is() { local j; j=$(status) && [ -n "$j" ] && jq -e "$1" <<<"$j" >/dev/null; }
# m_has LINE / m_has_re RE: /metrics answers and has LINE (a line matching RE); m_lacks RE: it
# answers and no line matches RE
m_has() { local m; m=$(metrics) && grep -qxF "$1" <<<"$m"; }
m_has_re() { local m; m=$(metrics) && grep -q "$1" <<<"$m"; }
m_lacks() { local m; m=$(metrics) && [ -n "$m" ] && ! grep -q "$1" <<<"$m"; }
# shaped: the whole tree of wan is in: htb root and its three classes on lk0, the ingress hook
# and redirect, the ifb's tbf (read as JSON where tc gives it; classes as text, see
# shared notes: iproute2 prints htb classes as text even with -j)
shaped() {
	ip netns exec "$NS" tc -j qdisc show dev lk0 2>/dev/null |
		jq -e '(map(select(.kind == "htb" and .handle == "e000:" and .root)) | length == 1) and
			(map(select(.kind == "ingress")) | length == 1)' >/dev/null &&
		[ "$(ip netns exec "$NS" tc class show dev lk0 | grep -c '^class htb e000:')" -eq 3 ] &&
		ip netns exec "$NS" tc filter show dev lk0 ingress | grep -q "Redirect to device $IFB" &&
		ip netns exec "$NS" tc -j qdisc show dev "$IFB" 2>/dev/null |
		jq -e 'map(select(.kind == "tbf" and .handle == "e000:")) | length == 1' >/dev/null
}
# roots_in: lk0's htb root and ingress hook and the ifb's tbf root, from one `tc -j qdisc show`
# each (matched in the shell: a poll costs two forks, so it can look every 50 ms on a busy box)
roots_in() {
	local j i
	j=$(ip netns exec "$NS" tc -j qdisc show dev lk0 2>/dev/null) &&
		i=$(ip netns exec "$NS" tc -j qdisc show dev "$IFB" 2>/dev/null) &&
		[[ $j == *'{"kind":"htb","handle":"e000:","root":true'* && $j == *'{"kind":"ingress","handle":"ffff:"'* &&
			$i == *'{"kind":"tbf","handle":"e000:","root":true'* ]]
}
# ms_shaped: poll every 50 ms for at most 1 s from t0 (EPOCHREALTIME) until the roots are in,
# then the whole tree must be (one batch made it); the ms it took, or nothing
ms_shaped() {
	local t
	while :; do
		t=$(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 ))
		[ "$t" -gt 1000 ] && return 1
		if roots_in; then
			shaped || return 1
			echo "$t"
			return 0
		fi
		sleep 0.05
	done
}
root_bytes() { ip netns exec "$NS" tc -s -j qdisc show dev "$1" | jq '[.[] | select(.handle == "e000:")][0].bytes // 0'; }

# ---- one link, missing at start ----
conf "$TMPD/one.conf"
listener_start --on-ready "ip -n $NS -br link show lk0 >/dev/null 2>&1 && echo there || echo absent"
NOTIFY_SOCKET=$NL_SOCK gw_start "$NS" "$TMPD/one.conf" ||
	{ not_ok "gatewayd starts without its interface" "$(cat "$GW_LOG")"; exit 1; }
t_start=$EPOCHREALTIME
ok "gatewayd starts without its interface (applied and verified the rest)"
check "READY=1 was sent" wait_for "nl_has READY=1" 5 "READY=1"
check "... while lk0 did not exist" wait_for "grep -qx absent '$NL_READY_OUT'" 5 "the on-ready look"
ready_waits() { nl_status | grep -q '^STATUS=shaping 0 links, 0 objects; 1 waiting for its interface$'; }
check "READY's STATUS says one link waits" ready_waits
check "the log says the link waits (once)" \
	test "$(grep -c "link 'wan': interface lk0 does not exist; waiting for it" "$GW_LOG")" -eq 1
gw_samples "$NS" 1 >/dev/null
check "/api/status: present false, both directions waiting, no counters" st_is '.links[0].present == false and
	(.links[0].directions | length == 2) and
	all(.links[0].directions[]; .waiting == true and .total == null and .classes == [])'
check "/api/status: no 'root qdisc is missing' for a waiting link" st_is '(.sample.last_error // "") | test("missing") | not'
check "/metrics: gatewayd_link_present 0" m_has 'gatewayd_link_present{link="wan",interface="lk0"} 0'
check "/metrics: no class counters while it waits" m_lacks '^gatewayd_class_sent_bytes_total{link="wan"'
if command -v promtool >/dev/null; then
	metrics >"$TMPD/m.txt"
	check "/metrics of a waiting link passes promtool check metrics" bash -c "[ -s '$TMPD/m.txt' ] && promtool check metrics <'$TMPD/m.txt' >/dev/null 2>&1"
fi
check "no ifb made for the waiting link" bash -c "! ip -n $NS link show $IFB >/dev/null 2>&1"

# a reload while it waits changes nothing and keeps it waiting
check "SIGHUP while waiting: reloaded" gw_reload
gw_samples "$NS" 1 >/dev/null
check "... the link still waits, the daemon up" bash -c "kill -0 $GW_PID && ! grep -q 'still running the previous config' '$GW_LOG'"
check "... /api/status still says waiting" st_is '.links[0].present == false'

# the interface appears 3 s after start
sleep "$(awk -v a="$t_start" -v b="$EPOCHREALTIME" 'BEGIN { d = 3 - (b - a); print (d > 0 ? d : 0) }')"	# the point: 3 s late
t0=$EPOCHREALTIME
mklink
ms=$(ms_shaped)
linkup
echo "# lk0 created 3 s after start: the whole tree in ${ms:-(not within 1 s)} ms"
check "lk0 created 3 s after start: shaped within 1 s (${ms:-never} ms)" test -n "$ms"
check "the log says it is shaped (one line)" wait_for "grep -q \"link 'wan': interface lk0 is there (index [0-9]*): shaped again\" '$GW_LOG'" 2
gw_samples "$NS" 1 >/dev/null
check "/api/status: present true, directions with counters" st_is '.links[0].present == true and
	all(.links[0].directions[]; .waiting == false and .total.sent_bytes >= 0 and (.classes | length > 0))'
check "/metrics: gatewayd_link_present 1" m_has 'gatewayd_link_present{link="wan",interface="lk0"} 1'
check "/metrics: wan's class counters are back" m_has_re '^gatewayd_class_sent_bytes_total{link="wan",direction="egress",class="bulk"'
# the prober, which could not start without lk0, probes through it now
replies() { status | jq '.probe.targets[0].received // 0'; }
check "the prober runs through lk0 once it is there" wait_for '[ "$(replies)" -gt 0 ]' 5 "probe replies"
check "the nft table sorts wan's egress classes" bash -c "ip netns exec $NS nft list table inet gatewayd | grep -q 'oifname \"lk0\"'"

# ---- deleted and created again, CYCLES times, under traffic both ways ----
# bounded UDP senders that survive the link going away (sendto errors are ignored): 30 s at
# most, about 16 Mbit/s each way, only to the other namespace's address
sender() {	# sender NS DST SECONDS [PACKETS-PER-10-MS]: 1200-byte datagrams, 17 = 16 Mbit/s
	ip netns exec "$1" timeout "$(($3 + 5))" python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
dst, end, data = (sys.argv[1], 9), time.monotonic() + float(sys.argv[2]), b"x" * 1200
n = int(sys.argv[3])
while time.monotonic() < end:
    for _ in range(n):
        try:
            s.sendto(data, dst)
        except OSError:
            pass
    time.sleep(0.01)
' "$2" "$3" "${4:-17}" &
	PIDS+=($!)
}
sender "$NS" 10.78.1.2 40
cyc_senders=("${PIDS[-1]}")
sender "$NP" 10.78.1.1 40
cyc_senders+=("${PIDS[-1]}")
ok_cycles=0 worst=0 sum=0 traffic=0 ifb_gone=0 waits=0
for i in $(seq "$CYCLES"); do
	w0=$(grep -c "interface lk0 is gone; waiting for it" "$GW_LOG")
	ip -n "$NS" link del lk0
	wait_for "[ \$(grep -c 'interface lk0 is gone; waiting for it' '$GW_LOG') -gt $w0 ]" 2 \
		"the daemon to say lk0 went" >/dev/null 2>&1 && waits=$((waits + 1))
	ip -n "$NS" link show "$IFB" >/dev/null 2>&1 || ifb_gone=$((ifb_gone + 1))
	t0=$EPOCHREALTIME
	mklink
	ms=$(ms_shaped)
	linkup
	if [ -n "$ms" ]; then
		ok_cycles=$((ok_cycles + 1))
		sum=$((sum + ms))
		[ "$ms" -gt "$worst" ] && worst=$ms
	fi
	# traffic through the new tree both ways (its first packets wait for ARP)
	b0=$(root_bytes lk0) i0=$(root_bytes "$IFB")
	wait_for "[ \$(root_bytes lk0) -gt $b0 ] && [ \$(root_bytes $IFB) -gt $i0 ]" 3 \
		"traffic through the new tree both ways" && traffic=$((traffic + 1))
done
echo "# $CYCLES reconnects: shaped within 1 s in $ok_cycles (slowest $worst ms, mean $((sum / (ok_cycles ? ok_cycles : 1))) ms)"
check "deleted and created $CYCLES times: shaped again within 1 s each time ($ok_cycles of $CYCLES, slowest $worst ms)" \
	test "$ok_cycles" -eq "$CYCLES"
check "... each deletion logged as waiting ($waits of $CYCLES)" test "$waits" -eq "$CYCLES"
check "... the ifb gatewayd made was deleted while the link waited ($ifb_gone of $CYCLES)" test "$ifb_gone" -eq "$CYCLES"
check "... traffic went through the new tree both ways each time ($traffic of $CYCLES)" test "$traffic" -eq "$CYCLES"
check "the daemon stayed up" kill -0 "$GW_PID"
r0=$(replies)
check "the prober follows the last lk0 (replies $r0 and counting)" wait_for "[ \$(replies) -gt $r0 ]" 5 "more probe replies"
# wan's egress has autorate, which the senders' load may have raised: while the link waits
# there is no tree to move, so nothing is tried (a step back towards base would be refused),
# and the new tree starts from the configured rate
ar() { status | jq ".links[0].directions[] | select(.direction == \"egress\") | .autorate.$1"; }
# Load raises the rate when it reaches load_threshold (0.5) of it and does not queue: 3/4 of
# the rate the reconnects left, from a sender of its own. (On a loaded machine their senders
# may have ended, and a latency spike from CPU starvation may have cut the rate below their
# 16 Mbit/s, which then queue and keep it cut.)
kill "${cyc_senders[@]}" 2>/dev/null
r0=$(ar rate_bits_per_second) l0=$(ar changes.load)
[ "$r0" -ge 40000000 ] && l0=0	# at max already: it rose before
sender "$NS" 10.78.1.2 12 $(( (r0 * 3 / 4 + 480000) / 960000 ))
check "autorate: a load of 3/4 of its rate (${r0} bit/s) raises it (load_threshold 0.5)" \
	wait_for "[ \"\$(ar changes.load)\" -gt $l0 ]" 10 "a raise"
echo "# autorate before the link goes: $(ar rate_bits_per_second) bit/s after $(ar changes.load) raises"
kill "${PIDS[-1]}" 2>/dev/null	# its sender: the rest of the test runs without load
ip -n "$NS" link del lk0
# longer than autorate's idle_after (5 s): 7 sampling passes (1 s each) while it waits, each
# of which would have stepped an idle rate towards base
gw_samples "$NS" 7 >/dev/null
check "autorate: nothing tried while the link waited (no refusal logged)" \
	bash -c "! grep -q \"autorate: link 'wan' egress stays at\" '$GW_LOG'"
t0=$EPOCHREALTIME
mklink
ms=$(ms_shaped)
linkup
check "autorate: after the wait the link is shaped again (${ms:-never} ms)" test -n "$ms"
# htb's top class's rate as the kernel has it, bit/s (tc prints htb classes as text)
top_rate() {
	ip netns exec "$NS" tc class show dev lk0 classid e000:1 | awk '{
		for (i = 1; i < NF; i++) if ($i == "rate") { v = $(i + 1); break }
		m = 1; if (v ~ /Kbit$/) m = 1e3; else if (v ~ /Mbit$/) m = 1e6; else if (v ~ /Gbit$/) m = 1e9
		sub(/[KMG]?bit$/, "", v); printf "%.0f\n", v * m }'
}
# tc prints the rate rounded: within 1%
ar_is_kernels() {
	awk -v a="$(ar rate_bits_per_second)" -v k="$(top_rate)" 'BEGIN { exit !(k > 0 && a > 0.99 * k && a < 1.01 * k) }'
}
check "autorate: its rate in /api/status is the new tree's (htb's top class in the kernel)" \
	wait_for ar_is_kernels 3 "autorate's rate to be the kernel's"
echo "# autorate after the return: $(ar rate_bits_per_second) bit/s; the kernel's top class $(top_rate) bit/s"
check "autorate: no change refused ($(ar refused_total))" test "$(ar refused_total)" = 0
gw_stop
check "SIGTERM: exit 0" test $? -eq 0
check "... no ifb left" bash -c "[ -z \"\$(ip -n $NS -br link show type ifb)\" ]"
check "... no qdisc of ours left on lk0" bash -c "! ip netns exec $NS tc qdisc show dev lk0 | grep -q 'e000:\|ffff:'"
check "... no nft table left" bash -c "! ip netns exec $NS nft list table inet gatewayd >/dev/null 2>&1"

# ---- two links, one missing: the present one shaped at once and kept when the other comes ----
ip -n "$NS" link del lk0
ip -n "$NS" link add lp0 type veth peer name lp1 netns "$NP"
ip -n "$NS" addr add 10.78.2.1/24 dev lp0 && ip -n "$NP" addr add 10.78.2.2/24 dev lp1
ip -n "$NS" link set lp0 up && ip -n "$NP" link set lp1 up
conf "$TMPD/two.conf" ',
  { name = "lan"; interface = "lp0"; egress = { shaper = "tbf"; rate = "10mbit"; child = { kind = "fifo"; }; }; }'
gw_start "$NS" "$TMPD/two.conf" || { not_ok "two links: starts" "$(cat "$GW_LOG")"; exit 1; }
check "two links: lan shaped at once" bash -c "ip netns exec $NS tc qdisc show dev lp0 | grep -q 'tbf e000: root'"
sender "$NS" 10.78.2.2 8
gw_samples "$NS" 2 >/dev/null
lan_tree=$(tree "$NS" lp0 | sed -E 's/ (Sent|backlog|rate) .*//')
k0=$(root_bytes lp0)
a0=$(status | jq '.links[1].directions[0].total.sent_bytes')
check "two links: wan waits, lan present" st_is '.links[0].present == false and .links[1].present == true'
t0=$EPOCHREALTIME
mklink
ms=$(ms_shaped)
linkup
check "two links: wan shaped within 1 s of lk0 appearing (${ms:-never} ms)" test -n "$ms"
gw_samples "$NS" 2 >/dev/null
k1=$(root_bytes lp0)
a1=$(status | jq '.links[1].directions[0].total.sent_bytes')
echo "# lan's root: kernel bytes $k0 -> $k1, /api/status sent_bytes $a0 -> $a1"
check "two links: lan's objects are the ones it had" test "$lan_tree" = "$(tree "$NS" lp0 | sed -E 's/ (Sent|backlog|rate) .*//')"
check "two links: lan's counters went on, in the kernel and in /api/status" \
	bash -c "[ $k0 -gt 0 ] && [ $k1 -gt $k0 ] && [ $a0 -gt 0 ] && [ $a1 -gt $a0 ]"
check "two links: both present now" st_is 'all(.links[]; .present)'
# a reload that adds a link whose interface is missing: the new link waits, the others stay
sed -i 's/^  { name = "lan"; interface = "lp0";/  { name = "lte"; interface = "lq0"; egress = { shaper = "tbf"; rate = "5mbit"; child = { kind = "fifo"; }; }; },\n&/' "$TMPD/two.conf"
lan_tree=$(tree "$NS" lp0 | sed -E 's/ (Sent|backlog|rate) .*//')
check "reload adding a link without its interface: reloaded" gw_reload
gw_samples "$NS" 1 >/dev/null
check "... it waits, the others present" st_is '[.links[] | {(.name): .present}] | add == {"wan": true, "lte": false, "lan": true}'
check "... lan's objects are the ones it had" test "$lan_tree" = "$(tree "$NS" lp0 | sed -E 's/ (Sent|backlog|rate) .*//')"
t0=$EPOCHREALTIME
ip -n "$NS" link add lq0 type veth peer name lq1 netns "$NP"
lte_shaped() { ip netns exec "$NS" tc qdisc show dev lq0 | grep -q 'tbf e000: root'; }
check "... and is shaped when lq0 comes" wait_for lte_shaped 1 "lte's root on lq0"
gw_stop
check "two links: SIGTERM exit 0, no ifb left" bash -c "[ $? -eq 0 ] && [ -z \"\$(ip -n $NS -br link show type ifb)\" ]"

# ---- required = true: the old behaviour ----
ip -n "$NS" link del lk0
sed 's/interface = "lk0";/interface = "lk0"; required = true;/' "$TMPD/one.conf" >"$TMPD/req.conf"
ip netns exec "$NS" timeout 10 "$GATEWAYD" -c "$TMPD/req.conf" >"$TMPD/req.log" 2>&1
check "required = true, interface missing: exit 1" test $? -eq 1
check "... with the message as before" grep -q "link 'wan': interface lk0: no such interface" "$TMPD/req.log"
check "... nothing applied" grep -q "nothing was applied" "$TMPD/req.log"
ip netns exec "$NS" "$GATEWAYD" -c "$TMPD/req.conf" --check >"$TMPD/o" 2>&1
check "--check, required and missing: exit 1, an error naming the interface" \
	bash -c "[ $? -eq 1 ] && grep -q 'req.conf:1: error: link .wan.: interface lk0 does not exist' '$TMPD/o'"
ip netns exec "$NS" "$GATEWAYD" -c "$TMPD/one.conf" --check >"$TMPD/o" 2>&1
check "--check, missing but not required: exit 0, a warning" \
	bash -c "[ $? -eq 0 ] && grep -q 'one.conf:1: warning: link .wan.: interface lk0 does not exist; gatewayd waits for it' '$TMPD/o' && grep -q ': ok (1 link)' '$TMPD/o'"
ip netns exec "$NS" "$GATEWAYD" -c "$TMPD/one.conf" --dry-run >"$TMPD/o" 2>&1
check "--dry-run, missing: exit 0, the warning, and the plan" \
	bash -c "[ $? -eq 0 ] && grep -q 'warning: link .wan.: interface lk0 does not exist' '$TMPD/o' && grep -q 'tc qdisc replace dev lk0 root handle e000: htb' '$TMPD/o'"
