#!/usr/bin/env python3
"""A small discrete-event simulator of a PyTorch-like program: one host thread issuing work to
GPU streams (FIFO each), written as a Kineto trace. It knows nothing of gpuscope's analysis: a
planted problem's truth is the measured difference between the traces of two runs of the same
program, one with the problem and one with the fix.

  simulate.py OUT_DIR   writes <case>.json for every case below and truth.json:
                        {case: {"fixed": fixed case, "rule": rule id, "where": substring}}

Machines (Physics): `ideal` (the first cases, unprefixed: a queued op starts the instant the one
before it ends, fixed latencies) and two realistic ones, prefixed `nv_` and `amd_`: a jittered
dispatch gap between back-to-back ops of a stream (1-6 us; 4-14 us on the AMD-like one), launch
latencies drawn with a tail, profiler overhead on every runtime call, a GPU clock that drifts
against the host's, kernel times jittered by +-1.5%, a bounded launch queue (1,024 entries; 64
on the AMD-like one, so launch calls block on GPU-bound runs), HIP names and an MI300X on the
AMD-like one, and several streams with events: the prefetched input is waited for through an
event (cudaEventRecord + cudaStreamWaitEvent, recorded as Kineto's cuda_sync), and each step
ends with an all-reduce on a communication stream that waits for the compute stream's work and
that the compute stream waits for in turn. A realistic machine's runs differ by their jitter:
`<machine>_<bound>_healthy_rerun` is the healthy program with other draws, the noise floor of
a measured difference.

Host model: host work takes its time; a launch call takes its cost and queues the kernel, which
starts at max(stream free, call start + launch latency); a synchronize returns when the stream
is free + a return latency; an .item() is aten::item > cudaMemcpyAsync (4 bytes, DtoH, pinned)
+ cudaStreamSynchronize; a DataLoader batch is host time inside enumerate(DataLoader)#...;
a per-element Python loop is a frame calling many tiny aten ops; a tiny-kernel storm is many
launches of 2 us kernels (fixed: one graph launch, the kernels back to back); an outlier is a
gemm instance 4x slower in a few steps; a blocking pageable input copy is cudaMemcpy from
pageable memory at PAGEABLE_BW (fixed: pinned + non_blocking, cudaMemcpyAsync at PINNED_BW);
a caching allocator that misses is a cudaMalloc per step and torch.cuda.empty_cache()'s
cudaFree (which waits for every stream) per step; an untuned GEMM is every gemm kernel taking
twice its tuned time (the tuned time: what the
program's GEMM - aten::linear with its recorded shapes, bf16 - takes at 60% of the H100's
dense bf16 peak, the device named in the trace); unneeded casts are an x.to(torch.bfloat16) of
a float32 activation before every layer (aten::to > _to_copy > copy_ launching PyTorch's cast
kernel, which moves 6 bytes per element at CAST_BW; fixed: the activation is bf16 already); an
unfused activation is y * scale + bias then gelu after every layer, three elementwise kernels
each reading back what the one before wrote (fixed: one Triton kernel from torch.compile that
moves the compulsory bytes at the same bandwidth); a needless layout change is a transposed
.contiguous() copy of the input before every layer (aten::contiguous > clone > copy_, PyTorch's
direct copy kernel: 4 bytes per element at CAST_BW; fixed: the layout the GEMM reads).
"""
import json
import os
import random
import sys

US = 1000
LAUNCH_LATENCY = 6 * US
SYNC_RETURN = 4 * US
STEPS = 12
QUEUE = 1024  # GPU ops a stream holds before a launch call blocks (the driver's launch queue)
PAGEABLE_BW = 11.0  # bytes per ns (11 GB/s)
PINNED_BW = 23.0
INPUT_BYTES = 2 << 20
CAST_BW = 3000.0  # bytes per ns: what a cast kernel reaches on an H100's HBM3
CONTIGUOUS_KERNEL = ("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<"
                     "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() "
                     "const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, ...)::{lambda(int)#1}>(int, ...)")
CAST_KERNEL = ("void at::native::vectorized_elementwise_kernel<4, at::native::bfloat16_copy_kernel_cuda("
               "at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul> >(int, "
               "at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, "
               "std::array<char*, 2ul>)")
# The device the runs "ran on" (Kineto deviceProperties) and the program's GEMM shapes per variant:
# x [M, K] x weight [N, K], bf16. Tuned, the GEMM runs at TUNED of the H100 SXM's dense bf16
# peak (data sheet: 989.4 TFLOP/s), which gives its kernel time.
DEVICE = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85017690112, "computeMajor": 9,
          "computeMinor": 0, "numSms": 132, "warpSize": 32}
H100_BF16_FLOP_PER_NS = 989.4e3
TUNED = 0.61
GEMM = {True: (8192, 8192, 1792), False: (4096, 4096, 1088)}  # gpu-bound, cpu-bound


MI300X = {"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 205822885888, "computeMajor": 9,
          "computeMinor": 4, "numSms": 304, "warpSize": 64}
MI300X_BF16_FLOP_PER_NS = 1307.4e3  # data sheet: dense bf16, TFLOP/s


class Physics:
    """How the machine behaves: the ideal one of the first cases, or a realistic NVIDIA-like or
    AMD-like one (jitter drawn from a seeded generator, so every run is reproducible)."""

    def __init__(self, name, seed=0, gpu_speed=1, host_speed=1):
        self.name, self.rng = name, random.Random(seed)
        # The program changed as `gpuscope whatif` asks: every kernel, or the host's own work
        # between runtime calls, that many times faster.
        self.gpu_speed, self.host_speed = gpu_speed, host_speed
        self.real = name != "ideal"
        self.amd = name == "amd"
        self.device, self.peak = (MI300X, MI300X_BF16_FLOP_PER_NS) if self.amd else (DEVICE, H100_BF16_FLOP_PER_NS)
        self.queue = 64 if self.amd else QUEUE
        self.gap_us = (4, 14) if self.amd else (1, 6)
        self.latency_us = 12 if self.amd else 6  # the median launch latency

    def gap(self):
        """Between back-to-back queued ops of a stream."""
        return int(self.rng.uniform(*self.gap_us) * US) if self.real else 0

    def latency(self):
        """From a launch call's start to its op's start on an idle stream: a median with a tail."""
        if not self.real:
            return LAUNCH_LATENCY
        return int(self.latency_us * US * self.rng.lognormvariate(0, 0.25))

    def overhead(self):
        """The profiler's cost on a runtime call (host time)."""
        return int(self.rng.uniform(0.5, 2) * US) if self.real else 0

    def kernel(self, ns):
        ns = ns / self.gpu_speed
        return int(ns * self.rng.uniform(0.985, 1.015)) if self.real else int(ns)

    def gpu_clock(self, ns):
        """GPU timestamps: offset 3 us and drifting 15 ppm against the host clock."""
        return ns + 3 * US + ns * 15 // 1000000 if self.real else ns

    def api(self, name):
        return name.replace("cuda", "hip", 1) if self.amd else name


IDEAL = Physics("ideal")


def gemm_ns(gpu_bound, physics=IDEAL):
    m, n, k = GEMM[gpu_bound]
    return int(2 * m * n * k / (TUNED * physics.peak))


class Sim:
    """One run: the host clock, each stream's end of work, the launch queue and the trace."""
    COMPUTE, COPY, COMM = 7, 8, 9

    def __init__(self, physics=IDEAL):
        self.p = physics
        self.t = 0          # host clock (ns)
        self.free = {self.COMPUTE: 0, self.COPY: 0, self.COMM: 0}  # when each stream's work ends
        self.hold = {self.COMPUTE: 0, self.COPY: 0, self.COMM: 0}  # an event the next op waits for
        self.ev = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python3"}}]
        self.corr = 0
        self.pyid = 0
        self.pending = []  # end times of the GPU ops queued so far

    @property
    def gpu_free(self):
        return self.free[self.COMPUTE]

    def enqueue(self, s, end):
        """A launch call starting at s: blocks while the queue is full; returns when it may
        queue (the call's start of service)."""
        self.pending = [e for e in self.pending if e > s]
        if len(self.pending) >= self.p.queue:
            s = sorted(self.pending)[len(self.pending) - self.p.queue]
            self.pending = [e for e in self.pending if e > s]
        self.pending.append(end)
        return s

    def x(self, cat, name, tid, start, dur, **args):
        if tid >= self.COMPUTE:  # a GPU event: the device's clock
            start, dur = self.p.gpu_clock(start), self.p.gpu_clock(start + dur) - self.p.gpu_clock(start)
        elif cat == "cuda_runtime":
            name = self.p.api(name)
        e = {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid,
             "ts": start / 1000.0, "dur": dur / 1000.0}
        if args:
            e["args"] = args
        self.ev.append(e)

    def host(self, ns):
        self.t += int(ns / self.p.host_speed)

    def op(self, name, fn, **args):
        s = self.t
        fn()
        self.x("cpu_op", name, 1, s, self.t - s, **args)

    def frame(self, name, fn, parent=1):
        self.pyid += 1
        me, s = self.pyid + 1, self.t
        fn()
        self.x("python_function", name, 1, s, self.t - s, **{"Python id": me, "Python parent id": parent})

    def gpu_start(self, stream, ready):
        """When an op submitted at `ready` starts: after its stream's work (and the event it
        waits for) plus the dispatch gap, and no sooner than a launch latency after submission."""
        start = max(max(self.free[stream], self.hold[stream]) + self.p.gap(), ready + self.p.latency())
        self.hold[stream] = 0
        return start

    def call(self, name, s, dur, **args):
        """A runtime call of `dur` plus the profiler's overhead on it; the host clock moves on."""
        dur += self.p.overhead()
        self.x("cuda_runtime", name, 1, s, dur, **args)
        self.t = s + dur

    def launch(self, kernel, kernel_ns, cost=5 * US, stream=COMPUTE, **args):
        self.corr += 1
        s, kernel_ns = self.t, self.p.kernel(kernel_ns)
        # A full queue holds the call: the op's end decides when the oldest entry frees.
        free, hold, gap = self.free[stream], self.hold[stream], self.p.gap()
        lat = self.p.latency()
        ready = self.enqueue(s, max(max(free, hold) + gap, s + lat) + kernel_ns)
        start = max(max(free, hold) + gap, ready + lat)
        self.hold[stream] = 0
        self.pending[-1] = start + kernel_ns
        self.call("cudaLaunchKernel", s, ready - s + cost, correlation=self.corr)
        self.x("kernel", kernel, stream, start, kernel_ns, correlation=self.corr, device=0, stream=stream, **args)
        self.free[stream] = start + kernel_ns

    def event_wait(self, waiter, recorder):
        """cudaEventRecord on `recorder` then cudaStreamWaitEvent on `waiter`: the waiter's next
        op starts after the recorder's work so far (Kineto records the wait as cuda_sync)."""
        self.corr += 1
        record = self.corr
        self.call("cudaEventRecord", self.t, 2 * US, correlation=record)
        self.corr += 1
        self.x("cuda_sync", "Stream Wait Event", waiter, self.t, 1 * US,
               cuda_sync_kind="Stream Wait Event", wait_on_stream=recorder,
               wait_on_cuda_event_record_corr_id=record, stream=waiter, correlation=self.corr, device=0)
        self.call("cudaStreamWaitEvent", self.t, 2 * US, correlation=self.corr)
        self.hold[waiter] = max(self.hold[waiter], self.free[recorder])

    def item(self):
        def body():
            self.corr += 1
            s = self.t
            start = self.gpu_start(self.COMPUTE, s)
            self.call("cudaMemcpyAsync", s, 4 * US, correlation=self.corr)
            self.x("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 7, start, 2 * US, correlation=self.corr,
                   device=0, stream=7, bytes=4)
            self.free[self.COMPUTE] = start + 2 * US
            s = self.t
            end = max(s + 2 * US, self.gpu_free + SYNC_RETURN)
            self.call("cudaStreamSynchronize", s, end - s, correlation=0)
        self.op("aten::item", lambda: (self.host(1 * US), self.op("aten::_local_scalar_dense", body)))

    def copy_in(self, mode):
        # The step's input: HtoD, blocking from pageable memory on the compute stream; or, fixed,
        # prefetched from pinned memory on a side stream (the batch is ready ahead: compute does
        # not wait for it; on a realistic machine it waits through an event all the same).
        self.corr += 1
        s = self.t
        dur = int(INPUT_BYTES / (PAGEABLE_BW if mode == "pageable" else PINNED_BW))
        if mode == "prefetch":
            start = self.gpu_start(self.COPY, s)
            self.call("cudaMemcpyAsync", s, 5 * US, correlation=self.corr)
            self.x("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 8, start, dur, correlation=self.corr,
                   device=0, stream=8, bytes=INPUT_BYTES)
            self.free[self.COPY] = start + dur
            if self.p.real:
                self.event_wait(self.COMPUTE, self.COPY)
            return
        start = self.gpu_start(self.COMPUTE, s)
        end = start + dur + SYNC_RETURN if mode == "pageable" else s + 5 * US
        api, mem = ("cudaMemcpy", "Pageable") if mode == "pageable" else ("cudaMemcpyAsync", "Pinned")
        self.call(api, s, end - s, correlation=self.corr)
        self.x("gpu_memcpy", f"Memcpy HtoD ({mem} -> Device)", 7, start, dur, correlation=self.corr,
               device=0, stream=7, bytes=INPUT_BYTES)
        self.free[self.COMPUTE] = start + dur

    def all_reduce(self):
        # Tensor-parallel style: the communication stream waits for the compute stream's work,
        # reduces, and the compute stream's next op waits for the reduction.
        self.event_wait(self.COMM, self.COMPUTE)
        self.launch("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 20 * US, stream=self.COMM)
        self.event_wait(self.COMPUTE, self.COMM)

    def graph_launch(self, n, kernel_ns):
        # One cudaGraphLaunch: the graph's kernels run back to back (the dispatch gap between
        # them too: a graph does not remove it).
        self.corr += 1
        s = self.t
        gaps = [self.p.gap() for _ in range(n)]
        durs = [self.p.kernel(kernel_ns) for _ in range(n)]
        free, hold, lat = self.free[7], self.hold[7], self.p.latency()
        total = sum(durs) + sum(gaps[1:])
        ready = self.enqueue(s, max(max(free, hold) + gaps[0], s + lat) + total)  # one entry
        start = max(max(free, hold) + gaps[0], ready + lat)
        self.hold[7] = 0
        self.pending[-1] = start + total
        self.call("cudaGraphLaunch", s, ready - s + 10 * US, correlation=self.corr)
        t = start
        for k in range(n):
            if k:
                t += gaps[k]
            self.x("kernel", "tiny_add_kernel", 7, t, durs[k], correlation=self.corr, device=0, stream=7)
            t += durs[k]
        self.free[7] = t

    def cuda_malloc(self):
        # The caching allocator missed: cudaMalloc (host time only).
        self.call("cudaMalloc", self.t, 40 * US, correlation=0)

    def cuda_free(self):
        # cudaFree synchronizes the device: it returns once every stream's work is done.
        s = self.t
        end = max(s + 100 * US, max(self.free.values()) + SYNC_RETURN)
        self.call("cudaFree", s, end - s, correlation=0)

    def cast(self, rows, cols):
        # x.to(torch.bfloat16) of a float32 activation: aten::to > aten::_to_copy > aten::copy_
        # launching PyTorch's cast kernel, which reads 4 and writes 2 bytes per element at
        # CAST_BW.
        kernel_ns = int(rows * cols * 6 / CAST_BW)
        args = {"Input Dims": [[rows, cols], [rows, cols], []],
                "Input type": ["c10::BFloat16", "float", "Scalar"], "Concrete Inputs": ["", "", "False"]}
        copy = lambda: (self.host(2 * US), self.launch(CAST_KERNEL, kernel_ns))
        to_copy = lambda: (self.host(3 * US), self.op("aten::copy_", copy, **args))
        self.op("aten::to", lambda: (self.host(2 * US), self.op("aten::_to_copy", to_copy)))

    def contiguous(self, rows, cols):
        # x.transpose(0, 1).contiguous() of a bf16 activation: aten::contiguous > aten::clone >
        # aten::copy_ launching PyTorch's copy kernel, which reads and writes 2 bytes per element
        # at CAST_BW.
        kernel_ns = int(rows * cols * 4 / CAST_BW)
        args = {"Input Dims": [[cols, rows], [cols, rows], []],
                "Input type": ["c10::BFloat16", "c10::BFloat16", "Scalar"], "Concrete Inputs": ["", "", "False"]}
        copy = lambda: (self.host(2 * US), self.launch(CONTIGUOUS_KERNEL, kernel_ns))
        clone = lambda: (self.host(3 * US), self.op("aten::copy_", copy, **args))
        self.op("aten::contiguous", lambda: (self.host(2 * US), self.op("aten::clone", clone)))

    def chain(self, rows, cols, fused=False):
        # y * scale + bias, then gelu: three elementwise kernels on [rows, cols] bf16, each
        # reading back what the one before wrote, at CAST_BW; fused (torch.compile), one Triton
        # kernel that reads y and the bias once and writes the result once.
        y = rows * cols * 2
        if fused:
            name = "triton_poi_fused_add_gelu_mul_0"
            self.op(name, lambda: (self.host(4 * US), self.launch(name, int((2 * y + 2 * cols) / CAST_BW))))
            return
        for op, reads, dims, types in (
                ("mul", y, [[rows, cols], []], ["c10::BFloat16", "Scalar"]),
                ("add", y + 2 * cols, [[rows, cols], [cols], []], ["c10::BFloat16", "c10::BFloat16", "Scalar"]),
                ("gelu", y, [[rows, cols], []], ["c10::BFloat16", ""])):
            kernel = (f"void at::native::vectorized_elementwise_kernel<4, at::native::{op.capitalize()}Functor"
                      "<c10::BFloat16>, std::array<char*, 2ul> >(int, std::array<char*, 2ul>)")
            ns = int((reads + y) / CAST_BW)
            self.op("aten::" + op, lambda: (self.host(4 * US), self.launch(kernel, ns)),
                    **{"Input Dims": dims, "Input type": types, "Concrete Inputs": [""] * len(dims)})

    def event_sync_previous(self):
        # Double-buffered: waits for the previous step's event, long done.
        self.call("cudaEventSynchronize", self.t, 2 * US, correlation=0)


# A serving run's steps (`serving=True`): vLLM's step annotations, a prefill step then three
# decode ones, over and over; the same work in both, so that only a problem planted in one
# phase's steps tells them apart.
PREFILL = "execute_1_context_1(sq512sk512sqsq262144sqsk262144)_generation_0(sq0sk0sqsq0sqsk0)"
DECODE = "execute_1_context_0(sq0sk0sqsq0sqsk0)_generation_8(sq8sk800sqsq8sqsk800)"


def is_prefill(n):
    return n % 4 == 0


def program(gpu_bound, problems, physics=IDEAL, serving=False):
    """One run: STEPS inference steps; `problems` is a set of planted problem names (in a serving
    run, "item" and "outlier" in the decode and the prefill steps only)."""
    sim = Sim(physics)
    kernel = gemm_ns(gpu_bound, physics)  # 8 gemms per step: ~395 us GPU-bound, ~60 us CPU-bound
    m, n, k_dim = GEMM[gpu_bound]
    k = k_dim
    shapes = {"Input Dims": [[m, k], [n, k], []], "Input type": ["c10::BFloat16", "c10::BFloat16", ""],
              "Concrete Inputs": ["", "", ""]}
    untuned = 2 if "slow_gemm" in problems else 1
    slow_steps = {n for n in range(STEPS) if is_prefill(n)} if serving else {3, 7, 10}
    def step(n):
        mode = "pageable" if "copy" in problems else "pinned" if "copy_fixed" in problems else "prefetch"
        if "alloc" in problems:  # the caching allocator misses every step
            sim.op("aten::empty_strided", sim.cuda_malloc)
        sim.op("aten::to", lambda: sim.copy_in(mode))
        if "loader" in problems:
            sim.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", lambda: sim.host(3000 * US))
        else:
            sim.host(40 * US)
        def forward():
            for k in range(8):
                slow = "outlier" in problems and n in slow_steps and k == 4
                if "casts" in problems:  # the input cast to bf16 before every layer
                    sim.cast(m, k_dim)
                if "contiguous" in problems:  # a transposed copy of the input, every layer
                    sim.frame("model.py(27): attention", lambda: sim.contiguous(m, k_dim))
                if "chain" in problems or "chain_fused" in problems:  # the activation after it
                    sim.frame("model.py(31): activation", lambda: sim.chain(m, k_dim, "chain_fused" in problems))
                sim.op("aten::linear", lambda: (sim.host(30 * US),
                                                sim.launch("gemm_kernel", kernel * untuned * (4 if slow else 1))),
                       **shapes)
                sim.host(20 * US)
            if "storm" in problems:
                sim.op("aten::_foreach_add_", lambda: [sim.launch("tiny_add_kernel", 2 * US, cost=8 * US) for _ in range(100)])
            else:
                sim.op("aten::_foreach_add_", lambda: sim.graph_launch(100, 2 * US))
        sim.frame("model.py(20): forward", forward)
        if physics.real:
            sim.op("c10d::allreduce_", sim.all_reduce)
        if "pyloop" in problems:
            def loop():
                for i in range(200):
                    sim.op("aten::select" if i % 2 else "aten::gt", lambda: sim.host(12 * US))
                    sim.host(3 * US)
            sim.frame("infer.py(41): postprocess", loop)
        else:
            sim.frame("infer.py(41): postprocess", lambda: sim.op("aten::where", lambda: sim.host(25 * US)))
        if "item" in problems and not (serving and is_prefill(n)):
            sim.item()
        if "alloc" in problems:  # torch.cuda.empty_cache() every step
            sim.frame("infer.py(57): release_memory", lambda: (sim.host(5 * US), sim.cuda_free()))
        if "double_buffer" in problems:
            sim.event_sync_previous()
        sim.host(30 * US)
    for n in range(STEPS):
        s = sim.t
        step(n)
        name = (PREFILL if is_prefill(n) else DECODE) if serving else f"ProfilerStep#{n}"
        sim.x("user_annotation", name, 1, s, sim.t - s)
    # The end of the run: the host waits for the GPU.
    end = max(sim.free.values())
    if end > sim.t:
        sim.x("cuda_runtime", "cudaDeviceSynchronize", 1, sim.t, end - sim.t)
    return {"traceEvents": sim.ev, "displayTimeUnit": "ns", "deviceProperties": [physics.device]}


RULES = {"item": ("host-sync", "aten::item"), "loader": ("data-loading", "DataLoader"),
         "pyloop": ("cpu-op-storm", "postprocess"), "storm": ("launch-bound", "aten::_foreach_add_"),
         "outlier": ("kernel-outlier", "aten::linear"), "copy": ("memcpy-sync", "aten::to"),
         "slow_gemm": ("kernel-efficiency", "aten::linear"),
         "alloc": ("allocator", "release_memory"), "casts": ("device-copy", "aten::to"),
         "contiguous": ("device-copy", "aten::contiguous"),
         "chain": ("fusion", "activation")}


# What the finding's advice changes, when it is not simply the problem's absence: pinned +
# non_blocking keeps the copy on its stream (prefetching it is memcpy-in-loop's advice).
FIXED = {"copy": {"copy_fixed"}, "chain": {"chain_fused"}}


# Planted in one phase of a serving run: their truth.json entries carry "phases" (each phase's
# saving is measured over its steps, cases_analysis.py).
SERVING = ("item", "outlier")


# The machines: the ideal one (unprefixed cases) and the realistic ones, by case prefix.
MACHINES = {"": "ideal", "nv_": "nvidia", "amd_": "amd"}


def cases():
    out = {}
    for prefix, machine in MACHINES.items():
        seed = [0]

        def run(g, problems, same=False):
            # Each pair's run with the problem and its fixed run draw the same jitter (the
            # same seed): their difference is the problem's, not the noise's.
            seed[0] += 0 if same else 1
            return program(g, problems, Physics(machine, seed[0]))

        for bound in ("gpu", "cpu"):
            g, b = bound == "gpu", prefix + bound
            out[f"{b}_healthy"] = (run(g, set()), None)
            if machine != "ideal":  # the jitter's own noise: the same program, other draws
                out[f"{b}_healthy_rerun"] = (run(g, set()), None)
            out[f"{b}_double_buffer"] = (run(g, {"double_buffer"}), None)
            for p in RULES:
                out[f"{b}_{p}"] = (run(g, {p}), (f"{b}_{p}_fixed", p))
                out[f"{b}_{p}_fixed"] = (run(g, FIXED.get(p, set()), same=True), None)
            mixed = set(RULES)
            out[f"{b}_mixed"] = (run(g, mixed), None)
            for p in RULES:
                out[f"{b}_mixed_without_{p}"] = (run(g, (mixed - {p}) | FIXED.get(p, set()), same=True), None)
    # A GPU-bound serving run on the NVIDIA-like machine, each problem in one phase's steps.
    seed = [100]

    def serve(problems, same=False):
        seed[0] += 0 if same else 1
        return program(True, problems, Physics("nvidia", seed[0]), serving=True)

    out["nv_serving_healthy"] = (serve(set()), None)
    out["nv_serving_healthy_rerun"] = (serve(set()), None)
    for p in SERVING:
        out[f"nv_serving_{p}"] = (serve({p}), (f"nv_serving_{p}_fixed", p))
        out[f"nv_serving_{p}_fixed"] = (serve(set(), same=True), None)
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
            if name.startswith("nv_serving_"):
                truth[name]["phases"] = True
    for prefix in MACHINES:
        for bound in (prefix + "gpu", prefix + "cpu"):
            for p in RULES:
                truth[f"{bound}_mixed:{p}"] = {"problem": f"{bound}_mixed", "fixed": f"{bound}_mixed_without_{p}",
                                               "rule": RULES[p][0], "where": RULES[p][1]}
    with open(os.path.join(out_dir, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)


if __name__ == "__main__":
    main()
