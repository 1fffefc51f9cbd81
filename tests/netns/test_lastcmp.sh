#!/usr/bin/env bash
# The status page shows the last comparison: a real `gatewayd --compare` (host kernel, fifo,
# 5 s: its own namespaces) writes results.json and the plots; a real daemon whose compare_dir
# points there serves their summary at /api/compare and the plots at /compare/NAME.svg; a
# reload that moves compare_dir to an empty directory makes it a 404.
. "$(dirname "$0")/lib.sh"

CMP=$TMPD/new/cmp	# made by --compare, parents included
start=$SECONDS
# under umask 077, as a careful root may run it: the files must still be readable
(umask 077; timeout 40 "$GATEWAYD" --compare --kernel host --qdiscs fifo --duration 5s --out "$CMP" \
	>"$TMPD/compare.out" 2>&1)
rc=$?
echo "# gatewayd --compare (fifo, 5 s) took $((SECONDS - start)) s, status $rc"
if [ $rc -ne 0 ] || [ ! -s "$CMP/results.json" ]; then
	not_ok "gatewayd --compare writes results.json" "$(tail -5 "$TMPD/compare.out")"
	exit 1
fi
ok "gatewayd --compare wrote results.json ($(stat -c %s "$CMP/results.json") bytes) and $(ls "$CMP" | grep -c 'svg$') plots"
check "its files are readable by any user (the daemon runs as a dynamic user)" \
	bash -c "[ \"\$(stat -c %a '$TMPD/new' '$CMP' '$CMP/results.json' '$CMP/flows-fifo.svg' | tr '\n' ' ')\" = '755 755 644 644 ' ]"

ns_new NS_R r || { not_ok "namespace"; exit 1; }
ip -n "$NS_R" link add wan0 type veth peer name wan1 && ip -n "$NS_R" link set wan0 up &&
	ip -n "$NS_R" link set wan1 up
conf() { # conf COMPARE_DIR
	cat >"$TMPD/g.conf" <<CONF
interval = "500ms";
compare_dir = "$1";
links = ( { name = "wan"; interface = "wan0";
  egress = { shaper = "tbf"; rate = "10mbit"; child = { kind = "fifo"; }; }; } );
CONF
}
conf "$CMP"
gw_start "$NS_R" "$TMPD/g.conf" || { not_ok "gatewayd starts" "$(cat "$GW_LOG")"; exit 1; }
api() { ip netns exec "$NS_R" curl -s --max-time 5 "$@"; }
B=http://127.0.0.1:9180
code=$(api -o "$TMPD/sum.json" -w '%{http_code}' $B/api/compare)
check "/api/compare answers 200 ($code)" test "$code" = 200
check "/api/compare: the file's time, settings and the fifo run's figures, no samples" python3 -c '
import json, sys
s = json.load(open(sys.argv[1])); f = json.load(open(sys.argv[2]))
assert s["generated_unix"] == f["generated_unix"] and s["config"]["rate_bps"] == f["config"]["rate_bps"]
a, b = s["runs"][0], f["runs"][0]
assert a["qdisc"] == b["qdisc"] == "fifo" and a["ran"] and a["grade"] == b["grade"]
assert a["drops"] == b["drops"]
for d in ("up", "down"):
    assert abs(a["goodput_bps"][d] - b["goodput_bps"][d]) <= 1e-5 * b["goodput_bps"][d]
assert abs(a["latency_ms"]["induced"]["p99"] - b["latency_ms"]["induced"]["p99"]) < 1e-3
assert "samples" not in a and "flows" not in a and "flows-fifo.svg" in s["plots"]
print("# summary: fifo %s, goodput up %.1f down %.1f Mbit/s, induced p99 %.1f ms, %d bytes of %d" % (
    a["grade"], a["goodput_bps"]["up"] / 1e6, a["goodput_bps"]["down"] / 1e6,
    a["latency_ms"]["induced"]["p99"], len(open(sys.argv[1]).read()), len(open(sys.argv[2]).read())))
' "$TMPD/sum.json" "$CMP/results.json"
t=$(api -o "$TMPD/p.svg" -w '%{http_code} %{content_type}' $B/compare/latency-cdf.svg)
check "/compare/latency-cdf.svg: $t, the file itself" \
	bash -c "[ '$t' = '200 image/svg+xml' ] && cmp -s '$TMPD/p.svg' '$CMP/latency-cdf.svg'"
t=$(api -o /dev/null -w '%{http_code}' --path-as-is $B/compare/../api/status)
check "/compare/../api/status is not served ($t)" test "$t" = 404

mkdir "$TMPD/empty"
conf "$TMPD/empty"
gw_reload || not_ok "the reload is logged" "$(tail -3 "$GW_LOG")"
code=$(api -o "$TMPD/err.json" -w '%{http_code}' $B/api/compare)
check "after a reload to an empty compare_dir: 404 with a JSON error ($code $(cat "$TMPD/err.json"))" \
	bash -c "[ $code = 404 ] && jq -e '.error | test(\"no comparison\")' '$TMPD/err.json' >/dev/null"
gw_stop
check "gatewayd stops cleanly" test $? -eq 0
