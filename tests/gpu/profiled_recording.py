"""Records a training step under torch.profiler the way the test fixtures are recorded: CPU and
CUDA activities, shapes and memory, schedule(wait=1, warmup=1, active=3), after 5 warm-up steps;
writes NAME.pt.trace.json and, beside it, NAME.key_averages.json: torch's own key_averages() of
the same session, one row per key (as tests/data/reference/mlp_ops.key_averages.json)."""
import json
import os

import torch
from torch.profiler import ProfilerActivity, profile, schedule


def warm(step, count):
    """Runs `count` steps and waits for the GPU (the warm-up, or steps that no profiler times)."""
    for _ in range(count):
        step()
    torch.cuda.synchronize()


def record(step, path, warmup_steps=5):
    warm(step, warmup_steps)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 profile_memory=True, schedule=schedule(wait=1, warmup=1, active=3)) as prof:
        for _ in range(5):
            step()
            prof.step()
    torch.cuda.synchronize()
    prof.export_chrome_trace(path)
    print(f"{path}: {os.path.getsize(path)} bytes")
    rows = [{"name": e.key, "count": e.count, "self_cpu_us": e.self_cpu_time_total, "cpu_total_us": e.cpu_time_total,
             "self_device_us": e.self_device_time_total, "device_total_us": e.device_time_total}
            for e in prof.key_averages()]
    with open(path.replace(".pt.trace.json", ".key_averages.json"), "w") as f:
        json.dump(rows, f, indent=1)
