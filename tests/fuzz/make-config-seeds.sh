#!/usr/bin/env bash
# tests/fuzz/make-config-seeds.sh: regenerate fuzz_config's hand-made seeds: the example configs,
# and every config text in the unit tests (tests/unit/test_config.c, test_plan.c), good and bad,
# taken from the preprocessed source so their macros (HTB, CEND...) are expanded.
# usage: tests/fuzz/make-config-seeds.sh [OUT_DIR]   (default tests/fuzz/corpus/config)
set -eu
cd "$(dirname "$0")/../.."
out=${1:-tests/fuzz/corpus/config}
mkdir -p "$out"
rm -f "$out"/example-* "$out"/unit-*
for f in config/examples/*.conf; do
	b=${f##*/}
	cp "$f" "$out/example-${b%.conf}"
done
cflags=$(pkg-config --cflags libconfig libnl-3.0 libnl-route-3.0 2>/dev/null || true)
for t in test_config test_plan; do
	# shellcheck disable=SC2086
	${CC:-cc} -E -P -D_GNU_SOURCE -I. $cflags "tests/unit/$t.c" | python3 -c '
import re, sys, hashlib
src, out, tag = sys.stdin.read(), sys.argv[1], sys.argv[2]
lit = r"\"(?:[^\"\\\n]|\\.)*\""
esc = {"n": "\n", "t": "\t", "\\": "\\", "\"": "\"", "'"'"'": "'"'"'", "0": "\0"}
def unquote(s):
    return re.sub(r"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)",
                  lambda m: chr(int(m.group(1)[1:], 16)) if m.group(1)[0] == "x" else
                  chr(int(m.group(1), 8)) if m.group(1)[0] in "01234567" and len(m.group(1)) > 1
                  else esc.get(m.group(1), m.group(1)), s[1:-1])
seen = set()
for m in re.finditer(r"(?:%s\s*)+" % lit, src):
    text = "".join(unquote(x) for x in re.findall(lit, m.group(0)))
    # a config mentions links, listen, interval, auth_file or keep_on_stop and has a setting
    if not re.search(r"\b(links|listen|interval|auth_file|keep_on_stop)\b", text) or "=" not in text:
        continue
    if text in seen:
        continue
    seen.add(text)
    name = "%s/unit-%s-%s" % (out, tag, hashlib.sha1(text.encode()).hexdigest()[:10])
    with open(name, "w") as f:
        f.write(text)
' "$out" "${t#test_}"
done
# reloads: "OLD\n%%\nNEW" (fuzz_config.c): classes kept, added, removed, renamed, reordered
rm -f "$out"/reload-*
htb() {	# htb CLASS... : one link, egress htb with these classes, the last one the default
	local c sep=""
	printf 'links = ( { name = "wan"; interface = "eth0";\n'
	printf '  egress = { shaper = "htb"; rate = "100mbit"; classes = (\n'
	for c in "$@"; do
		printf '%s    { name = "%s"; rate = "1mbit";' "$sep" "$c"
		[ "$c" = "${*: -1}" ] && printf ' default = true;'
		printf ' }'
		sep=$',\n'
	done
	printf ' ); }; } );\n'
}
{ htb voice bulk; printf '%%%%\n'; htb video voice bulk; } >"$out/reload-add"
{ htb voice video bulk; printf '%%%%\n'; htb bulk; } >"$out/reload-remove"
{ htb a b c d; printf '%%%%\n'; htb d x c y b; } >"$out/reload-mixed"
{ cat config/examples/office-router.conf; printf '\n%%%%\n'; cat config/examples/home-router.conf; } \
	>"$out/reload-examples"
echo "$(ls "$out" | wc -l) files in $out"
