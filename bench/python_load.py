#!/usr/bin/env python3
"""The Python package on a large trace: gpuscope.load + t.kernels().to_pandas(), wall time of
each step and the process's peak RSS (bench/RESULTS.md).
usage: PYTHONPATH=build/ci/python python_load.py TRACE"""
import resource
import sys
import time

import gpuscope

t0 = time.perf_counter()
t = gpuscope.load(sys.argv[1])
t1 = time.perf_counter()
table = t.kernels()
t2 = time.perf_counter()
df = table.to_pandas()
t3 = time.perf_counter()
print(f"load {t1 - t0:.2f} s, kernels() {t2 - t1:.3f} s, to_pandas {t3 - t2:.2f} s, total {t3 - t0:.2f} s; "
      f"{len(df):,} kernels, {df['dur_ns'].sum():,} ns; peak RSS "
      f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
