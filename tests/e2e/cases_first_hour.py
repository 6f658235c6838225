"""What a new user meets first: messages that name the typo and the list, help topics and the
glossary, output that fits 100 columns, advice in the program's own ecosystem, trace health,
diff rows that say something, default trace names, older nsys exports, folders of several runs.
Fixtures are made from the repository's own (tests/data) by editing gpuscope's events.csv."""
import csv
import json
import os
import shutil
import tempfile

import harness
from harness import Skip, data, need_torch, run, runs_programs, sql_fixture, test

NARROW = {"COLUMNS": "100"}


def events(trace, tmp, name="events.csv"):
    """The trace as gpuscope's events.csv rows (dicts) and the header."""
    out = os.path.join(tmp, name)
    r = run("convert", trace, "-o", out)
    assert r.returncode == 0, r.stderr
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    with open(out, newline="") as f:
        header = next(csv.reader(f))
    return rows, header


def write_events(rows, header, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header)
        w.writeheader()
        w.writerows(rows)
    return path


def health_ids(path):
    r = run("info", "--format", "json", path)
    assert r.returncode == 0, r.stderr
    return {h["id"]: h for h in json.loads(r.stdout)["health"]}


@test
def typos_name_the_nearest_command_and_option():
    r = run("anaylze", data("kineto_cuda_small.json"))
    assert r.returncode == 2 and "did you mean 'analyze'" in r.stderr and "Commands: info" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = run("stats", "--formt", "json", data("kineto_cuda_small.json"))
    assert r.returncode == 2 and "unknown option '--formt'" in r.stderr and "'--format'" in r.stderr, r.stderr
    assert "kineto_cuda_small" not in r.stderr, "the valid path is not to blame: " + r.stderr
    r = run("bananas")
    assert r.returncode == 2 and "did you mean" not in r.stderr and "Commands:" in r.stderr, r.stderr
    # Options after "--" belong to the profiled program.
    r = run("run", "--stats", "--bogus-option")
    assert "unknown option '--bogus-option'" in r.stderr, r.stderr


@test
def help_lists_topics_and_every_command_says_what_it_reads():
    r = run("help")
    assert r.returncode == 0
    for topic in ("findings", "formats", "roofline", "terms"):
        assert topic in r.stdout, r.stdout
    for cmd in ("info", "stats", "analyze", "roofline", "diff", "convert", "report"):
        r = run(cmd, "--help")
        assert r.returncode == 0 and "Nsight Systems" in r.stdout and "rocprofv3" in r.stdout, (cmd, r.stdout)
        assert "Kineto JSON" in r.stdout and "gpuscope help formats" in r.stdout, cmd
    r = run()
    assert r.returncode == 2 and "Subcommands" in r.stdout, r.stdout


@test
def help_terms_explains_every_critical_path_category_and_verdict():
    r = run("help", "terms", env=NARROW)
    assert r.returncode == 0
    for word in ("launch late", "op dispatch", "thread handoffs", "before the window",
                 "launch latency", "sync waits", "GPU-bound", "CPU-bound", "clock offset",
                 "straggler", "impact", "steady state"):
        assert word in r.stdout, word
    assert max(len(l) for l in r.stdout.splitlines()) <= 100
    # The words analyze prints on the critical path are all in the glossary.
    d = json.loads(run("analyze", "--format", "json", data("kineto_cuda_small.json")).stdout)
    for part in d["summary"].get("critical_path", []):
        assert part["category"] in r.stdout, part["category"]
    md = run("help", "terms", "--format", "markdown").stdout
    with open(os.path.join(os.path.dirname(harness.DATA), "..", "docs", "terms.md")) as f:
        assert f.read() == md, "docs/terms.md is stale: gpuscope help terms --format markdown > docs/terms.md"


@test
def help_problems_explains_every_kind_info_reports():
    # The kinds are declared once (model/problem_kinds.h): what info reports on a damaged trace
    # is listed by help problems, with what was done with the event.
    listed = {k["kind"]: k["effect"] for k in json.loads(run("help", "problems", "--format", "json").stdout)["kinds"]}
    assert len(listed) >= 40 and set(listed.values()) == {"dropped", "repaired", "kept"}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "damaged.json")
        with open(path, "w") as f:
            json.dump({"traceEvents": [
                {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": "x", "dur": 1},
                {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5, "dur": -1},
                {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 10, "dur": 2},
                {"ph": "Q", "name": "q", "pid": 0, "tid": 1, "ts": 1}]}, f)
        info = json.loads(run("info", "--format", "json", path).stdout)
    got = {p["kind"] for p in info["problems"]}
    assert got == {"kineto.bad_ts", "kineto.negative_dur", "kineto.unsupported_phase"}, got
    assert listed["kineto.bad_ts"] == "dropped" and listed["kineto.negative_dur"] == "repaired"
    r = run("help", "problems", env=NARROW)
    assert r.returncode == 0 and max(len(l) for l in r.stdout.splitlines()) <= 100
    md = run("help", "problems", "--format", "markdown").stdout
    with open(os.path.join(os.path.dirname(harness.DATA), "..", "docs", "problems.md")) as f:
        assert f.read() == md, "docs/problems.md is stale: gpuscope help problems --format markdown > docs/problems.md"


@test
def terminal_output_fits_100_columns_on_every_fixture():
    names = [n for n in sorted(os.listdir(harness.DATA))
             if n.startswith(("kineto_", "serving_", "rocprofv3_", "rocprof_")) and not n.endswith(".py")]
    assert len(names) >= 8, names
    with tempfile.TemporaryDirectory() as tmp:
        paths = [data(n) for n in names]
        for sql in ("nsys_small.sql", "rpd_small.sql", "rocpd_small.sql"):
            paths.append(sql_fixture(sql, tmp))
        for p in paths:
            for cmd in ("stats", "analyze", "info"):
                r = run(cmd, p, env=NARROW)
                if r.returncode != 0:
                    continue
                for line in r.stdout.splitlines():
                    assert len(line) <= 100, (cmd, p, len(line), line)


@test
def shortened_kernel_names_stay_distinct():
    with tempfile.TemporaryDirectory() as tmp:
        rows, header = events(data("kineto_cuda_small.json"), tmp)
        kernel = next(r for r in rows if r["kind"] == "kernel")
        base = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_{}_tn_align8>(Params)"
        for k, tile in enumerate(("64x64_64x4", "128x128_32x3", "256x128_64x3")):
            extra = dict(kernel, name=base.format(tile), start_ns=str(int(kernel["start_ns"]) + 10 + k))
            rows.append(extra)
        path = write_events(rows, header, os.path.join(tmp, "k.csv"))
        r = run("stats", "--by", "kernels", path, env=NARROW)
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        head = next(i for i, l in enumerate(lines) if l.rstrip().endswith("Name"))
        col = lines[head].index("Name")
        shown = [l[col:] for l in lines[head + 2:] if l.strip() and not l.startswith("(")]
        kernels = {r["name"] for r in rows if r["kind"] == "kernel"}
        assert len(shown) == len(kernels) >= 5 and len(set(shown)) == len(shown), shown
        assert all(len(l) <= 100 for l in lines), lines


@test
def advice_speaks_the_programs_language():
    with tempfile.TemporaryDirectory() as tmp:
        for fixture, runtime in (("kineto_cuda_small.json", "cuda"), ("kineto_rocm_small.json", "hip")):
            rows, header = events(data(fixture), tmp)
            plain = [r for r in rows if r["kind"] not in ("cpu_op", "python", "annotation")]
            path = write_events(plain, header, os.path.join(tmp, runtime + ".csv"))
            d = json.loads(run("analyze", "--format", "json", path).stdout)
            advice = " ".join(f["advice"] for f in d["findings"])
            assert d["findings"], fixture
            for framework_word in ("DataLoader", ".item()", "torch.compile", "pin_memory"):
                assert framework_word not in advice, (fixture, framework_word, advice)
            assert runtime + "Stream" in advice or runtime + "Memcpy" in advice or runtime + "Event" in advice, advice
            if runtime == "hip":
                assert "cuda" not in advice.lower().replace("cuda/hip", ""), advice
        # With framework ops the advice stays in PyTorch's words.
        d = json.loads(run("analyze", "--format", "json", data("kineto_cuda_small.json")).stdout)
        assert any(".item()" in f["advice"] or "pin_memory" in f["advice"] for f in d["findings"]), d["findings"]


@test
def health_names_what_the_recording_left_out():
    h = health_ids(data("kineto_cuda_small.json"))
    assert {"shapes-not-recorded", "graph-capture-missing", "window-too-short"} <= set(h), h
    assert "record_shapes=True" in h["shapes-not-recorded"]["record"]
    assert "--capture" in h["graph-capture-missing"]["record"]
    assert "shapes-not-recorded" not in health_ids(data("kineto_shapes_small.json"))
    with tempfile.TemporaryDirectory() as tmp:
        rows, header = events(data("kineto_cuda_small.json"), tmp)
        # No Python frames: stacks not recorded.
        path = write_events([r for r in rows if r["kind"] != "python"], header, os.path.join(tmp, "nostack.csv"))
        assert "with_stack=True" in health_ids(path)["stacks-not-recorded"]["record"]
        # Launch calls without GPU activity.
        path = write_events([r for r in rows if r["kind"] not in ("kernel", "memcpy", "memset")], header,
                            os.path.join(tmp, "nogpu.csv"))
        assert "ProfilerActivity.CUDA" in health_ids(path)["gpu-activity-not-recorded"]["record"]
        # Kernels without any runtime call.
        path = write_events([r for r in rows if r["kind"] != "api"], header, os.path.join(tmp, "noapi.csv"))
        assert "runtime-calls-not-recorded" in health_ids(path)
        # 40 kernels, a quarter of them with no launch record (dropped by the tracer).
        kernel = next(r for r in rows if r["kind"] == "kernel" and r["correlation"])
        launch = next(r for r in rows if r["kind"] == "api" and r["correlation"] == kernel["correlation"])
        many = [r for r in rows if r["kind"] not in ("kernel",)]
        for k in range(40):
            corr = str(900000 + k)
            t0 = int(launch["start_ns"]) + 2_000_000 + 100_000 * k
            if k % 4:
                many.append(dict(launch, correlation=corr, start_ns=str(t0)))
            many.append(dict(kernel, correlation=corr, start_ns=str(t0 + 20_000)))
        path = write_events(many, header, os.path.join(tmp, "dropped.csv"))
        note = health_ids(path)["launch-records-missing"]
        assert "10 of 40 kernels" in note["seen"], note
        # Two groups of events two days apart: different runs.
        late = [dict(r, start_ns=str(int(r["start_ns"]) + 2 * 86400 * 10**9)) if r["start_ns"] else r for r in rows]
        path = write_events(rows + late, header, os.path.join(tmp, "tworuns.csv"))
        assert "different-runs" in health_ids(path)
    # nsys: the profiler's own overhead records.
    with tempfile.TemporaryDirectory() as tmp:
        assert "tracer-overhead" in health_ids(sql_fixture("nsys_small.sql", tmp))
    # analyze names the notes in its summary and JSON.
    r = run("analyze", data("kineto_cuda_small.json"))
    assert "Trace health" in r.stdout and "shapes-not-recorded" in r.stdout, r.stdout
    d = json.loads(run("analyze", "--format", "json", data("kineto_cuda_small.json")).stdout)
    assert {h["id"] for h in d["health"]} >= {"shapes-not-recorded"}


@test
def health_sees_steps_cut_at_the_window_edges():
    with tempfile.TemporaryDirectory() as tmp:
        rows, header = events(data("kineto_cuda_small.json"), tmp)
        steps = [r for r in rows if r["kind"] == "annotation" and r["name"].startswith("ProfilerStep#")]
        if len(steps) < 2:
            raise Skip("the fixture has no ProfilerStep annotations")
        # Six steps of 1 ms, the last one cut to 0.2 ms.
        others = [r for r in rows if not (r["kind"] == "annotation" and r["name"].startswith("ProfilerStep#"))]
        t0 = min(int(r["start_ns"]) for r in rows if r["start_ns"])
        made = []
        for k in range(6):
            made.append(dict(steps[0], name=f"ProfilerStep#{k + 1}", start_ns=str(t0 + k * 1_000_000),
                             dur_ns=str(200_000 if k == 5 else 1_000_000)))
        path = write_events(others + made, header, os.path.join(tmp, "cut.csv"))
        note = health_ids(path).get("steps-cut")
        assert note and "the last" in note["seen"], health_ids(path)


@test
def diff_leaves_out_empty_rows_and_never_prints_a_zero_ratio():
    with tempfile.TemporaryDirectory() as tmp:
        rows, header = events(data("kineto_cuda_small.json"), tmp)
        before = write_events(rows, header, os.path.join(tmp, "before.csv"))
        # After: one kernel a thousand times faster, one API call that takes no time on either side.
        target = max((r for r in rows if r["kind"] == "kernel"), key=lambda r: int(r["dur_ns"]))
        after_rows = [dict(r, dur_ns=str(max(1, int(r["dur_ns"]) // 1000))) if r["name"] == target["name"] else r
                      for r in rows]
        zero = dict(next(r for r in rows if r["kind"] == "api"), name="cudaGetLastError", dur_ns="0", correlation="")
        rows.append(zero)
        after_rows.append(zero)
        before = write_events(rows, header, os.path.join(tmp, "before.csv"))
        after = write_events(after_rows, header, os.path.join(tmp, "after.csv"))
        r = run("diff", before, after, "--top", "0", env=NARROW)
        assert r.returncode == 0, r.stderr
        assert "0.00x" not in r.stdout and " 0 ns -> 0 ns" not in r.stdout, r.stdout
        assert "cudaGetLastError" not in r.stdout, r.stdout
        assert "0.001x" in r.stdout or "<0.001x" in r.stdout or "0.0010x" in r.stdout, r.stdout
        d = json.loads(run("diff", "--format", "json", before, after).stdout)
        assert any(a["name"] == "cudaGetLastError" for a in d["api"]), "JSON keeps every row"


@test
@runs_programs
def run_names_the_trace_after_the_interpreter_not_the_code():
    need_torch()
    import sys
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ)
        r = harness.subprocess.run([harness.GPUSCOPE, "run", "--backend", "torch", "--",
                                    sys.executable, "-c", "import torch; torch.ones(2).sum()"],
                                   capture_output=True, text=True, cwd=tmp, env=env, timeout=300)
        assert r.returncode == 0, r.stderr
        made = os.listdir(tmp)
        exe = os.path.basename(sys.executable)
        assert len(made) == 1 and made[0].startswith("gpuscope-" + exe + "-") and made[0].endswith(".rpd"), made


@test
def older_nsys_exports_keep_copy_kinds_and_nvtx_ranges():
    with tempfile.TemporaryDirectory() as tmp:
        path = sql_fixture("nsys_small.sql", tmp, "DROP TABLE ENUM_CUDA_MEMCPY_OPER; DROP TABLE ENUM_NSYS_EVENT_TYPE;")
        d = json.loads(run("stats", "--format", "json", path).stdout)
        kinds = {m["kind"] for m in d["memops"]}
        assert "HtoD" in kinds and "Other" not in kinds, kinds
        assert d["cpu_ops"], "the NVTX ranges are kept"
        info = run("info", path)
        assert "nsys.builtin_enum" in info.stdout, info.stdout


@test
def a_folder_of_different_runs_is_refused_unless_merged():
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "runs")
        shutil.copytree(data("rocprofv3_csv_A"), folder)
        # The GPU side of another run, three days later (about half the rows: the validation keeps
        # both groups, as it does for two real runs of similar size).
        for name in os.listdir(folder):
            if not name.endswith(("kernel_trace.csv", "memory_copy_trace.csv", "memory_allocation_trace.csv")):
                continue
            p = os.path.join(folder, name)
            with open(p, newline="") as f:
                rows = list(csv.reader(f))
            cols = [i for i, h in enumerate(rows[0]) if h.endswith("_Timestamp")]
            for row in rows[1:]:
                for i in cols:
                    row[i] = str(int(row[i]) + 3 * 86400 * 10**9)
            with open(p, "w", newline="") as f:
                csv.writer(f, quoting=csv.QUOTE_NONNUMERIC).writerows(rows)
        r = run("stats", folder)
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1, r.stderr
        assert "different runs" in lines[0] and "--merge" in lines[0] and folder in lines[0], lines
        r = run("--merge", "stats", folder)
        assert r.returncode == 0, r.stderr
        # One run's folder is read as before.
        assert run("stats", data("rocprofv3_csv_A")).returncode == 0
