#!/usr/bin/env python3
"""One problem, on or off: the programs of scripts/gpu-pairs, which runs each under `gpuscope run`
and compares the saving `analyze` predicts for the problem's finding with the step time the
program loses to it (the run with the problem off is the fix).

  gpu_pairs.py --case pageable|item|tiny_loop|loader --problem on|off [--steps N]

- pageable:  each step copies a 64 MB batch from pageable memory (on) / from pinned memory,
             non-blocking (off);
- item:      each step reads its loss back with .item() (on) / keeps it on the device (off);
- tiny_loop: each step adds 256 rows one tiny op at a time (on) / in one op (off);
- loader:    each step's batch is prepared on the launching thread, 5 ms each (on) / by two
             DataLoader workers (off).
Every step is a record_function("step N") range. Runs on the CPU when no GPU is present (for a
smoke test of the harness: the GPU problems then cost little or nothing).
"""
import argparse
import time

import torch


class Batches(torch.utils.data.Dataset):
    """A batch that takes 5 ms of host work to prepare (decoding, augmentation)."""

    def __len__(self):
        return 10 ** 6

    def __getitem__(self, i):
        time.sleep(0.005)
        return torch.full((256, 1024), float(i % 7))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", required=True, choices=["pageable", "item", "tiny_loop", "loader"])
    ap.add_argument("--problem", required=True, choices=["on", "off"])
    ap.add_argument("--steps", type=int, default=12)
    a = ap.parse_args()
    on = a.problem == "on"
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    w = torch.randn(1024, 1024, device=dev)
    host = torch.randn(16 << 20)  # 64 MB
    if not on and dev == "cuda":
        host = host.pin_memory()
    loader = None
    if a.case == "loader":
        loader = iter(torch.utils.data.DataLoader(Batches(), batch_size=None,
                                                  num_workers=0 if on else 2))
    total = torch.zeros((), device=dev)
    times = []
    for step in range(a.steps):
        t0 = time.perf_counter()
        with torch.profiler.record_function(f"step {step}"):
            x = torch.randn(256, 1024, device=dev)
            if a.case == "pageable":
                x = x + host.to(dev, non_blocking=not on)[: 256 * 1024].view(256, 1024)
            if a.case == "loader":
                x = x + next(loader).to(dev, non_blocking=True)
            y = torch.relu(x @ w)
            if a.case == "tiny_loop":
                if on:
                    for r in range(256):
                        y[r] += 1.0
                else:
                    y += 1.0
            loss = y.square().mean()
            if a.case == "item" and on:
                total += loss.item()
            else:
                total += loss
        if dev == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    times.sort()
    print(f"{a.case} {a.problem} on {dev}: median step {1e3 * times[len(times) // 2]:.2f} ms, "
          f"total {float(total):.1f}")


if __name__ == "__main__":
    main()
