#!/usr/bin/env python3
"""The kinetoscope Python module against kinetoscope-cli: the same numbers through both."""
import json
import os
import subprocess
import sys
import unittest

try:
    import numpy as np
except ImportError:  # Debian's python3-numpy is missing: skip (ctest's SKIP_RETURN_CODE)
    print("numpy is not installed")
    sys.exit(77)

import kinetoscope

DATA = os.environ["KS_TEST_DATA"]
CLI = os.environ["KS_CLI"]


def fixture(name):
    return os.path.join(DATA, name + ".pt.trace.json.gz")


def cli_json(*args):
    return json.loads(subprocess.run([CLI, *args], check=True, capture_output=True).stdout)


class TestModule(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.mlp = kinetoscope.load(fixture("mlp_ops"))
        cls.baseline = kinetoscope.load(fixture("train_baseline"))

    def test_slice_count_is_infos(self):
        info = cli_json("info", "--json", fixture("train_baseline"))
        self.assertEqual(self.baseline.slice_count(), info["slices"])
        self.assertGreater(info["slices"], 1000)

    def test_columns_are_views_of_the_model(self):
        t = self.baseline
        ts, dur = t.ts, t.dur
        self.assertEqual(ts.dtype, np.int64)
        self.assertEqual(len(ts), t.slice_count())
        self.assertFalse(ts.flags.writeable)
        self.assertFalse(ts.flags.owndata)  # a view: the trace owns the memory
        self.assertIs(ts.base, t)
        # Two views share the same memory.
        self.assertEqual(ts.__array_interface__["data"][0], t.ts.__array_interface__["data"][0])
        sql = t.query("SELECT sum(dur) AS total, min(ts) AS first, count(*) AS n FROM slice")["rows"][0]
        self.assertEqual(int(dur.sum()), sql["total"])
        self.assertEqual(int(ts.min()), sql["first"])
        self.assertEqual(len(ts), sql["n"])
        # Names through the string pool equal the SQL names.
        strings = t.strings()
        names = t.query("SELECT id, name FROM slice WHERE id IN (0, 10, 500)")["rows"]
        for row in names:
            self.assertEqual(strings[t.name_ids[row["id"]]], row["name"])
            self.assertEqual(t.string(int(t.name_ids[row["id"]])), row["name"])
        tracks, depths = t.tracks_and_depths()
        self.assertEqual(t.query("SELECT count(*) AS n FROM slice WHERE track = 0")["rows"][0]["n"],
                         int((tracks == 0).sum()))
        self.assertEqual(t.query("SELECT max(depth) AS d FROM slice")["rows"][0]["d"], int(depths.max()))
        # The view keeps the trace alive once the trace object is gone.
        view = kinetoscope.load(fixture("mlp_ops")).dur
        self.assertEqual(int(view.sum()), self.mlp.query("SELECT sum(dur) AS s FROM slice")["rows"][0]["s"])

    def test_query_is_the_clis_json(self):
        sql = "SELECT name, count(*) AS calls, sum(dur) AS total FROM kernel GROUP BY name ORDER BY total DESC"
        self.assertEqual(self.mlp.query(sql), cli_json("query", "--json", fixture("mlp_ops"), sql))
        with self.assertRaises(ValueError) as bad:
            self.mlp.query("SELECT * FORM slice")
        self.assertIn('near "FORM": syntax error (at offset 9)', str(bad.exception))

    def test_ops_roofline_fields_are_the_clis(self):
        # train_baseline's fp32 GEMMs, per shape, with the datasheet's H200 roofs and with the
        # user's: the same FLOPs, TFLOP/s, % of peak and bound as `ops --json`.
        rows = self.baseline.ops(group_by_shape=True)
        self.assertEqual(rows, cli_json("ops", "--json", "--group-by-shape", fixture("train_baseline")))
        mms = [r for r in rows if r["name"] == "aten::mm"]
        self.assertEqual(len(mms), 8)
        for mm in mms:
            self.assertEqual(mm["peak"], "fp32")
            self.assertEqual(mm["bound"], "compute")
            self.assertGreater(mm["tflops_per_s"], 30)
            self.assertLess(mm["tflops_per_s"], 67)
            self.assertAlmostEqual(mm["peak_fraction"], mm["tflops_per_s"] / 67.0, places=9)
            self.assertAlmostEqual(mm["tf32_peak_fraction"], mm["tflops_per_s"] / 494.5, places=9)
        custom = self.baseline.ops(group_by_shape=True, peak_tflops="fp32=50", peak_tbps="2")
        self.assertEqual(custom, cli_json("ops", "--json", "--group-by-shape", "--peak-tflops", "fp32=50",
                                          "--peak-tbps", "2", fixture("train_baseline")))
        for mm in (r for r in custom if r["name"] == "aten::mm"):
            self.assertAlmostEqual(mm["peak_fraction"], mm["tflops_per_s"] / 50.0, places=9)
        with self.assertRaises(ValueError):
            self.baseline.ops(peak_tflops="fp99=3")

    def test_analyses_are_the_clis_json(self):
        self.assertEqual(self.mlp.ops(), cli_json("ops", "--json", fixture("mlp_ops")))
        self.assertEqual(self.baseline.ops(sort="self_cpu", top=5, group_by_shape=True),
                         cli_json("ops", "--json", "--sort", "self_cpu", "--top", "5",
                                  "--group-by-shape", fixture("train_baseline")))
        self.assertEqual(self.baseline.gpu(), cli_json("gpu", "--json", fixture("train_baseline")))
        self.assertEqual(self.baseline.insights(), cli_json("insights", "--json", fixture("train_baseline")))
        optimized = kinetoscope.load(fixture("train_optimized"))
        self.assertEqual(self.baseline.diff(optimized),
                         cli_json("diff", "--json", fixture("train_baseline"), fixture("train_optimized")))
        merged = kinetoscope.load(fixture("collected_nccl_merged"))
        self.assertEqual(merged.diff(merged, base_rank=0, new_rank=1),
                         cli_json("diff", "--json", "--base-rank", "0", "--new-rank", "1",
                                  fixture("collected_nccl_merged"), fixture("collected_nccl_merged")))
        with self.assertRaisesRegex(ValueError, r"has no rank 3 \(its ranks: 0, 1\)"):
            merged.diff(merged, new_rank=3)
        ranks = kinetoscope.ranks([kinetoscope.load(fixture("ddp_rank0")), kinetoscope.load(fixture("ddp_rank1"))])
        expected = cli_json("ranks", "--json", fixture("ddp_rank0"), fixture("ddp_rank1"))
        ranks.pop("match_ms")
        expected.pop("match_ms")
        self.assertEqual(ranks, expected)
        with self.assertRaises(ValueError):
            self.mlp.ops(sort="bogus")

    def test_critical_path_is_the_clis_json(self):
        path = self.baseline.critical_path(what_if=["family:GEMM=0.5"], step=4)
        expected = cli_json("critical-path", "--json", "--what-if", "family:GEMM=0.5", "--step", "4",
                            fixture("train_baseline"))
        self.assertEqual(path, expected)
        step = path["steps"][0]
        self.assertEqual(step["step"], 4)
        self.assertAlmostEqual(sum(step["breakdown"].values()), step["length_us"], places=3)
        self.assertEqual(len(self.baseline.critical_path()["steps"]),
                         len(cli_json("critical-path", "--json", fixture("train_baseline"))["steps"]))
        with self.assertRaises(ValueError):
            self.baseline.critical_path(what_if=["bogus"])

    def test_memory_is_the_clis_json(self):
        memory = self.baseline.memory()
        self.assertEqual(memory, cli_json("memory", "--json", fixture("train_baseline")))
        self.assertGreater(memory["devices"][0]["peak_allocated_bytes"], 0)
        self.assertTrue(any(row["self_allocation_count"] > 0 for row in memory["ops"]))

    def test_op_total_is_the_operator_tables(self):
        mm = [r for r in self.mlp.ops() if r["name"] == "aten::mm" and not r["device"]][0]
        mask = self.mlp.name_ids == self.mlp.strings().index("aten::mm")
        self.assertEqual(int(self.mlp.dur[mask].sum()), round(mm["cpu_total_us"] * 1000))
        self.assertEqual(int(mask.sum()), mm["calls"])

    def test_bad_input(self):
        with self.assertRaises(RuntimeError):
            kinetoscope.load("/nonexistent.json")
        with self.assertRaises(IndexError):
            self.mlp.string(10**9)

    def test_to_pandas(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            with self.assertRaises(ImportError):
                self.mlp.to_pandas()
            self.skipTest("pandas is not installed")
        frame = self.mlp.to_pandas()
        self.assertEqual(len(frame), self.mlp.slice_count())
        self.assertEqual(int(frame[frame["name"] == "aten::mm"]["dur"].sum()),
                         self.mlp.query("SELECT sum(dur) AS s FROM slice WHERE name = 'aten::mm'")["rows"][0]["s"])


if __name__ == "__main__":
    unittest.main()
