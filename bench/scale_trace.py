#!/usr/bin/env python3
"""Scales a real Kineto trace to a target size for benchmarks.

The events of the source trace are written again and again, each copy shifted in time by the
source's span (plus 1 ms) and with every id (correlation, External id, flow id, Python id)
offset so that the links stay unique. Output is Kineto-style JSON, one event per line.

With --distinct-names every complete event (kernels, CPU ops, runtime calls, ...) gets a name
of its own (`<name> #<n>`): the shape of a trace whose names cannot be shared (issue 33's memory
bound).

usage: scale_trace.py [--distinct-names] SOURCE.json[.gz] OUT.json TARGET_MB
"""
import gzip
import json
import sys

ID_ARGS = ("correlation", "External id", "Python id", "Python parent id")


def main():
    args = sys.argv[1:]
    distinct = "--distinct-names" in args
    args = [a for a in args if a != "--distinct-names"]
    src, out, target_mb = args[0], args[1], float(args[2])
    renamed = 0
    opener = gzip.open if src.endswith(".gz") else open
    with opener(src, "rt") as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    timed = [e for e in events if isinstance(e.get("ts"), (int, float))]
    lo = min(e["ts"] for e in timed)
    hi = max(e["ts"] + e.get("dur", 0) for e in timed)
    shift_us = (hi - lo) + 1000.0
    max_id = 0
    for e in events:
        if isinstance(e.get("id"), int):
            max_id = max(max_id, e["id"])
        for k in ID_ARGS:
            v = e.get("args", {}).get(k)
            if isinstance(v, int):
                max_id = max(max_id, v)
    id_step = max_id + 1
    header = {k: v for k, v in doc.items() if k != "traceEvents"}
    target = int(target_mb * 1e6)
    written = 0
    copies = 0
    with open(out, "w") as f:
        head = json.dumps(header)[:-1] + ', "traceEvents": [\n'
        f.write(head)
        written += len(head)
        first = True
        while written < target:
            for e in events:
                if copies > 0 and e.get("ph") == "M":
                    continue
                e2 = dict(e)
                if isinstance(e2.get("ts"), (int, float)) and e2.get("ph") != "M":
                    e2["ts"] = round(e2["ts"] + copies * shift_us, 3)
                if isinstance(e2.get("id"), int):
                    e2["id"] = e2["id"] + copies * id_step
                if "args" in e2 and isinstance(e2["args"], dict):
                    a = dict(e2["args"])
                    for k in ID_ARGS:
                        if isinstance(a.get(k), int):
                            a[k] = a[k] + copies * id_step
                    e2["args"] = a
                if distinct and e2.get("ph") == "X" and isinstance(e2.get("name"), str):
                    renamed += 1
                    e2["name"] = "%s #%d" % (e2["name"], renamed)
                line = ("" if first else ",\n") + json.dumps(e2)
                first = False
                f.write(line)
                written += len(line)
            copies += 1
        f.write("\n]}\n")
    print(f"{out}: {written / 1e6:.1f} MB, {copies} copies of {len(events)} events")


if __name__ == "__main__":
    main()
