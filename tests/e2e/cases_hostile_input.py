"""Hostile input, round 2 (issue 53): patterns that cannot hang, writes that cannot fail silently,
factors that cannot be absurd, controls that cannot reach a terminal or a sheet raw, and values
that cannot be real. Every fixture is generated here, small, in a temporary directory."""
import json
import os
import subprocess
import sys
import tempfile
import time

import harness
from harness import data, run, test


def _one_error(r):
    """The stderr lines that are not notes or warnings (what a fatal error prints: one)."""
    return [l for l in r.stderr.strip().splitlines() if "note:" not in l and "warning:" not in l]


def _kineto_with_names(path, names, base="kineto_cuda_small.json"):
    """The small CUDA fixture with one more kernel (a copy of its first) per name in `names`."""
    with open(data(base)) as f:
        d = json.load(f)
    first = next(e for e in d["traceEvents"] if e.get("cat") == "kernel")
    for k, name in enumerate(names):
        e = json.loads(json.dumps(first))
        e["name"] = name
        e["ts"] = first["ts"] + 0.5 + k * 0.01
        e["dur"] = 0.005
        d["traceEvents"].append(e)
    with open(path, "w") as f:
        json.dump(d, f)
    return path


def _timed(*args, timeout=60):
    start = time.monotonic()
    r = subprocess.run([harness.GPUSCOPE, *args], capture_output=True, text=True, timeout=timeout)
    return r, time.monotonic() - start


@test
def kernel_patterns_match_long_names_in_linear_time_and_bad_ones_are_one_line():
    # std::regex recursed per character (exit 139 on 30,000 characters) and backtracked
    # exponentially on (a+)+$; RE2 does neither.
    with tempfile.TemporaryDirectory() as tmp:
        t = _kineto_with_names(os.path.join(tmp, "t.json"),
                               ["x" * 15000 + "gemm" + "x" * 15000, "a" * 100000, "ab" * 50000,
                                "a" * 5000 + "!"])
        for pattern in (".*gemm.*=2", "^a+$=2", "(a|b)*=2", "(a+)+$=2"):
            r, took = _timed("whatif", t, "--kernels", pattern, "--format", "json")
            assert r.returncode == 0, (pattern, r.returncode, r.stderr[-300:])
            assert took < 30, (pattern, took)
            assert json.loads(r.stdout)["saving_ns"] >= 0, pattern
        for bad in ("(=2", "a{2,1}=2", "x" * 5000 + "=2"):
            r = run("whatif", t, "--kernels", bad)
            errors = _one_error(r)
            assert r.returncode == 2 and len(errors) == 1 and len(errors[0]) < 400, (bad[:20], r.stderr[:500])
            assert "--kernels" in errors[0], errors


@test
def a_result_that_cannot_be_written_to_standard_output_exits_2():
    if not os.path.exists("/dev/full"):
        raise harness.Skip("no /dev/full here")
    t = data("kineto_cuda_small.json")
    for args in (("analyze", t), ("stats", t), ("info", "--format", "json", t),
                 ("stats", "--format", "csv", t), ("help", "problems")):
        with open("/dev/full", "w") as full:
            r = subprocess.run([harness.GPUSCOPE, *args], stdout=full, stderr=subprocess.PIPE, text=True)
        errors = _one_error(r)
        assert r.returncode == 2 and len(errors) == 1, (args, r.returncode, r.stderr)
        assert "cannot write to standard output" in errors[0], errors


@test
def factors_are_range_checked_and_a_slowdown_is_reported_as_one():
    t = data("kineto_cuda_small.json")
    for option, value in (("--gpu-speedup", "1e-300"), ("--gpu-speedup", "1e308"), ("--gpu-speedup", "nan"),
                          ("--gpu-speedup", "inf"), ("--copies", "0"), ("--host-speedup", "-2"),
                          ("--kernels", "gemm=1e9"), ("--kernels", "gemm=nan")):
        r = run("whatif", t, option, value)
        errors = _one_error(r)
        said = "from 1e-6 to 1e6" in errors[0] if errors else False
        said = said or (option == "--kernels" and "X > 0" in errors[0])  # "nan": no number
        assert r.returncode == 2 and len(errors) == 1 and said, (option, value, r.stderr)
    slower = json.loads(run("whatif", t, "--host-speedup", "0.5", "--format", "json").stdout)
    faster = json.loads(run("whatif", t, "--host-speedup", "2", "--format", "json").stdout)
    assert slower["saving_ns"] < 0 < faster["saving_ns"], (slower["saving_ns"], faster["saving_ns"])
    r = run("whatif", t, "--host-speedup", "0.5")
    assert r.returncode == 0 and "a slowdown" in r.stdout and "Costs" in r.stdout, r.stdout
    for args in (("analyze", t, "--idle-gap-us", "nan"), ("analyze", t, "--idle-gap-us", "1e300"),
                 ("diff", t, t, "--fail-if-slower", "inf"), ("analyze", t, "--min-impact-percent", "nan")):
        r = run(*args)
        assert r.returncode == 2 and len(_one_error(r)) == 1, (args, r.stderr)


@test
def a_global_option_takes_its_value_after_a_space():
    with tempfile.TemporaryDirectory() as tmp:
        t = os.path.join(tmp, "t.json")
        with open(data("kineto_cuda_small.json")) as f:
            d = json.load(f)
        for e in d["traceEvents"]:  # the same trace in seconds
            for k in ("ts", "dur"):
                if k in e:
                    e[k] = e[k] / 1e6
        with open(t, "w") as f:
            json.dump(d, f)
        spaced = run("--time-unit", "s", "stats", "--format", "json", t)
        joined = run("--time-unit=s", "stats", "--format", "json", t)
        assert spaced.returncode == 0, spaced.stderr
        assert json.loads(spaced.stdout)["kernels"] == json.loads(joined.stdout)["kernels"]
        r = run("--threads", "1", "--time-unit", "s", "info", t)
        assert r.returncode == 0, r.stderr


@test
def c1_controls_bidi_overrides_and_bad_bytes_reach_no_view_or_csv_raw():
    names = ["k\u009b31m_csi", "k\u0085nel", "k\u202etxt.exe", "k\u2066iso"]
    raw = [("\u009b", "\\u009b"), ("\u0085", "\\u0085"), ("\u202e", "\\u202e"), ("\u2066", "\\u2066")]
    with tempfile.TemporaryDirectory() as tmp:
        t = _kineto_with_names(os.path.join(tmp, "t.json"), names)
        # A raw 0x9b byte (not UTF-8) in one more name.
        with open(t, "rb") as f:
            body = f.read().replace(b"k\\u2066iso", b"k\x9biso")
        with open(t, "wb") as f:
            f.write(body)
        outputs = {}
        for args in (("stats", t), ("stats", "--format", "csv", t), ("stats", "--by", "kernels", t),
                     ("analyze", t), ("diff", t, t), ("info", t), ("whatif", t, "--gpu-speedup", "2")):
            r = subprocess.run([harness.GPUSCOPE, *args], capture_output=True, env=dict(os.environ, COLUMNS="200"))
            assert r.returncode == 0, (args, r.stderr)
            outputs[args] = r.stdout
            text = r.stdout.decode("utf-8")  # every byte written is UTF-8
            for ch, _ in raw:
                assert ch not in text, (args, repr(ch))
        shown = outputs[("stats", "--format", "csv", t)].decode()
        for _, esc in raw[:3]:
            assert esc in shown, (esc, shown)
        assert "\\x9b" in shown, shown
        # Counted as problems; JSON keeps the names (escaped the JSON way).
        info = json.loads(run("info", "--format", "json", t).stdout)
        kinds = {p["kind"]: p["count"] for p in info["problems"]}
        assert kinds.get("invalid.name_control") == 3 and kinds.get("invalid.name_encoding") == 1, kinds
        d = json.loads(run("stats", "--format", "json", t).stdout)
        assert {k["name"] for k in d["kernels"]} >= set(names[:3])


@test
def a_rocprofv3_csv_resaved_by_a_spreadsheet_reads_as_the_original():
    import shutil

    src = data("rocprofv3_csv_A")
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = os.path.join(tmp, "run")
        shutil.copytree(src, run_dir)
        for name in os.listdir(run_dir):
            path = os.path.join(run_dir, name)
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
            lines[0] = lines[0].replace('"', "")  # the header without quotes
            with open(path, "wb") as f:  # a BOM, CRLF line ends
                f.write(b"\xef\xbb\xbf" + "\r\n".join(lines).encode() + b"\r\n")
        kernel = next(n for n in os.listdir(run_dir) if n.endswith("kernel_trace.csv"))
        for resaved, original in ((os.path.join(run_dir, kernel), os.path.join(src, kernel)), (run_dir, src)):
            r = run("stats", "--format", "json", resaved)
            assert r.returncode == 0, r.stderr
            want = json.loads(run("stats", "--format", "json", original).stdout)
            assert json.loads(r.stdout)["kernels"] == want["kernels"] and want["kernels"], resaved
            assert json.loads(run("info", "--format", "json", resaved).stdout)["source"]["format"] == "rocprofv3-csv"


@test
def sizes_that_cannot_be_real_are_problems_not_peaks():
    from cases_memory import MB, leaky_trace

    with tempfile.TemporaryDirectory() as tmp:
        t = os.path.join(tmp, "leaky.json")
        leaky_trace(t)
        with open(t) as f:
            d = json.load(f)
        d["traceEvents"].append({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1600,
                                 "args": {"Device Type": 1, "Device Id": 0, "Addr": 5, "Bytes": 2 ** 63 - 1,
                                          "Total Allocated": 2 ** 63 - 1, "Total Reserved": 2 ** 63 - 1}})
        # A copy of 1 GB in 1 ns (10^9 GB/s).
        d["traceEvents"].append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)",
                                 "pid": 0, "tid": 7, "ts": 1700, "dur": 0.001,
                                 "args": {"device": 0, "stream": 7, "bytes": 2 ** 30}})
        with open(t, "w") as f:
            json.dump(d, f)
        info = json.loads(run("info", "--format", "json", t).stdout)
        kinds = {p["kind"]: p["count"] for p in info["problems"]}
        assert kinds.get("impossible.memory_size") == 1 and kinds.get("impossible.copy_bandwidth") == 1, kinds
        g = json.loads(run("memory", "--format", "json", t).stdout)["devices"][0]
        assert g["peak_allocated_bytes"] == 109 * MB, g["peak_allocated_bytes"]
        listed = run("help", "problems").stdout
        assert "impossible.memory_size" in listed and "impossible.copy_bandwidth" in listed


@test
def device_and_launch_values_that_cannot_be_real_are_problems_not_figures():
    # A billion SMs would scale the roofline's peaks a million-fold; a block of 2^20 threads or
    # 2^32-1 registers per thread (a -1 read as unsigned) no GPU runs.
    with tempfile.TemporaryDirectory() as tmp:
        with open(data("kineto_cuda_small.json")) as f:
            d = json.load(f)
        d["deviceProperties"][0].update(numSms=10 ** 9, warpSize=48)
        k = next(e for e in d["traceEvents"] if e.get("cat") == "kernel")
        k["args"].update(block=[1024, 1024, 1], **{"registers per thread": 2 ** 32 - 1})
        t = os.path.join(tmp, "t.json")
        with open(t, "w") as f:
            json.dump(d, f)
        info = json.loads(run("info", "--format", "json", t).stdout)
        kinds = {p["kind"]: p["count"] for p in info["problems"]}
        assert kinds.get("impossible.device_property") == 1, kinds
        assert kinds.get("impossible.launch_shape") == 1, kinds
        clean = json.loads(run("info", "--format", "json", data("kineto_cuda_small.json")).stdout)
        assert not any(p["kind"].startswith("impossible.") for p in clean["problems"]), clean
        assert "impossible.launch_shape" in run("help", "problems").stdout


@test
def a_folder_mixing_formats_is_refused_naming_them():
    import shutil

    from harness import sql_fixture

    with tempfile.TemporaryDirectory() as tmp:
        mixed = os.path.join(tmp, "mixed")
        shutil.copytree(data("rocprofv3_csv_A"), mixed)
        for rank in (0, 1):
            shutil.copy(data("kineto_cuda_small.json"), os.path.join(mixed, f"rank{rank}.json"))
        os.rename(sql_fixture("rpd_small.sql", tmp), os.path.join(mixed, "t.rpd"))
        os.rename(sql_fixture("nsys_small.sql", tmp), os.path.join(mixed, "t.sqlite"))
        for cmd in ("stats", "info", "analyze"):
            r = run(cmd, mixed)
            errors = _one_error(r)
            assert r.returncode == 2 and len(errors) == 1, (cmd, r.returncode, r.stderr)
            for fmt in ("rocprofv3-csv", "kineto", "rpd", "nsys"):
                assert fmt in errors[0], (fmt, errors)
        # A job's ranks alone still read as a job.
        for name in ("t.rpd", "t.sqlite"):
            os.remove(os.path.join(mixed, name))
        for name in os.listdir(mixed):
            if name.endswith(".csv"):
                os.remove(os.path.join(mixed, name))
        r = run("analyze", mixed)
        assert r.returncode == 0, r.stderr


def _refused_fast(path, *args, timeout=60):
    """`gpuscope stats path`: exit 2, one line naming the file, well within `timeout` seconds."""
    try:
        r, took = _timed("stats", path, *args, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"{path}: still reading after {timeout} s")
    errors = _one_error(r)
    assert r.returncode == 2 and len(errors) == 1 and path in errors[0], (r.returncode, r.stderr[-500:])
    assert took < 20, took
    return errors[0]


@test
def an_sqlite_view_or_generated_column_computing_per_row_is_refused_at_once():
    from harness import sql_fixture

    costly = "length(hex(zeroblob(4000000)))"
    with tempfile.TemporaryDirectory() as tmp:
        cases = {
            # One SELECT over one table (the shape a rocpd view has), a costly built-in per row.
            "view": "ALTER TABLE rocpd_op RENAME TO op_rows; CREATE VIEW rocpd_op AS SELECT id, gpuId, "
                    "queueId, sequenceId, completionSignal, start + 0 * " + costly + " AS start, \"end\", "
                    "description_id, opType_id FROM op_rows",
            # A VIRTUAL generated column computes it on every read.
            "generated": "ALTER TABLE rocpd_op RENAME TO op_rows; CREATE TABLE rocpd_op (id INTEGER PRIMARY KEY, "
                         "gpuId INTEGER, queueId INTEGER, sequenceId INTEGER, completionSignal TEXT, s0 INTEGER, "
                         "\"end\" INTEGER, description_id INTEGER, opType_id INTEGER, start INTEGER AS (s0 + 0 * "
                         + costly + ") VIRTUAL); INSERT INTO rocpd_op SELECT id, gpuId, queueId, sequenceId, "
                         "completionSignal, start, \"end\", description_id, opType_id FROM op_rows; "
                         "WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < 3000) "
                         "INSERT INTO rocpd_op SELECT NULL, gpuId, queueId, sequenceId + k.n, completionSignal, "
                         "start, \"end\", description_id, opType_id FROM op_rows, k",
        }
        for name, edit in cases.items():
            crafted = os.path.join(tmp, name + ".rpd")
            os.rename(sql_fixture("rpd_small.sql", tmp, "PRAGMA foreign_keys = OFF; " + edit), crafted)
            line = _refused_fast(crafted)
            assert ("view 'rocpd_op'" in line) if name == "view" else ("generated column 'rocpd_op.start'" in line), line
        # Plain arithmetic on columns stays readable (a generated end = start + duration).
        plain = os.path.join(tmp, "plain.rpd")
        os.rename(sql_fixture("rpd_small.sql", tmp, "PRAGMA foreign_keys = OFF; ALTER TABLE rocpd_op RENAME TO op_rows; "
                              "CREATE VIEW rocpd_op AS SELECT id, gpuId, queueId, sequenceId, completionSignal, "
                              "start, \"end\" + 0 AS \"end\", description_id, opType_id FROM op_rows"), plain)
        r = run("stats", "--format", "json", plain)
        assert r.returncode == 0 and json.loads(r.stdout)["kernels"], r.stderr


@test
def a_crafted_rocpd_view_is_read_from_its_base_table():
    from harness import sql_fixture

    uuid = "0000aaaa_bbbb_7ccc_8ddd_eeeeffff0001"
    with tempfile.TemporaryDirectory() as tmp:
        plain = sql_fixture("rocpd_small.sql", tmp)
        good = json.loads(run("stats", "--format", "json", plain).stdout)["kernels"]
        os.rename(plain, os.path.join(tmp, "plain.db"))
        # The kernel view joined with an endless recursion: refused, and read from its one table.
        crafted = sql_fixture("rocpd_small.sql", tmp, "DROP VIEW rocpd_kernel_dispatch; CREATE VIEW "
                              "rocpd_kernel_dispatch AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL "
                              "SELECT n + 1 FROM r) SELECT k.* FROM rocpd_kernel_dispatch_" + uuid + " k, r")
        r = run("stats", "--format", "json", crafted)
        assert r.returncode == 0, r.stderr[-500:]
        assert json.loads(r.stdout)["kernels"] == good
        info = json.loads(run("info", "--format", "json", crafted).stdout)
        kinds = {p["kind"]: p["count"] for p in info["problems"]}
        assert kinds.get("sqlite.view_replaced") == 1, kinds
        # Two tables the view could stand for: which one is not known, so it stays refused.
        os.rename(crafted, os.path.join(tmp, "one.db"))
        two = sql_fixture("rocpd_small.sql", tmp, "CREATE TABLE rocpd_kernel_dispatch_ffff0000 AS SELECT * FROM "
                          "rocpd_kernel_dispatch_" + uuid + "; DROP VIEW rocpd_kernel_dispatch; CREATE VIEW "
                          "rocpd_kernel_dispatch AS SELECT k.* FROM rocpd_kernel_dispatch_" + uuid + " k, "
                          "rocpd_kernel_dispatch_ffff0000")
        assert "view 'rocpd_kernel_dispatch'" in _refused_fast(two)


@test
def a_refused_nsys_kernel_table_ends_like_the_other_formats():
    from harness import sql_fixture

    with tempfile.TemporaryDirectory() as tmp:
        endless = sql_fixture("nsys_small.sql", tmp, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO k0; "
                              "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL "
                              "SELECT n + 1 FROM r) SELECT k0.* FROM k0, r")
        for cmd in ("analyze", "stats"):
            r = run(cmd, endless)
            errors = _one_error(r)
            assert r.returncode == 2 and len(errors) == 1, (cmd, r.returncode, r.stdout[-300:], r.stderr)
            assert "view 'CUPTI_ACTIVITY_KIND_KERNEL'" in errors[0] or "recursive query" in errors[0], errors


@test
def a_damaged_string_table_is_counted_never_silently_replaced():
    import sqlite3

    from harness import sql_fixture

    with tempfile.TemporaryDirectory() as tmp:
        # A string longer than SQLite may hand over (16 MiB): each name it held is a problem.
        path = sql_fixture("nsys_small.sql", tmp)
        db = sqlite3.connect(path)
        for kid in db.execute("SELECT shortName, demangledName, mangledName FROM CUPTI_ACTIVITY_KIND_KERNEL "
                              "LIMIT 1").fetchone():
            db.execute("UPDATE StringIds SET value = ? WHERE id = ?", ("k" * (17 << 20), kid))
        db.commit()
        db.close()
        info = json.loads(run("info", "--format", "json", path).stdout)
        kinds = {p["kind"]: p["count"] for p in info["problems"]}
        assert kinds.get("sqlite.read_error", 0) >= 1, kinds
        d = json.loads(run("stats", "--format", "json", path).stdout)
        assert any(k["name"].startswith("<unreadable string") for k in d["kernels"]), [k["name"] for k in d["kernels"]]


# Forks gpuscope and prints its exit code, peak RSS (KiB) and stdout bytes. A child's ru_maxrss
# counts the pages it had when forked, so the test's own interpreter (its 40 MB name, and 220 MB
# more once another test imported torch) would hide any peak below its size: a bare interpreter
# forks instead.
_PEAK_RSS = """
import os, sys, tempfile
out = tempfile.TemporaryFile()
pid = os.fork()
if pid == 0:
    os.dup2(out.fileno(), 1)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
    try:
        os.execv(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)  # not started: an exit code gpuscope never gives
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss, out.seek(0, os.SEEK_END))
"""


def _peak_rss_mb(*args):
    """Runs gpuscope with `args`; (exit code, its peak resident memory in MB, stdout bytes). ASan's
    quarantine of freed memory (256 MB) is off: the bound is on what gpuscope holds."""
    asan = ":".join(x for x in (os.environ.get("ASAN_OPTIONS"), "quarantine_size_mb=0") if x)
    r = subprocess.run([sys.executable, "-S", "-c", _PEAK_RSS, harness.GPUSCOPE, *args],
                       capture_output=True, text=True, env=dict(os.environ, ASAN_OPTIONS=asan),
                       check=True, timeout=300)
    rc, kib, written = (int(x) for x in r.stdout.split())
    assert rc != 127, f"{harness.GPUSCOPE} did not start"
    return rc, kib / 1024, written


@test
def a_giant_name_costs_views_a_bounded_multiple_of_the_input():
    # A 40 MB kernel name (the 300 MB, scaled down to run in seconds; the bound is a ratio).
    size = 40 << 20
    with tempfile.TemporaryDirectory() as tmp:
        t = os.path.join(tmp, "giant.json")
        _kineto_with_names(t, ["g" * size])
        base_rc, base_mb, _ = _peak_rss_mb("stats", data("kineto_cuda_small.json"))
        assert base_rc == 0
        input_mb = os.path.getsize(t) / (1 << 20)
        for cmd in (("stats", t), ("report", t, "-o", os.path.join(tmp, "r.html"))):
            rc, mb, written = _peak_rss_mb(*cmd)
            assert rc == 0, cmd
            assert mb - base_mb < 3.5 * input_mb, (cmd, round(mb), round(input_mb))
            assert written < 1 << 20, (cmd, written)  # the view holds a cut name
        page = os.path.getsize(os.path.join(tmp, "r.html"))
        assert page < 8 << 20, page
        info = json.loads(run("info", "--format", "json", t).stdout)
        assert {p["kind"] for p in info["problems"]} >= {"invalid.name_length"}, info["problems"]
        # Kept whole where the trace is converted.
        back = os.path.join(tmp, "back.json")
        assert run("convert", t, "-o", back).returncode == 0
        assert os.path.getsize(back) > size
