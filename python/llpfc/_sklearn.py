"""scikit-learn's tools without a label in sight.

scikit-learn's Pipeline and GridSearchCV pass ``fit(X, y, **params)`` with
``y`` second, slice every per-instance array (``y``, and fit parameters as
long as ``X``) with the fold's rows, give ``groups`` to the splitter only,
and score with ``scorer(estimator, X_test, y_test)``. LLP data are bags and a
row of proportions per bag, no label: here they travel as scikit-learn
carries per-instance data —

- :func:`bag_targets` packs them as ``y``: one record per instance, its bag
  id (exactly: int64 or a string) and its bag's proportions, a field per
  class named by the class, which every tool slices with ``X`` and hands to
  the scorer;
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

from . import _labels

try:  # scikit-learn's, so that its tools and user code catch it as theirs
    from sklearn.exceptions import NotFittedError
except ImportError:  # pragma: no cover - scikit-learn is optional
    class NotFittedError(ValueError, AttributeError):
        """The estimator is used before fit (scikit-learn's NotFittedError)."""

__all__ = ["bag_targets", "BagKFold", "proportion_loss_scorer", "bag_loss", "NotFittedError"]

# KL_FLOOR is the ε of log(p̄ + ε) in the binary's validation KL
# (training/loss.KLFloor).
KL_FLOOR = 1e-12


def bag_targets(bags, proportions, bag_ids=None, classes=None):
    """The per-instance form of LLP data, for ``y``: one record per
    instance, its bag id (int64 or a string, exactly as given) and its
    bag's proportions, a field per class named by the class — the columns
    of a DataFrame of proportions, ``classes``, or 0…C−1 — so that the
    class names travel with ``y`` through every tool that slices it (a
    GridSearchCV's refit predicts them). ``proportions`` are K×C (row k is
    bag k, or bag ``bag_ids[k]``) or already N×C (a row per instance),
    proportions or label counts; counts are divided by their bag's size
    here, once (a row of counts must sum to its bag's instances)."""
    bags = _labels.bag_ids(bags, "bags")
    raw = proportions
    P = np.asarray(raw.to_numpy() if hasattr(raw, "to_numpy") else raw)
    if P.ndim != 2:
        raise ValueError("proportions: want a row per bag (a 2-D array), got shape %s" % (P.shape,))
    ids = None if bag_ids is None else _labels.bag_ids(bag_ids, "bag_ids")
    names = _labels.class_names(raw, P.shape[1]) if classes is None else np.asarray(classes)
    if len(names) != P.shape[1]:
        raise ValueError("classes: %d names for %d columns of proportions" % (len(names), P.shape[1]))
    rows = _labels.per_instance(bags, P, ids)
    uniq, per = _labels.per_bag(bags, rows)
    gamma = _labels.proportions(per, _labels.sizes_of(uniq, bags))
    return _labels.pack(bags, gamma[np.searchsorted(uniq, bags)], names)


def is_bag_targets(y):
    """Whether y is bag_targets' output (or its former N×(1+C) float
    form: the bag id, then the proportions)."""
    return _labels.is_targets(y)


def unpack_targets(y):
    """The bags (exact ids), per-instance proportions and class names (None
    for the former float form) of bag_targets' y."""
    return _labels.unpack(y)


def per_bag(bags, per_instance, what="proportions"):
    """The bag ids (sorted) and a row of proportions per bag from a row per
    instance; every instance of a bag must carry the same row."""
    return _labels.per_bag(bags, per_instance, what)


def bag_loss(estimator, X, bags, proportions, bag_ids=None):
    """The mean over the bags of KL(γ‖p̄ + ε): γ a bag's proportions (rows
    per bag — row k is bag k, or bag ``bag_ids[k]``, as fit reads them — or
    per instance; label counts divided by the bag's size here, as fit's
    binary divides them), p̄ the mean of ``estimator.predict_proba`` over
    its instances; lower is better."""
    bags = _labels.bag_ids(bags, "bags")
    P = np.asarray(proportions.to_numpy() if hasattr(proportions, "to_numpy") else proportions)
    if P.ndim != 2:
        raise ValueError("proportions: want a row per bag (a 2-D array), got shape %s" % (P.shape,))
    ids = None if bag_ids is None else _labels.bag_ids(bag_ids, "bag_ids")
    uniq, per = _labels.per_bag(bags, _labels.per_instance(bags, P, ids))
    return _bag_kl(estimator, X, bags, uniq, _labels.proportions(per, _labels.sizes_of(uniq, bags)))


def _bag_kl(estimator, X, bags, ids, G):
    """The mean over the bags ids of KL(G‖p̄ + ε), G a row per bag."""
    probs = np.asarray(estimator.predict_proba(X), dtype=np.float64)
    if probs.shape[1] != G.shape[1]:
        raise ValueError("proportions: %d classes, but the model has %d" % (G.shape[1], probs.shape[1]))
    index = np.searchsorted(ids, bags)
    sums = np.zeros((len(ids), probs.shape[1]))
    np.add.at(sums, index, probs)
    means = sums / np.bincount(index, minlength=len(ids))[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(G > 0, G * np.log(G / (means + KL_FLOOR)), 0.0)
    return float(np.mean(np.sum(terms, axis=1)))


def proportion_loss_scorer(estimator, X, y):
    """A label-free scorer (higher is better) for GridSearchCV(scoring=…):
    minus bag_loss of the held-out bags that ``y`` (bag_targets) carries,
    their classes matched to the model's by name."""
    if not is_bag_targets(y):
        raise ValueError("y: the label-free score needs the held-out bags: pass y=llpfc.bag_targets(bags, proportions) to fit and to the search")
    bags, P, classes = _labels.unpack(y)
    ids, G = _labels.per_bag(bags, P)
    if classes is not None and hasattr(estimator, "classes_"):
        G = _in_model_order(estimator.classes_, classes, G)
    return -_bag_kl(estimator, X, bags, ids, _labels.proportions(G, None))


def _in_model_order(model_classes, classes, G):
    """G's columns (the classes of y) in the order of the model's classes_."""
    order = _labels.class_index(classes, model_classes, "the model's classes_")
    if sorted(order.tolist()) != list(range(len(classes))):
        raise ValueError("y: its classes %s are not the model's %s" % (list(classes.tolist()), list(np.asarray(model_classes).tolist())))
    return G[:, order]


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
            bags = _labels.bag_ids(groups, "groups")
        elif is_bag_targets(y):
            bags = _labels.unpack(y)[0]
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
