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
from ..estimators.common import progress_bar
from .chunking import check_n_jobs, check_rows_per_chunk, row_chunks

if TYPE_CHECKING:
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
    """

    def __init__(self, value):
        self.value = value
        self._size = max(2048, _nbytes(value) + 1024)

    def __sizeof__(self):
        return self._size


_chunk_state = threading.local()


def inside_chunk() -> bool:
    """Whether this thread is running a chunk (then nested calls use no threads of their own)."""
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
    """Rows of an array, DataFrame or list of rows."""
    return X.shape[0] if hasattr(X, "shape") else len(X)


def take_rows(X, rows) -> np.ndarray | pd.DataFrame:
    """Rows ``rows`` (a slice) of an array, DataFrame or list of rows, keeping its kind."""
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


def run_rows(fn, X, *, shared=None, n_jobs=None, rows_per_chunk=None, progress=None,
             desc="rows", config=None) -> list:
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
        ``fn``'s results, chunk by chunk. :func:`~kernelxai.parallel.concat_results` joins
        Explanations.
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
    """Yield ``(rows, fn(shared, X[rows]))`` for ``slices``, in order, wherever they run (see run_rows)."""
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
