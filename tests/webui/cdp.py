#!/usr/bin/env python3
"""tests/webui/cdp.py CHROMIUM URL OUTDIR: load the status page in headless Chromium over the
DevTools protocol (--remote-debugging-pipe: no port, no websocket library), watch the console,
check the page's own markers, and save screenshots. Prints "ok - ..." / "not ok - ..." lines."""
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

chrome, url, outdir = (sys.argv[1:4] + ["", "", ""])[:3]
failed = 0
# What the page must show: the fake source's defaults, or a live daemon's (set by its test).
EXPECT_DIRS = int(os.environ.get("CDP_DIRS", "4"))
EXPECT_TINS = int(os.environ.get("CDP_TINS", "8"))
MIN_POINTS = int(os.environ.get("CDP_MIN_POINTS", "50"))
EXPECT_IDLE = os.environ.get("CDP_IDLE_CLASS", "1") == "1"
# directions with a latency chart and grade (the fake probes link wan: 2); 0 checks there are none
EXPECT_LAT = int(os.environ.get("CDP_LAT_DIRS", "2"))
PREFIX = os.environ.get("CDP_SHOT_PREFIX", "status-page")
# a queue kind the page has no code of its own for, whose class the source shows (test_page.sh:
# the fake's pie class); unset: not checked
NEW_KIND = os.environ.get("CDP_NEW_KIND", "")
# runs in the "Last comparison" section (the fixture test_page.sh serves: 1); unset: not checked
EXPECT_CMP = os.environ.get("CDP_COMPARE_RUNS")
# the links whose probers the page lists, in order ("wan,lan": the fake's -p); unset: not checked
EXPECT_PROBERS = os.environ.get("CDP_PROBERS")
# probe targets shown up and down (where latency is checked): the fake's wan prober, 2 and 1
EXPECT_TARGETS = [int(x) for x in os.environ.get("CDP_TARGETS", "2,1").split(",")]
# the text a link waiting for its interface shows instead of charts, e.g. "waiting for ppp0";
# unset: not checked
EXPECT_WAITING = os.environ.get("CDP_WAITING")


def check(cond, name):
    global failed
    print(("ok - " if cond else "not ok - ") + name, flush=True)
    if not cond:
        failed += 1


class Browser:
    """One headless Chromium; commands to its fd 3, replies and events from its fd 4. Its
    binary and more flags may be given (tests/report_html.py's, which imports it)."""

    def __init__(self, binary=None, extra=()):
        self.profile = tempfile.mkdtemp()
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def fds():
            # above 10 first, so the two dup2s cannot clobber each other
            a = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        # close_fds runs after preexec_fn, keeping only 3 and 4
        self.proc = subprocess.Popen(
            [binary or chrome, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
             "--remote-debugging-pipe", "--user-data-dir=" + self.profile, *extra,
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=fds, pass_fds=(3, 4))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError("no reply from chromium")
            r, _, _ = select.select([self.from_chrome], [], [], left)
            if r:
                chunk = os.read(self.from_chrome, 1 << 20)
                if not chunk:
                    raise EOFError("chromium went away")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True, timeout=20):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(method + ": " + json.dumps(m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def pump(self, seconds):
        """Collect events for a while (the page polls meanwhile)."""
        deadline = time.time() + seconds
        try:
            while True:
                m = self._read(deadline)
                if "method" in m:
                    self.events.append(m)
        except TimeoutError:
            pass

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError("evaluate: " + json.dumps(r["exceptionDetails"])[:300])
        return r["result"].get("value")

    def screenshot(self, path):
        r = self.send("Page.captureScreenshot", {"format": "png"})
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def console_problems(events):
    """Uncaught exceptions, console.error/warn, and the browser's own errors (404, CSP)."""
    out = []
    for e in events:
        m, p = e["method"], e.get("params", {})
        if m == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            out.append("uncaught: " + d.get("exception", {}).get("description", d.get("text", "")))
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
            out.append("console.%s: %s" % (p["type"], " ".join(
                str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
        elif (m == "Log.entryAdded" and p["entry"].get("source") == "network" and
              p["entry"].get("url", "").endswith("/api/compare") and "404" in p["entry"].get("text", "")):
            pass  # no comparison has run: the page asks, and hides the section
        elif m == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
            out.append("log %s: %s %s" % (p["entry"]["level"], p["entry"].get("text", ""),
                                         p["entry"].get("url", "")))
    return out


# A canvas's pixels drawn (not blank: the plot area, beyond the grid and labels), read back
# through a copy, so the page's own canvases stay GPU-friendly (no warning); for MARKERS, IDS.
INKED = """const inkedPixels = (c) => {
    const copy = document.createElement('canvas');
    copy.width = c.width;
    copy.height = c.height;
    const ctx = copy.getContext('2d', { willReadFrequently: true });
    ctx.drawImage(c, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
    return n;
  };"""

MARKERS = """(() => {
  """ + INKED + """
  const b = document.body.dataset;
  const canvases = [...document.querySelectorAll('canvas')];
  const inked = canvases.map(inkedPixels);
  return {
    updates: +b.updates, errors: +b.errors, firstSeq: +b.firstSeq, lastSeq: +b.lastSeq,
    changes: +b.changes, history: +(b.history || 0),
    canvases: canvases.length, points: canvases.map((c) => +c.dataset.points), inked,
    until: canvases.map((c) => +c.dataset.until),
    dirs: document.querySelectorAll('section.dir').length,
    waiting: [...document.querySelectorAll('section.link p.waiting')].map((p) => p.textContent),
    tins: [...document.querySelectorAll('table.xgroup')].filter((t) =>
      t.caption && t.caption.textContent === 'cake tins').reduce((n, t) => n + t.tBodies[0].rows.length, 0),
    tinHeads: [...document.querySelectorAll('table.xgroup')].filter((t) =>
      t.caption && t.caption.textContent === 'cake tins').map((t) =>
      [...t.tHead.rows[0].cells].map((c) => c.textContent)),
    /* each class's kind statistics as the page shows them: the keys of its values, the labels,
     * the values, and its tables by key with their row and column counts */
    kinds: [...document.querySelectorAll('tr.xstats')].map((r) => ({
      where: r.dataset.class, kind: r.dataset.kind,
      vals: [...r.querySelectorAll('.xv')].map((v) => [v.dataset.key,
        v.querySelector('.xk').textContent.trim(), v.querySelector('b').textContent]),
      groups: [...r.querySelectorAll('table.xgroup')].map((t) => [t.dataset.key,
        t.tBodies[0].rows.length, t.tHead.rows[0].cells.length]),
      labelsVisible: [...r.querySelectorAll('.xk')].every((k) => k.getBoundingClientRect().width > 0),
    })),
    notSaturated: [...document.querySelectorAll('td')].filter((t) => t.textContent === 'not saturated').length,
    grades: [...document.querySelectorAll('.tiles.latency .grade')].map((g) => g.textContent),
    targetsUp: document.querySelectorAll('#probe .target.up').length,
    probeLines: [...document.querySelectorAll('#probe .probehead')].filter((h) =>
      h.firstChild && h.firstChild.textContent === 'Latency probe').map((h) => h.textContent),
    targetsDown: document.querySelectorAll('#probe .target.down').length,
    loadRows: [...document.querySelectorAll('table.loadtest tbody tr')].map((r) => r.innerText),
    flowBars: [...document.querySelectorAll('table.loadtest tbody tr')].map((r) =>
      [...r.querySelectorAll('.fb')].map((b) => b.getBoundingClientRect().height)),
    health: document.getElementById('health').textContent,
    text: document.body.innerText.length,
    scrollWidth: document.documentElement.scrollWidth,
    cmpShown: !document.getElementById('lastcmp').hidden,
    cmpRows: [...document.querySelectorAll('#lastcmp table.cmp tbody tr')].map((r) => r.innerText),
    cmpImgs: [...document.querySelectorAll('#lastcmp .plots img')].map((i) => [i.getAttribute('src'), i.complete ? i.naturalWidth : -1]),
  };
})()"""


# What the JSON says each class's kind statistics are (the page reads the same document).
KIND_JSON = """(async () => {
  const d = await (await fetch('/api/status', { cache: 'no-store' })).json();
  const out = [];
  for (const l of d.links) for (const dr of l.directions) for (const c of dr.classes) {
    const o = c[c.kind];
    if (!o || typeof o !== 'object' || Array.isArray(o)) continue;
    const scalars = Object.keys(o).filter((k) => o[k] === null || typeof o[k] !== 'object');
    const groups = Object.keys(o).filter((k) => Array.isArray(o[k]) && o[k].length)
      .map((k) => [k, o[k].length]);
    out.push({ where: l.name + '/' + dr.direction + '/' + c.name, kind: c.kind, scalars, groups });
  }
  return out;
})()"""


# The ids the page must hold, from what /api/status and /api/compare say it shows, and each
# element found by its id: where it is on the page, whether it shows (a size, not hidden), and
# what it holds (a table's body rows with text, a chart's points and inked pixels, a box's
# text and its figures other than a dash). The page's colours and labels play no part.
IDS = """(async () => {
  """ + INKED + """
  const d = await (await fetch('/api/status', { cache: 'no-store' })).json();
  const want = ['health', 'sampler'];
  for (const l of d.links) {
    if (l.present === false) continue;
    for (const dr of l.directions) {
      if (dr.foreign_hook) continue;
      const k = l.name + '/' + dr.direction;
      want.push('dir:' + k, 'figures:' + k, 'classes:' + k, 'chart-rate:' + k, 'chart-delay:' + k,
        'chart-drops:' + k);
      if (dr.latency) want.push('latency:' + k, 'chart-latency:' + k);
    }
  }
  if (d.loadtest) want.push('probe', 'loadtest');
  if ((await fetch('/api/compare', { cache: 'no-store' })).ok)
    want.push('lastcmp', 'lastcmp-table', 'lastcmp-plots');
  return want.map((id) => {
    const e = document.getElementById(id);
    if (!e) return { id, found: false };
    const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
    const o = { id, found: true, tag: e.tagName.toLowerCase(), x: r.left + scrollX,
      y: r.top + scrollY, w: r.width, h: r.height,
      visible: r.width > 0 && r.height > 0 && cs.visibility === 'visible' &&
        cs.display !== 'none' && !e.closest('[hidden]'),
      text: e.innerText.trim().length };
    if (o.tag === 'table')
      o.rows = [...e.tBodies].reduce((n, b) => n + [...b.rows].filter((r) =>
        r.innerText.trim()).length, 0);
    if (o.tag === 'canvas') {
      o.points = +e.dataset.points;
      o.inked = inkedPixels(e);
    }
    o.figures = [...e.querySelectorAll('.tile .v')].filter((v) =>
      v.textContent.trim() && v.textContent.trim() !== '\u2013').length;
    o.imgs = [...e.querySelectorAll('img')].filter((i) => i.complete && i.naturalWidth > 0).length;
    return o;
  });
})()"""


def empty_reason(o):
    """Why an element found by id does not show what it should ("" when it does)."""
    if not o["found"]:
        return "no element"
    if not o["visible"]:
        return "not visible (%dx%d)" % (o["w"], o["h"])
    kind = o["id"].split(":")[0]
    if o["tag"] == "table" and not o.get("rows"):
        return "a table with no rows"
    if o["tag"] == "canvas" and (o["points"] <= MIN_POINTS or o["inked"] <= 500):
        return "a chart of %d points, %d inked pixels" % (o["points"], o["inked"])
    if kind in ("figures", "latency") and o["figures"] < 5:
        return "%d figures shown" % o["figures"]
    if kind == "lastcmp-plots" and o["imgs"] < 2:
        return "%d plots drawn" % o["imgs"]
    if o["tag"] != "canvas" and o["text"] == 0 and not o["imgs"]:
        return "no text"
    return ""


def clip_png(b, x, y, w, h):
    r = b.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                          "clip": {"x": x, "y": y, "width": w, "height": h,
                                                   "scale": 1}})
    return len(base64.b64decode(r["data"]))


# a box of the page's background, below everything, sized as the element judged
BLANK = """((w, h) => {
  let e = document.getElementById('cdp-blank');
  if (!e) {
    e = document.body.appendChild(document.createElement('div'));
    e.id = 'cdp-blank';
    e.style.cssText = 'position:absolute;left:0;background:' +
      getComputedStyle(document.body).backgroundColor;
  }
  e.style.top = (document.documentElement.scrollHeight + 10) + 'px';
  e.style.width = w + 'px';
  e.style.height = h + 'px';
  const r = e.getBoundingClientRect();
  return [r.left + scrollX, r.top + scrollY];
})"""


def shot_blank(b, o):
    """The element as a screenshot shows it, against a blank box of its size: a PNG of one
    colour compresses to little, text or a plot to several times that."""
    n = clip_png(b, o["x"], o["y"], o["w"], o["h"])
    bx, by = b.eval("%s(%f, %f)" % (BLANK, o["w"], o["h"]))
    blank = clip_png(b, bx, by, o["w"], o["h"])
    b.eval("document.getElementById('cdp-blank').remove()")
    if os.environ.get("CDP_DEBUG_SHOTS"):
        print("# %s %dx%d: %d bytes, blank %d" % (o["id"], o["w"], o["h"], n, blank))
    return (n < 2 * blank + 500, n, blank)


def judge_ids(b):
    """Each id the page must hold: found, visible, not empty, and not blank in a screenshot of
    it. Returns the ids judged and the reasons of those that fail."""
    bad = []
    shown = b.eval(IDS)
    for o in shown:
        why = empty_reason(o)
        if not why:
            blank, n, nb = shot_blank(b, o)
            if blank:
                why = "blank in the screenshot (%d bytes of PNG, a blank box %d)" % (n, nb)
        if why:
            bad.append("%s: %s" % (o["id"], why))
    return shown, bad


def check_ids(b):
    shown, bad = judge_ids(b)
    kinds = sorted({o["id"].split(":")[0] for o in shown})
    check(len(shown) > 2 and not bad,
          "%d elements found by id, each visible, not empty and drawn in the screenshot (%s)%s" %
          (len(shown), ", ".join(kinds), "" if not bad else ": " + "; ".join(bad)[:600]))


# The judge must be able to fail: a chart hidden, a class table emptied, a figure box's id
# taken away and another direction's figures made transparent (there to the DOM, blank to the
# eye: only the screenshot tells) must each be named.
SPOIL = """(() => {
  const chart = document.querySelector('canvas[id^="chart-rate:"]');
  const table = document.querySelector('table[id^="classes:"]');
  const [figs, clear] = document.querySelectorAll('[id^="figures:"]');
  const ids = [chart.id, table.id, figs.id, clear.id];
  chart.style.visibility = 'hidden';
  for (const b of table.tBodies) b.textContent = '';
  figs.removeAttribute('id');
  clear.style.opacity = '0';
  return ids;
})()"""


def check_ids_fail(b):
    spoilt = b.eval(SPOIL)
    _, bad = judge_ids(b)
    named = [i for i in spoilt if any(x.startswith(i + ": ") for x in bad)]
    check(named == spoilt and len(bad) == len(spoilt),
          "the id check fails on a hidden chart, an emptied table, a missing id and a "
          "transparent box (%s)" % ("; ".join(bad)[:500] or "nothing failed"))


def check_kinds(shown, want):
    """Every class whose JSON carries an object under its kind's name shows it, member by
    member (values by key, groups as tables with a row per element), and no other class does."""
    by = {k["where"]: k for k in shown}
    bad = []
    for w in want:
        s = by.get(w["where"])
        if not s or s["kind"] != w["kind"]:
            bad.append(w["where"] + ": not shown")
            continue
        if [v[0] for v in s["vals"]] != w["scalars"]:
            bad.append(w["where"] + ": values %s" % [v[0] for v in s["vals"]])
        if [[g[0], g[1]] for g in s["groups"]] != w["groups"]:
            bad.append(w["where"] + ": tables %s" % s["groups"])
        if any("_" in v[1] or not v[1] or not v[2] for v in s["vals"]) or not s["labelsVisible"]:
            bad.append(w["where"] + ": labels %s" % s["vals"])
    extra = sorted(set(by) - {w["where"] for w in want})
    if extra:
        bad.append("shown for classes without: " + ", ".join(extra))
    check(not bad, "each class's kind statistics shown by name (%d classes: %s)%s" %
          (len(want), ", ".join(sorted({w["kind"] for w in want})) or "none",
           "" if not bad else ": " + "; ".join(bad)[:600]))


def check_new_kind(shown, kind):
    """The kind the page has no code for: its class shows its members by readable name, each
    in the unit its key says."""
    rows = [k for k in shown if k["kind"] == kind]
    vals = {v[1]: v[2] for v in rows[0]["vals"]} if rows else {}
    want = {"drop probability": "%", "queue delay": "ms", "dequeue rate": "bit/s",
            "packets in": "", "dropped packets": "", "overlimit packets": "",
            "max queue packets": "", "ECN marked packets": ""}
    ok = len(rows) == 1 and all(k in vals and vals[k].endswith(u) and vals[k] != "\u2013"
                                for k, u in want.items())
    check(ok, "a %s class, a kind the page has no code for, shows its statistics by name (%s)" %
          (kind, "; ".join("%s %s" % kv for kv in vals.items()) or "no row"))


def main():
    b = Browser()
    try:
        target = b.send("Target.createTarget", {"url": "about:blank"}, session=False)
        att = b.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True},
                     session=False)
        b.session = att["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            b.send(domain + ".enable")
        b.send("Emulation.setDeviceMetricsOverride",
               {"width": 1280, "height": 1600, "deviceScaleFactor": 1, "mobile": False})
        b.send("Page.navigate", {"url": url})
        b.pump(5)
        m1 = b.eval(MARKERS)
        b.pump(2.5)
        m2 = b.eval(MARKERS)
        b.screenshot(os.path.join(outdir, PREFIX + ".png"))

        check(m2["updates"] >= 2, "the page polled /api/status %d times in 7.5 s" % m2["updates"])
        check(m2["errors"] == 0, "no failed polls (data-errors %d)" % m2["errors"])
        check(m2["dirs"] == EXPECT_DIRS, "%d link directions shown (%d)" % (EXPECT_DIRS, m2["dirs"]))
        check(m2["history"] > 0, "history loaded for %d series" % m2["history"])
        check(m2["canvases"] == 3 * EXPECT_DIRS + EXPECT_LAT and min(m2["points"] or [0]) > MIN_POINTS,
              "all %d charts drew points (fewest %d)" % (m2["canvases"], min(m2["points"] or [0])))
        check(min(m2["inked"] or [0]) > 500,
              "no blank canvas (fewest inked pixels %d)" % min(m2["inked"] or [0]))
        check(m2["lastSeq"] > m1["lastSeq"] > 0 and m2["changes"] >= 2,
              "the data changes: sample #%d then #%d, %d new samples seen" %
              (m1["lastSeq"], m2["lastSeq"], m2["changes"]))
        check(all(b > a > 0 for a, b in zip(m1["until"], m2["until"])),
              "every chart moved on to newer points (%.1f s later)" %
              (min(m2["until"]) - min(m1["until"])))
        check(m2["tins"] == EXPECT_TINS, "%d cake tin rows shown (%d)" % (EXPECT_TINS, m2["tins"]))
        if EXPECT_TINS:
            heads = m2["tinHeads"]
            check(heads and all(h == heads[0] for h in heads) and all(
                x in heads[0] for x in ("#", "threshold", "sent", "average delay", "peak delay",
                                        "backlog", "dropped packets", "sparse flows")),
                  "the cake tins tables have a column per tin key (%s)" %
                  ", ".join(heads[0] if heads else []))
        check_kinds(m2["kinds"], b.eval(KIND_JSON))
        if NEW_KIND:
            check_new_kind(m2["kinds"], NEW_KIND)
        if EXPECT_IDLE:
            check(m2["notSaturated"] >= 1, "an idle class reads 'not saturated'")
        check(m2["health"] == "healthy", "the sampler shows healthy (%s)" % m2["health"])
        check(len(m2["grades"]) == EXPECT_LAT and all(g in ("A+", "A", "B", "C", "D", "F")
                                                       for g in m2["grades"]),
              "%d latency grades shown (%s)" % (EXPECT_LAT, ", ".join(m2["grades"])))
        if EXPECT_LAT:
            check([m2["targetsUp"], m2["targetsDown"]] == EXPECT_TARGETS,
                  "probe targets: %d up, %d down" % (m2["targetsUp"], m2["targetsDown"]))
        if EXPECT_PROBERS is not None:
            want = EXPECT_PROBERS.split(",")
            lines = m2["probeLines"]
            check(len(lines) == len(want) and
                  all(" through link %s" % l in t for l, t in zip(want, lines)),
                  "a latency probe line per prober, in order (%s)" % " | ".join(lines))
            check(len(m2["loadRows"]) == 3 and "A+" in m2["loadRows"][0],
                  "the last load test: %d directions (%s)" %
                  (len(m2["loadRows"]), " | ".join(r.replace("\t", " ") for r in m2["loadRows"])))
            # the fixture: 4 flows down, 4 up, 4 + 4 both ways, the fourth of each slower
            bars = m2["flowBars"]
            check([len(b) for b in bars] == [4, 4, 8] and
                  all(max(b) == 16 and min(b) < 10 for b in bars),
                  "the last load test: a bar per flow, the slow one shorter (%s)" %
                  " | ".join(",".join("%.0f" % h for h in b) for b in bars))
        check(m2["scrollWidth"] <= 1280, "no sideways scrolling at 1280 px")
        check_ids(b)
        if EXPECT_WAITING is not None:
            check(m2["waiting"] == [EXPECT_WAITING],
                  "a waiting link shows %r instead of charts (%s)" % (EXPECT_WAITING, m2["waiting"]))
        if EXPECT_CMP is not None:
            n = int(EXPECT_CMP)
            rows, imgs = m2["cmpRows"], m2["cmpImgs"]
            check(m2["cmpShown"] == (n > 0) and len(rows) == n and
                  all(any(g in r.split("\t") for g in ("A+", "A", "B", "C", "D", "F")) for r in rows),
                  "last comparison: %s, %d queue rows (%s)" %
                  ("shown" if m2["cmpShown"] else "hidden", len(rows),
                   " | ".join(r.replace("\t", " ") for r in rows)))
            if n:
                check(len(imgs) >= 2 and all(w > 100 for _, w in imgs),
                      "last comparison: %d plots drawn (%s)" %
                      (len(imgs), ", ".join("%s %dpx" % (s, w) for s, w in imgs)))

        b.send("Emulation.setDeviceMetricsOverride",
               {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
        b.pump(1.5)
        m3 = b.eval(MARKERS)
        b.screenshot(os.path.join(outdir, PREFIX + "-phone.png"))
        check(m3["scrollWidth"] <= 390, "fits a 390 px phone (scrollWidth %d)" % m3["scrollWidth"])
        check(min(m3["points"] or [0]) > MIN_POINTS, "charts still drawn on the phone")

        b.send("Emulation.setDeviceMetricsOverride",
               {"width": 1280, "height": 1600, "deviceScaleFactor": 1, "mobile": False})
        b.pump(0.5)
        check_ids_fail(b)
        problems = console_problems(b.events)
        check(not problems, "no console errors or warnings" +
              ("" if not problems else ": " + "; ".join(problems)[:600]))
        for name in (PREFIX + ".png", PREFIX + "-phone.png"):
            path = os.path.join(outdir, name)
            check(os.path.getsize(path) > 10000, "screenshot saved: %s (%d bytes)" %
                  (path, os.path.getsize(path)))
    finally:
        b.close()


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # a broken run is a failed check, with the reason
        check(False, "headless page run: %s: %s" % (type(e).__name__, e))
    sys.exit(1 if failed else 0)
