#!/usr/bin/python3
"""The llpfc training step in PyTorch, for `make bench` (issue 7).

One step = forward pass, the forward-correction (FC) loss
    loss = -sum_i w_i * log(sum_j R_ij * softmax(z_i)_j + 1e-12),
backward pass, Adam update; batch 128, float32, CPU. The models match
training/mlp.go and training/cnn.go:

  mlp: input -> 512 -> ReLU -> 256 -> ReLU -> C
  wrn-16-4: training/wrn.go (pre-activation Wide ResNet, dropout 0)
  cnn: conv3x3(32, padding 1) -> ReLU -> maxpool2 -> conv3x3(64, padding 1)
       -> ReLU -> maxpool2 -> fc128 -> ReLU -> fc C

Initialisation: PyTorch's default for nn.Linear/nn.Conv2d, U(+-1/sqrt(fan_in))
for weights and biases, which is what training.NewDense/NewConv draw.
The data are random: x ~ U(0,1), each row of R a row of a random
column-stochastic T (like a row of T-hat), w = 1/B.

Prints one JSON object: {"images_per_second": ..., "model": ..., ...}, with
images per second of wall time and of process CPU time (the CPU may be shared;
note that OpenMP threads that spin while waiting count as CPU time).
"""
import argparse
import json
import os
import resource
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def mlp(d, c):
    return nn.Sequential(nn.Flatten(), nn.Linear(d, 512), nn.ReLU(),
                         nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, c))


def cnn(ch, h, w, c):
    return nn.Sequential(
        nn.Conv2d(ch, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * (h // 4) * (w // 4), 128), nn.ReLU(),
        nn.Linear(128, c))


class WideBlock(nn.Module):
    """training/wrn.go's pre-activation wide basic block (dropout 0, as in
    llpfc bench): BN -> ReLU -> conv3x3 -> BN -> ReLU -> conv3x3(stride),
    plus a 1x1 convolution of the block input when the shape changes."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.bn1, self.bn2 = nn.BatchNorm2d(cin), nn.BatchNorm2d(cout)
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, stride=stride)
        self.shortcut = None
        if stride != 1 or cin != cout:
            self.shortcut = nn.Conv2d(cin, cout, 1, stride=stride)

    def forward(self, x):
        h = self.conv1(F.relu(self.bn1(x)))
        h = self.conv2(F.relu(self.bn2(h)))
        return h + (x if self.shortcut is None else self.shortcut(x))


def wrn(ch, c, depth=16, width=4):
    """WRN-depth-width as training/wrn.go builds it: conv3x3 to 16 channels,
    three stages of (depth-4)/6 blocks with 16k, 32k, 64k channels, then
    BN -> ReLU -> global average pooling -> linear."""
    layers, cin, n = [nn.Conv2d(ch, 16, 3, padding=1)], 16, (depth - 4) // 6
    for stage, planes in enumerate([16 * width, 32 * width, 64 * width]):
        for i in range(n):
            layers.append(WideBlock(cin, planes, 2 if stage > 0 and i == 0 else 1))
            cin = planes
    layers += [nn.BatchNorm2d(cin, momentum=0.9), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
               nn.Flatten(), nn.Linear(cin, c)]
    return nn.Sequential(*layers)


def fc_loss(z, r, w):
    # numerically stable: softmax via log_softmax, then the row product.
    p = F.softmax(z, dim=1)
    q = (r * p).sum(dim=1)
    return -(w * torch.log(q + 1e-12)).sum()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=["mlp", "cnn", "wrn-16-4"], default="mlp")
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--steps", type=int, default=50, help="timed steps")
    ap.add_argument("--warmup", type=int, default=5, help="untimed steps first")
    ap.add_argument("--threads", type=int, default=2, help="torch.set_num_threads")
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--channels", type=int, default=1)
    ap.add_argument("--height", type=int, default=28)
    ap.add_argument("--width", type=int, default=28)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    B, C = a.batch_size, a.classes
    d = a.channels * a.height * a.width
    if a.model == "mlp":
        net = mlp(d, C)
    elif a.model == "cnn":
        net = cnn(a.channels, a.height, a.width, C)
    else:
        net = wrn(a.channels, C)
    net.train()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    x = torch.rand(B, a.channels, a.height, a.width, dtype=torch.float32)
    t = torch.rand(C, C)
    t = t / t.sum(dim=0, keepdim=True)  # column-stochastic like T-hat
    r = t[torch.randint(0, C, (B,))].contiguous()
    w = torch.full((B,), 1.0 / B)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = fc_loss(net(x), r, w)
        loss.backward()
        opt.step()
        return loss

    for _ in range(a.warmup):
        step()
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(a.steps):
        loss = step()
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(json.dumps({
        "images_per_second": a.steps * B / dt,
        "model": a.model,
        "impl": "pytorch",
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "batch_size": B,
        "steps": a.steps,
        "seconds": dt,
        "cpu_seconds_per_step": cpu / a.steps,
        "images_per_cpu_second": a.steps * B / cpu if cpu > 0 else 0,
        "final_loss": float(loss),
        "params": sum(p.numel() for p in net.parameters()),
        # peak resident set size of the whole process (getrusage, KiB on Linux)
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }))


if __name__ == "__main__":
    main()
