#!/usr/bin/env python3
"""A 2-rank DDP run where rank 1 is a straggler: it sleeps 20 ms before each step, so rank 0
waits in every allreduce. Writes straggler_rank{0,1}.pt.trace.json.gz into OUTDIR.
Usage: NCCL_NVLS_ENABLE=0 torchrun --nproc_per_node=2 record_straggler.py OUTDIR"""
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.profiler import ProfilerActivity, profile, schedule

out = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(out, exist_ok=True)
dist.init_process_group("nccl")
rank = dist.get_rank()
torch.cuda.set_device(rank)
dev = torch.device("cuda", rank)
model = DDP(torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).to(dev),
            device_ids=[rank])
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(64, 1024, device=dev)
SLEEP_S = 0.020 if rank == 1 else 0.0


def step():
    if SLEEP_S:
        time.sleep(SLEEP_S)  # the straggler: slow host work before every step
    loss = model(x).square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


for _ in range(5):
    step()
torch.cuda.synchronize()
path = os.path.join(out, f"straggler_rank{rank}.pt.trace.json.gz")
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
             schedule=schedule(wait=1, warmup=1, active=4),
             on_trace_ready=lambda p: p.export_chrome_trace(path)) as prof:
    for _ in range(6):
        step()
        prof.step()
torch.cuda.synchronize()
dist.barrier()
print("rank", rank, os.path.getsize(path), "bytes")
dist.destroy_process_group()
