"""Summary of a collector-overhead run (run.sh): medians, spreads and the issue's targets.

usage: summarize.py RAW [--small-steps N --gemm-steps N --tf-steps N]
RAW lines: "MODE REP LOOP SECONDS [STEPS]", "MODE REP e2e SECONDS", "MODE REP dropped N",
"MODE REP stats TEXT", "MODE REP failed ...".
Overhead of a mode = its median loop time - plain's median (plain: the first mode of the process
without the collector, before any profiler ran); ratios are of overheads.
"""
import statistics
import sys
from collections import defaultdict

LOOPS = ("small", "gemm", "tf")
# (collect mode, torch.profiler mode it must beat, largest ratio of overheads)
TARGETS = (("off", "prof-cuda", 1.1), ("ops", "prof-cpucuda", 0.5), ("ops-shapes", "prof-cpucuda-shapes", 0.8))


def main():
    times = defaultdict(lambda: defaultdict(list))
    dropped = defaultdict(int)
    stats, failed, order = {}, [], []
    for line in open(sys.argv[1]):
        parts = line.split()
        if len(parts) < 3:
            continue
        mode, rep, what = parts[0], parts[1], parts[2]
        if mode not in order:
            order.append(mode)
        if what in LOOPS or what == "e2e":
            times[mode][what].append(float(parts[3]))
        elif what == "dropped":
            dropped[mode] = max(dropped[mode], int(parts[3]))
        elif what == "stats":
            stats.setdefault(mode, " ".join(parts[3:]))
        elif what == "failed":
            failed.append(line.strip())
    steps = " ".join(sys.argv[2:])
    fixed = ["plain", "plain-after", "prof-cuda", "prof-cpu", "prof-cpu-shapes", "prof-cpucuda", "prof-cpucuda-shapes",
             "nvtx", "nvtx-shapes"]
    order = [m for m in fixed if m in order] + sorted(m for m in order if m not in fixed)
    med = {m: {k: statistics.median(v) for k, v in loops.items() if v} for m, loops in times.items()}
    plain = med.get("plain", {})

    def over(mode, loop):
        return med[mode][loop] - plain[loop] if loop in med.get(mode, {}) and loop in plain else float("nan")

    reps = max((len(v) for loops in times.values() for v in loops.values()), default=0)
    print("collector overhead: %d modes x %d repetitions, alternated (%s)" % (len(order), reps, steps))
    print("median [min-max] seconds; 'over' = median - plain's median; gemm/tf over plain in %")
    print("%-30s %-24s %8s %-22s %7s %-22s %7s %-22s %s" % ("mode", "small loop", "over", "gemm loop", "over%",
                                                             "transformer", "over%", "end to end", "dropped"))

    def cell(mode, loop):
        v = times[mode].get(loop, [])
        return "%.3f [%.3f-%.3f]" % (statistics.median(v), min(v), max(v)) if v else "-"

    def pct(mode, loop):
        return "%+.2f" % (100 * over(mode, loop) / plain[loop]) if loop in plain and loop in med.get(mode, {}) else "-"

    for mode in order:
        print("%-30s %-24s %+8.3f %-22s %7s %-22s %7s %-22s %s" % (
            mode, cell(mode, "small"), over(mode, "small"), cell(mode, "gemm"), pct(mode, "gemm"), cell(mode, "tf"),
            pct(mode, "tf"), cell(mode, "e2e"), dropped[mode] if mode in dropped else "-"))
    print()
    print("targets (small-op loop, ratios of overheads; end to end against the same torch.profiler mode):")
    for prefix in ("collect", "base"):
        for pytorch, reference, limit in TARGETS:
            mode = "%s-%s" % (prefix, pytorch)
            if mode not in med or reference not in med:
                continue
            ratio = over(mode, "small") / over(reference, "small")
            e2e = med[mode]["e2e"] / med[reference]["e2e"]
            print("  %-22s overhead %.3f s / %s's %.3f s = %.2fx (target <= %.1fx: %s); end to end %.2fx of %s's (%s)"
                  % (mode, over(mode, "small"), reference, over(reference, "small"), ratio, limit,
                     "met" if ratio <= limit else "MISSED", e2e, reference, "met" if e2e <= 1 else "MISSED"))
        for pytorch, _, _ in TARGETS:
            mode = "%s-%s" % (prefix, pytorch)
            if mode in med:
                worst = max(100 * over(mode, loop) / plain[loop] for loop in ("gemm", "tf"))
                print("  %-22s gemm %s %%, transformer %s %% over plain (target <= 1 %%: %s); dropped records: %s"
                      % (mode, pct(mode, "gemm"), pct(mode, "tf"), "met" if worst <= 1 else "MISSED",
                         dropped.get(mode, "?")))
    if "collect-drop" in med and "prof-cuda" in med:
        print("  CUPTI's floor (collect-drop) overhead %.3f s = %.2fx torch.profiler CUDA-only's"
              % (over("collect-drop", "small"), over("collect-drop", "small") / over("prof-cuda", "small")))
    if stats:
        print()
        print("injection stage counters (stats=1, first repetition):")
        for mode, text in stats.items():
            print("  %s: %s" % (mode, text))
    for line in failed:
        print("FAILED:", line)


if __name__ == "__main__":
    main()
