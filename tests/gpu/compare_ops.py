"""Compares the Operators table of a collected trace (kinetoscope-cli ops --json) with
torch.profiler's key_averages() for the same loop (issue 14).

usage: compare_ops.py OPS.json KEY_AVERAGES.json TRACE
Both runs record exactly the same window: torch_ops.py --capture-loop wraps the timed loop in
torch.cuda.profiler.start()/stop() for `collect --capture-range=cudaProfilerApi`, and
--profiler wraps the same loop in torch.profiler. So every operator (aten::*, backward
nodes, autograd engine and optimizer labels: every key_averages() key that is neither a GPU
activity nor a CUDA runtime/driver call) must have equal calls on both sides, and neither side
may have an operator the other lacks. Runtime calls and GPU activities are compared too, for
information (kineto leaves out some runtime calls that the collector records). Also checks
Input Dims on aten::mm/addmm, and that every backward op (a *Backward* node with a sequence
number) is the end of a fwdbwd flow from its forward op. Exit 1 on a mismatch.
KEY_AVERAGES.json: {key: {"count": N, "device_type": "DeviceType.CPU"}} (or {key: N}).
"""
import gzip
import json
import re
import sys

RUNTIME = re.compile(r"^(cuda|cu|nccl)[A-Z]")
# CUPTI's overhead records: how many there are depends on timing (Command Buffer Full: the GPU's
# launch queue was full, i.e. the CPU ran ahead; a cheaper profiler gets more), so information.
OVERHEAD = re.compile(r"^(CUPTI |Activity Buffer|Command Buffer Full$|Lazy Function Loading$|Runtime Triggered Module Loading$)")


def write_key_averages(prof, path):
    """Writes a torch.profiler run's key_averages() as KEY_AVERAGES.json (the producers'
    side of the format above: tests/gpu/torch_ops.py, bench/gpu/collector-overhead)."""
    counts = {e.key: {"count": e.count, "device_type": str(e.device_type)} for e in prof.key_averages()}
    with open(path, "w") as f:
        json.dump(counts, f, indent=1, sort_keys=True)


def kind_of(name, device):
    if device:
        return "device"
    if RUNTIME.match(name):
        return "runtime"
    if OVERHEAD.match(name):
        return "overhead"
    return "op"


def load_ours(path):
    ours = {}
    for row in json.load(open(path)):
        device = bool(row.get("device", False) or row.get("isDevice", False))
        key = (kind_of(row["name"], device), row["name"])
        ours[key] = ours.get(key, 0) + row["calls"]
    return ours


def load_theirs(path, our_ops):
    """key_averages() has one key per name: a record_function label that launched kernels
    (Optimizer.step#SGD.step) comes as a CUDA key, its GPU-side range merged in. So a CUDA key
    that the collected table lists as an operator is compared as one."""
    theirs = {}
    for name, value in json.load(open(path)).items():
        count, device = (value["count"], "CPU" not in value.get("device_type", "CPU")) if isinstance(value, dict) \
            else (value, False)
        theirs[(kind_of(name, device and name not in our_ops), name)] = count
    return theirs


def compare(kind, ours, theirs):
    names = sorted({n for k, n in ours if k == kind} | {n for k, n in theirs if k == kind})
    equal = [n for n in names if ours.get((kind, n), 0) == theirs.get((kind, n), 0)]
    differ = ["%s: collected %d, torch.profiler %d" % (n, ours.get((kind, n), 0), theirs.get((kind, n), 0))
              for n in names if n not in equal]
    return names, equal, differ


def main():
    ops_path, ka_path, trace_path = sys.argv[1:4]
    ours = load_ours(ops_path)
    theirs = load_theirs(ka_path, {n for k, n in ours if k == "op"})
    names, equal, bad = compare("op", ours, theirs)
    calls = sum(theirs.get(("op", n), 0) for n in names)
    print("operators: %d names, %d equal, %d differ (%d calls in torch.profiler's window)"
          % (len(names), len(equal), len(bad), calls))
    for line in bad[:40]:
        print("  MISMATCH " + line)
    for kind in ("runtime", "device", "overhead"):
        kind_names, kind_equal, kind_bad = compare(kind, ours, theirs)
        print("%s (information): %d names, %d equal" % (kind, len(kind_names), len(kind_equal)))
        for line in kind_bad[:12]:
            print("  differs: " + line[:160])

    trace = json.load(gzip.open(trace_path) if trace_path.endswith(".gz") else open(trace_path))
    events = trace["traceEvents"]
    ops = [e for e in events if e.get("cat") == "cpu_op"]
    mm_dims = [e for e in ops if e.get("name") in ("aten::mm", "aten::addmm") and "Input Dims" in e.get("args", {})]
    mm_all = [e for e in ops if e.get("name") in ("aten::mm", "aten::addmm")]
    flow_ends = {(e.get("pid"), e.get("tid"), e.get("ts")) for e in events if e.get("cat") == "fwdbwd"
                 and e.get("ph") == "f"}
    flow_starts = {(e.get("pid"), e.get("tid"), e.get("ts")) for e in events if e.get("cat") == "fwdbwd"
                   and e.get("ph") == "s"}
    backward = [e for e in ops if "Backward" in e["name"] and not e["name"].startswith("autograd::")
                and e.get("args", {}).get("Sequence number", -1) >= 0]
    unlinked = [e for e in backward if (e.get("pid"), e.get("tid"), e.get("ts")) not in flow_ends]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    linked = sum(1 for e in kernels if "External id" in e.get("args", {}))
    print("aten::mm/addmm with Input Dims: %d of %d (e.g. %s)"
          % (len(mm_dims), len(mm_all), mm_dims[0]["args"]["Input Dims"] if mm_dims else "-"))
    print("backward ops linked by fwdbwd: %d of %d (%d flows); kernels with External id: %d of %d"
          % (len(backward) - len(unlinked), len(backward), len(flow_starts), linked, len(kernels)))
    for e in unlinked[:5]:
        print("  UNLINKED %s at %s" % (e["name"], e["ts"]))
    # Every aten::mm/addmm the window has carries its shapes; a step replayed as a CUDA graph
    # has none on the CPU (torch.profiler neither: the operators compare equal above).
    ok = (names and not bad and len(mm_dims) == len(mm_all) and backward and not unlinked
          and linked == len(kernels))
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
