"""An MCP server (Model Context Protocol, stdio) that lets a coding agent open traces itself:

    python -m gpuscope.mcp [--root DIR]        (or the gpuscope-mcp command)

Tools info, stats, analyze, whatif, diff, memory, roofline and query take a trace path (relative
to the root, or absolute inside it) and return what the CLI prints with --format json (query:
{"schema_version", "columns", "rows"}); help (and the resources gpuscope://help/TOPIC) return
the help topics, so an agent can read what a word or a rule means. Traces are loaded once and
kept by path and modification time (the last few); a path outside the root is refused; an
unusable trace or a bad option comes back as a tool error with the CLI's one-line message.
Needs the official SDK: pip install 'gpuscope[mcp]'.
"""
from __future__ import annotations

import argparse
import collections
import functools
import json
import os
import sys
import threading
import warnings
from typing import Any, Dict, List, Optional

try:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import CallToolResult, TextContent
    _MISSING = None
except ImportError as e:  # the extra is not installed: main() says so in one line
    _MISSING = e

    class ToolError(Exception):
        pass

import gpuscope
from gpuscope import _sql

HELP_TOPICS = ("findings", "terms", "formats", "problems", "tables", "whatif", "roofline")
CACHED_TRACES = 4  # loaded traces kept (a 1 GB trace's model is ~170 MB)

INSTRUCTIONS = """gpuscope reads GPU profiler traces (PyTorch profiler / Kineto JSON, .rpd, rocpd,
rocprofv3, rocprof, Nsight Systems SQLite) and says why a run is slow. Start with `analyze`
(findings priced in ns of wall time saved: impact_ns), then `whatif` to test a change
(gpu_speedup, host_speedup, no_syncs, graphs, fix=[rule ids]), `stats` for per-kernel tables,
`query` for SQL over the event tables (help topic `tables` lists them). Every result carries
schema_version. Words and rules: the `help` tool or gpuscope://help/TOPIC."""


class Traces:
    """Loaded traces by (real path, mtime, size); paths must lie under the root."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)
        self._cache: "collections.OrderedDict[tuple, gpuscope.Trace]" = collections.OrderedDict()
        self._lock = threading.Lock()
        self.loads = 0  # how many times a trace was read (the tests check the cache)

    def resolve(self, path: str) -> str:
        full = os.path.realpath(os.path.join(self.root, os.path.expanduser(path)))
        if os.path.commonpath([full, self.root]) != self.root:
            raise ToolError(f"{path}: outside the server's root {self.root} (start the server "
                            f"with --root DIR to serve traces there)")
        if not os.path.exists(full):
            raise ToolError(f"{path}: no such file or folder under {self.root}")
        return full

    def load(self, path: str) -> "gpuscope.Trace":
        full = self.resolve(path)
        st = os.stat(full)
        key = (full, st.st_mtime_ns, st.st_size)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        with warnings.catch_warnings():  # loading's notes: the CLI prints them on stderr
            warnings.simplefilter("ignore")
            t = _call(gpuscope.load, full)
        with self._lock:
            self.loads += 1
            for old in [k for k in self._cache if k[0] == full]:
                del self._cache[old]  # an older version of the file
            self._cache[key] = t
            while len(self._cache) > CACHED_TRACES:
                self._cache.popitem(last=False)
        return t


def _call(fn, *args, **kwargs):
    """fn(...), its failures as tool errors with the one-line message the CLI prints."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)
    except ToolError:
        raise
    except (gpuscope.TraceError, ValueError, TypeError, ImportError) as e:
        raise ToolError(str(e)) from e
    except Exception as e:  # DuckDB's errors (a query it refuses) and anything unforeseen
        raise ToolError(f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}") from e


def answers(fn):
    """A tool whose anticipated failures come back as an error result holding exactly the CLI's
    one-line message (the SDK would prefix "Error executing tool NAME: ")."""
    @functools.wraps(fn)
    def tool(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ToolError as e:
            return CallToolResult(content=[TextContent(type="text", text=str(e))], is_error=True)
    return tool


def _json(d: Dict[str, Any]) -> str:
    return json.dumps(d, separators=(",", ":"))


def build(root: str) -> MCPServer:
    """The server, serving traces under `root`."""
    traces = Traces(root)
    server = MCPServer("gpuscope", instructions=INSTRUCTIONS, version=gpuscope.__version__)
    server.traces = traces  # for tests that build the server in-process

    def job_or_none(path: str, findings: bool) -> Optional[str]:
        full = traces.resolve(path)
        if not os.path.isdir(full):
            return None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return _json(gpuscope.job(full, findings=findings))
        except gpuscope.TraceError:
            return None  # a folder of one run, not a job of ranks

    @server.tool(structured_output=False)
    @answers
    def info(trace: str) -> str:
        """What a trace holds (`gpuscope info --format json`): format, devices, span, counts,
        steps, clocks, recoverable problems."""
        return _json(_call(lambda: traces.load(trace).info()))

    @server.tool(structured_output=False)
    @answers
    def stats(trace: str, by: Optional[str] = None, top: int = 0, steady: bool = False,
              phase: Optional[str] = None) -> str:
        """Summary tables (`gpuscope stats --format json`): kernels, memops, api, cpu_ops, ...
        by: one table (kernels, memops, api, os, cpu, counters, op, memory); top: rows per table
        (0: all); steady: only the iterations after warm-up; phase: prefill/decode/mixed/other."""
        job = job_or_none(trace, findings=False)
        if job is not None:
            return job
        return _json(_call(lambda: gpuscope.stats(traces.load(trace), steady=steady, by=by,
                                                  phase=phase, top=top)))

    @server.tool(structured_output=False)
    @answers
    def analyze(trace: str, phase: Optional[str] = None, evidence: int = 5,
                device: Optional[str] = None, options: Optional[Dict[str, float]] = None) -> str:
        """Findings, each priced as the wall time its fix saves (`gpuscope analyze --format
        json`). options: rule thresholds by flag name without dashes, e.g. {"idle_gap_us": 50}
        (help topic findings lists them); phase: one phase of a serving trace; evidence: events
        listed per finding. A folder of per-rank traces is analysed as a distributed job."""
        job = job_or_none(trace, findings=True)
        if job is not None:
            return job
        return _json(_call(lambda: gpuscope.analyze(traces.load(trace), phase=phase,
                                                    device=device, evidence=evidence,
                                                    **(options or {}))))

    @server.tool(structured_output=False)
    @answers
    def whatif(trace: str, gpu_speedup: float = 1, kernels: Optional[Dict[str, float]] = None,
               copies: float = 1, host_speedup: float = 1, no_syncs: bool = False,
               graphs: bool = False, fix: Optional[List[str]] = None,
               device: Optional[str] = None) -> str:
        """Replays the steady window without and with a scenario (`gpuscope whatif --format
        json`): gpu_speedup / host_speedup / copies: X times faster; kernels: {regex on kernel
        names: speedup}; no_syncs; graphs (CUDA/HIP graphs); fix: rule ids whose findings' fixes
        apply (as analyze prices them); device: project the kernels onto another GPU."""
        return _json(_call(lambda: gpuscope.whatif(
            traces.load(trace), gpu_speedup=gpu_speedup, kernels=kernels or {}, copies=copies,
            host_speedup=host_speedup, no_syncs=no_syncs, graphs=graphs, fix=fix or [],
            device=device)))

    @server.tool(structured_output=False)
    @answers
    def diff(before: str, after: str, top: int = 15) -> str:
        """Two runs compared (`gpuscope diff --format json BEFORE AFTER`): step times with a
        significance test, kernels and findings matched by name."""
        return _json(_call(lambda: gpuscope.diff(traces.load(before), traces.load(after),
                                                 top=top)))

    @server.tool(structured_output=False)
    @answers
    def memory(trace: str, top: int = 10) -> str:
        """The GPU memory timeline (`gpuscope memory --format json`): peaks per device, who held
        the memory at the peak (top holders), growth per step."""
        return _json(_call(lambda: gpuscope.memory(traces.load(trace), top=top)))

    @server.tool(structured_output=False)
    @answers
    def roofline(trace: str, device: Optional[str] = None, steady: bool = False) -> str:
        """Each op signature against the device's peaks (`gpuscope roofline --format json`)."""
        return _json(_call(lambda: gpuscope.roofline(traces.load(trace), device=device,
                                                     steady=steady)))

    @server.tool(structured_output=False)
    @answers
    def query(trace: str, sql: str) -> str:
        """SQL (DuckDB) over the trace's tables: kernels, memops, api, cpu_ops, annotations,
        python_frames, iterations, memory, findings (help topic `tables`: every column and its
        unit). Returns {"schema_version", "columns", "rows": [{column: value}]}."""
        result = _call(lambda: _sql.query(traces.load(trace), sql))
        return _json({"schema_version": gpuscope.SCHEMA_VERSION, **_sql.as_rows(result)})

    @server.tool(name="help", structured_output=False)
    @answers
    def help_topic(topic: str) -> str:
        """A help topic as JSON: findings (every rule), terms (every word the outputs use),
        formats, problems (recoverable problems while reading), tables, whatif, roofline."""
        return _json(_call(gpuscope.help, topic, "json"))

    def topic_reader(name: str):
        def read() -> str:
            return _json(gpuscope.help(name, "json"))
        return read

    for name in HELP_TOPICS:
        server.resource(f"gpuscope://help/{name}", name=f"help-{name}",
                        description=f"`gpuscope help {name} --format json`",
                        mime_type="application/json")(topic_reader(name))
    return server


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="gpuscope-mcp", description=__doc__.split("\n\n")[0])
    p.add_argument("--root", default=os.getcwd(),
                   help="serve traces under this folder only (default: the working directory)")
    a = p.parse_args(argv)
    if _MISSING is not None:
        print(f"gpuscope-mcp: the MCP SDK is not installed ({_MISSING}): pip install 'gpuscope[mcp]'",
              file=sys.stderr)
        return 2
    if not os.path.isdir(a.root):
        print(f"gpuscope-mcp: --root {a.root}: not a folder", file=sys.stderr)
        return 2
    build(a.root).run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
