#!/usr/bin/env bash
# tests/netns/test_cni.sh: gatewayd-cni as a runtime calls it (CNI_* in the environment, the
# network config on stdin), chained after Debian's real bridge and host-local plugins so that
# prevResult is real: the conformance list (VERSION, ADD, CHECK, DEL, DEL again, CHECK after
# tampering, malformed JSON, rates out of range, an unknown cniVersion, a refused tree: each
# error the spec's object, nothing applied), only its own objects removed on DEL, and the
# rates measured with iperf3 both ways through the container's veth. Then with a gatewayd
# daemon: ADD registers the container (in /api/status and /metrics by its id, its traffic
# counted, healed), DEL unregisters it, a daemon started after ADD adopts it from the state
# file, a host veth gone without DEL is cleaned up (its ifb and state file, nothing else), and
# the control socket refuses a non-root peer and bad messages. Last, unshapedSubnets and
# shapedSubnets: the listed subnets' traffic (IPv4 and IPv6, both ways) runs past a 2 Mbit/s
# limit or is the only traffic held to it, CHECK sees their filters, the daemon heals them,
# bad subnets are refused. The "host" is a namespace of its own. CNI_RATE=0 leaves out the
# measurements (the sanitizer lane).
set -u
LIB_RUN_PREFIX=cni
. "$(dirname "$0")/lib.sh"
CNI=${GATEWAYD_CNI:-$(dirname "$GATEWAYD")/gatewayd-cni}
PLUGINS=${CNI_PLUGINS:-/usr/lib/cni}
RATE=20000000		# bits/s each way, as kubernetes.io/*-bandwidth: 20M gives it

if [ "$(id -u)" -ne 0 ]; then
	skip "CNI plugin" "needs root (namespaces)"
	exit 0
fi
for p in bridge host-local; do
	if [ ! -x "$PLUGINS/$p" ]; then
		skip "CNI plugin" "no $PLUGINS/$p (make deps installs containernetworking-plugins)"
		exit 0
	fi
done
for t in jq iperf3; do
	command -v $t >/dev/null || { skip "CNI plugin" "no $t (make deps installs it)"; exit 0; }
done
if [ ! -x "$CNI" ]; then
	not_ok "the plugin is built" "no $CNI"
	exit 1
fi

ns_new HOST host || exit 1
NET=$RUN_ID
SUBNET=10.$((RANDOM % 200 + 20)).$((RANDOM % 250)).0/24
BRIDGE='{"cniVersion":"1.0.0","name":"'$NET'","type":"bridge","bridge":"cnibr0",
	"isGateway":true,"ipam":{"type":"host-local","subnet":"'$SUBNET'",
	"dataDir":"'$TMPD'/ipam"}}'
# kubelet's runtimeConfig for kubernetes.io/ingress-bandwidth: 20M and egress-bandwidth: 20M
KUBELET='{"bandwidth":{"ingressRate":'$RATE',"ingressBurst":2147483647,
	"egressRate":'$RATE',"egressBurst":2147483647}}'
# the host kernel has no fq_codel (the default queue): fifo, whose limit is a queue of its own
QUEUE='{"kind":"fifo","limit":100}'

# the control socket of the daemon the plugin tells (started below), its state files beside it
CTL=$TMPD/run/control.sock

# call PLUGIN CMD ID NETNS IFNAME < CONF: the plugin run as a runtime runs it, in the host
# namespace; stdout into $OUT, the exit status returned.
OUT=$TMPD/out
call() {
	ip netns exec "$HOST" env -i PATH="$PATH" CNI_COMMAND="$2" CNI_CONTAINERID="$3" \
		CNI_NETNS="$4" CNI_IFNAME="$5" CNI_PATH="$PLUGINS" "$1" >"$OUT" 2>>"$TMPD/stderr"
}
# gwconf VERSION PREV RUNTIMECONFIG [EXTRA]: the plugin's config as libcni builds it for the
# second plugin of a list: name and cniVersion injected, prevResult, runtimeConfig.
gwconf() {
	jq -cn --arg v "$1" --arg n "$NET" --argjson prev "$2" --argjson rc "$3" \
		--argjson x "${4:-{\}}" --argjson q "$QUEUE" \
		--arg cs "$CTL" \
		'{cniVersion:$v, name:$n, type:"gatewayd-cni", capabilities:{bandwidth:true},
		  queue:$q, runtimeConfig:$rc, prevResult:$prev, controlSocket:$cs} + $x'
}
# bridge_add VAR ID NS: the first plugin's ADD; its result into VAR.
bridge_add() {
	call "$PLUGINS/bridge" ADD "$2" "/run/netns/$3" eth0 <<<"$BRIDGE" || return 1
	printf -v "$1" '%s' "$(cat "$OUT")"
}
# checkx NAME CONDITION: one counted check of a shell condition (&&, functions and all)
checkx() { if eval "$2"; then ok "$1"; else not_ok "$1" "failed: $2"; fi; }
host_veth() { jq -r '[.interfaces[] | select(.sandbox == null and (.name | startswith("veth")))][0].name' <<<"$1"; }
code() { jq -r '.code // empty' "$OUT" 2>/dev/null; }
host_state() {
	ip netns exec "$HOST" tc qdisc show | sed -E 's/refcnt [0-9]+ //'
	ip -n "$HOST" -o link show | awk '{ print $2 }' | sort
}
ifb_of() { ip -n "$HOST" -o link show type ifb | awk -F': ' '{ print $2 }' | grep '^gwn-'; }
has_root() { ip netns exec "$HOST" tc qdisc show dev "$1" root | grep -q "^qdisc htb e000:"; }

# -- VERSION ------------------------------------------------------------------------------
call "$CNI" VERSION "" "" "" <<<'{"cniVersion":"1.0.0"}'
checkx "VERSION: exit 0, supportedVersions 0.3.0, 0.3.1, 0.4.0 and 1.0.0" \
	'[ $? -eq 0 ] && jq -e ".cniVersion == \"1.0.0\" and .supportedVersions == [\"0.3.0\",\"0.3.1\",\"0.4.0\",\"1.0.0\"]" "$OUT" >/dev/null'

# -- ADD, CHECK ---------------------------------------------------------------------------
ns_new C1 c1 && ns_new C2 c2 && ns_new C3 c3 || exit 1
bridge_add R1 id-one "$C1" || { not_ok "bridge ADD" "$(cat "$OUT")"; exit 1; }
V1=$(host_veth "$R1")
G1=$(gwconf 1.0.0 "$R1" "$KUBELET")
call "$CNI" ADD id-one "/run/netns/$C1" eth0 <<<"$G1"
rc=$?
check "ADD after bridge: exit 0 (kubelet's runtimeConfig, 20M each way)" [ $rc -eq 0 ]
check "ADD: the result is prevResult passed on" \
	[ "$(jq -S . "$OUT")" = "$(jq -S . <<<"$R1")" ]
IFB1=$(ifb_of)
echo "# host veth $V1, ifb $IFB1"
checkx "ADD: htb e000: at 20Mbit on the host veth $V1" \
	'ip netns exec $HOST tc class show dev $V1 | grep -q "e000:10 .* rate 20Mbit ceil 20Mbit"'
checkx "ADD: the container's egress through ifb $IFB1 (gatewayd:cni: mark), htb at 20Mbit" \
	'ip -n $HOST -d link show $IFB1 | grep -q "alias gatewayd:cni:" &&
		ip netns exec $HOST tc class show dev $IFB1 | grep -q "rate 20Mbit ceil 20Mbit" &&
		ip netns exec $HOST tc filter show dev $V1 ingress | grep -q "Redirect to device $IFB1"'
call "$CNI" CHECK id-one "/run/netns/$C1" eth0 <<<"$G1"
rc=$?
checkx "CHECK after ADD: exit 0, nothing on stdout" '[ $rc -eq 0 ] && [ ! -s "$OUT" ]'
# a runtime that retries ADD (it crashed before it saw the answer): the tree in place is kept
before_retry=$(host_state)
call "$CNI" ADD id-one "/run/netns/$C1" eth0 <<<"$G1"
rc=$?
checkx "ADD again over its own tree: exit 0, the same objects, one ifb" \
	'[ $rc -eq 0 ] && [ "$(host_state)" = "$before_retry" ] && [ "$(ifb_of | wc -l)" = 1 ]'

# -- the rates, measured ------------------------------------------------------------------
# goodput through a 20 Mbit/s htb with 1500-byte packets is about 95% of it
ip1=$(jq -r '.ips[0].address | split("/")[0]' <<<"$R1")
goodput() {	# [-R]: from the container; out: percent of RATE
	ip netns exec "$C1" timeout 15 iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
	local srv=$!
	PIDS+=("$srv")
	wait_listening "$C1" 5201 || return 1
	ip netns exec "$HOST" timeout 15 iperf3 -c "$ip1" -p 5201 -t 4 -O 1 -J "$@" >"$TMPD/iperf.json" 2>&1
	wait "$srv" 2>/dev/null
	jq -r '.end.sum_received.bits_per_second * 100 / '$RATE' | floor' "$TMPD/iperf.json"
}
if [ "${CNI_RATE:-1}" = 1 ]; then
	in_pct=$(goodput)
	out_pct=$(goodput -R)
	echo "# goodput into the container ${in_pct}%, out of it ${out_pct}% of 20 Mbit/s"
	checkx "into the container (ingressRate): goodput within 85-100% of 20 Mbit/s (${in_pct}%)" \
		'[ "${in_pct:-0}" -ge 85 ] && [ "${in_pct:-0}" -le 100 ]'
	checkx "out of the container (egressRate): goodput within 85-100% of 20 Mbit/s (${out_pct}%)" \
		'[ "${out_pct:-0}" -ge 85 ] && [ "${out_pct:-0}" -le 100 ]'
else
	skip "rates through the plugin's tree" "CNI_RATE=0"
fi

# -- a second container, and foreign qdiscs the plugin must leave alone -------------------
bridge_add R2 id-two "$C2" || { not_ok "bridge ADD (second)" "$(cat "$OUT")"; exit 1; }
V2=$(host_veth "$R2")
# a burst the plugin honours: 655360 bits, 80 KiB, in both buckets of the class and its parent
G2=$(gwconf 0.4.0 "$R2" '{"bandwidth":{"ingressRate":10000000,"ingressBurst":655360}}')
call "$CNI" ADD id-two "/run/netns/$C2" eth0 <<<"$G2"
rc=$?
checkx "ADD (0.4.0, ingress only, ingressBurst 655360 bits): exit 0, htb's burst and cburst 80Kb, no ifb" \
	'[ $rc -eq 0 ] && [ "$(ip netns exec $HOST tc class show dev $V2 | grep -c "rate 10Mbit ceil 10Mbit burst 80Kb cburst 80Kb")" = 2 ] &&
	[ "$(ifb_of | wc -l)" = 1 ]'
# someone else's: a tbf on the bridge, an ingress hook with a filter on the second veth
ip netns exec "$HOST" tc qdisc add dev cnibr0 root handle 77: tbf rate 100mbit burst 32k latency 50ms
ip netns exec "$HOST" tc qdisc add dev "$V2" ingress
ip netns exec "$HOST" tc filter add dev "$V2" parent ffff: prio 7 u32 match u32 0 0 action mirred egress mirror dev lo

# -- CHECK after tampering ----------------------------------------------------------------
ip netns exec "$HOST" tc class change dev "$V1" parent e000:1 classid e000:10 htb rate 5mbit ceil 5mbit
call "$CNI" CHECK id-one "/run/netns/$C1" eth0 <<<"$G1"
rc=$?
checkx "CHECK after a class was changed: exit non-zero, code 101 ($(jq -r .details "$OUT"))" \
	'[ $rc -ne 0 ] && [ "$(code)" = 101 ]'
# a runtime's retry: DEL, then ADD again, makes the tree afresh
call "$CNI" DEL id-one "/run/netns/$C1" eth0 <<<"$G1" && call "$CNI" ADD id-one "/run/netns/$C1" eth0 <<<"$G1" &&
	call "$CNI" CHECK id-one "/run/netns/$C1" eth0 <<<"$G1"
check "DEL, ADD again: CHECK passes" [ $? -eq 0 ]
ip netns exec "$HOST" tc qdisc del dev "$IFB1" root
call "$CNI" CHECK id-one "/run/netns/$C1" eth0 <<<"$G1"
rc=$?
checkx "CHECK after the ifb's tree was deleted names the ifb" '[ -n "$IFB1" ] && grep -q "on $IFB1" "$OUT"'
checkx "CHECK after the ifb's tree was deleted: code 101 ($(jq -r .details "$OUT"))" \
	'[ $rc -ne 0 ] && [ "$(code)" = 101 ]'

# -- DEL, DEL again -------------------------------------------------------------------------
call "$CNI" DEL id-one "/run/netns/$C1" eth0 <<<"$G1"
rc=$?
checkx "DEL: exit 0, nothing on stdout" '[ $rc -eq 0 ] && [ ! -s "$OUT" ]'
checkx "DEL: the first container's root, ingress hook and ifb are gone" \
	'! ip netns exec $HOST tc qdisc show dev $V1 | grep -qE "e000:|ingress" &&
		! ip -n $HOST link show $IFB1 >/dev/null 2>&1'
checkx "DEL: the foreign tbf on the bridge is still there" \
	'ip netns exec $HOST tc qdisc show dev cnibr0 | grep -q "tbf 77:"'
call "$CNI" CHECK id-two "/run/netns/$C2" eth0 <<<"$G2"
check "DEL: the second container's tree is untouched (its CHECK passes)" [ $? -eq 0 ]
call "$CNI" DEL id-one "/run/netns/$C1" eth0 <<<"$G1"
check "DEL again: exit 0" [ $? -eq 0 ]
call "$CNI" DEL id-one "" eth0 <<<'{"cniVersion":"1.0.0","name":"'$NET'","type":"gatewayd-cni"}'
check "DEL without CNI_NETNS or prevResult: exit 0" [ $? -eq 0 ]
: >"$TMPD/not-a-netns"
call "$CNI" DEL id-one "$TMPD/not-a-netns" eth0 <<<"$G1"
check "DEL with a CNI_NETNS that is no longer a namespace (unmounted): exit 0" [ $? -eq 0 ]
call "$CNI" ADD id-one "$TMPD/not-a-netns" eth0 <<<"$G1"
checkx "ADD with a CNI_NETNS that is not a namespace: code 4" '[ "$(code)" = 4 ]'
call "$CNI" ADD id-one "/run/netns/$RUN_ID-gone" eth0 <<<"$G1"
checkx "ADD with a CNI_NETNS that does not exist: code 3" '[ "$(code)" = 3 ]'
call "$CNI" DEL never-added "/run/netns/$C3" eth0 <<<'{"cniVersion":"1.0.0","name":"'$NET'","type":"gatewayd-cni"}'
check "DEL of a container never added: exit 0" [ $? -eq 0 ]
call "$CNI" DEL id-two "/run/netns/$C2" eth0 <<<"$G2"
rc=$?
checkx "DEL of the second: exit 0, its root gone, the foreign ingress hook and filter on $V2 stay" \
	'[ $rc -eq 0 ] && ! has_root $V2 && ip netns exec $HOST tc filter show dev $V2 ingress | grep -q mirred'

# -- the configuration lists in docs/: the plugin takes its entry in each ----------------
for f in "$TOP"/docs/cni/*.conflist; do
	conf=$(jq -c '(.plugins[] | select(.type == "gatewayd-cni")) + {name, cniVersion}' "$f")
	call "$CNI" DEL never-added "/run/netns/$C3" eth0 <<<"$conf"
	rc=$?
	checkx "docs/cni/${f##*/}: the plugin's entry is a valid config" '[ $rc -eq 0 ]'
done

# -- refusals: the error object, a non-zero exit, nothing applied ------------------------
bridge_add R3 id-three "$C3" || { not_ok "bridge ADD (third)" "$(cat "$OUT")"; exit 1; }
before=$(host_state)
refused() {	# NAME CODE CONF
	local name=$1 want=$2 rc
	call "$CNI" ADD id-three "/run/netns/$C3" eth0 <<<"$3"
	rc=$?
	checkx "$name: exit non-zero, code $want, nothing applied ($(jq -r '.msg + ": " + (.details // "")' "$OUT" 2>/dev/null))" \
		'[ $rc -ne 0 ] && [ "$(code)" = "$want" ] &&
		jq -e "(.cniVersion | type) == \"string\" and (.msg | type) == \"string\"" "$OUT" >/dev/null &&
		[ "$(host_state)" = "$before" ]'
}
G3=$(gwconf 1.0.0 "$R3" "$KUBELET")
refused "malformed JSON" 6 "${G3%?}"
refused "a rate out of range (ingressRate 5000 bits/s)" 7 \
	"$(gwconf 1.0.0 "$R3" '{"bandwidth":{"ingressRate":5000,"ingressBurst":100000}}')"
refused "egressRate over 100 Tbit/s" 7 \
	"$(gwconf 1.0.0 "$R3" '{"bandwidth":{"egressRate":200000000000000,"egressBurst":100000}}')"
refused "an unknown cniVersion (9.9.9)" 1 "$(gwconf 9.9.9 "$R3" "$KUBELET")"
refused "a misspelt key (ingresRate)" 2 "$(gwconf 1.0.0 "$R3" '{}' '{"ingresRate":1000000}')"
# someone else's root qdisc on the container's veth: refused, theirs kept, no ifb left behind
V3=$(host_veth "$R3")
ip netns exec "$HOST" tc qdisc add dev "$V3" root handle 55: tbf rate 50mbit burst 32k latency 40ms
before=$(host_state)
refused "a root qdisc on the veth that gatewayd did not make" 100 "$G3"
ip netns exec "$HOST" tc qdisc del dev "$V3" root
before=$(host_state)
# the default queue: fq_codel, which this kernel may lack: then refused and rolled back
if ip netns exec "$HOST" tc qdisc add dev lo root fq_codel 2>/dev/null; then
	ip netns exec "$HOST" tc qdisc del dev lo root
	QUEUE=null
	call "$CNI" ADD id-three "/run/netns/$C3" eth0 <<<"$(gwconf 1.0.0 "$R3" "$KUBELET")"
	rc=$?
	checkx "ADD with the default queue: fq_codel leaves" \
		'[ $rc -eq 0 ] && ip netns exec $HOST tc qdisc show | grep -q fq_codel'
else
	QUEUE=null
	refused "the default queue (fq_codel) on a kernel without it: the kernel's refusal" 100 \
		"$(gwconf 1.0.0 "$R3" "$KUBELET")"
fi

# -- with a daemon: registration over the control socket --------------------------------------
STATE=$TMPD/run/cni
cat >"$TMPD/gw.conf" <<EOF
unconfigured = true;
listen = "127.0.0.1:9180";
interval = "200ms";
control_socket = "$CTL";
EOF
# daemon_start: gatewayd in the host namespace, until its control socket is open
daemon_start() {
	GW_LOG=$TMPD/gatewayd.$RANDOM.log
	ip netns exec "$HOST" "$GATEWAYD" -c "$TMPD/gw.conf" >"$GW_LOG" 2>&1 &
	GW_PID=$!
	PIDS+=("$GW_PID")
	wait_for "grep -q 'control socket .*taking registrations' '$GW_LOG' || ! kill -0 $GW_PID 2>/dev/null" 8 \
		"gatewayd to open its control socket"
}
status() { ip netns exec "$HOST" curl -s --max-time 3 http://127.0.0.1:9180/api/status; }
metrics() { ip netns exec "$HOST" curl -s --max-time 3 http://127.0.0.1:9180/metrics; }
# cni_link VETH: the link object of a registered container in /api/status
cni_link() { status | jq -c --arg n "cni:$1" '.links[] | select(.name == $n)'; }
shown() { [ "$(cni_link "$1" | jq -r '.cni.container_id')" = "$2" ]; }
# sent VETH DIRECTION: bytes the direction's total counted
sent() { cni_link "$1" | jq -r --arg d "$2" '.directions[] | select(.direction == $d) | .total.sent_bytes'; }
state_of() { find "$STATE" -maxdepth 1 -type f ! -name '*.*' 2>/dev/null | wc -l; }
ifbs() { ip -n "$HOST" -o link show type ifb | awk -F': ' '{ print $2 }' | sort; }
# ctl MSG [nobody]: one message to the control socket, the reply line printed
ctl() {
	ip netns exec "$HOST" ${2:+setpriv --reuid=65534 --regid=65534 --clear-groups} \
		/usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(3)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print("connect: " + e.strerror)
    sys.exit(0)
try:
    s.sendall(sys.argv[2].encode())
except OSError:
    pass	# refused before it read: the reply is there all the same
print(s.recv(600).decode().strip())' "$CTL" "$1"
}
daemon_start
check "gatewayd opens its control socket, mode 0600" [ "$(stat -c %a "$CTL" 2>/dev/null)" = 600 ]
ns_new C4 c4 && ns_new C5 c5 || exit 1
bridge_add R4 id-four "$C4" || { not_ok "bridge ADD (fourth)" "$(cat "$OUT")"; exit 1; }
bridge_add R5 id-five "$C5" || { not_ok "bridge ADD (fifth)" "$(cat "$OUT")"; exit 1; }
V4=$(host_veth "$R4")
V5=$(host_veth "$R5")
QUEUE='{"kind":"fifo","limit":100}'
G4=$(gwconf 1.0.0 "$R4" "$KUBELET")
G5=$(gwconf 1.0.0 "$R5" "$KUBELET")
lines=$(wc -l <"$TMPD/stderr")
call "$CNI" ADD id-four "/run/netns/$C4" eth0 <<<"$G4"
rc=$?
checkx "ADD with a daemon: exit 0, prevResult passed on, no warning" \
	'[ $rc -eq 0 ] && [ "$(jq -S . "$OUT")" = "$(jq -S . <<<"$R4")" ] && [ "$(wc -l <"$TMPD/stderr")" = "$lines" ]'
checkx "ADD registers: gatewayd logged it, its state file is there" \
	'grep -q "cni container id-four .*registered, $V4 shaped" "$GW_LOG" && [ "$(state_of)" = 1 ]'
wait_for "shown $V4 id-four" 5 "cni:$V4 in /api/status"
checkx "/api/status: link cni:$V4 with container id-four, its netns, network and eth0" \
	'cni_link $V4 | jq -e --arg ns "/run/netns/$C4" --arg net "$NET" --arg v "$V4" ".cni == {container_id: \"id-four\", netns: \$ns, network: \$net, ifname: \"eth0\"} and .interface == \$v and (.directions | length) == 2" >/dev/null'
checkx "/metrics: gatewayd_cni_container_info for cni:$V4 with container_id id-four" \
	'metrics | grep -qF "gatewayd_cni_container_info{link=\"cni:$V4\",container_id=\"id-four\",netns=\"/run/netns/$C4\",network=\"$NET\",interface=\"$V4\",ifname=\"eth0\"} 1"'
ip4=$(jq -r '.ips[0].address | split("/")[0]' <<<"$R4")
in0=$(sent "$V4" egress)
out0=$(sent "$V4" ingress)
ip netns exec "$HOST" ping -q -c 40 -i 0.01 -s 1200 "$ip4" >/dev/null 2>&1
# 40 echoes of 1242 bytes on the wire into it through the host veth, 40 replies out of it
# through the ifb
counted() { [ $(($(sent "$V4" egress) - in0)) -ge 48000 ] && [ $(($(sent "$V4" ingress) - out0)) -ge 48000 ]; }
wait_for counted 5 "the pings counted both ways"
checkx "traffic through it is counted both ways (egress +$(($(sent "$V4" egress) - in0)), ingress +$(($(sent "$V4" ingress) - out0)) bytes)" counted
checkx "/metrics: the class series carry link cni:$V4" \
	'metrics | grep -q "^gatewayd_direction_sent_bytes_total{link=\"cni:$V4\",direction=\"egress\""'
# healed: someone changes its class; gatewayd makes the tree again
ip netns exec "$HOST" tc class change dev "$V4" parent e000:1 classid e000:10 htb rate 5mbit ceil 5mbit
healed() { ip netns exec "$HOST" tc class show dev "$V4" | grep -q "e000:10 .* rate 20Mbit ceil 20Mbit"; }
wait_for healed 5 "the class on $V4 back at 20Mbit"
checkx "a changed class is made again by gatewayd (logged), and CHECK passes" \
	'healed && grep -q "cni container id-four on $V4: .*made again" "$GW_LOG" &&
	call "$CNI" CHECK id-four "/run/netns/$C4" eth0 <<<"$G4"'
call "$CNI" DEL id-four "/run/netns/$C4" eth0 <<<"$G4"
rc=$?
wait_for "! shown $V4 id-four" 5 "cni:$V4 gone from /api/status"
checkx "DEL unregisters: exit 0, logged, gone from /api/status and /metrics, no state file" \
	'[ $rc -eq 0 ] && grep -q "cni container id-four .*unregistered" "$GW_LOG" && ! shown $V4 id-four &&
	! metrics | grep -q "cni:$V4" && [ "$(state_of)" = 0 ]'

# -- adoption: a daemon started after ADD ------------------------------------------------------
gw_stop
check "gatewayd stops; its socket file goes with it" [ ! -e "$CTL" ]
lines=$(wc -l <"$TMPD/stderr")
call "$CNI" ADD id-four "/run/netns/$C4" eth0 <<<"$G4" && call "$CNI" ADD id-five "/run/netns/$C5" eth0 <<<"$G5"
rc=$?
checkx "ADD with no daemon: exit 0, shaped, no warning, two state files" \
	'[ $rc -eq 0 ] && has_root $V4 && has_root $V5 && [ "$(wc -l <"$TMPD/stderr")" = "$lines" ] && [ "$(state_of)" = 2 ]'
# a bad state file is logged and left alone
echo garbage >"$STATE/0123456789abcdef"
daemon_start
wait_for "shown $V4 id-four && shown $V5 id-five" 5 "both adopted containers in /api/status"
checkx "a daemon started after ADD adopts both (logged, shown with their ids)" \
	'grep -q "cni: adopted 2 containers" "$GW_LOG" && shown $V4 id-four && shown $V5 id-five'
checkx "a bad state file is logged and left alone" \
	'grep -q "cni state file .*/0123456789abcdef: .*ignored" "$GW_LOG" && [ -e "$STATE/0123456789abcdef" ]'
rm -f "$STATE/0123456789abcdef"

# -- a host veth gone without DEL (the runtime crashed) ---------------------------------------
before5=$(tree "$HOST" "$V5")
ifbs_before=$(ifbs)
ip -n "$HOST" link del "$V4"
gone() { [ "$(ifbs | wc -l)" = $(($(wc -l <<<"$ifbs_before") - 1)) ] && [ "$(state_of)" = 1 ]; }
wait_for gone 5 "the fourth's ifb and state file removed"
gone_ifb=$(comm -23 <(echo "$ifbs_before") <(ifbs))
# /api/status shows the removal from the next sampling pass on: up to a second later
four_gone() {
	gone && grep -q "cni container id-four: host end $V4 gone without a DEL; removed its ifb $gone_ifb" "$GW_LOG" &&
		! shown "$V4" id-four
}
checkx "its ifb ($gone_ifb) and state file are removed by gatewayd (logged), and it leaves /api/status" \
	'wait_for four_gone 3 "the log line and /api/status without it"'
checkx "nothing else touched: the fifth's tree, registration and ifb, the foreign tbf" \
	'[ "$(tree "$HOST" "$V5")" = "$before5" ] && shown $V5 id-five &&
	[ "$(comm -13 <(echo "$ifbs_before") <(ifbs))" = "" ] &&
	ip netns exec $HOST tc qdisc show dev cnibr0 | grep -q "tbf 77:"'

# -- the control socket's refusals ----------------------------------------------------------
unreg=$'gatewayd-control 1\nop unregister\nid nobody-s\nnetwork '$NET$'\nifname eth0\n\n'
checkx "a non-root peer cannot open the 0600 socket" \
	'[ "$(ctl "$unreg" nobody)" = "connect: Permission denied" ]'
chmod 0711 "$TMPD" "$TMPD/run"
chmod 0666 "$CTL"
got=$(ctl "$unreg" nobody)
checkx "a non-root peer on a socket open to all is refused by its credentials (SO_PEERCRED): $got" \
	'grep -q "^error permission denied: only root" <<<"$got"'
chmod 0600 "$CTL"
chmod 0700 "$TMPD" "$TMPD/run"
checkx "a message that is not one: refused" \
	'ctl $'"'"'hello\n\n'"'"' | grep -q "^error not a gatewayd control message"'
checkx "another protocol version: refused" \
	'ctl "${unreg/control 1/control 3}" | grep -q "^error protocol version 3 is not spoken here"'
checkx "unregister of a container never registered: refused" \
	'ctl "$unreg" | grep -q "^error not registered: container nobody-s"'
checkx "an unknown key: refused" \
	'ctl "${unreg/ifname eth0/ifname eth0$'"'"'\n'"'"'colour blue}" | grep -q "^error line 6: unknown key \"colour\""'
checkx "a message longer than 8 KiB: refused" \
	'ctl "$(printf "gatewayd-control 1\n%09000d" 0)" | grep -q "^error message too long"'
reg=$(sed 's/^ifb gwn-.*/ifb gwn-00000000000/' "$STATE"/*)
checkx "a registration naming an ifb not its own: refused" \
	'ctl "$reg"$'"'"'\n\n'"'"' | grep -q "^error ifb: egress is limited, so it must be gwn-"'
# the plugin's own bounds on a config hold for a registration too (gw_ctr_limit_check)
reg=$(sed 's/^ingress_rate .*/ingress_rate 1/' "$STATE"/*)
got=$(ctl "$reg"$'\n\n')
checkx "a registration of 1 B/s: refused, with the bounds ($got)" \
	'grep -q "^error ingress_rate 1 bytes/s: out of range: 0 for none, or 1000 to 12500000000000 bytes/s" <<<"$got"'
reg=$(sed 's/^ingress_burst .*/ingress_burst 4294967295/' "$STATE"/*)
checkx "a registration with a 4 GiB burst: refused" \
	'ctl "$reg"$'"'"'\n\n'"'"' | grep -q "^error ingress_burst 4294967295 bytes: out of range"'
checkx "gatewayd still running after the refusals, the fifth still shown" \
	'kill -0 $GW_PID && shown $V5 id-five'
call "$CNI" DEL id-five "/run/netns/$C5" eth0 <<<"$G5"
rc=$?
checkx "DEL of the fifth: unregistered, its tree, ifb and state file gone" \
	'[ $rc -eq 0 ] && ! has_root $V5 && [ "$(ifb_of | wc -l)" = 0 ] && [ "$(state_of)" = 0 ] &&
	grep -q "cni container id-five .*unregistered" "$GW_LOG"'
gw_stop

# -- a daemon that answers an error: the container stays shaped, ADD succeeds -----------------
# (a stand-in on the socket that refuses the registration, then says the unregistration is
# of a container it does not know, as a daemon does after a refusal)
ip netns exec "$HOST" /usr/bin/python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(2)
for answer in ("error no thanks", "error not registered: container id-five"):
    c, _ = s.accept()
    c.recv(9000)
    c.sendall((answer + "\n").encode())
    c.close()
os.unlink(sys.argv[1])' "$CTL" &
PIDS+=("$!")
wait_for "[ -S '$CTL' ]" 5 "the stand-in's socket"
lines=$(wc -l <"$TMPD/stderr")
call "$CNI" ADD id-five "/run/netns/$C5" eth0 <<<"$G5"
rc=$?
checkx "a daemon's refusal: ADD exits 0 with its result, shaped, one line on stderr with the daemon's words" \
	'[ $rc -eq 0 ] && [ "$(jq -S . "$OUT")" = "$(jq -S . <<<"$R5")" ] && has_root $V5 &&
	[ "$(wc -l <"$TMPD/stderr")" = $((lines + 1)) ] && tail -1 "$TMPD/stderr" | grep -q "no thanks"'
call "$CNI" DEL id-five "/run/netns/$C5" eth0 <<<"$G5"
rc=$?
checkx "... and its DEL: exit 0, nothing left, no more lines on stderr" \
	'[ $rc -eq 0 ] && ! has_root $V5 && [ "$(ifb_of | wc -l)" = 0 ] && [ "$(state_of)" = 0 ] &&
	[ "$(wc -l <"$TMPD/stderr")" = $((lines + 1)) ]'

# -- unshapedSubnets, shapedSubnets: a class at the limit, one not limited, u32 on the remote
# end's address (the source into the container, the destination out of it) ------------------
# the host has a second address on the bridge, .250, beside the bridge's own .1; in IPv6 the
# bridge is fd00:15::1 and the container fd00:15::2
ns_new C6 c6 || exit 1
bridge_add R6 id-six "$C6" || { not_ok "bridge ADD (sixth)" "$(cat "$OUT")"; exit 1; }
V6=$(host_veth "$R6")
ip6c=$(jq -r '.ips[0].address | split("/")[0]' <<<"$R6")
NEAR=${SUBNET%.0/24}.1
FAR=${SUBNET%.0/24}.250
ip -n "$HOST" addr add "$FAR/32" dev cnibr0
ip -n "$HOST" addr add fd00:15::1/64 dev cnibr0 nodad
ip -n "$C6" addr add fd00:15::2/64 dev eth0 nodad
SLOW=2000000	# bits/s each way
QUEUE='{"kind":"fifo","limit":20}'	# 120 ms at 2 Mbit/s: iperf3's own messages wait less
# subconf KEY LIST: 2 Mbit/s each way, with unshapedSubnets or shapedSubnets
subconf() {
	gwconf 1.0.0 "$R6" '{"bandwidth":{"ingressRate":'$SLOW',"ingressBurst":2147483647,
		"egressRate":'$SLOW',"egressBurst":2147483647,"'$1'":'$2'}}'
}
SUBS='["'$FAR'/32","fd00:15::/64"]'
ip netns exec "$C6" timeout 60 iperf3 -s -p 5202 >/dev/null 2>&1 &
PIDS+=("$!")
wait_listening "$C6" 5202
# kbits FROM TO ARGS...: kbit/s received over TCP from the host's address FROM to the
# container's TO (-R: the other way); "-t 1" where the limit is expected, "-n 2M" where it is
# not (a few ms unlimited, 8 s if it were limited after all)
kbits() {
	ip netns exec "$HOST" timeout 12 iperf3 -c "$2" -B "$1" -p 5202 -J "${@:3}" \
		>"$TMPD/iperf6.json" 2>&1
	jq -r '.end.sum_received.bits_per_second / 1000 | floor' "$TMPD/iperf6.json" 2>/dev/null
}
fast() { [ "${1:-0}" -ge $((SLOW / 200)) ]; }		# five times the limit, at least
slow() { [ "${1:-0}" -gt 0 ] && [ "${1:-0}" -le $((SLOW * 3 / 2000)) ]; }	# at most 1.5 times
filters() { ip netns exec "$HOST" tc filter show dev "$1" parent e000: 2>/dev/null; }
GU=$(subconf unshapedSubnets "$SUBS")
call "$CNI" ADD id-six "/run/netns/$C6" eth0 <<<"$GU"
rc=$?
IFB6=$(ifb_of)
checkx "ADD with unshapedSubnets ($FAR/32, fd00:15::/64): e000:10 at 2Mbit (default), e000:11 unlimited" \
	'[ $rc -eq 0 ] && ip netns exec $HOST tc qdisc show dev $V6 | grep -q "htb e000: .*default 0x10" &&
	ip netns exec $HOST tc class show dev $V6 | grep -q "e000:10 .* rate 2Mbit ceil 2Mbit" &&
	ip netns exec $HOST tc class show dev $V6 | grep -q "e000:11 .* rate 100Gbit ceil 100Gbit"'
checkx "ADD: u32 filters to e000:11, IPv4 and IPv6, on $V6 and on ifb $IFB6" \
	'for d in $V6 $IFB6; do filters $d | grep -q "protocol ip .*flowid e000:11" &&
		filters $d | grep -q "protocol ipv6 .*flowid e000:11" || exit 1; done'
call "$CNI" CHECK id-six "/run/netns/$C6" eth0 <<<"$GU"
check "CHECK with unshapedSubnets: exit 0" [ $? -eq 0 ]
if [ "${CNI_RATE:-1}" = 1 ]; then
	# (what is limited is measured for 1 s with a 32 KB window, so that iperf3's end does
	# not wait for a send buffer to drain at 2 Mbit/s; what is not, for 2 MB)
	in_far=$(kbits "$FAR" "$ip6c" -n 2M) out_far=$(kbits "$FAR" "$ip6c" -n 2M -R)
	in6=$(kbits fd00:15::1 fd00:15::2 -n 2M) in_near=$(kbits "$NEAR" "$ip6c" -t 1 -w 32K)
	echo "# unshapedSubnets, kbit/s: into the container from $FAR $in_far, from $NEAR $in_near; out of it to $FAR $out_far; IPv6 in $in6"
	checkx "unshaped: from and to $FAR well above 2 Mbit/s ($in_far, $out_far kbit/s), IPv6 too ($in6)" \
		'fast $in_far && fast $out_far && fast $in6'
	checkx "unshaped: from $NEAR, not listed, at 2 Mbit/s ($in_near kbit/s)" 'slow $in_near'
fi
ip netns exec "$HOST" tc filter del dev "$IFB6" parent e000:
call "$CNI" CHECK id-six "/run/netns/$C6" eth0 <<<"$GU"
rc=$?
checkx "CHECK after the ifb's filters were deleted: code 101, the filter named ($(jq -r .details "$OUT"))" \
	'[ $rc -ne 0 ] && [ "$(code)" = 101 ] && grep -q "classifier on $IFB6" "$OUT"'
call "$CNI" DEL id-six "/run/netns/$C6" eth0 <<<"$GU"
rc=$?
checkx "DEL: the root with its filters and the ifb are gone" \
	'[ $rc -eq 0 ] && ! has_root $V6 && [ -z "$(filters $V6)" ] && [ "$(ifb_of | wc -l)" = 0 ]'

daemon_start
GS=$(subconf shapedSubnets "$SUBS")
call "$CNI" ADD id-six "/run/netns/$C6" eth0 <<<"$GS"
rc=$?
checkx "ADD with shapedSubnets, a daemon running: e000:11 the default, registered (the daemon read the filters back)" \
	'[ $rc -eq 0 ] && ip netns exec $HOST tc qdisc show dev $V6 | grep -q "htb e000: .*default 0x11" &&
	filters $V6 | grep -q "flowid e000:10" && grep -q "cni container id-six .*registered, $V6 shaped" "$GW_LOG"'
wait_for "shown $V6 id-six" 5 "cni:$V6 in /api/status"
checkx "/api/status: cni:$V6 has the classes shaped and unshaped each way" \
	'[ "$(cni_link $V6 | jq -c "[.directions[] | [.classes[].name] | sort]")" = "[[\"shaped\",\"unshaped\"],[\"shaped\",\"unshaped\"]]" ]'
if [ "${CNI_RATE:-1}" = 1 ]; then
	in_far=$(kbits "$FAR" "$ip6c" -t 1 -w 32K) out_far=$(kbits "$FAR" "$ip6c" -t 1 -w 32K -R)
	in_near=$(kbits "$NEAR" "$ip6c" -n 2M)
	echo "# shapedSubnets, kbit/s: into the container from $FAR $in_far, from $NEAR $in_near; out of it to $FAR $out_far"
	checkx "shaped: from and to $FAR at 2 Mbit/s ($in_far, $out_far kbit/s)" \
		'slow $in_far && slow $out_far'
	checkx "shaped: from $NEAR, not listed, well above it ($in_near kbit/s)" 'fast $in_near'
fi
ip netns exec "$HOST" tc filter del dev "$V6" parent e000:
wait_for "filters $V6 | grep -q 'flowid e000:10'" 5 "the filters on $V6 made again"
checkx "filters deleted on $V6: made again by gatewayd (logged), CHECK passes" \
	'grep -q "cni container id-six on $V6: .*classifier.*made again" "$GW_LOG" &&
	call "$CNI" CHECK id-six "/run/netns/$C6" eth0 <<<"$GS"'
call "$CNI" DEL id-six "/run/netns/$C6" eth0 <<<"$GS"
rc=$?
checkx "DEL: unregistered, nothing left (root, filters, ifb, state file)" \
	'[ $rc -eq 0 ] && ! has_root $V6 && [ -z "$(filters $V6)" ] && [ "$(ifb_of | wc -l)" = 0 ] &&
	[ "$(state_of)" = 0 ] && grep -q "cni container id-six .*unregistered" "$GW_LOG"'
gw_stop
before=$(host_state)
refused "a bad subnet in unshapedSubnets" 7 \
	"$(gwconf 1.0.0 "$R3" '{"bandwidth":{"ingressRate":2000000,"unshapedSubnets":["10.0.0.0/8","10.1.2.300/24"]}}')"
refused "unshapedSubnets and shapedSubnets both" 7 \
	"$(gwconf 1.0.0 "$R3" '{"bandwidth":{"ingressRate":2000000,"unshapedSubnets":["10.0.0.0/8"],"shapedSubnets":["fd00::/8"]}}')"
echo "# $(wc -l <"$TMPD/stderr") lines on the plugins' stderr"
