#!/usr/bin/env bash
# tests/bench/containers.sh: how long a container's veth goes unshaped. gatewayd follows
# `containers` entries in a host namespace; N containers (namespaces, each with a veth pair
# whose host end appears in the host namespace) are created after it started, first one at a
# time (a pause between them), then all N in one burst. Each delay is taken from the kernel's
# own notifications (`ip -ts monitor link`, `tc -ts monitor`, microsecond timestamps): from the
# first RTM_NEWLINK of the veth to the RTM_NEWQDISC of the last object of its tree (the leaf
# under the ifb's class: egress is in force before it). Prints a markdown table of p50, p99
# and max; exits 1 if a container was not shaped at all.
# env: CTR_N (100), CTR_GAP (0.1 s between the one-at-a-time containers)
. "$(dirname "$0")/lib.bash"
bench_preflight

N=${CTR_N:-100}
GAP=${CTR_GAP:-0.1}
ns_new H h || die "namespace"
cat >"$TMPD/c.conf" <<CONF
listen = "127.0.0.1:9180";
containers = ( { interfaces = "vb*"; netns = "$RUN_ID-*";
    egress = { rate = "10mbit"; ceil = "20mbit"; child = { kind = "fifo"; }; };
    ingress = { rate = "10mbit"; child = { kind = "fifo"; }; }; } );
CONF
ip netns exec "$H" "$GATEWAYD" -c "$TMPD/c.conf" >"$TMPD/gw.log" 2>&1 &
GW=$!
PIDS+=("$GW")
wait_log "$GW" "$TMPD/gw.log" "following containers" 5 || die "gatewayd did not start: $(cat "$TMPD/gw.log")"
monitors_start "$H" "$TMPD/link.mon" "$TMPD/tc.mon" || die "the kernel's notifications are not monitored"

# delays PREFIX N: one line per container: ms from its veth's first notification to the leaf
# under its ifb's class ("" when never shaped)
delays() {
	local prefix=$1 n=$2 i idx
	for i in $(seq 1 "$n"); do
		idx=$(ip -n "$H" -j link show dev "$prefix$i" 2>/dev/null | jq -r '.[0].ifindex')
		awk -v name="$prefix$i" -v ifb="gwc-$idx" '
			function ts(s) { split(substr(s, 13, 15), t, ":"); return t[1] * 3600 + t[2] * 60 + t[3] }
			FILENAME ~ /link/ && !a && index($0, " " name "@") { a = ts($1) }
			FILENAME ~ /tc/ && index($0, "dev " ifb " parent e000:10") && !/\] deleted/ { q = ts($1) }
			END { if (a && q) printf "%.1f\n", (q - a) * 1000; else print "" }' \
			"$TMPD/link.mon" "$TMPD/tc.mon"
	done
}
# stats: p50 p99 max count of the numbers on stdin
stats() {
	sort -g | awk 'NF { v[++n] = $1 }
		END { if (!n) { print "- - - 0"; exit }
		      i = int(n * 0.99 + 0.999); printf "%.1f %.1f %.1f %d\n", v[int((n + 1) / 2)], v[i], v[n], n }'
}
make_ns() {	# make_ns TAG N: namespaces $RUN_ID-TAG1..N in one batch
	local i
	# recorded here, not in the pipe below: its loop is a subshell whose additions are lost
	for i in $(seq 1 "$2"); do NAMESPACES+=("$RUN_ID-$1$i"); done
	for i in $(seq 1 "$2"); do echo "netns add $RUN_ID-$1$i"; done | ip -b -
}

# one at a time: each veth made from inside its container (its host end appears in H at once)
make_ns s "$N" || die "namespaces"
for i in $(seq 1 "$N"); do
	ip -n "$RUN_ID-s$i" link add eth0 type veth peer name vbs$i netns "$H" || die "veth $i"
	sleep "$GAP"
done
sleep 2
delays vbs "$N" >"$TMPD/one.txt"
# a burst: N veths in one ip batch from the host side
make_ns b "$N" || die "namespaces"
for i in $(seq 1 "$N"); do echo "link add vbb$i type veth peer name eth0 netns $RUN_ID-b$i"; done |
	ip -n "$H" -b - || die "burst"
for _ in $(seq 100); do
	[ "$(tc -n "$H" qdisc show 2>/dev/null | grep -c 'pfifo 1000: dev gwc-')" -ge $((2 * N)) ] && break
	sleep 0.1
done
sleep 1
delays vbb "$N" >"$TMPD/burst.txt"
read -r o50 o99 omax on < <(stats <"$TMPD/one.txt")
read -r b50 b99 bmax bn < <(stats <"$TMPD/burst.txt")
applied=$(grep -o 'shaped (.*) in [0-9.]* ms' "$TMPD/gw.log" | awk '{ print $(NF - 1) }' | stats)

kill -TERM "$GW"
wait "$GW"
rc=$?
left=$(ip -n "$H" -br link | grep -c '^gwc-')

echo "Containers appearing after gatewayd started ($N each way; delay from the veth's first link"
echo "notification to the last object of its tree, egress and ingress, in the kernel)."
echo
echo "| containers | shaped | p50 | p99 | max |"
echo "|---|---:|---:|---:|---:|"
echo "| one at a time (${GAP} s apart) | $on of $N | $o50 ms | $o99 ms | $omax ms |"
echo "| $N at once (one ip batch) | $bn of $N | $b50 ms | $b99 ms | $bmax ms |"
echo
set -- $applied
echo "gatewayd's own apply + read-back per container (its log): p50 $1 ms, p99 $2 ms, max $3 ms"
echo "over $4 containers. Exit on SIGTERM: $rc; ifbs left: $left."
[ "$on" -eq "$N" ] && [ "$bn" -eq "$N" ] && [ "$rc" -eq 0 ] && [ "$left" -eq 0 ]
