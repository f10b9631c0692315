"""Input checking shared by the whole package.

Every public entry point funnels user input through these helpers so that bad
input fails early with a message naming the argument, what was received and
what is accepted.
"""

from __future__ import annotations

import functools
import numbers
from typing import Any

import numpy as np

from ._config import get_config


def check_rng(seed) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` from ``None``, an int or a Generator."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, (numbers.Integral, np.integer)):
        return np.random.default_rng(seed)
    if isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    raise TypeError(
        f"seed must be None, an int or a numpy.random.Generator; got {type(seed).__name__}"
    )


def _holds_complex(arr):
    """True if ``arr`` is a complex array or an object array holding a complex number."""
    if arr.dtype.kind == "c":
        return True
    if arr.dtype.kind == "O":
        return any(isinstance(v, (complex, np.complexfloating)) for v in arr.flat)
    return False


def is_sparse(x) -> bool:
    """True if ``x`` is a scipy sparse matrix or array (checked without importing scipy)."""
    return type(x).__module__.startswith("scipy.sparse") and hasattr(x, "toarray")


def densify(x, name) -> Any:
    """A scipy sparse ``x`` as a dense ndarray when it is small enough, else a ValueError naming it.

    kernelxai computes with dense arrays (kernel mean embeddings, coalition
    tensors). A sparse matrix -- points, a background, or the training inputs
    of a model fitted on one -- is densified when its dense copy fits in
    ``kx.get_config()["max_memory"]`` bytes (default 256 MiB; raise it with
    ``kx.config_context(max_memory=...)``), and refused by name otherwise.
    Anything that is not sparse is returned as is.

    Raises
    ------
    ValueError
        ``x`` is sparse and its dense copy would exceed ``max_memory``.
    """
    if not is_sparse(x):
        return x
    shape = tuple(int(s) for s in x.shape)
    need, limit = 8 * int(np.prod(shape)), get_config()["max_memory"]
    if need > limit:
        raise ValueError(
            f"{name} is a scipy sparse matrix of shape {shape}; kernelxai computes with dense arrays "
            f"and its dense copy would take {need / 2**20:.0f} MiB, more than max_memory "
            f"({limit / 2**20:.0f} MiB). Explain fewer rows, pass a smaller background "
            "(e.g. kx.explainers.subsample(X_train, 100)), select features first, or raise the limit "
            "with kx.config_context(max_memory=...)")
    return x.toarray()


#: numpy's native float64 dtype (:func:`as_real_array` returns an ndarray of it as it is)
_FLOAT64 = np.dtype(np.float64)


def as_real_array(x, name) -> np.ndarray:
    """``np.asarray(x, dtype=float)`` for user input, refusing complex numbers.

    numpy casts complex to float by dropping the imaginary part (with only a
    ``ComplexWarning``); an explanation of the real part of a complex model or
    data set would be silently wrong, so complex input is an error. A scipy
    sparse matrix is densified when it is small enough (:func:`densify`).

    Parameters
    ----------
    x : array-like, DataFrame, scipy sparse matrix or scalar
    name : str
        The argument's name, used in error messages.

    Returns
    -------
    ndarray of float64 (no copy when ``x`` already is one)

    Raises
    ------
    ValueError
        If ``x`` holds complex numbers or cannot be read as numbers, or is a
        sparse matrix too large to densify.

    Examples
    --------
    >>> as_real_array([1, 2], "y")
    array([1., 2.])
    >>> as_real_array([1 + 2j], "y")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: y has complex values; kernelxai works with real numbers (pass x.real if ...
    """
    if type(x) is np.ndarray and x.dtype is _FLOAT64:   # already one: what the steps below return (#36)
        return x
    x = densify(x, name)
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric; could not convert it to float ({exc})") from None
    if _holds_complex(arr):
        raise ValueError(
            f"{name} has complex values; kernelxai works with real numbers "
            "(pass x.real if the imaginary parts are meant to be 0)"
        )
    try:
        return arr.astype(float, copy=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric; could not convert it to float ({exc})") from None


def feature_names_of(X) -> list[str] | None:
    """Column names of a pandas DataFrame (as strings), else None."""
    columns = getattr(X, "columns", None)
    if columns is None:
        return None
    return [str(c) for c in columns]


def default_feature_names(d) -> list[str]:
    """The names kernelxai gives unnamed features: ``["x0", "x1", ...]`` (a new list each call)."""
    return list(_default_names(int(d)))


@functools.lru_cache(maxsize=64)
def _default_names(d):
    return tuple(f"x{j}" for j in range(d))


def _string_columns(X):
    """Column names of a DataFrame whose columns are all strings, else None.

    As in scikit-learn, only string column names count as feature names; a
    DataFrame with integer (or mixed) column labels is treated like an array.
    """
    columns = getattr(X, "columns", None)
    if columns is None:
        return None
    columns = list(columns)
    if not columns or not all(isinstance(c, str) for c in columns):
        return None
    return columns


def feature_names_in(obj) -> list[str] | None:
    """The real feature names of a model or a data set, or None when it has none.

    Parameters
    ----------
    obj : model, DataFrame, array or None
        * a scikit-learn estimator fitted on a DataFrame: its ``feature_names_in_``;
        * a :class:`~kernelxai.models.KernelExpansion`: its ``feature_names``
          when they are real (from a DataFrame or given), not the default
          ``x0, x1, ...`` (``has_feature_names``);
        * a DataFrame whose column labels are all strings: its columns;
        * anything else (arrays, unnamed models): None.

    Returns
    -------
    list of str or None
    """
    if obj is None:
        return None
    names = getattr(obj, "feature_names_in_", None)
    if names is not None:
        return [str(c) for c in names]
    if getattr(obj, "has_feature_names", False):
        return [str(c) for c in obj.feature_names]
    return _string_columns(obj)


def check_feature_names(X, expected, name="X", *, reference="the model was fitted with", got=None,
                        reorder=None) -> None:
    """Refuse a DataFrame whose columns differ in names or order from ``expected``.

    The check scikit-learn makes on ``predict``: a DataFrame whose columns are
    reordered or renamed relative to fitting would otherwise be read
    position by position -- explained in the fitted order and labelled with
    the new names. A plain array (or a DataFrame without string column names)
    is accepted as is, and so is anything when ``expected`` is None (the model
    has no real feature names).

    Parameters
    ----------
    X : array-like or DataFrame
        The points, background or data sample being checked.
    expected : list of str or None
        The feature names, in order, that ``X`` must have
        (see :func:`feature_names_in`).
    name : str
        The argument's name, used in error messages.
    reference : str
        What ``expected`` are, completing "... than {reference}".
    got : list of str, optional
        The names ``X`` holds, when they are not its DataFrame columns (the
        ``feature_names`` of an Explanation); default: ``X``'s string columns.
    reorder : str, optional
        How to reorder, shown in the message (default ``"{name}[[...]]"``).

    Raises
    ------
    ValueError
        If ``X``'s columns hold names ``expected`` lacks or lack some of them
        (the message lists both), or hold the same names in another order
        (the message shows how to reorder).

    Examples
    --------
    >>> import pandas as pd
    >>> check_feature_names(pd.DataFrame({"b": [1.0], "a": [2.0]}), ["a", "b"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: X has the features in a different order than the model was fitted with: got ['b', 'a'], ...
    """
    if expected is None:
        return
    got = _string_columns(X) if got is None else [str(c) for c in got]
    if got is None:
        return
    expected = [str(c) for c in expected]
    if got == expected:
        return
    if sorted(got) == sorted(expected):
        how = f"{name}[{expected!r}]" if reorder is None else reorder.format(expected=expected)
        raise ValueError(
            f"{name} has the features in a different order than {reference}: got {got}, "
            f"expected {expected}. Reorder the columns, e.g. {how}"
        )
    unseen = [c for c in got if c not in expected]
    missing = [c for c in expected if c not in got]
    detail = (f"unseen features: {unseen}; missing: {missing}" if unseen or missing
              else f"got {got} (repeated names)")
    raise ValueError(f"{name} does not have the features {reference} {expected}: {detail}")


def check_columns(X, name="X", *, model=None, sample=None, sample_name="the background") -> None:
    """The check of a DataFrame's columns that every public entry point makes of ``X`` and backgrounds.

    A DataFrame whose columns are shuffled, missing or extra relative to what
    the model was fitted with -- or, when the model has no real feature names
    (or there is no model), relative to the first sample it is compared with
    -- is refused; it is never silently reordered. This is the choice
    ``kx.explain`` makes, held everywhere: ``explain_gp``, ``ShapleyPrior``,
    ``kx.explainers.summarize``, the discrepancy explainers and the functionals call
    it too, so each refuses with the same message
    (:func:`check_feature_names`).

    Parameters
    ----------
    X : array-like or DataFrame
        The points, background or sample being checked. Arrays (and
        DataFrames without string column names) are read by position and pass.
    name : str
        The argument's name, used in error messages.
    model : model, optional
        The fitted model; its real feature names (:func:`feature_names_in`:
        scikit-learn ``feature_names_in_`` or a KernelExpansion's names) are
        the reference when it has them.
    sample : DataFrame or array-like, optional
        The reference sample when the model has no names: its string columns
        (a background, or the first of two samples).
    sample_name : str
        What ``sample`` is, completing "... than {sample_name} has".

    Raises
    ------
    ValueError
        With the message of :func:`check_feature_names` ("... has the features
        in a different order than the model was fitted with ... Reorder the
        columns", or "... does not have the features ...").

    Examples
    --------
    >>> import pandas as pd
    >>> D = pd.DataFrame({"a": [1.0], "b": [2.0]})
    >>> check_columns(D[["b", "a"]], "sample", sample=D, sample_name="the reference")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: sample has the features in a different order than the reference has: ... e.g. sample[['a', 'b']]
    """
    expected = feature_names_in(model)
    if expected is not None:
        check_feature_names(X, expected, name)
    elif sample is not None:
        check_feature_names(X, _string_columns(sample), name, reference=f"{sample_name} has")


def check_matrix(X, name="X", *, n_features=None, min_rows=1, allow_1d=False) -> np.ndarray:
    """Validate a 2-D float array (pandas accepted); return ``float64`` ndarray.

    Parameters
    ----------
    X : array-like or DataFrame
    name : str
        Used in error messages.
    n_features : int, optional
        Required number of columns.
    min_rows : int
        Minimum number of rows.
    allow_1d : bool
        If True a 1-D array is read as a single row.
    """
    if X is None:
        raise ValueError(f"{name} is None; expected a 2-D array of shape (n_samples, n_features)")
    arr = as_real_array(X, name)
    if arr.ndim == 1 and allow_1d:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (n_samples, n_features); got an array of shape {arr.shape}"
        )
    if arr.shape[0] < min_rows:
        raise ValueError(f"{name} needs at least {min_rows} row(s); got {arr.shape[0]}")
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(
            f"{name} has {arr.shape[1]} features but {n_features} were expected "
            "(the number the model was built with)"
        )
    check_finite(arr, name)
    return arr


def check_finite(arr, name) -> np.ndarray:
    """Raise ValueError if ``arr`` holds NaN or inf, saying where."""
    arr = np.asarray(arr)
    if arr.dtype.kind in "fc" and not np.isfinite(arr).all():
        bad = np.argwhere(~np.isfinite(arr))
        first = tuple(int(i) for i in bad[0])
        kind = "NaN" if np.isnan(arr[first]) else "inf"
        raise ValueError(
            f"{name} contains {len(bad)} non-finite value(s) ({kind} first at index {first}); "
            "remove or impute them first"
        )
    return arr


def check_level(level) -> float:
    """Validate a confidence / credibility level in (0, 1)."""
    if not isinstance(level, numbers.Real) or not (0.0 < float(level) < 1.0):
        raise ValueError(f"level must be a number strictly between 0 and 1; got {level!r}")
    return float(level)


def check_positive_int(value, name, minimum=1) -> int:
    """Validate an integer >= minimum."""
    if type(value) is int and value >= minimum:   # the common case, without the ABC check (#36)
        return value
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {value}")
    return int(value)


def check_choice(value, name, choices) -> Any:
    """Validate that ``value`` is one of ``choices``."""
    if value not in choices:
        accepted = ", ".join(repr(c) for c in choices)
        raise ValueError(f"unknown {name} {value!r}; accepted: {accepted}")
    return value
