"""The three loops of the collector-overhead benchmark (issue 34), one process per run.

usage: workloads.py --mode MODE [--small-steps N] [--gemm-steps N] [--tf-steps N] [--trace FILE]
  Builds the three workloads, warms each up (untimed), then starts the profiler of MODE (if
  any), times the three loops one after the other (CUDA synchronised at each timer's start and
  stop), stops the profiler and, for torch.profiler, writes its trace to FILE. Prints one line
  per loop: "RESULT <loop> <seconds> <steps>". Under `kinetoscope-cli collect` run it with
  --mode plain: the collector is on for the whole process.
  small  ten Linear(64,64)+ReLU+residual add, MSE loss, backward, SGD (launch-bound)
  gemm   bf16 8192x8192x8192 matrix products (GPU-bound)
  tf     a 4-layer transformer encoder (d_model 512, batch 16x128) training step with AdamW
MODES: plain, prof-cuda, prof-cpu, prof-cpu-shapes, prof-cpucuda, prof-cpucuda-shapes
(torch.profiler), nvtx, nvtx-shapes (torch.autograd.profiler.emit_nvtx alone).
"""
import argparse
import contextlib
import time

import torch

PROFILER_MODES = {
    "prof-cuda": (("CUDA",), False),
    "prof-cpu": (("CPU",), False),
    "prof-cpu-shapes": (("CPU",), True),
    "prof-cpucuda": (("CPU", "CUDA"), False),
    "prof-cpucuda-shapes": (("CPU", "CUDA"), True),
}


def small_loop(device):
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


def gemm_loop(device):
    a = torch.randn(8192, 8192, device=device, dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device=device, dtype=torch.bfloat16)
    c = torch.empty(8192, 8192, device=device, dtype=torch.bfloat16)

    def step():
        torch.matmul(a, b, out=c)

    return step


def transformer_loop(device):
    layer = torch.nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048, batch_first=True)
    model = torch.nn.Sequential(torch.nn.TransformerEncoder(layer, num_layers=4), torch.nn.Linear(512, 1000)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(16, 128, 512, device=device)
    labels = torch.randint(0, 1000, (16, 128), device=device)

    def step():
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 1000), labels.reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    return step


def profiler_for(mode):
    if mode in PROFILER_MODES:
        kinds, shapes = PROFILER_MODES[mode]
        activities = [getattr(torch.profiler.ProfilerActivity, k) for k in kinds]
        return torch.profiler.profile(activities=activities, record_shapes=shapes)
    if mode in ("nvtx", "nvtx-shapes"):
        return torch.autograd.profiler.emit_nvtx(record_shapes=mode == "nvtx-shapes")
    if mode == "plain":
        return contextlib.nullcontext()
    raise SystemExit("workloads.py: unknown mode '%s'" % mode)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="plain")
    parser.add_argument("--small-steps", type=int, default=400)
    parser.add_argument("--gemm-steps", type=int, default=200)
    parser.add_argument("--tf-steps", type=int, default=40)
    parser.add_argument("--trace", default="")
    args = parser.parse_args()
    device = torch.device("cuda")
    torch.manual_seed(0)
    loops = [("small", small_loop(device), args.small_steps), ("gemm", gemm_loop(device), args.gemm_steps),
             ("tf", transformer_loop(device), args.tf_steps)]
    for _, step, _ in loops:  # warm-up: allocator, cuBLAS handles, AdamW state
        for _ in range(5):
            step()
    torch.cuda.synchronize()
    profiler = profiler_for(args.mode)
    results = []
    with profiler as prof:
        for name, step, steps in loops:
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(steps):
                step()
            torch.cuda.synchronize()
            results.append((name, time.perf_counter() - start, steps))
    for name, seconds, steps in results:
        print("RESULT %s %.6f %d" % (name, seconds, steps), flush=True)
    if args.mode in PROFILER_MODES and args.trace:
        prof.export_chrome_trace(args.trace)


if __name__ == "__main__":
    main()
