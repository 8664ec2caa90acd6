#!/usr/bin/env bash
# GPU test of the CUPTI collector. Builds the collector without Qt, compiles small CUDA
# programs of known shape, runs them (and PyTorch scripts) through `kinetoscope-cli collect`
# and asserts the traces with check_trace.py; then measures overhead.
# Skips cleanly (exit 0, with a message) where there is no NVIDIA GPU. QUICK=1 leaves out the
# overhead figures at the end, ONLY_PYTORCH=1 everything but the PyTorch section.
# Logs and traces are written under $BUILD/results; $OUT (default build-gpu/out) receives
# summary.txt and results.tgz (everything, large traces excluded).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build-gpu}
FINAL=${OUT:-$BUILD/out}
OUT=$BUILD/results
rm -rf "$OUT"
mkdir -p "$OUT" "$FINAL" "$BUILD/bin"
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    say "SKIP: no NVIDIA driver or GPU on this machine"
    exit 0
fi
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
    say "SKIP: no nvcc"
    exit 0
fi
nvidia-smi -L | tee -a "$SUMMARY"

. "$ROOT/tests/gpu/build-collector.sh"
build_collector "$OUT" || exit 1
CLI=$BUILD/cli/kinetoscope-cli
ARCH=${CUDA_ARCH:-sm_90}
for program in shapes forks crash emptyloop; do
    if ! "$NVCC" -arch="$ARCH" -O2 -o "$BUILD/bin/$program" "$ROOT/tests/gpu/$program.cu" -lcuda \
            > "$OUT/nvcc_$program.log" 2>&1; then
        say "FAIL: nvcc $program"; cat "$OUT/nvcc_$program.log"; exit 1
    fi
done
PY=${PYTHON:-python3}
CHECK="$PY $ROOT/tests/gpu/check_trace.py"
failures=0

# collect NAME EXPECTED_RC [collect options] -- PROGRAM ARGS: runs and checks the exit code.
collect() {
    local name=$1 expected=$2
    shift 2
    local start=$(date +%s%N)
    timeout 300 "$CLI" collect "$@" > "$OUT/$name.log" 2>&1
    local rc=$?
    local seconds=$(( ($(date +%s%N) - start) / 1000000 ))ms
    if [ "$rc" != "$expected" ]; then
        say "FAIL: $name: exit status $rc, expected $expected ($seconds)"
        tail -15 "$OUT/$name.log"
        failures=$((failures + 1))
        return 1
    fi
    grep '^collect:' "$OUT/$name.log" | sed "s/^/  [$name] /" >> "$SUMMARY"
    return 0
}

verify() { # verify SCENARIO FILES...: assertions plus our own loader
    local scenario=$1
    shift
    if ! $CHECK "$scenario" "$@" | tee -a "$SUMMARY" | grep '^PASS'; then
        failures=$((failures + 1))
        return
    fi
    for f in "$@"; do
        if ! "$CLI" info "$f" > "$OUT/info_$(basename "$f").txt" 2>&1; then
            say "FAIL: kinetoscope-cli info cannot load $f"
            failures=$((failures + 1))
        fi
    done
}

cd "$OUT"
# ONLY_PYTORCH=1 runs the PyTorch section alone (a short device budget).
if [ "${ONLY_PYTORCH:-0}" != 1 ]; then
collect shapes 0 -o shapes.pt.trace.json.gz -- "$BUILD/bin/shapes" && verify shapes shapes.pt.trace.json.gz
collect forks 0 -o forks.pt.trace.json -- "$BUILD/bin/forks" && verify forks forks.*.pt.trace.json
grep 'late child exited' "$OUT/forks.log" | tee -a "$SUMMARY"
collect crash_segv 139 -o crash_segv.pt.trace.json -- "$BUILD/bin/crash" segv && verify crash crash_segv.pt.trace.json
collect crash_kill 137 -o crash_kill.pt.trace.json -- "$BUILD/bin/crash" kill && verify crash crash_kill.pt.trace.json
collect torch_train 0 -o torch_train.pt.trace.json.gz -- "$PY" "$ROOT/tests/gpu/torch_workload.py" train \
    && verify torch torch_train.pt.trace.json.gz

collect spawn 0 -o spawn.pt.trace.json -- "$PY" "$ROOT/tests/gpu/spawn_workers.py" && verify spawn spawn.*.pt.trace.json

# --duration stops recording; the program runs on and its exit status is returned.
collect duration 0 --duration 1 -o duration.pt.trace.json.gz -- "$BUILD/bin/emptyloop" 1000000 \
    && verify duration duration.pt.trace.json.gz

# A tiny buffer pool: CUPTI drops records, and the drops are reported.
collect drops 0 --collector-options buffer_mb=1,max_buffers=1 -o drops.pt.trace.json.gz -- "$BUILD/bin/emptyloop" 200000
if grep -q ' [1-9][0-9]* dropped records' "$OUT/drops.log"; then
    say "PASS drops: $(grep -o '[0-9]* dropped records' "$OUT/drops.log") reported with a 1 MB pool"
else
    say "FAIL: no drops reported with a 1 MB pool"; failures=$((failures + 1))
fi

# Errors: no CUDA, program missing, injection already set.
collect no_cuda 1 -o none.json -- /bin/true && grep -q 'without using CUDA' "$OUT/no_cuda.log" \
    && say "PASS no_cuda: 'exited without using CUDA' reported" || { say "FAIL: no_cuda"; failures=$((failures + 1)); }
collect missing 127 -- /nonexistent/program && say "PASS missing program: exit 127"
CUDA_INJECTION64_PATH=/some/other.so collect injected 127 -- "$BUILD/bin/shapes" \
    && grep -q 'already set' "$OUT/injected.log" && say "PASS existing CUDA_INJECTION64_PATH refused"

# torch.profiler inside the target: our data must stay intact; the conflict is reported.
collect torch_profiler 0 -o torch_profiler.pt.trace.json.gz -- "$PY" "$ROOT/tests/gpu/torch_workload.py" train --profiler \
    && verify torch torch_profiler.pt.trace.json.gz
grep -i 'profiler saw\|cupti\|error' "$OUT/torch_profiler.log" | head -5 | sed 's/^/  [torch_profiler] /' >> "$SUMMARY"

fi # ONLY_PYTORCH

# PyTorch (issue 14): capture ranges record only what is inside, torch.profiler's steps become
# ProfilerStep#N, and the ops-shapes Operators table equals key_averages() (run-torchops.sh:
# calls per op, Input Dims on aten::mm/addmm, fwdbwd links, External ids on kernels).
TOPS=$ROOT/tests/gpu/torch_ops.py
CAPTURE="$PY $ROOT/tests/gpu/check_capture.py"
check_capture() { # check_capture MODE TRACE [STEPS]
    if $CAPTURE "$@" | tee -a "$SUMMARY" | grep -q '^PASS'; then :; else failures=$((failures + 1)); fi
}
collect capture_api 0 --pytorch=ops --capture-range=cudaProfilerApi -o capture_api.pt.trace.json.gz \
    -- "$PY" "$TOPS" --steps 20 --capture && check_capture cudaProfilerApi capture_api.pt.trace.json.gz
collect capture_nvtx 0 --pytorch=ops --capture-range=nvtx:capture_me -o capture_nvtx.pt.trace.json.gz \
    -- "$PY" "$TOPS" --steps 20 --capture && check_capture nvtx capture_nvtx.pt.trace.json.gz
collect capture_never 0 --capture-range=cudaProfilerApi -o capture_never.pt.trace.json.gz -- "$PY" "$TOPS" --steps 5
if grep -q 'never called cudaProfilerStart' "$OUT/capture_never.log" && "$CLI" info capture_never.pt.trace.json.gz \
        > "$OUT/info_capture_never.txt" 2>&1; then
    say "PASS capture_never: message, and an empty trace that loads"
else
    say "FAIL: capture_never"; failures=$((failures + 1))
fi
# 20 steps with prof.step() after each: ProfilerStep#0..#20 (the last one holds the final sync).
collect profiler_steps 0 --pytorch=ops -o profiler_steps.pt.trace.json.gz -- "$PY" "$TOPS" --steps 20 --profiler-steps \
    && check_capture steps profiler_steps.pt.trace.json.gz 21
if BUILD=$BUILD OUT=$FINAL STEPS=${TORCHOPS_STEPS:-200} bash "$ROOT/tests/gpu/run-torchops.sh" > "$OUT/torchops.log" 2>&1 \
        && grep -q '^PASS' "$FINAL/torchops-results.txt"; then
    say "PASS torchops parity: $(grep -E '^operators|Input Dims|fwdbwd' "$FINAL/torchops-results.txt" | tr '\n' ' ')"
else
    say "FAIL: torchops parity (see torchops-results.txt)"; failures=$((failures + 1))
fi
grep -E '^  (plain|off|ops|shapes|profiler):' "$FINAL/torchops-results.txt" | tee -a "$SUMMARY"

if [ "${ONLY_PYTORCH:-0}" != 1 ]; then
# The collector killed first: the target keeps running and finishes.
"$CLI" collect -o killed.json -- "$BUILD/bin/emptyloop" 1000000 > "$OUT/collector_killed.log" 2>&1 &
collector=$!
sleep 2
kill -9 "$collector"
for _ in $(seq 1 60); do grep -q '^emptyloop:' "$OUT/collector_killed.log" && break; sleep 1; done
if grep -q '^emptyloop:' "$OUT/collector_killed.log"; then
    say "PASS collector killed: target ran on and finished"
else
    say "FAIL: target did not finish after the collector was killed"; failures=$((failures + 1))
fi
fi # ONLY_PYTORCH

# Overhead figures (same machine, same run); QUICK=1 skips them (a short device budget).
if [ "${QUICK:-0}" = 1 ]; then
    say "--- $failures failure(s) (QUICK=1: overhead figures skipped)"
    cp "$SUMMARY" "$FINAL/summary.txt"
    [ "$failures" = 0 ]
    exit
fi
say "--- overhead"
for i in 1 2; do "$BUILD/bin/emptyloop" 200000 | tee -a "$SUMMARY"; done
for i in 1 2; do
    collect "empty_$i" 0 -o "empty_$i.pt.trace.json.gz" -- "$BUILD/bin/emptyloop" 200000 \
        && grep '^emptyloop:' "$OUT/empty_$i.log" | sed 's/^/  collected /' | tee -a "$SUMMARY"
done
"$PY" "$ROOT/tests/gpu/torch_workload.py" launch 2>&1 | sed 's/^/  plain /' | tee -a "$SUMMARY"
collect torch_launch 0 -o torch_launch.pt.trace.json.gz -- "$PY" "$ROOT/tests/gpu/torch_workload.py" launch \
    && grep '^launch:' "$OUT/torch_launch.log" | sed 's/^/  collected /' | tee -a "$SUMMARY"
"$PY" "$ROOT/tests/gpu/torch_workload.py" launch --profiler 2>&1 | grep '^launch' | sed 's/^/  torch.profiler /' | tee -a "$SUMMARY"
for i in 1 2; do
    "$PY" "$ROOT/tests/gpu/torch_workload.py" gpu --iters 4000 2>&1 | sed 's/^/  plain /' | tee -a "$SUMMARY"
done
collect torch_gpu 0 -o torch_gpu.pt.trace.json.gz -- "$PY" "$ROOT/tests/gpu/torch_workload.py" gpu --iters 4000 \
    && grep '^gpu:' "$OUT/torch_gpu.log" | sed 's/^/  collected /' | tee -a "$SUMMARY"

for log in empty_1 empty_2 torch_launch torch_gpu; do
    grep -q ' 0 dropped records' "$OUT/$log.log" || { say "FAIL: $log dropped records"; failures=$((failures + 1)); }
done
say "--- $failures failure(s)"
cp "$SUMMARY" "$FINAL/summary.txt"
tar czf "$FINAL/results.tgz" -C "$OUT" --exclude='empty_*.pt.trace.json.gz' --exclude='torch_launch.pt.trace.json.gz' \
    --exclude='torch_gpu.pt.trace.json.gz' --exclude='killed.json' --exclude='duration.pt.trace.json.gz' \
    --exclude='drops.pt.trace.json.gz' .
[ "$failures" = 0 ]
