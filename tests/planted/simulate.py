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
a per-element Python loop is a frame calling many tiny aten ops.
"""
import json
import os
import sys

US = 1000
LAUNCH_LATENCY = 6 * US
SYNC_RETURN = 4 * US
STEPS = 12


class Sim:
    def __init__(self):
        self.t = 0          # host clock (ns)
        self.gpu_free = 0   # when the stream finishes its queued work
        self.ev = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python3"}}]
        self.corr = 0
        self.pyid = 0

    def x(self, cat, name, tid, start, dur, **args):
        e = {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid,
             "ts": start / 1000.0, "dur": dur / 1000.0}
        if args:
            e["args"] = args
        self.ev.append(e)

    def host(self, ns):
        self.t += ns

    def op(self, name, fn):
        s = self.t
        fn()
        self.x("cpu_op", name, 1, s, self.t - s)

    def frame(self, name, fn, parent=1):
        self.pyid += 1
        me, s = self.pyid + 1, self.t
        fn()
        self.x("python_function", name, 1, s, self.t - s, **{"Python id": me, "Python parent id": parent})

    def launch(self, kernel, kernel_ns, cost=5 * US):
        self.corr += 1
        s = self.t
        start = max(self.gpu_free, s + LAUNCH_LATENCY)
        self.x("cuda_runtime", "cudaLaunchKernel", 1, s, cost, correlation=self.corr)
        self.x("kernel", kernel, 7, start, kernel_ns, correlation=self.corr, device=0, stream=7)
        self.gpu_free = start + kernel_ns
        self.t = s + cost

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

    def event_sync_previous(self):
        # Double-buffered: waits for the previous step's event, long done.
        self.x("cuda_runtime", "cudaEventSynchronize", 1, self.t, 2 * US, correlation=0)
        self.t += 2 * US


def program(gpu_bound, problems):
    """One run: STEPS inference steps; `problems` is a set of planted problem names."""
    sim = Sim()
    kernel = 400 * US if gpu_bound else 60 * US  # 8 kernels per step
    def step():
        if "loader" in problems:
            sim.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", lambda: sim.host(3000 * US))
        else:
            sim.host(40 * US)
        def forward():
            for k in range(8):
                sim.op("aten::linear", lambda: (sim.host(30 * US), sim.launch("gemm_kernel", kernel)))
                sim.host(20 * US)
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
        step()
        sim.x("user_annotation", f"ProfilerStep#{n}", 1, s, sim.t - s)
    # The end of the run: the host waits for the GPU.
    if sim.gpu_free > sim.t:
        sim.x("cuda_runtime", "cudaDeviceSynchronize", 1, sim.t, sim.gpu_free - sim.t)
    return {"traceEvents": sim.ev, "displayTimeUnit": "ns"}


RULES = {"item": ("host-sync", "aten::item"), "loader": ("data-loading", "DataLoader"),
         "pyloop": ("cpu-op-storm", "postprocess")}


def cases():
    out = {}
    for bound in ("gpu", "cpu"):
        g = bound == "gpu"
        out[f"{bound}_healthy"] = (program(g, set()), None)
        out[f"{bound}_double_buffer"] = (program(g, {"double_buffer"}), None)
        for p in RULES:
            out[f"{bound}_{p}"] = (program(g, {p}), (f"{bound}_healthy", p))
        mixed = set(RULES)
        out[f"{bound}_mixed"] = (program(g, mixed), None)
        for p in RULES:
            out[f"{bound}_mixed_without_{p}"] = (program(g, mixed - {p}), None)
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
