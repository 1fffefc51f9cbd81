#!/bin/bash
# tests/uml/guest/cni-side.sh: guest side of tests/uml/test_cni_side.sh and of the bench
# tests/bench/cni-side.sh. The reference CNI bandwidth plugin and gatewayd-cni side by side, in
# one run, at the same rates: two containers on one bridge (Debian's bridge + host-local, then
# each plugin chained after it, called as a runtime calls it), 4 TCP flows into each and out of
# each in turn (iperf3), pinged from the host throughout. Prints each figure; checks that the
# goodputs are within 5% of each other and that gatewayd's induced latency (ping p95 under load
# less the idle median) is at least 5x lower, each way; a figure that misses has every figure
# measured once more, and the second try judged (a miss with the guest's CPU saturated is
# skipped, with its figures). Arguments: the gatewayd binary,
# seconds per direction (default 5), and "table" to print a bench table at the end.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$UML_LIB" || exit 1
uml_guest_begin "$1" no-topology
SECS=${2:-5}
TABLE=${3:-}
CNI=$(dirname "$GW")/gatewayd-cni
PLUGINS=/usr/lib/cni
RATE=20000000			# bits/s each way
BURST=262144			# bits: 32 KiB, for both plugins
H=cnih				# the host's namespace (the bridge, the plugins' objects)
for p in bridge host-local bandwidth; do
	[ -x "$PLUGINS/$p" ] || { not_ok "CNI plugins" "no $PLUGINS/$p (containernetworking-plugins)"; exit 1; }
done
ip -b - <<EOF || { not_ok "namespaces" "ip netns add failed"; exit 1; }
netns add $H
netns add cref
netns add cgw
EOF
ip -n $H link set lo up
NET=side
BRIDGE='{"cniVersion":"1.0.0","name":"'$NET'","type":"bridge","bridge":"cnibr0",
	"isGateway":true,"ipam":{"type":"host-local","subnet":"10.77.0.0/24","dataDir":"'$T'/ipam"}}'
RC='{"bandwidth":{"ingressRate":'$RATE',"ingressBurst":'$BURST',"egressRate":'$RATE',"egressBurst":'$BURST'}}'

# call PLUGIN CMD ID NETNS < CONF: as a runtime calls a plugin; stdout into $T/out. The
# guest's GLIBC_TUNABLES and GODEBUG stay (no AVX where it keeps x87+SSE only: tests/uml/README.md)
call() {
	ip netns exec $H env -i PATH="$PATH" ${GLIBC_TUNABLES:+GLIBC_TUNABLES="$GLIBC_TUNABLES"} \
		${GODEBUG:+GODEBUG="$GODEBUG"} CNI_COMMAND="$2" CNI_CONTAINERID="$3" \
		CNI_NETNS="/run/netns/$4" CNI_IFNAME=eth0 CNI_PATH="$PLUGINS" "$1" >"$T/out" 2>>"$T/err"
}
# add ID NETNS TYPE BINARY: bridge, then TYPE chained after it with the same runtimeConfig;
# sets IP. gatewayd-cni tells no daemon and writes no state file (the guest's /run is the
# host's, through hostfs)
add() {
	local prev conf
	call "$PLUGINS/bridge" ADD "$1" "$2" <<<"$BRIDGE" || { echo "# bridge: $(cat "$T/out")"; return 1; }
	prev=$(cat "$T/out")
	IP=$(jq -r '.ips[0].address | split("/")[0]' <<<"$prev")
	conf=$(jq -cn --arg n "$NET" --arg t "$3" --argjson prev "$prev" --argjson rc "$RC" \
		'{cniVersion:"1.0.0", name:$n, type:$t, capabilities:{bandwidth:true},
		  runtimeConfig:$rc, prevResult:$prev}
		 + (if $t == "gatewayd-cni" then {controlSocket:""} else {} end)')
	call "$4" ADD "$1" "$2" <<<"$conf" ||
		{ echo "# $3: $(cat "$T/out") $(tail -3 "$T/err")"; return 1; }
	echo "$conf" >"$T/conf-$1"
}
del() {
	call "$1" DEL "$2" "$3" <"$T/conf-$2"
	call "$PLUGINS/bridge" DEL "$2" "$3" <<<"$BRIDGE"
}
add id-ref cref bandwidth "$PLUGINS/bandwidth" || { not_ok "reference bandwidth plugin ADD" "see above"; exit 1; }
IPREF=$IP
add id-gw cgw gatewayd-cni "$CNI" || { not_ok "gatewayd-cni ADD" "see above"; exit 1; }
IPGW=$IP
ok "both containers up: reference plugin at $IPREF, gatewayd-cni at $IPGW"
echo "# host objects: $(ip netns exec $H tc qdisc show | awk '{ print $2, $5 }' | sort | uniq -c | tr '\n' ';')"

# p95 and median of the RTTs in a ping output (ms)
rtts() { sed -n 's/.* time=\([0-9.]*\) ms/\1/p' "$1" | sort -n; }
pct() { rtts "$1" | awk -v q="$2" '{ v[NR] = $1 } END { if (!NR) exit 1; i = int(q * NR + 0.999); if (i < 1) i = 1; print v[i] }'; }

# load NS IP DIR: SECS of 4 TCP flows, DIR "in" (host -> container) or "out" (-R), pinged from
# the host every 0.1 s; sets GP (Mbit/s received) and P95 (ms)
load() {
	local ns=$1 ip=$2 r=() srv
	[ "$3" = out ] && r=(-R)
	timeout $((SECS + 15)) ip netns exec "$ns" iperf3 -s -1 -B "$ip" >/dev/null 2>&1 &
	srv=$!
	uml_wait_listening "$ns" 5201
	ip netns exec $H timeout $((SECS + 12)) iperf3 -c "$ip" -t $((SECS + 1)) -O 1 -P 4 -J "${r[@]}" \
		>"$T/iperf.json" 2>&1 &
	local cl=$!
	sleep 1.5	# past TCP's start: the ramp is not the queue's steady state
	ip netns exec $H ping -n -i 0.1 -w $((SECS - 1)) "$ip" >"$T/ping-load" 2>&1
	wait $cl
	wait $srv 2>/dev/null
	GP=$(jq -r '.end.sum_received.bits_per_second / 1e6 | . * 100 | round / 100' "$T/iperf.json" 2>/dev/null)
	P95=$(pct "$T/ping-load" 0.95)
	CPU=$(uml_cpu_busy "$c0" "$(uml_cpu_stat)")
}
# measure: every figure, both plugins, both ways
measure() {
	local who dir ns ip idle ind
	MAXCPU=0
	for who in ref gw; do
		ns=c$who
		ip=IP${who^^}
		ip netns exec $H ping -n -c 20 -i 0.05 "${!ip}" >"$T/ping-idle" 2>&1
		idle=$(pct "$T/ping-idle" 0.5)
		declare -g "IDLE_$who=$idle"
		for dir in in out; do
			c0=$(uml_cpu_stat)
			load $ns "${!ip}" $dir
			ind=$(awk -v p="$P95" -v i="$idle" 'BEGIN { if (p == "") exit 1; d = p - i; printf "%.2f", d < 0.01 ? 0.01 : d }')
			declare -g "GP_${who}_$dir=$GP" "IND_${who}_$dir=$ind" "P95_${who}_$dir=$P95"
			[ "${CPU:-0}" -gt "$MAXCPU" ] && MAXCPU=${CPU:-0}
			echo "# $who $dir: ${GP:-?} Mbit/s, ping p95 ${P95:-?} ms, idle median $idle ms, induced ${ind:-?} ms (guest CPU ${CPU}% busy)"
		done
	done
}
within5() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > 0 && b > 0 && (a - b) / b <= 0.05 && (b - a) / b <= 0.05) }'; }
at_rate() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= 17 && a <= 20 && b >= 17 && b <= 20) }'; }
lower5x() { awk -v g="$1" -v r="$2" 'BEGIN { exit !(g > 0 && r >= 5 * g) }'; }
# all_met: every figure within its bound (quietly)
all_met() {
	local dir gr gg ir ig
	for dir in in out; do
		gr=GP_ref_$dir gg=GP_gw_$dir ir=IND_ref_$dir ig=IND_gw_$dir
		within5 "${!gg}" "${!gr}" && at_rate "${!gg}" "${!gr}" && lower5x "${!ig}" "${!ir}" || return 1
	done
}
measure
# a figure that misses is measured once more, as the comparison bench's are (the guest's one
# CPU is a host process, and a busy host takes from it): the second try is judged
if ! all_met; then
	echo "# a figure missed its bound: every figure measured once more, and that try judged"
	measure
fi
# judge NAME TEST...: a check; one that misses while the guest's CPU was saturated (90% busy or
# more in a load of the judged try: its one CPU is a host process, and the load then measures
# the CPU, not the queues) is skipped with its figures instead
judge() {
	local name=$1
	shift
	if "$@"; then
		ok "$name"
	elif [ "$MAXCPU" -ge 90 ]; then
		skip "$name" "the guest's CPU was saturated ($MAXCPU% busy): not judged"
	else
		not_ok "$name" "failed: $*"
	fi
}
name() { [ "$1" = ref ] && echo "reference bandwidth (tbf)" || echo "gatewayd-cni (htb + fq_codel)"; }
for dir in in out; do
	gr=GP_ref_$dir gg=GP_gw_$dir ir=IND_ref_$dir ig=IND_gw_$dir
	w=$([ $dir = in ] && echo "into the containers" || echo "out of the containers")
	judge "goodput $w: gatewayd-cni ${!gg} vs reference ${!gr} Mbit/s, within 5%" \
		within5 "${!gg}" "${!gr}"
	judge "goodput $w: both at 85-100% of the 20 Mbit/s rate" at_rate "${!gg}" "${!gr}"
	judge "induced latency $w: gatewayd-cni ${!ig} ms vs reference ${!ir} ms, at least 5x lower" \
		lower5x "${!ig}" "${!ir}"
done
if [ "$TABLE" = table ]; then
	echo "# | plugin | goodput in (Mbit/s) | goodput out | induced p95 in (ms) | induced p95 out | idle (ms) |"
	echo "# |---|---|---|---|---|---|"
	for who in ref gw; do
		a=GP_${who}_in b=GP_${who}_out c=IND_${who}_in d=IND_${who}_out e=IDLE_$who
		echo "# | $(name $who) | ${!a} | ${!b} | ${!c} | ${!d} | ${!e} |"
	done
fi

# DEL: each plugin removes its own, and nothing is left
del "$PLUGINS/bandwidth" id-ref cref
del "$CNI" id-gw cgw
left=$(ip netns exec $H tc qdisc show | grep -Ev "qdisc noqueue|qdisc noop" ; ip -n $H -o link show type ifb)
check_detail "after both DELs: no qdisc or ifb left in the host namespace" "$left" test -z "$left"
ip netns del cref
ip netns del cgw
ip netns del $H
tap_status
