#!/usr/bin/env bash
# Multi-GPU part of the collector's PyTorch test (issue 14), for a machine with 2 GPUs
# (the nvidia-h200-x2 kind): a 2-rank torchrun collected with --merge gives integer pids and
# both ranks' info under distributedRanks; collected without --merge, each rank's file has
# kineto's distributedInfo (rank, world_size, backend nccl). Skips (exit 0) with fewer than 2 GPUs.
# Writes $OUT/ddp-results.txt (OUT default build-gpu/out).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build-gpu}
FINAL=${OUT:-$BUILD/out}
WORK=$BUILD/ddp
PY=${PYTHON:-python3}
mkdir -p "$WORK" "$FINAL"
RESULTS=$FINAL/ddp-results.txt
: > "$RESULTS"
say() { echo "$*" | tee -a "$RESULTS"; }
if [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -lt 2 ]; then say "SKIP: fewer than 2 GPUs"; exit 0; fi
nvidia-smi -L | tee -a "$RESULTS"
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
if ! cmake "${generator[@]}" -S "$ROOT" -B "$BUILD" -DKINETOSCOPE_BUILD_GUI=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        > "$WORK/cmake.log" 2>&1 \
    || ! cmake --build "$BUILD" -j "$(nproc)" --target kinetoscope-cli kinetoscope_injection > "$WORK/build.log" 2>&1; then
    say "FAIL: build"; tail -n 30 "$WORK/build.log"; exit 1
fi
CLI=$BUILD/cli/kinetoscope-cli
TORCHRUN=${TORCHRUN:-$(command -v torchrun)}
cd "$WORK"
export NCCL_NVLS_ENABLE=0
"$CLI" collect --merge -o merged.pt.trace.json.gz -- "$TORCHRUN" --nproc_per_node=2 "$ROOT/tests/gpu/ddp_ranks.py" \
    > merged.log 2>&1
"$CLI" collect -o ranks.pt.trace.json.gz -- "$TORCHRUN" --nproc_per_node=2 "$ROOT/tests/gpu/ddp_ranks.py" \
    > ranks.log 2>&1
grep '^collect:' merged.log ranks.log | tee -a "$RESULTS"
"$PY" - merged.pt.trace.json.gz ranks.*.pt.trace.json.gz <<'PYEOF' 2>&1 | tee -a "$RESULTS"
import gzip, json, sys
merged = json.load(gzip.open(sys.argv[1]))
bad = []
pids = {e.get("pid") for e in merged["traceEvents"] if "pid" in e}
if any(not isinstance(p, int) for p in pids):
    bad.append("text pids in the merged file: %s" % sorted(str(p) for p in pids if not isinstance(p, int)))
ranks = merged.get("distributedRanks", [])
if sorted(r.get("rank") for r in ranks) != [0, 1] or any(r.get("world_size") != 2 for r in ranks):
    bad.append("distributedRanks %s" % ranks)
if "distributedInfo" in merged:
    bad.append("a merged file must not carry one distributedInfo")
seen = []
for path in sys.argv[2:]:
    info = json.load(gzip.open(path)).get("distributedInfo")
    if info:
        seen.append(info.get("rank"))
        if info.get("world_size") != 2 or info.get("backend") != "nccl":
            bad.append("%s: distributedInfo %s" % (path, info))
if sorted(seen) != [0, 1]:
    bad.append("per-rank files' ranks %s" % seen)
print("merged: %d processes (integer pids), distributedRanks %s" % (len(pids), ranks))
print("per-rank files: ranks %s" % sorted(seen))
for b in bad:
    print("FAIL " + b)
print("FAIL" if bad else "PASS")
PYEOF
grep -q '^PASS' "$RESULTS"
