#!/usr/bin/env bash
# tests/uml/test_compare.sh: the comparison bench (`gatewayd --compare`, issue 5).
# 1. The kernel choice: on a host without netem, fq_codel or cake, --kernel auto hands the
#    run to the UML helper (a recording stand-in here: no boot) with the same settings; -c
#    CONFIG puts the results in that config's compare_dir.
# 2. SIGINT during the load, on the host kernel: status 130, nothing left.
# 3. A shortened run of all four queues at 20 mbit, 40 ms RTT in a UML guest: fifo's induced
#    p95 at least 10x fq_codel's and cake's, and the bulk TCP flows' own induced RTT p50 (read
#    by each flow's sender) at least 5x theirs each way; their p99 under 15 ms; their goodput within
#    85-100% of the rate (a queue that misses, on a host busy enough to disturb the guest, gets
#    one fresh run, skipped if that misses too while the host took a fifth of the guest's time
#    or more; the fifo's is printed, not judged: see below); results.json valid
#    against docs/compare-schema.md; the VoIP-like UDP stream's one-way delays, each way's fifo
#    queue at least 5x the FQ queues', its jitter under the FQ queues under 5 ms and a fifth of
#    the fifo's, at most 1% of it lost; SVGs well-formed; each queue's .flent.gz opened and
#    plotted by flent itself, its values and metadata read back equal to results.json's
#    (tests/uml/flent_check.py); fq_codel with a knob (--qdiscs fq_codel:target=4ms, a
#    millisecond under its default: the figures above stay what they were), its column so
#    labelled and the kernel's fq_codel at target 4ms both ways; and
#    nothing left behind, after the run (guest/compare.sh) and after a SIGINT (here).
# 4. The status page from the host (gatewayd-uml --net, the bench's relay): while the run of
#    3. goes on, http://GUEST:9180/api/status, fetched here, is the bench's daemon's JSON
#    with the bench's link (wan on g1); afterwards no tap of the guest's and the host's
#    namespaces as they were (the relay's end: guest/compare.sh's leftovers).
# Run from the repo root as root.
# set -u, the repo root, GATEWAYD, and ok / not_ok / check_detail (tests/tap.sh)
# shellcheck source-path=SCRIPTDIR source=host.sh
. "$(dirname "$0")/host.sh"
DUR=${COMPARE_DURATION:-10s}
if [ "$(id -u)" != 0 ]; then
	echo "skip - the comparison bench: needs root"
	exit 0
fi
. tests/wait_for.sh
. tests/uml/hostcpu.sh
# T under /var/tmp (the guest has its own /tmp), the guests' run directories in T/uml
uml_scratch "the comparison bench" gwcmp-test

# 1. kernel choice, through a recording stand-in for the helper
host_has_all=1
ns=gwcmp-probe$$
ip netns add $ns && {
	ip netns exec $ns tc qdisc add dev lo root netem 2>/dev/null &&
		ip netns exec $ns tc qdisc replace dev lo root fq_codel 2>/dev/null &&
		ip netns exec $ns tc qdisc replace dev lo root cake 2>/dev/null
} || host_has_all=0
ip netns del $ns 2>/dev/null
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >%s/fake-args\n' "$T" >"$T/fake-uml"
chmod +x "$T/fake-uml"
out=$(GATEWAYD_UML=$T/fake-uml timeout 30 "$GATEWAYD" --compare --rate 12mbit --rtt 30ms --duration 9s --qdiscs fifo,cake --out "$T/fake-out" 2>&1)
if [ $host_has_all = 0 ]; then
	check_detail "auto: this kernel lacks a qdisc, so the run goes to UML and says so" "$out" \
		grep -q "running the comparison inside User-Mode Linux" <<<"$out"
	args=$(tr '\n' ' ' <"$T/fake-args" 2>/dev/null)
	# the guest runs the bench's own program, gatewayd-bench beside gatewayd, again
	bench=$(dirname "$GATEWAYD")/gatewayd-bench
	check_detail "the helper gets the same settings: $args" "$args" grep -q -- \
		"-- $bench --compare --in-uml --kernel host --rate 12mbit --rtt 30000us --duration 9.000s --qdiscs fifo,cake --out $T/fake-out" \
		<<<"$args"
	if [ -c /dev/net/tun ]; then
		check_detail "the helper is asked for the guest's network (--net), for the status page" "$args" \
			grep -q -- "--net .*-- $bench " <<<"$args"
		rm -f "$T/fake-args"
		GATEWAYD_UML_NET=0 GATEWAYD_UML=$T/fake-uml timeout 30 "$GATEWAYD" --compare --kernel uml \
			--qdiscs fifo --out "$T/fake-out" >/dev/null 2>&1
		args=$(tr '\n' ' ' <"$T/fake-args" 2>/dev/null)
		check_detail "GATEWAYD_UML_NET=0: no --net" "$args" eval '[ -n "$args" ] && ! grep -q -- "--net" <<<"$args"'
		# the scenario's guest failed at once when booted with --net (compare.c says): not asked
		rm -f "$T/fake-args"
		GATEWAYD_UML=$T/fake-uml timeout 30 "$GATEWAYD" --compare --kernel uml --scenario variable \
			--out "$T/fake-out" >/dev/null 2>&1
		args=$(tr '\n' ' ' <"$T/fake-args" 2>/dev/null)
		check_detail "--scenario: no --net (yet)" "$args" eval '[ -n "$args" ] && ! grep -q -- "--net" <<<"$args"'
	fi
else
	check_detail "auto: this kernel has every qdisc, so the run stays here" "$out" \
		test ! -e "$T/fake-args"
fi

# the load's own settings reach the guest: the profile, the flows, the family
rm -f "$T/fake-args"
GATEWAYD_UML=$T/fake-uml timeout 30 "$GATEWAYD" --compare --kernel uml --qdiscs fifo --profile upload \
	--flows 2 --family 6 --out "$T/fake-out" >/dev/null 2>&1
args=$(tr '\n' ' ' <"$T/fake-args" 2>/dev/null)
check_detail "--profile, --flows and --family reach the guest: $args" "$args" \
	grep -q -- "--qdiscs fifo --profile upload --flows 2 --family 6 --out" <<<"$args"

# -c CONFIG: the results go where that config's daemon looks (its compare_dir), unless --out;
# the guest gets the config and its link to bench again, at the link's rates (not --rate)
mkdir -p "$T/cdir"
cat >"$T/c.conf" <<EOF
compare_dir = "$T/cdir";
links = ( { name = "wan"; interface = "lo";
  egress = { shaper = "htb"; rate = "10mbit"; child = { kind = "fifo"; }; };
  ingress = { shaper = "htb"; rate = "20mbit"; child = { kind = "fifo"; }; }; } );
EOF
rm -f "$T/fake-args"
GATEWAYD_UML=$T/fake-uml timeout 30 "$GATEWAYD" --compare -c "$T/c.conf" --kernel uml --qdiscs fifo >/dev/null 2>&1
args=$(tr '\n' ' ' <"$T/fake-args" 2>/dev/null)
check_detail "-c CONFIG: the run writes to its compare_dir, and the guest benches its link: $args" "$args" \
	eval 'grep -q -- "--out $T/cdir" <<<"$args" && grep -q -- "-c $T/c.conf --link wan --rtt" <<<"$args" &&
		grep -q -- "--qdiscs fifo " <<<"$args" && ! grep -q -- "--rate" <<<"$args"'
printf 'compare_dir = 5;\n' >"$T/bad.conf"
out=$(timeout 10 "$GATEWAYD" --compare -c "$T/bad.conf" 2>&1)
rc=$?
check_detail "-c with a bad config: status 2 and file:line ($rc: $out)" "$out" \
	eval '[ $rc -eq 2 ] && grep -q "bad.conf:1: .compare_dir. must be a string" <<<"$out"'

# 2. Ctrl-C during the load, on this kernel (--kernel host: the fifo alone where it lacks
# the others): status 130, and the namespaces, processes and scratch files are gone
out=$T/int.out
timeout 60 "$GATEWAYD" --compare --kernel host --qdiscs fifo --duration 8s >"$out" 2>&1 &
pid=$!
wait_for "grep -q ' tcp ' '$out' 2>/dev/null" 15 "the bench's load to start"
sleep 1	# a duration: a second into the load, then the ^C
kill -INT $pid
wait $pid
rc=$?
check_detail "SIGINT during the load: status 130 (status $rc), and it says it removes the testbed" \
	"$(tail -5 "$out" | tr '\n' ' ')" grep -q "interrupted: removing the testbed" "$out"
[ $rc -eq 130 ] || not_ok "SIGINT: status 130" "status $rc"
leftovers() { echo "namespaces $(ls /run/netns 2>/dev/null | grep -c "^gwcmp$pid-"), processes $(pgrep -f -c "gatewayd -c /tmp/gwcmp\." || true), scratch dirs $(find /tmp -maxdepth 1 -name 'gwcmp.*' -newer "$T/fake-uml" | wc -l)"; }
# (the bench's children may take a moment more to go than the bench itself: 0.5 s at most)
wait_for '[ "$(leftovers)" = "namespaces 0, processes 0, scratch dirs 0" ]' 0.5 "the bench's leftovers to go"
left=$(leftovers)
check_detail "SIGINT leaves nothing behind: $left" "$left" test "$left" = "namespaces 0, processes 0, scratch dirs 0"

# 3. the real thing, in a guest; fq_codel with a knob the kernel must report back
FQ=fq_codel:target=4ms
s0=$SECONDS
# the bench's namespaces (gwcmp*) on the host: the guest makes its own, none here (the other
# lane's suites make and remove namespaces of their own meanwhile)
netns_before=$(ip netns list | grep '^gwcmp' | sort)
# through the product's own helper (bench/uml/gatewayd-uml), so its boot, streaming and status
# passing are what is tested; the guest script gets the harness's lib.sh by name (--env);
# --net and the bench's output in $T/bench.log: the host reads the status page meanwhile (4.)
bench/uml/gatewayd-uml --net --timeout 220 --visible "$T" --env "UML_LIB=$PWD/tests/uml/lib.sh" -- \
	"$PWD/tests/uml/guest/compare.sh" "$GATEWAYD" "$T/out" "$DUR" "fifo,$FQ,cake,cake-shaper" \
	"$T/bench.log" &
guest=$!
hostcpu_start $guest "$T/hostcpu"
# 4. the page, once its address is announced and the first queue's daemon serves it (a 503
# from the relay before that): one document is enough, so the run is barely disturbed
page_url=""
wait_for "grep -q '^status page while it runs: http://' '$T/bench.log' 2>/dev/null" 90 \
	"the bench to announce its status page" &&
	page_url=$(sed -n 's|^status page while it runs: \(http://[0-9.]*:9180/\) (from this host)$|\1|p' "$T/bench.log")
page_tap=$(ip -o link show 2>/dev/null | grep -c ": gwuml${guest}[:@]")
link=""
if [ -n "$page_url" ]; then
	# shellcheck disable=SC2016  # evaluated by wait_for
	wait_for 'curl -s --max-time 2 "${page_url}api/status" >"$T/page.json" &&
		link=$(jq -r ".links[] | select(.name == \"wan\" and .interface == \"g1\") | .name" \
			"$T/page.json" 2>/dev/null) && [ -n "$link" ]' 60 "the status page from the host"
fi
wait $guest
rc=$?
hostcpu_stop
echo "# guest run: $((SECONDS - s0)) s"
check_detail "the guest script's status comes back through gatewayd-uml: 0" "status $rc" test $rc -eq 0
check_detail "4. the bench announced its page for this host ($page_url, through tap gwuml$guest: $page_tap)" \
	"$(grep 'status page' "$T/bench.log" 2>/dev/null)" eval '[ -n "$page_url" ] && [ "$page_tap" = 1 ]'
check_detail "4. ${page_url}api/status from the host: the bench's daemon's JSON, its link wan on g1" \
	"$(head -c 300 "$T/page.json" 2>/dev/null)" test "$link" = wan
page_tap=$(ip -o link show 2>/dev/null | grep -c ": gwuml${guest}[:@]")
netns_after=$(ip netns list | grep '^gwcmp' | sort)
check_detail "4. after the run: no tap gwuml$guest ($page_tap), no bench namespace of the host's changed" \
	"before [$netns_before] after [$netns_after]" \
	eval '[ "$page_tap" = 0 ] && [ "$netns_before" = "$netns_after" ]'
R=$T/out/results.json
if [ ! -s "$R" ]; then
	not_ok "results.json" "not written"
	exit 0
fi
probs=$(python3 tests/uml/compare_check.py "$T/out" 2>&1)
check_detail "results.json valid against docs/compare-schema.md, SVGs well-formed and non-empty" "$probs" test -z "$probs"
# flent's own file of each queue's run (issue 16): flent itself opens and plots them, and what
# it reads back equals results.json (Debian's python3: flent's module and matplotlib are its)
s1=$SECONDS
/usr/bin/python3 tests/uml/flent_check.py "$T/out" || not_ok "tests/uml/flent_check.py" "status $?"
echo "# the flent checks: $((SECONDS - s1)) s"
fig() { jq -r ".runs[] | select(.qdisc == \"$1\") | $2 // \"null\"" "$R"; }
# the knob: the column's label, and what the kernel made of it (its fq_codel, up on g1 and
# down on the ifb, as read back over netlink). The kernel keeps codel's times in units of
# 1.024 us, so 4ms reads back as 3999us: within 0.5% is the knob.
fq_label=$(fig fq_codel .label)
fq_targets=$(jq -r '.runs[] | select(.qdisc == "fq_codel") | .qdiscs[] |
	select(.type == "qdisc" and .kind == "fq_codel") |
	"\(.direction):\(.params | capture("target (?<t>[0-9.]+(us|ms|s))").t)"' "$R" | tr '\n' ' ')
targets_ok() { # "up:3999us down:3999us ": both directions, each within 0.5% of 4 ms
	awk -v s="$fq_targets" 'BEGIN {
		n = split(s, w, " "); if (n != 2) exit 1
		for (i = 1; i <= 2; i++) {
			split(w[i], kv, ":"); v = kv[2] + 0
			us = kv[2] ~ /us$/ ? v : kv[2] ~ /ms$/ ? v * 1000 : v * 1e6
			seen[kv[1]] = 1
			if (us < 3980 || us > 4020) exit 1
		}
		exit !(seen["up"] && seen["down"]) }'
}
check_detail "--qdiscs $FQ: its column is labelled $fq_label, the kernel's fq_codel reads $fq_targets" \
	"$fq_label; $fq_targets" eval '[ "$fq_label" = "$FQ" ] && targets_ok'
rate=$(jq -r .config.rate_bps "$R")
f95=$(fig fifo .latency_ms.induced.p95)
for q in fq_codel cake cake-shaper; do
	p95=$(fig $q .latency_ms.induced.p95)
	check_detail "fifo's induced p95 ($f95 ms) at least 10x $q's ($p95 ms)" "$f95 vs $p95" \
		awk -v f="$f95" -v q="$p95" 'BEGIN { exit !(f != "null" && q != "null" && f >= 10 * (q > 0.1 ? q : 0.1)) }'
done
# the UDP probes' one-way delays: the fifo's queue shows in each direction's own figure, and
# the FQ queues keep each way's (5x: a probe flow that shares an FQ bucket with a bulk flow,
# a few runs in a thousand, reads tens of ms, still far under the fifo's hundreds)
for d in up down; do
	fu=$(fig fifo .udp_latency_ms.$d.induced.p95)
	for q in fq_codel cake cake-shaper; do
		u=$(fig $q .udp_latency_ms.$d.induced.p95)
		check_detail "UDP one-way $d: fifo's induced p95 ($fu ms) at least 5x $q's ($u ms)" "$fu vs $u" \
			awk -v f="$fu" -v q="$u" 'BEGIN { exit !(f != "null" && q != "null" && f >= 50 && f >= 5 * (q > 0.1 ? q : 0.1)) }'
	done
done
# the same stream as a call hears it: behind the FQ queues its delay barely moves from one
# packet to the next and nothing of it is lost (here: jitter 0.3-0.6 ms against the fifo's
# 15-17 ms, none lost against 14 of 350); 1% lost is allowed for an FQ bucket shared with a
# bulk flow
for q in fq_codel cake cake-shaper; do
	for d in up down; do
		j=$(fig $q .udp_latency_ms.$d.jitter) fj=$(fig fifo .udp_latency_ms.$d.jitter)
		check_detail "VoIP jitter $d: $q's $j ms under 5 ms and a fifth of the fifo's $fj ms" "$j vs $fj" \
			awk -v j="$j" -v f="$fj" 'BEGIN { exit !(j != "null" && f != "null" && j < 5 && j <= f / 5) }'
	done
	l=$(fig $q .udp_latency_ms.rtt.loaded.lost) n=$(fig $q .udp_latency_ms.rtt.loaded.samples)
	check_detail "VoIP under load: $q lost $l of $n (at most 1%)" "$l of $n" \
		awk -v l="$l" -v n="$n" 'BEGIN { exit !(n >= 100 && l <= n / 100) }'
done
# The bulk TCP flows' own RTT (their senders' smoothed RTT, every tick, under load), less the
# idle baseline: behind the fifo they wait as long as the probes do; fq_codel and cake keep
# each bulk flow's own queue near codel's 5 ms target, which is what they do to the bulk flows
# and not only to the sparse probes. At least 5x lower, by the median (a floor of 0.5 ms for a
# figure at or under the base RTT).
for d in up down; do
	ftcp=$(fig fifo .tcp_rtt.$d.induced_p50_ms)
	for q in fifo fq_codel cake cake-shaper; do
		echo "# $q: bulk TCP RTT $d p50 $(fig $q .tcp_rtt.$d.p50_ms) p95 $(fig $q .tcp_rtt.$d.p95_ms) p99 $(fig $q .tcp_rtt.$d.p99_ms) ms over $(fig $q .tcp_rtt.$d.samples) reads, induced p50 $(fig $q .tcp_rtt.$d.induced_p50_ms) ms; peak backlog (the whole qdisc's) $(fig $q .peak_queue.$d.ms) ms"
	done
	for q in fq_codel cake; do
		t=$(fig $q .tcp_rtt.$d.induced_p50_ms)
		check_detail "the bulk flows' own induced RTT $d: fifo's p50 ($ftcp ms) at least 5x $q's ($t ms)" "$ftcp vs $t" \
			awk -v f="$ftcp" -v q="$t" 'BEGIN { exit !(f != "null" && q != "null" && f >= 5 * (q > 0.5 ? q : 0.5)) }'
	done
done
# cake's own view: each of its diffserv3 tins' delay under load, both ways. The bench's load
# is best effort, so that tin holds it: upward the flood too, whose own queue its figures
# then are (tens of ms average, seconds at the peak); downward the TCP flows alone, near
# cake's 5 ms target (here 2.9-3.1 ms). No other queue has tins
check_detail "cake's tins each way with their delays under load, best effort's near the target downward" \
	"the tins printed above" python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["runs"]:
    if r["qdisc"] not in ("cake", "cake-shaper"):
        assert "cake_tins" not in r, r["qdisc"]
        continue
    for d in ("up", "down"):
        t = {x["tin"]: x for x in r["cake_tins"][d]}
        print("# %s %s: %s" % (r["qdisc"], d, ", ".join("%s %.2f/%.2f ms" % (k, v["peak_delay_ms"], v["average_delay_ms"]) for k, v in t.items())))
        assert list(t) == ["Bulk", "Best effort", "Voice"], list(t)
        be = t["Best effort"]
        assert be["peak_delay_ms"] > 0 and (d == "up" or 0.05 <= be["average_delay_ms"] <= 15), be
' "$R"
for d in up down; do
	# Behind the 1000-packet fifo each direction's ACKs wait behind the other's data, and the
	# direction that got going second ramps up slowly at a 0.5-1 s RTT: its goodput read
	# 74-92% in 30-60 s runs, here and on the host kernel alike (docs/compare.md, "Behind the fifo one
	# direction starves"). The issue's 85-100% is not met for the fifo, and said so rather
	# than judged.
	pc=$(awk -v g="$(fig fifo .goodput_bps.$d)" -v r="$rate" 'BEGIN { printf "%.1f", g / r * 100 }')
	echo "# fifo: goodput $d $pc% of the rate (not judged: one direction starves behind a deep fifo)"
done

# A queue's own figures need a CPU that keeps up: when the bench's CPU (the guest's one) was
# saturated under load, goodput and the tail of the latency measure the CPU instead, and
# those checks are skipped with the figure. The guest cannot see the time the host takes
# from it, though: a busy host shows up as a late tail at well under 95% busy (16.5 ms at
# 85% once, against 1.4-4.8 ms on a quiet host), or as goodput short of 85% at 65% busy. So
# a queue that misses gets one more run of its own, in a fresh guest, and every figure says
# how much CPU the host took from the guest in its TCP window (measured on the host: below).
# own_figures Q: "name|figure|verdict" lines for Q's p99 and goodput in results $R
own_figures() {
	local q=$1 p99 d g pc
	p99=$(fig "$q" .latency_ms.induced.p99)
	echo "$q: induced p99 under 15 ms|$p99 ms|$(awk -v v="$p99" 'BEGIN { print (v != "null" && v < 15) ? "ok" : "bad" }')"
	for d in up down; do
		g=$(fig "$q" .goodput_bps.$d)
		pc=$(awk -v g="$g" -v r="$rate" 'BEGIN { printf "%.1f", g / r * 100 }')
		echo "$q: goodput $d within 85-100% of the rate|$pc%|$(awk -v p="$pc" 'BEGIN { print (p >= 85 && p <= 100) ? "ok" : "bad" }')"
	done
}
busy_pct() { awk -v b="$(fig "$1" .cpu_busy)" 'BEGIN { if (b == "null") print -1; else printf "%.0f", b * 100 }'; }
# host_lost Q SAMPLES: "WAITED STOLEN" percent over Q's TCP window (where goodput is measured:
# the tcp phase less its first 40%, at least 1 s, as docs/compare-schema.md says),
# from the host's side (tests/uml/hostcpu.sh)
host_lost() {
	local w
	w=$(jq -r ".runs[] | select(.qdisc == \"$1\") | (.phases[] | select(.name == \"tcp\")) as \$p |
		\"\\(.t0_unix + \$p.start_s + ([1, 0.4 * (\$p.end_s - \$p.start_s)] | max)) \\(.t0_unix + \$p.end_s)\"" "$R")
	# shellcheck disable=SC2086  # two words
	hostcpu_lost "$2" $w
}
# The host's side of it (tests/uml/hostcpu.sh): the guest's host processes waited for a CPU in
# 5-8% of a run's TCP window on a quiet host here, and in 29-53% with two busy loops beside it
# (nice 0, the guest at -19), which took fq_codel's and cake's goodput to 76-83%. A figure that misses
# twice, the second time with the host taking this much or more, is the host's: skipped, with
# the figures. One that misses twice on a quieter host fails.
HOST_LOST_MAX=${HOST_LOST_MAX:-20}
again=()
declare -A first
for q in fq_codel cake cake-shaper; do
	busy=$(busy_pct $q)
	read -r waited stolen < <(host_lost $q "$T/hostcpu")
	lost=$((waited + stolen))
	cpu="bench CPU $busy% busy, the host took $waited%+$stolen%"
	while IFS='|' read -r name val verdict; do
		if [ "$busy" -ge 95 ]; then
			echo "skip - $name ($val): the bench's CPU was $busy% busy under load (the one-CPU guest on a busy host), so the figure is the CPU's"
		elif [ "$verdict" = ok ]; then
			ok "$name ($val, $cpu)"
		else
			first[$name]="$val at $busy% busy, the host took $waited%+$stolen%"
			[[ " ${again[*]} " == *" $q "* ]] || again+=("$q")
		fi
	done < <(own_figures $q)
done
if [ ${#again[@]} -gt 0 ]; then
	qs=$(IFS=,; echo "${again[*]}")
	echo "# a second run of $qs: the first missed ($(for k in "${!first[@]}"; do printf '%s: %s; ' "$k" "${first[$k]}"; done))"
	timeout 200 "$GATEWAYD" --compare --kernel uml --qdiscs "${qs/fq_codel/$FQ}" --duration "$DUR" \
		--out "$T/again" >"$T/again.log" 2>&1 &
	guest=$!
	hostcpu_start $guest "$T/hostcpu2"
	wait $guest
	hostcpu_stop
	R=$T/again/results.json
	[ -s "$R" ] || not_ok "the second run of $qs" "no results: $(tail -3 "$T/again.log" | tr '\n' ' ')"
	for q in "${again[@]}"; do
		busy=$(busy_pct $q)
		read -r waited stolen < <(host_lost $q "$T/hostcpu2")
		lost=$((waited + stolen))
		while IFS='|' read -r name val verdict; do
			[ -n "${first[$name]:-}" ] || continue
			if [ "$busy" -ge 95 ]; then
				echo "skip - $name (first ${first[$name]}, again $val): the bench's CPU was $busy% busy the second time"
			elif [ "$lost" -ge $HOST_LOST_MAX ]; then
				echo "skip - $name (first ${first[$name]}, again $val at $busy% busy): the host took $waited%+$stolen% of the guest's time (waiting + stolen) the second time, so the figure is the host's"
			elif [ "$verdict" = ok ]; then
				ok "$name ($val in a second run at $busy% busy, the host took $waited%+$stolen%; the first read ${first[$name]})"
			else
				not_ok "$name" "$val at $busy% busy, the host took $waited%+$stolen%, and ${first[$name]} the first time"
			fi
		done < <(own_figures $q)
	done
fi
uml_runs_left
exit 0
