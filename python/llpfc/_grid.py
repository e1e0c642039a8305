"""Grids from Python: ``llpfc.run`` (``llpfc run``) and ``llpfc.report``
(``llpfc report --csv``: the long table, one row per finished cell)."""

import csv
import json
import os
import shutil

from . import _binary
from ._classifier import _python_terms, _TermAsInterrupt, _flag_args, _sweep_stale, _tempdir

__all__ = ["run", "report"]


def run(spec, results, binary=None, verbose=True, **flags):
    """Runs a grid: ``spec`` is a spec as a dict (the JSON of ``llpfc run
    --print-spec``) or the name of a built-in one (``"quick"``), ``results``
    the results store (a folder; an interrupted run resumes there). Other
    flags of ``llpfc run`` as keywords (``shard="1/4"``, ``device="opencl"``,
    ``data_dir=…``). Returns :func:`report` of the store."""
    exe = _binary.find_binary(binary)
    _sweep_stale()
    work = _tempdir("run")
    try:
        with _TermAsInterrupt():
            if isinstance(spec, dict):
                path = os.path.join(work, "spec.json")
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(spec, f, indent=1)
                spec = path
            try:
                _binary.call(exe, ["run", spec, "--results", results] + _flag_args(flags), echo=verbose)
            except _binary.LLPFCError as e:
                e.args = (_python_terms(e.message or str(e), {os.path.join(work, "spec.json"): "the spec given to run"}),)
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report(results, binary=exe, verbose=verbose)


def _value(s):
    """A cell of the long CSV as a number where it is one ('' is None)."""
    if s == "":
        return None
    for conv in (int, float):
        try:
            return conv(s)
        except ValueError:
            pass
    return s


def report(results, out=None, binary=None, verbose=False, metric=None):
    """The long table of one or more results stores (``results``: a folder
    or a list of them): one row per finished cell, the columns of ``llpfc
    report --csv``. A pandas DataFrame when pandas is installed, else a list
    of dicts. ``out`` keeps the markdown report and its plots there (default:
    written to a temporary folder and discarded)."""
    exe = _binary.find_binary(binary)
    stores = [results] if isinstance(results, (str, os.PathLike)) else list(results)
    work = _tempdir("report")
    try:
        long_csv = os.path.join(work, "long.csv")
        args = ["report", "--out", out or os.path.join(work, "report"), "--csv", long_csv]
        for s in stores:
            args += ["--results", s]
        if metric:
            args += ["--metric", metric]
        _binary.call(exe, args, echo=verbose)
        with open(long_csv, newline="", encoding="utf-8") as f:
            rows = [{k: _value(v) for k, v in r.items()} for r in csv.DictReader(f)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows)
