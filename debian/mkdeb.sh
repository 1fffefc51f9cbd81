#!/bin/sh
# debian/mkdeb.sh: build the Debian package from a staged `make install`, with dpkg's own
# tools and no network (make deb runs it): a hardened build in DEB_BUILD, the tree staged
# under DEB_BUILD/pkg, Depends from dpkg-shlibdeps, then dpkg-deb into
# BUILD/gatewayd_VERSION-REVISION_ARCH.deb (the path is the last line it prints).
# Environment: MAKE, VERSION (the Makefile's), BUILD (where the .deb goes), DEB_BUILD.
set -eu
cd "$(dirname "$0")/.."
: "${MAKE:=make}" "${VERSION:?the Makefile's VERSION}" "${BUILD:=build}" "${DEB_BUILD:=build-deb}"
umask 022

arch=$(dpkg --print-architecture)
debver=$(dpkg-parsechangelog -l debian/changelog -S Version)
# the package's upstream part is the source's version: a new VERSION needs a changelog entry
if [ "${debver%-*}" != "$VERSION" ]; then
	echo "debian/changelog is at $debver but the Makefile's VERSION is $VERSION:" \
		"add a changelog entry (gatewayd ($VERSION-1) ...)" >&2
	exit 1
fi
# file dates and the gzip headers from the changelog's date: the same sources give the
# same package
SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -l debian/changelog -S Timestamp)
export SOURCE_DATE_EPOCH

# the build a Debian package gets: dpkg-buildflags with every hardening feature (fortify,
# stack protector, relro and bind-now, PIE), in a tree of its own so build/ keeps its flags
eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)"
flags="CFLAGS=$CPPFLAGS $CFLAGS"
$MAKE --no-print-directory BUILD="$DEB_BUILD" "$flags" LDFLAGS="$LDFLAGS" all

stage=$DEB_BUILD/pkg
rm -rf "$stage"
$MAKE --no-print-directory BUILD="$DEB_BUILD" "$flags" LDFLAGS="$LDFLAGS" PREFIX=/usr \
	DESTDIR="$PWD/$stage" install >/dev/null

# what dh_strip does to an executable (the debug info stays in DEB_BUILD/gatewayd)
strip --remove-section=.comment --remove-section=.note "$stage/usr/sbin/gatewayd" \
	"$stage/usr/lib/cni/gatewayd-cni" "$stage/usr/libexec/gatewayd/gatewayd-bench" \
	"$stage/usr/libexec/gatewayd/gatewayd-uml-exec"
# man pages and the changelog compressed as policy says, without a name or date inside
gzip -9n "$stage"/usr/share/man/man*/*
doc=$stage/usr/share/doc/gatewayd
install -m 0644 debian/copyright "$doc/copyright"
gzip -9nc debian/changelog >"$doc/changelog.Debian.gz"
# the default config: shapes nothing until edited, a conffile (dpkg keeps the admin's edits)
install -D -m 0644 debian/gatewayd.conf "$stage/etc/gatewayd/gatewayd.conf"

install -d "$stage/DEBIAN"
echo /etc/gatewayd/gatewayd.conf >"$stage/DEBIAN/conffiles"
for s in postinst prerm postrm; do
	install -m 0755 "debian/$s" "$stage/DEBIAN/$s"
done
# md5sums of everything but the conffiles, as dh_md5sums writes them
(cd "$stage" && find . -type f ! -path './DEBIAN/*' ! -path './etc/*' | LC_ALL=C sort |
	sed 's|^\./||' | xargs md5sum) >"$stage/DEBIAN/md5sums"

# Depends: the shared libraries the binaries link, each at the version its symbols need
dpkg-shlibdeps -T"$DEB_BUILD/substvars" -e"$stage/usr/sbin/gatewayd" \
	-e"$stage/usr/lib/cni/gatewayd-cni" -e"$stage/usr/libexec/gatewayd/gatewayd-bench"
echo "misc:Depends=" >>"$DEB_BUILD/substvars"
dpkg-gencontrol -pgatewayd -P"$stage" -T"$DEB_BUILD/substvars" -f"$DEB_BUILD/files"

deb=$BUILD/gatewayd_${debver}_${arch}.deb
mkdir -p "$BUILD"
# root:root inside the archive without fakeroot; xz as Debian's own packages
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
