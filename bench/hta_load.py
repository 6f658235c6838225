#!/usr/bin/env python3
"""HTA's load of one trace and its kernels as a DataFrame (what bench/python_load.py does with
gpuscope): wall time and peak RSS. usage: hta_load.py TRACE_DIR (the trace as rank0.json)"""
import resource
import sys
import time

from hta.trace_analysis import TraceAnalysis

t0 = time.perf_counter()
analyzer = TraceAnalysis(trace_dir=sys.argv[1])
t1 = time.perf_counter()
trace = analyzer.t.get_trace(0)
kernels = trace[trace["stream"] >= 0]
t2 = time.perf_counter()
print(f"load {t1 - t0:.2f} s, kernel rows {t2 - t1:.2f} s, total {t2 - t0:.2f} s; {len(kernels):,} GPU rows; "
      f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
