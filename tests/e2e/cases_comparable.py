"""End-to-end: `diff` on runs that cannot be compared says so with the reason, and compares runs
without marked steps by the period their kernels repeat with; analyze prices on those samples
what a fix removes (shared samples; skipped when absent)."""
import json
import os

from harness import SAMPLES, Skip, run, runs_programs, test


def sample(*parts):
    path = os.path.join(SAMPLES, *parts)
    if not os.path.exists(path):
        raise Skip(f"shared sample {path} is absent")
    return path


def diff(before, after):
    r = run("diff", "--format", "json", before, after)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["summary"]


@test
def diff_of_two_models_is_not_comparable():
    tl = ("kineto", "tracelens")
    bert = sample(*tl, "tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz")
    tsf = sample(*tl, "tests__traces__h100__facebook_timesformer-base-finetuned-k400__1016002.json.gz")
    s = diff(bert, tsf)
    assert s["verdict"] == "not comparable", s
    assert "different models" in s["not_comparable_reason"] and "Bert" in s["not_comparable_reason"], s
    # The same model on two GPUs stays comparable.
    mi300 = sample(*tl, "tests__traces__mi300__gaunernst_bert-small-uncased__1016001.json.gz")
    assert diff(bert, mi300)["not_comparable_reason"] == "", diff(bert, mi300)


@test
def diff_of_an_mi350_run_and_an_mi300x_fragment_is_not_comparable():
    mi350 = sample("rocm", "TraceLens", "908_results.json.gz")
    mi300x = sample("rocm", "batched_gemm", "rocpd-ck_bmm", "28_results.db")
    s = diff(mi350, mi300x)
    assert s["verdict"] == "not comparable", s
    assert "share little work" in s["not_comparable_reason"], s


@test
def diff_without_steps_compares_the_iteration_period_of_the_kernels_repeats():
    pair = ("collection2", "pairs", "nsys-h100-2gpu-mfu-before-after")
    before = sample(*pair, "nsys-ai__tests__fixtures__mfu_2gpu_before.sqlite")
    after = sample(*pair, "nsys-ai__tests__fixtures__mfu_2gpu_after.sqlite")
    s = diff(before, after)
    assert s["verdict"] == "slower", (s["verdict"], s["basis"], s["test"])
    assert "iteration period from kernel repeats" in s["basis"], s["basis"]
    assert s["period_kernels"][0] > 0 and s["period_kernels"][1] > 0, s
    mean = s["iteration_mean_ns"]
    assert 17.0e6 < mean[0] < 18.0e6 and mean[1] > mean[0] * 1.05, mean


_BATCH_PROGRAM = r'''
import sys
import torch
from torch.profiler import ProfilerActivity, profile, schedule

out, batch = sys.argv[1], int(sys.argv[2])
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256),
                            torch.nn.LayerNorm(256))
x = torch.randn(batch, 256)
with torch.no_grad(), profile(activities=[ProfilerActivity.CPU], record_shapes=True,
                              schedule=schedule(wait=0, warmup=1, active=8, repeat=1),
                              on_trace_ready=lambda p: p.export_chrome_trace(out)) as prof:
    for _ in range(9):
        model(x)
        prof.step()
'''


@test
@runs_programs
def diff_of_two_batch_sizes_compares_per_sample():
    # The same model at batch 4 and 64 (a real PyTorch run on the CPU, record_shapes): 16x the
    # samples per step. The verdict is per sample, with the batches named.
    import subprocess
    import sys
    import tempfile

    from harness import need_torch

    need_torch()
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for batch in (4, 64):
            p = os.path.join(tmp, f"b{batch}.json")
            subprocess.run([sys.executable, "-c", _BATCH_PROGRAM, p, str(batch)], check=True)
            paths.append(p)
        s = diff(*paths)
        assert s["batch"] == {"before": 4, "after": 64, "ratio": 16.0, "op": s["batch"]["op"],
                              "unit": "sample"}, s
        assert "per sample: batch 4 vs 64" in s["basis"], s["basis"]
        text = run("diff", *paths).stdout
        assert "per sample" in text, text
        # The same batch on both sides: no batch, compared as is.
        assert diff(paths[0], paths[0])["batch"] is None


@test
def launch_bound_prices_what_launches_cost_not_the_idle_before_them():
    """matmul_result.rpd (issue 56): 13 tiny kernels after launch calls that loaded modules were
    priced at the 20.4 ms of GPU idle before them, what 13 launches cost is ~0.1 ms; a summary
    without a fix to price (low-utilization) is info, not high."""
    path = sample("rocm", "rocmProfileData", "matmul_result.rpd")
    r = run("analyze", "--format", "json", "--min-impact-percent", "0", path)
    assert r.returncode == 0, r.stderr
    findings = json.loads(r.stdout)["findings"]
    storms = [f for f in findings if f["rule"] == "launch-bound"]
    assert all(f["standalone_ns"] < 1_000_000 for f in storms), storms
    util = [f for f in findings if f["rule"] == "low-utilization"]
    assert util and all(f["severity"] == "info" for f in util), util
