"""A small 2-rank DDP loop for the collector's multi-GPU test (issue 14): run by torchrun, which
sets RANK, WORLD_SIZE and LOCAL_RANK; the collector writes them as each rank's distributedInfo.

usage: NCCL_NVLS_ENABLE=0 torchrun --nproc_per_node=2 ddp_ranks.py [STEPS] [BACKEND]
  BACKEND nccl (default: one GPU per rank) or gloo (DDP on CUDA tensors; both ranks may share
  one GPU, for a machine with a single GPU).
"""
import os
import sys

import torch
import torch.distributed as dist


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    backend = sys.argv[2] if len(sys.argv) > 2 else "nccl"
    local_rank = int(os.environ["LOCAL_RANK"])
    device = local_rank % torch.cuda.device_count()
    torch.cuda.set_device(device)
    dist.init_process_group(backend)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(256, 256).cuda(), device_ids=[device])
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(64, 256, device="cuda")
    for _ in range(steps):
        optimizer.zero_grad()
        model(x).square().mean().backward()
        optimizer.step()
    torch.cuda.synchronize()
    rank = dist.get_rank()
    dist.destroy_process_group()
    print("rank %d done (%s, cuda:%d)" % (rank, backend, device), flush=True)


if __name__ == "__main__":
    main()
