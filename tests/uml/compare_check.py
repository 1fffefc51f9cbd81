#!/usr/bin/env python3
"""tests/uml/compare_check.py: check a `gatewayd --compare --out DIR` directory against
docs/compare-schema.md (version 1): results.json's shape, types and internal consistency, and
that every SVG is well-formed XML with data in it. Prints one line per problem; exit 1 if any.

usage: compare_check.py DIR
"""
import json
import re
import math
import os
import sys
import xml.etree.ElementTree as ET

problems = []


def bad(path, msg):
    problems.append(f"{path}: {msg}")


def num_or_null(v):
    return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)
                         and math.isfinite(v))


def check_type(path, v, kind):
    ok = {
        "str": lambda x: isinstance(x, str),
        "int": lambda x: isinstance(x, int) and not isinstance(x, bool),
        "num": lambda x: isinstance(x, (int, float)) and not isinstance(x, bool),
        "num?": num_or_null,
        "bool": lambda x: isinstance(x, bool),
        "obj": lambda x: isinstance(x, dict),
        "arr": lambda x: isinstance(x, list),
    }[kind]
    if not ok(v):
        bad(path, f"want {kind}, have {json.dumps(v)[:60]}")
        return False
    return True


def fields(path, obj, spec):
    """spec: {key: kind}; every key required, no others allowed."""
    if not check_type(path, obj, "obj"):
        return False
    for k, kind in spec.items():
        if k not in obj:
            bad(path, f"missing '{k}'")
        else:
            check_type(f"{path}.{k}", obj[k], kind)
    for k in obj:
        if k not in spec:
            bad(path, f"unknown key '{k}'")
    return True


QDISCS = {"fifo", "fq_codel", "cake", "cake-shaper", "sfq", "pie"}
PHASES = ["idle", "tcp", "flood", "idle2"]
GRADES = {"A+", "A", "B", "C", "D", "F", ""}


def grade_of(m):
    if m is None:
        return ""
    return "A+" if m < 5 else "A" if m < 30 else "B" if m < 60 else "C" if m < 200 \
        else "D" if m < 400 else "F"


def file_label(label):
    """A label in a file name's characters, as the plots' names take it."""
    return "".join("-" if c == "=" else c if re.fullmatch(r"[A-Za-z0-9._+-]", c) else "_"
                   for c in label)


def tc_bps(text):
    """tc's rate words (4mbit, 20Mbit, 500Kbit, 1gbit, 96bit) in bits/s, or None."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([kmg]?)bit", text, re.I)
    if not m:
        return None
    return float(m.group(1)) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2).lower()]


def check_label(p, r, cfg=None):
    """label: the queue's name, then nothing or knobs (':KEY=VALUE', ':word'); a run of the
    config's own tree (-c): its link's name, or that and '+' and such a queue."""
    if r.get("tree") not in ("bench", "config"):
        bad(p + ".tree", f"{r.get('tree')!r} is neither bench nor config")
    knobs = r"(:[a-z0-9_]+(=[A-Za-z0-9._+-]+)?)*"
    if r.get("tree") == "config":
        link = ((cfg or {}).get("own_tree") or {}).get("link")
        if not isinstance(link, str) or not isinstance(r.get("label"), str) or not (
                r["label"] == link or re.fullmatch(re.escape(link) + r"\+" +
                                                   re.escape(r.get("qdisc", "")) + knobs,
                                                   r["label"])):
            bad(p + ".label", f"{r.get('label')!r} is not link {link!r} (+ a queue and its knobs)")
        return
    if isinstance(r.get("label"), str) and isinstance(r.get("qdisc"), str) and \
            not re.fullmatch(re.escape(r["qdisc"]) + knobs, r["label"]):
        bad(p + ".label", f"{r['label']!r} is not qdisc {r['qdisc']!r} and its knobs")


def check_rates(p, r, cfg):
    """Each direction's htb classes at the direction's own rate, as the kernel reports them
    (a config's own tree: at most that rate, its classes' own)."""
    for q in r["qdiscs"]:
        if not isinstance(q, dict) or q.get("type") != "class" or q.get("kind") != "htb":
            continue
        m = re.match(r"rate (\S+)", q.get("params", ""))
        want = cfg.get("rate_bps_" + q.get("direction", ""))
        got = tc_bps(m.group(1)) if m else None
        if r.get("tree") == "config" and got is not None and isinstance(want, int) and \
                got <= 1.01 * want:
            continue
        if got is None or not isinstance(want, int) or abs(got - want) > 0.01 * want:
            bad(f"{p}.qdiscs", f"{q.get('direction')} htb class {q.get('handle')}: "
                f"{q.get('params', '')[:40]!r}, want rate_bps_{q.get('direction')} {want}")


def check_run(p, r, cfg):
    base = {"qdisc": "str", "label": "str", "tree": "str", "ran": "bool", "note": "str"}
    if cfg.get("repeat", 1) > 1:    # --repeat N: each run's repetition and its queue's place
        base.update(repeat="int", position="int")
    if not isinstance(r, dict) or not r.get("ran"):
        fields(p, r, base)
        if isinstance(r, dict):
            check_label(p, r, cfg)
        return
    spec = dict(base, goodput_bps="obj", shaper_accuracy="obj", latency_ms="obj",
                grade="str", drops="obj", ecn_marks="obj", peak_queue="obj",
                jain_fairness="num?", cpu_busy="num?", tcp_rtt="obj", flows="arr", samples="arr",
                queue="arr", phases="arr", clients_started_s="num", t0_unix="num",
                flent_file="str", qdiscs="arr", udp_latency_ms="obj", udp_samples="arr")
    if isinstance(r, dict) and "cake_tins" in r:    # a queue with tins: cake
        spec["cake_tins"] = "obj"
        if fields(p + ".cake_tins", r["cake_tins"], {"up": "arr", "down": "arr"}):
            for d in ("up", "down"):
                for i, t in enumerate(r["cake_tins"][d]):
                    fields(f"{p}.cake_tins.{d}[{i}]", t, {"tin": "str", "peak_delay_ms": "num?",
                                                         "average_delay_ms": "num?"})
    if not fields(p, r, spec):
        return
    check_label(p, r, cfg)
    check_rates(p, r, cfg)
    if not re.fullmatch(r"(rrul_be|rrul_be_nflows|tcp_nup|tcp_ndown)-\d{4}-\d\d-\d\dT\d{6}\.\d{6}\.[A-Za-z0-9_-]+\.flent\.gz",
                        r["flent_file"]):
        bad(p + ".flent_file", f"not flent's name: {r['flent_file']}")
    for i, q in enumerate(r["qdiscs"]):
        if fields(f"{p}.qdiscs[{i}]", q, {"direction": "str", "interface": "str", "type": "str",
                                          "kind": "str", "handle": "str", "parent": "str",
                                          "params": "str", "tc": "str"}):
            if q["direction"] not in ("up", "down") or q["type"] not in ("qdisc", "class"):
                bad(f"{p}.qdiscs[{i}]", f"direction {q['direction']}, type {q['type']}")
    if not any(q.get("type") == "qdisc" for q in r["qdiscs"] if isinstance(q, dict)):
        bad(p + ".qdiscs", "no qdisc read back")
    if [ph.get("name") for ph in r["phases"] if isinstance(ph, dict)] != PHASES:
        bad(p + ".phases", f"want the phases {PHASES}")
    for i, ph in enumerate(r["phases"]):
        if fields(f"{p}.phases[{i}]", ph, {"name": "str", "start_s": "num", "end_s": "num"}):
            if ph["end_s"] < ph["start_s"]:
                bad(f"{p}.phases[{i}]", "ends before it starts")
    if r["qdisc"] not in QDISCS:
        bad(p + ".qdisc", f"unknown qdisc {r['qdisc']}")
    for k in ("goodput_bps", "shaper_accuracy"):
        fields(f"{p}.{k}", r[k], {"up": "num?", "down": "num?"})
    for k in ("drops", "ecn_marks"):
        fields(f"{p}.{k}", r[k], {"up": "int", "down": "int"})
    fields(f"{p}.peak_queue", r["peak_queue"], {"up": "obj", "down": "obj"})
    for d in ("up", "down"):
        if isinstance(r["peak_queue"].get(d), dict):
            fields(f"{p}.peak_queue.{d}", r["peak_queue"][d], {"packets": "int", "ms": "num?"})
    lat = r["latency_ms"]
    pct = {"p50": "num?", "p95": "num?", "p99": "num?", "mean": "num?", "samples": "int",
           "lost": "int"}
    if fields(f"{p}.latency_ms", lat, {"baseline": "num?", "idle": "obj", "loaded": "obj",
                                         "induced": "obj"}):
        fields(f"{p}.latency_ms.idle", lat["idle"], pct)
        fields(f"{p}.latency_ms.loaded", lat["loaded"], pct)
        fields(f"{p}.latency_ms.induced", lat["induced"],
               {"p50": "num?", "p95": "num?", "p99": "num?", "mean": "num?"})
        # consistency: induced = loaded - baseline; percentiles ordered; grade from the mean
        try:
            for q in ("p50", "p95", "p99", "mean"):
                want = lat["loaded"][q] - lat["baseline"]
                if abs(lat["induced"][q] - want) > 0.01:
                    bad(f"{p}.latency_ms.induced.{q}", f"{lat['induced'][q]} != loaded - baseline {want:.3f}")
            for s in ("idle", "loaded"):
                x = lat[s]
                if not (x["p50"] <= x["p95"] <= x["p99"]):
                    bad(f"{p}.latency_ms.{s}", "percentiles out of order")
                if x["lost"] > x["samples"]:
                    bad(f"{p}.latency_ms.{s}", "more lost than samples")
            if r["grade"] != grade_of(lat["induced"]["mean"]):
                bad(f"{p}.grade", f"{r['grade']} but induced mean {lat['induced']['mean']}")
        except (TypeError, KeyError):
            bad(f"{p}.latency_ms", "incomplete figures")
    check_tcp_rtt(p, r)
    if r["grade"] not in GRADES:
        bad(f"{p}.grade", f"unknown grade {r['grade']}")
    # the UDP probes: round trip and each way, as latency_ms, and recomputed from udp_samples
    udp = r["udp_latency_ms"]
    if fields(f"{p}.udp_latency_ms", udp, {"rtt": "obj", "up": "obj", "down": "obj"}):
        for k, col in (("rtt", 1), ("up", 2), ("down", 3)):
            u, up = udp[k], f"{p}.udp_latency_ms.{k}"
            if not fields(up, u, {"baseline": "num?", "idle": "obj", "loaded": "obj",
                                  "induced": "obj", "jitter": "num?"}):
                continue
            fields(up + ".idle", u["idle"], pct)
            fields(up + ".loaded", u["loaded"], pct)
            fields(up + ".induced", u["induced"],
                   {"p50": "num?", "p95": "num?", "p99": "num?", "mean": "num?"})
            pts = [pt for pt in r["udp_samples"] if isinstance(pt, list) and len(pt) == 5]
            idle = sorted(pt[col] for pt in pts if pt[4] == 0 and pt[col] is not None and
                          round(pt[0] * 1000) < round(r["clients_started_s"] * 1000))
            loaded = sorted(pt[col] for pt in pts if pt[4] in (1, 2) and pt[col] is not None)
            try:
                if u["idle"]["samples"] - u["idle"]["lost"] != len(idle) or \
                        u["loaded"]["samples"] - u["loaded"]["lost"] != len(loaded):
                    bad(up, f"{len(idle)} idle and {len(loaded)} loaded replies in udp_samples, "
                        f"not the figures' {u['idle']['samples']}-{u['idle']['lost']} and "
                        f"{u['loaded']['samples']}-{u['loaded']['lost']}")
                elif loaded and u["baseline"] is not None:
                    p95 = loaded[max(1, -(-95 * len(loaded) // 100)) - 1]
                    if abs(u["induced"]["p95"] - (p95 - u["baseline"])) > 0.01:
                        bad(up + ".induced.p95", f"{u['induced']['p95']} but the samples give "
                            f"{p95 - u['baseline']:.3f}")
                # jitter: |D| of consecutive probes sent under load, both answered
                ds = [abs(b[col] - a[col]) for a, b in zip(pts, pts[1:])
                      if a[4] >= 1 and b[4] <= 2 and a[col] is not None and b[col] is not None]
                want = sum(ds) / len(ds) if ds else None
                if (want is None) != (u["jitter"] is None) or \
                        (want is not None and abs(u["jitter"] - want) > 0.01):
                    bad(up + ".jitter", f"{u['jitter']} but the samples give {want}")
            except (TypeError, KeyError):
                bad(up, "incomplete figures")
    for pt in r["udp_samples"]:
        if not (isinstance(pt, list) and len(pt) == 5 and all(num_or_null(v) for v in pt[:4])
                and pt[0] is not None and isinstance(pt[4], int) and 0 <= pt[4] < len(PHASES)):
            bad(f"{p}.udp_samples", f"sample {pt} is not [t, rtt_ms, up_ms, down_ms, phase]")
            break
    for i, f in enumerate(r["flows"]):
        fp = f"{p}.flows[{i}]"
        spec = {"name": "str", "direction": "str", "protocol": "str", "family": "int", "mean_bps": "num?",
                "series": "arr"}
        if isinstance(f, dict) and f.get("protocol") == "tcp":
            spec["rtt_series"] = "arr"	# a TCP flow's sender's RTT, every tick
        if fields(fp, f, spec):
            if f["direction"] not in ("up", "down") or f["protocol"] not in ("tcp", "udp"):
                bad(fp, "direction must be up|down, protocol tcp|udp")
            for pt in f.get("rtt_series", []):
                if not (isinstance(pt, list) and len(pt) == 3 and all(num_or_null(v) and v is not None
                                                                      for v in pt) and pt[1] > 0):
                    bad(fp + ".rtt_series", f"point {pt} is not [t, srtt_ms > 0, rttvar_ms]")
                    break
            for pt in f["series"]:
                if not (isinstance(pt, list) and len(pt) == 2 and all(num_or_null(v) for v in pt)):
                    bad(fp + ".series", f"point {pt} is not [t, bps]")
                    break
    tcp = [f for f in r["flows"] if isinstance(f, dict) and f.get("protocol") == "tcp"]
    if len(tcp) != cfg.get("tcp_flows_up", 4) + cfg.get("tcp_flows_down", 4):
        bad(f"{p}.flows", f"{len(tcp)} TCP flows, want tcp_flows_up + tcp_flows_down")
    for d in ("up", "down"):
        if sum(1 for f in tcp if f.get("direction") == d) != cfg.get("tcp_flows_" + d, 4):
            bad(f"{p}.flows", f"its {d} TCP flows are not tcp_flows_{d}")
    # the flood: --profile rrul's alone; without it the flood phase is empty
    flood = cfg.get("profile", "rrul") == "rrul"
    udp = [f for f in r["flows"] if isinstance(f, dict) and f.get("protocol") == "udp"]
    ph = {x.get("name"): x for x in r["phases"] if isinstance(x, dict)}
    if len(udp) != (1 if flood else 0) or (not flood and ph.get("flood", {}).get("start_s") !=
                                            ph.get("flood", {}).get("end_s")):
        bad(f"{p}.flows", f"{len(udp)} UDP floods and a flood phase {ph.get('flood')} for profile {cfg.get('profile')}")
    nph = len(PHASES)
    for pt in r["samples"]:
        if not (isinstance(pt, list) and len(pt) == 3 and num_or_null(pt[0]) and pt[0] is not None
                and num_or_null(pt[1]) and isinstance(pt[2], int) and 0 <= pt[2] < nph):
            bad(f"{p}.samples", f"sample {pt} is not [t, rtt_ms|null, phase]")
            break
    n_idle = sum(1 for s in r["samples"] if s[2] == 0 and round(s[0] * 1000) < round(r["clients_started_s"] * 1000))
    if isinstance(lat, dict) and isinstance(lat.get("idle"), dict) and lat["idle"].get("samples") != n_idle:
        bad(f"{p}.latency_ms.idle.samples", f"{lat['idle'].get('samples')} but {n_idle} idle samples")
    for pt in r["queue"]:
        if not (isinstance(pt, list) and len(pt) == 7 and all(isinstance(v, (int, float)) for v in pt)):
            bad(f"{p}.queue", f"point {pt} is not [t, up_bytes, up_pkts, down_bytes, down_pkts, up_sent, down_sent]")
            break


def check_tcp_rtt(p, r):
    """The bulk flows' own RTT: each direction's figures, induced = figure - baseline, and the
    sample count the flows' rtt_series hold inside the window."""
    t = r["tcp_rtt"]
    d_spec = {"p50_ms": "num?", "p95_ms": "num?", "p99_ms": "num?", "mean_ms": "num?",
              "rttvar_mean_ms": "num?", "samples": "int", "flows": "int",
              "induced_p50_ms": "num?", "induced_p95_ms": "num?", "induced_p99_ms": "num?",
              "induced_mean_ms": "num?"}
    if not fields(f"{p}.tcp_rtt", t, {"window_s": "arr", "baseline_ms": "num?", "up": "obj",
                                      "down": "obj"}):
        return
    if t["baseline_ms"] != r["latency_ms"].get("baseline"):
        bad(f"{p}.tcp_rtt.baseline_ms", "is not latency_ms.baseline")
    w = t["window_s"]
    if not (len(w) == 2 and all(isinstance(v, (int, float)) for v in w) and w[0] <= w[1]):
        bad(f"{p}.tcp_rtt.window_s", f"{w} is no [start, end]")
        return
    for d in ("up", "down"):
        dp = f"{p}.tcp_rtt.{d}"
        if not fields(dp, t[d], d_spec):
            continue
        x = t[d]
        n = sum(1 for f in r["flows"] if isinstance(f, dict) and f.get("protocol") == "tcp"
                and f.get("direction") == d for pt in f.get("rtt_series", [])
                if isinstance(pt, list) and pt and isinstance(pt[0], (int, float))
                and w[0] - 0.0005 <= pt[0] <= w[1] + 0.0005)
        # the window's edges are rounded to the ms as the points are: a tick on one may fall
        # either side
        if abs(x["samples"] - n) > 2 * x["flows"]:
            bad(dp + ".samples", f"{x['samples']}, but the flows' rtt_series hold {n} in the window")
        if x["samples"] == 0:
            continue
        try:
            if not (x["p50_ms"] <= x["p95_ms"] <= x["p99_ms"]):
                bad(dp, "percentiles out of order")
            for q in ("p50", "p95", "p99", "mean"):
                want = x[q + "_ms"] - t["baseline_ms"]
                if abs(x["induced_" + q + "_ms"] - want) > 0.01:
                    bad(f"{dp}.induced_{q}_ms", f"{x['induced_' + q + '_ms']} != {q}_ms - baseline {want:.3f}")
        except TypeError:
            bad(dp, "incomplete figures")


def check_json(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        bad(path, f"not JSON: {e}")
        return None
    top = {"schema": "str", "version": "int", "gatewayd_version": "str", "generated_unix": "int",
           "kernel": "str", "kernel_release": "str", "config": "obj", "runs": "arr",
           "metadata": "obj"}
    if "summary" in d:  # --repeat N
        top["summary"] = "obj"
    if not fields("$", d, top):
        return None
    if "summary" in d and fields("$.summary", d["summary"], {"repetitions": "int", "level": "num",
                                                             "queues": "arr", "differences": "arr"}):
        if d["summary"]["repetitions"] != d["config"].get("repeat"):
            bad("$.summary.repetitions", "is not config.repeat")
    m = d["metadata"]
    if fields("$.metadata", m, {"gatewayd_version": "str", "kernel": "str", "kernel_name": "str",
                                "kernel_release": "str", "hostname": "str", "sysctls": "obj",
                                "congestion_control": "obj", "tcp_ecn": "obj", "offloads": "arr"}):
        for k in ("sysctls", "congestion_control", "tcp_ecn"):
            fields(f"$.metadata.{k}", m[k], {"client": "obj" if k == "sysctls" else
                                             "str" if k == "congestion_control" else "num?",
                                             "server": "obj" if k == "sysctls" else
                                             "str" if k == "congestion_control" else "num?"})
        for i, f in enumerate(m["offloads"]):
            fields(f"$.metadata.offloads[{i}]", f, {"namespace": "str", "interface": "str",
                                                    "offloads": "obj"})
        if m["kernel"] != d["kernel"] or m["gatewayd_version"] != d["gatewayd_version"]:
            bad("$.metadata", "kernel or gatewayd_version differs from the top level's")
    if d["schema"] != "gatewayd-compare" or d["version"] != 1:
        bad("$", f"schema {d['schema']} version {d['version']}: this checker knows gatewayd-compare 1")
    if d["kernel"] not in ("host", "uml"):
        bad("$.kernel", "must be host or uml")
    cfg = d["config"]
    spec = {"rate_bps": "int", "rate_bps_down": "int", "rate_bps_up": "int",
            "rtt_ms": "num", "netem": "bool", "duration_s": "num",
            "probe_hz": "int", "tcp_flows_per_direction": "int",
            "udp_flood_bps": "int", "phases": "arr", "profile": "str", "ip_family": "int", "tcp_flows_up": "int",
            "tcp_flows_down": "int"}
    if "repeat" in cfg:
        spec["repeat"] = "int"
    if cfg.get("ip_family") not in (4, 6, 46):
        bad("$.config.ip_family", f"{cfg.get('ip_family')!r} is not 4, 6 or 46")
    if cfg.get("profile") not in ("rrul", "bidir", "upload", "download"):
        bad("$.config.profile", f"{cfg.get('profile')!r} is no profile")
    if "own_tree" in cfg:   # -c CONFIG
        spec["own_tree"] = "obj"
        fields("$.config.own_tree", cfg["own_tree"],
               {"file": "str", "link": "str", "autorate_left_out": "bool"})
    fields("$.config", cfg, spec)
    if cfg.get("rate_bps") != cfg.get("rate_bps_down"):
        bad("$.config", f"rate_bps {cfg.get('rate_bps')} is not rate_bps_down {cfg.get('rate_bps_down')}")
    names = [ph.get("name") for ph in cfg.get("phases", []) if isinstance(ph, dict)]
    if names != PHASES:
        bad("$.config.phases", f"names {names}, want {PHASES}")
    for i, ph in enumerate(cfg.get("phases", [])):
        fields(f"$.config.phases[{i}]", ph, {"name": "str", "start_s": "num", "end_s": "num"})
    for i, r in enumerate(d["runs"]):
        check_run(f"$.runs[{i}]", r, cfg)
    return d


def check_svg(path):
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        bad(path, f"not well-formed XML: {e}")
        return
    ns = "{http://www.w3.org/2000/svg}"
    if root.tag != ns + "svg":
        bad(path, f"root element {root.tag}, want svg")
    lines = root.findall(f".//{ns}polyline")
    pts = sum(len(pl.get("points", "").split()) for pl in lines)
    texts = [t.text or "" for t in root.iter(ns + "text")]
    if pts < 10:
        bad(path, f"only {pts} data points drawn")
    if len(texts) < 8:
        bad(path, "too few labels (axes, legend)")


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    out = sys.argv[1]
    d = check_json(os.path.join(out, "results.json"))
    svgs = ["latency-cdf.svg", "latency-time.svg"]
    if d:
        rep = d["config"].get("repeat", 1) > 1
        svgs += [f"flows-{file_label(r.get('label', ''))}" +
                 (f"-rep{r.get('repeat', 0) + 1}" if rep else "") + ".svg" for r in d["runs"]
                 if isinstance(r, dict) and r.get("ran")]
    for s in svgs:
        check_svg(os.path.join(out, s))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
