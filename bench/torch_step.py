#!/usr/bin/python3
"""The llpfc training step in PyTorch: the peer of `llpfc bench` for `make bench` and
for the GPU kit (scripts/gpu-kit/run.sh).

One step = forward pass, the forward-correction (FC) loss
    loss = -sum_i w_i * log(sum_j R_ij * softmax(z_i)_j + 1e-12),
backward pass, Adam update; float32. The models match training/models:

  mlp: input -> 512 -> ReLU -> 256 -> ReLU -> C
  wrn-16-4: training/models/wrn.go (pre-activation Wide ResNet, dropout between the block's two
       convolutions: a config's DROPOUT, 0 unless given)
  cnn: conv3x3(32, padding 1) -> ReLU -> maxpool2 -> conv3x3(64, padding 1)
       -> ReLU -> maxpool2 -> fc128 -> ReLU -> fc C
  resnet18: training/models/resnet.go (torchvision's resnet18: 7x7 stride-2 stem, 3x3 max-pool,
       four stages of two BasicBlocks, global average pooling, linear)
  vgg16: training/models/vgg.go (torchvision's vgg16_bn: thirteen conv3x3+BN+ReLU, five max-pools,
       adaptive average pooling to 7x7, classifier 25088 -> 4096 -> 4096 -> C with dropout 0.5,
       or a config's DROPOUT when given)

A config MODEL:BATCH:CxHxW[:DROPOUT[:aug]] with "aug" adds the appendix's augmentation to every
step, on the device: zero-pad 4, a random 32x32 crop and a horizontal flip with probability 1/2
per image (the authors' code does it on the CPU in its data loader; here it costs the peer
next to nothing).

--kernels LOG times, one by one on the device, the convolutions (forward, backward-data,
backward-filter: F.conv2d and torch.nn.grad.conv2d_input / conv2d_weight) and matrix products
(torch.mm) of every geometry in the per-op profiles of `llpfc bench --profile --json` lines in
LOG, and prints one JSON line each: {"impl": "pytorch", "kernel": CATEGORY, "geometry": {...},
"seconds": per call, ...} — the vendor's kernels for the same shapes, beside ours (the GPU kit's
summary).

--device cuda runs on a GPU: the clock stops after torch.cuda.synchronize(), and the result
reports torch.cuda.max_memory_allocated(). --tf32 off (the like-for-like float32 figure) turns
off TF32 in matrix products and cuDNN convolutions; --tf32 default leaves PyTorch's defaults
(in 2.x: off for matrix products, on for cuDNN convolutions) and records them. --configs runs
several models in one process (one JSON line each, after one import), e.g.
    --configs mlp:128:1x28x28,wrn-16-4:32:3x32x32 --tf32 off,default

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
import math
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

    def __init__(self, cin, cout, stride, p=0.0):
        super().__init__()
        self.p = p
        self.bn1, self.bn2 = nn.BatchNorm2d(cin), nn.BatchNorm2d(cout)
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, stride=stride)
        self.shortcut = None
        if stride != 1 or cin != cout:
            self.shortcut = nn.Conv2d(cin, cout, 1, stride=stride)

    def forward(self, x):
        h = self.conv1(F.relu(self.bn1(x)))
        if self.p > 0:
            h = F.dropout(h, self.p, self.training)
        h = self.conv2(F.relu(self.bn2(h)))
        return h + (x if self.shortcut is None else self.shortcut(x))


def wrn(ch, c, depth=16, width=4, p=0.0):
    """WRN-depth-width as training/wrn.go builds it: conv3x3 to 16 channels,
    three stages of (depth-4)/6 blocks with 16k, 32k, 64k channels, then
    BN -> ReLU -> global average pooling -> linear."""
    layers, cin, n = [nn.Conv2d(ch, 16, 3, padding=1)], 16, (depth - 4) // 6
    for stage, planes in enumerate([16 * width, 32 * width, 64 * width]):
        for i in range(n):
            layers.append(WideBlock(cin, planes, 2 if stage > 0 and i == 0 else 1, p))
            cin = planes
    layers += [nn.BatchNorm2d(cin, momentum=0.9), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
               nn.Flatten(), nn.Linear(cin, c)]
    return nn.Sequential(*layers)


class BasicBlock(nn.Module):
    """torchvision's ResNet BasicBlock: conv3x3(stride)-BN-ReLU-conv3x3-BN, plus the input
    (through a 1x1 stride convolution and BN when the shape changes), then ReLU."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        h = self.bn2(self.conv2(h))
        return F.relu(h + (x if self.down is None else self.down(x)))


def resnet18(ch, c):
    layers = [nn.Conv2d(ch, 64, 7, stride=2, padding=3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
              nn.MaxPool2d(3, stride=2, padding=1)]
    cin = 64
    for stage, planes in enumerate([64, 128, 256, 512]):
        for i in range(2):
            layers.append(BasicBlock(cin, planes, 2 if stage > 0 and i == 0 else 1))
            cin = planes
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, c)]
    return nn.Sequential(*layers)


def vgg16(ch, c, p=0.5):
    layers, cin = [], ch
    for v in [64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0, 512, 512, 512, 0]:
        if v == 0:
            layers.append(nn.MaxPool2d(2))
        else:
            layers += [nn.Conv2d(cin, v, 3, padding=1), nn.BatchNorm2d(v), nn.ReLU()]
            cin = v
    layers += [nn.AdaptiveAvgPool2d(7), nn.Flatten(), nn.Linear(512 * 49, 4096), nn.ReLU(), nn.Dropout(p),
               nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(p), nn.Linear(4096, c)]
    return nn.Sequential(*layers)


def fc_loss(z, r, w):
    # numerically stable: softmax via log_softmax, then the row product.
    p = F.softmax(z, dim=1)
    q = (r * p).sum(dim=1)
    return -(w * torch.log(q + 1e-12)).sum()


# The initialisation training/models gives each network (training/nn's Init: the authors' models at
# 1d0cbc5): the convolutions' init for wrn-16-4, resnet18 and vgg16, and vgg16's linear layers'; the
# rest (mlp, cnn, the other linear layers, batch norm) is PyTorch's default, as in training/models.
CONV_INIT = {"wrn-16-4": "xavier_relu", "resnet18": "kaiming_fan_out", "vgg16": "kaiming_fan_out"}
LINEAR_INIT = {"vgg16": "normal_001"}


def init_like_llpfc(net, model):
    """Initialises net as training/models initialises model. The peer must start from the same
    distributions as ours, not only the same layers: on a CPU that keeps subnormals (neither side sets
    flush-to-zero) a step's time depends on its values. An Intel core takes a microcode assist for
    each subnormal product, so with VGG16's N(0, 0.01^2) classifier the third step's products of tiny
    gradients ran 1.8x (PyTorch) and 2.6x (ours) slower, where PyTorch's default init never reached them
    (bench/NOTES.md, "on an Intel Xeon")."""
    conv, linear = CONV_INIT.get(model), LINEAR_INIT.get(model)
    for m in net.modules():
        if isinstance(m, nn.Conv2d) and conv:
            if conv == "xavier_relu":  # models/WideRes.py@1d0cbc5:57-61, training/nn InitXavierRelu
                nn.init.xavier_uniform_(m.weight, gain=math.sqrt(2))
            else:  # models/vgg.py@1d0cbc5:43, models/ResNet.py@1d0cbc5:170, training/nn InitKaimingFanOut
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            if m.bias is not None:
                nn.init.constant_(m.bias, 0)
        elif isinstance(m, nn.Linear) and linear == "normal_001":  # models/vgg.py@1d0cbc5:50-51, InitNormal001
            nn.init.normal_(m.weight, 0, 0.01)
            nn.init.constant_(m.bias, 0)
    return net


def build(model, ch, h, w, c, p=0.0):
    """The network of model (training/models' layers, initialised as training/models does)."""
    d = ch * h * w
    if model == "mlp":
        net = mlp(d, c)
    elif model == "cnn":
        net = cnn(ch, h, w, c)
    elif model == "wrn-16-4":
        net = wrn(ch, c, p=p)
    elif model == "resnet18":
        net = resnet18(ch, c)
    else:
        net = vgg16(ch, c, p if p > 0 else 0.5)  # as training/models: 0 means VGG16's 0.5
    return init_like_llpfc(net, model)


def crop_flip(x, pad=4):
    """The appendix's augmentation of a batch on its device: zero-pad pad pixels, a random crop of
    the original size and a horizontal flip with probability 1/2, drawn per image (as
    training.CropFlip: output (y, x) of a flipped crop is crop column W-1-x)."""
    B, C, H, W = x.shape
    dev = x.device
    xp = F.pad(x, (pad, pad, pad, pad))
    top = torch.randint(0, 2 * pad + 1, (B,), device=dev)
    left = torch.randint(0, 2 * pad + 1, (B,), device=dev)
    rows = top[:, None] + torch.arange(H, device=dev)[None, :]
    cols = left[:, None] + torch.arange(W, device=dev)[None, :]
    cols = torch.where((torch.rand(B, device=dev) < 0.5)[:, None], cols.flip(1), cols)
    b = torch.arange(B, device=dev)[:, None, None, None]
    c = torch.arange(C, device=dev)[None, :, None, None]
    return xp[b, c, rows[:, None, :, None], cols[:, None, None, :]]


def set_tf32(mode):
    """Sets IEEE float32 (no TF32) in matrix products and cuDNN convolutions for mode "off";
    "default" keeps PyTorch's. Uses the fp32_precision settings where PyTorch has them (2.9 and
    later, where the allow_tf32 flags are deprecated and must not be mixed with them), else the
    allow_tf32 flags. Returns the settings in force."""
    try:  # (torch 1.x's backends answer an unknown attribute with an AssertionError)
        new_api = isinstance(torch.backends.cuda.matmul.fp32_precision, str)
    except (AttributeError, AssertionError):
        new_api = False
    if mode not in ("off", "default"):
        raise SystemExit("--tf32: want off or default, got " + mode)
    if new_api:
        m, c = torch.backends.cuda.matmul, torch.backends.cudnn.conv
        DEFAULTS.setdefault("new", (m.fp32_precision, c.fp32_precision))
        m.fp32_precision, c.fp32_precision = ("ieee", "ieee") if mode == "off" else DEFAULTS["new"]
        return {"matmul_fp32_precision": m.fp32_precision, "cudnn_conv_fp32_precision": c.fp32_precision}
    m, c = torch.backends.cuda.matmul, torch.backends.cudnn
    DEFAULTS.setdefault("legacy", (m.allow_tf32, c.allow_tf32))
    m.allow_tf32, c.allow_tf32 = (False, False) if mode == "off" else DEFAULTS["legacy"]
    return {"matmul_tf32": m.allow_tf32, "cudnn_tf32": c.allow_tf32}


DEFAULTS = {}  # PyTorch's TF32 settings at start, restored for --tf32 default


def run_one(a, model, B, ch, h, w, tf32, p=0.0, aug=False):
    """Times a.steps steps of model at batch B on a.device (more until a.min_seconds have passed);
    returns the result object."""
    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    torch.manual_seed(a.seed)
    C = a.classes
    settings = set_tf32(tf32) if cuda else {}
    net = build(model, ch, h, w, C, p).to(dev)
    net.train()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    x = torch.rand(B, ch, h, w, dtype=torch.float32, device=dev)
    t = torch.rand(C, C)
    t = t / t.sum(dim=0, keepdim=True)  # column-stochastic like T-hat
    r = t[torch.randint(0, C, (B,))].contiguous().to(dev)
    wt = torch.full((B,), 1.0 / B, device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = fc_loss(net(crop_flip(x) if aug else x), r, wt)
        loss.backward()
        opt.step()
        return loss

    for _ in range(a.warmup):
        step()
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    t0, c0 = time.perf_counter(), time.process_time()
    steps = 0
    while steps < a.steps or time.perf_counter() - t0 < a.min_seconds:
        loss = step()
        steps += 1
    final = float(loss)  # waits for the device
    if cuda:
        torch.cuda.synchronize()
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    out = {
        "images_per_second": steps * B / dt,
        "model": model,
        "impl": "pytorch",
        "torch": torch.__version__,
        "device": a.device,
        "threads": torch.get_num_threads(),
        "batch_size": B,
        "shape": [ch, h, w],
        "dropout": p,
        "augment": aug,
        "steps": steps,
        "seconds": dt,
        "cpu_seconds_per_step": cpu / steps,
        "images_per_cpu_second": steps * B / cpu if cpu > 0 else 0,
        "final_loss": final,
        "params": sum(p.numel() for p in net.parameters()),
        # peak resident set size of the whole process (getrusage, KiB on Linux)
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }
    if cuda:
        out.update({"tf32": tf32, "cuda_max_memory_allocated": torch.cuda.max_memory_allocated(),
                    "gpu": torch.cuda.get_device_name(dev), **settings})
    return out


def parse_configs(spec, a):
    """MODEL:BATCH:CxHxW[:DROPOUT[:aug]],… (or the single --model configuration)."""
    if not spec:
        return [(a.model, a.batch_size, a.channels, a.height, a.width, 0.0, False)]
    out = []
    for item in spec.split(","):
        f = item.split(":")
        if not 3 <= len(f) <= 5:
            raise SystemExit(f"--configs: {item!r}: want MODEL:BATCH:CxHxW[:DROPOUT[:aug]]")
        ch, h, w = (int(v) for v in f[2].split("x"))
        p = float(f[3]) if len(f) > 3 else 0.0
        out.append((f[0], int(f[1]), ch, h, w, p, len(f) > 4 and f[4] == "aug"))
    return out


def profile_geometries(log):
    """The distinct convolution and matrix-product geometries of the per-op profiles (`llpfc bench
    --profile --json` lines) in the file log: (category, geometry) pairs in the order first seen."""
    seen, out = set(), []
    for line in open(log, errors="replace"):
        line = line.strip()
        if not (line.startswith("{") and line.endswith("}")):
            continue
        try:
            r = json.loads(line)
        except ValueError:
            continue
        for o in (r.get("profile") or {}).get("ops") or []:
            cat, g = o.get("category"), o.get("geometry")
            if cat not in KERNELS or not g:
                continue
            key = (cat, tuple(sorted(g.items())))
            if key not in seen:
                seen.add(key)
                out.append((cat, g))
    return out


# The categories of the per-op profile (training/device.OpCategory) the peer times.
KERNELS = ("conv forward", "conv backward-data", "conv backward-filter", "GEMM")


def kernel_call(cat, g, dev):
    """A function that runs one call of the kernel of category cat at geometry g on dev."""
    if cat == "GEMM":
        m, n, k = g["m"], g["n"], g["k"]
        a = torch.randn((k, m) if g.get("ta") else (m, k), device=dev)
        b = torch.randn((n, k) if g.get("tb") else (k, n), device=dev)
        return lambda: torch.mm(a.t() if g.get("ta") else a, b.t() if g.get("tb") else b)
    N, C, H, W, O, K, pad, stride = (g[k] for k in ("N", "C", "H", "W", "O", "K", "pad", "stride"))
    x = torch.randn(N, C, H, W, device=dev)
    w = torch.randn(O, C, K, K, device=dev)
    dy = torch.randn_like(F.conv2d(x, w, None, stride, pad))
    if cat == "conv forward":
        return lambda: F.conv2d(x, w, None, stride, pad)
    if cat == "conv backward-data":
        return lambda: torch.nn.grad.conv2d_input(x.shape, w, dy, stride, pad)
    return lambda: torch.nn.grad.conv2d_weight(x, w.shape, dy, stride, pad)


def time_kernels(a, log):
    """One JSON line per geometry of the profiles in log: the seconds of one call on a.device."""
    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    settings = set_tf32(a.tf32.split(",")[0]) if cuda else {}
    for cat, g in profile_geometries(log):
        try:
            f = kernel_call(cat, g, dev)
            for _ in range(3):
                f()
            sync()
            reps, t0 = 0, time.perf_counter()
            while reps < 3 or (time.perf_counter() - t0 < 0.02 and reps < 200):
                f()
                reps += 1
                if reps in (3, 10, 50):
                    sync()
            sync()
            out = {"impl": "pytorch", "kernel": cat, "geometry": g, "seconds": (time.perf_counter() - t0) / reps, "calls": reps,
                   "device": a.device, "torch": torch.__version__, **settings}
            if cuda:
                out["tf32"] = a.tf32.split(",")[0]
        except RuntimeError as e:
            out = {"impl": "pytorch", "kernel": cat, "geometry": g, "device": a.device, "error": str(e).splitlines()[0]}
        print(json.dumps(out), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=MODELS, default="mlp")
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--steps", type=int, default=50, help="timed steps")
    ap.add_argument("--warmup", type=int, default=5, help="untimed steps first")
    ap.add_argument("--min-seconds", type=float, default=0.0,
                    help="time more steps than --steps until this many seconds have passed (a step of milliseconds timed 3 times is noise)")
    ap.add_argument("--threads", type=int, default=2, help="torch.set_num_threads")
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--channels", type=int, default=1)
    ap.add_argument("--height", type=int, default=28)
    ap.add_argument("--width", type=int, default=28)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    ap.add_argument("--tf32", default="off", help="on CUDA: off, default, or both as off,default")
    ap.add_argument("--configs", default="", help="MODEL:BATCH:CxHxW[:DROPOUT[:aug]],… run in this process, one JSON line each")
    ap.add_argument("--kernels", default="", help="time the convolutions and products of the profiles in this llpfc bench log instead")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    if a.kernels:
        return time_kernels(a, a.kernels)
    configs = parse_configs(a.configs, a)
    for model, *_ in configs:
        if model not in MODELS:
            raise SystemExit(f"--configs: unknown model {model} (want one of {', '.join(MODELS)})")
    modes = a.tf32.split(",") if a.device.startswith("cuda") else ["off"]
    for model, B, ch, h, w, p, aug in configs:
        for mode in modes:
            try:
                print(json.dumps(run_one(a, model, B, ch, h, w, mode, p, aug)), flush=True)
            except RuntimeError as e:  # out of memory on the device: say so and go on
                print(json.dumps({"model": model, "batch_size": B, "shape": [ch, h, w], "tf32": mode, "device": a.device,
                                  "error": str(e).splitlines()[0]}), flush=True)
                if a.device.startswith("cuda"):
                    torch.cuda.empty_cache()


MODELS = ["mlp", "cnn", "wrn-16-4", "resnet18", "vgg16"]


if __name__ == "__main__":
    main()
