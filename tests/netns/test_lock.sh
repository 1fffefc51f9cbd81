#!/usr/bin/env bash
# tests/netns/test_lock.sh: the one-instance lock and the load test's lock are a lock no
# stranger can take: POSIX record locks on files in /run/gatewayd named for the network
# namespace (sys/instance.c). A listener that uid 65534 bound beforehand on the old
# abstract socket names (@gatewayd-instance, @gatewayd-load-test), and the same uid trying to
# make, open or lock the new files, do not stop gatewayd from starting; a second gatewayd in
# the namespace is refused, naming the first's pid and uid as the kernel reports them; one in
# another namespace starts beside it; a --load-test runs beside the old name's squatter and a
# second one is refused naming the first; the lock goes with the process (SIGTERM: its file
# removed; kill -9: the kernel lets it go).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || { skip "the locks" "needs root (namespaces)"; exit 0; }
NOBODY=$(id -u nobody 2>/dev/null || echo 65534)
ns_new NS a && ns_new NS2 b || { not_ok "namespaces"; exit 1; }
RUNDIR=/run/gatewayd
# the lock file of namespace NS for WHAT: WHAT.DEV.INODE of its /proc/self/ns/net
lockfile() { echo "$RUNDIR/$2.$(ip netns exec "$1" stat -L -c '%D.%i' /proc/self/ns/net)"; }
uid_of() { awk '$1 == "Uid:" { print $3 }' "/proc/$1/status" 2>/dev/null; }
cat >"$TMPD/min.conf" <<EOF
unconfigured = true;
listen = "127.0.0.1:9180";
control_socket = "";
EOF

# -- a stranger first: the old abstract names bound by uid 65534, the new files tried
cat >"$TMPD/squat.py" <<'PY'
import os, socket, sys, time
held = []
for name in ("gatewayd-instance", "gatewayd-load-test"):
    s = socket.socket(socket.AF_UNIX)
    s.bind("\0" + name)
    s.listen(64)
    held.append(s)
print("bound", flush=True)
time.sleep(60)
PY
cat >"$TMPD/stranger.py" <<'PY'
import errno, fcntl, os, struct, sys
# make the directory's lock files, or open and lock them: every try's errno
out = []
for path in sys.argv[1:]:
    for flags in (os.O_RDWR | os.O_CREAT, os.O_RDONLY, os.O_WRONLY):
        try:
            fd = os.open(path, flags | os.O_NOFOLLOW, 0o666)
        except OSError as e:
            out.append(errno.errorcode[e.errno])
            continue
        try:
            fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            out.append("LOCKED")
        except OSError as e:
            out.append(errno.errorcode[e.errno])
        os.close(fd)
print(" ".join(out), flush=True)
PY
STRANGER="setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups /usr/bin/python3"
ip netns exec "$NS" $STRANGER "$TMPD/squat.py" >"$TMPD/squat.out" 2>&1 &
PIDS+=($!)
wait_for "grep -q bound '$TMPD/squat.out'" 5 "uid $NOBODY to bind the old abstract names"
check "uid $NOBODY holds @gatewayd-instance and @gatewayd-load-test in the namespace" \
	bash -c "ip netns exec $NS ss -xlp | grep -q '@gatewayd-instance' && ip netns exec $NS ss -xlp | grep -q '@gatewayd-load-test'"
LOCK=$(lockfile "$NS" instance)
LTLOCK=$(lockfile "$NS" load-test)
# (a file a killed daemon left, in a namespace whose inode this one has now, may be there)
got=$(ip netns exec "$NS" $STRANGER "$TMPD/stranger.py" "$LOCK" "$LTLOCK")
check "before the daemon, uid $NOBODY can neither make nor lock the lock files ($got)" \
	bash -c "[ -n '$got' ] && ! grep -qvE '^((EACCES|ENOENT) ?)+\$' <<<'$got'"

gw_start "$NS" "$TMPD/min.conf" || { not_ok "gatewayd starts beside the squatter" "$(cat "$GW_LOG")"; exit 1; }
FIRST=$GW_PID
FIRST_LOG=$GW_LOG
ok "gatewayd starts though uid $NOBODY bound the old name first"
wait_for "[ -n \"\$(uid_of $FIRST)\" ]" 5 "the daemon's status"
FIRST_UID=$(uid_of "$FIRST")
check "its lock file $LOCK: a regular file, 0600, root's or the service user's ($(stat -c '%U %a' "$LOCK"))" \
	bash -c "[ -f '$LOCK' ] && [ \"\$(stat -c %a '$LOCK')\" = 600 ] && [[ \"\$(stat -c %U '$LOCK')\" =~ ^(root|gatewayd)$ ]]"
ino=$(stat -c %i "$LOCK")
check "the kernel lists the daemon's POSIX write lock on it (/proc/locks)" \
	bash -c "grep -E \"POSIX +ADVISORY +WRITE +$FIRST +[0-9a-f]+:[0-9a-f]+:$ino \" /proc/locks"
got=$(ip netns exec "$NS" $STRANGER "$TMPD/stranger.py" "$LOCK")
check "uid $NOBODY can neither open nor lock it while the daemon runs ($got)" \
	bash -c "[ '$got' = 'EACCES EACCES EACCES' ]"
check "the directory: writable by its owner alone ($(stat -c '%U %a' "$RUNDIR"))" \
	bash -c "[ \"\$(( 0\$(stat -c %a $RUNDIR) & 022 ))\" = 0 ]"
# started as root, the daemon makes its directory the service user's (root's without one)
want=$(id -un gatewayd 2>/dev/null || echo root)
check "... $want's, 0755, as the daemon left it ($(stat -c '%U %a' "$RUNDIR"))" \
	test "$(stat -c '%U %a' "$RUNDIR")" = "$want 755"

# -- a second daemon in the namespace: refused with the first's pid and uid
ip netns exec "$NS" "$GATEWAYD" -c "$TMPD/min.conf" >"$TMPD/second.log" 2>&1
rc=$?
sed 's/^/# /' "$TMPD/second.log"
check "a second gatewayd in the namespace exits 1" test $rc -eq 1
check "... naming the first's pid $FIRST and uid $FIRST_UID, and the lock" \
	grep -q "another gatewayd (pid $FIRST, uid $FIRST_UID) runs in this network namespace (its lock: $LOCK)" "$TMPD/second.log"
ip netns exec "$NS" "$GATEWAYD" -c "$TMPD/min.conf" --oneshot >"$TMPD/second.log" 2>&1
check "--oneshot beside it exits 1 too" test $? -eq 1

# -- another namespace: a lock of its own
gw_start "$NS2" "$TMPD/min.conf" || not_ok "a gatewayd in another namespace starts" "$(cat "$GW_LOG")"
OTHER=$GW_PID
check "a gatewayd in another namespace starts beside the first (pid $OTHER)" kill -0 "$OTHER"
check "... with its own lock file" test -f "$(lockfile "$NS2" instance)"

# -- the load test's lock: a sink that answers nothing keeps a --load-test in its idle phase
ip -n "$NS" link add lt0 type veth peer name lt1
ip -n "$NS" link set lt0 up
cat >"$TMPD/lt.conf" <<EOF
control_socket = "";
links = ( { name = "wan"; interface = "lt0";
            egress = { shaper = "tbf"; rate = "10mbit"; child = { kind = "fifo"; }; }; } );
probe = { targets = [ "127.0.0.1" ]; interval = "1s"; sink = "127.0.0.1:7"; };
EOF
ip netns exec "$NS" "$GATEWAYD" -c "$TMPD/lt.conf" --load-test >"$TMPD/lt1.out" 2>&1 &
LT=$!
PIDS+=($LT)
wait_for "[ -e '$LTLOCK' ] || ! kill -0 $LT 2>/dev/null" 5 "--load-test to take its lock"
check "--load-test takes its lock beside uid $NOBODY's @gatewayd-load-test" bash -c "kill -0 $LT && [ -f '$LTLOCK' ]"
ip netns exec "$NS" timeout 20 "$GATEWAYD" -c "$TMPD/lt.conf" --load-test >"$TMPD/lt2.out" 2>&1
rc=$?
sed 's/^/# /' "$TMPD/lt2.out"
check "a second --load-test in the namespace is refused, naming the first's pid $LT and uid 0" \
	bash -c "[ $rc -ne 0 ] && grep -q 'another load test is running in this network namespace (pid $LT, uid 0)' '$TMPD/lt2.out'"
got=$(ip netns exec "$NS" $STRANGER "$TMPD/stranger.py" "$LTLOCK")
check "uid $NOBODY can neither open nor lock the load test's file ($got)" \
	bash -c "[ '$got' = 'EACCES EACCES EACCES' ]"
kill "$LT" 2>/dev/null
wait "$LT" 2>/dev/null

# -- the lock goes with the process
kill -TERM "$FIRST"
wait_for "! kill -0 $FIRST 2>/dev/null" 10 "the first daemon to stop"
check "SIGTERM: the daemon removed its lock file" test ! -e "$LOCK"
gw_start "$NS" "$TMPD/min.conf" || not_ok "a new start after it" "$(cat "$GW_LOG")"
check "a new start takes the lock" kill -0 "$GW_PID"
kill -KILL "$GW_PID"
wait_for "! kill -0 $GW_PID 2>/dev/null" 5 "the killed daemon to go"
gw_start "$NS" "$TMPD/min.conf" || not_ok "a start after kill -9" "$(cat "$GW_LOG")"
check "kill -9 leaves no lock behind: the next start runs" kill -0 "$GW_PID"
check "uid $NOBODY still holds the old names throughout" \
	bash -c "ip netns exec $NS ss -xlp | grep -q '@gatewayd-instance'"
