"""What the collector recorded in each block of a paired run (workloads.py --paired under collect).

usage: paired_blocks.py TRACE
Prints "blockcheck ROUND MODE KERNELS OPERATORS" per block: the kernels and PyTorch operators of
TRACE (the collector's) that start inside the block's NVTX range "paired ROUND MODE". Blocks with
the collector on must hold their steps' kernels, paused ones none: otherwise a block's time was
not measured under the mode it is named after. (The ranges, not the wall clock: once
torch.profiler has run, CUPTI stamps records with kineto's clock, ours included; each range and
its kernels share one clock.)
"""
import bisect
import gzip
import json
import sys


def main():
    opener = gzip.open if sys.argv[1].endswith(".gz") else open
    with opener(sys.argv[1], "rt") as f:
        events = json.load(f)["traceEvents"]
    starts = {"kernel": [], "cpu_op": []}
    blocks = []
    for event in events:
        if event.get("ph") != "X":
            continue
        category = event.get("cat")
        if category in starts:
            starts[category].append(float(event["ts"]))
        elif category == "user_annotation" and event.get("name", "").startswith("paired "):
            blocks.append((float(event["ts"]), float(event["ts"]) + float(event.get("dur", 0)), event["name"]))
    for times in starts.values():
        times.sort()

    def count(category, begin, end):
        times = starts[category]
        return bisect.bisect_right(times, end) - bisect.bisect_left(times, begin)

    for begin, end, name in sorted(blocks):
        _, round_, mode = name.split()
        print("blockcheck %s %s %d %d" % (round_, mode, count("kernel", begin, end), count("cpu_op", begin, end)))


if __name__ == "__main__":
    main()
