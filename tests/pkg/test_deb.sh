#!/usr/bin/env bash
# tests/pkg/test_deb.sh: `make deb` builds a package lintian finds no error in, and it installs
# (making the users gatewayd and gatewayd-web), runs as gatewayd, keeps its conffile and goes
# away cleanly in a scratch root: an overlay whose lower layer is this machine's / and whose
# upper layer is a tmpfs, entered with chroot, the source tree hidden. Then `make deps` and
# `make install` make the users there too, from a copy of the tree. Nothing reaches the host:
# checked before and after. Root: mount, chroot, netns.
set -u
. "$(dirname "$0")/../netns/lib.sh"
BUILD=${BUILD:-build}

if [ "$(id -u)" -ne 0 ]; then
	skip "Debian package" "needs root (an overlay mount and chroot)"
	exit 0
fi
for t in dpkg-deb dpkg-shlibdeps dpkg-gencontrol lintian; do
	if ! command -v "$t" >/dev/null; then
		skip "Debian package" "no $t (make deps installs dpkg-dev and lintian)"
		exit 0
	fi
done

# What the host has of gatewayd before: afterwards it must be exactly the same.
HOST_PATHS=(/usr/sbin/gatewayd /lib/systemd/system/gatewayd.service /etc/gatewayd
	/lib/systemd/system-generators/gatewayd-generator
	/usr/share/doc/gatewayd /usr/libexec/gatewayd /usr/share/man/man8/gatewayd.8.gz
	/usr/lib/cni/gatewayd-cni /usr/share/man/man8/gatewayd-cni.8.gz
	/etc/systemd/system/multi-user.target.wants/gatewayd.service
	/usr/lib/sysusers.d/gatewayd.conf /usr/local/sbin/gatewayd)
host_state() {
	local p
	for p in "${HOST_PATHS[@]}"; do [ -e "$p" ] && echo "present $p" || echo "absent $p"; done
	echo "dpkg: $(dpkg-query -W -f='${Status}' gatewayd 2>/dev/null || echo unknown)"
}
host_before=$(host_state)

# The scratch root. Everything lives in one tmpfs (SCR) mounted for this run: the overlay's
# upper and work directories, and the merged root R. It is only ever unmounted (umount -R)
# and rmdir'd, never rm -r'd, so nothing can delete through a mount into the host.
SCR=/tmp/$RUN_ID-deb
R=$SCR/root
scratch_down() {
	[ -d "$SCR" ] || return 0
	umount -R "$SCR" 2>/dev/null || umount -R -l "$SCR" 2>/dev/null
	rmdir "$SCR" 2>/dev/null
}
trap 'cleanup; scratch_down' EXIT

# -- the package -------------------------------------------------------------------------
out=$(cd "$TOP" && env -u MAKEFLAGS -u MAKELEVEL make --no-print-directory BUILD="$BUILD" deb 2>&1)
rc=$?
deb=$(printf '%s\n' "$out" | tail -1)
version=$(sed -n 's/^VERSION := //p' "$TOP/Makefile")
arch=$(dpkg --print-architecture)
case $deb in
"$BUILD"/gatewayd_"$version"-*_"$arch".deb) ;;
*) deb="" ;;
esac
if [ $rc -ne 0 ] || [ -z "$deb" ] || [ ! -f "$TOP/$deb" ]; then
	not_ok "make deb builds $BUILD/gatewayd_${version}-REV_${arch}.deb" "exit $rc"
	printf '%s\n' "$out" | tail -20 | sed 's/^/#   /'
	exit 1
fi
deb=$TOP/$deb
ok "make deb: ${deb#"$TOP"/} ($(stat -c %s "$deb") bytes)"

ctl() { dpkg-deb -f "$deb" "$1"; }
v=$(ctl Version)
check "control: Package gatewayd, Architecture $arch, Version $v (the Makefile's $version)" \
	[ "$(ctl Package) $(ctl Architecture) ${v%-*}" = "gatewayd $arch $version" ]
echo "# Installed-Size: $(ctl Installed-Size) KiB"

# every shared library the binary needs is in Depends, by the package that ships it
files=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|')
tmpx=$TMPD/x
dpkg-deb -x "$deb" "$tmpx"
depends=$(ctl Depends)
echo "# Depends: $depends"
missing=""
for so in $(objdump -p "$tmpx/usr/sbin/gatewayd" "$tmpx/usr/lib/cni/gatewayd-cni" \
	"$tmpx/usr/libexec/gatewayd/gatewayd-bench" |
	awk '$1 == "NEEDED" { print $2 }' | sort -u); do
	pkgs=$(dpkg -S "*/$so" 2>/dev/null | cut -d: -f1 | tr ',' '\n' | sed 's/ //g' | sort -u)
	found=0
	for p in $pkgs; do
		case ", $depends," in *", $p "* | *", $p,"*) found=1 ;; esac
	done
	[ $found = 1 ] || missing="$missing $so($pkgs)"
done
check "Depends names the package of every NEEDED library${missing:+ (missing:$missing)}" \
	[ -z "$missing" ]
hardened() {
	local b=$1
	! readelf -S "$b" | grep -q '\.debug_info' && readelf -d "$b" | grep -q BIND_NOW &&
		readelf -d "$b" | grep -q PIE && readelf -lW "$b" | grep -q GNU_RELRO &&
		readelf -sW --dyn-syms "$b" | grep -q '__[a-z]*_chk@'
}
check "the binary is stripped and hardened (relro, bind-now, PIE, fortified calls)" \
	hardened "$tmpx/usr/sbin/gatewayd"
check "the CNI plugin too (/usr/lib/cni/gatewayd-cni)" hardened "$tmpx/usr/lib/cni/gatewayd-cni"
check "and the bench (/usr/libexec/gatewayd/gatewayd-bench)" \
	hardened "$tmpx/usr/libexec/gatewayd/gatewayd-bench"

want="/usr/sbin/gatewayd /lib/systemd/system/gatewayd.service /etc/gatewayd/gatewayd.conf
	/lib/systemd/system-generators/gatewayd-generator
	/usr/share/man/man8/gatewayd.8.gz /usr/share/man/man5/gatewayd.conf.5.gz
	/usr/share/doc/gatewayd/copyright /usr/share/doc/gatewayd/changelog.Debian.gz
	/usr/share/doc/gatewayd/examples/home-router.conf
	/usr/share/doc/gatewayd/examples/office-router.conf
	/usr/share/doc/gatewayd/examples/container-host.conf
	/usr/libexec/gatewayd/gatewayd-bench
	/usr/libexec/gatewayd/gatewayd-uml /usr/libexec/gatewayd/gatewayd-uml-init
	/usr/lib/cni/gatewayd-cni /usr/share/man/man8/gatewayd-cni.8.gz
	/usr/lib/sysusers.d/gatewayd.conf
	/usr/share/doc/gatewayd/examples/cni/podman.conflist
	/usr/share/doc/gatewayd/examples/cni/containerd.conflist"
absent=""
for f in $want; do printf '%s\n' "$files" | grep -qx "$f" || absent="$absent $f"; done
check "the package holds the binary, unit, sysusers.d file, man pages, examples, copyright, changelog${absent:+ (no$absent)}" \
	[ -z "$absent" ]
check "man pages and changelog gzipped (gzip -t)" gzip -t "$tmpx"/usr/share/man/man*/*.gz \
	"$tmpx/usr/share/doc/gatewayd/changelog.Debian.gz"
check "the unit runs /usr/sbin/gatewayd with /etc/gatewayd/gatewayd.conf" \
	grep -qx 'ExecStart=/usr/sbin/gatewayd -c /etc/gatewayd/gatewayd.conf' \
	"$tmpx/lib/systemd/system/gatewayd.service"
gen_paths() {
	local g=$tmpx/lib/systemd/system-generators/gatewayd-generator
	[ -x "$g" ] && grep -qx 'bin=/usr/sbin/gatewayd' "$g" &&
		grep -qx 'conf=/etc/gatewayd/gatewayd.conf' "$g"
}
check "the generator is executable and runs /usr/sbin/gatewayd on /etc/gatewayd/gatewayd.conf" gen_paths
check "the sysusers.d file declares the users gatewayd and gatewayd-web" \
	eval 'grep -qE "^u gatewayd - " "$tmpx/usr/lib/sysusers.d/gatewayd.conf" &&
		grep -qE "^u gatewayd-web - " "$tmpx/usr/lib/sysusers.d/gatewayd.conf"'

# lintian: errors fail; warnings and notes are printed for the reader
lint=$(lintian --fail-on error --info --display-info "$deb" 2>&1)
lrc=$?
printf '%s\n' "$lint" | grep -E '^[EWIXP]: ' | sed 's/^/# lintian: /'
nE=$(printf '%s\n' "$lint" | grep -c '^E: ')
nW=$(printf '%s\n' "$lint" | grep -c '^W: ')
[ $lrc -eq 0 ] && [ "$nE" -eq 0 ] && ok "lintian: 0 errors ($nW warnings)" ||
	not_ok "lintian: no errors" "$nE errors, exit $lrc"

# -- the scratch root --------------------------------------------------------------------
mkdir "$SCR" && mount -t tmpfs -o mode=0755 "$RUN_ID-deb" "$SCR" &&
	mkdir "$SCR/up" "$SCR/work" "$R" &&
	mount -t overlay "$RUN_ID-deb" -o "lowerdir=/,upperdir=$SCR/up,workdir=$SCR/work" "$R"
if ! mountpoint -q "$R"; then
	not_ok "scratch root: an overlay of / on a tmpfs" "mount failed"
	exit 1
fi
# fresh /proc, /run and /tmp; a /dev of four nodes (no bind of the host's /dev); the source
# tree under an empty tmpfs, so nothing there can be used by mistake
mount -t proc proc "$R/proc" && mount -t tmpfs tmpfs "$R/run" && mount -t tmpfs tmpfs "$R/tmp" &&
	mount -t tmpfs -o mode=0755 tmpfs "$R/dev" &&
	mknod -m 666 "$R/dev/null" c 1 3 && mknod -m 666 "$R/dev/zero" c 1 5 &&
	mknod -m 666 "$R/dev/random" c 1 8 && mknod -m 666 "$R/dev/urandom" c 1 9 &&
	{ [ ! -d "$R$TOP" ] || mount -t tmpfs -o ro,mode=0755 tmpfs "$R$TOP"; }
check "scratch root: overlay of / (upper on a tmpfs), source tree hidden" \
	eval '[ -d "$R/usr/bin" ] && [ ! -e "$R$TOP/Makefile" ]'
in_root() { chroot "$R" "$@"; }
cp "$deb" "$R/tmp/"
pkgfile=/tmp/${deb##*/}
# the users the postinst makes: taken out of the scratch root's files first (the host has them;
# the copies in the upper layer are changed, never the host's)
drop_users() {
	local f
	for f in passwd group shadow gshadow; do
		if [ -f "$R/etc/$f" ]; then sed -i -E '/^gatewayd(-web)?:/d' "$R/etc/$f" || return 1; fi
	done
}
has_users() {
	in_root getent passwd gatewayd >/dev/null && in_root getent passwd gatewayd-web >/dev/null &&
		in_root getent group gatewayd >/dev/null && in_root getent group gatewayd-web >/dev/null
}
drop_users
check "scratch root: no user gatewayd or gatewayd-web in it before the install" eval '! has_users'

out=$(in_root dpkg -i "$pkgfile" 2>&1)
rc=$?
[ $rc -eq 0 ] && ok "dpkg -i in the scratch root" ||
	{ not_ok "dpkg -i in the scratch root" "exit $rc"; printf '%s\n' "$out" | sed 's/^/#   /'; }
check "installed: dpkg-query says install ok installed" \
	[ "$(in_root dpkg-query -W -f='${Status}' gatewayd)" = "install ok installed" ]
check "the postinst made the users: $(in_root getent passwd gatewayd) / $(in_root getent passwd gatewayd-web)" \
	eval 'has_users && [ "$(in_root id -u gatewayd)" != "$(in_root id -u gatewayd-web)" ] &&
		[ "$(in_root id -u gatewayd)" -gt 0 ] && [ "$(in_root id -u gatewayd-web)" -gt 0 ]'
got=$(in_root gatewayd --version 2>&1)
check "gatewayd --version in the root: $got" [ "$got" = "gatewayd $version" ]
got=$(in_root gatewayd --check -c /etc/gatewayd/gatewayd.conf 2>&1)
rc=$?
check "gatewayd --check -c /etc/gatewayd/gatewayd.conf: exit $rc, \"$got\"" \
	eval '[ $rc -eq 0 ] && [ "${got%% (*}" = "/etc/gatewayd/gatewayd.conf: ok" ]'
# --compare is the bench's, gatewayd-bench, which the daemon finds in ../libexec/gatewayd/
got=$(in_root gatewayd --compare --help 2>&1)
rc=$?
check "gatewayd --compare --help in the root runs the installed gatewayd-bench: exit $rc" \
	eval '[ $rc -eq 0 ] && grep -q "^usage: gatewayd --compare" <<<"$got"'
conff=$(in_root dpkg-query -W -f='${Conffiles}' gatewayd)
check "the conffile is listed by dpkg-query: $(echo $conff)" \
	grep -q '^ /etc/gatewayd/gatewayd.conf [0-9a-f]\{32\}$' <<<"$conff"
# (verify also reads the host's other units: only what it says of gatewayd counts)
got=$(in_root systemd-analyze verify /lib/systemd/system/gatewayd.service 2>&1)
rc=$?
got=$(grep gatewayd <<<"$got")
check "systemd-analyze verify gatewayd.service in the root: exit $rc${got:+, $got}" \
	eval '[ $rc -eq 0 ] && [ -z "$got" ]'
check "systemctl --root knows gatewayd.service, enabled by the postinst" \
	[ "$(systemctl --root="$R" is-enabled gatewayd.service 2>&1)" = enabled ]

# The installed daemon, with the installed config, starts in a namespace of its own and
# shapes nothing; the config edited (a link on a veth) and reloaded, it shapes that link.
ns_new NS d || exit 1
ip -n "$NS" link add wan0 type veth peer name wan0p && ip -n "$NS" link set wan0 up &&
	ip -n "$NS" link set wan0p up
log=$TMPD/gw.log
ip netns exec "$NS" chroot "$R" /usr/sbin/gatewayd -c /etc/gatewayd/gatewayd.conf >"$log" 2>&1 &
gw=$!
PIDS+=("$gw")
health() { [ "$(ip netns exec "$NS" curl -s -m 1 http://127.0.0.1:9180/healthz)" = ok ]; }
wait_for health 10 "the installed daemon's /healthz"
check "installed daemon with the default config: started, /healthz ok" health
uid_in_root=$(in_root id -u gatewayd)
runs_as() { [ "$(awk '$1 == "Uid:" { print $2 }' "/proc/$gw/status" 2>/dev/null)" = "$uid_in_root" ]; }
wait_for runs_as 5 "the daemon to become gatewayd ($uid_in_root)"
check "  it runs as the package's user gatewayd (uid $uid_in_root), not root" runs_as
links=$(ip netns exec "$NS" curl -s -m 1 http://127.0.0.1:9180/api/status | jq -c .links)
shaped() { tc -n "$NS" qdisc show dev wan0 | grep -q 'htb e000:'; }
check "  /api/status lists no link ($links), wan0 not shaped" \
	eval '[ "$links" = "[]" ] && ! shaped'
check "  the log says why nothing is shaped" grep -q 'unconfigured = true: nothing is shaped' "$log"
cat >"$R/etc/gatewayd/gatewayd.conf" <<'EOF'
# edited by the admin
links = ( { name = "wan"; interface = "wan0";
	egress = { shaper = "htb"; rate = "20mbit"; child = { kind = "fifo"; }; }; } );
EOF
kill -HUP "$gw"
wait_for shaped 10 "htb on wan0 after the reload"
check "  edited and reloaded: wan0 shaped (htb e000:)" shaped
kill -TERM "$gw"
wait "$gw"
rc=$?
check "  SIGTERM: exit $rc, the tree removed" eval '[ $rc -eq 0 ] && ! shaped'
ip netns del "$NS"

# remove keeps the admin's conffile, a reinstall keeps it too, purge takes everything
out=$(in_root dpkg -r gatewayd 2>&1)
rc=$?
removed() {
	[ ! -e "$R/usr/sbin/gatewayd" ] && [ ! -e "$R/lib/systemd/system/gatewayd.service" ] &&
		grep -q 'edited by the admin' "$R/etc/gatewayd/gatewayd.conf"
}
check "dpkg -r: exit $rc, binary and unit gone, the edited conffile kept" \
	eval '[ $rc -eq 0 ] && removed'
check "  dpkg-query: deinstall ok config-files" \
	[ "$(in_root dpkg-query -W -f='${Status}' gatewayd)" = "deinstall ok config-files" ]
in_root dpkg -i "$pkgfile" >/dev/null 2>&1
check "reinstalled: the admin's edit kept" grep -q 'edited by the admin' "$R/etc/gatewayd/gatewayd.conf"
out=$(in_root dpkg --purge gatewayd 2>&1)
rc=$?
check "dpkg --purge: exit $rc, dpkg no longer knows gatewayd, /etc/gatewayd gone" \
	eval '[ $rc -eq 0 ] && ! in_root dpkg-query -W gatewayd >/dev/null 2>&1 &&
		[ ! -e "$R/etc/gatewayd" ]'
# what the install left in the upper layer with gatewayd in its name (man-db's cat pages are
# its own cache, not the package's)
left=$(cd "$SCR/up" && find . -name '*gatewayd*' ! -path './var/cache/man/*' | head -5)
check "  nothing of gatewayd left in the root${left:+: $(echo $left)}" [ -z "$left" ]
check "  systemd no longer has it enabled" \
	[ ! -e "$R/etc/systemd/system/multi-user.target.wants/gatewayd.service" ]
check "  the users stay (files they own may outlive the package, as Debian's packages do)" has_users

# -- make deps and make install, in the scratch root ---------------------------------------
# a copy of the tree with its build (timestamps kept: nothing is built again) in the root
SRC=/tmp/src
mkdir "$R$SRC" && tar -C "$TOP" --exclude=./.git --exclude="./$BUILD/tests" \
	--exclude=./build-asan --exclude=./build-fuzz --exclude=./build-deb -cf - . |
	tar -C "$R$SRC" -xf -
mk() { in_root env -u MAKEFLAGS -u MAKELEVEL make --no-print-directory -C "$SRC" BUILD="$BUILD" "$@" 2>&1; }
drop_users
out=$(mk deps)
rc=$?
check "make deps in the scratch root: exit $rc, the users made" eval '[ $rc -eq 0 ] && has_users'
[ $rc -eq 0 ] || printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
drop_users
out=$(mk install DESTDIR=/tmp/stage)
rc=$?
check "make install DESTDIR=...: exit $rc, the sysusers.d file staged, no user made" \
	eval '[ $rc -eq 0 ] && [ -f "$R/tmp/stage/usr/lib/sysusers.d/gatewayd.conf" ] && ! has_users'
[ $rc -eq 0 ] || printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
out=$(mk install)
rc=$?
check "make install: exit $rc, /usr/lib/sysusers.d/gatewayd.conf installed, the users made" \
	eval '[ $rc -eq 0 ] && [ -f "$R/usr/lib/sysusers.d/gatewayd.conf" ] && has_users'
[ $rc -eq 0 ] || printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'

# -- the host ----------------------------------------------------------------------------
scratch_down
check "scratch root unmounted and removed" \
	eval '[ ! -e "$SCR" ] && ! findmnt -rn | grep -q "$RUN_ID-deb"'
host_after=$(host_state)
check "the host's gatewayd files and dpkg status as before ($(grep -c present <<<"$host_before") present, $(head -c 40 <<<"${host_before##*dpkg: }"))" \
	[ "$host_before" = "$host_after" ]
# (dpkg -l without a pattern lists every package not in the not-installed state)
if ! grep -q 'install ok installed' <<<"$host_before"; then
	check "dpkg -l on the host does not list gatewayd" \
		[ -z "$(dpkg -l | awk '$2 == "gatewayd" || $2 ~ /^gatewayd:/')" ]
fi
