"""Plants a problem of known cost into a real Kineto trace by editing its times consistently:
one kernel instance made D longer, every event after its end moved D later and every range
open across its end (a synchronize waiting for it, the step) D longer - the same program with
one slow kernel, whose fix saves exactly D where the run waits for its GPU (issue 29)."""
import collections
import gzip
import json


def slow_kernel(src, dst, d_us):
    """Writes the planted trace to dst; returns the planted kernel's name. The kernel is the first
    instance past the middle of the trace whose name, grid and block occur at least 20 times
    (a kernel with siblings to be compared with)."""
    with (gzip.open(src, "rt") if src.endswith(".gz") else open(src)) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    kernels = sorted((e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"),
                     key=lambda e: e["ts"])

    def key(e):
        a = e.get("args", {})
        return e["name"], str(a.get("grid")), str(a.get("block"))

    count = collections.Counter(key(e) for e in kernels)
    k = next(e for e in kernels[len(kernels) // 2:] if count[key(e)] >= 20)
    end = float(k["ts"]) + float(k["dur"])
    k["dur"] = float(k["dur"]) + d_us
    for e in events:
        if e is k or "ts" not in e:
            continue
        ts = float(e["ts"])
        if ts >= end:
            e["ts"] = ts + d_us
        elif e.get("ph") == "X" and ts + float(e.get("dur", 0)) > end:
            e["dur"] = float(e["dur"]) + d_us
    with open(dst, "w") as f:
        json.dump(doc, f)
    return k["name"]
