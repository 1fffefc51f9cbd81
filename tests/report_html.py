#!/usr/bin/env python3
"""tests/report_html.py: checks of a report.html of gatewayd --compare (or --compare-report).

  static HTML RUNDIR...   well-formed, self-contained (the CSP, no reference to anything), the
                          table holding every figure of each RUNDIR/results.json as the terminal
                          table prints it, one inline SVG per plot; prints the counts
  shot CHROMIUM HTML PNG N [NETLOG]
                          HTML in headless Chromium (over its DevTools pipe, scale 1, no
                          network of its own to reach: run it under unshare -n), its screenshot
                          saved as PNG: the table (element id "figures") and N plots (ids
                          "plot0".."plotN-1") found by their ids, each with text or drawing in
                          its box on the screenshot; NETLOG: Chromium's net log written there
  netlog FILE [--expect]  Chromium's net log: no request started by a page (--expect: the
                          negative control, at least one)
Exit status 0 when it holds; a line saying what does not, otherwise."""
import base64
import html.parser
import json
import os
import struct
import sys
import zlib

VOID = {"meta", "br", "img", "input", "link", "hr", "col", "area", "base", "wbr", "source"}
CSP = "default-src 'none'; style-src 'unsafe-inline'"
# the terminal table's rows: label, path in a runs[] entry, scale, decimals
NUM_ROWS = [
    ("goodput up (Mbit/s)", "goodput_bps.up", 1e-6, 2), ("goodput down (Mbit/s)", "goodput_bps.down", 1e-6, 2),
    ("shaper accuracy up (%)", "shaper_accuracy.up", 100, 1), ("shaper accuracy down (%)", "shaper_accuracy.down", 100, 1),
    ("idle RTT p50 (ms)", "latency_ms.idle.p50", 1, 1), ("idle RTT p95 (ms)", "latency_ms.idle.p95", 1, 1),
    ("idle RTT p99 (ms)", "latency_ms.idle.p99", 1, 1), ("loaded RTT p50 (ms)", "latency_ms.loaded.p50", 1, 1),
    ("loaded RTT p95 (ms)", "latency_ms.loaded.p95", 1, 1), ("loaded RTT p99 (ms)", "latency_ms.loaded.p99", 1, 1),
    ("induced p50 (ms)", "latency_ms.induced.p50", 1, 1), ("induced p95 (ms)", "latency_ms.induced.p95", 1, 1),
    ("induced p99 (ms)", "latency_ms.induced.p99", 1, 1), ("induced mean (ms)", "latency_ms.induced.mean", 1, 1),
    ("Jain's fairness (TCP)", "jain_fairness", 1, 3), ("bench CPU busy (%)", "cpu_busy", 100, 0),
    ("peak backlog up (ms)", "peak_queue.up.ms", 1, 1), ("peak backlog down (ms)", "peak_queue.down.ms", 1, 1),
    ("TCP RTT up p50 (ms)", "tcp_rtt.up.p50_ms", 1, 1), ("TCP RTT up p95 (ms)", "tcp_rtt.up.p95_ms", 1, 1),
    ("TCP RTT up p99 (ms)", "tcp_rtt.up.p99_ms", 1, 1), ("TCP RTT down p50 (ms)", "tcp_rtt.down.p50_ms", 1, 1),
    ("TCP RTT down p95 (ms)", "tcp_rtt.down.p95_ms", 1, 1), ("TCP RTT down p99 (ms)", "tcp_rtt.down.p99_ms", 1, 1),
    ("TCP induced up p50 (ms)", "tcp_rtt.up.induced_p50_ms", 1, 1),
    ("TCP induced down p50 (ms)", "tcp_rtt.down.induced_p50_ms", 1, 1),
    ("TCP induced up mean (ms)", "tcp_rtt.up.induced_mean_ms", 1, 1),
    ("TCP induced down mean (ms)", "tcp_rtt.down.induced_mean_ms", 1, 1),
]
PAIR_ROWS = [
    ("peak backlog up/dn (pkts)", "peak_queue.up.packets", "peak_queue.down.packets"),
    ("drops up/down", "drops.up", "drops.down"), ("ECN marks up/down", "ecn_marks.up", "ecn_marks.down"),
    ("probes lost (loaded)", "latency_ms.loaded.lost", "latency_ms.loaded.samples"),
]


def fail(msg):
    print("# report.html: " + msg)
    sys.exit(1)


def at(o, path):
    # a run saved before the bulk flows' RTT was measured has no tcp_rtt: its rows say "-"
    if path.startswith("tcp_rtt.") and "tcp_rtt" not in o:
        return None
    for k in path.split("."):
        o = o[k]
    return o


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.csp, self.svgs, self.frames = [], [], False, 0, []
        self.rows, self.row, self.cell, self.in_fig = [], None, None, 0
        self.text = []

    def check_attrs(self, tag, attrs):
        if tag in ("script", "link", "img", "iframe", "object", "embed", "image", "use", "a",
                   "foreignobject", "base", "form", "audio", "video", "source"):
            self.errors.append("a <%s> element" % tag)
        for k, v in attrs:
            if k in ("src", "href", "xlink:href", "action", "srcset", "poster", "data", "background") \
                    or k.startswith("on"):
                self.errors.append("<%s %s=%r>" % (tag, k, v))
            if v and "url(" in v.replace("url(#", ""):
                self.errors.append("<%s %s=%r>: a url()" % (tag, k, v))
        a = dict(attrs)
        if tag == "meta" and a.get("http-equiv", "").lower() == "content-security-policy":
            self.csp = a.get("content") == CSP
        if tag == "svg":
            self.svgs += 1
        if tag == "div" and a.get("class") == "plot":
            self.frames.append(a.get("id"))
        if tag == "table" and a.get("id") == "figures":
            self.in_fig = len(self.stack) + 1
        if self.in_fig and tag == "tr":
            self.row = []
        if self.in_fig and tag in ("td", "th") and self.row is not None:
            self.cell = []

    def handle_starttag(self, tag, attrs):
        self.check_attrs(tag, attrs)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.check_attrs(tag, attrs)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes <%s> (line %d)" % (tag, self.stack[-1] if self.stack else "nothing",
                                                                self.getpos()[0]))
            return
        if self.in_fig and tag in ("td", "th") and self.cell is not None:
            self.row.append("".join(self.cell).strip())
            self.cell = None
        if self.in_fig and tag == "tr":
            self.rows.append(self.row)
            self.row = None
        if self.in_fig == len(self.stack) and tag == "table":
            self.in_fig = 0
        self.stack.pop()

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)
        self.text.append(data)


def static(path, dirs):
    src = open(path, encoding="utf-8").read()
    p = Page()
    p.feed(src)
    p.close()
    if p.errors:
        fail("; ".join(p.errors[:5]))
    if p.stack:
        fail("elements left open: %s" % p.stack)
    if not p.csp:
        fail("no Content-Security-Policy meta tag of %r" % CSP)
    if not p.rows:
        fail("no table of id \"figures\"")
    # each plot's frame by its place among the plots (one left out leaves its number unused)
    places = [int(f[4:]) if f and f[:4] == "plot" and f[4:].isdigit() else -1 for f in p.frames]
    if any(k < 0 for k in places) or places != sorted(set(places)):
        fail("the plots' frames are not ids plot<place>, in order: %s" % p.frames)
    # what a reader sees is the page, not a test's marks: no coloured frames
    for mark in ("rgb(250,0,250)", "border-color:rgb(0,250", "border:4px"):
        if mark in src.replace(" ", ""):
            fail("holds a test's mark %r" % mark)
    # what the parser would not call an attribute (in a <style>, say); text is escaped
    low = src.lower()
    for bad in ("<script", "@import", "url(http", "url(/", "url(file"):
        if bad in low:
            fail("holds %r" % bad)
    runs = [json.load(open(d + "/results.json")) for d in dirs]
    cols = [(r, x) for r in runs for x in r["runs"]]
    rows = {row[0]: row[1:] for row in p.rows if row}
    n = 0
    for c, (r, x) in enumerate(cols):
        for label, path_, scale, dec in NUM_ROWS:
            v = at(x, path_) if x["ran"] else None
            want = "skipped" if not x["ran"] else "-" if v is None else "%.*f" % (dec, v * scale)
            if rows.get(label, [None] * len(cols))[c] != want:
                fail("%s, column %d: %r, results.json says %r" % (label, c, rows.get(label), want))
            n += 1
        for label, a, b in PAIR_ROWS:
            want = "%d/%d" % (at(x, a), at(x, b)) if x["ran"] else "skipped"
            if rows[label][c] != want:
                fail("%s, column %d: %r, not %r" % (label, c, rows[label][c], want))
            n += 1
        want = x["grade"] if x["ran"] else "skipped"
        if rows["grade (induced mean)"][c] != want:
            fail("grade, column %d: %r, not %r" % (c, rows["grade (induced mean)"][c], want))
        n += 1
        name = x.get("label") or x["qdisc"]
        if rows["queue"][c] != name:
            fail("column %d is headed %r, not %r" % (c, rows["queue"][c], name))
    text = " ".join(p.text)
    for r in runs:
        for s in (r["gatewayd_version"], r["kernel_release"]):
            if s not in text:
                fail("the metadata's %r is not on the page" % s)
    print("# %d figures in %d columns as results.json's, %d inline plots, %d bytes, self-contained"
          % (n, len(cols), p.svgs, len(src)))


def png_rgb(path):
    """A PNG of 8-bit RGB or RGBA, as rows of bytes (RGB)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s is no PNG" % path)
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        ln, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + ln]
        if typ == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6) or body[12]:
                fail("PNG of depth %d, colour type %d: not read here" % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif typ == b"IDAT":
            idat += body
        pos += 12 + ln
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 2:
            line = bytearray((u + v) & 255 for u, v in zip(line, prev))
        elif f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 3:
            for i in range(stride):
                line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                a, b = (line[i - bpp], prev[i]) if i >= bpp else (0, prev[i])
                c = prev[i - bpp] if i >= bpp else 0
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line) if bpp == 3 else bytes(v for k, v in enumerate(line) if k % 4 != 3))
        prev = line
    return w, h, rows


# Where each element of the page is, by its id: [left, top, width, height] or null
RECTS = """(() => {
  const box = (id) => {
    const e = document.getElementById(id);
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height];
  };
  return { table: box('figures'), plots: [...Array(%d).keys()].map((i) => box('plot' + i)),
           loaded: document.readyState };
})()"""


def page_shot(chrome, page, png, n, netlog_path):
    """The page in Chromium: the rects of its table and plots by id, and a screenshot."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "webui"))
    import cdp  # tests/webui/cdp.py: Chromium over its DevTools pipe
    extra = ["--force-device-scale-factor=1", "--host-resolver-rules=MAP * ~NOTFOUND",
             "--no-pings", "--disable-default-apps"]
    if netlog_path:
        extra += ["--log-net-log=" + netlog_path, "--net-log-capture-mode=Everything"]
    b = cdp.Browser(chrome, extra)
    try:
        t = b.send("Target.createTarget", {"url": "about:blank"}, session=False)
        b.session = b.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True},
                           session=False)["sessionId"]
        b.send("Page.enable")
        b.send("Emulation.setDeviceMetricsOverride",
               {"width": 1200, "height": 3000, "deviceScaleFactor": 1, "mobile": False})
        b.send("Page.navigate", {"url": "file://" + os.path.abspath(page)})
        for _ in range(100):
            r = b.eval(RECTS % n)
            if r["loaded"] == "complete":
                break
            b.pump(0.1)
        shot_png = b.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        with open(png, "wb") as f:
            f.write(base64.b64decode(shot_png["data"]))
        return r
    finally:
        b.close()


def inside(rows, box, w, h):
    """box [left, top, width, height] (CSS px, scale 1) as pixel bounds within the image"""
    x0, y0 = max(0, int(box[0])), max(0, int(box[1]))
    return x0, y0, min(w, int(box[0] + box[2])), min(h, int(box[1] + box[3]))


def shot(chrome, page, png, n, netlog_path=None):
    r = page_shot(chrome, page, png, n, netlog_path)
    w, h, rows = png_rgb(png)
    t = r["table"]
    if not t or t[2] < 100 or t[3] < 100:
        fail("no table of id \"figures\" the size of a table (%s)" % (t,))
    x0, y0, x1, y1 = inside(rows, t, w, h)
    dark = sum(1 for y in range(y0, y1) for x in range(x0, x1) if max(rows[y][3 * x:3 * x + 3]) < 100)
    if dark < 2000:
        fail("the table (id figures, %dx%d at %d,%d) holds %d dark pixels: no text"
             % (t[2], t[3], t[0], t[1], dark))
    out = []
    for i, b in enumerate(r["plots"]):
        if not b or b[2] < 400 or b[3] < 200:
            fail("plot %d: no element of id plot%d the size of a plot (%s)" % (i, i, b))
        ink = colour = 0
        # inside the axes (svg.c's 860x460 plot: x 72..690, y 44..404): not the legend's lines
        x0, x1 = int(b[0] + b[2] * 72 / 860), int(b[0] + b[2] * 690 / 860)
        y0, y1 = int(b[1] + b[3] * 44 / 460), int(b[1] + b[3] * 404 / 460)
        for y in range(y0, min(y1, h)):
            seg = rows[y][3 * x0:3 * min(x1, w)]
            if not seg.strip(b"\xff"):
                continue
            for rr, g, bl in zip(seg[0::3], seg[1::3], seg[2::3]):
                if rr < 240 or g < 240 or bl < 240:
                    ink += 1
                    # a data series' colour, not the axes' and grid's greys
                    colour += max(rr, g, bl) - min(rr, g, bl) > 80
        if colour < 100:
            fail("plot %d (id plot%d, %dx%d at %d,%d): %d drawn pixels, %d in a series' colour: empty"
                 % (i, i, b[2], b[3], b[0], b[1], ink, colour))
        out.append("%dx%d, %d coloured px" % (b[2], b[3], colour))
    print("# screenshot %dx%d: the table (id figures, %d dark px) and %d plots by id: %s"
          % (w, h, dark, n, "; ".join(out)))


def netlog(path, expect):
    d = json.load(open(path))
    names = {v: k for k, v in d["constants"]["logEventTypes"].items()}
    own, page = 0, []
    for e in d["events"]:
        if names.get(e["type"]) != "URL_REQUEST_START_JOB":
            continue
        p = e.get("params", {})
        if "url" not in p:	# the job's end
            continue
        # the browser's own (updates, clocks) have no origin; a page's carry the page's
        if p.get("initiator") == "not an origin":
            own += 1
        else:
            page.append(p.get("url"))
    if expect and not page:
        fail("the control page's requests are not in the net log: the check is blind")
    if not expect and page:
        fail("the page made %d requests: %s" % (len(page), page[:3]))
    print("# net log: %d requests by the page%s, %d of the browser's own (no network: its own namespace)"
          % (len(page), " (the control's)" if expect else "", own))


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) >= 3 and a[0] == "static":
        static(a[1], a[2:])
    elif len(a) in (5, 6) and a[0] == "shot":
        shot(a[1], a[2], a[3], int(a[4]), a[5] if len(a) == 6 else None)
    elif len(a) in (2, 3) and a[0] == "netlog":
        netlog(a[1], a[2:] == ["--expect"])
    else:
        sys.exit(__doc__)
