#!/usr/bin/env bash
# tests/uml/test_owncmp.sh: `gatewayd --compare -c CONFIG` (issue 16, item 3): the config's own
# link benched at its rates against the dumb fifo of the same rates, and with --qdiscs the same
# tree with each queue in every leaf.
# 1. Refusals before anything starts (status 2, what is wrong): several links and no --link,
#    an unknown --link, a link that shapes one way only, --rate beside -c, a queue that shapes
#    by itself in a class, a swap into a link that cake shapes alone.
# 2. On the host kernel (fifo leaves): a two-class htb link whose small class takes ICMP: the
#    kernel's tree as the config says (both classes' rates, each leaf's limit, both ways), the
#    probes kept out of the bulk class's queue (induced p95 a tenth of the fifo's or less), the
#    upload shaped at the link's rate.
# 3. In User-Mode Linux, through --kernel uml's own path: the same link with fq_codel in its bulk
#    class and --qdiscs fq_codel:target=2ms,sfq,pie: five runs, and every leaf of each swap
#    the kernel's own fq_codel at target 2ms, sfq, pie, both ways (no match rules there:
#    Debian's linux.uml has no nftables family gatewayd can classify with).
# Run from the repo root as root.
# set -u, the repo root, GATEWAYD, and ok / not_ok / check_detail (tests/tap.sh)
# shellcheck source-path=SCRIPTDIR source=host.sh
. "$(dirname "$0")/host.sh"
if [ "$(id -u)" != 0 ]; then
	echo "skip - the comparison bench on a config's link: needs root"
	exit 0
fi
T=$(mktemp -d /var/tmp/gwown-test.XXXXXX)	# not /tmp: a UML guest has its own /tmp
trap 'rm -rf "$T"' EXIT

# link NAME LEAF_UP_BULK LEAF_DOWN_BULK [nomatch]: a two-class link, ICMP into "voice" (a
# 50-packet fifo), the rest into "bulk" (the given child block); nomatch: no match rules
link() {
	local m='match = ( { proto = "icmp"; } );'
	[ "${4:-}" = nomatch ] && m=""
	cat <<EOF
{ name = "$1"; interface = "eth9";
  egress = { shaper = "htb"; rate = "8mbit";
    classes = ( { name = "voice"; rate = "2mbit"; prio = 0; $m
                  child = { kind = "fifo"; limit = 50; }; },
                { name = "bulk"; rate = "6mbit"; prio = 1; default = true; child = { $2 }; } ); };
  ingress = { shaper = "htb"; rate = "16mbit";
    classes = ( { name = "voice"; rate = "2mbit"; prio = 0; $m
                  child = { kind = "fifo"; limit = 50; }; },
                { name = "bulk"; rate = "14mbit"; prio = 1; default = true; child = { $3 }; } ); }; }
EOF
}
# what the bench must not take from the user's file: its listen, its probe targets
{
	echo 'listen = "0.0.0.0:8080";'
	echo 'probe = { targets = [ "192.0.2.1" ]; };'
	echo "links = ( $(link home 'kind = "fifo"; limit = 300;' 'kind = "fifo"; limit = 300;') );"
} >"$T/home.conf"

# 1. refusals
refused() { # NAME WANT ARGS...: status 2 and WANT in what it said
	local name=$1 want=$2 out rc
	shift 2
	out=$(timeout 20 "$GATEWAYD" --compare --kernel host --duration 4s --out "$T/never" "$@" 2>&1)
	rc=$?
	check_detail "$name: status 2, \"$want\" ($rc: $out)" "$out" \
		eval '[ $rc -eq 2 ] && grep -qF -- "$want" <<<"$out" && [ ! -e "$T/never/results.json" ]'
}
echo "links = ( $(link a 'kind = "fifo";' 'kind = "fifo";'), $(link b 'kind = "fifo";' 'kind = "fifo";' | sed 's/eth9/eth8/') );" >"$T/two.conf"
refused "two links, no --link" "the config has 2 links (a, b): --link NAME says which" -c "$T/two.conf"
refused "--link that names no link" "--link: no link named 'c' (a, b)" -c "$T/two.conf" --link c
printf '%s\n' 'links = ( { name = "up"; interface = "eth9";' \
	'  egress = { shaper = "htb"; rate = "8mbit"; }; } );' >"$T/oneway.conf"
refused "a link that shapes only its egress" "oneway.conf:1: link 'up' has no ingress block" -c "$T/oneway.conf"
refused "--rate beside -c" "--rate and -c" -c "$T/home.conf" --rate 20mbit
refused "a self-shaping queue as a class's queue" "--qdiscs cake-shaper: a queue that shapes by itself" \
	-c "$T/home.conf" --qdiscs cake-shaper
printf '%s\n' 'links = ( { name = "c"; interface = "eth9";' \
	'  egress = { shaper = "cake"; rate = "8mbit"; };' \
	'  ingress = { shaper = "cake"; rate = "8mbit"; }; } );' >"$T/cake.conf"
refused "a swap into a link cake shapes alone" "shapes its egress with cake itself" \
	-c "$T/cake.conf" --qdiscs fifo
refused "--link without -c" "--link: says which link of -c CONFIG" --link home

# 2. the host kernel: fifo leaves only
# (8 s: a TCP window of 2 s or more, for goodput and the shaper's accuracy)
timeout 90 "$GATEWAYD" --compare -c "$T/home.conf" --kernel host --duration 8s --out "$T/host" \
	>"$T/host.log" 2>&1 &
pid=$!
wait $pid
rc=$?
out=$(cat "$T/host.log")
grep -v '^    ' <<<"$out" | sed 's/^/# /'
left=$(ip netns list | grep -c "^gwcmp$pid-")
check_detail "the host run leaves no namespace of its own ($left)" "$left" test "$left" = 0
R=$T/host/results.json
check_detail "-c on the host kernel: status 0 and results ($rc)" "$(tail -3 <<<"$out")" \
	eval '[ $rc -eq 0 ] && [ -s "$R" ]'
probs=$(python3 tests/uml/compare_check.py "$T/host" 2>&1)
check_detail "results.json valid against docs/compare-schema.md, SVGs well-formed" "$probs" test -z "$probs"
runs=$(jq -r '[.runs[] | "\(.label)/\(.tree)"] | join(" ")' "$R" 2>/dev/null)
check_detail "the runs: the fifo on the bench's tree, then the link as written ($runs)" "$runs" \
	test "$runs" = "fifo/bench home/config"
own=$(jq -r '.config | "\(.own_tree.file) \(.own_tree.link) \(.rate_bps_up) \(.rate_bps_down)"' "$R" 2>/dev/null)
check_detail "results.json names the file and link, and the link's rates ($own)" "$own" \
	test "$own" = "$T/home.conf home 8000000 16000000"
# the kernel's tree, read back: every leaf and class of both ways, sorted
tree() { # LABEL DIRECTION: "KIND PARAMS" of its leaves, then its classes' rates
	jq -r --arg l "$1" --arg d "$2" '.runs[] | select(.label == $l) | .qdiscs[] |
		select(.direction == $d) |
		if .type == "qdisc" and (.kind | test("^(htb|ingress)$") | not) then "leaf \(.kind) \(.params)"
		elif .type == "class" then "class \(.params | capture("rate (?<r>[^ ]+) ceil (?<c>[^ ]+)") | "\(.r)/\(.c)")"
		else empty end' "$R" | sort | tr '\n' ';'
}
up=$(tree home up) down=$(tree home down)
check_detail "the link's egress in the kernel as written: $up" "$up" test "$up" = \
	"class 2mbit/8mbit;class 6mbit/8mbit;class 8mbit/8mbit;leaf pfifo limit 300;leaf pfifo limit 50;"
check_detail "the link's ingress (the bench's ifb) as written: $down" "$down" test "$down" = \
	"class 14mbit/16mbit;class 16mbit/16mbit;class 2mbit/16mbit;leaf pfifo limit 300;leaf pfifo limit 50;"
fig() { jq -r --arg l "$1" ".runs[] | select(.label == \$l) | $2 // \"null\"" "$R"; }
f95=$(fig fifo .latency_ms.induced.p95) h95=$(fig home .latency_ms.induced.p95)
# the probes are ICMP: the link's voice class holds them apart from the bulk flows, which the
# one fifo of the bench's own tree queues them behind (hundreds of ms without netem)
check_detail "its ICMP class keeps the probes out of the bulk queue: induced p95 $h95 ms against the fifo's $f95 ms" \
	"$h95 vs $f95" awk -v h="$h95" -v f="$f95" \
	'BEGIN { exit !(h != "null" && f != "null" && f >= 100 && h <= f / 10) }'
gu=$(fig home .goodput_bps.up) au=$(fig home .shaper_accuracy.up)
check_detail "its upload shaped at the link's 8 Mbit/s: goodput $gu bit/s (85-105%), the shaper's accuracy $au (0.95-1.05)" \
	"$gu $au" awk -v g="$gu" -v a="$au" \
	'BEGIN { exit !(g >= 0.85 * 8e6 && g <= 1.05 * 8e6 && a >= 0.95 && a <= 1.05) }'

# 3. User-Mode Linux: the swaps, each leaf as the kernel reports it. Debian's linux.uml has
# nf_tables without its ip, ip6 and inet families, so gatewayd cannot classify there: the
# classes have no match rules (the host kernel's run above classifies)
{
	echo "links = ( $(link home 'kind = "fq_codel"; quantum = 300;' 'kind = "fq_codel"; quantum = 300;' nomatch) );"
} >"$T/uml.conf"
s0=$SECONDS
timeout 300 "$GATEWAYD" --compare -c "$T/uml.conf" --kernel uml --duration 4s \
	--qdiscs fq_codel:target=2ms,sfq,pie --out "$T/uml" >"$T/uml.log" 2>&1
rc=$?
grep -v '^    ' "$T/uml.log" | sed 's/^/# /'
echo "# the guest run took $((SECONDS - s0)) s"
R=$T/uml/results.json
check_detail "-c with --qdiscs in UML: status 0 and results ($rc)" "$(tail -3 "$T/uml.log")" \
	eval '[ $rc -eq 0 ] && [ -s "$R" ]'
probs=$(python3 tests/uml/compare_check.py "$T/uml" 2>&1)
check_detail "its results.json valid against docs/compare-schema.md, SVGs well-formed" "$probs" test -z "$probs"
runs=$(jq -r '[.runs[] | "\(.label)/\(.tree)/\(.ran)"] | join(" ")' "$R" 2>/dev/null)
check_detail "five runs: fifo, the link as written, then each queue in its leaves ($runs)" "$runs" test "$runs" = \
	"fifo/bench/true home/config/true home+fq_codel:target=2ms/config/true home+sfq/config/true home+pie/config/true"
# leaves LABEL: each direction's leaf kinds and the knob that tells them apart, sorted
leaves() {
	jq -r --arg l "$1" '.runs[] | select(.label == $l) | .qdiscs[] |
		select(.type == "qdisc" and (.kind | test("^(htb|ingress)$") | not)) |
		"\(.direction) \(.kind)" + (if .kind == "fq_codel" then
			" target \(.params | capture("target (?<t>[0-9.]+(us|ms))").t)"
			+ " quantum \(.params | capture("quantum (?<q>[0-9]+)").q)"
		elif .kind == "pfifo" then " limit \(.params | capture("limit (?<n>[0-9]+)").n)"
		else "" end)' "$R" | sort | tr '\n' ';'
}
got=$(leaves home)
# fq_codel's default target is 5ms; the kernel keeps codel's times in 1.024 us units
check_detail "as written: voice a 50-packet fifo, bulk fq_codel at quantum 300, both ways ($got)" "$got" \
	test "$got" = "down fq_codel target 4999us quantum 300;down pfifo limit 50;up fq_codel target 4999us quantum 300;up pfifo limit 50;"
got=$(leaves home+fq_codel:target=2ms)
check_detail "+fq_codel:target=2ms: every leaf the kernel's fq_codel at target 2ms ($got)" "$got" \
	test "$got" = "down fq_codel target 1999us quantum 1514;down fq_codel target 1999us quantum 1514;up fq_codel target 1999us quantum 1514;up fq_codel target 1999us quantum 1514;"
for k in sfq pie; do
	got=$(leaves home+$k)
	check_detail "+$k: every leaf the kernel's $k ($got)" "$got" test "$got" = "down $k;down $k;up $k;up $k;"
done
left=$(find /var/tmp -maxdepth 1 -name 'gatewayd-uml.*' -newer "$T/home.conf" | wc -l)
check_detail "no UML run directory left on the host ($left)" "$left" test "$left" = 0
exit 0
