#!/usr/bin/env bash
# How `kinetoscope-cli summarize --mpi` scales with MPI processes (issue 40: >= 1.8x from 1 to 2,
# >= 10x from 1 to 16 on a 16-core machine). Generates N rank traces (bench_job generate: clock
# jitter, a planted straggler and slow link), then summarizes them under mpirun with each process
# count of PROCS, REPS times, the counts alternating within each repetition (and their order
# reversed every other one) so that the machine's drift hits every count alike. Prints per count
# the median wall time, the spread (min-max), the median CPU time of all processes, the launch
# floor (`mpirun -n P true`), where the processes spent their time (`summarize --timings`), and
# the speed-up over the first count: of the medians, per repetition (median and min-max), and of
# the medians less the launch floors (what summarize itself achieves; the target is the first).
# Then the cost per file in the workers and how it grows with the processes: CPU per file (load,
# summary, write), page faults after each worker's first file, context switches, peak worker
# memory (summarize --timings' counts) and the cores' mean clock during the runs (/proc/cpuinfo,
# where the machine shows it), beside a control: an arithmetic loop that touches no memory, run
# as P copies at once, whose CPU growth is the machine's (a lower clock with every core busy,
# hyperthreads shown as cores: the topology line names cpu0's siblings). What the workers' CPU
# per file grows beyond the control, with no faults or switches to match, is the shared caches
# and memory.
# Every run must name the planted straggler.
#   bench/summarize-scaling.sh BUILD_DIR [N]       e.g. bench/summarize-scaling.sh build 384
# BUILD_DIR holds cli/kinetoscope-cli and bench/bench_job (a build with MPI found, e.g.
# cmake -DKINETOSCOPE_BUILD_GUI=OFF). Environment: PROCS (default "1 2 16"), REPS (5),
# COPIES (copies of the source per rank, 1: about 2 MB each), WORK (/tmp/kinetoscope-scaling),
# MPIRUN ("mpirun --oversubscribe", plus "--mca pml ob1 --mca btl self,vader" where Open MPI has
# its shared-memory transport: one host needs no network, and probing UCX, OFI and openib took
# MPI_Init 0.33 s instead of 0.12 s on the 2-core machine; copies through shared memory, not
# process_vm_readv, which containers may forbid, for the gather's few kB). OpenMPI binds one process to a core by
# default for -n 1 and 2 and to a socket above: add e.g. "--bind-to core" to pin every count alike).
set -eu
BUILD=$(cd "${1:?usage: bench/summarize-scaling.sh BUILD_DIR [N]}" && pwd)
N=${2:-384}
PROCS=${PROCS:-1 2 16}
REPS=${REPS:-5}
COPIES=${COPIES:-1}
WORK=${WORK:-/tmp/kinetoscope-scaling}
if [ -z "${MPIRUN:-}" ]; then
    MPIRUN="mpirun --oversubscribe"
    if ompi_info 2> /dev/null | grep -q "MCA btl: vader"; then
        MPIRUN="$MPIRUN --mca pml ob1 --mca btl self,vader --mca btl_vader_single_copy_mechanism none"
    fi
fi
CLI=$BUILD/cli/kinetoscope-cli
JOB=$BUILD/bench/bench_job
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TIMEFORMAT='%R %U %S' # bash's `time`: wall, user and system seconds (mpirun's processes included)

rm -rf "$WORK"
mkdir -p "$WORK/timings" "$WORK/mhz"
# The cores' mean clock every 0.1 s, while a run lasts (nothing where /proc/cpuinfo has no MHz).
sample_clock() {
    while :; do
        awk '/^cpu MHz/ { s += $4; n++ } END { if (n) printf "%.0f\n", s / n }' /proc/cpuinfo
        sleep 0.1
    done
}
"$JOB" generate "$WORK/traces" "$N" "$COPIES" | tee "$WORK/generate.log"
planted=$(sed -n 's/.*planted straggler rank \([0-9]*\).*/\1/p' "$WORK/generate.log")
echo "machine: $(nproc) cores, $(uname -m), load average $(cut -d' ' -f1-3 /proc/loadavg); $($MPIRUN --version 2>&1 | head -1); processes: $PROCS; $REPS repetitions"
# Which CPUs share a core (hyperthreads a VM may show as cores) or a cache: with P processes on
# fewer physical cores, the CPU per file grows with no fault of the work.
cpu0=/sys/devices/system/cpu/cpu0
echo "topology: cpu0's thread siblings $(cat $cpu0/topology/thread_siblings_list 2> /dev/null || echo ?), its L2 shared with $(cat $cpu0/cache/index2/shared_cpu_list 2> /dev/null || echo ?), L3 with $(cat $cpu0/cache/index3/shared_cpu_list 2> /dev/null || echo ?) ($(cat $cpu0/cache/index3/size 2> /dev/null || echo ?))"
# A control: the CPU seconds of a loop that does arithmetic and touches no memory, P copies at
# once. Its growth over one copy is the machine's (a lower clock with all cores busy, shared
# cores), not the summarizer's; what the workers' CPU per file grows beyond it is theirs
# (caches, memory bandwidth).
for p in $PROCS; do
    : > "$WORK/control.$p"
    for _ in $(seq 1 "$p"); do
        (
            TIMEFORMAT=%U
            time awk 'BEGIN { for (i = 0; i < 1e7; i++) s += i * 0.5 }'
        ) 2>> "$WORK/control.$p" &
    done
    wait
done
echo "control (an arithmetic loop, P copies at once; mean CPU s of each):$(for p in $PROCS; do awk -v p="$p" '{ s += $1; n++ } END { printf " %s: %.3f", p, s / n }' "$WORK/control.$p"; done)"
# A first small run checks the launcher (one chance on a lent machine): else plain mpirun. Its
# one rank of N leaves ranks missing (exit status 1): the job's result must be written.
mkdir -p "$WORK/probe"
cp "$WORK/traces/$(ls "$WORK/traces" | head -1)" "$WORK/probe/"
$MPIRUN -n 2 "$CLI" summarize --mpi -o "$WORK/probe-out" "$WORK/probe" > "$WORK/probe.log" 2>&1 || true
if [ ! -s "$WORK/probe-out/job.ranks.json" ]; then
    echo "launcher \"$MPIRUN\" failed (see $WORK/probe.log); using plain mpirun --oversubscribe"
    MPIRUN="mpirun --oversubscribe"
fi
echo "launcher: $MPIRUN"

: > "$WORK/times"
order=$PROCS
for rep in $(seq 1 "$REPS"); do
    for p in $order; do
        rm -rf "$WORK/out"
        { time $MPIRUN -n "$p" true > /dev/null 2>&1; } 2> "$WORK/time.txt"
        read -r floor _ < "$WORK/time.txt"
        sample_clock > "$WORK/mhz/$p.$rep" &
        sampler=$!
        failed=0
        { time $MPIRUN -n "$p" "$CLI" summarize --mpi --timings -o "$WORK/out" "$WORK/traces" > "$WORK/run.log" 2> "$WORK/timings/$p.$rep"; } 2> "$WORK/time.txt" || failed=1
        kill "$sampler"
        wait "$sampler" 2> /dev/null || true
        if [ "$failed" = 1 ]; then
            echo "summarize --mpi with $p process(es) failed:" >&2
            tail -20 "$WORK/run.log" "$WORK/timings/$p.$rep" >&2
            exit 1
        fi
        named=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["straggler"].get("rank"))' "$WORK/out/job.ranks.json")
        if [ "$named" != "$planted" ]; then
            echo "run with $p process(es) named rank $named, not the planted straggler $planted" >&2
            exit 1
        fi
        read -r wall user sys < "$WORK/time.txt"
        echo "$p $rep $wall $user $sys $floor" >> "$WORK/times"
        echo "repetition $rep, $p process(es): $wall s wall, $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') s CPU (mpirun -n $p true: $floor s)"
    done
    order=$(echo "$order" | tr ' ' '\n' | tac | tr '\n' ' ') # the other way round next time
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$WORK" "$N" "$planted" <<'PY'
import re, statistics, sys
work, n, planted = sys.argv[1:4]
runs = {}
for line in open(f"{work}/times"):
    p, rep, wall, user, sys_, floor = line.split()
    runs.setdefault(int(p), {})[int(rep)] = (float(wall), float(user) + float(sys_), float(floor))
counts = sorted(runs)
first = counts[0]
base = statistics.median(w for w, _, _ in runs[first].values())
print(f"\nsummarize --mpi of {n} ranks (every run named the planted straggler, rank {planted}):")
# "net of launch": both wall times less their `mpirun -n P true` (mpirun's own start and end).
floor1 = statistics.median(f for _, _, f in runs[first].values())
print(f"{'processes':>9} {'median s':>9} {'min-max s':>13} {'CPU s':>7} {'launch s':>9} {'speed-up':>9} "
      f"{'per repetition (min-max)':>26} {'net of launch':>14}")
for p in counts:
    walls = [w for w, _, _ in runs[p].values()]
    cpu = statistics.median(c for _, c, _ in runs[p].values())
    floor = statistics.median(f for _, _, f in runs[p].values())
    ratios = [runs[first][r][0] / runs[p][r][0] for r in runs[p] if r in runs[first]]
    net = (base - floor1) / max(statistics.median(walls) - floor, 1e-3)
    print(f"{p:>9} {statistics.median(walls):>9.2f} {min(walls):>6.2f}-{max(walls):<6.2f} {cpu:>7.1f} {floor:>9.2f} "
          f"{base / statistics.median(walls):>8.2f}x {statistics.median(ratios):>11.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) "
          f"{net:>13.2f}x")

# Where the time went (summarize --timings; medians over the repetitions): the mean wall of each
# phase over the processes that have it (the job result: process 0 only), and the CPU of all
# processes and their workers per phase. The worker runs beside its process from "plan" on.
phase = re.compile(r" ([^;:]+?) ([0-9.]+) s \(\d+%\) CPU ([0-9.]+) s")
print("\nphases, median over repetitions: mean wall per process s / CPU of all processes s")
names = []
table = {}
for p in counts:
    per_rep = []
    for rep in runs[p]:
        wall, cpu, procs = {}, {}, {}
        for line in open(f"{work}/timings/{p}.{rep}"):
            if not line.startswith("timings process"):
                continue
            for name, w, c in phase.findall(line.split(" CPU:", 1)[1]):
                if name not in names:
                    names.append(name)
                wall[name] = wall.get(name, 0) + float(w)
                cpu[name] = cpu.get(name, 0) + float(c)
                procs[name] = procs.get(name, 0) + 1
        per_rep.append({k: (wall[k] / procs[k], cpu[k]) for k in wall})
    table[p] = {k: (statistics.median(r[k][0] for r in per_rep if k in r), statistics.median(r[k][1] for r in per_rep if k in r))
                for k in names if any(k in r for r in per_rep)}
print(f"{'phase':>24} " + " ".join(f"{'-n ' + str(p):>15}" for p in counts))
for k in names:
    cells = [f"{table[p][k][0]:6.3f} / {table[p][k][1]:6.2f}" if k in table[p] else f"{'':>15}" for p in counts]
    print(f"{k:>24} " + " ".join(f"{c:>15}" for c in cells))

# The cost per file in the workers (sums over the processes of each run divided by its files;
# medians over the repetitions), and the cores' mean clock while the runs lasted.
count = re.compile(r" ([^;:=]+?) = ([0-9.e+-]+)")
def per_file(p, rep):
    cpu, counts = {}, {}
    for line in open(f"{work}/timings/{p}.{rep}"):
        if not line.startswith("timings process"):
            continue
        rest = line.split(" CPU:", 1)[1]
        for name, _, c in phase.findall(rest):
            cpu[name] = cpu.get(name, 0) + float(c)
        for name, v in count.findall(rest):
            counts[name] = max(counts.get(name, 0), float(v)) if name.startswith("peak") else counts.get(name, 0) + float(v)
    files = counts.get("worker files", 0)
    if not files:
        return None
    later = files - sum(1 for line in open(f"{work}/timings/{p}.{rep}") if "worker files = " in line and "worker files = 0;" not in line)
    row = {k: 1e3 * cpu.get("files/" + k, 0) / files for k in ("worker", "load", "summary", "write")}
    row["faults"] = counts.get("worker later-file minor faults", 0) / max(later, 1)
    row["involuntary"] = counts.get("worker involuntary switches", 0) / files
    row["voluntary"] = counts.get("worker voluntary switches", 0) / files
    row["rss"] = counts.get("peak worker RSS MB", 0)
    mhz = [float(x) for x in open(f"{work}/mhz/{p}.{rep}").read().split()]
    row["mhz"] = statistics.mean(mhz) if mhz else float("nan")
    return row
print("\nper file in the workers (medians over repetitions): CPU ms (growth over the first count), page faults after")
print("each worker's first file, context switches (involuntary / voluntary), peak worker RSS, mean core clock,")
print("and the control loop's CPU growth at as many copies (the machine's part of the growth)")
print(f"{'processes':>9} {'CPU ms':>16} {'load ms':>8} {'summary ms':>10} {'write ms':>8} {'faults':>7} {'switches':>13} {'RSS MB':>7} {'MHz':>6} {'control':>8}")
def control(p):
    try:
        return statistics.mean(float(x) for x in open(f"{work}/control.{p}").read().split())
    except (OSError, statistics.StatisticsError, ValueError):
        return float("nan")
first_cpu = None
for p in counts:
    rows = [r for r in (per_file(p, rep) for rep in runs[p]) if r]
    if not rows:
        continue
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    first_cpu = first_cpu or med["worker"]
    growth = 100 * (med["worker"] / first_cpu - 1)
    print(f"{p:>9} {med['worker']:>8.2f} ({growth:+4.0f}%) {med['load']:>8.2f} {med['summary']:>10.2f} {med['write']:>8.2f} "
          f"{med['faults']:>7.1f} {med['involuntary']:>6.2f} / {med['voluntary']:<4.2f} {med['rss']:>7.1f} {med['mhz']:>6.0f} "
          f"{100 * (control(p) / control(counts[0]) - 1):>+7.0f}%")
PY
