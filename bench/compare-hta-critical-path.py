#!/usr/bin/python3
"""Runs HTA's critical_path_analysis on fixtures, step by step, for docs/critical-path.md.

  PYTHONPATH=/path/to/HolisticTraceAnalysis bench/compare-hta-critical-path.py FIXTURE...

Needs HTA's source (facebookresearch/HolisticTraceAnalysis) with pandas and networkx (Debian:
python3-pandas python3-networkx). Prints per step: HTA's path length (sum of its edges), the
step's span, the share of the step it covers, its bound_by summary and time taken.
"""
import json
import os
import shutil
import sys
import tempfile
import time

from hta.trace_analysis import TraceAnalysis

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")

for name in sys.argv[1:]:
    folder = tempfile.mkdtemp(prefix="hta-")
    shutil.copy(os.path.join(DATA, name + ".pt.trace.json.gz"), folder)
    started = time.time()
    analyzer = TraceAnalysis(trace_dir=folder)
    load = time.time() - started
    rank = next(iter(analyzer.t.traces.keys()))
    df = analyzer.t.get_trace(rank)
    symbols = analyzer.t.symbol_table.get_sym_id_map()
    # HTA's instances are the rows named like the annotation, CPU ranges and their GPU-side
    # copies alike, in the frame's order: run those that are CPU ranges.
    annotations = df[df["name"].isin([v for k, v in symbols.items() if "ProfilerStep" in k])]
    cpu = annotations["cat"] == symbols.get("user_annotation", -1)
    print(f"{name}: {int(cpu.sum())} ProfilerStep(s), load {load:.2f} s")
    for i in range(len(annotations)):
        row = annotations.iloc[i]
        if not cpu.iloc[i]:
            continue
        started = time.time()
        graph, ok = analyzer.critical_path_analysis(rank=rank, annotation="ProfilerStep", instance_id=i)
        took = time.time() - started
        if not ok:
            print(f"  instance {i}: failed")
            continue
        edges = graph.get_critical_path_breakdown()
        length = edges.duration.sum()
        span = row["dur"]
        summary = (edges.groupby("bound_by").duration.sum() / length * 100).round(1).to_dict()
        step = [k for k, v in symbols.items() if v == row["name"]][0]
        print(json.dumps({"step": step, "path_us": float(length), "step_us": float(span),
                          "covers_pct": round(100.0 * length / span, 1), "bound_by_pct": summary,
                          "seconds": round(took, 2)}))
    shutil.rmtree(folder)
