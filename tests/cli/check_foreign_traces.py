#!/usr/bin/env python3
"""`kinetoscope-cli convert` keeps foreign Chrome traces' events as written (issue 42).

Usage: check_foreign_traces.py KINETOSCOPE_CLI [FOLDER] (default: $KS_FOREIGN_TRACES). FOLDER holds Chrome Trace Event files
(.json, .json.gz): catapult's tracing/test_data has 32 of them (docs/testing.md). Each is
converted and read back; per trace, the slices (X, or a B/E pair, which the writer writes as
one X), instants (I and i), counters, metadata and every other phase keep their counts, and
every flow chain (category and id: its s/t/f events' phase, ts, bp and name) comes back, ids
renumbered only where they would collide. Exit 77 (skipped) when FOLDER is missing."""
import collections
import gzip
import json
import os
import subprocess
import sys
import tempfile

PHASE_CLASS = {"B": "slice", "X": "slice", "E": None, "I": "instant", "i": "instant"}


def load(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        doc = json.loads(f.read())
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def summary(events):
    counts = collections.Counter()
    chains = collections.defaultdict(list)
    for e in events:
        if not isinstance(e, dict):
            continue
        ph = e.get("ph")
        kind = PHASE_CLASS.get(ph, ph)
        if kind:
            counts[kind] += 1
        if ph in ("s", "t", "f"):
            chains[(e.get("cat"), str(e.get("id", e.get("id2"))))].append(
                (float(e.get("ts", 0)), ph, e.get("bp"), e.get("name")))
    for chain in chains.values():
        counts[("chain",) + tuple(sorted(chain))] += 1
    return counts


def main():
    cli = sys.argv[1]
    folder = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("KS_FOREIGN_TRACES", "")
    if not os.path.isdir(folder):
        print(f"SKIP: no folder {folder}")
        return 77
    checked = changed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            try:
                before = summary(load(path))
            except (ValueError, KeyError, TypeError, OSError):
                continue  # not a Chrome trace (catapult's folder has other formats too)
            out = os.path.join(tmp, name + ".json")
            run = subprocess.run([cli, "convert", path, out], capture_output=True, text=True)
            checked += 1
            if run.returncode != 0:
                print(f"{name}: convert failed: {run.stderr.strip()}")
                changed += 1
                continue
            after = summary(load(out))
            if before != after:
                changed += 1
                lost = before - after
                gained = after - before
                print(f"{name}: {sum(lost.values())} kinds of events lost, {sum(gained.values())} gained; "
                      f"e.g. lost {list(lost)[:2]}, gained {list(gained)[:2]}")
    print(f"{checked} traces converted, {changed} changed")
    return 1 if changed or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
