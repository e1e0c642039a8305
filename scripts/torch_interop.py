#!/usr/bin/python3
"""PyTorch loads what `llpfc train --save-model` writes, and computes what `llpfc predict` computes.

Usage (not in CI: it needs PyTorch, Debian's python3-torch):
    go build -o /tmp/llpfc ./cmd/llpfc
    /usr/bin/python3 scripts/torch_interop.py --llpfc /tmp/llpfc --authors DIR [--work DIR]

DIR is a checkout of github.com/Z-Jianxin/LLPFC at commit 1d0cbc5 (their WideRes.py is imported
from it, not copied here). The script trains two small models on the embedded Fashion-MNIST fixture
with llpfc (the documented mlp Sequential, and the authors' Wide ResNet-16-4 for 1×28×28 images),
saves them, scores the fixture's test split with `llpfc predict`, then loads each .npz into the
PyTorch module its manifest names with load_state_dict(strict=True), normalizes the first 100 test
images with the manifest's constants, and compares PyTorch's softmax probabilities (evaluation mode)
with predict's, printing the largest absolute difference per model (the interop check).
"""
import argparse
import contextlib
import csv
import gzip
import io
import json
import os
import subprocess
import sys

import numpy as np

N = 100


def run(cmd):
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


def fixture_test_images(root):
    with gzip.open(os.path.join(root, "fixtures", "fashion-mnist", "t10k-images-idx3-ubyte.gz")) as f:
        b = f.read()
    n, h, w = int.from_bytes(b[4:8], "big"), int.from_bytes(b[8:12], "big"), int.from_bytes(b[12:16], "big")
    return np.frombuffer(b, dtype=np.uint8, offset=16).reshape(n, 1, h, w).astype(np.float32) / 255.0


def module(manifest, authors):
    import torch.nn as nn
    c = manifest["num_classes"]
    if manifest["architecture"] == "mlp":
        d = manifest.get("features") or manifest["channels"] * manifest["height"] * manifest["width"]
        return nn.Sequential(nn.Flatten(), nn.Linear(d, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, c))
    if manifest["architecture"] == "wrn-16-4":
        sys.path.insert(0, authors)
        from models.WideRes import wide_resnet_d_w
        with contextlib.redirect_stdout(io.StringIO()):
            return wide_resnet_d_w(d=16, w=4, dropout_rate=0.3, num_classes=c, in_channel=manifest["channels"],
                                   image_size=manifest["height"])
    raise SystemExit("no PyTorch module for " + manifest["architecture"])


def compare(stem, images, authors):
    import torch
    manifest = json.load(open(stem + ".json"))
    m = module(manifest, authors)
    m.load_state_dict({k: torch.from_numpy(v) for k, v in np.load(stem + ".npz").items()}, strict=True)
    m.eval()
    norm = manifest["normalization"]
    x = images[:N].copy()
    if norm["mode"] == "standardize":
        for ch, (mu, sd) in enumerate(zip(norm["mean"], norm["std"])):
            x[:, ch] = (x[:, ch] - mu) / sd
    with torch.no_grad():
        p_torch = torch.softmax(m(torch.from_numpy(x)), dim=1).double().numpy()
    rows = list(csv.reader(open(stem + ".csv")))[1:N + 1]
    c = manifest["num_classes"]
    p_llpfc = np.array([[float(v) for v in r[2:2 + c]] for r in rows])
    diff = np.abs(p_torch - p_llpfc).max()
    agree = (p_torch.argmax(1) == p_llpfc.argmax(1)).mean()
    print(f"{manifest['architecture']}: max |p_torch − p_llpfc| over {N} images × {c} classes = {diff:.3g}; argmax agrees on {agree:.0%}")
    return diff


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--llpfc", required=True, help="the llpfc binary")
    ap.add_argument("--authors", required=True, help="checkout of Z-Jianxin/LLPFC at 1d0cbc5")
    ap.add_argument("--work", default="/tmp/llpfc-interop")
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.makedirs(args.work, exist_ok=True)
    train = [args.llpfc, "train", "--data", "fixture", "--bag-size", "16", "--quiet", "--seed", "3"]
    run(train + ["--model", "mlp", "--num-points", "2048", "--epochs", "2", "--save-model", args.work + "/mlp"])
    run(train + ["--model", "wrn-16-4", "--num-points", "160", "--epochs", "1", "--batch-size", "32",
                 "--save-model", args.work + "/wrn"])
    for stem in ("mlp", "wrn"):
        run([args.llpfc, "predict", "--model", f"{args.work}/{stem}", "--data", "fixture", "--out", f"{args.work}/{stem}.csv"])
    images = fixture_test_images(root)
    worst = max(compare(f"{args.work}/{s}", images, args.authors) for s in ("mlp", "wrn"))
    print(f"largest difference: {worst:.3g}")


if __name__ == "__main__":
    main()
