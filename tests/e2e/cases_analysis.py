"""End-to-end: analyze on planted problems and real PyTorch CPU runs, diff and its CI gate, help."""
import bisect
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
                # The generator's costs are its layout's, not a measured saving (the simulator
                # test below holds the truths): here the rule and its place are checked.
                assert best["standalone_ns"] > 0, (name, rule, best)
                for key in ("python", "op", "kernel"):
                    if key in want:
                        assert best["where"][key] == want[key], (name, rule, key, best["where"], want)
            if not plants:  # the healthy variants stay quiet
                loud = [(f["rule"], f["severity"]) for f in d["findings"] if f["severity"] not in ("low", "info")]
                assert not loud, (name, loud)


@test
def analyze_prices_simulated_fixes_at_the_measured_saving():
    """tests/planted/simulate.py runs the same program with and without each problem (alone and
    mixed, GPU-bound and CPU-bound) on an ideal machine and on realistic NVIDIA-like and AMD-like
    ones (jittered dispatch gaps and latencies, a bounded launch queue, event waits between
    streams, a communication stream): each finding's saving must match the measured difference of
    the two runs' wall time within 20% (or 0.5% of the window for effects too small to matter,
    plus twice the jitter's own noise: how much two runs of the healthy program differ); healthy
    runs (pinned prefetch, double-buffered event syncs) have nothing above low (low-utilization
    aside on the realistic machines: a measured fact priced 0 - the AMD-like one's dispatch gaps
    leave a CPU-bound program's GPU 41% busy). Each run is analysed as Kineto JSON and as .rpd
    (converted)."""
    sim = os.path.join(os.path.dirname(PLANTED), "simulate.py")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, sim, tmp], check=True)
        with open(os.path.join(tmp, "truth.json")) as f:
            truth = json.load(f)

        def span(name):
            with open(os.path.join(tmp, name + ".json")) as f:
                ev = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
            return round((max(e["ts"] + e["dur"] for e in ev) - min(e["ts"] for e in ev)) * 1000)

        def phase_ns(name):
            """A serving run's time per phase, summed over its steps: a step begins at its
            annotation's start (not before the step before it is done) and is done once the host
            reached its end and the GPU finished what it launched."""
            with open(os.path.join(tmp, name + ".json")) as f:
                ev = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
            steps = sorted((e["ts"], e["ts"] + e["dur"], "prefill" if "context_1" in e["name"] else "decode")
                           for e in ev if e.get("cat") == "user_annotation" and e["name"].startswith("execute_"))
            starts = [s for s, _, _ in steps]
            launched = {e["args"]["correlation"]: e["ts"] for e in ev
                        if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
            gpu_end = [float("-inf")] * len(steps)
            for e in ev:
                at = launched.get(e.get("args", {}).get("correlation")) if e.get("cat") in ("kernel", "gpu_memcpy") else None
                k = bisect.bisect_right(starts, at) - 1 if at is not None else -1
                if k >= 0:
                    gpu_end[k] = max(gpu_end[k], e["ts"] + e["dur"])
            out, done = {}, float("-inf")
            for k, (start, end, phase) in enumerate(steps):
                begin = max(start, done)
                done = max(end, gpu_end[k], begin)
                out[phase] = out.get(phase, 0) + round((done - begin) * 1000)
            return out

        reports = {}

        def analyze(name, ext):
            path = os.path.join(tmp, name + ext)
            if ext == ".rpd" and not os.path.exists(path):  # the same run, read from an .rpd
                r = run("convert", os.path.join(tmp, name + ".json"), "-o", path)
                assert r.returncode == 0, (name, r.stderr)
            if path not in reports:
                r = run("analyze", "--format", "json", path)
                assert r.returncode == 0, (name, r.stderr)
                reports[path] = json.loads(r.stdout)
            return reports[path]

        for ext in (".json", ".rpd"):
            for case, t in truth.items():
                problem = t.get("problem", case)
                d = analyze(problem, ext)
                assert d["summary"]["replay"]["replay_error_percent"] < 2, (problem, ext, d["summary"]["replay"])
                measured = span(problem) - span(t["fixed"])
                window = d["summary"]["replay"]["replayed_ns"]
                machine, bound = problem.split("_")[:2] if problem.startswith(("nv_", "amd_")) else ("", "")
                noise = abs(span(f"{machine}_{bound}_healthy") - span(f"{machine}_{bound}_healthy_rerun")) if machine else 0
                tolerance = max(0.2 * measured, 0.005 * window + 2 * noise)
                found = [f for f in d["findings"] if f["rule"] == t["rule"]]
                if not found:  # a problem that costs this run nothing may go unreported
                    assert measured <= tolerance, (case, ext, t, measured, [f["rule"] for f in d["findings"]])
                    continue
                # A rule with a finding per place (device-copy: the casts and the layout
                # changes of the mixed run): the one at the planted place.
                f = next((x for x in found if t["where"] in x["where"]["python"] + x["where"]["op"]), found[0])
                assert t["where"] in f["where"]["python"] + f["where"]["op"], (case, ext, f["where"])
                assert abs(f["standalone_ns"] - measured) <= tolerance, (case, ext, f["standalone_ns"], measured)
                assert f["pricing"]["baseline_ns"] - f["pricing"]["fixed_ns"] == f["standalone_ns"], (case, f["pricing"])
                assert f["standalone_ns"] <= f["pricing"]["edits_remove_ns"], (case, ext, f["pricing"])
                total = sum(x["impact_ns"] for x in d["findings"])
                assert total <= d["summary"]["combined"]["saving_ns"] <= window, (case, ext, total)
                if t.get("phases"):  # planted in one phase's steps: each phase's saving there
                    with_problem, fixed = phase_ns(problem), phase_ns(t["fixed"])
                    for p in d["phases"]:
                        saved = with_problem[p["name"]] - fixed[p["name"]]
                        said = sum(x["impact_ns"] for x in p["findings"] if x["rule"] == t["rule"])
                        assert abs(said - saved) <= max(0.2 * abs(saved), 0.005 * window + 2 * noise), (
                            case, ext, p["name"], said, saved)
        for ext in (".json", ".rpd"):
            for machine in ("", "nv_", "amd_"):
                for name in ("gpu_healthy", "gpu_double_buffer", "cpu_healthy", "cpu_double_buffer"):
                    loud = [(f["rule"], f["severity"]) for f in analyze(machine + name, ext)["findings"]
                            if f["severity"] not in ("low", "info")
                            and not (machine and f["rule"] == "low-utilization" and f["impact_ns"] == 0)]
                    assert not loud, (machine + name, ext, loud)


@test
@runs_programs
@timed
def analyze_real_pytorch_cpu_runs():
    """Real PyTorch 2.x runs on the CPU: the per-element loop and the per-step .item() are found
    in the slow program, nothing in the vectorised one."""
    try:
        import torch  # noqa: F401
    except ImportError:
        raise Skip("PyTorch is not installed (scripts/install-deps installs torch==2.13.0)")
    workload = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_cpu_workload.py")
    with tempfile.TemporaryDirectory() as tmp:
        # The fixes the slow run's findings predict, all together, against the measured change
        # per iteration (medians: one iteration slowed by a busy machine does not count; the
        # fast run is the same program fixed). Within 25% over; under by up to half: the rewrite
        # removes more than the loop's recorded host time (the profiler's tracing of every
        # Python-level step of the loop, .item()'s own work), which grows with CPU contention
        # (measured here: 0.92x on an idle machine, 0.6x while another build ran). Real timings
        # on a shared machine are noisy: up to three runs of the pair, one must agree.
        attempts = []
        for _ in range(3):
            found, d = {}, {}
            for mode in ("slow", "fast"):
                out = os.path.join(tmp, mode + ".json")
                subprocess.run([sys.executable, workload, out, mode], check=True, capture_output=True)
                d[mode] = json.loads(run("analyze", "--format", "json", out).stdout)
                s = d[mode]["summary"]
                assert s["iteration_source"] == "ProfilerStep markers" and s["iterations_total"] == 6, s
                found[mode] = d[mode]["findings"]
            predicted = d["slow"]["summary"]["combined"]["saving_ns"] / d["slow"]["summary"]["iterations"]
            measured = d["slow"]["summary"]["iteration_median_ns"] - d["fast"]["summary"]["iteration_median_ns"]
            attempts.append((predicted, measured))
            if not harness.timings_judged() or 0.5 * measured <= predicted <= 1.25 * measured:
                break
        else:
            raise AssertionError(f"predicted vs measured saving per iteration (ns): {attempts}")
        storm = [f for f in found["slow"] if f["rule"] == "cpu-op-storm"]
        assert storm and storm[0]["where"]["python"].endswith("slow_activation"), storm
        if harness.timings_judged():  # a share of the measured time
            assert storm[0]["severity"] == "high", storm[0]
        per_step = [f for f in found["slow"] if f["rule"] == "host-sync" and f["where"]["python"].endswith(": main")]
        assert per_step and "1.0 per iteration" in per_step[0]["detail"], [f["where"] for f in found["slow"]]
        assert not [f for f in found["fast"] if f["rule"] in ("cpu-op-storm", "host-sync")], found["fast"]


@test
@runs_programs
def cpu_only_run_has_steps_compute_and_syncs_that_would_block_on_a_gpu():
    """Issue 56: a program run under `gpuscope run` on the CPU, 20 calls of infer_step with no
    annotation: the steps are the repeated frame, the ops' time is CPU op compute, the .item()
    is information that would block on a GPU, and stats says in one line that no GPU work was
    recorded instead of printing three empty GPU tables."""
    need_torch()
    with tempfile.TemporaryDirectory() as tmp:
        prog = program(tmp, "import torch\n"
                            "w = torch.randn(256, 256)\n"
                            "def infer_step(x):\n"
                            "    y = torch.relu(x @ w) @ w\n"
                            "    return y.sum().item()\n"
                            "total = 0.0\n"
                            "for _ in range(20):\n"
                            "    total += infer_step(torch.randn(64, 256))\n"
                            "print(f'total {total:.1f}')\n")
        out = os.path.join(tmp, "cpu.json")
        r = run("run", "-o", out, "--", sys.executable, prog)
        assert r.returncode == 0, r.stderr[-2000:]
        d = json.loads(run("analyze", "--format", "json", out).stdout)
        s = d["summary"]
        assert s["iteration_source"].startswith("repeated Python frame") and "infer_step" in s["iteration_source"], s["iteration_source"]
        assert s["iterations_total"] == 20, s
        path = {p["category"] for p in s["critical_path"]}
        assert "CPU op compute" in path and "op dispatch" not in path, path
        syncs = [f for f in d["findings"] if f["rule"] == "host-sync"]
        assert syncs and all(f["severity"] == "info" and f["impact_ns"] == 0 for f in syncs), syncs
        assert all("would block on a GPU" in f["title"] + f["detail"] for f in syncs), syncs
        text = run("analyze", out, env={"COLUMNS": "100"}).stdout
        assert "host synchronization" not in text.lower(), text
        stats = run("stats", out).stdout
        assert stats.count("No GPU work recorded") == 1 and "CPU ops:" in stats, stats[:2000]
        for table in ("GPU kernels:", "GPU memory operations:", "Runtime / driver API calls:"):
            assert table not in stats, (table, stats[:2000])


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
        assert {"resolved", "moved to warm-up", "still present (under the threshold)", "persisting",
                "new"} == set(d["findings"])
        assert "cpu-op-storm" in {f["rule"] for f in d["findings"]["resolved"]}
        assert [m["name"] for m in d["memops"] if m["status"] == "removed"] == ["DtoH"]
        # Noise only: the rank test sees no change.
        d = json.loads(run("diff", "--format", "json", p("noise_a.json"), p("noise_b.json")).stdout)
        assert d["summary"]["verdict"] == "no significant change" and d["summary"]["p_value"] > 0.05, d["summary"]
        # The gate: 0 when not slower, 1 on a regression beyond the threshold, 2 on bad input.
        assert run("diff", "--fail-if-slower", "5", p("slow.json"), p("healthy.json")).returncode == 0
        r = run("diff", "--fail-if-slower", "5", p("noise_a.json"), p("noise_b.json"))
        # The message says the change, that it is not significant, p and the steps compared
        # (issue 56: "pass: no significant change by +25.6%").
        assert r.returncode == 0 and re.search(
            r"pass: [+-]\d+\.\d% in per-iteration latency, not significant \(p = 0\.\d{4} on \d+ vs \d+ "
            r"steady steps", r.stderr), r.stderr
        r = run("diff", "--fail-if-slower", "5", p("healthy.json"), p("slow.json"))
        assert r.returncode == 1 and "FAIL: slower by +" in r.stderr, (r.returncode, r.stderr)
        assert re.search(r"significant \(p = 0\.\d{4} on \d+ vs \d+ steady steps\); the gate allows \+5\.0%",
                         r.stderr), r.stderr
        assert run("diff", "--fail-if-slower", "50", p("healthy.json"), p("slow.json")).returncode == 0
        r = run("diff", "--fail-if-slower", "5", p("healthy.json"), p("missing.json"))
        assert r.returncode == 2 and "missing.json" in r.stderr
        # Formats from different tools compare: the .rpd pair.
        r = run("diff", p("slow.rpd"), p("healthy.rpd"))
        assert r.returncode == 0 and "elementwise_add" in r.stdout and "removed" in r.stdout, r.stdout[:2000]
        rows = list(csv.reader(io.StringIO(run("diff", "--format", "csv", p("slow.json"), p("healthy.json")).stdout)))
        assert rows[0][:3] == ["table", "name", "status"] and len(rows) > 5


@test
def analyze_report_and_contract():
    r = run("analyze", data("kineto_cuda_small.json"))
    assert r.returncode == 0, r.stderr
    for s in ("Summary", "Steady state", "Per step", "GPU busy", "Verdict", "Findings", "host-sync", "fix:"):
        assert s in r.stdout, (s, r.stdout)
    d = json.loads(run("analyze", "--format", "json", data("kineto_cuda_small.json")).stdout)
    assert {"summary", "findings"} <= set(d)
    for key in ("iterations", "iteration_mean_ns", "iteration_median_ns", "iteration_p95_ns", "gpu_busy_pct", "kernel_ns",
                "memcpy_ns", "verdict", "idle_by_cause"):
        assert key in d["summary"], key
    for f in d["findings"]:
        assert {"rule", "severity", "title", "impact_ns", "impact_percent", "where", "evidence", "advice"} <= set(f), f
        assert set(f["where"]) == {"python", "op", "kernel", "graph", "caller"}
    # Ranked by what each fix alone saves (issue 56), the summaries and information last.
    alone = [f["standalone_ns"] for f in d["findings"] if f["severity"] != "info"]
    assert alone == sorted(alone, reverse=True)
    rows = list(csv.reader(io.StringIO(run("analyze", "--format", "csv", data("kineto_cuda_small.json")).stdout)))
    assert rows[0][:4] == ["rule", "severity", "title", "impact_ns"] and len(rows) == len(d["findings"]) + 1
    r = run("analyze", data("rocprof_v1/results.stats.csv"))
    assert r.returncode == 2 and "summary without a timeline" in r.stderr, r.stderr


@test
def help_formats_lists_every_importer_and_writer():
    formats = json.loads(run("help", "formats", "--format", "json").stdout)["formats"]
    read = {f["name"] for f in formats if f["direction"] == "read"}
    wrote = {f["name"] for f in formats if f["direction"] == "write"}
    assert {"kineto", "nsys", "rpd", "rocpd", "rocprofv3-json", "rocprofv3-csv", "rocprof-db", "rocprof-csv",
            "rocprof-json", "rocprof-raw", "rocprof-stats", "rpd2tracing-json", "gpuscope-csv",
            "rocprofv3-chrome-json"} == read, read
    assert wrote == {"json", "rpd", "nsys", "rocpd", "csv"}, wrote
    # Every reader's name is what `info` reports as the format of a file it read.
    for path, name in ((data("kineto_cuda_small.json"), "kineto"), (data("rocprofv3_small_results.json"), "rocprofv3-json")):
        assert json.loads(run("info", "--format", "json", path).stdout)["source"]["format"] == name
    assert run("help", "formats", "--format", "markdown").stdout.startswith("| direction | format |")
    assert run("help", "findings", "--format", "csv").stdout.startswith("rule,title,definition,")
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
    rules = json.loads(run("help", "findings", "--format", "json").stdout)["rules"]
    assert [x["rule"] for x in rules] == ["warm-up", "host-sync", "memcpy-sync", "memcpy-pageable", "small-memcpy",
                                          "memcpy-in-loop", "allocator", "device-copy", "fusion", "data-loading", "comm-wait", "cpu-op-storm", "launch-bound",
                                          "kernel-outlier", "small-grid", "kernel-efficiency", "kernel-hotspot", "gpu-idle", "memory-growth", "low-utilization",
                                          "rank-straggler", "collective-skew", "comm-exposed"]


@test
def serving_steps_phases_graph_attribution_and_clocks():
    # The repo's own serving pair (tests/data/make_serving_fixtures.py): one vLLM decode step that
    # replays a captured graph of 3 layers x 3 kernels, with a GPU clock 2 ms behind.
    exe, cap = data("serving_exec.json"), data("serving_capture.json")
    d = json.loads(run("analyze", "--format", "json", exe, "--capture", cap).stdout)
    s = d["summary"]
    assert s["iteration_source"] == "serving steps (vllm execute annotations)", s["iteration_source"]
    assert (s["iterations_total"], s["warmup_iterations"]) == (1, 0)
    assert s["structure"]["text"] == "3 repeats of a 3-kernel block", s["structure"]
    assert s["graphs"] == {"launches": 1, "kernels": 9, "matched": 9, "captures": 1}, s["graphs"]
    assert [(p["name"], p["steps"], p["tokens_per_step"]) for p in d["phases"]] == [("decode", 1, 1)]
    assert [c["verdict"] for c in s["clocks"]] == ["unexplained delay"]
    assert d["stalls"] and "hipMemcpyWithStream" in d["stalls"][0]["host"], d["stalls"]
    hot = [f for f in d["findings"] if f["rule"] == "kernel-hotspot"]
    assert hot and all(f["where"]["op"] in ("aten::mm", "vllm::attention", "aten::addmm") and f["where"]["graph"]
                       for f in hot), hot
    # The capture survives `convert` to Chrome JSON (the launch calls keep the kernels they name).
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "capture.json.gz")
        assert run("convert", cap, "-o", copy).returncode == 0
        d2 = json.loads(run("analyze", "--format", "json", exe, "--capture", copy).stdout)
        assert d2["summary"]["graphs"]["matched"] == 9, d2["summary"]["graphs"]
    # Without the capture: the graph kernels go to the frame of the graph launch, marked.
    d = json.loads(run("analyze", "--format", "json", exe).stdout)
    assert d["summary"]["graphs"]["matched"] == 0
    hot = [f for f in d["findings"] if f["rule"] == "kernel-hotspot"]
    assert hot and all("execute_model" in f["where"]["python"] and "no captured launch" in f["where"]["graph"]
                       for f in hot), hot
    # One phase alone; a phase the trace lacks is one line, exit 2.
    d = json.loads(run("analyze", "--format", "json", "--phase", "decode", exe).stdout)
    assert d["summary"]["iteration_source"].endswith("decode steps only"), d["summary"]["iteration_source"]
    r = run("analyze", "--phase", "prefill", exe)
    assert r.returncode == 2 and "no prefill steps in this trace (phases: decode)" in r.stderr, r.stderr
    # A trace without a capture given as one: one line, exit 2.
    r = run("analyze", exe, "--capture", exe)
    assert r.returncode == 2 and "no graph capture" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    # stats by op (graph kernels by their captured op), by phase.
    ops = json.loads(run("stats", "--format", "json", "--by", "op", exe, "--capture", cap).stdout)["ops"]
    by_op = {o["op"]: o for o in ops}
    assert by_op["aten::mm"]["kernels"] == 3 and by_op["aten::mm"]["in_graph"] == "yes", by_op
    k = json.loads(run("stats", "--format", "json", "--phase", "decode", exe).stdout)["kernels"]
    assert sum(x["calls"] for x in k) == 9, k
    r = run("stats", "--phase", "prefill", exe)
    assert r.returncode == 2 and "no prefill steps" in r.stderr, r.stderr
    # info: the launch-to-start check per GPU, a problem listed.
    info = json.loads(run("info", "--format", "json", exe).stdout)
    assert info["clocks"][0]["verdict"] == "unexplained delay" and info["clocks"][0]["idle_delayed"] == 10
    assert "clock.idle_delay" in run("info", exe).stdout
    # --align-clocks corrects only ops that start before their launch: here nothing.
    r = run("analyze", exe, "--align-clocks")
    assert r.returncode == 0 and "nothing shifted" in r.stderr, r.stderr


@test
def analyze_min_impact_percent_lists_the_small_findings_too():
    """--min-impact-percent 0 lists every finding a rule made (the default 0.1 leaves out those
    whose fix saves less than 0.1% of the window); the findings both list are the same."""
    path = data("kineto_cuda_small.json")
    default = json.loads(run("analyze", "--format", "json", path).stdout)["findings"]
    r = run("analyze", "--format", "json", "--min-impact-percent", "0", path)
    assert r.returncode == 0, r.stderr
    every = json.loads(r.stdout)["findings"]
    key = lambda f: (f["rule"], f["where"]["op"], f["where"]["kernel"], f["standalone_ns"])
    assert {key(f) for f in default} <= {key(f) for f in every}, (default, every)
    assert len(every) >= len(default)
    small = [f for f in every if key(f) not in {key(g) for g in default}]
    window = json.loads(run("analyze", "--format", "json", path).stdout)["summary"]["window_ns"]
    for f in small:  # what the default left out saves less than 0.1% of the window, or is listed
        assert f["standalone_ns"] < 0.001 * window or f["severity"] == "info", f
    r = run("analyze", "--min-impact-percent", "-1", path)
    assert r.returncode == 2 and "min-impact-percent" in r.stderr, r.stderr


@test
def phase_over_interleaved_steps_says_so_and_prefill_is_no_outlier_of_decode():
    """A server alternating 10 prefill and 40 decode steps (bench/serving_phases.py; one GEMM
    kernel name in both phases, 4x longer in prefill, shapes not recorded): the prefill
    instances are not kernel-outliers of the decode ones, in the whole window or with --phase;
    --phase over interleaved steps says in one note that its window holds the other phase's
    work; phases in one block each say nothing."""
    gen = os.path.join(os.path.dirname(DATA), "..", "bench", "serving_phases.py")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "serve.json")
        subprocess.run([sys.executable, gen, path, "100", "8"], check=True)
        for extra in ([], ["--phase", "decode"], ["--phase", "prefill"]):
            r = run("analyze", "--format", "json", "--min-impact-percent", "0", path, *extra)
            assert r.returncode == 0, r.stderr
            rules = [f["rule"] for f in json.loads(r.stdout)["findings"]]
            assert "kernel-outlier" not in rules, (extra, rules)
            notes = [ln for ln in r.stderr.splitlines() if "steps of other phases" in ln]
            assert len(notes) == (1 if extra else 0), (extra, r.stderr)
        assert "40 steps of other phases" in run("analyze", path, "--phase", "prefill").stderr
        first = os.path.join(tmp, "first.json")
        subprocess.run([sys.executable, gen, first, "10", "8"], check=True)  # one prefill block
        r = run("analyze", first, "--phase", "prefill")
        assert r.returncode == 0 and "steps of other phases" not in r.stderr, r.stderr


@test
def one_pass_of_one_off_kernels_is_no_steady_state():
    # nvFuser's cross-entropy benchmark (collection2): 18 kernels, none run 3 times, the GPU idle
    # 99% between them in set-up and compilation. Not "CPU-bound", gpu-idle not priced.
    fuser = os.path.join(SAMPLES, "collection2", "nsys", "Fuser__report1.sqlite")
    if not os.path.exists(fuser):
        raise Skip("needs ../shared/samples (collection2/nsys/Fuser__report1.sqlite)")
    d = json.loads(run("analyze", "--format", "json", fuser).stdout)
    s = d["summary"]
    assert s["verdict_kind"] == "one pass", s["verdict"]
    assert "18 kernels of 16 names" in s["verdict"], s["verdict"]
    idle = [f for f in d["findings"] if f["rule"] == "gpu-idle"]
    assert idle and all(f["impact_ns"] == 0 and f["severity"] == "info" for f in idle), idle
    # A stepped run with repeated kernels keeps its verdict and priced idle.
    stepped = os.path.join(SAMPLES, "collection2", "pairs", "t4-mlp-fp32-vs-amp",
                           "gpu-profiling-pytorch-lab__Level2_mixed_precision_profiling__fp32.pt.trace.json")
    if os.path.exists(stepped):
        d = json.loads(run("analyze", "--format", "json", stepped).stdout)
        assert d["summary"]["verdict_kind"] == "CPU-bound", d["summary"]["verdict"]
