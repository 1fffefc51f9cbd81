#!/usr/bin/env bash
# gatewayd inside the sandbox systemd/gatewayd.service asks for: user gatewayd with the unit's
# capabilities (its two, and the web launcher's three, which the daemon drops once it has
# forked the launcher), no_new_privs, the unit's seccomp filter, a read-only file system,
# private /tmp, /dev and /proc (hidepid=invisible, subset=pid). Where systemd is PID 1
# the unit could be started for real; here sandbox.sh rebuilds the sandbox by hand, reading the
# capabilities and the seccomp settings from the unit. The daemon must still do all of its job:
# --check (the kind probe skipped), build the tree and the ifb, serve the page, feed the
# watchdog, and remove everything on SIGTERM. Its web process runs as user gatewayd-web,
# not the daemon's uid, with nothing; a load test's iperf3 as nobody. It runs in cgroups with the unit's MemoryMax= and
# TasksMax= (where cgroup v1's memory and pids hierarchies are writable) and stays well inside
# them, and every IP socket it holds is one the drop-in derived from its config
# (gatewayd --systemd-dropin) allows: a listen port in SocketBindAllow=, a peer in
# IPAddressAllow=. Needs root.
. "$(dirname "$0")/lib.sh"

for tool in systemd-analyze python3 jq setpriv unshare findmnt curl; do
	command -v "$tool" >/dev/null || { skip "unit sandbox" "$tool is not installed"; exit 0; }
done
# the seccomp helper runs as the unprivileged uid: it needs a python3 outside /root
if ! /usr/bin/python3 -c 'import ctypes; ctypes.CDLL("libseccomp.so.2")' 2>/dev/null; then
	skip "unit sandbox" "needs /usr/bin/python3 and libseccomp.so.2"
	exit 0
fi

# the unit's User=gatewayd (systemd-sysusers makes it; the web process becomes gatewayd-web)
if ! SB_UID=$(id -u gatewayd 2>/dev/null) || ! SB_GID=$(id -g gatewayd 2>/dev/null); then
	skip "unit sandbox" "no user gatewayd here (systemd-sysusers gatewayd.conf makes it)"
	exit 0
fi
WEB_UID=$(id -u gatewayd-web 2>/dev/null || id -u nobody)
bench_new sbx || { not_ok "bench namespace"; exit 1; }
# DIR: what the service could see under /etc/gatewayd, /usr/sbin and /run/systemd
SB=$TMPD/sb
mkdir -m 0755 "$SB"
chmod 0755 "$TMPD"
cp "$GATEWAYD" "$SB/gatewayd"
cp "$CONF" "$SB/gatewayd.conf"
chmod 0755 "$SB/gatewayd"
# a probe target, so the derived allow list has a peer to cover (an address of the namespace)
ip -n "$NS" addr add 10.88.0.1/24 dev v0
ip -n "$NS" addr add 10.88.0.2/24 dev v1
cat >>"$SB/gatewayd.conf" <<'PROBE'
probe = { targets = [ "10.88.0.2" ]; interval = "200ms"; };
PROBE
chmod 0644 "$SB/gatewayd.conf"
# the page over TLS with basic auth, its secret files root's and group gatewayd's (0640): the
# daemon (user gatewayd) opens them, the web process (gatewayd-web) could not and is handed
# them open; a sink token beside them, which it could not open either
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
	-keyout "$SB/tls.key" -out "$SB/tls.pem" 2>/dev/null
printf 'admin:%s\n' "$(openssl passwd -6 s3cret)" >"$SB/users"
head -c 24 /dev/urandom | base64 >"$SB/sink.token"
chown "root:$SB_GID" "$SB/tls.key" "$SB/users" "$SB/sink.token"
chmod 0640 "$SB/tls.key" "$SB/users" "$SB/sink.token"
chmod 0644 "$SB/tls.pem"
cat >>"$SB/gatewayd.conf" <<TLS
auth_file = "$SB/users"; tls_cert = "$SB/tls.pem"; tls_key = "$SB/tls.key";
TLS
DROPIN=$("$GATEWAYD" -c "$SB/gatewayd.conf" --systemd-dropin)
sandboxed() { ip netns exec "$NS" bash "$SD_HERE/sandbox.sh" "$UNIT" "$SB_UID:$SB_GID" "$SB" -- "$@"; }

CHECK_OUT=$(sandboxed "$SB/gatewayd" -c "$SB/gatewayd.conf" --check 2>&1)
check "ExecStartPre's --check passes in the sandbox" test $? -eq 0
check "... and skips the qdisc-kind probe (no namespaces, no CAP_SYS_ADMIN)" \
	grep -q "qdisc kinds not probed" <<<"$CHECK_OUT"

NL_DIR=$SB	# the socket must be visible in the sandbox, as /run/systemd/notify is
listener_start --on-ready "ip netns exec $NS tc qdisc show dev v0; ip -n $NS -br link show $IFB" ||
	{ not_ok "notify listener is bound"; exit 1; }
LIMITS=
sd_limit_cgroups && LIMITS=1
# into the limits' cgroups first (ip netns exec mounts a sysfs of its own, without them)
daemon_start self bash -c 'for f in $0; do echo $$ >"$f"; done; exec "$@"' "${LIMITS:+$SD_CG_PROCS}" \
	ip netns exec "$NS" bash "$SD_HERE/sandbox.sh" "$UNIT" "$SB_UID:$SB_GID" "$SB" -- \
	"$SB/gatewayd" -c "$SB/gatewayd.conf"
check "READY=1 arrives from the sandboxed daemon" wait_for "nl_has READY=1" 10
ready_saw_tree() {
	wait_for 'test -s "$NL_READY_OUT"' 5 &&
		grep -q '^qdisc htb e000: root' "$NL_READY_OUT" && grep -q "^$IFB " "$NL_READY_OUT"
}
check "it built the tree and created the ifb with the unit's capabilities" ready_saw_tree
sender_uid() { [ "$(jq -s --argjson p "$GW_PID" '[.[] | select(.pid == $p) | .uid] | unique' "$NL_LOG")" = "$(jq -n --argjson u "$SB_UID" '[$u]')" ]; }
check "every datagram comes from the main pid, as uid $SB_UID" sender_uid
# what the kernel says about the running daemon
ST=/proc/$GW_PID/status
field() { awk -v f="$1:" '$1 == f { print $2 }' "$ST"; }
check "the daemon's uid is $SB_UID, not root" test "$(field Uid)" = "$SB_UID"
check "its capabilities: CAP_NET_ADMIN and CAP_NET_RAW only (effective, permitted, ambient; the launcher's three dropped)" \
	wait_for '[ "$(field CapEff)$(field CapPrm)$(field CapAmb)" = 000000000000300000000000000030000000000000003000 ]' 5 \
	"the daemon to drop the launcher's capabilities"
check "  its bounding set the unit's five ($(field CapBnd)): no_new_privs keeps it from them" \
	test "$(field CapBnd)" = 00000000000030e0
check "no_new_privs and a seccomp filter" test "$(field NoNewPrivs)$(field Seccomp)" = 12
api() { ip netns exec "$NS" curl -s -m 5 --cacert "$SB/tls.pem" -u admin:s3cret "$@" https://127.0.0.1:9180/api/status; }
page() { [ "$(api -o /dev/null -w '%{http_code}')" = 200 ]; }
check "the status page answers (AF_INET allowed)" page
check "STATUS lines keep coming" wait_for '[ "$(nl_status | grep -c "^STATUS=wan egress htb")" -ge 1 ]' 5
check "WATCHDOG=1 keeps coming" wait_for '[ "$(nl_count WATCHDOG=1)" -ge 3 ]' 5
# --- MemoryMax=, TasksMax= ---
MEM_MAX=$(numfmt --from=iec "$(unit_value MemoryMax)")
TASKS_MAX=$(unit_value TasksMax)
# what the unit's comment counts: the daemon's thread, the launcher, and the web process's
# main thread, HTTP guard, login limiter and two per listen address (one here)
TASKS_WANT=7
tasks_now() { find "/proc/$1/task" -mindepth 1 -maxdepth 1 | wc -l; }
WEB=$(api | jq -r '.web.pid // 0')
LAUNCHER=$(awk '$1 == "PPid:" { print $2 }' "/proc/$WEB/status" 2>/dev/null)
check "the daemon runs 1 task, the launcher 1, the web process 5 (main, HTTP guard, login limiter, 2 HTTP threads): $TASKS_WANT, under TasksMax=$TASKS_MAX" \
	eval '[ "$(tasks_now $GW_PID)" -eq 1 ] && [ "$(tasks_now $LAUNCHER)" -eq 1 ] &&
		[ "$(tasks_now $WEB)" -eq 5 ] && [ $TASKS_WANT -le $((TASKS_MAX / 2)) ]'
# the web process under the unit: the launcher (the service's user with CAP_SETUID, CAP_SETGID
# and CAP_KILL alone) gives it a user of its own, not the daemon's
field_of() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
check "the web process: uid $WEB_UID (not the daemon's $SB_UID), CapEff/CapPrm/CapAmb 0, NoNewPrivs 1, Seccomp 2" \
	test "$(field_of $WEB Uid) $(field_of $WEB CapEff) $(field_of $WEB CapPrm) $(field_of $WEB CapAmb) $(field_of $WEB NoNewPrivs) $(field_of $WEB Seccomp)" = \
	"$WEB_UID 0000000000000000 0000000000000000 0000000000000000 1 2"
check "  its uid is not the daemon's ($(field_of $WEB Uid) and $(field Uid))" \
	test "$(field_of $WEB Uid)" != "$(field Uid)"
as_web() { setpriv --reuid="$(field_of $WEB Uid)" --regid="$(field_of $WEB Gid)" --clear-groups "$@" 2>/dev/null; }
check "  it serves TLS and basic auth from a key and an auth file its user cannot open, nor the sink token" \
	eval 'page && [ "$(ip netns exec "$NS" curl -s -m 5 --cacert "$SB/tls.pem" -o /dev/null -w "%{http_code}" https://127.0.0.1:9180/api/status)" = 401 ] &&
		as_web true && ! as_web cat "$SB/tls.key" && ! as_web cat "$SB/users" && ! as_web cat "$SB/sink.token"'
as_daemon() { setpriv --reuid="$SB_UID" --regid="$SB_GID" --clear-groups "$@" >/dev/null; }
check "  the daemon's user can (group gatewayd): a reload that changes them works under the unit" \
	as_daemon cat "$SB/tls.key" "$SB/users" "$SB/sink.token"
check "the launcher: the service's uid with CAP_SETUID, CAP_SETGID and CAP_KILL alone (permitted, effective), none ambient" \
	test "$(field_of $LAUNCHER Uid) $(field_of $LAUNCHER CapEff) $(field_of $LAUNCHER CapPrm) $(field_of $LAUNCHER CapAmb)" = \
	"$SB_UID 00000000000000e0 00000000000000e0 0000000000000000"
rss_kib() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$GW_PID/status"; }
check "VmRSS $(rss_kib) KiB is under a tenth of MemoryMax=$(unit_value MemoryMax)" \
	test "$(( $(rss_kib) * 1024 * 10 ))" -lt "$MEM_MAX"
if [ -n "$LIMITS" ]; then
	in_cgroup() { grep -qx "$GW_PID" "$1/cgroup.procs"; }
	check "the daemon is in the limits' cgroups (memory and pids)" \
		eval 'in_cgroup "$SD_CG_MEM" && in_cgroup "$SD_CG_PIDS"'
	check "MemoryMax= in force: memory.limit_in_bytes $MEM_MAX" \
		test "$(cat "$SD_CG_MEM/memory.limit_in_bytes")" = "$MEM_MAX"
	check "TasksMax= in force: pids.max $TASKS_MAX, pids.current $(cat "$SD_CG_PIDS/pids.current")" \
		eval '[ "$(cat "$SD_CG_PIDS/pids.max")" = "$TASKS_MAX" ] &&
			[ "$(cat "$SD_CG_PIDS/pids.current")" -le $TASKS_WANT ]'
	check "memory.max_usage_in_bytes $(cat "$SD_CG_MEM/memory.max_usage_in_bytes") is under a quarter of MemoryMax=" \
		test "$(( $(cat "$SD_CG_MEM/memory.max_usage_in_bytes") * 4 ))" -lt "$MEM_MAX"
else
	skip "MemoryMax=/TasksMax= in force" "no writable cgroup v1 memory and pids hierarchies here"
fi

# --- the derived allow lists cover every IP socket it holds ---
check "the prober holds a raw socket (ICMP to its target)" \
	wait_for "ip netns exec $NS ss -Hwanp | grep -q 'pid=$GW_PID,'" 5 "a raw socket of the daemon"
sockets() { ip netns exec "$NS" ss -Htuwanp | grep "pid=$GW_PID,"; }
listen_ports() { sockets | awk '$2 == "LISTEN" { n = split($5, a, ":"); print a[n] }' | sort -u; }
# the peer addresses of the connected ones, without port and brackets
peers() {
	sockets | awk '$2 != "LISTEN" {
		p = $6; sub(/:[^:]*$/, "", p); gsub(/[][]/, "", p)
		if (p != "*" && p != "0.0.0.0") print p }' | sort -u
}
covered() {
	local p bad=
	[ -n "$(listen_ports)" ] || return 1
	for p in $(listen_ports); do
		grep -qxE "SocketBindAllow=ipv(4|6):tcp:$p" <<<"$DROPIN" || bad+=" port $p"
	done
	for p in $(peers); do
		grep -qxE "IPAddressAllow=$p/(32|128)" <<<"$DROPIN" || bad+=" peer $p"
	done
	[ -z "$bad" ] || { echo "# not in the drop-in:$bad"; return 1; }
}
check "listen ports [$(listen_ports | tr '\n' ' ')] and peers [$(peers | tr '\n' ' ')] are in the derived drop-in" covered
check "the drop-in names the probe target and nothing else of the namespace" \
	eval 'grep -qx "IPAddressAllow=10.88.0.2/32" <<<"$DROPIN" && ! grep -q "10.88.0.1" <<<"$DROPIN"'

# ExecReload=: a new ingress rate, read and applied from inside the sandbox (the kind probe of the
# reload is skipped the same way)
sed -i 's/rate = "50mbit"/rate = "40mbit"/' "$SB/gatewayd.conf"
kill -HUP "$GW_PID"
ifb_at_40() { ip netns exec "$NS" tc qdisc show dev "$IFB" | grep -q '^qdisc tbf e000: root .*rate 40Mbit'; }
check "SIGHUP: RELOADING=1, then READY=1" wait_for "nl_after RELOADING=1 READY=1" 5
check "SIGHUP: the new rate is in the kernel" wait_for ifb_at_40 5
check "SIGHUP: the log says reloaded" grep -q "reloaded $SB/gatewayd.conf" "$GW_LOG"
daemon_stop
check "SIGTERM: exit status 0" test $? -eq 0
check "STOPPING=1 sent" wait_for "nl_has STOPPING=1" 5
check "the tree and the ifb are gone" tree_gone
check "the log has no error (nothing the sandbox refused)" \
	bash -c "! grep -E 'error|not permitted|denied' '$GW_LOG'"
grep -E 'error|not permitted|denied' "$GW_LOG" | sed 's/^/# /'
