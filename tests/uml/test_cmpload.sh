#!/usr/bin/env bash
# tests/uml/test_cmpload.sh: the comparison bench's other loads with the FQ queues, in User-Mode
# Linux (the host kernel has neither fq_codel nor cake; tests/netns/test_lastcmp.sh runs the
# profiles and families there with the fifo alone). One run through --kernel uml's own path:
# fifo, fq_codel and cake at 20 Mbit/s, --profile bidir --flows 2 --family 46, so each way
# carries one TCP flow over IPv4 and one over IPv6 with no flood, the ICMP probes over IPv4
# and the VoIP-like stream over IPv6. Checked:
# - results.json valid against docs/compare-schema.md, the load as asked;
# - every run's flows: per direction one of each family, both carried through the shapers;
#   under fq_codel and cake each family gets at least a quarter of its direction's bytes (flow
#   fairness across the two families' flows, where the fifo promises none);
# - fq_codel's and cake's goodput each way at least 70% of the rate and at most 105% (a
#   structural bound: tests/uml/test_compare.sh judges 85-100% with a busy-host rule);
# - their induced latency at most a fifth of the fifo's: ICMP over IPv4, and the VoIP stream's
#   one-way delay over IPv6 each way;
# - the run's flent files (rrul_be_nflows, 2+2) opened, plotted and read back by flent itself
#   (tests/uml/flent_check.py).
# Run from the repo root as root.
# shellcheck source-path=SCRIPTDIR source=host.sh
. "$(dirname "$0")/host.sh"
uml_scratch "the comparison bench's loads in UML" gwcmpload-test

s0=$SECONDS
timeout 300 "$GATEWAYD" --compare --kernel uml --qdiscs fifo,fq_codel,cake --rate 20mbit \
	--duration 6s --profile bidir --flows 2 --family 46 --out "$T/out" >"$T/run.log" 2>&1
rc=$?
grep -v '^    ' "$T/run.log" | tail -25 | sed 's/^/# /'
echo "# the guest run took $((SECONDS - s0)) s"
R=$T/out/results.json
check_detail "--profile bidir --flows 2 --family 46 in UML: status 0 and results ($rc)" \
	"$(tail -3 "$T/run.log")" eval '[ $rc -eq 0 ] && [ -s "$R" ]'
[ -s "$R" ] || exit 0
probs=$(python3 tests/uml/compare_check.py "$T/out" 2>&1)
check_detail "results.json valid against docs/compare-schema.md, SVGs well-formed" "$probs" test -z "$probs"

python3 - "$R" <<'EOF' || not_ok "the checks" "python3 ended early"
import json, sys

d = json.load(open(sys.argv[1]))
c = d["config"]
rate = 20e6


def say(good, what, detail=""):
    print(("ok - " if good else "not ok - ") + what + ("" if good or not detail else ": " + str(detail)))


say((d["kernel"], c["profile"], c["tcp_flows_up"], c["tcp_flows_down"], c["ip_family"],
     c["udp_flood_bps"]) == ("uml", "bidir", 2, 2, 46, 0),
    "the load as asked: bidir, 2 flows each way, IPv4 and IPv6, no flood, in the guest",
    (d["kernel"], c["profile"], c["tcp_flows_up"], c["tcp_flows_down"], c["ip_family"]))
runs = {r["qdisc"]: r for r in d["runs"] if r["ran"]}
say(sorted(runs) == ["cake", "fifo", "fq_codel"], "three runs: fifo, fq_codel, cake", sorted(runs))
fifo = runs.get("fifo")
for q, r in sorted(runs.items()):
    tcp = [f for f in r["flows"] if f["protocol"] == "tcp"]
    fams = {k: sorted(f["family"] for f in tcp if f["direction"] == k) for k in ("up", "down")}
    mb = {}
    for f in tcp:
        k = (f["direction"], f["family"])
        mb[k] = mb.get(k, 0.0) + sum(p[1] * 0.5 for p in f["series"] if p[1] is not None) / 8e6
    share = {k: v / sum(w for (dd, _), w in mb.items() if dd == k[0]) for k, v in mb.items()}
    text = ", ".join("%s IPv%d %.1f MB (%.0f%%)" % (k[0], k[1], v, share[k] * 100)
                     for k, v in sorted(mb.items()))
    print("# %s: %s" % (q, text))
    say(fams == {"up": [4, 6], "down": [4, 6]} and not [f for f in r["flows"] if f["protocol"] == "udp"],
        "%s: each way one TCP flow over IPv4 and one over IPv6, no flood" % q, fams)
    least = 0.25 if q != "fifo" else 0.02
    say(len(share) == 4 and min(share.values()) >= least,
        "%s: both families carried each way, each at least %d%% of its direction's bytes (%s)"
        % (q, least * 100, text))
    a = r["shaper_accuracy"]
    say(all(a[k] is not None and a[k] * rate >= 0.9 * r["goodput_bps"][k] for k in ("up", "down")),
        "%s: both ways through gatewayd's shapers (accuracy up %s, down %s)" % (q, a["up"], a["down"]))
    if q == "fifo" or not fifo:
        continue
    g = r["goodput_bps"]
    say(all(g[k] is not None and 0.7 * rate <= g[k] <= 1.05 * rate for k in ("up", "down")),
        "%s: goodput up %.1f, down %.1f Mbit/s (70-105%% of 20, bench CPU %.0f%% busy)"
        % (q, (g["up"] or 0) / 1e6, (g["down"] or 0) / 1e6, r["cpu_busy"] * 100))
    mine, theirs = r["latency_ms"]["induced"]["p95"], fifo["latency_ms"]["induced"]["p95"]
    say(mine is not None and theirs is not None and mine * 5 <= theirs,
        "%s: ICMP (IPv4) induced p95 %s ms, at most a fifth of the fifo's %s" % (q, mine, theirs))
    for k in ("up", "down"):
        mine = r["udp_latency_ms"][k]["induced"]["p95"]
        theirs = fifo["udp_latency_ms"][k]["induced"]["p95"]
        say(mine is not None and theirs is not None and mine * 5 <= theirs,
            "%s: the VoIP stream (IPv6) %s: one-way induced p95 %s ms, at most a fifth of the fifo's %s"
            % (q, k, mine, theirs))
EOF

/usr/bin/python3 tests/uml/flent_check.py "$T/out" || not_ok "tests/uml/flent_check.py" "status $?"
uml_runs_left
exit 0
