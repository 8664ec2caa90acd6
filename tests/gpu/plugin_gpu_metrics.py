"""The TensorBoard plugin's GPU metrics for a trace, computed by the plugin's own code (kineto
tb_plugin at 94979607^: RunProfileData.process's EventParser, OverallParser and
GPUMetricsParser), in the shape of tests/data/reference/plugin_gpu_metrics.json: its windows,
steps, GPU Utilization, Est. SM Efficiency, Est. Achieved Occupancy, the display strings of its
overview, the GPU Utilization counter series and the step time breakdown.

usage: TB_PLUGIN=<tb_plugin folder> python3 plugin_gpu_metrics.py REFERENCE.json TRACE...
Adds (or replaces) one entry per TRACE, named by the file name less .pt.trace.json(.gz), and
writes REFERENCE.json back. Needs the plugin's Python dependencies (pandas: Debian's
python3-pandas); not a project dependency.
"""
import gzip
import json
import logging
import os
import sys
import warnings


def load_plugin():
    sys.path.insert(0, os.environ["TB_PLUGIN"])
    warnings.simplefilter("ignore")
    from torch_tb_profiler.profiler.data import RunProfileData
    from torch_tb_profiler.profiler.event_parser import EventParser
    from torch_tb_profiler.profiler.gpu_metrics_parser import GPUMetricsParser
    from torch_tb_profiler.profiler.overall_parser import OverallParser
    from torch_tb_profiler.profiler.run_generator import RunGenerator
    logging.getLogger("torch_tb_profiler").setLevel(logging.ERROR)
    return RunProfileData, EventParser, GPUMetricsParser, OverallParser, RunGenerator


def overview_display(trace_json, plugin):
    """Per GPU, the overview's "GPU Summary" lines as the plugin makes them (run_generator.py),
    and its share of kernel time using tensor cores."""
    RunProfileData, RunGenerator = plugin[0], plugin[4]
    data = RunProfileData.from_json("worker", "span", trace_json)
    parser = data.gpu_metrics_parser
    infos = {g: RunGenerator._get_gpu_info(data.device_props, g) for g in parser.gpu_ids}
    summary, _ = parser.get_gpu_metrics_data_tooltip({g: i for g, i in infos.items() if i}, data.tc_ratio)
    display, gpu = {}, None
    for line in summary:
        if line["title"].startswith("GPU ") and line["title"].endswith(":"):
            gpu = line["title"][4:-1]
            display[gpu] = {}
        elif gpu is not None and line["title"] != "<hr/>":
            display[gpu][line["title"]] = line["value"]
    return display, data.tc_ratio


def metrics_of(path, plugin):
    RunProfileData, EventParser, GPUMetricsParser, OverallParser, _ = plugin
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        trace_json = json.load(f)
    profile = RunProfileData("worker", "span", trace_json)
    parser = EventParser()
    parser.parse(profile.events, profile.forward_backward_events)
    steps = parser.steps
    overall = OverallParser()
    overall.aggregate(steps, parser.role_ranges)
    gpu = GPUMetricsParser.parse_events(profile.events, parser.global_start_ts, parser.global_end_ts,
                                        steps[0][0], steps[-1][1])
    display, tensor_cores = overview_display(trace_json, plugin)
    entry = {
        "window_us": {
            "global_start": parser.global_start_ts,
            "global_end": parser.global_end_ts,
            "global_span": parser.global_end_ts - parser.global_start_ts,
            "steps_start": steps[0][0],
            "steps_end": steps[-1][1],
            "steps_span": steps[-1][1] - steps[0][0],
        },
        "steps_us": [list(s) for s in steps],
        "gpus": {},
        "counter_series": {"bucket_width_us": gpu.gpu_util_timeline_unit_size
                           * {"us": 1, "ms": 1000, "s": 1000000}[gpu.gpu_util_timeline_unit_name],
                           "gpu_utilization": {}},
        "step_breakdown_us": [
            {"step": parser.steps_names[i], "costs": list(costs.costs)} for i, costs in enumerate(overall.steps_costs)
        ],
    }
    for gpu_id in sorted(gpu.gpu_ids):
        entry["gpus"][str(gpu_id)] = {
            "gpu_utilization_pct": 100.0 * gpu.gpu_utilization[gpu_id],
            "est_sm_efficiency_pct": 100.0 * gpu.avg_approximated_sm_efficiency_per_device[gpu_id],
            "est_achieved_occupancy_pct": gpu.avg_occupancy_per_device[gpu_id],
            "kernel_time_using_tensor_cores_pct": 100.0 * tensor_cores[gpu_id],
            "display": display.get(str(gpu_id), {}),
        }
        buckets = gpu.gpu_util_buckets[gpu_id]
        entry["counter_series"]["gpu_utilization"][str(gpu_id)] = [list(b) for b in buckets]
        entry["counter_series"]["bucket_count"] = len(buckets) - 1
    return entry


def main():
    if len(sys.argv) < 3 or not os.environ.get("TB_PLUGIN"):
        sys.exit(__doc__)
    reference_path, traces = sys.argv[1], sys.argv[2:]
    plugin = load_plugin()
    with open(reference_path) as f:
        reference = json.load(f)
    for path in traces:
        name = os.path.basename(path).split(".pt.trace.json")[0]
        reference["traces"][name] = metrics_of(path, plugin)
        g = reference["traces"][name]["gpus"]
        print(name, {k: v["display"] for k, v in g.items()})
    with open(reference_path, "w") as f:
        json.dump(reference, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
