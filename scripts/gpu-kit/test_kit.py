"""Tests of the GPU kit's helpers, run by internal/repocheck's TestGPUKit with
python3's standard library: the verdict line of summary.md and of the console (PASS, or FAIL and
the failing parts), no projection of a Table 1 cell from a run that is not the cell's, and the
interpreter the PyTorch parts run with (the first python3 that imports torch, named)."""

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.join(HERE, "kit.py")


def read(path):
    with open(path) as f:
        return f.read()


def epoch_line(model, bag_size, method="llpfc-uniform", ips=2000.0):
    return json.dumps({"config": {"dataset": "cifar10", "model": model, "method": method, "bag_size": bag_size},
                       "train_images_per_second": ips, "wall_seconds": 3.0, "train_points": 640})


class SummarizeTest(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp()
        for log in ["discovery.log", "check.log", "train.log", "bench.log", "sweep.log", "torch.log", "cpu.log", "scaling.log"]:
            open(os.path.join(self.out, log), "w").close()
        self.discovery(["libpocl.so.2"])

    def discovery(self, drivers):
        with open(os.path.join(self.out, "discovery.json"), "w") as f:
            json.dump({"icd_folder": {"drivers": drivers}}, f)

    def tearDown(self):
        shutil.rmtree(self.out)

    def summarize(self, parts, train=()):
        with open(os.path.join(self.out, "parts.tsv"), "w") as f:
            for p in parts:
                f.write("\t".join(p) + "\n")
        with open(os.path.join(self.out, "train.log"), "w") as f:
            f.write("".join(l + "\n" for l in train))
        p = subprocess.run([sys.executable, KIT, "summarize", self.out], capture_output=True, text=True)
        first = read(os.path.join(self.out, "summary.md")).splitlines()[0].strip()
        return p.returncode, p.stdout.strip(), first, json.loads(read(os.path.join(self.out, "results.json")))

    def test_fail_names_the_failing_parts(self):
        rc, line, first, _ = self.summarize([("discovery", "ok", "1", "d"), ("check", "failed (1)", "9", "check.log"),
                                             ("devices", "ok", "1", "check.log"), ("bench mlp 32 (opencl)", "timeout", "40", "bench.log")])
        self.assertEqual(rc, 1)
        self.assertEqual(line, "FAIL: check (failed (1)); bench mlp 32 (opencl) (timeout)")
        self.assertEqual(first, "# llpfc GPU kit: " + line)

    def test_every_check_verdict_in_the_summary(self):
        # check.log holds one verdict per check part: the default path's, then the implicit convolutions'.
        with open(os.path.join(self.out, "check.log"), "w") as f:
            f.write("verdict: ok: 45 op cases\nverdict: FAIL: conv2d forward (implicit)\n")
        rc, line, _, _ = self.summarize([("discovery", "ok", "1", "d"), ("check", "ok", "9", "check.log"),
                                         ("check conv implicit", "ok", "9", "check.log")])
        md = read(os.path.join(self.out, "summary.md"))
        self.assertIn("verdict: ok: 45 op cases", md)
        self.assertIn("verdict: FAIL: conv2d forward (implicit)", md)
        self.assertEqual(rc, 1, "a check part that passed under a failing verdict fails the run: " + line)

    def test_pass_names_what_was_skipped(self):
        rc, line, first, _ = self.summarize([("discovery", "ok", "1", "d"), ("pytorch cuda", "skipped", "0", "/usr/bin/python3 (Python 3.11.2, no torch) has no torch")])
        self.assertEqual(rc, 0)
        self.assertEqual(line, "PASS; skipped: pytorch cuda (/usr/bin/python3 (Python 3.11.2, no torch) has no torch)")
        self.assertEqual(first, "# llpfc GPU kit: " + line)

    def test_no_driver_is_a_failure(self):
        self.discovery([])
        rc, line, _, _ = self.summarize([("discovery", "ok", "1", "d")])
        self.assertEqual(rc, 1)
        self.assertIn("no OpenCL driver found", line)

    def test_projection_only_from_the_cells_run(self):
        parts = [("discovery", "ok", "1", "d"), ("epoch x", "ok", "3", "train.log")]
        _, _, _, res = self.summarize(parts, [epoch_line("cnn-bn", 8)])  # --quick's epoch
        self.assertNotIn("table1_cell_hours", res["projection"])
        self.assertIn("not the cell's run", res["projection"]["note"])
        md = read(os.path.join(self.out, "summary.md"))
        self.assertNotIn("Table 1 cell (CIFAR10, 200 epochs)", md)
        self.assertIn("no projection of a Table 1 cell", md)
        _, _, _, res = self.summarize(parts, [epoch_line("wrn-16-4", 64)])
        self.assertAlmostEqual(res["projection"]["table1_cell_hours"], 200 * 40960 / 2000.0 / 3600)
        self.assertNotIn("cell_over_torch", res["projection"], "no PyTorch step: nothing to set the cell beside")

    def test_cell_beside_pytorch(self):
        """The projected cell beside PyTorch fp32's at its step with the cell's settings (dropout 0.3, crop and
        flip, batch 128): the ratio in the verdict line, within or beyond 2×; PyTorch's step without the
        preset's settings (dropout 0) is not the cell's."""
        parts = [("discovery", "ok", "1", "d"), ("epoch x", "ok", "3", "train.log")]
        torch = {"model": "wrn-16-4", "batch_size": 128, "dropout": 0.3, "augment": True}
        for ours, peer, word in [(2000.0, 3000.0, "within"), (1000.0, 3000.0, "beyond")]:
            self.write("torch.log", "\n".join(json.dumps(r) for r in [
                dict(torch, tf32="off", images_per_second=peer), dict(torch, tf32="default", images_per_second=2 * peer),
                dict(torch, tf32="off", dropout=0.0, augment=False, images_per_second=9 * peer)]) + "\n")
            _, line, _, res = self.summarize(parts, [epoch_line("wrn-16-4", 64, ips=ours)])
            p = res["projection"]
            self.assertAlmostEqual(p["torch_cell_hours_tf32_off"], 200 * 40960 / peer / 3600)
            self.assertAlmostEqual(p["torch_cell_hours_default"], 200 * 40960 / (2 * peer) / 3600)
            self.assertAlmostEqual(p["cell_over_torch"], peer / ours)
            self.assertIn(f"Table 1 cell {p['table1_cell_hours']:.2f} h, {peer / ours:.2f}× PyTorch fp32's ({word} 2×)", line)
            self.assertIn(f"ours ÷ PyTorch's (TF32 off): **{peer / ours:.2f}×**", read(os.path.join(self.out, "summary.md")))


    def test_profile_table_beside_pytorch(self):
        conv = {"N": 2, "C": 3, "H": 8, "W": 8, "O": 4, "K": 3, "pad": 1, "stride": 1}
        gemm = {"m": 2, "n": 10, "k": 64, "ta": 0, "tb": 0}
        ops = [{"category": "conv forward", "kind": "llpfc.Conv2dIm2col", "geometry": conv, "calls": 2, "seconds": 0.004, "launches": 6,
                "flops": 4000000, "bytes": 1000},
               {"category": "conv forward", "kind": "llpfc.Conv2dIm2col", "geometry": dict(conv, C=4), "calls": 1, "seconds": 0.002, "launches": 3,
                "flops": 2000000, "bytes": 1000},
               {"category": "GEMM", "kind": "gorgonia.linAlgBinOp(A × B)", "geometry": gemm, "calls": 1, "seconds": 0.001, "launches": 1,
                "flops": 2560, "bytes": 3000},
               {"category": "batch norm", "kind": "llpfc.BatchNormReLU", "calls": 4, "seconds": 0.003, "launches": 8, "flops": 0, "bytes": 3000000}]
        bench = {"model": "wrn-16-4", "batch_size": 2, "images_per_second": 100.0, "dropout": 0.3, "augment": True,
                 "profile": {"ops": ops, "seconds": 0.010}}
        torch = [{"impl": "pytorch", "kernel": "conv forward", "geometry": conv, "seconds": 0.0005},
                 {"impl": "pytorch", "kernel": "GEMM", "geometry": gemm, "seconds": 0.0002}]
        with open(os.path.join(self.out, "bench.log"), "w") as f:
            f.write("### llpfc bench ...\n" + json.dumps(bench) + "\n")
        with open(os.path.join(self.out, "torch.log"), "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in torch))
        rc, _, _, res = self.summarize([("discovery", "ok", "1", "d"), ("bench wrn-16-4 2 (opencl)", "ok", "9", "bench.log"),
                                        ("pytorch kernels", "ok", "3", "torch.log")])
        self.assertEqual(rc, 0)
        self.assertEqual(res["table"][0]["settings"], "dropout 0.3, crop+flip")
        (p,) = res["profiles"]
        cats = {c["category"]: c for c in p["categories"]}
        self.assertEqual([c["category"] for c in p["categories"]], ["conv forward", "batch norm", "GEMM"])  # by time
        cf = cats["conv forward"]
        self.assertEqual((cf["calls"], cf["launches"]), (3, 9))
        self.assertAlmostEqual(cf["seconds"], 0.006)
        self.assertAlmostEqual(cf["share"], 0.6)
        self.assertAlmostEqual(cf["gflops"], 6e6 / 0.006 / 1e9)
        # PyTorch timed one of the two geometries: 2 calls of 0.5 ms beside our 4 ms for them
        self.assertAlmostEqual(cf["peer_seconds"], 0.001)
        self.assertAlmostEqual(cf["ours_over_peer"], 4.0)
        self.assertAlmostEqual(cats["GEMM"]["ours_over_peer"], 5.0)
        self.assertIsNone(cats["batch norm"]["ours_over_peer"])
        self.assertAlmostEqual(cats["batch norm"]["gbytes"], 1.0)
        md = read(os.path.join(self.out, "summary.md"))
        self.assertIn("### wrn-16-4, batch 2, LLPFC_OPENCL_GEMM=default (dropout 0.3, crop+flip): profiled step 10.00 ms, timed step 20.00 ms", md)
        self.assertIn("| conv forward | 3 | 9 | 6.00 | 60.0 % | 1.0 | 0.00 | 1.00 | 4.00 |", md)

    def test_bench_without_profile_fails(self):
        with open(os.path.join(self.out, "bench.log"), "w") as f:
            f.write(json.dumps({"model": "mlp", "batch_size": 2, "images_per_second": 10.0}) + "\n")
        rc, line, _, _ = self.summarize([("discovery", "ok", "1", "d"), ("bench mlp 2 (opencl)", "ok", "1", "bench.log")])
        self.assertEqual(rc, 1)
        self.assertIn("without a per-op profile", line)


    def test_scaling_section(self):
        """A scaling report (llpfc bench --scaling --json) becomes the summary's section: the speed-up
        measured at the most threads and each prediction's error there, then the report's tables; a
        scaling part that passed without a report fails the run."""
        rows = [{"threads": 1, "measured_s": 1.0, "speed_up": 1.0, "extrapolated_s": 1.0, "structural_s": 1.0, "hybrid_s": 1.0},
                {"threads": 16, "measured_s": 0.2, "speed_up": 5.0, "extrapolated_s": 0.1, "structural_s": 0.25, "hybrid_s": 0.2,
                 "imbalance_s": 0.012, "start_stop_s": 0.0304}]
        with open(os.path.join(self.out, "scaling.log"), "w") as f:
            runs = [{"threads": 1, "ops": []}, {"threads": 16, "ops": [{"sections": 150}, {"sections": 23}, {}]}]
            f.write("### llpfc bench ...\n" + json.dumps({"model": "wrn-16-4", "batch_size": 32, "schedule": "dynamic", "par_start": "spawned", "rows": rows,
                                                          "runs": runs, "markdown": "### wrn-16-4, batch 32\n\n| t |"}) + "\n")
        part = ("cpu scaling wrn-16-4 32 (threads 1,16)", "ok", "30", "scaling.log")
        rc, line, _, res = self.summarize([("discovery", "ok", "1", "d"), part])
        self.assertEqual(rc, 0, line)
        self.assertEqual(len(res["scaling"]), 1)
        md = read(os.path.join(self.out, "summary.md"))
        # 30.4 ms of start/stop over 173 loops a step: 175.7 µs a loop
        self.assertIn("| wrn-16-4 | 32 | dynamic, spawned | 1, 16 | 1000.0 | 200.0 | 5.00 | 100.0 (-50 %) | 250.0 (+25 %) | 200.0 (+0 %) | 12.0 | 30.4 | 173 | 175.7 |", md)
        self.assertIn("### wrn-16-4, batch 32", md)
        open(os.path.join(self.out, "scaling.log"), "w").close()
        rc, line, _, _ = self.summarize([("discovery", "ok", "1", "d"), part])
        self.assertEqual(rc, 1)
        self.assertIn("1 cpu scaling parts passed but the logs gave 0 scaling reports", line)

    def test_cpu_table_schedules(self):
        """Our CPU step under each schedule of the parallel loops is its own row, beside the same PyTorch
        step, with the ratio."""
        ours = {"model": "wrn-16-4", "batch_size": 32, "gomaxprocs": 16, "images_per_second": 300.0}
        lines = [dict(ours, schedule="dynamic"), dict(ours, schedule="static", images_per_second=250.0),
                 {"impl": "pytorch", "model": "wrn-16-4", "batch_size": 32, "images_per_second": 200.0, "threads": 16}]
        self.write("cpu.log", "".join(json.dumps(l) + "\n" for l in lines))
        rc, line, _, res = self.summarize([("discovery", "ok", "1", "d"), ("cpu bench wrn-16-4 32 (16 threads)", "ok", "3", "cpu.log"),
                                           ("cpu bench wrn-16-4 32 (16 threads, static schedule)", "ok", "3", "cpu.log")])
        self.assertEqual(rc, 0, line)
        self.assertEqual([r["schedule"] for r in res["cpu_table"]], ["dynamic", "static"])
        md = read(os.path.join(self.out, "summary.md"))
        self.assertIn("| wrn-16-4 | 32 | 16 | dynamic | 300.0 | 200.0 | 1.50 | 16 |", md)
        self.assertIn("| wrn-16-4 | 32 | 16 | static | 250.0 | 200.0 | 1.25 | 16 |", md)

    def test_cpu_table_pooled(self):
        """A result that says how its loops got their goroutines (par_start) shows it beside the schedule,
        so the spawned and the pooled step are two rows."""
        ours = {"model": "cnn", "batch_size": 128, "gomaxprocs": 16, "schedule": "dynamic"}
        lines = [dict(ours, par_start="spawned", images_per_second=3000.0), dict(ours, par_start="pooled", images_per_second=3600.0),
                 {"impl": "pytorch", "model": "cnn", "batch_size": 128, "images_per_second": 2400.0, "threads": 16}]
        self.write("cpu.log", "".join(json.dumps(l) + "\n" for l in lines))
        rc, line, _, res = self.summarize([("discovery", "ok", "1", "d"), ("cpu bench cnn 128 (16 threads)", "ok", "3", "cpu.log"),
                                           ("cpu bench cnn 128 (16 threads, pooled goroutines)", "ok", "3", "cpu.log")])
        self.assertEqual(rc, 0, line)
        self.assertEqual([r["schedule"] for r in res["cpu_table"]], ["dynamic, spawned", "dynamic, pooled"])
        md = read(os.path.join(self.out, "summary.md"))
        self.assertIn("| cnn | 128 | 16 | dynamic, pooled | 3600.0 | 2400.0 | 1.50 | 16 |", md)

    def write(self, log, text):
        with open(os.path.join(self.out, log), "w") as f:
            f.write(text)

    def test_gemm_shapes(self):
        """The tuning pass's shapes: every network's profiled products, the same shape's calls and time
        summed over the networks, the longest first, as many as asked."""
        def bench(model, gemms):
            return json.dumps({"model": model, "batch_size": 2, "profile": {"ops": [], "gemms": gemms}})
        g = lambda m, n, k, calls, secs, tb=0: {"ta": 0, "tb": tb, "m": m, "n": n, "k": k, "calls": calls, "seconds": secs}
        self.write("bench.log", "### llpfc bench\n" + bench("a", [g(64, 512, 576, 2, 0.010), g(10, 128, 64, 1, 0.001)]) + "\n"
                   + bench("b", [g(64, 512, 576, 1, 0.004), g(256, 64, 2304, 3, 0.012, tb=1)]) + "\n")
        p = subprocess.run([sys.executable, KIT, "gemm-shapes", self.out, "2"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        got = json.loads(read(os.path.join(self.out, "gemm-shapes.json")))
        self.assertEqual([(r["m"], r["n"], r["k"], r["tb"], r["calls"]) for r in got], [(64, 512, 576, 0, 3), (256, 64, 2304, 1, 3)])
        self.assertAlmostEqual(got[0]["seconds"], 0.014)
        self.write("bench.log", "")
        p = subprocess.run([sys.executable, KIT, "gemm-shapes", self.out, "2"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 1, "no profiled product: nothing to tune for")

    def sweep_logs(self, tuned_ips, numerics="gemm tuned (clblast-gemm-x.json, 1.20× CLBlast's defaults on 2 shapes)"):
        base = {"model": "wrn-16-4", "batch_size": 128, "images_per_second": 1000.0, "numerics": "gemm default (CLBlast's parameters)",
                "profile": {"ops": [{"category": "GEMM", "calls": 1, "seconds": 0.1}], "seconds": 0.1}}
        self.write("bench.log", "### env LLPFC_OPENCL_GEMM=default /k/llpfc bench --model wrn-16-4\n" + json.dumps(base) + "\n")
        tuning = {"device": "A GPU", "driver": "1", "result": {"params": {"GemmRoutine": {"XGEMM_MIN_INDIRECT_SIZE": 0}}, "default_seconds": 0.012,
                                                               "tuned_seconds": 0.010, "shapes": [{}, {}], "tried": 9, "failed": 1, "wrong": 0, "seconds": 40}}
        swept = dict(base, images_per_second=tuned_ips, numerics=numerics)
        del swept["profile"]
        self.write("sweep.log", "### /k/llpfc devices --tune-gemm /o/gemm-shapes.json --json\n" + json.dumps(tuning) + "\n### exit 0 after 41 s\n"
                   "### env LLPFC_OPENCL_GEMM=tuned /k/llpfc bench --model wrn-16-4 --batch-size 128\n" + json.dumps(swept) + "\n")
        checks = [(c, "ok", "5", "check.log") for c in ("check", "check conv implicit", "check cuda", "check cuda cudnn")]
        return [("discovery", "ok", "1", "d"), ("bench wrn-16-4 128 (opencl)", "ok", "9", "bench.log"), ("tune gemm", "ok", "41", "sweep.log")] + checks + [
                ("sweep LLPFC_OPENCL_GEMM=tuned wrn-16-4 128", "ok", "9", "sweep.log")]

    def test_sweep_verdict_first(self):
        """The sweep's variant beside the baseline in the verdict line, the best named; the tuning result and
        the sweep table in the summary; best-variant prints the variant for the epoch to run with."""
        parts = self.sweep_logs(1500.0)
        rc, line, first, res = self.summarize(parts)
        self.assertEqual(rc, 0, line)
        want = "PASS; sweep (× LLPFC_OPENCL_GEMM=default): LLPFC_OPENCL_GEMM=tuned: wrn-16-4/128 1.50×; best: LLPFC_OPENCL_GEMM=tuned"
        self.assertEqual(line, want)
        self.assertEqual(first, "# llpfc GPU kit: " + want)
        self.assertEqual(res["best_variant"], "LLPFC_OPENCL_GEMM=tuned")
        (row,) = res["sweep"]
        self.assertAlmostEqual(row["ratio"], 1.5)
        md = read(os.path.join(self.out, "summary.md"))
        self.assertIn("GEMM tuning on A GPU (driver 1): 2 product shapes, 12.000 ms a step with CLBlast's defaults, 10.000 ms tuned (1.20×); 9 candidates (1 failed, 0 wrong)", md)
        self.assertIn("| wrn-16-4 | 128 | LLPFC_OPENCL_GEMM=tuned | 1500.0 | 1000.0 | 1.500 |", md)
        p = subprocess.run([sys.executable, KIT, "best-variant", self.out], capture_output=True, text=True)
        self.assertEqual(p.stdout.strip(), "LLPFC_OPENCL_GEMM=tuned")

    def test_slower_variant_is_not_best(self):
        _, line, _, res = self.summarize(self.sweep_logs(900.0))
        self.assertTrue(line.startswith("PASS; sweep (× LLPFC_OPENCL_GEMM=default): LLPFC_OPENCL_GEMM=tuned: wrn-16-4/128 0.90×; best: LLPFC_OPENCL_GEMM=default"), line)
        p = subprocess.run([sys.executable, KIT, "best-variant", self.out], capture_output=True, text=True)
        self.assertEqual(p.stdout.strip(), "LLPFC_OPENCL_GEMM=default")

    def test_variant_not_applied_fails(self):
        """A knob that did not take (the result's numerics name the defaults) fails the run: the sweep would
        have timed the baseline twice."""
        rc, line, _, _ = self.summarize(self.sweep_logs(1000.0, numerics="gemm default (CLBlast's parameters)"))
        self.assertEqual(rc, 1)
        self.assertIn("sweep LLPFC_OPENCL_GEMM=tuned wrn-16-4 128: its numerics \"gemm default (CLBlast's parameters)\" do not name the variant", line)

    def test_conv_variant_needs_both_knobs_named(self):
        """The default sweep's two-knob variant (tuned products, implicit-GEMM convolutions, run.sh's
        KIT_VARIANTS) passes only when the result's numerics name both: the OpenCL back end's
        "; conv implicit (…)" beside the products' note."""
        run_sh = read(os.path.join(HERE, "run.sh"))
        self.assertIn("LLPFC_OPENCL_GEMM=tuned,LLPFC_OPENCL_CONV=implicit ", run_sh)
        self.assertIn("VARIANTS=${KIT_VARIANTS:-device=cuda,LLPFC_OPENCL_CONV=cudnn device=cuda LLPFC_OPENCL_GEMM=tuned "
                      "LLPFC_OPENCL_GEMM=tuned,LLPFC_OPENCL_CONV=implicit LLPFC_OPENCL_GEMM=tuned,LLPFC_OPENCL_CONV=implicit:dw "
                      "device=cuda,LLPFC_OPENCL_CONV=cudnn,LLPFC_OPENCL_REDUCE=channel,configs=sweep "
                      "device=cuda,LLPFC_OPENCL_CONV=cudnn,LLPFC_CUDNN_ALGO=heuristic,configs=sweep "
                      "LLPFC_OPENCL_GEMM=default,LLPFC_OPENCL_REDUCE=channel}", run_sh)
        tuned = "gemm tuned (clblast-gemm-x.json, 1.20× CLBlast's defaults on 2 shapes)"
        conv = lambda path: f"; conv {path} (GEMM tile 64×64×16, 4×4 per work-item)"
        for path, numerics, rc in [("implicit", tuned + conv("implicit"), 0), ("implicit", tuned, 1),
                                   ("implicit:dw", tuned + conv("implicit:dw"), 0),
                                   ("implicit:dw", tuned + conv("implicit"), 1),  # another path's result
                                   ("implicit", tuned + conv("implicit:dw"), 1)]:
            parts = self.sweep_logs(1500.0, numerics=numerics)
            log = read(os.path.join(self.out, "sweep.log")).replace("### env LLPFC_OPENCL_GEMM=tuned /k/llpfc",
                                                                    f"### env LLPFC_OPENCL_GEMM=tuned LLPFC_OPENCL_CONV={path} /k/llpfc")
            self.write("sweep.log", log)
            parts[-1] = (f"sweep LLPFC_OPENCL_GEMM=tuned,LLPFC_OPENCL_CONV={path} wrn-16-4 128", "ok", "9", "sweep.log")
            got, line, _, _ = self.summarize(parts)
            self.assertEqual(got, rc, f"{path}, {numerics}: {line}")
            if rc:
                self.assertIn("do not name the variant", line)
            else:
                self.assertIn(f"best: LLPFC_OPENCL_GEMM=tuned LLPFC_OPENCL_CONV={path}", line)

    def test_reduce_variant_named(self):
        """The sweep's per-channel reductions variant (run.sh's KIT_VARIANTS: the baseline's products, one
        work-group a channel) passes only when the result's numerics say "reduce channel (…)": a knob that
        did not take would time the sliced default twice."""
        default = "gemm default (CLBlast's parameters)"
        for numerics, rc in [(default + "; reduce channel (one work-group a channel)", 0), (default, 1)]:
            parts = self.sweep_logs(900.0, numerics=numerics)
            log = read(os.path.join(self.out, "sweep.log")).replace("### env LLPFC_OPENCL_GEMM=tuned /k/llpfc",
                                                                    "### env LLPFC_OPENCL_GEMM=default LLPFC_OPENCL_REDUCE=channel /k/llpfc")
            self.write("sweep.log", log)
            parts[-1] = ("sweep LLPFC_OPENCL_GEMM=default,LLPFC_OPENCL_REDUCE=channel wrn-16-4 128", "ok", "9", "sweep.log")
            got, line, _, _ = self.summarize(parts)
            self.assertEqual(got, rc, f"{numerics}: {line}")
            if rc:
                self.assertIn("do not name the variant", line)
            else:
                self.assertIn("LLPFC_OPENCL_GEMM=default LLPFC_OPENCL_REDUCE=channel: wrn-16-4/128 0.90×", line)

    def test_predictions_checked(self):
        """The summary checks this session's written predictions itself: the per-channel reductions' A/B as the
        difference of the batch-norm and backward-bias rows of two profiled steps (other rows ignored), cuDNN's
        own pick over the default rule, the mlp pooled over spawned at the most threads; each held, above, below,
        or no data when the run lacks a side."""
        prof = lambda bn, bias, conv: {"ops": [{"category": "batch norm", "seconds": bn}, {"category": "conv backward-bias", "seconds": bias},
                                               {"category": "conv forward", "seconds": conv}], "seconds": bn + bias + conv}
        wrn = {"model": "wrn-16-4", "batch_size": 128, "images_per_second": 1000.0, "numerics": "gemm default (CLBlast's parameters)"}
        vgg = dict(wrn, model="vgg16")
        self.write("bench.log", "### env LLPFC_OPENCL_GEMM=default /k/llpfc bench\n"
                   + json.dumps(dict(wrn, profile=prof(0.0004, 0.0001, 0.05))) + "\n" + json.dumps(dict(vgg, profile=prof(0.0002, 0.0001, 0.05))) + "\n")
        chan = "### env LLPFC_OPENCL_GEMM=default LLPFC_OPENCL_REDUCE=channel /k/llpfc bench --model {}\n"
        cudnn = "### env LLPFC_OPENCL_CONV=cudnn{} /k/llpfc bench --device cuda --model wrn-16-4\n"
        cn = "cuda: gemm cublas fp32, TF32 off; conv cudnn (cuDNN 9.13.0; "
        self.write("sweep.log",
                   # WRN-16-4: 1.4 ms − 0.5 ms = 0.9 ms (held); the convolution's 0.2 s more is not the reductions'
                   chan.format("wrn-16-4") + json.dumps(dict(wrn, profile=prof(0.0012, 0.0002, 0.25), numerics="gemm default (CLBlast's parameters); reduce channel (one work-group a channel)")) + "\n"
                   # VGG16: 0.2 ms − 0.3 ms = −0.1 ms (below)
                   + chan.format("vgg16") + json.dumps(dict(vgg, profile=prof(0.0001, 0.0001, 0.05), numerics="gemm default (CLBlast's parameters); reduce channel (one work-group a channel)")) + "\n"
                   + cudnn.format("") + json.dumps(dict(wrn, images_per_second=4000.0, numerics=cn + "deterministic algorithms)")) + "\n"
                   + cudnn.format(" LLPFC_CUDNN_ALGO=heuristic") + json.dumps(dict(wrn, images_per_second=6000.0, numerics=cn + "the heuristic's first algorithm)")) + "\n"
                   # the reductions one work-group a channel on the cuDNN path: 4000 ÷ 3800 = 1.053 (held)
                   + cudnn.format(" LLPFC_OPENCL_REDUCE=channel") + json.dumps(dict(wrn, images_per_second=3800.0, numerics=cn + "deterministic algorithms); reduce channel (one work-group a channel)")) + "\n")
        mlp = {"model": "mlp", "batch_size": 128, "schedule": "dynamic"}
        self.write("cpu.log", "\n".join(json.dumps(r) for r in [
            dict(mlp, gomaxprocs=2, par_start="spawned", images_per_second=500.0), dict(mlp, gomaxprocs=2, par_start="pooled", images_per_second=100.0),
            dict(mlp, gomaxprocs=16, par_start="spawned", images_per_second=1000.0), dict(mlp, gomaxprocs=16, par_start="pooled", images_per_second=1200.0),
            dict(mlp, gomaxprocs=16, par_start="spawned", schedule="static", images_per_second=50.0),
            dict(mlp, impl="pytorch", threads=16, images_per_second=900.0)]) + "\n")
        _, _, _, res = self.summarize([("discovery", "ok", "1", "d")])
        got = {(r["lever"], r["model"]): (r["measured"], r["verdict"]) for r in res["predictions"]}
        near = lambda key, v, verdict: (self.assertAlmostEqual(got[key][0], v, places=6, msg=key), self.assertEqual(got[key][1], verdict, key))
        near(("per-channel reductions in slices", "wrn-16-4"), 0.9, "held")
        near(("per-channel reductions in slices", "vgg16"), -0.1, "below")
        self.assertEqual(got[("per-channel reductions in slices", "resnet18")], (None, "no data"))
        near(("cuDNN's own pick of algorithms", "wrn-16-4"), 1.5, "above")
        near(("per-channel reductions in slices, on the cuDNN path", "wrn-16-4"), 4000 / 3800, "held")
        self.assertEqual(got[("cuDNN's own pick of algorithms", "vgg16")], (None, "no data"))
        near(("the mlp's loops with pooled goroutines", "mlp"), 1.2, "held")  # 16 threads, the dynamic schedule's runs
        md = read(os.path.join(self.out, "summary.md"))
        self.assertIn("## The written predictions, checked", md)
        self.assertIn("| cuDNN's own pick of algorithms | img/s, device=cuda LLPFC_OPENCL_CONV=cudnn LLPFC_CUDNN_ALGO=heuristic ÷ device=cuda LLPFC_OPENCL_CONV=cudnn | wrn-16-4 128 | 1–1.25 × | 1.500 | above |", md)

    def cuda_logs(self, cuda_ips, numerics):
        """sweep_logs with the CUDA driver's step as a variant (run.sh: bench --device cuda) and PyTorch's step."""
        parts = self.sweep_logs(1100.0)
        cuda = {"model": "wrn-16-4", "batch_size": 128, "images_per_second": cuda_ips, "numerics": numerics}
        self.write("sweep.log", read(os.path.join(self.out, "sweep.log"))
                   + "### env /k/llpfc bench --device cuda --model wrn-16-4 --batch-size 128\n" + json.dumps(cuda) + "\n")
        self.write("torch.log", json.dumps({"model": "wrn-16-4", "batch_size": 128, "tf32": "off", "images_per_second": 4000.0}) + "\n")
        return parts + [("sweep device=cuda wrn-16-4 128", "ok", "9", "sweep.log")]

    def test_cuda_driver_is_a_variant(self):
        """The CUDA driver's step is the variant device=cuda: beside the baseline, best when fastest, its
        ratio to PyTorch in the verdict line; a result whose numerics do not name cuBLAS fails (it would be
        OpenCL's step counted as CUDA's)."""
        rc, line, _, res = self.summarize(self.cuda_logs(3000.0, "cuda (cublas 13.1, fp32, TF32 off); im2col"))
        self.assertEqual(rc, 0, line)
        self.assertIn("best step / PyTorch fp32: 1 of 1 networks ≥ 0.5×, slowest wrn-16-4/128 0.75× (device=cuda)", line)
        self.assertIn("device=cuda: wrn-16-4/128 3.00×; best: device=cuda", line)
        (row,) = res["table"]
        self.assertEqual((row["best_variant"], row["best_ips"]), ("device=cuda", 3000.0))
        self.assertAlmostEqual(row["ratio_tf32_off"], 0.25)
        self.assertIn("| 0.250 | device=cuda | 3000.0 | 0.750 |", read(os.path.join(self.out, "summary.md")))
        p = subprocess.run([sys.executable, KIT, "best-variant", self.out], capture_output=True, text=True)
        self.assertEqual(p.stdout.strip(), "device=cuda")
        rc, line, _, res = self.summarize(self.cuda_logs(3000.0, "gemm default (CLBlast's parameters)"))
        self.assertEqual(rc, 1)
        self.assertIn("sweep device=cuda wrn-16-4 128: its numerics", line)
        self.assertEqual(res["table"][0]["best_variant"], "LLPFC_OPENCL_GEMM=tuned", "a variant not applied is never the best")
        self.assertIn("slowest wrn-16-4/128 0.28×", line)

    def test_unchecked_variant_not_counted(self):
        """A variant whose path's device check did not pass (failed, cut short, not run) is timed and shown, but
        neither a network's best step nor the epoch's variant: the CUDA driver's 3× step with `check cuda`
        failed leaves the tuned OpenCL step the best, marked in the verdict line and the sweep table."""
        for status in ("failed (1)", "timeout", None):
            parts = self.cuda_logs(3000.0, "cuda (cublas 13.1, fp32, TF32 off); im2col")
            parts = [p for p in parts if p[0] != "check cuda"] + ([("check cuda", status, "5", "check.log")] if status else [])
            rc, line, _, res = self.summarize(parts)
            self.assertIn("device=cuda: wrn-16-4/128 3.00× (unchecked); best: LLPFC_OPENCL_GEMM=tuned", line, status)
            self.assertIn("slowest wrn-16-4/128 0.28× (LLPFC_OPENCL_GEMM=tuned)", line, status)
            self.assertEqual(res["table"][0]["best_variant"], "LLPFC_OPENCL_GEMM=tuned", status)
            self.assertIn("(**not counted: check cuda did not pass**)", read(os.path.join(self.out, "summary.md")))
            p = subprocess.run([sys.executable, KIT, "best-variant", self.out], capture_output=True, text=True)
            self.assertEqual(p.stdout.strip(), "LLPFC_OPENCL_GEMM=tuned", status)
            self.assertEqual(rc, 0 if status is None else 1, line)

    def test_required_checks(self):
        """Each variant's path and the check parts run.sh runs for it."""
        sys.path.insert(0, HERE)
        try:
            import kit
        finally:
            sys.path.remove(HERE)
        for variant, want in [("LLPFC_OPENCL_GEMM=default", ["check"]),
                              ("LLPFC_OPENCL_GEMM=tuned", ["check"]),
                              ("LLPFC_OPENCL_GEMM=tuned LLPFC_OPENCL_CONV=implicit", ["check", "check conv implicit"]),
                              ("LLPFC_OPENCL_GEMM=tuned LLPFC_OPENCL_CONV=implicit:dw", ["check", "check conv implicit"]),
                              ("LLPFC_OPENCL_GEMM=default LLPFC_OPENCL_REDUCE=channel", ["check"]),
                              ("device=opencl:0:1 LLPFC_OPENCL_GEMM=tuned", ["check"]),
                              ("device=cuda", ["check cuda"]),
                              ("device=cuda:1", ["check cuda"]),
                              ("device=cuda LLPFC_OPENCL_CONV=cudnn", ["check cuda", "check cuda cudnn"]),
                              ("device=cuda LLPFC_OPENCL_CONV=cudnn LLPFC_CUDNN_ALGO=heuristic", ["check cuda", "check cuda cudnn"])]:
            self.assertEqual(kit.required_checks(variant), want, variant)
        run_sh = read(os.path.join(HERE, "run.sh"))
        for name in ("part check 130", 'part "check conv implicit"', 'part "check cuda" 130', 'part "check cuda cudnn"'):
            self.assertIn(name, run_sh, "required_checks names a part run.sh no longer runs")

    def test_cudnn_variant_needs_cudnn_named(self):
        """The CUDA driver with cuDNN's convolutions (run.sh: env LLPFC_OPENCL_CONV=cudnn … --device cuda) is
        the variant device=cuda LLPFC_OPENCL_CONV=cudnn, applied only when the result names cuBLAS and
        cuDNN's path; the CUDA driver's im2col result does not count as it."""
        sys.path.insert(0, HERE)
        try:
            import kit
        finally:
            sys.path.remove(HERE)
        v = kit.variant_of("env LLPFC_OPENCL_CONV=cudnn /k/llpfc bench --device cuda --model wrn-16-4 --batch-size 128")
        self.assertEqual(v, "device=cuda LLPFC_OPENCL_CONV=cudnn")
        base = {"model": "wrn-16-4", "batch_size": 128, "images_per_second": 1000.0, "numerics": "gemm default"}
        cmd = "env LLPFC_OPENCL_CONV=cudnn /k/llpfc bench --device cuda --model wrn-16-4 --batch-size 128"
        for numerics, applied in [("cuda: gemm cublas fp32, TF32 off; conv cudnn (cuDNN 9.13.0; deterministic algorithms, FMA math: no TF32, no FFT)", True),
                                  ("cuda: gemm cublas fp32, TF32 off", False),
                                  ("gemm default; conv cudnn (cuDNN 9.13.0; …)", False)]:
            (row,) = kit.sweep_rows([base], [(cmd, dict(base, images_per_second=5000.0, numerics=numerics))])
            self.assertEqual(row["applied"], applied, numerics)

    def test_cudnn_own_pick_timed_not_trained(self):
        """cuDNN's own pick of algorithms (LLPFC_CUDNN_ALGO=heuristic) is applied only when the result's numerics
        say so, and is never the variant the epoch trains with, however fast: its numbers may differ from
        run to run."""
        sys.path.insert(0, HERE)
        try:
            import kit
        finally:
            sys.path.remove(HERE)
        base = {"model": "wrn-16-4", "batch_size": 128, "images_per_second": 1000.0, "numerics": "gemm default"}
        det = "env LLPFC_OPENCL_CONV=cudnn /k/llpfc bench --device cuda --model wrn-16-4 --batch-size 128"
        own = "env LLPFC_OPENCL_CONV=cudnn LLPFC_CUDNN_ALGO=heuristic /k/llpfc bench --device cuda --model wrn-16-4 --batch-size 128"
        cuda = "cuda: gemm cublas fp32, TF32 off; conv cudnn (cuDNN 9.13.0; "
        checked = [{"part": "check cuda", "status": "ok"}, {"part": "check cuda cudnn", "status": "ok"}]
        rows = kit.sweep_rows([base], [(det, dict(base, images_per_second=5000.0, numerics=cuda + "deterministic algorithms, FMA math: no TF32)")),
                                       (own, dict(base, images_per_second=7000.0, numerics=cuda + "the heuristic's first algorithm, deterministic or not; FMA math: no TF32)"))],
                              checked)
        self.assertEqual([(r["variant"], r["applied"]) for r in rows],
                         [("device=cuda LLPFC_OPENCL_CONV=cudnn", True), ("device=cuda LLPFC_OPENCL_CONV=cudnn LLPFC_CUDNN_ALGO=heuristic", True)])
        self.assertEqual(kit.best_variant(rows), "device=cuda LLPFC_OPENCL_CONV=cudnn")
        (row,) = kit.sweep_rows([base], [(own, dict(base, images_per_second=7000.0, numerics=cuda + "deterministic algorithms, FMA math: no TF32)"))])
        self.assertFalse(row["applied"], "the default rule's result counted as cuDNN's own pick")

    def test_cuda_libraries_picked(self):
        """discover's CUDA libraries: the driver's libcuda.so.1, NVRTC's and cuBLAS's versioned files (not
        NVRTC's builtins or .alt build, not cublasLt), the toolkit's before a Python package's."""
        sys.path.insert(0, HERE)
        try:
            import kit
        finally:
            sys.path.remove(HERE)
        d = {"libcuda": ["/usr/local/nvidia/lib64/libcuda.so", "/usr/local/nvidia/lib64/libcuda.so.1", "/usr/lib/libcuda.so.1"],
             "nvrtc": ["/usr/local/cuda/lib64/libnvrtc-builtins.so.13.0", "/usr/local/cuda/lib64/libnvrtc.alt.so.13",
                       "/opt/v/nvidia/cu13/lib/libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.13"],
             "cublas": ["/opt/v/nvidia/cu13/lib/libcublas.so.13", "/usr/local/cuda/lib64/libcublasLt.so.13", "/usr/local/cuda/lib64/libcublas.so.13"]}
        self.assertEqual(kit.cuda_libs(d), {"LLPFC_CUDA_LIB": "/usr/lib/libcuda.so.1", "LLPFC_NVRTC_LIB": "/usr/local/cuda/lib64/libnvrtc.so.13",
                                            "LLPFC_CUBLAS_LIB": "/usr/local/cuda/lib64/libcublas.so.13"})
        # cuDNN's shim from a wheel, not its sub-libraries nor the unversioned link
        d["cudnn"] = ["/opt/v/nvidia/cudnn/lib/libcudnn_cnn.so.9", "/opt/v/nvidia/cudnn/lib/libcudnn.so",
                      "/opt/v/nvidia/cudnn/lib/libcudnn.so.9", "/opt/v/nvidia/cudnn/lib/libcudnn_graph.so.9"]
        self.assertEqual(kit.cuda_libs(d)["LLPFC_CUDNN_LIB"], "/opt/v/nvidia/cudnn/lib/libcudnn.so.9")
        self.assertEqual(kit.cuda_libs({"libcuda": [], "nvrtc": d["nvrtc"][:2]}), {})

    def test_sweep_result_missing_fails(self):
        parts = self.sweep_logs(1500.0) + [("sweep LLPFC_OPENCL_GEMM=tuned vgg16 128", "ok", "9", "sweep.log")]
        rc, line, _, _ = self.summarize(parts)
        self.assertEqual(rc, 1)
        self.assertIn("2 sweep parts passed but the logs gave 1 sweep results", line)


class TorchStepTest(unittest.TestCase):
    """bench/torch_step.py's parts that need no torch (a stub stands in for it): the configs with a
    preset's dropout and augmentation, and the geometries --kernels times from a bench log."""

    @classmethod
    def setUpClass(cls):
        import importlib.util
        import types
        stubs = {}
        for name in ["torch", "torch.nn", "torch.nn.functional"]:
            stubs[name] = types.ModuleType(name)
        stubs["torch.nn"].Module = object
        stubs["torch"].nn = stubs["torch.nn"]
        stubs["torch.nn"].functional = stubs["torch.nn.functional"]
        cls.saved = {k: sys.modules.get(k) for k in stubs}
        sys.modules.update(stubs)
        spec = importlib.util.spec_from_file_location("torch_step", os.path.join(HERE, "..", "..", "bench", "torch_step.py"))
        cls.ts = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cls.ts)

    @classmethod
    def tearDownClass(cls):
        for k, v in cls.saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v

    def test_configs(self):
        got = self.ts.parse_configs("mlp:128:1x28x28,wrn-16-4:32:3x32x32:0.3:aug,vgg16:8:3x32x32:0.5:-", None)
        self.assertEqual(got, [("mlp", 128, 1, 28, 28, 0.0, False), ("wrn-16-4", 32, 3, 32, 32, 0.3, True), ("vgg16", 8, 3, 32, 32, 0.5, False)])
        with self.assertRaises(SystemExit):
            self.ts.parse_configs("mlp:128", None)

    def test_profile_geometries(self):
        conv = {"N": 2, "C": 3, "H": 8, "W": 8, "O": 4, "K": 3, "pad": 1, "stride": 1}
        ops = [{"category": "conv forward", "geometry": conv}, {"category": "conv backward-filter", "geometry": conv},
               {"category": "batch norm"}, {"category": "conv forward", "geometry": dict(reversed(list(conv.items())))},
               {"category": "GEMM", "geometry": {"m": 2, "n": 3, "k": 4, "ta": 0, "tb": 1}}]
        d = tempfile.mkdtemp()
        try:
            log = os.path.join(d, "bench.log")
            with open(log, "w") as f:
                f.write("### llpfc bench\n" + json.dumps({"model": "x", "profile": {"ops": ops}}) + "\nnot json {\n")
            got = self.ts.profile_geometries(log)
        finally:
            shutil.rmtree(d)
        self.assertEqual([c for c, _ in got], ["conv forward", "conv backward-filter", "GEMM"], "each geometry once, batch norm untimed")


class PickPythonTest(unittest.TestCase):
    """Fake interpreters on a PATH: the kit prefers the one that imports torch, whatever its order,
    and names each."""

    def fake(self, d, name, torch):
        p = os.path.join(d, name)
        with open(p, "w") as f:
            f.write("#!/bin/sh\necho '3.11.%d %s'\n" % (len(name), "1.13.1" if torch else ""))
        os.chmod(p, 0o755)
        return p

    def test_prefers_one_with_torch(self):
        d = tempfile.mkdtemp()
        try:
            self.fake(d, "python3", False)
            want = self.fake(d, "python3.11", True)
            p = subprocess.run([sys.executable, KIT, "pick-python", os.path.join(d, "python3"), want],
                               capture_output=True, text=True)
            self.assertEqual(p.stdout.strip(), want)
            self.assertIn(os.path.join(d, "python3") + " (Python 3.11.7, no torch)", p.stderr)
            self.assertIn(want + " (Python 3.11.10, torch 1.13.1)", p.stderr)
            env = dict(os.environ, PATH=d)
            p = subprocess.run([sys.executable, KIT, "pick-python"], capture_output=True, text=True, env=env)
            self.assertEqual(p.stdout.strip(), want, "found on PATH: " + p.stderr)
        finally:
            shutil.rmtree(d)


class BudgetTest(unittest.TestCase):
    """run.sh end to end with a stand-in llpfc whose `devices` hangs: the GPU parts before part 9 leave
    KIT_CPU_RESERVE seconds of the budget to the CPU parts (which alone measure the many-core
    criterion), and without the reserve the hang eats them."""

    STUB = """#!/bin/sh
case "$1" in devices) sleep 60 ;; esac
echo '{}'
"""

    def kit(self, d):
        kit = os.path.join(d, "kit")
        os.makedirs(os.path.join(d, "stage", "bin"))
        stub = os.path.join(d, "stage", "bin", "llpfc")
        with open(stub, "w") as f:
            f.write(self.STUB)
        os.chmod(stub, 0o755)
        with open(os.path.join(d, "stage", "MANIFEST.txt"), "w") as f:
            f.write("a stand-in llpfc\n")
        os.makedirs(kit)
        with tarfile.open(os.path.join(kit, "llpfc.tar.xz"), "w:xz") as t:
            t.add(os.path.join(d, "stage"), arcname=".")
        for src in [os.path.join(HERE, "run.sh"), KIT, os.path.join(HERE, "..", "..", "bench", "torch_step.py")]:
            shutil.copy(src, kit)
        # no interpreter imports torch here, so the PyTorch parts skip at once
        os.makedirs(os.path.join(d, "notorch"))
        with open(os.path.join(d, "notorch", "torch.py"), "w") as f:
            f.write("raise ImportError('no torch in this test')\n")
        return kit

    def start(self, d, name, budget, reserve):
        out = os.path.join(d, name)
        env = dict(os.environ, KIT_BUDGET=str(budget), KIT_CPU_RESERVE=str(reserve), PYTHON=sys.executable,
                   PYTHONPATH=os.path.join(d, "notorch"))
        return out, subprocess.Popen(["bash", os.path.join(d, "kit", "run.sh"), out, "--quick"], env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def test_cpu_parts_keep_their_reserve(self):
        d = tempfile.mkdtemp()
        try:
            self.kit(d)
            runs = [self.start(d, "kept", 18, 9), self.start(d, "none", 12, 0)]
            parts = {}
            for out, p in runs:
                log = p.communicate(timeout=120)[0]
                with open(os.path.join(out, "results.json")) as f:
                    parts[os.path.basename(out)] = {r["part"]: r for r in json.load(f)["parts"]}
                self.assertIn("devices", parts[os.path.basename(out)], log)
            kept, none = parts["kept"], parts["none"]
            self.assertEqual(kept["devices"]["status"], "timeout")
            self.assertLessEqual(kept["devices"]["seconds"], 10, "the hang's time-out leaves the reserve")
            self.assertRegex(kept["devices"]["note"], r"limit \d s \(cut from 20 s by the budget\)")
            for out, p in runs:
                with open(os.path.join(out, "summary.md")) as f:
                    self.assertIn("devices (timeout, its limit cut by the budget)", f.readline())
            self.assertEqual(kept["fixture (cpu)"]["status"], "skipped")
            self.assertIn("kept for the parts after it", kept["fixture (cpu)"]["note"])
            cpu = [n for n in kept if n.startswith("cpu bench") or n.startswith("cpu scaling")]
            self.assertTrue(cpu, kept)
            for n in cpu:
                self.assertEqual(kept[n]["status"], "ok", n)
            # the control: without the reserve the same hang leaves the CPU parts nothing
            for n in cpu:
                self.assertEqual(none[n]["status"], "skipped", n)
                self.assertIn("budget was spent", none[n]["note"])
        finally:
            shutil.rmtree(d)


if __name__ == "__main__":
    unittest.main()
