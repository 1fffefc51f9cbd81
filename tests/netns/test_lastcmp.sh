#!/usr/bin/env bash
# The status page shows the last comparison: a real `gatewayd --compare` (host kernel, fifo
# with a knob, 8mbit down and 4mbit up, 5 s: its own namespaces) writes results.json and the plots; a real daemon whose compare_dir
# points there serves their summary at /api/compare and the plots at /compare/NAME.svg; a
# reload that moves compare_dir to an empty directory makes it a 404. A second short run and
# `--compare-report` over both: the table, report.json and the plots, and bad inputs refused.
# The first run is asymmetric (--rate 8mbit/4mbit): each direction's shaper at its own rate.
# --qdiscs a kind this kernel lacks, or a bad knob: exit 2 before anything starts; an --out
# not root's own, exit 1; the bench on a full 64 KiB tmpfs fails and keeps the old files. Then the
# other loads (--profile upload, download, bidir; --family 6, 46), each run's flent file
# opened and read back by flent itself as the flent test of its load; the upload's run by
# gatewayd-bench directly, the others through `gatewayd --compare`, each results.json valid.
. "$(dirname "$0")/lib.sh"

# refusals first: nothing made (no --out, no namespace), a clear message
# the bench's namespaces (gwcmpPID-...): other suites make their own meanwhile
bench_ns() { ip netns list | awk '$1 ~ /^gwcmp/ { print $1 }' | sort | tr '\n' ' '; }
nsbefore=$(bench_ns)
refuses_cmp() { # refuses_cmp WANT ARGS...: --compare ARGS exits 2, WANT in its message
	local want=$1 out
	shift
	out=$(timeout 20 "$GATEWAYD" --compare --kernel host --duration 4s --out "$TMPD/never" "$@" 2>&1)
	[ $? -eq 2 ] && grep -qF -- "$want" <<<"$out" && [ ! -e "$TMPD/never" ] ||
		{ echo "# got: $out"; return 1; }
}
check "--kernel host --qdiscs fq_codel (this kernel has none): exit 2, nothing made" \
	refuses_cmp "--kernel host: this kernel has no fq_codel (--qdiscs fq_codel)" --qdiscs fifo,fq_codel
check "--qdiscs fifo:limit=banana: exit 2 naming the knob" \
	refuses_cmp "--qdiscs fifo:limit=banana: 'limit'" --qdiscs fifo:limit=banana
check "--qdiscs fifo:nosuchknob=1: exit 2 naming the knob" \
	refuses_cmp "nosuchknob" --qdiscs fifo:nosuchknob=1
check "--profile nope: exit 2 naming the profiles" \
	refuses_cmp "--profile: rrul (TCP both ways, then a UDP flood), bidir, upload or download, not 'nope'" --profile nope
check "--flows 9: exit 2 with the bound" refuses_cmp "--flows: want 1 to 8" --flows 9
check "--family 5: exit 2" refuses_cmp "--family: 4 (IPv4, the default), 6 (the load, probes and flood over IPv6) or 46" --family 5
# --out not root's own: refused before anything runs (exit 1), nothing written there
refuses_out() { # refuses_out DIR WANT
	local out
	out=$(timeout 20 "$GATEWAYD" --compare --kernel host --qdiscs fifo --duration 4s --out "$1" 2>&1)
	[ $? -eq 1 ] && grep -qF -- "$2" <<<"$out" && [ -z "$(ls -A "$1")" ] ||
		{ echo "# got: $out"; return 1; }
}
mkdir -m 0755 "$TMPD/nobodys" "$TMPD/open"
chown 65534:65534 "$TMPD/nobodys"
chmod 0777 "$TMPD/open"
check "--out owned by nobody: exit 1 before the bench, nothing written" \
	refuses_out "$TMPD/nobodys" "gatewayd: --out $TMPD/nobodys: owned by uid 65534, not by this user (uid 0)"
check "--out writable by others (0777): exit 1 before the bench, nothing written" \
	refuses_out "$TMPD/open" "gatewayd: --out $TMPD/open: writable by others (mode 0777)"
check "the refused runs made no namespace" \
	eval '[ "$(bench_ns)" = "$nsbefore" ]'

CMP=$TMPD/new/cmp	# made by --compare, parents included
start=$SECONDS
# under umask 077, as a careful root may run it: the files must still be readable
(umask 077; timeout 40 "$GATEWAYD" --compare --kernel host --qdiscs fifo:limit=1000 --rate 8mbit/4mbit \
	--duration 5s --out "$CMP" \
	>"$TMPD/compare.out" 2>&1)
rc=$?
echo "# gatewayd --compare (fifo:limit=1000, 8mbit down, 4mbit up, 5 s) took $((SECONDS - start)) s, status $rc"
if [ $rc -ne 0 ] || [ ! -s "$CMP/results.json" ]; then
	not_ok "gatewayd --compare writes results.json" "$(tail -5 "$TMPD/compare.out")"
	exit 1
fi
ok "gatewayd --compare wrote results.json ($(stat -c %s "$CMP/results.json") bytes) and $(ls "$CMP" | grep -c 'svg$') plots"
# the same bench on a full disk: a 64 KiB tmpfs holding an old results.json and a filler
FULL=$TMPD/full
mkdir "$FULL"
if mount -t tmpfs -o size=64k,mode=0755 "gw$$-full" "$FULL"; then
	trap 'umount "$FULL" 2>/dev/null; cleanup' EXIT
	mkdir "$FULL/cmp"
	cp "$TOP/tests/unit/cmpreport/good/results.json" "$FULL/cmp/"
	old=$(sha256sum <"$FULL/cmp/results.json")
	dd if=/dev/zero of="$FULL/filler" bs=4k 2>/dev/null
	timeout 40 "$GATEWAYD" --compare --kernel host --qdiscs fifo --rate 8mbit --duration 4s \
		--out "$FULL/cmp" >"$TMPD/full.out" 2>&1
	rc=$?
	grep '^gatewayd: ' "$TMPD/full.out" | sed 's/^/# /'
	check "--compare on a full 64 KiB tmpfs: exit $rc (1), each file named with the reason" \
		eval '[ $rc -eq 1 ] &&
		grep -q "gatewayd: $FULL/cmp/results.json: cannot write: No space left on device" "$TMPD/full.out" &&
		grep -q "gatewayd: $FULL/cmp/latency-cdf.svg: cannot write: No space left on device" "$TMPD/full.out" &&
		grep -q "fifo.flent.gz: cannot write: No space left on device" "$TMPD/full.out"'
	check "  no .tmp left, the old results.json intact (sha256), nothing else there" \
		eval '[ -z "$(find "$FULL" -name "*.tmp")" ] && [ "$(sha256sum <"$FULL/cmp/results.json")" = "$old" ] &&
			[ "$(ls "$FULL/cmp")" = results.json ]'
	umount "$FULL"
else
	not_ok "a 64 KiB tmpfs" "mount failed"
fi
check "its files are readable by any user (the daemon runs as a dynamic user)" \
	bash -c "[ \"\$(stat -c %a '$TMPD/new' '$CMP' '$CMP/results.json' '$CMP/flows-fifo_limit-1000.svg' | tr '\n' ' ')\" = '755 755 644 644 ' ]"

check "the run at 8mbit down, 4mbit up: each direction's shaper at its own rate (the kernel's classes), its goodput under it" python3 -c '
import json, sys
r = json.load(open(sys.argv[1] + "/results.json"))
c = r["config"]
assert (c["rate_bps"], c["rate_bps_down"], c["rate_bps_up"]) == (8000000, 8000000, 4000000), c
x = r["runs"][0]
assert x["label"] == "fifo:limit=1000" and x["qdisc"] == "fifo", (x["label"], x["qdisc"])
want = {"up": ("g1", "rate 4mbit ceil 4mbit"), "down": ("ifb-cmp", "rate 8mbit ceil 8mbit")}
for d, (dev, rate) in want.items():
    cls = [q for q in x["qdiscs"] if q["direction"] == d and q["type"] == "class" and q["kind"] == "htb"]
    assert len(cls) == 2 and all(q["interface"] == dev and q["params"].startswith(rate + " ") for q in cls), (d, cls)
    # no more goodput than the direction s own shaper lets through (20% for the window s
    # edges: 0.5 s intervals in a 1 s window, and htb s burst in it: 114.9% and 115% were
    # read, on this tree and before it); the other direction s rate would let 2x by.
    # (The shaper s own counter is not judged: over 1 s it read up to 115% of the rate.)
    g, a, bps = x["goodput_bps"][d], x["shaper_accuracy"][d], c["rate_bps_" + d]
    assert g <= 1.20 * bps, (d, g, a, bps)
    print("# %s: shaper %s on %s, goodput %.2f Mbit/s (%.0f%% of its %.0f Mbit/s), shaper sent %.0f%%" % (
        d, rate.split()[1], dev, g / 1e6, g / bps * 100, bps / 1e6, (a or 0) * 100))
' "$CMP"

# the UDP probes through the server's reflector: each way's delay. Behind the fifo's 1000
# packets at 4 Mbit/s the upload's queue is seconds deep, and a reply's round trip is its two
# one-way delays (one clock: the namespaces share the machine's)
check "UDP probes: one-way delays, the upload's queue in the up figure, up + down = the round trip" python3 -c '
import json, sys
x = json.load(open(sys.argv[1] + "/results.json"))["runs"][0]
u = x["udp_latency_ms"]
up, down, rtt = (u[k]["induced"]["p95"] for k in ("up", "down", "rtt"))
print("# UDP induced p95: up %.1f ms, down %.1f ms, round trip %.1f ms; ICMP %.1f ms; %d UDP probes (%d lost under load)" % (
    up, down, rtt, x["latency_ms"]["induced"]["p95"], len(x["udp_samples"]), u["rtt"]["loaded"]["lost"]))
assert u["up"]["idle"]["samples"] >= 10 and u["up"]["loaded"]["samples"] >= 20, u["up"]
assert up >= 100 and up > down, (up, down)
gaps = sorted(abs(s[1] - s[2] - s[3]) for s in x["udp_samples"] if s[1] is not None)
assert gaps and gaps[len(gaps) // 2] < 0.5 and gaps[-1] < 5, (gaps[:3], gaps[-3:])
' "$CMP"

check "the bulk TCP flows' own RTT, read by each flow's sender: both ways, well above the idle baseline (the fifo queues), in the table" python3 -c '
import json, sys
x = json.load(open(sys.argv[1] + "/results.json"))["runs"][0]
t, base = x["tcp_rtt"], x["latency_ms"]["baseline"]
assert t["baseline_ms"] == base, (t["baseline_ms"], base)
lo, hi = t["window_s"]
ph = {p["name"]: p for p in x["phases"]}
# (every time rounded to the ms: 1 ms of slack)
assert ph["tcp"]["start_s"] + 1 - 0.001 <= lo < ph["flood"]["start_s"] and abs(hi - ph["idle2"]["start_s"]) <= 0.001, (lo, hi, ph)
for d in ("up", "down"):
    v = t[d]
    # 4 flows at 10 reads a second over a window of 2 s and more
    assert v["flows"] == 4 and v["samples"] >= 40, (d, v)
    # 1000 packets of fifo at 4 or 8 mbit hold 1.5 to 3 s; the flows keep hundreds of ms of it
    # standing (measured 600 ms): 50 ms over an idle baseline of a tenth of a ms is a bound an
    # RTT read from an idle socket, or in the wrong unit, fails
    assert v["induced_p50_ms"] >= 50 and v["p50_ms"] <= v["p95_ms"] <= v["p99_ms"], (d, v)
    assert abs(v["induced_p50_ms"] - (v["p50_ms"] - base)) < 0.01, (d, v, base)
    print("# %s: bulk-flow RTT p50 %.1f p95 %.1f p99 %.1f mean %.1f ms over %d reads of %d flows; idle baseline %.2f ms; induced p50 %.1f ms (the probes: %.1f)" % (
        d, v["p50_ms"], v["p95_ms"], v["p99_ms"], v["mean_ms"], v["samples"], v["flows"], base,
        v["induced_p50_ms"], x["latency_ms"]["induced"]["p50"]))
tcp = [f for f in x["flows"] if f["protocol"] == "tcp"]
assert len(tcp) == 8 and all(len(f["rtt_series"]) >= 20 for f in tcp), [(f["name"], len(f.get("rtt_series", []))) for f in tcp]
assert all(r[1] > 0 and r[2] >= 0 for f in tcp for r in f["rtt_series"])
rows = {l[:26].strip(): l[26:].split() for l in open(sys.argv[2]) if l[:26].strip()}
for label, d, k in (("TCP RTT up p50 (ms)", "up", "p50_ms"), ("TCP RTT down p99 (ms)", "down", "p99_ms"),
                    ("TCP induced down p50 (ms)", "down", "induced_p50_ms")):
    assert rows[label] == ["%.1f" % t[d][k]], (label, rows.get(label), t[d][k])
assert rows["peak backlog up (ms)"] == ["%.1f" % x["peak_queue"]["up"]["ms"]], rows.get("peak backlog up (ms)")
' "$CMP" "$TMPD/compare.out"

# --compare-report over two saved runs: a second, shorter run at another rate beside the first
RUN2=$TMPD/run2
start=$SECONDS
timeout 40 "$GATEWAYD" --compare --kernel host --qdiscs fifo --duration 4s --rate 10mbit \
	--out "$RUN2" >"$TMPD/compare2.out" 2>&1
echo "# the second run (fifo, 4 s, 10mbit) took $((SECONDS - start)) s, status $?"
REP=$TMPD/report
"$GATEWAYD" --compare-report --out "$REP" "$CMP=first" "$RUN2" >"$TMPD/report.out" 2>&1
rc=$?
check "--compare-report over both runs exits 0 ($rc: $(tail -1 "$TMPD/report.out"))" test $rc -eq 0
check "the table: both runs' columns, every figure as in each results.json, settings and a warning" python3 -c '
import json, sys
text = open(sys.argv[1]).read().split("\n")
runs = [json.load(open(sys.argv[2] + "/results.json")), json.load(open(sys.argv[3] + "/results.json"))]
labels = ["first", "run2"]
hdr = [l for l in text if l.startswith("first: ") or l.startswith("run2: ")]
assert len(hdr) == 2 and "8mbit down, 4mbit up," in hdr[0] and "10mbit each way," in hdr[1], hdr
assert "5 s per queue" in hdr[0] and "4 s per queue" in hdr[1], hdr
assert any("config.rate_bps: first 8000000, run2 10000000" in l for l in text), "no rate warning"
assert any("config.rate_bps_up: first 4000000, run2 10000000" in l for l in text), "no up rate warning"
i = next(k for k, l in enumerate(text) if l.split() == labels)
assert text[i + 1].split() == ["fifo:limit=1000", "fifo"], text[i + 1]
rows = {l[:26].strip(): l[26:].split() for l in text[i + 2:] if l[:26].strip()}
def at(o, p):
    for k in p.split("."):
        o = o[k]
    return o
spec = [("goodput up (Mbit/s)", "goodput_bps.up", 1e-6, 2), ("goodput down (Mbit/s)", "goodput_bps.down", 1e-6, 2),
        ("shaper accuracy up (%)", "shaper_accuracy.up", 100, 1), ("idle RTT p50 (ms)", "latency_ms.idle.p50", 1, 1),
        ("loaded RTT p95 (ms)", "latency_ms.loaded.p95", 1, 1), ("induced p50 (ms)", "latency_ms.induced.p50", 1, 1),
        ("induced p99 (ms)", "latency_ms.induced.p99", 1, 1), ("induced mean (ms)", "latency_ms.induced.mean", 1, 1),
        ("Jain\x27s fairness (TCP)", "jain_fairness", 1, 3), ("peak backlog up (ms)", "peak_queue.up.ms", 1, 1),
        ("TCP RTT up p50 (ms)", "tcp_rtt.up.p50_ms", 1, 1), ("TCP induced down p50 (ms)", "tcp_rtt.down.induced_p50_ms", 1, 1)]
n = 0
for name, path, scale, dec in spec:
    for c, r in enumerate(runs):
        v = at(r["runs"][0], path)
        want = "-" if v is None else "%.*f" % (dec, v * scale)
        assert rows[name][c] == want, (name, c, rows[name][c], want)
        n += 1
for c, r in enumerate(runs):
    x = r["runs"][0]
    assert rows["drops up/down"][c] == "%d/%d" % (x["drops"]["up"], x["drops"]["down"])
    assert rows["grade (induced mean)"][c] == x["grade"]
    n += 2
print("# %d figures checked, e.g. induced p50 %s and %s ms" % (n, rows["induced p50 (ms)"][0], rows["induced p50 (ms)"][1]))
' "$TMPD/report.out" "$CMP" "$RUN2"
check "report.json: both runs, the settings that differ, boxes whose median is the table's induced p50" python3 -c '
import json, sys
r = json.load(open(sys.argv[1] + "/report.json"))
assert r["schema"] == "gatewayd-compare-report" and [x["label"] for x in r["runs"]] == ["first", "run2"]
assert "rate_bps" in r["settings_differ"] and "duration_s" in r["settings_differ"], r["settings_differ"]
for c, d in zip(r["columns"], sys.argv[2:]):
    f = json.load(open(d + "/results.json"))["runs"][0]
    assert c["figures"]["latency_ms"] == f["latency_ms"] and c["figures"]["goodput_bps"] == f["goodput_bps"]
    b = c["box"]["induced_ms"]
    assert b["samples"] > 0 and abs(b["median"] - f["latency_ms"]["induced"]["p50"]) <= 0.002, (b, f["latency_ms"]["induced"])
    assert abs(b["p95"] - f["latency_ms"]["induced"]["p95"]) <= 0.002
    assert b["min"] <= b["p5"] <= b["q1"] <= b["median"] <= b["q3"] <= b["p95"] <= b["max"]
' "$REP" "$CMP" "$RUN2"
svgs_ok() {
	for f in report-latency-cdf report-box-induced report-box-goodput; do
		xmllint --noout "$REP/$f.svg" || return 1
	done
	# one series per run and queue: two CDF lines, two induced boxes, two each way
	[ "$(grep -c 'clip-path="url(#plot)"' "$REP/report-latency-cdf.svg")" = 2 ] &&
		grep -q '>first fifo:limit=1000<' "$REP/report-latency-cdf.svg" &&
		grep -q '>run2 fifo<' "$REP/report-latency-cdf.svg" &&
		[ "$(grep -c 'class="box"' "$REP/report-box-induced.svg")" = 2 ] &&
		[ "$(grep -c 'class="box"' "$REP/report-box-goodput.svg")" = 4 ]
}
check "the three plots are well-formed XML with a series per run and queue" svgs_ok

# report.html: the real run's and the report's, from their results.json, and one written again
# for an old run (--html-only) that is the same file; then the run's in headless Chromium
check "report.html of the run: well-formed, self-contained, every figure of results.json" \
	python3 "$TOP/tests/report_html.py" static "$CMP/report.html" "$CMP"
check "report.html of --compare-report: both runs' columns, every figure, its three plots" bash -c "
	python3 '$TOP/tests/report_html.py' static '$REP/report.html' '$CMP' '$RUN2' &&
	[ \$(grep -c 'class=\"plot\"' '$REP/report.html') = 3 ]"
cp "$RUN2/report.html" "$TMPD/run2-report.html" && rm "$RUN2/report.html"
"$GATEWAYD" --compare-report --html-only "$RUN2" >"$TMPD/html-only.out" 2>&1
check "--compare-report --html-only RUNDIR writes the same report.html again ($?: $(cat "$TMPD/html-only.out"))" \
	cmp -s "$RUN2/report.html" "$TMPD/run2-report.html"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
# shot PAGE PNG NETLOG: PAGE rendered in a network namespace of its own (nothing to reach), the
# browser's requests in NETLOG; every host name resolves to nothing, a page's requests show
shot() {
	timeout 60 unshare -n "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--force-device-scale-factor=1 --user-data-dir="$TMPD/chromium-${2##*/}" --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-default-apps --disable-extensions --no-pings \
		--host-resolver-rules="MAP * ~NOTFOUND" --log-net-log="$3" --net-log-capture-mode=Everything \
		--window-size=1200,3000 --screenshot="$2" "file://$1" >"$2.log" 2>&1
}
if [ "${REPORT_CHROMIUM:-1}" = 0 ]; then
	skip "report.html in Chromium" "REPORT_CHROMIUM=0 (the sanitizer build's run: the page is the same)"
elif [ ! -x "$CHROMIUM" ]; then
	skip "report.html in Chromium" "$CHROMIUM not installed (Debian package chromium)"
else
	start=$SECONDS
	# the control: a page that asks for two things (names that resolve nowhere) shows in the log
	printf '<!DOCTYPE html><p>x<img src="http://report-check.invalid/x.png"></p>' >"$TMPD/control.html"
	shot "$TMPD/control.html" "$TMPD/control.png" "$TMPD/control.netlog" & cpid=$!
	np=$(grep -c 'class="plot"' "$CMP/report.html")
	# report.html over Chromium's DevTools pipe, in a network namespace of its own: its table
	# and plots found by their element ids, each drawn in its box on the screenshot
	check "Chromium renders report.html: the table (id figures) and its $np plots (ids plot0...) found by id, each drawn" \
		timeout 90 unshare -n python3 "$TOP/tests/report_html.py" shot "$CHROMIUM" \
		"$CMP/report.html" "$TMPD/report.png" "$np" "$TMPD/report.netlog"
	wait $cpid
	echo "# Chromium rendered report.html (and the control page beside it) in $((SECONDS - start)) s"
	check "and makes no network request: none by the page in the net log" \
		python3 "$TOP/tests/report_html.py" netlog "$TMPD/report.netlog"
	check "the net log check sees a page's requests (the control page's)" \
		python3 "$TOP/tests/report_html.py" netlog "$TMPD/control.netlog" --expect
	echo "# report.html checks took $((SECONDS - start)) s"
fi
mkdir -p "$TMPD/empty-run" "$TMPD/bad-run"
printf '{"schema": "gatewayd-compare", "version": 1,\n "runs": [,]}\n' >"$TMPD/bad-run/results.json"
refuses() { # refuses WANT ARGS...: exit 2 and WANT in the message
	local want=$1 out
	shift
	out=$("$GATEWAYD" --compare-report "$@" 2>&1)
	[ $? -eq 2 ] && grep -qF -- "$want" <<<"$out" || { echo "# got: $out"; return 1; }
}
check "one run only: exit 2" refuses "want 2 to 16 run directories, not 1" "$CMP"
check "a directory that is not there: exit 2" refuses "$TMPD/nope: no such directory" "$CMP" "$TMPD/nope"
check "a directory without results.json: exit 2" \
	refuses "$TMPD/empty-run/results.json: missing" "$CMP" "$TMPD/empty-run"
check "a broken results.json: exit 2 with its file and line" \
	refuses "$TMPD/bad-run/results.json:2: not JSON" "$CMP" "$TMPD/bad-run"
check "two runs with one label: exit 2" refuses "two runs are labelled 'x'" "$CMP=x" "$RUN2=x"
check "--html-only wants one run directory" refuses "want one run directory" --html-only "$CMP" "$RUN2"

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
assert (s["config"]["rate_bps_down"], s["config"]["rate_bps_up"]) == (8000000, 4000000), s["config"]
a, b = s["runs"][0], f["runs"][0]
assert a["qdisc"] == b["qdisc"] == "fifo" and a["ran"] and a["grade"] == b["grade"]
assert a["label"] == b["label"] == "fifo:limit=1000", (a["label"], b["label"])
assert a["drops"] == b["drops"]
for d in ("up", "down"):
    assert abs(a["goodput_bps"][d] - b["goodput_bps"][d]) <= 1e-5 * b["goodput_bps"][d]
assert abs(a["latency_ms"]["induced"]["p99"] - b["latency_ms"]["induced"]["p99"]) < 1e-3
assert "samples" not in a and "flows" not in a and "flows-fifo_limit-1000.svg" in s["plots"], s["plots"]
print("# summary: fifo %s, goodput up %.1f down %.1f Mbit/s, induced p99 %.1f ms, %d bytes of %d" % (
    a["grade"], a["goodput_bps"]["up"] / 1e6, a["goodput_bps"]["down"] / 1e6,
    a["latency_ms"]["induced"]["p99"], len(open(sys.argv[1]).read()), len(open(sys.argv[2]).read())))
' "$TMPD/sum.json" "$CMP/results.json"
t=$(api -o "$TMPD/p.svg" -w '%{http_code} %{content_type}' $B/compare/latency-cdf.svg)
check "/compare/latency-cdf.svg: $t, the file itself" \
	bash -c "[ '$t' = '200 image/svg+xml' ] && cmp -s '$TMPD/p.svg' '$CMP/latency-cdf.svg'"
t=$(api -o "$TMPD/f.svg" -w '%{http_code} %{content_type}' $B/compare/flows-fifo_limit-1000.svg)
check "/compare/flows-fifo_limit-1000.svg (the labelled run's plot): $t, the file itself" \
	bash -c "[ '$t' = '200 image/svg+xml' ] && cmp -s '$TMPD/f.svg' '$CMP/flows-fifo_limit-1000.svg'"
t=$(api -o /dev/null -w '%{http_code}' $B/compare/flows-fifo_limit-1000%2F..%2Fresults.json)
check "/compare/ of a name with a '/' is not served ($t)" test "$t" = 404
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

# cmp_run NAME DESC ARGS...: a 6 s fifo run at 10mbit on this kernel into $TMPD/NAME, timed,
# and its results.json checked against docs/compare-schema.md; run by `gatewayd --compare`,
# or by the bench's own program, gatewayd-bench, which that runs (CMP=bench)
cmp_run() {
	local name=$1 desc=$2 probs start=$SECONDS prog=("$GATEWAYD" --compare)
	shift 2
	[ "${CMP:-}" = bench ] && prog=("$(dirname "$GATEWAYD")/gatewayd-bench")
	timeout 40 "${prog[@]}" --kernel host --qdiscs fifo --rate 10mbit --duration 6s \
		"$@" --out "$TMPD/$name" >"$TMPD/$name.out" 2>&1
	echo "# $desc (fifo, 10mbit, 6 s) took $((SECONDS - start)) s, status $?"
	probs=$(python3 "$(dirname "$0")/../uml/compare_check.py" "$TMPD/$name" 2>&1)
	check "$desc: results.json valid against docs/compare-schema.md" test -z "$probs" ||
		echo "# $probs"
}

# --profile upload and download (2 flows, 6 s): TCP one way only, no flood. The other way then
# carries nothing but the TCP ACKs, the probes and the VoIP stream: its one-way delay stays
# near idle while the loaded way's fifo fills (hundreds of ms), and it has no goodput
for prof in upload download; do
	# the upload run by gatewayd-bench itself: its results.json valid either way
	if [ $prof = upload ]; then
		CMP=bench cmp_run $prof "gatewayd-bench --profile $prof" --profile $prof --flows 2
	else
		cmp_run $prof "--profile $prof" --profile $prof --flows 2
	fi
	check "--profile $prof: 2 TCP flows $prof only, no flood; the loaded way's queue in its one-way delay, the other near idle" python3 -c '
import json, sys
prof = sys.argv[2]
d = json.load(open(sys.argv[1] + "/results.json"))
c, x = d["config"], d["runs"][0]
on, off = ("up", "down") if prof == "upload" else ("down", "up")
assert (c["profile"], c["tcp_flows_" + on], c["tcp_flows_" + off], c["udp_flood_bps"]) == (prof, 2, 0, 0), c
tcp = [f for f in x["flows"] if f["protocol"] == "tcp"]
assert len(tcp) == 2 and all(f["direction"] == on for f in tcp), [(f["name"], f["direction"]) for f in tcp]
assert not [f for f in x["flows"] if f["protocol"] == "udp"], "a flood"
g, u = x["goodput_bps"], x["udp_latency_ms"]
print("# %s: goodput %s %.2f Mbit/s; VoIP one-way induced p95 %s %.1f ms, %s %.1f ms; TCP RTT %s p50 %.1f ms" % (
    prof, on, g[on] / 1e6, on, u[on]["induced"]["p95"], off, u[off]["induced"]["p95"], on, x["tcp_rtt"][on]["p50_ms"]))
assert g[off] is None and 0.85 * 10e6 <= g[on] <= 1.05 * 10e6, g
assert u[on]["induced"]["p95"] >= 100 and u[off]["induced"]["p95"] <= 20, (u[on]["induced"], u[off]["induced"])
' "$TMPD/$prof" $prof
done

# flent_file NAME: the run's .flent.gz checked with flent itself (tests/uml/flent_check.py: of
# the flent test of its load, opened, plotted, its values and metadata equal to results.json's;
# a skip without flent)
flent_file() {
	/usr/bin/python3 "$(dirname "$0")/../uml/flent_check.py" "$TMPD/$1" ||
		not_ok "tests/uml/flent_check.py $1" "status $?"
}
# the one-way runs as flent's tcp_nup and tcp_ndown
flent_file upload
flent_file download

# --profile bidir --flows 3: TCP both ways, no flood; as flent's rrul_be_nflows (3+3)
cmp_run bidir "--profile bidir --flows 3" --profile bidir --flows 3
check "--profile bidir: 3 TCP flows each way, no flood, the fifo's queue in the probes" python3 -c '
import json, sys
d = json.load(open(sys.argv[1] + "/results.json"))
c, x = d["config"], d["runs"][0]
assert (c["profile"], c["tcp_flows_up"], c["tcp_flows_down"], c["udp_flood_bps"]) == ("bidir", 3, 3, 0), c
tcp = sorted(f["direction"] for f in x["flows"] if f["protocol"] == "tcp")
assert tcp == ["down"] * 3 + ["up"] * 3 and not [f for f in x["flows"] if f["protocol"] == "udp"], tcp
g = x["goodput_bps"]
print("# bidir: goodput up %.2f down %.2f Mbit/s, induced p95 %.1f ms" % (g["up"] / 1e6, g["down"] / 1e6, x["latency_ms"]["induced"]["p95"]))
# each way under its shaper, and not far under it (the ACKs of one way wait in the full fifo
# of the other: a direction read 83% of the rate)
assert all(0.6 * 10e6 <= g[k] <= 1.2 * 10e6 for k in ("up", "down")), g
assert x["latency_ms"]["induced"]["p95"] >= 100, x["latency_ms"]
' "$TMPD/bidir"
flent_file bidir

# --family 6: the load, the probes (ICMPv6) and the VoIP stream over IPv6, through gatewayd's
# shaping both ways: each direction's goodput under its rate, and carried by its shaper (an
# IPv6 download that went around the ifb would read near line rate there and ~0 in the shaper)
cmp_run v6 "--family 6" --family 6
check "--family 6: over IPv6, shaped both ways by gatewayd, the fifo's queue in the probes and the VoIP stream" python3 -c '
import json, sys
d = json.load(open(sys.argv[1] + "/results.json"))
c, x = d["config"], d["runs"][0]
assert c["ip_family"] == 6, c
g, a, u = x["goodput_bps"], x["shaper_accuracy"], x["udp_latency_ms"]
print("# IPv6: goodput up %.2f down %.2f Mbit/s, the shapers sent %.0f%% and %.0f%% of 10; idle RTT %.2f ms, induced p95 ICMPv6 %.1f, VoIP up %.1f ms" % (
    g["up"] / 1e6, g["down"] / 1e6, a["up"] * 100, a["down"] * 100, x["latency_ms"]["baseline"],
    x["latency_ms"]["induced"]["p95"], u["up"]["induced"]["p95"]))
for k in ("up", "down"):
    assert g[k] <= 1.2 * 10e6 and a[k] * 10e6 >= 0.9 * g[k], (k, g, a)
assert x["latency_ms"]["baseline"] < 5 and x["latency_ms"]["induced"]["p95"] >= 100, x["latency_ms"]
assert u["up"]["induced"]["p95"] >= 100 and u["up"]["loaded"]["samples"] >= 50, u["up"]
' "$TMPD/v6"
flent_file v6	# rrul_be, its pings to the IPv6 server

# --family 46 (flent's rrul46): each way's 4 TCP flows 2 over IPv4 and 2 over IPv6 at once,
# both families through the same shapers; the VoIP stream over IPv6 beside ICMP over IPv4
cmp_run v46 "--family 46" --family 46
check "--family 46: 2 IPv4 and 2 IPv6 flows each way, both carried through gatewayd's shapers" python3 -c '
import json, sys
d = json.load(open(sys.argv[1] + "/results.json"))
c, x = d["config"], d["runs"][0]
assert c["ip_family"] == 46, c
tcp = [f for f in x["flows"] if f["protocol"] == "tcp"]
fam = {(f["direction"], f["family"]): 0.0 for f in tcp}
for f in tcp:
    fam[(f["direction"], f["family"])] += sum(p[1] * 0.5 for p in f["series"]) / 8e6
print("# %s" % ", ".join("%s over IPv%d: %.1f MB" % (k[0], k[1], v) for k, v in sorted(fam.items())))
for d_ in ("up", "down"):
    assert sorted(f["family"] for f in tcp if f["direction"] == d_) == [4, 4, 6, 6], [(f["name"], f["family"]) for f in tcp]
assert sum(v for k, v in fam.items() if k[1] == 4) > 0.3 and sum(v for k, v in fam.items() if k[1] == 6) > 0.3, fam
g, a = x["goodput_bps"], x["shaper_accuracy"]
for k in ("up", "down"):
    assert g[k] <= 1.2 * 10e6 and a[k] * 10e6 >= 0.9 * g[k], (k, g, a)
assert x["udp_latency_ms"]["up"]["loaded"]["samples"] >= 50, x["udp_latency_ms"]["up"]
' "$TMPD/v46"
