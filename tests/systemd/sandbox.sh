#!/usr/bin/env bash
# tests/systemd/sandbox.sh UNIT UID[:GID] DIR -- CMD...: run CMD (as root, in any network
# namespace) roughly the way systemd would run UNIT's ExecStart=, for hosts where systemd is
# not PID 1 and the unit cannot be started. DIR (the config, the notify socket, the binary)
# stays visible, as /etc/gatewayd and /run/systemd/notify would. What it rebuilds, and how:
#   User=, Group=              uid UID and gid GID (UID when not given), no supplementary
#                              groups (setpriv)
#   CapabilityBoundingSet=, AmbientCapabilities=, NoNewPrivileges=  read from UNIT (setpriv)
#   ProtectSystem=strict, ProtectKernelTunables=, ProtectControlGroups=: every mount read-only
#   PrivateTmp=, ProtectHome=  empty tmpfs over /tmp /var/tmp /home /root /run/user
#   RuntimeDirectory=, RuntimeDirectoryMode=  a tmpfs over /run/NAME, UID's, of that mode (the
#                              daemon's locks and control socket are there)
#   PrivateDevices=            a /dev with null zero full random urandom tty and nothing else
#   ProtectProc=invisible, ProcSubset=pid: a procfs of its own, hidepid=invisible,subset=pid
#   PrivateIPC=, ProtectHostname=: IPC and UTS namespaces of its own
#   UMask=0077
#   SystemCallFilter=, RestrictNamespaces=, RestrictAddressFamilies=, MemoryDenyWriteExecute=,
#   LockPersonality=: seccomp, by seccomp_exec.py, also read from UNIT
# An approximation of systemd's sandbox, not a copy of it. The pid of CMD is the pid this
# script was started with (everything on the way execs), as with systemd's main pid.
set -eu
unit=$1 uid=${2%%:*} gid=${2#*:} keep=$3
shift 3
[ "${1:-}" = -- ] && shift
here=$(cd "$(dirname "$0")" && pwd)

if [ -z "${GW_SANDBOX_INNER:-}" ]; then
	# the helpers must survive the mounts below: put them in DIR
	cp "$here/seccomp_exec.py" "$keep/seccomp_exec.py"
	cp "$unit" "$keep/unit.service"
	chmod 0644 "$keep/seccomp_exec.py" "$keep/unit.service"
	GW_SANDBOX_INNER=1 exec unshare --mount --uts --ipc --propagation private -- \
		bash "$0" "$keep/unit.service" "$uid:$gid" "$keep" -- "$@"
fi
unset GW_SANDBOX_INNER

# capabilities from the unit: "CAP_NET_ADMIN CAP_NET_RAW" -> "-all,+net_admin,+net_raw"
caps() {
	local c out=-all
	for c in $(sed -n "s/^$1=//p" "$unit"); do
		c=${c#CAP_}
		out+=",+${c,,}"
	done
	echo "$out"
}

exec 9<"$keep"	# DIR itself, to bind back after /tmp is covered
rundirs=$(sed -n 's/^RuntimeDirectory=//p' "$unit")
rundir_mode=$(sed -n 's/^RuntimeDirectoryMode=//p' "$unit")
for d in $rundirs; do mkdir -p "/run/$d"; done	# a mount point, before / is read-only
findmnt -rn -o TARGET | while read -r m; do
	mount -o remount,bind,ro "$m" 2>/dev/null || true
done
for d in /tmp /var/tmp /home /root /run/user; do
	if [ -d "$d" ]; then mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs "$d"; fi
done
chmod 1777 /tmp /var/tmp
for d in $rundirs; do
	mount -t tmpfs -o "mode=${rundir_mode:-0755},uid=$uid,gid=$uid,nosuid,nodev" tmpfs "/run/$d"
done
mount -t tmpfs -o mode=0755,nosuid,noexec tmpfs /dev
mknod -m 0666 /dev/null c 1 3
mknod -m 0666 /dev/zero c 1 5
mknod -m 0666 /dev/full c 1 7
mknod -m 0666 /dev/random c 1 8
mknod -m 0666 /dev/urandom c 1 9
mknod -m 0666 /dev/tty c 5 0
ln -s /proc/self/fd /dev/fd
mkdir -m 1777 /dev/shm
mount -t proc -o nosuid,nodev,noexec,hidepid=invisible,subset=pid proc /proc
mkdir -p "$keep"
mount --no-canonicalize --bind /proc/self/fd/9 "$keep"
exec 9<&-
umask 0077
exec setpriv --reuid="$uid" --regid="$gid" --clear-groups \
	--inh-caps="$(caps AmbientCapabilities)" --ambient-caps="$(caps AmbientCapabilities)" \
	--bounding-set="$(caps CapabilityBoundingSet)" --no-new-privs -- \
	/usr/bin/python3 "$keep/seccomp_exec.py" "$keep/unit.service" -- "$@"
