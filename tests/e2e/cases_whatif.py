"""End-to-end: gpuscope whatif on hand-made traces whose answer is known exactly, its outputs and
its refusals."""
import csv
import io
import json
import os
import sys
import tempfile

from harness import PLANTED, run, test

sys.path.insert(0, os.path.dirname(PLANTED))
import simulate  # noqa: E402 - the program simulator: the truth of a changed run


def chain_trace(path):
    """One thread launches 10 kernels of 100 us (k_a, k_b alternating) within 20 us, so that
    they queue back to back on one stream, then synchronizes: the GPU is the critical path."""
    ev = []
    for i in range(10):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": 1000 + 2 * i, "dur": 1, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k_a" if i % 2 == 0 else "k_b", "pid": 0, "tid": 7,
                   "ts": 1010 + 100 * i, "dur": 100,
                   "args": {"correlation": i + 1, "device": 0, "stream": 7}})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1,
               "ts": 1030, "dur": 982, "args": {"correlation": 0}})
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)


@test
def whatif_replays_faster_kernels_exactly_on_a_gpu_bound_chain():
    with tempfile.TemporaryDirectory() as tmp:
        t = os.path.join(tmp, "chain.json")
        chain_trace(t)
        r = run("whatif", "--format", "json", "--gpu-speedup", "2", t)
        assert r.returncode == 0, r.stderr
        d = json.loads(r.stdout)
        assert set(d) >= {"scenario", "window", "before", "after", "saving_ns", "saving_percent", "edits",
                          "critical_path"}, d.keys()
        assert d["scenario"] == "--gpu-speedup 2", d["scenario"]
        # 10 queued kernels of 100 us at half their time: 500 us sooner.
        assert d["saving_ns"] == 500_000, (d["saving_ns"], d["before"], d["after"])
        assert d["before"]["critical_path"][0]["category"] == "GPU kernels", d["before"]
        # Half the kernels 2x faster: 250 us; factors multiply with --gpu-speedup.
        d = json.loads(run("whatif", "--format", "json", "--kernels", "k_a=2", t).stdout)
        assert d["saving_ns"] == 250_000, d["saving_ns"]
        d = json.loads(run("whatif", "--format", "json", "--kernels", "^k_=2", "--gpu-speedup", "2", t).stdout)
        assert d["saving_ns"] == 750_000, d["saving_ns"]
        # Nothing asked: nothing changes.
        d = json.loads(run("whatif", "--format", "json", t).stdout)
        assert d["saving_ns"] == 0 and d["scenario"] == "nothing changed", d
        rows = list(csv.DictReader(io.StringIO(run("whatif", "--format", "csv", "--copies", "3", t).stdout)))
        assert [x["side"] for x in rows] == ["before", "after"] and rows[0]["window_ns"] == rows[1]["window_ns"], rows
        text = run("whatif", "--gpu-speedup", "2", t, env={"COLUMNS": "100"}).stdout
        assert "Saves            500.000 us" in text and all(len(x) <= 100 for x in text.splitlines()), text


@test
def whatif_refuses_bad_scenarios_in_one_line():
    with tempfile.TemporaryDirectory() as tmp:
        t = os.path.join(tmp, "chain.json")
        chain_trace(t)
        for args, words in ((["--kernels", "k_a"], "REGEX=X"), (["--kernels", "k_a=0"], "REGEX=X"),
                            (["--kernels", "([=2"], "not a regular expression"),
                            (["--gpu-speedup", "0"], "gpu-speedup")):
            r = run("whatif", *args, t)
            lines = r.stderr.strip().splitlines()
            assert r.returncode == 2 and len(lines) == 1 and words in lines[0], (args, r.stderr)
        h = run("help", "whatif")
        words = " ".join(h.stdout.split())  # wrapped to the terminal's width
        assert h.returncode == 0 and "--no-syncs" in words and "keeps its share of the roof" in words, h.stdout
        rows = json.loads(run("help", "whatif", "--format", "json").stdout)["scenarios"]
        assert [x["option"].split()[0] for x in rows] == ["--gpu-speedup", "--kernels", "--copies", "--host-speedup",
                                                          "--no-syncs", "--graphs", "--without-tracer", "--device", "--fix"], rows


@test
def whatif_predicts_the_simulated_run_with_that_change():
    """tests/planted/simulate.py runs each program again with every kernel, or the host's own work
    between runtime calls, twice as fast (the same jitter draws): `whatif --gpu-speedup 2` and
    `--host-speedup 2` on the first run must predict that run's saving within 15% (or 0.5% of
    the window), on the ideal and the realistic NVIDIA-like and AMD-like machines, GPU-bound and
    CPU-bound, healthy and with every problem planted."""
    def span(trace):
        ev = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
        return round((max(e["ts"] + e["dur"] for e in ev) - min(e["ts"] for e in ev)) * 1000)

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for machine in ("ideal", "nvidia", "amd"):
            for gpu_bound in (True, False):
                for problems in (set(), set(simulate.RULES)):
                    base = simulate.program(gpu_bound, problems, simulate.Physics(machine, 7))
                    path = os.path.join(tmp, "base.json")
                    with open(path, "w") as f:
                        json.dump(base, f)
                    for flag, speed in (("--gpu-speedup", {"gpu_speed": 2}), ("--host-speedup", {"host_speed": 2})):
                        changed = simulate.program(gpu_bound, problems, simulate.Physics(machine, 7, **speed))
                        measured = span(base) - span(changed)
                        r = run("whatif", "--format", "json", flag, "2", path)
                        assert r.returncode == 0, r.stderr
                        d = json.loads(r.stdout)
                        case = (machine, "gpu" if gpu_bound else "cpu", "mixed" if problems else "healthy", flag)
                        tolerance = max(0.15 * abs(measured), 0.005 * d["before"]["window_ns"])
                        assert abs(d["saving_ns"] - measured) <= tolerance, (case, d["saving_ns"], measured)
                        results.append(case)
    assert len(results) == 24, results


@test
def whatif_fix_replays_the_fix_analyze_prices():
    """`whatif --fix RULE` applies the edits analyze prices RULE's findings with: on every
    simulated problem, alone, it saves exactly the finding's standalone saving; with two rules,
    at least what the larger saves alone; an unknown rule or a job rule is refused in one line."""
    with tempfile.TemporaryDirectory() as tmp:
        checked = 0
        for machine in ("ideal", "amd"):
            for problem in simulate.RULES:
                path = os.path.join(tmp, f"{machine}_{problem}.json")
                with open(path, "w") as f:
                    json.dump(simulate.program(True, {problem}, simulate.Physics(machine, 3)), f)
                rule = simulate.RULES[problem][0]
                found = [f for f in json.loads(run("analyze", "--format", "json", path).stdout)["findings"]
                         if f["rule"] == rule]
                d = json.loads(run("whatif", "--format", "json", "--fix", rule, path).stdout)
                assert d["scenario"] == "--fix " + rule, d["scenario"]
                assert d["saving_ns"] == sum(f["standalone_ns"] for f in found[:1]), (machine, problem, d["saving_ns"], found[:1])
                checked += bool(found)
        assert checked >= 10, checked
        both = json.loads(run("whatif", "--format", "json", "--fix", "host-sync", "--fix", "memcpy-sync", path).stdout)
        assert both["scenario"] == "--fix host-sync --fix memcpy-sync", both["scenario"]
        for bad in ("no-such-rule", "rank-straggler"):
            r = run("whatif", "--fix", bad, path)
            assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and bad in r.stderr, r.stderr


@test
def whatif_device_projects_the_kernels_onto_another_gpu():
    """`whatif --device MI300X` on simulated H100 runs predicts the same program simulated on an
    MI300X (its GEMMs at the same share of the bf16 peak; the machine otherwise the same) within
    15% of the change - the simulator shares the projection's assumption that a kernel keeps its
    share of the roof, so this checks the projection's plumbing and the replay, not that
    assumption; projecting onto the trace's own device changes nothing; an unknown device, or
    one combined with --gpu-speedup, is refused in one line."""
    def span(trace):
        ev = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
        return round((max(e["ts"] + e["dur"] for e in ev) - min(e["ts"] for e in ev)) * 1000)

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "h100.json")
        for machine in ("ideal", "nvidia"):
            for gpu_bound in (True, False):
                for problems in (set(), {"slow_gemm", "storm"}):
                    base = simulate.program(gpu_bound, problems, simulate.Physics(machine, 7))
                    there = simulate.Physics(machine, 7)
                    there.device, there.peak = simulate.MI300X, simulate.MI300X_BF16_FLOP_PER_NS
                    measured = span(base) - span(simulate.program(gpu_bound, problems, there))
                    with open(path, "w") as f:
                        json.dump(base, f)
                    d = json.loads(run("whatif", "--format", "json", "--device", "MI300X", path).stdout)
                    assert d["scenario"] == "--device MI300X", d["scenario"]
                    tolerance = max(0.15 * abs(measured), 0.005 * d["before"]["window_ns"])
                    case = (machine, gpu_bound, sorted(problems))
                    assert abs(d["saving_ns"] - measured) <= tolerance, (case, d["saving_ns"], measured)
                    same = json.loads(run("whatif", "--format", "json", "--device", "H100-SXM", path).stdout)
                    assert same["saving_ns"] == 0, (case, same["saving_ns"])
        for args in (("--device", "TPUv5"), ("--device", "MI300X", "--gpu-speedup", "2")):
            r = run("whatif", *args, path)
            assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)
