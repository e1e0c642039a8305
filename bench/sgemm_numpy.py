#!/usr/bin/python3
"""SGEMM GFLOP/s of numpy's BLAS (OpenBLAS on Debian) on the models' shapes,
for `make bench`, beside internal/sgemm's BenchmarkSgemm.

Shapes m x n x k (C = A.B, A m x k, B k x n, float32, row-major), the same as
internal/sgemm/bench_test.go's benchShapes. Each of --runs runs times
--reps products (after one untimed product) and prints one line per shape and
run: "numpy/MxNxK GFLOPS". The thread count is OpenBLAS's
(OPENBLAS_NUM_THREADS, set by bench/run.sh to THREADS).

OpenBLAS runs the kernels it picks for this processor (a fair peer): when
OPENBLAS_CORETYPE or OPENBLAS_L2_SIZE is set (this environment sets them for
older processors), the script runs itself again without them before numpy
loads OpenBLAS; --keep-env keeps them. Standard error names the core.
"""
import argparse
import ctypes
import os
import sys
import time

PEER_UNSET = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def peer_environment():
    """Re-executes the script without PEER_UNSET in its environment (once, before numpy loads
    OpenBLAS), unless --keep-env is given."""
    if "--keep-env" in sys.argv or not any(v in os.environ for v in PEER_UNSET):
        return
    env = {k: v for k, v in os.environ.items() if k not in PEER_UNSET}
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


peer_environment()

import numpy as np  # noqa: E402  (after peer_environment: OpenBLAS reads its environment when loaded)


def corename():
    """The core OpenBLAS chose (openblas_get_corename of the BLAS numpy loaded), or "unknown"."""
    for line in open("/proc/self/maps").read().splitlines():
        path = line.split()[-1]
        if "openblas" in path or "libblas.so" in path:
            try:
                f = ctypes.CDLL(path).openblas_get_corename
            except (OSError, AttributeError):
                continue
            f.restype = ctypes.c_char_p
            return f().decode()
    return "unknown"

SHAPES = [(128, 512, 784), (128, 256, 512), (25088, 64, 288), (2048, 2048, 2048)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--min-seconds", type=float, default=0.5, help="time per run, at least")
    ap.add_argument("--keep-env", action="store_true", help="keep OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE")
    a = ap.parse_args()
    print(f"OpenBLAS core: {corename()} (OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}, "
          f"OPENBLAS_L2_SIZE={os.environ.get('OPENBLAS_L2_SIZE', '(unset)')})", file=sys.stderr)
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
