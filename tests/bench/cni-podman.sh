#!/usr/bin/env bash
# tests/bench/cni-podman.sh: 100 containers started at once by a real runtime: Debian's podman
# with its CNI backend runs N `podman run -d` together on a network of bridge + host-local +
# the rate plugin (20 Mbit/s each way), then removes them all together. Three ways, one after
# the other, each in a fresh namespace: the reference bandwidth plugin, gatewayd-cni by itself
# (controlSocket ""), and gatewayd-cni registering each container with a gatewayd daemon
# running beside podman. Each rate plugin's ADD is timed alone, from its start to its exit, by
# a wrapper podman calls in its place; the wrapper also checks that the container's tree is in
# the kernel when its ADD has returned. After the N removals: no qdisc, filter or ifb left,
# and the daemon shows none of them. The host kernel has no fq_codel: gatewayd-cni's queue is
# fifo here. Prints a markdown table; exits 1 when a run, an ADD or a DEL failed or something
# was left. env: CNI_N (100), BANDWIDTH (/usr/lib/cni/bandwidth), GATEWAYD_CNI
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/../netns/podman.sh"
bench_preflight jq podman runc nsenter

N=${CNI_N:-100}
CNI=${GATEWAYD_CNI:-$(dirname "$GATEWAYD")/gatewayd-cni}
PLUGINS=/usr/lib/cni
BANDWIDTH=${BANDWIDTH:-$PLUGINS/bandwidth}
[ -x "$CNI" ] || die "no $CNI (make all)"
for p in bridge host-local; do [ -x "$PLUGINS/$p" ] || die "no $PLUGINS/$p (make deps)"; done
[ -x "$BANDWIDTH" ] || die "no $BANDWIDTH (make deps)"
# the wrappers come first on podman's plugin path; they call the real plugin by its own path
mkdir -p "$TMPD/wrap" || die "mkdir"
podman_setup H churn "$TMPD/wrap" "$PLUGINS" || die "podman's namespace and config"

# wrap TYPE REAL: $TMPD/wrap/TYPE runs REAL with podman's stdin and environment; for an ADD it
# writes "START END STATUS VETH TREE" to $TMPD/add.log (TREE: the veth's root qdisc kind, or
# "none", looked at after END)
wrap() {
	cat >"$TMPD/wrap/$1" <<-WRAP
		#!/bin/bash
		in=\$(cat)
		s=\$EPOCHREALTIME
		out=\$(printf '%s' "\$in" | "$2" "\$@")
		rc=\$?
		e=\$EPOCHREALTIME
		if [ "\$CNI_COMMAND" = ADD ]; then
			veth=\$(jq -r '[.interfaces[]? | select(.sandbox == null and (.name | startswith("veth")))][0].name' <<<"\$out" 2>/dev/null)
			tree=\$(tc qdisc show dev "\$veth" root 2>/dev/null | awk '{ print \$2; exit }')
			echo "\$s \$e \$rc \$veth \${tree:-none}" >>"$TMPD/add.log"
		fi
		printf '%s' "\$out"
		exit \$rc
	WRAP
	chmod +x "$TMPD/wrap/$1"
}
wrap bandwidth "$BANDWIDTH"
wrap gatewayd-cni "$CNI"
pct() { sort -g | awk -v q="$1" '{ v[NR] = $1 } END { i = int(q * NR + 0.999); if (i < 1) i = 1; print v[i] }'; }

# one WAY: the conflist for it, N containers at once, then N removals at once
fails=0 rows=()
one() {
	local way=$1 type=gatewayd-cni extra bad=0 s wall_run wall_rm ms left shown=0 i pids=()
	case $way in
	bandwidth) type=bandwidth extra='' ;;
	gatewayd-cni) extra='"queue": { "kind": "fifo" }, "controlSocket": "",' ;;
	*) extra='"queue": { "kind": "fifo" }, "controlSocket": "'$TMPD/gw/control.sock'",' ;;
	esac
	cat >"$TMPD/cni/churn.conflist" <<-LIST
		{ "cniVersion": "1.0.0", "name": "churn", "plugins": [
		  { "type": "bridge", "bridge": "brchurn", "isGateway": true,
		    "ipam": { "type": "host-local", "subnet": "10.82.0.0/16", "dataDir": "$TMPD/ipam" } },
		  { "type": "$type", $extra
		    "ingressRate": 20000000, "ingressBurst": 262144,
		    "egressRate": 20000000, "egressBurst": 262144 } ] }
	LIST
	: >"$TMPD/add.log"
	s=$EPOCHREALTIME
	for i in $(seq 1 "$N"); do
		pm_run "c$i" churn sleep 600 >/dev/null 2>"$TMPD/run.$i.err" & pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || bad=$((bad + 1)); done
	wall_run=$(elapsed "$s" "$EPOCHREALTIME")
	[ $bad -eq 0 ] || { log "$way: $bad of $N podman runs failed: $(cat "$TMPD"/run.*.err | sort | uniq -c | head -3)"; fails=$((fails + 1)); }
	ms=$(awk '$3 == 0 { printf "%.1f\n", ($2 - $1) * 1000 }' "$TMPD/add.log")
	i=$(awk '$3 != 0 || $5 !~ /^(htb|tbf)$/' "$TMPD/add.log" | wc -l)
	[ "$i" -eq 0 ] || { log "$way: $i ADDs failed or returned before the tree was in"; fails=$((fails + 1)); }
	[ "$(wc -l <"$TMPD/add.log")" -eq "$N" ] || { log "$way: $(wc -l <"$TMPD/add.log") ADDs of $N"; fails=$((fails + 1)); }
	if [ "$way" = daemon ]; then
		wait_for "[ \"\$(ip netns exec $H curl -s -m 3 http://127.0.0.1:9180/api/status | jq '[.links[] | select(.cni)] | length')\" = $N ]" 20 \
			"the daemon to show the $N containers" && shown=$N
	fi
	s=$EPOCHREALTIME
	pids=()
	for i in $(seq 1 "$N"); do pm rm -f -t 0 "c$i" >/dev/null 2>&1 & pids+=($!); done
	for i in "${pids[@]}"; do wait "$i" || bad=$((bad + 1)); done
	wall_rm=$(elapsed "$s" "$EPOCHREALTIME")
	# the bridge stays (the bridge plugin's DEL leaves it, as it does for a runtime)
	left=$(ip netns exec "$H" tc qdisc show | grep -v "dev brchurn" | grep -Ev "^qdisc noqueue 0: dev lo"
		ip -n "$H" -o link show type ifb; ip -n "$H" -o link show type veth
		ip netns exec "$H" tc filter show dev brchurn 2>/dev/null)
	[ -z "$left" ] || { log "$way: left after $N removals: $left"; fails=$((fails + 1)); }
	if [ "$way" = daemon ]; then
		wait_for "[ \"\$(ip netns exec $H curl -s -m 3 http://127.0.0.1:9180/api/status | jq '[.links[] | select(.cni)] | length')\" = 0 ]" 20 \
			"the daemon to show none" || { log "daemon: still shows containers after the removals"; fails=$((fails + 1)); }
	fi
	rows+=("| $way | $N | $(pct 0.5 <<<"$ms") | $(pct 0.99 <<<"$ms") | $(pct 1 <<<"$ms") | $wall_run | $wall_rm | $([ "$way" = daemon ] && echo "$shown of $N" || echo -) | $([ -z "$left" ] && echo nothing || echo "**objects**") |")
	log "$way: done ($wall_run s to start $N, $wall_rm s to remove them)"
}

one bandwidth
one gatewayd-cni
mkdir -p "$TMPD/gw"
cat >"$TMPD/gw.conf" <<EOF
unconfigured = true;
listen = "127.0.0.1:9180";
control_socket = "$TMPD/gw/control.sock";
EOF
daemon_start GW_PID "$H" "$TMPD/gw.conf" "$TMPD/gatewayd.log"
wait_log "$GW_PID" "$TMPD/gatewayd.log" "taking registrations" 10 || die "gatewayd: $(cat "$TMPD/gatewayd.log")"
one daemon
echo "| rate plugin (podman $(podman --version | awk '{ print $3 }')) | containers at once | ADD p50 (ms) | ADD p99 (ms) | ADD max (ms) | $N podman runs (s) | $N removals (s) | on the daemon's page | left after |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
[ $fails -eq 0 ]
