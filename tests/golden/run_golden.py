#!/usr/bin/env python3
"""Golden tests over the real samples in ../shared/samples.

For each case in cases.tsv:
  1. runs `gpuscope stats --format json SAMPLE` and compares it with expected/<name>.json
     (reviewed by hand; `--update` rewrites them after a reviewed change);
  2. cross-checks kernel and memory-operation counts and totals against an independent
     computation here, sharing no code with gpuscope: for Kineto JSON, Python's json module
     reads the sample with exact decimals and sums durations per name; for SQLite formats, SQL
     over the file's own tables. Kernel names are demangled with c++filt.
Round trips (`gpuscope convert`): every case is written as Chrome JSON, as .rpd, the .rpd again
as .json.gz, and as a CSV directory; reading each back must give the same event counts
(`info`), links, devices (not in CSV) and `stats` tables, exactly. The .rpd written from each Kineto case must give the kernel totals of
`stats` through rocmProfileData's own `top` view, queried with the sqlite3 command-line tool,
and its `busy` view the GPU time of the kernels and copies. events.csv holds one row per event.
Then every file under samples/kineto/ must either import (exit 0) or be one of the known
non-traces, refused with exit code 2 and one line.

Exit 77 (skipped) when ../shared/samples is absent, as in a user's clone.
"""
import argparse
import csv
import decimal
import gzip
import json
import os
import shutil
import re
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SAMPLES = os.path.normpath(os.path.join(ROOT, "..", "shared", "samples"))

# Files under samples/kineto/ that are not Kineto traces, and what gpuscope must say of them.
NOT_TRACES = {
    "tests__data__execution_trace__benchmark_simple_add_et.json.gz": "execution trace",
    "tests__data__memory_analysis__memory_timeline.raw.gz": "unknown format",
    "agent_evals__Analysis__analysis_tests__unit_tests_comparative.tar.gz": "tar archive",
    "agent_evals__Analysis__analysis_tests__unit_tests_standalone.tar.gz": "tar archive",
    "tests__traces__tracediff_test__cpu_op_map.json": "unknown format",
    "tests__traces__tracediff_test__cpu_op_map_trace1.json": "unknown format",
    "tests__traces__tracediff_test__cpu_op_map_trace2.json": "unknown format",
}


# Files under samples/rocm/ that are not traces (or not usable ones), and what gpuscope must say.
ROCM_NOT_TRACES = {
    "HIP_Programming/input.txt": "rocprof input",
    "HIP_Programming/output_vec_add_gpu.csv": "counter mode",
    "HIP_Programming/results.sysinfo.txt": "sysinfo",
    "batched_gemm/rocprof-v1/results.sysinfo.txt": "sysinfo",
    "HPCTrainingExamples/finite-difference/results.json": "fragment",
    "HPCTrainingExamples/finite-difference/rocprof_input.txt": "unknown format",
    "SOURCES.md": "unknown format",
    "batched_gemm/rocprof-v1/rpl_data_raw/begin_ts_file.txt": "unknown format",
    "batched_gemm/rocprof-v1/rpl_data_raw/hsa_handles.txt": "unknown format",
    "rocm-systems/rocprofiler-sdk-docs-data/counter_collection.csv": "counter collection",
    "rocprofiler-sdk/docs-data-2024-10/counter_collection.csv": "counter collection",
    "rocm-systems/rocprofiler-sdk-docs-data/kernel_names.csv": "counter collection",
    "rocprofiler-sdk/docs-data-2024-10/kernel_names.csv": "counter collection",
    "rocm-systems/rocprofiler-sdk-docs-data/pc_sampling_host_trap.csv": "PC sampling",
    "rocm-systems/rocprofiler-sdk-docs-data/pc_sampling_host_trap_debug.csv": "PC sampling",
    "rocm-systems/rocprofiler-sdk-docs-data/pc_sampling_stochastic_debug.csv": "PC sampling",
    "rocm-systems/rocprofiler-sdk-docs-data/memory_allocation_trace.csv": "memory allocation",
    "rocm-systems/rocprofiler-sdk-docs-data/scratch_memory_trace.csv": "memory allocation or scratch",
    "rocm-systems/rocprofiler-sdk-docs-data/summary.txt": "--summary text",
    "rocm-systems/rocprofiler-sdk-docs-data/hip_domain_stats.csv": "domain_stats",
    "rocm-systems/rocprofv3-schema.json": "JSON Schema",
    "rocprofiler/rocprofv2-goldentraces/hip_helloworld_golden_traces.txt": "rocprofv2",
    "rocprofiler/rocprofv2-goldentraces/hip_vectoradd_golden_traces.txt": "rocprofv2",
    "rocprofiler/rocprofv2-goldentraces/hsa_api_async_trace.txt": "unknown format",
    "rocprofiler/rocprofv2-goldentraces/matrix_transpose_golden_trace.txt": "rocprofv2",
}


# analyze over real samples: the rules that must fire (with a substring of their "where"), and
# the ones that must not; the findings are also kept in expected/analyze_<name>.json for review.
ANALYZE_CASES = [
    ("resnet_workers0", "kineto/kineto/plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz",
     [("gpu-idle", "enumerate(DataLoader)"), ("launch-bound", "aten::add_"), ("cpu-op-storm", "Optimizer.step")], []),
    # With 4 DataLoader workers the data-loading stall is gone.
    ("resnet_workers4", "kineto/kineto/plugin__samples__resnet50_num_workers_4__worker0.pt.trace.json.gz",
     [("launch-bound", "aten::add_"), ("memcpy-sync", "aten::copy_")], [("gpu-idle", "enumerate(DataLoader)")]),
    ("hta_event_sync", "kineto/hta/tests__data__critical_path__cuda_event_sync__event_sync_trace.json.gz",
     [("host-sync", "aten::item"), ("gpu-idle", "")], []),
    ("bert_h100", "kineto/tracelens/tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz",
     [("launch-bound", "vectorized_elementwise_kernel"), ("host-sync", "aten::item"), ("cpu-op-storm", "")], []),
    ("sglang_decode_graphs", "kineto/tracelens/tests__traces__inference__sglang_decode__sglang_Qwen3-8B_decode.json.gz",
     [("kernel-hotspot", "")], [("low-utilization", "")]),
    ("rpd_matmul", "rocm/rocmProfileData/matmul_result.rpd", [("memcpy-sync", ""), ("gpu-idle", "")], []),
    ("rocpd_ck_bmm", "rocm/batched_gemm/rocpd-ck_bmm/28_results.db", [("kernel-hotspot", "ck_tile")], []),
    ("nsys_vector_add", "nsys/cuda-perf-sandbox/report1.sqlite", [("memcpy-pageable", ""), ("memcpy-sync", "")], []),
]


# diff over real before/after pairs; outputs kept in expected/diff_<name>.json for review.
DIFF_CASES = [
    ("docs_fix", "kineto/kineto/docs__traces__before_fix_trace.json", "kineto/kineto/docs__traces__after_fix_trace.json"),
    ("hta_compare", "kineto/hta/tests__data__trace_compare__base__base.json.gz",
     "kineto/hta/tests__data__trace_compare__test__test.json.gz"),
    ("resnet_loader_workers", "kineto/kineto/plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz",
     "kineto/kineto/plugin__samples__resnet50_num_workers_4__worker0.pt.trace.json.gz"),
]


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


def clean_kernel(n):
    """rocprof's spellings of one kernel: quoted, ' [clone .kd]' or '.kd' suffixed."""
    n = n[1:-1] if len(n) >= 2 and n[0] == '"' and n[-1] == '"' else n
    for suffix in (" [clone .kd]", ".kd"):
        if n.endswith(suffix):
            return n[: -len(suffix)]
    return n


def add(table, key, dur, n=1):
    c = table.setdefault(key, [0, 0])
    c[0] += n
    c[1] += dur


COPY_KIND = {"HostToDevice": "HtoD", "DeviceToHost": "DtoH", "DeviceToDevice": "DtoD", "HOST_TO_DEVICE": "HtoD",
             "DEVICE_TO_HOST": "DtoH", "DEVICE_TO_DEVICE": "DtoD", "HOST_TO_HOST": "HtoH"}


def copy_kind(name):
    for k, v in COPY_KIND.items():
        if k in name:
            return v
    return "Memset" if "Fill" in name else "Other"


def rocprofv3_json_totals(path):
    with gzip.open(path, "rt") if path.endswith(".gz") else open(path) as f:
        doc = json.load(f)
    kernels, memops, api = {}, {}, {}
    for proc in doc["rocprofiler-sdk-tool"]:
        kinds = proc["strings"]["buffer_records"]
        sym = {k["kernel_id"]: k.get("formatted_kernel_name") or clean_kernel(k.get("kernel_name", ""))
               for k in proc["kernel_symbols"]}
        rec = proc["buffer_records"]
        for r in rec.get("kernel_dispatch", []):
            add(kernels, sym[r["dispatch_info"]["kernel_id"]], r["end_timestamp"] - r["start_timestamp"])
        for r in rec.get("memory_copy", []):
            add(memops, copy_kind(kinds[r["kind"]]["operations"][r["operation"]]), r["end_timestamp"] - r["start_timestamp"])
        for key in ("hip_api", "hsa_api", "rccl_api"):
            for r in rec.get(key, []):
                add(api, kinds[r["kind"]]["operations"][r["operation"]], r["end_timestamp"] - r["start_timestamp"])
    return kernels, memops, api


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0][1:] if rows and rows[0] and rows[0][0] == "Guid" else rows[0]
    skip = 1 if rows and rows[0] and rows[0][0] == "Guid" else 0
    return header, [dict(zip(header, r[skip:])) for r in rows[1:] if r]


def rocprofv3_csv_totals(path):
    """Sums over the run's CSVs: the same directory and file-name prefix before '<domain>_trace.csv'."""
    folder, name = (path, None) if os.path.isdir(path) else os.path.split(path)
    files = sorted(f for f in os.listdir(folder) if f.endswith("_trace.csv"))
    if name:
        prefix = re.sub(r"(kernel|memory_copy|hip_api|hip_runtime|hip_compile|hip|hsa_api|hsa_core_api|"
                        r"hsa_amd_ext_api|hsa|marker_api|rccl_api|rccl|memory_allocation|scratch_memory|"
                        r"rocdecode_api|rocjpeg_api)_trace\.csv$", "", name)
        files = [f for f in files if f.startswith(prefix) and
                 re.fullmatch(r"(kernel|memory_copy|hip_api|hip_runtime|hip_compile|hip|hsa_api|hsa_core_api|"
                              r"hsa_amd_ext_api|hsa|marker_api|rccl_api|rccl|memory_allocation|scratch_memory|"
                              r"rocdecode_api|rocjpeg_api)_trace\.csv", f[len(prefix):])]
    kernels, memops, api = {}, {}, {}
    for f in files:
        header, rows = read_csv(os.path.join(folder, f))
        for r in rows:
            dur = int(r["End_Timestamp"]) - int(r["Start_Timestamp"])
            if header[:2] == ["Kind", "Agent_Id"]:
                add(kernels, clean_kernel(r["Kernel_Name"]), dur)
            elif header[:2] == ["Kind", "Direction"]:
                add(memops, copy_kind(r["Direction"]), dur)
            elif header[:3] == ["Domain", "Function", "Process_Id"] and not r["Domain"].startswith("MARKER"):
                add(api, r["Function"], dur)
    return kernels, memops, api


def rocprof_db_totals(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    kernels, memops, api = {}, {}, {}
    ops = "OPS" in tables and db.execute("SELECT COUNT(*) FROM OPS").fetchone()[0] > 0
    cols = {r[1] for r in db.execute("PRAGMA table_info(KERN)")} if "KERN" in tables else set()
    src = ("SELECT Name, EndNs - BeginNs FROM OPS" if ops else
           "SELECT KernelName, EndNs - BeginNs FROM KERN" if "BeginNs" in cols else None)
    for n, d in db.execute(src) if src else []:
        add(kernels, clean_kernel(n), d)
    if "COPY" in tables:
        for n, d in db.execute("SELECT Name, EndNs - BeginNs FROM COPY"):
            add(memops, copy_kind(n), d)
    for t in ("HIP", "HSA"):
        if t in tables:
            for n, d in db.execute(f"SELECT Name, EndNs - BeginNs FROM {t}"):
                add(api, n, d)
    return kernels, memops, api


def rocprof_csv_totals(path):
    kernels = {}
    _, rows = read_csv(path)
    for r in rows:
        add(kernels, clean_kernel(r["KernelName"]), int(r["EndNs"]) - int(r["BeginNs"]))
    return kernels, {}, {}


def rocprof_json_totals(path):
    """results.json (tblextr.py) or rpd2tracing output: lanes from the process names."""
    with open(path) as f:
        events = json.load(f)
    events = events["traceEvents"] if isinstance(events, dict) else events
    names = {str(e["pid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    kernels, memops, api = {}, {}, {}
    overhead = set(RPD_OVERHEAD) - {"UserMarker"}
    for e in events:
        if e.get("ph") != "X":
            continue
        a = e.get("args", {})
        if "BeginNs" in a:
            dur = int(a["EndNs"]) - int(a["BeginNs"])
        else:
            dur = int(decimal.Decimal(e["dur"]) * 1000)
        lane = names.get(str(e["pid"]), "")
        if lane.startswith("GPU Barriers"):
            continue
        if lane.startswith("GPU") or lane == "COPY":
            kind = a.get("desc", e["name"])
            if any(k in kind for k in COPY_KIND) or "Fill" in kind:
                add(memops, copy_kind(kind), dur)
            else:
                add(kernels, clean_kernel(e["name"]), dur)
        elif e["name"] not in overhead:
            add(api, e["name"], dur)
    return kernels, memops, api


def rocprof_raw_totals(path):
    folder, name = os.path.split(path)
    prefix = name.replace("hip_api_trace.txt", "").replace("hcc_ops_trace.txt", "")
    kernels, memops, api, full = {}, {}, {}, {}
    with open(os.path.join(folder, prefix + "hip_api_trace.txt")) as f:
        for line in f:
            m = re.match(r"(\d+):(\d+) \d+:\d+ (\w+)\((.*) :(\d+)$", line.strip())
            add(api, m.group(3), int(m.group(2)) - int(m.group(1)))
            if ") kernel=" in m.group(4):
                full[m.group(5)] = m.group(4).split(") kernel=", 1)[1]
    with open(os.path.join(folder, prefix + "hcc_ops_trace.txt")) as f:
        for line in f:
            m = re.match(r"(\d+):(\d+) \d+:\d+ (.*):(\d+):(\d+)$", line.strip())
            d = int(m.group(2)) - int(m.group(1))
            if m.group(3).startswith("Copy"):
                add(memops, copy_kind(m.group(3)), d)
            else:
                add(kernels, full.get(m.group(4), m.group(3)), d)
    return kernels, memops, api


def rocprof_stats_totals(path):
    _, rows = read_csv(path)
    table = {clean_kernel(r["Name"]) if "hip_" not in path else r["Name"]: [int(r["Calls"]), int(r["TotalDurationNs"])]
             for r in rows}
    return ({}, {}, table) if "hip_" in os.path.basename(path) else (table, {}, None)


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


CHECKERS = {"kineto": kineto_totals, "nsys": nsys_totals, "rpd": rpd_totals, "rocpd": rocpd_totals,
            "rocprofv3_json": rocprofv3_json_totals, "rocprofv3_csv": rocprofv3_csv_totals,
            "rocprof_db": rocprof_db_totals, "rocprof_csv": rocprof_csv_totals, "rocprof_json": rocprof_json_totals,
            "rocprof_raw": rocprof_raw_totals, "rocprof_stats": rocprof_stats_totals}


def same_as_expected(name, got, update):
    """Compares with expected/<name>.json (rewritten first with --update)."""
    path = os.path.join(HERE, "expected", name + ".json")
    if update:
        with open(path, "w") as f:
            json.dump(got, f, indent=1, ensure_ascii=False)
            f.write("\n")
    with open(path) as f:
        return json.load(f) == got


def run(gpuscope, *args):
    return subprocess.run([gpuscope, *args], capture_output=True, text=True)


def round_trip_cases(a, check):
    """import(export(trace)) == trace for every format gpuscope writes and reads."""
    def stats(path):
        r = run(a.gpuscope, "stats", "--format", "json", "--mangled", path)
        if r.returncode != 0:
            return None
        d = json.loads(r.stdout)
        d.pop("source")
        return d

    def counts(path):
        # Event counts, launch / nesting links, devices (id and name): what a round trip keeps.
        r = run(a.gpuscope, "info", "--format", "json", path)
        if r.returncode != 0:
            return None
        d = json.loads(r.stdout)
        return {"counts": d["counts"], "links": d["links"], "devices": sorted((x["id"], x["name"]) for x in d["devices"])}

    tmp = tempfile.mkdtemp(prefix="gpuscope-roundtrip-")
    try:
        for line in open(os.path.join(HERE, "cases.tsv")):
            if line.startswith("#") or not line.strip():
                continue
            name, checker, rel, _ = line.rstrip("\n").split("\t")
            if checker == "rocprof_stats":
                continue  # summary-only: convert refuses it (no timeline)
            src = os.path.join(SAMPLES, rel)
            want_stats, want_counts = stats(src), counts(src)
            json_out, rpd_out = os.path.join(tmp, name + ".json"), os.path.join(tmp, name + ".rpd")
            json2_out, csv_dir = os.path.join(tmp, name + "_from_rpd.json.gz"), os.path.join(tmp, name + "_csv")
            steps = [(src, json_out), (src, rpd_out), (rpd_out, json2_out), (src, csv_dir + "/")]
            ok = True
            for inp, out in steps:
                r = run(a.gpuscope, "convert", inp, "-o", out)
                check(r.returncode == 0, f"round trip {name}: convert -o {os.path.basename(out)}: {r.stderr.strip()}")
                ok &= r.returncode == 0
            if not ok:
                continue
            for out in (json_out, rpd_out, json2_out, csv_dir):
                got_stats, got_counts = stats(out), counts(out)
                if out == csv_dir:  # events.csv has no place for device names: events, links, tables
                    got_counts = got_counts and dict(got_counts, devices=want_counts["devices"])
                check(got_counts == want_counts, f"round trip {name} via {os.path.basename(out)}: counts {got_counts} != {want_counts}")
                check(got_stats == want_stats, f"round trip {name} via {os.path.basename(out)}: stats tables differ")
            with open(os.path.join(csv_dir, "events.csv"), newline="") as f:
                rows = list(csv.DictReader(f))
            kinds = {}
            for row in rows:
                kinds[row["kind"]] = kinds.get(row["kind"], 0) + 1
            wc = want_counts["counts"]
            check(kinds.get("kernel", 0) == wc["kernels"] and kinds.get("memcpy", 0) == wc["memcpy"] and
                  kinds.get("memset", 0) == wc["memset"] and len(rows) == sum(wc.values()),
                  f"round trip {name}: events.csv kinds {kinds}")
            csv_kernels = {r["name"]: (int(r["calls"]), int(r["total_ns"])) for r in csv.DictReader(open(os.path.join(csv_dir, "kernels.csv"), newline=""))}
            dem = json.loads(run(a.gpuscope, "stats", "--format", "json", src).stdout)
            check(csv_kernels == {k["name"]: (k["calls"], k["total_ns"]) for k in dem["kernels"]}, f"round trip {name}: kernels.csv")
            if checker == "kineto":
                top = subprocess.run(["sqlite3", "-json", rpd_out, "SELECT Name, TotalCalls, TotalDuration FROM top"],
                                     capture_output=True, text=True)
                check(top.returncode == 0, f"{name}: sqlite3 top view: {top.stderr.strip()}")
                top_rows = {x["Name"]: (x["TotalCalls"], x["TotalDuration"]) for x in json.loads(top.stdout or "[]")}
                # rpd's top view: integer microseconds (sum(end - start) / 1000), one row per name.
                bad = [k["name"] for k in want_stats["kernels"] if top_rows.get(k["name"]) != (k["calls"], k["total_ns"] // 1000)]
                check(not bad, f"{name}: rpd top view differs from stats for {len(bad)} kernels, e.g. {bad[:1]}")
                busy = subprocess.run(["sqlite3", rpd_out, "SELECT COALESCE(SUM(GpuTime), 0) FROM busy"], capture_output=True, text=True)
                gpu_ns = sum(k["total_ns"] for k in want_stats["kernels"]) + sum(m["total_ns"] for m in want_stats["memops"])
                check(busy.returncode == 0 and int(busy.stdout.strip() or 0) == gpu_ns, f"{name}: rpd busy view {busy.stdout.strip()} != {gpu_ns}")
            print(f"ok   round trip {name}: json, rpd, rpd->json.gz, csv/")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


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
        if checker.startswith("rocprof"):
            kernels = merge_demangled(kernels)
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

    round_trip_cases(a, check)

    for name, rel, must, must_not in ANALYZE_CASES:
        r = run(a.gpuscope, "analyze", "--format", "json", os.path.join(SAMPLES, rel))
        check(r.returncode == 0, f"analyze {name}: exit {r.returncode}: {r.stderr.strip()}")
        if r.returncode != 0:
            continue
        d = json.loads(r.stdout)
        def fired(rule, where):
            return any(f["rule"] == rule and where in " ".join(f["where"].values()) + " " + f["title"] for f in d["findings"])
        for rule, where in must:
            check(fired(rule, where), f"analyze {name}: {rule} ({where!r}) did not fire: {[f['rule'] for f in d['findings']]}")
        for rule, where in must_not:
            check(not fired(rule, where), f"analyze {name}: {rule} ({where!r}) fired")
        got = {"summary": {k: d["summary"][k] for k in ("iteration_source", "iterations", "warmup_iterations",
                                                         "iteration_median_ns", "gpu_busy_pct", "verdict")},
               "findings": [{k: f[k] for k in ("rule", "severity", "title", "impact_ns", "where")} for f in d["findings"]]}
        check(same_as_expected(f"analyze_{name}", got, a.update), f"analyze {name}: differs from expected (--update after review)")
        print(f"ok   analyze {name}: {len(d['findings'])} findings")

    for name, rel_b, rel_a in DIFF_CASES:
        r = run(a.gpuscope, "diff", "--format", "json", os.path.join(SAMPLES, rel_b), os.path.join(SAMPLES, rel_a))
        check(r.returncode == 0, f"diff {name}: exit {r.returncode}: {r.stderr.strip()}")
        if r.returncode != 0:
            continue
        got = json.loads(r.stdout)
        got["before"], got["after"] = "samples/" + rel_b, "samples/" + rel_a
        check(same_as_expected(f"diff_{name}", got, a.update), f"diff {name}: differs from expected (--update after review)")
        print(f"ok   diff {name}: {got['summary']['verdict']}")

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
    # Every file under samples/rocm imports, or is a known non-trace refused in one line.
    rocm = os.path.join(SAMPLES, "rocm")
    for folder, _, fnames in sorted(os.walk(rocm)):
        for fname in sorted(fnames):
            path = os.path.join(folder, fname)
            rel = os.path.relpath(path, rocm)
            r = run(a.gpuscope, "info", "--format", "json", path)
            if rel in ROCM_NOT_TRACES:
                lines = r.stderr.strip().splitlines()
                check(r.returncode == 2 and len(lines) == 1 and ROCM_NOT_TRACES[rel] in lines[0],
                      f"{rel}: expected a one-line '{ROCM_NOT_TRACES[rel]}' refusal, got {r.returncode}: {r.stderr}")
            else:
                ok = r.returncode == 0 and (any(json.loads(r.stdout)["counts"].values()) or
                                            json.loads(r.stdout)["summary_only"])
                check(bool(ok), f"{rel}: did not import: {r.stderr.strip()}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
