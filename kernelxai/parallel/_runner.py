"""The runner: ``fn(shared, X[rows])`` for chunks of rows, on threads here, worker processes or a Dask cluster.

Takes the work to run as a callable (``fn``), what every chunk shares and the slices
of rows, and hands back the results in the order of the slices. Every chunk runs on
one BLAS thread under the caller's configuration, wherever it runs, so the results
are the same to the last bit for any number of workers and any backend.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from .._config import config_context, get_config
from .._threads import single_threaded_blas
from ..estimators._common import progress_bar
from ._chunking import check_n_jobs, check_rows_per_chunk, row_chunks

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    import pandas as pd

__all__ = ["Shipped", "inside_chunk", "n_rows", "take_rows", "execution", "run_rows", "in_order"]


def _nbytes(obj, depth=0, seen=None):
    """Bytes of the numpy arrays (and pandas frames) reachable from ``obj``, a few levels deep."""
    seen = set() if seen is None else seen
    if id(obj) in seen or depth > 6:
        return 0
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes)
    if hasattr(obj, "memory_usage") and hasattr(obj, "columns"):  # a DataFrame
        try:
            return int(obj.memory_usage(deep=False).sum())
        except Exception:  # pragma: no cover - an unusual frame-like object
            return 0
    if isinstance(obj, dict):
        return sum(_nbytes(v, depth + 1, seen) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(_nbytes(v, depth + 1, seen) for v in obj)
    state = getattr(obj, "__dict__", None)
    return 0 if state is None else _nbytes(state, depth + 1, seen)


class Shipped:
    """What every chunk shares (a value function, a model, ...), shipped to workers once.

    joblib's Dask backend scatters an argument to the cluster once per call -- instead
    of sending it with every task -- when ``dask.sizeof`` says it is larger than 1 kB;
    ``dask.sizeof`` falls back to ``sys.getsizeof``, which for an ordinary object is a
    few dozen bytes however large its arrays. This wrapper reports the bytes of the
    arrays it holds (at least 2 kB), so it is scattered once and the workers share it.

    Parameters
    ----------
    value : object
        What the chunks share; kept as the attribute ``value``. Its size is the bytes of
        the numpy arrays and DataFrames reachable from it (a few levels into dicts, lists,
        tuples and attributes) plus 1 kB.

    Examples
    --------
    >>> import sys
    >>> import numpy as np
    >>> from kernelxai.parallel import Shipped
    >>> shipped = Shipped({"weights": np.zeros(1000)})
    >>> shipped.value["weights"].shape, shipped.__sizeof__()
    ((1000,), 9024)
    >>> Shipped(None).__sizeof__()  # at least 2 kB
    2048
    """

    def __init__(self, value: Any) -> None:
        self.value = value
        self._size = max(2048, _nbytes(value) + 1024)

    def __sizeof__(self):
        return self._size


_chunk_state = threading.local()


def inside_chunk() -> bool:
    """Whether this thread is running a chunk (then nested calls use no threads of their own).

    Returns
    -------
    bool
        True inside ``fn`` of :func:`run_rows` (or :func:`in_order`), False elsewhere.

    Examples
    --------
    >>> import numpy as np
    >>> def where(shared, rows):
    ...     return inside_chunk()
    >>> inside_chunk(), run_rows(where, np.zeros((2, 1)), n_jobs=1)
    (False, [True])
    """
    return getattr(_chunk_state, "depth", 0) > 0


class _Task:
    """``fn(shared, rows)`` under the caller's configuration, on one BLAS thread.

    The configuration is thread-local, so it is set again wherever the chunk runs. One
    BLAS thread everywhere makes a chunk's arithmetic the same in every process: threaded
    BLAS splits its work by thread count and can round differently (measured: GP-SHAP's
    covariances differ in the last bits between 2 BLAS threads and 1).
    """

    def __init__(self, fn, config):
        self.fn, self.config = fn, config

    def __call__(self, shipped, rows):
        _chunk_state.depth = getattr(_chunk_state, "depth", 0) + 1
        try:
            with config_context(**self.config), single_threaded_blas():
                return self.fn(shipped.value, rows)
        finally:
            _chunk_state.depth -= 1


def n_rows(X) -> int:
    """Rows of an array, DataFrame or list of rows.

    Parameters
    ----------
    X : array, DataFrame or list of rows
        Anything with a ``shape`` (its first entry counts) or a length.

    Returns
    -------
    int
        The number of rows.

    Examples
    --------
    >>> import numpy as np
    >>> n_rows(np.zeros((5, 3))), n_rows([[1, 2], [3, 4]])
    (5, 2)
    """
    return X.shape[0] if hasattr(X, "shape") else len(X)


def take_rows(X, rows) -> np.ndarray | pd.DataFrame:
    """Rows ``rows`` (a slice) of an array, DataFrame or list of rows, keeping its kind.

    Parameters
    ----------
    X : array, DataFrame or list of rows
        The rows to take from.
    rows : slice
        Which rows (positions, also for a DataFrame: ``X.iloc[rows]``).

    Returns
    -------
    ndarray or DataFrame
        A DataFrame for a DataFrame, else an array (a list of rows becomes an array).

    Examples
    --------
    >>> import numpy as np
    >>> take_rows([[1, 2], [3, 4], [5, 6]], slice(1, 3))
    array([[3, 4],
           [5, 6]])
    >>> take_rows(np.arange(10).reshape(5, 2), slice(0, 1)).shape
    (1, 2)
    """
    if hasattr(X, "iloc"):
        return X.iloc[rows]
    if isinstance(X, np.ndarray):
        return X[rows]
    return np.asarray(X)[rows]


def execution(n_jobs, n_chunks) -> tuple[str, int]:
    """Where chunks run: ``(backend, workers)``; ``("threads", k)`` or ``("sequential", 1)`` here.

    One joblib worker means this process: ``n_jobs=1`` (given, or set by an enclosing
    ``joblib.parallel_config``) runs the chunks one after the other; ``n_jobs=None``
    runs them on as many threads as there are CPUs.

    Parameters
    ----------
    n_jobs : int or None
        As in scikit-learn (checked by ``kernelxai.parallel._chunking.check_n_jobs``).
    n_chunks : int
        Number of chunks to run (no more threads than chunks).

    Returns
    -------
    tuple of (str, int)
        ``("sequential", 1)``, ``("threads", k)`` with ``k`` at most the CPUs and the
        chunks, or, for more than one joblib worker, the active joblib backend's name
        (e.g. ``"loky"``, ``"threading"``, ``"dask"``) and its number of workers.

    Raises
    ------
    ValueError
        When ``n_jobs`` is not valid.

    Examples
    --------
    >>> import joblib
    >>> execution(1, n_chunks=4)
    ('sequential', 1)
    >>> with joblib.parallel_config(backend="threading"):
    ...     print(execution(2, n_chunks=4))
    ('threading', 2)
    """
    import joblib
    from joblib.parallel import get_active_backend

    n_jobs = check_n_jobs(n_jobs)
    backend, context_jobs = get_active_backend()
    if joblib.effective_n_jobs(n_jobs) == 1:
        one = n_jobs == 1 or (n_jobs is None and context_jobs == 1)
        threads = 1 if one else min(_cpus(), max(1, int(n_chunks)))
        return ("threads", threads) if threads > 1 else ("sequential", 1)
    name = type(backend).__name__.replace("Backend", "").lower() or "joblib"
    return name, int(joblib.effective_n_jobs(n_jobs))


def _cpus():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def run_rows(fn: Callable[..., Any], X: Any, *, shared: Any = None, n_jobs: int | None = None,
             rows_per_chunk: int | None = None, progress: bool | None = None, desc: str = "rows",
             config: dict[str, Any] | None = None) -> list:
    """``fn(shared, X[rows])`` for consecutive chunks of rows, run with joblib; results in order.

    Parameters
    ----------
    fn : callable
        ``fn(shared, rows_of_X)``; a module-level function (it is pickled for workers).
    X : array (n, d), DataFrame or list of rows
    shared : object
        What every chunk needs (model, value function, options), shipped to each worker
        once (see :class:`Shipped`).
    n_jobs : int or None
        As in scikit-learn; honours an enclosing ``joblib.parallel_config`` (including
        ``backend="dask"``). With one worker the chunks run in this process, without
        joblib: on as many threads as there are CPUs for ``n_jobs=None`` (the threads BLAS
        would otherwise use inside the chunks), one after the other for ``n_jobs=1``.
        Every chunk runs on one BLAS thread (:class:`_Task`), wherever it runs.
    rows_per_chunk : int, optional
        Default: all rows in one chunk.
    progress : bool, optional
        A progress bar over rows (default from ``kx.config_context(progress=...)``).
    desc : str
        The progress bar's label.
    config : dict, optional
        The kernelxai configuration the chunks run under (default: this thread's, with
        progress bars off inside the chunks).

    Returns
    -------
    list
        ``fn``'s results, chunk by chunk (the entry points join Explanations into one).

    Raises
    ------
    ValueError
        When ``n_jobs`` or ``rows_per_chunk`` is not valid.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelxai.parallel import run_rows
    >>> def scaled_sums(scale, rows):
    ...     return rows.sum(axis=1) * scale
    >>> X = np.arange(10.0).reshape(5, 2)
    >>> parts = run_rows(scaled_sums, X, shared=10.0, n_jobs=1, rows_per_chunk=2)
    >>> [part.tolist() for part in parts]
    [[10.0, 50.0], [90.0, 130.0], [170.0]]
    """
    n_jobs = check_n_jobs(n_jobs)
    n = n_rows(X)
    step = n if rows_per_chunk is None else check_rows_per_chunk(rows_per_chunk)
    slices = row_chunks(n, step)
    out = []
    with progress_bar(n, desc, "row", progress) as bar:
        for rows, result in in_order(fn, X, slices, shared, n_jobs, config):
            out.append(result)
            bar.update(rows.stop - rows.start)
    return out


def in_order(fn, X, slices, shared, n_jobs, config) -> Iterator[tuple[slice, object]]:
    """Yield ``(rows, fn(shared, X[rows]))`` for ``slices``, in order, wherever they run (see run_rows).

    The engine of :func:`run_rows` and :func:`~kernelxai.parallel.reduce_rows`: the
    results arrive one by one, so a caller can add them up without holding them all.

    Parameters
    ----------
    fn : callable
        ``fn(shared, rows_of_X)``; a module-level function when the chunks run on worker
        processes (it is pickled).
    X : array (n, d), DataFrame or list of rows
    slices : list of slice
        The chunks of rows, e.g. from :func:`~kernelxai.parallel.row_chunks`.
    shared : object
        What every chunk needs, wrapped in :class:`Shipped`.
    n_jobs : int or None
        As in scikit-learn; where the chunks run is decided by :func:`execution`.
    config : dict or None
        The kernelxai configuration the chunks run under; None: this thread's, with
        progress bars off.

    Yields
    ------
    tuple of (slice, object)
        Each slice with ``fn``'s result for its rows, in the order of ``slices``.

    Examples
    --------
    >>> import numpy as np
    >>> def column_sums(shared, rows):
    ...     return rows.sum(axis=0)
    >>> X = np.arange(12.0).reshape(6, 2)
    >>> for rows, part in in_order(column_sums, X, row_chunks(6, 4), None, 1, None):
    ...     print(rows, part)
    slice(0, 4, None) [12. 16.]
    slice(4, 6, None) [18. 20.]
    """
    import joblib

    task = _Task(fn, dict(get_config(), progress=False) if config is None else dict(config))
    shipped = Shipped(shared)
    pool = None
    where, workers = execution(n_jobs, len(slices))
    if where == "threads":
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(workers)
        results = pool.map(lambda rows: task(shipped, take_rows(X, rows)), slices)
    elif where == "sequential":
        results = (task(shipped, take_rows(X, rows)) for rows in slices)
    else:
        results = joblib.Parallel(n_jobs=n_jobs, return_as="generator")(
            joblib.delayed(task)(shipped, take_rows(X, rows)) for rows in slices)
    try:
        yield from zip(slices, results)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
