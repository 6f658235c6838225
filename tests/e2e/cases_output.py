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
