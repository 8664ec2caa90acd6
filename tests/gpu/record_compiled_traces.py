"""Records traces of torch.compile'd training steps (Triton kernels launched through the driver,
and CUDA graphs), the kind of program the other recordings do not cover.

usage: record_compiled_traces.py OUTDIR            torch.profiler traces:
           compiled.pt.trace.json     mode="default": Inductor's Triton kernels, cuLaunchKernel
           cudagraphs.pt.trace.json   mode="reduce-overhead": the step replayed as a CUDA graph
           eager.pt.trace.json        the same step without torch.compile (to diff against)
         and beside each NAME.key_averages.json (profiled_recording.py)
       record_compiled_traces.py --plain MODE       the same steps without a profiler (MODE
                                                    default|reduce-overhead|eager), for `collect`
       --only MODE records that mode's trace only
       record_compiled_traces.py --plain MODE --capture-steps N   after the warm-up (compilation),
           N steps between torch.cuda.profiler.start()/stop() (collect --capture-range=cudaProfilerApi)
       record_compiled_traces.py --plain MODE --profile-steps N KEY_AVERAGES.json   the same N steps
           under torch.profiler (CPU+CUDA, shapes); its key_averages() for compare_ops.py
"""
import argparse
import os

import torch
from profiled_recording import record, warm
from torch import nn


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

    compiled = train if mode == "eager" else torch.compile(train, mode=mode)

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = compiled(x, target)
        optimizer.step()
        return loss

    return step


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir", nargs="?")
    parser.add_argument("--only", choices=("default", "reduce-overhead", "eager"), help="record this mode only")
    parser.add_argument("--plain", choices=("default", "reduce-overhead", "eager"))
    parser.add_argument("--steps", type=int, default=20, help="--plain: the warm-up steps")
    parser.add_argument("--capture-steps", type=int, default=0)
    parser.add_argument("--profile-steps", nargs=2, metavar=("N", "KEY_AVERAGES"))
    args = parser.parse_args()
    if args.plain:
        step = make_step(args.plain)
        warm(step, args.steps)
        print(f"{args.plain}: {args.steps} steps")
        if args.capture_steps:
            torch.cuda.profiler.start()
            warm(step, args.capture_steps)
            torch.cuda.profiler.stop()
        if args.profile_steps:
            from compare_ops import write_key_averages
            from torch.profiler import ProfilerActivity, profile
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
                warm(step, int(args.profile_steps[0]))
            write_key_averages(prof, args.profile_steps[1])
        return
    os.makedirs(args.outdir, exist_ok=True)
    for mode, name in (("default", "compiled"), ("reduce-overhead", "cudagraphs"), ("eager", "eager")):
        if args.only in (None, mode):
            record(make_step(mode), os.path.join(args.outdir, name + ".pt.trace.json"))


if __name__ == "__main__":
    main()
