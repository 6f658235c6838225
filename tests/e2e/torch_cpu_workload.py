#!/usr/bin/env python3
"""A real PyTorch program profiled on the CPU (torch.profiler, record_shapes, Python stacks):

  torch_cpu_workload.py OUT.json slow|fast

slow: a per-element Python activation loop and an .item() every step (the problems analyze must
find); fast: the same computation vectorised with torch.where, no per-step .item().
"""
import sys

import torch
from torch.profiler import ProfilerActivity, profile, schedule


def slow_activation(x):
    out = torch.empty_like(x)
    for i in range(x.shape[0]):  # per-element Python loop: select / gt / mul / copy_ per element
        v = x[i]
        out[i] = v if v > 0 else v * 0.1
    return out


def fast_activation(x):
    return torch.where(x > 0, x, x * 0.1)


def main():
    out, mode = sys.argv[1], sys.argv[2]
    torch.manual_seed(0)
    model = torch.nn.Linear(64, 64)
    data = torch.randn(8, 64)
    act = slow_activation if mode == "slow" else fast_activation
    total = 0.0
    # One warm-up step, then 6 recorded steps (ProfilerStep#N marks them); the trace is written
    # when the active cycle ends.
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True, with_stack=True,
                 schedule=schedule(wait=0, warmup=1, active=6, repeat=1),
                 on_trace_ready=lambda p: p.export_chrome_trace(out)) as prof:
        for _ in range(7):
            y = act(model(data).flatten()[:256])
            if mode == "slow":
                total += y.sum().item()  # a host sync every step
            prof.step()
    print(f"{mode}: {total:.3f}")


if __name__ == "__main__":
    main()
