"""The Python client in scikit-learn's contract, tested with
scikit-learn's own tools: NotFittedError, feature_names_in_ and columns
matched by name, score with the model's classes, Pipeline, and a label-free
GridSearchCV over bag-level folds. Oracles: the same fit made by hand
(bit-for-bit probabilities), the binary's own bag proportion error, a slow
loop for the bag loss, scikit-learn's fold bookkeeping.
"""

import os
import re
import shutil
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)

import llpfc  # noqa: E402
from llpfc import LLPClassifier  # noqa: E402
from test_llpfc import optional  # noqa: E402


def small(seed=2, n_bags=12, size=10, classes=3, d=5):
    """Feature vectors whose first coordinates carry the class, in bags of
    varying composition, with each bag's label proportions."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, size=n_bags * size)
    X = rng.normal(size=(len(y), d)) + np.eye(classes, d)[y] * 2.5
    bag = np.repeat(np.arange(n_bags), size)
    rng.shuffle(bag)
    P = np.stack([np.bincount(y[bag == k], minlength=classes) / size for k in range(n_bags)])
    return X, y, bag, P


def slow_bag_kl(probs, bags, P):
    """The mean over bags of Σ_c γ_c log(γ_c / (p̄_c + 1e-12)), bag by bag,
    class by class (training/evaluator.go's bagScores, as written there)."""
    total = 0.0
    ids = sorted(set(bags.tolist()))
    for k in ids:
        rows = [i for i in range(len(bags)) if bags[i] == k]
        for c in range(P.shape[1]):
            mean = sum(float(probs[i][c]) for i in rows) / len(rows)
            g = float(P[k][c])
            if g > 0:
                total += g * np.log(g / (mean + 1e-12))
    return total / len(ids)


class NotFittedTest(unittest.TestCase):
    def test_scikit_learns_not_fitted_error(self):
        optional("sklearn")
        from sklearn.exceptions import NotFittedError
        X = np.zeros((4, 2))
        for call in (lambda c: c.predict(X), lambda c: c.predict_proba(X), lambda c: c.score(X, [0, 1, 0, 1])):
            with self.assertRaises(NotFittedError) as cm:
                call(LLPClassifier())
            self.assertIn("not fitted", str(cm.exception))
        self.assertIs(llpfc.NotFittedError, NotFittedError)


class FittedTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.X, cls.y, cls.bag, cls.P = small()

    def fit(self, *args, **kw):
        return LLPClassifier(epochs=3, seed=1, verbose=False).fit(*args, **kw)


class FeatureNamesTest(FittedTest):
    def test_columns_by_name(self):
        pd = optional("pandas")
        names = ["a", "b", "c", "d", "e"]
        clf = self.fit(pd.DataFrame(self.X, columns=names), self.bag, self.P)
        self.assertEqual(list(clf.feature_names_in_), names)
        self.assertEqual(clf.n_features_in_, 5)
        want = clf.predict_proba(self.X)  # a plain array of the right width
        order = [3, 0, 4, 1, 2]
        got = clf.predict_proba(pd.DataFrame(self.X[:, order], columns=[names[j] for j in order]))
        np.testing.assert_array_equal(got, want)  # reordered by name, bit for bit
        with self.assertRaises(ValueError) as cm:
            clf.predict(pd.DataFrame(self.X[:, :4], columns=["a", "b", "c", "z"]))
        self.assertIn("missing d, e", str(cm.exception))
        self.assertIn("not fitted on z", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            clf.predict(pd.DataFrame(np.c_[self.X, self.X[:, :1]], columns=names + ["f"]))
        self.assertIn("not fitted on f", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            clf.predict_proba(self.X[:, :4])
        self.assertIn("4 features", str(cm.exception))
        self.assertIn("fitted on (5,)", str(cm.exception))

    def test_no_names_from_an_array(self):
        clf = self.fit(self.X, self.bag, self.P)
        self.assertFalse(hasattr(clf, "feature_names_in_"))


class ScoreTest(FittedTest):
    def test_labels_compared_as_the_models_classes(self):
        clf = self.fit(self.X, self.bag, self.P)
        acc = float(np.mean(np.argmax(clf.predict_proba(self.X), axis=1) == self.y))
        self.assertGreater(acc, 0.5)
        self.assertEqual(clf.score(self.X, self.y), acc)
        self.assertEqual(clf.score(self.X, self.y.astype(str)), acc)  # "1" is class 1
        self.assertEqual(clf.score(self.X, self.y.astype(float)), acc)  # 1.0 too
        with self.assertRaises(ValueError) as cm:
            clf.score(self.X, np.where(self.y == 0, "cat", self.y.astype(str)))
        self.assertIn("labels cat are not classes of the model", str(cm.exception))

    def test_string_classes_from_the_proportions_columns(self):
        pd = optional("pandas")
        names = np.array(["cat", "dog", "eel"])
        clf = self.fit(self.X, self.bag, pd.DataFrame(self.P, columns=list(names)))
        np.testing.assert_array_equal(clf.classes_, names)
        probs = clf.predict_proba(self.X)
        np.testing.assert_array_equal(clf.predict(self.X), names[np.argmax(probs, axis=1)])
        acc = float(np.mean(np.argmax(probs, axis=1) == self.y))
        self.assertEqual(clf.score(self.X, names[self.y]), acc)  # was 0.0: strings against 0…C−1

    def test_labels_are_not_bags(self):
        with self.assertRaises(ValueError) as cm:
            self.fit(self.X, self.y)
        self.assertIn("not from labels", str(cm.exception))


class FormsTest(FittedTest):
    """Every form of bags and proportions fit takes gives the same model."""

    def test_every_form_the_same_model(self):
        want = self.fit(self.X, self.bag, self.P).predict_proba(self.X)
        for args, kw in (((), {"bags": self.bag, "proportions": self.P}),
                         ((), {"bags": self.bag, "proportions": self.P[self.bag]}),  # a row per instance
                         ((llpfc.bag_targets(self.bag, self.P),), {})):
            np.testing.assert_array_equal(self.fit(self.X, *args, **kw).predict_proba(self.X), want)

    def test_a_row_per_instance_must_be_its_bags(self):
        Pi = self.P[self.bag].copy()
        Pi[np.nonzero(self.bag == 4)[0][1]] = [1, 0, 0]
        with self.assertRaises(ValueError) as cm:
            self.fit(self.X, bags=self.bag, proportions=Pi)
        self.assertIn("of bag 4 carry different rows", str(cm.exception))

    def test_a_fold_with_the_bags_proportions_says_what_to_pass(self):
        keep = self.bag < 6
        with self.assertRaises(ValueError) as cm:
            self.fit(self.X[keep], bags=self.bag[keep], proportions=self.P)
        self.assertIn("rows for 6 bags that no instance of X belongs to", str(cm.exception))
        self.assertIn("proportions=P[bags]", str(cm.exception))


class BagLossTest(FittedTest):
    def test_the_binarys_aggregation_and_a_slow_loop(self):
        clf = self.fit(self.X, self.bag, self.P)
        probs = clf.predict_proba(self.X).astype(np.float64)
        # The binary's training-bag proportion error, from the same means.
        err = np.mean([np.abs(probs[self.bag == k].mean(axis=0) - self.P[k]).sum() for k in range(len(self.P))])
        self.assertAlmostEqual(err, clf.result_["bag_proportion_error"], places=5)
        self.assertAlmostEqual(clf.bag_loss(self.X, self.bag, self.P), slow_bag_kl(probs, self.bag, self.P), places=10)
        Y = llpfc.bag_targets(self.bag, self.P)
        self.assertEqual(clf.score(self.X, Y), -clf.bag_loss(self.X, self.bag, self.P))
        self.assertEqual(llpfc.proportion_loss_scorer(clf, self.X, Y), clf.score(self.X, Y))


class BagKFoldTest(unittest.TestCase):
    def test_never_cuts_a_bag(self):
        for seed in range(20):
            rng = np.random.default_rng(seed)
            bag = rng.integers(0, 3 + seed, size=50)
            k = 2 + seed % 3
            if len(np.unique(bag)) < k:
                continue
            seen = np.zeros(len(bag), dtype=int)
            cv = llpfc.BagKFold(k, random_state=seed)
            self.assertEqual(cv.get_n_splits(), k)
            for train, test in cv.split(np.zeros((50, 1)), groups=bag):
                self.assertFalse(set(bag[train]) & set(bag[test]), "a bag cut by the fold")
                self.assertEqual(len(train) + len(test), 50)
                self.assertTrue(len(test) > 0)
                seen[test] += 1
            np.testing.assert_array_equal(seen, 1)  # each instance held out once

    def test_bags_from_y(self):
        X, _, bag, P = small()
        a = list(llpfc.BagKFold(3, random_state=1).split(X, groups=bag))
        b = list(llpfc.BagKFold(3, random_state=1).split(X, llpfc.bag_targets(bag, P)))
        for (t1, v1), (t2, v2) in zip(a, b):
            np.testing.assert_array_equal(t1, t2)
            np.testing.assert_array_equal(v1, v2)
        with self.assertRaises(ValueError):
            next(llpfc.BagKFold(3).split(X))


class PipelineTest(FittedTest):
    def test_pipeline_with_fit_parameters(self):
        optional("sklearn")
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
        pipe = make_pipeline(StandardScaler(), LLPClassifier(epochs=3, seed=1, verbose=False))
        pipe.fit(self.X, llpclassifier__bags=self.bag, llpclassifier__proportions=self.P)  # was TypeError
        Z = StandardScaler().fit_transform(self.X)
        by_hand = self.fit(Z, self.bag, self.P)
        np.testing.assert_array_equal(pipe.predict_proba(self.X), by_hand.predict_proba(Z))
        self.assertEqual(pipe.score(self.X, self.y), by_hand.score(Z, self.y))
        pipe.fit(self.X, llpfc.bag_targets(self.bag, self.P))  # y as a Pipeline passes it
        np.testing.assert_array_equal(pipe.predict_proba(self.X), by_hand.predict_proba(Z))


class GridSearchTest(FittedTest):
    """A label-free GridSearchCV over bag-level folds: every split's score is
    the held-out bags' −KL of a model fitted by hand on the other bags."""

    def test_label_free_search(self):
        optional("sklearn")
        from sklearn.base import clone
        from sklearn.model_selection import GridSearchCV, GroupKFold
        Y = llpfc.bag_targets(self.bag, self.P)
        base = LLPClassifier(epochs=3, seed=1, verbose=False)
        grid = {"lr": [1e-3, 3e-2]}
        cv = llpfc.BagKFold(3, random_state=0)
        search = GridSearchCV(base, grid, cv=cv, error_score="raise").fit(self.X, Y)
        folds = list(cv.split(self.X, Y))
        for i, lr in enumerate(grid["lr"]):
            for f, (train, test) in enumerate(folds):
                clf = clone(base).set_params(lr=lr).fit(self.X[train], Y[train])
                want = -clf.bag_loss(self.X[test], self.bag[test], self.P[self.bag[test]])
                self.assertEqual(search.cv_results_["split%d_test_score" % f][i], want)
        best = int(np.argmax(search.cv_results_["mean_test_score"]))
        self.assertEqual(search.best_params_["lr"], grid["lr"][best])
        refit = clone(base).set_params(lr=grid["lr"][best]).fit(self.X, Y)
        np.testing.assert_array_equal(search.predict_proba(self.X), refit.predict_proba(self.X))
        # scikit-learn's own group splitter, the bags as groups and as fit parameters per instance.
        g = GridSearchCV(base, grid, cv=GroupKFold(3), scoring=llpfc.proportion_loss_scorer, error_score="raise")
        g.fit(self.X, Y, groups=self.bag)
        self.assertEqual(len(g.cv_results_["mean_test_score"]), 2)
        self.assertTrue(np.all(np.isfinite(g.cv_results_["mean_test_score"])))


class MessagesTest(FittedTest):
    """Errors in Python's terms: fit's argument names, no flag, no
    temporary path, said once."""

    def test_python_terms(self):
        cases = [
            (lambda: self.fit(self.X, bags=self.bag, proportions=self.P, val_bags=11), ["val_bags"]),
            (lambda: LLPClassifier(epochs=1, verbose=False, batch_size=-1).fit(self.X, self.bag, self.P), ["batch_size"]),
            (lambda: self.fit(self.X, self.bag, self.P * 1.5), ["proportions", "divide each row by its sum"]),
            (lambda: self.fit(self.X, self.bag[:-1], self.P), ["bags"]),
        ]
        for call, words in cases:
            with self.assertRaises(ValueError) as cm:
                call()
            msg = str(cm.exception)
            for w in words:
                self.assertIn(w, msg)
            self.assertIsNone(re.search(r"(^|\s)--[a-z]", msg), msg)
            self.assertNotIn("llpfc-py-", msg)
            self.assertNotIn("@normalize", msg)
            self.assertFalse(msg.startswith("llpfc "), msg)

    def test_a_spec_dict_named_as_such(self):
        tmp = tempfile.mkdtemp()
        try:
            spec = {"name": "t", "learner": "logreg", "model": "linear", "datasets": ["gmm:classes=3,dim=4,train=600,test=100"],
                    "methods": ["llpfc-uniform"], "bag_sizes": [8], "seeds": [0], "protocol": "paper", "num_points": 256,
                    "hyper": {"epochs": 1, "optimizer": "adam", "lr": -1, "batch_size": 32, "schedule": {"kind": "constant"}}}
            with self.assertRaises(ValueError) as cm:
                llpfc.run(spec, results=os.path.join(tmp, "r"), verbose=False)
            msg = str(cm.exception)
            self.assertTrue(msg.startswith("the spec given to run: "), msg)
            self.assertIn("hyper.lr", msg)
            self.assertNotIn("llpfc-py-", msg)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
