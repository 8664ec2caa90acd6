"""Records eager training steps of model kinds the other recordings do not cover, with torch's own
key_averages() of the same session (profiled_recording.py):

usage: record_eager_models.py OUTDIR
  cnn_amp.pt.trace.json  a small ResNet-style CNN (conv2d, batch norm, ReLU, residual adds,
                         channels_last) under bf16 autocast, SGD with momentum: cuDNN kernels
  lstm.pt.trace.json     a 2-layer LSTM over 64 steps and a linear head, Adam: cuDNN RNN kernels
                         on streams of their own
"""
import os
import sys

import torch
from profiled_recording import record
from torch import nn


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(x + self.bn2(self.conv2(y)))


def cnn_step():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), ResidualBlock(64), ResidualBlock(64),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)).cuda()
    model = model.to(memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    images = torch.randn(64, 3, 64, 64, device="cuda").to(memory_format=torch.channels_last)
    labels = torch.randint(0, 10, (64,), device="cuda")

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()

    return step


def lstm_step():
    torch.manual_seed(0)
    lstm = nn.LSTM(128, 256, num_layers=2, batch_first=True).cuda()
    head = nn.Linear(256, 32).cuda()
    optimizer = torch.optim.Adam(list(lstm.parameters()) + list(head.parameters()), lr=1e-3)
    sequence = torch.randn(32, 64, 128, device="cuda")
    target = torch.randn(32, 32, device="cuda")

    def step():
        optimizer.zero_grad(set_to_none=True)
        out, _ = lstm(sequence)
        loss = nn.functional.mse_loss(head(out[:, -1]), target)
        loss.backward()
        optimizer.step()

    return step


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    record(cnn_step(), os.path.join(sys.argv[1], "cnn_amp.pt.trace.json"))
    record(lstm_step(), os.path.join(sys.argv[1], "lstm.pt.trace.json"))


if __name__ == "__main__":
    main()
