"""Compares the Operators table of a collected trace (kinetoscope-cli ops --json) with
torch.profiler's key_averages() counts for the same loop.

usage: compare_ops.py OPS.json KEY_AVERAGES.json STEPS_COLLECTED STEPS_PROFILED TRACE
The collected run covers warm-up + loop, the profiled one the loop only, so counts are
compared per step for the ops of the training step (aten::*, *Backward*, the optimizer
label). Also checks Input Dims on aten::mm/addmm and fwdbwd links in TRACE. Exit 1 on a mismatch.
"""
import gzip
import json
import sys


def main():
    ops_path, ka_path, steps_collected, steps_profiled, trace_path = sys.argv[1:6]
    steps_collected, steps_profiled = int(steps_collected), int(steps_profiled)
    rows = json.load(open(ops_path))
    ours = {}
    for row in rows:
        if not row.get("device", False) and not row.get("isDevice", False):
            ours[row["name"]] = ours.get(row["name"], 0) + row["calls"]
    theirs = json.load(open(ka_path))
    checked, bad = 0, []
    for name, count in sorted(theirs.items()):
        if not (name.startswith("aten::") or "Backward" in name or name.startswith("Optimizer.")):
            continue
        if count % steps_profiled:
            continue  # not a per-step op (first-step-only allocations and the like)
        per_step = count // steps_profiled
        got = ours.get(name, 0)
        checked += 1
        if got != per_step * steps_collected:
            bad.append("%s: collected %d, torch.profiler %d/step x %d steps" % (name, got, per_step, steps_collected))
    trace = json.load(gzip.open(trace_path) if trace_path.endswith(".gz") else open(trace_path))
    events = trace["traceEvents"]
    mm_dims = [e for e in events if e.get("cat") == "cpu_op" and e.get("name") in ("aten::mm", "aten::addmm")
               and "Input Dims" in e.get("args", {})]
    fwdbwd = sum(1 for e in events if e.get("cat") == "fwdbwd" and e.get("ph") == "f")
    linked = sum(1 for e in events if e.get("cat") == "kernel" and "External id" in e.get("args", {}))
    kernels = sum(1 for e in events if e.get("cat") == "kernel")
    print("compared %d ops per step: %d mismatches" % (checked, len(bad)))
    for line in bad[:40]:
        print("  MISMATCH " + line)
    print("aten::mm/addmm with Input Dims: %d (e.g. %s)" % (len(mm_dims), mm_dims[0]["args"]["Input Dims"] if mm_dims else "-"))
    print("fwdbwd links: %d; kernels with External id: %d of %d" % (fwdbwd, linked, kernels))
    ok = checked > 0 and not bad and mm_dims and fwdbwd > 0 and linked > 0
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
