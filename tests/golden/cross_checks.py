"""Independent totals per sample for the golden tests, sharing no code with gpuscope: Python's
json module with exact decimals for Kineto JSON and the other JSON formats, the csv module for
CSV, SQL over the file's own tables for the SQLite formats; kernel names demangled with c++filt.
CHECKERS maps a checker name of cases.tsv to its function."""
import csv
import decimal
import gzip
import json
import os
import re
import sqlite3
import subprocess


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
    seen = set()  # a row repeated in two files (hip_trace.csv holds hip_compile_trace.csv's) counts once
    for f in files:
        header, rows = read_csv(os.path.join(folder, f))
        for r in rows:
            if tuple(r.items()) in seen:
                continue
            seen.add(tuple(r.items()))
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
