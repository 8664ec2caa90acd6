#!/usr/bin/env bash
# Collector overhead at steady state against torch.profiler's own parts, in one run (issue 34).
#
# usage: run.sh CLI [COLLECT_MODE...]
#   CLI  kinetoscope-cli, built with its injection library (or KINETOSCOPE_INJECTION_LIBRARY set)
#   COLLECT_MODE  default: collect-off collect-ops collect-ops-shapes collect-drop.
#        collect-PT[@OPTIONS] runs `collect --pytorch=PT --collector-options OPTIONS,stats=1`;
#        collect-drop = collect-off@consumer=drop (buffers handed back unread: CUPTI's own floor);
#        base-PT[@OPTIONS] the same with the injection library $BASELINE_INJECTION (before/after).
# Every repetition runs, in a rotated order:
#   - one process without the collector that times every torch.profiler, emit_nvtx and rf-empty
#     mode in turn (plain first, before any profiler ran; plain-after last), see workloads.py;
#   - one `collect` process per COLLECT_MODE, timed by this script from its start to its exit
#     (the trace is written before the collector exits: end to end), with stats=1: the
#     injection's and the host's stage timers (a few clock reads per buffer, at the end).
# Both are split at the program's "MARK ready" (warm-up done) and "MARK end" (main() returned):
# start-up, and the tail after main(): the interpreter's exit (and the collector's work).
# ISOLATE=1 runs every mode in a process of its own instead (plain and each torch.profiler mode
# like each collect mode): no drift from one mode to the next inside one process (plain-after
# is +30 % over plain on the small loop in the suite), and the same fixed costs on both sides
# (e2e = process start to exit, the trace written before it). SUITE_MODES (space-separated)
# picks the torch.profiler / emit_nvtx / rf-empty modes (default: all).
# Environment: REPS (5); FIRST_REP (1; a later one appends to RAW: a run split over calls);
#   SMALL_STEPS (300), GEMM_STEPS (500), TF_STEPS (30), CPUOP_STEPS (30000); PYTHON (python3); OBSERVER (libkinetoscope_torch_observer.so for the rf-empty
#   modes, default beside the injection library of a build tree's CLI; none: those modes are
#   left out); WORK (a temporary dir for traces: use a tmpfs); RAW (every measurement as it is
#   taken, default WORK/raw.txt); RESULTS (the summary, default WORK/results.txt); PARITY_STEPS
#   (10; 0: no operator-parity check on the transformer step at the end); CPUS (unset; a taskset
#   list: every process, the collector with its program, on those cores only).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
CLI=${1:?usage: run.sh CLI [COLLECT_MODE...]}
shift
COLLECT=("$@")
[ ${#COLLECT[@]} -eq 0 ] && COLLECT=(collect-off collect-ops collect-ops-shapes collect-drop)
PROFILED=(prof-cuda prof-cpu prof-cpu-shapes prof-cpucuda prof-cpucuda-shapes nvtx nvtx-shapes)
OBSERVER=${OBSERVER-$(cd "$(dirname "$CLI")/.." 2>/dev/null && pwd)/collector/injection/libkinetoscope_torch_observer.so}
OBSERVER_ARGS=()
if [ -n "$OBSERVER" ] && [ -f "$OBSERVER" ]; then
    PROFILED+=(rf-empty rf-empty-shapes)
    OBSERVER_ARGS=(--observer "$OBSERVER")
fi
[ -n "${SUITE_MODES:-}" ] && read -r -a PROFILED <<< "$SUITE_MODES"
ISOLATE=${ISOLATE:-0}
REPS=${REPS:-5}
PY=${PYTHON:-python3}
# CPUS (a taskset list, e.g. 0-7): every process runs on those cores only, the collector's host
# with its program; unset, where the scheduler puts them.
PIN=()
[ -n "${CPUS:-}" ] && PIN=(taskset -c "$CPUS")
WORK=${WORK:-$(mktemp -d /dev/shm/collector-overhead.XXXXXX)}
RESULTS=${RESULTS:-$WORK/results.txt}
RAW=${RAW:-$WORK/raw.txt}
FIRST_REP=${FIRST_REP:-1}
mkdir -p "$WORK"
[ "$FIRST_REP" -le 1 ] && : > "$RAW"
STEPS=(--small-steps "${SMALL_STEPS:-300}" --gemm-steps "${GEMM_STEPS:-500}" --tf-steps "${TF_STEPS:-30}"
    --cpuop-steps "${CPUOP_STEPS:-30000}")

now() { date +%s.%N; }
rotated() { # REP ITEMS...: the items, rotated by REP
    local rep=$1
    shift
    local -a items=("$@")
    local n=${#items[@]} i
    for ((i = 0; i < n; i++)); do echo "${items[$(((i + rep) % n))]}"; done
}

run_suite() { # REP
    local rep=$1 log=$WORK/suite.$1.log modes
    modes=plain,$(rotated "$rep" "${PROFILED[@]}" | paste -sd,),plain-after
    "${PIN[@]}" "$PY" "$HERE/workloads.py" --modes "$modes" --t0 "$(now)" --trace-dir "$WORK" "${STEPS[@]}" \
        "${OBSERVER_ARGS[@]}" > "$log" 2>&1
    local status=$? end
    end=$(now)
    awk -v r="$rep" '/^RESULT /{print $2, r, $3, $4, $5} /^E2E /{print $2, r, "e2e", $3}
        /^OPS /{print "prof-cpu", r, "ops-" $2, $3, $4}' "$log" >> "$RAW"
    # The interpreter's exit after the last mode: what a process running one mode pays after
    # export_chrome_trace.
    awk -v r="$rep" -v b="$end" '/^MARK end /{printf "suite %s exit %.3f\n", r, b - $3}' "$log" >> "$RAW"
    if [ $status -ne 0 ]; then
        echo "suite $rep failed (exit $status)" >> "$RAW"
        tail -n 5 "$log" >&2
    fi
}

record_phases() { # MODE REP START END LOG: a process's e2e, and its start-up and tail from its MARK lines
    awk -v m="$1" -v r="$2" -v a="$3" -v b="$4" 'BEGIN{printf "%s %s e2e %.3f\n", m, r, b - a}
        /^MARK ready /{printf "%s %s startup %.3f\n", m, r, $3 - a}
        /^MARK end /{printf "%s %s tail %.3f\n", m, r, b - $3}' "$5" >> "$RAW"
}

run_isolated() { # MODE REP: one mode without the collector, in a process of its own
    local mode=$1 rep=$2 log=$WORK/$1.$2.log start end status
    start=$(now)
    "${PIN[@]}" "$PY" "$HERE/workloads.py" --modes "$mode" --t0 "$start" --trace-dir "$WORK" "${STEPS[@]}" \
        "${OBSERVER_ARGS[@]}" > "$log" 2>&1
    status=$?
    end=$(now)
    awk -v r="$rep" '/^RESULT /{print $2, r, $3, $4, $5} /^OPS /{print "prof-cpu", r, "ops-" $2, $3, $4}' "$log" >> "$RAW"
    record_phases "$mode" "$rep" "$start" "$end" "$log"
    if [ $status -ne 0 ]; then
        echo "$mode $rep failed (exit $status)" >> "$RAW"
        tail -n 5 "$log" >&2
    fi
}

run_collect() { # MODE REP
    local mode=$1 rep=$2 log=$WORK/$1.$2.log spec pytorch options
    local -a env=()
    spec=${mode#*-}
    [ "$spec" = drop ] && spec=off@consumer=drop
    pytorch=${spec%%@*}
    options=stats=1
    [[ $spec == *@* ]] && options=${spec#*@},stats=1
    [[ $mode == base-* ]] && env=(env "KINETOSCOPE_INJECTION_LIBRARY=${BASELINE_INJECTION:?base-* modes need BASELINE_INJECTION}")
    rm -f "$WORK"/trace.*
    local start end status
    start=$(now)
    "${PIN[@]}" "${env[@]}" "$CLI" collect --pytorch="$pytorch" ${options:+--collector-options "$options"} \
        -o "$WORK/trace.pt.trace.json" -- "$PY" "$HERE/workloads.py" --modes plain "${STEPS[@]}" > "$log" 2>&1
    status=$?
    end=$(now)
    rm -f "$WORK"/trace.*
    awk -v m="$mode" -v r="$rep" '/^RESULT /{print m, r, $3, $4, $5}' "$log" >> "$RAW"
    record_phases "$mode" "$rep" "$start" "$end" "$log"
    grep -o '[0-9]* dropped records' "$log" | head -1 | awk -v m="$mode" -v r="$rep" '{print m, r, "dropped", $1}' >> "$RAW"
    grep -h -e '^kinetoscope injection' -e '^collect: after' -e '^collect: [0-9]* process' "$log" | sed "s/^/$mode $rep stats /" >> "$RAW"
    # consumer=drop records nothing, so collect exits 1 ("nothing was written"): expected.
    if ! grep -q '^RESULT plain cpuop' "$log" || { [ $status -ne 0 ] && [[ $spec != *consumer=drop* ]]; }; then
        echo "$mode $rep failed (exit $status)" >> "$RAW"
        tail -n 5 "$log" >&2
    fi
}

if [ "$ISOLATE" = 1 ]; then ITEMS=(plain "${PROFILED[@]}" "${COLLECT[@]}"); else ITEMS=(suite "${COLLECT[@]}"); fi
for ((rep = FIRST_REP; rep <= REPS; rep++)); do
    # The suite's (or each mode's) place among the collect runs rotates too.
    mapfile -t order < <(rotated "$rep" "${ITEMS[@]}")
    for item in "${order[@]}"; do
        case $item in
        suite) run_suite "$rep" ;;
        collect-* | base-*) run_collect "$item" "$rep" ;;
        *) run_isolated "$item" "$rep" ;;
        esac
        echo "rep $rep/$REPS $item done ($(date +%T))" >&2
    done
done
"$PY" "$HERE/summarize.py" "$RAW" "${STEPS[@]}" | tee "$RESULTS"

# Operator parity on the transformer step (PARITY_STEPS, default 10; 0: none): the Operators table
# of `collect --pytorch=ops-shapes` against torch.profiler's key_averages() for the same steps.
PARITY_STEPS=${PARITY_STEPS:-10}
if [ "$PARITY_STEPS" -gt 0 ]; then
    {
        echo
        echo "operator parity, transformer step ($PARITY_STEPS steps, ops-shapes through the observer, against torch.profiler CPU+CUDA+shapes):"
        "$CLI" collect --pytorch=ops-shapes --capture-range=cudaProfilerApi -o "$WORK/parity.pt.trace.json" \
            -- "$PY" "$HERE/workloads.py" --parity collect --parity-steps "$PARITY_STEPS" > "$WORK/parity.collect.log" 2>&1
        "$PY" "$HERE/workloads.py" --parity profile --parity-steps "$PARITY_STEPS" \
            --parity-out "$WORK/parity.key_averages.json" > "$WORK/parity.profile.log" 2>&1
        "$CLI" ops --json "$WORK/parity.pt.trace.json" > "$WORK/parity.ops.json" 2> "$WORK/parity.ops.err"
        "$PY" "$HERE/../../../tests/gpu/compare_ops.py" "$WORK/parity.ops.json" "$WORK/parity.key_averages.json" \
            "$WORK/parity.pt.trace.json" 2>&1 | sed 's/^/  /'
    } | tee -a "$RESULTS"
fi
