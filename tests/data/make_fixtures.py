#!/usr/bin/env python3
"""Writes the small hand-made traces the tests use (run from this folder; outputs are committed).

Every number in these files is chosen by hand so that tests can state the expected tables
exactly; see the comments next to each event.
"""
import gzip
import json

US = 1000  # ns per us, for readability below


def ts(ns):
    """Kineto 2024+ style: microseconds with exactly three decimals."""
    return float(f"{ns // 1000}.{ns % 1000:03d}")


def X(cat, name, pid, tid, start_ns, dur_ns, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
         "ts": ts(start_ns), "dur": ts(dur_ns)}
    if args:
        e["args"] = args
    return e


def cuda_small():
    P, T = 4242, 4242
    ev = []
    ev.append({"name": "process_name", "ph": "M", "ts": 0, "pid": P, "tid": 0, "args": {"name": "python"}})
    ev.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": P, "tid": T, "args": {"name": "thread 4242 (python)"}})
    # Duplicate metadata (Kineto repeats thread_name): must not create a second thread.
    ev.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": P, "tid": T, "args": {"name": "thread 4242 (python)"}})
    ev.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": 0, "tid": 7, "args": {"name": "stream 7"}})
    corr = 100
    for step in (1, 2):
        base = 1_000_000 + (step - 1) * 1_000_000  # steps at 1 ms and 2 ms
        ev.append(X("user_annotation", f"ProfilerStep#{step}", P, T, base, 900 * US))
        ev.append(X("python_function", "inference.py(12): forward", P, T, base + 1 * US, 800 * US,
                    **{"Python id": step * 10, "Python parent id": None}))
        ev.append(X("python_function", "torch/nn/modules/linear.py(125): forward", P, T, base + 2 * US,
                    300 * US, **{"Python id": step * 10 + 1, "Python parent id": step * 10}))
        # aten::linear [base+5us, +200us] contains aten::addmm [base+10us, +100us]
        ev.append(X("cpu_op", "aten::linear", P, T, base + 5 * US, 200 * US, **{"External id": step * 1000 + 1}))
        ev.append(X("cpu_op", "aten::addmm", P, T, base + 10 * US, 100 * US, **{"External id": step * 1000 + 2}))
        # Runtime call inside addmm. External id = its own correlation (2021-2024 Kineto trap).
        c1 = corr; corr += 1
        ev.append(X("cuda_runtime", "cudaLaunchKernel", P, T, base + 20 * US, 10 * US,
                    correlation=c1, **{"External id": c1, "cbid": 211}))
        ev.append(X("kernel", "_Z10gemm_tile1PfS_i", 0, 7, base + 40 * US, 50 * US + step * 10,
                    correlation=c1, device=0, stream=7, grid=[128, 1, 1], block=[256, 1, 1],
                    **{"registers per thread": 64, "shared memory": 16384}))
        ev.append({"ph": "s", "id": c1, "pid": P, "tid": T, "ts": ts(base + 20 * US), "cat": "ac2g", "name": "ac2g"})
        ev.append({"ph": "f", "id": c1, "pid": 0, "tid": 7, "ts": ts(base + 40 * US), "cat": "ac2g", "name": "ac2g", "bp": "e"})
        # A graph launch: one correlation, three kernels.
        c2 = corr; corr += 1
        ev.append(X("cpu_op", "aten::relu", P, T, base + 210 * US, 40 * US, **{"External id": step * 1000 + 3}))
        ev.append(X("cuda_runtime", "cudaGraphLaunch", P, T, base + 215 * US, 20 * US, correlation=c2))
        for k in range(3):
            ev.append(X("kernel", "void at::native::vectorized_elementwise_kernel<4, at::native::relu>(int)", 0, 7,
                        base + (300 + 10 * k) * US, 2 * US + k, correlation=c2, device=0, stream=7))
        # Copies: pageable HtoD 1 MB in 100 us, pinned DtoH 4 bytes, a memset.
        c3 = corr; corr += 1
        ev.append(X("cpu_op", "aten::to", P, T, base + 400 * US, 150 * US, **{"External id": step * 1000 + 4}))
        ev.append(X("cuda_runtime", "cudaMemcpyAsync", P, T, base + 405 * US, 120 * US, correlation=c3))
        ev.append(X("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 7, base + 410 * US, 100 * US,
                    correlation=c3, device=0, stream=7, bytes=1_000_000))
        c4 = corr; corr += 1
        ev.append(X("cpu_op", "aten::item", P, T, base + 600 * US, 50 * US, **{"External id": step * 1000 + 5}))
        ev.append(X("cuda_runtime", "cudaMemcpyAsync", P, T, base + 605 * US, 5 * US, correlation=c4))
        ev.append(X("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 0, 7, base + 612 * US, 2 * US,
                    correlation=c4, device=0, stream=7, bytes=4))
        ev.append(X("cuda_runtime", "cudaStreamSynchronize", P, T, base + 611 * US, 30 * US, correlation=corr))
        corr += 1
        c5 = corr; corr += 1
        ev.append(X("cuda_runtime", "cudaMemsetAsync", P, T, base + 700 * US, 4 * US, correlation=c5))
        ev.append(X("gpu_memset", "Memset (Device)", 0, 7, base + 710 * US, 1 * US,
                    correlation=c5, device=0, stream=7, bytes=4096))
    # A dangling flow end (Kineto emits these for calls that launch nothing).
    ev.append({"ph": "f", "id": 99999, "pid": P, "tid": T, "ts": ts(1_500_000), "cat": "ac2g", "name": "ac2g", "bp": "e"})
    # An old "INVALID" runtime name, outside any op.
    ev.append(X("cuda_runtime", "INVALID", P, T, 3_500_000, 1 * US, correlation=corr))
    # uint64 above INT64_MAX in an arg (HTA's large_integer_trace).
    ev.append(X("cpu_op", "record_param_comms", P, T, 3_600_000, 1 * US,
                **{"Comms Id": 18446744073709551615, "External id": 9001}))
    # A name with escapes and non-ASCII.
    ev.append(X("cpu_op", "triton_\"poi\"_fused_\u00e9", P, T, 3_700_000, 2 * US))
    # An event whose negative relative time Kineto clamped to 0 (pytorch#188481).
    ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": P, "tid": T, "ts": 0.0, "dur": 0.0})
    # String pid/tid span and instant markers.
    ev.append({"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler",
               "ts": ts(900_000), "dur": ts(3_000_000), "args": {"Op count": 0}})
    ev.append({"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": ts(3_900_000)})
    doc = {
        "schemaVersion": 1,
        "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "totalGlobalMem": 85045231616,
                              "computeMajor": 9, "computeMinor": 0, "warpSize": 32, "numSms": 132}],
        "cupti_version": 24, "cuda_runtime_version": 12040, "cuda_driver_version": 12040,
        "displayTimeUnit": "ms",
        "baseTimeNanoseconds": 1700000000000000000,
        "traceEvents": ev,
        "traceName": "/tmp/fixture.json",
    }
    return doc


def pt18_legacy():
    """PyTorch 1.8: a bare array, capitalised categories, integer us since the epoch."""
    P, T = 67844, "4093687616"
    b = 1606910596297000
    return [
        {"ph": "X", "cat": "Operator", "name": "ProfilerStep#3", "pid": P, "tid": T, "ts": b, "dur": 500},
        {"ph": "X", "cat": "Operator", "name": "aten::conv2d", "pid": P, "tid": T, "ts": b + 10, "dur": 100,
         "args": {"Input dims": [[1, 3, 224, 224]], "External id": 2}},
        {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": P, "tid": T, "ts": b + 20, "dur": 8,
         "args": {"correlation": 5, "external id": 2, "external ts": b + 10}},
        {"ph": "X", "cat": "Kernel", "name": "implicit_convolve_sgemm", "pid": 0, "tid": "stream 7", "ts": b + 40, "dur": 30,
         "args": {"queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 5, "external id": 2}},
        {"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": "stream 7",
         "ts": b + 200, "dur": 12, "args": {"device": 0, "stream": 7, "correlation": 6, "bytes": 602112}},
        {"ph": "X", "cat": "Runtime", "name": "cudaMemcpyAsync", "pid": P, "tid": T, "ts": b + 190, "dur": 30,
         "args": {"correlation": 6, "external id": 0}},
        {"ph": "f", "id": 5, "pid": 0, "tid": "stream 7", "ts": b + 40, "cat": "async", "name": "launch", "bp": "e"},
        {"ph": "s", "id": 5, "pid": P, "tid": T, "ts": b + 20, "cat": "async", "name": "launch"},
    ]


def rocm_small():
    """A ROCm build of PyTorch: HIP names, host memory of unknown pinning, numbers as strings."""
    P = 542
    ev = [
        X("cpu_op", "aten::add", P, P, 10_000, 30 * US, **{"External id": 1}),
        X("cuda_runtime", "hipLaunchKernel", P, P, 12_000, 6 * US, correlation=11,
          **{"External id": 1, "cid": 1, "kernel": "elementwise_kernel", "grid": "[1,1,1]"}),
        X("kernel", "void at::native::elementwise_kernel<128, 4>(int)", 2, 1, 30_000, 7_500,
          correlation=11, device=2, stream=1),
        X("cpu_op", "aten::copy_", P, P, 50_000, 40 * US, **{"External id": 2}),
        X("cuda_runtime", "hipMemcpyWithStream", P, P, 52_000, 30 * US, correlation=12,
          **{"External id": 2, "stream": "0x0", "src": "0x55674ecd4180", "dst": "0x7fda0e810200",
             "size": "2560", "kind": "1"}),
        X("gpu_memcpy", "Memcpy HtoD (Host -> Device)", 2, 1, 60_000, 1_280, correlation=12,
          device=2, stream=1, bytes=2560, kind=1),
        X("kernel", "__amd_rocclr_copyBuffer", 2, 1, 70_000, 900, correlation=13, device=2, stream=1),
    ]
    return {"schemaVersion": 1, "deviceProperties": [{"id": 2, "name": "AMD Instinct MI300X", "numSms": 304, "warpSize": 64}],
            "roctracer_version": 4.1, "hip_runtime_version": 60342134, "traceEvents": ev}


def shapes_small():
    """Ops recorded with shapes (record_shapes=True) on a named MI300X, one kernel each, for the
    roofline: every work-model family the tests name, an op without a model, one without shapes.
    Kernel times are round numbers; the expected FLOPs are in tests/e2e/cases_roofline.py."""
    P = 77
    ev = []
    corr = [500]

    def op(name, start, kernel_ns, dims=None, types=None, concrete=None, parent=None):
        """An op at `start` (us) with one launch and one kernel of `kernel_ns`."""
        args = {"External id": corr[0]}
        if dims is not None:
            args.update({"Input Dims": dims, "Input type": types, "Concrete Inputs": concrete or [""] * len(dims)})
        t0 = start * US
        if parent:
            ev.append(X("cpu_op", parent, P, P, t0 - 2 * US, 44 * US, **{"External id": corr[0] + 10000}))
        ev.append(X("cpu_op", name, P, P, t0, 40 * US, **args))
        corr[0] += 1
        ev.append(X("cuda_runtime", "hipLaunchKernel", P, P, t0 + 5 * US, 10 * US, correlation=corr[0]))
        ev.append(X("kernel", name.split("::")[-1] + "_kernel", 0, 1, t0 + 20 * US, kernel_ns,
                    correlation=corr[0], device=0, stream=1))

    bf16 = "c10::BFloat16"
    # linear > addmm: the addmm (innermost modelled op) is charged; M = 128, N = 512, K = 256.
    op("aten::addmm", 100, 10 * US, [[512], [128, 256], [256, 512], [], []], [bf16, bf16, bf16, "Scalar", "Scalar"],
       ["", "", "", "1", "1"], parent="aten::linear")
    # Causal SDPA (flash): B = 2, H = 8, L = 128, D = 64.
    op("aten::_scaled_dot_product_flash_attention", 200, 20 * US,
       [[2, 8, 128, 64], [2, 8, 128, 64], [2, 8, 128, 64], [], []], [bf16, bf16, bf16, "Scalar", "Scalar"],
       ["", "", "", "0.", "True"])
    # conv2d 3 -> 64 channels, 7x7, stride 2, padding 3 on 1x3x224x224 fp32: 112x112 output.
    op("aten::convolution", 300, 50 * US,
       [[1, 3, 224, 224], [64, 3, 7, 7], [64], [], [], [], [], [], []],
       ["float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"],
       ["", "", "", "[2, 2]", "[3, 3]", "[1, 1]", "False", "[0, 0]", "1"])
    # relu_ as PyTorch records it: clamp_min.out(x, 0, out=x) on 1M fp32 elements.
    op("aten::clamp_min", 400, 4 * US, [[1024, 1024], [], [1024, 1024]], ["float", "Int", "float"], parent="aten::relu_")
    # An fp8 GEMM with its scales, bf16 output (ScalarType 15).
    op("aten::_scaled_mm", 500, 8 * US, [[256, 512], [512, 128], [], [], [], [], [], []],
       ["c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float", "float", "", "", "Scalar", "Scalar"],
       ["", "", "", "", "", "", "15", "False"])
    # Paged attention: listed with its reason; nonzero: no model; an mm without shapes.
    op("vllm::unified_attention_with_output", 600, 30 * US, [[4, 8, 64], [4, 1, 64]], [bf16, bf16])
    op("aten::nonzero", 700, 3 * US, [[1024]], ["bool"])
    op("aten::mm", 800, 6 * US)
    return {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X", "numSms": 304,
                                                      "warpSize": 64, "totalGlobalMem": 206141652992}],
            "traceEvents": ev}


def main():
    with open("kineto_shapes_small.json", "w") as f:
        json.dump(shapes_small(), f, indent=1)
    small = json.dumps(cuda_small(), indent=1)
    with open("kineto_cuda_small.json", "w") as f:
        f.write(small)
    with gzip.GzipFile("kineto_cuda_small.json.gz", "wb", mtime=0) as f:
        f.write(small.encode())
    with open("kineto_pt18_legacy.json", "w") as f:
        json.dump(pt18_legacy(), f, indent=1)
    with open("kineto_rocm_small.json", "w") as f:
        json.dump(rocm_small(), f, indent=1)
    # Bad inputs.
    open("bad_empty_file.json", "w").close()
    with open("bad_not_json.json", "w") as f:
        f.write("this is not a trace\n")
    with open("bad_truncated.json", "w") as f:
        f.write(small[: len(small) * 2 // 3])  # cut in the middle of traceEvents
    with gzip.GzipFile("bad_truncated.json.gz", "wb", mtime=0) as f:
        f.write(small.encode())
    data = open("bad_truncated.json.gz", "rb").read()
    with open("bad_truncated.json.gz", "wb") as f:
        f.write(data[: len(data) * 2 // 3])
    corrupt = bytearray(data)
    for i in range(len(corrupt) // 2, len(corrupt) // 2 + 64):
        corrupt[i] ^= 0x5A
    with open("bad_corrupt.json.gz", "wb") as f:
        f.write(bytes(corrupt))
    with open("bad_empty_trace.json", "w") as f:
        json.dump({"schemaVersion": 1, "deviceProperties": [], "traceEvents": []}, f)
    with open("bad_metadata_only.json", "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": [
            {"name": "process_name", "ph": "M", "ts": 0, "pid": 1, "tid": 0, "args": {"name": "python"}}]}, f)
    with open("bad_missing_fields.json", "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": [
            {"ph": "X", "cat": "kernel", "name": "no_ts", "pid": 0, "tid": 7, "dur": 5},
            {"ph": "X", "cat": "kernel", "name": "no_dur", "pid": 0, "tid": 7, "ts": 10},
            {"ph": "X", "cat": "kernel", "name": "bad_ts", "pid": 0, "tid": 7, "ts": "soon", "dur": 5},
            {"cat": "kernel", "name": "no_ph", "pid": 0, "tid": 7, "ts": 20, "dur": 5},
            {"ph": "X", "cat": "kernel", "name": "good", "pid": 0, "tid": 7, "ts": 30, "dur": 5},
        ]}, f)
    with open("bad_unknown_format.json", "w") as f:
        json.dump({"hello": "world"}, f)


if __name__ == "__main__":
    main()
