#!/usr/bin/python3
"""The llpfc training step in PyTorch, for `make bench` (issue 7).

One step = forward pass, the forward-correction (FC) loss
    loss = -sum_i w_i * log(sum_j R_ij * softmax(z_i)_j + 1e-12),
backward pass, Adam update; batch 128, float32, CPU. The models match
training/mlp.go and training/cnn.go:

  mlp: input -> 512 -> ReLU -> 256 -> ReLU -> C
  cnn: conv3x3(32, padding 1) -> ReLU -> maxpool2 -> conv3x3(64, padding 1)
       -> ReLU -> maxpool2 -> fc128 -> ReLU -> fc C
  wrn-16-4: the Wide ResNet-16-4 of training/wrn.go (pre-activation wide basic
       blocks 16 -> 64 -> 128 -> 256 channels, two blocks per stage, dropout
       0.3 between the convolutions, biases in every convolution, 1x1
       projection shortcuts, final batch norm and ReLU, global average pool,
       linear C): 2,751,146 parameters for C = 10, as ours.

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


class WideBasic(nn.Module):
    def __init__(self, cin, cout, stride, drop):
        super().__init__()
        self.bn1, self.conv1 = nn.BatchNorm2d(cin), nn.Conv2d(cin, cout, 3, padding=1)
        self.drop = nn.Dropout(drop)
        self.bn2, self.conv2 = nn.BatchNorm2d(cout), nn.Conv2d(cout, cout, 3, stride=stride, padding=1)
        self.short = nn.Conv2d(cin, cout, 1, stride=stride) if stride != 1 or cin != cout else nn.Identity()

    def forward(self, x):
        o = self.drop(self.conv1(F.relu(self.bn1(x))))
        return self.conv2(F.relu(self.bn2(o))) + self.short(x)


class WRN164(nn.Module):
    def __init__(self, ch, c, drop=0.3):
        super().__init__()
        self.conv1 = nn.Conv2d(ch, 16, 3, padding=1)
        blocks, cin = [], 16
        for cout, stride in [(64, 1), (64, 1), (128, 2), (128, 1), (256, 2), (256, 1)]:
            blocks.append(WideBasic(cin, cout, stride, drop))
            cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.bn = nn.BatchNorm2d(256, momentum=0.9)
        self.linear = nn.Linear(256, c)

    def forward(self, x):
        o = F.relu(self.bn(self.blocks(self.conv1(x))))
        return self.linear(F.adaptive_avg_pool2d(o, 1).flatten(1))


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
        net = WRN164(a.channels, C)
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
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }))


if __name__ == "__main__":
    main()
