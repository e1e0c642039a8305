"""Tests of the Python client, run by `make test` through
cmd/llpfc's TestPythonClient with $LLPFC_BINARY set to a freshly built
binary. Oracles: the binary itself run from the shell on the same file
(fit/predict must equal train/predict to the last digit), scikit-learn's
clone, the binary's own error messages, the file system after a kill.

With CI=true a missing scikit-learn or pandas is a failure, not a skip.
"""

import copy
import gc
import json
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

import llpfc  # noqa: E402
from llpfc import LLPClassifier  # noqa: E402

FIXTURE = os.path.join(ROOT, "fixtures", "bagonly", "fashion-mnist-bags.npz")
CI = os.environ.get("CI") == "true"


def binary():
    return llpfc.find_binary()


def cli(*args, check=True):
    p = subprocess.run([binary()] + [str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and p.returncode != 0:
        raise AssertionError("llpfc %s: exit %d\n%s" % (" ".join(map(str, args)), p.returncode, p.stderr))
    return p


def optional(module):
    try:
        return __import__(module)
    except ImportError:
        if CI:
            raise AssertionError("%s is not installed; with CI=true it is required (apt-get install python3-%s)"
                                 % (module, {"sklearn": "sklearn"}.get(module, module)))
        raise unittest.SkipTest("%s is not installed" % module)


# The result fields that describe the run rather than its numbers.
VOLATILE = {"wall_seconds", "train_images_per_second", "peak_rss_bytes", "data", "start", "end", "provenance"}


def numbers(result):
    """A train result without the fields that name files or time the run:
    the data set's name is its path (the client's is a temporary file) and
    the cell's key is a hash of the configuration that holds it."""
    out = {k: v for k, v in result.items() if k not in VOLATILE and k != "key"}
    out["config"] = dict(result["config"], dataset="DATA")
    out["settings"] = dict(result["settings"], **{"run.dataset": "DATA"})
    return out


class FitPredictTest(unittest.TestCase):
    """fit/predict on the bag-only fixture equals llpfc train + llpfc predict
    on the same file, to the last digit."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        d = np.load(FIXTURE)
        cls.arrays = {k: d[k] for k in d.files}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_fit_predict_equals_the_binary(self):
        a = self.arrays
        clf = LLPClassifier(method="llpfc-uniform", model="mlp", epochs=2, seed=3, verbose=False, lr=0.002)
        clf.fit(a["X"], a["bag"], a["proportions"], X_test=a["test_X"], y_test=a["test_y"])
        stem = os.path.join(self.tmp, "cli")
        out = cli("train", "--data", "bags:" + FIXTURE, "--method", "llpfc-uniform", "--model", "mlp",
                  "--epochs", 2, "--seed", 3, "--lr", 0.002, "--save-model", stem, "--json", "--quiet")
        want = json.loads(out.stdout.strip().splitlines()[-1])
        self.assertEqual(numbers(clf.result_), numbers(want))
        self.assertGreater(clf.result_["test_accuracy"], 0.3)
        # The weights, byte for byte, and the probabilities, bit for bit.
        got_w, want_w = np.load(clf.model_path_ + ".npz"), np.load(stem + ".npz")
        self.assertEqual(sorted(got_w.files), sorted(want_w.files))
        for k in want_w.files:
            np.testing.assert_array_equal(got_w[k], want_w[k], err_msg=k)
        preds = os.path.join(self.tmp, "p.npy")
        cli("predict", "--model", stem, "--data", "bags:" + FIXTURE, "--split", "test", "--out", preds)
        p = clf.predict_proba(a["test_X"])
        self.assertEqual(p.dtype, np.float32)
        np.testing.assert_array_equal(p, np.load(preds))
        np.testing.assert_array_equal(clf.predict(a["test_X"]), np.argmax(np.load(preds), axis=1))
        self.assertAlmostEqual(clf.score(a["test_X"], a["test_y"]), want["test_accuracy"], places=12)
        np.testing.assert_array_equal(clf.classes_, np.arange(10))
        self.assertEqual(clf.n_features_in_, 784)

    def test_pandas_and_lists_in(self):
        """A DataFrame of features and plain lists go in as their arrays."""
        pd = optional("pandas")
        rng = np.random.default_rng(0)
        X = rng.normal(size=(400, 5))
        y = (X[:, 0] > 0).astype(int)
        bag = np.repeat(np.arange(20), 20)
        P = np.stack([np.bincount(y[bag == k], minlength=2) / 20 for k in range(20)])
        frame = pd.DataFrame(X, columns=["a", "b", "c", "d", "e"])
        c1 = LLPClassifier(epochs=3, verbose=False).fit(frame, list(bag), P.tolist())
        c2 = LLPClassifier(epochs=3, verbose=False).fit(X, bag, P)
        np.testing.assert_array_equal(c1.predict_proba(X), c2.predict_proba(frame))


class ParamsTest(unittest.TestCase):
    def test_clone_and_set_params_round_trip(self):
        base = optional("sklearn.base")
        import sklearn.base
        clf = LLPClassifier(method="kl", epochs=3, seed=7, lr=0.01, batch_size=4, select="best-val")
        twin = sklearn.base.clone(clf)
        self.assertIsNot(twin, clf)
        self.assertEqual(twin.get_params(), clf.get_params())
        self.assertEqual(twin.get_params()["lr"], 0.01)
        twin.set_params(lr=0.1, epochs=5, weight_decay=1e-4)
        self.assertEqual(twin.get_params()["lr"], 0.1)
        self.assertEqual(twin.epochs, 5)
        self.assertEqual(twin.get_params()["weight_decay"], 1e-4)
        self.assertEqual(clf.get_params()["lr"], 0.01)  # the original is untouched
        self.assertEqual(sklearn.base.clone(twin).get_params(), twin.get_params())
        self.assertIn("lr=0.01", repr(clf))
        self.assertFalse(hasattr(twin, "result_"))

    def test_flags_become_the_binarys_flags(self):
        from llpfc._classifier import _flag_args
        self.assertEqual(_flag_args({"lr": 0.001, "batch_size": 64, "quiet": True, "resume": False,
                                     "milestones": [60, 120], "dropout": None}),
                         ["--batch-size", "64", "--lr", "0.001", "--milestones", "60,120", "--quiet",
                          "--resume=false"])

    def test_an_unknown_flag_is_the_binarys_valueerror(self):
        d = np.load(FIXTURE)
        with self.assertRaises(ValueError) as cm:
            LLPClassifier(epochs=1, verbose=False, no_such_flag=3).fit(d["X"], d["bag"], d["proportions"])
        self.assertIn("flag provided but not defined: -no-such-flag", str(cm.exception))
        self.assertEqual(cm.exception.returncode, 2)


class SmallBags:
    """60 instances in 6 bags of 3 classes, and a scratch folder."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        rng = np.random.default_rng(1)
        self.X = rng.normal(size=(60, 4))
        self.bag = np.repeat(np.arange(6), 10)
        self.P = np.full((6, 3), 1 / 3)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


class BadInputTest(SmallBags, unittest.TestCase):
    """Bad input raises ValueError carrying the binary's own words: the
    message is the line `llpfc train` prints for the same arrays."""

    def cli_message(self, **arrays):
        path = os.path.join(self.tmp, "data.npz")
        np.savez(path, **arrays)
        p = cli("train", "--data", "bags:" + path, "--epochs", 1, "--quiet", check=False)
        self.assertEqual(p.returncode, 2, p.stderr)
        return p.stderr.strip().splitlines()[-1], path

    def check(self, X, bag, P, **arrays):
        """The exception says the binary's words for the same arrays in
        Python's terms: its prefix dropped, the file and array
        named as fit's argument, no temporary path, no flag."""
        want, path = self.cli_message(X=X, bag=bag, proportions=P, **arrays)
        with self.assertRaises(ValueError) as cm:
            kw = {"bag_ids": arrays["bag_ids"]} if "bag_ids" in arrays else {}
            LLPClassifier(epochs=1, verbose=False).fit(X, bag, P, **kw)
        got = str(cm.exception)
        want = want.replace("llpfc train: ", "")
        for key, arg in (("bag_ids", "bag_ids"), ("bag", "bags"), ("proportions", "proportions"), ("X", "X")):
            want = want.replace(path + ", array " + key, arg)
        want = want.replace("add @normalize to the data set's name to rescale every row",
                            "divide each row by its sum to rescale it (proportions / proportions.sum(axis=1, keepdims=True))")
        self.assertEqual(got, want)
        self.assertNotIn("llpfc-py-", got)
        self.assertNotIn("--", got)
        self.assertIn("data.npz", cm.exception.message, "exc.message keeps the binary's own words")
        return got

    def test_wrong_shapes(self):
        msg = self.check(self.X, self.bag[:50], self.P)
        self.assertIn("bag", msg)

    def test_nan_feature(self):
        X = self.X.copy()
        X[7, 2] = np.nan
        self.assertIn("NaN", self.check(X, self.bag, self.P))

    def test_bag_without_proportions(self):
        bag = self.bag.copy()
        bag[-1] = 99
        self.assertIn("99", self.check(self.X, bag, self.P))

    def test_proportions_not_summing_to_one(self):
        P = self.P.copy()
        P[2] = [0.5, 0.5, 0.5]
        self.check(self.X, self.bag, P)

    def test_test_labels_without_instances(self):
        with self.assertRaises(ValueError):
            LLPClassifier(epochs=1, verbose=False).fit(self.X, self.bag, self.P, y_test=[0, 1])

    def test_unfitted_predict(self):
        with self.assertRaises(AttributeError):  # NotFittedError is an AttributeError and a ValueError
            LLPClassifier().predict(self.X)


class ModelFilesTest(SmallBags, unittest.TestCase):
    """A fitted model is never lost: not by a refit that fails, nor by the
    process ending under a pickle of the estimator."""

    def test_failed_refit_keeps_the_model(self):
        # A refit with bad input removed the model fitted before, and the
        # estimator, still "fitted", pointed at a deleted file (found
        # 2026-11-28). The earlier model must stay whole and in use.
        clf = LLPClassifier(epochs=1, verbose=False).fit(self.X, self.bag, self.P)
        before, path = clf.predict_proba(self.X), clf.model_path_
        with self.assertRaises(ValueError):
            clf.fit(self.X, self.bag[:50], self.P)
        self.assertEqual(clf.model_path_, path)
        np.testing.assert_array_equal(clf.predict_proba(self.X), before)
        # A refit that succeeds replaces it, and its folder goes.
        clf.fit(self.X, self.bag, self.P)
        self.assertNotEqual(clf.model_path_, path)
        self.assertFalse(os.path.exists(os.path.dirname(path)))

    def test_pickle_outlives_the_process(self):
        # A pickled estimator pointed at its temporary folder, removed when
        # the process ended: loading it later found no model (2026-11-28).
        path = os.path.join(self.tmp, "clf.pkl")
        script = (
            "import sys, pickle, numpy as np; sys.path.insert(0, %r)\n"
            "from llpfc import LLPClassifier\n"
            "X = np.random.default_rng(1).normal(size=(60, 4))\n"
            "clf = LLPClassifier(epochs=1, verbose=False).fit(X, np.repeat(np.arange(6), 10), np.full((6, 3), 1 / 3))\n"
            "np.save(%r, clf.predict_proba(X))\n"
            "pickle.dump(clf, open(%r, 'wb'))\n"
        ) % (os.path.join(ROOT, "python"), path + ".npy", path)
        subprocess.run([sys.executable, "-c", script], check=True, env=dict(os.environ, LLPFC_BINARY=binary()))
        with open(path, "rb") as f:
            clf = pickle.load(f)
        X = np.random.default_rng(1).normal(size=(60, 4))
        np.testing.assert_array_equal(clf.predict_proba(X), np.load(path + ".npy"))
        # A deep copy has its own files: it outlives the original.
        twin = copy.deepcopy(clf)
        self.assertNotEqual(twin.model_path_, clf.model_path_)
        folder = os.path.dirname(clf.model_path_)
        del clf
        gc.collect()
        self.assertFalse(os.path.exists(folder))
        np.testing.assert_array_equal(twin.predict_proba(X), np.load(path + ".npy"))


KILL_SCRIPT = r"""
import sys, numpy as np
sys.path.insert(0, %(python)r)
from llpfc import LLPClassifier
rng = np.random.default_rng(0)
X = rng.normal(size=(20000, 64)).astype(np.float32)
bag = np.repeat(np.arange(200), 100)
P = np.full((200, 4), 0.25)
print("fitting", flush=True)
LLPClassifier(epochs=100000, verbose=False).fit(X, bag, P)
"""


class KilledFitTest(unittest.TestCase):
    """A fit stopped by SIGINT (a notebook's interrupt), SIGTERM or SIGKILL
    leaves no temporary file and no running binary: the first two are cleaned
    up at once, a SIGKILLed process's folder by the next use of the client."""

    def run_and_kill(self, sig):
        tmp = tempfile.mkdtemp()
        p = None
        try:
            env = dict(os.environ, TMPDIR=tmp)
            p = subprocess.Popen([sys.executable, "-c", KILL_SCRIPT % {"python": os.path.join(ROOT, "python")}],
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.assertEqual(p.stdout.readline().strip(), "fitting")
            deadline = time.time() + 60
            while time.time() < deadline and not self.binary_running(p.pid):
                time.sleep(0.1)
            self.assertTrue(self.binary_running(p.pid), "the binary never started")
            time.sleep(0.5)
            self.assertTrue(os.listdir(tmp), "no temporary folder while fitting")
            os.kill(p.pid, sig)
            p.wait(timeout=60)
            err = p.stderr.read()
            p.stdout.close()
            p.stderr.close()
            if sig != signal.SIGKILL:
                self.assertIn("KeyboardInterrupt", err)
            deadline = time.time() + 30
            while time.time() < deadline and self.children_alive(tmp):
                time.sleep(0.1)
            self.assertFalse(self.children_alive(tmp), "the binary outlived its Python")
            if sig == signal.SIGKILL:
                subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, %r); import llpfc._classifier as c; c._sweep_stale()"
                                % os.path.join(ROOT, "python")], env=env, check=True)
            self.assertEqual(os.listdir(tmp), [])
        finally:
            # A failed check must not leave a fit running (it trains for
            # 100,000 epochs): the Python and, re-parented, its binary.
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
            for pid in self.binaries_of(tmp):
                os.kill(pid, signal.SIGKILL)
            shutil.rmtree(tmp, ignore_errors=True)

    def binary_running(self, ppid):
        return bool(self.children(ppid))

    def children(self, ppid):
        kids = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % pid) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == ppid and fields[0] != "Z":
                kids.append(int(pid))
        return kids

    def children_alive(self, tmp):
        return bool(self.binaries_of(tmp))

    def binaries_of(self, tmp):
        """The llpfc processes working in tmp (after its Python dies the
        binary is re-parented, so it is found by its command line)."""
        me, pids = os.path.realpath(binary()), []
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                exe = os.path.realpath("/proc/%s/exe" % pid)
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    cmd = f.read()
            except OSError:
                continue
            if exe == me and tmp.encode() in cmd:
                pids.append(int(pid))
        return pids

    @unittest.skipUnless(sys.platform.startswith("linux"), "reads /proc")
    def test_sigint(self):
        self.run_and_kill(signal.SIGINT)

    @unittest.skipUnless(sys.platform.startswith("linux"), "reads /proc")
    def test_sigterm(self):
        self.run_and_kill(signal.SIGTERM)

    @unittest.skipUnless(sys.platform.startswith("linux"), "reads /proc")
    def test_sigkill(self):
        self.run_and_kill(signal.SIGKILL)


GRID = {
    "name": "py-grid",
    "learner": "gorgonia",
    "model": "mlp",
    "datasets": ["fashion-mnist-fixture"],
    "methods": ["llpfc-uniform", "kl"],
    "bag_sizes": [128],
    "seeds": [0, 1],
    "protocol": "paper",
    "num_points": 2560,
    "hyper": {"epochs": 1, "optimizer": "adam", "lr": 0.001, "batch_size": 128,
              "schedule": {"kind": "constant"}, "regroup_every": 1},
    "overrides": [{"when": {"methods": ["kl"]}, "set": {"hyper": {"batch_size": 2}}}],
}


class GridTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.store = os.path.join(cls.tmp, "store")
        cls.table = llpfc.run(GRID, results=cls.store, verbose=False)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def stored(self):
        cells = {}
        for name in os.listdir(os.path.join(self.store, "cells")):
            with open(os.path.join(self.store, "cells", name)) as f:
                c = json.load(f)
            cells[c["key"]] = c
        return cells

    def rows(self, table):
        if isinstance(table, list):
            return table
        return table.to_dict("records")

    def test_run_returns_every_cell(self):
        rows, cells = self.rows(self.table), self.stored()
        self.assertEqual(len(rows), 4)
        self.assertEqual(sorted(r["key"] for r in rows), sorted(cells))
        for r in rows:
            self.assertEqual(r["test_accuracy"], cells[r["key"]]["metrics"]["test_accuracy"])
            self.assertEqual(r["method"], cells[r["key"]]["config"]["method"])
            self.assertEqual(r["seed"], cells[r["key"]]["seed"])

    def test_dataframe_with_pandas(self):
        optional("pandas")
        import pandas
        self.assertIsInstance(self.table, pandas.DataFrame)

    def test_list_of_dicts_without_pandas(self):
        saved = sys.modules.get("pandas")
        sys.modules["pandas"] = None  # import pandas now raises ImportError
        try:
            rows = llpfc.report(self.store)
        finally:
            if saved is None:
                del sys.modules["pandas"]
            else:
                sys.modules["pandas"] = saved
        self.assertIsInstance(rows, list)
        self.assertEqual(sorted(r["key"] for r in rows), sorted(r["key"] for r in self.rows(self.table)))

    def test_rerun_resumes(self):
        before = {k: c["provenance"]["end"] for k, c in self.stored().items()}
        llpfc.run(GRID, results=self.store, verbose=False)
        after = {k: c["provenance"]["end"] for k, c in self.stored().items()}
        self.assertEqual(before, after)


def snippets(path, heading=None):
    """The Python code blocks of a markdown file (of its section under
    heading, if given), each with the output shown under it."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    if heading is not None:
        text = text.split("\n" + heading + "\n", 1)[1].split("\n#", 1)[0]
    return re.findall(r"```python\n(.*?)```\s*```text\n(.*?)```", text, re.S)


def readme_snippets():
    """The guide "From Python"'s code blocks (docs/python.md: the client's
    own snippet, and scikit-learn's tools), then the README's example."""
    return snippets(os.path.join("docs", "python.md")) + snippets("README.md", "### From Python")


NUMBER = re.compile(r"-?\d+\.\d+|-?\d+")


def same_but_numbers(got, shown, tol):
    """got equals shown token by token, numbers within tol."""
    g, w = got.split(), shown.split()
    if len(g) != len(w):
        return False
    for a, b in zip(g, w):
        if NUMBER.fullmatch(a) and NUMBER.fullmatch(b):
            if abs(float(a) - float(b)) > tol:
                return False
        elif a != b:
            return False
    return True


class ReadmeTest(unittest.TestCase):
    """The snippets of the guide "From Python" (docs/python.md) and the
    README's example are run as they stand, from the checkout, and print what
    they show (numbers within 0.02: the network's arithmetic may differ in
    the last bits between processors, and a few of the 500 test images may
    then change class)."""

    def test_readme_snippets_run_as_shown(self):
        snippets = readme_snippets()
        self.assertEqual(len(snippets), 3, "the client's snippet and scikit-learn's tools, then the README's example")
        for code, shown in snippets:
            if "sklearn" in code:
                optional("sklearn")
            p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(same_but_numbers(p.stdout, shown, 0.02), "printed:\n%s\nthe documentation shows:\n%s" % (p.stdout, shown))

    def test_the_comparison_can_fail(self):
        self.assertTrue(same_but_numbers("acc 0.728 x", "acc 0.73 x", 0.02))
        self.assertFalse(same_but_numbers("acc 0.70 x", "acc 0.73 x", 0.02))
        self.assertFalse(same_but_numbers("acc 0.73 y", "acc 0.73 x", 0.02))
        self.assertFalse(same_but_numbers("acc 0.73", "acc 0.73 x", 0.02))


if __name__ == "__main__":
    unittest.main()
