# tests/bench/probe-precision.bash: probe_precision, the RTT-precision run of tests/bench/probe.sh,
# sourced by the host bench and by its UML guest (tests/uml/guest/bench-probe.sh).
# shellcheck shell=bash

# probe_precision DIR N GATEWAYD NS TARGET: gatewayd --probe ICMP and UDP, ping and irtt from
# namespace NS to TARGET, all four at once, every 20 ms, N probes each; their outputs in DIR
# (gw-icmp, gw-udp, ping, irtt.json: what probe-table.bash reads). A `gatewayd --reflect` on
# TARGET's UDP port 2112 and an irtt server on 2113 must be up.
probe_precision() {
	local dir=$1 n=$2 gw=$3 ns=$4 tgt=$5 m p=()
	# both configs first: the four start within a few ms of each other
	for m in icmp udp; do
		cat >"$dir/$m.conf" <<-CONF
		links = ( { name = "up"; interface = "c0"; egress = { shaper = "tbf"; rate = "1gbit"; }; } );
		probe = { method = "$m"; targets = [ "$tgt" ]; interval = "20ms"; timeout = "1s"; };
		CONF
	done
	for m in icmp udp; do
		ip netns exec "$ns" "$gw" -c "$dir/$m.conf" --probe "$n" >"$dir/gw-$m" 2>&1 &
		p+=($!)
	done
	ip netns exec "$ns" ping -n -c "$n" -i 0.02 -W 2 "$tgt" >"$dir/ping" 2>&1 &
	p+=($!)
	ip netns exec "$ns" timeout 120 irtt client -Q -i 20ms -d "$(awk -v n="$n" 'BEGIN { printf "%.2f", n * 0.02 }')s" \
		-o "$dir/irtt.json" "$tgt:2113" >/dev/null 2>&1 &
	p+=($!)
	wait "${p[@]}"
}
