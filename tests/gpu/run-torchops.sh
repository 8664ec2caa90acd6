#!/usr/bin/env bash
# GPU test of `collect --pytorch` (issue 14): a PyTorch training loop collected with
# --pytorch=ops-shapes --capture-range=cudaProfilerApi around exactly the loop that
# torch.profiler records in a second run of the same script gives an Operators table whose
# calls equal key_averages() for every operator (compare_ops.py), Input Dims on aten::mm/addmm,
# every backward op linked to its forward op, External ids on kernels; the same for
# torch.compile'd steps (record_compiled_traces.py, modes default and reduce-overhead); then (unless
# SKIP_OVERHEAD=1) the overhead of plain / collect / collect+ops / collect+ops-shapes /
# torch.profiler on the same loop, in one run.
# Skips (exit 0) without a GPU. Writes $OUT/torchops-results.txt (OUT default build-gpu/out).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build-gpu}
FINAL=${OUT:-$BUILD/out}
WORK=$BUILD/torchops
STEPS=${STEPS:-500}
PY=${PYTHON:-python3}
mkdir -p "$WORK" "$FINAL"
RESULTS=$FINAL/torchops-results.txt
: > "$RESULTS"
say() { echo "$*" | tee -a "$RESULTS"; }
if ! nvidia-smi -L >/dev/null 2>&1; then say "SKIP: no NVIDIA GPU"; exit 0; fi
nvidia-smi -L | tee -a "$RESULTS"
"$PY" -c "import torch; print('torch', torch.__version__)" 2>&1 | tee -a "$RESULTS"
. "$ROOT/tests/gpu/build-collector.sh"
build_collector "$WORK" || exit 1
CLI=$BUILD/cli/kinetoscope-cli
cd "$WORK"
loop() { grep -o 'loop: [0-9.]* s' "$1" | head -1; }

PARITY_STEPS=${PARITY_STEPS:-50}
"$CLI" collect --pytorch=ops-shapes --capture-range=cudaProfilerApi -o parity.pt.trace.json.gz \
    -- "$PY" "$ROOT/tests/gpu/torch_ops.py" --steps "$PARITY_STEPS" --capture-loop > parity.log 2>&1
"$PY" "$ROOT/tests/gpu/torch_ops.py" --steps "$PARITY_STEPS" --profiler key_averages.json > parity_profiler.log 2>&1
"$CLI" ops --json parity.pt.trace.json.gz > parity.ops.json 2> parity.ops.err
say "parity ($PARITY_STEPS steps; the same window in both runs: the collected one's capture range, the profiled one's torch.profiler):"
grep '^collect:' parity.log | sed 's/^/  /' | tee -a "$RESULTS"
"$PY" "$ROOT/tests/gpu/compare_ops.py" parity.ops.json key_averages.json parity.pt.trace.json.gz 2>&1 | tee -a "$RESULTS"
"$CLI" ops --top 25 parity.pt.trace.json.gz 2>&1 | head -40 >> "$RESULTS"
tail -n 3 parity_profiler.log >> "$RESULTS"

# The same parity for torch.compile'd steps (Triton kernels; CUDA graphs), 10 steps after the
# compilation: Dynamo's and AOTAutograd's profiler-only ranges included.
for mode in default reduce-overhead; do
    "$CLI" collect --pytorch=ops-shapes --capture-range=cudaProfilerApi -o "compiled-$mode.pt.trace.json.gz" \
        -- "$PY" "$ROOT/tests/gpu/record_compiled_traces.py" --plain "$mode" --capture-steps 10 > "compiled-$mode.log" 2>&1
    "$PY" "$ROOT/tests/gpu/record_compiled_traces.py" --plain "$mode" --profile-steps 10 "compiled-$mode.key_averages.json" \
        > "compiled-$mode.profiler.log" 2>&1
    main=$(ls -S compiled-"$mode".*.pt.trace.json.gz | head -1) # the compile workers write traces of their own
    "$CLI" ops --json "$main" > "compiled-$mode.ops.json" 2>/dev/null
    say "parity, torch.compile mode=$mode (10 steps):"
    "$PY" "$ROOT/tests/gpu/compare_ops.py" "compiled-$mode.ops.json" "compiled-$mode.key_averages.json" "$main" 2>&1 \
        | tee -a "$RESULTS"
done
[ "${SKIP_OVERHEAD:-0}" = 1 ] && exit 0

"$PY" "$ROOT/tests/gpu/torch_ops.py" --steps "$STEPS" > plain.log 2>&1
"$CLI" collect --pytorch=off -o off.pt.trace.json.gz -- "$PY" "$ROOT/tests/gpu/torch_ops.py" --steps "$STEPS" > off.log 2>&1
"$CLI" collect --pytorch=ops -o ops.pt.trace.json.gz -- "$PY" "$ROOT/tests/gpu/torch_ops.py" --steps "$STEPS" > ops.log 2>&1
"$CLI" collect --pytorch=ops-shapes -o shapes.pt.trace.json.gz -- "$PY" "$ROOT/tests/gpu/torch_ops.py" --steps "$STEPS" > shapes.log 2>&1
"$PY" "$ROOT/tests/gpu/torch_ops.py" --steps "$STEPS" --profiler profiled_key_averages.json > profiler.log 2>&1
say "overhead, $STEPS steps of ten Linear+ReLU+add, backward, SGD (loop time, same run):"
for run in plain off ops shapes profiler; do say "  $run: $(loop $run.log)"; done
for run in off ops shapes; do
    say "  $run collect: $(grep -E 'process|traced|dropped|PyTorch|kinetoscope:' $run.log | tr '\n' ' ' | cut -c1-400)"
done
