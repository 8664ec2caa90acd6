#!/usr/bin/env bash
# Collector overhead at steady state against torch.profiler's own parts, in one run (issue 34).
#
# usage: run.sh CLI [MODE...]
#   CLI    kinetoscope-cli, built with its injection library (or KINETOSCOPE_INJECTION_LIBRARY set)
#   MODE   default: all of plain, prof-cuda, prof-cpu, prof-cpu-shapes, prof-cpucuda,
#          prof-cpucuda-shapes, nvtx, nvtx-shapes, collect-off, collect-ops, collect-ops-shapes,
#          collect-drop. collect-PT[@OPTIONS] runs `collect --pytorch=PT --collector-options OPTIONS`
#          (collect-drop = collect-off@consumer=drop: CUPTI's floor); base-PT[@OPTIONS] the same with
#          the injection library $BASELINE_INJECTION (an older build, for before/after).
# Environment: REPS (5) repetitions of every mode, alternated (the order rotates every repetition);
#   SMALL_STEPS (400), GEMM_STEPS (200), TF_STEPS (40); PYTHON (python3); WORK (a temporary dir,
#   traces go there: use a tmpfs); RESULTS (file for the summary, default WORK/results.txt); RAW
#   (every measurement as it is taken, default WORK/raw.txt).
# Every run is one process: RESULT lines give each loop's steady-state time (profilers started
# before and stopped after the timers, warm-up excluded); the driver times process start to
# trace on disk (end to end). summarize.py prints medians, spreads and the issue's ratios.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
CLI=${1:?usage: run.sh CLI [MODE...]}
shift
MODES=("$@")
[ ${#MODES[@]} -eq 0 ] && MODES=(plain prof-cuda prof-cpu prof-cpu-shapes prof-cpucuda prof-cpucuda-shapes nvtx
    nvtx-shapes collect-off collect-ops collect-ops-shapes collect-drop)
REPS=${REPS:-5}
PY=${PYTHON:-python3}
WORK=${WORK:-$(mktemp -d /dev/shm/collector-overhead.XXXXXX)}
RESULTS=${RESULTS:-$WORK/results.txt}
RAW=${RAW:-$WORK/raw.txt}
mkdir -p "$WORK"
: > "$RAW"
STEPS=(--small-steps "${SMALL_STEPS:-400}" --gemm-steps "${GEMM_STEPS:-200}" --tf-steps "${TF_STEPS:-40}")

now() { date +%s.%N; }

run_mode() { # MODE REP
    local mode=$1 rep=$2 log=$WORK/$1.$2.log spec options pytorch
    local -a env=()
    rm -f "$WORK"/trace.*
    local start
    start=$(now)
    case $mode in
    collect-* | base-*)
        spec=${mode#*-}
        [ "$spec" = drop ] && spec=off@consumer=drop
        pytorch=${spec%%@*}
        options=
        [[ $spec == *@* ]] && options=${spec#*@}
        [[ $mode == base-* ]] && env=(env "KINETOSCOPE_INJECTION_LIBRARY=${BASELINE_INJECTION:?base-* modes need BASELINE_INJECTION}")
        "${env[@]}" "$CLI" collect --pytorch="$pytorch" ${options:+--collector-options "$options"} \
            -o "$WORK/trace.pt.trace.json" -- "$PY" "$HERE/workloads.py" --mode plain "${STEPS[@]}" > "$log" 2>&1
        ;;
    *) "$PY" "$HERE/workloads.py" --mode "$mode" --trace "$WORK/trace.json" "${STEPS[@]}" > "$log" 2>&1 ;;
    esac
    local status=$? end
    end=$(now)
    awk -v m="$mode" -v r="$rep" '/^RESULT /{print m, r, $2, $3}' "$log" >> "$RAW"
    awk -v m="$mode" -v r="$rep" -v a="$start" -v b="$end" 'BEGIN{printf "%s %s e2e %.3f\n", m, r, b - a}' >> "$RAW"
    local dropped
    dropped=$(grep -o '[0-9]* dropped records' "$log" | head -1 | cut -d' ' -f1)
    [ -n "$dropped" ] && echo "$mode $rep dropped $dropped" >> "$RAW"
    grep -h '^kinetoscope injection' "$log" | sed "s/^/$mode $rep stats /" >> "$RAW"
    if [ $status -ne 0 ] || ! grep -q '^RESULT tf' "$log"; then
        echo "$mode $rep failed (exit $status)" >> "$RAW"
        tail -n 5 "$log" >&2
    fi
}

n=${#MODES[@]}
for ((rep = 1; rep <= REPS; rep++)); do
    for ((i = 0; i < n; i++)); do
        mode=${MODES[$(((i + rep - 1) % n))]}
        run_mode "$mode" "$rep"
        echo "rep $rep/$REPS $mode done ($(date +%T))" >&2
    done
done
cp "$RAW" "$RESULTS.raw"
"$PY" "$HERE/summarize.py" "$RAW" "${STEPS[@]}" | tee "$RESULTS"
