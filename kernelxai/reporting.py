"""Helpers notebooks and benchmarks use to time work and report their key numbers."""

from __future__ import annotations

import json
import math
import os
import time

import numpy as np

__all__ = ["save_results", "timed", "to_jsonable"]


def timed(fn, repeat=1):
    """Call ``fn()`` ``repeat`` times; return (its last result, the best wall time in seconds)."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    best, out = math.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return out, best


def to_jsonable(obj):
    """Convert numpy scalars/arrays (and nested containers of them) to JSON types.

    Non-finite floats become the strings "nan", "inf" and "-inf" so that the
    JSON stays standard and a test can see them.
    """
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        x = float(obj)
        if math.isfinite(x):
            return x
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return obj


def save_results(path, results, *, summary=None):
    """Write a notebook's key numbers to ``path`` as JSON and return them.

    Parameters
    ----------
    path : str or None
        Where to write (directories are created). None writes nothing.
    results : dict
        The numbers tests assert on.
    summary : str, optional
        One line shown in the table printed by ``make run``.
    """
    payload = dict(results)
    if summary is not None:
        payload["summary"] = str(summary)
    payload = to_jsonable(payload)
    if path:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as fh:
            json.dump(payload, fh, indent=2, sort_keys=True)
    return payload
