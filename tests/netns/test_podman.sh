#!/usr/bin/env bash
# tests/netns/test_podman.sh: gatewayd-cni under a real runtime: Debian's podman with its CNI
# backend runs a container on a network whose list is Debian's bridge + host-local, then
# gatewayd-cni (8 Mbit/s into the container, 4 Mbit/s out of it: different, so a swapped
# direction shows). podman runs in a namespace of its own (its bridge and the plugins' objects
# live there) with its storage, state and config in the test's scratch directory; the
# container's root is a local directory with the host's /usr mounted read-only in it (nothing
# is pulled). Checked: the tree podman's ADD made (htb on the host veth, the ifb), the rates
# measured with iperf3 both ways through it, and that podman's removal of the container (its
# DEL) leaves no qdisc, filter or ifb. CNI_RATE=0 leaves out the measurement (the sanitizer
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

ns_new H host || exit 1
NET=$RUN_ID
BR=br$RUN_ID
SUBNET=10.$((RANDOM % 200 + 20)).$((RANDOM % 250)).0/24
mkdir -p "$TMPD"/{cni,root,run,tmp,rootfs/usr} &&
	(cd "$TMPD/rootfs" && mkdir proc sys dev tmp etc run var &&
		ln -s usr/bin bin && ln -s usr/lib lib && ln -s usr/lib64 lib64 && ln -s usr/sbin sbin) ||
	{ not_ok "podman: the container's root" "mkdir"; exit 1; }
# The machine's cgroups are hybrid (v1 controllers), which crun refuses: runc. podman's
# default NOFILE and NPROC limits are above what root may set where it lacks CAP_SYS_RESOURCE
# (some sandboxes): lower ones.
cat >"$TMPD/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=1024:$(ulimit -Hn)", "nproc=4096:4096"]
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$TMPD/events.log"
runtime = "runc"
tmp_dir = "$TMPD/tmp"
[network]
network_backend = "cni"
network_config_dir = "$TMPD/cni"
cni_plugin_dirs = ["$CNIDIR", "$PLUGINS"]
default_network = "$NET"
EOF
cat >"$TMPD/storage.conf" <<EOF
[storage]
driver = "vfs"
graphroot = "$TMPD/root"
runroot = "$TMPD/run"
EOF
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
export CONTAINERS_CONF=$TMPD/containers.conf CONTAINERS_STORAGE_CONF=$TMPD/storage.conf
# podman in the test's namespace: nsenter, not `ip netns exec`, which mounts a sysfs of its own
# where runc finds no cgroups
pm() { nsenter --net="/run/netns/$H" podman "$@"; }
CTR=$RUN_ID-c
cleanup_podman() {
	local m
	pm rm -f -t 0 "$CTR" >/dev/null 2>&1
	# the scratch directory goes with rm -rf: never while anything (/usr) is mounted under it
	for m in $(awk -v d="$TMPD" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
		umount -l "$m"
	done
	if awk -v d="$TMPD" 'index($2, d) == 1 { f = 1 } END { exit !f }' /proc/mounts; then
		echo "# mounts left under $TMPD: not removed"
		TMPD=/nonexistent
	fi
	cleanup
}
trap cleanup_podman EXIT

id=$(pm run -d --name "$CTR" --network "$NET" -v /usr:/usr:ro --rootfs "$TMPD/rootfs" \
	iperf3 -s 2>"$TMPD/run.err")
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
fi

pm rm -f -t 0 "$CTR" >/dev/null 2>"$TMPD/rm.err"
rc=$?
check "podman rm: exit 0 (its DEL ran)" [ $rc -eq 0 ]
left=$(ip netns exec "$H" tc qdisc show | grep -Ev "^qdisc noqueue 0: dev (lo|$BR) root"
	ip -n "$H" -o link show type ifb; ip -n "$H" -o link show type veth)
check "after podman rm: no qdisc, ifb or veth left in podman's namespace" test -z "$left"
[ -z "$left" ] || echo "# left: $left"
