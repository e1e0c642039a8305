"""One label mapping, one reading of bags and proportions (llpfc._labels).

Generated fits over random permutations of the classes' columns, class
names of four kinds (words, integers, numbers written as text, the
positions 0…C−1 themselves in another order: the issue's case), label
counts or proportions, bag ids of four kinds (small integers, int64 beyond
2^53, strings, whole floats) and the three forms fit takes. The oracles are
the generator, which knows each test label's column in the permuted order
and each bag's true proportions, and the binary itself: ``llpfc predict``
run from the shell on the fitted model. For every draw, ``result_``'s test
accuracy, ``score`` and the accuracy of the shell's probabilities are one
number; ``predict`` names the shell's most probable column; the label-free
score equals minus a slow bag-by-bag KL of the true proportions; and
nothing of the ids is merged. Before, ``y_test`` was read as column
positions (0.145 where score said 0.51), counts were scored as given
(−103.9 for −0.049), class names were lost in ``bag_targets`` and ids
beyond 2^53 merged.
"""

import os
import random
import shutil
import sys
import tempfile
import unittest
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)

import llpfc  # noqa: E402
from llpfc import LLPClassifier  # noqa: E402
from test_llpfc import cli, optional  # noqa: E402
from test_sklearn import slow_bag_kl  # noqa: E402

NAMES = {"words": ["cat", "dog", "eel"], "ints": [7, 3, 5], "numeric text": ["2", "10", "1"], "positions": [0, 1, 2]}
IDS = ("small", "beyond 2^53", "strings", "whole floats")
DRAWS = int(os.environ.get("LLPFC_PY_DRAWS", "12"))


def draw(rng):
    """One generated case: data whose first coordinates carry the class,
    bags of varying composition, and how fit is given them."""
    c = rng.choice([2, 3])
    kind = rng.choice(sorted(NAMES))
    names = NAMES[kind][:c]
    perm = list(range(c))
    rng.shuffle(perm)
    n_bags, size = 10, 12
    g = np.random.default_rng(rng.randrange(1 << 30))
    y = g.integers(0, c, size=n_bags * size)  # index into names
    X = g.normal(size=(len(y), 4)) + np.eye(c, 4)[y] * 2.5
    bag = np.repeat(np.arange(n_bags), size)
    g.shuffle(bag)
    yt = g.integers(0, c, size=60)
    Xt = g.normal(size=(len(yt), 4)) + np.eye(c, 4)[yt] * 2.5
    ids_kind = rng.choice(IDS)
    ids = {"small": np.arange(n_bags) * 3 + 1, "beyond 2^53": 2 ** 60 + np.arange(n_bags),
           "strings": np.array(["b-%d" % k for k in range(n_bags)]), "whole floats": np.arange(n_bags) * 2.0}[ids_kind]
    counts = np.stack([np.bincount(y[bag == k], minlength=c) for k in range(n_bags)])  # in the names' order
    return dict(c=c, kind=kind, names=names, perm=perm, X=X, y=y, bag=bag, Xt=Xt, yt=yt, ids_kind=ids_kind, ids=ids,
                counts=counts, as_counts=rng.random() < 0.5, form=rng.choice(["frame", "targets", "per instance"]),
                labels_as_text=rng.random() < 0.3, size=size)


class LabelMappingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_result_score_and_the_shell_agree(self):
        pd = optional("pandas")
        rng = random.Random(62)
        seen = set()
        for i in range(DRAWS):
            d = draw(rng)
            seen.add((d["kind"], d["ids_kind"], d["form"], d["as_counts"]))
            with self.subTest(draw=i, kind=d["kind"], ids=d["ids_kind"], form=d["form"], counts=d["as_counts"]):
                self.check(pd, d, i)
        self.assertGreater(len(seen), DRAWS // 2, "the draws repeat themselves")

    def check(self, pd, d, i):
        perm, names = d["perm"], d["names"]
        cols = [names[j] for j in perm]  # the proportions' columns, permuted
        table = d["counts"][:, perm] if d["as_counts"] else d["counts"][:, perm] / d["size"]
        bags = d["ids"][d["bag"]]
        y_test = np.asarray([names[k] for k in d["yt"]])
        if d["labels_as_text"]:
            y_test = np.asarray([str(v) for v in y_test])
        clf = LLPClassifier(epochs=2, seed=1, verbose=False)
        if d["form"] == "frame":
            clf.fit(d["X"], bags=bags, proportions=pd.DataFrame(table, columns=cols), bag_ids=d["ids"], X_test=d["Xt"], y_test=y_test)
        elif d["form"] == "targets":
            clf.fit(d["X"], llpfc.bag_targets(bags, table, bag_ids=d["ids"], classes=cols), X_test=d["Xt"], y_test=y_test)
        else:
            frame = pd.DataFrame(table[d["bag"]], columns=cols)  # a row per instance
            clf.fit(d["X"], bags=bags, proportions=frame, X_test=d["Xt"], y_test=y_test)
        self.assertEqual(list(clf.classes_), cols)
        self.assertEqual(clf.result_["num_bags"], len(d["ids"]), "bag ids merged")
        # The shell's probabilities of the same model on the same X_test.
        data, out = os.path.join(self.tmp, "t%d.npz" % i), os.path.join(self.tmp, "p%d.npy" % i)
        np.savez(data, X=d["Xt"])
        cli("predict", "--model", clf.model_path_, "--data", "npz:" + data, "--split", "train", "--out", out)
        p = np.load(out)
        truth = np.asarray([perm.index(k) for k in d["yt"]])  # each label's column, from the generator
        acc = float(np.mean(np.argmax(p, axis=1) == truth))
        self.assertAlmostEqual(clf.result_["test_accuracy"], acc, places=12)
        self.assertAlmostEqual(clf.score(d["Xt"], y_test), acc, places=12)
        np.testing.assert_array_equal(clf.predict(d["Xt"]), np.asarray(cols)[np.argmax(p, axis=1)])
        # The label-free score: minus the slow KL of the true proportions,
        # whether given as counts or proportions, in any order of classes.
        probs = clf.predict_proba(d["X"]).astype(np.float64)
        gamma = d["counts"][:, perm] / d["size"]  # row k is bag k of the generator
        want = -slow_bag_kl(probs, d["bag"], gamma)
        Y = llpfc.bag_targets(bags, table, bag_ids=d["ids"], classes=cols)
        self.assertAlmostEqual(clf.score(d["X"], Y), want, places=10)
        self.assertAlmostEqual(-clf.bag_loss(d["X"], bags, table, bag_ids=d["ids"]), want, places=10)
        other = list(reversed(range(d["c"])))
        Y2 = llpfc.bag_targets(bags, table[:, other], bag_ids=d["ids"], classes=[cols[j] for j in other])
        self.assertAlmostEqual(llpfc.proportion_loss_scorer(clf, d["X"], Y2), want, places=10)


class BagIdsTest(unittest.TestCase):
    """Ids kept exactly or refused."""

    def test_beyond_two_to_the_53(self):
        ids = 2 ** 60 + np.arange(4)
        self.assertEqual(len(np.unique(ids.astype(np.float64))), 1, "the case: as float64 the four ids are one")
        bags = np.repeat(ids, 5)
        Y = llpfc.bag_targets(bags, np.full((4, 2), 0.5), bag_ids=ids)
        np.testing.assert_array_equal(Y["bag"], bags)
        self.assertEqual(Y["bag"].dtype, np.int64)
        with self.assertRaises(ValueError) as cm:
            llpfc.bag_targets(bags.astype(np.float64), np.full((4, 2), 0.5))
        self.assertIn("beyond 2^53", str(cm.exception))
        self.assertIn("int64", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            llpfc.bag_targets(np.array([0.5, 1.0]), np.full((2, 2), 0.5))
        self.assertIn("not a whole number", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            llpfc.bag_targets(np.array(["a", "NA"]), np.full((2, 2), 0.5), bag_ids=np.array(["a", "NA"]))
        self.assertIn("missing value", str(cm.exception))

    def test_string_ids_fit_as_integers_do(self):
        rng = np.random.default_rng(3)
        X = rng.normal(size=(60, 3))
        k = np.repeat(np.arange(6), 10)
        P = np.tile([0.5, 0.5], (6, 1))
        a = LLPClassifier(epochs=1, seed=2, verbose=False).fit(X, bags=k, proportions=P)
        names = np.array(["z%d" % j for j in range(6)])
        b = LLPClassifier(epochs=1, seed=2, verbose=False).fit(X, bags=names[k], proportions=P, bag_ids=names)
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
        with self.assertRaises(ValueError) as cm:
            LLPClassifier(epochs=1, verbose=False).fit(X, bags=names[k], proportions=P, bag_ids=names[:5])
        self.assertIn("bag ids z5 have no row of proportions", str(cm.exception))


class CountsTest(unittest.TestCase):
    """Counts read as the binary reads them, once, everywhere."""

    def test_counts_are_their_proportions(self):
        from llpfc import _labels
        counts = np.array([[3, 1], [0, 4]])
        np.testing.assert_array_equal(_labels.proportions(counts, [4, 4]), [[0.75, 0.25], [0, 1]])
        np.testing.assert_array_equal(_labels.proportions(counts.astype(float), [4, 4]), [[0.75, 0.25], [0, 1]])
        np.testing.assert_array_equal(_labels.proportions(np.array([[0.0, 1.0], [1.0, 0.0]]), [4, 4]), [[0, 1], [1, 0]])
        with self.assertRaises(ValueError) as cm:
            _labels.proportions(counts, [4, 5])
        self.assertIn("counts sum to 4, but the bag has 5 instances", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            _labels.proportions(np.array([[0.3, 0.3]]), [1])
        self.assertIn("divide each row by its sum", str(cm.exception))


class FeatureNamesTest(unittest.TestCase):
    """Features by name and by position never mix without a word."""

    def test_warnings_and_repeated_names(self):
        pd = optional("pandas")
        rng = np.random.default_rng(1)
        X = rng.normal(size=(60, 3))
        bag, P = np.repeat(np.arange(6), 10), np.tile([0.5, 0.5], (6, 1))
        on_array = LLPClassifier(epochs=1, verbose=False).fit(X, bag, P)
        frame = pd.DataFrame(X[:, [2, 0, 1]], columns=["c", "a", "b"])
        with self.assertWarns(UserWarning) as cm:
            on_array.predict_proba(frame)
        self.assertIn("X has feature names, but LLPClassifier was fitted without feature names", str(cm.warning))
        on_frame = LLPClassifier(epochs=1, verbose=False).fit(pd.DataFrame(X, columns=["a", "b", "c"]), bag, P)
        with self.assertWarns(UserWarning) as cm:
            on_frame.predict_proba(X)
        self.assertIn("X does not have valid feature names", str(cm.warning))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            np.testing.assert_array_equal(on_frame.predict_proba(frame), on_frame.predict_proba(pd.DataFrame(X, columns=["a", "b", "c"])))
        twice = pd.DataFrame(X, columns=["a", "b", "a"])
        with self.assertRaises(ValueError) as cm:
            LLPClassifier(epochs=1, verbose=False).fit(twice, bag, P)
        self.assertIn("columns 0 and 2 are both named 'a'", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            on_frame.predict_proba(twice)
        self.assertIn("both named 'a'", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            LLPClassifier(epochs=1, verbose=False).fit(X, bag, pd.DataFrame(P, columns=["k", "k"]))
        self.assertIn("both named 'k'", str(cm.exception))


class GridSearchNamesTest(unittest.TestCase):
    """Class names travel through bag_targets: a GridSearchCV's refit
    predicts them (it predicted 0…C−1)."""

    def test_refit_predicts_the_names(self):
        optional("sklearn")
        pd = optional("pandas")
        from sklearn.model_selection import GridSearchCV
        rng = np.random.default_rng(4)
        y = rng.integers(0, 3, size=120)
        X = rng.normal(size=(120, 4)) + np.eye(3, 4)[y] * 2.5
        bag = np.repeat(np.arange(12), 10)
        names = ["eel", "cat", "dog"]
        counts = np.stack([np.bincount(y[bag == k], minlength=3) for k in range(12)])
        Y = llpfc.bag_targets(bag, pd.DataFrame(counts, columns=names))
        search = GridSearchCV(LLPClassifier(epochs=2, seed=1, verbose=False), {"lr": [1e-3, 1e-2]},
                              cv=llpfc.BagKFold(3, random_state=0), error_score="raise").fit(X, Y)
        self.assertEqual(list(search.best_estimator_.classes_), names)
        pred = search.predict(X)
        self.assertTrue(set(pred.tolist()) <= set(names), pred[:5])
        acc = float(np.mean(np.argmax(search.predict_proba(X), axis=1) == y))
        self.assertAlmostEqual(search.score(X, np.asarray(names)[y]), acc, places=12)


class ReadmeWordsTest(unittest.TestCase):
    """The guide "From Python" (docs/python.md) and the client say the same
    thing in the same words."""

    def test_same_words(self):
        with open(os.path.join(ROOT, "docs", "python.md"), encoding="utf-8") as f:
            section = " ".join(f.read().split())
        X = np.zeros((4, 2))
        said = {}
        for key, call in (("a name given twice", lambda: LLPClassifier(verbose=False).fit(
                              optional("pandas").DataFrame(X, columns=["a", "a"]), [0, 0, 1, 1], np.full((2, 2), 0.5))),
                          ("beyond 2^53", lambda: llpfc.bag_targets(np.array([2.0 ** 60, 1.0]), np.full((2, 2), 0.5)))):
            with self.assertRaises(ValueError) as cm:
                call()
            said[key] = str(cm.exception)
        for phrase, msg in said.items():
            self.assertIn(phrase, msg)
            self.assertIn(phrase, section)
        self.assertIn("X has feature names, but LLPClassifier was fitted without feature names", section)


if __name__ == "__main__":
    unittest.main()
