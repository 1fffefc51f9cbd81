#!/usr/bin/env bash
# The bench's output files on a full disk and in a directory that is not root's own
# (bench/outfile.c), through `--compare-report --out` over saved runs (no kernel,
# quick; tests/netns/test_lastcmp.sh does the same with a real --compare): on a 64 KiB tmpfs a
# report that does not fit fails and says why, leaves no .tmp, and what was there stays whole;
# an --out owned by another user, writable by group or others, or a link is refused before
# anything is written. Root: mount, chown.
. "$(dirname "$0")/lib.sh"

RUN=$TOP/tests/unit/cmpreport/good	# a saved run (the unit tests' own)
SMALL=$TMPD/small
mkdir "$SMALL"
if ! mount -t tmpfs -o size=64k,mode=0755 "gw$$-cmpout" "$SMALL"; then
	not_ok "a 64 KiB tmpfs" "mount failed"
	exit 1
fi
trap 'umount "$SMALL" 2>/dev/null; cleanup' EXIT
report() { "$GATEWAYD" --compare-report --out "$1" "$RUN=one" "$RUN=two" >"$TMPD/out" 2>&1; }
sums() { (cd "$1" && sha256sum -- * 2>/dev/null); }
tmps() { find "$1" -name '*.tmp' | wc -l; }

# -- a full disk ---------------------------------------------------------------------------
OUT=$SMALL/rep
report "$OUT"
rc=$?
check "a report on the 64 KiB tmpfs: exit $rc, $(ls "$OUT" 2>/dev/null | wc -l) files" \
	eval '[ $rc -eq 0 ] && [ -s "$OUT/report.json" ] && [ -s "$OUT/report.html" ]'
before=$(sums "$OUT")
# the rest of the tmpfs filled: not one more page for a temporary
dd if=/dev/zero of="$SMALL/filler" bs=4k 2>/dev/null
report "$OUT"
rc=$?
sed 's/^/# /' "$TMPD/out" | grep -E 'gatewayd:' | head -8
check "the same report on the full tmpfs fails: exit $rc" test $rc -eq 1
check "  and says which file and why (No space left on device)" \
	grep -q "gatewayd: $OUT/report.json: cannot write: No space left on device" "$TMPD/out"
check "  no .tmp left" test "$(tmps "$SMALL")" -eq 0
check "  every file of the first report intact (sha256)" test "$(sums "$OUT")" = "$before"
# room for every file but the largest (report.html) beside the old ones: the first ones are
# replaced whole, the last fails, the old one stays. Free pages: as many as the largest of the
# others takes, fewer than report.html takes.
pages() { echo $(( ($(stat -c %s "$1") + 4095) / 4096 )); }
room=0
for f in "$OUT"/*; do
	[ "$f" = "$OUT/report.html" ] || [ "$(pages "$f")" -le $room ] || room=$(pages "$f")
done
sz=$(stat -c %s "$SMALL/filler")
truncate -s $(( (sz / 4096 - (room - $(stat -f -c %a "$SMALL"))) * 4096 )) "$SMALL/filler"
html=$(pages "$OUT/report.html")
check "  $(stat -f -c %a "$SMALL") pages free: the others fit ($room), report.html ($html) not" \
	eval '[ "$(stat -f -c %a "$SMALL")" -eq $room ] && [ $room -lt $html ]'
report "$OUT"
rc=$?
check "room for the small files only: exit $rc, report.html not written, said so" \
	eval '[ $rc -eq 1 ] && grep -q "$OUT/report.html: cannot write: No space left on device" "$TMPD/out"'
check "  no .tmp left" test "$(tmps "$SMALL")" -eq 0
check "  report.html as it was" \
	test "$(sha256sum <"$OUT/report.html")" = "$(grep ' report.html$' <<<"$before" | cut -d' ' -f1)  -"
valid() { jq -e '.schema == "gatewayd-compare-report"' "$1" >/dev/null; }
check "  report.json replaced whole (valid JSON)" valid "$OUT/report.json"
# --html-only writes into the run directory itself: the same
rm -f "$SMALL/filler"
mkdir "$SMALL/run"
cp "$RUN/results.json" "$SMALL/run/"
echo "old page" >"$SMALL/run/report.html"
dd if=/dev/zero of="$SMALL/filler" bs=4k 2>/dev/null
"$GATEWAYD" --compare-report --html-only "$SMALL/run" >"$TMPD/out" 2>&1
rc=$?
check "--html-only on the full tmpfs: exit $rc, said why, no .tmp, the old page kept" \
	eval '[ $rc -eq 1 ] && grep -q "No space left on device" "$TMPD/out" &&
		[ "$(tmps "$SMALL")" -eq 0 ] && [ "$(cat "$SMALL/run/report.html")" = "old page" ]'
umount "$SMALL"

# -- a directory that is not root's own ------------------------------------------------------
refused() {	# refused DIR WANT: the report refuses DIR before writing, WANT in its message
	local rc
	report "$1"
	rc=$?
	[ $rc -eq 1 ] && grep -qF -- "$2" "$TMPD/out" && [ -z "$(ls -A "$1")" ] &&
		! grep -q '^report:' "$TMPD/out" || { sed 's/^/# got: /' "$TMPD/out"; return 1; }
}
mkdir -m 0755 "$TMPD/theirs" "$TMPD/group" "$TMPD/world" "$TMPD/real"
chown 65534:65534 "$TMPD/theirs"
chmod 0775 "$TMPD/group"
chmod 0777 "$TMPD/world"
ln -s real "$TMPD/link"
check "--out owned by another user (nobody): refused" \
	refused "$TMPD/theirs" "--out $TMPD/theirs: owned by uid 65534, not by this user (uid 0)"
check "--out writable by its group (0775): refused" \
	refused "$TMPD/group" "--out $TMPD/group: writable by its group (mode 0775)"
check "--out writable by others (0777): refused" \
	refused "$TMPD/world" "--out $TMPD/world: writable by others (mode 0777)"
mkdir -m 0755 "$TMPD/theirs/sub"	# root's, under nobody's
check "--out under a directory of another user's: refused too" \
	refused "$TMPD/theirs/sub" "--out $TMPD/theirs/sub: $TMPD/theirs on the way to it is owned by uid 65534"
report "$TMPD/link"
rc=$?
check "--out a link to root's own directory: its real path is used (exit $rc)" \
	eval '[ $rc -eq 0 ] && [ -s "$TMPD/real/report.json" ] && grep -q "^report: $TMPD/real/report.json" "$TMPD/out"'
report "$TMPD/fresh/made/here"
rc=$?
check "--out made here: 0755, root's, written (exit $rc)" \
	eval '[ $rc -eq 0 ] && [ "$(stat -c "%a %u" "$TMPD/fresh/made/here")" = "755 0" ] &&
		[ -s "$TMPD/fresh/made/here/report.html" ]'
