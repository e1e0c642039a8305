#!/usr/bin/python3
"""SGEMM GFLOP/s of numpy's BLAS (OpenBLAS on Debian) on the models' shapes,
for `make bench` (issue 12), beside internal/sgemm's BenchmarkSgemm.

Shapes m x n x k (C = A.B, A m x k, B k x n, float32, row-major), the same as
internal/sgemm/bench_test.go's benchShapes. Each of --runs runs times
--reps products (after one untimed product) and prints one line per shape and
run: "numpy/MxNxK GFLOPS". The thread count is OpenBLAS's
(OPENBLAS_NUM_THREADS, set by bench/run.sh to THREADS).
"""
import argparse
import time

import numpy as np

SHAPES = [(128, 512, 784), (128, 256, 512), (25088, 64, 288), (2048, 2048, 2048)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--min-seconds", type=float, default=0.5, help="time per run, at least")
    a = ap.parse_args()
    rng = np.random.default_rng(1)
    for m, n, k in SHAPES:
        A = rng.random((m, k), dtype=np.float32)
        B = rng.random((k, n), dtype=np.float32)
        C = np.empty((m, n), dtype=np.float32)
        np.matmul(A, B, out=C)
        flops = 2.0 * m * n * k
        for _ in range(a.runs):
            reps, t0 = 0, time.perf_counter()
            while True:
                np.matmul(A, B, out=C)
                reps += 1
                dt = time.perf_counter() - t0
                if dt >= a.min_seconds:
                    break
            print(f"numpy/{m}x{n}x{k} {flops * reps / dt / 1e9:.1f}")


if __name__ == "__main__":
    main()
