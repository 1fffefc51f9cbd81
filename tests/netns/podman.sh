# tests/netns/podman.sh: Debian's podman with its CNI backend in a namespace of its own, for
# tests/netns/test_podman.sh and tests/bench/cni-podman.sh. Source it after lib.sh (it uses
# TMPD, ns_new and cleanup). podman's storage, state and config live in $TMPD; a container's
# root is a local directory with the host's /usr mounted read-only in it (nothing is pulled).
# shellcheck shell=bash

# podman_setup VAR NET CNI_DIR...: a namespace for podman (its name in VAR), the config that
# makes NET (its conflist goes to $TMPD/cni/NET.conflist, the caller writes it) the default
# network and looks for plugins in each CNI_DIR in turn; defines pm (podman in that namespace)
# and an EXIT trap that removes every container and mount before lib.sh's cleanup.
podman_setup() {
	local _var=$1 net=$2 dirs d
	shift 2
	ns_new "$_var" host || return 1
	PODMAN_NS=${!_var}
	dirs=$(for d in "$@"; do printf '"%s", ' "$d"; done)
	mkdir -p "$TMPD"/{cni,root,run,tmp,rootfs/usr} &&
		(cd "$TMPD/rootfs" && mkdir proc sys dev tmp etc run var &&
			ln -s usr/bin bin && ln -s usr/lib lib && ln -s usr/lib64 lib64 && ln -s usr/sbin sbin) ||
		return 1
	# The machine's cgroups are hybrid (v1 controllers), which crun refuses: runc. podman's
	# default NOFILE and NPROC limits are above what root may set where it lacks
	# CAP_SYS_RESOURCE (some sandboxes): lower ones.
	cat >"$TMPD/containers.conf" <<-CONF
		[containers]
		default_ulimits = ["nofile=1024:$(ulimit -Hn)", "nproc=4096:4096"]
		[engine]
		cgroup_manager = "cgroupfs"
		events_logger = "file"
		events_logfile_path = "$TMPD/events.log"
		runtime = "runc"
		tmp_dir = "$TMPD/tmp"
		[network]
		network_backend = "cni"
		network_config_dir = "$TMPD/cni"
		cni_plugin_dirs = [${dirs%, }]
		default_network = "$net"
	CONF
	cat >"$TMPD/storage.conf" <<-CONF
		[storage]
		driver = "vfs"
		graphroot = "$TMPD/root"
		runroot = "$TMPD/run"
	CONF
	export CONTAINERS_CONF=$TMPD/containers.conf CONTAINERS_STORAGE_CONF=$TMPD/storage.conf
	trap podman_cleanup EXIT
}

# pm ARGS...: podman in its namespace: nsenter, not `ip netns exec`, which mounts a sysfs of
# its own where runc finds no cgroups
pm() { nsenter --net="/run/netns/$PODMAN_NS" podman "$@"; }

# pm_run NAME NET CMD...: a detached container NAME on NET from the local root; prints its id
pm_run() {
	local name=$1 net=$2
	shift 2
	pm run -d --name "$name" --network "$net" -v /usr:/usr:ro --rootfs "$TMPD/rootfs" "$@"
}

podman_cleanup() {
	local m
	pm rm -a -f -t 0 >/dev/null 2>&1
	# the scratch directory goes with rm -rf: never while anything (/usr) is mounted under it
	for m in $(awk -v d="$TMPD" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
		umount -l "$m"
	done
	if awk -v d="$TMPD" 'index($2, d) == 1 { f = 1 } END { exit !f }' /proc/mounts; then
		echo "# mounts left under $TMPD: not removed"
		TMPD=/nonexistent
	fi
	cleanup
}
