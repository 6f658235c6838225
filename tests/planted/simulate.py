#!/usr/bin/env python3
"""A small discrete-event simulator of a PyTorch-like program: one host thread issuing work to
one GPU stream (FIFO), written as a Kineto trace. It knows nothing of gpuscope's analysis: a
planted problem's truth is the measured difference between the traces of two runs of the same
program, one with the problem and one with the fix.

  simulate.py OUT_DIR   writes <case>.json for every case below and truth.json:
                        {case: {"fixed": fixed case, "rule": rule id, "where": substring}}

Host model: host work takes its time; a launch call takes its cost and queues the kernel, which
starts at max(stream free, call start + launch latency); a synchronize returns when the stream
is free + a return latency; an .item() is aten::item > cudaMemcpyAsync (4 bytes, DtoH, pinned)
+ cudaStreamSynchronize; a DataLoader batch is host time inside enumerate(DataLoader)#...;
a per-element Python loop is a frame calling many tiny aten ops; a tiny-kernel storm is many
launches of 2 us kernels (fixed: one graph launch, the kernels back to back); an outlier is a
gemm instance 4x slower in a few steps; a blocking pageable input copy is cudaMemcpy from
pageable memory at PAGEABLE_BW (fixed: pinned + non_blocking, cudaMemcpyAsync at PINNED_BW);
an untuned GEMM is every gemm kernel taking twice its tuned time (the tuned time: what the
program's GEMM - aten::linear with its recorded shapes, bf16 - takes at 60% of the H100's
dense bf16 peak, the device named in the trace).
"""
import json
import os
import sys

US = 1000
LAUNCH_LATENCY = 6 * US
SYNC_RETURN = 4 * US
STEPS = 12
QUEUE = 1024  # GPU ops a stream holds before a launch call blocks (the driver's launch queue)
PAGEABLE_BW = 11.0  # bytes per ns (11 GB/s)
PINNED_BW = 23.0
INPUT_BYTES = 2 << 20
# The device the runs "ran on" (Kineto deviceProperties) and the program's GEMM shapes per variant:
# x [M, K] x weight [N, K], bf16. Tuned, the GEMM runs at TUNED of the H100 SXM's dense bf16
# peak (data sheet: 989.4 TFLOP/s), which gives its kernel time.
DEVICE = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85017690112, "computeMajor": 9,
          "computeMinor": 0, "numSms": 132, "warpSize": 32}
H100_BF16_FLOP_PER_NS = 989.4e3
TUNED = 0.61
GEMM = {True: (8192, 8192, 1792), False: (4096, 4096, 1088)}  # gpu-bound, cpu-bound


def gemm_ns(gpu_bound):
    m, n, k = GEMM[gpu_bound]
    return int(2 * m * n * k / (TUNED * H100_BF16_FLOP_PER_NS))


class Sim:
    def __init__(self):
        self.t = 0          # host clock (ns)
        self.gpu_free = 0   # when the stream finishes its queued work
        self.ev = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python3"}}]
        self.corr = 0
        self.pyid = 0
        self.pending = []  # end times of the GPU ops queued so far
        self.copy_free = 0  # the side stream of prefetched inputs

    def enqueue(self, s, end):
        """A launch call starting at s: blocks while the queue is full; returns when it may
        queue (the call's start of service)."""
        self.pending = [e for e in self.pending if e > s]
        if len(self.pending) >= QUEUE:
            s = sorted(self.pending)[len(self.pending) - QUEUE]
            self.pending = [e for e in self.pending if e > s]
        self.pending.append(end)
        return s

    def x(self, cat, name, tid, start, dur, **args):
        e = {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid,
             "ts": start / 1000.0, "dur": dur / 1000.0}
        if args:
            e["args"] = args
        self.ev.append(e)

    def host(self, ns):
        self.t += ns

    def op(self, name, fn, **args):
        s = self.t
        fn()
        self.x("cpu_op", name, 1, s, self.t - s, **args)

    def frame(self, name, fn, parent=1):
        self.pyid += 1
        me, s = self.pyid + 1, self.t
        fn()
        self.x("python_function", name, 1, s, self.t - s, **{"Python id": me, "Python parent id": parent})

    def launch(self, kernel, kernel_ns, cost=5 * US):
        self.corr += 1
        s = self.t
        start = max(self.gpu_free, s + LAUNCH_LATENCY)
        ready = self.enqueue(s, start + kernel_ns)  # a full queue holds the call
        start = max(self.gpu_free, ready + LAUNCH_LATENCY)
        self.pending[-1] = start + kernel_ns
        self.x("cuda_runtime", "cudaLaunchKernel", 1, s, ready - s + cost, correlation=self.corr)
        self.x("kernel", kernel, 7, start, kernel_ns, correlation=self.corr, device=0, stream=7)
        self.gpu_free = start + kernel_ns
        self.t = ready + cost

    def item(self):
        def body():
            self.corr += 1
            s = self.t
            start = max(self.gpu_free, s + LAUNCH_LATENCY)
            self.x("cuda_runtime", "cudaMemcpyAsync", 1, s, 4 * US, correlation=self.corr)
            self.x("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 7, start, 2 * US, correlation=self.corr,
                   device=0, stream=7, bytes=4)
            self.gpu_free = start + 2 * US
            self.t = s + 4 * US
            s = self.t
            end = max(s + 2 * US, self.gpu_free + SYNC_RETURN)
            self.x("cuda_runtime", "cudaStreamSynchronize", 1, s, end - s, correlation=0)
            self.t = end
        self.op("aten::item", lambda: (self.host(1 * US), self.op("aten::_local_scalar_dense", body)))

    def copy_in(self, mode):
        # The step's input: HtoD, blocking from pageable memory on the compute stream; or, fixed,
        # prefetched from pinned memory on a side stream (the batch is ready ahead: compute does
        # not wait for it).
        self.corr += 1
        s = self.t
        dur = int(INPUT_BYTES / (PAGEABLE_BW if mode == "pageable" else PINNED_BW))
        if mode == "prefetch":
            start = max(self.copy_free, s + LAUNCH_LATENCY)
            self.x("cuda_runtime", "cudaMemcpyAsync", 1, s, 5 * US, correlation=self.corr)
            self.x("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 8, start, dur, correlation=self.corr,
                   device=0, stream=8, bytes=INPUT_BYTES)
            self.copy_free = start + dur
            self.t = s + 5 * US
            return
        start = max(self.gpu_free, s + LAUNCH_LATENCY)
        end = start + dur + SYNC_RETURN if mode == "pageable" else s + 5 * US
        api, mem = ("cudaMemcpy", "Pageable") if mode == "pageable" else ("cudaMemcpyAsync", "Pinned")
        self.x("cuda_runtime", api, 1, s, end - s, correlation=self.corr)
        self.x("gpu_memcpy", f"Memcpy HtoD ({mem} -> Device)", 7, start, dur, correlation=self.corr,
               device=0, stream=7, bytes=INPUT_BYTES)
        self.gpu_free = start + dur
        self.t = end

    def graph_launch(self, n, kernel_ns):
        # One cudaGraphLaunch: the graph's kernels run back to back.
        self.corr += 1
        s = self.t
        start = max(self.gpu_free, s + LAUNCH_LATENCY)
        ready = self.enqueue(s, start + n * kernel_ns)  # the graph is one entry of the queue
        start = max(self.gpu_free, ready + LAUNCH_LATENCY)
        self.pending[-1] = start + n * kernel_ns
        self.x("cuda_runtime", "cudaGraphLaunch", 1, s, ready - s + 10 * US, correlation=self.corr)
        for k in range(n):
            self.x("kernel", "tiny_add_kernel", 7, start + k * kernel_ns, kernel_ns, correlation=self.corr,
                   device=0, stream=7)
        self.gpu_free = start + n * kernel_ns
        self.t = ready + 10 * US

    def event_sync_previous(self):
        # Double-buffered: waits for the previous step's event, long done.
        self.x("cuda_runtime", "cudaEventSynchronize", 1, self.t, 2 * US, correlation=0)
        self.t += 2 * US


def program(gpu_bound, problems):
    """One run: STEPS inference steps; `problems` is a set of planted problem names."""
    sim = Sim()
    kernel = gemm_ns(gpu_bound)  # 8 gemms per step: ~395 us GPU-bound, ~60 us CPU-bound
    m, n, k = GEMM[gpu_bound]
    shapes = {"Input Dims": [[m, k], [n, k], []], "Input type": ["c10::BFloat16", "c10::BFloat16", ""],
              "Concrete Inputs": ["", "", ""]}
    untuned = 2 if "slow_gemm" in problems else 1
    slow_steps = {3, 7, 10}
    def step(n):
        mode = "pageable" if "copy" in problems else "pinned" if "copy_fixed" in problems else "prefetch"
        sim.op("aten::to", lambda: sim.copy_in(mode))
        if "loader" in problems:
            sim.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", lambda: sim.host(3000 * US))
        else:
            sim.host(40 * US)
        def forward():
            for k in range(8):
                slow = "outlier" in problems and n in slow_steps and k == 4
                sim.op("aten::linear", lambda: (sim.host(30 * US),
                                                sim.launch("gemm_kernel", kernel * untuned * (4 if slow else 1))),
                       **shapes)
                sim.host(20 * US)
            if "storm" in problems:
                sim.op("aten::_foreach_add_", lambda: [sim.launch("tiny_add_kernel", 2 * US, cost=8 * US) for _ in range(100)])
            else:
                sim.op("aten::_foreach_add_", lambda: sim.graph_launch(100, 2 * US))
        sim.frame("model.py(20): forward", forward)
        if "pyloop" in problems:
            def loop():
                for i in range(200):
                    sim.op("aten::select" if i % 2 else "aten::gt", lambda: sim.host(12 * US))
                    sim.host(3 * US)
            sim.frame("infer.py(41): postprocess", loop)
        else:
            sim.frame("infer.py(41): postprocess", lambda: sim.op("aten::where", lambda: sim.host(25 * US)))
        if "item" in problems:
            sim.item()
        if "double_buffer" in problems:
            sim.event_sync_previous()
        sim.host(30 * US)
    for n in range(STEPS):
        s = sim.t
        step(n)
        sim.x("user_annotation", f"ProfilerStep#{n}", 1, s, sim.t - s)
    # The end of the run: the host waits for the GPU.
    if sim.gpu_free > sim.t:
        sim.x("cuda_runtime", "cudaDeviceSynchronize", 1, sim.t, sim.gpu_free - sim.t)
    return {"traceEvents": sim.ev, "displayTimeUnit": "ns", "deviceProperties": [DEVICE]}


RULES = {"item": ("host-sync", "aten::item"), "loader": ("data-loading", "DataLoader"),
         "pyloop": ("cpu-op-storm", "postprocess"), "storm": ("launch-bound", "aten::_foreach_add_"),
         "outlier": ("kernel-outlier", "aten::linear"), "copy": ("memcpy-sync", "aten::to"),
         "slow_gemm": ("kernel-efficiency", "aten::linear")}


# What the finding's advice changes, when it is not simply the problem's absence: pinned +
# non_blocking keeps the copy on its stream (prefetching it is memcpy-in-loop's advice).
FIXED = {"copy": {"copy_fixed"}}


def cases():
    out = {}
    for bound in ("gpu", "cpu"):
        g = bound == "gpu"
        out[f"{bound}_healthy"] = (program(g, set()), None)
        out[f"{bound}_double_buffer"] = (program(g, {"double_buffer"}), None)
        for p in RULES:
            out[f"{bound}_{p}"] = (program(g, {p}), (f"{bound}_{p}_fixed", p))
            out[f"{bound}_{p}_fixed"] = (program(g, FIXED.get(p, set())), None)
        mixed = set(RULES)
        out[f"{bound}_mixed"] = (program(g, mixed), None)
        for p in RULES:
            out[f"{bound}_mixed_without_{p}"] = (program(g, (mixed - {p}) | FIXED.get(p, set())), None)
    return out


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    truth = {}
    for name, (trace, plant) in cases().items():
        with open(os.path.join(out_dir, name + ".json"), "w") as f:
            json.dump(trace, f)
        if plant:
            truth[name] = {"fixed": plant[0], "rule": RULES[plant[1]][0], "where": RULES[plant[1]][1]}
    for bound in ("gpu", "cpu"):
        for p in RULES:
            truth[f"{bound}_mixed:{p}"] = {"problem": f"{bound}_mixed", "fixed": f"{bound}_mixed_without_{p}",
                                           "rule": RULES[p][0], "where": RULES[p][1]}
    with open(os.path.join(out_dir, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)


if __name__ == "__main__":
    main()
