#!/usr/bin/env bash
# How `kinetoscope-cli summarize --mpi` scales with MPI processes (issue 40: >= 1.8x from 1 to 2,
# >= 10x from 1 to 16 on a 16-core machine). Generates N rank traces (bench_job generate: clock
# jitter, a planted straggler and slow link), then summarizes them under mpirun with each process
# count of PROCS, REPS times, the counts alternating within each repetition (and their order
# reversed every other one) so that the machine's drift hits every count alike. Prints per count
# the median wall time, the spread (min-max), the median CPU time of all processes, and the
# speed-up of the medians over the first count; every run must name the planted straggler.
#   bench/summarize-scaling.sh BUILD_DIR [N]       e.g. bench/summarize-scaling.sh build 1024
# BUILD_DIR holds cli/kinetoscope-cli and bench/bench_job (a build with MPI found, e.g.
# cmake -DKINETOSCOPE_BUILD_GUI=OFF). Environment: PROCS (default "1 2 4 8 16"), REPS (5),
# COPIES (copies of the source per rank, 1: about 2 MB each), WORK (/tmp/kinetoscope-scaling),
# MPIRUN ("mpirun --oversubscribe"; OpenMPI binds one process to a core by default for -n 1 and 2
# and to a socket above: add e.g. "--bind-to core" to pin every count alike).
set -eu
BUILD=$(cd "${1:?usage: bench/summarize-scaling.sh BUILD_DIR [N]}" && pwd)
N=${2:-1024}
PROCS=${PROCS:-1 2 4 8 16}
REPS=${REPS:-5}
COPIES=${COPIES:-1}
WORK=${WORK:-/tmp/kinetoscope-scaling}
MPIRUN=${MPIRUN:-mpirun --oversubscribe}
CLI=$BUILD/cli/kinetoscope-cli
JOB=$BUILD/bench/bench_job
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TIMEFORMAT='%R %U %S' # bash's `time`: wall, user and system seconds (mpirun's processes included)

rm -rf "$WORK"
mkdir -p "$WORK"
"$JOB" generate "$WORK/traces" "$N" "$COPIES" | tee "$WORK/generate.log"
planted=$(sed -n 's/.*planted straggler rank \([0-9]*\).*/\1/p' "$WORK/generate.log")
echo "machine: $(nproc) cores, $(uname -m); $($MPIRUN --version 2>&1 | head -1); processes: $PROCS; $REPS repetitions"

: > "$WORK/times"
order=$PROCS
for rep in $(seq 1 "$REPS"); do
    for p in $order; do
        rm -rf "$WORK/out"
        if ! { time $MPIRUN -n "$p" "$CLI" summarize --mpi -o "$WORK/out" "$WORK/traces" > "$WORK/run.log" 2>&1; } 2> "$WORK/time.txt"; then
            echo "summarize --mpi with $p process(es) failed:" >&2
            tail -20 "$WORK/run.log" >&2
            exit 1
        fi
        named=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["straggler"].get("rank"))' "$WORK/out/job.ranks.json")
        if [ "$named" != "$planted" ]; then
            echo "run with $p process(es) named rank $named, not the planted straggler $planted" >&2
            exit 1
        fi
        read -r wall user sys < "$WORK/time.txt"
        echo "$p $wall $user $sys" >> "$WORK/times"
        echo "repetition $rep, $p process(es): $wall s wall, $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') s CPU"
    done
    order=$(echo "$order" | tr ' ' '\n' | tac | tr '\n' ' ') # the other way round next time
done

python3 - "$WORK/times" "$N" "$planted" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    p, wall, user, sys_ = line.split()
    runs.setdefault(int(p), []).append((float(wall), float(user) + float(sys_)))
counts = sorted(runs)
base = statistics.median(w for w, _ in runs[counts[0]])
print(f"\nsummarize --mpi of {sys.argv[2]} ranks (every run named the planted straggler, rank {sys.argv[3]}):")
print(f"{'processes':>9} {'median s':>9} {'min-max s':>15} {'CPU s':>8} {'speed-up':>9}")
for p in counts:
    walls = [w for w, _ in runs[p]]
    median = statistics.median(walls)
    cpu = statistics.median(c for _, c in runs[p])
    print(f"{p:>9} {median:>9.2f} {min(walls):>7.2f}-{max(walls):<7.2f} {cpu:>8.1f} {base / median:>8.2f}x")
PY
