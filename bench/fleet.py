#!/usr/bin/env python3
"""gpuscope.distributed over many traces on a local 2-worker Dask cluster (bench/RESULTS.md):
writes N trace files by cycling through the shared samples' Kineto traces up to 1.3 MB gzipped
(48 files from H100, B200, MI300, A100, ... runs; copies as they are), summarizes them on a
LocalCluster (2 worker processes, 1 thread each), and reports wall time, each worker's peak RSS,
the bytes a per-trace summary and the merged summary take when pickled (what travels between
workers), and the per-trace cost of a plain loop of the CLI (stats + analyze) on a subset.

usage: PYTHONPATH=build/ci/python python3 bench/fleet.py OUT_DIR [N] [GPUSCOPE_BIN]"""
import glob
import gzip
import json
import os
import pickle
import shutil
import subprocess
import sys
import time


def write_traces(out, n):
    here = os.path.dirname(os.path.abspath(__file__))
    samples = os.path.join(here, "..", "..", "shared", "samples", "kineto")
    sources = [f for f in sorted(glob.glob(os.path.join(samples, "*", "*.json.gz"))) if os.path.getsize(f) < 1_300_000]
    if not sources:
        sys.exit("bench/fleet.py: ../shared/samples not found")
    os.makedirs(out, exist_ok=True)
    paths, total = [], 0
    for i in range(n):
        p = os.path.join(out, f"trace-{i:04d}.json.gz")
        shutil.copyfile(sources[i % len(sources)], p)
        total += os.path.getsize(p)
        paths.append(p)
    raw = sum(len(gzip.open(f).read()) for f in sources)
    return paths, len(sources), total, raw * n / len(sources)


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    cli = sys.argv[3] if len(sys.argv) > 3 else "build/ci/gpuscope"
    paths, nsrc, nbytes, raw = write_traces(out, n)
    print(f"{n} traces (copies of {nsrc} samples, cycled), {nbytes / 1e6:.0f} MB gzipped, {raw / 1e9:.1f} GB of JSON")
    import resource

    from dask.distributed import Client, LocalCluster

    import gpuscope.distributed as gd

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    client = Client(cluster)
    client.run(lambda: __import__("gpuscope").load)  # workers import the module before timing
    t0 = time.perf_counter()
    summary = gd.summarize_fleet(paths, client=client)
    wall = time.perf_counter() - t0
    rss = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    one = gd.summarize_trace(paths[0])
    merged_bytes = len(pickle.dumps(summary))
    client.close()
    cluster.close()
    print(f"summarize_fleet: {wall:.1f} s wall, {wall / n * 1000:.1f} ms per trace; {summary['traces']} summarized, "
          f"{len(summary['failed'])} failed")
    print("worker peak RSS: " + ", ".join(f"{v:.0f} MB" for v in rss.values()))
    sizes = [len(pickle.dumps(gd.summarize_trace(p))) for p in paths[:nsrc]]
    print(f"per-trace summary pickled: {min(sizes) / 1e3:.1f} - {max(sizes) / 1e3:.1f} kB "
          f"(mean {sum(sizes) / len(sizes) / 1e3:.1f} kB); merged summary {merged_bytes / 1e3:.0f} kB; "
          f"report JSON {len(json.dumps(summary)) / 1e3:.0f} kB; one summary has {len(one.get('kernel_sketches', {}))} sketches")
    m = min(100, n)
    t0 = time.perf_counter()
    for p in paths[:m]:
        for cmd in ("stats", "analyze"):
            subprocess.run([cli, cmd, "--format", "json", p], capture_output=True)
    loop = (time.perf_counter() - t0) / m
    print(f"CLI loop (stats + analyze, one process each, sequential) on {m} traces: {loop * 1000:.1f} ms per trace, "
          f"{loop * n:.1f} s for {n}")


if __name__ == "__main__":
    main()
