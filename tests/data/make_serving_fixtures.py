#!/usr/bin/env python3
"""Writes serving_exec.json and serving_capture.json: a hand-made pair in the shape of the
vLLM/SGLang ROCm traces (no samples copied). The capture trace records, between
hipStreamBeginCapture and hipStreamEndCapture, 3 layers x 3 launches, each inside its op and
Python frame and naming its kernel (args.kernel, grid, block), none of them running. The
execution trace holds one decode step (a vLLM execute_ annotation): a prefill-free step whose
host copies its inputs, launches the graph once (9 kernels on the GPU, all correlated with the
hipGraphLaunch call), then reads a token back with a blocking copy.

The GPU clock of the execution trace is 2 ms behind: its first copy starts 2 ms after its launch
while the GPU is idle (the "unexplained delay" the clock check reports)."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
LAYER = [("qkv_gemm", "aten::mm", [64, 1, 1]), ("paged_attention", "vllm::attention", [32, 1, 1]),
         ("mlp_gemm", "aten::addmm", [128, 1, 1])]


def x(cat, name, ts, dur, tid, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": 7, "tid": tid, "ts": ts, "dur": dur, "args": args}


def capture():
    ev = [x("python_function", "serve/runner.py(80): capture_graph", 0, 400, 7, **{"Python id": 1, "Python parent id": -1}),
          x("user_annotation", "capture_1_DECODE", 5, 390, 7),
          x("cuda_runtime", "hipStreamBeginCapture", 10, 2, 7, correlation=1)]
    t, corr, ext = 20, 2, 100
    for layer in range(3):
        for kernel, op, grid in LAYER:
            ev.append(x("python_function", f"model/layers.py({10 + 10 * LAYER.index((kernel, op, grid))}): forward",
                        t, 30, 7, **{"Python id": corr + 10, "Python parent id": 1}))
            ev.append(x("cpu_op", op, t + 2, 20, 7, **{"External id": ext}))
            ev.append(x("cuda_runtime", "hipLaunchKernel", t + 5, 10, 7, correlation=corr, kernel=kernel,
                        grid=grid, block=[256, 1, 1], **{"External id": ext}))
            t, corr, ext = t + 40, corr + 1, ext + 1
    ev.append(x("cuda_runtime", "hipStreamEndCapture", t, 2, 7, correlation=corr))
    return {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X"}], "traceEvents": ev}


def execution():
    ev = [x("user_annotation", "execute_1_context_0(sq0sk0sqsq0sqsk0)_generation_1(sq1sk100sqsq1sqsk100)", 0, 3000, 7),
          x("python_function", "serve/runner.py(120): execute_model", 1, 2998, 7, **{"Python id": 1, "Python parent id": -1}),
          x("cpu_op", "aten::copy_", 10, 20, 7, **{"External id": 1}),
          x("cuda_runtime", "hipMemcpyAsync", 12, 8, 7, correlation=10, **{"External id": 1}),
          x("gpu_memcpy", "Memcpy HtoD (Host -> Device)", 2020, 5, 0, correlation=10, device=0, stream=0, bytes=4096,
            **{"External id": 1}),
          x("cuda_runtime", "hipGraphLaunch", 100, 50, 7, correlation=11)]
    t = 2030
    for layer in range(3):
        for kernel, op, grid in LAYER:
            ev.append(x("kernel", kernel, t, 40, 0, correlation=11, device=0, stream=0, grid=grid, block=[256, 1, 1]))
            t += 42
    ev += [x("cpu_op", "aten::item", 200, 2500, 7, **{"External id": 2}),
           x("cuda_runtime", "hipMemcpyWithStream", 210, 2480, 7, correlation=12, **{"External id": 2}),
           x("gpu_memcpy", "Memcpy DtoH (Device -> Host)", t + 5, 4, 0, correlation=12, device=0, stream=0, bytes=4,
             **{"External id": 2})]
    return {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X"}], "traceEvents": ev}


for name, trace in (("serving_capture.json", capture()), ("serving_exec.json", execution())):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(trace, f, indent=0)
        f.write("\n")
