#!/bin/sh
# The KL scale's evidence on this machine (PAPER_MAP.md, Findings, "How the KL scale and per-chunk batch
# norm move KL"): KL on full Fashion-MNIST with the cnn-bn network (the cnn with batch norm after each
# convolution), SGD with momentum 0.9 (lr 0.01, constant: the tables' WRN rate; 0.05 diverged at the authors' scale), the paper's bag protocol, bag size 512,
# 40,960 points, minibatches of 2 bags, 3 epochs, seeds 0, 1, 2; the KL loss at the authors' scale
# (Σ over classes) and at the paper's (1/C of it), with batch norm
#   - per chunk of 256 instances (--bn-stats chunk: each of the 4 chunks of a minibatch its own statistics),
#   - over the whole minibatch of 1024 instances in one chunk (--chunk-size 1024: the authors' computation),
#   - over the whole minibatch in chunks of 256 (--bn-stats minibatch, the default: the same statistics
#     as one chunk of 1024, by the statistics and adjoint sweeps, in the memory of a chunk of 256).
# Usage: scripts/kl_evidence.sh LLPFC_BINARY OUTDIR   (appends to OUTDIR/runs.jsonl; resumes)
set -eu
llpfc=$1 out=$2
mkdir -p "$out"
touch "$out/runs.jsonl"

# one SEED SCALE CHUNK STATS: one run, skipped when its line is already there. The rows of the first
# version (per chunk of 256, whole minibatch of 1024) keep their keys, without bn_stats.
one() {
  S=$1 scale=$2 chunk=$3 stats=$4
  key="\"kl_scale\": \"$scale\", \"chunk\": $chunk, \"seed\": $S"
  if [ "$chunk" = 256 ] && [ "$stats" = minibatch ]; then
    key="\"kl_scale\": \"$scale\", \"chunk\": $chunk, \"bn_stats\": \"minibatch\", \"seed\": $S"
  fi
  grep -qF "$key" "$out/runs.jsonl" && return 0
  acc=$("$llpfc" train --data fashion-mnist --method kl --model cnn-bn --optimizer sgd --momentum 0.9 --lr 0.01 \
    --bag-size 512 --num-points 40960 --epochs 3 --seed "$S" --kl-scale "$scale" --chunk-size "$chunk" \
    --bn-stats "$stats" --quiet --json \
    | tail -1 | /usr/bin/python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print(d["test_accuracy"], round(d["wall_seconds"],1), d["peak_rss_bytes"])')
  set -- $acc
  echo "{$key, \"test_accuracy\": $1, \"wall_seconds\": $2, \"peak_rss_bytes\": $3}" >> "$out/runs.jsonl"
  echo "$scale chunk=$chunk stats=$stats seed=$S: $acc" >&2
}

for scale in paper authors; do one 0 "$scale" 256 minibatch; done
for S in 0 1 2; do
  for scale in authors paper; do
    one "$S" "$scale" 256 chunk
    one "$S" "$scale" 1024 minibatch
  done
done
for S in 1 2; do
  for scale in paper authors; do one "$S" "$scale" 256 minibatch; done
done
