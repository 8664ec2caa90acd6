"""Summary of a paired collector-overhead run (paired.sh): overheads paired inside each process.

usage: summarize_paired.py RAW
RAW lines: "KIND PROC ROUND MODE SECONDS STEPS" (round 0: plain-first, before any profiler ran),
"KIND PROC check MODE KERNELS OPERATORS" (what torch.profiler recorded in a block), "KIND PROC
blockcheck ROUND MODE KERNELS OPERATORS" (what the collector recorded in a block), "KIND PROC
dropped N", "KIND PROC failed ...".
A mode's overhead in a round = its block - plain's block of the same round and process; in % of
that plain block. Medians over every round of every process of a kind, [25th-75th percentile].
Ratio of a target: our mode's median overhead / torch.profiler's median overhead, both from the
same processes and rounds ("per round": the median of the rounds' own ratios).
"""
import statistics
import sys
from collections import defaultdict

# (process kind, our mode, the torch.profiler mode it must beat, largest ratio, what it is)
TARGETS = (("off", "collect-cupti", "prof-cuda", 1.1, "collect --pytorch=off vs CUDA-only"),
           ("ops", "collect", "prof-cpucuda", 0.5, "collect (ops) vs CPU+CUDA"),
           ("ops-shapes", "collect", "prof-cpucuda-shapes", 0.8, "collect --pytorch=ops-shapes vs CPU+CUDA+shapes"),
           ("drop", "collect-cupti", "prof-cuda", None, "CUPTI's floor (consumer=drop) vs CUDA-only"),
           ("ops", "rf-empty", "prof-cpucuda", None, "our CUPTI + an empty RecordFunction callback vs CPU+CUDA"),
           ("ops-shapes", "rf-empty-shapes", "prof-cpucuda-shapes", None,
            "the same with inputs vs CPU+CUDA+shapes"))
KINDS = ("torch", "off", "drop", "ops", "ops-shapes", "split")
PROFILER_MODES = ("prof-cuda", "prof-cpucuda", "prof-cpucuda-shapes")
MODES = ("collect-cupti", "collect", "collect-ops", "collect-nop", "rf-empty", "rf-empty-shapes") + PROFILER_MODES
# Per operator, in a process of KIND: (what, the later mode, the earlier mode), each the median of
# the rounds' paired differences, divided by the operators the collector recorded in a block.
OPERATOR_PARTS = (("RecordFunction beside our CUPTI", "rf-empty", "collect-cupti"),
                  ("ours beyond RecordFunction", "collect", "rf-empty"),
                  ("  of it the observer's own (its state, reading the op)", "collect-nop", "rf-empty"),
                  ("  of it the injection's rings", "collect", "collect-nop"),
                  ("ours, all told (collect - collect-cupti)", "collect", "collect-cupti"),
                  ("ours without CUPTI (collect-ops - plain)", "collect-ops", "plain"),
                  ("torch.profiler's CPU side", "prof-cpucuda", "prof-cuda"))


def quartiles(values):
    if len(values) < 2:
        return (values[0], values[0]) if values else (float("nan"), float("nan"))
    q = statistics.quantiles(values, n=4)
    return q[0], q[2]


def read(path):
    blocks = defaultdict(dict)  # (kind, proc, round) -> mode -> seconds
    steps, checks, dropped, failed = 0, defaultdict(list), defaultdict(int), []
    recorded = defaultdict(list)  # (kind, mode) -> [(kernels, operators)] the collector recorded a block
    for line in open(path):
        parts = line.split()
        if len(parts) < 3:
            continue
        kind, proc, what = parts[:3]
        if what == "check":
            checks[(kind, parts[3])].append((int(parts[4]), int(parts[5])))
        elif what == "blockcheck":
            recorded[(kind, parts[4])].append((int(parts[5]), int(parts[6])))
        elif what == "dropped":
            dropped[kind] = max(dropped[kind], int(parts[3]))
        elif what == "failed":
            failed.append(line.strip())
        elif what.isdigit():
            blocks[(kind, proc, int(what))][parts[3]] = float(parts[4])
            steps = int(parts[5])
    return blocks, steps, checks, dropped, failed, recorded


def rounds_with(blocks, kind, *modes):
    """The block times of every timed round of KIND's processes that ran all of MODES."""
    return [t for (k, _, r), t in sorted(blocks.items()) if k == kind and r > 0 and all(m in t for m in modes)]


def overheads(blocks, kind, mode):
    """[(seconds over plain, % of plain)] of every round of KIND's processes that ran MODE."""
    return [(t[mode] - t["plain"], 100.0 * (t[mode] - t["plain"]) / t["plain"])
            for t in rounds_with(blocks, kind, mode, "plain")]


def differences(blocks, kind, later, earlier):
    """Seconds of LATER's block less EARLIER's, in every round of KIND's processes that ran both."""
    return [t[later] - t[earlier] for t in rounds_with(blocks, kind, later, earlier)]


def print_operator_parts(blocks, recorded):
    """Microseconds an operator, split by the paired modes (rf-empty's: RecordFunction's own)."""
    lines = []
    for kind in ("ops", "ops-shapes", "split"):
        operators = [o for _, o in recorded.get((kind, "collect"), [])]
        if not operators:
            continue
        per_block = statistics.median(operators)
        empty = "rf-empty-shapes" if kind == "ops-shapes" else "rf-empty"
        cells = []
        for label, later, earlier in OPERATOR_PARTS:
            later = empty if later == "rf-empty" else later
            earlier = empty if earlier == "rf-empty" else earlier
            if kind == "ops-shapes" and later == "prof-cpucuda":
                later = "prof-cpucuda-shapes"
            diffs = differences(blocks, kind, later, earlier)
            if diffs:
                lo, hi = quartiles(diffs)
                cells.append("%s %.2f [%.2f..%.2f]" % (label, 1e6 * statistics.median(diffs) / per_block,
                                                       1e6 * lo / per_block, 1e6 * hi / per_block))
        if cells:
            lines.append("  %-11s %d operators a block: %s" % (kind, per_block, "; ".join(cells)))
    if lines:
        print("per operator, us (median of the rounds' paired differences / operators a block [25th-75th]):")
        print("\n".join(lines))


def per_round_ratios(blocks, kind, ours, theirs):
    return [(t[ours] - t["plain"]) / (t[theirs] - t["plain"]) for t in rounds_with(blocks, kind, ours, theirs, "plain")
            if t[theirs] - t["plain"] > 0]


def main():
    blocks, steps, checks, dropped, failed, recorded = read(sys.argv[1])
    procs = defaultdict(set)
    for kind, proc, _ in blocks:
        procs[kind].add(proc)
    print("paired collector overhead: small loop, %d steps a block; overhead = block - plain's block of the same "
          "round and process" % steps)
    print("medians over rounds x processes [25th-75th percentile]; ms over plain per block, and in % of plain")
    print("%-11s %5s %8s  %-21s %s" % ("process", "procs", "rounds", "plain ms [q1-q3]", "per mode: ms over plain [q1-q3] (%)"))
    for kind in KINDS:
        plain = [t["plain"] for (k, _, r), t in blocks.items() if k == kind and r > 0 and "plain" in t]
        if not plain:
            continue
        q1, q3 = quartiles(plain)
        cells = []
        for mode in MODES:
            over = overheads(blocks, kind, mode)
            if over:
                seconds = [s for s, _ in over]
                lo, hi = quartiles(seconds)
                cells.append("%s %+.1f [%+.1f..%+.1f] (%+.1f%%)" % (mode, 1e3 * statistics.median(seconds), 1e3 * lo,
                                                                 1e3 * hi, statistics.median(p for _, p in over)))
        print("%-11s %5d %8d  %6.1f [%.1f-%.1f]  %s" % (kind, len(procs[kind]), len(plain), 1e3 * statistics.median(plain),
                                                    1e3 * q1, 1e3 * q3, "; ".join(cells)))
    print()
    print("targets (each ratio from the same processes and rounds):")
    for kind, ours, theirs, limit, label in TARGETS:
        mine, ref = overheads(blocks, kind, ours), overheads(blocks, kind, theirs)
        if not mine or not ref:
            continue
        a, b = statistics.median(s for s, _ in mine), statistics.median(s for s, _ in ref)
        rounds = per_round_ratios(blocks, kind, ours, theirs)
        lo, hi = quartiles(rounds)
        verdict = "" if limit is None else ("  target <= %.1fx: %s" % (limit, "met" if a / b <= limit else "MISSED"))
        print("  %-48s %.2fx (%.1f / %.1f ms); per round %.2fx [%.2f-%.2f], %d rounds%s" % (
            label, a / b, 1e3 * a, 1e3 * b, statistics.median(rounds), lo, hi, len(rounds), verdict))
    print()
    print("torch.profiler in each kind of process (median % over plain; [min-max] kernels / operators it recorded "
          "a block):")
    for mode in PROFILER_MODES:
        cells = []
        for kind in KINDS:
            over = overheads(blocks, kind, mode)
            if over:
                counts = checks.get((kind, mode), [])
                k, o = [c[0] for c in counts] or [-1], [c[1] for c in counts] or [-1]
                cells.append("%s %+.1f%% (%d-%d / %d-%d)" % (kind, statistics.median(p for _, p in over), min(k), max(k),
                                                            min(o), max(o)))
        print("  %-20s %s" % (mode, "; ".join(cells)))
    if recorded:
        print("what the collector recorded a block, [min-max] kernels / operators:")
        for kind in KINDS:
            cells = []
            for mode in ("plain-first", "plain") + MODES:
                counts = recorded.get((kind, mode))
                if counts:
                    k, o = [c[0] for c in counts], [c[1] for c in counts]
                    cells.append("%s %d-%d / %d-%d" % (mode, min(k), max(k), min(o), max(o)))
            if cells:
                print("  %-11s %s" % (kind, "; ".join(cells)))
    print_operator_parts(blocks, recorded)
    cells = []
    for kind in KINDS:
        first = [t["plain-first"] for (k, _, r), t in blocks.items() if k == kind and r == 0 and "plain-first" in t]
        later = [t["plain"] for (k, _, r), t in blocks.items() if k == kind and r > 0 and "plain" in t]
        if first and later:
            cells.append("%s %.1f / %.1f" % (kind, 1e3 * statistics.median(first), 1e3 * statistics.median(later)))
    if cells:
        print("plain before any profiler ran / in the rounds after it (median ms): " + "; ".join(cells))
    print("dropped records: " + ", ".join("%s %d" % (k, dropped.get(k, 0)) for k in KINDS if k in procs and k != "torch"))
    for line in failed:
        print("FAILED: " + line)


if __name__ == "__main__":
    main()
