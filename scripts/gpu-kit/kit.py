#!/usr/bin/env python3
"""The GPU kit's helpers, called by run.sh; python3's standard library only.

    kit.py run LOG SECONDS -- CMD...   run CMD with a time-out (its process group killed after it),
                                       its output appended to LOG; exit status CMD's, 124 on time-out
    kit.py unpack KIT DEST             unpack KIT/llpfc.tar.xz (lzma) into DEST
    kit.py discover OUT LIBDIR ICD     find the GPU, its driver and OpenCL, CUDA's libraries; write
                                       the ICD folder ICD and OUT/discovery.json; print the
                                       environment for run.sh
    kit.py cifar DIR NTRAIN NTEST      write a CIFAR-10-shaped binary set of random images
    kit.py epoch-points OUT BUDGET FULL  the number of training points of the epoch run that fits
                                       BUDGET seconds at the throughput bench.log measured
    kit.py gemm-shapes OUT N           the N matrix-product shapes of the profiled steps (bench.log's
                                       profiles, every network's) that took the most time, as the JSON
                                       file OUT/gemm-shapes.json llpfc devices --tune-gemm reads
    kit.py best-variant OUT            the environment assignments of the variant the sweep found
                                       fastest on WRN-16-4 at batch 128 (else the largest batch), or
                                       LLPFC_OPENCL_GEMM=default when no variant beat the defaults
    kit.py summarize OUT               write OUT/results.json and OUT/summary.md from the logs; print
                                       the verdict line (PASS, or FAIL and the failing parts, then
                                       the sweep's verdict)
    kit.py pick-python [PY...]         the python3 the kit runs its PyTorch parts with: the first of
                                       PY... (else python3* on PATH, /usr/bin/python3,
                                       /usr/local/bin/python3) that imports torch, else this one;
                                       prints its path and, on standard error, what each one had
    kit.py describe-python PY          "PATH (Python X.Y.Z, torch V)" or "PATH (Python X.Y.Z, no torch)"
"""
import fnmatch
import glob
import json
import os
import platform
import random
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import time

LOGS = ["discovery.log", "check.log", "train.log", "bench.log", "sweep.log", "torch.log", "cpu.log", "scaling.log"]
# The variant the main bench parts run (and profile): CLBlast's own parameters. The sweep runs the
# others (run.sh's VARIANTS, environment assignments) on the same configurations.
BASELINE = "LLPFC_OPENCL_GEMM=default"
# The Table 1 cell the epoch projects (App. `suppsec: exp`, "Wide ResNet-16-4", CIFAR10: 200
# epochs; PAPER_MAP.md; the paper's 40,960 training points, grid.PaperPointsColour) and
# Table 1's instance-epochs (docs/reproducing.md: `reproduce --table wrn16-4 --dry-run`).
TABLE1_EPOCHS, CELL_POINTS, TABLE1_INSTANCE_EPOCHS = 200, 40960, 2.10e10


def run(log, seconds, cmd):
    t0 = time.time()
    with open(log, "a") as f:
        f.write(f"### {' '.join(cmd)}   (time-out {seconds:.0f} s)\n")
        f.flush()
        try:
            p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
        except OSError as e:
            f.write(f"### cannot start: {e}\n")
            return 127
        try:
            rc = p.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            rc = 124
        f.write(f"### exit {rc} after {time.time() - t0:.1f} s\n")
    return rc


def unpack(kit, dest):
    os.makedirs(dest, exist_ok=True)
    with tarfile.open(os.path.join(kit, "llpfc.tar.xz"), "r:xz") as t:
        t.extractall(dest)
    os.chmod(os.path.join(dest, "bin", "llpfc"), 0o755)


LIB_DIRS = ["/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib",
            "/lib/x86_64-linux-gnu", "/lib64", "/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"]


def find_libs(pattern, extra_dirs=()):
    """Paths matching pattern in the usual library folders, ldconfig's cache and extra_dirs."""
    found = []
    for d in list(LIB_DIRS) + list(extra_dirs):
        found += sorted(glob.glob(os.path.join(d, pattern)))
    try:
        out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=10).stdout
        for line in out.splitlines():
            name = line.strip().split(" ", 1)[0]
            if fnmatch.fnmatch(name, pattern) and "=>" in line:
                found.append(line.split("=>")[-1].strip())
    except (OSError, subprocess.SubprocessError):
        pass
    seen, out = set(), []
    for p in found:
        if p not in seen and os.path.exists(p):
            seen.add(p)
            out.append(p)
    return out


def sh(cmd, timeout=20):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return (r.stdout + r.stderr).strip()
    except (OSError, subprocess.SubprocessError) as e:
        return f"({e})"


def python_lib_dirs():
    """site-packages folders of this python (torch's CUDA libraries live under nvidia/ and torch/lib)."""
    dirs = []
    try:
        import site
        dirs = list(site.getsitepackages()) + [site.getusersitepackages()]
    except Exception:
        pass
    # and the virtual environments' and system folders PyTorch's wheels install into (kit.py may run with
    # another python than the one with torch: the GPU host's torch is in /opt/torch/.venv)
    dirs += glob.glob("/opt/*/.venv/lib/python3*/site-packages") + glob.glob("/usr/local/lib/python3*/dist-packages")
    out = []
    for d in dict.fromkeys(dirs):
        for sub in ["torch/lib", "nvidia/*/lib", "nvidia/cu*/lib", "nvidia/*/lib64"]:
            out += glob.glob(os.path.join(d, sub))
    return out


def discover(out, libdir, icd_dir):
    d = {"host": platform.node(), "kernel": platform.release(), "cpus": os.cpu_count(),
         "libc": " ".join(platform.libc_ver()), "python": sys.version.split()[0]}
    smi = shutil.which("nvidia-smi") or ("/usr/local/nvidia/bin/nvidia-smi" if os.path.exists("/usr/local/nvidia/bin/nvidia-smi") else "")
    d["nvidia_smi"] = smi
    if smi:
        d["gpu"] = sh([smi, "--query-gpu=name,driver_version,memory.total,compute_cap", "--format=csv,noheader"])
        d["nvidia_smi_output"] = sh([smi])
    d["libnvidia_opencl"] = find_libs("libnvidia-opencl.so*")
    vendors = {}
    for icd in sorted(glob.glob("/etc/OpenCL/vendors/*.icd")):
        try:
            vendors[icd] = open(icd).read().strip()
        except OSError as e:
            vendors[icd] = f"({e})"
    d["icd_files"] = vendors
    d["libcuda"] = find_libs("libcuda.so*")
    pydirs = python_lib_dirs()
    d["cublas"] = find_libs("libcublas.so*", pydirs) + find_libs("libcublasLt.so*", pydirs)
    d["nvrtc"] = find_libs("libnvrtc*.so*", pydirs)
    d["cudnn"] = find_libs("libcudnn.so*", pydirs)
    d["kit_library_deps"] = sh(["ldd", os.path.join(libdir, "libclblast.so.1")]) if shutil.which("ldd") else "(no ldd)"
    os.makedirs(icd_dir, exist_ok=True)
    written = []
    if d["libnvidia_opencl"]:
        lib = next((p for p in d["libnvidia_opencl"] if p.endswith(".so.1")), d["libnvidia_opencl"][0])
        with open(os.path.join(icd_dir, "nvidia.icd"), "w") as f:
            f.write(lib + "\n")
        written.append(lib)
    for icd, lib in vendors.items():
        name = os.path.basename(icd)
        if name == "nvidia.icd" and written:
            continue
        with open(os.path.join(icd_dir, name), "w") as f:
            f.write(lib + "\n")
        written.append(lib)
    d["icd_folder"] = {"path": icd_dir, "drivers": written}
    with open(os.path.join(out, "discovery.json"), "w") as f:
        json.dump(d, f, indent=1)
    print(f"export OCL_ICD_VENDORS={icd_dir}")
    print(f"export LLPFC_OPENCL_LIB={os.path.join(libdir, 'libOpenCL.so.1')}")
    print(f"export LLPFC_CLBLAST_LIB={os.path.join(libdir, 'libclblast.so.1')}")
    # the kit's libraries first, then the driver's folders (libnvidia-opencl loads libcuda and the
    # driver's other libraries from beside it)
    dirs = [libdir] + sorted({os.path.dirname(p) for p in d["libnvidia_opencl"][:1] + d["libcuda"][:1]})
    if os.environ.get("LD_LIBRARY_PATH"):
        dirs.append(os.environ["LD_LIBRARY_PATH"])
    cuda = cuda_libs(d)
    for var, path in cuda.items():
        print(f"export {var}={path}")
    # cuBLAS loads libcublasLt, NVRTC its builtins library, each from beside it
    dirs += sorted({os.path.dirname(p) for p in cuda.values()} - set(dirs))
    print(f"export LD_LIBRARY_PATH={':'.join(dirs)}")
    print(f"KIT_HAVE_DRIVER={1 if written else 0}")
    have_cuda = all(v in cuda for v in ("LLPFC_CUDA_LIB", "LLPFC_NVRTC_LIB", "LLPFC_CUBLAS_LIB"))
    print(f"KIT_HAVE_CUDA={1 if have_cuda else 0}")
    print(f"KIT_HAVE_CUDNN={1 if have_cuda and 'LLPFC_CUDNN_LIB' in cuda else 0}")


def cuda_libs(d):
    """The CUDA driver's three libraries the `cuda` device loads (LLPFC_CUDA_LIB, LLPFC_NVRTC_LIB,
    LLPFC_CUBLAS_LIB), from what discovery found: the driver's libcuda.so.1, and NVRTC and cuBLAS by
    their versioned names (not NVRTC's builtins nor its .alt build), the CUDA toolkit's before a
    Python package's copy; and cuDNN's shim (LLPFC_CUDNN_LIB, libcudnn.so.N, not its sub-libraries)
    for LLPFC_OPENCL_CONV=cudnn, where there is one."""
    def pick(paths, want):
        cands = [p for p in paths if want(os.path.basename(p))]
        return sorted(cands, key=lambda p: (not p.startswith("/usr/local/cuda"), len(p)))[:1]
    versioned = lambda stem: lambda n: re.fullmatch(stem + r"\.so\.\d+", n) is not None
    out = {}
    for var, paths, want in [("LLPFC_CUDA_LIB", d.get("libcuda") or [], lambda n: n == "libcuda.so.1"),
                             ("LLPFC_NVRTC_LIB", d.get("nvrtc") or [], versioned("libnvrtc")),
                             ("LLPFC_CUBLAS_LIB", d.get("cublas") or [], versioned("libcublas")),
                             ("LLPFC_CUDNN_LIB", d.get("cudnn") or [], versioned("libcudnn"))]:
        for p in pick(paths, want):
            out[var] = p
    return out


def python_candidates():
    """The python3 interpreters of this machine, in the order a shell would find them: python3 and
    python3.N in each PATH folder, then /usr/bin/python3 and /usr/local/bin/python3; each once."""
    out, seen = [], set()
    dirs = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d] + ["/usr/bin", "/usr/local/bin"]
    for d in dirs:
        names = ["python3"] + sorted((os.path.basename(p) for p in glob.glob(os.path.join(d, "python3.[0-9]*"))
                                      if not p.endswith("-config")), reverse=True)
        for n in names:
            p = os.path.join(d, n)
            if os.path.isfile(p) and os.access(p, os.X_OK):
                key = os.path.realpath(p)
                if key not in seen:
                    seen.add(key)
                    out.append(p)
    return out


def describe_python(py):
    """What py is: its version and torch's, for the summary's parts ("python3 has no torch" once
    named no interpreter, and another on the PATH had torch)."""
    probe = "import sys; v = sys.version.split()[0]\ntry:\n import torch; print(v, torch.__version__)\nexcept Exception:\n print(v, '')"
    try:
        r = subprocess.run([py, "-c", probe], capture_output=True, text=True, timeout=60)
        fields = r.stdout.split()
    except (OSError, subprocess.SubprocessError) as e:
        return f"{py} (cannot run: {e})", False
    if r.returncode != 0 or not fields:
        return f"{py} (cannot run: exit {r.returncode})", False
    if len(fields) > 1:
        return f"{py} (Python {fields[0]}, torch {fields[1]})", True
    return f"{py} (Python {fields[0]}, no torch)", False


def pick_python(cands):
    """The first of cands that imports torch, else the interpreter running this; prints its path,
    and every candidate's description on standard error."""
    cands = list(cands) or python_candidates()
    chosen = None
    for py in cands:
        desc, torch = describe_python(py)
        print(f"python: {desc}", file=sys.stderr)
        if torch and chosen is None:
            chosen = py
    print(chosen or sys.executable)


def cifar(d, ntrain, ntest):
    """CIFAR-10 binary batches (a label byte 0..9, 3072 pixel bytes per record) of random images:
    the shape and size of CIFAR-10 for timing, not its content."""
    os.makedirs(d, exist_ok=True)
    rng = random.Random(1)
    files = [(f"data_batch_{k}.bin", ntrain // 5 + (1 if k <= ntrain % 5 else 0)) for k in range(1, 6)]
    files.append(("test_batch.bin", ntest))
    for name, n in files:
        with open(os.path.join(d, name), "wb") as f:
            for _ in range(max(n, 1)):
                f.write(bytes([rng.randrange(10)]))
                f.write(os.urandom(3072))


def json_lines(path):
    """The JSON objects printed one per line in a log."""
    out = []
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError:
        return out
    for line in lines:
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def epoch_points(out, budget, full):
    """Training points of the epoch run: all of them (full) when the wrn-16-4 batch-128 throughput
    bench.log measured on the device fits budget seconds, else as many as fit (multiples of 640)."""
    ips = 0
    for r in json_lines(os.path.join(out, "bench.log")):
        if r.get("model") == "wrn-16-4" and r.get("batch_size") == 128 and str(r.get("device", "")).startswith("opencl"):
            ips = r.get("images_per_second", 0)
    n = full
    if ips > 0 and full / ips > 0.6 * budget:
        n = max(640, int(ips * 0.6 * budget) // 640 * 640)
    print(min(n, full))


def gemm_shapes(out, n):
    """The n product shapes that took the most profiled time over every network's step (bench.log),
    each with its calls per step summed over the networks: what the tuning pass times."""
    acc = {}
    for b in json_lines(os.path.join(out, "bench.log")):
        for g in (b.get("profile") or {}).get("gemms") or []:
            key = (g.get("ta", 0), g.get("tb", 0), g["m"], g["n"], g["k"])
            a = acc.setdefault(key, {"calls": 0, "seconds": 0.0})
            a["calls"] += g.get("calls") or 0
            a["seconds"] += g.get("seconds") or 0.0
    top = sorted(acc.items(), key=lambda kv: (-kv[1]["seconds"], -kv[1]["calls"], kv[0]))[:n]
    rows = [{"ta": k[0], "tb": k[1], "m": k[2], "n": k[3], "k": k[4], "calls": max(1, v["calls"]), "seconds": v["seconds"]} for k, v in top]
    with open(os.path.join(out, "gemm-shapes.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print(f"{len(rows)} of {len(acc)} product shapes, {sum(r['seconds'] for r in rows):.4f} s of the profiled steps' products")
    return 0 if rows else 1


def logged_runs(path):
    """The JSON results of a log with the command that printed each: kit.py run heads every command's
    output with "### CMD", so a variant's environment assignments (env VAR=… llpfc …) stay with its
    result."""
    out, cmd = [], ""
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError:
        return out
    for line in lines:
        if line.startswith("### ") and not line.startswith("### exit"):
            cmd = line[4:]
            continue
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            try:
                out.append((cmd, json.loads(line)))
            except ValueError:
                pass
    return out


def variant_of(cmd):
    """The environment assignments a sweep command ran with ("A=x B=y"), BASELINE for none; a
    device other than OpenCL's (--device cuda) is the word device=cuda, first."""
    words = cmd.split()
    dev = next((words[i + 1] for i, w in enumerate(words[:-1]) if w == "--device"), "opencl")
    env = [w for w in words[1:] if "=" in w and not w.startswith("-")] if words and words[0] == "env" else []
    if dev.split(":")[0] != "opencl":
        env = [f"device={dev}"] + env
    return " ".join(env) or BASELINE


def expected_numerics(variant):
    """What a result's numerics must say for each assignment of a variant, so that a knob that did not
    take fails the run instead of timing the defaults twice."""
    want = []
    for a in variant.split():
        k, _, v = a.partition("=")
        if k == "LLPFC_OPENCL_GEMM" and v in ("default", "tuned"):
            want.append(f"gemm {v}")
        elif k == "device" and v.startswith("cuda"):
            want.append("cublas")  # the CUDA driver's products: cuBLAS, never CLBlast's
        elif k == "LLPFC_OPENCL_CONV":
            want.append(f"conv {v} (")  # "conv implicit (" is not in "conv implicit:dw (…)", nor the other way
        elif k == "LLPFC_OPENCL_REDUCE" and v == "channel":
            want.append("reduce channel (")
        elif k == "LLPFC_CUDNN_ALGO" and v == "heuristic":
            want.append("the heuristic's first algorithm")
    return want


def required_checks(variant):
    """The device checks (run.sh's check parts) that must pass before a variant's step counts: the OpenCL
    driver's check, or the CUDA driver's for device=cuda; and the convolutions' own where the variant
    moves them (implicit GEMM on OpenCL, cuDNN on CUDA). A knob that changes only a launch's shape
    (LLPFC_OPENCL_REDUCE, LLPFC_CUDNN_ALGO) runs kernels the op checks of CI hold and adds none."""
    words = variant.split()
    cuda = any(w.startswith("device=") and w != "device=opencl" and not w.startswith("device=opencl:") for w in words)
    need = ["check cuda" if cuda else "check"]
    conv = next((w.split("=", 1)[1] for w in words if w.startswith("LLPFC_OPENCL_CONV=")), "")
    if conv.startswith("implicit"):
        need.append("check conv implicit")
    if conv == "cudnn":
        need.append("check cuda cudnn")
    return need


def unchecked(variant, parts):
    """The required checks of variant that did not pass in this run (not run, cut short or failed)."""
    status = {p["part"]: p["status"] for p in parts}
    return [c for c in required_checks(variant) if status.get(c) != "ok"]


def sweep_rows(bench, sweep_runs, parts=()):
    """Each swept configuration beside the baseline's (the main bench part's) throughput: its
    variant, images/s and the ratio; a result whose numerics miss its variant is flagged, and one
    whose path's device checks did not pass (parts: parts.tsv's rows) is marked unchecked."""
    base = {(b.get("model"), b.get("batch_size")): b for b in bench}
    rows = []
    for cmd, r in sweep_runs:
        if "images_per_second" not in r:
            continue
        v = variant_of(cmd)
        key = (r.get("model"), r.get("batch_size"))
        b = base.get(key) or {}
        row = {"model": key[0], "batch": key[1], "variant": v, "ips": r.get("images_per_second"), "numerics": r.get("numerics", ""),
               "baseline_ips": b.get("images_per_second"), "baseline_numerics": b.get("numerics", "")}
        if row["ips"] and row["baseline_ips"]:
            row["ratio"] = row["ips"] / row["baseline_ips"]
        row["applied"] = all(w in row["numerics"] for w in expected_numerics(v))
        row["unchecked"] = unchecked(v, parts)
        rows.append(row)
    return rows


# Variants timed only to measure what a default costs, never trained with: cuDNN's own pick of algorithms
# may be non-deterministic (the same seed, other numbers), so the epoch does not run on it.
NOT_FOR_TRAINING = ("LLPFC_CUDNN_ALGO=heuristic",)


def best_variant(rows):
    """The variant of the fastest swept run on WRN-16-4 at batch 128 (the Table 1 cell's network; else
    the largest batch swept) that beat the baseline, else BASELINE; never one of NOT_FOR_TRAINING nor
    one whose path's device checks did not pass."""
    if not rows:
        return BASELINE
    wrn = [r for r in rows if r["model"] == "wrn-16-4"] or rows
    batch = 128 if any(r["batch"] == 128 for r in wrn) else max(r["batch"] or 0 for r in wrn)
    cands = [r for r in wrn if r["batch"] == batch and r.get("ratio") and r["applied"] and not r.get("unchecked")
             and not any(w in r["variant"].split() for w in NOT_FOR_TRAINING)]
    best = max(cands, key=lambda r: r["ratio"], default=None)
    return best["variant"] if best and best["ratio"] > 1 else BASELINE


def sweep_verdict(rows):
    """The sweep's line: each variant's ratio to the baseline per swept network, the best marked."""
    if not rows:
        return ""
    best = best_variant(rows)
    per = {}
    for r in rows:
        per.setdefault(r["variant"], []).append(f"{r['model']}/{r['batch']} {fmt(r.get('ratio'), 2)}×"
                                                + (" (unchecked)" if r.get("unchecked") else ""))
    parts = [f"{v}: {', '.join(xs)}" for v, xs in per.items()]
    return f"sweep (× {BASELINE}): " + "; ".join(parts) + f"; best: {best}"


def parts(out):
    rows = []
    try:
        for line in open(os.path.join(out, "parts.tsv")):
            name, status, secs, note = (line.rstrip("\n").split("\t") + ["", "", "", ""])[:4]
            rows.append({"part": name, "status": status, "seconds": float(secs or 0), "note": note})
    except OSError:
        pass
    return rows


def fmt(v, nd=1):
    if v is None or v == "":
        return "–"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def check_summary(out):
    text = open(os.path.join(out, "check.log"), errors="replace").read() if os.path.exists(os.path.join(out, "check.log")) else ""
    lines = text.splitlines()
    verdicts = [l for l in lines if l.startswith("verdict:")]  # one per check part: check, then check conv implicit
    verdict = verdicts[0] if verdicts else "no verdict (the check did not finish: see check.log)"
    failed = [l.strip() for l in lines if l.strip().startswith("FAIL")]
    platform_lines = [l for l in lines if l.startswith("platform ") or l.strip().startswith("opencl:") or "global memory" in l]
    models = [l.strip() for l in lines if " × " in l and (l.strip().startswith("ok") or l.strip().startswith("FAIL"))]
    return {"verdict": verdict, "verdicts": verdicts, "failed": failed, "devices": platform_lines, "model_cases": len(models)}


def summarize(out):
    disc = {}
    try:
        disc = json.load(open(os.path.join(out, "discovery.json")))
    except (OSError, ValueError):
        pass
    res = {"discovery": disc, "parts": parts(out), "check": check_summary(out)}
    train = json_lines(os.path.join(out, "train.log"))
    dataset = lambda r: (r.get("config") or {}).get("dataset", "")
    res["fixture"] = [r for r in train if dataset(r).startswith("fashion-mnist") or dataset(r) == "fixture"]
    res["epoch"] = [r for r in train if dataset(r) == "cifar10"]
    bench = json_lines(os.path.join(out, "bench.log"))
    sweep_runs = logged_runs(os.path.join(out, "sweep.log"))
    res["tuning"] = next((r for _, r in sweep_runs if "result" in r and "device" in r), None)
    res["sweep"] = sweep_rows(bench, sweep_runs, res["parts"])
    torch = json_lines(os.path.join(out, "torch.log"))
    cpu = json_lines(os.path.join(out, "cpu.log"))
    res["bench"], res["torch"], res["cpu"] = bench, torch, cpu
    rows = []
    for b in bench:
        key = (b.get("model"), b.get("batch_size"))
        t = {r.get("tf32"): r for r in torch if (r.get("model"), r.get("batch_size")) == key and "images_per_second" in r}
        sc = b.get("step_costs") or {}
        row = {"model": key[0], "batch": key[1], "settings": settings(b), "ours_ips": b.get("images_per_second"), "ours_launches": sc.get("launches"),
               "ours_waits": sc.get("blocking_waits"), "ours_device_peak_bytes": b.get("device_peak_bytes"),
               "torch_ips_tf32_off": t.get("off", {}).get("images_per_second"),
               "torch_ips_default": t.get("default", {}).get("images_per_second"),
               "torch_max_memory_allocated": t.get("off", {}).get("cuda_max_memory_allocated")}
        if row["ours_ips"] and row["torch_ips_tf32_off"]:
            row["ratio_tf32_off"] = row["ours_ips"] / row["torch_ips_tf32_off"]
        best = max([r for r in res["sweep"] if (r["model"], r["batch"]) == key and r["applied"] and not r["unchecked"] and r["ips"]] +
                   [{"variant": BASELINE, "ips": row["ours_ips"]}], key=lambda r: r["ips"] or 0)
        row["best_variant"], row["best_ips"] = best["variant"], best["ips"]
        if row["best_ips"] and row["torch_ips_tf32_off"]:
            row["best_ratio_tf32_off"] = row["best_ips"] / row["torch_ips_tf32_off"]
        rows.append(row)
    res["table"] = rows
    # the baseline's profiles, then the CUDA driver's (its products are cuBLAS's: the same shapes' peers)
    res["profiles"] = profile_tables([(BASELINE, b) for b in bench] + [(variant_of(cmd), r) for cmd, r in sweep_runs
                                                                       if variant_of(cmd).startswith("device=")], torch)
    res["projection"] = projection(res["epoch"])
    res["projection"].update(torch_cell(res["projection"], torch))
    res["cpu_table"] = cpu_rows(cpu)
    res["scaling"] = [r for r in json_lines(os.path.join(out, "scaling.log")) if "rows" in r]
    res["predictions"] = prediction_rows(bench, sweep_runs, cpu)
    problems = consistent(res)
    res["verdict"] = verdict(res, problems)
    res["best_variant"] = best_variant(res["sweep"])
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(markdown(res))
    print(res["verdict"])
    return 0 if res["verdict"].startswith("PASS") else 1


def settings(b):
    """A bench result's training settings: its dropout and augmentation (the presets' real ones)."""
    s = [f"dropout {b['dropout']:g}"] if b.get("dropout") else []
    if b.get("augment"):
        s.append("crop+flip")
    return ", ".join(s) or "none"


def geometry_key(g):
    return tuple(sorted((g or {}).items()))


def profile_tables(runs, torch):
    """Per bench result with a per-op profile (`llpfc bench --profile`; runs are (variant, result) pairs), its operations summed by
    category — time, calls, launches, the work's FLOP/s and bytes/s — largest first, and for the
    convolutions and matrix products PyTorch's time for the same calls (torch_step.py --kernels:
    seconds per call at each geometry, times our calls at it) and ours ÷ PyTorch's over the rows
    that have a peer."""
    peers = {(r["kernel"], geometry_key(r.get("geometry"))): r["seconds"] for r in torch
             if r.get("impl") == "pytorch" and r.get("kernel") and r.get("seconds")}
    out = []
    for variant, b in runs:
        prof = b.get("profile") or {}
        if not prof.get("ops"):
            continue
        cats = {}
        for o in prof["ops"]:
            c = cats.setdefault(o.get("category", "other"), {"category": o.get("category", "other"), "seconds": 0.0, "calls": 0,
                                                              "launches": 0, "flops": 0, "bytes": 0, "peer_seconds": 0.0,
                                                              "ours_with_peer": 0.0})
            for k in ("seconds", "calls", "launches", "flops", "bytes"):
                c[k] += o.get(k) or 0
            peer = peers.get((o.get("category"), geometry_key(o.get("geometry"))))
            if peer:
                c["peer_seconds"] += peer * (o.get("calls") or 0)
                c["ours_with_peer"] += o.get("seconds") or 0
        total = prof.get("seconds") or sum(c["seconds"] for c in cats.values())
        rows = sorted(cats.values(), key=lambda c: -c["seconds"])
        for c in rows:
            c["share"] = c["seconds"] / total if total else None
            c["gflops"] = c["flops"] / c["seconds"] / 1e9 if c["flops"] and c["seconds"] else None
            c["gbytes"] = c["bytes"] / c["seconds"] / 1e9 if c["bytes"] and c["seconds"] else None
            c["ours_over_peer"] = c["ours_with_peer"] / c["peer_seconds"] if c["peer_seconds"] else None
        ips = b.get("images_per_second")
        out.append({"model": b.get("model"), "batch": b.get("batch_size"), "variant": variant, "settings": settings(b), "profiled_seconds": total,
                    "step_seconds": b.get("batch_size") / ips if ips else None, "categories": rows})
    return out


def verdict(res, problems):
    """The run's verdict line (a failed device run once ended as any other): PASS when every
    part that ran passed, an OpenCL driver was found and the logs agree; else FAIL and why, part by
    part. Parts skipped are named after a PASS."""
    # a time-out whose limit the budget cut may be a slow part, not a hang: said, though it still fails the run
    bad = [f"{p['part']} ({p['status']}" + (", its limit cut by the budget" if p["status"] == "timeout" and "by the budget" in p["note"] else "")
           + ")" for p in res["parts"] if p["status"] not in ("ok", "skipped")]
    if not (res.get("discovery") or {}).get("icd_folder", {}).get("drivers"):
        bad.append("no OpenCL driver found (discovery)")
    bad += problems
    sweep = "; ".join(x for x in (speed_verdict(res.get("table") or []), cell_verdict(res.get("projection") or {}),
                                  sweep_verdict(res.get("sweep") or [])) if x)
    if bad:
        return "FAIL: " + "; ".join(bad) + ("; " + sweep if sweep else "")
    skipped = [f"{p['part']} ({p['note']})" for p in res["parts"] if p["status"] == "skipped"]
    return "PASS" + ("; " + sweep if sweep else "") + ("; skipped: " + "; ".join(skipped) if skipped else "")


def speed_verdict(table):
    """The step's speed beside PyTorch fp32 (TF32 off) at each network's best variant: the slowest
    network's ratio and how many reach half of PyTorch's (the GPU criterion, bench/gpu/README.md)."""
    rows = [r for r in table if r.get("best_ratio_tf32_off")]
    if not rows:
        return ""
    low = min(rows, key=lambda r: r["best_ratio_tf32_off"])
    half = sum(1 for r in rows if r["best_ratio_tf32_off"] >= 0.5)
    return (f"best step / PyTorch fp32: {half} of {len(rows)} networks ≥ 0.5×, slowest {low['model']}/{low['batch']} "
            f"{fmt(low['best_ratio_tf32_off'], 2)}× ({low['best_variant']})")


def consistent(res):
    """Every part that passed left the results the summary reads (a parsing slip fails the run
    here, in CI, rather than showing an empty table on the GPU)."""
    ok = lambda prefix: sum(1 for p in res["parts"] if p["part"].startswith(prefix) and p["status"] == "ok")
    problems = []
    for prefix, found, what in [("bench ", len(res["bench"]), "bench results"), ("fixture", len(res["fixture"]), "fixture results"),
                                ("epoch", 1 if res["projection"].get("train_images_per_second") else 0, "an epoch projection"),
                                ("cpu bench", len([r for r in res["cpu"] if r.get("impl") != "pytorch"]), "CPU bench results"),
                                ("cpu scaling", len(res.get("scaling", [])), "scaling reports")]:
        if ok(prefix) != found:
            problems.append(f"{ok(prefix)} {prefix.strip()} parts passed but the logs gave {found} {what}")
    unprofiled = [f"{b.get('model')} {b.get('batch_size')}" for b in res["bench"] if not (b.get("profile") or {}).get("ops")]
    if unprofiled:
        problems.append("bench results without a per-op profile (--profile): " + ", ".join(unprofiled))
    kernels = [r for r in res["torch"] if r.get("kernel")]
    geometries = sum(1 for b in res["bench"] for o in (b.get("profile") or {}).get("ops") or [] if o.get("geometry"))
    if ok("pytorch kernels") and geometries and not kernels:
        problems.append("the pytorch kernels part passed but timed no kernel")
    swept = len(res.get("sweep") or [])
    if ok("sweep ") != swept:
        problems.append(f"{ok('sweep ')} sweep parts passed but the logs gave {swept} sweep results")
    for r in res.get("sweep") or []:
        if not r["applied"]:
            problems.append(f"sweep {r['variant']} {r['model']} {r['batch']}: its numerics {r['numerics']!r} do not name the variant")
    if ok("tune") and not res.get("tuning"):
        problems.append("the tune part passed but sweep.log holds no tuning result")
    checks = [p for p in res["parts"] if p["part"].startswith("check") and p["status"] != "skipped"]  # in run order, as their verdicts
    verdicts = res["check"].get("verdicts") or []
    for part, v in zip(checks, verdicts) if len(checks) == len(verdicts) else []:  # a check cut short wrote none: its status says it
        if part["status"] == "ok" and not v.startswith("verdict: ok"):
            problems.append(f"{part['part']} passed but its verdict line says otherwise: {v}")
    for p in problems:
        print("kit.py summarize: " + p, file=sys.stderr)
    return problems

# PROJECTED is the run a projection of a Table 1 cell may come from: its network and bags (the
# Table 1 cell, docs/gpu-and-cluster.md, "On a GPU"); any other run (--quick's cnn-bn on 80 points) projects nothing.
PROJECTED = {"model": "wrn-16-4", "method": "llpfc-uniform", "bag_size": 64}


# The Table 1 cell's step in PyTorch (part 7: torch_step.py at the preset's settings, dropout 0.3 and the crop
# and flip): the cell's PyTorch time is its 200 epochs of 40,960 training images at that step's speed.
CELL_TORCH = ("wrn-16-4", 128)
CELL_TORCH_BOUND = 2.0  # the GPU criterion: our projected cell within 2× of PyTorch fp32's


def torch_cell(projection, torch):
    """PyTorch's Table 1 cell beside ours: hours at its fp32 step (TF32 off; and at its defaults) with the
    cell's settings, and ours ÷ PyTorch's (TF32 off). {} when either side is missing."""
    if not projection.get("table1_cell_hours"):
        return {}
    rows = {r.get("tf32"): r for r in torch if (r.get("model"), r.get("batch_size")) == CELL_TORCH and r.get("images_per_second")
            and r.get("dropout") == 0.3 and r.get("augment")}
    off = rows.get("off")
    if not off:
        return {}
    hours = lambda r: TABLE1_EPOCHS * CELL_POINTS / r["images_per_second"] / 3600
    out = {"torch_cell_hours_tf32_off": hours(off), "cell_over_torch": projection["table1_cell_hours"] / hours(off)}
    if rows.get("default"):
        out["torch_cell_hours_default"] = hours(rows["default"])
    return out


def cell_verdict(p):
    """The verdict line's word on the Table 1 cell: our projection over PyTorch fp32's."""
    if not p.get("cell_over_torch"):
        return ""
    return (f"Table 1 cell {fmt(p['table1_cell_hours'], 2)} h, {fmt(p['cell_over_torch'], 2)}× PyTorch fp32's "
            f"({'within' if p['cell_over_torch'] <= CELL_TORCH_BOUND else 'beyond'} {CELL_TORCH_BOUND:g}×)")


def projection(epochs):
    if not epochs:
        return {}
    r = epochs[-1]
    ips, wall, points = r.get("train_images_per_second"), r.get("wall_seconds"), r.get("train_points")
    cfg = r.get("config") or {}
    model = cfg.get("model")
    if not ips:
        return {"note": "the epoch run reported no throughput", "model": model}
    differ = [f"{k} {cfg.get(k)!r}, not {v!r}" for k, v in PROJECTED.items() if cfg.get(k) != v]
    if differ:
        return {"model": model, "train_images_per_second": ips, "points": points, "wall_seconds": wall,
                "note": "no projection of a Table 1 cell: this epoch is not the cell's run (" + "; ".join(differ) + ")"}
    epoch_s = CELL_POINTS / ips
    return {"model": model, "train_images_per_second": ips, "points": points, "wall_seconds": wall, "epoch_seconds_cell": epoch_s,
            "table1_cell_hours": TABLE1_EPOCHS * epoch_s / 3600, "table1_hours": TABLE1_INSTANCE_EPOCHS / ips / 3600}


# Written predictions (bench/NOTES.md; bench/gpu/README.md's table) that the summary checks itself, each a
# measure over the run's results and a range per network, so that a GPU run confirms or refutes them on the spot.
REDUCE_VARIANT = "LLPFC_OPENCL_GEMM=default LLPFC_OPENCL_REDUCE=channel"
CUDNN_DEFAULT = "device=cuda LLPFC_OPENCL_CONV=cudnn"
CUDNN_OWN = "device=cuda LLPFC_OPENCL_CONV=cudnn LLPFC_CUDNN_ALGO=heuristic"
CUDNN_CHANNEL = "device=cuda LLPFC_OPENCL_CONV=cudnn LLPFC_OPENCL_REDUCE=channel"
PREDICTIONS = [
    {"lever": "per-channel reductions in slices", "unit": "ms a step",
     "what": f"batch-norm and backward-bias rows, {REDUCE_VARIANT} − the baseline (one profiled step each)",
     "measure": "reduce", "ranges": {("wrn-16-4", 128): (0.7, 1.5), ("vgg16", 128): (0.3, 0.8), ("resnet18", 128): (-0.05, 0.15)}},
    {"lever": "per-channel reductions in slices, on the cuDNN path", "unit": "×",
     "what": f"img/s, {CUDNN_DEFAULT} (sliced) ÷ {CUDNN_CHANNEL}",
     "measure": "reduce_cudnn", "ranges": {("wrn-16-4", 128): (1.03, 1.10), ("vgg16", 128): (1.01, 1.06), ("resnet18", 128): (0.98, 1.02)}},
    {"lever": "cuDNN's own pick of algorithms", "unit": "×",
     "what": f"img/s, {CUDNN_OWN} ÷ {CUDNN_DEFAULT}",
     "measure": "cudnn_own", "ranges": {("wrn-16-4", 128): (1.0, 1.25), ("vgg16", 128): (1.0, 1.2), ("resnet18", 128): (1.0, 1.1)}},
    {"lever": "the mlp's loops with pooled goroutines", "unit": "×",
     "what": "CPU img/s at all the threads, pooled ÷ spawned",
     "measure": "mlp_pooled", "ranges": {("mlp", 128): (1.15, 1.5)}},
]


def reduction_ms(result):
    """The milliseconds of a profiled step's batch-norm and backward-bias rows (None without a profile)."""
    ops = (result.get("profile") or {}).get("ops")
    if not ops:
        return None
    return 1e3 * sum(o.get("seconds") or 0 for o in ops if o.get("category") in ("batch norm", "conv backward-bias"))


def measured(kind, key, bench, sweep_runs, cpu):
    """A prediction's measured value for network key (model, batch), or None when the run has no data."""
    of = lambda variant: next((r for cmd, r in sweep_runs if variant_of(cmd) == variant and (r.get("model"), r.get("batch_size")) == key
                               and r.get("images_per_second")), None)
    if kind == "reduce":
        base = next((b for b in bench if (b.get("model"), b.get("batch_size")) == key), None)
        var = of(REDUCE_VARIANT)
        a, b = (reduction_ms(var) if var else None), (reduction_ms(base) if base else None)
        return a - b if a is not None and b is not None else None
    if kind in ("cudnn_own", "reduce_cudnn"):
        a, b = (of(CUDNN_OWN), of(CUDNN_DEFAULT)) if kind == "cudnn_own" else (of(CUDNN_DEFAULT), of(CUDNN_CHANNEL))
        return a["images_per_second"] / b["images_per_second"] if a and b else None
    if kind == "mlp_pooled":
        mine = [r for r in cpu if r.get("impl") != "pytorch" and (r.get("model"), r.get("batch_size")) == key and r.get("images_per_second")]
        top = max((r.get("gomaxprocs") or 0 for r in mine), default=0)
        ips = {r.get("par_start"): r["images_per_second"] for r in mine if r.get("gomaxprocs") == top and r.get("schedule", "dynamic") == "dynamic"}
        return ips["pooled"] / ips["spawned"] if ips.get("pooled") and ips.get("spawned") else None
    raise ValueError(kind)


def prediction_rows(bench, sweep_runs, cpu):
    """Each prediction of PREDICTIONS against the run: held (within its range), above, below, or no data."""
    rows = []
    for p in PREDICTIONS:
        for key, (lo, hi) in p["ranges"].items():
            v = measured(p["measure"], key, bench, sweep_runs, cpu)
            held = "no data" if v is None else "held" if lo <= v <= hi else "above" if v > hi else "below"
            rows.append({"lever": p["lever"], "what": p["what"], "unit": p["unit"], "model": key[0], "batch": key[1],
                         "low": lo, "high": hi, "measured": v, "verdict": held})
    return rows


def predictions_markdown(rows):
    if not rows:
        return []
    L = ["\n## The written predictions, checked (bench/NOTES.md; bench/gpu/README.md)\n",
         "| lever | measure | network | predicted | measured | verdict |", "|---|---|---|---|---|---|"]
    L += [f"| {r['lever']} | {r['what']} | {r['model']} {r['batch']} | {r['low']:g}–{r['high']:g} {r['unit']} | "
          f"{fmt(r['measured'], 3) if r['measured'] is not None else '–'} | {r['verdict']} |" for r in rows]
    L.append("")
    return L


def loops_label(r):
    """How the step's parallel loops ran: their schedule, and their goroutines where the result says (spawned
    for each loop, or pooled)."""
    s = r.get("schedule") or "–"
    return f"{s}, {r['par_start']}" if r.get("par_start") else s


def cpu_rows(cpu):
    rows = []
    for r in cpu:
        if r.get("impl") == "pytorch":
            continue
        peer = next((p for p in cpu if p.get("impl") == "pytorch" and p.get("model") == r.get("model")
                     and p.get("batch_size") == r.get("batch_size")), {})
        rows.append({"model": r.get("model"), "batch": r.get("batch_size"), "threads": r.get("gomaxprocs"), "schedule": loops_label(r),
                     "ours_ips": r.get("images_per_second"), "torch_ips": peer.get("images_per_second"), "torch_threads": peer.get("threads")})
    return rows


def markdown(res):
    d, L = res["discovery"], []
    L.append(f"# llpfc GPU kit: {res.get('verdict', 'no verdict')}\n")
    L.append(f"- GPU (nvidia-smi): {d.get('gpu') or 'no nvidia-smi'}")
    L.append(f"- NVIDIA OpenCL driver: {', '.join(d.get('libnvidia_opencl') or []) or 'libnvidia-opencl.so* not found'}; "
             f"ICD files: {', '.join(f'{k} → {v}' for k, v in (d.get('icd_files') or {}).items()) or 'none in /etc/OpenCL/vendors'}")
    L.append(f"- ICD folder used: {((d.get('icd_folder') or {}).get('drivers')) or 'empty'}")
    L.append(f"- libcuda: {', '.join(d.get('libcuda') or []) or 'not found'}; cuBLAS: {', '.join(d.get('cublas') or [])[:400] or 'not found'}; "
             f"NVRTC: {', '.join(d.get('nvrtc') or [])[:400] or 'not found'}")
    L.append(f"- host: {d.get('cpus')} CPUs, {d.get('libc')}, kernel {d.get('kernel')}, python {d.get('python')}\n")
    c = res["check"]
    L.append("## OpenCL devices and `llpfc devices --check`\n")
    L += [f"    {l}" for l in c["devices"]] or ["    (llpfc devices listed no device: see check.log)"]
    L.append("\n" + "\n\n".join(c.get("verdicts") or [c["verdict"]]) + "\n")  # the default path's, then the implicit convolutions
    if c["failed"]:
        L.append("Failed:\n")
        L += [f"- {l}" for l in c["failed"][:40]]
        L.append("")
    L.append("## Parts\n\n| part | status | seconds | note |\n|---|---|---|---|")
    L += [f"| {p['part']} | {p['status']} | {p['seconds']:.0f} | {p['note']} |" for p in res["parts"]]
    L.append("\n## Training step: ours (`--device opencl`) beside PyTorch fp32 on CUDA\n")
    L.append("The baseline is `--device opencl` with CLBlast's own parameters; the best is the fastest of it and the sweep's "
             "variants at the same network and batch (the CUDA driver's among them: variant device=cuda).\n")
    L.append("| model | batch | settings | ours img/s | ours launches/step | ours waits/step | ours device peak MiB | PyTorch TF32 off img/s | PyTorch defaults img/s | PyTorch max allocated MiB | ours / PyTorch (TF32 off) | best variant | its img/s | best / PyTorch (TF32 off) |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in res["table"]:
        mib = lambda v: f"{v / 1048576:.0f}" if v else "–"
        L.append(f"| {r['model']} | {r['batch']} | {r.get('settings', '–')} | {fmt(r['ours_ips'])} | {fmt(r['ours_launches'])} | {fmt(r['ours_waits'], 2)} | {mib(r['ours_device_peak_bytes'])} | "
                 f"{fmt(r['torch_ips_tf32_off'])} | {fmt(r['torch_ips_default'])} | {mib(r['torch_max_memory_allocated'])} | {fmt(r.get('ratio_tf32_off'), 3)} | "
                 f"{r.get('best_variant', '–')} | {fmt(r.get('best_ips'))} | {fmt(r.get('best_ratio_tf32_off'), 3)} |")
    L += sweep_markdown(res)
    L += predictions_markdown(res.get("predictions") or [])
    L += profile_markdown(res.get("profiles") or [])
    p = res["projection"]
    if p.get("table1_cell_hours") or not p:
        L.append(f"\n## One epoch of {p.get('model') or 'WRN-16-4'} (llpfc-uniform, the Table 1 cell's settings) on a CIFAR-shaped set, and the projection\n")
    else:
        L.append(f"\n## One epoch of {p.get('model')} on a CIFAR-shaped set (not the Table 1 cell's run: no projection)\n")
    if p.get("train_images_per_second"):
        L.append(f"- {p.get('points')} training points, {fmt(p.get('wall_seconds'))} s of wall time, {fmt(p['train_images_per_second'])} training images/s")
    if p.get("table1_cell_hours"):
        L.append(f"- one epoch of the cell's {CELL_POINTS:,} training images: {fmt(p['epoch_seconds_cell'])} s of training; one Table 1 cell (CIFAR10, {TABLE1_EPOCHS} epochs): "
                 f"**{fmt(p['table1_cell_hours'], 2)} h**; all of Table 1 ({TABLE1_INSTANCE_EPOCHS:.3g} instance-epochs at this throughput): {fmt(p['table1_hours'], 0)} h")
        if p.get("cell_over_torch"):
            L.append(f"- PyTorch fp32's cell at its step with the cell's settings (WRN-16-4, batch 128, dropout 0.3, crop and flip; part 7): "
                     f"{fmt(p['torch_cell_hours_tf32_off'], 2)} h with TF32 off" + (f", {fmt(p['torch_cell_hours_default'], 2)} h with its defaults" if p.get("torch_cell_hours_default") else "")
                     + f"; ours ÷ PyTorch's (TF32 off): **{fmt(p['cell_over_torch'], 2)}×** (the criterion: ≤ {CELL_TORCH_BOUND:g}×; PyTorch's training steps alone, ours the epoch's training throughput)")
        else:
            L.append("- no PyTorch step at the cell's settings (part 7) to set the cell beside")
    elif p.get("train_images_per_second"):
        L.append(f"- {p['note']}")
    else:
        L.append(f"- no result: {p.get('note', 'the part did not run or failed (see train.log)')}")
    L.append("\n## The pure-Go build on this machine's CPUs beside PyTorch CPU\n")
    L.append("| model | batch | threads | parallel loops (schedule, goroutines) | ours img/s | PyTorch img/s | ours / PyTorch | PyTorch threads |\n|---|---|---|---|---|---|---|---|")
    L += [f"| {r['model']} | {r['batch']} | {r['threads']} | {r.get('schedule', '–')} | {fmt(r['ours_ips'])} | {fmt(r['torch_ips'])} | "
          f"{fmt(r['ours_ips'] / r['torch_ips'], 2) if r.get('ours_ips') and r.get('torch_ips') else '–'} | {fmt(r['torch_threads'])} |" for r in res["cpu_table"]]
    L += scaling_markdown(res.get("scaling", []))
    L.append("\n## Fixture training on the device and on the CPU\n")
    for r in res["fixture"]:
        L.append(f"- {(r.get('config') or {}).get('model')} on {r.get('device')}: test accuracy {r.get('test_accuracy')}, final loss {r.get('final_loss')}, "
                 f"{fmt(r.get('wall_seconds'))} s, {fmt(r.get('train_images_per_second'))} training images/s")
    L.append("")
    return "\n".join(L) + "\n"


def sweep_markdown(res):
    """The tuning pass and the variant sweep: what was chosen, and each variant beside the baseline."""
    L = ["\n## The variant sweep: each variant's training step beside the baseline's (" + BASELINE + ")\n"]
    t = res.get("tuning")
    if t:
        r = t.get("result") or {}
        ratio = r["default_seconds"] / r["tuned_seconds"] if r.get("tuned_seconds") else None
        L.append(f"- GEMM tuning on {t.get('device')} (driver {t.get('driver')}): {len(r.get('shapes') or [])} product shapes, "
                 f"{fmt(1e3 * (r.get('default_seconds') or 0), 3)} ms a step with CLBlast's defaults, {fmt(1e3 * (r.get('tuned_seconds') or 0), 3)} ms "
                 f"tuned ({fmt(ratio, 2)}×); {r.get('tried')} candidates ({r.get('failed')} failed, {r.get('wrong')} wrong) in {fmt(r.get('seconds'))} s; "
                 f"parameters: {json.dumps(r.get('params'), sort_keys=True) if r.get('params') else 'none kept (CLBlast defaults)'}"
                 + (f"; {t['note']}" if t.get("note") else ""))
    else:
        L.append("- no GEMM tuning result (the tune part did not run or failed: sweep.log)")
    rows = res.get("sweep") or []
    if not rows:
        L.append("- no variant swept\n")
        return L
    L.append(f"- best on the Table 1 cell's network: **{res.get('best_variant') or best_variant(rows)}**\n")
    L.append("| model | batch | variant | img/s | baseline img/s | × baseline | numerics |\n|---|---|---|---|---|---|---|")
    L += [f"| {r['model']} | {r['batch']} | {r['variant']} | {fmt(r['ips'])} | {fmt(r['baseline_ips'])} | {fmt(r.get('ratio'), 3)} | {r['numerics']}"
          + ("" if r["applied"] else " (**not the variant asked for**)")
          + (f" (**not counted: {', '.join(r['unchecked'])} did not pass**)" if r.get("unchecked") else "") + " |" for r in rows]
    L.append("")
    return L


def profile_markdown(profiles):
    """The per-op profiles as tables, one per network (the summary's "where the time goes")."""
    if not profiles:
        return ["\n## Where a step's time goes\n", "No per-op profile (the bench parts did not run, or ran without --profile).\n"]
    L = ["\n## Where a step's time goes: one profiled step per network, op by op, beside PyTorch's kernels for the same shapes\n",
         "Each operation waited for (clFinish before and after), so the profiled step is slower than the timed ones; "
         "GFLOP/s counts a multiply-add as 2, GB/s the bytes the operands hold. PyTorch ms: torch_step.py --kernels, "
         "the same convolutions (F.conv2d, conv2d_input, conv2d_weight) and products (torch.mm) at each geometry, "
         "TF32 off, times our calls; ours ÷ PyTorch over the calls that have a peer.\n"]
    ms = lambda v: f"{v * 1000:.2f}" if v is not None else "–"
    for p in profiles:
        L.append(f"### {p['model']}, batch {p['batch']}, {p.get('variant', BASELINE)} ({p['settings']}): profiled step {ms(p['profiled_seconds'])} ms, timed step {ms(p['step_seconds'])} ms\n")
        L.append("| operation | calls | launches | ours ms | share | GFLOP/s | GB/s | PyTorch ms (same shapes) | ours ÷ PyTorch |")
        L.append("|---|---|---|---|---|---|---|---|---|")
        for c in p["categories"]:
            share = f"{100 * c['share']:.1f} %" if c.get("share") is not None else "–"
            L.append(f"| {c['category']} | {c['calls']} | {c['launches']} | {ms(c['seconds'])} | {share} | {fmt(c['gflops'])} | {fmt(c['gbytes'], 2)} | "
                     f"{ms(c['peer_seconds']) if c['peer_seconds'] else '–'} | {fmt(c['ours_over_peer'], 2)} |")
        L.append("")
    return L


def scaling_markdown(reports):
    """The pure-Go step from one thread to all the CPUs (llpfc bench --scaling): per network the
    speed-up measured at the most threads and each prediction's error there (A from 1–2 threads, B
    from that count's CPU times, C from its structure and 2 threads' work: training/scaling), then
    each report's own tables."""
    if not reports:
        return []
    L = ["\n## The pure-Go step from 1 thread to all the CPUs, and the many-core model's predictions (`llpfc bench --scaling`)\n",
         "Imbalance and start/stop (at the most threads): what the parallel loops waited on their slowest worker beyond an even split, "
         "and what they took beyond that worker's work; the model assumes both zero, so C's error should be about their sum.\n",
         "A loop's start/stop is the start/stop at the most threads divided by the parallel loops a step (the step profile's sections).\n",
         "| model | batch | parallel loops (schedule, goroutines) | threads | measured ms/step at the fewest | at the most | speed-up | A (error) | B (error) | C (error) | imbalance ms | start/stop ms | loops a step | start/stop µs a loop |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    err = lambda p, m: f"{1e3 * p:.1f} ({100 * (p - m) / m:+.0f} %)" if m else "–"
    ms = lambda v: f"{1e3 * v:.1f}" if isinstance(v, (int, float)) else "–"  # reports from before the measure have none
    for r in reports:
        rows = r.get("rows") or []
        if not rows:
            continue
        first, last = rows[0], rows[-1]
        loops = sum(o.get("sections") or 0 for o in ((r.get("runs") or [{}])[-1].get("ops") or []))
        per_loop = f"{1e6 * last['start_stop_s'] / loops:.1f}" if loops and isinstance(last.get("start_stop_s"), (int, float)) else "–"
        L.append(f"| {r.get('model')} | {r.get('batch_size')} | {loops_label(r)} | {', '.join(str(x.get('threads')) for x in rows)} | {1e3 * first.get('measured_s', 0):.1f} | "
                 f"{1e3 * last.get('measured_s', 0):.1f} | {last.get('speed_up', 0):.2f} | {err(last.get('extrapolated_s', 0), last.get('measured_s'))} | "
                 f"{err(last.get('structural_s', 0), last.get('measured_s'))} | {err(last.get('hybrid_s', 0), last.get('measured_s'))} | "
                 f"{ms(last.get('imbalance_s'))} | {ms(last.get('start_stop_s'))} | {fmt(loops) if loops else '–'} | {per_loop} |")
    for r in reports:
        L.append("")
        L.append(r.get("markdown", "").rstrip())
    return L


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "run":
        i = args.index("--")
        sys.exit(run(args[0], float(args[1]), args[i + 1:]))
    if cmd == "unpack":
        return unpack(args[0], args[1])
    if cmd == "discover":
        return discover(args[0], args[1], args[2])
    if cmd == "cifar":
        return cifar(args[0], int(args[1]), int(args[2]))
    if cmd == "epoch-points":
        return epoch_points(args[0], float(args[1]), int(args[2]))
    if cmd == "summarize":
        sys.exit(summarize(args[0]))
    if cmd == "gemm-shapes":
        sys.exit(gemm_shapes(args[0], int(args[1])))
    if cmd == "best-variant":
        bench = json_lines(os.path.join(args[0], "bench.log"))
        return print(best_variant(sweep_rows(bench, logged_runs(os.path.join(args[0], "sweep.log")), parts(args[0]))))
    if cmd == "pick-python":
        return pick_python(args)
    if cmd == "describe-python":
        return print(describe_python(args[0])[0])
    sys.exit("kit.py: unknown command " + cmd)


if __name__ == "__main__":
    main()
