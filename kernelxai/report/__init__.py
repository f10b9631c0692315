"""Explain a fitted model without writing code: a standalone report, and drift checks for CI.

Takes a fitted model (or a model file: skops, or a pickle only when trusted) and a table (CSV or
Parquet, or a DataFrame); hands on one standalone HTML report (figures embedded, nothing fetched
when it is viewed), the executed report notebook and a JSON of the numbers -- from the command
line::

    python -m kernelxai.report MODEL DATA [-o report.html] [--target y] [--points 0:50]
        [--compare OTHER_MODEL | --baseline previous.json] [--tolerance 0.05] ...

or, with ``--app`` instead of ``-o``, served as a Voilà app on the same inputs; or from Python,
``kx.report(model, X, ...)`` (this module is callable: ``kx.report(...)`` is
:func:`report`). The report notebook, shipped inside this package, is run with papermill: the
model and how it was converted, the exactness certificate, global importance with intervals, a
beeswarm and dependence plots, the largest interactions, credible bands for Gaussian processes,
which reference answers which question for anomaly detectors, drift against another model or a
previous report, the cost and the versions. ``python -m kernelxai.report --help`` lists the
options and the exit statuses (0 done, 1 failed, 2 refused before running, 3 the attributions
moved beyond the tolerance).

The top stage: it may import every stage below it, and nothing in kernelxai imports it.
"""

import inspect as _inspect
import sys as _sys
import types as _types

from ._api import DEFAULT_BACKGROUND_ROWS, DEFAULT_POINTS, Report, report
from ._cli import main
from ._inputs import ReportInputs, fingerprint, load_inputs
from ._load import TRUSTED_PREFIXES, ReportInputError, load_model, load_table
from ._numbers import (
    DEFAULT_TOLERANCE,
    Drift,
    anomaly_detector,
    drift,
    efficiency_residuals,
    importance,
    is_gaussian_process,
)
from ._render import ReportFailure

__all__ = [
    # the report
    "report",
    "Report",
    "main",
    "ReportInputError",
    "ReportFailure",
    "DEFAULT_POINTS",
    "DEFAULT_BACKGROUND_ROWS",
    # loading safely
    "load_model",
    "load_table",
    "TRUSTED_PREFIXES",
    # what the report notebook computes with
    "ReportInputs",
    "load_inputs",
    "fingerprint",
    "efficiency_residuals",
    "importance",
    "drift",
    "Drift",
    "DEFAULT_TOLERANCE",
    "anomaly_detector",
    "is_gaussian_process",
]


class _CallableModule(_types.ModuleType):
    """This module, callable as :func:`report`: ``kx.report(model, X, ...)`` and ``python -m kernelxai.report``."""

    def __call__(self, *args, **kwargs):
        return report(*args, **kwargs)


__signature__ = _inspect.signature(report)
_sys.modules[__name__].__class__ = _CallableModule
