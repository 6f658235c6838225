"""Plants a problem of known cost into a real Kineto trace by editing its times consistently, so
that the planted trace is the same program with one problem more and the problem's fix saves
exactly D (issue 29). Each planter returns None where the trace offers no place whose cost would
be exact (the caller skips that sample for that plant, saying so).

  slow_kernel  one kernel instance made D longer. Exact where the GPU stays busy from that
               kernel's end until a host synchronization returns (the work after it was queued,
               the host was waiting): GPU ops after its end and everything on the host after that
               synchronization move D later, the synchronization and the ranges open across it
               grow by D; host events between the kernel and the synchronization stay.
  device_copy  a device-side copy of D inserted on a kernel's stream right after it, where the
               slow_kernel plant would lengthen that kernel (the same edit of the times), launched
               from an op of its own (a movement op the trace does not use, so that its place is
               the plant's alone) by a launch call of 1 ns right after the kernel's own launch.
  fusion       a chain of three elementwise kernels (sub -> exp -> mul on one float tensor, times
               in proportion to their bytes, D in all) inserted where device_copy inserts its
               copy, each launched from its op; the fix (one kernel moving the chain's compulsory
               bytes at the chain's bandwidth) saves exactly D x (saved bytes / chain bytes).
  allocator    a device free (cudaFree / hipFree) of D where host_stall puts its op: the GPU is
               idle with nothing in flight, so the free's synchronization waits for nothing and
               its fix (served from the allocator's cache) saves exactly D.
  memory_growth  on a trace with PyTorch's GPU [memory] events: every steady step allocates G
               more that it never frees (a block of G at the first framework op of the step on
               its thread; every later event of that device counts it in its totals), so the
               allocated bytes grow by exactly G per step. Not priced (memory, not time): found
               where the blocks are allocated, with a growth within 20% of G.
  host_stall   a CPU op of D on the thread that launches GPU work, right before a launch call
               made while the GPU is idle with nothing launched in flight (it waited for the host
               anyway): everything after it moves D later, every range open across it grows by D.
  kernel_storm where host_stall stalls, an op launching N = D / 40 us tiny kernels one after
               another: each launch call 17 us, its 1 us kernel on the next kernel's stream 1 us
               after the call returns, 23 us of host work to the next call; everything after
               moves D later. The fix launch-bound prices (launch calls free, the kernels back to
               back) saves exactly the calls' time, 17/40 D: the host's 23 us per kernel stays,
               and the kernels, with any dispatch gap under 22 us, fit within it.
  item_sync    an .item() (aten::item > aten::_local_scalar_dense > a 4-byte device-to-host
               cudaMemcpyAsync and cudaStreamSynchronize) at a launch call of the launching thread
               made while the GPU has at least 0.5 ms (and 0.2% of the steady window) of work
               queued: the host waits until that
               work and the copy are done (q) and resumes; host events from there on and the GPU
               ops launched from there on move H = q + 3 us - p later (the GPU ops in flight
               stay). The fix host-sync prices (the calls no longer wait) saves H less the calls'
               own 7 us: the planted trace without them is the original trace.
  data_loading a DataLoader fetch (enumerate(DataLoader)#...__next__) of D where host_stall puts
               its op; the fix (workers prepare batches ahead) saves exactly D.
  python_loop  in every steady step, where host_stall would put its op in that step, a Python
               frame (infer.py(41): postprocess) calling N >= 60 tiny ops (aten::select / aten::gt,
               8 us each, one every 10 us): a per-element loop the GPU waits for. The fix
               cpu-op-storm prices (one vectorised op per call) saves each call's time less one
               op's. None unless every steady step has such a place.
  bare_loop    python_loop in a trace recorded without Python stacks: the ops alone, between the
               step's framework ops.
  one_time_pause  at the first place host_stall would take whose launch call is no graph's (a
               graph's kernels load when it is captured and instantiated), the launch call made
               D longer and its kernel renamed to one launched nowhere else: the first launch of
               a kernel, loading its module (a one-time cost, issue 50). host_stall's edit:
               everything from the call's start on moves D later, the call starts where it did
               and returns D later. The warm-up finding prices it (the call done before the
               window) at D plus the call's own time; the steady part, its verdict and GPU busy
               share stay as they were.
  blocking_copy  where item_sync waits, a synchronous 4-byte cudaMemcpy to the host (an op of its
               own) that waits the same way; the fix memcpy-sync prices (the host no longer waits)
               saves H less the call's return.
"""
import bisect
import collections
import gzip
import json
import math

# Event categories, lower case: today's Kineto and the capitalised ones of 2021 (Kernel, Runtime).
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset")
RUNTIME_CATS = ("cuda_runtime", "cuda_driver", "runtime", "driver")
# Longer than this between GPU ops is idle time, not the dispatch gap between queued work.
MAX_DISPATCH_GAP_US = 50


def load(src):
    with (gzip.open(src, "rt") if src.endswith(".gz") else open(src)) as f:
        doc = json.load(f)
    return doc, (doc["traceEvents"] if isinstance(doc, dict) else doc)


def save(doc, dst):
    # One string, one write: json.dump's chunked writes took 3x as long (1.3 s for the B200
    # trace), a third of the plants' run.
    with open(dst, "w") as f:
        f.write(json.dumps(doc))


def end(e):
    return float(e["ts"]) + float(e.get("dur", 0))


def is_x(e):
    return e.get("ph") == "X" and "ts" in e


def gpu_ops(events):
    return sorted((e for e in events if is_x(e) and str(e.get("cat", "")).lower() in GPU_CATS),
                  key=lambda e: float(e["ts"]))


def runtime_calls(events):
    return [e for e in events if is_x(e) and str(e.get("cat", "")).lower() in RUNTIME_CATS]


def waits_for_gpu(name):
    """A runtime call that returns when GPU work is done: a synchronize or a blocking copy."""
    return "Synchronize" in name or ("Memcpy" in name and "Async" not in name)


def gpu_span_us(src):
    """From the first GPU op's start to the last one's end."""
    ops = gpu_ops(load(src)[1])
    return end(ops[-1]) - float(ops[0]["ts"]) if ops else 0


def busy_stretches(ops):
    """The GPU's busy stretches, [start, end] each, ops merged and gaps up to MAX_DISPATCH_GAP_US
    bridged (queued work), in order."""
    out = []
    for e in ops:
        if out and float(e["ts"]) <= out[-1][1] + MAX_DISPATCH_GAP_US:
            out[-1][1] = max(out[-1][1], end(e))
        else:
            out.append([float(e["ts"]), end(e)])
    return out


def busy_until(stretches, t):
    """The end of the busy stretch holding t (t itself when none does)."""
    i = bisect.bisect_right([s[0] for s in stretches], t) - 1
    return max(t, stretches[i][1]) if i >= 0 else t


def _busy_kernel_before_sync(events, window, accept=lambda k: True):
    """A kernel past the middle of the trace (one whose name, grid and block occur at least 20
    times, and that `accept`s) followed by busy GPU until a host synchronization returns, and that
    synchronization; (None, None) when there is none."""
    ops = gpu_ops(events)
    kernels = [e for e in ops if str(e.get("cat", "")).lower() == "kernel"]

    def key(e):
        a = e.get("args", {})
        return e["name"], str(a.get("grid")), str(a.get("block"))

    count = collections.Counter(key(e) for e in kernels)
    syncs = sorted((e for e in runtime_calls(events) if waits_for_gpu(e["name"])), key=end)
    sync_ends = [end(x) for x in syncs]
    stretches = busy_stretches(ops)
    w0, w1 = window or (float("-inf"), float("inf"))
    for k in kernels[len(kernels) // 2:] + kernels[:len(kernels) // 2]:
        if count[key(k)] < 20 or not w0 <= float(k["ts"]) < w1 or not accept(k):
            continue
        k_end = end(k)
        reach = busy_until(stretches, k_end)
        # The first synchronization open at the kernel's end or started after it, that returned
        # within the GPU's busy stretch (+ its return latency): the host waited for this work.
        i = bisect.bisect_right(sync_ends, k_end)
        s = syncs[i] if i < len(sync_ends) else None
        if s is not None and float(s["ts"]) <= reach and reach <= end(s) <= reach + MAX_DISPATCH_GAP_US:
            return k, s
    return None, None


def _delay_after(events, chosen, sync, d_us):
    """GPU ops after the chosen kernel's end and host events after the synchronization's end move
    d_us later; the synchronization and the ranges open across it grow by d_us."""
    k_end, s_end = end(chosen), end(sync)
    gpu_pids = {e.get("pid") for e in gpu_ops(events)}  # Kineto puts a device's streams under its own pid
    for e in events:
        if e is chosen or "ts" not in e:
            continue
        ts = float(e["ts"])
        cut = k_end if e.get("pid") in gpu_pids else s_end  # where this side moves
        if ts >= cut:
            e["ts"] = ts + d_us
        elif is_x(e) and end(e) >= cut and (e is sync or end(e) > cut):
            e["dur"] = float(e["dur"]) + d_us  # the synchronization, the ranges around it


def slow_kernel(src, dst, d_us, window=None):
    """Writes the planted trace; returns the planted kernel's name, or None when no kernel past
    the middle of the trace (one whose name, grid and block occur at least 20 times: siblings to
    be compared with) is followed by busy GPU until a host synchronization returns. `window`:
    (start, end) in us, where the analysis looks (its steady state), else the whole trace."""
    doc, events = load(src)
    chosen, sync = _busy_kernel_before_sync(events, window)
    if chosen is None:
        return None
    _delay_after(events, chosen, sync, d_us)
    chosen["dur"] = float(chosen["dur"]) + d_us
    save(doc, dst)
    return chosen["name"]


# Movement ops for the device_copy plant's launching op, in the order tried.
COPY_OPS = ("aten::repeat", "aten::flatten", "aten::stack", "aten::clone", "aten::contiguous")
COPY_KERNEL = "void at::native::planted_direct_copy_kernel_cuda<float>(at::TensorIteratorBase&)"


def _ids_after(events, corr, k):
    """k correlation ids right after `corr` (the chosen kernel's launch), made free by numbering
    every later launch k higher - its call, its GPU op and their launch flow - so that planted
    launches are numbered in the order they are made, as a real trace numbers them; and k External
    ids past every one in the trace. Returns (correlation ids, External ids)."""
    for e in events:
        a = e.get("args")
        if isinstance(a, dict) and isinstance(a.get("correlation"), int) and a["correlation"] > corr:
            a["correlation"] += k
        flow = e.get("cat") == "ac2g" or (e.get("cat") == "async" and e.get("name") == "launch")
        if e.get("ph") in ("s", "f", "t") and flow and isinstance(e.get("id"), int) and e["id"] > corr:
            e["id"] += k
    ext = [e.get("args", {}).get(x) for e in events for x in ("External id", "external id")]
    fresh = max([i for i in ext if isinstance(i, int)] + [corr + k]) + 1
    return list(range(corr + 1, corr + k + 1)), list(range(fresh, fresh + k))


def device_copy(src, dst, d_us, window=None):
    """Writes the planted trace; returns the planted copy's op name, or None where slow_kernel
    would find no place among the kernels whose launch call is in the trace, or the trace uses
    every op of COPY_OPS."""
    doc, events = load(src)
    names = {e.get("name") for e in events if is_x(e)}
    op_name = next((n for n in COPY_OPS if n not in names), None)
    calls = {c.get("args", {}).get("correlation"): c for c in runtime_calls(events)}
    calls.pop(None, None)
    chosen, sync = _busy_kernel_before_sync(
        events, window, lambda k: k.get("args", {}).get("correlation") in calls)
    if chosen is None or op_name is None:
        return None
    launch = calls[chosen["args"]["correlation"]]
    _delay_after(events, chosen, sync, d_us)
    (cid,), (ext,) = _ids_after(events, chosen["args"]["correlation"], 1)
    at = end(launch)  # the op and its launch call: 3 ns and 1 ns right after the kernel's launch
    events.append({"ph": "X", "cat": "cpu_op", "name": op_name, "pid": launch["pid"], "tid": launch["tid"],
                   "ts": at, "dur": 0.003, "args": {"External id": ext}})
    events.append({"ph": "X", "cat": launch["cat"], "name": launch["name"], "pid": launch["pid"],
                   "tid": launch["tid"], "ts": at + 0.001, "dur": 0.001,
                   "args": {"correlation": cid, "External id": ext}})
    args = {k: v for k, v in chosen.get("args", {}).items() if k in ("device", "stream", "context", "queued")}
    args.update({"correlation": cid, "External id": ext})
    events.append({"ph": "X", "cat": chosen["cat"], "name": COPY_KERNEL, "pid": chosen["pid"],
                   "tid": chosen["tid"], "ts": end(chosen), "dur": float(d_us), "args": args})
    save(doc, dst)
    return op_name


# The fusion plant's chain: (op, tensor inputs); float tensors of one size, as the work model
# counts them: every input read, the output written once.
CHAIN = (("aten::sub", 2), ("aten::exp", 1), ("aten::mul", 2))
FUSION_BANDWIDTH = 1.5e12  # B/s: below every sample GPU's HBM peak, a plausible elementwise rate


def _room_finder(events):
    """room(launch) -> (start, step, q): where three ops with their launch calls fit after a launch
    call on its thread - before the next event there and inside every range open there (nested,
    not overlapping) - each `step` us apart (at most 1 us), in multiples of q, which a double holds
    exactly at this magnitude (2021 traces: integer us of ~1.6e15); None where they do not fit."""
    by_thread = collections.defaultdict(list)
    for e in events:
        if is_x(e):
            by_thread[(e.get("pid"), e.get("tid"))].append(e)
    for v in by_thread.values():
        v.sort(key=lambda e: float(e["ts"]))
    starts = {k: [float(e["ts"]) for e in v] for k, v in by_thread.items()}

    def room(launch):
        at = end(launch)
        key = (launch.get("pid"), launch.get("tid"))
        rows, ts = by_thread[key], starts[key]
        i = bisect.bisect_left(ts, at)
        bound = at + 4.0
        if i < len(rows):
            bound = min(bound, ts[i] if rows[i] is not launch else ts[i + 1] if i + 1 < len(rows) else bound)
        # Ranges open at `at`: those started before it (ranges on a thread nest, so a few dozen
        # back reach every enclosing one).
        for e in rows[max(0, i - 64):i]:
            if e is not launch and end(e) > at:
                bound = min(bound, end(e))
        q = 0.25 if at > 1e14 else 0.001
        step = min(1.0, math.floor((bound - at) / len(CHAIN) / q) * q)
        return (at, step, q) if step >= 3 * q else None
    return room


def fusion(src, dst, d_us, window=None):
    """Writes the planted trace; returns (the chain as analyze names it, the fix's saving in us),
    or None where device_copy would find no place with room for three ops after the launch."""
    doc, events = load(src)
    calls = {c.get("args", {}).get("correlation"): c for c in runtime_calls(events)}
    calls.pop(None, None)
    room = _room_finder(events)
    chosen, sync = _busy_kernel_before_sync(
        events, window, lambda k: k.get("args", {}).get("correlation") in calls
        and room(calls[k["args"]["correlation"]]) is not None)
    if chosen is None:
        return None
    launch = calls[chosen["args"]["correlation"]]
    at, step, q = room(launch)
    _delay_after(events, chosen, sync, d_us)
    n = int(FUSION_BANDWIDTH * d_us * 1e-6 / 4 / sum(k + 1 for _, k in CHAIN))  # elements
    byts = [4 * n * (k + 1) for _, k in CHAIN]
    cids, exts = _ids_after(events, chosen["args"]["correlation"], len(CHAIN))
    gpu_at = end(chosen)
    args = {k: v for k, v in chosen.get("args", {}).items() if k in ("device", "stream", "context", "queued")}
    for i, ((op, inputs), b) in enumerate(zip(CHAIN, byts)):
        cid, ext, t = cids[i], exts[i], at + step * i
        events.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": launch["pid"], "tid": launch["tid"],
                       "ts": t, "dur": step - q, "args": {"External id": ext, "Input Dims": [[n]] * inputs,
                                                           "Input type": ["float"] * inputs}})
        events.append({"ph": "X", "cat": launch["cat"], "name": launch["name"], "pid": launch["pid"],
                       "tid": launch["tid"], "ts": t + q, "dur": q,
                       "args": {"correlation": cid, "External id": ext}})
        dur = d_us * b / sum(byts)
        events.append({"ph": "X", "cat": chosen["cat"], "pid": chosen["pid"], "tid": chosen["tid"],
                       "name": f"void at::native::vectorized_elementwise_kernel<4, planted_{op[6:]}>(int)",
                       "ts": gpu_at, "dur": dur, "args": {**args, "correlation": cid, "External id": ext}})
        gpu_at += dur
    save(doc, dst)
    # The fused kernel reads the inputs and writes the result once: each intermediate result is
    # neither written nor read back.
    saved = 2 * 4 * n * (len(CHAIN) - 1)
    return " -> ".join(op[6:] for op, _ in CHAIN), d_us * saved / sum(byts)


def op_category(e):
    """Whether an event is a framework op: cpu_op, or Operator in the Kineto of 2021."""
    return str(e.get("cat", "")).lower() in ("cpu_op", "operator")


def _idle_launch(events, window, between_ops=False, kernel_launch=False):
    """(the launching thread, the start of one of its launch calls made while the GPU is idle
    with nothing launched in flight): from the middle of its launches on, then before, inside
    `window` ((start, end) in us: where the analysis looks) or, without one, inside a profiler
    step; None where there is none. `between_ops`: the start of the outermost framework op
    around the call instead (where the program's own code runs between ops), idle there too.
    `kernel_launch`: a call whose name is no graph launch's (a graph's kernels were loaded when it
    was captured and instantiated: its launch loads no module)."""
    ops = gpu_ops(events)
    calls = sorted(runtime_calls(events), key=lambda e: float(e["ts"]))
    launches = collections.Counter((e.get("pid"), e.get("tid")) for e in calls if "Launch" in e["name"])
    if not launches or not ops:
        return None
    thread = launches.most_common(1)[0][0]
    steps = [e for e in events if is_x(e) and str(e.get("name", "")).startswith("ProfilerStep#")]
    call_of = {c.get("args", {}).get("correlation"): c for c in calls if c.get("args", {}).get("correlation")}
    starts = [float(e["ts"]) for e in ops]
    # The thread's launches from the middle on, then those before.
    mine = [c for c in calls if (c.get("pid"), c.get("tid")) == thread and "Launch" in c["name"]]
    outer = sorted((float(e["ts"]), end(e)) for e in events if is_x(e) and op_category(e)
                   and (e.get("pid"), e.get("tid")) == thread)
    for c in mine[len(mine) // 2:] + mine[:len(mine) // 2]:
        if kernel_launch and "Graph" in c["name"]:
            continue
        p = float(c["ts"])
        if between_ops:  # the first-starting op that holds the call
            k = bisect.bisect_right(outer, (p, float("inf")))
            p = min((s for s, e in outer[max(0, k - 64):k] if e >= p), default=p)
        if window and not window[0] < p < window[1]:
            continue
        if not window and steps and not any(float(s["ts"]) < p < end(s) for s in steps):
            continue
        # Idle GPU: every op that started before p ended by then, and the next starts later.
        started = bisect.bisect_right(starts, p)
        if started == 0 or started == len(ops):
            continue
        if max(end(e) for e in ops[max(0, started - 200):started]) > p:
            continue
        # Nothing in flight: the ops starting next were launched at p or later (linked launches).
        after = [call_of.get(e.get("args", {}).get("correlation")) for e in ops[started:started + 64]]
        if after[0] is None or any(x is not None and float(x["ts"]) < p for x in after):
            continue
        return thread, p, c
    return None


def _stall_at(events, at, d_us):
    """Everything from `at` on moves d_us later; every range open across it grows by d_us."""
    for e in events:
        if "ts" not in e:
            continue
        ts = float(e["ts"])
        if ts >= at:
            e["ts"] = ts + d_us
        elif is_x(e) and end(e) > at:
            e["dur"] = float(e["dur"]) + d_us


def host_stall(src, dst, d_us, window=None, name="planted_host_stall"):
    """Writes the planted trace; returns (the stall's op name, its start) or None where
    _idle_launch finds no place."""
    doc, events = load(src)
    found = _idle_launch(events, window)
    if found is None:
        return None
    thread, at, _ = found
    _stall_at(events, at, d_us)
    events.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": thread[0], "tid": thread[1],
                   "ts": at, "dur": float(d_us), "args": {}})
    save(doc, dst)
    return name, at


LOADER_OP = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"


def data_loading(src, dst, d_us, window=None):
    """A batch fetched by the launching thread itself (DataLoader(num_workers=0)) where the GPU
    waits for its next launch: host_stall's place and cost under the loader's name. The fix
    (workers prepare batches ahead) saves exactly D. Returns (the loader's range name, its start)
    or None where _idle_launch finds no place."""
    return host_stall(src, dst, d_us, window, name=LOADER_OP)


LOOP_FRAME = "infer.py(41): postprocess"
LOOP_OP_US, LOOP_PERIOD_US, LOOP_MIN_OPS = 8, 10, 60


def python_loop(src, dst, d_us, window=None, frame=True):
    """Writes the planted trace; returns (the loop's frame, the fix's saving in us, the loops'
    (start, end) in us in the planted trace) or None without ProfilerStep steps in `window` each
    offering host_stall's place."""
    if window is None:
        return None
    doc, events = load(src)
    if not frame and any(e.get("cat") == "python_function" for e in events):
        return None  # a trace recorded with stacks records the loop's frame too
    steps = sorted((float(e["ts"]), end(e)) for e in events
                   if is_x(e) and str(e.get("name", "")).startswith("ProfilerStep#")
                   and window[0] <= float(e["ts"]) < window[1])
    places = []
    for s, e in steps:
        found = _idle_launch(events, (s, e), between_ops=True)
        if found is None:
            return None
        places.append(found[:2])
    if len(places) < 2:
        return None
    n = max(LOOP_MIN_OPS, round(d_us / len(places) / LOOP_PERIOD_US))
    span = n * LOOP_PERIOD_US
    ids = [int(e["args"]["Python id"]) for e in events
           if e.get("cat") == "python_function" and isinstance(e.get("args", {}).get("Python id"), int)]
    next_id = max(ids, default=0) + 1
    cat = next((e["cat"] for e in events if op_category(e)), "cpu_op")  # the trace's spelling
    # The latest place first: a stall moves what comes after it, the earlier places stay put.
    for thread, at in sorted(places, key=lambda p: -p[1]):
        _stall_at(events, at, span)
        if frame:
            events.append({"ph": "X", "cat": "python_function", "name": LOOP_FRAME,
                           "pid": thread[0], "tid": thread[1], "ts": at, "dur": float(span),
                           "args": {"Python id": next_id, "Python parent id": None}})
        next_id += 1
        for k in range(n):
            events.append({"ph": "X", "cat": cat, "name": "aten::gt" if k % 2 else "aten::select",
                           "pid": thread[0], "tid": thread[1], "ts": at + k * LOOP_PERIOD_US + 1,
                           "dur": float(LOOP_OP_US), "args": {}})
    save(doc, dst)
    # Each loop moved later by the loops planted before it.
    starts = sorted(at for _, at in places)
    loops = [(at + k * span, at + (k + 1) * span) for k, at in enumerate(starts)]
    return LOOP_FRAME, len(places) * (span - LOOP_OP_US), loops


def bare_loop(src, dst, d_us, window=None):
    """python_loop in a trace recorded without Python stacks: the loop's ops with no frame
    around them (None on a trace with stacks)."""
    return python_loop(src, dst, d_us, window, frame=False)


STORM_OP = "aten::planted_storm"
STORM_KERNEL = "void planted_tiny_kernel<float>(float*, int)"
STORM_PERIOD_US = 40  # a launch call of 17 us, 1 us to the kernel's start, its 1 us, 21 us to spare


def kernel_storm(src, dst, d_us, window=None):
    """Writes the planted trace; returns (the storm's op, its kernel, the fix's saving in us: its
    launch calls' time) or None where _idle_launch finds no place or its launch's kernel is not in
    the trace."""
    doc, events = load(src)
    found = _idle_launch(events, window)
    if found is None:
        return None
    thread, at, launch = found
    corr = launch.get("args", {}).get("correlation")
    k0 = next((e for e in gpu_ops(events) if e.get("args", {}).get("correlation") == corr
               and str(e.get("cat", "")).lower() == "kernel"), None)
    if not isinstance(corr, int) or k0 is None:
        return None
    n = max(50, round(d_us / STORM_PERIOD_US))
    added = n * STORM_PERIOD_US
    _stall_at(events, at, added)
    cids, exts = _ids_after(events, corr - 1, n)  # numbered before the launch that follows
    events.append({"ph": "X", "cat": "cpu_op", "name": STORM_OP, "pid": thread[0], "tid": thread[1],
                   "ts": at, "dur": added - 0.5, "args": {"External id": exts[0]}})
    stream = {k: v for k, v in k0.get("args", {}).items() if k in ("device", "stream", "context")}
    # Plain kernel launches, whatever launched the next kernel (a graph launch replays a graph).
    call = "hipLaunchKernel" if launch["name"].startswith("hip") else "cudaLaunchKernel"
    for i in range(n):
        t = at + i * STORM_PERIOD_US
        events.append({"ph": "X", "cat": launch["cat"], "name": call, "pid": thread[0],
                       "tid": thread[1], "ts": t, "dur": 17.0,
                       "args": {"correlation": cids[i], "External id": exts[0]}})
        events.append({"ph": "X", "cat": k0["cat"], "name": STORM_KERNEL, "pid": k0["pid"], "tid": k0["tid"],
                       "ts": t + 18.0, "dur": 1.0,
                       "args": dict(stream, correlation=cids[i], **{"External id": exts[0]})})
    save(doc, dst)
    return STORM_OP, STORM_KERNEL, n * 17.0


def _drain_at(events, window):
    """At a launch call of the launching thread made while the GPU has at least 0.5 ms (and 0.2%
    of the window) of work queued (every GPU op after it linked to its launch call), makes room for a call that waits
    until that work and a 1 us copy after it are done: host events from there on and the GPU ops
    launched from there on move H later, the GPU ops in flight stay. Returns (the launch call,
    its start p, the end of the queued work q, H, a GPU op in flight, a fresh correlation id and
    External id) or None."""
    ops = gpu_ops(events)
    calls = sorted(runtime_calls(events), key=lambda e: float(e["ts"]))
    launch_of = {c.get("args", {}).get("correlation"): c for c in calls if c.get("args", {}).get("correlation")}
    launches = collections.Counter((e.get("pid"), e.get("tid")) for e in calls if "Launch" in e["name"])
    if not launches or not ops:
        return None
    thread = launches.most_common(1)[0][0]
    mine = [c for c in calls if (c.get("pid"), c.get("tid")) == thread and "LaunchKernel" in c["name"]]
    # A wait worth reporting: 0.5 ms, and twice analyze's threshold (0.1% of the window).
    least = max(500.0, 0.002 * (window[1] - window[0])) if window else 500.0
    issued = [(float(launch_of[e["args"]["correlation"]]["ts"]) if e.get("args", {}).get("correlation") in launch_of
               else None, e) for e in ops]
    for c in mine[len(mine) // 2:] + mine[:len(mine) // 2]:
        p = float(c["ts"])
        if window and not window[0] < p < window[1]:
            continue
        # Queued at p: the GPU ops launched before p, still running or waiting at p.
        q = max((end(e) for at, e in issued if at is not None and at < p), default=p)
        if q - p < least or any(at is None and float(e["ts"]) >= p for at, e in issued):
            continue
        h = q + 3.0 - p  # the copy [q + 0.5, q + 1.5], the wait returns 1.5 us later
        gpu = {id(e) for e in ops}
        stay = {id(e) for at, e in issued if at is not None and at < p}
        in_flight = {e["args"]["correlation"] for at, e in issued if at is not None and at < p}
        for e in events:
            if "ts" not in e or id(e) in stay:
                continue
            if e.get("ph") in ("s", "f", "t") and e.get("id") in in_flight:
                continue  # the launch flow of work in flight stays with it
            ts = float(e["ts"])
            if ts >= p:
                e["ts"] = ts + h
            elif id(e) not in gpu and is_x(e) and end(e) > p:
                e["dur"] = float(e["dur"]) + h
        k0 = next(e for at, e in issued if at is not None and at < p)
        (cid,), (ext,) = _ids_after(events, c["args"]["correlation"] - 1, 1)
        return c, p, q, h, k0, cid, ext
    return None


def _add(events, name, cat, at, dur, where, args):
    events.append({"ph": "X", "cat": cat, "name": name, "pid": where["pid"], "tid": where["tid"],
                   "ts": at, "dur": dur, "args": args})


def _dtoh_copy(events, k0, q, cid, ext):
    """The 4-byte device-to-host copy a drain waits for, on the stream of the work in flight."""
    stream = {k: v for k, v in k0.get("args", {}).items() if k in ("device", "stream", "context")}
    _add(events, "Memcpy DtoH (Device -> Pinned)", "gpu_memcpy", q + 0.5, 1.0, k0,
         dict(stream, correlation=cid, bytes=4, **{"External id": ext}))


def item_sync(src, dst, d_us, window=None):
    """Writes the planted trace; returns ("aten::item", its start, the fix's saving in us) or None
    where _drain_at finds no place. d_us is not used: the queue at the place sets the cost."""
    doc, events = load(src)
    found = _drain_at(events, window)
    if found is None:
        return None
    c, p, q, h, k0, cid, ext = found
    hip = c["name"].startswith("hip")
    ids = {"External id": ext}
    _add(events, "aten::item", "cpu_op", p, h - 0.2, c, ids)
    _add(events, "aten::_local_scalar_dense", "cpu_op", p + 0.1, h - 0.4, c, ids)
    _add(events, "hipMemcpyAsync" if hip else "cudaMemcpyAsync", c["cat"], p + 0.2, 5.0, c,
         dict(ids, correlation=cid))
    _add(events, "hipStreamSynchronize" if hip else "cudaStreamSynchronize", c["cat"], p + 5.5,
         h - 6.0, c, ids)
    _dtoh_copy(events, k0, q, cid, ext)
    save(doc, dst)
    return "aten::item", p, h - 7.0


def blocking_copy(src, dst, d_us, window=None):
    """Writes the planted trace; returns (the copy's op, the copy's start on the GPU, the fix's
    saving in us) or None where _drain_at finds no place: a tensor moved to the host with
    .to("cpu") whose synchronous cudaMemcpy waits for the queued work."""
    doc, events = load(src)
    found = _drain_at(events, window)
    if found is None:
        return None
    c, p, q, h, k0, cid, ext = found
    ids = {"External id": ext}
    _add(events, BLOCKING_COPY_OP, "cpu_op", p, h - 0.2, c, ids)
    _add(events, "hipMemcpy" if c["name"].startswith("hip") else "cudaMemcpy", c["cat"], p + 0.2,
         h - 0.4, c, dict(ids, correlation=cid))
    _dtoh_copy(events, k0, q, cid, ext)
    save(doc, dst)
    return BLOCKING_COPY_OP, q + 0.5, h - 0.4


BLOCKING_COPY_OP = "aten::planted_to_host"


def allocator(src, dst, d_us, window=None):
    """A device free (cudaFree, hipFree on a ROCm trace) of D where host_stall stalls: the GPU is
    idle with nothing in flight, so the free's device-wide synchronization waits for nothing and
    the run is D longer. Returns (the call's name, its start), or None without a steady window
    (the allocator rule looks at steady steps only) or a place."""
    if window is None:
        return None
    doc, events = load(src)
    found = _idle_launch(events, window)
    if found is None:
        return None
    thread, at, launch = found
    name = "hipFree" if launch["name"].startswith("hip") else "cudaFree"
    _stall_at(events, at, d_us)
    events.append({"ph": "X", "cat": launch["cat"], "name": name, "pid": thread[0], "tid": thread[1],
                   "ts": at, "dur": float(d_us), "args": {}})
    save(doc, dst)
    return name, at


def _deepest_op(ops, t):
    """The framework op that holds time t deepest: of the ops whose [start, end] holds it, the
    one that starts last (ops on a thread nest)."""
    best = None
    for o in ops:
        if float(o["ts"]) <= t <= end(o) and (best is None or float(o["ts"]) >= float(best["ts"])):
            best = o
    return best


def memory_growth(src, dst, g_bytes, window=None):
    """Writes the planted trace; returns (the op that holds the planted blocks, G) or None
    without GPU [memory] events or three steady steps."""
    doc, events = load(src)
    mem = [e for e in events if e.get("name") == "[memory]"
           and int(e.get("args", {}).get("Device Type", 0)) > 0]
    steps = sorted((e for e in events if is_x(e) and str(e.get("name", "")).startswith("ProfilerStep#")
                    and (window is None or window[0] <= float(e["ts"]) < window[1])),
                   key=lambda e: float(e["ts"]))
    if not mem or len(steps) < 3:
        return None
    device = collections.Counter(int(e["args"]["Device Id"]) for e in mem).most_common(1)[0][0]
    op_cats = ("cpu_op", "operator")
    where = None
    plants = []  # (time, pid, tid)
    for s in steps:
        thread = (s.get("pid"), s.get("tid"))
        ops = [e for e in events if is_x(e) and str(e.get("cat", "")).lower() in op_cats
               and (e.get("pid"), e.get("tid")) == thread and not e["name"].startswith("ProfilerStep#")
               and float(s["ts"]) <= float(e["ts"]) and end(e) <= end(s)]
        if not ops:
            return None
        first = min(ops, key=lambda e: float(e["ts"]))
        q = 0.25 if float(first["ts"]) > 1e14 else 0.001  # what a double holds at this magnitude
        t = float(first["ts"]) + q
        if end(first) < t:
            return None
        held = _deepest_op(ops, t)
        if where is None:
            where = held["name"]
        elif held["name"] != where:
            return None  # the steps differ: no one place to expect
        plants.append((t, thread))
    # Consistent totals: every later event of the device counts the planted blocks.
    for e in mem:
        if int(e["args"]["Device Id"]) != device:
            continue
        before = sum(1 for t, _ in plants if t < float(e["ts"]))
        for k in ("Total Allocated", "Total Reserved"):
            if k in e["args"]:
                e["args"][k] = int(e["args"][k]) + before * g_bytes
    totals = any("Total Allocated" in e["args"] for e in mem)
    for i, (t, (pid, tid)) in enumerate(plants):
        args = {"Device Type": 1, "Device Id": device, "Addr": 0x7f5000000000 + i * 0x10000000,
                "Bytes": g_bytes}
        if totals:
            prior = [e for e in mem if int(e["args"]["Device Id"]) == device and float(e["ts"]) < t]
            last = max(prior, key=lambda e: float(e["ts"])) if prior else None
            base = int(last["args"].get("Total Allocated", 0)) if last else 0
            args["Total Allocated"] = base + g_bytes  # (last's total already counts earlier plants)
            if last and "Total Reserved" in last["args"]:
                args["Total Reserved"] = max(int(last["args"]["Total Reserved"]), args["Total Allocated"])
        events.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": pid,
                       "tid": tid, "ts": t, "args": args})
    save(doc, dst)
    return where, g_bytes


PLANTED_KERNEL = "planted_module_loading_kernel"


def one_time_pause(src, dst, d_us, window=None):
    """Writes the planted trace; returns (the kernel's name, the call's start, the call's new
    duration) or None where _idle_launch finds no place."""
    doc, events = load(src)
    found = _idle_launch(events, window, kernel_launch=True)
    if found is None:
        return None
    _, at, call = found
    corr = call.get("args", {}).get("correlation")
    kernels = [e for e in gpu_ops(events) if corr is not None
               and e.get("args", {}).get("correlation") == corr and str(e.get("cat", "")).lower() == "kernel"]
    if not kernels:
        return None
    # host_stall's edit, the stall inside the call: it starts where it did and returns D later.
    _stall_at(events, at, d_us)
    call["ts"], call["dur"] = at, float(call["dur"]) + d_us
    for k in kernels:
        k["name"] = PLANTED_KERNEL
    save(doc, dst)
    return PLANTED_KERNEL, at, float(call["dur"])
