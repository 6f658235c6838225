"""End-to-end: `gpuscope run --delay/--duration` with every backend (the torch hook for real,
stand-ins for rocprofv3 and nsys), the program's exit code passed through, a missing tracer named
in one line with how to install it, and `help` listing every topic it serves."""
import json
import os
import re
import subprocess
import sys
import tempfile

import harness
from cases_run import stand_in
from harness import need_torch, run, runs_programs, test, timed

# Labels each stretch of its run with a record_function named after the second it falls in,
# then exits with the code it is given.
TIMED_PROGRAM = """import sys, time, torch
from torch.profiler import record_function
t0 = time.time()
x = torch.randn(64, 64)
while time.time() - t0 < float(sys.argv[1]):
    with record_function("second-%d" % int(time.time() - t0)):
        x = torch.tanh(x @ x)
    time.sleep(0.002)
print("ran", flush=True)
sys.exit(int(sys.argv[2]))
"""


@test
@runs_programs
@timed
def run_delay_starts_the_torch_profiler_inside_the_run():
    need_torch()
    with tempfile.TemporaryDirectory() as tmp:
        prog = os.path.join(tmp, "prog.py")
        with open(prog, "w") as f:
            f.write(TIMED_PROGRAM)
        out = os.path.join(tmp, "w.json")
        r = run("run", "--delay", "1.5", "--duration", "1", "-o", out, "--", sys.executable, prog, "4", "0")
        # The program's exit code, not SIGALRM's 142 (an alarm that outlived the window).
        assert r.returncode == 0 and "ran" in r.stdout, (r.returncode, r.stderr[-1500:])
        with open(out) as f:
            names = {e.get("name") for e in json.load(f)["traceEvents"]}
        seconds = sorted(int(n.split("-")[1]) for n in names if n and re.fullmatch(r"second-\d+", n))
        # Profiled from 1.5 s into the run (the program's clock starts a little after the hook's)
        # for 1 s: the labels of seconds 1 and 2, never the first second nor the last.
        assert seconds, names
        span = json.loads(run("info", "--format", "json", out).stdout)["span"]["duration_ns"]
        if harness.timings_judged():
            assert set(seconds) <= {1, 2}, seconds
            assert 500_000_000 < span < 1_600_000_000, span
        # The program's own code passes through, with a window and without.
        r = run("run", "--delay", "0.5", "--duration", "0.5", "-o", out, "--", sys.executable, prog, "1.5", "7")
        assert r.returncode == 7 and "program exit code 7" in r.stderr, (r.returncode, r.stderr[-1500:])
        # A program that ends before the delay: said, and its code kept.
        r = run("run", "--delay", "60", "-o", out, "--", sys.executable, prog, "0.2", "3")
        assert r.returncode == 3 and "before --delay 60: nothing was profiled" in r.stderr, (r.returncode, r.stderr[-1500:])


@test
@runs_programs
def run_delay_and_duration_reach_rocprofv3_and_nsys():
    with tempfile.TemporaryDirectory() as tmp:
        got = os.path.join(tmp, "args.json")
        env = stand_in(tmp, "rocprofv3", f"""
import json, subprocess, sys
a = sys.argv[1:]
json.dump(a, open({got!r}, "w"))
sys.exit(subprocess.call(a[a.index("--") + 1:]))
""")
        r = subprocess.run([harness.GPUSCOPE, "run", "--backend", "rocprofv3", "--delay", "1.5", "--duration", "2",
                            "-o", os.path.join(tmp, "r.db"), "--", "sh", "-c", "exit 5"],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 5, r.stderr  # no trace from the stand-in: the program's code
        a = json.load(open(got))
        assert a[a.index("--collection-period") + 1] == "1500:2000:1", a
        assert a[a.index("--collection-period-unit") + 1] == "msec", a
        env = stand_in(tmp, "nsys", f"""
import json, subprocess, sys
a = sys.argv[1:]
if a[0] == "profile":
    json.dump(a, open({got!r}, "w"))
    sys.exit(subprocess.call(a[a.index("-o") + 2:]))
""")
        r = subprocess.run([harness.GPUSCOPE, "run", "--backend", "nsys", "--delay", "3", "--duration", "4",
                            "-o", os.path.join(tmp, "r.sqlite"), "--", "sh", "-c", "exit 6"],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 6, r.stderr
        a = json.load(open(got))
        assert "--delay=3" in a and "--duration=4" in a, a
        r = subprocess.run([harness.GPUSCOPE, "run", "--backend", "nsys", "--delay", "0.5", "--", "true"],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 2 and "whole seconds" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


@test
def run_names_a_missing_tracer_and_how_to_install_it():
    with tempfile.TemporaryDirectory() as tmp:
        env = {"PATH": tmp + ":/usr/bin:/bin"}  # no nsys, no rocprofv3
        for tool, how in (("nsys", "install Nsight Systems"), ("rocprofv3", "rocprofiler-sdk")):
            r = run("run", "--backend", tool, "-o", os.path.join(tmp, "t.rpd"), "--", "/bin/true", env=env)
            lines = r.stderr.strip().splitlines()
            assert r.returncode == 2 and len(lines) == 1, (tool, r.returncode, r.stderr)
            assert f"{tool} is not on PATH" in lines[0] and how in lines[0] and "127" not in lines[0], lines
        r = run("run", "--backend", "torch", "--", os.path.join(tmp, "no-such-program"))
        assert r.returncode == 2 and "no such program" in r.stderr and "127" not in r.stderr, r.stderr


@test
def help_lists_every_topic_it_serves():
    topics = run("help").stdout.split("the topics\n")[1]
    listed = [line.split()[0] for line in topics.splitlines() if line.startswith("  ")]
    assert listed == ["categories", "findings", "formats", "problems", "roofline", "tables", "terms", "whatif"], listed
    for topic in listed:
        r = run("help", topic, "--format", "json")
        assert r.returncode == 0 and json.loads(r.stdout)["topic"] == topic, (topic, r.stderr)
    r = run("help", "nope")
    assert r.returncode != 0
    md = run("help", "tables", "--format", "markdown").stdout
    with open(os.path.join(harness.DATA, "..", "..", "docs", "tables.md")) as f:
        assert f.read() == md, "docs/tables.md is stale: gpuscope help tables --format markdown > docs/tables.md"
