"""End-to-end: every input format read, the stats/info tables and contracts, bad and broken inputs, threads."""
import csv
import importlib.util
import io
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

import harness
from harness import DATA, EXAMPLES, PLANTED, SAMPLES, Skip, data, need_torch, run, sql_fixture, test


@test
def nsys_export_stats_show_memory_kinds():
    with tempfile.TemporaryDirectory() as tmp:
        path = sql_fixture("nsys_small.sql", tmp)
        r = run("stats", path)
        assert r.returncode == 0, r.stderr
        assert "(nsys)" in r.stdout
        rows = {line.split()[0]: line for line in r.stdout.splitlines() if line[:4] in ("HtoD", "DtoH")}
        assert rows["HtoD"].rstrip().endswith("1 pageable"), rows
        assert rows["DtoH"].rstrip().endswith("1 pinned"), rows
        assert "OS runtime calls:" in r.stdout and "ioctl" in r.stdout
        d = json.loads(run("stats", "--format", "json", path).stdout)
        assert [k["name"] for k in d["kernels"]] == ["ampere_sgemm_128x64_nn", "vecAdd(float*, float*, float*, int)"]
        assert d["os_runtime"][0]["name"] == "ioctl" and d["os_runtime"][0]["domain"] == "os"
        assert {a["name"] for a in d["api"]} >= {"cudaLaunchKernel", "cuCtxGetCurrent"}
        info = json.loads(run("info", "--format", "json", path).stdout)
        assert info["source"]["producer"] == "NVIDIA Nsight Systems 2025.5.2.266"
        assert info["counts"]["OS runtime calls"] == 2 and info["not_collected"] == []


@test
def nsys_report_file_is_refused_with_the_export_command():
    with tempfile.TemporaryDirectory() as tmp:
        rep = os.path.join(tmp, "run.nsys-rep")
        with open(rep, "wb") as f:
            f.write(b"\x00binary report")
        r = run("stats", rep)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert f"nsys export --type sqlite --output {tmp}/run.sqlite {rep}" in r.stderr, r.stderr


def table_headers(stdout):
    """The header lines of the tables `stats` prints (the line above each dashed rule)."""
    lines = stdout.splitlines()
    return [lines[i - 1].split() for i, l in enumerate(lines) if l.startswith("---")]


@test
def rocm_formats_print_the_same_columns_as_kineto():
    # Whole names: every column shown (at a narrow width the numbers give way to longer names).
    kineto = table_headers(run("stats", "--full-names", data("kineto_cuda_small.json")).stdout)
    for path in ("rocprofv3_small_results.json", "rocprofv3_csv_B", "rocprof_v1/results.json"):
        r = run("stats", "--full-names", data(path))
        assert r.returncode == 0, (path, r.stderr)
        mine = table_headers(r.stdout)
        assert mine[0] == kineto[0], (path, mine[0], kineto[0])  # kernels
        assert mine[1] == kineto[1], (path, mine[1], kineto[1])  # memory operations
        assert "gemm(float*)" in r.stdout and "HtoD" in r.stdout


@test
def rocprofv3_csv_copies_have_unknown_bytes_never_zero():
    d = json.loads(run("stats", "--format", "json", data("rocprofv3_csv_A")).stdout)
    htod = [m for m in d["memops"] if m["kind"] == "HtoD"][0]
    assert htod["bytes"] is None and htod["calls_unknown_bytes"] == 1 and htod["gbps"] is None, htod
    r = run("stats", "--by", "memops", data("rocprofv3_csv_A"))
    assert "unknown" in r.stdout and " 0 B" not in r.stdout


@test
def summary_only_source_prints_stats_and_says_what_it_lacks():
    r = run("stats", data("rocprof_v1/results.stats.csv"))
    assert r.returncode == 0, r.stderr
    assert "n/a" in r.stdout and "gemm(float*)" in r.stdout
    d = json.loads(run("stats", "--format", "json", data("rocprof_v1/results.stats.csv")).stdout)
    assert d["kernels"][0]["median_ns"] is None and d["kernels"][0]["total_ns"] == 42000
    info = run("info", data("rocprof_v1/results.stats.csv"))
    assert "Summary only" in info.stdout, info.stdout


@test
def rocpd_directory_of_processes_is_merged():
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "host"))
        a = sql_fixture("rocpd_small.sql", tmp)
        os.rename(a, os.path.join(tmp, "4000_results.db"))
        b = sql_fixture("rocpd_small_pid2.sql", tmp)
        os.rename(b, os.path.join(tmp, "host", "4001_results.db"))
        r = run("stats", "--format", "json", tmp)
        assert r.returncode == 0, r.stderr
        d = json.loads(r.stdout)
        assert d["source"]["format"] == "rocpd" and "2 databases merged" in d["source"]["format_version"]
        gemm = [k for k in d["kernels"] if k["name"] == "gemm(float*, float*)"][0]
        assert gemm["calls"] == 4 and gemm["total_ns"] == 84000, gemm


@test
def rocm_bad_inputs_are_one_line_exit_2():
    with tempfile.TemporaryDirectory() as tmp:
        empty_rpd = os.path.join(tmp, "empty.rpd")
        db = sqlite3.connect(empty_rpd)
        with open(data("rpd_small.sql")) as f:
            db.executescript(f.read())
        db.executescript("DELETE FROM rocpd_op; DELETE FROM rocpd_api; DELETE FROM rocpd_monitor;")
        db.commit()
        db.close()
        cut_csv = os.path.join(tmp, "9_kernel_trace.csv")
        with open(cut_csv, "w") as f:
            f.write('"Kind","Agent_Id","Queue_Id"\n"KERNEL_DISPATCH",1,1\n')
        for path, what in ((empty_rpd, "holds no events"), (cut_csv, "without the column(s)"),
                           (data("rocprof_v1/counters.csv"), "counter mode"), (tmp + "/nothing", "cannot")):
            if what == "cannot":
                os.makedirs(path)
                what = "a directory without a trace"
            r = run("stats", path)
            lines = r.stderr.strip().splitlines()
            assert r.returncode == 2 and len(lines) == 1 and what in lines[0], (path, r.returncode, r.stderr)


@test
def stats_steady_restricts_to_the_steady_window():
    full = json.loads(run("stats", "--format", "json", data("kineto_cuda_small.json")).stdout)
    steady = json.loads(run("stats", "--steady", "--format", "json", data("kineto_cuda_small.json")).stdout)
    assert "steady state" in steady["window"]
    assert sum(k["calls"] for k in steady["kernels"]) <= sum(k["calls"] for k in full["kernels"])


def cpu_keys_have_avg(d):
    return all(set(c) == {"name", "calls", "total_ns", "self_ns", "avg_ns"} for c in d["cpu_ops"])


@test
def stats_json_contract():
    r = run("stats", "--format", "json", data("kineto_cuda_small.json"))
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["source"] == {"path": data("kineto_cuda_small.json"), "format": "kineto",
                           "format_version": d["source"]["format_version"]}
    keys = {"name", "calls", "total_ns", "avg_ns", "median_ns", "min_ns", "max_ns", "stddev_ns", "percent"}
    assert all(keys <= set(k) for k in d["kernels"])
    totals = [k["total_ns"] for k in d["kernels"]]
    assert totals == sorted(totals, reverse=True)
    # gemm: 2 calls of 50.010 us and 50.020 us, demangled by default.
    gemm = d["kernels"][0]
    assert gemm["name"] == "gemm_tile1(float*, float*, int)", gemm
    assert (gemm["calls"], gemm["total_ns"], gemm["median_ns"], gemm["min_ns"], gemm["max_ns"]) == (2, 100030, 50015, 50010, 50020)
    relu = d["kernels"][1]
    assert relu["calls"] == 6 and relu["total_ns"] == 2 * (2000 + 2001 + 2002), relu
    assert abs(sum(k["percent"] for k in d["kernels"]) - 100) < 1e-3
    mem = {m["kind"]: m for m in d["memops"]}
    assert mem["HtoD"]["calls"] == 2 and mem["HtoD"]["bytes"] == 2_000_000 and mem["HtoD"]["total_ns"] == 200_000
    assert mem["HtoD"]["gbps"] == 10.0 and mem["HtoD"]["host_memory"]["pageable"] == 2
    assert mem["DtoH"]["host_memory"]["pinned"] == 2 and mem["Memset"]["bytes"] == 8192
    api = {a["name"]: a for a in d["api"]}
    assert api["cudaLaunchKernel"]["calls"] == 2 and api["cudaMemcpyAsync"]["calls"] == 4
    assert set(api["cudaStreamSynchronize"]) == {"name", "domain", "calls", "total_ns", "avg_ns", "median_ns",
                                                 "min_ns", "max_ns", "stddev_ns"}
    assert cpu_keys_have_avg(d)
    assert api["cudaStreamSynchronize"]["domain"] == "runtime"
    cpu = {c["name"]: c for c in d["cpu_ops"]}
    # aten::linear 200 us contains aten::addmm 100 us; addmm contains a 10 us launch.
    assert cpu["aten::linear"]["self_ns"] == 2 * 100_000 and cpu["aten::addmm"]["self_ns"] == 2 * 90_000


@test
def stats_table_fits_and_full_names():
    r = run("stats", data("kineto_cuda_small.json"))
    assert r.returncode == 0 and "GPU kernels: 8 dispatches of 2 kernels" in r.stdout, r.stdout
    assert all(len(l) <= 120 for l in r.stdout.splitlines()), max(map(len, r.stdout.splitlines()))
    # "void " dropped, the lists folded, the base name whole (base/short_name.h).
    assert "at::native::vectorized_elementwise_kernel<" in r.stdout and "void " not in r.stdout, r.stdout
    full = run("stats", "--full-names", "--by", "kernels", data("kineto_cuda_small.json"))
    assert "vectorized_elementwise_kernel<4, at::native::relu>(int)" in full.stdout
    assert "Pageable" not in r.stdout and "2 pageable" in r.stdout


@test
def stats_mangled_top_and_by():
    r = run("stats", "--format", "json", "--mangled", "--top", "1", "--by", "kernels", data("kineto_cuda_small.json"))
    d = json.loads(r.stdout)
    assert list(d) == ["schema_version", "source", "kernels"] and len(d["kernels"]) == 1
    assert d["kernels"][0]["name"] == "_Z10gemm_tile1PfS_i"


@test
def stats_csv_per_table():
    for by, header in (("kernels", "name,calls,total_ns"), ("memops", "kind,calls,bytes"),
                       ("api", "name,calls,total_ns"), ("cpu", "name,calls,total_ns,self_ns")):
        r = run("stats", "--format", "csv", "--by", by, data("kineto_cuda_small.json"))
        assert r.returncode == 0 and r.stdout.startswith(header), (by, r.stdout[:80])
        rows = list(csv.reader(io.StringIO(r.stdout)))
        assert len(rows) > 1 and all(len(x) == len(rows[0]) for x in rows)
    # The escaped name survives CSV quoting.
    r = run("stats", "--format", "csv", "--by", "cpu", data("kineto_cuda_small.json"))
    assert any(row[0] == 'triton_"poi"_fused_\u00e9' for row in csv.reader(io.StringIO(r.stdout)))


@test
def info_reports_format_devices_counts_iterations_problems():
    r = run("info", data("kineto_cuda_small.json"))
    assert r.returncode == 0, r.stderr
    for s in ("kineto", "3 decimals", "baseTimeNanoseconds", "NVIDIA H100", "ProfilerStep#1 .. #2",
              "kineto.ts_clamped_to_zero", "CUPTI 24"):
        assert s in r.stdout, (s, r.stdout)
    d = json.loads(run("info", "--format", "json", data("kineto_cuda_small.json")).stdout)
    assert d["counts"]["kernels"] == 8 and d["counts"]["Python frames"] == 4
    assert [i["number"] for i in d["iterations"]] == [1, 2]
    assert d["links"]["kernels_with_launch"] == 8
    assert d["devices"][0]["compute_units"] == 132
    c = run("info", "--format", "csv", data("kineto_cuda_small.json"))
    assert c.stdout.startswith("key,value") and "count.kernels,8" in c.stdout


@test
def rocm_and_legacy_fixtures():
    d = json.loads(run("stats", "--format", "json", data("kineto_rocm_small.json")).stdout)
    mem = d["memops"][0]
    assert mem["kind"] == "HtoD" and mem["host_memory"] == {"pageable": 0, "pinned": 0, "unknown": 1}
    assert {k["name"] for k in d["kernels"]} == {"void at::native::elementwise_kernel<128, 4>(int)", "__amd_rocclr_copyBuffer"}
    i = run("info", data("kineto_rocm_small.json")).stdout
    assert "AMD Instinct MI300X (AMD, 304 CUs" in i and "roctracer 4.1" in i
    d = json.loads(run("stats", "--format", "json", data("kineto_pt18_legacy.json")).stdout)
    assert d["kernels"][0]["total_ns"] == 30000


@test
def gzip_equals_plain():
    a = json.loads(run("stats", "--format", "json", data("kineto_cuda_small.json")).stdout)
    b = json.loads(run("stats", "--format", "json", data("kineto_cuda_small.json.gz")).stdout)
    a.pop("source"), b.pop("source")
    assert a == b


@test
def bad_inputs_exit_2_with_one_line():
    cases = {"bad_empty_file.json": "empty", "bad_not_json.json": "not a trace",
             "bad_unknown_format.json": "unknown format", "bad_empty_trace.json": "no events",
             "bad_metadata_only.json": "no events", "missing.json": "no such file"}
    for f, says in cases.items():
        for cmd in ("stats", "info"):
            r = run(cmd, data(f))
            lines = r.stderr.strip().splitlines()
            assert r.returncode == 2 and len(lines) == 1 and says in lines[0] and f in lines[0], (f, r.returncode, r.stderr)
            assert r.stdout == "", r.stdout
    r = run("stats", DATA)
    assert r.returncode == 2 and "directory" in r.stderr
    r = run("stats", "--format", "yaml", data("kineto_cuda_small.json"))
    assert r.returncode == 2
    r = run()
    assert r.returncode != 0


@test
def special_files_and_standard_input():
    # A FIFO without a writer: one line at once, never a hang.
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "trace.fifo")
        os.mkfifo(fifo)
        r = subprocess.run([harness.GPUSCOPE, "info", fifo], capture_output=True, text=True, timeout=20)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "FIFO" in r.stderr and fifo in r.stderr, r.stderr
    r = run("info", "/dev/null")
    assert r.returncode == 2 and "character device" in r.stderr, r.stderr
    # "-" reads standard input (any format: it is spooled, then recognised as a file would be).
    for name in ("kineto_cuda_small.json", "kineto_cuda_small.json.gz"):
        with open(data(name), "rb") as f:
            piped = subprocess.run([harness.GPUSCOPE, "stats", "--format", "json", "-"], stdin=f,
                                   capture_output=True, timeout=60)
        assert piped.returncode == 0, piped.stderr
        got, want = json.loads(piped.stdout), json.loads(run("stats", "--format", "json", data(name)).stdout)
        assert got["source"]["path"] == "-" and got["kernels"] == want["kernels"], got["source"]
    with open(data("bad_not_json.json"), "rb") as f:
        bad = subprocess.run([harness.GPUSCOPE, "info", "-"], stdin=f, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("gpuscope: -: "), bad.stderr


@test
def untimed_events_are_named_not_blamed_on_the_profiler_options():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bad_ts.json")
        with open(path, "w") as f:
            json.dump({"traceEvents": [{"ph": "X", "name": "k", "ts": "abc", "dur": 1, "pid": 1, "tid": 1},
                                       {"ph": "X", "name": "k", "dur": 1, "pid": 1, "tid": 1}]}, f)
        r = run("info", path)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "kineto.bad_ts" in r.stderr and "2 of 2 records" in r.stderr, r.stderr
        assert "activities" not in r.stderr, r.stderr
    r = run("info", data("bad_unknown_format.json"))
    assert r.returncode == 2 and "kineto, nsys, rpd" in r.stderr, r.stderr


@test
def every_writer_creates_missing_output_directories():
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("x.json", "x.json.gz", "x.rpd", "x.csv", "tables/"):
            out = os.path.join(tmp, "new", name.split(".")[-1], name)
            r = run("convert", data("kineto_cuda_small.json"), "-o", out)
            assert r.returncode == 0, (name, r.stderr)
        out = os.path.join(tmp, "new", "report", "r.html")
        assert run("report", data("kineto_cuda_small.json"), "-o", out).returncode == 0
        assert os.path.getsize(out) > 0


@test
def broken_files_keep_what_was_read():
    for f, says in (("bad_truncated.json", "ends early"), ("bad_truncated.json.gz", "gzip"),
                    ("bad_corrupt.json.gz", "byte")):
        r = run("stats", "--format", "json", data(f))
        assert r.returncode == 0, (f, r.stderr)
        assert "warning" in r.stderr and says in r.stderr and "kept the" in r.stderr, (f, r.stderr)
        json.loads(r.stdout)
    r = run("info", data("bad_missing_fields.json"))
    assert r.returncode == 0 and "kineto.event_missing_ts" in r.stdout and "kineto.bad_ts" in r.stdout
    assert "recoverable problem" in r.stderr


@test
def kineto_unescaped_name_costs_its_event_only():
    """PyTorch writes some Python frame names with their quotes unescaped: that event is
    counted and skipped, and every event after it is read (it once ended the read there)."""
    with open(data("kineto_cuda_small.json")) as f:
        events = json.load(f)["traceEvents"]
    text = json.dumps({"traceEvents": events}, indent=2)
    at = text.index('"name": "inference.py(12): forward"')
    text = text[:at] + '"name": "tinynet.py(0):     """", ' + text[at:]
    with tempfile.TemporaryDirectory() as tmp:
        bad, good = os.path.join(tmp, "bad.json"), os.path.join(tmp, "good.json")
        open(bad, "w").write(text)
        first = next(i for i, e in enumerate(events) if e.get("name") == "inference.py(12): forward")
        json.dump({"traceEvents": events[:first] + events[first + 1:]}, open(good, "w"))
        r = run("info", "--format", "json", bad)
        assert r.returncode == 0 and "kineto.invalid_event x1" in r.stderr, r.stderr
        d = json.loads(r.stdout)
        assert d["import_error"] is None, d["import_error"]
        assert [p["count"] for p in d["problems"] if p["kind"] == "kineto.invalid_event"] == [1], d["problems"]
        assert d["counts"] == json.loads(run("info", "--format", "json", good).stdout)["counts"], d["counts"]


@test
def threads_do_not_change_results():
    # A 20 MB trace made from the fixture, with a profiler overhead record per copy, parsed with
    # 1 and 4 threads (8 parallel segments, two per thread): every output the same (the merge
    # once dropped the later segments' overhead time, which `analyze`'s health note reports).
    src = json.load(open(data("kineto_cuda_small.json")))
    events = src["traceEvents"]
    big = []
    for copy in range(2000):
        for e in events:
            if e.get("ph") == "X":
                e2 = dict(e, ts=e["ts"] + copy * 5000.0)
                big.append(e2)
        big.append({"ph": "X", "cat": "overhead", "name": "Instrumentation", "pid": 1, "tid": 1,
                    "ts": copy * 5000.0 + 1.0, "dur": 7.0})
    src["traceEvents"] = big
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        for_json = json.dumps(src, indent=1)
        f.write(for_json)
        path = f.name
    try:
        assert os.path.getsize(path) > 16 << 20
        one = run("--threads", "1", "stats", "--format", "json", path)
        four = run("--threads", "4", "stats", "--format", "json", path, env={"GPUSCOPE_TIMING": "1"})
        assert one.returncode == 0 and four.returncode == 0
        assert "8 segments" in four.stderr, four.stderr
        assert json.loads(one.stdout) == json.loads(four.stdout)
        for cmd in (["analyze"], ["info"]):
            one = run("--threads", "1", *cmd, "--format", "json", path)
            four = run("--threads", "4", *cmd, "--format", "json", path)
            assert one.returncode == 0 and json.loads(one.stdout) == json.loads(four.stdout), cmd
        assert "2,000 profiler overhead records: 14.000 ms" in one.stdout, one.stdout[:2000]
    finally:
        os.unlink(path)
