"""Loads collected traces with the TensorBoard plugin's profiler parser (torch_tb_profiler, the
PyTorch profiler plugin that kineto shipped in tb_plugin/) and checks that it sees what the file
holds (issue 14): per operator name the plugin's calls equal the file's cpu_op events (counted
here, with the plugin's one rule that drops some: an op that is the only child of an op of the
same name is merged into it, as torch's EventList._remove_dup_nodes does, in its tree, which
leaves out most record_function ranges), its kernel table
counts every kernel event, it reads distributedInfo as written, and it builds its views
(overview, operators, kernels, trace) without an error.

usage: check_tb_plugin.py TRACE...
The plugin is not a dependency of the project: set TB_PLUGIN to a tb_plugin folder (the one that
holds torch_tb_profiler/) or install it; it needs pandas. Without either it prints
"SKIP: ..." and exits 0. Prints PASS or FAIL lines; exit 1 on failure.
"""
import collections
import gzip
import json
import logging
import os
import sys
import tempfile
import warnings


def load_plugin():
    if os.environ.get("TB_PLUGIN"):
        sys.path.insert(0, os.environ["TB_PLUGIN"])
    warnings.simplefilter("ignore")  # its deprecation notice
    try:
        from torch_tb_profiler.profiler.data import DistributedRunProfileData, RunProfileData
        from torch_tb_profiler.profiler.run_generator import RunGenerator
    except ImportError as e:
        return None, str(e)
    logging.getLogger("torch_tb_profiler").setLevel(logging.ERROR)
    return (RunProfileData, RunGenerator, DistributedRunProfileData), ""


COLLECTIVE_NAMES = {f"{lib}:{op}" for lib in ("nccl", "gloo")
                    for op in ("broadcast", "reduce", "all_reduce", "all_gather", "reduce_scatter")}


def in_plugin_tree(e):
    """The host ranges the plugin builds its tree of (node.py create_operator_node): every
    cpu_op, and of the user_annotation ranges only steps, DataLoader and optimizer steps and
    collectives; other record_function ranges (PythonSubclass, PythonDispatchMode around
    torch.compile's dispatch, a user's labels) are not nodes, so ops on both sides of one nest
    directly."""
    if e.get("ph") != "X":
        return False
    if e.get("cat") == "cpu_op":
        return True
    name = e.get("name", "")
    return e.get("cat") == "user_annotation" and (
        name.startswith(("ProfilerStep#", "Optimizer.step", "enumerate(DataPipe)#")) or name in COLLECTIVE_NAMES
        or (name.startswith("enumerate(DataLoader)#") and name.endswith(".__next__")))


def expected_op_calls(events):
    """cpu_op events per name, less those that the plugin merges into their parent: per thread,
    its tree's ranges (in_plugin_tree) nest by time (a range starting inside another and ending
    no later is its child); an op whose only child is an op of the same name absorbs it
    (repeatedly)."""
    by_thread = collections.defaultdict(list)
    for e in events:
        if in_plugin_tree(e):
            by_thread[(e.get("pid"), e.get("tid"))].append(e)
    calls = collections.Counter()
    for ranges in by_thread.values():
        ranges.sort(key=lambda e: (e["ts"], -(e["ts"] + e.get("dur", 0))))
        children = collections.defaultdict(list)
        stack = []
        for i, e in enumerate(ranges):
            end = e["ts"] + e.get("dur", 0)
            while stack and not e["ts"] < ranges[stack[-1]]["ts"] + ranges[stack[-1]].get("dur", 0):
                stack.pop()
            if stack and end > ranges[stack[-1]]["ts"] + ranges[stack[-1]].get("dur", 0):
                continue  # crosses its parent's end: the plugin leaves it out of its tree
            if stack:
                children[stack[-1]].append(i)
            stack.append(i)
        merged = set()
        for i, e in enumerate(ranges):
            node = i
            while len(children[node]) == 1:
                child = children[node][0]
                if not (e["cat"] == ranges[child]["cat"] == "cpu_op" and ranges[child]["name"] == e["name"]):
                    break
                merged.add(child)
                children[node] = children[child]
        calls.update(e["name"] for i, e in enumerate(ranges) if e["cat"] == "cpu_op" and i not in merged)
    return calls


def check(plugin, path):
    RunProfileData, RunGenerator, DistributedRunProfileData = plugin
    with (gzip.open(path) if path.endswith(".gz") else open(path, "rb")) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    ops = expected_op_calls(events)
    events_of_ops = sum(1 for e in events if e.get("cat") == "cpu_op" and e.get("ph") == "X")
    kernels = sum(1 for e in events if e.get("cat") == "kernel")
    failures = []
    name = os.path.basename(path)
    data = RunProfileData.parse(name, None, path, tempfile.mkdtemp())
    profile = RunGenerator(name, None, data).generate_run_profile()
    dist = DistributedRunProfileData(data)
    theirs = {o.name: o.calls for o in data.op_list_groupby_name}
    differ = sorted(n for n in set(ops) | set(theirs) if ops.get(n, 0) != theirs.get(n, 0))
    for n in differ[:10]:
        failures.append("%s: %d calls expected, the plugin counts %d" % (n, ops.get(n, 0), theirs.get(n, 0)))
    plugin_kernels = int(data.kernel_stat["count"].sum()) if data.kernel_stat is not None else 0
    if plugin_kernels != kernels:
        failures.append("%d kernel events, the plugin's kernel table counts %d" % (kernels, plugin_kernels))
    if dist.distributed_info != trace.get("distributedInfo"):
        failures.append("distributedInfo %s read as %s" % (trace.get("distributedInfo"), dist.distributed_info))
    if not profile.overview or (kernels and not profile.kernel_table):
        failures.append("the plugin built no overview or no kernel table")
    print("%s: %d cpu_op events, %d calls after merging; the plugin: %d op names (%d expected), %d calls, "
          "%d kernels (%d in the file), %d steps, devices %s, distributedInfo %s"
          % (name, events_of_ops, sum(ops.values()), len(theirs), len(ops), sum(theirs.values()), plugin_kernels,
             kernels, len(data.steps_names), data.used_devices, dist.distributed_info))
    for f in failures:
        print("FAIL %s: %s" % (name, f))
    return not failures


def main():
    plugin, why = load_plugin()
    if plugin is None:
        print("SKIP: the TensorBoard plugin's parser (torch_tb_profiler) cannot be imported: %s" % why)
        return 0
    ok = all([check(plugin, path) for path in sys.argv[1:]])
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
