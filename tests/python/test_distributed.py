"""gpuscope.distributed on a dask LocalCluster with 2 worker processes: the merged totals equal the
sum of the CLI's per-file `gpuscope stats --format json`; a corrupt file is reported and skipped;
quantiles hold their stated error; python -m gpuscope.fleet writes the same summary."""
import glob
import json
import math
import os
import random
import subprocess
import sys

import pytest

from conftest import DATA, ROOT

dd = pytest.importorskip("dask.distributed")
import gpuscope.distributed as gd  # noqa: E402

SAMPLES = os.path.join(ROOT, "..", "shared", "samples")


def trace_files():
    """The repository's own traces, and the shared samples' Kineto traces when they are here."""
    files = [os.path.join(DATA, f) for f in ("kineto_cuda_small.json", "kineto_rocm_small.json",
                                             "kineto_shapes_small.json", "serving_exec.json",
                                             "rocprofv3_small_results.json")]
    shared = sorted(glob.glob(os.path.join(SAMPLES, "kineto", "*", "*.json.gz")))
    if not shared:
        print("SKIP shared samples: ../shared/samples not found; the repository's fixtures only")
    # Up to 1.3 MB each: the test stays within a CI minute on 2 cores.
    files += [f for f in shared if os.path.getsize(f) < 1_300_000]
    return files


@pytest.fixture(scope="module")
def client():
    cluster = dd.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    c = dd.Client(cluster)
    yield c
    c.close()
    cluster.close()


def cli_stats(cli, path):
    r = subprocess.run([cli, "stats", "--format", "json", path], capture_output=True, text=True)
    return json.loads(r.stdout) if r.returncode == 0 else None


def test_merged_totals_equal_the_sum_of_per_file_stats(client, cli, tmp_path):
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text('{"traceEvents": [{"ph": "X", "name": "k", "ts": 1, "dur"')
    files = trace_files() + [str(corrupt)]
    summary = gd.summarize_fleet(files, client=client)
    expect = {t: {} for t in ("kernels", "memops", "api", "cpu_ops")}
    readable, refused = 0, []
    for f in files:
        s = cli_stats(cli, f)
        if s is None:
            refused.append(os.path.abspath(f))  # the CLI refuses it too (exit 2)
            continue
        readable += 1
        for table, rows in expect.items():
            for r in s.get(table, []):
                key = r.get("name", r.get("kind"))
                c, t = rows.get(key, (0, 0))
                rows[key] = (c + r["calls"], t + r["total_ns"])
    assert summary["traces"] == readable and readable >= 5
    assert sorted(f["path"] for f in summary["failed"]) == sorted(refused) and str(corrupt) in refused
    errors = {f["path"]: f["error"] for f in summary["failed"]}
    assert "ends early" in errors[str(corrupt)], errors
    for table, rows in expect.items():
        got = {r.get("name", r.get("kind")): (r["calls"], r["total_ns"]) for r in summary[table]}
        assert got == rows, table
    # Findings are counted per trace and their impacts add up.
    for f in summary["findings"]:
        assert f["traces"] >= 1 and f["impact_ns"] >= sum(w["impact_ns"] for w in f["worst"]) >= 0, f


def test_quantiles_hold_their_stated_error_and_merging_is_order_free():
    rnd = random.Random(3)
    data = [int(rnd.lognormvariate(10, 1.5)) + 1 for _ in range(20000)]
    a, b = gd._sketch(data[:7000]), gd._sketch(data[7000:])
    whole = gd._sketch(data)
    merged = {}
    for s in (b, a):
        for k, v in s.items():
            merged[k] = merged.get(k, 0) + v
    assert merged == whole
    ordered = sorted(data)
    for q in (0.5, 0.95, 0.99):
        true = ordered[int(q * (len(data) - 1))]
        est = gd._quantile(whole, q)
        assert abs(est - true) <= gd.RELATIVE_ERROR * true + 1e-9, (q, est, true)


def test_fleet_cli_on_a_local_cluster(cli, tmp_path):
    (tmp_path / "broken.json").write_text("not a trace")
    out = tmp_path / "summary.json"
    pattern = os.path.join(DATA, "kineto_*small.json")
    r = subprocess.run([sys.executable, "-m", "gpuscope.fleet", pattern, str(tmp_path / "broken.json"),
                        "-o", str(out), "--no-findings"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    s = json.loads(out.read_text())
    files = sorted(glob.glob(pattern))
    assert s["traces"] == len(files) and len(s["failed"]) == 1 and s["findings"] == []
    assert "1 failed" in r.stderr and "broken.json" in r.stderr
    calls = sum(sum(k["calls"] for k in cli_stats(cli, f)["kernels"]) for f in files)
    assert sum(k["calls"] for k in s["kernels"]) == calls
    assert all(k["p50_ns"] is not None for k in s["kernels"])


def test_job_folder_equals_the_cli(cli, tmp_path):
    """gpuscope.job on a simulated 8-rank job (tests/planted/ranks.py) is the CLI's JSON."""
    import gpuscope

    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "planted", "ranks.py"), str(tmp_path), "8",
                    "straggler_gpu"], check=True)
    (tmp_path / "truth.json").unlink()
    got = gpuscope.job(str(tmp_path))
    r = subprocess.run([cli, "analyze", "--format", "json", str(tmp_path)], capture_output=True, text=True)
    assert json.dumps(got, sort_keys=True) == json.dumps(json.loads(r.stdout), sort_keys=True)
    assert got["straggler"]["rank"] == 4
    stats = gpuscope.job(str(tmp_path), findings=False)
    assert "findings" not in stats and stats["ranks"] == got["ranks"]
    with pytest.raises(gpuscope.TraceError, match="per-rank traces"):
        gpuscope.job(DATA + "/rocprof_v1")


def make_job(out, n, case, seed=3):
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "planted", "ranks.py"), str(out), str(n), case,
                    str(seed)], check=True, capture_output=True)
    os.remove(os.path.join(out, "truth.json"))
    return sorted(glob.glob(os.path.join(out, "rank-*.json")))


def test_analyze_job_equals_the_cli_at_2_8_and_64_ranks(client, cli, tmp_path):
    """gd.analyze_job (one rank per worker, only compact timelines travel) prints what `gpuscope
    analyze DIR --format json` prints, on simulated jobs (tests/planted/ranks.py) of 2, 8 and 64
    ranks with a straggler, skew and overlapped collectives; stats too."""
    for n, case in ((2, "straggler_host+seq"), (8, "straggler_gpu+skew+overlapped"), (64, "straggler_gpu+seq")):
        d = tmp_path / f"job{n}"
        d.mkdir()
        paths = make_job(d, n, case)
        got = gd.analyze_job(paths, client=client)
        r = subprocess.run([cli, "analyze", str(d), "--format", "json"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        want = json.loads(r.stdout)
        assert got == want, (n, case)
        assert len(got["ranks"]) == n and got["straggler"] is not None and got["findings"], (n, case)
        r = subprocess.run([cli, "stats", str(d), "--format", "json"], capture_output=True, text=True)
        assert gd.analyze_job(paths, client=client, findings=False) == json.loads(r.stdout), n


def test_analyze_job_names_the_rank_it_cannot_read(client, tmp_path):
    paths = make_job(tmp_path, 2, "skew")
    with open(paths[1], "w") as f:
        f.write('{"traceEvents": [')
    import gpuscope

    with pytest.raises(gpuscope.TraceError) as e:
        gd.analyze_job(paths, client=client)
    assert paths[1] in str(e.value) and "\n" not in str(e.value)
    # A summary damaged in transit is refused in one line, never a crash.
    good = gpuscope._core.summarize_rank(paths[0])[0]
    with pytest.raises(gpuscope.TraceError) as e:
        gpuscope._core.job_of_summaries([good, good[:-3]], "job", True)
    assert "not a rank summary" in str(e.value)


def test_fleet_job_writes_the_job_report(cli, tmp_path):
    d = tmp_path / "ranks"
    d.mkdir()
    make_job(d, 4, "straggler_gpu")
    out = tmp_path / "job.json"
    r = subprocess.run([sys.executable, "-m", "gpuscope.fleet", "--job", str(d / "rank-*.json"), "-o", str(out)],
                       capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    want = json.loads(subprocess.run([cli, "analyze", str(d), "--format", "json"], capture_output=True,
                                     text=True).stdout)
    assert json.loads(out.read_text()) == want
