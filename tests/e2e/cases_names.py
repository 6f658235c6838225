"""The first screens at 100 columns: kernel names that keep their base name (one shortening rule
for tables, evidence and diff), help that fits and shows an example, messages in the user's words
(ranges, missing arguments, "did you mean" for values and topics)."""
import json
import os
import re

import harness
from harness import SAMPLES, Skip, data, run, test

NARROW = {"COLUMNS": "100"}
ELLIPSIS = "\u2026"
COMMANDS = ("info", "stats", "analyze", "roofline", "whatif", "memory", "diff", "convert", "report", "run", "help")


def base_name(name):
    """The qualified base name: without "void ", up to the first template or parameter list
    ("(anonymous namespace)" belongs to it) - base/short_name.h's rule, written again here."""
    s = name[5:] if name.startswith("void ") and len(name) > 5 else name
    i = 0
    while i < len(s):
        if s.startswith("(anonymous namespace)", i):
            i += len("(anonymous namespace)")
            continue
        if s[i] in "<(":
            break
        i += 1
    return s[:i]


def sample_cases():
    """Every sample of the golden stats cases (tests/golden/cases.tsv) present here."""
    tsv = os.path.join(os.path.dirname(harness.HERE), "golden", "cases.tsv")
    out = []
    with open(tsv) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            path = os.path.join(SAMPLES, line.split("\t")[2])
            if os.path.exists(path):
                out.append(path)
    return out


def kernel_rows(text):
    """The Name column's width (its rule) and cells in the first table of `stats --by kernels`
    (its rows, in order)."""
    lines = text.splitlines()
    head = next(i for i, l in enumerate(lines) if l.rstrip().endswith("Name"))
    col = lines[head].index("Name")
    rows = []
    for l in lines[head + 2:]:
        if not l.strip() or l.startswith(("(", "...")):
            break
        rows.append(l[col:])
    return len(lines[head + 1][col:].rstrip()), rows


@test
def stats_kernel_names_keep_their_base_name_at_100_columns_on_every_sample():
    if not os.path.isdir(SAMPLES):
        raise Skip("needs ../shared/samples (the golden cases' samples)")
    paths = sample_cases()
    assert len(paths) >= 20, paths
    checked = 0
    for path in paths:
        j = run("stats", "--by", "kernels", "--top", "25", "--format", "json", path)
        if j.returncode != 0:
            continue
        names = [k["name"] for k in json.loads(j.stdout)["kernels"]]
        if not names:
            continue
        r = run("stats", "--by", "kernels", path, env=NARROW)
        assert r.returncode == 0, (path, r.stderr)
        assert all(len(l) <= 100 for l in r.stdout.splitlines()), (path, r.stdout)
        width, shown = kernel_rows(r.stdout)
        assert len(shown) == len(names), (path, shown)
        longest = max(len(n) for n in names)
        # The numbers give way first: the name column keeps 40 columns (or all its names need).
        assert width >= min(40, longest), (path, width, shown)
        assert len(set(shown)) == len(shown), (path, shown)  # no two rows alike
        for name, cell in zip(names, shown):
            checked += 1
            if cell == name:
                continue
            base = base_name(name)
            if len(base) <= 40:
                # The whole base name, at the start of the cell (only "void " dropped).
                assert cell.startswith(base), (path, name[:200], cell)
            else:
                # Longer: at least 30 characters of it in one piece, never a fragment.
                assert any(base[k:k + 30] in cell for k in range(len(base) - 29)), (path, name[:200], cell)
        print(f"     {os.path.basename(path)}: {len(shown)} rows, name column {width}")
    assert checked >= 200, checked


@test
def analyze_evidence_and_diff_names_are_folded_never_cut():
    if not os.path.isdir(SAMPLES):
        raise Skip("needs ../shared/samples (the resnet50 pair)")
    pair = [os.path.join(SAMPLES, "kineto", "kineto", f"plugin__samples__resnet50_num_workers_{n}__worker0.pt.trace.json.gz")
            for n in (0, 4)]
    r = run("analyze", pair[0], env=NARROW)
    assert r.returncode == 0, r.stderr
    evidence = False
    for line in r.stdout.splitlines():
        assert len(line) <= 100, line
        if line.startswith("    evidence:"):
            evidence = True
        elif not line.startswith("              "):
            evidence = False
        if evidence:
            # An ellipsis only where a list was folded: "<…>" or "(…)".
            assert ELLIPSIS not in re.sub("[<(]" + ELLIPSIS + "[>)]", "", line), line
    d = run("diff", *pair, env=NARROW)
    assert d.returncode == 0, d.stderr
    for line in d.stdout.splitlines():
        assert len(line) <= 100, line
        assert not re.search(r"::" + ELLIPSIS + r"[a-z]", line) or "::" + ELLIPSIS + "::" in line, line


@test
def every_help_fits_100_columns_with_an_example():
    for args in [("--help",), ("help",)] + [(c, "--help") for c in COMMANDS]:
        r = run(*args, env=NARROW)
        assert r.returncode == 0, (args, r.stderr)
        wide = [l for l in r.stdout.splitlines() if len(l) > 100]
        assert not wide, (args, wide[:3])
        assert ":INT in [" not in r.stdout and "NUMBER in [" not in r.stdout, (args, r.stdout)
        if args[0] in COMMANDS and args[-1] == "--help":
            assert r.stdout.count("Example: gpuscope " + args[0]) == 1, (args, r.stdout[-600:])
    listing = run("help", env=NARROW).stdout
    for c in COMMANDS:
        assert "\n  " + c + " " in listing, (c, listing)
    topics = re.findall(r"^  (\w+) ", listing.split("the topics")[1], re.M)
    assert len(topics) >= 8, topics
    for t in topics:
        r = run("help", t, env=NARROW)
        assert r.returncode == 0, (t, r.stderr)
        wide = [l for l in r.stdout.splitlines() if len(l) > 100]
        assert not wide, (t, len(wide), wide[:2])


@test
def option_errors_are_one_line_in_the_users_words():
    trace = data("kineto_cuda_small.json")

    def error(*args):
        r = run(*args)
        assert r.returncode == 2, (args, r.returncode, r.stdout[-300:])
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1, (args, r.stderr)
        assert not re.search(r"\d{20}", lines[0]), (args, lines[0])
        return lines[0]

    e = error("--threads", "100", "stats", trace)
    assert "0 to 64" in e and "INT" not in e, e
    e = error("diff", trace)
    assert "AFTER" in e and "after is required" not in e and "gpuscope diff BEFORE AFTER" in e, e
    e = error("stats")
    assert "trace" in e and "trace is required" not in e, e
    e = error("stats", "--by", "kernel", trace)
    assert "did you mean 'kernels'?" in e, e
    e = error("help", "term")
    assert "did you mean 'terms'?" in e, e
    e = error("stats", "--top", "many", trace)
    assert "'many' is not a number" in e and "Could not convert" not in e, e
    e = error("whatif", "--host-speedup", "0", trace)
    assert "--host-speedup" in e and "1e-6" in e, e
    e = error("diff", "--fail-if-slower", "1e308", trace, trace)
    assert "1000000" in e and "1e308" in e, e


@test
def per_step_mean_is_the_same_in_analyze_and_whatif():
    paths = [data("kineto_cuda_small.json")]
    resnet = os.path.join(SAMPLES, "kineto", "kineto", "plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz")
    if os.path.exists(resnet):
        paths.append(resnet)
    compared = 0
    for p in paths:
        a = json.loads(run("analyze", "--format", "json", p).stdout)["summary"]
        if not a["iterations"]:
            continue
        w = json.loads(run("whatif", "--format", "json", "--gpu-speedup", "2", p).stdout)
        assert w["before"]["step_ns"] == a["iteration_mean_ns"], (p, w["before"], a["iteration_mean_ns"])
        # The terminal says the same number in both.
        mean = re.search(r"Per step\s+mean ([\d.]+ \w+)", run("analyze", p).stdout).group(1)
        assert re.search(r"Per step\s+" + re.escape(mean), run("whatif", "--gpu-speedup", "2", p).stdout), (p, mean)
        compared += 1
    assert compared >= 1, paths
