#!/usr/bin/python3
# tests/uml/flent_check.py DIR: the .flent.gz files of a `gatewayd --compare` run directory,
# checked with flent itself (Debian's flent 2.1, run by Debian's python3, where its module
# lives): each run's file is of the flent test of the run's load (rrul_be for 4 TCP flows
# each way, rrul_be_nflows for another count, tcp_nup and tcp_ndown for one way), opens and
# plots (all_scaled, or the one direction's scaled plot, on one file alone, ping_cdf and
# box_totals over all of them: non-empty PNGs), the values flent reads back (`flent -f stats`
# and its own resultset module) equal results.json's (the TCP flows' RTT reads too, as
# flent's "::tcp_rtt" series), and the metadata has its fields.
# Prints "ok - ..." / "not ok - ..." lines, or one "skip - ..." without flent or matplotlib;
# exits 0 (the caller counts them).
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from datetime import timezone

FLENT_DIR = "/usr/share/flent"


def say(ok, what, detail=""):
    print(("ok - " if ok else "not ok - ") + what + ("" if ok or not detail else ": " + str(detail)))


def near(a, b, tol):
    return a is not None and b is not None and abs(a - b) <= tol


def flent(args, timeout=120):
    p = subprocess.run(["flent"] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def png_ok(path):
    try:
        with open(path, "rb") as f:
            head = f.read(8)
        return head == b"\x89PNG\r\n\x1a\n" and os.path.getsize(path) > 5000
    except OSError:
        return False


def stats(text):
    """flent -f stats: {title: {series: {key: value}}}"""
    out, title, series = {}, None, None
    for line in text.splitlines():
        m = re.match(r"^Results .* - (\S+):$", line)
        if m:
            title = m.group(1)
            out[title] = {}
            continue
        m = re.match(r"^ (\S.*):$", line)
        if m and title:
            series = m.group(1)
            out[title][series] = {}
            continue
        m = re.match(r"^  ([A-Za-z0-9 %]+?):\s+(-?[0-9.]+)", line)
        if m and title and series:
            out[title][series][m.group(1).strip()] = float(m.group(2))
    return out


def flent_test(cfg):
    """the flent test gatewayd writes a run of this load as"""
    if cfg.get("profile") == "upload":
        return "tcp_nup"
    if cfg.get("profile") == "download":
        return "tcp_ndown"
    return "rrul_be" if cfg["tcp_flows_up"] == 4 and cfg["tcp_flows_down"] == 4 else "rrul_be_nflows"


def flow_series(test, direction, k):
    """flent's name of a run's k-th TCP flow that way (k from 1) in the test"""
    way = "upload" if direction == "up" else "download"
    if test == "rrul_be":
        return "TCP %s BE%s" % (way, "" if k == 1 else k)
    if test == "rrul_be_nflows":
        return "TCP %s BE::%d" % (way, k)
    return "TCP %s::%d" % (way, k)


def main():
    d = sys.argv[1]
    try:
        import matplotlib  # noqa: F401  (flent plots with it)
    except ImportError:
        matplotlib = None
    if not shutil.which("flent") or matplotlib is None:
        print("skip - the .flent.gz files with flent: no flent or python3-matplotlib (make deps)")
        return
    res = json.load(open(os.path.join(d, "results.json")))
    test = flent_test(res["config"])
    one_plot = {"tcp_nup": "upload_scaled", "tcp_ndown": "download_scaled"}.get(test, "all_scaled")
    runs = [r for r in res["runs"] if r["ran"]]
    meta = res.get("metadata") or {}
    for k in ("gatewayd_version", "kernel", "kernel_release", "congestion_control", "tcp_ecn",
              "offloads", "sysctls"):
        say(k in meta and meta[k] not in (None, "", [], {}), "results.json metadata has " + k,
            meta.get(k))
    cc = meta.get("congestion_control", {}).get("client")
    say(cc in (meta.get("sysctls", {}).get("client", {}).get("net.ipv4.tcp_congestion_control"),)
        and cc, "results.json: the client's congestion control (%s)" % cc)
    say(meta.get("tcp_ecn", {}).get("client") == 1 and meta.get("tcp_ecn", {}).get("server") == 1,
        "results.json: the ECN sysctl both ends, as the bench sets it", meta.get("tcp_ecn"))
    files = []
    for r in runs:
        f = os.path.join(d, r.get("flent_file", ""))
        say(r.get("flent_file") and os.path.isfile(f), "%s: its flent file is there (%s)"
            % (r["qdisc"], r.get("flent_file")))
        files.append(f)
        base = r["qdisc"].replace("-shaper", "")
        kinds = [q["kind"] for q in r.get("qdiscs", []) if q["type"] == "qdisc"]
        want = ("pfifo", "bfifo") if base == "fifo" else (base,)
        leaf = [q for q in r.get("qdiscs", []) if q["kind"] in want and q["direction"] == "up"]
        say(leaf and leaf[0]["params"], "%s: results.json has its qdisc as the kernel reports it (%s)"
            % (r["qdisc"], leaf[0]["tc"] if leaf else kinds))
    files = [f for f in files if os.path.isfile(f)]
    if not files:
        return
    tmp = tempfile.mkdtemp(prefix="gwflent.")
    try:
        check_files(d, res, runs, files, test, one_plot, cc, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)   # the PNGs: nothing left behind


def check_files(d, res, runs, files, test, one_plot, cc, tmp):
    # the plots: one file alone, and all of them in one figure
    png = os.path.join(tmp, one_plot + ".png")
    rc, out = flent(["-i", files[0], "-p", one_plot, "-o", png])
    say(rc == 0 and png_ok(png), "flent -i %s -p %s -o x.png: a PNG (%d bytes)"
        % (os.path.basename(files[0]), one_plot, os.path.getsize(png) if os.path.exists(png) else 0),
        out[-300:])
    for plot in ("ping_cdf", "box_totals"):
        png = os.path.join(tmp, plot + ".png")
        args = []
        for f in files:
            args += ["-i", f]
        rc, out = flent(args + ["-p", plot, "-o", png])
        say(rc == 0 and png_ok(png), "flent -i (%d files) -p %s -o x.png: a PNG (%d bytes)"
            % (len(files), plot, os.path.getsize(png) if os.path.exists(png) else 0), out[-300:])
    # the values, as flent's stats formatter reads them back
    args = []
    for f in files:
        args += ["-i", f]
    rc, out = flent(args + ["-f", "stats"])
    st = stats(out)
    say(rc == 0 and len(st) == len(files), "flent -f stats reads every file (%d)" % len(st), out[-300:])
    for r in runs:
        q = r.get("label", r["qdisc"])	# the queue with its knobs: the file's TITLE
        s = st.get(q, {})
        for dname, key in (("upload", "up"), ("download", "down")):
            got = s.get("TCP %s sum" % dname, {}).get("Mean")
            want = r["goodput_bps"][key] / 1e6 if r["goodput_bps"][key] is not None else None
            if want is None and test in ("tcp_nup", "tcp_ndown"):
                # the way the test does not load: no flow, no sum
                say("TCP %s sum" % dname not in s, "%s: %s has no TCP %s sum, as results.json no goodput"
                    % (q, test, dname), sorted(s))
                continue
            say(near(got, want, 1e-3), "%s: flent's TCP %s sum mean %s = results.json's goodput %s Mbit/s"
                % (q, dname, got, want))
        bad = []
        for fl in r["flows"]:
            if fl["protocol"] != "tcp":
                continue
            name = flow_series(test, fl["direction"], int(fl["name"][-1]))
            vals = [v / 1e6 for _, v in fl["series"] if v is not None]
            med = statistics.median(vals) if vals else None
            g = s.get(name, {})
            if not near(g.get("Median"), med, 1e-3) or \
               not near(g.get("Mean"), fl["mean_bps"] / 1e6 if fl["mean_bps"] is not None else None, 1e-3):
                bad.append("%s median %s/%s mean %s/%s" % (name, g.get("Median"), med, g.get("Mean"),
                                                          fl["mean_bps"]))
        say(not bad, "%s: each TCP flow's median and mean in flent = results.json's" % q, bad)
        # each TCP flow's sender's RTT, as flent's socket stats have it ("NAME::tcp_rtt"): the
        # median flent reads from the raw points = results.json's rtt_series'
        bad, n = [], 0
        for fl in r["flows"]:
            if fl["protocol"] != "tcp":
                continue
            name = flow_series(test, fl["direction"], int(fl["name"][-1])) + "::tcp_rtt"
            vals = [p[1] for p in fl.get("rtt_series", [])]
            g = s.get(name, {})
            n += len(vals)
            if not vals or not near(g.get("Median"), statistics.median(vals), 1e-3) or \
               g.get("Data points") != len(vals):
                bad.append("%s median %s/%s points %s/%d" % (name, g.get("Median"),
                                                            statistics.median(vals) if vals else None,
                                                            g.get("Data points"), len(vals)))
        say(not bad, "%s: each TCP flow's tcp_rtt in flent (%d reads) = results.json's rtt_series" % (q, n), bad)
        rtts = [x[1] for x in r["samples"] if x[1] is not None]
        p = s.get("Ping (ms) ICMP", {})
        say(near(p.get("Median"), statistics.median(rtts), 1e-3) and
            near(p.get("Mean"), statistics.mean(rtts), 1e-3),
            "%s: flent's ping median %s and mean %s = results.json's samples' %.3f, %.3f ms"
            % (q, p.get("Median"), p.get("Mean"), statistics.median(rtts), statistics.mean(rtts)))
    # the metadata and the raw values, through flent's own module
    sys.path.insert(0, FLENT_DIR)
    from flent import resultset
    for r, f in zip(runs, files):
        q = r.get("label", r["qdisc"])
        rs = resultset.load(f)
        m = rs.meta()
        missing = [k for k in ("NAME", "TITLE", "TIME", "T0", "LENGTH", "TOTAL_LENGTH", "STEP_SIZE",
                               "HOST", "HOSTS", "LOCAL_HOST", "KERNEL_NAME", "KERNEL_RELEASE",
                               "SYSCTLS", "EGRESS_INFO", "SERIES_META", "GATEWAYD_VERSION",
                               "GATEWAYD_KERNEL", "GATEWAYD_QDISC", "GATEWAYD_LABEL",
                               "GATEWAYD_CPU_BUSY")
                   if m.get(k) in (None, "", [], {})]
        say(not missing, "%s: the flent metadata has its fields" % q, missing)
        say(m.get("NAME") == test and m.get("TITLE") == q and m.get("GATEWAYD_LABEL") == q
            and m.get("GATEWAYD_QDISC") == r["qdisc"] and os.path.basename(f).startswith(test + "-"),
            "%s: NAME and file name %s, TITLE and GATEWAYD_LABEL the queue with its knobs, GATEWAYD_QDISC its kind"
            % (q, test), (m.get("NAME"), m.get("TITLE"), m.get("GATEWAYD_LABEL"), m.get("GATEWAYD_QDISC")))
        cfg = res["config"]
        tp = m.get("TEST_PARAMETERS", {})
        want = {}
        if test in ("rrul_be_nflows", "tcp_nup"):
            want["upload_streams"] = str(cfg["tcp_flows_up"])
        if test in ("rrul_be_nflows", "tcp_ndown"):
            want["download_streams"] = str(cfg["tcp_flows_down"])
        got = {k: tp.get(k) for k in ("upload_streams", "download_streams") if k in tp}
        say(got == want and m.get("GATEWAYD_PROFILE") == cfg.get("profile"),
            "%s: TEST_PARAMETERS' stream counts as %s reads them %s, GATEWAYD_PROFILE %s"
            % (q, test, got, m.get("GATEWAYD_PROFILE")), want)
        v6 = cfg.get("ip_family") == 6
        say(m.get("IP_VERSION") == (6 if v6 else 4) and m.get("HOST") == ("fd77:3::2" if v6 else "10.77.3.2"),
            "%s: the pings' IP_VERSION %s and HOST %s" % (q, m.get("IP_VERSION"), m.get("HOST")))
        say(m.get("GATEWAYD_RATE_BPS_DOWN") == cfg.get("rate_bps_down") and
            m.get("GATEWAYD_RATE_BPS_UP") == cfg.get("rate_bps_up") and tp.get("qdisc") == q and
            tp.get("rate_down") and tp.get("rate_up"),
            "%s: each direction's rate (GATEWAYD_RATE_BPS_DOWN %s, _UP %s) as results.json's" % (
                q, m.get("GATEWAYD_RATE_BPS_DOWN"), m.get("GATEWAYD_RATE_BPS_UP")),
            (tp, cfg.get("rate_bps_down"), cfg.get("rate_bps_up")))
        say(m.get("GATEWAYD_VERSION") == res["gatewayd_version"] and m.get("GATEWAYD_KERNEL") == res["kernel"]
            and m.get("KERNEL_RELEASE") == res["kernel_release"],
            "%s: gatewayd's version, host or UML, the kernel's release as results.json" % q)
        sc = m.get("SYSCTLS", {})
        say(sc.get("net.ipv4.tcp_congestion_control") == cc and sc.get("net.ipv4.tcp_ecn") == 1,
            "%s: SYSCTLS: congestion control %s, tcp_ecn %s" % (q, sc.get("net.ipv4.tcp_congestion_control"),
                                                               sc.get("net.ipv4.tcp_ecn")))
        eg = m.get("EGRESS_INFO", {})
        names = [x["name"] for x in eg.get("qdiscs", [])]
        want = [x["kind"] for x in r["qdiscs"] if x["type"] == "qdisc" and x["direction"] == "up"]
        say(names == want and names, "%s: EGRESS_INFO's qdiscs = results.json's (%s)" % (q, names), want)
        say(near(rs.t0, r["t0_unix"], 1e-5), "%s: T0 = the run's t0_unix" % q, (rs.t0, r["t0_unix"]))
        xs = [round(x, 3) for x, _ in rs.raw_series("Ping (ms) ICMP")]
        want = sorted(round(x[0], 3) for x in r["samples"] if x[1] is not None)
        say(len(xs) == len(want) and all(abs(a - b) < 2e-3 for a, b in zip(sorted(xs), want)),
            "%s: the pings' times as flent reads them = results.json's samples (%d)" % (q, len(xs)))
        say(len(rs.x_values) > 0 and all(len(rs.series(n)) == len(rs.x_values) for n in rs.series_names),
            "%s: every series as long as x_values (%d)" % (q, len(rs.x_values)))


if __name__ == "__main__":
    main()
