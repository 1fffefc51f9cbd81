#!/usr/bin/env bash
# tests/netns/test_podman.sh: gatewayd-cni under a real runtime: Debian's podman with its CNI
# backend runs a container on a network whose list is Debian's bridge + host-local, then
# gatewayd-cni (8 Mbit/s into the container, 4 Mbit/s out of it: different, so a swapped
# direction shows). podman runs in a namespace of its own (its bridge and the plugins' objects
# live there) with its storage, state and config in the test's scratch directory; the
# container's root is a local directory with the host's /usr mounted read-only in it (nothing
# is pulled). A gatewayd daemon runs beside it, taking the plugin's registrations. Checked: the
# tree podman's ADD made (htb on the host veth, the ifb), the container on the daemon's
# /api/status and /metrics by podman's id, the rates measured with iperf3 both ways through
# it, and that podman's removal of the container (its DEL) leaves no qdisc, filter or ifb and
# takes it off the daemon's page. CNI_RATE=0 leaves out the measurement (the sanitizer
# lane).
set -u
LIB_RUN_PREFIX=pm
. "$(dirname "$0")/lib.sh"
PLUGINS=${CNI_PLUGINS:-/usr/lib/cni}
CNIDIR=$(cd "$(dirname "$GATEWAYD")" && pwd)

if [ "$(id -u)" -ne 0 ]; then
	skip "podman" "needs root (namespaces)"
	exit 0
fi
for t in podman runc jq iperf3 nsenter; do
	command -v $t >/dev/null || { not_ok "podman: $t is there" "make deps installs it"; exit 1; }
done
for p in bridge host-local; do
	[ -x "$PLUGINS/$p" ] || { not_ok "podman: $PLUGINS/$p is there" "make deps installs containernetworking-plugins"; exit 1; }
done
[ -x "$CNIDIR/gatewayd-cni" ] || { not_ok "the plugin is built" "no $CNIDIR/gatewayd-cni"; exit 1; }

. "$(dirname "$0")/podman.sh"
NET=$RUN_ID
BR=br$RUN_ID
SUBNET=10.$((RANDOM % 200 + 20)).$((RANDOM % 250)).0/24
podman_setup H "$NET" "$CNIDIR" "$PLUGINS" || { not_ok "podman: its namespace and config" "setup failed"; exit 1; }
# fifo: the host kernel has no fq_codel (gatewayd-cni's default queue); the state file the
# plugin keeps for a daemon goes under the scratch directory, not the host's /run/gatewayd
cat >"$TMPD/cni/$NET.conflist" <<EOF
{ "cniVersion": "1.0.0", "name": "$NET", "plugins": [
  { "type": "bridge", "bridge": "$BR", "isGateway": true,
    "ipam": { "type": "host-local", "subnet": "$SUBNET", "dataDir": "$TMPD/ipam" } },
  { "type": "gatewayd-cni", "queue": { "kind": "fifo" },
    "ingressRate": 8000000, "egressRate": 4000000,
    "controlSocket": "$TMPD/gw/control.sock" } ] }
EOF
CTR=$RUN_ID-c

# the daemon on podman's host namespace, taking registrations on the socket the list names
mkdir -p "$TMPD/gw"
cat >"$TMPD/gw.conf" <<EOF
unconfigured = true;
listen = "127.0.0.1:9180";
interval = "200ms";
control_socket = "$TMPD/gw/control.sock";
EOF
ip netns exec "$H" "$GATEWAYD" -c "$TMPD/gw.conf" >"$TMPD/gatewayd.log" 2>&1 &
GW_PID=$!
PIDS+=("$GW_PID")
wait_for "grep -q 'control socket .*taking registrations' '$TMPD/gatewayd.log' || ! kill -0 $GW_PID 2>/dev/null" 8 \
	"gatewayd to open its control socket" || { not_ok "gatewayd starts" "$(cat "$TMPD/gatewayd.log")"; exit 1; }
status() { ip netns exec "$H" curl -s --max-time 3 http://127.0.0.1:9180/api/status; }
# cni_of ID: the link object of the registered container with that id
cni_of() { status | jq -c --arg id "$1" '.links[] | select(.cni.container_id == $id)'; }

id=$(pm_run "$CTR" "$NET" iperf3 -s 2>"$TMPD/run.err")
rc=$?
check "podman run: exit 0 (a container on bridge + host-local + gatewayd-cni)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || { echo "# $(tail -5 "$TMPD/run.err")"; exit 1; }
ip=$(pm inspect -f '{{.NetworkSettings.Networks.'"$NET"'.IPAddress}}' "$CTR" 2>/dev/null)
[ -n "$ip" ] || ip=$(pm inspect "$CTR" | jq -r '.[0].NetworkSettings.Networks[].IPAddress')
veth=$(ip -n "$H" -o link show master "$BR" type veth | awk -F'[ @:]+' '{ print $2 }' | head -1)
ifb=$(ip -n "$H" -o link show type ifb | awk -F'[ @:]+' '{ print $2 }' | grep '^gwn-' | head -1)
echo "# container ${id:0:12} at $ip, host veth $veth, ifb $ifb"
check "the tree podman's ADD made: htb 8Mbit into the container on its host veth $veth" \
	bash -c "ip netns exec $H tc class show dev '$veth' | grep -q 'e000:10 .* rate 8Mbit ceil 8Mbit'"
check "and 4Mbit out of it through ifb $ifb (gatewayd:cni: mark), redirected from $veth" \
	bash -c "ip -n $H -d link show '$ifb' | grep -q 'alias gatewayd:cni:' &&
		ip netns exec $H tc class show dev '$ifb' | grep -q 'rate 4Mbit ceil 4Mbit' &&
		ip netns exec $H tc filter show dev '$veth' ingress | grep -q 'Redirect to device $ifb'"

wait_for '[ -n "$(cni_of "$id")" ]' 5 "the container in the daemon's /api/status"
link=$(cni_of "$id")
check "the daemon shows podman's container by its id, as link cni:$veth, its netns, eth0" \
	test "$(jq -r '.name + " " + .cni.ifname + " " + (.cni.netns | startswith("/run/netns/") | tostring)' <<<"$link")" = "cni:$veth eth0 true"
ip netns exec "$H" curl -s --max-time 3 http://127.0.0.1:9180/metrics >"$TMPD/metrics"
check "and in /metrics: gatewayd_cni_container_info with its container_id" \
	grep -qF "container_id=\"$id\"" "$TMPD/metrics"

if [ "${CNI_RATE:-1}" != 0 ]; then
	wait_for "ip netns exec $H bash -c 'exec 3<>/dev/tcp/$ip/5201' 2>/dev/null" 5 "iperf3 in the container" ||
		not_ok "iperf3 listens in the container" "not within 5 s"
	# goodput through htb with 1500-byte packets: about 95% of the rate
	for dir in in out; do
		rate=8 r=()
		[ $dir = out ] && rate=4 r=(-R)
		ip netns exec "$H" timeout 15 iperf3 -c "$ip" -t 4 -O 1 -J "${r[@]}" >"$TMPD/iperf.json" 2>&1
		mbit=$(jq -r '.end.sum_received.bits_per_second / 1e6 | . * 100 | round / 100' "$TMPD/iperf.json" 2>/dev/null)
		w=$([ $dir = in ] && echo "into the container" || echo "out of the container")
		check "TCP $w: $mbit Mbit/s, 85-100% of its $rate Mbit/s" \
			awk -v v="${mbit:-0}" -v r=$rate 'BEGIN { exit !(v >= 0.85 * r && v <= r) }'
	done
	# 4+1 s at 8 Mbit/s into the container and at 4 out of it: at least 2 and 1 MB counted
	sleep 0.5	# the next pass
	sent() { cni_of "$id" | jq -r --arg d "$1" '.directions[] | select(.direction == $d) | .total.sent_bytes'; }
	eg=$(sent egress) in=$(sent ingress)
	check "the daemon counted the traffic: $eg bytes into the container, $in out of it" \
		awk -v e="${eg:-0}" -v i="${in:-0}" 'BEGIN { exit !(e >= 2e6 && i >= 1e6) }'
fi

pm rm -f -t 0 "$CTR" >/dev/null 2>"$TMPD/rm.err"
rc=$?
check "podman rm: exit 0 (its DEL ran)" [ $rc -eq 0 ]
left=$(ip netns exec "$H" tc qdisc show | grep -Ev "^qdisc noqueue 0: dev (lo|$BR) root"
	ip -n "$H" -o link show type ifb; ip -n "$H" -o link show type veth)
check "after podman rm: no qdisc, ifb or veth left in podman's namespace" test -z "$left"
wait_for '[ -z "$(cni_of "$id")" ]' 5 "the container gone from /api/status"
check "podman rm: the daemon no longer shows the container" test -z "$(cni_of "$id")"
[ -z "$left" ] || echo "# left: $left"
