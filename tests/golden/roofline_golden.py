"""Golden roofline cases over real samples with op shapes (called by run_golden.py).

For each case, `gpuscope roofline --format json` is compared with expected/roofline_<name>.json
(reviewed), and cross-checked against an independent computation here, sharing no code with
gpuscope: Python's json reads the trace; each kernel's launch call (by correlation id) is placed
in the innermost CPU op around it on its thread (by time); for the matmul ops (mm, addmm, bmm,
baddbmm, linear) among those, FLOPs = 2 x batch x M x N x K from the op's own Input Dims. The
calls and FLOPs per (op, shape) must equal what roofline reports; every percentage of a matmul
and of a memory-bound op moving more than 256 MB per call (beyond any cache) is below 100%.
"""
import gzip
import json
import os
from bisect import bisect_right

TL = "kineto/tracelens/tests__traces__"
# (name, sample, extra args, expected device key, minimum modelled share of kernel time)
CASES = [
    ("b200_eager", TL + "b200__eager_trace.json.gz", [], "B200", 0.10),
    ("h100_bert", TL + "h100__gaunernst_bert-small-uncased__1016001.json.gz", [], "H100-SXM", 0.9),
    ("h100_timesformer", TL + "h100__facebook_timesformer-base-finetuned-k400__1016002.json.gz", [], "H100-SXM", 0.9),
    # The MI300 HF traces do not describe their device: named as the file says.
    ("mi300_bert", TL + "mi300__gaunernst_bert-small-uncased__1016001.json.gz", ["--device", "MI300X"], "MI300X", 0.9),
    ("vllm_capture", TL + "inference__vllm_decode_full__capture_traces__graph_capture_rank_0.1773709742341309550.pt.trace.json.gz",
     [], "MI300X", 0.5),
]
GEMMS = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::linear"}


def shape_text(dims):
    return ", ".join("x".join(str(v) for v in d) for d in dims if isinstance(d, list) and d
                     and all(isinstance(v, int) for v in d))


def gemm_flops(name, dims):
    if name == "aten::linear":
        x, w = dims[0], dims[1]
        m = 1
        for v in x[:-1]:
            m *= v
        return 2 * m * w[0] * x[-1]
    a, b = (dims[1], dims[2]) if name in ("aten::addmm", "aten::baddbmm") else (dims[0], dims[1])
    batch = a[0] if len(a) == 3 else 1
    return 2 * batch * a[-2] * b[-1] * a[-1]


def independent_gemms(path):
    """{(op, shape): [calls, flops]} for the matmul ops that launched kernels."""
    with gzip.open(path) as f:
        events = json.load(f)["traceEvents"]
    kernel_corr = {e["args"]["correlation"] for e in events
                   if e.get("cat") == "kernel" and "correlation" in e.get("args", {})}
    ops = {}
    for e in events:
        if e.get("cat") == "cpu_op" and e.get("ph") == "X":
            ops.setdefault(e["tid"], []).append(e)
    for v in ops.values():
        v.sort(key=lambda e: e["ts"])
    starts = {tid: [e["ts"] for e in v] for tid, v in ops.items()}
    found = {}
    for e in events:
        if e.get("cat") not in ("cuda_runtime", "cuda_driver") or e.get("args", {}).get("correlation") not in kernel_corr:
            continue
        v = ops.get(e["tid"], [])
        i = bisect_right(starts.get(e["tid"], []), e["ts"])
        inner = None
        for op in reversed(v[max(0, i - 400):i]):  # the latest-starting op that contains the call
            if op["ts"] <= e["ts"] and e["ts"] + e["dur"] <= op["ts"] + op["dur"]:
                inner = op
                break
        if inner is None or inner["name"] not in GEMMS or "Input Dims" not in inner.get("args", {}):
            continue
        found[id(inner)] = inner
    out = {}
    for op in found.values():
        dims = op["args"]["Input Dims"]
        key = (op["name"], shape_text(dims))
        c = out.setdefault(key, [0, 0])
        c[0] += 1
        c[1] += gemm_flops(op["name"], dims)
    return out


def roofline_cases(a, check, run, samples, same_as_expected):
    for name, rel, extra, device, share in CASES:
        path = os.path.join(samples, rel)
        r = run(a.gpuscope, "roofline", "--format", "json", *extra, path)
        check(r.returncode == 0, f"roofline {name}: exit {r.returncode}: {r.stderr.strip()}")
        if r.returncode != 0:
            continue
        d = json.loads(r.stdout)
        check(d["device"].get("key") == device, f"roofline {name}: device {d['device']}")
        check(d["modelled_ns"] >= share * d["kernel_ns"], f"roofline {name}: modelled {d['modelled_ns']} of {d['kernel_ns']} ns")
        mine = {(o["op"], o["shape"]): [o["calls"], o["flops"]] for o in d["ops"] if o["op"] in GEMMS}
        theirs = independent_gemms(path)
        check(set(mine) == set(theirs), f"roofline {name}: matmul signatures {sorted(set(mine) ^ set(theirs))[:4]}")
        for key, (calls, flops) in theirs.items():
            got = mine.get(key)
            check(got is not None and got[0] == calls and abs(got[1] - flops) <= 1e-9 * flops,
                  f"roofline {name}: {key}: gpuscope {got}, 2*M*N*K from Input Dims {[calls, flops]}")
        for o in d["ops"]:
            p = o["percent_of_bound"]
            big = o["bound"] == "memory" and o["bytes"] / max(1, o["calls"]) > 256e6
            if p is not None and (o["op"] in GEMMS or big):
                check(p < 100, f"roofline {name}: {o['op']} {o['shape']} at {p:.1f}% of its bound")
        # Every unmodelled op is listed with its reason; the listed time adds up.
        check(all(u["why"] for u in d["unmodelled"]), f"roofline {name}: an unmodelled op without a reason")
        listed = sum(o["gpu_ns"] for o in d["ops"]) + sum(u["gpu_ns"] for u in d["unmodelled"])
        check(listed == d["kernel_ns"], f"roofline {name}: {listed} ns listed of {d['kernel_ns']}")
        got = {"device": d["device"], "kernel_ns": d["kernel_ns"], "modelled_ns": d["modelled_ns"],
               "ops": [{k: o[k] for k in ("op", "shape", "dtype", "calls", "flops", "bytes", "gpu_ns", "bound")}
                       | {"percent_of_bound": None if o["percent_of_bound"] is None else round(o["percent_of_bound"], 3)}
                       for o in d["ops"]],
               "unmodelled": d["unmodelled"]}
        check(same_as_expected(f"roofline_{name}", got, a.update), f"roofline {name}: differs from expected (--update after review)")
        print(f"ok   roofline {name}: {d['device'].get('key')}, {len(d['ops'])} signatures, "
              f"{sum(c for c, _ in theirs.values())} matmul calls cross-checked, "
              f"modelled {100 * d['modelled_ns'] / max(1, d['kernel_ns']):.0f}%")
