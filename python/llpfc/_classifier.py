"""LLPClassifier: llpfc's methods as an estimator of llp-learn's and
scikit-learn's shape, over the Go binary.

fit writes the bag-only data to a temporary ``.npz`` (README, "Your own
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
import weakref

import numpy as np

from . import _binary

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
    ``classes_`` (0…C−1, the columns of the proportions), ``n_features_in_``
    and ``model_path_`` (the model's stem: ``model_path_ + ".npz"`` is its
    PyTorch state dict, ``+ ".json"`` its manifest).
    """

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

    def fit(self, X, bags, proportions, bag_ids=None, X_test=None, y_test=None, val_bags=None):
        """Trains on bags: ``X`` (N×D features, N×H×W or N×C×H×W images),
        ``bags`` (the bag id of each instance), ``proportions`` (K×C, a row
        per bag: proportions or label counts; row k is bag k, or bag
        ``bag_ids[k]``). ``X_test``/``y_test``, when given, are the labelled
        test split the binary scores (``result_["test_accuracy"]``);
        ``val_bags`` holds bags out (a fraction or a number; llpfc's
        ``--val-bags``). Every check of the data is the binary's: bad input
        raises ValueError with its words."""
        arrays = {"X": _array(X, "X"), "bag": _array(bags, "bags"), "proportions": _array(proportions, "proportions")}
        if bag_ids is not None:
            arrays["bag_ids"] = _array(bag_ids, "bag_ids")
        if (X_test is None) != (y_test is None):
            raise ValueError("X_test and y_test go together: give both or neither")
        if X_test is not None:
            arrays["test_X"], arrays["test_y"] = _array(X_test, "X_test"), _array(y_test, "y_test")
        flags = dict(self._flags)
        if val_bags is not None:
            flags["val_bags"] = val_bags
        _sweep_stale()
        work = _tempdir("fit")
        stem, folder = self._model_stem()
        try:
            with _TermAsInterrupt():
                data = os.path.join(work, "data.npz")
                np.savez(data, **arrays)
                args = ["train", "--data", "bags:" + data, "--method", self.method, "--model", self.model,
                        "--epochs", self.epochs, "--seed", self.seed, "--device", self.device,
                        "--save-model", stem, "--json"] + _flag_args(flags)
                out = _binary.call(self._binary(), args, echo=self.verbose)
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
        self.classes_ = np.arange(arrays["proportions"].shape[1])
        self.n_features_in_ = int(np.prod(arrays["X"].shape[1:]))
        return self

    def _check_fitted(self):
        if not hasattr(self, "model_path_"):
            raise AttributeError("this LLPClassifier is not fitted yet: call fit(X, bags, proportions) first")
        if not os.path.exists(self.model_path_ + ".npz"):
            raise FileNotFoundError("the fitted model %s.npz is gone (its temporary folder was removed)" % self.model_path_)

    def predict_proba(self, X):
        """The N×C class probabilities of ``X`` (``llpfc predict``: the
        network in evaluation mode, inputs normalized with the constants of
        its training split, kept in the manifest)."""
        self._check_fitted()
        work = _tempdir("predict")
        try:
            with _TermAsInterrupt():
                data, out = os.path.join(work, "x.npz"), os.path.join(work, "p.npy")
                np.savez(data, X=_array(X, "X"))
                _binary.call(self._binary(), ["predict", "--model", self.model_path_, "--data", "npz:" + data,
                                              "--split", "train", "--device", self.device, "--out", out],
                             echo=self.verbose)
                return np.load(out)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def predict(self, X):
        """The most probable class of each instance of ``X``."""
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def score(self, X, y):
        """The accuracy of predict(X) against the labels y (scikit-learn's
        ClassifierMixin.score)."""
        y = np.asarray(y)
        return float(np.mean(self.predict(X) == y))


@atexit.register
def _sweep_at_exit():
    _sweep_stale()
