#!/usr/bin/env bash
# Multi-process part of the collector's PyTorch test (issue 14): a 2-rank torchrun collected
# with --merge gives integer pids, a named process per rank and both ranks' info under
# distributedRanks, and opens as two ranks (kinetoscope-cli ranks); collected without --merge,
# each rank's file has kineto's distributedInfo (rank, world_size, the backend its
# collectives ran on). With 2 GPUs (the nvidia-h200-x2 kind) the ranks use NCCL, one GPU each;
# with one GPU both ranks share it over gloo (DDP on CUDA tensors). BACKEND=nccl|gloo forces
# one. Writes $OUT/ddp-results.txt and the traces (OUT default build-gpu/out).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build-gpu}
FINAL=${OUT:-$BUILD/out}
WORK=$BUILD/ddp
PY=${PYTHON:-python3}
STEPS=${DDP_STEPS:-10}
rm -rf "$WORK"
mkdir -p "$WORK" "$FINAL"
RESULTS=$FINAL/ddp-results.txt
: > "$RESULTS"
say() { echo "$*" | tee -a "$RESULTS"; }
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$gpus" -lt 1 ]; then say "SKIP: no NVIDIA GPU"; exit 0; fi
BACKEND=${BACKEND:-$([ "$gpus" -ge 2 ] && echo nccl || echo gloo)}
nvidia-smi -L | tee -a "$RESULTS"
say "backend $BACKEND, 2 ranks on $([ "$gpus" -ge 2 ] && echo "2 GPUs" || echo "1 GPU"), $STEPS DDP steps"
. "$ROOT/tests/gpu/build-collector.sh"
build_collector "$WORK" || exit 1
CLI=$BUILD/cli/kinetoscope-cli
TORCHRUN=${TORCHRUN:-$(command -v torchrun)}
cd "$WORK"
export NCCL_NVLS_ENABLE=0
"$CLI" collect --merge -o merged.pt.trace.json.gz -- "$TORCHRUN" --nproc_per_node=2 "$ROOT/tests/gpu/ddp_ranks.py" \
    "$STEPS" "$BACKEND" > merged.log 2>&1
"$CLI" collect -o ranks.pt.trace.json.gz -- "$TORCHRUN" --nproc_per_node=2 "$ROOT/tests/gpu/ddp_ranks.py" \
    "$STEPS" "$BACKEND" > ranks.log 2>&1
grep -E '^collect:|^rank [0-9] done' merged.log ranks.log | tee -a "$RESULTS"
"$PY" - "$BACKEND" merged.pt.trace.json.gz ranks.*.pt.trace.json.gz <<'PYEOF' 2>&1 | tee -a "$RESULTS"
import gzip, json, sys
backend = sys.argv[1]
merged = json.load(gzip.open(sys.argv[2]))
events = merged["traceEvents"]
bad = []
pids = {e.get("pid") for e in events if "pid" in e}
if any(not isinstance(p, int) for p in pids):
    bad.append("text pids in the merged file: %s" % sorted(str(p) for p in pids if not isinstance(p, int)))
names = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
ranks = merged.get("distributedRanks", [])
if sorted(r.get("rank") for r in ranks) != [0, 1] or any(r.get("world_size") != 2 for r in ranks):
    bad.append("distributedRanks %s" % ranks)
for r in ranks:
    if r.get("backend") != backend:
        bad.append("rank %s: backend %s, expected %s" % (r.get("rank"), r.get("backend"), backend))
    if r.get("pid") not in names:
        bad.append("rank %s: its pid %s has no process_name" % (r.get("rank"), r.get("pid")))
    # Its GPU work: the kernels at the ends of ac2g flows that start on its CPU process.
    flows = {e["id"] for e in events if e.get("cat") == "ac2g" and e.get("ph") == "s" and e.get("pid") == r.get("pid")}
    ends = {(e["pid"], e["tid"], e["ts"]) for e in events if e.get("cat") == "ac2g" and e.get("ph") == "f"
            and e["id"] in flows}
    kernels = sum(1 for e in events if e.get("cat") == "kernel" and (e["pid"], e["tid"], e["ts"]) in ends)
    ops = sum(1 for e in events if e.get("cat") == "cpu_op" and e.get("pid") == r.get("pid"))
    print("  rank %s: pid %s (%s), %d cpu_ops, %d kernels it launched" % (r.get("rank"), r.get("pid"),
                                                                          names.get(r.get("pid")), ops, kernels))
    if not kernels or not ops:
        bad.append("rank %s has no kernels or no ops" % r.get("rank"))
if "distributedInfo" in merged:
    bad.append("a merged file must not carry one distributedInfo")
seen = []
for path in sys.argv[3:]:
    info = json.load(gzip.open(path)).get("distributedInfo")
    if info:
        seen.append(info.get("rank"))
        print("  %s: distributedInfo %s" % (path, info))
        if info.get("world_size") != 2 or info.get("backend") != backend:
            bad.append("%s: distributedInfo %s" % (path, info))
if sorted(seen) != [0, 1]:
    bad.append("per-rank files' ranks %s" % seen)
print("merged: %d pids, all integers: %s; distributedRanks %s" % (len(pids), all(isinstance(p, int) for p in pids), ranks))
print("per-rank files: ranks %s" % sorted(seen))
for b in bad:
    print("FAIL " + b)
print("FAIL" if bad else "PASS")
PYEOF
say "kinetoscope-cli ranks merged.pt.trace.json.gz:"
"$CLI" ranks merged.pt.trace.json.gz 2>&1 | head -30 | tee -a "$RESULTS"
cp merged.pt.trace.json.gz ranks.*.pt.trace.json.gz "$FINAL/" 2>/dev/null
grep -q '^PASS' "$RESULTS"
