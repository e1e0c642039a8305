#!/usr/bin/python3
"""Which kernels the peer runs, for `make bench` (a fair peer runs its best): one line each.

  openblas: the core OpenBLAS chose (openblas_get_corename through ctypes, on
            the library numpy and PyTorch loaded, found in /proc/self/maps) and
            its build (openblas_get_config);
  onednn:   the instruction set oneDNN dispatches PyTorch's convolutions to
            (the "isa:" line of ONEDNN_VERBOSE for one small convolution, run
            in a child process) and ATen's own vectorization
            (torch.__config__.show(): "CPU capability usage").

bench/run.sh runs it in the peer's environment (OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE unset), so the line says what the PyTorch and numpy columns
ran. A part that cannot be found prints "unknown" with the reason.
"""
import ctypes
import os
import re
import subprocess
import sys


def openblas():
    try:
        import numpy  # noqa: F401  (loads the BLAS numpy uses)
    except ImportError as e:
        return f"unknown (no numpy: {e})"
    try:
        import torch  # noqa: F401
    except ImportError:
        pass
    libs = sorted({line.split()[-1] for line in open("/proc/self/maps").read().splitlines()
                   if re.search(r"openblas|libblas\.so", line)})
    seen = {}  # (core, config) -> the paths that answer it
    for path in libs:
        try:
            lib = ctypes.CDLL(path)
            core, config = lib.openblas_get_corename, lib.openblas_get_config
        except (OSError, AttributeError):
            continue
        core.restype = config.restype = ctypes.c_char_p
        seen.setdefault((core().decode(), config().decode()), []).append(os.path.basename(path))
    if not seen:
        return "unknown (no OpenBLAS loaded: " + (", ".join(libs) or "no BLAS in /proc/self/maps") + ")"
    return "; ".join(f"{core} ({config}; {', '.join(paths)})" for (core, config), paths in seen.items())


def onednn():
    try:
        import torch
    except ImportError as e:
        return f"unknown (no torch: {e})"
    aten = re.search(r"CPU capability usage: *(\S+)", torch.__config__.show())
    aten = aten.group(1) if aten else "unknown"
    if not torch.backends.mkldnn.is_available():
        return f"not available; ATen {aten}"
    child = ("import torch; torch.set_num_threads(1); "
             "torch.nn.Conv2d(3, 4, 3)(torch.rand(2, 3, 8, 8))")
    env = dict(os.environ, ONEDNN_VERBOSE="1", DNNL_VERBOSE="1")
    try:
        out = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True, timeout=120).stdout
    except (OSError, subprocess.SubprocessError) as e:
        return f"unknown ({e}); ATen {aten}"
    isa = re.search(r"(?:onednn|dnnl)_verbose,info,cpu,isa:([^\n]+)", out)
    version = re.search(r"(?:onednn|dnnl)_verbose,info,(oneDNN v[^\s]+)", out)
    return (f"{isa.group(1).strip() if isa else 'unknown ISA'} "
            f"({version.group(1) if version else 'oneDNN'}, torch {torch.__version__}); ATen {aten}")


if __name__ == "__main__":
    print("openblas:", openblas())
    print("onednn:", onednn())
