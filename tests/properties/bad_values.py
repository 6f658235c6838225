#!/usr/bin/env python3
"""Property test (issue 16): every numeric value of a trace, replaced by NULL, text, a negative
number, 0 or INT64_MAX, must give exit 0 or 2 (never a crash), no kernel or copy total beyond the
trace's span x its GPU streams, and a counted problem whenever events were dropped.

Runs over the repository's SQLite, CSV and Kineto fixtures (moved to a realistic boot-clock origin,
where 0 is not a plausible time) and over the small SQLite samples in ../shared/samples when they
are there (else says so and goes on). One value is damaged per run, in the first row of each table.
Stdlib only; prints what failed and exits 1, or a summary line."""
import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "tests", "data")
SAMPLES = os.path.join(os.path.dirname(ROOT), "shared", "samples")
INT64_MAX = 2**63 - 1
BAD = [None, "text", -5, 0, INT64_MAX]
SHIFT = 5_000_000_000_000_000  # days of uptime on a boot clock, in ns
TIME_COLUMNS = {"start", "end", "BeginNs", "EndNs", "timestamp"}
SAMPLE_DBS = [  # small real databases, one per SQLite family
    "nsys/cuda-perf-sandbox/report1.sqlite",
    "rocm/rocmProfileData/matmul_result.rpd",
    "rocm/batched_gemm/rocprof-v1/results.db",
    "rocm/batched_gemm/rocpd-ck_bmm/28_results.db",
]

GPUSCOPE = None
failures = []
runs = 0


def gpuscope(*args):
    global runs
    runs += 1
    return subprocess.run([GPUSCOPE, *args], capture_output=True, text=True, timeout=120)


def observe(path):
    """(exit code, info JSON or None, stats JSON or None, stderr)."""
    r = gpuscope("info", "--format", "json", path)
    if r.returncode != 0:
        return r.returncode, None, None, r.stderr
    s = gpuscope("stats", "--format", "json", path)
    if s.returncode != 0:
        return s.returncode, None, None, s.stderr
    return 0, json.loads(r.stdout), json.loads(s.stdout), r.stderr


def events(info):
    return sum(info["counts"].values())


def problem_total(info):
    return sum(p["count"] for p in info["problems"]) + (1 if info["import_error"] else 0)


def check(label, path, base_info):
    rc, info, stats, stderr = observe(path)
    if rc not in (0, 2):
        failures.append(f"{label}: exit {rc} (a crash?): {stderr.strip()[-300:]}")
        return
    if rc == 2:
        if len(stderr.strip().splitlines()) != 1:
            failures.append(f"{label}: a refusal of several lines: {stderr!r}")
        return
    span = info["span"]["duration_ns"]
    streams = max(1, info["tracks"]["gpu_streams"])
    for table in ("kernels", "memops"):
        total = sum(row["total_ns"] for row in stats.get(table, []))
        if total > span * streams:
            failures.append(f"{label}: {table} total {total} ns > span {span} x {streams} streams")
    if events(info) < events(base_info) and problem_total(info) <= problem_total(base_info):
        failures.append(f"{label}: {events(base_info) - events(info)} events dropped without a problem")


def sql_literal(v):
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return f"'{v}'"
    return str(v)


def damage_database(label, original, tmp):
    base_rc, base_info, _, err = observe(original)
    if base_rc != 0:
        failures.append(f"{label}: the undamaged file does not read: {err.strip()}")
        return
    db = sqlite3.connect(original)
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    plan = []
    for t in tables:
        cols = [(r[1], (r[2] or "").upper()) for r in db.execute(f'PRAGMA table_info("{t}")')]
        if db.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] == 0:
            continue
        for c, ctype in cols:
            if "INT" in ctype or ctype in ("", "NUMERIC", "REAL"):
                value = db.execute(f'SELECT "{c}" FROM "{t}" ORDER BY rowid LIMIT 1').fetchone()[0]
                if isinstance(value, (int, float)):
                    plan.append((t, c))
    db.close()
    copy = os.path.join(tmp, "damaged" + os.path.splitext(original)[1])
    for t, c in plan:
        for v in BAD:
            shutil.copyfile(original, copy)
            db = sqlite3.connect(copy)
            try:
                db.execute(f'UPDATE "{t}" SET "{c}" = {sql_literal(v)} WHERE rowid = (SELECT min(rowid) FROM "{t}")')
                db.commit()
            except sqlite3.DatabaseError:
                db.close()
                continue  # a constraint refuses the value: the writer could not have written it
            db.close()
            check(f"{label} {t}.{c} = {sql_literal(v)}", copy, base_info)


def realistic(sql_fixture, tmp):
    path = os.path.join(tmp, sql_fixture.replace(".sql", ".sqlite"))
    db = sqlite3.connect(path)
    db.executescript(open(os.path.join(DATA, sql_fixture)).read())
    for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
        cols = [r[1] for r in db.execute(f'PRAGMA table_info("{name}")')]
        sets = [f'"{c}" = "{c}" + {SHIFT}' for c in cols if c in TIME_COLUMNS]
        if sets:
            db.execute(f'UPDATE "{name}" SET {", ".join(sets)}')
    db.commit()
    db.close()
    return path


def damage_csv(label, run_dir, name, tmp):
    """A rocprofv3 CSV of a run: the whole run is copied (its files are read together)."""
    copy = os.path.join(tmp, "run")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(run_dir, copy)
    original = os.path.join(copy, name)
    base_rc, base_info, _, _ = observe(original)
    text = open(original).read()
    lines = text.splitlines()
    header = lines[0].split(",")
    first = lines[1].split(",")
    for i, cell in enumerate(first):
        if not cell.lstrip("-").isdigit():
            continue
        for v in BAD:
            row = list(first)
            row[i] = "" if v is None else str(v)
            open(original, "w").write("\n".join([lines[0], ",".join(row)] + lines[2:]) + "\n")
            check(f"{label} {header[i]} = {v!r}", original, base_info)
    open(original, "w").write(text)


def damage_kineto(label, original, tmp):
    base_rc, base_info, _, _ = observe(original)
    d = json.load(open(original))
    seen = set()
    for idx, e in enumerate(d["traceEvents"]):
        if e.get("ph") != "X" or e.get("cat") in seen:
            continue
        seen.add(e.get("cat"))
        fields = [("", k) for k in ("ts", "dur", "pid", "tid")]
        fields += [("args", k) for k, v in e.get("args", {}).items() if isinstance(v, (int, float))]
        for where, key in fields:
            for v in BAD:
                dd = json.loads(json.dumps(d))
                target = dd["traceEvents"][idx] if not where else dd["traceEvents"][idx][where]
                target[key] = v
                path = os.path.join(tmp, "damaged.json")
                json.dump(dd, open(path, "w"))
                check(f"{label} {e.get('cat')}.{where + '.' if where else ''}{key} = {v!r}", path, base_info)


def main():
    global GPUSCOPE
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuscope", required=True)
    GPUSCOPE = os.path.abspath(ap.parse_args().gpuscope)
    with tempfile.TemporaryDirectory() as tmp:
        for fixture in ("rpd_small.sql", "rocpd_small.sql", "nsys_small.sql", "rocprof_results_db.sql"):
            damage_database(fixture, realistic(fixture, tmp), tmp)
        for name in ("300_kernel_trace.csv", "300_memory_copy_trace.csv", "300_hip_api_trace.csv"):
            damage_csv(name, os.path.join(DATA, "rocprofv3_csv_A"), name, tmp)
        damage_kineto("kineto_cuda_small.json", os.path.join(DATA, "kineto_cuda_small.json"), tmp)
        if os.path.isdir(SAMPLES):
            for rel in SAMPLE_DBS:
                path = os.path.join(SAMPLES, rel)
                if os.path.exists(path):
                    local = os.path.join(tmp, "sample" + os.path.splitext(rel)[1])
                    shutil.copyfile(path, local)
                    damage_database(rel, local, tmp)
        else:
            print(f"bad_values: SKIPPED the shared samples ({SAMPLES} not found); fixtures only")
    for f in failures[:60]:
        print("FAIL", f)
    print(f"bad_values: {runs} runs, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
