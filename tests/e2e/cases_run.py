"""End-to-end: gpuscope run with every backend (stand-ins for rocprofv3 and nsys), exit codes, signals, windows, cleanup."""
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
from harness import DATA, EXAMPLES, PLANTED, SAMPLES, Skip, data, need_torch, program, run, runs_programs, sql_fixture, test, timed


@test
@runs_programs
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
        # PyTorch names the frame by its def line: the caller narrows it (issue 56).
        assert storm[0]["where"]["caller"].endswith(": main"), storm[0]["where"]
        text = run("analyze", os.path.join(tmp, "slow.json")).stdout
        assert re.search(r"where: +in `slow_activation`, defined at \S*inference_slow\.py:\d+ .*\n +called from "
                         r"`main`, defined at line \d+\n", text), text[-3000:]
        per_step = [f for f in found["slow"] if f["rule"] == "host-sync" and f["where"]["python"].endswith(": main")]
        assert per_step and "1.0 per iteration" in per_step[0]["detail"], [(f["rule"], f["where"]) for f in found["slow"]]
        assert not [f for f in found["fast"] if f["rule"] in ("cpu-op-storm", "host-sync")], found["fast"]
        # Without -o: ./gpuscope-<program>-<time>.rpd in the working directory, which keeps the
        # Python frames and CPU ops: analyze on it finds the same problem at the same line.
        r = subprocess.run([harness.GPUSCOPE, "run", "--", sys.executable, os.path.join(EXAMPLES, "inference_slow.py")],
                           cwd=tmp, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr[-1000:]
        rpd = [f for f in os.listdir(tmp) if f.startswith("gpuscope-inference_slow-") and f.endswith(".rpd")]
        assert rpd, os.listdir(tmp)
        d = json.loads(run("analyze", "--format", "json", os.path.join(tmp, rpd[0])).stdout)
        storm = [f for f in d["findings"] if f["rule"] == "cpu-op-storm"]
        assert storm and storm[0]["where"]["python"].endswith("slow_activation"), d["findings"]


@test
@runs_programs
@timed
def demo_runs_its_examples_long_enough_that_diff_is_significant():
    """Issue 56: scripts/demo (with a built binary: GPUSCOPE_DEMO_BINARY skips the set-up) prints
    the time of each stage and runs the examples with enough steps (30 or more) that its diff
    finds the fixed run significantly faster, on a loaded machine too."""
    need_torch()
    demo = os.path.join(os.path.dirname(EXAMPLES), "scripts", "demo")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, GPUSCOPE_DEMO_BINARY=harness.GPUSCOPE, GPUSCOPE_DEMO_OUT=tmp, COLUMNS="100",
                   PATH=os.path.dirname(sys.executable) + ":" + os.environ["PATH"])
        r = subprocess.run([demo], env=env, capture_output=True, text=True, timeout=900)
        assert r.returncode == 0, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
        stages = dict(re.findall(r"^\[stage\] (.+?)\s+(\d+) s$", r.stdout, re.M))
        for name in ("run the slow example", "run the fast example", "diff", "report", "convert",
                     "scripts/demo total"):
            assert name in stages, (name, stages)
        d = json.loads(run("diff", "--format", "json", os.path.join(tmp, "slow.rpd"), os.path.join(tmp, "fast.rpd")).stdout)
        s = d["summary"]
        assert min(s["iterations"]) >= 25, s["iterations"]  # 30 steps each, warm-up left out
        shown = r.stdout[r.stdout.index("=== gpuscope diff"):r.stdout.index("=== gpuscope report")]
        assert "Mann-Whitney rank test" in shown, shown[-3000:]
        if harness.timings_judged():
            assert s["verdict"] == "faster" and s["p_value"] is not None and s["p_value"] < 0.001, s
            assert "faster" in shown, shown[-3000:]


@test
@runs_programs
def run_passes_exit_codes_exceptions_and_signals_through():
    need_torch()
    with tempfile.TemporaryDirectory() as tmp:
        prog = program(tmp, "import sys, time, torch\n"
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
            # SIGINT at its default in the run: a suite started in the background (`cmd &` in a
            # script) inherits it ignored, and the program then rightly ignores it too.
            p = subprocess.Popen([harness.GPUSCOPE, "run", "-o", out, "--", sys.executable, prog, "forever"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
            assert p.stdout.readline().strip() == "started"
            time.sleep(0.5)
            p.send_signal(sig)
            _, err = p.communicate(timeout=60)
            assert p.returncode == 128 + sig, (sig, p.returncode, err[-1500:])
            assert os.path.exists(out) and json.loads(run("info", "--format", "json", out).stdout)["counts"]["CPU ops"] > 0


@test
@runs_programs
def run_removes_its_work_directory_on_every_path():
    # The work directory goes to a private $TMPDIR: other gpuscope runs on the machine (another
    # test suite) cannot be mistaken for leftovers.
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as scratch:
        env = dict(os.environ, TMPDIR=scratch)
        # No trace written (not a Python program at all), then an unwritable output.
        r = run("run", "--backend", "torch", "-o", os.path.join(tmp, "q.json"), "--", "true", env=env)
        assert r.returncode == 2 and "no trace was written" in r.stderr, r.stderr
        if importlib.util.find_spec("torch") is not None:
            prog = os.path.join(tmp, "prog.py")
            with open(prog, "w") as f:
                f.write("import torch\nx = torch.ones(4) * 2\n")
            blocker = os.path.join(tmp, "a-file")  # a directory cannot be made under a file
            open(blocker, "w").close()
            r = run("run", "-o", os.path.join(blocker, "dir", "t.json"), "--", sys.executable, prog, env=env)
            assert r.returncode == 2 and "cannot create the directory" in r.stderr, r.stderr
        left = [f for f in os.listdir(scratch) if f.startswith("gpuscope-")]  # torch keeps its own
        assert left == [], f"gpuscope run left its work directory behind: {left}"


@test
@runs_programs
@timed
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
        assert 0 < span, span
        if harness.timings_judged():
            assert span < 900_000_000, span  # only the 0.5 s window, not the 2 s run
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
@runs_programs
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
        r = subprocess.run([harness.GPUSCOPE, "run", "--stats", "-o", out, "--", "sh", "-c", "echo hello; exit 4"],
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
        r = subprocess.run([harness.GPUSCOPE, "run", "--stats", "-o", out, "--", "true"], capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
        assert "(nsys)" in r.stdout and "pageable" in r.stdout, r.stdout[:1500]
        # Any format convert writes: the nsys export converted to .rpd, read back the same.
        rpd = os.path.join(tmp, "run.rpd")
        r = subprocess.run([harness.GPUSCOPE, "run", "--stats", "-o", rpd, "--", "true"], capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
        # Labelled as the .rpd it now is, as every later command labels it - not as the export.
        assert "run.rpd  (rpd)" in r.stdout and "(nsys)" not in r.stdout, r.stdout[:300]
        assert os.path.exists(os.path.join(tmp, "run.nsys-rep")) and "run.nsys-rep" in r.stderr, r.stderr
        assert json.loads(run("stats", "--format", "json", rpd).stdout)["kernels"] == \
            json.loads(run("stats", "--format", "json", out).stdout)["kernels"]
        # Written by `run` (not "convert" of its temporary file), recorded by Nsight Systems.
        producer = json.loads(run("info", "--format", "json", rpd).stdout)["source"]["producer"]
        assert producer.startswith("gpuscope run, recorded by NVIDIA Nsight Systems"), producer
        # A name that says no format is refused before the program runs.
        r = subprocess.run([harness.GPUSCOPE, "run", "-o", os.path.join(tmp, "x.trace"), "--", "sh", "-c", "echo ran"],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 2 and "ran" not in r.stdout and len(r.stderr.strip().splitlines()) == 1, r
        assert ".rpd" in r.stderr and "--to" not in r.stdout, r.stderr
