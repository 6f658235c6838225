#!/usr/bin/env python3
"""A small inference loop with the classic slow patterns (run it under `gpuscope run`):

- the input batch is copied to the device every step from pageable memory, with a blocking copy;
- post-processing applies a leaky activation with a per-element Python loop;
- every step calls .item() to log a running score (a host sync on a GPU).

Runs on the GPU when one is present (CUDA or ROCm build of PyTorch), else on the CPU, and prints
its own per-step latency. inference_fast.py is the same computation done right.
"""
import time

import torch
from tinynet import TinyNet, pick_device

STEPS = 30


def slow_activation(y):
    out = torch.empty_like(y)
    for i in range(y.shape[0]):  # one Python iteration and several tiny ops per element
        v = y[i]
        out[i] = v if v > 0 else v * 0.01
    return out


def main():
    device = pick_device()
    torch.manual_seed(0)
    model = TinyNet().to(device).eval()
    batches = [torch.randn(32, 512) for _ in range(STEPS)]  # pageable host memory
    score = 0.0
    times = []
    with torch.no_grad():
        for step, batch in enumerate(batches):
            t0 = time.perf_counter()
            with torch.profiler.record_function(f"step {step}"):
                x = batch.to(device)  # blocking copy from pageable memory
                logits = model(x).flatten()[:256]
                y = slow_activation(logits)
                score += y.sum().item()  # host sync every step
            times.append(time.perf_counter() - t0)
    times.sort()
    print(f"inference_slow on {device}: median step {1e3 * times[len(times) // 2]:.2f} ms, score {score:.3f}")


if __name__ == "__main__":
    main()
