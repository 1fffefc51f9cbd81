#!/usr/bin/env bash
# tests/netns/test_cni_rundir.sh: gatewayd-cni runs as root in the control socket's directory,
# which the daemon's user (gatewayd) owns: root must do nothing there by path. A process of
# that user swaps "cni" for a link to a file of root's (and then to a directory of root's) as
# fast as the kernel lets it (renameat2 RENAME_EXCHANGE with a directory root made there, so
# the name is a directory and a link by turns) while the plugin runs ADD and DEL 200 times (and
# 100 more with the link to the directory): the file's owner, mode and content never change,
# nothing appears in or goes from the directory, every ADD and DEL still exits 0. Then: the
# state file and "cni" are the directory owner's (0600, 0700); a directory owned by someone
# else, writable by its group, or a link is refused, and nothing is written. (Before this
# change the plugin did lstat, then chown(dir), so such a swap made root hand the file to
# gatewayd; its DEL unlinked by a path through the link.) The "host" is a namespace of its own;
# the directories are the test's own, never the host's /run/gatewayd.
set -u
LIB_RUN_PREFIX=cnird
. "$(dirname "$0")/lib.sh"
CNI=${GATEWAYD_CNI:-$(dirname "$GATEWAYD")/gatewayd-cni}
PLUGINS=${CNI_PLUGINS:-/usr/lib/cni}
ROUNDS=${CNI_RUNDIR_ROUNDS:-200}

if [ "$(id -u)" -ne 0 ]; then
	skip "the plugin's run directory" "needs root (namespaces)"
	exit 0
fi
if ! GW_UID=$(id -u gatewayd 2>/dev/null); then
	skip "the plugin's run directory" "no user gatewayd (make deps creates it): the directory is root's and nobody else can swap anything in it"
	exit 0
fi
for p in bridge host-local; do
	[ -x "$PLUGINS/$p" ] || { skip "the plugin's run directory" "no $PLUGINS/$p"; exit 0; }
done
command -v jq >/dev/null || { skip "the plugin's run directory" "no jq"; exit 0; }
[ -x "$CNI" ] || { not_ok "the plugin is built" "no $CNI"; exit 1; }

ns_new HOST host && ns_new C1 c1 || exit 1
NET=$RUN_ID
SUBNET=10.$((RANDOM % 200 + 20)).$((RANDOM % 250)).0/24
BRIDGE='{"cniVersion":"1.0.0","name":"'$NET'","type":"bridge","bridge":"rdbr0",
	"isGateway":true,"ipam":{"type":"host-local","subnet":"'$SUBNET'",
	"dataDir":"'$TMPD'/ipam"}}'
OUT=$TMPD/out
call() {
	ip netns exec "$HOST" env -i PATH="$PATH" CNI_COMMAND="$2" CNI_CONTAINERID="$3" \
		CNI_NETNS="$4" CNI_IFNAME="$5" CNI_PATH="$PLUGINS" "$1" >"$OUT" 2>>"$TMPD/stderr"
}
checkx() { if eval "$2"; then ok "$1"; else not_ok "$1" "failed: $2"; fi; }

# the daemon user's directory, as the daemon (or the unit's RuntimeDirectory) makes it
SW=$TMPD/swap
install -d -o gatewayd -g gatewayd -m 0755 "$SW"
call "$PLUGINS/bridge" ADD id-rd "/run/netns/$C1" eth0 <<<"$BRIDGE" ||
	{ not_ok "bridge ADD" "$(cat "$OUT")"; exit 1; }
PREV=$(cat "$OUT")
gwconf() {	# gwconf SOCKET_DIR
	jq -cn --arg n "$NET" --argjson prev "$PREV" --arg cs "$1/control.sock" \
		'{cniVersion:"1.0.0", name:$n, type:"gatewayd-cni", queue:{kind:"fifo",limit:100},
		  runtimeConfig:{bandwidth:{ingressRate:8000000,egressRate:8000000}},
		  prevResult:$prev, controlSocket:$cs}'
}
# The plugin is told the directory by a path through a chain of 30 links of root's ($TMPD/l30
# -> $TMPD/l29 -> ... -> $TMPD, as /var/run -> /run is one): every walk of that path takes a
# while, so a swap lands between one lookup of cni and the next (the plugin before this change
# did lstat, then chown, of that path) in a good share of the ADDs, not once in many runs.
ln -s "$TMPD" "$TMPD/l0"
for i in $(seq 1 30); do ln -s "$TMPD/l$((i - 1))" "$TMPD/l$i"; done
G=$(gwconf "$TMPD/l30/swap")
owner() { stat -c '%U:%G %a' "$1" 2>/dev/null; }

# -- an ADD without anyone in the way: where the state file goes, and whose it is
call "$CNI" ADD id-rd "/run/netns/$C1" eth0 <<<"$G"
rc=$?
STATE=$(find "$SW/cni" -maxdepth 1 -type f 2>/dev/null | head -1)
NAME=${STATE##*/}
checkx "ADD: exit 0, its state file $SW/cni/$NAME" '[ $rc -eq 0 ] && [ -n "$NAME" ]'
checkx "cni/ is the directory owner's, 0700 ($(owner "$SW/cni")); the state file too, 0600 ($(owner "$STATE"))" \
	'[ "$(owner "$SW/cni")" = "gatewayd:gatewayd 700" ] && [ "$(owner "$STATE")" = "gatewayd:gatewayd 600" ]'
call "$CNI" DEL id-rd "/run/netns/$C1" eth0 <<<"$G"
checkx "DEL: exit 0, the state file gone" '[ $? -eq 0 ] && [ ! -e "$STATE" ]'

# -- root's things a swap would reach: a file, and a directory holding a file named as the
# state file (which a DEL through the link would remove)
VICTIM=$TMPD/victim
VDIR=$TMPD/victimdir
echo "root's own" >"$VICTIM"
chmod 0640 "$VICTIM"
mkdir -m 0755 "$VDIR"
echo keep >"$VDIR/$NAME"
# (the directory's own mtime changes with any entry made or removed in it, even one made and
# removed again)
seen() {
	stat -c '%u:%g %a %s %Y' "$VICTIM" "$VDIR"
	sha1sum <"$VICTIM"
	ls -lnA --time-style=+%s "$VDIR" | sed 1d
	sha1sum <"$VDIR/$NAME"
}
before=$(seen)

# The swapper, as gatewayd: "cni" and "lnk" (a link to the target) exchanged in one call
# (renameat2 RENAME_EXCHANGE), over and over, so "cni" is a directory and a link by turns. The
# directory is one root made: the plugin's mkdir (the owner of the run directory may move it).
# Once a directory has been handed over to gatewayd it is no use: it is removed, the link put
# back as "lnk", and the next ADD's mkdir makes a new one (the exchanges fail until then).
# Until the file "stop" is there (at most 120 s); prints how many exchanges it made.
cat >"$TMPD/swap.py" <<'PY'
import ctypes, os, shutil, stat, sys, time
lib = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
os.chdir(sys.argv[1])
me = os.getuid()
n, end = 0, time.monotonic() + 120
while not os.path.exists("stop") and time.monotonic() < end:
    for _ in range(2048):
        n += lib.renameat2(AT_FDCWD, b"cni", AT_FDCWD, b"lnk", RENAME_EXCHANGE) == 0
    for name in ("cni", "lnk"):
        try:
            st = os.lstat(name)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_uid == me:
            shutil.rmtree(name, ignore_errors=True)
    try:
        if os.path.islink("cni") and not os.path.lexists("lnk"):
            os.rename("cni", "lnk")
    except OSError:
        pass
print(n, flush=True)
PY
# swap TARGET ROUNDS: ROUNDS of ADD and DEL while cni and a link to TARGET change places;
# prints the exchanges made and the plugin's failures
swap() {
	rm -rf "$SW/cni" "$SW/lnk" "$SW/stop"
	ln -s "$1" "$SW/lnk"
	chown -h gatewayd:gatewayd "$SW/lnk"
	setpriv --reuid=gatewayd --regid=gatewayd --clear-groups /usr/bin/python3 "$TMPD/swap.py" "$SW" \
		>"$TMPD/swaps" 2>&1 &
	local sp=$! fails=0 i
	PIDS+=("$sp")
	for ((i = 0; i < $2; i++)); do
		call "$CNI" ADD id-rd "/run/netns/$C1" eth0 <<<"$G" || fails=$((fails + 1))
		call "$CNI" DEL id-rd "/run/netns/$C1" eth0 <<<"$G" || fails=$((fails + 1))
	done
	touch "$SW/stop"
	wait "$sp"
	echo "$(cat "$TMPD/swaps") $fails"
}
lines=$(wc -l <"$TMPD/stderr")
read -r swaps fails < <(swap "$VICTIM" "$ROUNDS")
refused=$(($(wc -l <"$TMPD/stderr") - lines))
echo "# cni <-> a link to a file of root's: $swaps exchanges during $ROUNDS ADD+DEL; $refused warnings from the plugin"
# (an exchange needs both names: each one is made while a directory the plugin made is there)
checkx "the swapper ran throughout ($swaps exchanges)" '[ "${swaps:-0}" -gt 1000 ]'
checkx "$ROUNDS ADD and DEL beside it: every one exits 0 ($fails failed)" '[ "$fails" = 0 ]'
checkx "root's file: owner, mode and content unchanged ($(stat -c '%U:%G %a' "$VICTIM"))" \
	'[ "$(seen)" = "$before" ]'
echo "# the plugin found a link and wrote no state file $(grep -c "swap/cni: a link or not a directory: refused" "$TMPD/stderr") times"

read -r swaps fails < <(swap "$VDIR" $((ROUNDS / 2)))
echo "# cni <-> a link to a directory of root's: $swaps exchanges during $((ROUNDS / 2)) ADD+DEL"
checkx "the same with a link to a directory of root's: every ADD and DEL exits 0 ($fails failed)" \
	'[ "${swaps:-0}" -gt 1000 ] && [ "$fails" = 0 ]'
checkx "the directory: nothing made in it, nothing removed (its $NAME kept), no file changed" \
	'[ "$(seen)" = "$before" ]'
rm -rf "$SW/cni" "$SW/lnk" "$SW/stop"

# -- the directory itself: owned by another, writable by its group, a link: refused
call "$CNI" ADD id-rd "/run/netns/$C1" eth0 <<<"$G"
checkx "swapper gone: ADD writes its state file again, the owner's" \
	'[ $? -eq 0 ] && [ "$(owner "$SW/cni/$NAME")" = "gatewayd:gatewayd 600" ]'
call "$CNI" DEL id-rd "/run/netns/$C1" eth0 <<<"$G"
rm -rf "$SW/cni"
# refused DIR WHY: ADD exits 0 with one warning naming WHY, and no file is made in DIR's cni/
refused() {
	local lines
	lines=$(wc -l <"$TMPD/stderr")
	call "$CNI" ADD id-rd "/run/netns/$C1" eth0 <<<"$(gwconf "$1")"
	local rc=$?
	call "$CNI" DEL id-rd "/run/netns/$C1" eth0 <<<"$(gwconf "$1")"
	[ $rc -eq 0 ] && [ -z "$(find "$1/cni" -type f 2>/dev/null)" ] &&
		tail -n +$((lines + 1)) "$TMPD/stderr" | grep -q "$2"
}
install -d -o nobody -m 0755 "$TMPD/other"
checkx "a directory owned by nobody: refused, nothing written" \
	'refused "$TMPD/other" "owned by uid $(id -u nobody), neither root nor the user gatewayd"'
install -d -o gatewayd -g gatewayd -m 0775 "$TMPD/grp"
checkx "a directory writable by its group: refused, nothing written" \
	'refused "$TMPD/grp" "writable by its group (mode 0775): refused"'
ln -s "$SW" "$TMPD/linked"
checkx "a link for the directory: refused, nothing written" \
	'refused "$TMPD/linked" "linked: a link or not a directory: refused" && [ ! -e "$SW/cni" ]'
install -d -o gatewayd -g gatewayd -m 0755 "$SW/cni"
chmod 0777 "$SW/cni"
checkx "cni/ writable by others: refused" 'refused "$SW" "cni: writable by others"'
rm -rf "$SW/cni"
# made by the plugin where there was none: the service user's, 0755 (as the daemon makes it)
mkdir "$TMPD/new"
call "$CNI" ADD id-rd "/run/netns/$C1" eth0 <<<"$(gwconf "$TMPD/new/run")"
checkx "a missing directory is made, the user gatewayd's, 0755 ($(owner "$TMPD/new/run"))" \
	'[ $? -eq 0 ] && [ "$(owner "$TMPD/new/run")" = "gatewayd:gatewayd 755" ]' 2>/dev/null
call "$CNI" DEL id-rd "/run/netns/$C1" eth0 <<<"$(gwconf "$TMPD/new/run")"
echo "# $(wc -l <"$TMPD/stderr") lines on the plugin's stderr"; sort "$TMPD/stderr" | uniq -c | sort -rn | head -20 | sed "s/^/# /"
