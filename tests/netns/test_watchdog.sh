#!/usr/bin/env bash
# systemd's watchdog through a long reload and a long heal (issue 13, item 8): gatewayd runs a
# tree of WD_CLASSES htb classes under a stand-in notify socket with WATCHDOG_USEC, as systemd
# starts it; a reload that changes every class's rate, then a heal that rebuilds the whole tree
# (its root deleted), each hold the loop far longer than the keep-alive period. The WATCHDOG=1
# datagrams the socket got are never further apart than half of WATCHDOG_USEC (what a unit
# with WatchdogSec= twice that can lose and still not kill the daemon), with WD_SLACK for the
# scheduling of a loaded machine.
# Measured here: 8,000 classes, a heal of 2.5 to 6 s; before the loop fed the watchdog from
# inside such operations the longest gap was 2.9 s. WD_CLASSES=20000 WD_USEC=10000000 (the
# unit's WatchdogSec=10s) by hand: heals of 28 to 64 s (as loaded as the machine was), longest
# gap 3.3 s.
# env: WD_CLASSES (8000), WD_USEC (1000000), WD_SLACK (0.1 s)
LIB_RUN_PREFIX=wdog
. "$(dirname "$0")/../systemd/lib.sh"

N=${WD_CLASSES:-8000}
WD_USEC=${WD_USEC:-1000000}
SLACK=${WD_SLACK:-0.1}
HALF=$(awk -v u="$WD_USEC" 'BEGIN { print u / 2e6 }')

ns_new NS w || { not_ok "namespace"; exit 1; }
ip netns exec "$NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip -n "$NS" link add v0 type veth peer name v1 && ip -n "$NS" link set v0 up &&
	ip -n "$NS" link set v1 up || { not_ok "veth"; exit 1; }

# conf FILE RATE: N classes of RATE under 10 gbit, fifo leaves
conf() {
	{
		echo 'links = ( { name = "wan"; interface = "v0";'
		echo '  egress = { shaper = "htb"; rate = "10gbit"; classes = ('
		for ((i = 0; i < N; i++)); do # no subshells: a fork costs ~10 ms on a busy machine
			def='' sep=,
			((i == 0)) && def=' default = true;'
			((i == N - 1)) && sep=''
			printf '    { name = "c%d"; rate = "%s"; ceil = "10gbit";%s child = { kind = "fifo"; }; }%s\n' \
				"$i" "$2" "$def" "$sep"
		done
		echo '  ); }; } );'
	} >"$1"
}
conf "$TMPD/gw.conf" 500kbit
conf "$TMPD/next.conf" 400kbit

listener_start
NOTIFY_SOCKET=$NL_SOCK WATCHDOG_USEC=$WD_USEC bash -c 'export WATCHDOG_PID=$$; exec "$@"' gw \
	ip netns exec "$NS" "$GATEWAYD" -c "$TMPD/gw.conf" >"$TMPD/gw.log" 2>&1 &
GW_PID=$!
PIDS+=("$GW_PID")
GW_LOG=$TMPD/gw.log
if ! wait_for "nl_has READY=1 || ! kill -0 $GW_PID 2>/dev/null" 120 "READY=1"; then
	not_ok "gatewayd starts with $N classes" "$(tail -3 "$GW_LOG")"
	exit 1
fi
nl_has READY=1 || { not_ok "gatewayd starts with $N classes" "$(tail -3 "$GW_LOG")"; exit 1; }
ok "gatewayd starts with $N classes: $(grep -o 'applied and verified.*' "$GW_LOG")"
wait_for '[ "$(nl_count WATCHDOG=1)" -ge 2 ]' 5 "WATCHDOG=1 after READY=1"

# the longest gap between two WATCHDOG=1 from A seconds after READY=1 on, and where it began,
# by when the daemon sent them (the kernel's stamps), not when the listener got to read them
gaps() {
	jq -rs --argjson a "$1" '
		def has($x): any(.msg | split("\n")[]; . == $x);
		([.[] | select(has("READY=1"))][0].sent) as $t0
		| [.[] | select(has("WATCHDOG=1") and .sent >= $t0 + $a) | .sent] as $w
		| [range(1; $w | length) | [$w[.] - $w[. - 1], $w[. - 1] - $t0]] | max_by(.[0])
		| "\(.[0] * 1000 | round / 1000) \(.[1] * 10 | round / 10)"' "$NL_LOG"
}
within() { awk -v g="$1" -v h="$HALF" -v s="$SLACK" 'BEGIN { exit !(g <= h + s) }'; }

# a reload that changes every class (htb change requests for all of them)
cp "$TMPD/next.conf" "$TMPD/gw.conf"
t0=$EPOCHREALTIME
check "SIGHUP: every class's rate changed" gw_reload 120
t_reload=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
grep -q "reloaded $TMPD/gw.conf" "$GW_LOG" || not_ok "the reload applied" "$(tail -2 "$GW_LOG")"
# a heal that rebuilds the whole tree
n_heal=$(grep -c "restored the tree" "$GW_LOG")
t0=$EPOCHREALTIME
tc -n "$NS" qdisc del dev v0 root
check "root deleted: the tree is restored" \
	wait_for "[ \$(grep -c 'restored the tree' '$GW_LOG') -gt $n_heal ]" 120 "the heal"
t_heal=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
echo "# reload took ${t_reload} s, heal ${t_heal} s: $(grep -o 'restored the tree in.*' "$GW_LOG" | tail -1)"
# one more keep-alive period after them, so a gap that ends late is seen
n=$(nl_count WATCHDOG=1)
wait_for "[ \$(nl_count WATCHDOG=1) -ge $((n + 3)) ]" "$(awk -v h="$HALF" 'BEGIN { print 4 * h + 2 }')" \
	"WATCHDOG=1 after the heal"

read -r gap at < <(gaps 0.5)
echo "# the listener read a datagram at most $(jq -s 'map(.t - .sent) | max * 1000 | round / 1000' "$NL_LOG") s after it was sent"
check "WATCHDOG=1 never more than ${HALF} s (+${SLACK} s) apart through the reload and the heal (longest: ${gap} s, from ${at} s after READY=1)" \
	within "$gap"
check "gatewayd still runs" kill -0 "$GW_PID"
