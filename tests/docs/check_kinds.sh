#!/usr/bin/env bash
# tests/docs/check_kinds.sh LISTER FILE...: every list of qdisc kinds the prose of FILEs marks
# names exactly the kinds the registry has (qdisc/registry.c), so a kind added or removed there
# stops the build until the README, the man pages and docs/ say so too. LISTER is a program
# that prints the registry's lists, "leaf fifo fq_codel ..." and "shaper htb tbf cake" (the
# build's $(BUILD)/tests/list-kinds, from tests/docs/list_kinds.c). Run by `make kinds-check`,
# in `make all`.
#
# The marks, invisible where the page is read:
#   Markdown   <!-- kinds:leaf -->**fifo**, **fq_codel** or **cake**<!-- /kinds -->
#   roff       a line `.\" kinds:shaper`, the list's lines, a line `.\" /kinds`
# Between them only the kinds' names (in any markup), commas and "or"/"and": each kind once,
# in any order. A mark written in a code span (after a backtick) is an example, not a mark.
set -u
[ $# -ge 2 ] || { echo "usage: $0 LISTER FILE..." >&2; exit 2; }
registry=$("$1") || { echo "$0: $1 failed" >&2; exit 2; }
shift

awk -v registry="$registry" '
	BEGIN {
		n = split(registry, line, "\n")
		for (i = 1; i <= n; i++) {
			m = split(line[i], w, " ")
			for (j = 2; j <= m; j++) want[w[1]] = want[w[1]] " " w[j]
			if (m > 1) known[w[1]] = 1
		}
		bad = 0
	}
	FNR == 1 { if (open) unclosed(); open = 0 }
	function unclosed() {
		printf "%s:%d: a list of kinds marked kinds:%s is not closed (/kinds)\n", ofile, oline, what
		bad = 1
	}
	# the span between the marks: its words, less markup and "or"/"and", against the registry
	function judge(text,   t, k, i, got, seen, extra, missing, dup) {
		gsub(/\\f[BIRP]|\\f\(..|\\\(..|\\[-&]/, " ", text)
		gsub(/\n\.[A-Za-z]+/, " ", text)
		n = split(text, t, /[^A-Za-z0-9_]+/)
		got = ""
		for (i = 1; i <= n; i++) {
			k = t[i]
			if (k == "" || k == "or" || k == "and") continue
			got = got " " k
			if (seen[k]++) dup = dup " " k
		}
		m = split(want[what], w, " ")
		for (i = 1; i <= m; i++) {
			if (!(w[i] in seen)) missing = missing " " w[i]
			inwant[w[i]] = 1
		}
		for (k in seen)
			if (!(k in inwant)) extra = extra " " k
		for (k in inwant) delete inwant[k]
		if (missing != "" || extra != "" || dup != "") {
			printf "%s:%d: the %s kinds listed here are%s; the registry'\''s:%s (%s%s%s)\n",
				ofile, oline, what, got == "" ? " none" : got, want[what],
				missing == "" ? "" : "missing:" missing,
				extra == "" ? "" : (missing == "" ? "" : "; ") "not kinds:" extra,
				dup == "" ? "" : (missing extra == "" ? "" : "; ") "twice:" dup
			bad = 1
		}
		lists++
	}
	function start(kind, lineno) {
		if (open) {
			printf "%s:%d: kinds:%s opened inside the list opened at line %d\n",
				FILENAME, lineno, kind, oline
			bad = 1
		}
		if (!(kind in known)) {
			printf "%s:%d: kinds:%s: no such list (the registry has:", FILENAME, lineno, kind
			for (k in known) printf " %s", k
			print ")"
			bad = 1
		}
		open = 1; what = kind; ofile = FILENAME; oline = lineno; span = ""
	}
	function finish() {
		if (!open) {
			printf "%s:%d: /kinds with no list opened\n", FILENAME, FNR
			bad = 1
			return
		}
		open = 0
		if (what in known) judge(span)
	}
	# roff: the marks are comment lines of their own
	/^\.\\" kinds:[a-z]+[ \t]*$/ {
		k = $0
		sub(/^\.\\" kinds:/, "", k)
		sub(/[ \t]*$/, "", k)
		start(k, FNR)
		next
	}
	/^\.\\" \/kinds[ \t]*$/ { finish(); next }
	{
		s = $0
		if (open) span = span "\n"
		while (s != "") {
			re = open ? "<!-- /kinds -->" : "<!-- kinds:[a-z]+ -->"
			if (!match(s, re)) break
			if (RSTART > 1 && substr(s, RSTART - 1, 1) == "`") {
				if (open) span = span substr(s, 1, RSTART - 1)
				s = substr(s, RSTART + RLENGTH)
				continue
			}
			if (open) {
				span = span substr(s, 1, RSTART - 1)
				finish()
			} else {
				k = substr(s, RSTART + 11, RLENGTH - 15)
				start(k, FNR)
			}
			s = substr(s, RSTART + RLENGTH)
		}
		if (open) span = span s
	}
	END {
		if (open) unclosed()
		if (!lists && !bad) {
			print "no marked list of kinds found in: " ARGV[1] (ARGC > 2 ? " ..." : "")
			bad = 1
		}
		exit bad
	}' "$@"
