#!/usr/bin/env bash
# Runs every prebuilt fuzz target for SECONDS each and prints executions and coverage per
# target. Builds nothing: configure and build first with
#   CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DKINETOSCOPE_FUZZ=ON
#   cmake --build build-fuzz
#
#   tests/fuzz/run-fuzzers.sh SECONDS [JOBS] [BINDIR]     (BINDIR: build-fuzz/tests/fuzz)
#   tests/fuzz/run-fuzzers.sh --replay [BINDIR]           (every committed reproducer, once)
#
# Corpora grow in $FUZZ_WORK (default BINDIR/work); seeds come from tests/fuzz/corpus.
# FUZZ_TIMEOUT (default 10 s per input) is the hang limit: raise it on a starved machine.
# FUZZ_TARGETS (default: all four) picks targets, e.g. FUZZ_TARGETS="fuzz_loader fuzz_passes".
# FUZZ_MAX_LEN (default 65536) caps the size of generated inputs; smaller caps run more inputs
# per second (the seeds above the cap are still read, truncated).
# FUZZ_ENTROPIC (default 0): libFuzzer's entropic schedule keeps per-feature counts for every
# execution; with the ~16k features of a seed-corpus input that doubled the CPU per input
# (fuzz_loader 5.7 -> 2.6 ms, fuzz_passes 8.9 -> 5.3 ms), so the runs use the plain schedule.
# tests/fuzz/open-findings/ holds known findings not yet fixed (not replayed).
# FUZZ_COVERAGE (default 1): 0 skips the coverage pass over the whole corpus after each target
# (about 100 s on a grown corpus: device time better spent fuzzing; the table then shows "-").
# Findings are written to $FUZZ_WORK/artifacts/ and make the script fail: each one must
# become a file in tests/fuzz/reproducers/<corpus>/ plus a fix.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

# target -> seed corpus / reproducer folder
declare -A corpusOf=([fuzz_loader]=trace [fuzz_passes]=trace [fuzz_collector]=collector [fuzz_shapeargs]=shapeargs)
read -r -a targets <<<"${FUZZ_TARGETS:-fuzz_loader fuzz_passes fuzz_collector fuzz_shapeargs}"

findBin() {
  local dir="$1"
  [ -x "$dir/fuzz_loader" ] || { echo "run-fuzzers: no fuzz targets in $dir (build with -DKINETOSCOPE_FUZZ=ON)" >&2; exit 2; }
  echo "$dir"
}

if [ "${1:-}" = "--replay" ]; then
  bin="$(findBin "${2:-$root/build-fuzz/tests/fuzz}")"
  status=0
  for t in "${targets[@]}"; do
    files=("$here/reproducers/${corpusOf[$t]}"/*)
    [ -e "${files[0]}" ] || continue
    if "$bin/$t" -runs=1 -timeout=30 -rss_limit_mb=4096 "${files[@]}" >"/tmp/replay-$t.log" 2>&1; then
      echo "replay $t: ${#files[@]} reproducers pass"
    else
      echo "replay $t: FAILED (log below)"; tail -40 "/tmp/replay-$t.log"; status=1
    fi
  done
  exit $status
fi

seconds="${1:?usage: run-fuzzers.sh SECONDS [JOBS] [BINDIR] | --replay [BINDIR]}"
jobs="${2:-1}"
bin="$(cd "$(findBin "${3:-$root/build-fuzz/tests/fuzz}")" && pwd)" # absolute: each target runs inside its log folder
work="${FUZZ_WORK:-$bin/work}"
mkdir -p "$work/artifacts"
status=0
printf '%-16s %14s %8s %14s %s\n' target executions exec/s cov/ft findings
for t in "${targets[@]}"; do
  corpus="$work/corpus-$t"
  logs="$work/logs-$t"
  rm -rf "$logs"; mkdir -p "$corpus" "$logs"
  # Slow units (> 10 s, reported by libFuzzer) on a busy machine are not findings; -timeout is.
  before=$(ls "$work/artifacts" | grep "^$t-" | grep -vc slow-unit || true)
  # Hangs: 64 KiB inputs must load in far under 10 s even instrumented. Memory: capped.
  (cd "$logs" && nice -n 19 "$bin/$t" -max_total_time="$seconds" -jobs="$jobs" -workers="$jobs" \
      -max_len="${FUZZ_MAX_LEN:-65536}" -entropic="${FUZZ_ENTROPIC:-0}" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 \
      -dict="$here/trace.dict" -artifact_prefix="$work/artifacts/$t-" \
      "$corpus" "$here/corpus/${corpusOf[$t]}" >"$logs/main.log" 2>&1)
  # Each job's fuzz-N.log only: libFuzzer copies every finished job's log into main.log as well,
  # so summing all logs counted each execution twice (the totals before 2026-11-25 were halved).
  execs=$(cat "$logs"/fuzz-*.log | awk '/stat::number_of_executed_units/ {s += $2} END {print s + 0}')
  rate=$((execs / (seconds > 0 ? seconds : 1)))
  # Coverage of the whole corpus after the run (all workers merged).
  cov=-
  [ "${FUZZ_COVERAGE:-1}" = 0 ] || cov=$("$bin/$t" -runs=0 -rss_limit_mb=4096 "$corpus" 2>&1 | awk '/INITED cov:/ {for (i = 1; i < NF; ++i) {if ($i == "cov:") c = $(i + 1); if ($i == "ft:") f = $(i + 1)}; print c "/" f}' | tail -1)
  after=$(ls "$work/artifacts" | grep "^$t-" | grep -vc slow-unit || true)
  found=$((after - before))
  printf '%-16s %14s %8s %14s %s\n' "$t" "$execs" "$rate" "${cov:-?}" "$found"
  if [ "$found" -gt 0 ]; then
    status=1
    ls "$work/artifacts" | grep "^$t-" | grep -v slow-unit | sed 's/^/    /'
    grep -h -A12 "ERROR\|invariant broken\|deadly signal\|timeout\|out-of-memory" "$logs"/*.log | head -40
  fi
done
exit $status
