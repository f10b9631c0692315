"""JSON for the Explanation: arrays, tuples, non-finite numbers and dicts of any keys, tagged to come back exactly.

Takes values of an Explanation (arrays of any dtype, ``meta`` dicts nested to any depth);
hands on JSON types (:func:`encode`) and back (:func:`decode`). ``Explanation.to_json``
and :class:`~kernelxai.explanation.Interactions` write their arrays through these.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = ["encode", "decode"]


def _number(x):
    """A float as JSON holds it: itself when finite, else "nan", "inf" or "-inf"."""
    if math.isfinite(x):
        return x
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def encode(obj) -> Any:
    """``obj`` as JSON types, tagged so that :func:`decode` gives it back exactly.

    Arrays become ``{"__ndarray__": flat list, "dtype", "shape"}`` (non-finite floats as
    "nan"/"inf"/"-inf"), tuples ``{"__tuple__": [...]}``, non-finite floats
    ``{"__float__": "nan"}``, dicts with keys that are not strings ``{"__items__": [[k, v],
    ...]}``, numpy scalars Python ones. Anything else (a model, a function) becomes
    ``{"__repr__": repr(obj)}`` and comes back as that string.

    Examples
    --------
    >>> encode({"x": np.array([1.0, np.inf]), "t": (1, "a")})
    {'x': {'__ndarray__': [1.0, 'inf'], 'dtype': '<f8', 'shape': [2]}, 't': {'__tuple__': [1, 'a']}}
    >>> decode(encode({"x": np.array([1.0, np.inf]), "t": (1, "a")}))
    {'x': array([ 1., inf]), 't': (1, 'a')}
    """
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, np.ndarray):
        return _encode_array(obj)
    if isinstance(obj, np.generic):
        return encode(obj.item())
    if isinstance(obj, numbers.Real):
        return _encode_number(obj)
    if isinstance(obj, dict):
        if all(isinstance(k, str) and not k.startswith("__") for k in obj):
            return {k: encode(v) for k, v in obj.items()}
        return {"__items__": [[encode(k), encode(v)] for k, v in obj.items()]}
    if isinstance(obj, list):
        return [encode(v) for v in obj]
    if isinstance(obj, tuple):
        return {"__tuple__": [encode(v) for v in obj]}
    return {"__repr__": repr(obj)}


def _encode_number(x):
    """An int as itself, a float as itself when finite, else ``{"__float__": "nan"}`` (or "inf", "-inf")."""
    if isinstance(x, numbers.Integral):
        return int(x)
    x = float(x)
    return x if math.isfinite(x) else {"__float__": _number(x)}


def _encode_array(arr):
    """``{"__ndarray__": flat list, "dtype", "shape"}``; objects element by element (dtype "object")."""
    flat = arr.ravel().tolist()
    kind = arr.dtype.kind
    if kind == "f":
        data = [_number(x) for x in flat]
    elif kind in "biuU":
        data = flat
    else:
        return {"__ndarray__": [encode(x) for x in flat], "dtype": "object", "shape": list(arr.shape)}
    return {"__ndarray__": data, "dtype": arr.dtype.str, "shape": list(arr.shape)}


def decode(obj) -> Any:
    """The object :func:`encode` made JSON of."""
    if isinstance(obj, list):
        return [decode(v) for v in obj]
    if not isinstance(obj, dict):
        return obj
    if "__ndarray__" in obj:
        data, dtype = obj["__ndarray__"], obj["dtype"]
        if dtype == "object":
            arr = np.empty(len(data), dtype=object)
            arr[:] = [decode(v) for v in data]
        else:
            arr = np.array(data, dtype=object).astype(np.dtype(dtype)) if data else np.zeros(0, np.dtype(dtype))
        return arr.reshape(obj["shape"])
    if "__tuple__" in obj:
        return tuple(decode(v) for v in obj["__tuple__"])
    if "__float__" in obj:
        return float(obj["__float__"])
    if "__items__" in obj:
        return {decode(k): decode(v) for k, v in obj["__items__"]}
    if "__repr__" in obj:
        return obj["__repr__"]
    return {k: decode(v) for k, v in obj.items()}
