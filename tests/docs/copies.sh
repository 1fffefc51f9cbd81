#!/usr/bin/env bash
# tests/docs/copies.sh check|update FILE...: the blocks of the FILEs (Markdown) marked as a
# copy of another file hold exactly that file's text, so a table a program writes (the demo's,
# docs/demo-table.md, written by tests/demo.sh) can stand in the README without being pasted
# by hand. A block is the lines between a line `<!-- copy of PATH -->` and a line
# `<!-- /copy -->`, PATH from the tree's root. `check` (the build's `make copies-check`, in
# `make all`) prints each block that differs, and each FILE that holds none, and exits 1;
# `update` writes PATH's text into the blocks (what tests/demo.sh does after the bench).
set -u
if [ $# -lt 2 ] || { [ "$1" != check ] && [ "$1" != update ]; }; then
	echo "usage: $0 check|update FILE..." >&2
	exit 2
fi
mode=$1
shift
bad=0
for f in "$@"; do
	out=$(awk -v mode="$mode" '
		function err(msg) {
			if (start) printf "%s:%d: %s\n", FILENAME, start, msg > "/dev/stderr"
			else printf "%s: %s\n", FILENAME, msg > "/dev/stderr"
			bad = 1
		}
		function slurp(p,   l, t, r) {
			t = ""
			while ((r = (getline l < p)) > 0) t = t l "\n"
			close(p)
			return r < 0 ? "\001" : t
		}
		/^<!-- copy of [^ ]+ -->$/ {
			if (path != "") err("a copy opened inside the copy of " path)
			path = $4; start = FNR; block = ""
			print
			next
		}
		/^<!-- \/copy -->$/ && path != "" {
			want = slurp(path)
			if (want == "\001") {
				err("a copy of " path ", which cannot be read")
				printf "%s", block
			} else if (mode == "update") {
				printf "%s", want
			} else {
				printf "%s", block
				if (block != want)
					err("the copy of " path " differs from it (make demo writes both; " \
						"tests/docs/copies.sh update " FILENAME " copies it)")
			}
			path = ""
			copies++
			print
			next
		}
		path != "" { block = block $0 "\n"; next }
		{ print }
		END {
			if (!copies) { start = 0; err("holds no copy (<!-- copy of PATH --> ... <!-- /copy -->)") }
			if (path != "") err("the copy of " path " is not closed (<!-- /copy -->)")
			exit bad
		}' "$f")
	rc=$?
	[ $rc -eq 0 ] || bad=1
	if [ "$mode" = update ] && [ $rc -eq 0 ]; then
		printf '%s\n' "$out" | cmp -s - "$f" || printf '%s\n' "$out" >"$f"
	fi
done
exit $bad
