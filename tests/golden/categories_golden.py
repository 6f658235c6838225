#!/usr/bin/env python3
"""Kernel categories and the small-grid rule over the real samples in ../shared/samples.

- Every sample with more than 100 kernels: `other` holds under 10% of the kernel time
  (`stats --by category`, less the memory operations, which count as copy).
- The serving samples (vLLM, SGLang, xDiT): gemm and attention are named.
- A hand-checked breakdown of a few samples of both vendors (EXPECTED: percentages of GPU op
  time, checked by hand against the kernel names), recomputed here from the raw files by an
  independent classifier (Python's json / sqlite3, its own patterns; no gpuscope): each
  category within 0.5 points of gpuscope's.
- small-grid: on every sample with the device's SM/CU count, each kernel it names has fewer
  blocks than the device has units in the raw file (Kineto: read here); and on a fixture made
  from a real trace (a hot kernel's grid cut to 8 blocks) it fires on that kernel, priced at
  no more than its time x the idle share of SMs.

Exit 77 (skipped) when ../shared/samples is absent.
"""
import argparse
import gzip
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SAMPLES = os.path.normpath(os.path.join(ROOT, "..", "shared", "samples"))
CATEGORIES = ["gemm", "attention", "conv", "norm", "fused", "elementwise", "reduction", "copy",
              "communication", "other"]
TL = "kineto/tracelens/tests__traces__"
SERVING = re.compile(r"vllm|sglang|xdit", re.I)

# Hand-checked breakdowns (% of GPU op time, memory operations in copy), one decimal.
EXPECTED = {
    # Kernel shares (Python over the raw file) x kernel time / GPU op time: cutlass + sm90_xmma
    # GEMMs, flash_fwd, vectorized_layer_norm, add/GELU/compare, indexSelect and the copies.
    TL + "h100__gaunernst_bert-small-uncased__1016001.json.gz":
        {"gemm": 63.9, "attention": 12.1, "norm": 10.0, "elementwise": 9.0, "reduction": 1.2,
         "copy": 3.9},
    # Tensile Cijk_ GEMMs, paged_attention_ll4mi (QKV + reduce), aiter add_rmsnorm_quant,
    # act_and_mul + rotary_embedding, direct_copy + store_kvcache + copies.
    TL + "inference__sglang_decode__sglang_Qwen3-8B_decode.json.gz":
        {"gemm": 59.1, "attention": 21.8, "norm": 7.0, "elementwise": 5.4, "copy": 5.9},
    # ncclDevKernel_Generic, batch_norm_* kernels, batched_transpose + SubTensorOpWithCast,
    # MIOpen igemm_* and CK grouped_conv, CK batched_gemm.
    TL + "mi300__resnet_act_checkpoint.json.gz":
        {"gemm": 1.6, "conv": 4.6, "norm": 8.6, "elementwise": 3.6, "copy": 9.9,
         "communication": 71.4},
    # 1.88 s of memcpy against 44.8 ms of kernels (86% of them sm80_xmma cuBLAS GEMMs).
    "collection2/nsys/nsys-ai__tests__fixtures__h100_2gpu_1s.sqlite":
        {"gemm": 2.0, "copy": 97.8},
}


def independent_category(name):
    """The category of a kernel name, decided here from its families (no gpuscope code)."""
    n = name.lower()
    rules = [
        ("communication", r"nccl|rccl|cross_device_reduce|all_?reduce|internode::|dpsk::ep"),
        ("attention", r"flash|fmha|attn|attention|sage_fwd|paged_att"),
        ("norm", r"batch_?norm"),
        ("copy", r"convert"),
        ("conv", r"conv|igemm_(fwd|bwd|wrw)|fprop|dgrad|wgrad|im2col|winograd"),
        ("gemm", r"gemm|gemv|cublas|cutlass|nvjet|xmma|^cijk_|matmul|splitkreduce|fused_moe"),
        ("norm", r"layer_?norm|rms_?norm|group_?norm|instance_?norm|welford"),
        ("fused", r"^triton|fused|nvfuser"),
        ("reduction", r"reduce|softmax|top_?k|sort|scan|argm|cumsum|pool|_sum|nll_loss|cub::"),
        ("elementwise", r"masked_fill|rotary"),
        ("copy", r"copy|memcpy|memset|fill|transpose|permute|gather|scatter|index_?select|"
                 r"index_put|cast|pad_|kvcache|reshape_and_cache|embedding|catarray"),
        ("elementwise", r"elementwise|vectorized_|unrolled_|activation|act_and_mul|silu|gelu|relu|"
                        r"tanh|sigmoid|rotary|quant|multi_tensor|tensorop|arange|swiglu|dropout"),
    ]
    for cat, pattern in rules:
        if re.search(pattern, n):
            return cat
    return "other"


def demangle(names):
    """Itanium names demangled by c++filt (binutils, not gpuscope); others as they are."""
    mangled = [n for n in names if n.startswith("_Z")]
    if not mangled:
        return {}
    out = subprocess.run(["c++filt"], input="\n".join(mangled), capture_output=True,
                         text=True).stdout.split("\n")
    return dict(zip(mangled, out))


def independent_breakdown(path):
    """{category: ns} of the raw file: Kineto JSON or an nsys SQLite export."""
    rows = []  # (name or None for a memory operation, ns)
    if path.endswith(".sqlite"):
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        rows += db.execute("SELECT s.value, k.end - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                           "JOIN StringIds s ON s.id = k.demangledName").fetchall()
        for table in ("CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
            if db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
                rows += [(None, d) for (d,) in db.execute(f"SELECT end - start FROM {table}")]
    else:
        with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
            events = json.load(f)["traceEvents"]
        for e in events:
            cat = str(e.get("cat", "")).lower()
            if e.get("ph") == "X" and cat in ("kernel", "gpu_memcpy", "gpu_memset"):
                rows.append((e["name"] if cat == "kernel" else None, round(float(e["dur"]) * 1000)))
    names = demangle({n for n, _ in rows if n})
    out = {}
    for name, ns in rows:
        cat = "copy" if name is None else independent_category(names.get(name, name))
        out[cat] = out.get(cat, 0) + ns
    return out


def sample_files():
    for top in ("kineto", "nsys", "rocm", "collection2"):
        for root, _, files in os.walk(os.path.join(SAMPLES, top)):
            for fname in sorted(files):
                path = os.path.join(root, fname)
                if os.path.getsize(path) <= 200 << 20:
                    yield path


def gpuscope_json(binary, *args):
    r = subprocess.run([binary, "--merge", *args, "--format", "json"], capture_output=True, text=True)
    return json.loads(r.stdout) if r.returncode == 0 and r.stdout.startswith("{") else None


def raw_kineto_grids(path):
    """{kernel name: [(grid, block, blocks, units)]} from a Kineto file: the grid in blocks
    (hipExtModule / hipHccModule launches give work-items: divided by the block) and the
    device's SMs / CUs."""
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        d = json.load(f)
    units = {p.get("id", i): p.get("numSms") or p.get("computeUnits") or 0
             for i, p in enumerate(d.get("deviceProperties") or [])}
    launch = {}
    for e in d["traceEvents"]:
        if str(e.get("cat", "")).lower() in ("cuda_runtime", "cuda_driver", "hip_runtime"):
            launch[e.get("args", {}).get("correlation")] = e["name"]
    out = {}
    for e in d["traceEvents"]:
        if str(e.get("cat", "")).lower() != "kernel" or e.get("ph") != "X":
            continue
        a = e.get("args", {})
        grid, block = a.get("grid"), a.get("block")
        if not grid or not block:
            continue
        items = re.search(r"hip(Ext|Hcc)ModuleLaunchKernel", launch.get(a.get("correlation"), ""))
        blocks = 1
        for g, b in zip(grid, block):
            blocks *= -(-int(g) // int(b)) if items and int(b) else int(g)
        dims = ("x".join(str(int(v)) for v in grid), "x".join(str(int(v)) for v in block))
        out.setdefault(e["name"], []).append((*dims, blocks, units.get(a.get("device"), 0)))
    return out


def small_grid_fixture(binary, check, tmp):
    """A real GPU-bound trace (DeepSeek-V3 training on an H800 of 132 SMs) with its hottest GEMM's
    grid cut to 8 blocks."""
    src = os.path.join(SAMPLES, "collection2/kineto/deepseek-profile-data__train.json")
    with open(src) as f:
        d = json.load(f)
    time = {}
    for e in d["traceEvents"]:
        if e.get("cat") == "kernel" and e["args"].get("grid") and "GemmKernel" in e["name"]:
            time[e["name"]] = time.get(e["name"], 0) + e["dur"]
    hot = max(time, key=time.get)
    before = gpuscope_json(binary, "analyze", src)
    check(not [f for f in before["findings"] if f["rule"] == "small-grid" and f["where"]["kernel"]
               and "grid 8x1x1" in f["detail"]], "small-grid: nothing cut to 8 blocks before the edit")
    for e in d["traceEvents"]:
        if e.get("cat") == "kernel" and e["name"] == hot:
            e["args"]["grid"] = [8, 1, 1]
    path = os.path.join(tmp, "deepseek_small_grid.json")
    with open(path, "w") as f:
        json.dump(d, f)
    got = gpuscope_json(binary, "analyze", path)
    found = [f for f in got["findings"] if f["rule"] == "small-grid" and "grid 8x1x1" in f["detail"]]
    check(len(found) == 1, f"small-grid fires on the kernel cut to 8 blocks ({len(found)} findings)")
    if found:
        f = found[0]
        cap = time[hot] * 1000 * (132 - 8) / 132
        check("132 SMs: 124 SMs idle" in f["detail"], f"small-grid names the SMs: {f['detail']}")
        check(0 < f["standalone_ns"] <= cap + 1000,
              f"small-grid priced at {f['standalone_ns']} ns, at most the idle share {cap:.0f} ns")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuscope", required=True)
    a = ap.parse_args()
    if not os.path.isdir(SAMPLES):
        print(f"SKIP: {SAMPLES} not found; the category tests need the shared samples")
        return 77
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    judged = 0
    for path in sample_files():
        rel = os.path.relpath(path, SAMPLES)
        cats = gpuscope_json(a.gpuscope, "stats", "--by", "category", path)
        if not cats:
            continue  # not a trace (golden_stats says what each such file is)
        by = {c["category"]: c for c in cats["categories"]}
        memops = gpuscope_json(a.gpuscope, "stats", "--by", "memops", path)["memops"]
        kernels = sum(c["calls"] for c in cats["categories"]) - sum(m["calls"] for m in memops)
        kernel_ns = sum(c["total_ns"] for c in cats["categories"]) - sum(m["total_ns"] for m in memops)
        # Graph-capture traces run a few set-up kernels (the captured launches do not run).
        if SERVING.search(rel) and kernels > 100:
            check(by["gemm"]["calls"] > 0 and by["attention"]["calls"] > 0,
                  f"{rel}: serving sample names gemm and attention")
        if kernels > 100 and kernel_ns > 0:
            judged += 1
            share = 100 * by["other"]["total_ns"] / kernel_ns
            check(share < 10, f"{rel}: other {share:.1f}% of kernel time ({kernels} kernels)")
        if rel in EXPECTED:
            got = {c: round(by[c]["percent"], 1) for c in CATEGORIES if by[c]["percent"] >= 0.95}
            check(got == EXPECTED[rel], f"{rel}: breakdown {got} is the hand-checked one")
            mine = independent_breakdown(path)
            total = sum(mine.values())
            for c in CATEGORIES:
                theirs, ours = by[c]["percent"], 100 * mine.get(c, 0) / total
                if abs(theirs - ours) >= 0.5:
                    check(False, f"{rel}: {c} {theirs:.2f}% vs {ours:.2f}% independently")
        if kernels > 100 and rel.endswith((".json", ".json.gz")) and "kineto" in rel:
            report = gpuscope_json(a.gpuscope, "analyze", path)
            grids = None
            for f in (report or {}).get("findings", []):
                if f["rule"] != "small-grid":
                    continue
                grids = grids or raw_kineto_grids(path)
                name = f["where"]["kernel"]
                grid, block = re.search(r"grid (\S+) \(\d+ blocks?\) of (\S+) threads",
                                        f["detail"]).groups()
                raw = [(b, units) for n, gs in grids.items() if demangle([n]).get(n, n) == name
                       for g, bl, b, units in gs if (g, bl) == (grid, block)]
                check(raw and all(units and b < units for b, units in raw),
                      f"{rel}: small-grid on {name[:50]} (grid {grid}): fewer blocks than units "
                      f"in the raw file ({len(raw)} instances)")
    check(judged >= 20, f"{judged} samples with more than 100 kernels judged")
    with tempfile.TemporaryDirectory() as tmp:
        small_grid_fixture(a.gpuscope, check, tmp)
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
