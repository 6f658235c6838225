#!/usr/bin/env python3
"""Profiles a small inference loop with the PyTorch profiler and writes a Kineto trace.

This is the trace the README's main job reads until `gpuscope run` exists. The model is small
and its post-processing has the classic slow pattern: a per-element Python loop with `.item()`
calls. Runs on CPU, or on the GPU when one is present (then kernels and copies appear too).

usage: make_example_trace.py [OUT.json]   (default: example_trace.json next to this file)
"""
import os
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile, schedule


class TinyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(256, 256)
        self.fc2 = torch.nn.Linear(256, 16)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def slow_postprocess(logits):
    # One Python iteration and one .item() per element: a storm of tiny ops.
    out = []
    for v in logits[0]:
        out.append(1.0 if v.item() > 0 else 0.0)
    return out


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "example_trace.json")
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    model = TinyNet().to(device).eval()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    steps = 8
    with profile(activities=activities, schedule=schedule(wait=1, warmup=1, active=5, repeat=1),
                 on_trace_ready=lambda p: p.export_chrome_trace(out),
                 record_shapes=True, with_stack=True) as prof:
        for _ in range(steps):
            t0 = time.perf_counter()
            x = torch.randn(32, 256).to(device)
            with torch.no_grad():
                logits = model(x)
            slow_postprocess(logits)
            prof.step()
            print(f"step latency {1e3 * (time.perf_counter() - t0):.2f} ms")
    print(f"trace written to {out}")


if __name__ == "__main__":
    main()
