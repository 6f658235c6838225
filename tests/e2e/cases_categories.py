"""Kernel categories: `help categories` is the documented table, `stats --by category` in its
three forms, a user's table (`--categories FILE`) and a broken one."""
import csv
import io
import json
import os
import tempfile

from harness import DATA, run, test

SMALL = os.path.join(DATA, "kineto_cuda_small.json")


@test
def help_categories_is_the_documented_table():
    r = run("help", "categories", "--format", "markdown")
    assert r.returncode == 0, r.stderr
    with open(os.path.join(os.path.dirname(DATA), "..", "docs", "categories.md")) as f:
        assert f.read() == r.stdout, "docs/categories.md is stale: gpuscope help categories --format markdown > docs/categories.md"
    d = json.loads(run("help", "categories", "--format", "json").stdout)
    assert [c["category"] for c in d["categories"]] == [
        "gemm", "attention", "conv", "norm", "fused", "elementwise", "reduction", "copy", "communication", "other"]
    assert any(r["pattern"] == "^cijk_" and r["category"] == "gemm" for r in d["rules"])
    text = run("help", "categories").stdout
    assert "communication" in text and all(len(line) <= 100 for line in text.splitlines())


@test
def stats_by_category_in_every_form():
    """kineto_cuda_small.json: 6 relu kernels (elementwise), 2 gemm_tile1 (gemm by name), 4
    copies and 2 memsets (copy)."""
    d = json.loads(run("stats", "--by", "category", "--format", "json", SMALL).stdout)
    by = {c["category"]: c for c in d["categories"]}
    assert set(by) == {"gemm", "attention", "conv", "norm", "fused", "elementwise", "reduction", "copy",
                       "communication", "other"}
    assert set(d) == {"schema_version", "source", "categories"}
    assert (by["elementwise"]["calls"], by["gemm"]["calls"], by["copy"]["calls"]) == (6, 2, 6), by
    assert by["other"]["calls"] == 0
    assert abs(sum(c["percent"] for c in d["categories"]) - 100) < 1e-3
    st = json.loads(run("stats", "--format", "json", SMALL).stdout)
    assert sum(c["total_ns"] for c in d["categories"]) == sum(k["total_ns"] for k in st["kernels"]) + sum(
        m["total_ns"] for m in st["memops"])
    rows = list(csv.DictReader(io.StringIO(run("stats", "--by", "category", "--format", "csv", SMALL).stdout)))
    assert [r["category"] for r in rows] == [c["category"] for c in d["categories"]]
    assert list(rows[0]) == ["category", "calls", "total_ns", "percent"]
    text = run("stats", "--by", "category", SMALL).stdout
    assert "GPU time by kernel category" in text and "elementwise" in text


@test
def a_users_category_table_replaces_the_built_in_one():
    with tempfile.TemporaryDirectory() as tmp:
        mine = os.path.join(tmp, "mine.tsv")
        with open(mine, "w") as f:
            f.write("# relu is attention here\ncategory\tfield\tpattern\tnote\nattention\tname\trelu\tmine\n")
        d = json.loads(run("--categories", mine, "stats", "--by", "category", "--format", "json", SMALL).stdout)
        by = {c["category"]: c["calls"] for c in d["categories"]}
        assert (by["attention"], by["gemm"], by["other"], by["copy"]) == (6, 0, 2, 6), by
        a = json.loads(run("--categories", mine, "analyze", "--format", "json", SMALL).stdout)
        assert any(c["category"] == "attention" and c["calls"] > 0 for c in a["summary"]["categories"])
        bad = os.path.join(tmp, "bad.tsv")
        with open(bad, "w") as f:
            f.write("category\tfield\tpattern\tnote\nmatmul\tname\tmm\tx\n")
        r = run("--categories", bad, "stats", "--by", "category", SMALL)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
        assert "bad.tsv" in r.stderr and "line 2" in r.stderr and "matmul" in r.stderr, r.stderr
        r = run("--categories", os.path.join(tmp, "missing.tsv"), "analyze", SMALL)
        assert r.returncode == 2 and "missing.tsv" in r.stderr, r.stderr


@test
def analyze_names_the_categories_in_one_line():
    r = run("analyze", SMALL)
    line = [l for l in r.stdout.splitlines() if "By category" in l]
    assert len(line) == 1 and "copy" in line[0] and "elementwise" in line[0], r.stdout
    a = json.loads(run("analyze", "--format", "json", SMALL).stdout)
    cats = a["summary"]["categories"]
    assert len(cats) == 10 and cats == sorted(cats, key=lambda c: -c["total_ns"])
