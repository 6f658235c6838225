#!/usr/bin/env python3
"""HTA's load + kernel breakdown on one trace (what a user of HTA runs to get per-kernel stats).
usage: hta_kernel_breakdown.py TRACE_DIR"""
import sys

from hta.trace_analysis import TraceAnalysis

analyzer = TraceAnalysis(trace_dir=sys.argv[1])
_, per_kernel = analyzer.get_gpu_kernel_breakdown(visualize=False)
print(len(per_kernel), "kernel rows")
