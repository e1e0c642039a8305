#!/bin/sh
# Issue 20's evidence on this machine (PAPER_MAP.md, Findings, "How the KL scale and per-chunk batch
# norm move KL"): KL on full Fashion-MNIST with the cnn-bn network (the cnn with batch norm after each
# convolution), SGD with momentum 0.9 (lr 0.01, constant: the tables' WRN rate; 0.05 diverged at the authors' scale), the paper's bag protocol, bag size 512,
# 40,960 points, minibatches of 2 bags, 3 epochs, seeds 0, 1, 2; the KL loss at the authors' scale
# (Σ over classes) and at the paper's (1/C of it), with batch norm over chunks of 256 instances
# (per-chunk statistics, 4 chunks per minibatch) and over the whole minibatch of 1024 instances
# (--chunk-size 1024: the statistics the authors' code uses).
# Usage: scripts/kl_evidence.sh LLPFC_BINARY OUTDIR   (appends to OUTDIR/runs.jsonl; resumes)
set -eu
llpfc=$1 out=$2
mkdir -p "$out"
touch "$out/runs.jsonl"
for S in 0 1 2; do
  for scale in authors paper; do
    for chunk in 256 1024; do
      key="\"kl_scale\": \"$scale\", \"chunk\": $chunk, \"seed\": $S"
      grep -qF "$key" "$out/runs.jsonl" && continue
      acc=$("$llpfc" train --data fashion-mnist --method kl --model cnn-bn --optimizer sgd --momentum 0.9 --lr 0.01 \
        --bag-size 512 --num-points 40960 --epochs 3 --seed "$S" --kl-scale "$scale" --chunk-size "$chunk" --quiet --json \
        | tail -1 | /usr/bin/python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print(d["test_accuracy"], round(d["wall_seconds"],1), d["peak_rss_bytes"])')
      set -- $acc
      echo "{$key, \"test_accuracy\": $1, \"wall_seconds\": $2, \"peak_rss_bytes\": $3}" >> "$out/runs.jsonl"
      echo "$scale chunk=$chunk seed=$S: $acc" >&2
    done
  done
done
