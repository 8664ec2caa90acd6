"""PyTorch workloads for the collector's GPU test and overhead figures.

usage: torch_workload.py MODE [--profiler] [--iters N]
  train   a few steps of matmul + relu under NVTX ranges ("step", nested "forward")
  launch  launch-bound: N tiny in-place adds on a 1-element tensor (default 200000)
  gpu     GPU-bound: bf16 4096x4096 matmuls (default 400)
--profiler wraps the timed loop in torch.profiler (CUDA activities), for comparison.
Prints "<mode>: <seconds> s" for the timed loop.
"""
import argparse
import contextlib
import time

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["train", "launch", "gpu"])
    parser.add_argument("--profiler", action="store_true")
    parser.add_argument("--iters", type=int, default=0)
    args = parser.parse_args()

    device = torch.device("cuda")
    if args.mode == "train":
        iters = args.iters or 5
        x = torch.randn(512, 512, device=device)
        w = torch.randn(512, 512, device=device)

        def step():
            for _ in range(iters):
                torch.cuda.nvtx.range_push("step")
                torch.cuda.nvtx.range_push("forward")
                y = torch.relu(x @ w)
                torch.cuda.nvtx.range_pop()
                y.sum().item()
                torch.cuda.nvtx.range_pop()
    elif args.mode == "launch":
        iters = args.iters or 200000
        t = torch.zeros(1, device=device)

        def step():
            for _ in range(iters):
                t.add_(1)
    else:
        iters = args.iters or 400
        a = torch.randn(4096, 4096, device=device, dtype=torch.bfloat16)
        b = torch.randn(4096, 4096, device=device, dtype=torch.bfloat16)

        def step():
            for _ in range(iters):
                torch.mm(a, b)

    torch.cuda.synchronize()
    context = contextlib.nullcontext()
    if args.profiler:
        from torch.profiler import ProfilerActivity, profile
        context = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    start = time.perf_counter()
    with context as prof:
        step()
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    print(f"{args.mode}: {seconds:.3f} s")
    if args.profiler:
        kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
        print(f"{args.mode}: torch.profiler saw {kernels} GPU events")


if __name__ == "__main__":
    main()
