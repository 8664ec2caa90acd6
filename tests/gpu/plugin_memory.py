"""The TensorBoard plugin's memory numbers for fixture traces, computed by the plugin's own code
(kineto tb_plugin at 94979607^, torch_tb_profiler/profiler/memory_parser.py and trace.py) plus
the few lines of run.py that make its curves, peaks and memory-events table (copied below, as
run.py imports the whole plugin). Writes tests/data/reference/plugin_memory.json, which
tst_memoryreport asserts against (docs/memory.md).

usage: TB_PLUGIN=<tb_plugin folder> python3 plugin_memory.py OUT.json TRACE...
Needs no pandas/numpy/tensorboard: the package's __init__ files are bypassed.
"""
import collections
import gzip
import importlib
import json
import os
import sys
import types


def load_plugin_modules(root):
    # Packages without running their __init__ (which import tensorboard and pandas).
    for name, path in (("torch_tb_profiler", root), ("torch_tb_profiler.profiler", os.path.join(root, "profiler"))):
        module = types.ModuleType(name)
        module.__path__ = [path]
        sys.modules[name] = module
    sys.modules.setdefault("numpy", types.ModuleType("numpy"))  # utils imports it for lttb only
    trace = importlib.import_module("torch_tb_profiler.profiler.trace")
    memory = importlib.import_module("torch_tb_profiler.profiler.memory_parser")
    return trace, memory


def plugin_numbers(path, trace, memory):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    parsed = [trace.create_event(e, False) for e in events]
    parsed = [e for e in parsed if e is not None]
    memory_events = [e for e in parsed if e.type == trace.EventTypes.MEMORY]
    # RunProfileData.profiler_start_ts: the earliest ts of the events it parses.
    profiler_start_ts = min(e.ts for e in parsed)
    records = memory.MemoryParser(memory_events).get_preprocessed_records()

    # run.py get_memory_curve's get_curves_and_peaks: events with an address and both totals.
    curves = collections.defaultdict(list)
    peaks = collections.defaultdict(float)
    for r in records:
        if r.addr is None:
            continue
        ta, tr = r.total_allocated, r.total_reserved
        if ta != ta or tr != tr:
            continue
        curves[r.device_name].append((r.ts - profiler_start_ts, ta, tr))
        peaks[r.device_name] = max(peaks[r.device_name], ta)

    # run.py get_memory_events: allocations paired with frees by address.
    alloc, free = {}, {}
    paired = collections.Counter()
    for i, r in enumerate(records):
        if r.addr is None:
            continue
        if r.is_allocation:
            alloc[r.addr] = i
        elif r.addr in alloc:
            paired[records[alloc[r.addr]].device_name] += 1
            del alloc[r.addr]
        else:
            free[r.addr] = i
    never_freed = collections.Counter(records[i].device_name for i in alloc.values())
    unmatched_frees = collections.Counter(records[i].device_name for i in free.values())

    devices = {}
    for dev, curve in curves.items():
        peak_at = next(t for t, ta, _ in curve if ta == peaks[dev])  # the first event reaching it
        devices[dev] = {
            "events": len(curve),
            "peak_allocated_bytes": int(peaks[dev]),
            "peak_reserved_bytes": int(max(tr for _, _, tr in curve)),
            "peak_time_us": peak_at,
            "paired_allocations": paired[dev],
            "never_freed": never_freed[dev],
            "unmatched_free_addresses": unmatched_frees[dev],
        }
    return devices


def main():
    if len(sys.argv) < 3 or not os.environ.get("TB_PLUGIN"):
        sys.exit(__doc__)
    trace, memory = load_plugin_modules(os.path.join(os.environ["TB_PLUGIN"], "torch_tb_profiler"))
    out = {
        "about": "The TensorBoard plugin's memory view numbers (kineto tb_plugin at 94979607^, its own "
        "MemoryParser and run.py's curve/peak/events logic) on the fixture traces, by "
        "tests/gpu/plugin_memory.py. Times in microseconds from the earliest event.",
        "traces": {},
    }
    for path in sys.argv[2:]:
        name = os.path.basename(path).split(".")[0]
        out["traces"][name] = plugin_numbers(path, trace, memory)
    with open(sys.argv[1], "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
