#!/usr/bin/env bash
# Issue 40's figures for a job too large for one machine, in one run:
#  1. N generated ranks (default 1,024; bench_job generate: jitter, a planted straggler and slow link);
#  2. `summarize --mpi` under mpirun with 1 and with P processes (default 2) and the speed-up;
#  3. `ranks OUTDIR` on the N summaries: wall time, peak RSS, the verdict;
#  4. N summaries × 660 collectives (bench_job summaries) matched by bench_job analyze, read by
#     `ranks OUTDIR` and opened by the GUI's job view (bench_jobview, where the GUI is built).
# Each step prints its wall time, CPU time (user + system, children included) and peak RSS.
# BIN=DIR holds kinetoscope-cli and bench_job (default build/cli, build/bench); WORK=DIR the
# generated files (default /tmp/kinetoscope-job, about 2 MB per rank).
#   N=64 P=16 bench/job-scale.sh
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLI=${CLI:-$ROOT/build/cli/kinetoscope-cli}
JOB=${JOB:-$ROOT/build/bench/bench_job}
JOBVIEW=${JOBVIEW:-$ROOT/build/bench/bench_jobview}
WORK=${WORK:-/tmp/kinetoscope-job}
N=${N:-1024}
P=${P:-2}
COPIES=${COPIES:-110}
MPIRUN=${MPIRUN:-mpirun --oversubscribe}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

timed() { # LABEL COMMAND...: wall and CPU seconds, peak RSS of COMMAND (its output in $WORK/LABEL.log)
    local label=$1; shift
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/$label.time" "$@" > "$WORK/$label.log" 2>&1 || true
    read -r secs user sys kb < "$WORK/$label.time"
    echo "$label: ${secs} s wall, $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') s CPU, peak RSS $((kb / 1024)) MB"
}

rm -rf "$WORK"; mkdir -p "$WORK"
"$JOB" generate "$WORK/traces" "$N"
for procs in 1 "$P"; do
    rm -rf "$WORK/summaries"
    timed "summarize-n$procs" $MPIRUN -n "$procs" "$CLI" summarize --mpi -o "$WORK/summaries" "$WORK/traces"
    tail -1 "$WORK/summarize-n$procs.log"
done
awk -v p="$P" '{ t[NR] = $1 } END { printf "summarize speed-up from 1 to %d processes: %.2fx\n", p, t[1] / t[2] }' \
    "$WORK/summarize-n1.time" "$WORK/summarize-n$P.time"
du -sh "$WORK/traces" "$WORK/summaries" | sed 's/^/size: /'
awk -v s="$(du -sb "$WORK/summaries" | cut -f1)" -v t="$(du -sb "$WORK/traces" | cut -f1)" \
    'BEGIN { printf "summaries: %.2f %% of the traces\n", 100 * s / t }'
timed ranks "$CLI" ranks "$WORK/summaries"
grep -m1 -i "straggler\|balanced" "$WORK/ranks.log" || true
"$JOB" summaries "$WORK/summaries660" "$N" "$COPIES"
timed ranks660 "$CLI" ranks "$WORK/summaries660"
"$JOB" analyze "$WORK/summaries660"
du -sh "$WORK/summaries660" | sed 's/^/size: /'
if [ -x "$JOBVIEW" ]; then
    timed jobview660 "$JOBVIEW" "$WORK/summaries660"
    grep "settled" "$WORK/jobview660.log" || tail -3 "$WORK/jobview660.log"
fi
