#!/usr/bin/env python3
"""Records two small torch.profiler traces with known problems, for the insights tests:
  launchbound.pt.trace.json.gz  many tiny ops per step (GPU starved by launch overhead)
  slowloader.pt.trace.json.gz   a DataLoader whose __getitem__ sleeps (GPU idle while loading)
Usage: record_insight_traces.py OUTDIR   (needs a CUDA GPU and PyTorch)."""
import os
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile, schedule

out = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(out, exist_ok=True)
dev = torch.device("cuda")


def profiled(name, steps, body):
    path = os.path.join(out, name)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 schedule=schedule(wait=1, warmup=1, active=3),
                 on_trace_ready=lambda p: p.export_chrome_trace(path)) as prof:
        for i in range(steps):
            body(i)
            prof.step()
    torch.cuda.synchronize()
    print(name, os.path.getsize(path), "bytes")


# 1. Launch-bound: ten tiny Linear+ReLU+add layers on a 16x64 batch, forward and backward.
layers = torch.nn.ModuleList(torch.nn.Linear(64, 64) for _ in range(10)).to(dev)
opt = torch.optim.SGD(layers.parameters(), lr=0.01)
x = torch.randn(16, 64, device=dev)


def tiny_step(_):
    h = x
    for layer in layers:
        h = torch.relu(layer(h)) + h
    h.sum().backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


for _ in range(20):
    tiny_step(0)
torch.cuda.synchronize()
profiled("launchbound.pt.trace.json.gz", 5, tiny_step)


# 2. Slow data loading: each sample takes 1.5 ms to "decode" on the main process.
class SlowDataset(torch.utils.data.Dataset):
    def __len__(self):
        return 10_000

    def __getitem__(self, i):
        time.sleep(0.0015)
        return torch.randn(512), torch.randint(0, 10, ())


model = torch.nn.Sequential(torch.nn.Linear(512, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 10)).to(dev)
opt2 = torch.optim.SGD(model.parameters(), lr=0.01)
loader_iter = iter(torch.utils.data.DataLoader(SlowDataset(), batch_size=16, num_workers=0))


def loader_step(_):
    xb, yb = next(loader_iter)
    xb, yb = xb.to(dev), yb.to(dev)
    loss = torch.nn.functional.cross_entropy(model(xb), yb)
    loss.backward()
    opt2.step()
    opt2.zero_grad(set_to_none=True)


profiled("slowloader.pt.trace.json.gz", 5, loader_step)
