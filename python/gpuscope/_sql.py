"""SQL over a loaded trace: DuckDB scans the trace's Arrow tables where they are (no copy).

The tables and their columns are `gpuscope help tables` (src/render/tables_help.cc, the one list);
`findings` is built from `analyze` with the default options. DuckDB is an extra:
pip install 'gpuscope[sql]'.
"""
from __future__ import annotations

import decimal
import math
import re
from typing import Any, Dict, List, Union

import pyarrow as pa

TABLES = ("kernels", "memops", "api", "cpu_ops", "annotations", "python_frames", "iterations",
          "memory", "findings")


def _duckdb():
    try:
        import duckdb
    except ImportError as e:  # the extra is not installed
        raise ImportError("gpuscope.query needs DuckDB: pip install 'gpuscope[sql]'") from e
    return duckdb


def findings_table(report: Dict[str, Any]) -> pa.Table:
    """The findings of an `analyze` dict as a table (the columns of `help tables`' findings)."""
    rows = report.get("findings", [])
    where = [f.get("where", {}) for f in rows]
    return pa.table({
        "id": pa.array(range(len(rows)), pa.int64()),
        "rule": pa.array([f["rule"] for f in rows], pa.string()),
        "severity": pa.array([f["severity"] for f in rows], pa.string()),
        "title": pa.array([f["title"] for f in rows], pa.string()),
        "impact_ns": pa.array([f["impact_ns"] for f in rows], pa.int64()),
        "impact_percent": pa.array([f["impact_percent"] for f in rows], pa.float64()),
        "standalone_ns": pa.array([f.get("standalone_ns", 0) for f in rows], pa.int64()),
        "python": pa.array([w.get("python", "") for w in where], pa.string()),
        "op": pa.array([w.get("op", "") for w in where], pa.string()),
        "kernel": pa.array([w.get("kernel", "") for w in where], pa.string()),
        "detail": pa.array([f.get("detail", "") for f in rows], pa.string()),
        "advice": pa.array([f.get("advice", "") for f in rows], pa.string()),
    })


def table(trace, name: str) -> pa.Table:
    """Table `name` of a loaded trace, exported once per trace (the Arrow arrays point into it)."""
    cache = trace.__dict__.setdefault("_sql_tables", {})
    if name not in cache:
        if name == "findings":
            from . import analyze
            cache[name] = findings_table(analyze(trace))
        else:
            cache[name] = getattr(trace, name)()
    return cache[name]


def query(trace, sql: str) -> pa.Table:
    """Runs `sql` (DuckDB's dialect) over the tables of `trace` (a gpuscope.Trace or a path) and
    returns the result as a pyarrow Table. Only the tables the query names are exported."""
    from . import Trace, load
    if not isinstance(trace, Trace):
        trace = load(trace)
    duckdb = _duckdb()
    con = duckdb.connect(":memory:")
    try:
        for name in TABLES:
            if re.search(r"\b%s\b" % name, sql, re.IGNORECASE):
                con.register(name, table(trace, name))
        rel = con.sql(sql)
        if rel is None:  # a statement without rows
            return pa.table({})
        return rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()
    finally:
        con.close()


def _plain(v: Any) -> Any:
    """A JSON value for a cell: DuckDB's sums are decimals, NaN and infinities become null."""
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, (bytes, bytearray)):
        return v.hex()
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if hasattr(v, "isoformat"):
        return v.isoformat()
    return v


def as_rows(result: pa.Table) -> Dict[str, Union[List[str], List[Dict[str, Any]]]]:
    """{"columns": [...], "rows": [{column: value}, ...]}: the JSON of a query's result."""
    columns = list(result.column_names)
    rows = [{k: _plain(v) for k, v in row.items()} for row in result.to_pylist()]
    return {"columns": columns, "rows": rows}
