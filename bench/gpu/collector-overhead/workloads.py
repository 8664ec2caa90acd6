"""The three loops of the collector-overhead benchmark (issue 34).

usage: workloads.py --modes MODE[,MODE...] [--t0 EPOCH_S] [--small-steps N] [--gemm-steps N] [--tf-steps N]
                    [--cpuop-steps N] [--trace-dir DIR] [--observer LIBRARY]
  Builds the three workloads and warms each up (untimed). Then, for each MODE in turn, in this
  one process: starts that mode's profiler, times the three loops one after the other (CUDA
  synchronised at each timer's start and stop), stops the profiler and, for torch.profiler,
  writes its trace into DIR. Prints per mode and loop "RESULT <mode> <loop> <seconds> <steps>"
  (steady state: every profiler started before and stopped after the timers) and
  "E2E <mode> <seconds>": this process's start-up (from --t0, the driver's clock when it
  started the process, to the end of the warm-up) plus the mode's time from starting its
  profiler to its trace on disk, i.e. what a process running only that mode would take to get
  its trace on disk (without the interpreter's exit). Also "MARK ready <epoch s>" at the end of
  the warm-up and "MARK end <epoch s>" as main() returns: the driver times the interpreter's exit
  (and, under `collect`, the collector's work after it) from there. Under `kinetoscope-cli
  collect` run it with --modes plain: the collector is on for the whole process and the driver
  times it.
  small  ten Linear(64,64)+ReLU+residual add, MSE loss, backward, SGD (launch-bound)
  gemm   bf16 8192x8192x8192 matrix products (GPU-bound)
  tf     a 4-layer transformer encoder (d_model 1024, 16 heads, batch 64x512, bf16 autocast)
         training step with AdamW (GPU-bound: ~4x the GPU work of the CPU's dispatch)
  cpuop  torch.atan2 on one-element CPU tensors: one operator a step and no CUDA, so the
         difference to plain is an operator source's cost per RecordFunction call; under
         `collect --pytorch=ops|ops-shapes` also "cpuop-paused", the same loop in the same
         process with the collector's observer paused: the observer's cost per operator
MODES: plain, prof-cuda, prof-cpu, prof-cpu-shapes, prof-cpucuda, prof-cpucuda-shapes
(torch.profiler), nvtx, nvtx-shapes (torch.autograd.profiler.emit_nvtx alone), rf-empty,
rf-empty-shapes (a RecordFunction callback of the observer's configuration that does nothing:
RecordFunction's own cost, the floor under any operator source built on it; needs --observer).
With prof-cpu, "OPS cpuop <aten::atan2 events> <steps>" checks that the cpuop loop is one
operator a step.

Paired, in one process: workloads.py --paired ROUNDS --paired-modes MODE[,MODE...] [--block-steps N]
times only the small loop, N steps a block, every MODE once a round in an order rotated by one
each round, after one untimed round of every mode; prints "PAIRED <round> <mode> <seconds>
<steps>", first "PAIRED 0 plain-first ..." (a block before any profiler ran), and per
torch.profiler block "PAIRCHECK <mode> <kernels> <operators>" (what that profiler recorded).
Each block is also an NVTX range "paired ROUND MODE" (paired_blocks.py counts what the collector
recorded in it). Modes besides the torch.profiler ones, under `kinetoscope-cli collect`: plain (CUPTI paused
through the injection's kinetoscope_pause_cupti, the observer paused), collect-cupti (CUPTI on,
the observer paused: the process's --pytorch=off cost), collect (both on), collect-ops (CUPTI
paused, the observer on: its operators alone), collect-nop (both on, but the observer's callbacks
hand nothing to the injection: the observer's own cost, its profiler state included, without the
rings), rf-empty / rf-empty-shapes (CUPTI on, the observer
paused and its do-nothing RecordFunction callback on instead: the floor under any operator source
built on RecordFunction, in this loop, beside our CUPTI). Every torch.profiler
block runs with CUPTI paused (CUPTI's buffers are ours again only after it stopped). So a round's
difference to its own plain is that mode's overhead in this process, paired: the process's own
speed (which differs by up to 2x from one process to the next here) is the same on both sides.

Parity on the transformer step: workloads.py --parity collect|profile --parity-steps N
[--parity-out KEY_AVERAGES.json] warms up and runs only the tf loop, N steps: "collect" wraps
them in torch.cuda.profiler.start()/stop() (for `collect --capture-range=cudaProfilerApi`),
"profile" in torch.profiler (CPU+CUDA, record_shapes) and writes key_averages() as
{key: {count, device_type}} for tests/gpu/compare_ops.py: the same window on both sides.
"""
import argparse
import contextlib
import ctypes
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../tests/gpu"))
from compare_ops import write_key_averages  # noqa: E402 (the format's one writer)
from torch_ops import small_training_step  # noqa: E402 (the operator test's loop is the small loop)

PROFILER_MODES = {
    "prof-cuda": (("CUDA",), False),
    "prof-cpu": (("CPU",), False),
    "prof-cpu-shapes": (("CPU",), True),
    "prof-cpucuda": (("CPU", "CUDA"), False),
    "prof-cpucuda-shapes": (("CPU", "CUDA"), True),
}


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
    x = torch.randn(64, 512, 1024, device=device)
    labels = torch.randint(0, 1000, (64, 512), device=device)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x)
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 1000).float(), labels.reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    return step


def cpuop_loop(_device):
    a, b, c = torch.ones(1), torch.ones(1), torch.empty(1)

    def step():
        torch.atan2(a, b, out=c)

    return step


class EmptyCallback:
    """rf-empty: the observer library's do-nothing RecordFunction callback, on while entered."""

    def __init__(self, library, shapes):
        self._library, self._shapes = library, shapes

    def __enter__(self):
        if self._library.kinetoscope_observer_empty_callback(int(self._shapes), 1) != 0:
            raise SystemExit("workloads.py: the observer library cannot add its empty callback")
        return self

    def __exit__(self, *args):
        self._library.kinetoscope_observer_empty_callback(int(self._shapes), 0)


def profiler_for(mode, observer):
    if mode in PROFILER_MODES:
        kinds, shapes = PROFILER_MODES[mode]
        activities = [getattr(torch.profiler.ProfilerActivity, k) for k in kinds]
        return torch.profiler.profile(activities=activities, record_shapes=shapes)
    if mode in ("nvtx", "nvtx-shapes"):
        return torch.autograd.profiler.emit_nvtx(record_shapes=mode == "nvtx-shapes")
    if mode in ("rf-empty", "rf-empty-shapes"):
        if observer is None:
            raise SystemExit("workloads.py: %s needs --observer" % mode)
        return EmptyCallback(observer, mode == "rf-empty-shapes")
    if mode in ("plain", "plain-after"):  # plain-after: plain again, after every profiler ran
        return contextlib.nullcontext()
    raise SystemExit("workloads.py: unknown mode '%s'" % mode)


def collector_observer():
    """The observer library that the collector's sitecustomize started in this process, or None."""
    injection = os.environ.get("CUDA_INJECTION64_PATH", "")
    path = os.path.join(os.path.dirname(injection), "libkinetoscope_torch_observer.so")
    if not injection or os.environ.get("KINETOSCOPE_PYTORCH", "off") == "off" or not os.path.exists(path):
        return None
    return ctypes.CDLL(path)  # the copy already loaded


def run_mode(mode, loops, trace_dir, observer):
    """Times the loops under MODE's profiler; returns [(loop, seconds, steps)] and the seconds
    from starting the profiler to its trace on disk."""
    start_mode = time.perf_counter()
    profiler = profiler_for(mode, observer)
    results = []
    with profiler as prof:
        for name, step, steps in loops:
            paused = name.endswith("-paused")
            if paused:
                observer.kinetoscope_observer_pause(1)
            results.append((name, time_block(step, steps)[0], steps))
            if paused:
                observer.kinetoscope_observer_pause(0)
    if mode == "prof-cpu":
        steps = dict((name, n) for name, _, n in loops).get("cpuop", 0)
        print("OPS cpuop %d %d" % (sum(1 for e in prof.events() if e.name == "aten::atan2"), steps), flush=True)
    if mode in PROFILER_MODES and trace_dir:
        path = os.path.join(trace_dir, "trace.%s.json" % mode)
        prof.export_chrome_trace(path)
        os.remove(path)  # on disk was the point; keep the tmpfs small
    return results, time.perf_counter() - start_mode


class ObserverForwarding:
    """collect-nop: the observer's callbacks stop short of the injection while entered."""

    def __init__(self, library, on):
        self._library, self._on = library, on

    def __enter__(self):
        self._library.kinetoscope_observer_forward(int(self._on))
        return self

    def __exit__(self, *args):
        self._library.kinetoscope_observer_forward(1)


class PairedModes:
    """The paired modes' profilers: torch.profiler's, and the running collector paused or not."""

    def __init__(self):
        injection = os.environ.get("CUDA_INJECTION64_PATH", "")
        self._injection = ctypes.CDLL(injection) if injection else None  # the copy the driver loaded
        self._observer = collector_observer()

    def _collector(self, cupti_on, ops_on):
        if self._injection is None:
            if cupti_on or ops_on:
                raise SystemExit("workloads.py: collect modes need `kinetoscope-cli collect`")
            return
        if self._injection.kinetoscope_pause_cupti(0 if cupti_on else 1) != 0:
            raise SystemExit("workloads.py: the injection cannot pause or resume CUPTI")
        if self._observer is not None:
            self._observer.kinetoscope_observer_pause(0 if ops_on else 1)

    def enter(self, mode):
        """Sets the collector for MODE; returns the context manager of its torch.profiler, if any."""
        if mode == "collect":
            self._collector(True, True)
        elif mode == "collect-cupti":
            self._collector(True, False)
        elif mode == "collect-ops":
            self._collector(False, True)
        elif mode == "collect-nop":
            if self._observer is None:
                raise SystemExit("workloads.py: collect-nop needs `kinetoscope-cli collect --pytorch=ops` and the observer")
            self._collector(True, True)
            return ObserverForwarding(self._observer, False)
        elif mode in ("rf-empty", "rf-empty-shapes"):
            if self._observer is None:
                raise SystemExit("workloads.py: %s needs `kinetoscope-cli collect --pytorch=ops` and the observer" % mode)
            self._collector(True, False)
            return EmptyCallback(self._observer, mode == "rf-empty-shapes")
        elif mode == "plain" or mode in PROFILER_MODES:
            self._collector(False, False)
        else:
            raise SystemExit("workloads.py: unknown paired mode '%s'" % mode)
        return profiler_for(mode, None) if mode in PROFILER_MODES else contextlib.nullcontext()


def time_block(step, steps):
    """Seconds of STEPS steps, and the block's start and end on the wall clock (CUPTI's)."""
    torch.cuda.synchronize()
    wall, start = time.time(), time.perf_counter()
    for _ in range(steps):
        step()
    torch.cuda.synchronize()
    return time.perf_counter() - start, wall, time.time()


def paired(rounds, modes, block_steps):
    """The small loop, every mode once a round, rotated; see the module's docstring."""
    step = small_training_step(torch.device("cuda"))
    for _ in range(5):
        step()
    profilers = PairedModes()
    with profilers.enter("plain"):
        block = time_block(step, block_steps)
    print("PAIRED 0 plain-first %.6f %d %.6f %.6f" % (block[0], block_steps, block[1], block[2]), flush=True)
    for r in range(rounds + 1):  # round 0: every mode once, untimed (the profilers' first starts)
        for i in range(len(modes)):
            mode = modes[(i + r) % len(modes)]
            with profilers.enter(mode) as prof:
                torch.cuda.nvtx.range_push("paired %d %s" % (r, mode))  # for paired_blocks.py
                block = time_block(step, block_steps)
                torch.cuda.nvtx.range_pop()
            if r == 0:
                continue
            print("PAIRED %d %s %.6f %d %.6f %.6f" % (r, mode, block[0], block_steps, block[1], block[2]), flush=True)
            if mode in PROFILER_MODES:
                events = prof.events()
                kernels = sum(1 for e in events if e.device_type == torch.autograd.DeviceType.CUDA)
                print("PAIRCHECK %s %d %d" % (mode, kernels, len(events) - kernels), flush=True)


def parity(which, steps, out):
    """The transformer step alone, N steps in the window that both sides record."""
    step = transformer_loop(torch.device("cuda"))
    for _ in range(5):
        step()
    torch.cuda.synchronize()
    if which == "collect":
        torch.cuda.profiler.start()
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
        return
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities, record_shapes=True) as prof:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    write_key_averages(prof, out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--modes", default="plain")
    parser.add_argument("--t0", type=float, default=0.0)
    parser.add_argument("--small-steps", type=int, default=200)
    parser.add_argument("--gemm-steps", type=int, default=100)
    parser.add_argument("--tf-steps", type=int, default=20)
    parser.add_argument("--cpuop-steps", type=int, default=100000)
    parser.add_argument("--trace-dir", default="")
    parser.add_argument("--observer", default="", help="libkinetoscope_torch_observer.so, for rf-empty")
    parser.add_argument("--parity", choices=("collect", "profile"))
    parser.add_argument("--parity-steps", type=int, default=10)
    parser.add_argument("--paired", type=int, default=0, metavar="ROUNDS")
    parser.add_argument("--paired-modes", default="plain,prof-cuda,prof-cpucuda,prof-cpucuda-shapes")
    parser.add_argument("--block-steps", type=int, default=100)
    parser.add_argument("--parity-out", default="key_averages.json")
    args = parser.parse_args()
    if args.parity:
        torch.manual_seed(0)
        parity(args.parity, args.parity_steps, args.parity_out)
        return
    if args.paired:
        torch.manual_seed(0)
        paired(args.paired, args.paired_modes.split(","), args.block_steps)
        print("MARK end %.6f" % time.time(), flush=True)
        return
    observer = ctypes.CDLL(args.observer) if args.observer else None
    device = torch.device("cuda")
    torch.manual_seed(0)
    loops = [("small", small_training_step(device), args.small_steps), ("gemm", gemm_loop(device), args.gemm_steps),
             ("tf", transformer_loop(device), args.tf_steps), ("cpuop", cpuop_loop(device), args.cpuop_steps)]
    collected = collector_observer()
    if collected is not None:
        loops.append(("cpuop-paused", loops[-1][1], args.cpuop_steps))
    for _, step, _ in loops:  # warm-up: allocator, cuBLAS handles, AdamW state
        for _ in range(5):
            step()
    torch.cuda.synchronize()
    print("MARK ready %.6f" % time.time(), flush=True)
    startup = time.time() - args.t0 if args.t0 else 0.0
    for mode in args.modes.split(","):
        results, seconds = run_mode(mode, loops, args.trace_dir, collected if collected is not None else observer)
        for name, loop_seconds, steps in results:
            print("RESULT %s %s %.6f %d" % (mode, name, loop_seconds, steps), flush=True)
        print("E2E %s %.3f" % (mode, startup + seconds), flush=True)
    print("MARK end %.6f" % time.time(), flush=True)


if __name__ == "__main__":
    main()
