"""llpfc from Python: learning from label proportions by learning with label
noise (Zhang, Wang, Scott, NeurIPS 2022), with the field's other methods,
through the llpfc binary.

    >>> from llpfc import LLPClassifier
    >>> clf = LLPClassifier(method="llpfc-uniform", model="mlp", epochs=10)
    >>> clf.fit(X, bags, proportions)          # doctest: +SKIP
    >>> clf.predict(X_new)                     # doctest: +SKIP

``llpfc.run(spec, results=…)`` runs a grid and ``llpfc.report(results)``
returns its long table; ``llpfc.methods()`` lists the binary's methods. The binary is found by :func:`find_binary`. NumPy
only; scikit-learn and pandas optional.
"""

from ._binary import LLPFCError, LLPFCRuntimeError, LLPFCValueError, find_binary
from ._classifier import LLPClassifier
from ._grid import report, run
from ._methods import method_names, methods
from ._sklearn import BagKFold, NotFittedError, bag_loss, bag_targets, proportion_loss_scorer

__all__ = ["LLPClassifier", "run", "report", "methods", "method_names", "find_binary", "LLPFCError", "LLPFCValueError",
           "LLPFCRuntimeError", "BagKFold", "bag_targets", "bag_loss", "proportion_loss_scorer", "NotFittedError"]
