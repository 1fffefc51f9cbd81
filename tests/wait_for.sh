# tests/wait_for.sh: wait_for, the tests' one way to wait for a condition instead of a time.
# Sourced by tests/netns/lib.sh (so the netns, systemd, webui and bench scripts have it) and
# by tests/uml/lib.sh (the UML guest's scripts).
# shellcheck shell=bash

# wait_for CONDITION TIMEOUT [WHAT]: wait until CONDITION holds, for at most TIMEOUT seconds
# (decimals allowed). CONDITION is a shell command string run with eval: a function call with
# its arguments, `grep -q reloaded "$GW_LOG"`, `[ "$(count)" -ge 2 ]`. It is tried at once,
# then every WAIT_FOR_STEP seconds (default 0.05; the UML guest's lib.sh sets 0.1, an exec
# costs ~0.15 s there), and once more when the time is up. Returns 0 as soon as it holds;
# on time-out returns 1 and says on stderr what it waited for (WHAT, else CONDITION) and for
# how long, so the check that fails next has its reason printed beside it. 2: bad usage.
# Either way WAIT_FOR_MS is set to the milliseconds it took.
# shellcheck disable=SC2034  # WAIT_FOR_MS is for the caller
wait_for() {
	# (names no caller's CONDITION would use: it is evaluated in here)
	local _wf_cond=${1:-} _wf_tmo=${2:-} _wf_what=${3:-${1:-}} _wf_start _wf_end _wf_now
	case $_wf_tmo in '' | *[!0-9.]* | *.*.*)
		echo "# wait_for: TIMEOUT must be seconds, got '$_wf_tmo' (condition: $_wf_cond)" >&2
		return 2 ;;
	esac
	wait_for_us_ _wf_start "$EPOCHREALTIME"
	wait_for_us_ _wf_end "$_wf_tmo"
	_wf_end=$((_wf_start + _wf_end))
	while :; do
		if eval "$_wf_cond"; then
			wait_for_us_ _wf_now "$EPOCHREALTIME"
			WAIT_FOR_MS=$(((_wf_now - _wf_start) / 1000))
			return 0
		fi
		wait_for_us_ _wf_now "$EPOCHREALTIME"
		WAIT_FOR_MS=$(((_wf_now - _wf_start) / 1000))
		[ "$_wf_now" -lt "$_wf_end" ] || break
		sleep "${WAIT_FOR_STEP:-0.05}"	# the polling interval itself
	done
	echo "# wait_for: gave up after $_wf_tmo s waiting for: $_wf_what" >&2
	return 1
}

# wait_for_us_ VAR SECONDS: SECONDS (a decimal, at most 6 places) as whole microseconds in
# VAR, without a subshell (each fork costs in the UML guest).
wait_for_us_() {
	local _wf_s=$2 _wf_i _wf_f=""
	_wf_i=${_wf_s%%.*}
	[[ $_wf_s == *.* ]] && _wf_f=${_wf_s#*.}
	_wf_f=${_wf_f}000000
	printf -v "$1" '%d' $((10#${_wf_i:-0} * 1000000 + 10#${_wf_f:0:6}))
}
