# tests/systemd/lib.sh: shared by the systemd tests. On top of the netns helpers (namespaces,
# ok/not ok, cleanup of every namespace, process and temp file on exit): a stand-in for the
# service manager's notify socket, a daemon started the way systemd starts it, and a bench.
. "$(dirname "${BASH_SOURCE[0]}")/../netns/lib.sh"
SD_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# GW_UNIT: a variant of the unit to run the tests against (e.g. to see a check fail)
UNIT=${GW_UNIT:-$TOP/systemd/gatewayd.service}

# (wait_for CONDITION TIMEOUT comes with the netns helpers)

# listener_start [--on-ready CMD]: a notify socket at $NL_SOCK (in $NL_DIR), datagrams logged
# to $NL_LOG (JSON lines); returns once the socket is bound, so no datagram can be lost.
NL_N=0
NL_DIR=$TMPD
listener_start() {
	NL_N=$((NL_N + 1))
	NL_SOCK=$NL_DIR/notify$NL_N.sock
	NL_LOG=$TMPD/notify$NL_N.log
	NL_READY_OUT=$TMPD/notify$NL_N.ready
	: >"$NL_LOG"
	python3 "$SD_HERE/notify_listener.py" "$NL_SOCK" "$NL_LOG" --bound "$TMPD/notify$NL_N.bound" \
		--on-ready-out "$NL_READY_OUT" --timeout 120 "$@" &
	PIDS+=($!)
	wait_for "test -e '$TMPD/notify$NL_N.bound'" 10
}

# nl_count LINE: how many datagrams so far carry LINE (e.g. WATCHDOG=1) as one of their lines.
nl_count() { jq -s --arg l "$1" '[.[] | select(any(.msg | split("\n")[]; . == $l))] | length' "$NL_LOG"; }
nl_has() { [ "$(nl_count "$1")" -gt 0 ]; }
# nl_count_after LINE LINE0 A B: datagrams with LINE sent between A and B seconds after the
# first one with LINE0 (the kernel's send stamps: the listener's own delays do not count).
nl_count_after() {
	jq -s --arg l "$1" --arg l0 "$2" --argjson a "$3" --argjson b "$4" '
		def has($x): any(.msg | split("\n")[]; . == $x);
		([.[] | select(has($l0))][0].sent) as $t0
		| [.[] | select(has($l) and .sent >= $t0 + $a and .sent < $t0 + $b)] | length' "$NL_LOG"
}
# nl_after LINE0 LINE: some datagram with LINE arrived after the first one with LINE0.
nl_after() {
	jq -se --arg l0 "$1" --arg l "$2" '
		def has($x): any(.msg | split("\n")[]; . == $x);
		(map(has($l0)) | index(true)) as $i
		| $i != null and (.[$i + 1:] | map(select(has($l))) | length > 0)' "$NL_LOG" >/dev/null
}
# nl_status: the STATUS= values, one per line.
nl_status() { jq -r '.msg | split("\n")[] | select(startswith("STATUS="))' "$NL_LOG"; }

# daemon_start WDPID CMD...: CMD with NOTIFY_SOCKET=$NL_SOCK and WATCHDOG_USEC=1000000, as
# systemd runs ExecStart=: WDPID "self" sets WATCHDOG_PID to the daemon's own pid (the pid
# survives the exec chain), a number sets it to that pid. Sets GW_PID and GW_LOG.
daemon_start() {
	local wd=$1
	shift
	GW_LOG=$TMPD/gatewayd.$RANDOM.log
	NOTIFY_SOCKET=$NL_SOCK WATCHDOG_USEC=1000000 WD=$wd bash -c '
		if [ "$WD" = self ]; then export WATCHDOG_PID=$$; else export WATCHDOG_PID=$WD; fi
		unset WD
		exec "$@"' gatewayd "$@" >"$GW_LOG" 2>&1 &
	GW_PID=$!
	PIDS+=("$GW_PID")
}

# daemon_exited: gone, or a zombie waiting for its status to be collected.
daemon_exited() {
	local s
	s=$(awk '/^State:/ { print $2 }' "/proc/$GW_PID/status" 2>/dev/null)
	[ -z "$s" ] || [ "$s" = Z ]
}

# daemon_stop: SIGTERM, then at most 10 s for the exit; returns the exit status (124 when it
# did not exit, after which it is killed).
daemon_stop() {
	kill -TERM "$GW_PID" 2>/dev/null
	if ! wait_for daemon_exited 10; then
		kill -KILL "$GW_PID" 2>/dev/null
		wait "$GW_PID" 2>/dev/null
		return 124
	fi
	wait "$GW_PID"
}

# bench_new: namespace $NS with a veth pair v0-v1 and a config at $CONF: htb with one class on
# v0's egress, tbf through an ifb on its ingress.
bench_new() {
	ns_new NS "$1" || return 1
	ip -n "$NS" link add v0 type veth peer name v1 || return 1
	ip -n "$NS" link set v0 up && ip -n "$NS" link set v1 up || return 1
	IFB=ifb-$RUN_ID
	CONF=$TMPD/gatewayd.conf
	cat >"$CONF" <<CONF
links = (
  { name = "wan"; interface = "v0";
    egress = { shaper = "htb"; rate = "100mbit";
      classes = ( { name = "bulk"; rate = "60mbit"; ceil = "100mbit"; default = true;
                    child = { kind = "fifo"; }; } ); };
    ingress = { shaper = "tbf"; rate = "50mbit"; ifb = "$IFB"; child = { kind = "fifo"; }; }; }
);
CONF
}

# tree_gone: v0 has no qdisc of gatewayd's and the ifb is gone.
tree_gone() {
	! ip netns exec "$NS" tc qdisc show dev v0 | grep -qE 'e000:|ingress ffff:' &&
		! ip -n "$NS" link show "$IFB" >/dev/null 2>&1
}

# unit_value KEY: the unit's last KEY= value.
unit_value() { sed -n "s/^$1=//p" "$UNIT" | tail -1; }

# sd_limit_cgroups: cgroups with the unit's MemoryMax= and TasksMax=, as systemd would give the
# service, where cgroup v1's memory and pids hierarchies can be written (a host whose systemd
# is not PID 1, like this one's); removed on exit. Sets SD_CG_MEM and SD_CG_PIDS (their
# directories) and SD_CG_PROCS (their cgroup.procs files, to write a pid into). Returns 1, having made nothing, where they cannot be made.
SD_CGROUPS=()
sd_limit_cgroups() {
	local mem pids max tasks
	mem=$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)
	pids=$(awk -F: '$2 == "pids" { print $3 }' /proc/self/cgroup)
	[ -n "$mem" ] && [ -n "$pids" ] && [ -w "/sys/fs/cgroup/memory$mem" ] &&
		[ -w "/sys/fs/cgroup/pids$pids" ] || return 1
	max=$(numfmt --from=iec "$(unit_value MemoryMax)") || return 1
	tasks=$(unit_value TasksMax)
	SD_CG_MEM=/sys/fs/cgroup/memory${mem%/}/$RUN_ID-unit
	SD_CG_PIDS=/sys/fs/cgroup/pids${pids%/}/$RUN_ID-unit
	mkdir "$SD_CG_MEM" || return 1
	SD_CGROUPS+=("$SD_CG_MEM")
	mkdir "$SD_CG_PIDS" || return 1
	SD_CGROUPS+=("$SD_CG_PIDS")
	echo "$max" >"$SD_CG_MEM/memory.limit_in_bytes" && echo "$tasks" >"$SD_CG_PIDS/pids.max" ||
		return 1
	SD_CG_PROCS="$SD_CG_MEM/cgroup.procs $SD_CG_PIDS/cgroup.procs"
}
sd_cleanup() {
	local d
	cleanup
	# the processes are gone (cleanup waited for them): the cgroups are empty
	for d in "${SD_CGROUPS[@]}"; do rmdir "$d" 2>/dev/null; done
}
trap sd_cleanup EXIT
[ -n "${KEEP_LOGS:-}" ] && trap 'cp -r "$TMPD" /tmp/kept-logs 2>/dev/null; sd_cleanup' EXIT
