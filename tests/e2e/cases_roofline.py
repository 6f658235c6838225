"""End-to-end: `gpuscope roofline` and `help roofline` on runs of tests/planted/simulate.py (a
GEMM with recorded shapes on a named H100), in every output format and after conversion."""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

from harness import DATA, run, test

SIM = os.path.join(os.path.dirname(DATA), "planted", "simulate.py")
sys.path.insert(0, os.path.dirname(SIM))
import simulate  # noqa: E402 - the simulator's own GEMM shapes and timings


def simulated(tmp):
    subprocess.run([sys.executable, SIM, tmp], check=True)
    return os.path.join(tmp, "gpu_slow_gemm.json")


@test
def roofline_prices_the_simulated_gemm_against_the_h100():
    with tempfile.TemporaryDirectory() as tmp:
        path = simulated(tmp)
        r = run("roofline", "--format", "json", path)
        assert r.returncode == 0, r.stderr
        d = json.loads(r.stdout)
        assert d["device"]["key"] == "H100-SXM" and d["device"]["identified"] == "named in the trace", d["device"]
        assert d["device"]["peak_tflops"]["bf16"] == 989.4 and d["device"]["source"], d["device"]
        gemm = [o for o in d["ops"] if o["op"] == "aten::linear"]
        assert len(gemm) == 1, d["ops"]
        g = gemm[0]
        m, n, k = simulate.GEMM[True]
        calls = simulate.STEPS * 8
        # Independent of the work models: the simulator's own shapes and kernel times.
        assert g["calls"] == calls and g["flops"] == calls * 2 * m * n * k, g
        assert g["shape"] == f"{m}x{k}, {n}x{k}" and g["dtype"] == "bf16" and g["bound"] == "compute", g
        assert g["gpu_ns"] == calls * 2 * simulate.gemm_ns(True), g
        # Untuned (twice the tuned time, which is TUNED of the peak): half of TUNED.
        assert abs(g["percent_of_bound"] - 100 * simulate.TUNED / 2) < 0.1, g["percent_of_bound"]
        assert g["kernels"] == [{"name": "gemm_kernel", "count": calls, "gpu_ns": g["gpu_ns"]}], g["kernels"]
        # Every kernel is accounted for: modelled or listed with its reason.
        listed = sum(o["gpu_ns"] for o in d["ops"]) + sum(u["gpu_ns"] for u in d["unmodelled"])
        assert listed == d["kernel_ns"], (listed, d["kernel_ns"])
        assert all(u["why"] for u in d["unmodelled"]), d["unmodelled"]
        # --device overrides; the percentage follows the other peak.
        b200 = json.loads(run("roofline", "--format", "json", "--device", "B200", path).stdout)
        g2 = [o for o in b200["ops"] if o["op"] == "aten::linear"][0]
        assert abs(g2["percent_of_bound"] / g["percent_of_bound"] - 989.4 / 2250) < 1e-4, (g2, g)
        # CSV: the ops table; the terminal: the device, its source and the table.
        rows = list(csv.DictReader(io.StringIO(run("roofline", "--format", "csv", path).stdout)))
        assert [r["op"] for r in rows] == [o["op"] for o in d["ops"]] and int(rows[0]["flops"]) == d["ops"][0]["flops"], rows[:1]
        text = run("roofline", path).stdout
        assert "NVIDIA H100 SXM5 80GB (named in the trace)" in text and "source: NVIDIA H100" in text, text[:400]
        assert "aten::linear" in text and "% of bound" in text, text


@test
def roofline_survives_conversion_and_explains_what_it_cannot_do():
    with tempfile.TemporaryDirectory() as tmp:
        path = simulated(tmp)
        want = json.loads(run("roofline", "--format", "json", path).stdout)["ops"]
        for ext in (".rpd", ".json.gz"):
            out = os.path.join(tmp, "copy" + ext)
            assert run("convert", path, "-o", out).returncode == 0
            got = json.loads(run("roofline", "--format", "json", out).stdout)["ops"]
            assert got == want, (ext, got[:1], want[:1])
        # A trace without shapes: every kernel unmodelled, with the reason; no device: no percentages.
        r = run("roofline", "--format", "json", os.path.join(DATA, "kineto_cuda_small.json"))
        assert r.returncode == 0, r.stderr
        d = json.loads(r.stdout)
        assert all(o["percent_of_bound"] is None for o in d["ops"]) or d["device"]["name"], d
        assert d["unmodelled"] and all(u["why"] for u in d["unmodelled"]), d["unmodelled"]
        # Unknown device: one line, exit 2, the known ones listed.
        r = run("roofline", "--device", "TPUv5", path)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "MI300X" in r.stderr, r.stderr
        r = run("analyze", "--device", "TPUv5", path)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr


@test
def help_roofline_is_the_documented_list():
    r = run("help", "roofline", "--format", "markdown")
    assert r.returncode == 0, r.stderr
    with open(os.path.join(os.path.dirname(DATA), "..", "docs", "roofline.md")) as f:
        assert f.read() == r.stdout, "docs/roofline.md is stale: gpuscope help roofline --format markdown > docs/roofline.md"
    d = json.loads(run("help", "roofline", "--format", "json").stdout)
    keys = [x["key"] for x in d["devices"]]
    for want in ("A100-SXM-80GB", "H100-SXM", "H100-PCIe", "H200", "B200", "MI210", "MI250X", "MI300X", "MI325X", "MI355X"):
        assert want in keys, (want, keys)
    assert all(x["source"] for x in d["devices"]) and {m["family"] for m in d["models"]} >= {"gemm", "attention", "convolution"}


@test
def roofline_of_the_shapes_fixture_matches_hand_computed_work():
    """tests/data/kineto_shapes_small.json: one call per family, FLOPs and bytes worked out by
    hand from the shapes written in make_fixtures.py."""
    d = json.loads(run("roofline", "--format", "json", os.path.join(DATA, "kineto_shapes_small.json")).stdout)
    assert d["device"]["key"] == "MI300X", d["device"]
    ops = {o["op"]: o for o in d["ops"]}
    hand = {
        "aten::addmm": (2 * 128 * 512 * 256, (512 + 128 * 256 + 256 * 512 + 128 * 512) * 2),
        "aten::_scaled_dot_product_flash_attention": (4 * 2 * 8 * (128 * 129 // 2) * 64, 4 * 2 * 8 * 128 * 64 * 2),
        "aten::convolution": (2 * 64 * 112 * 112 * 3 * 49, (3 * 224 * 224 + 64 * 3 * 49 + 64 * 112 * 112 + 64) * 4),
        "aten::clamp_min": (1024 * 1024, 2 * 1024 * 1024 * 4),
        "aten::_scaled_mm": (2 * 256 * 128 * 512, 256 * 512 + 512 * 128 + 256 * 128 * 2),
    }
    assert set(ops) == set(hand), sorted(ops)
    for name, (flops, nbytes) in hand.items():
        assert (ops[name]["flops"], ops[name]["bytes"]) == (flops, nbytes), (name, ops[name], flops, nbytes)
    assert ops["aten::_scaled_mm"]["dtype"] == "fp8" and ops["aten::convolution"]["dtype"] == "fp32"
    # The relu's bandwidth: 8 MiB in 4 us against 5.3 TB/s.
    assert abs(ops["aten::clamp_min"]["percent_of_bound"] - 100 * (8 * 1024 * 1024 / 5.3e3) / 4000) < 0.01
    why = {u["op"]: u["why"] for u in d["unmodelled"]}
    assert "KV cache" in why["vllm::unified_attention_with_output"], why
    assert "record_shapes" in why["aten::mm"] and why["aten::nonzero"] == "no work model for aten::nonzero", why
