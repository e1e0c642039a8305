"""LLPClassifier: llpfc's methods as an estimator of llp-learn's and
scikit-learn's shape, over the Go binary.

fit writes the bag-only data to a temporary ``.npz`` (docs/own-data.md, "Your own
data"), runs ``llpfc train --data bags:FILE --save-model …`` and keeps the
model — its PyTorch-loadable ``.npz`` state dict and its ``.json`` manifest —
in ``model_dir`` (a private temporary folder, removed with the estimator,
unless given). predict_proba runs ``llpfc predict`` on the model. Nothing of
the binary's state is pickled: the model files are the model, and a pickle of
an estimator whose model lives in its temporary folder holds those files.
"""

import atexit
import glob
import inspect
import os
import shutil
import signal
import tempfile
import threading
import warnings
import weakref

import numpy as np

from . import _binary, _labels
from ._methods import method_names
from ._sklearn import NotFittedError, _some, bag_loss, is_bag_targets, proportion_loss_scorer

__all__ = ["LLPClassifier"]

_TMP_PREFIX = "llpfc-py-"

# _MODEL_FILES are the files of a saved model (llpfc train --save-model
# STEM): its PyTorch-loadable state dict and its manifest.
_MODEL_FILES = (".npz", ".json")


def _flag(name):
    return "--" + name.replace("_", "-")


def _flag_args(flags):
    """Keyword flags as command-line flags: lr=1e-3 → --lr 0.001, a True
    bool → --name, a False one → --name=false; None is left out."""
    out = []
    for k in sorted(flags):
        v = flags[k]
        if v is None:
            continue
        if isinstance(v, bool):
            out.append(_flag(k) if v else _flag(k) + "=false")
        elif isinstance(v, (list, tuple)):
            out += [_flag(k), ",".join(str(x) for x in v)]
        else:
            out += [_flag(k), repr(v) if isinstance(v, float) else str(v)]
    return out


def _sweep_stale():
    """Removes the temporary folders of llpfc-py processes that no longer
    exist (a Python killed with SIGKILL cannot clean up after itself)."""
    for d in glob.glob(os.path.join(tempfile.gettempdir(), _TMP_PREFIX + "*")):
        try:
            pid = int(os.path.basename(d)[len(_TMP_PREFIX):].split("-")[0])
        except ValueError:
            continue
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(d, ignore_errors=True)
        except PermissionError:
            pass


def _tempdir(what):
    return tempfile.mkdtemp(prefix="%s%d-%s-" % (_TMP_PREFIX, os.getpid(), what))


class _TermAsInterrupt:
    """While fitting in the main thread, SIGTERM raises KeyboardInterrupt, so
    that the binary is stopped and the temporary files removed as for an
    interrupt; the previous handler is restored after."""

    def __enter__(self):
        self.old = None
        if threading.current_thread() is threading.main_thread():
            def handler(signum, frame):
                raise KeyboardInterrupt("SIGTERM")
            self.old = signal.signal(signal.SIGTERM, handler)
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            signal.signal(signal.SIGTERM, self.old)
        return False


def _array(x, name):
    if x is None:
        return None
    if hasattr(x, "to_numpy"):  # pandas
        x = x.to_numpy()
    a = np.asarray(x)
    if a.dtype == object:
        raise ValueError("%s: an array of Python objects (dtype object); want numbers" % name)
    return a


class LLPClassifier:
    """A classifier trained from label proportions by llpfc.

    Parameters mirror ``llpfc train``'s flags: ``method`` (``llpfc-uniform``,
    ``llpfc-approx``, ``llpfc-ideal``, ``kl``, ``llpvat``, …), ``model``
    (``mlp``, ``cnn``, ``wrn-16-4``, …), ``epochs``, ``seed``, ``device``
    (``cpu`` or ``opencl[:P:D]``), ``binary`` (the llpfc executable; see
    :func:`llpfc.find_binary`), ``model_dir`` (where fitted models are kept;
    default a temporary folder removed with the estimator), ``verbose``
    (stream the binary's progress to ``sys.stderr``), and any other flag of
    ``llpfc train`` as a keyword (``lr=1e-3``, ``batch_size=64``,
    ``val_bags=0.1``, ``select="best-val"``; underscores become dashes).

    After fit: ``result_`` (the JSON object ``llpfc train --json`` prints),
    ``classes_`` (the names of the proportions' columns: a DataFrame's, or
    bag_targets', else 0…C−1; every label given — ``y_test``, ``score``'s
    ``y`` — is read as one of them), ``n_features_in_``
    and ``model_path_`` (the model's stem: ``model_path_ + ".npz"`` is its
    PyTorch state dict, ``+ ".json"`` its manifest).
    """

    _estimator_type = "classifier"  # scikit-learn's is_classifier

    def __init__(self, method="llpfc-uniform", model="mlp", epochs=10, seed=1, device="cpu",
                 binary=None, model_dir=None, verbose=True, **flags):
        self.method = method
        self.model = model
        self.epochs = epochs
        self.seed = seed
        self.device = device
        self.binary = binary
        self.model_dir = model_dir
        self.verbose = verbose
        self._flags = dict(flags)

    # scikit-learn's protocol (sklearn.base.clone, GridSearchCV): the
    # parameters are the named ones and every keyword flag.
    @classmethod
    def _named_params(cls):
        sig = inspect.signature(cls.__init__)
        return [p.name for p in sig.parameters.values()
                if p.name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]

    def get_params(self, deep=True):
        params = {k: getattr(self, k) for k in self._named_params()}
        params.update(self._flags)
        return params

    def set_params(self, **params):
        named = set(self._named_params())
        for k, v in params.items():
            if k in named:
                setattr(self, k, v)
            else:
                self._flags[k] = v
        return self

    def __repr__(self):
        defaults = {p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values()}
        parts = ["%s=%r" % (k, v) for k, v in self.get_params().items()
                 if k not in defaults or defaults[k] is not v and defaults[k] != v]
        return "%s(%s)" % (type(self).__name__, ", ".join(parts))

    def __getstate__(self):
        # A pickled estimator keeps its parameters and, for a model in its
        # private temporary folder (removed with the estimator or at exit),
        # the model files themselves: a fitted estimator saved with pickle or
        # joblib loads in a later session, and a copy.deepcopy outlives the
        # original. A model under model_dir is the user's files: its path.
        state = self.__dict__.copy()
        state.pop("_cleanup", None)
        if self.model_dir is None and hasattr(self, "model_path_"):
            self._check_fitted()
            files = {}
            for ext in _MODEL_FILES:
                with open(self.model_path_ + ext, "rb") as f:
                    files[ext] = f.read()
            state["_model_files"] = files
        return state

    def __setstate__(self, state):
        files = state.pop("_model_files", None)
        self.__dict__.update(state)
        if files is not None:
            d = _tempdir("model")
            for ext, data in files.items():
                with open(os.path.join(d, "model" + ext), "wb") as f:
                    f.write(data)
            self.model_path_ = os.path.join(d, "model")
            self._cleanup = weakref.finalize(self, shutil.rmtree, d, True)

    def _binary(self):
        return _binary.find_binary(self.binary)

    def _model_stem(self):
        """The stem the next fit writes its model to, and the new private
        folder holding it (None under model_dir). The folder of the model
        fitted before is kept until the new fit succeeds (_keep): a fit that
        fails leaves the estimator with its earlier model, whole."""
        if self.model_dir is not None:
            os.makedirs(self.model_dir, exist_ok=True)
            return os.path.join(self.model_dir, "model"), None
        d = _tempdir("model")
        return os.path.join(d, "model"), d

    def _keep(self, folder):
        """Makes folder (a new fit's private folder) the estimator's, removing
        the one of the model fitted before."""
        if getattr(self, "_cleanup", None) is not None:
            self._cleanup()
        self._cleanup = weakref.finalize(self, shutil.rmtree, folder, True)

    def fit(self, X, y=None, proportions=None, *, bags=None, bag_ids=None, X_test=None, y_test=None, val_bags=None):
        """Trains on bags: ``X`` (N×D features — a DataFrame's column names
        are kept as ``feature_names_in_`` — or N×H×W or N×C×H×W images) and
        the bags with their label proportions, given in any of the forms
        scikit-learn's tools pass:

        - ``fit(X, bags, proportions)``, llp-learn's order;
        - ``fit(X, bags=…, proportions=…)`` (``y=None``: a Pipeline's
          ``llpclassifier__bags=…`` fit parameters);
        - ``fit(X, llpfc.bag_targets(bags, proportions))``: one row per
          instance, which every tool slices with ``X``.

        ``bags`` is the bag id of each instance; ``proportions`` a row per bag
        (K×C, row k is bag k, or bag ``bag_ids[k]``; proportions or label
        counts; a DataFrame's columns name the classes) or a row per instance
        (N×C, its bag's row). ``X_test``/``y_test``, when given, are the
        labelled test split the binary scores (``result_["test_accuracy"]``);
        ``val_bags`` holds bags out (a fraction or a number). Every check of
        the data is the binary's: bad input raises ValueError in its words,
        said in Python's terms (argument names, no temporary paths)."""
        known = method_names(self.binary)
        if self.method not in known:
            raise ValueError("method=%r: unknown; the llpfc binary has %s (llpfc.methods() describes them)"
                             % (self.method, ", ".join(known)))
        Xa, names = _features(X, "X")
        bags, P, bag_ids, classes = self._llp_data(y, bags, proportions, bag_ids, len(Xa))
        arrays = {"X": Xa, "bag": bags, "proportions": P}
        if bag_ids is not None:
            arrays["bag_ids"] = bag_ids
        if (X_test is None) != (y_test is None):
            raise ValueError("X_test and y_test go together: give both or neither")
        if X_test is not None:
            # y_test's labels are the classes' names, read as score reads y
            # (they were handed over as column positions: with the classes'
            # columns in another order, test_accuracy was another model's).
            arrays["test_X"] = _features(X_test, "X_test")[0]
            arrays["test_y"] = _labels.class_index(classes, y_test, "y_test")
        flags = dict(self._flags)
        if val_bags is not None:
            flags["val_bags"] = val_bags
        _sweep_stale()
        work = _tempdir("fit")
        stem, folder = self._model_stem()
        data = os.path.join(work, "data.npz")
        try:
            with _TermAsInterrupt():
                np.savez(data, **arrays)
                args = ["train", "--data", "bags:" + data, "--method", self.method, "--model", self.model,
                        "--epochs", self.epochs, "--seed", self.seed, "--device", self.device,
                        "--save-model", stem, "--json"] + _flag_args(flags)
                out = self._call(args, {data: "the arrays given to fit"}, stem)
        except BaseException:
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
            raise
        finally:
            shutil.rmtree(work, ignore_errors=True)
        if folder is not None:
            self._keep(folder)
        self.result_ = _binary.last_json_line(out)
        self.model_path_ = stem
        self.classes_ = classes
        self.n_features_in_ = int(np.prod(Xa.shape[1:]))
        self._x_shape_ = tuple(Xa.shape[1:])
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    @staticmethod
    def _llp_data(y, bags, proportions, bag_ids, n):
        """The bag of each instance, the proportions as rows per bag, the
        rows' bag ids (or None: row k is bag k) and the classes, from fit's
        arguments in any of their forms. Bag ids are kept exactly (strings
        become the codes 0…K−1 the binary reads, in their sorted order);
        proportions or counts go to the binary, which divides counts by
        their bag's size as every score here does (llpfc._labels)."""
        if is_bag_targets(y) and bags is None and proportions is None:
            bags, P, classes = _labels.unpack(y)
            ids, P = _labels.per_bag(bags, P, "y")
            if classes is None:
                classes = np.arange(P.shape[1])
            bags, ids = _codes(bags, ids)
            return bags, P, ids, classes
        if y is not None and bags is None and proportions is not None:
            bags = y  # fit(X, bags, proportions): llp-learn's order
        elif y is not None:
            raise ValueError("y: LLPClassifier learns from bags and their label proportions, not from labels: "
                             "pass bags= and proportions=, or y=llpfc.bag_targets(bags, proportions)")
        if bags is None or proportions is None:
            raise ValueError("fit: want the bags and their proportions: fit(X, bags, proportions), "
                             "fit(X, bags=…, proportions=…) or fit(X, llpfc.bag_targets(bags, proportions))")
        P = _array(proportions, "proportions")
        classes = _labels.class_names(proportions, P.shape[1] if P.ndim == 2 else 0)
        bags = _labels.bag_ids(bags, "bags")
        if bag_ids is not None:
            bag_ids = _labels.bag_ids(bag_ids, "bag_ids")
            _labels.same_kind(bags, bag_ids, "bags", "bag_ids")
        if P.ndim == 2 and bag_ids is None and P.shape[0] == len(bags) != len(np.unique(bags)):
            bag_ids, P = _labels.per_bag(bags, P)  # a row per instance
        elif P.ndim == 2 and len(bags) == n:  # other shapes: the binary's words
            _absent_bags(bags, P, bag_ids)
        if bags.dtype.kind == "U":
            if bag_ids is None:
                raise ValueError("bags: string bag ids need the ids of the rows of proportions: pass bag_ids=, "
                                 "a row per instance (proportions=P[bags]), or y=llpfc.bag_targets(bags, P, bag_ids)")
            bags, bag_ids = _codes(bags, bag_ids)
        return bags, P, bag_ids, classes
    def _call(self, args, data, stem=None):
        """Runs the binary; its errors are raised in Python's terms."""
        try:
            return _binary.call(self._binary(), args, echo=self.verbose)
        except _binary.LLPFCError as e:
            e.args = (_python_terms(e.message or str(e), data, stem),)
            raise

    def _check_fitted(self):
        if not hasattr(self, "model_path_"):
            raise NotFittedError("This LLPClassifier instance is not fitted yet: call fit(X, bags, proportions) first")
        if not os.path.exists(self.model_path_ + ".npz"):
            raise FileNotFoundError("the fitted model is gone: its files %s.npz and .json were removed" % self.model_path_)

    def _inputs(self, X):
        """X as the array the model was fitted on: a DataFrame's columns
        matched to feature_names_in_ by name (in any order; a name missing,
        extra or given twice is refused), a plain array's width checked.
        Features by name and by position do not mix without a word: a
        DataFrame given to a model fitted on an array, or an array to one
        fitted on a DataFrame, is taken by position with scikit-learn's
        warning (a DataFrame of reordered columns was taken by position
        silently)."""
        names = getattr(self, "feature_names_in_", None)
        given = _features(X, "X")[1]
        if given is not None and names is None:
            warnings.warn("X has feature names, but %s was fitted without feature names: its columns are taken by position"
                          % type(self).__name__, UserWarning, stacklevel=3)
        elif given is None and names is not None and hasattr(X, "shape") and not hasattr(X, "columns"):
            warnings.warn("X does not have valid feature names, but %s was fitted with feature names: its columns are taken by position"
                          % type(self).__name__, UserWarning, stacklevel=3)
        if hasattr(X, "columns") and names is not None:
            cols = [str(c) for c in X.columns]
            missing = [n for n in names if n not in cols]
            extra = [c for c in cols if c not in set(names)]
            if missing or extra:
                said = []
                if missing:
                    said.append("missing %s" % _some(missing))
                if extra:
                    said.append("not fitted on %s" % _some(extra))
                raise ValueError("X: its columns are not those fit saw (feature_names_in_): %s" % "; ".join(said))
            by_name = {str(c): c for c in X.columns}
            X = X[[by_name[n] for n in names]]  # reordered as fit saw them
        a = _features(X, "X")[0]
        if tuple(a.shape[1:]) != tuple(getattr(self, "_x_shape_", a.shape[1:])):
            raise ValueError("X: instances of shape %s (%d features), but the model was fitted on %s (%d features)"
                             % (tuple(a.shape[1:]), int(np.prod(a.shape[1:])), self._x_shape_, self.n_features_in_))
        return a

    def predict_proba(self, X):
        """The N×C class probabilities of ``X`` (``llpfc predict``: the
        network in evaluation mode, inputs normalized with the constants of
        its training split, kept in the manifest)."""
        self._check_fitted()
        a = self._inputs(X)
        work = _tempdir("predict")
        try:
            with _TermAsInterrupt():
                data, out = os.path.join(work, "x.npz"), os.path.join(work, "p.npy")
                np.savez(data, X=a)
                self._call(["predict", "--model", self.model_path_, "--data", "npz:" + data,
                            "--split", "train", "--device", self.device, "--out", out], {data: "the X given to predict"})
                return np.load(out)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def predict(self, X):
        """The most probable class of each instance of ``X`` (of ``classes_``)."""
        p = self.predict_proba(X)
        return self.classes_[np.argmax(p, axis=1)]

    def score(self, X, y, sample_weight=None):
        """With labels ``y``: the accuracy of predict(X) (scikit-learn's
        ClassifierMixin.score), the labels compared as the model's classes
        (``"1"``, ``1`` and ``1.0`` are class 1; a label that is no class is
        an error naming it). With ``y`` made by :func:`llpfc.bag_targets`: the
        label-free score of those bags, minus their mean KL(γ‖p̄)
        (:func:`llpfc.proportion_loss_scorer`), for a search over bags."""
        if is_bag_targets(y):
            return proportion_loss_scorer(self, X, y)
        self._check_fitted()
        want = _labels.class_index(self.classes_, y, "y")
        got = np.argmax(self.predict_proba(X), axis=1)
        return float(np.average(got == want, weights=sample_weight))

    def bag_loss(self, X, bags, proportions, bag_ids=None):
        """The mean over the bags of KL(γ‖p̄): lower is better (see score)."""
        return bag_loss(self, X, bags, proportions, bag_ids)


def _features(X, what):
    """X as an array, and its column names when it is a DataFrame whose
    every column is named by a string (scikit-learn's rule), else None. A
    name given to two columns is refused: which one a name means would be
    ambiguous at predict."""
    names = None
    if hasattr(X, "columns"):
        cols = list(X.columns)
        seen = {}
        for j, c in enumerate(cols):
            if c in seen:
                raise ValueError("%s: columns %d and %d are both named %r (a name given twice): a feature is found by its name; give each column its own"
                                 % (what, seen[c], j, c))
            seen[c] = j
        if cols and all(isinstance(c, str) for c in cols):
            names = cols
    return _array(X, what), names


def _codes(bags, ids):
    """String bag ids as the int64 codes the binary reads (their positions
    among the sorted ids of the rows); integer ids as they are."""
    if bags.dtype.kind != "U":
        return bags, ids
    order = np.unique(ids)
    return np.searchsorted(order, bags).astype(np.int64), np.searchsorted(order, ids).astype(np.int64)


def _absent_bags(bags, P, bag_ids):
    """Refuses rows of proportions for bags no instance of X belongs to,
    saying how to pass a cross-validation fold's bags."""
    keys = np.arange(P.shape[0]) if bag_ids is None else np.asarray(bag_ids)
    absent = sorted(set(keys.tolist()) - set(np.asarray(bags).tolist()))
    missing = sorted(set(np.asarray(bags).tolist()) - set(keys.tolist()))
    if missing and bags.dtype.kind == "U":  # the binary sees codes: named here
        raise ValueError("bags: bag ids %s have no row of proportions (%d rows, ids from bag_ids): give every bag its row"
                         % (_some(missing), P.shape[0]))
    if absent:
        raise ValueError("proportions: rows for %d bags that no instance of X belongs to (%s); if X is a fold of a "
                         "cross-validation, pass the proportions per instance (proportions=P[bags], or "
                         "y=llpfc.bag_targets(bags, P)), which scikit-learn slices with X" % (len(absent), _some(absent)))


# _ARRAY_ARGS are fit's arguments by the array the binary reads them as.
_ARRAY_ARGS = {"X": "X", "x": "X", "bag": "bags", "bags": "bags", "proportions": "proportions",
               "bag_ids": "bag_ids", "test_X": "X_test", "test_y": "y_test"}


def _python_terms(msg, data, stem=None):
    """The binary's message in Python's terms: the temporary files it was
    handed (data: path → what it holds, in words) named as the arguments
    they hold (fit's X, bags, proportions…),
    flags as the estimator's parameters, the advice to add @normalize as
    what to do to the array, and no prefix "llpfc COMMAND: "."""
    import re
    msg = re.sub(r"^llpfc [a-z]+: ", "", msg.strip())
    for path, said in data.items():
        msg = re.sub(r"(?:--data )?(?:bags:|npz:)?" + re.escape(path) + r'(?:@normalize)?, array "?(\w+)"?',
                     lambda m: _ARRAY_ARGS.get(m.group(1), m.group(1)), msg)
        msg = re.sub(r'array "?(\w+)"?', lambda m: _ARRAY_ARGS.get(m.group(1), m.group(1)), msg)
        msg = re.sub(r"(?:--data )?(?:bags:|npz:)?" + re.escape(path) + r"(?:@normalize)?", said, msg)
    if stem:
        msg = msg.replace("--save-model " + stem, "the model").replace(stem, "the model")
    msg = msg.replace("add @normalize to the data set's name to rescale every row",
                      "divide each row by its sum to rescale it (proportions / proportions.sum(axis=1, keepdims=True))")
    msg = msg.replace("add @normalize to read the row as relative frequencies",
                      "divide each row by its sum to read it as relative frequencies")
    msg = re.sub(r"(?<![\w-])--([a-z][a-z0-9-]*)", lambda m: m.group(1).replace("-", "_"), msg)
    msg = re.sub(r"\bhyper\.(\w+) ", r"\1=", msg)
    msg = re.sub(r"data set (the arrays given to \w+) gives", r"\1 give", msg)
    msg = re.sub(r"spec (the spec given to run)", r"\1", msg)
    return msg


@atexit.register
def _sweep_at_exit():
    _sweep_stale()
