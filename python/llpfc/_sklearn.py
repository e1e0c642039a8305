"""scikit-learn's tools without a label in sight (issue 51).

scikit-learn's Pipeline and GridSearchCV pass ``fit(X, y, **params)`` with
``y`` second, slice every per-instance array (``y``, and fit parameters as
long as ``X``) with the fold's rows, give ``groups`` to the splitter only,
and score with ``scorer(estimator, X_test, y_test)``. LLP data are bags and a
row of proportions per bag, no label: here they travel as scikit-learn
carries per-instance data —

- :func:`bag_targets` packs them as ``y``: one row per instance, its bag id
  and its bag's proportions (an N×(1+C) array), which every tool slices
  with ``X`` and hands to the scorer;
- :class:`BagKFold` deals whole bags to folds (a bag is never cut), reading
  the bags from ``groups`` or from such a ``y``;
- :func:`proportion_loss_scorer` (and ``LLPClassifier.score`` given such a
  ``y``) scores the held-out bags without a label: minus the mean over the
  bags of KL(γ‖p̄), γ the bag's proportions and p̄ the mean of the model's
  class probabilities over its instances — the validation KL by which
  ``--val-bags`` and ``--select best-val`` choose an epoch
  (training/evaluator.go, ``bagScores``), so that a search tunes an LLP
  model on held-out bags as llp-learn's own search does.
"""

import numpy as np

try:  # scikit-learn's, so that its tools and user code catch it as theirs
    from sklearn.exceptions import NotFittedError
except ImportError:  # pragma: no cover - scikit-learn is optional
    class NotFittedError(ValueError, AttributeError):
        """The estimator is used before fit (scikit-learn's NotFittedError)."""

__all__ = ["bag_targets", "BagKFold", "proportion_loss_scorer", "bag_loss", "NotFittedError"]

# KL_FLOOR is the ε of log(p̄ + ε) in the binary's validation KL
# (training/loss.KLFloor).
KL_FLOOR = 1e-12


def bag_targets(bags, proportions, bag_ids=None):
    """The per-instance form of LLP data, for ``y``: an N×(1+C) float array
    whose row i is the bag id of instance i and then its bag's C
    proportions. ``proportions`` are K×C (row k is bag k, or bag
    ``bag_ids[k]``) or already N×C (a row per instance)."""
    bags = np.asarray(bags)
    if bags.ndim != 1:
        raise ValueError("bags: want one bag id per instance (a 1-D array), got shape %s" % (bags.shape,))
    P = np.asarray(proportions, dtype=np.float64)
    if P.ndim != 2:
        raise ValueError("proportions: want a row per bag (a 2-D array), got shape %s" % (P.shape,))
    ids = np.unique(bags)
    if P.shape[0] == len(bags) and P.shape[0] != len(ids) and bag_ids is None:
        per = P
    else:
        keys = np.arange(P.shape[0]) if bag_ids is None else np.asarray(bag_ids)
        row = {k: r for r, k in enumerate(keys.tolist())}
        missing = [b for b in ids.tolist() if b not in row]
        if missing:
            raise ValueError("bags: bag ids %s have no row of proportions (%d rows%s)"
                             % (_some(missing), P.shape[0], "" if bag_ids is None else ", ids from bag_ids"))
        per = P[[row[b] for b in bags.tolist()]]
    return np.column_stack([bags.astype(np.float64), per])


def is_bag_targets(y):
    """Whether y looks like bag_targets' output: 2-D, at least 3 columns
    (a bag id and two classes), the first column integers."""
    if y is None or hasattr(y, "dtype") and y.dtype == object:
        return False
    a = np.asarray(y)
    return a.ndim == 2 and a.shape[1] >= 3 and a.dtype.kind in "fiu" and np.all(np.mod(a[:, 0], 1) == 0)


def unpack_targets(y):
    """The bags (integers) and per-instance proportions of bag_targets' y."""
    a = np.asarray(y, dtype=np.float64)
    return a[:, 0].astype(np.int64), a[:, 1:]


def per_bag(bags, per_instance, what="proportions"):
    """The bag ids (sorted) and a row of proportions per bag from a row per
    instance; every instance of a bag must carry the same row."""
    ids, first = np.unique(bags, return_index=True)
    P = per_instance[first]
    index = np.searchsorted(ids, bags)
    differ = np.nonzero(np.any(per_instance != P[index], axis=1))[0]
    if len(differ):
        i = int(differ[0])
        raise ValueError("%s: instances %d and %d of bag %s carry different rows (%s and %s): a row per instance is its bag's proportions"
                         % (what, int(first[index[i]]), i, bags[i], P[index[i]].tolist(), per_instance[i].tolist()))
    return ids, P


def bag_loss(estimator, X, bags, proportions):
    """The mean over the bags of KL(γ‖p̄ + ε): γ a bag's proportions
    (rows per bag or per instance, as fit takes them), p̄ the mean of
    ``estimator.predict_proba`` over its instances; lower is better."""
    bags = np.asarray(bags)
    P = np.asarray(proportions, dtype=np.float64)
    if P.shape[0] == len(bags):
        ids, G = per_bag(bags, P)
    else:
        ids, G = np.unique(bags), P
        if len(ids) != P.shape[0]:
            raise ValueError("proportions: %d rows for %d bags" % (P.shape[0], len(ids)))
    probs = np.asarray(estimator.predict_proba(X), dtype=np.float64)
    index = np.searchsorted(ids, bags)
    sums = np.zeros((len(ids), probs.shape[1]))
    np.add.at(sums, index, probs)
    means = sums / np.bincount(index, minlength=len(ids))[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(G > 0, G * np.log(G / (means + KL_FLOOR)), 0.0)
    return float(np.mean(np.sum(terms, axis=1)))


def proportion_loss_scorer(estimator, X, y):
    """A label-free scorer (higher is better) for GridSearchCV(scoring=…):
    minus bag_loss of the held-out bags that ``y`` (bag_targets) carries."""
    if not is_bag_targets(y):
        raise ValueError("y: the label-free score needs the held-out bags: pass y=llpfc.bag_targets(bags, proportions) to fit and to the search")
    bags, P = unpack_targets(y)
    return -bag_loss(estimator, X, bags, P)


class BagKFold:
    """K-fold cross-validation over bags: every bag's instances go to one
    fold together (a bag is never cut), the bags dealt to the folds in turn
    after a shuffle by ``random_state``. The bags come from ``groups`` or, when
    it is not given, from a ``y`` made by :func:`bag_targets`."""

    def __init__(self, n_splits=5, shuffle=True, random_state=None):
        if int(n_splits) < 2:
            raise ValueError("n_splits: want at least 2, got %r" % (n_splits,))
        self.n_splits = int(n_splits)
        self.shuffle = shuffle
        self.random_state = random_state

    def __repr__(self):
        return "BagKFold(n_splits=%d, shuffle=%r, random_state=%r)" % (self.n_splits, self.shuffle, self.random_state)

    def get_n_splits(self, X=None, y=None, groups=None):
        return self.n_splits

    def split(self, X, y=None, groups=None):
        if groups is not None:
            bags = np.asarray(groups)
        elif is_bag_targets(y):
            bags, _ = unpack_targets(y)
        else:
            raise ValueError("BagKFold: no bags: pass groups=bags, or y=llpfc.bag_targets(bags, proportions)")
        ids = np.unique(bags)
        if len(ids) < self.n_splits:
            raise ValueError("BagKFold: %d bags cannot fill %d folds" % (len(ids), self.n_splits))
        if self.shuffle:
            ids = np.random.default_rng(self.random_state).permutation(ids)
        fold_of = {b: i % self.n_splits for i, b in enumerate(ids.tolist())}
        folds = np.array([fold_of[b] for b in bags.tolist()])
        for f in range(self.n_splits):
            yield np.nonzero(folds != f)[0], np.nonzero(folds == f)[0]


def _some(xs, n=8):
    xs = list(xs)
    s = ", ".join(str(x) for x in xs[:n])
    return s + (" … (%d in all)" % len(xs) if len(xs) > n else "")
