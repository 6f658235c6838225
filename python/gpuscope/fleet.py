"""python -m gpuscope.fleet [--scheduler ADDR] [--job] GLOB... [-o summary.json]

Summarizes many traces on a Dask cluster (gpuscope.distributed): without --scheduler, on a
LocalCluster of --workers processes on this machine. Traces that cannot be read are listed in the
summary's "failed" (and counted on stderr); the exit code is 0 unless no trace could be read.
With --job the traces are one distributed job's ranks, one per worker: the output is what
`gpuscope analyze DIR --format json` prints for their folder (exit 2 when a rank cannot be read).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import sys

from . import distributed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gpuscope.fleet", description=__doc__.splitlines()[0])
    ap.add_argument("patterns", nargs="+", help="trace files or glob patterns (quote them)")
    ap.add_argument("-o", "--output", default="-", help="the JSON to write (default '-': stdout)")
    ap.add_argument("--job", action="store_true",
                    help="the traces are one job's ranks: analyse the job (gpuscope analyze DIR)")
    ap.add_argument("--scheduler", help="a Dask scheduler address (tcp://host:8786); default: a local cluster")
    ap.add_argument("--workers", type=int, default=2, help="local cluster: worker processes (default 2)")
    ap.add_argument("--no-findings", action="store_true", help="totals only (skip gpuscope analyze per trace)")
    args = ap.parse_args(argv)
    paths = sorted({p for pat in args.patterns for p in (glob.glob(pat, recursive=True) or [pat])})
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        print("gpuscope.fleet: needs dask.distributed: pip install 'gpuscope[distributed]'", file=sys.stderr)
        return 2

    if args.scheduler:
        client, cluster = Client(args.scheduler), None
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=":0")
        client = Client(cluster)
    try:
        if args.job:
            import gpuscope

            try:
                summary = distributed.analyze_job(paths, client=client, findings=not args.no_findings)
            except gpuscope.TraceError as e:
                print(f"gpuscope.fleet: {e}", file=sys.stderr)
                return 2
        else:
            summary = distributed.summarize_fleet(paths, client=client, findings=not args.no_findings)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    text = json.dumps(summary, indent=1)
    # A result that could not be written is no success: one line, exit 2 (`> /dev/full`).
    try:
        if args.output == "-":
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
        else:
            with open(args.output, "w") as f:
                f.write(text + "\n")
    except OSError as e:
        print(f"gpuscope.fleet: {args.output}: cannot write ({e.strerror or e})", file=sys.stderr)
        if args.output == "-":  # what is left in stdout's buffer goes nowhere at exit, silently
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 2
    if args.job:
        print(f"gpuscope.fleet: a job of {len(summary['ranks'])} ranks analysed", file=sys.stderr)
        return 0
    print(f"gpuscope.fleet: {summary['traces']} traces summarized, {len(summary['failed'])} failed", file=sys.stderr)
    for f in summary["failed"]:
        print(f"gpuscope.fleet: failed: {f['path']}: {f['error']}", file=sys.stderr)
    return 0 if summary["traces"] or not paths else 2


if __name__ == "__main__":
    sys.exit(main())
