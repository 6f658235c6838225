#!/usr/bin/env python3
"""Writes a serving trace with both phases for the per-phase analysis benchmark: STEPS vLLM
execute_ steps in blocks of 10 prefill then 40 decode steps (as a server alternates them), each
step an annotation over KERNELS launches (a cpu_op and hipLaunchKernel per kernel, the kernel on
the GPU 5 us after its launch, prefill kernels 4x longer), a blocking read-back at the step's end.

usage: serving_phases.py OUT.json [STEPS] [KERNELS]"""
import json
import sys


def main():
    out = sys.argv[1]
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    kernels = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    corr = 1
    t = 0.0
    with open(out, "w") as f:
        f.write('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X"}],'
                ' "traceEvents": [\n')
        first = True

        def put(e):
            nonlocal first
            f.write(("" if first else ",\n") + json.dumps(e))
            first = False

        for s in range(steps):
            prefill = (s % 50) < 10
            name = ("execute_1_context_1(sq512sk512sqsq262144sqsk262144)_generation_0(sq0sk0sqsq0sqsk0)"
                    if prefill else
                    "execute_1_context_0(sq0sk0sqsq0sqsk0)_generation_8(sq8sk800sqsq8sqsk800)")
            kdur = 40.0 if prefill else 10.0
            span = kernels * (kdur + 2) + 60
            put({"ph": "X", "cat": "user_annotation", "name": name, "pid": 7, "tid": 7, "ts": t,
                 "dur": span, "args": {}})
            gpu = t + 5
            for k in range(kernels):
                ht = t + 1 + k * 0.5
                put({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": ht,
                     "dur": 0.4, "args": {"External id": corr}})
                put({"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 7, "tid": 7,
                     "ts": ht + 0.1, "dur": 0.2, "args": {"correlation": corr, "External id": corr}})
                put({"ph": "X", "cat": "kernel", "name": "gemm_%d" % (k % 7), "pid": 0, "tid": 0,
                     "ts": gpu, "dur": kdur, "args": {"correlation": corr, "device": 0, "stream": 0}})
                gpu += kdur + 2
                corr += 1
            put({"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpyWithStream", "pid": 7, "tid": 7,
                 "ts": t + 1 + kernels * 0.5, "dur": gpu - (t + 1 + kernels * 0.5) + 10,
                 "args": {"correlation": corr}})
            put({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Host)", "pid": 0,
                 "tid": 0, "ts": gpu, "dur": 4, "args": {"correlation": corr, "device": 0,
                                                        "stream": 0, "bytes": 4}})
            corr += 1
            t += span + 20
        f.write("\n]}\n")


if __name__ == "__main__":
    main()
