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
