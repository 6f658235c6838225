"""gpuscope: GPU profiler trace analysis - the same C++ core as the `gpuscope` command.

    import gpuscope
    t = gpuscope.load("trace.json.gz")          # any format the CLI reads
    k = t.kernels().to_pandas()                 # event tables as pyarrow Tables
    report = gpuscope.analyze(t)                # the dict of `gpuscope analyze --format json`
    top = gpuscope.query(t, "SELECT name, sum(dur_ns) AS ns FROM kernels GROUP BY name")  # DuckDB

Every result dict is what the CLI prints with `--format json` for the same request (one
serializer); tables are Arrow record batches pointing into the loaded trace where the column
types allow (no copy). Loading and analysis release the GIL.
"""
from __future__ import annotations

import ctypes
import json
import os
import warnings
from typing import Any, Dict, List, Optional, Sequence

import pyarrow as pa

from . import _core

__all__ = ["Trace", "TraceError", "load", "stats", "analyze", "diff", "roofline", "whatif", "memory", "convert",
           "report", "run", "query", "SCHEMA_VERSION", "__version__"]
__version__ = "0.1.0"

# The "schema_version" of every result dict (docs/schema/ describes each).
SCHEMA_VERSION: int = _core.SCHEMA_VERSION

TraceError = _core.TraceError
TraceError.__doc__ = "A trace gpuscope cannot use: one line naming the file, what is wrong, what to do."

_TABLES = ("kernels", "memops", "api", "cpu_ops", "annotations", "python_frames", "iterations")


class Trace:
    """A loaded trace. Build with gpuscope.load(path)."""

    def __init__(self, core: Any) -> None:
        self._core = core

    @property
    def path(self) -> str:
        """The path it was loaded from (as results name it)."""
        return self._core.path

    @property
    def format(self) -> str:
        """The format gpuscope recognised ("kineto", "rpd", "rocpd", "nsys", ...)."""
        return self._core.format

    def __repr__(self) -> str:
        return f"<gpuscope.Trace {self.path!r} ({self.format})>"

    def info(self) -> Dict[str, Any]:
        """What the trace holds: `gpuscope info --format json`."""
        return json.loads(_core.info(self._core))

    def _table(self, which: str) -> pa.Table:
        # Room for the two C Data Interface structs (ArrowSchema: 72 bytes, ArrowArray: 80); the
        # core fills them, pyarrow moves their contents out (and will call their release).
        schema = ctypes.create_string_buffer(72)
        array = ctypes.create_string_buffer(80)
        _core.table(self._core, which, ctypes.addressof(schema), ctypes.addressof(array))
        batch = pa.RecordBatch._import_from_c(ctypes.addressof(array), ctypes.addressof(schema))
        return pa.Table.from_batches([batch])

    def kernels(self) -> pa.Table:
        """GPU kernels: id, start_ns, dur_ns, name, device, stream, correlation, grid, block,
        registers, shared_mem, launch_id (-> api.id), op_id (-> cpu_ops.id), python_frame_id
        (-> python_frames.id), iteration (the step that launched it), category (gemm,
        attention, ...: the built-in table of `gpuscope help categories`)."""
        return self._table("kernels")

    def memops(self) -> pa.Table:
        """Copies and memsets: kind (HtoD, ...), bytes (null: not recorded), src / dst memory, and
        the same time and link columns as kernels()."""
        return self._table("memops")

    def api(self) -> pa.Table:
        """Runtime / driver calls: domain, pid, tid, correlation, external_id, op_id, iteration."""
        return self._table("api")

    def cpu_ops(self) -> pa.Table:
        """Framework ops (aten::mm, ...): parent_id, python_frame_id, depth, args (recorded shapes
        and types as a JSON object; empty when not recorded), iteration."""
        return self._table("cpu_ops")

    def annotations(self) -> pa.Table:
        """User annotations (record_function, NVTX / roctx ranges, ProfilerStep#N)."""
        return self._table("annotations")

    def python_frames(self) -> pa.Table:
        """Python frames ("model.py(12): forward") with parent_id and python_id."""
        return self._table("python_frames")

    def iterations(self) -> pa.Table:
        """Iterations found from ProfilerStep#N markers: number, start_ns, dur_ns."""
        return self._table("iterations")

    def memory(self) -> pa.Table:
        """GPU memory events of the device allocator (PyTorch's [memory], recorded with
        profile_memory=True): ts_ns, device, bytes (> 0 allocated, < 0 freed), allocated_bytes
        and reserved_bytes after it (null: not recorded), addr, pid, tid, iteration."""
        return self._table("memory")

    def events_csv(self, path: str) -> List[Dict[str, Any]]:
        """Writes the events as CSV (a directory: events.csv + the stats tables; or one x.csv),
        as `gpuscope convert TRACE -o PATH` does."""
        return convert(self, path, to="csv")


def _path(path) -> str:
    """A path for the C++ core: a NUL byte would cut it short there (loading "x" for "x\\0y"),
    so such a path is refused."""
    p = os.fspath(path)
    if isinstance(p, bytes):
        p = os.fsdecode(p)
    if "\0" in p:
        raise ValueError(f"{p!r}: a path with a NUL byte names no file")
    return p


def load(path: str, threads: Optional[int] = None, merge: bool = False,
         align_clocks: bool = False) -> Trace:
    """Reads a trace (every format the CLI reads; a run's directory too). Raises TraceError for
    an unusable file; a file that breaks part-way is kept with a warning (warnings.warn).
    merge=True reads a folder whose files hold different runs as one trace (`--merge`);
    align_clocks=True shifts a GPU clock whose ops start before their launch (`--align-clocks`;
    what moved is said in a warning)."""
    core = _core.load(_path(path), 0 if threads is None else int(threads), bool(merge),
                      bool(align_clocks))
    for message in core.messages:
        warnings.warn(message, RuntimeWarning, stacklevel=2)
    return Trace(core)


def stats(t: Trace, steady: bool = False, by: Optional[str] = None, phase: Optional[str] = None,
          capture: Sequence[str] = (), mangled: bool = False, top: int = 0) -> Dict[str, Any]:
    """`gpuscope stats --format json` ([--steady] [--by TABLE] [--phase P] [--capture F]
    [--top N]; top=0: every row)."""
    if top < 0:
        raise ValueError("top must be 0 (every row) or more")
    return json.loads(_core.stats(t._core, steady, by or "", phase or "", list(capture), mangled,
                                  int(top)))


def analyze(t: Trace, capture: Sequence[str] = (), phase: Optional[str] = None,
            device: Optional[str] = None, evidence: int = 5, **options: float) -> Dict[str, Any]:
    """`gpuscope analyze --format json`. Rule thresholds by their flag names without dashes
    (idle_gap_us=50, attainable_percent=70; `gpuscope help findings` lists them)."""
    text, messages = _core.analyze(t._core, options, list(capture), phase or "", device or "",
                                   evidence)
    for message in messages:
        warnings.warn(message, RuntimeWarning, stacklevel=2)
    return json.loads(text)


def job(path: str, findings: bool = True, threads: Optional[int] = None) -> Dict[str, Any]:
    """A folder of one distributed job's per-rank traces: `gpuscope analyze DIR --format json`
    (ranks, clock offsets, collectives, straggler, findings), or with findings=False what
    `gpuscope stats DIR --format json` prints. Raises TraceError when the folder is not a job."""
    text, messages = _core.job(_path(path), findings, 0 if threads is None else int(threads))
    for message in messages:
        warnings.warn(message, RuntimeWarning, stacklevel=2)
    return json.loads(text)


def diff(a: Trace, b: Trace, exact_names: bool = False, top: int = 15) -> Dict[str, Any]:
    """`gpuscope diff --format json A B`: b (after) against a (before)."""
    return json.loads(_core.diff(a._core, b._core, exact_names, top))


def roofline(t: Trace, device: Optional[str] = None, steady: bool = False,
             capture: Sequence[str] = ()) -> Dict[str, Any]:
    """`gpuscope roofline --format json`: each op signature against the device's peaks."""
    return json.loads(_core.roofline(t._core, device or "", steady, list(capture)))


def whatif(t: Trace, gpu_speedup: float = 1, kernels: Optional[Dict[str, float]] = None,
           copies: float = 1, host_speedup: float = 1, no_syncs: bool = False,
           graphs: bool = False, fix: Sequence[str] = (), device: Optional[str] = None) -> Dict[str, Any]:
    """`gpuscope whatif --format json`: the steady window replayed without and with a scenario;
    `kernels` maps a regular expression on kernel names to its speedup; `fix` lists rules whose
    findings' fixes (as analyze prices them) are applied too; `device` projects the kernels onto
    another GPU."""
    patterns = [f"{regex}={x}" for regex, x in (kernels or {}).items()]
    return json.loads(_core.whatif(t._core, gpu_speedup, patterns, copies, host_speedup,
                                   no_syncs, graphs, list(fix), device or ""))


def memory(t: Trace, top: int = 10) -> Dict[str, Any]:
    """`gpuscope memory --format json`: per device the peak of allocated and reserved bytes, who
    held the memory at the peak (`top` holders), the allocated bytes at each steady step's end
    and their growth per step."""
    if top < 1:
        raise ValueError("top must be at least 1")
    return json.loads(_core.memory(t._core, top))


def convert(t: Trace, path: str, to: Optional[str] = None) -> List[Dict[str, Any]]:
    """Writes the trace as `gpuscope convert` does (x.json[.gz], x.rpd, x.csv or dir/); returns
    the files written: [{"path", "bytes", "contents"}]."""
    rows = _core.convert(t._core, _path(path), to or "")
    return [{"path": p, "bytes": int(b), "contents": c} for p, b, c in rows]


def report(t: Trace, path: str, device: Optional[str] = None, capture: Sequence[str] = ()) -> Dict[str, Any]:
    """Writes the HTML report (`gpuscope report TRACE -o PATH`)."""
    size = _core.report(t._core, _path(path), device or "", list(capture))
    return {"source": t.path, "path": os.fspath(path), "bytes": size}


def query(t, sql: str) -> pa.Table:
    """Runs `sql` (DuckDB) over the tables of a loaded trace (or a path) without copying them:
    kernels, memops, api, cpu_ops, annotations, python_frames, iterations, memory, findings
    (`gpuscope help tables` lists every column and its unit). Needs `pip install 'gpuscope[sql]'`."""
    from ._sql import query as run_query
    return run_query(t, sql)


def help(topic: str, format: str = "json"):  # noqa: A001 - the CLI's word
    """`gpuscope help TOPIC --format FORMAT`: a dict for json, else the text."""
    text = _core.help(topic, format)
    return json.loads(text) if format == "json" else text


def run(cmd: Sequence[str], output: Optional[str] = None, backend: Optional[str] = None,
        extra: Sequence[str] = ()) -> int:
    """Profiles a program unchanged, as `gpuscope run [-o OUTPUT] [--backend B] -- CMD...`
    does (the same recorder, in this process); returns the program's exit code."""
    args = ["run"]
    if output:
        args += ["-o", _path(output)]
    if backend:
        args += ["--backend", backend]
    args += list(extra) + ["--"] + [str(c) for c in cmd]
    return _core.main(args)
