"""The three loops of the collector-overhead benchmark (issue 34).

usage: workloads.py --modes MODE[,MODE...] [--t0 EPOCH_S] [--small-steps N] [--gemm-steps N] [--tf-steps N]
                    [--trace-dir DIR]
  Builds the three workloads and warms each up (untimed). Then, for each MODE in turn, in this
  one process: starts that mode's profiler, times the three loops one after the other (CUDA
  synchronised at each timer's start and stop), stops the profiler and, for torch.profiler,
  writes its trace into DIR. Prints per mode and loop "RESULT <mode> <loop> <seconds> <steps>"
  (steady state: every profiler started before and stopped after the timers) and
  "E2E <mode> <seconds>": this process's start-up (from --t0, the driver's clock when it
  started the process, to the end of the warm-up) plus the mode's time from starting its
  profiler to its trace on disk, i.e. what a process running only that mode would take to get
  its trace on disk (without the interpreter's exit). Under `kinetoscope-cli collect` run it
  with --modes plain: the collector is on for the whole process and the driver times it.
  small  ten Linear(64,64)+ReLU+residual add, MSE loss, backward, SGD (launch-bound)
  gemm   bf16 8192x8192x8192 matrix products (GPU-bound)
  tf     a 4-layer transformer encoder (d_model 1024, 16 heads, batch 16x512, bf16 autocast)
         training step with AdamW
MODES: plain, prof-cuda, prof-cpu, prof-cpu-shapes, prof-cpucuda, prof-cpucuda-shapes
(torch.profiler), nvtx, nvtx-shapes (torch.autograd.profiler.emit_nvtx alone).
"""
import argparse
import contextlib
import os
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
    layer = torch.nn.TransformerEncoderLayer(d_model=1024, nhead=16, dim_feedforward=4096, batch_first=True)
    model = torch.nn.Sequential(torch.nn.TransformerEncoder(layer, num_layers=4), torch.nn.Linear(1024, 1000)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(16, 512, 1024, device=device)
    labels = torch.randint(0, 1000, (16, 512), device=device)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x)
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 1000).float(), labels.reshape(-1))
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
    if mode in ("plain", "plain-after"):  # plain-after: plain again, after every profiler ran
        return contextlib.nullcontext()
    raise SystemExit("workloads.py: unknown mode '%s'" % mode)


def run_mode(mode, loops, trace_dir):
    """Times the loops under MODE's profiler; returns [(loop, seconds, steps)] and the seconds
    from starting the profiler to its trace on disk."""
    start_mode = time.perf_counter()
    profiler = profiler_for(mode)
    results = []
    with profiler as prof:
        for name, step, steps in loops:
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(steps):
                step()
            torch.cuda.synchronize()
            results.append((name, time.perf_counter() - start, steps))
    if mode in PROFILER_MODES and trace_dir:
        path = os.path.join(trace_dir, "trace.%s.json" % mode)
        prof.export_chrome_trace(path)
        os.remove(path)  # on disk was the point; keep the tmpfs small
    return results, time.perf_counter() - start_mode


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--modes", default="plain")
    parser.add_argument("--t0", type=float, default=0.0)
    parser.add_argument("--small-steps", type=int, default=200)
    parser.add_argument("--gemm-steps", type=int, default=100)
    parser.add_argument("--tf-steps", type=int, default=20)
    parser.add_argument("--trace-dir", default="")
    args = parser.parse_args()
    device = torch.device("cuda")
    torch.manual_seed(0)
    loops = [("small", small_loop(device), args.small_steps), ("gemm", gemm_loop(device), args.gemm_steps),
             ("tf", transformer_loop(device), args.tf_steps)]
    for _, step, _ in loops:  # warm-up: allocator, cuBLAS handles, AdamW state
        for _ in range(5):
            step()
    torch.cuda.synchronize()
    startup = time.time() - args.t0 if args.t0 else 0.0
    for mode in args.modes.split(","):
        results, seconds = run_mode(mode, loops, args.trace_dir)
        for name, loop_seconds, steps in results:
            print("RESULT %s %s %.6f %d" % (mode, name, loop_seconds, steps), flush=True)
        print("E2E %s %.3f" % (mode, startup + seconds), flush=True)


if __name__ == "__main__":
    main()
