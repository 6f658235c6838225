"""Many traces on a Dask cluster: a per-trace summary computed where the trace is (the C++ core
loads it in the worker and only the summary travels), merged exactly.

    from dask.distributed import Client
    import gpuscope.distributed as gd
    summary = gd.summarize_fleet(paths, client=Client("tcp://scheduler:8786"))

What is exact: per kernel / memory op / runtime call / CPU op name (as `gpuscope stats --format
json` names them): calls, total, min and max; per finding rule: how many traces show it, the
total impact and the worst traces. What is approximate, with a stated bound: kernel duration
quantiles (median, p95) come from a mergeable log-bucketed histogram whose buckets are
RELATIVE_ERROR wide: a quantile is within that relative error of a duration in the data
(DDSketch's construction; merging adds bucket counts, so the order of merging does not matter).
A trace that cannot be read is reported in "failed" with its one-line error, never fatal.

One distributed job's ranks, one rank per worker:

    report = gd.analyze_job(sorted(glob.glob("ranks/*.json.gz")), client=client)

equals `gpuscope analyze ranks/ --format json` (the same C++ code decides it): each worker loads
one rank and returns its compact timeline (collectives, the work and GPU time between them, the
names the straggler's causes are drawn from), a few KB to MB whatever the trace's size; the
driver matches the collectives, aligns the clocks, replays and prices from those alone.
"""
from __future__ import annotations

import json
import math
import os
import warnings
from typing import Any, Dict, Iterable, List, Optional

try:  # needed in every worker: a missing one is a set-up problem, said once, not per trace
    import numpy as np
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        "gpuscope.distributed needs numpy and dask.distributed: pip install 'gpuscope[distributed]'"
    ) from e

RELATIVE_ERROR = 0.01
_GAMMA = (1 + RELATIVE_ERROR) / (1 - RELATIVE_ERROR)
_TABLES = ("kernels", "memops", "api", "cpu_ops")
WORST = 5  # worst traces kept per finding rule


def _bucket_value(b: int) -> float:
    """The value a bucket stands for: within RELATIVE_ERROR of every value in it."""
    return 2 * _GAMMA ** b / (_GAMMA + 1)


def _sketch(durations) -> Dict[int, int]:
    """Bucket index -> count for durations in ns; bucket -1 holds zero durations."""
    d = np.asarray(durations, dtype=np.float64)
    out: Dict[int, int] = {}
    zeros = int((d <= 0).sum())
    if zeros:
        out[-1 << 30] = zeros
    pos = d[d > 0]
    if len(pos):
        idx = np.ceil(np.log(pos) / math.log(_GAMMA)).astype(np.int64)
        keys, counts = np.unique(idx, return_counts=True)
        out.update({int(k): int(c) for k, c in zip(keys, counts)})
    return out


def _quantile(sketch: Dict[int, int], q: float) -> Optional[float]:
    total = sum(sketch.values())
    if not total:
        return None
    rank = q * (total - 1)
    seen = 0
    for b in sorted(sketch):
        seen += sketch[b]
        if seen > rank:
            return 0.0 if b == -1 << 30 else _bucket_value(b)
    return None


def summarize_trace(path: str, threads: int = 1, findings: bool = True) -> Dict[str, Any]:
    """One trace's summary (runs in a worker). Never raises: a failure is {"path", "error"}."""
    import gpuscope

    try:
        with_warnings: List[str] = []
        import warnings

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t = gpuscope.load(path, threads=threads)
            stats = gpuscope.stats(t)
            out: Dict[str, Any] = {"path": path, "tables": {}}
            for table in _TABLES:
                rows = {}
                for r in stats.get(table, []):
                    # Memory ops are keyed by kind (HtoD, ...) and add bytes.
                    rows[r.get("name", r.get("kind"))] = [r["calls"], r["total_ns"], r.get("min_ns"),
                                                          r.get("max_ns"), r.get("bytes")]
                out["tables"][table] = rows
            k = t.kernels()
            if k.num_rows:
                names = k.column("name").combine_chunks()
                dur = k.column("dur_ns").to_numpy()
                idx = names.indices.to_numpy(zero_copy_only=False)
                dictionary = names.dictionary
                sketches: Dict[str, Dict[int, int]] = {}
                order = np.argsort(idx, kind="stable")
                idx_sorted, dur_sorted = idx[order], dur[order]
                bounds = np.flatnonzero(np.diff(idx_sorted)) + 1
                for part_idx, part_dur in zip(np.split(idx_sorted, bounds), np.split(dur_sorted, bounds)):
                    # Keyed as `gpuscope stats` names the kernel (demangled), like the totals.
                    name = gpuscope._core.demangle(dictionary[int(part_idx[0])].as_py())
                    s = _sketch(part_dur)
                    dst = sketches.setdefault(name, {})
                    for b, c in s.items():
                        dst[b] = dst.get(b, 0) + c
                out["kernel_sketches"] = sketches
            if findings:
                try:
                    rep = gpuscope.analyze(t)
                    out["findings"] = [{"rule": f["rule"], "impact_ns": f["impact_ns"]} for f in rep["findings"]]
                except gpuscope.TraceError:
                    out["findings"] = []  # a summary-only source: nothing to analyze
            with_warnings = [str(w.message) for w in caught]
        if with_warnings:
            out["warnings"] = with_warnings
        return out
    except Exception as e:  # noqa: BLE001 - a failure is data: reported, never fatal
        return {"path": path, "error": f"{type(e).__name__}: {e}".splitlines()[0]}


def empty() -> Dict[str, Any]:
    return {"traces": 0, "failed": [], "warnings": 0, "tables": {t: {} for t in _TABLES},
            "kernel_sketches": {}, "findings": {}}


def merge(a: Dict[str, Any], b: Dict[str, Any]) -> Dict[str, Any]:
    """Merges two merged summaries (or per-trace summaries) exactly; associative and commutative."""
    a, b = _as_merged(a), _as_merged(b)
    out = empty()
    out["traces"] = a["traces"] + b["traces"]
    out["failed"] = a["failed"] + b["failed"]
    out["warnings"] = a["warnings"] + b["warnings"]
    for table in _TABLES:
        rows = dict(a["tables"][table])
        for name, (calls, total, lo, hi, nbytes) in b["tables"][table].items():
            if name in rows:
                c0, t0, lo0, hi0, b0 = rows[name]
                rows[name] = [c0 + calls, t0 + total, _opt(min, lo0, lo), _opt(max, hi0, hi),
                              _opt(lambda x, y: x + y, b0, nbytes)]
            else:
                rows[name] = [calls, total, lo, hi, nbytes]
        out["tables"][table] = rows
    sk = {n: dict(s) for n, s in a["kernel_sketches"].items()}
    for name, s in b["kernel_sketches"].items():
        dst = sk.setdefault(name, {})
        for bucket, count in s.items():
            dst[bucket] = dst.get(bucket, 0) + count
    out["kernel_sketches"] = sk
    fs = {r: dict(v, worst=list(v["worst"])) for r, v in a["findings"].items()}
    for rule, v in b["findings"].items():
        if rule in fs:
            fs[rule]["traces"] += v["traces"]
            fs[rule]["impact_ns"] += v["impact_ns"]
            fs[rule]["worst"] = sorted(fs[rule]["worst"] + v["worst"], key=lambda w: (-w[1], w[0]))[:WORST]
        else:
            fs[rule] = dict(v, worst=list(v["worst"]))
    out["findings"] = fs
    return out


def _opt(f, x, y):
    return y if x is None else x if y is None else f(x, y)


def _as_merged(s: Dict[str, Any]) -> Dict[str, Any]:
    if "traces" in s:
        return s
    m = empty()
    if "error" in s:
        m["failed"] = [{"path": s["path"], "error": s["error"]}]
        return m
    m["traces"] = 1
    m["warnings"] = len(s.get("warnings", []))
    m["tables"] = s["tables"]
    m["kernel_sketches"] = s.get("kernel_sketches", {})
    per_rule: Dict[str, int] = {}
    for f in s.get("findings", []):
        per_rule[f["rule"]] = per_rule.get(f["rule"], 0) + f["impact_ns"]
    m["findings"] = {r: {"traces": 1, "impact_ns": ns, "worst": [[s["path"], ns]]} for r, ns in per_rule.items()}
    return m


def report(merged: Dict[str, Any]) -> Dict[str, Any]:
    """The merged summary as the JSON `python -m gpuscope.fleet` writes."""
    m = _as_merged(merged)
    tables = {}
    for table in _TABLES:
        rows = []
        for name, (calls, total, lo, hi, nbytes) in m["tables"][table].items():
            row = {"kind" if table == "memops" else "name": name, "calls": calls, "total_ns": total,
                   "avg_ns": total // calls if calls else None}
            if table == "memops":
                row["bytes"] = nbytes  # null: some copies' sizes were not recorded
            else:
                row.update(min_ns=lo, max_ns=hi)
            if table == "kernels" and name in m["kernel_sketches"]:
                s = m["kernel_sketches"][name]
                for key, q in (("p50_ns", 0.5), ("p95_ns", 0.95)):
                    v = _quantile(s, q)
                    row[key] = None if v is None else round(v)
            rows.append(row)
        rows.sort(key=lambda r: (-r["total_ns"], r.get("name", r.get("kind"))))
        tables[table] = rows
    findings = [{"rule": r, "traces": v["traces"], "impact_ns": v["impact_ns"],
                 "worst": [{"path": p, "impact_ns": ns} for p, ns in v["worst"]]}
                for r, v in m["findings"].items()]
    findings.sort(key=lambda f: (-f["impact_ns"], f["rule"]))
    return {"traces": m["traces"], "failed": sorted(m["failed"], key=lambda f: f["path"]),
            "warnings": m["warnings"], "quantiles": {"relative_error": RELATIVE_ERROR,
                                                     "method": "log-bucketed histogram (DDSketch)"},
            **tables, "findings": findings}


def summarize_fleet(paths: Iterable[str], client: Any = None, threads: int = 1, findings: bool = True,
                    fan_in: int = 8) -> Dict[str, Any]:
    """Maps summarize_trace over `paths` on the cluster and merges the results in a tree (groups
    of fan_in), so that only summaries move between workers. `client`: a dask.distributed
    Client; None starts a LocalCluster (2 worker processes, 1 thread each) for the call."""
    from dask.distributed import Client, LocalCluster

    paths = [os.path.abspath(p) for p in paths]
    own = None
    if client is None:
        own = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
        client = Client(own)
    try:
        if not paths:
            return report(empty())
        level = client.map(summarize_trace, paths, threads=threads, findings=findings, pure=False)
        while len(level) > 1:
            level = [client.submit(_merge_many, *level[i:i + fan_in], pure=False)
                     for i in range(0, len(level), fan_in)]
        return report(level[0].result())
    finally:
        if own is not None:
            client.close()
            own.close()


def _merge_many(*parts: Dict[str, Any]) -> Dict[str, Any]:
    out = empty()
    for p in parts:
        out = merge(out, p)
    return out


def summarize_rank(path: str, threads: int = 1) -> Dict[str, Any]:
    """One rank's compact timeline (runs in a worker): {"path", "summary": bytes, "warnings"},
    or {"path", "error"} when its trace cannot be read. Never raises."""
    import gpuscope

    try:
        data, messages = gpuscope._core.summarize_rank(path, threads)
        return {"path": path, "summary": data, "warnings": list(messages)}
    except Exception as e:  # noqa: BLE001 - reported to the driver, which raises it once
        return {"path": path, "error": str(e).splitlines()[0] if str(e) else type(e).__name__}


def _job_label(paths: List[str]) -> str:
    """What the job is called in the report: the folder its ranks' files share."""
    dirs = {os.path.dirname(p) for p in paths}
    if len(dirs) == 1:
        return dirs.pop() or "."
    try:
        return os.path.commonpath(list(dirs)) or "."
    except ValueError:  # absolute and relative paths mixed
        return "."


def analyze_job(paths: Iterable[str], client: Any = None, findings: bool = True,
                path: Optional[str] = None, threads: int = 1) -> Dict[str, Any]:
    """One distributed job's per-rank traces analysed on a Dask cluster: the JSON of `gpuscope
    analyze DIR --format json` (with findings=False, of `gpuscope stats DIR`). Each worker loads
    one rank and returns its compact timeline; the driver holds only those. `paths` are read by
    the workers (give paths valid there); `path` names the job in the report (default: the
    folder the files share). `client`: a dask.distributed Client; None starts a LocalCluster (2
    worker processes, 1 thread each) for the call. Raises gpuscope.TraceError naming the first
    rank that cannot be read, as the CLI does; loading's warnings become RuntimeWarnings."""
    import gpuscope
    from dask.distributed import Client, LocalCluster

    paths = sorted(paths)  # as the CLI lists a folder
    if len(paths) < 2:
        raise gpuscope.TraceError(
            f"{path or _job_label(paths)}: a job needs two or more ranks' traces, got {len(paths)}")
    label = path if path is not None else _job_label(paths)
    own = None
    if client is None:
        own = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
        client = Client(own)
    try:
        futures = client.map(summarize_rank, paths, threads=threads, pure=False)
        ranks = client.gather(futures)
        del futures
    finally:
        if own is not None:
            client.close()
            own.close()
    for r in ranks:
        if "error" in r:
            raise gpuscope.TraceError(r["error"])
    for r in ranks:
        for message in r["warnings"]:
            warnings.warn(message, RuntimeWarning, stacklevel=2)
    summaries = [r["summary"] for r in ranks]
    del ranks
    return json.loads(gpuscope._core.job_of_summaries(summaries, label, findings))
