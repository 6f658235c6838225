"""SQL over a loaded trace (gpuscope.query, DuckDB): results equal `stats`, every table is
queryable and has the columns `gpuscope help tables` lists (the one list), the findings table
equals `analyze`, `python -m gpuscope.query` prints table / CSV / JSON and says a bad query in
one line. Skips (visibly) where DuckDB is not installed."""
import csv
import io
import json
import os
import subprocess
import sys
import warnings

import pyarrow as pa
import pytest

import gpuscope

from conftest import DATA

pytest.importorskip("duckdb", reason="DuckDB is not installed (pip install 'gpuscope[sql]')")

TRACE = os.path.join(DATA, "kineto_cuda_small.json")


def load(path=TRACE):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return gpuscope.load(path)


def test_query_equals_stats():
    t = load()
    r = gpuscope.query(t, "SELECT name, count(*) AS calls, sum(dur_ns)::BIGINT AS total_ns FROM kernels "
                          "GROUP BY name ORDER BY total_ns DESC")
    assert isinstance(r, pa.Table)
    by_name = {x["name"]: (x["calls"], x["total_ns"]) for x in gpuscope.stats(t, mangled=True)["kernels"]}
    assert {row["name"]: (row["calls"], row["total_ns"]) for row in r.to_pylist()} == by_name
    # A join along the link columns: kernels to the ops that launched them.
    j = gpuscope.query(t, "SELECT o.name AS op, count(*) AS n FROM kernels k JOIN cpu_ops o ON k.op_id = o.id "
                          "GROUP BY o.name ORDER BY n DESC")
    assert j.num_rows > 0 and sum(j.column("n").to_pylist()) <= t.kernels().num_rows
    # A path works too; the module-level name stays callable after `import gpuscope.query`.
    import gpuscope.query as qmod  # noqa: F401
    assert gpuscope.query(TRACE, "SELECT count(*) AS n FROM memops").to_pylist() == [{"n": t.memops().num_rows}]


def test_every_table_has_the_columns_help_lists(fixtures):
    listed = {tb["name"]: [c["name"] for c in tb["columns"]] for tb in gpuscope.help("tables")["tables"]}
    assert set(listed) == {"kernels", "memops", "api", "cpu_ops", "annotations", "python_frames", "iterations",
                           "memory", "findings"}
    for fmt in ("kineto", "rpd", "nsys"):
        t = load(fixtures[fmt])
        for name, columns in listed.items():
            r = gpuscope.query(t, f"SELECT * FROM {name}")
            assert r.column_names == columns, (fmt, name, r.column_names)
            if name != "findings":
                assert r.num_rows == getattr(t, name)().num_rows


def test_findings_table_equals_analyze():
    t = load()
    report = gpuscope.analyze(t)
    r = gpuscope.query(t, "SELECT rule, impact_ns, python FROM findings ORDER BY id").to_pylist()
    assert r == [{"rule": f["rule"], "impact_ns": f["impact_ns"], "python": f["where"]["python"]}
                 for f in report["findings"]]
    assert r, "the fixture has findings"


def run_query(*args):
    return subprocess.run([sys.executable, "-m", "gpuscope.query", *args], capture_output=True, text=True,
                          env=dict(os.environ, COLUMNS="100"))


def test_the_command_prints_table_csv_and_json():
    sql = "SELECT name, count(*) AS calls FROM kernels GROUP BY name ORDER BY calls DESC"
    j = run_query(TRACE, sql, "--format", "json")
    assert j.returncode == 0, j.stderr
    d = json.loads(j.stdout)
    assert d["schema_version"] == gpuscope.SCHEMA_VERSION and d["columns"] == ["name", "calls"]
    assert sum(r["calls"] for r in d["rows"]) == load().kernels().num_rows
    c = run_query(TRACE, sql, "--format", "csv")
    rows = list(csv.reader(io.StringIO(c.stdout)))
    assert rows[0] == ["name", "calls"] and [[r["name"], str(r["calls"])] for r in d["rows"]] == rows[1:]
    t = run_query(TRACE, sql)
    lines = t.stdout.splitlines()
    assert lines[0].split() == ["name", "calls"] and lines[-1] == f"({len(d['rows'])} rows)"
    assert max(len(x) for x in lines) <= 100
    bad = run_query(TRACE, "SELECT nope FROM kernels")
    said = [x for x in bad.stderr.strip().splitlines() if not x.startswith("gpuscope: note:")]  # loading's notes
    assert bad.returncode == 2 and len(said) == 1 and "the query failed" in said[0], bad.stderr
    missing = run_query(os.path.join(DATA, "no-such-trace.json"), "SELECT 1")
    assert missing.returncode == 2 and "no-such-trace.json" in missing.stderr


def test_the_sql_notebook_example_runs(tmp_path):
    pytest.importorskip("matplotlib")
    import runpy
    notebook = os.path.join(os.path.dirname(DATA), "..", "examples", "sql_notebook.py")
    argv = sys.argv
    sys.argv = [notebook, TRACE, str(tmp_path)]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ns = runpy.run_path(notebook, run_name="__main__")
    finally:
        sys.argv = argv
    for png in ("sql_top_kernels.png", "sql_findings.png"):
        assert os.path.getsize(tmp_path / png) > 5_000, png
    t = load()
    # Grouped by category where the kernels table has one, else by name; either way every
    # kernel is counted once and the findings are analyze's.
    assert ns["GROUP"] == ("category" if "category" in t.kernels().column_names else "name")
    assert ns["top"]["calls"].sum() == t.kernels().num_rows
    assert list(ns["findings"]["rule"]) == [f["rule"] for f in sorted(gpuscope.analyze(t)["findings"],
                                                                      key=lambda f: -f["impact_ns"])]
