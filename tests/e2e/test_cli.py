#!/usr/bin/env python3
"""End-to-end tests: run the gpuscope binary on the repository's own fixtures (tests/data) and
check what a user sees - exit codes, one-line errors, tables, CSV and the JSON contract.
Stdlib only; prints 'N passed, N failed'."""
import argparse
import csv
import io
import importlib.util
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
TESTS = []


class Skip(Exception):
    """A test that cannot run here (says why); the suite still passes."""


def test(fn):
    TESTS.append(fn)
    return fn


def run(*args, env=None):
    e = dict(os.environ, COLUMNS="120")
    e.update(env or {})
    return subprocess.run([GPUSCOPE, *args], capture_output=True, text=True, env=e)


def data(name):
    return os.path.join(DATA, name)


def sql_fixture(name, tmp):
    """Builds the SQLite file of a committed .sql fixture (tests/data/*.sql) in `tmp`."""
    path = os.path.join(tmp, name.replace(".sql", ".sqlite"))
    db = sqlite3.connect(path)
    with open(data(name)) as f:
        db.executescript(f.read())
    db.commit()
    db.close()
    return path


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
    kineto = table_headers(run("stats", data("kineto_cuda_small.json")).stdout)
    for path in ("rocprofv3_small_results.json", "rocprofv3_csv_B", "rocprof_v1/results.json"):
        r = run("stats", data(path))
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


PLANTED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "planted", "make_planted.py")


@test
def analyze_finds_every_planted_problem_with_its_cost_and_place():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, PLANTED, tmp], check=True)
        with open(os.path.join(tmp, "planted.json")) as f:
            planted = json.load(f)
        for name, plants in planted.items():
            r = run("analyze", "--format", "json", os.path.join(tmp, name))
            assert r.returncode == 0, (name, r.stderr)
            d = json.loads(r.stdout)
            assert d["summary"]["iterations"] == 10, (name, d["summary"])
            for rule, want in plants.items():
                found = [f for f in d["findings"] if f["rule"] == rule]
                assert found, (name, rule, [f["rule"] for f in d["findings"]])
                best = max(found, key=lambda f: f["impact_ns"])
                assert abs(best["impact_ns"] - want["impact_ns"]) <= 0.2 * want["impact_ns"], (name, rule, best["impact_ns"], want)
                for key in ("python", "op", "kernel"):
                    if key in want:
                        assert best["where"][key] == want[key], (name, rule, key, best["where"], want)
            if not plants:  # the healthy variants stay quiet
                loud = [(f["rule"], f["severity"]) for f in d["findings"] if f["severity"] not in ("low", "info")]
                assert not loud, (name, loud)


@test
def analyze_real_pytorch_cpu_runs():
    """Real PyTorch 2.x runs on the CPU: the per-element loop and the per-step .item() are found
    in the slow program, nothing in the vectorised one."""
    try:
        import torch  # noqa: F401
    except ImportError:
        raise Skip("PyTorch is not installed (scripts/install-deps installs torch==2.13.0)")
    workload = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_cpu_workload.py")
    with tempfile.TemporaryDirectory() as tmp:
        found = {}
        for mode in ("slow", "fast"):
            out = os.path.join(tmp, mode + ".json")
            subprocess.run([sys.executable, workload, out, mode], check=True, capture_output=True)
            d = json.loads(run("analyze", "--format", "json", out).stdout)
            assert d["summary"]["iteration_source"] == "ProfilerStep markers" and d["summary"]["iterations_total"] == 6, d["summary"]
            found[mode] = d["findings"]
        storm = [f for f in found["slow"] if f["rule"] == "cpu-op-storm"]
        assert storm and storm[0]["where"]["python"].endswith("slow_activation"), storm
        assert storm[0]["severity"] == "high", storm[0]
        per_step = [f for f in found["slow"] if f["rule"] == "host-sync" and f["where"]["python"].endswith(": main")]
        assert per_step and "1.0 per iteration" in per_step[0]["detail"], [f["where"] for f in found["slow"]]
        assert not [f for f in found["fast"] if f["rule"] in ("cpu-op-storm", "host-sync")], found["fast"]


@test
def diff_before_after_noise_and_the_ci_gate():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, PLANTED, tmp], check=True)
        p = lambda n: os.path.join(tmp, n)  # noqa: E731
        r = run("diff", "--format", "json", p("slow.json"), p("healthy.json"))
        assert r.returncode == 0, r.stderr
        d = json.loads(r.stdout)
        s = d["summary"]
        for key in ("iterations", "iteration_mean_ns", "iteration_median_ns", "gpu_busy_pct", "kernel_ns", "memcpy_ns"):
            assert isinstance(s[key], list) and len(s[key]) == 2, key
        assert s["verdict"] == "faster" and s["iteration_mean_ns"] == [3990000, 2990000], s
        kernels = {k["name"]: k for k in d["kernels"]}
        assert set(kernels["gemm_kernel"]) >= {"name", "status", "calls", "total_ns"}
        assert kernels["gemm_kernel"]["calls"] == [20, 40] and kernels["gemm_kernel"]["status"] == "changed"
        cpu = {k["name"]: k for k in d["cpu_ops"]}
        assert cpu["aten::select"]["status"] == "removed", cpu["aten::select"]
        assert {"resolved", "persisting", "new"} == set(d["findings"])
        assert "cpu-op-storm" in {f["rule"] for f in d["findings"]["resolved"]}
        assert [m["name"] for m in d["memops"] if m["status"] == "removed"] == ["DtoH"]
        # Noise only: the rank test sees no change.
        d = json.loads(run("diff", "--format", "json", p("noise_a.json"), p("noise_b.json")).stdout)
        assert d["summary"]["verdict"] == "no significant change" and d["summary"]["p_value"] > 0.05, d["summary"]
        # The gate: 0 when not slower, 1 on a regression beyond the threshold, 2 on bad input.
        assert run("diff", "--fail-if-slower", "5", p("slow.json"), p("healthy.json")).returncode == 0
        assert run("diff", "--fail-if-slower", "5", p("noise_a.json"), p("noise_b.json")).returncode == 0
        r = run("diff", "--fail-if-slower", "5", p("healthy.json"), p("slow.json"))
        assert r.returncode == 1 and "FAIL: slower" in r.stderr, (r.returncode, r.stderr)
        assert run("diff", "--fail-if-slower", "50", p("healthy.json"), p("slow.json")).returncode == 0
        r = run("diff", "--fail-if-slower", "5", p("healthy.json"), p("missing.json"))
        assert r.returncode == 2 and "missing.json" in r.stderr
        # Formats from different tools compare: the .rpd pair.
        r = run("diff", p("slow.rpd"), p("healthy.rpd"))
        assert r.returncode == 0 and "elementwise_add" in r.stdout and "removed" in r.stdout, r.stdout[:2000]
        rows = list(csv.reader(io.StringIO(run("diff", "--format", "csv", p("slow.json"), p("healthy.json")).stdout)))
        assert rows[0][:3] == ["table", "name", "status"] and len(rows) > 5


EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "examples")
SAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "..", "shared", "samples")


def need_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        raise Skip("PyTorch is not installed (scripts/install-deps installs torch==2.13.0)")


@test
def run_profiles_both_examples_unchanged():
    need_torch()
    with tempfile.TemporaryDirectory() as tmp:
        found = {}
        for ex in ("slow", "fast"):
            out = os.path.join(tmp, ex + ".json")
            r = run("run", "--stats", "--analyze", "-o", out, "--", sys.executable, os.path.join(EXAMPLES, f"inference_{ex}.py"))
            assert r.returncode == 0, (ex, r.returncode, r.stderr[-2000:])
            assert f"inference_{ex} on cpu: median step" in r.stdout, r.stdout[:500]  # the program's output passes through
            assert os.path.getsize(out) > 0 and f"trace written to {out}" in r.stderr
            assert "CPU ops:" in r.stdout and "aten::linear" in r.stdout, r.stdout[:3000]
            d = json.loads(run("analyze", "--format", "json", out).stdout)
            found[ex] = d["findings"]
        storm = [f for f in found["slow"] if f["rule"] == "cpu-op-storm"]
        assert storm and storm[0]["where"]["python"].endswith("slow_activation"), found["slow"]
        per_step = [f for f in found["slow"] if f["rule"] == "host-sync" and f["where"]["python"].endswith(": main")]
        assert per_step and "1.0 per iteration" in per_step[0]["detail"], [(f["rule"], f["where"]) for f in found["slow"]]
        assert not [f for f in found["fast"] if f["rule"] in ("cpu-op-storm", "host-sync")], found["fast"]
        # Without -o: ./gpuscope-<program>-<time>.rpd in the working directory, which keeps the
        # Python frames and CPU ops: analyze on it finds the same problem at the same line.
        r = subprocess.run([GPUSCOPE, "run", "--", sys.executable, os.path.join(EXAMPLES, "inference_slow.py")],
                           cwd=tmp, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-1000:]
        rpd = [f for f in os.listdir(tmp) if f.startswith("gpuscope-inference_slow-") and f.endswith(".rpd")]
        assert rpd, os.listdir(tmp)
        d = json.loads(run("analyze", "--format", "json", os.path.join(tmp, rpd[0])).stdout)
        storm = [f for f in d["findings"] if f["rule"] == "cpu-op-storm"]
        assert storm and storm[0]["where"]["python"].endswith("slow_activation"), d["findings"]


@test
def run_passes_exit_codes_exceptions_and_signals_through():
    need_torch()
    with tempfile.TemporaryDirectory() as tmp:
        prog = os.path.join(tmp, "prog.py")
        with open(prog, "w") as f:
            f.write("import sys, time, torch\n"
                    "x = torch.ones(8)\n"
                    "for _ in range(20): x = x * 2\n"
                    "mode = sys.argv[1]\n"
                    "print('started', flush=True)\n"
                    "if mode == 'exit3': sys.exit(3)\n"
                    "if mode == 'raise': raise RuntimeError('boom')\n"
                    "while mode == 'forever': time.sleep(0.05); x = x + 1\n")
        for mode, want in (("exit3", 3), ("raise", 1)):
            out = os.path.join(tmp, mode + ".json")
            r = run("run", "-o", out, "--", sys.executable, prog, mode)
            assert r.returncode == want, (mode, r.returncode, r.stderr[-1500:])
            assert os.path.exists(out) and json.loads(run("info", "--format", "json", out).stdout)["counts"]["CPU ops"] > 0
            if mode == "raise":
                assert "RuntimeError: boom" in r.stderr
        import signal
        import time
        for sig in (signal.SIGINT, signal.SIGTERM):
            # Forwarded to the program, which stops; the trace is still written.
            out = os.path.join(tmp, f"signal{int(sig)}.json")
            p = subprocess.Popen([GPUSCOPE, "run", "-o", out, "--", sys.executable, prog, "forever"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            assert p.stdout.readline().strip() == "started"
            time.sleep(0.5)
            p.send_signal(sig)
            _, err = p.communicate(timeout=60)
            assert p.returncode == 128 + sig, (sig, p.returncode, err[-1500:])
            assert os.path.exists(out) and json.loads(run("info", "--format", "json", out).stdout)["counts"]["CPU ops"] > 0


@test
def run_removes_its_work_directory_on_every_path():
    import glob
    before = set(glob.glob("/tmp/gpuscope-run-*"))
    with tempfile.TemporaryDirectory() as tmp:
        # No trace written (not a Python program at all), then an unwritable output.
        r = run("run", "--backend", "torch", "-o", os.path.join(tmp, "q.json"), "--", "true")
        assert r.returncode == 2 and "no trace was written" in r.stderr, r.stderr
        if importlib.util.find_spec("torch") is not None:
            prog = os.path.join(tmp, "prog.py")
            with open(prog, "w") as f:
                f.write("import torch\nx = torch.ones(4) * 2\n")
            r = run("run", "-o", os.path.join(tmp, "missing", "dir", "t.json"), "--", sys.executable, prog)
            assert r.returncode == 2 and "cannot write the trace" in r.stderr, r.stderr
    assert set(glob.glob("/tmp/gpuscope-run-*")) == before, "gpuscope run left its work directory behind"


@test
def run_profiles_a_window_and_every_python_process():
    need_torch()
    with tempfile.TemporaryDirectory() as tmp:
        prog = os.path.join(tmp, "prog.py")
        with open(prog, "w") as f:
            f.write("import subprocess, sys, time, torch\n"
                    "x = torch.ones(8)\n"
                    "subprocess.run([sys.executable, '-c', 'import torch; print(float((torch.ones(3) * 2).sum()))'])\n"
                    "t0 = time.time()\n"
                    "while time.time() - t0 < 2.0: x = x * 1.0001; time.sleep(0.001)\n")
        out = os.path.join(tmp, "w.json")
        r = run("run", "--delay", "0.8", "--duration", "0.5", "-o", out, "--", sys.executable, prog)
        assert r.returncode == 0 and "6.0" in r.stdout, (r.returncode, r.stderr[-1500:])
        span = json.loads(run("info", "--format", "json", out).stdout)["span"]["duration_ns"]
        assert 0 < span < 900_000_000, span  # only the 0.5 s window, not the 2 s run
        # Without a window, the child interpreter is profiled too; its trace is kept beside.
        out = os.path.join(tmp, "all.json")
        r = run("run", "-o", out, "--", sys.executable, "-c",
                "import subprocess, sys, torch; torch.ones(2) * 3; "
                "subprocess.run([sys.executable, '-c', 'import torch; torch.ones(3) * 2'])")
        assert r.returncode == 0, r.stderr[-1500:]
        extra = [f for f in os.listdir(tmp) if f.startswith("all.json.trace-")]
        assert len(extra) == 1 and "another process's trace" in r.stderr, (os.listdir(tmp), r.stderr[-1500:])


def stand_in(tmp, tool, script):
    """A stand-in for a vendor tracer that is absent here: a script on PATH that checks the arguments
    gpuscope passes and writes a real trace (a sample from ../shared/samples, else a repo fixture)."""
    path = os.path.join(tmp, "bin", tool)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("#!" + sys.executable + "\n" + script)
    os.chmod(path, 0o755)
    return dict(os.environ, PATH=os.path.dirname(path) + ":" + os.environ["PATH"], COLUMNS="120")


@test
def run_rocprofv3_and_nsys_backends_with_stand_ins():
    with tempfile.TemporaryDirectory() as tmp:
        rocpd = os.path.join(SAMPLES, "rocm", "batched_gemm", "rocpd-ck_bmm", "28_results.db")
        if not os.path.exists(rocpd):
            rocpd = sql_fixture("rocpd_small.sql", tmp)
        env = stand_in(tmp, "rocprofv3", f"""
import shutil, subprocess, sys
a = sys.argv[1:]
for flag in ("--kernel-trace", "--memory-copy-trace", "--hip-runtime-trace", "--marker-trace"):
    assert flag in a, (flag, a)
assert a[a.index("--output-format") + 1] == "rocpd", a
d, cmd = a[a.index("-d") + 1], a[a.index("--") + 1:]
rc = subprocess.call(cmd)
shutil.copy({rocpd!r}, d + "/host_28_results.db")
sys.exit(rc)
""")
        out = os.path.join(tmp, "run_results.db")
        r = subprocess.run([GPUSCOPE, "run", "--stats", "-o", out, "--", "sh", "-c", "echo hello; exit 4"],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 4 and "hello" in r.stdout, (r.returncode, r.stderr)
        assert "(rocpd)" in r.stdout and "GPU kernels:" in r.stdout, r.stdout[:1500]
        nsys_db = os.path.join(SAMPLES, "nsys", "cuda-perf-sandbox", "report1.sqlite")
        if not os.path.exists(nsys_db):
            nsys_db = sql_fixture("nsys_small.sql", tmp)
        env = stand_in(tmp, "nsys", f"""
import shutil, subprocess, sys
a = sys.argv[1:]
if a[0] == "profile":
    assert a[a.index("-t") + 1] == "cuda,nvtx,osrt", a
    out = a[a.index("-o") + 1]
    rc = subprocess.call(a[a.index("-o") + 2:])
    open(out + ".nsys-rep", "w").write("stand-in report")
    sys.exit(rc)
assert a[:3] == ["export", "--type", "sqlite"], a
shutil.copy({nsys_db!r}, a[a.index("--output") + 1])
""")
        os.remove(os.path.join(tmp, "bin", "rocprofv3"))  # auto picks nsys now
        out = os.path.join(tmp, "run.sqlite")
        r = subprocess.run([GPUSCOPE, "run", "--stats", "-o", out, "--", "true"], capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
        assert "(nsys)" in r.stdout and "pageable" in r.stdout, r.stdout[:1500]
        # Any format convert writes: the nsys export converted to .rpd, read back the same.
        rpd = os.path.join(tmp, "run.rpd")
        r = subprocess.run([GPUSCOPE, "run", "-o", rpd, "--", "true"], capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
        assert os.path.exists(os.path.join(tmp, "run.nsys-rep")) and "run.nsys-rep" in r.stderr, r.stderr
        assert json.loads(run("stats", "--format", "json", rpd).stdout)["kernels"] == \
            json.loads(run("stats", "--format", "json", out).stdout)["kernels"]
        # A name that says no format is refused before the program runs.
        r = subprocess.run([GPUSCOPE, "run", "-o", os.path.join(tmp, "x.trace"), "--", "sh", "-c", "echo ran"],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 2 and "ran" not in r.stdout and len(r.stderr.strip().splitlines()) == 1, r
        assert ".rpd" in r.stderr and "--to" not in r.stdout, r.stderr


@test
def analyze_report_and_contract():
    r = run("analyze", data("kineto_cuda_small.json"))
    assert r.returncode == 0, r.stderr
    for s in ("Summary", "Steady state", "Per iteration", "GPU busy", "Verdict", "Findings", "host-sync", "fix:"):
        assert s in r.stdout, (s, r.stdout)
    d = json.loads(run("analyze", "--format", "json", data("kineto_cuda_small.json")).stdout)
    assert {"summary", "findings"} <= set(d)
    for key in ("iterations", "iteration_mean_ns", "iteration_median_ns", "iteration_p95_ns", "gpu_busy_pct", "kernel_ns",
                "memcpy_ns", "verdict", "idle_by_cause"):
        assert key in d["summary"], key
    for f in d["findings"]:
        assert {"rule", "severity", "title", "impact_ns", "impact_percent", "where", "evidence", "advice"} <= set(f), f
        assert set(f["where"]) == {"python", "op", "kernel"}
    impacts = [f["impact_ns"] for f in d["findings"] if f["severity"] != "info" and f["rule"] != "low-utilization"]
    assert impacts == sorted(impacts, reverse=True)
    rows = list(csv.reader(io.StringIO(run("analyze", "--format", "csv", data("kineto_cuda_small.json")).stdout)))
    assert rows[0][:4] == ["rule", "severity", "title", "impact_ns"] and len(rows) == len(d["findings"]) + 1
    r = run("analyze", data("rocprof_v1/results.stats.csv"))
    assert r.returncode == 2 and "summary without a timeline" in r.stderr, r.stderr


@test
def help_formats_lists_every_importer_and_writer():
    formats = json.loads(run("help", "formats", "--format", "json").stdout)
    read = {f["name"] for f in formats if f["direction"] == "read"}
    wrote = {f["name"] for f in formats if f["direction"] == "write"}
    assert {"kineto", "nsys", "rpd", "rocpd", "rocprofv3-json", "rocprofv3-csv", "rocprof-db", "rocprof-csv",
            "rocprof-json", "rocprof-raw", "rocprof-stats", "rpd2tracing-json", "gpuscope-csv"} == read, read
    assert wrote == {"json", "rpd", "csv"}, wrote
    # Every reader's name is what `info` reports as the format of a file it read.
    for path, name in ((data("kineto_cuda_small.json"), "kineto"), (data("rocprofv3_small_results.json"), "rocprofv3-json")):
        assert json.loads(run("info", "--format", "json", path).stdout)["source"]["format"] == name
    text = run("help", "formats").stdout
    assert "gpuscope reads" in text and "gpuscope convert writes" in text and ".json.gz" in text, text
    # An unknown file points to the list.
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("hello, not a trace\n")
    try:
        r = run("info", f.name)
        assert r.returncode == 2 and "gpuscope help formats" in r.stderr, r.stderr
    finally:
        os.unlink(f.name)


@test
def help_findings_is_the_documented_list():
    r = run("help", "findings", "--format", "markdown")
    assert r.returncode == 0, r.stderr
    docs = os.path.join(os.path.dirname(DATA), "..", "docs", "findings.md")
    with open(docs) as f:
        assert f.read() == r.stdout, "docs/findings.md is stale: gpuscope help findings --format markdown > docs/findings.md"
    rules = json.loads(run("help", "findings", "--format", "json").stdout)
    assert [x["rule"] for x in rules] == ["gpu-idle", "launch-bound", "cpu-op-storm", "host-sync", "memcpy-in-loop",
                                          "memcpy-sync", "memcpy-pageable", "small-memcpy", "kernel-outlier",
                                          "kernel-hotspot", "low-utilization"]


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
    assert "void at::native::vectorize\u2026" in r.stdout, r.stdout
    full = run("stats", "--full-names", "--by", "kernels", data("kineto_cuda_small.json"))
    assert "vectorized_elementwise_kernel<4, at::native::relu>(int)" in full.stdout
    assert "Pageable" not in r.stdout and "2 pageable" in r.stdout


@test
def stats_mangled_top_and_by():
    r = run("stats", "--format", "json", "--mangled", "--top", "1", "--by", "kernels", data("kineto_cuda_small.json"))
    d = json.loads(r.stdout)
    assert list(d) == ["source", "kernels"] and len(d["kernels"]) == 1
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
def threads_do_not_change_results():
    # A 20 MB trace made from the fixture, parsed with 1 and 4 threads (parallel segments).
    src = json.load(open(data("kineto_cuda_small.json")))
    events = src["traceEvents"]
    big = []
    for copy in range(2000):
        for e in events:
            if e.get("ph") == "X":
                e2 = dict(e, ts=e["ts"] + copy * 5000.0)
                big.append(e2)
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
        assert "4 segments" in four.stderr, four.stderr
        assert json.loads(one.stdout) == json.loads(four.stdout)
    finally:
        os.unlink(path)


@test
def convert_writes_every_format_and_reads_back_the_same():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, PLANTED, tmp], check=True)
        src = os.path.join(tmp, "slow.json")
        want = json.loads(run("stats", "--format", "json", "--mangled", src).stdout)
        want.pop("source")
        for out in ("t.json", "t.json.gz", "t.rpd"):
            path = os.path.join(tmp, out)
            r = run("convert", src, "-o", path)
            assert r.returncode == 0 and r.stdout.startswith("wrote " + path), (out, r.stdout, r.stderr)
            got = json.loads(run("stats", "--format", "json", "--mangled", path).stdout)
            got.pop("source")
            assert got == want, out
        # --to when the name does not say; --format json reports what was written.
        r = run("convert", src, "-o", os.path.join(tmp, "noext"), "--to", "rpd", "--format", "json")
        assert r.returncode == 0 and json.loads(r.stdout)["files"][0]["bytes"] > 0, r.stdout
        # x.csv: events in x.csv, the stats tables beside it; dir/: events.csv + tables inside.
        r = run("convert", src, "-o", os.path.join(tmp, "x.csv"))
        assert r.returncode == 0, r.stderr
        for f in ("x.csv", "x_kernels.csv", "x_memops.csv", "x_api.csv", "x_cpu_ops.csv"):
            assert os.path.getsize(os.path.join(tmp, f)) > 0, f
        r = run("convert", src, "-o", os.path.join(tmp, "tables") + "/")
        assert sorted(os.listdir(os.path.join(tmp, "tables"))) == ["api.csv", "cpu_ops.csv", "events.csv", "kernels.csv", "memops.csv"]
        with open(os.path.join(tmp, "tables", "kernels.csv")) as f:
            assert f.read() == run("stats", "--format", "csv", src).stdout
        # The CSV directory reads back (its events.csv): same tables.
        got = json.loads(run("stats", "--format", "json", "--mangled", os.path.join(tmp, "tables")).stdout)
        got.pop("source")
        assert got == want, "csv round trip"
        # Refusals: one line, exit 2.
        for args, what in ((["-o", os.path.join(tmp, "x.bin")], "cannot tell the output format"),
                           (["-o", "/nonexistent-dir/x.json"], "/nonexistent-dir/x.json")):
            r = run("convert", src, *args)
            assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and what in r.stderr, r.stderr
        stats_only = os.path.join(tmp, "results.stats.csv")
        with open(stats_only, "w") as f:
            f.write('"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n"k",2,200,100,100.0\n')
        r = run("convert", stats_only, "-o", os.path.join(tmp, "s.json"))
        assert r.returncode == 2 and "gpuscope convert" in r.stderr, r.stderr


@test
def report_writes_one_self_contained_page():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, PLANTED, tmp], check=True)
        page = os.path.join(tmp, "r.html")
        r = run("report", os.path.join(tmp, "slow.json"), "-o", page)
        assert r.returncode == 0 and page in r.stdout, r.stderr
        with open(page) as f:
            text = f.read()
        assert text.startswith("<!DOCTYPE html>") and 'id="gpuscope-data"' in text
        assert "<script src" not in text and "<link" not in text and "https://" not in text
        data = json.loads(re.search(r'<script id="gpuscope-data" type="application/json">(.*?)</script>', text, re.S)
                          .group(1).replace("<\\/", "</"))
        analysis = json.loads(run("analyze", "--format", "json", os.path.join(tmp, "slow.json")).stdout)
        assert [f["rule"] for f in data["analysis"]["findings"]] == [f["rule"] for f in analysis["findings"]]
        assert data["timeline"]["events"] and data["timeline"]["iteration"] >= 0, data["timeline"]["iteration"]
        assert data["timeline"]["links"], "launch -> kernel links in the timeline"
        r = run("report", os.path.join(tmp, "missing.json"), "-o", page)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr


def main():
    global GPUSCOPE
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuscope", required=True)
    GPUSCOPE = os.path.abspath(ap.parse_args().gpuscope)
    passed = failed = skipped = 0
    for t in TESTS:
        try:
            t()
            passed += 1
            print(f"ok   {t.__name__}")
        except Skip as e:
            skipped += 1
            print(f"SKIP {t.__name__}: {e}")
        except Exception as e:  # noqa: BLE001 - report every failure, keep going
            failed += 1
            print(f"FAIL {t.__name__}: {type(e).__name__}: {str(e)[:800]}")
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
