"""The Python package against the CLI: every format's fixture loads; the Arrow tables' rows and
sums equal `gpuscope stats --format json`; every result dict equals the CLI's JSON for the same
request; errors raise TraceError; partial reads warn; the GIL is released while loading."""
import json
import os
import subprocess
import sys
import threading
import time
import warnings

import pyarrow as pa
import pytest

import gpuscope

from conftest import DATA


def cli_json(cli, *args):
    r = subprocess.run([cli, *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def same(a, b):
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


FORMATS = ["kineto", "kineto-gz", "kineto-rocm", "kineto-shapes", "rocprofv3-json", "rocprofv3-csv",
           "rocprof-csv", "rocprof-json", "serving", "rpd", "rocpd", "nsys", "rocprof-db", "rocprof-raw",
           "gpuscope-csv"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_tables_match_stats(fmt, fixtures, cli):
    path = fixtures[fmt]
    t = gpuscope.load(path)
    st = gpuscope.stats(t)
    k = t.kernels()
    assert isinstance(k, pa.Table)
    assert k.num_rows == sum(x["calls"] for x in st["kernels"])
    assert sum(k.column("dur_ns").to_pylist()) == sum(x["total_ns"] for x in st["kernels"])
    # Per kernel name: calls and totals, from the dictionary-encoded names.
    df = k.to_pandas()
    if len(df):
        by = df.groupby(df["name"].astype(str), observed=True)["dur_ns"].agg(["count", "sum"])
        mangled = {x["name"]: (x["calls"], x["total_ns"]) for x in gpuscope.stats(t, mangled=True)["kernels"]}
        assert {n: (int(r["count"]), int(r["sum"])) for n, r in by.iterrows()} == mangled
    m = t.memops().to_pandas()
    for row in st["memops"]:
        sel = m[m["kind"].astype(str) == row["kind"]]
        assert (len(sel), int(sel["dur_ns"].sum())) == (row["calls"], row["total_ns"]), row
    assert len(m) == sum(x["calls"] for x in st["memops"])
    api = t.api().to_pandas()
    gpu_api = api[api["domain"].astype(str) != "os"]
    assert len(gpu_api) == sum(x["calls"] for x in st["api"])
    assert t.cpu_ops().num_rows == sum(x["calls"] for x in st["cpu_ops"])
    # The same dict as the CLI's JSON, byte for byte once keys are sorted.
    assert same(st, cli_json(cli, "stats", "--format", "json", path))
    assert same(t.info(), cli_json(cli, "info", "--format", "json", path))


@pytest.mark.parametrize("fmt", ["kineto", "rpd", "nsys", "serving", "kineto-shapes"])
def test_analyze_diff_roofline_equal_the_cli(fmt, fixtures, cli):
    path = fixtures[fmt]
    t = gpuscope.load(path)
    assert same(gpuscope.analyze(t), cli_json(cli, "analyze", "--format", "json", path))
    assert same(gpuscope.analyze(t, idle_gap_us=5, evidence=2),
                cli_json(cli, "analyze", "--format", "json", "--idle-gap-us", "5", "--evidence", "2", path))
    assert same(gpuscope.stats(t, steady=True), cli_json(cli, "stats", "--steady", "--format", "json", path))
    assert same(gpuscope.roofline(t), cli_json(cli, "roofline", "--format", "json", "--top", "0", path))
    assert same(gpuscope.whatif(t, gpu_speedup=2, kernels={"a": 1.5}, no_syncs=True),
                cli_json(cli, "whatif", "--format", "json", "--gpu-speedup", "2", "--kernels", "a=1.5",
                         "--no-syncs", path))
    assert same(gpuscope.whatif(t, fix=["host-sync", "gpu-idle"]),
                cli_json(cli, "whatif", "--format", "json", "--fix", "host-sync", "--fix", "gpu-idle", path))
    other = gpuscope.load(fixtures["kineto"])
    assert same(gpuscope.diff(other, t), cli_json(cli, "diff", "--format", "json", fixtures["kineto"], path))


def test_summary_only_source(cli):
    # rocprof --stats CSV: totals without events - the tables are empty, stats has the rows.
    path = os.path.join(DATA, "rocprof_v1", "results.stats.csv")
    t = gpuscope.load(path)
    assert t.kernels().num_rows == 0 and gpuscope.stats(t)["kernels"]
    assert same(gpuscope.stats(t), cli_json(cli, "stats", "--format", "json", path))
    with pytest.raises(gpuscope.TraceError):
        gpuscope.report(t, "/tmp/never.html")


def test_links_and_zero_copy(fixtures):
    t = gpuscope.load(fixtures["kineto-shapes"])
    k, ops, api = t.kernels(), t.cpu_ops(), t.api()
    # Every kernel's launch is an API row and its op a CPU op row of the same trace.
    ids = set(api.column("id").to_pylist())
    assert set(k.column("launch_id").to_pylist()) <= ids
    op_names = dict(zip(ops.column("id").to_pylist(), ops.column("name").to_pylist()))
    names = [op_names[o] for o in k.column("op_id").to_pylist()]
    assert "aten::addmm" in names and "aten::convolution" in names
    args = dict(zip(ops.column("name").to_pylist(), ops.column("args").to_pylist()))
    assert json.loads(args["aten::addmm"])["Input Dims"][1] == [128, 256]
    # start_ns points into the trace's own column: the same memory in every export.
    a = t.kernels().column("start_ns").chunk(0).buffers()[1].address
    b = t.kernels().column("start_ns").chunk(0).buffers()[1].address
    assert a == b
    assert t.kernels().column("grid").type == pa.list_(pa.field("item", pa.uint32(), nullable=False), 3)


def test_iterations_and_frames(fixtures):
    t = gpuscope.load(fixtures["kineto"])
    it = t.iterations().to_pandas()
    assert list(it["number"]) == [1, 2]
    k = t.kernels().to_pandas()
    assert set(k["iteration"].dropna().astype(int)) <= {1, 2}
    frames = t.python_frames().to_pandas()
    assert frames["name"].astype(str).str.contains("forward").any()
    assert t.annotations().to_pandas()["name"].astype(str).str.startswith("ProfilerStep#").sum() == 2


def test_errors_raise_trace_error(tmp_path):
    for bad in ("bad_not_json.json", "bad_empty_file.json", "bad_unknown_format.json"):
        with pytest.raises(gpuscope.TraceError) as e:
            gpuscope.load(os.path.join(DATA, bad))
        assert "\n" not in str(e.value) and bad in str(e.value)
    with pytest.raises(gpuscope.TraceError):
        gpuscope.load(tmp_path / "missing.json")
    t = gpuscope.load(os.path.join(DATA, "kineto_cuda_small.json"))
    with pytest.raises(ValueError):
        gpuscope.analyze(t, no_such_threshold=3)
    with pytest.raises(gpuscope.TraceError):
        gpuscope.roofline(t, device="TPUv5")
    for bad in ({"gpu_speedup": 0}, {"kernels": {"([": 2}}, {"kernels": {"gemm": -1}}, {"fix": ["no-such-rule"]}):
        with pytest.raises(gpuscope.TraceError):
            gpuscope.whatif(t, **bad)


def test_partial_read_warns():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        t = gpuscope.load(os.path.join(DATA, "bad_truncated.json"))
    assert any("kept the" in str(x.message) for x in w), [str(x.message) for x in w]
    assert t.kernels().num_rows >= 0


def test_writers(fixtures, tmp_path, cli):
    t = gpuscope.load(fixtures["kineto"])
    files = gpuscope.convert(t, tmp_path / "t.rpd")
    assert files[0]["path"].endswith("t.rpd") and files[0]["bytes"] > 0
    back = gpuscope.load(tmp_path / "t.rpd")
    assert back.kernels().num_rows == t.kernels().num_rows
    csv_files = t.events_csv(tmp_path / "tables")
    assert any(f["path"].endswith("events.csv") for f in csv_files)
    r = gpuscope.report(t, tmp_path / "r.html")
    assert r["bytes"] == os.path.getsize(tmp_path / "r.html") > 10_000


def test_gil_is_released_while_loading(tmp_path):
    # A trace large enough to take a while: 200,000 kernels with their launches.
    ev = []
    for i in range(200_000):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": i * 10.0, "dur": 2.0, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": f"k{i % 50}", "pid": 0, "tid": 7,
                   "ts": i * 10.0 + 5, "dur": 4.0, "args": {"correlation": i + 1, "device": 0, "stream": 7}})
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"traceEvents": ev}))
    ticks = [0]
    done = threading.Event()

    def load():
        gpuscope.load(path, threads=1)
        done.set()

    th = threading.Thread(target=load)
    start = time.perf_counter()
    th.start()
    while not done.is_set():
        ticks[0] += 1
        time.sleep(0)
    th.join()
    elapsed = time.perf_counter() - start
    # A load holding the GIL would leave this loop no turn until it ends; released, the loop
    # spins thousands of times (about a microsecond each) while the file is read.
    assert elapsed > 0.05 and ticks[0] > 1000, (ticks[0], elapsed)


def test_run_records_a_program(tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "run.json"
    # This interpreter (it has torch): "python3" on PATH may be another one (pyenv's shims put
    # their own first under ctest).
    code = gpuscope.run([sys.executable, "-c", "import torch; torch.ones(4).sum()"], output=out, backend="torch")
    assert code == 0 and out.exists()
    assert gpuscope.load(out).cpu_ops().num_rows > 0


def test_notebook_example_runs(tmp_path):
    pytest.importorskip("matplotlib")
    import runpy
    import sys

    notebook = os.path.join(os.path.dirname(DATA), "..", "examples", "notebook.py")
    argv = sys.argv
    sys.argv = [notebook, os.path.join(DATA, "kineto_cuda_small.json"), str(tmp_path)]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ns = runpy.run_path(notebook, run_name="__main__")
    finally:
        sys.argv = argv
    assert os.path.getsize(tmp_path / "notebook_latency.png") > 5_000
    assert list(ns["top"].index)[0] and ns["top"]["calls"].sum() == ns["kernels"].shape[0]
    assert list(ns["findings"]["rule"]) == [f["rule"] for f in ns["report"]["findings"]]


def test_folder_of_different_runs_needs_merge(tmp_path):
    import csv
    import shutil

    folder = tmp_path / "runs"
    shutil.copytree(os.path.join(DATA, "rocprofv3_csv_A"), folder)
    for p in folder.iterdir():  # the GPU side of another run, three days later
        if not p.name.endswith(("kernel_trace.csv", "memory_copy_trace.csv", "memory_allocation_trace.csv")):
            continue
        rows = list(csv.reader(p.open(newline="")))
        cols = [i for i, h in enumerate(rows[0]) if h.endswith("_Timestamp")]
        for row in rows[1:]:
            for i in cols:
                row[i] = str(int(row[i]) + 3 * 86400 * 10**9)
        with p.open("w", newline="") as f:
            csv.writer(f, quoting=csv.QUOTE_NONNUMERIC).writerows(rows)
    with pytest.raises(gpuscope.TraceError, match="different runs"):
        gpuscope.load(folder)
    assert gpuscope.load(folder, merge=True).kernels().num_rows == 3


def test_paths_with_nul_are_refused():
    good = os.path.join(DATA, "kineto_cuda_small.json")
    with pytest.raises(ValueError, match="NUL"):
        gpuscope.load(good + "\0ignored")
    t = gpuscope.load(good)
    with pytest.raises(ValueError, match="NUL"):
        gpuscope.convert(t, "/tmp/x\0.json")


def test_memory_equals_the_cli_and_its_events_are_a_table(tmp_path, cli):
    # Two steps of one allocation each on GPU 0, never freed: 1 MB and 2 MB, totals recorded.
    ev, total = [], 0
    for s, nbytes in enumerate((1 << 20, 2 << 20)):
        total += nbytes
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{s}", "pid": 1, "tid": 1,
                   "ts": 100 * s, "dur": 100})
        ev.append({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 100 * s + 10,
                   "args": {"Device Type": 1, "Device Id": 0, "Addr": 4096 * (s + 1), "Bytes": nbytes,
                            "Total Allocated": total}})
    path = str(tmp_path / "mem.json")
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)
    t = gpuscope.load(path)
    d = gpuscope.memory(t, top=5)
    assert same(d, cli_json(cli, "memory", "--format", "json", "--top", "5", path))
    assert d["devices"][0]["peak_allocated_bytes"] == 3 << 20
    m = t.memory()
    assert isinstance(m, pa.Table) and m.num_rows == 2
    assert m.column("bytes").to_pylist() == [1 << 20, 2 << 20]
    assert m.column("reserved_bytes").to_pylist() == [None, None]
    assert m.column("device").to_pylist() == [0, 0]
    with pytest.raises(ValueError):
        gpuscope.memory(t, top=0)
    # stats(by="memory"): the same table as the CLI's, both blocks still allocated at the end.
    by_op = gpuscope.stats(t, by="memory")
    assert same(by_op, cli_json(cli, "stats", "--by", "memory", "--format", "json", path))
    assert [(r["allocations"], r["allocated_bytes"], r["alive_bytes"]) for r in by_op["memory"]] == [
        (2, 3 << 20, 3 << 20)], by_op


def test_align_clocks_shifts_a_gpu_clock_behind_the_hosts(tmp_path):
    """load(align_clocks=True): kernels that start 40 and 30 us before their launches are shifted
    by the larger lead (`--align-clocks`), said in a warning; without it nothing moves."""
    def call(ts, corr):
        return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                "ts": ts, "dur": 5.0, "args": {"correlation": corr}}

    def kernel(ts, corr):
        return {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": ts, "dur": 3.0,
                "args": {"correlation": corr, "device": 0, "stream": 7}}

    path = tmp_path / "behind.json"
    path.write_text(json.dumps({"traceEvents": [call(100.0, 1), call(200.0, 2),
                                                kernel(60.0, 1), kernel(170.0, 2)]}))
    plain = gpuscope.load(str(path)).kernels().column("start_ns").to_pylist()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        aligned = gpuscope.load(str(path), align_clocks=True).kernels().column("start_ns").to_pylist()
    assert [b - a for a, b in zip(plain, aligned)] == [40_000, 40_000]
    assert any("events shifted by +40" in str(w.message) for w in caught), [str(w.message) for w in caught]


def test_analyze_warns_what_the_cli_says_on_stderr(tmp_path):
    """analyze(phase=...) over interleaved serving steps: the note the CLI prints on stderr is a
    warning here; the result is the CLI's JSON."""
    gen = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "serving_phases.py")
    path = str(tmp_path / "serve.json")
    subprocess.run([sys.executable, gen, path, "100", "8"], check=True)
    t = gpuscope.load(path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d = gpuscope.analyze(t, phase="prefill")
    assert any("40 steps of other phases" in str(w.message) for w in caught), \
        [str(w.message) for w in caught]
    assert d["summary"]["iteration_source"].endswith("prefill steps only")


@pytest.mark.parametrize("fmt", ["kineto", "kineto-rocm", "kineto-shapes", "rocprofv3-json", "nsys"])
def test_kernel_category_column_matches_stats_by_category(fmt, fixtures):
    """kernels()'s category column summed per category is `stats --by category` (whose copy
    also holds the memory operations)."""
    t = gpuscope.load(fixtures[fmt])
    k = t.kernels().to_pandas()
    assert "category" in k.columns
    got = {c: (0, 0) for c in ("gemm", "attention", "conv", "norm", "fused", "elementwise",
                               "reduction", "copy", "communication", "other")}
    for c, g in k.groupby(k["category"].astype(str), observed=True)["dur_ns"]:
        got[c] = (len(g), int(g.sum()))
    m = t.memops().to_pandas()
    calls, total = got["copy"]
    got["copy"] = (calls + len(m), total + int(m["dur_ns"].sum()))
    want = {x["category"]: (x["calls"], x["total_ns"]) for x in gpuscope.stats(t, by="category")["categories"]}
    assert got == want
