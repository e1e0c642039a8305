"""The training methods the llpfc binary knows.

The client keeps no list of its own: :func:`methods` reads the binary's
registry (``llpfc methods --json``, one descriptor per method), so
a method added to llpfc is known here without a change to this package.
"""

import json

from ._binary import call, find_binary

__all__ = ["methods", "method_names"]

_cache = {}  # binary path -> the parsed descriptors


def methods(binary=None):
    """Returns the binary's methods as a list of dicts in the tables' row
    order, each with ``name``, ``label``, ``family`` (llpfc, bag, instance,
    adversarial), ``batch_unit`` (bags or instances), ``default_batch``,
    ``settings`` (its own settings, each a dict with ``name``, ``kind``,
    ``default``, ``want``, ``help``, ``path`` in a spec and, for those
    not shared with other methods, its ``llpfc train`` ``flag``; a keyword
    of ``LLPClassifier`` by its name), ``help``, ``paper``, ``authors_preset`` (where it has one),
    ``search_lr`` (the learning rates the comparison tunes it over),
    ``backends`` and ``uses_labels``.

        >>> [m["name"] for m in llpfc.methods()][:2]   # doctest: +SKIP
        ['kl', 'llpvat']
    """
    path = find_binary(binary)
    if path not in _cache:
        _cache[path] = json.loads(call(path, ["methods", "--json"], echo=False))
    return [dict(m) for m in _cache[path]]


def method_names(binary=None):
    """The names ``LLPClassifier(method=…)`` takes, in row order."""
    return [m["name"] for m in methods(binary)]
