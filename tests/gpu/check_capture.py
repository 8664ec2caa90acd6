"""Checks a trace collected with a capture range or torch.profiler steps (issue 14).

usage: check_capture.py MODE TRACE [STEPS]
  cudaProfilerApi  torch_ops.py --capture with --capture-range=cudaProfilerApi: every CPU event lies in
                   [cudaProfilerStart, end of cudaProfilerStop]; every kernel's launch call is in the trace;
                   the ops of exactly 2 steps (aten::mse_loss count 2).
  nvtx             --capture-range=nvtx:capture_me: every CPU event lies inside the capture_me range;
                   2 steps of ops.
  steps            torch_ops.py --profiler-steps: ProfilerStep#N ranges, one per loop step (STEPS),
                   numbered as torch.profiler numbers them (N from 0), kernels inside them.
Prints PASS or FAIL lines; exit 1 on failure.
"""
import gzip
import json
import sys


def load(path):
    with (gzip.open(path) if path.endswith(".gz") else open(path)) as f:
        return json.load(f)["traceEvents"]


def cpu_events(events):
    return [e for e in events if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "cuda_runtime", "cuda_driver",
                                                                          "user_annotation")]


def main():
    mode, path = sys.argv[1], sys.argv[2]
    events = load(path)
    failures = []
    cpu = cpu_events(events)
    kernels = [e for e in events if e.get("cat") == "kernel"]
    launches = {e["args"].get("correlation") for e in cpu if e.get("cat") == "cuda_runtime" and "args" in e}
    losses = sum(1 for e in cpu if e.get("name") == "aten::mse_loss")
    if mode in ("cudaProfilerApi", "nvtx"):
        if mode == "cudaProfilerApi":
            start = [e for e in cpu if e["name"] == "cudaProfilerStart"]
            stop = [e for e in cpu if e["name"] == "cudaProfilerStop"]
            if len(start) != 1 or len(stop) != 1:
                failures.append("expected one cudaProfilerStart and one cudaProfilerStop, got %d, %d"
                                % (len(start), len(stop)))
                window = None
            else:
                window = (start[0]["ts"], stop[0]["ts"] + stop[0]["dur"])
        else:
            ranges = [e for e in cpu if e["name"] == "capture_me"]
            window = (ranges[0]["ts"], ranges[0]["ts"] + ranges[0]["dur"]) if len(ranges) == 1 else None
            if window is None:
                failures.append("expected one capture_me range, got %d" % len(ranges))
        if window:
            outside = [e for e in cpu if not (window[0] - 0.001 <= e["ts"] <= window[1] + 0.001)]
            if outside:
                failures.append("%d CPU events outside the window, e.g. %s at %s" % (len(outside), outside[0]["name"],
                                                                                   outside[0]["ts"]))
        unlaunched = [k for k in kernels if k.get("args", {}).get("correlation") not in launches]
        if unlaunched:
            failures.append("%d kernels whose launch is not in the trace" % len(unlaunched))
        if losses != 2:
            failures.append("aten::mse_loss %d times, expected 2 (two steps)" % losses)
        print("%s: %d CPU events, %d kernels, aten::mse_loss %d" % (mode, len(cpu), len(kernels), losses))
    elif mode == "steps":
        steps = int(sys.argv[3])
        numbers = sorted(int(e["name"].split("#")[1]) for e in cpu if e["name"].startswith("ProfilerStep#"))
        if numbers != list(range(len(numbers))) or len(numbers) != steps:
            failures.append("ProfilerStep numbers %s..., %d of %d" % (numbers[:5], len(numbers), steps))
        print("steps: %d ProfilerStep ranges, %d kernels" % (len(numbers), len(kernels)))
    else:
        failures.append("unknown mode " + mode)
    for f in failures:
        print("FAIL %s: %s" % (mode, f))
    if not failures:
        print("PASS %s" % mode)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
