"""Checks our FLOP counts against torch's own (issue 37, docs/roofline.md).

usage: flops_check.py CLI [OUTDIR]
Records, with torch.profiler(record_shapes=True), one training step of a small transformer
(bf16: embedding, linear, scaled-dot-product attention, layer norm, GELU, softmax) and one of a
conv net (fp32: Conv1d/2d/3d with stride, padding, dilation and groups, a ConvTranspose2d), and
counts the same step under torch.utils.flop_counter.FlopCounterMode. For every op type that
FlopCounterMode counts, the FLOPs that `CLI ops --json` gives its row must equal FlopCounterMode's.
Then a bf16 8192^3 GEMM must read at least 60 % of the device's BF16 peak. Prints PASS/FAIL/INFO
lines (also to OUTDIR/flops-results.txt); exit 1 on a failure. Without a GPU: SKIP, exit 0.
"""
import json
import os
import subprocess
import sys
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile
from torch.utils.flop_counter import FlopCounterMode

LINES = []


def say(line):
    print(line, flush=True)
    LINES.append(line)


class Block(nn.Module):
    def __init__(self, dim=512, heads=8):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, d))
        return x + self.down(F.gelu(self.up(self.norm2(x))))


class Transformer(nn.Module):
    def __init__(self, vocab=8000, dim=512, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim) for _ in range(layers))
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(x)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 32, 3, padding=1)
        self.c2 = nn.Conv2d(32, 64, 3, stride=2, padding=1, groups=2)
        self.c3 = nn.Conv2d(64, 64, 3, padding=2, dilation=2)
        self.up = nn.ConvTranspose2d(64, 32, 2, stride=2)
        self.c1d = nn.Conv1d(32, 16, 5, padding=2)
        self.c3d = nn.Conv3d(1, 4, 3, padding=1)
        self.fc = nn.Linear(16 * 64 * 64 + 4 * 8 * 16 * 16, 10)

    def forward(self, x, v):
        y = F.relu(self.c1(x))
        y = F.relu(self.c2(y))
        y = F.relu(self.c3(y))
        y = self.up(y)  # [n, 32, 64, 64]
        y = self.c1d(y.flatten(2))  # [n, 16, 4096]
        z = self.c3d(v)  # [n, 4, 8, 16, 16]
        return self.fc(torch.cat([y.flatten(1), z.flatten(1)], 1))


def transformer_step():
    torch.manual_seed(0)
    model = Transformer().cuda().to(torch.bfloat16)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    tokens = torch.randint(0, 8000, (8, 256), device="cuda")

    def step():
        logits = model(tokens)
        loss = F.cross_entropy(logits.float().view(-1, logits.shape[-1]), tokens.view(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return step


def convnet_step():
    torch.manual_seed(0)
    model = ConvNet().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(4, 3, 64, 64, device="cuda")
    v = torch.randn(4, 1, 8, 16, 16, device="cuda")
    target = torch.randint(0, 10, (4,), device="cuda")

    def step():
        loss = F.cross_entropy(model(x, v), target)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return step


def record(step, path):
    for _ in range(2):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
        step()
        torch.cuda.synchronize()
    prof.export_chrome_trace(path)
    with FlopCounterMode(display=False) as counter:
        step()
    torch.cuda.synchronize()
    return {str(op).replace("aten.", "aten::"): n for op, n in counter.get_flop_counts()["Global"].items()}


def ops_json(cli, path, *extra):
    out = subprocess.run([cli, "ops", "--json", *extra, path], check=True, capture_output=True, text=True)
    if out.stderr.strip():
        say("INFO: ops stderr: " + out.stderr.strip())
    return {r["name"]: r for r in json.loads(out.stdout) if not r["device"]}


def sample_args(path, name):
    with open(path) as f:
        for e in json.load(f)["traceEvents"]:
            if e.get("name") == name and e.get("cat") == "cpu_op":
                return {k: e["args"].get(k) for k in ("Input Dims", "Input type", "Concrete Inputs")}
    return None


def compare(label, cli, path, torch_counts):
    rows = ops_json(cli, path)
    failures = 0
    for name, expected in sorted(torch_counts.items()):
        row = rows.get(name)
        ours = row.get("flops") if row else None
        if ours == expected:
            say("PASS: %s %s: %d FLOPs (FlopCounterMode %d), %s calls, %.1f TFLOP/s"
                % (label, name, ours, expected, row["calls"], row["tflops_per_s"] or 0.0))
        else:
            failures += 1
            say("FAIL: %s %s: ours %s, FlopCounterMode %d%s" % (
                label, name, ours, expected,
                "" if not row else " (%s)" % row.get("unknown_reason", "")))
            say("INFO: %s args: %s" % (name, json.dumps(sample_args(path, name))))
    for name, row in sorted(rows.items()):
        if row.get("flops") and name not in torch_counts:
            say("INFO: %s %s: %d FLOPs (%s; FlopCounterMode has no entry%s)" % (
                label, name, row["flops"], row.get("flop_rule"), ", composite" if row.get("composite") else ""))
    return failures


def gemm_check(cli, path):
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    for _ in range(5):
        torch.mm(a, b)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
        for _ in range(10):
            torch.mm(a, b)
        torch.cuda.synchronize()
    prof.export_chrome_trace(path)
    row = ops_json(cli, path)["aten::mm"]
    expected = 10 * 2 * 8192 ** 3
    ok = row["flops"] == expected and row["peak_fraction"] is not None and row["peak_fraction"] >= 0.6
    say("%s: bf16 8192^3 GEMM x10: %s FLOPs (expected %d), %.1f TFLOP/s, %.1f %% of the %s peak, %s-bound"
        % ("PASS" if ok else "FAIL", row["flops"], expected, row["tflops_per_s"] or 0,
           100 * (row["peak_fraction"] or 0), row.get("peak"), row.get("bound")))
    return 0 if ok else 1


def main():
    cli = os.path.abspath(sys.argv[1])
    outdir = sys.argv[2] if len(sys.argv) > 2 else "."
    if not torch.cuda.is_available():
        say("SKIP: no CUDA device")
        return 0
    say("INFO: %s, torch %s, CUDA %s" % (torch.cuda.get_device_name(0), torch.__version__, torch.version.cuda))
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        for label, make in (("transformer", transformer_step), ("convnet", convnet_step)):
            path = os.path.join(work, label + ".pt.trace.json")
            counts = record(make(), path)
            failures += compare(label, cli, path, counts)
        failures += gemm_check(cli, os.path.join(work, "gemm.pt.trace.json"))
    say("%s: %d failure(s)" % ("PASS" if failures == 0 else "FAIL", failures))
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "flops-results.txt"), "w") as f:
        f.write("\n".join(LINES) + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
