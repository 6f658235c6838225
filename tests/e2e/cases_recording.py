"""What the recording lost or bent (issue 51), on fixtures made here from real samples (never
copied into the repo): a graph replay with most of its kernels cut (ROCm 7.0 traces a few of a
hipGraphLaunch's kernels), kernels re-timed back to back (an MI350 Kineto trace whose 1,521
gaps are all 0-1 ns), and the capture of a graph given with --capture. Each must give its health
note and the verdict "incomplete trace"; the untouched sample must not; no finding is priced on
the times a note calls impossible."""
import gzip
import json
import os
import tempfile

from harness import SAMPLES, Skip, run, test

MI300X_VLLM = os.path.join(SAMPLES, "collection2", "pairs", "vllm-tp4-h100-vs-mi300x",
                           "traceMap__trace_file__examples__1_mi300x_1000isl_10osl_32con.pt.trace.json.gz")
RESNET_MI300 = os.path.join(SAMPLES, "kineto", "tracelens", "tests__traces__mi300__resnet_act_checkpoint.json.gz")
TL = os.path.join(SAMPLES, "kineto", "tracelens", "tests__traces__inference__")
GRAPH_RUN = TL + "vllm_decode_full__graph_execution.json.gz"
GRAPH_CAPTURE = TL + "vllm_decode_full__capture_traces__graph_capture_rank_0.1773709742341309550.pt.trace.json.gz"


def load(path):
    if not os.path.exists(path):
        raise Skip(f"needs ../shared/samples ({os.path.basename(path)})")
    with gzip.open(path, "rt") as f:
        return json.load(f)


def analyze(doc, tmp, name):
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    r = run("analyze", "--format", "json", path)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def ids(d):
    return {n["id"] for n in d["health"]}


def cut_graph_kernels(doc, keep_every=20):
    """The trace with 1 in `keep_every` of the kernels that graph launches replayed."""
    evs = doc["traceEvents"]
    graph = {e["args"]["correlation"] for e in evs
             if e.get("name") in ("hipGraphLaunch", "cudaGraphLaunch") and "correlation" in e.get("args", {})}
    out, n = [], 0
    for e in evs:
        if e.get("cat") == "kernel" and e.get("args", {}).get("correlation") in graph:
            n += 1
            if n % keep_every:
                continue
        out.append(e)
    return dict(doc, traceEvents=out)


def retime_back_to_back(doc):
    """Every stream's kernels moved to start where the one before it ended (durations kept)."""
    evs = [dict(e) for e in doc["traceEvents"]]
    streams = {}
    for e in evs:
        if e.get("cat") == "kernel" and e.get("ph") == "X":
            streams.setdefault((e.get("pid"), e.get("tid")), []).append(e)
    for ks in streams.values():
        ks.sort(key=lambda e: float(e["ts"]))
        for prev, e in zip(ks, ks[1:]):
            e["ts"] = float(prev["ts"]) + float(prev["dur"])
    return dict(doc, traceEvents=evs)


def overlaps(spans, a, b):
    return any(x < b and a < y for x, y in spans)


@test
def a_graph_replay_with_its_kernels_cut_is_gpu_work_missing_and_no_verdict():
    doc = load(MI300X_VLLM)
    with tempfile.TemporaryDirectory() as tmp:
        orig = analyze(doc, tmp, "orig")
        assert "gpu-work-missing" not in ids(orig), orig["health"]
        assert orig["summary"]["verdict_kind"] != "incomplete trace", orig["summary"]["verdict"]
        cut = analyze(cut_graph_kernels(doc), tmp, "cut")
        note = [n for n in cut["health"] if n["id"] == "gpu-work-missing"]
        assert note, cut["health"]
        assert "graph launches" in note[0]["seen"] and note[0]["trusted"], note
        s = cut["summary"]
        assert s["verdict_kind"] == "incomplete trace", s["verdict"]
        assert "gpu-work-missing" in s["verdict"] and "Still trusted" in s["verdict"], s["verdict"]


@test
def kernels_retimed_back_to_back_are_times_inconsistent_and_not_priced():
    doc = load(RESNET_MI300)
    with tempfile.TemporaryDirectory() as tmp:
        orig = analyze(doc, tmp, "orig")
        assert "times-inconsistent" not in ids(orig), orig["health"]
        bent = analyze(retime_back_to_back(doc), tmp, "bent")
        note = [n for n in bent["health"] if n["id"] == "times-inconsistent"]
        assert note and note[0]["impossible_ns"] and note[0]["trusted"], bent["health"]
        assert bent["summary"]["verdict_kind"] == "incomplete trace", bent["summary"]["verdict"]
        spans = [s for n in bent["health"] for s in n["impossible_ns"]]
        priced = [f for f in bent["findings"] if f["impact_ns"] > 0 and any(
            overlaps(spans, e["start_ns"], e["start_ns"] + max(e["dur_ns"], 1)) for e in f.get("evidence", []))]
        assert not priced, [(f["rule"], f["impact_ns"]) for f in priced]


@test
def graph_capture_missing_goes_once_the_capture_given_matches_every_graph_kernel():
    if not os.path.exists(GRAPH_RUN) or not os.path.exists(GRAPH_CAPTURE):
        raise Skip("needs ../shared/samples (the vLLM decode graph and its capture)")
    alone = json.loads(run("analyze", "--format", "json", GRAPH_RUN).stdout)
    assert "graph-capture-missing" in ids(alone), alone["health"]
    given = json.loads(run("analyze", "--format", "json", "--capture", GRAPH_CAPTURE, GRAPH_RUN).stdout)
    graphs = given["summary"].get("graphs") or {}
    assert "graph-capture-missing" not in ids(given), (given["health"], graphs)
