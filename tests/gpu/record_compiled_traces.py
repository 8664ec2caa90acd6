"""Records traces of torch.compile'd training steps (Triton kernels launched through the driver,
and CUDA graphs), the kind of program the other recordings do not cover.

usage: record_compiled_traces.py OUTDIR            torch.profiler traces:
           compiled.pt.trace.json     mode="default": Inductor's Triton kernels, cuLaunchKernel
           cudagraphs.pt.trace.json   mode="reduce-overhead": the step replayed as a CUDA graph
         and beside each NAME.key_averages.json: torch's own key_averages() of the same session
         (one row per key, as tests/data/reference/mlp_ops.key_averages.json)
       record_compiled_traces.py --plain MODE       the same steps without a profiler (MODE
                                                    default|reduce-overhead), for `collect`
Each profiled trace holds 3 ProfilerSteps (wait 1, warm-up 1) with shapes and memory.
"""
import argparse
import json
import os

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, schedule


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


def make_step(mode):
    torch.manual_seed(0)
    model = nn.Sequential(*[Block(256) for _ in range(4)]).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, capturable=mode == "reduce-overhead")
    x = torch.randn(64, 128, 256, device="cuda")
    target = torch.randn(64, 128, 256, device="cuda")

    def train(inputs, wanted):
        loss = torch.nn.functional.mse_loss(model(inputs), wanted)
        loss.backward()
        return loss

    compiled = torch.compile(train, mode=mode)

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = compiled(x, target)
        optimizer.step()
        return loss

    return step


def warm(step, count=5):
    for _ in range(count):
        step()
    torch.cuda.synchronize()


def record(mode, path):
    step = make_step(mode)
    warm(step)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 profile_memory=True, schedule=schedule(wait=1, warmup=1, active=3)) as prof:
        for _ in range(5):
            step()
            prof.step()
    torch.cuda.synchronize()
    prof.export_chrome_trace(path)
    print(f"{path}: {os.path.getsize(path)} bytes")
    rows = [{"name": e.key, "count": e.count, "self_cpu_us": e.self_cpu_time_total, "cpu_total_us": e.cpu_time_total,
             "self_device_us": e.self_device_time_total, "device_total_us": e.device_time_total}
            for e in prof.key_averages()]
    with open(path.replace(".pt.trace.json", ".key_averages.json"), "w") as f:
        json.dump(rows, f, indent=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir", nargs="?")
    parser.add_argument("--plain", choices=("default", "reduce-overhead"))
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    if args.plain:
        step = make_step(args.plain)
        warm(step, args.steps)
        print(f"{args.plain}: {args.steps} steps")
        return
    os.makedirs(args.outdir, exist_ok=True)
    record("default", os.path.join(args.outdir, "compiled.pt.trace.json"))
    record("reduce-overhead", os.path.join(args.outdir, "cudagraphs.pt.trace.json"))


if __name__ == "__main__":
    main()
