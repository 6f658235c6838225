#!/usr/bin/env python3
"""Plants in real traces (issue 29): problems of an exact, known cost planted into real samples
from ../shared/samples by editing their times consistently (plant.py), each read as Kineto JSON
and as .rpd, Nsight Systems export and rocpd (written by gpuscope convert); `gpuscope analyze` must name the right rule and place
and price the fix within 20% of the planted cost, on at least 90% of the plants of each rule.
Samples that offer no place where a plant's cost would be exact are skipped for that plant, and
said so. Prints one line per plant and a table per rule.

  run_plants.py --gpuscope BIN     exit 0 / 1; 77 (skipped) without ../shared/samples
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import zlib
from concurrent.futures import ProcessPoolExecutor

import plant

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "samples"))

# GPU-bound, CPU-bound and mixed runs of both vendors (GPU busy % of the steady window as
# analyze measures it, and the GPU, in the comment).
TRACES = [
    "kineto/tracelens/tests__traces__mi300__resnet_act_checkpoint.json.gz",  # 97%, MI300X
    "kineto/tracelens/tests__traces__inference__xdit_flux.1__split_traces__profile_trace_rank_0_"
    "annotation_iteration_0_execute_diffusion_1_256x256.json.gz",  # 99.5%, MI300X
    "kineto/tracelens/tests__traces__inference__xdit_flux.1_aiter_sage__profile_trace_rank_0.json.gz",  # 81%
    "kineto/tracelens/tests__traces__h100__facebook_timesformer-base-finetuned-k400__1016002.json.gz",  # 41%, H100
    "kineto/tracelens/tests__traces__mi300__facebook_timesformer-base-finetuned-k400__1016002.json.gz",  # 31%
    "kineto/tracelens/tests__traces__h100__Falconsai_nsfw_image_detection__1016002.json.gz",  # 16%, H100
    "kineto/tracelens/tests__traces__mi300__Falconsai_nsfw_image_detection__1016002.json.gz",  # 23%
    "kineto/tracelens/tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz",  # 7%, H100
    "kineto/tracelens/tests__traces__mi300__gaunernst_bert-small-uncased__1016001.json.gz",  # 10%
    "kineto/tracelens/tests__traces__b200__eager_trace.json.gz",  # 13%, B200
    "kineto/tracelens/tests__traces__inference__vllm_decode_full__graph_execution.json.gz",  # 56%, graphs
    "kineto/kineto/plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz",  # 50%
    "kineto/kineto/tb_plugin__samples__resnet50_num_workers_4__worker0.1623212756351.pt.trace.json.gz",  # 73%
    "kineto/hta/tests__data__trace_filter__sampled_rank-0.json.gz",  # 45%
]

# Traces with PyTorch's GPU [memory] events and at least 3 steady steps: where memory_growth plants.
MEMORY_TRACES = [
    "kineto/hta/tests__data__df_index_resolver__df_index_resolver.json.gz",
    "kineto/kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz",
    "kineto/kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz",
    "kineto/kineto/tb_plugin__samples__resnet50_num_workers_4__worker0.1623212756351.pt.trace.json.gz",
    "kineto/kineto/tb_plugin__samples__resnet50_num_workers_4__worker0.1623213129365.pt.trace.json.gz",
]


# Each plant is read as the Kineto JSON it was planted into and as each format `convert` writes:
# .rpd, an Nsight Systems export and a rocpd database (where no sample of the format holds the
# problem, the converted trace is the truth that this format's reading does not lose it).
FORMATS = [("json", ""), ("rpd", ".rpd"), ("nsys", ".sqlite"), ("rocpd", ".db")]
# Plants whose evidence a format has no record for (convert says what it leaves out).
NOT_IN_FORMAT = {
    fmt: {"python_loop": "no Python frames in this format",
          "memory_growth": "no allocator memory events in this format"}
    for fmt in ("nsys", "rocpd")}
NO_PYTHON = ("nsys", "rocpd")
# Plants found and placed in a format but priced by a rule's coarser fallback there.
UNPRICED_IN_FORMAT = {
    fmt: {"fusion": "emit_nvtx records input sizes, not dtypes: no bytes, the fused kernel is "
                    "priced as the chain's longest member"}
    for fmt in ("nsys", "rocpd")}


def steps_from_python(src):
    """Whether analyze marks the sample's steps by a repeated Python frame (which nsys and rocpd
    do not record: there the plant's steady window is not the same)."""
    j = unplanted(src)
    return bool(j) and j["summary"]["iteration_source"].startswith("repeated Python frame")


# What each worker process knows of every sample before planting: (analyze's JSON of the
# unplanted trace, its GPU span in us), read once per sample in the parent's first pool instead of
# once per plant and process (the span alone reloaded each trace 12 times: ~50 s of CPU).
SAMPLE_FACTS = {}


def sample_facts(gpuscope, src):
    return src, unplanted_analysis(gpuscope, src), plant.gpu_span_us(src)


def know_samples(facts):
    SAMPLE_FACTS.update({src: (j, span) for src, j, span in facts})


def planted_cost_us(src):
    """A problem worth finding: 10% of the run's GPU span, at least 1 ms, in whole us."""
    return max(1000, round(0.1 * SAMPLE_FACTS[src][1]))


def expected(kind, made):
    """The rule and place a plant must be found at: the slow kernel by name; the stall by name,
    or by a gap of the finding's evidence that holds it (a stall inside a compiled region is
    named after the region: gpu-idle's rule)."""
    if kind == "slow_kernel":
        return "kernel-outlier", lambda f: f["where"]["kernel"] == made
    if kind == "device_copy":
        return "device-copy", lambda f: f["where"]["op"] == made
    if kind == "fusion":
        return "fusion", lambda f: f["where"]["op"] == made[0]
    if kind == "memory_growth":  # where the blocks are allocated, growing about G per step
        def grows(f):
            m = re.search(r"grows ([\d.]+) (B|kB|MB|GB) per steady step", f["detail"])
            unit = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}
            return (m is not None and f["where"]["op"] == made[0]
                    and abs(float(m.group(1)) * unit[m.group(2)] - made[1]) <= 0.2 * made[1])
        return "memory-growth", grows
    if kind == "kernel_storm":  # the storm's op launches the costliest share, or its kernel leads
        return "launch-bound", lambda f: f["where"]["op"] == made[0] or f["where"]["kernel"] == made[1]
    if kind == "item_sync":
        return "host-sync", lambda f: f["where"]["op"] == made[0]
    if kind == "blocking_copy":  # one finding for the window's copies: named there, or listed
        return "memcpy-sync", lambda f: f["where"]["op"] == made[0] or any(
            abs(e["start_ns"] - made[1] * 1000) <= 1000 for e in f.get("evidence", []))
    if kind == "python_loop":  # the loop's frame
        return "cpu-op-storm", lambda f: f["where"]["python"] == made[0]
    if kind == "bare_loop":  # no frame to name: the loop's ops, or the user range they are in
        return "cpu-op-storm", lambda f: any(
            e["start_ns"] < b * 1000 and a * 1000 < e["start_ns"] + e["dur_ns"]
            for e in f.get("evidence", []) for a, b in made[2])
    if kind == "data_loading":  # the loader's range, by its name
        return "data-loading", lambda f: f["where"]["op"] == made[0] or any(
            abs(e["start_ns"] - made[1] * 1000) <= 1000 for e in f.get("evidence", []))
    if kind == "one_time_pause":  # the planted call among warm-up's parts
        return "warm-up", lambda f: any(abs(e["start_ns"] - made[1] * 1000) <= 1000
                                        for e in f.get("evidence", []))
    if kind == "allocator":  # the planted call among the finding's evidence
        return "allocator", lambda f: any(abs(e["start_ns"] - made[1] * 1000) <= 1000
                                          for e in f.get("evidence", []))

    def at_stall(f):
        t = made[1] * 1000
        return f["where"]["op"] == made[0] or any(e["start_ns"] <= t <= e["start_ns"] + e["dur_ns"]
                                                 for e in f.get("evidence", []))
    return "gpu-idle", at_stall


def unplanted(src):
    """analyze's JSON of the unplanted trace, as read before the plants (SAMPLE_FACTS)."""
    return SAMPLE_FACTS[src][0]


def unplanted_analysis(gpuscope, src):
    """analyze's JSON of the unplanted trace, every finding listed (None when it cannot be
    analysed)."""
    # Every finding, however small: a plant's share is measured against what was there.
    r = subprocess.run([gpuscope, "analyze", "--format", "json", "--min-impact-percent", "0", src],
                       capture_output=True, text=True)
    return json.loads(r.stdout) if r.returncode == 0 else None


def steady_window_us(src):
    """The steady window analyze finds in the unplanted trace, (start, end) in us: the plants go
    inside it (a problem outside is not the steady state's)."""
    j = unplanted(src)
    steps = [x for x in j["summary"]["iteration_list"] if not x["warmup"]] if j else []
    if not steps:
        return None
    return steps[0]["start_ns"] / 1000, (steps[-1]["start_ns"] + steps[-1]["dur_ns"]) / 1000


def same_steady_part(src, got):
    """A one-time pause leaves the steady part as it was: its verdict, and the GPU's busy share
    within 2 points."""
    before = unplanted(src)["summary"]
    after = got["summary"]
    busy = (before["gpu_busy_pct"] or 0, after["gpu_busy_pct"] or 0)
    return before["verdict_kind"] == after["verdict_kind"] and abs(busy[0] - busy[1]) <= 2


def one(gpuscope, rel, kind, tmp):
    src = os.path.join(SAMPLES, rel)
    tag = f"{kind}_{zlib.crc32(rel.encode()):08x}"  # the same in every worker process
    planted = os.path.join(tmp, tag + ".json")
    d_us = planted_cost_us(src)
    # memory_growth plants bytes, not time: 64 MiB per step.
    made = getattr(plant, kind)(src, planted, 64 << 20 if kind == "memory_growth" else d_us,
                                steady_window_us(src))
    if made is None:
        return [(kind, rel, None, "skip", "no place where this plant's cost is exact")]
    rule, place = expected(kind, made)
    # What the fix saves: the planted cost, or for a fusion what the fused kernel does not take.
    cost_us = (made[1] if kind in ("fusion", "python_loop", "bare_loop") else
               made[2] if kind in ("kernel_storm", "item_sync", "blocking_copy", "one_time_pause")
               else d_us)
    # A storm, a blocking copy or a loader fetch adds to the sample's own tiny kernels, blocking
    # copies or loader ranges, which one finding prices together, a host stall to the sample's
    # own GPU idle (one gpu-idle finding prices every cause), an .item() to the sample's own
    # .item()s at that place: the plant's share is what the saving grew by.
    before_ns = 0
    if kind in ("kernel_storm", "item_sync", "blocking_copy", "data_loading", "one_time_pause",
                "host_stall"):
        before_ns = sum(f["standalone_ns"] for f in unplanted(src)["findings"]
                        if f["rule"] == rule and (kind != "item_sync" or place(f)))
    out = []
    for fmt, ext in FORMATS:
        path = planted
        if kind in NOT_IN_FORMAT.get(fmt, ()):
            out.append((kind, rel, fmt, "skip", NOT_IN_FORMAT[fmt][kind]))
            continue
        if fmt in NO_PYTHON and steps_from_python(src):
            out.append((kind, rel, fmt, "skip", "its steps are a Python frame's, not in this format"))
            continue
        if fmt != "json":
            path = os.path.join(tmp, tag + ext)
            r = subprocess.run([gpuscope, "convert", planted, "-o", path], capture_output=True, text=True)
            if r.returncode != 0:
                out.append((kind, rel, fmt, "fail", "convert: " + r.stderr.strip()[:200]))
                continue
        # A blocking copy among larger ones is one of the finding's instances, not its first five.
        more = ["--evidence", "100000"] if kind in ("blocking_copy", "one_time_pause") else []
        r = subprocess.run([gpuscope, "analyze", "--format", "json", *more, path], capture_output=True,
                           text=True)
        if r.returncode != 0:
            out.append((kind, rel, fmt, "fail", "analyze: " + r.stderr.strip()[:200]))
            continue
        got = json.loads(r.stdout)
        found = [f for f in got["findings"] if f["rule"] == rule and place(f)]
        if kind == "one_time_pause" and not same_steady_part(src, got):
            out.append((kind, rel, fmt, "fail", "the steady part's verdict moved: "
                        + got["summary"]["verdict"][:100]))
            continue
        if not found:
            out.append((kind, rel, fmt, "fail", f"no {rule} finding at the planted place"))
            continue
        if kind == "memory_growth":  # not priced: found at the place with the growth is the test
            out.append((kind, rel, fmt, "ok", found[0]["detail"][:90]))
            continue
        # Loops in several user ranges are one finding per range: together they are the plant.
        priced = (sum(f["standalone_ns"] for f in found) if kind == "bare_loop"
                  else found[0]["standalone_ns"]) - before_ns
        if kind in UNPRICED_IN_FORMAT.get(fmt, ()):  # found and placed; the price is not judged
            out.append((kind, rel, fmt, "found", f"{rule} priced {priced / 1e6:.3f} ms for "
                        f"{cost_us / 1000:g} ms planted ({UNPRICED_IN_FORMAT[fmt][kind]})"))
            continue
        ok = abs(priced - cost_us * 1000) <= 0.2 * cost_us * 1000
        out.append((kind, rel, fmt, "ok" if ok else "fail",
                    f"{rule} priced {priced / 1e6:.3f} ms for {cost_us / 1000:g} ms planted"))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuscope", required=True)
    a = ap.parse_args()
    if not os.path.isdir(SAMPLES):
        print(f"SKIP: {SAMPLES} not found; plants in real traces need the shared samples")
        return 77
    results = []
    # Processes, not threads: planting is Python work (JSON in and out) that one interpreter's
    # lock made a queue of (308 s against 124 s on 2 cores).
    with ProcessPoolExecutor(4) as ex:
        srcs = [os.path.join(SAMPLES, rel) for rel in dict.fromkeys(TRACES + MEMORY_TRACES)]
        facts = list(ex.map(sample_facts, [a.gpuscope] * len(srcs), srcs))
    pool = ProcessPoolExecutor(4, initializer=know_samples, initargs=(facts,))
    with tempfile.TemporaryDirectory() as tmp, pool as ex:
        jobs = [ex.submit(one, a.gpuscope, rel, kind, tmp) for rel in TRACES
                for kind in ("slow_kernel", "host_stall", "device_copy", "fusion", "allocator",
                             "kernel_storm", "item_sync", "blocking_copy", "data_loading",
                             "python_loop", "bare_loop", "one_time_pause")]
        jobs += [ex.submit(one, a.gpuscope, rel, "memory_growth", tmp) for rel in MEMORY_TRACES]
        for j in jobs:
            results += j.result()
    per_rule = collections.defaultdict(lambda: [0, 0, 0])  # plants, ok, skipped samples
    per_format = collections.defaultdict(lambda: [0, 0])  # (kind, format) -> plants, ok
    for kind, rel, fmt, status, what in results:
        name = os.path.basename(rel)[:50]
        print(f"{status:5s} {kind:13s} {fmt or '-':5s} {name:50s} {what}")
        row = per_rule[kind]
        if status == "found":
            continue  # listed above, priced by a fallback: not counted
        if status == "skip":
            row[2] += fmt is None  # a sample without a place; a format's skip is said above
        else:
            row[0] += 1
            row[1] += status == "ok"
            per_format[kind, fmt][0] += 1
            per_format[kind, fmt][1] += status == "ok"
    bad = False
    fmts = [f for f, _ in FORMATS]
    print(f"\n{'plant':14s} {'rule':15s} {'plants':>6s} {'ok':>4s} {'skipped':>8s}  "
          + " ".join(f"{f:>7s}" for f in fmts))
    for kind, (n, ok, skipped) in sorted(per_rule.items()):
        rule = expected(kind, ("",))[0]
        cells = " ".join(f"{'%d/%d' % tuple(reversed(per_format[kind, f])):>7s}"
                         if per_format[kind, f][0] else f"{'-':>7s}" for f in fmts)
        print(f"{kind:14s} {rule:15s} {n:6d} {ok:4d} {skipped:8d}  {cells}")
        # At least 90% of the plants of each rule, and enough of them to say so.
        bad |= n < 6 or ok < 0.9 * n
    print("FAILED" if bad else "passed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
