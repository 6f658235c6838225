"""End-to-end: convert to every format and back, the HTML report."""
import csv
import importlib.util
import io
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

import harness
from harness import DATA, EXAMPLES, PLANTED, SAMPLES, Skip, data, need_torch, run, sql_fixture, test


@test
def convert_writes_every_format_and_reads_back_the_same():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, PLANTED, tmp], check=True)
        src = os.path.join(tmp, "slow.json")
        want = json.loads(run("stats", "--format", "json", "--mangled", src).stdout)
        want.pop("source")
        for out in ("t.json", "t.json.gz", "t.rpd"):
            path = os.path.join(tmp, out)
            r = run("convert", src, "-o", path)
            assert r.returncode == 0 and r.stdout.startswith("wrote " + path), (out, r.stdout, r.stderr)
            got = json.loads(run("stats", "--format", "json", "--mangled", path).stdout)
            got.pop("source")
            assert got == want, out
        # --to when the name does not say; --format json reports what was written.
        r = run("convert", src, "-o", os.path.join(tmp, "noext"), "--to", "rpd", "--format", "json")
        assert r.returncode == 0 and json.loads(r.stdout)["files"][0]["bytes"] > 0, r.stdout
        # x.csv: events in x.csv, the stats tables beside it; dir/: events.csv + tables inside.
        r = run("convert", src, "-o", os.path.join(tmp, "x.csv"))
        assert r.returncode == 0, r.stderr
        for f in ("x.csv", "x_kernels.csv", "x_memops.csv", "x_api.csv", "x_cpu_ops.csv"):
            assert os.path.getsize(os.path.join(tmp, f)) > 0, f
        r = run("convert", src, "-o", os.path.join(tmp, "tables") + "/")
        # (.gpuscope-files lists them: a later convert replaces those, and only those)
        assert sorted(os.listdir(os.path.join(tmp, "tables"))) == [".gpuscope-files", "api.csv", "cpu_ops.csv", "events.csv", "kernels.csv", "memops.csv"]
        with open(os.path.join(tmp, "tables", "kernels.csv")) as f:
            assert f.read() == run("stats", "--format", "csv", src).stdout
        # The CSV directory reads back (its events.csv): same tables.
        got = json.loads(run("stats", "--format", "json", "--mangled", os.path.join(tmp, "tables")).stdout)
        got.pop("source")
        assert got == want, "csv round trip"
        # Refusals: one line, exit 2.
        blocker = os.path.join(tmp, "a-file")  # no directory can be made under a file
        open(blocker, "w").close()
        for args, what in ((["-o", os.path.join(tmp, "x.bin")], "cannot tell the output format"),
                           (["-o", os.path.join(blocker, "d", "x.json")], "cannot create the directory")):
            r = run("convert", src, *args)
            assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and what in r.stderr, r.stderr
        stats_only = os.path.join(tmp, "results.stats.csv")
        with open(stats_only, "w") as f:
            f.write('"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n"k",2,200,100,100.0\n')
        r = run("convert", stats_only, "-o", os.path.join(tmp, "s.json"))
        assert r.returncode == 2 and "gpuscope convert" in r.stderr, r.stderr


@test
def convert_annotate_adds_the_critical_path_and_the_findings_as_rows():
    """convert --annotate writes, under a "gpuscope" process, a "critical path" row whose stretches
    follow each other from the steady window's start to its end (adding up, by category, to
    analyze's critical path) and a row per rule with its findings' events; the trace reads back
    as it was (the rows are derived: skipped); other formats refuse the flag in one line."""
    sys.path.insert(0, os.path.dirname(PLANTED))
    import simulate
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "item.json")
        with open(src, "w") as f:
            json.dump(simulate.program(True, {"item"}, simulate.Physics("nvidia", 2)), f)
        out = os.path.join(tmp, "annotated.json")
        r = run("convert", "--annotate", src, "-o", out)
        assert r.returncode == 0, r.stderr
        with open(out) as f:
            ev = json.load(f)["traceEvents"]
        pid = next(e["pid"] for e in ev if e.get("ph") == "M" and e["name"] == "process_name"
                   and e["args"]["name"] == "gpuscope")
        rows = {e["tid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e["pid"] == pid
                and e["name"] == "thread_name"}
        assert "critical path" in rows.values() and "finding: host-sync" in rows.values(), rows
        tid = next(t for t, n in rows.items() if n == "critical path")
        path = sorted((e for e in ev if e.get("ph") == "X" and e["pid"] == pid and e["tid"] == tid),
                      key=lambda e: e["ts"])
        for a, b in zip(path, path[1:]):
            assert abs(a["ts"] + a["dur"] - b["ts"]) < 0.002, (a, b)
        d = json.loads(run("analyze", "--format", "json", src).stdout)
        by_cat = {}
        for e in path:
            by_cat[e["name"]] = by_cat.get(e["name"], 0) + e["dur"] * 1000
        for share in d["summary"]["critical_path"]:
            assert abs(by_cat.get(share["category"], 0) - share["ns"]) <= 1 + len(path), (share, by_cat)
        sync_tid = next(t for t, n in rows.items() if n == "finding: host-sync")
        syncs = [e for e in ev if e.get("ph") == "X" and e["pid"] == pid and e["tid"] == sync_tid]
        assert len(syncs) == 12 and all("aten::item" in e["args"]["detail"] for e in syncs), syncs[:2]
        # Read back: the same trace.
        same = [json.loads(run("stats", "--format", "json", p).stdout)["kernels"] for p in (src, out)]
        assert same[0] == same[1]
        r = run("convert", "--annotate", src, "-o", os.path.join(tmp, "x.rpd"))
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "--annotate" in r.stderr, r.stderr


@test
def report_writes_one_self_contained_page():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, PLANTED, tmp], check=True)
        page = os.path.join(tmp, "r.html")
        r = run("report", os.path.join(tmp, "slow.json"), "-o", page)
        assert r.returncode == 0 and page in r.stdout, r.stderr
        with open(page) as f:
            text = f.read()
        assert text.startswith("<!DOCTYPE html>") and 'id="gpuscope-data"' in text
        assert "<script src" not in text and "<link" not in text and "https://" not in text
        data = json.loads(re.search(r'<script id="gpuscope-data" type="application/json">(.*?)</script>', text, re.S)
                          .group(1).replace("<\\/", "</"))
        analysis = json.loads(run("analyze", "--format", "json", os.path.join(tmp, "slow.json")).stdout)
        assert [f["rule"] for f in data["analysis"]["findings"]] == [f["rule"] for f in analysis["findings"]]
        assert data["timeline"]["events"] and data["timeline"]["iteration"] >= 0, data["timeline"]["iteration"]
        assert data["timeline"]["links"], "launch -> kernel links in the timeline"
        r = run("report", os.path.join(tmp, "missing.json"), "-o", page)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
