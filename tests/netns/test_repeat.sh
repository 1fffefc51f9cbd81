#!/usr/bin/env bash
# `gatewayd --compare --repeat N` on the host kernel (fifo kinds, no netem): a bad --repeat is
# refused (exit 2, nothing made); two queues twice each run interleaved (the progress lines
# and runs[].t0_unix), every summary median is the median of the runs' own figures and inside
# its interval, the pairs said apart are the ones whose intervals do not overlap, the table
# prints median [lo, hi], the box plots have a box per queue with each repetition marked, and
# report.html and --compare-report read the repeated results.json back.
. "$(dirname "$0")/lib.sh"

refuses_repeat() { # refuses_repeat N: --repeat N exits 2 with the message, nothing made
	local out
	out=$(timeout 20 "$GATEWAYD" --compare --kernel host --duration 4s --out "$TMPD/never" \
		--repeat "$1" 2>&1)
	[ $? -eq 2 ] && grep -qF -- "--repeat: want a whole number of repetitions from 1 to 20" <<<"$out" &&
		[ ! -e "$TMPD/never" ] || { echo "# got: $out"; return 1; }
}
for n in 0 21 x 2x; do
	check "--repeat $n: exit 2, a clear message, nothing made" refuses_repeat "$n"
done
check "--repeat 20 with 8 queues of 1 h: more than the results file takes, refused" bash -c \
	"timeout 20 '$GATEWAYD' --compare --kernel host --repeat 20 --duration 1h --out '$TMPD/never' \
	--qdiscs fifo,fifo,fifo,fifo,fifo,fifo,fifo,fifo 2>&1 | grep -q 'more than 8 h of runs'; \
	[ \${PIPESTATUS[0]} -eq 2 ] && [ ! -e '$TMPD/never' ]"

REP=$TMPD/rep
start=$SECONDS
timeout 90 "$GATEWAYD" --compare --kernel host --qdiscs fifo,fifo:limit=30 --repeat 2 \
	--duration 4s --out "$REP" >"$TMPD/repeat.out" 2>&1
rc=$?
echo "# gatewayd --compare --repeat 2 (fifo, fifo:limit=30, 4 s each) took $((SECONDS - start)) s, status $rc"
if [ $rc -ne 0 ] || [ ! -s "$REP/results.json" ]; then
	not_ok "gatewayd --compare --repeat 2 exits 0 with results.json" "$(tail -5 "$TMPD/repeat.out")"
	exit 1
fi
ok "gatewayd --compare --repeat 2 exits 0 with results.json"
probs=$(python3 "$(dirname "$0")/../uml/compare_check.py" "$REP" 2>&1)
check "results.json valid against docs/compare-schema.md, every run's flows-LABEL-repK.svg well-formed" \
	test -z "$probs" || echo "# $probs"

# every check of the run's files in one python3 (its start-up takes seconds on a loaded machine)
python3 - "$REP" "$TMPD/repeat.out" <<'EOF'
import json, os, re, statistics, sys, traceback
import xml.etree.ElementTree as E
d, out = sys.argv[1], open(sys.argv[2]).read()
r = json.load(open(d + "/results.json"))
runs, s = r["runs"], r["summary"]
labels = ("fifo", "fifo:limit=30")

def check(name, fn):
    try:
        fn()
        print("ok - " + name)
    except Exception:
        print("not ok - %s: %s" % (name, traceback.format_exc().strip().split("\n")[-1]))

def at(o, path):
    for k in path.split("."):
        o = o.get(k) if isinstance(o, dict) else None
    return o

def progress():
    lines = out.split("\n")
    got = [l for l in lines if re.match(r"repetition \d of 2$", l) or re.search(r"\(repetition \d/2\): done in", l)]
    want = ["repetition 1 of 2", "fifo (repetition 1/2)", "fifo:limit=30 (repetition 1/2)",
            "repetition 2 of 2", "fifo:limit=30 (repetition 2/2)", "fifo (repetition 2/2)"]
    assert len(got) == len(want) and all(g.startswith(w) for g, w in zip(got, want)), got
    live = [l.split()[:2] for l in lines if re.match(r"\s+fifo\S* #\d ", l)]
    assert ["fifo", "#2"] in live and ["fifo:limit=30", "#1"] in live, live

def runs_in_order():
    assert r["config"]["repeat"] == 2, r["config"]
    # the second repetition's order rotated by one
    assert [(x["label"], x.get("repeat"), x.get("position")) for x in runs] == [(labels[0], 0, 0), (labels[1], 0, 1), (labels[1], 1, 1), (labels[0], 1, 0)]
    assert all(x["ran"] for x in runs), [x["note"] for x in runs]
    t0 = [x["t0_unix"] for x in runs]
    assert t0 == sorted(t0) and len(set(t0)) == 4, t0
    files = [x["flent_file"] for x in runs]
    assert len(set(files)) == 4 and all(os.path.exists(d + "/" + f) for f in files), files
    for name in ("fifo-rep1", "fifo-rep2", "fifo_limit-30-rep1", "fifo_limit-30-rep2"):
        assert os.path.getsize(d + "/flows-%s.svg" % name) > 0, name

def medians():
    assert s["repetitions"] == 2 and [(q["label"], q["column"], q["position"]) for q in s["queues"]] == [(labels[0], labels[0], 0), (labels[1], labels[1], 1)], s["queues"]
    checked = 0
    for q in s["queues"]:
        own = [x for x in runs if x["label"] == q["label"]]
        assert q["runs"] == 2 and q["ran"] == 2, q
        for path, f in q["figures"].items():
            vals = [at(x, path) for x in own if at(x, path) is not None]
            assert f["n"] == len(vals), (q["label"], path, f, vals)
            if not vals:
                assert f["median"] is None, (path, f)
                continue
            assert abs(f["median"] - statistics.median(vals)) <= 1.1e-3, (q["label"], path, f, vals)
            assert f["lo"] <= f["median"] <= f["hi"], (q["label"], path, f)
            # two figures: their range, holding the median half the time; one: no interval
            assert abs(f["lo"] - min(vals)) < 1e-6 and abs(f["hi"] - max(vals)) < 1e-6 and f["k"] == 1, (path, f, vals)
            assert f["coverage"] == (0.5 if len(vals) == 2 else 0), (path, f, vals)
            checked += 1
    assert checked >= 40, checked
    print("# %d figures checked against the runs' own" % checked)

def apart():
    by = {q["label"]: q["figures"] for q in s["queues"]}
    for dd in s["differences"]:
        a, b = by[labels[0]][dd["figure"]], by[labels[1]][dd["figure"]]
        if a["n"] < 2 or b["n"] < 2:
            assert dd["apart"] == [] and dd["overlap"] == [], dd
            continue
        far = a["hi"] < b["lo"] or b["hi"] < a["lo"]
        assert (dd["apart"] == [list(labels)]) == far and (dd["overlap"] == [list(labels)]) == (not far), dd
        # a 1000-packet fifo against a 30-packet one: 2-3 times the latency in every run
        if dd["figure"] == "latency_ms.induced.p50":
            assert far, ("a queue 33 times as deep is not apart", a, b)
    print("# apart beyond the intervals: " + (", ".join(dd["row"] for dd in s["differences"] if dd["apart"]) or "none"))

def table():
    assert "median [lo, hi] of 2 repetitions" in out and "holds the median with 50.0% confidence" in out and "not 95%" in out
    row = [l for l in out.split("\n") if l.startswith("induced p95 (ms) ")]
    assert len(row) == 1, row
    cells = re.findall(r"(-?\d+\.\d) \[(-?\d+\.\d), (-?\d+\.\d)\]", row[0])
    want = [q["figures"]["latency_ms.induced.p95"] for q in s["queues"]]
    assert len(cells) == 2, row
    for c, w in zip(cells, want):
        for i, k in enumerate(("median", "lo", "hi")):
            assert abs(float(c[i]) - w[k]) <= 0.051, (row, want)
    lines = [l for l in out.split("\n") if l.startswith("  ") and ": apart: " in l and "; overlapping: " in l]
    # a line per figure row of the table, as many as the summary's differences name
    assert len(lines) == len({dd["row"] for dd in s["differences"]}) >= 18, lines
    print("# " + row[0])

def boxes():
    ns = "{http://www.w3.org/2000/svg}"
    for name, n in (("box-induced.svg", 2), ("box-goodput.svg", 4)):
        root = E.parse(d + "/" + name).getroot()
        g = [x for x in root.iter(ns + "g") if x.get("class") == "box"]
        assert len(g) == n and sorted({x.get("data-column") for x in g}) == ["0", "1"], (name, len(g))
        for x in g:
            marks = [c for c in x.iter(ns + "circle") if c.get("class") == "mark"]
            own = [y for y in runs if y["label"] == labels[int(x.get("data-column"))]]
            fig = "latency_ms.induced.p50" if name == "box-induced.svg" else \
                "goodput_bps." + ("up", "down")[int(x.get("data-kind"))]
            assert len(marks) == len([y for y in own if at(y, fig) is not None]), (name, x.attrib, len(marks))
            # a 4 s fifo run may have no up goodput interval in its short TCP window (the
            # weaker direction starts late behind the other queue): that box is "none"
            if name == "box-induced.svg" or x.get("data-kind") == "1":
                assert x.find(ns + "rect") is not None, (name, "no box drawn", x.attrib)
        texts = [t.text for t in root.iter(ns + "text")]
        assert labels[0] in texts and labels[1] in texts, texts

def html():
    h = open(d + "/report.html").read()
    assert '<p id="interval">median [lo, hi] of 2 repetitions' in h and '<ul id="differences">' in h
    for p in ("box-induced.svg", "box-goodput.svg", "latency-cdf.svg", "flows-fifo-rep1.svg", "flows-fifo_limit-30-rep1.svg"):
        assert '<figcaption>%s</figcaption>\n<div class="plot"' % p in h, p
    assert "not shown" not in h

check("the progress lines: repetition 1 of both queues, then repetition 2 in the order rotated", progress)
check("results.json: every run with its repetition, interleaved in time (the second in the order rotated), each its own flent file and flows plot", runs_in_order)
check("the summary: each median the runs' own figures' median, inside its interval", medians)
check("the pairs apart are those whose intervals do not overlap (induced p50 among them), the others overlapping", apart)
check("the table: median [lo, hi] as the summary has them, the coverage said, a line per figure", table)
check("box plots: a box per queue (goodput: up and down), each repetition's figure marked", boxes)
check("report.html: the intervals' table, the differences, the box plots inline", html)
EOF
check "--compare-report --html-only reads the repeated results.json back" \
	"$GATEWAYD" --compare-report --html-only "$REP"
check "--compare-report over it twice: a column per run and repetition" bash -c \
	"'$GATEWAYD' --compare-report '$REP=one' '$REP=two' >'$TMPD/report.out' 2>&1 && grep -q '^induced p50 (ms)' '$TMPD/report.out'"
# its own four, by the names it printed (other tests' come and go meanwhile)
bed=$(sed -n 's/^testbed: namespaces \(gwcmp[0-9]*\)-c .*/\1/p' "$TMPD/repeat.out")
check "the bench left none of its namespaces ($bed-*) behind" \
	bash -c "[ -n '$bed' ] && ! ip netns list | grep -q '^$bed-'"
