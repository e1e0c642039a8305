"""What the client receives, read one way at its edge.

Every label (``fit``'s ``y_test``, ``score``'s ``y``) goes through the
model's ``classes_`` by one rule (:func:`class_index`); the class names come
from the proportions' columns (a DataFrame), from :func:`llpfc.bag_targets`,
or are the columns' positions 0…C−1. Bag ids are kept exactly — int64 or
strings — or refused (:func:`bag_ids`): a float64 holds integers exactly
only up to 2^53, beyond which two bags became one. Proportions and label
counts are read by the binary's rule (``experiments/data/bagonly.go``,
``readsCounts`` and ``proportions``; :func:`proportions`) once, where they
enter, so that training and every score see the same γ.
"""

import json

import numpy as np

__all__ = ["bag_ids", "proportions", "class_index", "class_names", "pack", "unpack", "is_targets"]

# EXACT is the largest integer every smaller one of which a float64 holds
# exactly.
EXACT = 2 ** 53

# SUM_TOL is the binary's tolerance on a row of proportions summing to 1
# (experiments/data's proportionSumTol); RESCALE_TOL the tolerance below
# which a row is kept as it is (estimators.ProportionTol).
SUM_TOL = 1e-6
RESCALE_TOL = 1e-9

# CLASS_FIELD starts the name of a class's field in bag_targets' array; the
# rest is the class name in JSON.
CLASS_FIELD = "class:"

_MISSING = {"", "na", "n/a", "nan", "null", "none", "<na>", "#n/a", "nil", "missing", "?"}


def _some(xs, n=8):
    xs = list(xs)
    s = ", ".join(str(x) for x in xs[:n])
    return s + (" … (%d in all)" % len(xs) if len(xs) > n else "")


def _numpy(x):
    if hasattr(x, "to_numpy"):  # pandas
        x = x.to_numpy()
    return np.asarray(x)


def bag_ids(x, name):
    """The bag ids of x (one per instance, or per row of proportions) as an
    int64 or a str array, exactly, or a ValueError naming what cannot be:
    a float that is not a whole number or lies beyond 2^53 (where float64
    holds no longer every integer), a boolean, a missing value, ids of
    mixed kinds."""
    a = _numpy(x)
    if a.ndim != 1:
        raise ValueError("%s: want one bag id per entry (a 1-D array), got shape %s" % (name, a.shape))
    kind = a.dtype.kind
    if kind == "O":
        vals = a.tolist()
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in vals):
            return _ints(vals, name)
        if all(isinstance(v, str) for v in vals):
            return _strings(np.asarray(vals, dtype=str), name)
        if all(isinstance(v, (float, np.floating)) for v in vals):
            return bag_ids(np.asarray(vals, dtype=np.float64), name)
        kinds = sorted({type(v).__name__ for v in vals})
        raise ValueError("%s: bag ids of mixed kinds (%s): want integers or strings, one kind" % (name, ", ".join(kinds)))
    if kind == "b":
        raise ValueError("%s: booleans are not bag ids: want integers or strings" % name)
    if kind in "iu":
        if kind == "u" and len(a) and a.max() > np.iinfo(np.int64).max:
            raise ValueError("%s: bag id %d is beyond int64's range: pass the ids as strings" % (name, int(a.max())))
        return a.astype(np.int64)
    if kind == "f":
        bad = ~np.isfinite(a) | (a != np.trunc(a))
        if bad.any():
            i = int(np.nonzero(bad)[0][0])
            raise ValueError("%s: entry %d is %r, not a whole number: a bag id is an integer or a string" % (name, i, float(a[i])))
        big = np.abs(a) > EXACT
        if big.any():
            i = int(np.nonzero(big)[0][0])
            raise ValueError("%s: entry %d is %.17g, beyond 2^53, where a float64 no longer holds every integer and two bag ids may read as one: "
                             "pass the ids as int64 (or strings), not floats" % (name, i, float(a[i])))
        return a.astype(np.int64)
    if kind in "US":
        return _strings(a.astype(str), name)
    raise ValueError("%s: bag ids of dtype %s: want integers or strings" % (name, a.dtype))


def _ints(vals, name):
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    for i, v in enumerate(vals):
        if not lo <= int(v) <= hi:
            raise ValueError("%s: entry %d is %d, beyond int64's range: pass the ids as strings" % (name, i, int(v)))
    return np.asarray([int(v) for v in vals], dtype=np.int64)


def _strings(a, name):
    missing = [i for i, v in enumerate(a.tolist()) if v.strip().lower() in _MISSING]
    if missing:
        i = missing[0]
        raise ValueError("%s: entry %d is %r, a missing value (NA, None, NaN, empty, …), never a bag: drop the instance, or give it its bag" % (name, i, a[i]))
    return a


def same_kind(a, b, what_a, what_b):
    """Refuses bag ids of two kinds (integers and strings): no id of one is
    an id of the other."""
    if (a.dtype.kind == "i") != (b.dtype.kind == "i"):
        raise ValueError("%s and %s: bag ids of two kinds (%s and %s): the ids of rows and of instances must be written alike"
                         % (what_a, what_b, "integers" if a.dtype.kind == "i" else "strings", "integers" if b.dtype.kind == "i" else "strings"))


def proportions(P, sizes, name="proportions"):
    """The rows of P as label proportions, by the binary's rule: a table of
    an integer type, or of whole numbers whose rows do not all sum to 1,
    holds label counts, each row summing to its bag's size (sizes[k]) and
    divided by it; otherwise rows are proportions summing to 1 (within
    1e-6; rescaled beyond 1e-9). Entries must be finite and ≥ 0. Errors
    name the row and say what to do."""
    raw = _numpy(P)
    if raw.dtype.kind not in "iuf" or raw.ndim != 2:
        raise ValueError("%s: want a 2-D array of numbers (a row per bag), got %s of shape %s" % (name, raw.dtype, raw.shape))
    a = raw.astype(np.float64)
    bad = ~np.isfinite(a) | (a < 0)
    if bad.any():
        k, c = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError("%s: row %d, class %d: %r, want a proportion or count ≥ 0" % (name, k, c, float(a[k, c])))
    sums = a.sum(axis=1)
    whole = bool(np.all(a == np.trunc(a)))
    ones = bool(np.all(np.abs(sums - 1) <= SUM_TOL))
    counts = raw.dtype.kind in "iu" or (whole and not ones)
    out = np.empty_like(a)
    for k in range(len(a)):
        s = sums[k]
        if s == 0:
            raise ValueError("%s: row %d: every entry is 0, want proportions summing to 1 or counts summing to the bag's size" % (name, k))
        if counts:
            if sizes is not None and s != sizes[k]:
                raise ValueError("%s: row %d: counts sum to %g, but the bag has %d instances here: a row of counts sums to its bag's size "
                                 "(if a split cut the bag, split by whole bags: llpfc.BagKFold); or divide each row by its sum" % (name, k, s, sizes[k]))
            out[k] = a[k] / s
        elif abs(s - 1) > SUM_TOL:
            raise ValueError("%s: row %d: proportions sum to %.10g, want 1 (within %g): divide each row by its sum to rescale it "
                             "(proportions / proportions.sum(axis=1, keepdims=True))" % (name, k, s, SUM_TOL))
        elif abs(s - 1) > RESCALE_TOL:
            out[k] = a[k] / s
        else:
            out[k] = a[k]
    return out


def class_names(proportions_arg, n):
    """The class names: a DataFrame's columns (each once), else 0…n−1."""
    if hasattr(proportions_arg, "columns"):
        cols = [c.item() if hasattr(c, "item") else c for c in proportions_arg.columns]
        seen = {}
        for j, c in enumerate(cols):
            if c in seen:
                raise ValueError("proportions: columns %d and %d are both named %r (a name given twice): a class is one column; give each its own name" % (seen[c], j, c))
            seen[c] = j
        return np.asarray(cols)
    return np.arange(n)


def class_index(classes, y, name="y"):
    """The index in classes of each label of y: as written, as its text
    ("1" is class 1), or as the same number (1.0 is class 1); a label that
    is none of the classes is an error naming it."""
    y = _numpy(y).ravel()
    exact, text, num = {}, {}, {}
    for i, c in enumerate(np.asarray(classes).tolist()):
        exact.setdefault(c, i)
        text.setdefault(str(c), i)
        try:
            num.setdefault(float(c), i)
        except (TypeError, ValueError):
            pass
    out, unknown = np.empty(len(y), dtype=np.int64), []
    for k, label in enumerate(y.tolist()):
        i = None
        try:
            i = exact.get(label)
        except TypeError:  # unhashable
            pass
        if i is None:
            i = text.get(str(label))
        if i is None:
            try:
                i = num.get(float(label))
            except (TypeError, ValueError):
                i = None
        if i is None:
            unknown.append(label)
            i = -1
        out[k] = i
    if unknown:
        raise ValueError("%s: labels %s are not classes of the model (classes_ %s): a label is one of the classes, "
                         "the names of the proportions' columns" % (name, _some(sorted(set(map(str, unknown)))), list(np.asarray(classes).tolist())))
    return out


def _json_name(c):
    c = c.item() if hasattr(c, "item") else c
    try:
        return CLASS_FIELD + json.dumps(c)
    except TypeError:
        raise ValueError("class name %r: want a string or a number" % (c,))


def pack(bags, P, classes):
    """bag_targets' array: one record per instance, its bag id (int64 or
    str, exactly) and its bag's proportions, a field per class named by the
    class (CLASS_FIELD + JSON), so that the names and ids travel with y
    wherever scikit-learn slices it."""
    fields = [("bag", bags.dtype)] + [(_json_name(c), "<f8") for c in classes]
    if len({f for f, _ in fields}) != len(fields):
        raise ValueError("classes: %s name one class twice" % list(np.asarray(classes).tolist()))
    y = np.empty(len(bags), dtype=fields)
    y["bag"] = bags
    for j, (f, _) in enumerate(fields[1:]):
        y[f] = P[:, j]
    return y


def is_targets(y):
    """Whether y is bag_targets' array, or its former N×(1+C) float form
    (the bag id, then the proportions)."""
    if y is None:
        return False
    if isinstance(y, np.ndarray) and y.dtype.names:
        names = y.dtype.names
        return names[0] == "bag" and len(names) >= 3 and all(n.startswith(CLASS_FIELD) for n in names[1:])
    if hasattr(y, "dtype") and y.dtype == object:
        return False
    try:
        a = np.asarray(y)
    except Exception:
        return False
    return a.ndim == 2 and a.shape[1] >= 3 and a.dtype.kind in "fiu" and bool(np.all(np.mod(a[:, 0], 1) == 0))


def unpack(y, name="y"):
    """The bag ids, per-instance proportions and class names (None for the
    former float form: 0…C−1) of bag_targets' y."""
    if isinstance(y, np.ndarray) and y.dtype.names:
        fields = y.dtype.names[1:]
        classes = np.asarray([json.loads(f[len(CLASS_FIELD):]) for f in fields])
        P = np.stack([np.asarray(y[f], dtype=np.float64) for f in fields], axis=1)
        return np.asarray(y["bag"]), P, classes
    a = np.asarray(y, dtype=np.float64)
    return bag_ids(a[:, 0], name + "'s bag ids"), a[:, 1:], None


def per_instance(bags, P, ids=None, name="proportions"):
    """A row of P for each instance: P's row of its bag (row k is bag k, or
    bag ids[k]), or P itself when it already has a row per instance."""
    uniq = np.unique(bags)
    if ids is None and P.shape[0] == len(bags) and P.shape[0] != len(uniq):
        return P
    keys = np.arange(P.shape[0]) if ids is None else ids
    if ids is not None:
        same_kind(bags, keys, "bags", "bag_ids")
    row = {}
    for r, k in enumerate(keys.tolist()):
        if k in row:
            raise ValueError("%s: rows %d and %d are both bag %s: a bag has one row" % (name, row[k], r, k))
        row[k] = r
    missing = [b for b in uniq.tolist() if b not in row]
    if missing:
        raise ValueError("bags: bag ids %s have no row of %s (%d rows%s): give every bag its row"
                         % (_some(missing), name, P.shape[0], "" if ids is None else ", ids from bag_ids"))
    return P[[row[b] for b in bags.tolist()]]


def per_bag(bags, rows, what="proportions"):
    """The bag ids (sorted) and a row per bag from a row per instance; every
    instance of a bag must carry the same row."""
    ids, first = np.unique(bags, return_index=True)
    P = rows[first]
    index = np.searchsorted(ids, bags)
    differ = np.nonzero(np.any(rows != P[index], axis=1))[0]
    if len(differ):
        i = int(differ[0])
        raise ValueError("%s: instances %d and %d of bag %s carry different rows (%s and %s): a row per instance is its bag's proportions"
                         % (what, int(first[index[i]]), i, bags[i], P[index[i]].tolist(), rows[i].tolist()))
    return ids, P


def sizes_of(ids, bags):
    """The number of instances of each bag of ids in bags."""
    index = np.searchsorted(ids, bags)
    return np.bincount(index, minlength=len(ids))
