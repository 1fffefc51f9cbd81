#!/usr/bin/env bash
# tests/uml/test_harness.sh: proves the UML harness (uml-run) and the guest kernel. Run from the
# repo root as root. Prints "ok - / not ok - / skip -" lines for tests/run.
#  (a0) gatewayd-uml-exec reads the host's XSAVE size and can hide that regset from linux.uml;
#  (a) a guest script's stdout, stderr and exit status reach the host, two runs at once;
#  (b)+(c) tests/uml/guest/kernel-features.sh: fq_codel, cake, netem, ingress+ifb+u32+mirred,
#      and a shaped load (goodput, loaded ping) through the router namespace;
#  (e) gatewayd-uml --net: the host fetches a file from a listener in the guest, on the guest's
#      address, through the launcher's tap; without --net no tap and no vec0; the tap is gone
#      after the run, after the launcher's timeout and after a SIGTERM to it;
#  (d) nothing is left on the host: namespaces, run directories, processes.
set -u
cd "$(dirname "$0")/../.." || exit 1
run=tests/uml/uml-run
# ok, not_ok NAME DETAIL, skip
. tests/tap.sh

if [ "$(id -u)" != 0 ]; then
	echo "skip - uml harness: needs root"
	exit 0
fi
if [ ! -x "${UML_LINUX:-/usr/bin/linux.uml}" ]; then
	# make deps installs user-mode-linux; without it this suite cannot say anything.
	not_ok "uml harness" "linux.uml missing (make deps installs user-mode-linux)"
	exit 1
fi

# A private base for the run directories, so (d) can see exactly what these runs left.
base=$(mktemp -d /var/tmp/gw-uml-test.XXXXXX) || exit 1
export UML_RUN_TMPDIR=$base
out=$(mktemp -d /var/tmp/gw-uml-out.XXXXXX) || exit 1
trap 'rm -rf "$out"; rmdir "$base" 2>/dev/null' EXIT
netns_before=$(ip netns list | sort)
umldir_before=$(ls -A "${HOME:-/root}/.uml" 2>/dev/null)
t0=$SECONDS

# (a0) gatewayd-uml-exec: the host's XSAVE regset size as ptrace reads it, and its filter
# hiding that regset (the helper's own check, run under the filter, then reads none).
ux=build/gatewayd-uml-exec
chk=$($ux --check)
crc=$?
size=$(echo "$chk" | sed -n 's/^host xstate \([0-9]*\) bytes, linux.uml 832$/\1/p')
want=1
[ "$size" = 832 ] || [ "$size" = 0 ] && want=0
if [ -n "$size" ] && [ "$crc" = "$want" ]; then
	ok "gatewayd-uml-exec --check: $chk (exit $crc)"
else
	not_ok "gatewayd-uml-exec --check" "exit $crc, printed '$chk'"
fi
hid=$($ux --no-xstate "$PWD/$ux" --check)
hrc=$?
if [ "$hrc" = 0 ] && [ "$hid" = "host xstate 0 bytes, linux.uml 832" ]; then
	ok "gatewayd-uml-exec --no-xstate hides the regset from what it runs"
else
	not_ok "gatewayd-uml-exec --no-xstate hides the regset" "exit $hrc, printed '$hid'"
fi
$ux --no-xstate /nonexistent/linux.uml 2>/dev/null
[ $? = 127 ] && ok "gatewayd-uml-exec: a missing kernel exits 127" ||
	not_ok "gatewayd-uml-exec: a missing kernel" "did not exit 127"

# (a) two runs at once, each must get its own output and status.
$run --timeout 60 tests/uml/guest/exit-status.sh marker-one 3 >"$out/one" 2>&1 &
p1=$!
$run --timeout 60 tests/uml/guest/exit-status.sh marker-two 4 >"$out/two" 2>&1 &
p2=$!
wait "$p1"
rc1=$?
wait "$p2"
rc2=$?
if [ "$rc1" = 3 ] && grep -qx 'stdout marker-one 6\.1\..*' "$out/one" && grep -qx 'stderr marker-one' "$out/one"; then
	ok "guest exit 3 and its stdout+stderr reach the host"
else
	not_ok "guest exit 3 and its stdout+stderr reach the host" "rc $rc1, output: $(head -c 2000 "$out/one")"
fi
if [ "$rc2" = 4 ] && grep -q 'marker-two' "$out/two" && ! grep -q 'marker-one' "$out/two" &&
	! grep -q 'marker-two' "$out/one"; then
	ok "two concurrent runs do not mix (second exited 4)"
else
	not_ok "two concurrent runs do not mix" "rc $rc2, output: $(head -c 2000 "$out/two")"
fi
echo "# (a) two concurrent boots took $((SECONDS - t0)) s"

# (b)+(c): the guest prints its own ok/not ok lines; they pass straight through.
t1=$SECONDS
$run --timeout 75 tests/uml/guest/kernel-features.sh >"$out/features" 2>&1
rc=$?
cat "$out/features"
if [ "$rc" = 0 ]; then
	ok "guest kernel features and load run exited 0"
else
	not_ok "guest kernel features and load run" "uml-run exited $rc"
fi
echo "# (b)+(c) took $((SECONDS - t1)) s"

# (e) --net, four guests at once: one serving a file to the host, one without --net, one
# that outlives the launcher's --timeout, one whose launcher gets a SIGTERM. Each launcher's
# tap is gwuml<its pid> (uml-run execs the launcher: $! is that pid).
t2=$SECONDS
# shellcheck source=tests/wait_for.sh
. tests/wait_for.sh
taps() { ip -o link show 2>/dev/null | grep -c ": gwuml${1}[:@]"; }
mkdir -p "$out/www"
token=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
echo "$token" >"$out/www/token"
$run --net --timeout 60 tests/uml/guest/net.sh net "$out/www" >"$out/net" 2>&1 &
pn=$!
$run --timeout 60 tests/uml/guest/net.sh nonet "$out/www" >"$out/nonet" 2>&1 &
pq=$!
$run --net --timeout 8 tests/uml/guest/net.sh hang "$out/www" >"$out/hang" 2>&1 &
ph=$!
$run --net --timeout 60 tests/uml/guest/net.sh hang "$out/www" >"$out/term" 2>&1 &
pt=$!
wait_for "grep -q '^listening on' '$out/net'" 40 "the --net guest's listener"
addr=$(sed -n 's/^net addr=\([0-9.]*\) host=.*/\1/p' "$out/net")
host_end=$(ip -o -4 addr show dev "gwuml$pn" 2>/dev/null | awk '{print $4}')
got=$(curl -s --max-time 5 "http://$addr:9181/token")
touch "$out/www/done"
if [ -n "$addr" ] && [ "$got" = "$token" ]; then
	ok "--net: the host fetched the guest's file from http://$addr:9181/ (tap gwuml$pn, host end $host_end)"
else
	not_ok "--net: the host fetches from a listener in the guest" "addr '$addr', got '$got', guest said: $(head -c 600 "$out/net")"
fi
wait_for "grep -q '^hanging' '$out/term'" 40 "the guest to be signalled to start"
wait_for "grep -q '^nonet' '$out/nonet'" 40 "the guest without --net"
nq=$(taps "$pq")
nt=$(taps "$pt")
kill -TERM "$pt"
wait "$pn"
rcn=$?
wait "$pq"
rcq=$?
wait "$ph"
rch=$?
wait "$pt"
rct=$?
if [ "$rcq" = 0 ] && grep -q '^nonet addr=none vec0=0$' "$out/nonet" && [ "$nq" = 0 ]; then
	ok "without --net: no tap on the host, no GWUML_NET_ADDR and no vec0 in the guest"
else
	not_ok "without --net: no network" "rc $rcq, $nq taps, guest said: $(head -c 600 "$out/nonet")"
fi
left=$(($(taps "$pn") + $(taps "$ph") + $(taps "$pt")))
if [ "$rcn" = 0 ] && [ "$rch" = 124 ] && [ "$nt" = 1 ] && [ "$rct" = 143 ] && [ "$left" = 0 ]; then
	ok "the tap is removed after a run (status $rcn), a timeout (status $rch) and a SIGTERM (status $rct; its tap was there before)"
else
	not_ok "the tap is removed on every path" "statuses $rcn, $rch (want 124), $rct (want 143), the signalled one's tap before: $nt, taps left: $left: $(ip -o link show | grep gwuml | tr '\n' ' ')"
fi
echo "# (e) took $((SECONDS - t2)) s"

# (d) the guest's namespaces, mounts and files stayed inside it, and every run cleaned up.
# Other work on a shared machine may add namespaces meanwhile: any of the guest's own names
# (gwc, gwr, gws) showing up on the host is the failure; other changes are only reported.
netns_after=$(ip netns list | sort)
leaked=$(comm -13 <(echo "$netns_before") <(echo "$netns_after") | awk '{print $1}' |
	grep -xE 'gw[crs]')
if [ "$netns_before" = "$netns_after" ]; then
	ok "host namespaces unchanged"
elif [ -z "$leaked" ]; then
	ok "no guest namespace on the host"
	echo "# note: host namespaces changed meanwhile (not the guest's): before [$netns_before] after [$netns_after]" | tr '\n' ' '
	echo
else
	not_ok "host namespaces unchanged" "guest namespaces on the host: $leaked"
fi
left=$(ls -A "$base")
umldir_after=$(ls -A "${HOME:-/root}/.uml" 2>/dev/null)
[ "$umldir_before" = "$umldir_after" ] || left="$left ~/.uml: $umldir_after"
if [ -z "$left" ]; then
	ok "run directories removed"
else
	not_ok "run directories removed" "left in $base: $left"
fi
# Every linux.uml of these runs has uml_dir=$base/... on its command line (its guest
# processes too: they are host processes). grep would match its own command line, so match
# in the shell.
procs=""
for f in /proc/[0-9]*/cmdline; do
	c=$(tr '\0' ' ' 2>/dev/null <"$f")
	case $c in *"uml_dir=$base/"*) procs="$procs ${f#/proc/}" ;; esac
done
if [ -z "$procs" ]; then
	ok "no guest process left on the host"
else
	not_ok "no guest process left on the host" "$procs"
fi
echo "# whole suite took $((SECONDS - t0)) s"
tap_status
