"""The model both examples run (kept in one place so that slow and fast differ only in how they
feed it and post-process its output)."""
import torch


class TinyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(512, 512)
        self.fc2 = torch.nn.Linear(512, 64)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def pick_device():
    """"cuda" when PyTorch sees a GPU (CUDA or ROCm build), else "cpu" with one intra-op thread:
    on a shared CPU, torch's thread pool waits on threads other processes hold (a 0.3 ms matmul
    of TinyNet took 24 ms on a loaded 2-core machine), which would drown the patterns shown."""
    if torch.cuda.is_available():
        return "cuda"
    torch.set_num_threads(1)
    return "cpu"
