#!/usr/bin/env python3
"""tests/uml/scenario_check.py: check a `gatewayd --compare --scenario variable --out DIR`
directory against docs/compare.md's description of its results.json (schema
`gatewayd-compare-scenario`, version 1): the shape, the types, that the figures agree with
the settings, and that every SVG is well-formed XML with data in it. Prints one line per
problem; exit 1 if any.

usage: scenario_check.py DIR
"""
import json
import math
import os
import sys
import xml.etree.ElementTree as ET

problems = []


def bad(path, msg):
    problems.append(f"{path}: {msg}")


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def num_or_null(v):
    return v is None or is_num(v)


def pair(path, v, nullable=True):
    if not isinstance(v, dict) or set(v) != {"up", "down"}:
        bad(path, f"want {{up, down}}, got {v!r}")
        return
    for d in ("up", "down"):
        if not (num_or_null(v[d]) if nullable else is_num(v[d])):
            bad(f"{path}.{d}", f"not a number: {v[d]!r}")


def pct(path, v):
    for k in ("p50", "p95", "p99", "mean"):
        if not num_or_null(v.get(k, "missing")):
            bad(f"{path}.{k}", "not a number or null")
    for k in ("samples", "lost"):
        if not isinstance(v.get(k), int):
            bad(f"{path}.{k}", "not an int")


def check_step(path, s, cap):
    for k in ("start_s", "end_s"):
        if not is_num(s.get(k)):
            bad(f"{path}.{k}", "not a number")
    if is_num(s.get("start_s")) and is_num(s.get("end_s")) and s["end_s"] <= s["start_s"]:
        bad(path, "ends before it starts")
    pair(f"{path}.capacity_bps", s.get("capacity_bps"), nullable=False)
    if s.get("capacity_bps") != cap:
        bad(f"{path}.capacity_bps", f"{s.get('capacity_bps')} is not the config's {cap}")
    if not isinstance(s.get("drop"), bool):
        bad(f"{path}.drop", "not a boolean")
    for part in ("whole", "settled"):
        pct(f"{path}.rtt_ms.{part}", s.get("rtt_ms", {}).get(part, {}))
        ind = s.get("induced_ms", {}).get(part, {})
        for k in ("p50", "p95", "p99"):
            if not num_or_null(ind.get(k, "missing")):
                bad(f"{path}.induced_ms.{part}.{k}", "not a number or null")
    for k in ("goodput_bps", "goodput_share", "achieved_bps", "shaper_bps", "peak_queue_ms"):
        pair(f"{path}.{k}", s.get(k))
    c = s.get("cpu_busy", "missing")
    if not (c is None or (is_num(c) and 0 <= c <= 1)):
        bad(f"{path}.cpu_busy", f"not a share 0..1 or null: {c!r}")
    if s.get("drop"):
        if not isinstance(s.get("recovered"), bool):
            bad(f"{path}.recovered", "a drop without a boolean 'recovered'")
        if s.get("recovered") and not is_num(s.get("recovery_s")):
            bad(f"{path}.recovery_s", "recovered, but no time")
    elif "recovery_s" in s:
        bad(path, "recovery_s on a step that is no drop")


def check_run(path, r, cfg):
    for k, t in (("way", str), ("ran", bool), ("note", str)):
        if not isinstance(r.get(k), t):
            bad(f"{path}.{k}", f"not a {t.__name__}")
    if r.get("way") not in ("autorate", "fixed", "none"):
        bad(f"{path}.way", f"unknown way {r.get('way')!r}")
    if not r.get("ran"):
        return
    if not num_or_null(r.get("baseline_ms", "missing")):
        bad(f"{path}.baseline_ms", "not a number or null")
    pct(f"{path}.idle_rtt_ms", r.get("idle_rtt_ms", {}))
    steps = r.get("steps", [])
    if len(steps) != len(cfg["steps_bps"]):
        bad(f"{path}.steps", f"{len(steps)} steps, the config has {len(cfg['steps_bps'])}")
    for i, s in enumerate(steps):
        if i < len(cfg["steps_bps"]):
            check_step(f"{path}.steps[{i}]", s, cfg["steps_bps"][i])
    for name, width in (("samples", 3), ("ticks", 9)):
        rows = r.get(name)
        if not isinstance(rows, list) or not rows:
            bad(f"{path}.{name}", "missing or empty")
            continue
        for j, row in enumerate(rows):
            if not isinstance(row, list) or len(row) != width or not is_num(row[0]):
                bad(f"{path}.{name}[{j}]", f"want {width} values, got {row!r}")
                break
    flows = r.get("flows", [])
    if len([f for f in flows if f.get("direction") == "up"]) != cfg["tcp_flows_per_direction"]:
        bad(f"{path}.flows", "not the config's number of upload flows")


def main():
    d = sys.argv[1]
    path = os.path.join(d, "results.json")
    try:
        with open(path) as f:
            j = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{path}: {e}")
        return 1
    if j.get("schema") != "gatewayd-compare-scenario" or j.get("version") != 1:
        bad(path, "not schema gatewayd-compare-scenario version 1")
    cfg = j.get("config", {})
    for k in ("steps_bps", "step_s", "settle_s", "rtt_ms", "box_fifo_bytes", "queue", "autorate",
              "fixed_bps", "bounds", "tcp_flows_per_direction", "probe_method"):
        if k not in cfg:
            bad(f"{path}.config", f"no {k}")
    if problems:
        print("\n".join(problems))
        return 1
    for i, s in enumerate(cfg["steps_bps"]):
        pair(f"config.steps_bps[{i}]", s, nullable=False)
    a = cfg["autorate"]
    for d2 in ("up", "down"):
        if not a["min_bps"][d2] <= a["base_bps"][d2] <= a["max_bps"][d2]:
            bad("config.autorate", f"{d2}: not min <= base <= max")
        if a["base_bps"][d2] != cfg["steps_bps"][0][d2] or cfg["fixed_bps"][d2] != a["base_bps"][d2]:
            bad("config.autorate", f"{d2}: base and the fixed rate are not the first step's")
    for k in ("autorate_latency", "autorate_goodput", "fixed_latency"):
        v = j.get("acceptance", {}).get(k)
        if not isinstance(v, dict) or v.get("pass") not in (True, False, None) or \
                not isinstance(v.get("figures"), str):
            bad(f"acceptance.{k}", f"want {{pass, figures}}, got {v!r}")
    for i, r in enumerate(j.get("runs", [])):
        check_run(f"runs[{i}]", r, cfg)
    svgs = [f for f in os.listdir(d) if f.endswith(".svg")]
    want = {"rtt.svg"} | {f"rates-{r['way']}.svg" for r in j.get("runs", []) if r.get("ran")}
    for f in sorted(want - set(svgs)):
        bad(f, "missing")
    for f in svgs:
        try:
            root = ET.parse(os.path.join(d, f)).getroot()
        except ET.ParseError as e:
            bad(f, f"not well-formed: {e}")
            continue
        if not any(el.tag.endswith("polyline") for el in root.iter()):
            bad(f, "no data lines")
    print("\n".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
