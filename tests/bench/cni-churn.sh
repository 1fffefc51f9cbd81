#!/usr/bin/env bash
# tests/bench/cni-churn.sh: 100 containers created at once, as a runtime does when a node
# starts its pods: per container, Debian's bridge + host-local, then the rate plugin chained
# after it (20 Mbit/s each way), all N chains started together. Timed: each rate plugin's ADD
# alone (from its start to its exit), gatewayd-cni against the reference bandwidth plugin, in
# the same run, on fresh namespaces each; checked: every container's tree is in the kernel when
# its ADD has returned, and N DELs (also all at once) leave no qdisc, filter or ifb behind.
# The host kernel has no fq_codel: gatewayd-cni's queue is fifo here (the tree is the same
# size), and it tells no daemon (controlSocket ""). Prints a markdown table of p50, p99 and
# max; exits 1 when an ADD or DEL failed or something was left.
# env: CNI_N (100), BANDWIDTH (the reference plugin, /usr/lib/cni/bandwidth), GATEWAYD_CNI
. "$(dirname "$0")/lib.bash"
bench_preflight jq

N=${CNI_N:-100}
CNI=${GATEWAYD_CNI:-$(dirname "$GATEWAYD")/gatewayd-cni}
PLUGINS=/usr/lib/cni
[ -x "$CNI" ] || die "no $CNI (make all)"
for p in bridge host-local bandwidth; do [ -x "$PLUGINS/$p" ] || die "no $PLUGINS/$p (make deps)"; done
RC='{"bandwidth":{"ingressRate":20000000,"ingressBurst":262144,"egressRate":20000000,"egressBurst":262144}}'

# call HOSTNS PLUGIN CMD ID NETNS < CONF > OUT: as a runtime calls a plugin
call() {
	ip netns exec "$1" env -i PATH="$PATH" CNI_COMMAND="$3" CNI_CONTAINERID="$4" \
		CNI_NETNS="/run/netns/$5" CNI_IFNAME=eth0 CNI_PATH="$PLUGINS" "$2"
}
# chain HOSTNS TYPE BINARY I: one container's ADD chain; its rate plugin's ADD time (ms) in
# $TMPD/TYPE.I.ms, its config in $TMPD/TYPE.I.conf
chain() {
	local h=$1 t=$2 bin=$3 i=$4 c=$RUN_ID-$2-$4 bridge prev conf s e out
	bridge='{"cniVersion":"1.0.0","name":"churn","type":"bridge","bridge":"brchurn","isGateway":true,
		"ipam":{"type":"host-local","subnet":"10.81.0.0/16","dataDir":"'$TMPD/ipam-$t'"}}'
	echo "$bridge" >"$TMPD/bridge.conf"
	prev=$(call "$h" "$PLUGINS/bridge" ADD "id$i" "$c" <<<"$bridge") || { echo "bridge $i: $prev" >&2; return 1; }
	conf=$(jq -cn --arg t "$t" --argjson prev "$prev" --argjson rc "$RC" \
		'{cniVersion:"1.0.0", name:"churn", type:$t, capabilities:{bandwidth:true},
		  runtimeConfig:$rc, prevResult:$prev} + (if $t == "gatewayd-cni" then {queue:{kind:"fifo"}, controlSocket:""} else {} end)')
	echo "$conf" >"$TMPD/$t.$i.conf"
	s=$EPOCHREALTIME
	call "$h" "$bin" ADD "id$i" "$c" <<<"$conf" >"$TMPD/$t.$i.out" || { echo "$t ADD $i: $(cat "$TMPD/$t.$i.out")" >&2; return 1; }
	e=$EPOCHREALTIME
	# in force when ADD returned: the host veth's root is the plugin's (tc's dump is read
	# again when the kernel says it was interrupted: the other 99 are changing the namespace)
	local veth try
	veth=$(jq -r '[.interfaces[] | select(.sandbox == null and (.name | startswith("veth")))][0].name' <<<"$prev")
	for try in 1 2 3 4 5; do
		out=$(ip netns exec "$h" tc qdisc show dev "$veth" root 2>&1)
		[[ $out == *"Dump was interrupted"* ]] || break
	done
	grep -Eq "qdisc (htb|tbf)" <<<"$out" || { echo "$t $i: no tree when ADD returned: $out" >&2; return 1; }
	awk -v a="$s" -v b="$e" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }' >"$TMPD/$t.$i.ms"
}
unchain() {
	local h=$1 t=$2 bin=$3 i=$4 c=$RUN_ID-$2-$4
	# a runtime's DEL runs the chain backwards: the rate plugin, then the bridge
	call "$h" "$bin" DEL "id$i" "$c" <"$TMPD/$t.$i.conf" >/dev/null || { echo "$t DEL $i failed" >&2; return 1; }
	call "$h" "$PLUGINS/bridge" DEL "id$i" "$c" <"$TMPD/bridge.conf" >/dev/null || { echo "bridge DEL $i failed" >&2; return 1; }
}
pct() { sort -g | awk -v q="$1" '{ v[NR] = $1 } END { i = int(q * NR + 0.999); if (i < 1) i = 1; print v[i] }'; }

fails=0
rows=()
for t in bandwidth gatewayd-cni; do
	bin=${BANDWIDTH:-$PLUGINS/bandwidth}
	[ $t = gatewayd-cni ] && bin=$CNI
	ns_new H "h-$t" || die "namespace"
	for i in $(seq 1 "$N"); do ns_new C "$t-$i" || die "namespace $t-$i"; done
	s=$EPOCHREALTIME
	pids=()
	for i in $(seq 1 "$N"); do chain "$H" $t "$bin" "$i" & pids+=($!); done
	bad=0
	for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
	wall=$(elapsed "$s" "$EPOCHREALTIME")
	[ $bad -eq 0 ] || { log "$t: $bad of $N ADD chains failed"; fails=$((fails + 1)); }
	ms=$(cat "$TMPD/$t".*.ms)
	pids=()
	for i in $(seq 1 "$N"); do unchain "$H" $t "$bin" "$i" & pids+=($!); done
	for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
	# the bridge stays (the bridge plugin's DEL leaves it, as it does for a runtime)
	left=$(ip netns exec "$H" tc qdisc show | grep -v "dev br" | grep -Ev "^qdisc noqueue 0: dev lo" ; ip -n "$H" -o link show type ifb;
		ip netns exec "$H" tc filter show dev brchurn 2>/dev/null)
	[ -z "$left" ] || { log "$t: left after $N DELs: $left"; fails=$((fails + 1)); }
	rows+=("| $t | $N | $(pct 0.5 <<<"$ms") | $(pct 0.99 <<<"$ms") | $(pct 1 <<<"$ms") | $wall | $([ -z "$left" ] && echo nothing || echo "**objects**") |")
done
echo "| rate plugin | containers at once | ADD p50 (ms) | ADD p99 (ms) | ADD max (ms) | all $N chains (s) | left after $N DELs |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
[ $fails -eq 0 ]
