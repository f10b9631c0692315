"""Lengthscales: their check, and the median heuristic that picks them from data.

Takes a lengthscale (a number, a 1-D array, ``"median"`` or None) or a data
matrix; hands on validated lengthscales (a float, or an array with one per
feature) to the kernels (``kernelxai.kernels._product_kernels``,
``kernelxai.kernels._non_product``) and the models.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import TYPE_CHECKING

import numpy as np

from .._validation import check_matrix, check_rng

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["check_lengthscale", "median_heuristic", "as_lengthscale"]


def check_lengthscale(lengthscale, name="lengthscale") -> float | np.ndarray:
    """A validated lengthscale: a positive finite float, or a 1-D array of them (one per feature)."""
    if isinstance(lengthscale, (float, np.floating)) and 0.0 < lengthscale < math.inf:
        return float(lengthscale)   # the common case, without making an array of it
    ls = np.asarray(lengthscale, dtype=float)
    if ls.ndim > 1 or ls.size == 0:
        raise ValueError(f"{name} must be a positive number or a 1-D array of them; got shape {ls.shape}")
    if not np.all(np.isfinite(ls)) or np.any(ls <= 0):
        raise ValueError(f"{name} must be positive and finite; got {lengthscale!r}")
    return float(ls) if ls.ndim == 0 else ls


def median_heuristic(X: ArrayLike, *, pooled: bool = False, max_samples: int = 1000,
                     seed: int | np.random.Generator | None = 0) -> np.ndarray | float:
    """Lengthscales by the median heuristic.

    Parameters
    ----------
    X : array (n, d)
    pooled : bool
        False (default): one lengthscale per feature, the median of
        :math:`|x_{ij} - x_{kj}|` over pairs :math:`i < k`. True: one lengthscale, the median of
        the full-dimensional distances :math:`\\|x_i - x_k\\|`.
    max_samples : int
        Pairs are formed from at most this many rows (a random subsample).
    seed : None, int or numpy.random.Generator, default 0
        Randomness of that subsample (used only when X has more than
        ``max_samples`` rows).

    Returns
    -------
    ndarray (d,) or float

    Constant features have no spread; they get lengthscale 1 with a warning.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelxai.kernels import RBF, median_heuristic
    >>> X = np.random.default_rng(0).normal(size=(200, 2)) * [1.0, 10.0]
    >>> ls = median_heuristic(X)   # one lengthscale per feature, in the features' units
    >>> bool(5 < ls[1] / ls[0] < 20)
    True
    >>> k = RBF(lengthscale=ls)
    """
    X = check_matrix(X, "X", min_rows=2)
    rng = check_rng(seed)
    if X.shape[0] > max_samples:
        X = X[rng.choice(X.shape[0], max_samples, replace=False)]
    iu = np.triu_indices(X.shape[0], k=1)
    if pooled:
        d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)[iu]
        med = float(np.sqrt(np.median(d2)))
        if med <= 0 or not np.isfinite(med):
            warnings.warn("all points coincide; median heuristic falls back to lengthscale 1",
                          stacklevel=2)
            med = 1.0
        return med
    scales = np.empty(X.shape[1])
    for j in range(X.shape[1]):
        diffs = np.abs(X[:, j][:, None] - X[:, j][None, :])[iu]
        med = np.median(diffs)
        if med <= 0:
            # many ties (binary or discrete features): the median of the non-zero gaps
            nonzero = diffs[diffs > 0]
            med = np.median(nonzero) if len(nonzero) else 0.0
        scales[j] = med
    constant = np.flatnonzero(scales <= 0)
    if len(constant):
        warnings.warn(f"features {constant.tolist()} are constant; their lengthscale is set to 1",
                      stacklevel=2)
        scales[constant] = 1.0
    return scales


def as_lengthscale(value: str | float | ArrayLike | None, X: ArrayLike) -> float | np.ndarray:
    """``"median"`` or None -> median heuristic on X; a number or array -> validated.

    Parameters
    ----------
    value : "median", None, float or array (d,)
        The lengthscale asked for.
    X : array (n, d)
        Data for the median heuristic (per feature, see :func:`median_heuristic`);
        only read when ``value`` is ``"median"`` or None.

    Returns
    -------
    float or ndarray (d,)
        A positive lengthscale, or one per feature.

    Raises
    ------
    ValueError
        If ``value`` is none of the above (a string other than ``"median"``, a
        2-D array), or a number or array that is not positive and finite.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelxai.kernels import as_lengthscale
    >>> X = np.array([[0.0, 1.0], [2.0, 1.0], [4.0, 3.0]])
    >>> as_lengthscale("median", X), as_lengthscale(0.5, X), as_lengthscale([1, 2], X)
    (array([2., 2.]), 0.5, array([1., 2.]))
    """
    if value is None or (isinstance(value, str) and value == "median"):
        return median_heuristic(X)
    if isinstance(value, numbers.Real) or np.ndim(value) == 1:
        return check_lengthscale(value)
    raise ValueError(f"lengthscale must be 'median', a positive number or a 1-D array; got {value!r}")
