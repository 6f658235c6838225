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
