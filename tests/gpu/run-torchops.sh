#!/usr/bin/env bash
# GPU test of `collect --pytorch` (issue 14): a PyTorch training loop collected with
# --pytorch=ops-shapes gives an Operators table whose calls equal torch.profiler's
# key_averages() for the same loop (compare_ops.py), Input Dims on aten::mm/addmm, fwdbwd
# links and External ids on kernels; then the overhead of plain / collect / collect+ops /
# collect+ops-shapes / torch.profiler on the same loop, in one run.
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
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
if ! cmake "${generator[@]}" -S "$ROOT" -B "$BUILD" -DKINETOSCOPE_BUILD_GUI=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        > "$WORK/cmake.log" 2>&1 \
    || ! cmake --build "$BUILD" -j "$(nproc)" --target kinetoscope-cli kinetoscope_injection > "$WORK/build.log" 2>&1; then
    say "FAIL: build"; tail -n 30 "$WORK/build.log"; exit 1
fi
CLI=$BUILD/cli/kinetoscope-cli
cd "$WORK"
loop() { grep -o 'loop: [0-9.]* s' "$1" | head -1; }

"$PY" "$ROOT/tests/gpu/torch_ops.py" --steps "$STEPS" > plain.log 2>&1
"$CLI" collect --pytorch=off -o off.pt.trace.json.gz -- "$PY" "$ROOT/tests/gpu/torch_ops.py" --steps "$STEPS" > off.log 2>&1
"$CLI" collect --pytorch=ops -o ops.pt.trace.json.gz -- "$PY" "$ROOT/tests/gpu/torch_ops.py" --steps "$STEPS" > ops.log 2>&1
"$CLI" collect --pytorch=ops-shapes -o shapes.pt.trace.json.gz -- "$PY" "$ROOT/tests/gpu/torch_ops.py" --steps "$STEPS" > shapes.log 2>&1
"$PY" "$ROOT/tests/gpu/torch_ops.py" --steps "$STEPS" --profiler key_averages.json > profiler.log 2>&1
say "overhead, $STEPS steps of ten Linear+ReLU+add, backward, SGD (loop time, same run):"
for run in plain off ops shapes profiler; do say "  $run: $(loop $run.log)"; done
for run in off ops shapes; do
    say "  $run collect: $(grep -E 'process|traced|dropped|PyTorch|kinetoscope:' $run.log | tr '\n' ' ' | cut -c1-400)"
done
"$CLI" ops --json shapes.pt.trace.json.gz > shapes.ops.json 2> shapes.ops.err
say "parity (ops-shapes trace vs key_averages, $((STEPS + 3)) collected steps incl. 3 warm-up):"
"$PY" "$ROOT/tests/gpu/compare_ops.py" shapes.ops.json key_averages.json $((STEPS + 3)) "$STEPS" shapes.pt.trace.json.gz \
    2>&1 | tee -a "$RESULTS"
"$CLI" info shapes.pt.trace.json.gz 2>&1 | head -40 >> "$RESULTS"
"$CLI" ops --top 25 shapes.pt.trace.json.gz 2>&1 | head -40 >> "$RESULTS"
tail -n 5 shapes.log >> "$RESULTS"; tail -n 5 profiler.log >> "$RESULTS"
