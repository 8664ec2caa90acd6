"""Processes below the target: the parent never touches CUDA; two 'spawn' multiprocessing
workers and one subprocess each run a CUDA op, so the collector must see 3 connections."""
import multiprocessing as mp
import subprocess
import sys

CHILD = "import torch; torch.ones(8, device='cuda').mul_(2); torch.cuda.synchronize()"


def worker(index):
    import torch
    x = torch.full((16,), float(index), device="cuda")
    (x * 3).sum().item()


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    processes = [ctx.Process(target=worker, args=(i,)) for i in range(2)]
    for p in processes:
        p.start()
    for p in processes:
        p.join()
    subprocess.run([sys.executable, "-c", CHILD], check=True)
    sys.exit(0 if all(p.exitcode == 0 for p in processes) else 1)
