#!/usr/bin/env bash
# Collector overhead against torch.profiler's, paired inside each process (issue 34).
#
# usage: paired.sh CLI
# run.sh compares processes: one per mode, so a mode's overhead is a difference between two
# processes, and this machine runs the same small loop up to 2x faster in one process than in the
# next (plain's small loop spread 11-37 % over five processes). Here each process times the small
# loop in blocks, every mode once a round, rotated (workloads.py --paired): a mode's overhead is
# its block less plain's block of the same round in the same process, and torch.profiler's modes
# run in the same processes as ours (our CUPTI paused meanwhile), so each ratio compares two
# overheads measured side by side. Process kinds, each PROCS times, rotated:
#   torch       no collector: plain, torch.profiler CUDA-only, CPU+CUDA, CPU+CUDA+shapes
#               (torch.profiler's figures without our library in the process, to compare with)
#   off         collect --pytorch=off: plain (CUPTI paused), collect-cupti, prof-cuda
#   drop        the same with consumer=drop (CUPTI's buffers handed back unread: its own floor)
#   ops         collect --pytorch=ops: plain, collect-cupti, collect, collect-ops (operators alone),
#               collect-nop (the observer's callbacks stopping short of the injection),
#               rf-empty (CUPTI and an empty RecordFunction callback: any such source's floor),
#               torch.profiler CUDA-only and CPU+CUDA
#   ops-shapes  collect --pytorch=ops-shapes: the same with rf-empty-shapes and CPU+CUDA+shapes
#   split       collect --pytorch=ops without torch.profiler's modes (not in the default KINDS):
#               plain, collect-cupti, collect, collect-nop, rf-empty; its blocks are quick, so many
#               more rounds fit a call, to split an operator's cost between RecordFunction, the
#               observer and the rings more finely than the ops kind can
# In each collect process, paired_blocks.py counts what the collector recorded in each block (its
# kernels and operators inside each block's NVTX range): the summary prints them per mode.
# Environment: PROCS (2), FIRST_PROC (1; a later one appends to RAW: a run split over calls),
#   ROUNDS (12), BLOCK_STEPS (100), KINDS (default all five), PYTHON (python3), WORK (a tmpfs
#   dir), RAW (default WORK/paired-raw.txt), RESULTS (default WORK/paired-results.txt).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
CLI=${1:?usage: paired.sh CLI}
PY=${PYTHON:-python3}
PROCS=${PROCS:-2}
FIRST_PROC=${FIRST_PROC:-1}
ROUNDS=${ROUNDS:-12}
BLOCK_STEPS=${BLOCK_STEPS:-100}
read -r -a KINDS <<< "${KINDS:-torch off drop ops ops-shapes}"
WORK=${WORK:-$(mktemp -d /dev/shm/collector-paired.XXXXXX)}
RAW=${RAW:-$WORK/paired-raw.txt}
RESULTS=${RESULTS:-$WORK/paired-results.txt}
mkdir -p "$WORK"
[ "$FIRST_PROC" -le 1 ] && : > "$RAW"
PROFILERS=prof-cuda,prof-cpucuda,prof-cpucuda-shapes

run_kind() { # KIND PROC
    local kind=$1 proc=$2 log=$WORK/paired.$1.$2.log status
    local -a program=("$PY" "$HERE/workloads.py" --paired "$ROUNDS" --block-steps "$BLOCK_STEPS")
    rm -f "$WORK"/trace.*
    case $kind in
    torch) "${program[@]}" --paired-modes plain,$PROFILERS > "$log" 2>&1 ;;
    off | drop)
        local options=stats=1
        [ "$kind" = drop ] && options=consumer=drop,stats=1
        "$CLI" collect --pytorch=off --collector-options "$options" -o "$WORK/trace.pt.trace.json" -- \
            "${program[@]}" --paired-modes plain,collect-cupti,prof-cuda > "$log" 2>&1 ;;
    ops | ops-shapes)
        # Only the torch.profiler modes this kind's target and split need: its blocks take most
        # of a process's time (post-processing), so more rounds fit.
        local modes=rf-empty,prof-cuda,prof-cpucuda
        [ "$kind" = ops-shapes ] && modes=rf-empty-shapes,prof-cuda,prof-cpucuda-shapes
        "$CLI" collect --pytorch="$kind" --collector-options stats=1 -o "$WORK/trace.pt.trace.json" -- \
            "${program[@]}" --paired-modes plain,collect-cupti,collect,collect-ops,collect-nop,$modes > "$log" 2>&1 ;;
    split)
        "$CLI" collect --pytorch=ops --collector-options stats=1 -o "$WORK/trace.pt.trace.json" -- \
            "${program[@]}" --paired-modes plain,collect-cupti,collect,collect-nop,rf-empty > "$log" 2>&1 ;;
    *) echo "paired.sh: unknown process kind '$kind'" >&2; exit 2 ;;
    esac
    status=$?
    [ -f "$WORK/trace.pt.trace.json" ] && "$PY" "$HERE/paired_blocks.py" "$WORK/trace.pt.trace.json" \
        | awk -v k="$kind" -v p="$proc" '{print k, p, $0}' >> "$RAW"
    rm -f "$WORK"/trace.*
    awk -v k="$kind" -v p="$proc" '/^PAIRED /{print k, p, $2, $3, $4, $5} /^PAIRCHECK /{print k, p, "check", $2, $3, $4}' \
        "$log" >> "$RAW"
    grep -o '[0-9]* dropped records' "$log" | head -1 | awk -v k="$kind" -v p="$proc" '{print k, p, "dropped", $1}' >> "$RAW"
    # consumer=drop records nothing, so collect exits 1 ("nothing was written"): expected.
    if ! grep -q '^MARK end' "$log" || { [ $status -ne 0 ] && [ "$kind" != drop ]; }; then
        echo "$kind $proc failed (exit $status)" >> "$RAW"
        tail -n 5 "$log" >&2
    fi
}

for ((proc = FIRST_PROC; proc <= PROCS; proc++)); do
    n=${#KINDS[@]}
    for ((i = 0; i < n; i++)); do
        kind=${KINDS[$(((i + proc) % n))]}
        run_kind "$kind" "$proc"
        echo "process $proc/$PROCS $kind done ($(date +%T))" >&2
    done
done
"$PY" "$HERE/summarize_paired.py" "$RAW" | tee "$RESULTS"
