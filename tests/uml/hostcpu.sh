# tests/uml/hostcpu.sh: how much CPU time the host took from a UML guest, measured on the host.
# A guest cannot see it: its clock is the host's, so the time its processes wait for a host CPU
# (or its VM's CPU waits for the hypervisor) is time in which its flows and probes stall, and its
# own /proc/stat calls that time busy or idle as it was when the stall began. Two sources, sampled
# every half second while the guest runs:
# - the run_delay of every process under the guest's launcher (/proc/PID/schedstat, second field:
#   nanoseconds spent runnable on a runqueue, not running), that is the guest's own host processes
#   waiting behind other work on the host;
# - the host's steal time (/proc/stat), the hypervisor's share of a virtual machine's CPUs.
# Source it from a host-side test; needs a kernel with schedstats (CONFIG_SCHED_INFO).
# shellcheck shell=bash

# hostcpu_start ROOT_PID FILE: sample ROOT_PID's process tree into FILE until ROOT_PID is gone
# (in the background; hostcpu_stop waits for it). One line a sample:
#   unix_time steal_ticks total_ticks pid:run_delay_ns ...
hostcpu_start() {
	local root=$1 file=$2
	: >"$file"
	(
		while kill -0 "$root" 2>/dev/null; do
			ps -e -o pid=,ppid= | awk -v root="$root" -v t="$(date +%s.%N)" '
				{ par[$1] = $2 }
				END {
					keep[root] = 1
					for (more = 1; more; ) {
						more = 0
						for (p in par)
							if (!(p in keep) && (par[p] in keep)) { keep[p] = 1; more = 1 }
					}
					getline st < "/proc/stat"
					split(st, f, " ")
					tot = 0
					for (i = 2; i <= 9; i++) tot += f[i]
					line = t " " f[9] " " tot
					for (p in keep) {
						fn = "/proc/" p "/schedstat"
						if ((getline s < fn) > 0) { split(s, g, " "); line = line " " p ":" g[2] }
						close(fn)
					}
					print line
				}' >>"$file"
			sleep 0.5
		done
	) &
	HOSTCPU_PID=$!
}
hostcpu_stop() { [ -n "${HOSTCPU_PID:-}" ] && wait "$HOSTCPU_PID" 2>/dev/null; HOSTCPU_PID=; }

# hostcpu_lost FILE T0 T1: "WAITED STOLEN" for the window [T0, T1] (Unix seconds): the percent
# of its wall time the guest's processes spent waiting for a host CPU (summed over them: the
# guest has one CPU, so one of them runs at a time), and the percent of the host's CPU time the
# hypervisor stole; "-1 -1" when fewer than two samples fall inside.
hostcpu_lost() {
	awk -v t0="$2" -v t1="$3" '
		$1 < t0 || $1 > t1 { next }
		{
			n++
			if (n == 1) { first_t = $1; first_steal = $2; first_tot = $3 }
			else
				for (i = 4; i <= NF; i++) {
					split($i, kv, ":")
					if (kv[1] in prev) waited += kv[2] - prev[kv[1]]
				}
			delete prev
			for (i = 4; i <= NF; i++) { split($i, kv, ":"); prev[kv[1]] = kv[2] }
			last_t = $1; last_steal = $2; last_tot = $3
		}
		END {
			if (n < 2 || last_t <= first_t) { print "-1 -1"; exit }
			stolen = last_tot > first_tot ? (last_steal - first_steal) / (last_tot - first_tot) : 0
			printf "%.0f %.0f\n", waited / 1e9 / (last_t - first_t) * 100, stolen * 100
		}' "$1"
}
