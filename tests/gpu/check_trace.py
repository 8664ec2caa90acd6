"""Asserts what the collector wrote for one GPU test program (stdlib only).

usage: check_trace.py SCENARIO FILE...
Exits non-zero with a message on the first failed check; prints a summary line otherwise.
"""
import gzip
import json
import sys
from collections import Counter, defaultdict


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


class View:
    def __init__(self, doc):
        self.doc = doc
        self.events = doc["traceEvents"]
        self.x = [e for e in self.events if e.get("ph") == "X"]
        self.by_cat = defaultdict(list)
        for e in self.x:
            self.by_cat[e.get("cat")].append(e)
        self.instants = [e for e in self.events if e.get("ph") == "i"]
        self.flows = [e for e in self.events if e.get("ph") in ("s", "f") and e.get("cat") == "ac2g"]

    def kernels(self, needle):
        return [k for k in self.by_cat["kernel"] if needle in k["name"]]

    def flow_pairs(self):
        starts = {e["id"] for e in self.flows if e["ph"] == "s"}
        ends = Counter(e["id"] for e in self.flows if e["ph"] == "f")
        return starts, ends


def shapes(v):
    busy = v.kernels("busyKernel")
    check(len(busy) == 3, f"3 busyKernel, got {len(busy)}")
    for k in busy:
        a = k["args"]
        check(a["grid"] == [264, 1, 1] and a["block"] == [256, 1, 1], f"busyKernel shape {a['grid']} {a['block']}")
        check(a["shared memory"] == 4096, f"busyKernel shared memory {a['shared memory']}")
        check(0 < a["est. achieved occupancy %"] <= 100, "busyKernel occupancy")
    check(busy[0]["name"].startswith("busyKernel(float*, int)"), f"demangled name: {busy[0]['name']}")
    shape = v.kernels("shapeKernel")
    check(len(shape) == 2, f"2 shapeKernel, got {len(shape)}")
    check(all(k["args"]["grid"] == [8, 4, 2] and k["args"]["block"] == [32, 4, 1] for k in shape), "shapeKernel shape")
    check(len({k["tid"] for k in busy} | {k["tid"] for k in shape}) == 2, "busy and shape kernels on two streams")
    check(len(v.kernels("driverKernel")) == 1, "driverKernel via cuLaunchKernel")
    cluster = v.kernels("clusterKernel")
    check(len(cluster) == 1 and cluster[0]["args"].get("cluster") == [2, 1, 1], f"cluster launch: {cluster}")
    check(len(v.kernels("graphKernelA")) == 3 and len(v.kernels("graphKernelB")) == 3, "graph kernels 3+3")
    copies = Counter(c["name"] for c in v.by_cat["gpu_memcpy"])
    for name in ("Memcpy HtoD (Pageable -> Device)", "Memcpy HtoD (Pinned -> Device)",
                 "Memcpy DtoD (Device -> Device)", "Memcpy DtoH (Device -> Pinned)"):
        check(copies[name] == 1, f"one '{name}', got {dict(copies)}")
    check(all(c["args"]["bytes"] == 1 << 20 for c in v.by_cat["gpu_memcpy"]), "copies of 1 MiB")
    check(len(v.by_cat["gpu_memset"]) == 4, f"4 memsets (1 + 3 in graphs), got {len(v.by_cat['gpu_memset'])}")
    runtime = Counter(e["name"] for e in v.by_cat["cuda_runtime"])
    check(runtime["cudaGraphLaunch"] == 3, f"3 cudaGraphLaunch, got {runtime['cudaGraphLaunch']}")
    check(any(e["name"] == "cuLaunchKernel" for e in v.by_cat["cuda_driver"]), "cuLaunchKernel driver call")
    # Flows: every GPU op has an f; each graph launch has one s and 3 f.
    starts, ends = v.flow_pairs()
    gpu_ops = len(v.by_cat["kernel"]) + len(v.by_cat["gpu_memcpy"]) + len(v.by_cat["gpu_memset"])
    check(sum(ends.values()) >= gpu_ops, f"an ac2g f per GPU op ({sum(ends.values())} < {gpu_ops})")
    graph_ids = {e["args"]["correlation"] for e in v.by_cat["cuda_runtime"] if e["name"] == "cudaGraphLaunch"}
    check(all(ends[i] == 3 for i in graph_ids), f"3 flow ends per graph launch: {[ends[i] for i in graph_ids]}")
    paired = sum(1 for i in starts if ends[i] > 0)
    check(paired >= 13, f"paired flows {paired}")
    ranges = {e["name"]: e for e in v.by_cat["user_annotation"]}
    for name in ("outer", "inner", "in-domain", "start-end"):
        check(name in ranges, f"NVTX range '{name}' missing: {sorted(ranges)}")
    o, i = ranges["outer"], ranges["inner"]
    check(o["ts"] <= i["ts"] and i["ts"] + i["dur"] <= o["ts"] + o["dur"] + 0.001, "inner nested in outer")
    check(o["tid"] == i["tid"], "outer and inner on one thread")
    check(ranges["in-domain"].get("args", {}).get("domain") == "kinetoscope-test", "domain arg")
    marks = {e["name"] for e in v.instants}
    check({"mark", "before-cuInit"} <= marks, f"NVTX marks: {marks}")
    projected = {e["name"] for e in v.by_cat["gpu_user_annotation"]}
    check({"outer", "inner", "in-domain", "start-end"} <= projected, f"gpu_user_annotation: {projected}")
    # One clock for CPU and GPU: every GPU op starts after the call that issued it.
    calls = {e["args"]["correlation"]: e for e in v.by_cat["cuda_runtime"] + v.by_cat["cuda_driver"]}
    for op in v.by_cat["kernel"] + v.by_cat["gpu_memcpy"] + v.by_cat["gpu_memset"]:
        call = calls.get(op["args"]["correlation"])
        check(call is not None, f"no launching call for {op['name']}")
        check(op["ts"] >= call["ts"], f"{op['name']} starts before its call {call['name']}")
    props = v.doc.get("deviceProperties", [])
    check(props and props[0]["numSms"] > 0 and props[0]["sharedMemPerBlockOptin"] > 0, f"deviceProperties {props}")
    return f"{len(v.by_cat['kernel'])} kernels, {sum(copies.values())} copies, {len(v.by_cat['gpu_memset'])} memsets, " \
           f"{paired} flows paired, {len(ranges)} NVTX ranges, {len(v.instants)} instants"


def forks(views):
    check(len(views) == 2, f"2 traced processes (one file each), got {len(views)}")
    names = sorted(len(v.by_cat["kernel"]) for v in views)
    check(names == [2, 3], f"kernels per process {names}")
    return "2 processes: 2 child + 3 parent kernels"


def crash(v, count=5):
    k = v.kernels("crashKernel")
    check(len(k) == count, f"{count} crashKernel before the crash, got {len(k)}")
    terminated = [e for e in v.instants if e["name"] == "Process terminated"]
    check(terminated, "a 'Process terminated' mark")
    return f"{len(k)} kernels kept, termination marked"


def spawn(views):
    check(len(views) == 3, f"2 spawn workers + 1 subprocess traced, got {len(views)} files")
    check(all(v.by_cat["kernel"] for v in views), "every traced process launched kernels")
    return f"3 processes, {sum(len(v.by_cat['kernel']) for v in views)} kernels"


def duration(v):
    k = v.kernels("emptyKernel")
    check(0 < len(k) < 1000001, f"a partial recording, got {len(k)} kernels")
    return f"{len(k)} kernels recorded before --duration stopped"


def torch_train(v):
    ranges = Counter(e["name"] for e in v.by_cat["user_annotation"])
    check(ranges["step"] == 5 and ranges["forward"] == 5, f"NVTX ranges from torch: {dict(ranges)}")
    check(len(v.by_cat["kernel"]) >= 10, f"torch kernels: {len(v.by_cat['kernel'])}")
    starts, ends = v.flow_pairs()
    check(sum(1 for i in starts if ends[i] > 0) >= 10, "torch launch flows")
    projected = Counter(e["name"] for e in v.by_cat["gpu_user_annotation"])
    check(projected["forward"] >= 5, f"torch NVTX ranges projected onto streams: {dict(projected)}")
    return f"{len(v.by_cat['kernel'])} kernels, {sum(ranges.values())} NVTX ranges"


def main():
    scenario, files = sys.argv[1], sys.argv[2:]
    views = [View(load(f)) for f in files]
    if scenario in ("forks", "spawn"):
        summary = {"forks": forks, "spawn": spawn}[scenario](views)
    else:
        check(len(views) == 1, f"one file expected, got {files}")
        summary = {"shapes": shapes, "crash": crash, "torch": torch_train, "duration": duration}[scenario](views[0])
    print(f"PASS {scenario}: {summary}")


if __name__ == "__main__":
    main()
