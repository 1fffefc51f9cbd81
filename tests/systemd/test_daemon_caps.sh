#!/usr/bin/env bash
# The daemon's own sets under a unit that gives it more than it keeps: systemd starts it as
# its user with CAP_NET_ADMIN and CAP_NET_RAW and, for the web process's launcher, CAP_SETUID,
# CAP_SETGID and CAP_KILL, all ambient (gatewayd(8) PRIVILEGES); once the launcher is forked
# the daemon cuts its permitted, effective, inheritable and ambient sets to the first two
# (gw_become_daemon_user; the bounding set stays the unit's: it has no CAP_SETPCAP to cut
# it) and does its job as before. A unit whose filter refuses capset: it stops, saying so, and leaves
# nothing behind. A variant of the shipped unit, in the sandbox sandbox.sh rebuilds. Root.
. "$(dirname "$0")/lib.sh"

for tool in systemd-analyze python3 jq setpriv unshare findmnt curl; do
	command -v "$tool" >/dev/null || { skip "unit sandbox" "$tool is not installed"; exit 0; }
done
if ! /usr/bin/python3 -c 'import ctypes; ctypes.CDLL("libseccomp.so.2")' 2>/dev/null; then
	skip "unit sandbox" "needs /usr/bin/python3 and libseccomp.so.2"
	exit 0
fi

# the daemon's own user where there is one (as the unit's User=), else a uid nothing uses
SB_UID=$GW_UID
[ "$SB_UID" = 0 ] && SB_UID=$((61184 + $$ % 4000))
bench_new dcaps || { not_ok "bench namespace"; exit 1; }
SB=$TMPD/sb
mkdir -m 0755 "$SB"
chmod 0755 "$TMPD"
cp "$GATEWAYD" "$SB/gatewayd"
cp "$CONF" "$SB/gatewayd.conf"
chmod 0755 "$SB/gatewayd"
chmod 0644 "$SB/gatewayd.conf"
# the variant: the five capabilities, bounding and ambient; capset allowed (or not)
FIVE="CAP_NET_ADMIN CAP_NET_RAW CAP_SETUID CAP_SETGID CAP_KILL"
variant() {	# variant FILE yes|no
	sed -e "s/^AmbientCapabilities=.*/AmbientCapabilities=$FIVE/" \
		-e "s/^CapabilityBoundingSet=.*/CapabilityBoundingSet=$FIVE/" "$UNIT" >"$1"
	if [ "$2" = yes ]; then
		echo "SystemCallFilter=capset" >>"$1"
	else	# after every other line: a later allow-list entry would take capset back
		echo "SystemCallFilter=~capset" >>"$1"
	fi
	# (the [Install] section comes last in the unit: what is appended lands in it; move
	# the lines into [Service])
	python3 - "$1" <<'PY'
import sys
p = sys.argv[1]
lines = open(p).read().splitlines()
extra = lines[-1]
lines = lines[:-1]
i = lines.index("[Install]")
lines.insert(i, extra)
open(p, "w").write("\n".join(lines) + "\n")
PY
}
variant "$TMPD/five.service" yes
variant "$TMPD/refused.service" no
field() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }
sets() { echo "$(field "$1" CapInh) $(field "$1" CapPrm) $(field "$1" CapEff) $(field "$1" CapAmb)"; }

NL_DIR=$SB
listener_start || { not_ok "notify listener is bound"; exit 1; }
daemon_start self ip netns exec "$NS" bash "$SD_HERE/sandbox.sh" "$TMPD/five.service" "$SB_UID" \
	"$SB" -- "$SB/gatewayd" -c "$SB/gatewayd.conf"
check "READY=1 from the daemon started with five capabilities" wait_for "nl_has READY=1" 10
check "its uid is $SB_UID" test "$(field "$GW_PID" Uid)" = "$SB_UID"
check "CapInh CapPrm CapEff CapAmb: CAP_NET_ADMIN and CAP_NET_RAW alone ($(sets "$GW_PID"))" \
	test "$(sets "$GW_PID")" = \
	"0000000000003000 0000000000003000 0000000000003000 0000000000003000"
check "CapBnd: the unit's five (0x30e0; no CAP_SETPCAP to cut it), NoNewPrivs 1" \
	test "$(field "$GW_PID" CapBnd) $(field "$GW_PID" NoNewPrivs)" = "00000000000030e0 1"
page() { [ "$(ip netns exec "$NS" curl -s -m 5 -o /dev/null -w '%{http_code}' http://127.0.0.1:9180/api/status)" = 200 ]; }
check "the tree is in and the page answers" eval 'ip netns exec "$NS" tc qdisc show dev v0 | grep -q "htb e000:" && page'
sed -i 's/rate = "50mbit"/rate = "40mbit"/' "$SB/gatewayd.conf"
kill -HUP "$GW_PID"
ifb_at_40() { ip netns exec "$NS" tc qdisc show dev "$IFB" | grep -q '^qdisc tbf e000: root .*rate 40Mbit'; }
check "SIGHUP: the new rate is in the kernel" wait_for ifb_at_40 5
daemon_stop
rc=$?
check "SIGTERM: exit $rc, the tree and the ifb gone" eval '[ $rc -eq 0 ] && tree_gone'
check "no error in its log" bash -c "! grep -E 'error|not permitted|denied' '$GW_LOG'"
grep -E 'error|not permitted|denied' "$GW_LOG" | sed 's/^/# /'

# a unit that gives the five and refuses capset: the daemon cannot cut its sets, and stops
listener_start || { not_ok "notify listener is bound"; exit 1; }
daemon_start self ip netns exec "$NS" bash "$SD_HERE/sandbox.sh" "$TMPD/refused.service" \
	"$SB_UID" "$SB" -- "$SB/gatewayd" -c "$SB/gatewayd.conf"
check "capset refused by the unit's filter: it stops" wait_for daemon_exited 10
if daemon_exited; then
	wait "$GW_PID"
	rc=$?
else
	daemon_stop
	rc=124
fi
check "  exit $rc (1), saying why" eval '[ $rc -eq 1 ] &&
	grep -q "giving up root and capabilities: capset (a service whose system-call filter refuses it: the unit must allow capset): Operation not permitted; stopping" "$GW_LOG"'
check "  no READY=1, and nothing left behind" eval '! nl_has READY=1 && tree_gone'
