#!/usr/bin/env python3
"""Browser tests: gpuscope's HTML report and its Chrome trace JSON, loaded by a real Chromium.

  test_browser.py --gpuscope BIN [--artifacts DIR]

1. `gpuscope report` on the planted-problems trace (made here by tests/planted/make_planted.py)
   and, when ../shared/samples is present, on a real PyTorch trace: headless Chromium loads each
   page from disk with networking off; the test reads the DOM after the scripts ran and checks
   that no console message or script error occurred, that the page finished drawing, and that
   the summary cards, the GPU idle causes, every finding of `gpuscope analyze`, the kernel,
   roofline (a simulated run with op shapes on a named device), latency and GPU memory charts
   and the timeline (events drawn on the canvas) are there. A screenshot of each page is saved in DIR.
2. `gpuscope convert` of the same traces to .json: tests/browser/trace_check.html parses the
   file in the browser (as a viewer does), checks its structure (numeric times, metadata names for
   every track, every flow end has its start) and sums its events; the sums must equal the
   source's counts (`gpuscope info`) and per-kernel totals (`gpuscope stats`) exactly.

Exit 77 (skipped) when no Chromium is installed; scripts/install-deps installs Debian's.
"""
import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SAMPLES = os.path.normpath(os.path.join(ROOT, "..", "shared", "samples"))
PLANTED = os.path.join(ROOT, "tests", "planted", "make_planted.py")
RANKS = os.path.join(ROOT, "tests", "planted", "ranks.py")
SIMULATE = os.path.join(ROOT, "tests", "planted", "simulate.py")
REAL_SAMPLE = "kineto/kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz"


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, exe, profile):
        self.exe, self.profile = exe, profile

    def run(self, url, *extra):
        """Loads `url`; returns (dom, console lines)."""
        args = [self.exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--user-data-dir=" + self.profile, "--enable-logging=stderr", "--v=0", *extra, url]
        r = subprocess.run(args, capture_output=True, text=True, timeout=120)
        console = [l for l in r.stderr.splitlines() if ":CONSOLE" in l]
        return r.stdout, console, r


def gpuscope(binary, *args):
    r = subprocess.run([binary, *args], capture_output=True, text=True)
    assert r.returncode == 0, (args, r.stderr)
    return r.stdout


def check_report(binary, browser, trace, name, artifacts, tmp):
    page = os.path.join(tmp, name + ".html")
    out = gpuscope(binary, "report", trace, "-o", page)
    assert page in out, out
    size = os.path.getsize(page)
    assert size < 5 * 1024 * 1024, f"{name}: report is {size} bytes"
    analysis = json.loads(gpuscope(binary, "analyze", "--format", "json", trace))
    dom, console, r = browser.run("file://" + page, "--dump-dom", "--window-size=1400,1000")
    assert r.returncode == 0, r.stderr[-2000:]
    assert not console, f"{name}: console messages: {console}"
    body = re.search(r"<body([^>]*)>", dom).group(1)
    assert 'data-ready="1"' in body, f"{name}: the page did not finish drawing: {body}"
    assert "data-js-errors" not in body, f"{name}: script errors: {body}"
    for card in ("wall", "iterations", "latency", "busy", "verdict"):
        assert f'id="card-{card}"' in dom, f"{name}: summary card {card} missing"
    # Serving traces: a card per phase, the layer structure, the graph kernels, the stalls.
    for p in analysis["phases"]:
        assert f'id="card-phase-{p["name"]}"' in dom, f"{name}: phase card {p['name']} missing"
    # The stages where the run repeats (a row each), else the layer structure's card.
    stages = analysis["summary"]["stages"]
    if any(x["kind"] != "once" for x in stages):
        table = re.search(r'<table class="data" id="stages-table">.*?</table>', dom, re.S)
        assert table and table.group(0).count("<tr>") == len(stages) + 1, f"{name}: stages not shown"
    elif analysis["summary"]["structure"]:
        assert 'id="card-structure"' in dom, f"{name}: structure card missing"
    if analysis["summary"]["graphs"]["kernels"]:
        assert 'id="card-graphs"' in dom, f"{name}: graph card missing"
    if analysis["stalls"]:
        assert dom.count("<li>", dom.index('id="stalls"')) >= len(analysis["stalls"]), f"{name}: stalls not listed"
    findings = re.findall(r'<details class="finding (\w+)" data-rule="([\w-]+)"', dom)
    assert [r for _, r in findings] == [f["rule"] for f in analysis["findings"]], (findings, [f["rule"] for f in analysis["findings"]])
    for f in analysis["findings"]:
        assert html.escape(f["advice"], quote=False) in dom, f"{name}: advice of {f['rule']} not shown"
    chart = re.search(r'<svg id="kernels-chart".*?</svg>', dom, re.S)
    assert chart and chart.group(0).count('class="bar') >= 1, f"{name}: top-kernels chart empty"
    latency = re.search(r'<svg id="latency-chart".*?</svg>', dom, re.S)
    bars = latency.group(0).count('class="bar') if latency else 0
    assert bars == analysis["summary"]["iterations_total"], f"{name}: {bars} latency bars"
    assert 'id="copies-table"' in dom or "No memory copies" in dom
    idle = analysis["summary"]["idle_by_cause"]
    if idle:
        rows = re.search(r'<table class="data" id="idle-table">(.*?)</table>', dom, re.S).group(1).count("<tr>") - 1
        assert rows == min(8, len(idle)), f"{name}: {rows} idle causes shown of {len(idle)}"
    # Kernel categories: one row per category with time, in the summary's order.
    cats = [c["category"] for c in analysis["summary"]["categories"] if c["total_ns"] > 0]
    if cats:
        table = re.search(r'<table class="data" id="categories-table">(.*?)</table>', dom, re.S)
        assert table, f"{name}: category chart missing"
        shown = re.findall(r'<td class="mono">([a-z]+)</td>', table.group(1))
        assert shown == cats, f"{name}: categories {shown} vs {cats}"
    # The roofline: one point per op signature with FLOPs among the 40 hottest of the steady
    # window (`gpuscope roofline --steady`), and the device's roofs when it is known.
    roof = json.loads(gpuscope(binary, "roofline", "--steady", "--format", "json", trace))
    want = [o for o in roof["ops"][:40] if o["flops"] > 0 and o["bytes"] > 0 and o["gpu_ns"] > 0]
    chart = re.search(r'<svg id="roofline-chart".*?</svg>', dom, re.S)
    if want:
        assert chart and chart.group(0).count("<circle") == len(want), f"{name}: roofline points vs {len(want)} ops"
        roofs = chart.group(0).count('class="roof')
        assert (roofs >= 2) == (roof["device"]["name"] is not None), f"{name}: {roofs} roofs drawn for {roof['device']}"
    else:
        assert not chart and "No op with recorded shapes" in dom, f"{name}: roofline chart without ops"
    # The memory chart: a line per device with allocator events, else the hint to record them.
    memory = json.loads(gpuscope(binary, "memory", "--format", "json", trace))["devices"]
    chart = re.search(r'<svg id="memory-chart".*?</svg>', dom, re.S)
    if memory:
        assert chart and chart.group(0).count('class="memory-line"') == len(memory), f"{name}: memory lines"
        pts = re.search(r'data-points="(\d+)"', chart.group(0))
        assert pts and int(pts.group(1)) >= len(memory), f"{name}: memory chart without points"
    else:
        assert not chart and "No GPU memory events" in dom, f"{name}: memory chart without events"
    drawn = re.search(r'<canvas id="timeline"[^>]*data-drawn="(\d+)"', dom)
    assert drawn and int(drawn.group(1)) > 0, f"{name}: timeline drew nothing"
    # The critical path's row: drawn where the analysis has a critical path.
    path = re.search(r'<canvas id="timeline"[^>]*data-path="(\d+)"', dom)
    if analysis["summary"]["critical_path"]:
        assert path and int(path.group(1)) > 0, f"{name}: no critical path drawn"
    shot = os.path.join(artifacts, f"report-{name}.png")
    _, console, r = browser.run("file://" + page, "--screenshot=" + shot, "--window-size=1400,2400")
    assert r.returncode == 0 and os.path.getsize(shot) > 20_000, f"{name}: no screenshot ({r.stderr[-500:]})"
    assert not console, console
    return f"{len(findings)} findings, {drawn.group(1)} timeline events drawn, {size} bytes, screenshot {shot}"


def with_memory_events(src, tmp):
    """The trace at `src` with PyTorch [memory] events added on its first thread: each step
    allocates 4 MB and frees it, and keeps 1 MB (a leak)."""
    with open(src) as f:
        doc = json.load(f)
    ev = doc["traceEvents"] if isinstance(doc, dict) else doc
    steps = [e for e in ev if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")]
    allocated, out = 0, []
    for k, st in enumerate(steps):
        for dt, nbytes, addr in ((1, 4 << 20, 7), (2, 1 << 20, 100 + k), (st["dur"] / 2, -(4 << 20), 7)):
            allocated += nbytes
            out.append({"ph": "i", "s": "t", "name": "[memory]", "pid": st["pid"], "tid": st["tid"],
                        "ts": st["ts"] + dt, "args": {"Device Type": 1, "Device Id": 0, "Addr": addr,
                                                     "Bytes": nbytes, "Total Allocated": allocated,
                                                     "Total Reserved": 64 << 20}})
    ev.extend(out)
    path = os.path.join(tmp, "with_memory.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def check_job_report(binary, browser, tmp):
    """A distributed job (tests/planted/ranks.py: 8 ranks, rank 4 slow): the rank view, the job's
    findings, and the rest of the page about the straggler's own trace."""
    sim = os.path.join(tmp, "ranks")
    subprocess.run([sys.executable, RANKS, sim, "8", "straggler_gpu"], check=True)
    job = os.path.join(sim, "job")
    os.makedirs(job)
    for f in os.listdir(sim):
        if f.startswith("rank-"):
            os.rename(os.path.join(sim, f), os.path.join(job, f))
    page = os.path.join(tmp, "job.html")
    gpuscope(binary, "report", job, "-o", page)
    want = json.loads(gpuscope(binary, "analyze", "--format", "json", job))
    rank = want["straggler"]["rank"]
    own = json.loads(gpuscope(binary, "analyze", "--format", "json", os.path.join(job, f"rank-{rank}.json")))
    dom, console, r = browser.run("file://" + page, "--dump-dom", "--window-size=1400,1000")
    assert r.returncode == 0 and not console, (r.stderr[-2000:], console)
    body = re.search(r"<body([^>]*)>", dom).group(1)
    assert 'data-ready="1"' in body and "data-js-errors" not in body, body
    assert '<section id="ranks-section">' in dom, "the rank view is hidden"
    chart = re.search(r'<svg id="ranks-chart".*?</svg>', dom, re.S).group(0)
    assert chart.count("<g data-rank=") == 8 and chart.count('class="seg-wait"') == 8, chart[:300]
    assert f"Straggler: rank {rank}, last at 24 of 24" in dom, "straggler line missing"
    rows = re.search(r'<table class="data" id="ranks-table">(.*?)</table>', dom, re.S).group(1).count("<tr>") - 1
    assert rows == 8, rows
    rules = re.findall(r'<details class="finding (\w+)" data-rule="([\w-]+)"', dom)
    assert [r for _, r in rules] == [f["rule"] for f in want["findings"]] + [f["rule"] for f in own["findings"]], rules
    assert f"the sections below detail rank {rank} (the straggler)" in dom
    return f"8 ranks, straggler {rank}, {len(rules)} findings"


HOSTILE = ["<!--<script>", "</script><script>document.title='owned'</script>",
           "\"><img src=x onerror=\"document.title='owned'\">", "\x1b]0;retitled\x07clear\x1b[2J"]


def hostile_trace(src, tmp):
    """The planted trace with its kernels and ops renamed to names that attack an HTML page."""
    with open(src) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    names = {}
    for e in events:
        if e.get("cat") in ("kernel", "cpu_op") and "name" in e:
            names.setdefault(e["name"], HOSTILE[len(names) % len(HOSTILE)] + f" #{len(names)}")
            e["name"] = names[e["name"]]
    out = os.path.join(tmp, "hostile.json")
    with open(out, "w") as f:
        json.dump(doc, f)
    return out


def check_hostile_report(binary, browser, trace, tmp, artifacts):
    """Names made of markup and escapes: the page draws as always (check_report's checks), every
    name is shown as text, and nothing they hold runs or becomes an element."""
    result = check_report(binary, browser, trace, "hostile", artifacts, tmp)
    dom, console, r = browser.run("file://" + os.path.join(tmp, "hostile.html"), "--dump-dom")
    assert r.returncode == 0 and not console, console
    assert "owned" not in re.search(r"<title>(.*?)</title>", dom, re.S).group(1), "a name ran as script"
    assert "<img" not in dom, "a name became an element"
    shown = sum(html.escape(n.split("\x1b")[0], quote=False)[:12] in dom for n in HOSTILE)
    assert shown >= 2, f"only {shown} hostile names shown as text"
    return result


def check_trace_json(binary, browser, trace, name, tmp):
    out = os.path.join(tmp, name + ".json")
    gpuscope(binary, "convert", trace, "-o", out)
    with open(os.path.join(HERE, "trace_check.html")) as f:
        checker = f.read()
    with open(out) as f:
        text = f.read().replace("</", "<\\/")
    page = os.path.join(tmp, name + "_check.html")
    with open(page, "w") as f:
        f.write(checker.replace("__TRACE__", text, 1))
    dom, console, r = browser.run("file://" + page, "--dump-dom")
    assert not console, console
    got = json.loads(html.unescape(re.search(r'<pre id="result">(.*?)</pre>', dom, re.S).group(1)))
    assert not got["problems"], got["problems"][:5]
    counts = json.loads(gpuscope(binary, "info", "--format", "json", trace))["counts"]
    cats = got["categories"]
    want = {"kernel": counts["kernels"], "gpu_memcpy": counts["memcpy"], "gpu_memset": counts["memset"],
            "cuda_runtime": counts["runtime API calls"] + counts["HSA API calls"] + counts["OS runtime calls"],
            "cuda_driver": counts["driver API calls"], "cpu_op": counts["CPU ops"],
            "user_annotation": counts["user annotations"], "python_function": counts["Python frames"],
            "instant": counts["instant events"] + counts.get("GPU memory events", 0),
            "counter": counts["counter samples"]}
    for cat, n in want.items():
        assert cats.get(cat, 0) == n, f"{name}: {cat}: {cats.get(cat, 0)} in the browser, {n} in the source"
    stats = json.loads(gpuscope(binary, "stats", "--format", "json", "--mangled", trace))
    kernels = {k["name"]: [k["calls"], k["total_ns"]] for k in stats["kernels"]}
    assert got["kernels"] == kernels, f"{name}: per-kernel totals differ in the browser"
    assert got["flows"]["unmatched"] == 0 and got["flows"]["starts"] == got["flows"]["ends"], got["flows"]
    assert got["unnamed_tracks"] == 0, got
    return f"{got['events']} events, {len(kernels)} kernels, {got['flows']['starts']} flows match the source"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuscope", required=True)
    ap.add_argument("--artifacts", default=os.path.join(ROOT, "build", "test-artifacts"))
    a = ap.parse_args()
    binary = os.path.abspath(a.gpuscope)
    exe = find_chromium()
    if not exe:
        print("SKIP: no Chromium found (scripts/install-deps installs Debian's chromium); browser tests not run")
        return 77
    os.makedirs(a.artifacts, exist_ok=True)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        browser = Browser(exe, os.path.join(tmp, "profile"))
        subprocess.run([sys.executable, PLANTED, tmp], check=True)
        sim = os.path.join(tmp, "sim")
        subprocess.run([sys.executable, SIMULATE, sim], check=True)
        traces = [("planted_slow", os.path.join(tmp, "slow.json")), ("planted_rpd", os.path.join(tmp, "slow.rpd")),
                  ("simulated_untuned_gemm", os.path.join(sim, "gpu_slow_gemm.json")),
                  ("serving", os.path.join(ROOT, "tests", "data", "serving_exec.json")),
                  ("planted_memory", with_memory_events(os.path.join(tmp, "slow.json"), tmp))]
        if os.path.isdir(SAMPLES):
            traces.append(("resnet50", os.path.join(SAMPLES, REAL_SAMPLE)))
        else:
            print(f"SKIP real-sample cases: {SAMPLES} not found (the repo's own traces are still tested)")
        try:
            print(f"ok   report job: {check_job_report(binary, browser, tmp)}")
            passed += 1
        except Exception as e:  # noqa: BLE001
            failed += 1
            print(f"FAIL report job: {type(e).__name__}: {str(e)[:1500]}")
        try:
            hostile = hostile_trace(os.path.join(tmp, "slow.json"), tmp)
            print(f"ok   report hostile names: {check_hostile_report(binary, browser, hostile, tmp, a.artifacts)}")
            passed += 1
        except Exception as e:  # noqa: BLE001
            failed += 1
            print(f"FAIL report hostile names: {type(e).__name__}: {str(e)[:1500]}")
        for name, trace in traces:
            for what, fn in (("report", lambda: check_report(binary, browser, trace, name, a.artifacts, tmp)),
                             ("trace json", lambda: check_trace_json(binary, browser, trace, name, tmp))):
                try:
                    print(f"ok   {what} {name}: {fn()}")
                    passed += 1
                except Exception as e:  # noqa: BLE001 - report every failure, keep going
                    failed += 1
                    print(f"FAIL {what} {name}: {type(e).__name__}: {str(e)[:1500]}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
