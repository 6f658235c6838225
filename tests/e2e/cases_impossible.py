"""Impossible data is named, never analysed in silence: problems planted into a real trace (every
kernel twice, times in seconds, durations zero, the clock jumping back, a step holding the
others, correlation ids rotated, kernels run inside each other) and into planted jobs (a rank
copied, a world size the files contradict, a truncated rank). Each must appear in `info`, in the
one-line stderr summary and as an `analyze` health note; the untouched trace must stay clean."""
import copy
import gzip
import json
import os
import subprocess
import sys
import tempfile

from harness import DATA, SAMPLES, Skip, run, test

BERT = os.path.join(SAMPLES, "kineto", "tracelens",
                    "tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz")
RANKS = os.path.join(os.path.dirname(DATA), "planted", "ranks.py")


def plants(tmp):
    """Writes tmp/<case>.json for every planted case; returns {case: path}."""
    if not os.path.exists(BERT):
        raise Skip("needs ../shared/samples (the H100 BERT trace)")
    with gzip.open(BERT, "rt") as f:
        base = json.load(f)
    evs = base["traceEvents"]
    out = {}

    def save(name, events):
        d = dict(base, traceEvents=events)
        out[name] = os.path.join(tmp, name + ".json")
        with open(out[name], "w") as f:
            json.dump(d, f)

    def scaled(k):
        return [dict(e, **{x: float(e[x]) * k for x in ("ts", "dur") if x in e}) for e in evs]

    save("orig", evs)
    save("dup", evs + [copy.deepcopy(e) for e in evs if e.get("cat") == "kernel"])
    save("seconds", scaled(1e-6))
    save("nanos", scaled(1e3))
    save("zero", [dict(e, dur=0) if "dur" in e else e for e in evs])
    starts = sorted(float(e["ts"]) for e in evs if e.get("ph") == "X")
    mid = starts[len(starts) // 2]
    save("clockback", [dict(e, ts=float(e["ts"]) - 10e6) if "ts" in e and float(e["ts"]) > mid else e
                       for e in evs])
    steps = [e for e in evs if str(e.get("name", "")).startswith("ProfilerStep#")]
    s0 = min(float(e["ts"]) for e in steps)
    s1 = max(float(e["ts"]) + float(e["dur"]) for e in steps)
    save("nested", evs + [dict(steps[0], name="ProfilerStep#999", ts=s0 - 1, dur=s1 - s0 + 2)])
    kernels = [e for e in evs if e.get("cat") == "kernel"]
    corr = [e["args"]["correlation"] for e in kernels]
    rotated = dict(zip(map(id, kernels), corr[1:] + corr[:1]))
    save("rotated", [dict(e, args=dict(e["args"], correlation=rotated[id(e)])) if id(e) in rotated else e
                     for e in evs])
    # Every other kernel stretched over the next one on its stream.
    stretched = {id(e) for e in kernels[::2]}
    save("inside", [dict(e, dur=float(e["dur"]) + 4 * 1000) if id(e) in stretched else e for e in evs])
    return out


def problems(path, *extra):
    r = run("info", "--format", "json", *extra, path)
    assert r.returncode == 0, r.stderr
    return {p["kind"]: p for p in json.loads(r.stdout)["problems"]}, r.stderr


@test
def impossible_data_planted_into_a_real_trace_is_named_in_info_stderr_and_analyze():
    expect = {"dup": "impossible.duplicate_events", "seconds": "impossible.time_unit",
              "nanos": "impossible.time_unit", "zero": "impossible.zero_durations",
              "clockback": "impossible.clock_backwards", "nested": "impossible.nested_steps",
              "rotated": "impossible.launch_order"}
    with tempfile.TemporaryDirectory() as tmp:
        cases = plants(tmp)
        found, _ = problems(cases["orig"])
        assert not [k for k in found if k.startswith("impossible.")], found
        base = json.loads(run("stats", "--format", "json", cases["orig"]).stdout)
        for case, kind in expect.items():
            found, stderr = problems(cases[case])
            assert kind in found, (case, sorted(found))
            assert kind in stderr and len(stderr.strip().splitlines()) == 1, (case, stderr)
            r = run("analyze", "--format", "json", cases[case])
            assert r.returncode == 0, (case, r.stderr)
            health = [h["id"] for h in json.loads(r.stdout)["health"]]
            assert kind.split(".")[1].replace("_", "-") in health, (case, health)
        # The copies are dropped: the same kernels and kernel time as the original.
        dup = json.loads(run("stats", "--format", "json", cases["dup"]).stdout)
        assert dup["kernels"] == base["kernels"]
        # A step holding the others is left out: the original's iterations remain.
        info = json.loads(run("info", "--format", "json", cases["nested"]).stdout)
        orig = json.loads(run("info", "--format", "json", cases["orig"]).stdout)
        assert info["iterations"] == orig["iterations"], (info["iterations"], orig["iterations"])
        # Rotated links: the clock check no longer offers --align-clocks as the fix.
        r = run("info", cases["rotated"])
        assert "--align-clocks would not repair it" in r.stdout and "shifts this GPU" not in r.stdout
        # --time-unit reads the seconds and the nanoseconds back to the original's kernel times.
        for case, unit in (("seconds", "s"), ("nanos", "ns")):
            found, _ = problems(cases[case], "--time-unit", unit)
            assert not [k for k in found if k.startswith("impossible.")], (case, found)
            fixed = json.loads(run("stats", "--time-unit", unit, "--format", "json", cases[case]).stdout)
            got = {k["name"]: k["total_ns"] for k in fixed["kernels"]}
            want = {k["name"]: k["total_ns"] for k in base["kernels"]}
            assert got.keys() == want.keys()
            assert all(abs(got[n] - want[n]) <= 2 * 60 for n in want), (case, got, want)
        r = run("stats", "--time-unit", "s", data_rpd())
        assert r.returncode == 2 and "--time-unit applies to" in r.stderr, r.stderr


def data_rpd():
    from harness import sql_fixture
    tmp = tempfile.mkdtemp()
    return sql_fixture("rpd_small.sql", tmp)


@test
def a_kernel_run_inside_another_on_its_stream_is_named():
    with tempfile.TemporaryDirectory() as tmp:
        cases = plants(tmp)
        found, _ = problems(cases["inside"])
        # The BERT run leaves gaps: only kernels stretched over a short next one end up inside.
        if "impossible.stream_overlap" not in found:
            r = run("info", cases["inside"])
            raise AssertionError(r.stdout[-2000:])


def job(tmp, n):
    subprocess.run([sys.executable, RANKS, tmp, str(n), "straggler_gpu"], check=True,
                   stdout=subprocess.DEVNULL)
    docs = {}
    for f in os.listdir(tmp):
        if f.startswith("rank-"):
            with open(os.path.join(tmp, f)) as fh:
                docs[int(f[5:-5])] = json.load(fh)
    return docs


def write_job(folder, docs):
    os.makedirs(folder)
    for r, doc in docs.items():
        with open(os.path.join(folder, f"rank-{r}.json"), "w") as f:
            json.dump(doc, f)
    r = run("analyze", "--format", "json", folder)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@test
def a_job_of_impossible_ranks_says_so_and_names_no_straggler_from_a_truncated_rank():
    with tempfile.TemporaryDirectory() as tmp:
        docs = job(tmp, 4)
        clean = write_job(os.path.join(tmp, "clean"), docs)
        assert not [n for n in clean["job"]["notes"] if "same kernels" in n or "stops early" in n]
        copied = dict(docs)
        copied[1] = copy.deepcopy(docs[0])
        copied[1]["distributedInfo"]["rank"] = 1
        notes = write_job(os.path.join(tmp, "copied"), copied)["job"]["notes"]
        assert any("ranks 0, 1 hold the same kernels" in n for n in notes), notes
        wrong = {r: copy.deepcopy(d) for r, d in docs.items()}
        for r, d in wrong.items():
            d["distributedInfo"]["world_size"] = 2 if r == 0 else 4
        wrong[200] = wrong.pop(3)
        wrong[200]["distributedInfo"]["rank"] = 200
        notes = write_job(os.path.join(tmp, "wrong"), wrong)["job"]["notes"]
        assert any("disagree on the world size" in n for n in notes), notes
        assert any("200 are beyond the world size" in n for n in notes), notes
        # The straggler's trace cut at 40% of its span: named truncated, never the straggler.
        cut = {r: copy.deepcopy(d) for r, d in docs.items()}
        straggler = clean["straggler"]["rank"]
        evs = cut[straggler]["traceEvents"]
        ts = sorted(e["ts"] for e in evs if "ts" in e)
        stop = ts[0] + 0.4 * (ts[-1] - ts[0])
        cut[straggler]["traceEvents"] = [e for e in evs if "ts" not in e or e["ts"] < stop]
        j = write_job(os.path.join(tmp, "cut"), cut)
        notes = j["job"]["notes"]
        assert any(f"rank {straggler}'s trace stops early" in n for n in notes), notes
        assert not j.get("straggler") or j["straggler"]["rank"] != straggler, j.get("straggler")


@test
def align_clocks_shifts_a_gpu_clock_behind_the_hosts_by_its_largest_lead():
    """A real trace whose GPU events were moved 5 ms earlier (a GPU clock behind the host's):
    `info` says clock offset; --align-clocks shifts the GPU by 5 ms less the run's own shortest
    launch-to-start time (computed here from the file, not by gpuscope), so that its fastest op
    starts exactly at its launch again; kernel times are untouched and the clock check is clean."""
    if not os.path.exists(BERT):
        raise Skip("needs ../shared/samples (the H100 BERT trace)")
    with gzip.open(BERT, "rt") as f:
        base = json.load(f)
    evs = base["traceEvents"]
    gpu = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation"}
    launch = {e["args"]["correlation"]: float(e["ts"]) for e in evs
              if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    leads = [float(e["ts"]) - launch[e["args"]["correlation"]] for e in evs
             if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")
             and e.get("args", {}).get("correlation") in launch]
    shift_us = 5000.0
    want_ns = round((shift_us - min(leads)) * 1000)
    moved = [dict(e, ts=float(e["ts"]) - shift_us) if e.get("cat") in gpu else e for e in evs]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "gpu_behind.json")
        with open(path, "w") as f:
            json.dump(dict(base, traceEvents=moved), f)
        info = json.loads(run("info", "--format", "json", path).stdout)
        assert [c["verdict"] for c in info["clocks"]] == ["clock offset"], info["clocks"]
        assert info["clock_shifts"] == [], info["clock_shifts"]
        r = run("info", "--format", "json", "--align-clocks", path)
        assert r.returncode == 0, r.stderr
        aligned_info = json.loads(r.stdout)
        assert [c["verdict"] for c in aligned_info["clocks"]] == ["ok"], r.stdout[:500]
        shifts = aligned_info["clock_shifts"]
        assert len(shifts) == 1 and abs(shifts[0]["shift_ns"] - want_ns) <= 1000, (shifts, want_ns)
        assert "shifted by +" in run("info", "--align-clocks", path).stdout
        note = [ln for ln in r.stderr.splitlines() if "--align-clocks" in ln]
        assert len(note) == 1 and "events shifted by +" in note[0], r.stderr
        value, unit = note[0].rsplit("+", 1)[1].split()
        got_ns = float(value) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]
        assert abs(got_ns - want_ns) <= 0.01 * want_ns, (got_ns, want_ns)
        aligned = json.loads(run("stats", "--format", "json", "--align-clocks", path).stdout)
        orig = json.loads(run("stats", "--format", "json", path).stdout)
        assert aligned["kernels"] == orig["kernels"]
