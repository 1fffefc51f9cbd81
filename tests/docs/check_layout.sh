#!/usr/bin/env bash
# tests/docs/check_layout.sh DESIGN FOLDER...: every source file of the FOLDERs (a .c or .h at
# any depth, or a script: a file that starts with #!) is named in DESIGN's "## Layout" table,
# and every .c or .h that table names exists, so the page cannot fall behind a file added,
# moved or renamed. Run by the build (`make design-check`, in `make all`) from the tree's root.
#
# A file is named when its folder's row (the row whose first cell holds `FOLDER/`) has it in
# backticks by its name (`plan.c`) or by its path below the folder (`uml/gatewayd-uml`), or
# when the layout has its whole path in backticks anywhere (`tree/ctrtree.c`). A header is
# named with its .c: `nl.c` names nl.h too. Prints one line per file not named and exits 1.
set -u
if [ $# -lt 2 ]; then
	echo "usage: $0 DESIGN FOLDER..." >&2
	exit 2
fi
design=$1
shift
[ -r "$design" ] || { echo "$design: cannot read" >&2; exit 2; }
for dir in "$@"; do
	[ -d "$dir" ] || { echo "$design: folder $dir/ not found"; exit 1; }
done

# the files, then every file under the folders (for names the layout gives that are not there)
files=$(find "$@" -type f | LC_ALL=C sort)
sources=$(printf '%s\n' "$files" | while IFS= read -r f; do
	case $f in
	*.c | *.h) echo "$f" ;;
	*) [ "$(head -c 2 "$f")" = '#!' ] && echo "$f" ;;
	esac
done)

printf '%s\n' "$sources" | awk -v design="$design" -v folders="$*" -v all="$files" '
	# the table rows of the "## Layout" section: every backticked token, by the row and by
	# each `FOLDER/` of its first cell
	FILENAME == design {
		if (/^## /) { inside = ($0 == "## Layout"); next }
		if (!inside || !/^\|/) next
		rows++
		split($0, cell, "|")
		s = $0
		while (match(s, /`[^`]+`/)) {
			t = substr(s, RSTART + 1, RLENGTH - 2)
			anywhere[t] = 1
			tok[rows, ++ntok[rows]] = t
			s = substr(s, RSTART + RLENGTH)
		}
		f = cell[2]
		while (match(f, /`[^`]+\/`/)) {
			d = substr(f, RSTART + 1, RLENGTH - 3)
			rowof[d] = rows
			for (i = 1; i <= ntok[rows]; i++) inrow[d, tok[rows, i]] = 1
			f = substr(f, RSTART + RLENGTH)
		}
		next
	}
	{ src[++nsrc] = $0 }
	function named(p,   top, rest, base) {
		top = p; sub(/\/.*/, "", top)
		rest = p; sub(/^[^\/]*\//, "", rest)
		base = p; sub(/.*\//, "", base)
		return (p in anywhere) || ((top, base) in inrow) || ((top, rest) in inrow)
	}
	END {
		if (!rows) { print design ": no \"## Layout\" table found"; exit 1 }
		n = split(all, list, "\n")
		for (i = 1; i <= n; i++) {
			have[list[i]] = 1
			b = list[i]; sub(/.*\//, "", b)
			top = list[i]; sub(/\/.*/, "", top)
			havebase[top, b] = 1
		}
		bad = 0
		for (i = 1; i <= nsrc; i++) {
			p = src[i]
			if (p == "" || named(p)) continue
			c = p; sub(/\.h$/, ".c", c)
			if (p ~ /\.h$/ && (c in have) && named(c)) continue
			top = p; sub(/\/.*/, "", top)
			b = p; sub(/.*\//, "", b)
			printf "%s: %s is not named in the layout (`%s` in the %s/ row, with its job)\n",
				design, p, b, top
			bad = 1
		}
		# the other way: a .c or .h a folder row names is in that folder (or is a whole path)
		nf = split(folders, fl, " ")
		for (j = 1; j <= nf; j++) {
			d = fl[j]
			if (!(d in rowof)) { print design ": the layout has no row for " d "/"; bad = 1; continue }
			r = rowof[d]
			for (i = 1; i <= ntok[r]; i++) {
				t = tok[r, i]
				if (t !~ /^[A-Za-z0-9_.\/-]+\.[ch]$/) continue
				if ((t in have) || ((d "/" t) in have)) continue
				if (t !~ /\// && ((d, t) in havebase)) continue
				printf "%s: the %s/ row names `%s`, which is not there\n", design, d, t
				bad = 1
			}
		}
		exit bad
	}' "$design" -
