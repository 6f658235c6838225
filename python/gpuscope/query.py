"""python -m gpuscope.query TRACE SQL [--format table|csv|json]: SQL over a trace's tables.

    python -m gpuscope.query trace.json.gz \\
        "SELECT name, count(*) AS calls, sum(dur_ns) AS total_ns FROM kernels
         GROUP BY name ORDER BY total_ns DESC LIMIT 10"

The tables and columns: `gpuscope help tables`. json prints {"schema_version", "columns",
"rows"} (what the MCP server's query tool returns). Exit 2 with one line for an unusable trace
or a query DuckDB refuses.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import types
import warnings

from . import _sql


def _text_table(result, width: int = 100) -> str:
    """The rows as an aligned text table, each cell cut to fit `width` columns in all."""
    rows = _sql.as_rows(result)
    cols = rows["columns"]
    if not cols:
        return "(no columns)\n"

    def cell(v):
        return "" if v is None else (json.dumps(v) if isinstance(v, (list, dict)) else str(v))

    grid = [cols] + [[cell(r.get(c)) for c in cols] for r in rows["rows"]]
    widths = [max(len(row[i]) for row in grid) for i in range(len(cols))]
    while sum(widths) + 2 * (len(cols) - 1) > width and max(widths) > 8:
        widths[widths.index(max(widths))] -= 1
    out = []
    for row in grid:
        cut = [v if len(v) <= w else v[:w - 1] + "~" for v, w in zip(row, widths)]
        out.append("  ".join(v.ljust(w) for v, w in zip(cut, widths)).rstrip())
    n = len(rows["rows"])
    return "\n".join(out) + "\n(%d row%s)\n" % (n, "" if n == 1 else "s")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m gpuscope.query",
                                description="SQL (DuckDB) over a trace's tables: gpuscope help tables")
    p.add_argument("trace", help="a trace gpuscope reads")
    p.add_argument("sql", help="the query, e.g. \"SELECT count(*) FROM kernels\"")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table")
    a = p.parse_args(argv)
    from . import SCHEMA_VERSION, TraceError, load
    try:
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            t = load(a.trace)
        for w in said:
            print(w.message, file=sys.stderr)
        result = _sql.query(t, a.sql)
    except TraceError as e:
        print(f"gpuscope: {e}", file=sys.stderr)
        return 2
    except ImportError as e:
        print(f"gpuscope: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # DuckDB's parser and binder errors: one line
        if type(e).__module__.split(".")[0] not in ("duckdb", "_duckdb"):
            raise
        print(f"gpuscope: {a.trace}: the query failed: {str(e).splitlines()[0]}", file=sys.stderr)
        return 2
    if a.format == "json":
        print(json.dumps({"schema_version": SCHEMA_VERSION, **_sql.as_rows(result)}, indent=2))
    elif a.format == "csv":
        import csv
        rows = _sql.as_rows(result)
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(rows["columns"])
        for r in rows["rows"]:
            w.writerow(["" if v is None else json.dumps(v) if isinstance(v, (list, dict)) else v
                        for v in (r.get(c) for c in rows["columns"])])
    else:
        sys.stdout.write(_text_table(result, int(os.environ.get("COLUMNS", "100") or 100)))
    return 0


class _CallableModule(types.ModuleType):
    """`import gpuscope.query` binds this module where gpuscope.query (the function) was: calling
    it still runs the query."""

    def __call__(self, trace, sql):
        return _sql.query(trace, sql)


sys.modules[__name__].__class__ = _CallableModule

if __name__ == "__main__":
    sys.exit(main())
