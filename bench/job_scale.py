#!/usr/bin/env python3
"""A distributed job's ranks on Dask against the CLI, at several rank counts.

  bench/job_scale.py --gpuscope build/ci/gpuscope [--ranks 64,256,1024] [--workers 2]

Per rank count: tests/planted/ranks.py writes the job (one Kineto trace per rank); then
`gpuscope analyze DIR --format json` (time, peak RSS) and gpuscope.distributed.analyze_job on a
LocalCluster of --workers processes started for the run (time with the cluster already up, the
driver's and each worker's peak RSS, the bytes of the ranks' summaries that travelled), and
whether the two JSONs are equal. The Dask side runs in a fresh process per rank count, so the
driver's peak is that run's. Needs PYTHONPATH to reach the gpuscope package (build/ci/python).
"""
import argparse
import glob
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RANKS = os.path.join(HERE, "..", "tests", "planted", "ranks.py")

DRIVER = r"""
import json, os, resource, sys, time
from dask.distributed import Client, LocalCluster
import gpuscope, gpuscope.distributed as gd
d, workers = sys.argv[1], int(sys.argv[2])
paths = sorted(os.path.join(d, f) for f in os.listdir(d) if f.startswith("rank-"))
cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0")
client = Client(cluster)
t0 = time.perf_counter()
got = gd.analyze_job(paths, client=client)
seconds = time.perf_counter() - t0
def peak():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
worker_kb = sorted(client.run(peak).values())
summary = sum(len(r["summary"]) for r in client.gather(client.map(gd.summarize_rank, paths, pure=False)))
client.close(); cluster.close()
json.dump(got, open(os.path.join(d, "dask.json"), "w"))
print(json.dumps({"seconds": seconds, "driver_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "worker_kb": worker_kb, "summary_bytes": summary}))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpuscope", required=True)
    ap.add_argument("--ranks", default="64,256,1024")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--case", default="straggler_gpu+seq")
    a = ap.parse_args()
    print(f"{'ranks':>6} {'traces':>9} {'CLI s':>7} {'CLI RSS':>8} {'Dask s':>7} {'driver RSS':>10} "
          f"{'worker RSS':>11} {'summaries':>10}  equal")
    for n in (int(x) for x in a.ranks.split(",")):
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([sys.executable, RANKS, d, str(n), a.case, "1"], check=True, capture_output=True)
            os.remove(os.path.join(d, "truth.json"))
            size = sum(os.path.getsize(p) for p in glob.glob(os.path.join(d, "rank-*.json")))
            t0 = time.perf_counter()
            cli = subprocess.run(["/usr/bin/time", "-f", "%M", a.gpuscope, "analyze", d, "--format", "json"],
                                 capture_output=True, text=True, check=True)
            cli_s = time.perf_counter() - t0
            cli_kb = int(cli.stderr.strip().splitlines()[-1])
            r = subprocess.run([sys.executable, "-c", DRIVER, d, str(a.workers)], capture_output=True,
                               text=True, check=True)
            m = json.loads(r.stdout.strip().splitlines()[-1])
            equal = json.load(open(os.path.join(d, "dask.json"))) == json.loads(cli.stdout)
            print(f"{n:>6} {size / 1e6:>7.1f}MB {cli_s:>7.2f} {cli_kb / 1024:>6.0f}MB {m['seconds']:>7.2f} "
                  f"{m['driver_kb'] / 1024:>8.0f}MB {max(m['worker_kb']) / 1024:>9.0f}MB "
                  f"{m['summary_bytes'] / 1e6:>8.2f}MB  {'yes' if equal else 'NO'}", flush=True)


if __name__ == "__main__":
    main()
