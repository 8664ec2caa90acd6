"""Summary of a collector-overhead run (run.sh): medians, spreads and the issue's targets.

usage: summarize.py RAW [--small-steps N --gemm-steps N --tf-steps N --cpuop-steps N]
RAW lines: "MODE REP LOOP SECONDS [STEPS]", "MODE REP e2e|startup|tail SECONDS", "suite REP exit
SECONDS", "prof-cpu REP ops-cpuop EVENTS STEPS", "MODE REP dropped N", "MODE REP stats TEXT",
"MODE REP failed ...".
Overhead of a mode = its median loop time - plain's median (plain: the first mode of the process
without the collector, before any profiler ran; with run.sh ISOLATE=1 a process of its own, as
every mode); ratios are of overheads. The spread of a loop
is (max - min) / median over the repetitions.
"""
import statistics
import sys
from collections import defaultdict

LOOPS = ("small", "gemm", "tf", "cpuop")
PHASES = ("e2e", "startup", "tail", "exit")
# (collect mode, torch.profiler mode it must beat, largest ratio of overheads)
TARGETS = (("off", "prof-cuda", 1.1), ("ops", "prof-cpucuda", 0.5), ("ops-shapes", "prof-cpucuda-shapes", 0.8))
FIXED = ["plain", "plain-after", "prof-cuda", "prof-cpu", "prof-cpu-shapes", "prof-cpucuda", "prof-cpucuda-shapes",
         "nvtx", "nvtx-shapes", "rf-empty", "rf-empty-shapes"]


def read(path):
    by_rep = defaultdict(lambda: defaultdict(dict))  # mode -> what -> repetition -> seconds
    dropped, stats, failed, order, ops = defaultdict(int), defaultdict(list), [], [], []
    for line in open(path):
        parts = line.split()
        if len(parts) < 3:
            continue
        mode, rep, what = parts[0], parts[1], parts[2]
        if mode not in order and mode != "suite":
            order.append(mode)
        if what in LOOPS or what in PHASES or what == "cpuop-paused":
            by_rep[mode][what][rep] = float(parts[3])
        elif what == "ops-cpuop":
            ops.append((int(parts[3]), int(parts[4])))
        elif what == "dropped":
            dropped[mode] = max(dropped[mode], int(parts[3]))
        elif what == "stats":
            stats[(mode, rep)].append(" ".join(parts[3:]))
        elif what == "failed":
            failed.append(line.strip())
    order = [m for m in FIXED if m in order] + sorted(m for m in order if m not in FIXED)
    times = defaultdict(lambda: defaultdict(list))  # mode -> what -> seconds, in repetition order
    for mode, whats in by_rep.items():
        for what, reps in whats.items():
            times[mode][what] = list(reps.values())
    return times, by_rep, dropped, stats, failed, order, ops


def paired_ratios(by_rep, mode, reference, loop="small"):
    """(mode - plain) / (reference - plain) of each repetition that has all three, in repetition order."""
    ours, theirs, plain = (by_rep.get(m, {}).get(loop, {}) for m in (mode, reference, "plain"))
    reps = sorted((r for r in ours if r in theirs and r in plain), key=int)
    return [(ours[r] - plain[r]) / (theirs[r] - plain[r]) for r in reps if theirs[r] != plain[r]]


def main():
    times, by_rep, dropped, stats, failed, order, ops = read(sys.argv[1])
    med = {m: {k: statistics.median(v) for k, v in loops.items() if v} for m, loops in times.items()}
    plain = med.get("plain", {})
    suite_exit = med.get("suite", {}).get("exit", float("nan"))
    steps = dict(zip(sys.argv[2::2], (int(v) for v in sys.argv[3::2])))
    cpuop_steps = steps.get("--cpuop-steps", 0)

    def over(mode, loop):
        return med[mode][loop] - plain[loop] if loop in med.get(mode, {}) and loop in plain else float("nan")

    def pct(mode, loop):
        return "%+.2f" % (100 * over(mode, loop) / plain[loop]) if loop in plain and loop in med.get(mode, {}) else "-"

    def cell(mode, loop):
        v = times[mode].get(loop, [])
        return "%.3f [%.3f-%.3f]" % (statistics.median(v), min(v), max(v)) if v else "-"

    def ns_per_op(mode):
        """Over plain's, in this process type; under collect, over the same process's loop with
        the observer paused (the median of the repetitions' differences)."""
        if not cpuop_steps or "cpuop" not in med.get(mode, {}):
            return "-"
        paused = by_rep[mode].get("cpuop-paused", {})
        if paused:
            loop = by_rep[mode]["cpuop"]
            return "%.0f*" % (statistics.median(loop[r] - paused[r] for r in paused if r in loop) * 1e9 / cpuop_steps)
        return "%.0f" % (over(mode, "cpuop") * 1e9 / cpuop_steps)

    reps = max((len(v) for m, loops in times.items() if m != "suite" for v in loops.values()), default=0)
    print("collector overhead: %d modes x %d repetitions, alternated (%s)" % (len(order), reps, " ".join(sys.argv[2:])))
    print("median [min-max] seconds; 'over' = median - plain's median; gemm/tf over plain in %; cpuop: ns per operator "
          "over plain (*: over the same process with the observer paused); e2e: process start to exit (in the suite, "
          "torch.profiler's to its trace on disk)")
    print("%-24s %-22s %7s %-22s %6s %-22s %7s %6s %-23s %s" % (
        "mode", "small loop", "over", "gemm loop", "over%", "transformer", "over%", "cpuop", "e2e", "dropped"))
    for mode in order:
        print("%-24s %-22s %+7.3f %-22s %6s %-22s %7s %6s %-23s %s" % (
            mode, cell(mode, "small"), over(mode, "small"), cell(mode, "gemm"), pct(mode, "gemm"), cell(mode, "tf"),
            pct(mode, "tf"), ns_per_op(mode), cell(mode, "e2e"), dropped[mode] if mode in dropped else "-"))
    print()
    print("spread of the loops, (max - min) / median over the repetitions: " + ", ".join(
        "%s %s" % (loop, "/".join("%.1f%%" % (100 * (max(v) - min(v)) / statistics.median(v))
                                  for m in ("plain",) + tuple(m for m in order if m.startswith("collect"))
                                  for v in [times[m].get(loop, [])] if v))
        for loop in LOOPS))
    if ops:
        print("cpuop loop: torch.profiler saw %s aten::atan2 events for %s steps (one operator a step)"
              % ("/".join(str(n) for n, _ in ops), "/".join(str(s) for _, s in ops)))
    isolated = "startup" in med.get("plain", {})  # run.sh ISOLATE=1: every mode in a process of its own
    if isolated:
        print("every mode ran in a process of its own (ISOLATE=1): e2e is process start to exit on both sides")
    else:
        print("the suite's interpreter exit after its last mode (median; not counted in torch.profiler's e2e): %.3f s"
              % suite_exit)
    for mode in order:
        if "tail" in med.get(mode, {}):
            print("%-24s start-up %.3f s, after main() returned (exit + collector) %.3f s [%.3f-%.3f]" % (
                mode, med[mode]["startup"], med[mode]["tail"], min(times[mode]["tail"]), max(times[mode]["tail"])))
    print()
    print("end to end less each process's own start-up (python, import torch, CUDA, the models, the warm-up: the same "
          "work on both sides, +-2 s from process to process), medians of the repetitions' differences:")
    print("  torch.profiler: the mode's e2e - %s; collect: its e2e - its start-up (to 'MARK ready'; CUPTI's set-up at "
          "cuInit lies in it)" % ("its start-up" if isolated else "the suite's start-up (its e2e of plain - plain's loops)"))
    loops = [l for l in LOOPS if l in plain]
    plain_reps = by_rep.get("plain", {})
    suite_startup = {rep: e2e - sum(plain_reps[l][rep] for l in loops)
                     for rep, e2e in plain_reps.get("e2e", {}).items() if all(rep in plain_reps[l] for l in loops)}

    def after_startup(mode):
        """Per repetition that has both: e2e less that process's start-up (the suite's for its modes)."""
        e2e = by_rep.get(mode, {}).get("e2e", {})
        startup = by_rep[mode].get("startup", {}) if mode.startswith(("collect", "base")) or isolated else suite_startup
        return [e2e[rep] - startup[rep] for rep in e2e if rep in startup]

    for pytorch, reference, _ in TARGETS:
        mode = "collect-" + pytorch
        ours, theirs = after_startup(mode), after_startup(reference)
        if ours and theirs:
            print("  %-22s %.3f s against %s's %.3f s = %.2fx" % (
                mode, statistics.median(ours), reference, statistics.median(theirs),
                statistics.median(ours) / statistics.median(theirs)))
    print()
    print("targets (small-op loop, ratios of overheads; end to end against the same torch.profiler mode):")
    for prefix in ("collect", "base"):
        for pytorch, reference, limit in TARGETS:
            mode = "%s-%s" % (prefix, pytorch)
            if mode not in med or reference not in med:
                continue
            ratio = over(mode, "small") / over(reference, "small")
            e2e, ref_e2e = med[mode]["e2e"], med[reference]["e2e"]
            print("  %-22s overhead %.3f s / %s's %.3f s = %.2fx (target <= %.1fx: %s); end to end %.2fx of %s's (%s)"
                  % (mode, over(mode, "small"), reference, over(reference, "small"), ratio, limit,
                     "met" if ratio <= limit else "MISSED", e2e / ref_e2e, reference,
                     "met" if e2e <= ref_e2e else "MISSED"))
        for pytorch, _, _ in TARGETS:
            mode = "%s-%s" % (prefix, pytorch)
            if mode in med:
                worst = max(100 * over(mode, loop) / plain[loop] for loop in ("gemm", "tf"))
                print("  %-22s gemm %s %%, transformer %s %% over plain (target <= 1 %%: %s); dropped records: %s"
                      % (mode, pct(mode, "gemm"), pct(mode, "tf"), "met" if worst <= 1 else "MISSED",
                         dropped.get(mode, "?")))
    print()
    print("the same ratios per repetition (each repetition ran every mode once: its overheads over its own plain), "
          "median [min-max] and the repetitions that meet the target:")
    for pytorch, reference, limit in TARGETS:
        mode = "collect-" + pytorch
        ratios = paired_ratios(by_rep, mode, reference)
        if ratios:
            print("  %-22s %.2fx [%.2f-%.2f] of %s's; %d of %d at or below %.1fx (%s)" % (
                mode, statistics.median(ratios), min(ratios), max(ratios), reference,
                sum(r <= limit for r in ratios), len(ratios), limit, " ".join("%.2f" % r for r in ratios)))
    if "collect-drop" in med and "prof-cuda" in med:
        print("  CUPTI's floor (collect-drop) overhead %.3f s = %.2fx torch.profiler CUDA-only's"
              % (over("collect-drop", "small"), over("collect-drop", "small") / over("prof-cuda", "small")))
    if stats:
        print()
        print("stage counters (stats=1, first repetition of each mode):")
        first = {}
        for (mode, rep), lines in sorted(stats.items(), key=lambda kv: int(kv[0][1])):
            first.setdefault(mode, lines)
        for mode in order:
            for text in first.get(mode, []):
                print("  %s: %s" % (mode, text))
    for line in failed:
        print("FAILED:", line)


if __name__ == "__main__":
    main()
