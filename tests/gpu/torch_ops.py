"""Training loop for the collector's PyTorch-operator test (issue 14) and its overhead figures.

usage: torch_ops.py [--steps N] [--profiler KEY_AVERAGES.json] [--capture-loop] [--capture] [--profiler-steps]
  A launch-bound loop: ten small Linear+ReLU layers with a residual add, MSE loss, backward,
  SGD step. Prints "loop: <seconds> s" for the timed loop (after 3 warm-up steps).
  --profiler  runs the same loop under torch.profiler (CPU+CUDA, record_shapes) and writes
              {key: {count, device_type}} of key_averages() to the file, for comparison with a
              collected trace.
  --capture-loop  wraps exactly what --profiler records (the timed loop and its final synchronize)
              in torch.cuda.profiler.start()/stop(), so that `collect --capture-range=cudaProfilerApi`
              records the same window as torch.profiler (compare_ops.py).
  --capture   wraps only loop steps 5-6 in torch.cuda.profiler.start()/stop() and steps 8-9 in an NVTX
              range "capture_me" (--capture-range tests).
  --profiler-steps  calls torch.profiler.profile.step() every step under a schedule that never records
              (kineto stays off, its ProfilerStep#N scopes reach the collector through emit_nvtx).
"""
import argparse
import contextlib
import time

import torch

from compare_ops import write_key_averages


def small_training_step(device):
    """The launch-bound step: ten Linear(64,64)+ReLU with a residual add, MSE loss, backward,
    SGD. Also the collector-overhead benchmark's small loop (bench/gpu/collector-overhead)."""
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

    return step


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--profiler", default="")
    parser.add_argument("--capture", action="store_true")
    parser.add_argument("--capture-loop", action="store_true")
    parser.add_argument("--profiler-steps", action="store_true")
    args = parser.parse_args()
    device = torch.device("cuda")
    torch.manual_seed(0)
    step = small_training_step(device)
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    context = contextlib.nullcontext()
    if args.profiler:
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        context = torch.profiler.profile(activities=activities, record_shapes=True)
    elif args.profiler_steps:
        never = torch.profiler.schedule(wait=10 ** 9, warmup=0, active=1)
        context = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=never)
    if args.capture_loop:
        torch.cuda.profiler.start()
    start = time.perf_counter()
    with context as prof:
        for i in range(args.steps):
            if args.capture and i == 5:
                torch.cuda.synchronize()
                torch.cuda.profiler.start()
            if args.capture and i == 8:
                torch.cuda.nvtx.range_push("capture_me")
            step()
            if args.capture and i == 6:
                torch.cuda.synchronize()
                torch.cuda.profiler.stop()
            if args.capture and i == 9:
                torch.cuda.nvtx.range_pop()
            if args.profiler_steps:
                prof.step()
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    if args.capture_loop:
        torch.cuda.profiler.stop()
    print("loop: %.3f s" % seconds, flush=True)
    if args.profiler:
        write_key_averages(prof, args.profiler)


if __name__ == "__main__":
    main()
