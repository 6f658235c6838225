#!/usr/bin/env python3
"""Synthetic traces with planted problems, and the cost each plant was given, for analyze's tests.

  make_planted.py OUT_DIR

writes, in OUT_DIR:
  slow.json     Kineto trace of a 10-step inference loop with every problem planted (4 ms steps)
  healthy.json  the same loop fixed (GPU-bound, pinned async copies, no per-step sync, vectorised; 3 ms steps)
  noise_a.json, noise_b.json  two runs of the healthy loop that differ only by +-2% step-time noise
  slow.rpd      rocmProfileData trace (schema v2) of a loop with a tiny-kernel storm and blocking copies
  healthy.rpd   the same loop with fused kernels and async copies
  planted.json  per file: {rule: {"impact_ns": planted cost, "python": ..., "op": ...}}

Times are integer ns; Kineto ts/dur are written in us with at most 3 decimals (exact).
"""
import json
import os
import random
import sqlite3
import sys

US = 1000
STEPS = 10
STEP = 3000 * US


def X(cat, name, tid, start, dur, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": 100, "tid": tid, "ts": float(f"{start // 1000}.{start % 1000:03d}"),
         "dur": float(f"{dur // 1000}.{dur % 1000:03d}")}
    if args:
        e["args"] = args
    return e


def kineto(slow, jitter_seed=None):
    STEP = (4000 if slow else 3000) * US
    rng = random.Random(jitter_seed)
    ev = [{"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "args": {"name": "python3"}}]
    corr = [0]
    pyid = [0]
    planted = {}
    storm_ns = host_sync_ns = sync_copy_ns = loop_copy_ns = 0

    def frame(name, start, dur, parent=None):
        pyid[0] += 1
        ev.append(X("python_function", name, 100, start, dur, **{"Python id": pyid[0], "Python parent id": parent}))
        return pyid[0]

    def launch(kernel, api_start, api_dur, k_start, k_dur):
        corr[0] += 1
        ev.append(X("cuda_runtime", "cudaLaunchKernel", 100, api_start, api_dur, correlation=corr[0]))
        ev.append(X("kernel", kernel, 7, k_start, k_dur, correlation=corr[0], device=0, stream=7))

    def copy(api, api_start, api_dur, start, dur, nbytes, kind, mem):
        corr[0] += 1
        ev.append(X("cuda_runtime", api, 100, api_start, api_dur, correlation=corr[0]))
        name = f"Memcpy {kind} ({mem} -> Device)" if kind == "HtoD" else f"Memcpy {kind} (Device -> {mem})"
        ev.append(X("gpu_memcpy", name, 7, start, dur, correlation=corr[0], device=0, stream=7, bytes=nbytes))

    for s in range(STEPS):
        t0 = 1_000_000 + s * STEP
        step_dur = STEP - 10 * US
        if jitter_seed is not None:  # run-to-run noise on the step time only
            step_dur -= int(rng.uniform(0, 0.02) * STEP)
        ev.append(X("user_annotation", f"ProfilerStep#{s}", 100, t0, step_dur))
        root = frame("inference.py(30): <module>", t0 + 1 * US, STEP - 20 * US)
        if slow:
            # 1. Pageable synchronous input copy: 1 MiB, 200 us on the GPU, 220 us call.
            ev.append(X("cpu_op", "aten::to", 100, t0 + 10 * US, 240 * US))
            copy("cudaMemcpy", t0 + 15 * US, 220 * US, t0 + 25 * US, 200 * US, 1 << 20, "HtoD", "Pageable")
            sync_copy_ns += 220 * US
            loop_copy_ns += 200 * US
            # 2. The model: two gemms.
            ev.append(X("cpu_op", "aten::linear", 100, t0 + 260 * US, 30 * US))
            launch("gemm_kernel", t0 + 265 * US, 10 * US, t0 + 280 * US, 600 * US)
            launch("gemm_kernel", t0 + 277 * US, 10 * US, t0 + 880 * US, 600 * US)
            # 3. Per-element Python activation loop: 300 tiny ops, 2.4 ms, while the GPU works.
            f = frame("inference.py(12): slow_activation", t0 + 300 * US, 2400 * US, root)
            for k in range(300):
                ev.append(X("cpu_op", ["aten::select", "aten::gt", "aten::mul"][k % 3], 100, t0 + 300 * US + k * 8 * US,
                            6 * US))
            storm_ns += int(2400 * US * (1 - 1 / 300))
            # 4. .item() per step: waits, copies 4 bytes back; the GPU then idles until the next step.
            ev.append(X("cpu_op", "aten::item", 100, t0 + 2710 * US, 60 * US))
            ev.append(X("cpu_op", "aten::_local_scalar_dense", 100, t0 + 2711 * US, 58 * US))
            copy("cudaMemcpyAsync", t0 + 2712 * US, 50 * US, t0 + 2750 * US, 2 * US, 4, "DtoH", "Pageable")
            ev.append(X("cuda_runtime", "cudaStreamSynchronize", 100, t0 + 2762 * US, 6 * US))
            loop_copy_ns += 2 * US
            sync_copy_ns += 0  # cudaMemcpyAsync from pageable counts as sync too:
            sync_copy_ns += 50 * US
        else:
            # The next batch is prefetched on a side stream (pinned, async) while the gemms run.
            ev.append(X("cpu_op", "aten::linear", 100, t0 + 30 * US, 30 * US))
            for k in range(4):
                launch("gemm_kernel", t0 + 35 * US + k * 5 * US, 4 * US, t0 + 20 * US + k * 745 * US, 740 * US)
            copy("cudaMemcpyAsync", t0 + 60 * US, 8 * US, t0 + 100 * US, 100 * US, 1 << 20, "HtoD", "Pinned")
            ev[-1]["tid"] = 8
            ev[-1]["args"]["stream"] = 8
    if slow:
        # GPU idle after each .item(): from the DtoH copy's end to the next step's first GPU op.
        # The next op (the next step's input copy) starts at t0' + 25 us; .item() starts at t0 + 2710 us.
        # The GPU is idle from the second gemm's end (t0 + 1480 us) on; host-sync owns the idle from
        # the sync's start (2710 us) to the next GPU op (STEP + 25 us), less the 2 us copy.
        host_sync_ns = (STEPS - 1) * ((STEP + 25 * US) - 2710 * US - 2 * US) + (STEP - 10 * US - 2712 * US - 2 * US)
        planted = {
            "cpu-op-storm": {"impact_ns": storm_ns, "python": "inference.py(12): slow_activation"},
            "host-sync": {"impact_ns": host_sync_ns, "python": "inference.py(30): <module>", "op": "aten::item"},
            # One root cause per event: the blocking pageable input copies are memcpy-sync's
            # (priced with the pinned speed), so memcpy-pageable and memcpy-in-loop stay quiet.
            "memcpy-sync": {"impact_ns": sync_copy_ns, "op": "aten::to"},
        }
    return {"traceEvents": ev, "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "totalGlobalMem": 85e9}]}, planted


# The rpd v2 schema the .rpd writer compiles in.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "output", "rpd_v2_schema.sql")) as _f:
    RPD_SCHEMA = _f.read()


def rpd(path, slow):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript(RPD_SCHEMA)
    strings = {}

    def sid(s):
        if s not in strings:
            strings[s] = len(strings) + 1
            db.execute("INSERT INTO rocpd_string VALUES (?, ?)", (strings[s], s))
        return strings[s]

    sid("")
    db.execute("INSERT INTO rocpd_metadata VALUES (1, 'schema_version', '2')")
    ids = [0]
    planted = {}
    launch_idle = sync_calls = 0

    def api(name, start, dur):
        ids[0] += 1
        db.execute("INSERT INTO rocpd_api VALUES (?, 700, 700, ?, ?, ?, ?)", (ids[0], start, start + dur, sid(name), sid("")))
        return ids[0]

    def op(a, kind, desc, start, dur, size=None, queue=0):
        db.execute("INSERT INTO rocpd_op VALUES (?, 0, ?, 0, '', ?, ?, ?, ?)", (a, queue, start, start + dur, sid(desc), sid(kind)))
        db.execute("INSERT INTO rocpd_api_ops (api_id, op_id) VALUES (?, ?)", (a, a))
        if size is not None:
            db.execute("INSERT INTO rocpd_copyapi VALUES (?, '0x0', ?, '', '', 1, '0x1', '0x2', 0, 0, 1, 0)", (a, size))

    for s in range(STEPS):
        t0 = 1_000_000 + s * STEP
        db.execute("INSERT INTO rocpd_api VALUES (?, 700, 700, ?, ?, ?, ?)",
                   ((1 << 31) + s, t0, t0 + STEP - 10 * US, sid("UserMarker"), sid(f"step {s}")))
        if slow:
            a = api("hipMemcpy", t0 + 10 * US, 220 * US)
            op(a, "CopyHostToDevice", "", t0 + 20 * US, 200 * US, 1 << 20)
            sync_calls += 220 * US
            # 500 tiny kernels, each 2 us, launched every 5 us: the GPU waits 3 us per launch.
            for k in range(500):
                a = api("hipLaunchKernel", t0 + 240 * US + k * 5 * US, 4 * US)
                op(a, "KernelExecution", "elementwise_add", t0 + 243 * US + k * 5 * US, 2 * US)
            launch_idle += 499 * 3 * US
        else:
            # The next batch is prefetched on a second queue while the fused kernels run.
            a = api("hipMemcpyAsync", t0 + 10 * US, 8 * US)
            op(a, "CopyHostToDevice", "", t0 + 300 * US, 100 * US, 1 << 20, queue=1)
            for k in range(3):
                a = api("hipLaunchKernel", t0 + 5 * US + k * 3 * US, 2 * US)
                op(a, "KernelExecution", "fused_add", t0 + 15 * US + k * 995 * US, 993 * US)
    db.commit()
    db.close()
    if slow:
        planted = {"launch-bound": {"impact_ns": launch_idle, "kernel": "elementwise_add"},
                   "memcpy-sync": {"impact_ns": sync_calls}}
    return planted


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    planted = {}
    for name, slow in (("slow", True), ("healthy", False)):
        doc, p = kineto(slow)
        with open(os.path.join(out, f"{name}.json"), "w") as f:
            json.dump(doc, f)
        planted[f"{name}.json"] = p
        planted[f"{name}.rpd"] = rpd(os.path.join(out, f"{name}.rpd"), slow)
    for name, seed in (("noise_a", 1), ("noise_b", 2)):
        doc, _ = kineto(False, jitter_seed=seed)
        with open(os.path.join(out, f"{name}.json"), "w") as f:
            json.dump(doc, f)
    with open(os.path.join(out, "planted.json"), "w") as f:
        json.dump(planted, f, indent=1)


if __name__ == "__main__":
    main()
