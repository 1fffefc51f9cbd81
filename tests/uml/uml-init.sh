#!/bin/bash
# tests/uml/uml-init.sh: PID 1 of a uml-run guest. Gives the guest private scratch mounts on
# top of the host's root (hostfs), loads kernel modules, runs the job's script and leaves its
# output and exit status in the run directory on the host, then halts.
# The kernel panics if PID 1 exits, so every path ends in halt_now; no `set -e` here.
# Every exec costs ~0.15 s in UML, so builtins are used wherever one will do.
# shellcheck disable=SC2154  # script, args, cwd, ... come from $run/job
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LC_ALL=C.UTF-8

run=${gwuml_run:-} # from the kernel command line (unknown a=b parameters become env)
out=/dev/console

halt_now() {
	sync
	halt -f
	# Only reached if halt is missing or refuses; sysrq 'o' powers off from the kernel.
	echo o >/proc/sysrq-trigger
	while :; do sleep 3600; done
}

# Harness messages go to the output the host prints and to the console log (boot problems).
say() {
	echo "uml-init: $*" >>"$out"
	[ "$out" = /dev/console ] || echo "uml-init: $*" >/dev/console
}

if [ -z "$run" ] || [ ! -f "$run/job" ]; then
	say "no job: gwuml_run='$run' is not a uml-run directory"
	mount -t proc proc /proc
	halt_now
fi
out=$run/output
: >"$out"
# Sets script, args, cwd, modules, harness, guest_deadline and the GW_* variables.
# shellcheck source=/dev/null
. "$run/job" || {
	say "cannot read $run/job"
	halt_now
}

# ---- mounts ------------------------------------------------------------------------------
# The root is the host's: anything written outside these tmpfs mounts lands on the host.
# /run keeps `ip netns add` (/run/netns) and lock files inside the guest. One `mount -a` on a
# table written into the run directory instead of one mount per line.
{
	echo "proc /proc proc defaults 0 0"
	echo "sysfs /sys sysfs defaults 0 0"
	echo "devtmpfs /dev devtmpfs defaults 0 0" # a no-op where the kernel mounted it already
	echo "tmpfs /run tmpfs mode=755 0 0"
	echo "tmpfs /dev/shm tmpfs mode=1777,X-mount.mkdir 0 0"
	# A tmpfs on /tmp would hide the run directory, the script or its cwd if they live there.
	case "$run/ $script $cwd/" in
	/tmp/* | *" /tmp/"*) under_tmp=1 ;;
	*) echo "tmpfs /tmp tmpfs mode=1777 0 0" ;;
	esac
} >"$run/fstab"
mount -a -T "$run/fstab" || say "mount -a -T $run/fstab failed"
[ -n "${under_tmp:-}" ] && say "note: /tmp is the host's /tmp (the run directory, script or cwd is under it)"
echo uml-gw >/proc/sys/kernel/hostname
ip link set lo up

# ---- modules -------------------------------------------------------------------------
# uml-run made $run/modroot/lib/modules point at /usr/lib/uml/modules and $run/modprobe run
# `modprobe -d $run/modroot`: so modprobe resolves dependencies from the uml tree's own
# modules.dep, and the kernel's on-demand loading (tc asking for a qdisc kind, nft for an
# expression) finds the tree too. One `modprobe -a` loads the whole set in ~0.4 s, where an
# insmod per module took 3 s more per boot.
read -r rel </proc/sys/kernel/osrelease
moddir=/usr/lib/uml/modules/$rel
# Always wanted by the networking tests; the netfilter ones only where the tree has them.
default_mods="veth ifb sch_htb sch_tbf sch_fq_codel sch_cake sch_netem sch_ingress cls_u32 act_mirred"
optional_mods="nfnetlink nf_tables nf_conntrack nf_nat nft_chain_nat nft_nat nft_ct nft_masq
	nft_redir nft_reject nft_reject_inet nft_fib nft_fib_inet nft_limit nft_counter"
wanted="$default_mods $modules"
wanted=${wanted//-/_}
failed=""
if [ ! -f "$moddir/modules.dep" ]; then
	say "no module tree at $moddir: no module loaded"
	failed=$wanted
else
	echo "$run/modprobe" >/proc/sys/kernel/modprobe
	export MODPROBE_OPTIONS="-d $run/modroot"
	present=""
	for m in $optional_mods; do
		for f in "$moddir"/kernel/net/netfilter/"$m".ko*; do
			[ -e "$f" ] && present="$present $m"
		done
	done
	# shellcheck disable=SC2086  # word lists
	modprobe -a $wanted $present 2>>"$out"
	# Name each module that is not there, so a test can tell why its qdisc kind is unknown.
	declare -A builtin
	mapfile -t lines <"$moddir/modules.builtin"
	for l in "${lines[@]}"; do
		l=${l##*/}
		l=${l%%.ko*}
		builtin[${l//-/_}]=1
	done
	for m in $wanted $present; do
		[ -d "/sys/module/$m" ] || [ -n "${builtin[$m]:-}" ] || failed="$failed $m"
	done
fi
failed=${failed# }
[ -n "$failed" ] && say "modules not loaded: $failed"

# ---- the script ------------------------------------------------------------------------
export UML_RUN=1 UML_HARNESS="$harness" UML_LIB="$harness/lib.sh" UML_MODULES_FAILED="$failed"
read -r up _ </proc/uptime
left=$((guest_deadline - ${up%.*}))
[ "$left" -ge 1 ] || left=1
status=125
if cd "$cwd"; then
	# -k: a script that ignores SIGTERM still ends, so the status is still reported.
	timeout -k 3 "$left" "$script" "${args[@]}" </dev/null >>"$out" 2>&1
	status=$?
	read -r up2 _ </proc/uptime
	if [ $((${up2%.*} - ${up%.*})) -ge "$left" ] && { [ $status = 124 ] || [ $status = 137 ]; }; then
		say "script stopped after its ${left}s (uml-run --timeout)"
		status=124
	fi
else
	say "cannot cd to $cwd"
fi
# The host reads this only after linux.uml has exited, so no rename dance is needed.
echo "$status" >"$run/status"
halt_now
