"""Reductions over many rows (a large background): the sum of ``fn(shared, X[part])`` over parts of the rows.

Takes the work per part as a callable and the estimated cost of one row, and hands
back the sum over all rows, added in part order -- the same bits wherever the parts
run. ``kx.explain``'s ``n_jobs`` reaches the reductions of its call through
:func:`reduction_jobs`.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from ..estimators._common import progress_bar
from ._chunking import check_n_jobs, row_chunks
from ._runner import in_order, inside_chunk, n_rows

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["PART_FLOPS", "MIN_PART_ROWS", "reduction_jobs", "part_rows", "reduce_rows"]

#: estimated operations per part of a reduction over rows (:func:`reduce_rows`)
PART_FLOPS = 5e8
#: fewest rows per part of a reduction (a part's result is one row's size: keep it small next to its work)
MIN_PART_ROWS = 1024

_reduction_state = threading.local()


@contextlib.contextmanager
def reduction_jobs(n_jobs) -> Iterator[None]:
    """The workers :func:`reduce_rows` uses inside this block (``kx.explain`` passes its ``n_jobs``).

    A context manager; the setting belongs to this thread, and the one before is restored
    on leaving the block.

    Parameters
    ----------
    n_jobs : int or None
        As in scikit-learn (checked by ``kernelxai.parallel._chunking.check_n_jobs``).

    Yields
    ------
    None

    Raises
    ------
    ValueError
        On entering the block, when ``n_jobs`` is not valid.

    Examples
    --------
    >>> import numpy as np
    >>> def column_sums(shared, rows):
    ...     return rows.sum(axis=0)
    >>> with reduction_jobs(1):  # the parts run one after the other, here
    ...     print(reduce_rows(column_sums, np.ones((3000, 2))))
    [3000. 3000.]
    """
    n_jobs = check_n_jobs(n_jobs)
    before = getattr(_reduction_state, "n_jobs", None)
    _reduction_state.n_jobs = n_jobs
    try:
        yield
    finally:
        _reduction_state.n_jobs = before


def part_rows(row_flops) -> int:
    """Rows per part of a reduction whose rows cost ``row_flops`` operations each.

    A part gets about :data:`PART_FLOPS` operations and at least :data:`MIN_PART_ROWS`
    rows (so that its result, the size of one row's contribution, is small next to its
    work). Fixed numbers, not the configured ``flops_per_second``: the partition -- and
    with it the order in which partial sums are added -- depends on the problem only.

    Parameters
    ----------
    row_flops : float
        Estimated operations per row; not a positive finite number gives
        :data:`MIN_PART_ROWS`.

    Returns
    -------
    int
        ``max(MIN_PART_ROWS, ceil(PART_FLOPS / row_flops))``.

    Examples
    --------
    >>> part_rows(1e6), part_rows(1e3)
    (1024, 500000)
    """
    row_flops = float(row_flops)
    if not (row_flops > 0 and math.isfinite(row_flops)):
        return MIN_PART_ROWS
    return max(MIN_PART_ROWS, math.ceil(PART_FLOPS / row_flops))


def reduce_rows(fn: Callable[..., np.ndarray], X: ArrayLike, *, shared: Any = None, row_flops: float = 1.0,
                progress: bool | None = None, desc: str = "rows", fresh: bool = False) -> np.ndarray:
    """The sum of ``fn(shared, X[part])`` over consecutive parts of the rows of ``X``.

    A reduction over many rows -- the mean embeddings of a background of 10^6 rows --
    cut into parts of :func:`part_rows` rows, each part summed where it runs (its own
    blocks, within ``max_memory``), the parts' sums added here in part order as they
    arrive (never all held at once). The parts run like
    :func:`~kernelxai.parallel.run_rows`'s chunks: on the workers of an enclosing
    :func:`reduction_jobs` (``kx.explain(n_jobs=...)``; by default, as for
    ``n_jobs=None``, on threads in this process), on worker processes, or on a Dask
    cluster inside ``joblib.parallel_config(backend="dask")``; one after the other
    inside a chunk of rows that already runs on a worker. The partition does not depend
    on where the parts run, and every part runs on one BLAS thread, so the sum is the
    same to the last bit for any number of workers and any backend.

    Parameters
    ----------
    fn : callable
        ``fn(shared, rows_of_X)`` returning an array (the same shape for every part); a
        module-level function (it is pickled for workers).
    X : array (m, d)
    shared : object
        What every part needs besides its rows (shipped to each worker once).
    row_flops : float
        Estimated operations per row (sizes the parts).
    progress : bool, optional
        A progress bar over rows.
    desc : str
        The progress bar's label.
    fresh : bool, default False
        True: ``fn`` returns a new float array on every call that nothing else
        holds, so the first part's sum becomes the running total as it is
        (otherwise it is copied first). A large copy is not free: its pages are
        mapped on first touch, ~3 us per 4 KiB page on a virtual machine (#25).

    Returns
    -------
    ndarray
        The sum over all rows (divide by ``len(X)`` for a mean).

    Examples
    --------
    The mean of 5000 rows, summed in parts of :data:`MIN_PART_ROWS` rows:

    >>> import numpy as np
    >>> from kernelxai.parallel import reduce_rows
    >>> def weighted_sums(weights, rows):
    ...     return rows.sum(axis=0) * weights
    >>> X = np.random.default_rng(0).normal(size=(5000, 2))
    >>> total = reduce_rows(weighted_sums, X, shared=np.array([1.0, 2.0]))
    >>> bool(np.allclose(total / len(X), X.mean(axis=0) * [1.0, 2.0]))
    True
    """
    n = n_rows(X)
    slices = row_chunks(n, part_rows(row_flops))
    n_jobs = 1 if inside_chunk() else getattr(_reduction_state, "n_jobs", None)
    total = None
    with progress_bar(n, desc, "row", progress) as bar:
        for rows, part in in_order(fn, X, slices, shared, n_jobs, None):
            if total is None:
                owned = fresh and isinstance(part, np.ndarray) and part.dtype == float
                total = part if owned else np.array(part, dtype=float, copy=True)
            else:
                total += part
            bar.update(rows.stop - rows.start)
    return total
