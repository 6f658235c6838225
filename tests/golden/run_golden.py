#!/usr/bin/env python3
"""Golden tests over the real samples in ../shared/samples.

For each case in cases.tsv:
  1. runs `gpuscope stats --format json SAMPLE` and compares it with expected/<name>.json
     (reviewed by hand; `--update` rewrites them after a reviewed change);
  2. cross-checks kernel and memory-operation counts and totals against an independent
     computation here, sharing no code with gpuscope: for Kineto JSON, Python's json module
     reads the sample with exact decimals and sums durations per name; for SQLite formats, SQL
     over the file's own tables. Kernel names are demangled with c++filt.
Then every file under samples/kineto/ must either import (exit 0) or be one of the known
non-traces, refused with exit code 2 and one line.

Exit 77 (skipped) when ../shared/samples is absent, as in a user's clone.
"""
import argparse
import decimal
import gzip
import json
import os
import re
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SAMPLES = os.path.normpath(os.path.join(ROOT, "..", "shared", "samples"))

# Files under samples/kineto/ that are not Kineto traces, and what gpuscope must say of them.
NOT_TRACES = {
    "tests__data__execution_trace__benchmark_simple_add_et.json.gz": "execution trace",
    "tests__data__memory_analysis__memory_timeline.raw.gz": "unknown format",
    "agent_evals__Analysis__analysis_tests__unit_tests_comparative.tar.gz": "tar archive",
    "agent_evals__Analysis__analysis_tests__unit_tests_standalone.tar.gz": "tar archive",
    "tests__rocprof__908_results.json.gz": "rocprofv3",
    "tests__traces__tracediff_test__cpu_op_map.json": "unknown format",
    "tests__traces__tracediff_test__cpu_op_map_trace1.json": "unknown format",
    "tests__traces__tracediff_test__cpu_op_map_trace2.json": "unknown format",
}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    return doc if isinstance(doc, list) else doc["traceEvents"]


def ns(us):
    """Exact ns from the decimal text: Decimal keeps every digit."""
    return int((decimal.Decimal(us) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def demangle(names):
    mangled = [n for n in names if n.startswith("_Z")]
    if not mangled:
        return {n: n for n in names}
    out = subprocess.run(["c++filt"], input="\n".join(mangled), capture_output=True, text=True).stdout.split("\n")
    table = dict(zip(mangled, out))
    return {n: table.get(n, n) for n in names}


def merge_demangled(kernels):
    names = demangle(list(kernels))
    merged = {}
    for raw, (calls, total) in kernels.items():
        m = merged.setdefault(names[raw], [0, 0])
        m[0] += calls
        m[1] += total
    return merged


def nsys_totals(path):
    """Kernels, memops and API calls by SQL over the nsys export's own tables."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    kernels, memops, api = {}, {}, {}
    if "CUPTI_ACTIVITY_KIND_KERNEL" in tables:
        q = ("SELECT s.value, COUNT(*), SUM(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
             "JOIN StringIds s ON s.id = coalesce(k.mangledName, k.demangledName) GROUP BY s.value")
        kernels = {n: [c, t] for n, c, t in db.execute(q)}
    short = {"Host-to-Device": "HtoD", "Device-to-Host": "DtoH", "Device-to-Device": "DtoD",
             "Host-to-Host": "HtoH", "Peer-to-Peer": "PtoP"}
    if "CUPTI_ACTIVITY_KIND_MEMCPY" in tables:
        q = ("SELECT e.label, COUNT(*), SUM(m.end - m.start), SUM(m.bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY m "
             "JOIN ENUM_CUDA_MEMCPY_OPER e ON e.id = m.copyKind GROUP BY e.label")
        for label, c, t, b in db.execute(q):
            memops[short[label]] = [c, t, b]
    if "CUPTI_ACTIVITY_KIND_MEMSET" in tables:
        c, t, b = db.execute("SELECT COUNT(*), SUM(end - start), SUM(bytes) FROM CUPTI_ACTIVITY_KIND_MEMSET").fetchone()
        memops["Memset"] = [c, t, b]
    if "CUPTI_ACTIVITY_KIND_RUNTIME" in tables:
        # Version suffixes (_v7000, _v12000) stripped as nsys's cuda_api_sum does for 4 digits.
        q = ("SELECT s.value, COUNT(*), SUM(r.end - r.start) FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
             "JOIN StringIds s ON s.id = r.nameId GROUP BY s.value")
        for n, c, t in db.execute(q):
            a = api.setdefault(re.sub(r"_v[0-9]+$", "", n), [0, 0])
            a[0] += c
            a[1] += t
    return merge_demangled(kernels), memops, api


RPD_OVERHEAD = ("hcc_activity_callback", "OpTable::writeRows", "ApiTable::writeRows", "KernelApiTable::writeRows",
                "CopyApiTable::writeRows", "MonitorTable::writeRows", "rpdflush", "UserMarker")


def rpd_totals(path):
    """Kernels, copies and API calls by SQL over the .rpd's own views (op, top, copyop, api)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    kernels = {n: [c, t] for n, c, t in db.execute(
        "SELECT description, COUNT(*), SUM(end - start) FROM op WHERE opType IN ('KernelExecution', 'Task') "
        "GROUP BY description")}
    # The tool's own `top` view must agree on the call counts.
    top = {n: c for n, c in db.execute("SELECT Name, TotalCalls FROM top")}
    for n, (c, _) in kernels.items():
        assert top.get(n) == c, f"top view disagrees on {n}: {top.get(n)} vs {c}"
    memops = {}
    direction = {"CopyHostToDevice": "HtoD", "CopyDeviceToHost": "DtoH", "CopyDeviceToDevice": "DtoD",
                 "FillBuffer": "Memset"}
    for op_type, c, t in db.execute("SELECT opType, COUNT(*), SUM(end - start) FROM op GROUP BY opType"):
        if op_type in direction:
            memops[direction[op_type]] = [c, t]
    for op_type, b in db.execute(
            "SELECT o.opType, SUM(CASE WHEN typeof(c.size) = 'integer' THEN c.size ELSE 0 END) FROM copyop c "
            "JOIN op o ON o.id = c.id GROUP BY o.opType"):
        if op_type in direction:
            memops[direction[op_type]].append(b)
    api = {n: [c, t] for n, c, t in db.execute(
        f"SELECT apiName, COUNT(*), SUM(end - start) FROM api WHERE apiName NOT IN {RPD_OVERHEAD} GROUP BY apiName")}
    return merge_demangled(kernels), memops, api


def rocpd_totals(path):
    """Kernels, copies and API calls by SQL over the rocpd database's own views."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    kernels = {n: [c, t] for n, c, t in db.execute(
        "SELECT name, COUNT(*), SUM(duration) FROM kernels GROUP BY name")}
    top = {n: c for n, c in db.execute("SELECT name, total_calls FROM top_kernels")}
    for n, (c, _) in kernels.items():
        assert top.get(n) == c, f"top_kernels disagrees on {n}: {top.get(n)} vs {c}"
    memops = {}
    short = {"MEMORY_COPY_HOST_TO_DEVICE": "HtoD", "MEMORY_COPY_DEVICE_TO_HOST": "DtoH",
             "MEMORY_COPY_DEVICE_TO_DEVICE": "DtoD", "MEMORY_COPY_HOST_TO_HOST": "HtoH"}
    for n, c, t, b in db.execute("SELECT name, COUNT(*), SUM(duration), SUM(size) FROM memory_copies GROUP BY name"):
        memops[short[n]] = [c, t, b]
    api = {n: [c, t] for n, c, t in db.execute(
        "SELECT name, COUNT(*), SUM(duration) FROM regions WHERE category NOT LIKE 'MARKER%' GROUP BY name")}
    return merge_demangled(kernels), memops, api


def kineto_totals(path):
    kernels, memops = {}, {}
    for e in load(path):
        if e.get("ph") != "X" or "ts" not in e:
            continue
        cat = e.get("cat")
        dur = ns(e.get("dur", 0))
        if cat in ("kernel", "Kernel"):
            c = kernels.setdefault(e["name"], [0, 0])
            c[0] += 1
            c[1] += dur
        elif cat in ("gpu_memcpy", "Memcpy", "gpu_memset", "Memset"):
            kind = "Memset" if "set" in cat.lower() else e["name"].split(" ")[1]
            c = memops.setdefault(kind, [0, 0])
            c[0] += 1
            c[1] += dur
    return merge_demangled(kernels), memops, None


CHECKERS = {"kineto": kineto_totals, "nsys": nsys_totals, "rpd": rpd_totals, "rocpd": rocpd_totals}


def run(gpuscope, *args):
    return subprocess.run([gpuscope, *args], capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuscope", required=True)
    ap.add_argument("--update", action="store_true", help="rewrite expected outputs")
    a = ap.parse_args()
    if not os.path.isdir(SAMPLES):
        print(f"SKIP: {SAMPLES} not found; golden tests over real samples need the shared samples")
        return 77
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL:", what)

    for line in open(os.path.join(HERE, "cases.tsv")):
        if line.startswith("#") or not line.strip():
            continue
        name, checker, rel, _ = line.rstrip("\n").split("\t")
        path = os.path.join(SAMPLES, rel)
        r = run(a.gpuscope, "stats", "--format", "json", path)
        check(r.returncode == 0, f"{name}: exit {r.returncode}: {r.stderr.strip()}")
        if r.returncode != 0:
            continue
        got = json.loads(r.stdout)
        got["source"]["path"] = "samples/" + rel
        expected_path = os.path.join(HERE, "expected", name + ".json")
        if a.update:
            with open(expected_path, "w") as f:
                json.dump(got, f, indent=1, ensure_ascii=False)
                f.write("\n")
        with open(expected_path) as f:
            expected = json.load(f)
        check(got == expected, f"{name}: output differs from {expected_path} (rerun with --update after review)")
        # Independent cross-check of kernel and memop counts and totals.
        kernels, memops, api = CHECKERS[checker](path)
        mine = {k["name"]: (k["calls"], k["total_ns"]) for k in got["kernels"]}
        theirs = {k: tuple(v) for k, v in kernels.items()}
        check(mine == theirs, f"{name}: kernel calls/totals differ from the independent sum "
                              f"({len(mine)} vs {len(theirs)} names)")
        check(sum(k["calls"] for k in got["kernels"]) == sum(v[0] for v in kernels.values()),
              f"{name}: kernel dispatch count")
        my_mem = {m["kind"]: (m["calls"], m["total_ns"]) for m in got["memops"]}
        check(my_mem == {k: tuple(v[:2]) for k, v in memops.items()}, f"{name}: memops differ: {my_mem} vs {memops}")
        for m in got["memops"]:
            if len(memops.get(m["kind"], [])) == 3:  # the checker also knows the bytes
                check(m["bytes"] == memops[m["kind"]][2], f"{name}: {m['kind']} bytes {m['bytes']} vs {memops[m['kind']][2]}")
        if api is not None:
            my_api = {x["name"]: (x["calls"], x["total_ns"]) for x in got["api"]}
            check(my_api == {k: tuple(v) for k, v in api.items()}, f"{name}: API calls differ: {my_api} vs {api}")
        print(f"ok   {name}: {sum(v[0] for v in kernels.values())} kernels, {len(kernels)} names, "
              f"{sum(v[0] for v in memops.values())} memops")

    # Every file under samples/kineto and samples/nsys imports, or is a known non-trace refused
    # clearly.
    dirs = [os.path.join(SAMPLES, top, sub) for top in ("kineto", "nsys")
            for sub in sorted(os.listdir(os.path.join(SAMPLES, top)))]
    for d in dirs:
        for fname in sorted(os.listdir(d)):
            r = run(a.gpuscope, "info", "--format", "json", os.path.join(d, fname))
            if fname in NOT_TRACES:
                lines = r.stderr.strip().splitlines()
                check(r.returncode == 2 and len(lines) == 1 and NOT_TRACES[fname] in lines[0],
                      f"{fname}: expected a one-line '{NOT_TRACES[fname]}' refusal, got {r.returncode}: {r.stderr}")
            else:
                ok = r.returncode == 0 and json.loads(r.stdout)["counts"]
                check(bool(ok), f"{fname}: did not import: {r.stderr.strip()}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
