#!/usr/bin/env python3
"""A small discrete-event simulator of an N-rank tensor-parallel job: per rank one host thread
issuing work to one GPU stream, the ranks coupled by all-reduces; each rank written as its own
Kineto trace (rank-R.json, with distributedInfo). It knows nothing of gpuscope's analysis: the
truths are the simulation's own times, and a fix's saving is the measured difference between the
job's wall time with the problem and without it.

  ranks.py OUT_DIR N CASE [SEED]   writes OUT_DIR/rank-*.json and OUT_DIR/truth.json

CASE: problems joined by "+": straggler_gpu | straggler_host | skew, and the layout of the
all-reduces: exposed (the default: on the compute stream, the TP default) or overlapped (on a side
stream, the step's compute not waiting for them; only the step's end does); "seq": the ops
record sequence numbers (without it gpuscope must match by order).

Model: a step is LAYERS layers; a layer is GEMMS gemm kernels then an all-reduce. A launch call
takes LAUNCH_COST on the host and its kernel starts at max(stream free, call + LATENCY). An
all-reduce kernel starts on each rank when its stream reaches it (the rank's arrival) and ends on
every rank at the last arrival + the transfer time (+ up to END_JITTER). The host synchronizes at
the end of each step. Each rank's clock is shifted by a planted offset.
  straggler_gpu:  the straggler's gemms take SLOW x longer.
  straggler_host: the straggler's host runs a "preprocess" op of HOST_STALL before each step.
  skew:           every rank's gemms vary by up to +-SKEW (no rank is consistently last).
Truth: offsets (ns, rank R's clock minus rank 0's), wait and transfer summed over ranks and
instances, the straggler, the job's wall time, and per planted problem (by the rule that should
find it) the measured saving of fixing it alone: the wall time of the job run again without it
(comm-exposed: the all-reduces' transfers moved beside compute, the compute after each still
starting no earlier than the ranks' last arrival) subtracted from the wall time with it.
"""
import json
import os
import random
import sys

US = 1000
LAUNCH_COST = 5 * US
LATENCY = 6 * US
SYNC_RETURN = 4 * US
STEPS = 6
LAYERS = 4
GEMMS = 3
GEMM_NS = 150 * US
TRANSFER_NS = 60 * US
END_JITTER = 200  # ns
SLOW = 1.6
HOST_STALL = 900 * US
SKEW = 0.25
NELEMS = 8 * 1024 * 1024  # bf16 elements per all-reduce
BASE_NS = 10_000_000_000


class Rank:
    def __init__(self, r, n, offset):
        self.r, self.n, self.offset = r, n, offset
        self.t = 0
        self.gpu_free = 0
        self.side_free = 0
        self.corr = 0
        self.ev = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": f"rank{r}"}}]

    def x(self, cat, name, tid, start, dur, **args):
        # Kineto writes microseconds with 3 decimals: keep whole nanoseconds exact.
        ts = start + BASE_NS + self.offset
        e = {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid,
             "ts": float(f"{ts // 1000}.{ts % 1000:03d}"), "dur": float(f"{dur // 1000}.{dur % 1000:03d}")}
        if args:
            e["args"] = args
        self.ev.append(e)

    def launch(self, kernel, dur, stream=7):
        self.corr += 1
        s = self.t
        free = self.gpu_free if stream == 7 else self.side_free
        start = max(free, s + LATENCY)
        self.x("cuda_runtime", "cudaLaunchKernel", 1, s, LAUNCH_COST, correlation=self.corr)
        self.t = s + LAUNCH_COST
        return self.corr, start

    def kernel(self, name, corr, start, dur, stream=7):
        self.x("kernel", name, stream, start, dur, correlation=corr, device=0, stream=stream)


def simulate(n, case, seed, fix=None):
    """`fix`: the problem left out of this run (a rule id), None for the run as planted."""
    problems = set(case.split("+"))
    rnd = random.Random(seed)
    offsets = [0] + [rnd.randrange(-2_000_000_000, 2_000_000_000) for _ in range(n - 1)]
    ranks = [Rank(r, n, offsets[r]) for r in range(n)]
    slow_gpu = "straggler_gpu" in problems and fix != "rank-straggler"
    slow_host = "straggler_host" in problems and fix != "rank-straggler"
    straggler = n // 2 if slow_gpu or slow_host else None
    skew = "skew" in problems and fix != "collective-skew"
    seq = "seq" in problems
    side = 13 if "overlapped" in problems or fix == "comm-exposed" else 7
    wait = transfer = 0
    instance = 0
    jitter = random.Random(seed + 1)
    for step in range(STEPS):
        step_start = [rk.t for rk in ranks]
        for rk in ranks:
            s = rk.t
            stall = HOST_STALL if rk.r == straggler and slow_host else 50 * US
            rk.t += stall
            rk.x("cpu_op", "preprocess", 1, s, stall)
        for layer in range(LAYERS):
            arrivals, launches = [], []
            for rk in ranks:
                ls = rk.t
                for g in range(GEMMS):
                    dur = GEMM_NS
                    if rk.r == straggler and slow_gpu:
                        dur = int(GEMM_NS * SLOW)
                    if skew:
                        dur = int(dur * (1 + rnd.uniform(-SKEW, SKEW)))
                    ops = rk.t
                    corr, start = rk.launch("sm90_xmma_gemm_bf16bf16_bf16f32", dur)
                    rk.kernel("sm90_xmma_gemm_bf16bf16_bf16f32", corr, start, dur)
                    rk.gpu_free = start + dur
                    rk.x("cpu_op", "aten::mm", 1, ops, rk.t - ops)
                cs = rk.t
                stream = side
                corr, _ = rk.launch("ncclDevKernel_Generic", 0, stream)
                ready = rk.gpu_free if stream == 7 else max(rk.side_free, rk.gpu_free)
                arrival = max(ready, cs + LATENCY)
                args = {"Collective name": "allreduce", "dtype": "BFloat16", "In msg nelems": NELEMS,
                        "Out msg nelems": NELEMS, "Group size": n, "Process Group Name": "0",
                        "Process Group Description": "default_pg", "Process Group Ranks": str(list(range(n)))}
                if seq:
                    args["Seq"] = instance
                rk.x("cpu_op", "record_param_comms", 1, cs, rk.t - cs, **args)
                rk.x("cpu_op", "aten::linear", 1, ls, rk.t - ls)
                arrivals.append(arrival)
                launches.append(corr)
            last = max(arrivals)
            end = last + TRANSFER_NS
            for rk, a, corr in zip(ranks, arrivals, launches):
                e = end + jitter.randrange(0, END_JITTER + 1)
                rk.kernel("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", corr, a, e - a, side)
                wait += last - a
                transfer += e - last
                if side == 7:
                    rk.gpu_free = e
                else:
                    rk.side_free = e
                    if fix == "comm-exposed":
                        # Overlap hides the transfer; the compute after it still needs the
                        # ranks to have met (their last arrival), as the collective's result does.
                        rk.gpu_free = max(rk.gpu_free, last)
            instance += 1
        for rk, s0 in zip(ranks, step_start):
            s = rk.t
            end = max(s + 2 * US, max(rk.gpu_free, rk.side_free) + SYNC_RETURN)
            rk.x("cuda_runtime", "cudaDeviceSynchronize", 1, s, end - s, correlation=0)
            rk.t = end
            rk.x("user_annotation", f"ProfilerStep#{step}", 1, s0, rk.t - s0)
    first = min(min(e["ts"] * 1000 - BASE_NS - rk.offset for e in rk.ev if e.get("cat") == "kernel") for rk in ranks)
    last = max(max((e["ts"] + e["dur"]) * 1000 - BASE_NS - rk.offset for e in rk.ev if e.get("cat") == "kernel")
               for rk in ranks)
    return ranks, {"offsets_ns": [o - offsets[0] for o in offsets], "wait_ns": wait, "transfer_ns": transfer,
                   "wall_ns": round(last - first), "straggler": straggler}


def main():
    out, n, case = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 7
    os.makedirs(out, exist_ok=True)
    ranks, truth = simulate(n, case, seed)
    problems = set(case.split("+"))
    planted = [rule for rule, on in (("rank-straggler", problems & {"straggler_gpu", "straggler_host"}),
                                     ("collective-skew", "skew" in problems),
                                     ("comm-exposed", "overlapped" not in problems)) if on]
    truth["saving_ns"] = {rule: truth["wall_ns"] - simulate(n, case, seed, fix=rule)[1]["wall_ns"] for rule in planted}
    truth["cause"] = "sm90_xmma_gemm" if "straggler_gpu" in problems else "preprocess" if "straggler_host" in problems else None
    for rk in ranks:
        doc = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rk.r, "world_size": n},
               "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85017690112,
                                     "numSms": 132}],
               "traceEvents": rk.ev, "displayTimeUnit": "ns"}
        with open(os.path.join(out, f"rank-{rk.r}.json"), "w") as f:
            json.dump(doc, f)
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)


if __name__ == "__main__":
    main()
