"""End-to-end: out-of-range and missing values never become results (issue 16). Each case damages a
copy of a repository fixture the way the issue's runs did and checks that the bad events are
dropped and counted by name, the rest is kept, and the totals stay within the trace's span."""
import json
import os
import re
import shutil
import sqlite3
import tempfile

from harness import data, run, sql_fixture, test

# A boot-clock origin like a real run's (days of uptime): the fixtures' own times start near 0,
# where a 0 read from a damaged cell would be a plausible time.
SHIFT = 5_000_000_000_000_000
TIME_COLUMNS = {"start", "end", "BeginNs", "EndNs", "timestamp"}
INT64_MAX = 2**63 - 1


def realistic_clock(db):
    for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
        cols = [r[1] for r in db.execute(f'PRAGMA table_info("{name}")')]
        sets = [f'"{c}" = "{c}" + {SHIFT}' for c in cols if c in TIME_COLUMNS]
        if sets:
            db.execute(f'UPDATE "{name}" SET {", ".join(sets)}')


def problems(path):
    r = run("info", "--format", "json", path)
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    return {p["kind"]: p["count"] for p in info["problems"]}, info


def kernel_totals(path):
    r = run("stats", "--format", "json", path)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    return sum(k["calls"] for k in d["kernels"]), sum(k["total_ns"] for k in d["kernels"])


def check_sqlite_damage(fixture, table_like, start_col, end_col, zero_row):
    """Text in a start cell, INT64_MAX in an end cell and (when zero_row) a row of zeros in the
    kernel table of `fixture`: three kernels dropped and named, nothing else changed."""
    with tempfile.TemporaryDirectory() as tmp:
        path = sql_fixture(fixture, tmp)
        db = sqlite3.connect(path)
        realistic_clock(db)
        db.commit()
        good_calls, good_total = kernel_totals(path)
        _, good_info = problems(path)
        (table,) = db.execute(
            f"SELECT name FROM sqlite_master WHERE type='table' AND name LIKE '{table_like}' ORDER BY name"
        ).fetchone()
        rows = [r[0] for r in db.execute(f'SELECT rowid FROM "{table}" ORDER BY "{start_col}"')]
        db.execute(f'UPDATE "{table}" SET "{start_col}" = \'oops\' WHERE rowid = {rows[0]}')
        db.execute(f'UPDATE "{table}" SET "{end_col}" = {INT64_MAX} WHERE rowid = {rows[1]}')
        if zero_row:
            cols = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]
            values = ["(SELECT max(id) + 1 FROM \"%s\")" % table if c == "id" else "0" for c in cols]
            db.execute(f'INSERT INTO "{table}" VALUES ({", ".join(values)})')
        db.commit()
        db.close()
        kinds, info = problems(path)
        assert kinds.get("invalid.missing_time", 0) >= 1, kinds
        assert kinds.get("invalid.time_out_of_range", 0) >= 1 + zero_row, kinds
        assert info["span"]["duration_ns"] <= good_info["span"]["duration_ns"], (info["span"], good_info["span"])
        assert [d["id"] for d in info["devices"]] == [d["id"] for d in good_info["devices"]], info["devices"]
        calls, total = kernel_totals(path)
        assert calls < good_calls and total < good_total, (calls, total, good_calls, good_total)
        r = run("stats", path)
        assert "invalid." in r.stderr and r.stderr.count("\n") == 1, r.stderr


@test
def rpd_damaged_times_are_dropped_and_named():
    # rocpd_op holds kernels and copies; the first two by start are kernels in the fixture.
    check_sqlite_damage("rpd_small.sql", "rocpd_op", "start", "end", zero_row=True)


@test
def rocpd_damaged_times_are_dropped_and_named():
    check_sqlite_damage("rocpd_small.sql", "rocpd_kernel_dispatch_%", "start", "end", zero_row=False)


@test
def nsys_damaged_times_are_dropped_and_named():
    check_sqlite_damage("nsys_small.sql", "CUPTI_ACTIVITY_KIND_KERNEL", "start", "end", zero_row=False)


@test
def rocprof_results_db_damaged_times_are_dropped_and_named():
    check_sqlite_damage("rocprof_results_db.sql", "OPS", "BeginNs", "EndNs", zero_row=False)


@test
def rocprofv3_json_record_without_start_is_not_counted_from_zero():
    with tempfile.TemporaryDirectory() as tmp:
        src = data("rocprofv3_small_results.json")
        text = open(src).read()
        path = os.path.join(tmp, "cut_results.json")
        # Drop the first kernel dispatch's start_timestamp.
        damaged, n = re.subn(r'"start_timestamp"\s*:\s*\d+\s*,', "", text, count=1)
        assert n == 1
        open(path, "w").write(damaged)
        good_calls, good_total = kernel_totals(src)
        kinds, info = problems(path)
        assert kinds.get("invalid.missing_time") == 1, kinds
        calls, total = kernel_totals(path)
        assert total <= good_total and total < 10**12, (total, good_total)


@test
def rocprofv3_csv_negative_timestamp_is_refused_per_row():
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = os.path.join(tmp, "run")
        shutil.copytree(data("rocprofv3_csv_B"), run_dir)
        csv_path = os.path.join(run_dir, "300_kernel_trace.csv")
        lines = open(csv_path).read().splitlines(keepends=True)
        fields = lines[1].split(",")
        fields[8] = "-5"
        lines[1] = ",".join(fields)
        open(csv_path, "w").write("".join(lines))
        kinds, _ = problems(csv_path)
        assert kinds.get("rocprofv3_csv.bad_timestamp") == 1, kinds
        calls, _ = kernel_totals(csv_path)
        assert calls == len(lines) - 2, calls


@test
def trace_of_mostly_bad_values_is_refused_in_one_line():
    with tempfile.TemporaryDirectory() as tmp:
        path = sql_fixture("rpd_small.sql", tmp)
        db = sqlite3.connect(path)
        db.execute("UPDATE rocpd_op SET start = 'x'")
        db.execute("UPDATE rocpd_api SET start = 'y'")
        db.commit()
        db.close()
        r = run("stats", path)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "missing, inverted or implausible time" in r.stderr and path in r.stderr, r.stderr


def kernel_csv_rows(n):
    """A rocprofv3 kernel trace of `n` dispatches, from the fixture's first row."""
    lines = open(data("rocprofv3_csv_B/300_kernel_trace.csv")).read().splitlines()
    row = lines[1].split(",")
    out = [lines[0]]
    for i in range(n):
        r = list(row)
        r[4], r[7], r[8], r[9] = str(i + 2), str(i + 2), str(113000 + i * 30000), str(133000 + i * 30000)
        out.append(",".join(r))
    return out


def csv_info(tmp, name, content):
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(content if isinstance(content, bytes) else content.encode())
    r = run("info", "--format", "json", path)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    kinds = {p["kind"]: p for p in d["problems"]}
    return d["counts"].get("kernels", 0), kinds, d["import_error"], r.stderr


@test
def csv_damage_is_counted_with_its_line():
    rows = kernel_csv_rows(1003)
    with tempfile.TemporaryDirectory() as tmp:
        # One unbalanced quote in row 2 costs that row, not the 1,001 after it.
        bad = list(rows)
        bad[2] = bad[2].replace('"gemm(float*)"', '"gemm(float*)', 1)
        n, kinds, err, _ = csv_info(tmp, "q_kernel_trace.csv", "\n".join(bad) + "\n")
        assert n == 1002 and err is None, (n, err)
        assert "line 3:" in kinds["csv.unbalanced_quote"]["first"], kinds
        # Too many / too few fields and a NUL byte: counted with the line.
        bad = list(rows)
        bad[3] += ",extra"
        bad[4] = ",".join(bad[4].split(",")[:-2])
        bad[5] = bad[5].replace("gemm", "ge\0mm")
        n, kinds, err, _ = csv_info(tmp, "f_kernel_trace.csv", "\n".join(bad) + "\n")
        assert kinds["csv.field_count"]["count"] == 2 and "line 4:" in kinds["csv.field_count"]["first"], kinds
        assert "line 6:" in kinds["csv.nul_byte"]["first"] and n == 1002, (n, kinds)


@test
def csv_cut_mid_row_warns_like_json():
    rows = kernel_csv_rows(50)
    with tempfile.TemporaryDirectory() as tmp:
        n, kinds, err, stderr = csv_info(tmp, "c_kernel_trace.csv", "\n".join(rows)[:-25])
        assert n == 49, n
        assert "ends in the middle of a row (line 51" in err and "truncated" in err, err
        assert "warning:" in stderr and "kept the 49 events" in stderr, stderr
        assert stderr.count("c_kernel_trace.csv") == 1, stderr
        # The same file with its last newline is whole.
        n, _, err, _ = csv_info(tmp, "w_kernel_trace.csv", "\n".join(rows))
        assert n == 50 and err is None, (n, err)


@test
def csv_with_bom_and_crlf_reads_like_the_plain_file():
    rows = kernel_csv_rows(20)
    with tempfile.TemporaryDirectory() as tmp:
        n, kinds, err, _ = csv_info(tmp, "b_kernel_trace.csv", b"\xef\xbb\xbf" + "\r\n".join(rows).encode() + b"\r\n")
        assert n == 20 and not kinds and err is None, (n, kinds, err)
        # events.csv with a BOM is recognised too.
        out = os.path.join(tmp, "conv")
        assert run("convert", data("kineto_cuda_small.json"), "-o", out + "/").returncode == 0
        events = open(os.path.join(out, "events.csv"), "rb").read()
        r = run("stats", "--format", "json", os.path.join(out, "events.csv"))
        open(os.path.join(tmp, "events.csv"), "wb").write(b"\xef\xbb\xbf" + events.replace(b"\n", b"\r\n"))
        r2 = run("stats", "--format", "json", os.path.join(tmp, "events.csv"))
        assert r2.returncode == 0, r2.stderr
        assert json.loads(r2.stdout)["kernels"] == json.loads(r.stdout)["kernels"]


@test
def rocprofv3_csv_of_unusable_rows_says_why():
    rows = kernel_csv_rows(9)
    with tempfile.TemporaryDirectory() as tmp:
        bad = [rows[0]] + [",".join(r.split(",")[:8] + ["x", "y"] + r.split(",")[10:]) for r in rows[1:]]
        path = os.path.join(tmp, "u_kernel_trace.csv")
        open(path, "w").write("\n".join(bad) + "\n")
        r = run("stats", path)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "none of the rocprofv3 CSV run's 9 rows holds a usable event" in r.stderr, r.stderr
        assert "rocprofv3_csv.bad_timestamp" in r.stderr, r.stderr


@test
def kineto_type_error_in_one_event_costs_that_event_only():
    d = json.load(open(data("kineto_cuda_small.json")))
    events = d["traceEvents"]
    complete = [i for i, e in enumerate(events) if e.get("ph") == "X"]
    good_calls, _ = kernel_totals(data("kineto_cuda_small.json"))
    events[complete[3]]["ph"] = 5
    events[complete[5]]["name"] = None
    events[complete[6]]["ts"] = {"oops": 1}
    kernel = [i for i in complete if events[i].get("cat") == "kernel"][-1]
    events[kernel]["name"] = "bad\u0000name\udcff"  # NUL, and a byte that is not UTF-8
    raw = json.dumps(d).replace("\\udcff", "\\u00ff").encode()
    raw = raw.replace(b"name\\u00ff", b"name\xff")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.json")
        open(path, "wb").write(raw)
        kinds, info = problems(path)
        assert kinds.get("kineto.bad_field") == 3, kinds
        assert kinds.get("invalid.name_encoding") == 1, kinds
        assert info["import_error"] is None, info["import_error"]
        r = run("stats", "--format", "json", path)
        assert r.returncode == 0, r.stderr
        names = [k["name"] for k in json.loads(r.stdout)["kernels"]]  # valid UTF-8 JSON
        assert any(n.startswith("bad\u0000name\ufffd") for n in names), names


@test
def sqlite_trace_missing_a_table_names_it():
    with tempfile.TemporaryDirectory() as tmp:
        for fixture, table, words in (
            ("rpd_small.sql", "rocpd_string", "an .rpd (rocmProfileData) without the table(s) rocpd_string"),
            ("nsys_small.sql", "StringIds", "an Nsight Systems export without the table StringIds"),
        ):
            path = sql_fixture(fixture, tmp)
            db = sqlite3.connect(path)
            db.execute(f"DROP TABLE {table}")
            db.commit()
            db.close()
            r = run("stats", path)
            assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
            assert words in r.stderr and r.stderr.count(path) == 1, r.stderr


@test
def damaged_sqlite_schema_is_one_line():
    with tempfile.TemporaryDirectory() as tmp:
        path = sql_fixture("rpd_small.sql", tmp)
        db = sqlite3.connect(path)
        db.execute("PRAGMA writable_schema = ON")
        db.execute(
            "UPDATE sqlite_master SET sql = 'CREATE TABLE rocpd_op (id integer,\n  broken (((' WHERE name = 'rocpd_op'"
        )
        db.commit()
        db.close()
        for command in ("info", "stats", "analyze"):
            r = run(command, path)
            assert r.returncode == 2, (command, r.returncode, r.stderr)
            assert len(r.stderr.strip().splitlines()) == 1 and path in r.stderr, r.stderr
