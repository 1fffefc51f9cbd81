#!/usr/bin/env bash
# The daemon's own identity once started (gatewayd(8) PRIVILEGES): started as root, as any
# start outside systemd is, it opens what needs root and then becomes user gatewayd with its
# group alone, keeping CAP_NET_ADMIN and CAP_NET_RAW and nothing else in every set (ambient
# and inheritable included, the bounding set cut to them), no_new_privs: so it owns no file of
# root's. It still heals, reloads and stops clean that way; a reload of a file it can no
# longer read is refused with the reason; a file it will need again and cannot read is said at
# start. Without the user it says how to make one and stays uid 0 with the two capabilities.
. "$(dirname "$0")/lib.sh"

if [ "$GW_UID" = 0 ]; then
	skip "the daemon's own user" "no user $GW_USER here (make deps creates it)"
	exit 0
fi
GW_GID=$(id -g "$GW_USER")

ns_new NS user || { not_ok "namespace"; exit 1; }
ip -n "$NS" link add v0 type veth peer name v1 && ip -n "$NS" link set v0 up &&
	ip -n "$NS" link set v1 up || { not_ok "veth pair"; exit 1; }
IFB=ifb-$RUN_ID
CONF=$TMPD/user.conf
conf() {	# conf EGRESS-RATE [TOP-LEVEL SETTINGS]
	cat >"$CONF" <<CONF
interval = "200ms";
control_socket = "$TMPD/run/control.sock";
${2:-}
links = ( { name = "wan"; interface = "v0";
  egress = { shaper = "htb"; rate = "$1"; classes = (
    { name = "a"; rate = "5mbit"; ceil = "$1"; match = { dscp = [ "ef" ]; }; child = { kind = "fifo"; }; },
    { name = "b"; rate = "5mbit"; ceil = "$1"; default = true; child = { kind = "fifo"; }; } ); };
  ingress = { shaper = "tbf"; rate = "30mbit"; ifb = "$IFB"; child = { kind = "fifo"; }; }; } );
CONF
}
# field PID KEY: the value(s) of KEY in the process's status, tabs made spaces
field() { awk -v k="$2:" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "/proc/$1/status" 2>/dev/null; }
dropped() { [ "$(field "$GW_PID" Uid)" = "$GW_UID $GW_UID $GW_UID $GW_UID" ]; }
egress_rate() { tc -n "$NS" class show dev v0 classid e000:1 | grep -o 'rate [0-9]*[KMG]bit' | head -1; }
shaped() { tc -n "$NS" qdisc show dev v0 | grep -q 'htb e000:' && ip -n "$NS" link show "$IFB" >/dev/null 2>&1; }
table() { ip netns exec "$NS" nft list tables | grep -q 'inet gatewayd'; }

# -- as user gatewayd ------------------------------------------------------------------------
conf 20mbit
gw_start "$NS" "$CONF" || { not_ok "gatewayd starts" "$(cat "$GW_LOG")"; exit 1; }
wait_for dropped 5 "the daemon to become uid $GW_UID"
check "the log says it: running as user $GW_USER (uid $GW_UID) with CAP_NET_ADMIN and CAP_NET_RAW alone" \
	grep -q "running as user $GW_USER (uid $GW_UID) with CAP_NET_ADMIN and CAP_NET_RAW alone" "$GW_LOG"
check "Uid (real, effective, saved, file system): $(field "$GW_PID" Uid)" dropped
check "Gid: $(field "$GW_PID" Gid); Groups: $(field "$GW_PID" Groups) (its own group alone)" \
	eval '[ "$(field "$GW_PID" Gid)" = "$GW_GID $GW_GID $GW_GID $GW_GID" ] &&
		[ "$(field "$GW_PID" Groups)" = "$GW_GID" ]'
caps() { echo "$(field "$1" CapInh) $(field "$1" CapPrm) $(field "$1" CapEff) $(field "$1" CapBnd) $(field "$1" CapAmb)"; }
NET2="0000000000003000 0000000000003000 0000000000003000 0000000000003000 0000000000003000"
check "CapInh CapPrm CapEff CapBnd CapAmb exactly CAP_NET_ADMIN|CAP_NET_RAW: $(caps "$GW_PID")" \
	test "$(caps "$GW_PID")" = "$NET2"
check "NoNewPrivs 1" test "$(field "$GW_PID" NoNewPrivs)" = 1
# capabilities are per thread: every one of them must say the same
tasks_same() {
	local t n=0
	for t in /proc/"$GW_PID"/task/*; do
		[ "$(caps "$GW_PID/task/${t##*/}") $(field "$GW_PID/task/${t##*/}" Uid)" = \
			"$NET2 $GW_UID $GW_UID $GW_UID $GW_UID" ] || return 1
		n=$((n + 1))
	done
	[ $n -ge 1 ]
}
check "every thread of it the same ($(ls /proc/"$GW_PID"/task | wc -l))" tasks_same
# what it does later that once took root
check "its tree, ifb and nft table are there" eval 'shaped && table'
tc -n "$NS" qdisc del dev v0 root
check "heal: a deleted root qdisc is put back" wait_for "tc -n $NS qdisc show dev v0 | grep -q 'htb e000:'" 3 "the root back"
conf 30mbit
gw_reload
check "reload: SIGHUP applies a new rate" wait_for "egress_rate | grep -q 'rate 30Mbit'" 3 "30mbit"
chmod 600 "$CONF"
conf 40mbit
gw_reload
check "a config only root may read: the reload is refused and says why" \
	grep -q "reload: $CONF: cannot open: Permission denied (gatewayd runs as uid $GW_UID: the files it reads must be readable by that user); still running the previous config" "$GW_LOG"
check "  and the running tree stays ($(egress_rate))" eval 'egress_rate | grep -q "rate 30Mbit"'
daemon_reads "$CONF"
gw_reload
check "  made readable by its group, the next reload applies" \
	wait_for "egress_rate | grep -q 'rate 40Mbit'" 3 "40mbit"
gw_stop
rc=$?
check "SIGTERM: exit $rc, the tree, the ifb and the nft table gone" \
	eval '[ $rc -eq 0 ] && ! shaped && ! table'
# (but for the reload refused on purpose above)
others() { grep -E 'error|not permitted|denied' "$GW_LOG" | grep -v "reload: $CONF: cannot open"; }
check "nothing else in its log failed" eval '[ -z "$(others)" ]'
others | sed 's/^/# /'

# -- files it reads again later that it cannot: said at start -------------------------------
printf 'admin:%s\n' "$(openssl passwd -6 s3cret 2>/dev/null || echo '$6$x$y')" >"$TMPD/users"
chmod 600 "$TMPD/users"
chmod 644 "$CONF"
conf 20mbit "auth_file = \"$TMPD/users\"; auth_plain_http = true;"
gw_start "$NS" "$CONF" || { not_ok "gatewayd starts with a root-only auth_file" "$(cat "$GW_LOG")"; exit 1; }
check "a root-only auth_file: the start warns that a reload will not read it" \
	wait_for "grep -q 'warning: auth_file $TMPD/users: not readable by uid $GW_UID, which gatewayd runs as now' '$GW_LOG'" 5 \
	"the warning"
check "  and the config itself, readable, is not named" bash -c "! grep -q 'warning: the config' '$GW_LOG'"
gw_stop

# -- no such user --------------------------------------------------------------------------
# /etc/passwd and /etc/group without it, in a mount namespace of the daemon's own, with a
# /run/gatewayd of its own too: without the user, the daemon hands the run directory to root,
# which the other suites' daemons (user gatewayd) share
grep -v "^$GW_USER:" /etc/passwd >"$TMPD/passwd"
grep -v "^$GW_USER:" /etc/group >"$TMPD/group"
chmod 644 "$TMPD/passwd" "$TMPD/group"
GW_LOG=$TMPD/nouser.log
unshare -m --propagation private sh -c 'mount --bind "$1" /etc/passwd && mount --bind "$2" /etc/group &&
	mkdir -p /run/gatewayd && mount -t tmpfs -o mode=0755 gwrun /run/gatewayd &&
	exec ip netns exec "$3" "$4" -c "$5"' sh "$TMPD/passwd" "$TMPD/group" "$NS" "$GATEWAYD" \
	"$CONF" >"$GW_LOG" 2>&1 &
GW_PID=$!
PIDS+=("$GW_PID")
wait_for "grep -q 'user $GW_USER does not exist' '$GW_LOG' || ! kill -0 $GW_PID" 8 "the warning"
check "no user $GW_USER: one warning line says how to create it" \
	grep -q "warning: privileges: user $GW_USER does not exist (create it: systemd-sysusers" "$GW_LOG"
check "  and it stays uid 0: $(field "$GW_PID" Uid)" test "$(field "$GW_PID" Uid)" = "0 0 0 0"
check "  with CAP_NET_ADMIN and CAP_NET_RAW alone, none inheritable or ambient: $(caps "$GW_PID")" \
	test "$(caps "$GW_PID")" = "0000000000000000 0000000000003000 0000000000003000 0000000000003000 0000000000000000"
check "  shaping all the same" shaped
gw_stop
rc=$?
check "  SIGTERM: exit $rc, nothing left" eval '[ $rc -eq 0 ] && ! shaped'
