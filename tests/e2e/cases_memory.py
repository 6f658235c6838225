"""End-to-end: gpuscope memory on a hand-made trace whose answer is known exactly (PyTorch's
[memory] events), its three outputs, its round trip through convert, and a trace without them."""
import csv
import io
import json
import os
import tempfile

from harness import run, test

MB = 1 << 20


def leaky_trace(path):
    """Five ProfilerSteps of 1 ms: each allocates 1 MB in aten::empty that it never frees and 4 MB
    in aten::mul freed before its end; 100 MB were allocated before the trace; GPU 0."""
    ev, allocated = [], 100 * MB

    def mem(ts, nbytes, addr):
        nonlocal allocated
        allocated += nbytes
        ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1,
                   "ts": ts, "args": {"Device Type": 1, "Device Id": 0, "Addr": addr, "Bytes": nbytes,
                                      "Total Allocated": allocated, "Total Reserved": 256 * MB}})
    for s in range(5):
        t0 = 1000 + 1000 * s
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{s}", "pid": 1, "tid": 1,
                   "ts": t0, "dur": 1000})
        ev.append({"ph": "X", "cat": "python_function", "name": "model.py(5): forward", "pid": 1, "tid": 1,
                   "ts": t0 + 5, "dur": 900, "args": {"Python id": 10 + s, "Python parent id": 1}})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": t0 + 10, "dur": 5})
        mem(t0 + 12, MB, 1000 + s)
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": t0 + 20, "dur": 5})
        mem(t0 + 22, 4 * MB, 77)
        mem(t0 + 500, -4 * MB, 77)
        # Host memory (Device Type 0) is not the GPU's timeline.
        ev.append({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": t0 + 30,
                   "args": {"Device Type": 0, "Device Id": -1, "Bytes": 64}})
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)


@test
def memory_finds_the_peak_its_holders_and_a_leak():
    with tempfile.TemporaryDirectory() as tmp:
        t = os.path.join(tmp, "leaky.json")
        leaky_trace(t)
        r = run("memory", "--format", "json", t)
        assert r.returncode == 0, r.stderr
        d = json.loads(r.stdout)["devices"]
        assert len(d) == 1, d
        g = d[0]
        assert (g["device"], g["events"], g["allocations"], g["frees"]) == (0, 15, 10, 5), g
        assert g["peak_allocated_bytes"] == 109 * MB and g["peak_reserved_bytes"] == 256 * MB, g
        assert g["final_allocated_bytes"] == 105 * MB and g["growth_per_step_bytes"] == MB, g
        assert [(h["op"], h["bytes"]) for h in g["holders"]] == [
            ("(allocated before the trace)", 100 * MB), ("aten::empty", 5 * MB), ("aten::mul", 4 * MB)], g["holders"]
        assert g["holders"][1]["python"] == "model.py(5): forward", g["holders"]
        assert [s["allocated_bytes"] for s in g["steps"]][-1] == 105 * MB, g["steps"]
        text = run("memory", t, env={"COLUMNS": "100"}).stdout
        assert "Peak allocated     114.3 MB" in text and "Grows              1.0 MB per steady step" in text, text
        assert all(len(x) <= 100 for x in text.splitlines()), text
        rows = list(csv.DictReader(io.StringIO(run("memory", "--format", "csv", t).stdout)))
        assert [x["op"] for x in rows] == ["(allocated before the trace)", "aten::empty", "aten::mul"], rows
        # The events survive a round trip through gpuscope's JSON.
        back = os.path.join(tmp, "back.json")
        assert run("convert", t, "-o", back).returncode == 0
        again = json.loads(run("memory", "--format", "json", back).stdout)["devices"]
        assert again[0]["peak_allocated_bytes"] == g["peak_allocated_bytes"] and again[0]["holders"] == g["holders"], again
        assert [(h["op"], h["blocks"]) for h in g["kept"]] == [("aten::empty", len(g["steps"]))], g["kept"]
        # analyze names the growth and where the kept blocks come from (not priced: memory).
        a = json.loads(run("analyze", "--format", "json", t).stdout)
        grow = [f for f in a["findings"] if f["rule"] == "memory-growth"]
        assert len(grow) == 1 and grow[0]["where"]["op"] == "aten::empty", a["findings"]
        assert grow[0]["impact_ns"] == 0 and "grows 1.0 MB per steady step" in grow[0]["detail"], grow
        info = json.loads(run("info", "--format", "json", t).stdout)
        assert "GPU memory events" in json.dumps(info), info


@test
def memory_growth_stays_quiet_when_steps_give_back_what_they_take():
    with tempfile.TemporaryDirectory() as tmp:
        t = os.path.join(tmp, "steady.json")
        ev = []
        for s in range(5):
            t0 = 1000 + 1000 * s
            ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{s}", "pid": 1, "tid": 1,
                       "ts": t0, "dur": 1000})
            for ts, nbytes, total in ((t0 + 10, 8 * MB, 8 * MB), (t0 + 600, -8 * MB, 0)):
                ev.append({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": ts,
                           "args": {"Device Type": 1, "Device Id": 0, "Addr": 55, "Bytes": nbytes,
                                    "Total Allocated": total}})
        with open(t, "w") as f:
            json.dump({"traceEvents": ev}, f)
        a = json.loads(run("analyze", "--format", "json", t).stdout)
        assert not [f for f in a["findings"] if f["rule"] == "memory-growth"], a["findings"]
        g = json.loads(run("memory", "--format", "json", t).stdout)["devices"][0]
        assert g["growth_per_step_bytes"] == 0 and g["kept"] == [], g


@test
def memory_without_allocator_events_says_how_to_record_them():
    with tempfile.TemporaryDirectory() as tmp:
        t = os.path.join(tmp, "none.json")
        with open(t, "w") as f:
            json.dump({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1,
                                        "ts": 1, "dur": 5}]}, f)
        r = run("memory", t)
        assert r.returncode == 0 and "profile_memory=True" in r.stdout, (r.returncode, r.stdout, r.stderr)
        assert json.loads(run("memory", "--format", "json", t).stdout)["devices"] == []


@test
def stats_by_memory_tells_what_each_op_allocated_and_kept():
    with tempfile.TemporaryDirectory() as tmp:
        t = os.path.join(tmp, "leaky.json")
        leaky_trace(t)
        r = run("stats", "--by", "memory", "--format", "json", t)
        assert r.returncode == 0, r.stderr
        rows = {x["op"]: x for x in json.loads(r.stdout)["memory"]}
        # By bytes allocated; the frees (at t0 + 500 us) happen in the frame, outside any op.
        assert list(rows) == ["aten::mul", "aten::empty", "(outside any op)"], rows
        mul, empty = rows["aten::mul"], rows["aten::empty"]
        assert (mul["allocations"], mul["allocated_bytes"], mul["frees"], mul["alive_bytes"]) == (5, 20 * MB, 0, 0), mul
        assert (empty["allocations"], empty["allocated_bytes"], empty["alive_bytes"]) == (5, 5 * MB, 5 * MB), empty
        assert mul["python"] == "model.py(5): forward", mul
        assert rows["(outside any op)"]["freed_bytes"] == 20 * MB, rows
        text = run("stats", t, env={"COLUMNS": "100"}).stdout
        assert "GPU memory allocated and freed, by op" in text and all(len(x) <= 100 for x in text.splitlines()), text
        csv_rows = list(csv.DictReader(io.StringIO(run("stats", "--by", "memory", "--format", "csv", t).stdout)))
        assert csv_rows[0]["op"] == "aten::mul" and csv_rows[0]["allocated_bytes"] == str(20 * MB), csv_rows


@test
def rocprofv3_allocation_records_are_the_gpu_memory_timeline():
    from harness import data
    for gen in "ABC":
        t = data(f"rocprofv3_csv_{gen}/300_kernel_trace.csv")
        g = json.loads(run("memory", "--format", "json", t).stdout)["devices"]
        # 4 kB on GPU 2 freed after the kernels; the host's 64 B are not the GPU's.
        assert [(d["device"], d["events"], d["peak_allocated_bytes"], d["final_allocated_bytes"]) for d in g] == [
            (2, 2, 4096, 0)], (gen, g)
        rows = json.loads(run("stats", "--by", "memory", "--format", "json", t).stdout)["memory"]
        assert sum(x["allocated_bytes"] for x in rows) == 4096 and sum(x["freed_bytes"] for x in rows) == 4096, rows
        info = run("info", t).stdout
        assert "host memory allocations (not device memory)" in info, info
