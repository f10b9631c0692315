"""How the rows of a call are cut into chunks: the arguments ``n_jobs`` and ``rows_per_chunk``, and the partition.

Takes the size of the problem (rows, the estimated cost of all rows and of one row)
and hands on the rows per chunk and the slices of rows; the partition depends on the
problem only, never on ``n_jobs``, the backend or the machine.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .._config import get_config

__all__ = ["CHUNK_RATE", "CHUNK_SECONDS", "MAX_REPEATED_SHARE", "one_chunk", "check_n_jobs", "check_rows_per_chunk",
           "effective_n_jobs", "row_chunks", "plan_rows"]

#: seconds of work per chunk, at :data:`CHUNK_RATE` operations a second
CHUNK_SECONDS = 0.5
#: the operations a second that size chunks: a fixed figure (or the config's ``flops_per_second``
#: when set), not this machine's calibrated rates, so that the partition of the rows -- and with
#: it the chunks' random streams -- is the same on every machine
CHUNK_RATE = 1e9
#: largest share of a chunk's estimated work that may be work every chunk repeats
MAX_REPEATED_SHARE = 0.1


def check_n_jobs(n_jobs) -> int | None:
    """``n_jobs`` as scikit-learn reads it: None, a positive count, or -1, -2, ... (CPUs counted back).

    Parameters
    ----------
    n_jobs : int or None
        The caller's ``n_jobs``: None (one worker unless an enclosing
        ``joblib.parallel_config`` says otherwise), a positive number of workers, or a
        negative one (-1: all CPUs, -2: all but one, ...).

    Returns
    -------
    int or None
        ``n_jobs`` as a Python int (numpy integers included), or None.

    Raises
    ------
    ValueError
        For 0, a non-integer or a bool.

    Examples
    --------
    >>> check_n_jobs(-1), check_n_jobs(None)
    (-1, None)
    >>> try:
    ...     check_n_jobs(0)
    ... except ValueError as err:
    ...     print(str(err)[:40])
    n_jobs must be None (one worker, unless
    """
    if n_jobs is None:
        return None
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, (numbers.Integral, np.integer)) \
            or n_jobs == 0:
        raise ValueError(
            "n_jobs must be None (one worker, unless an enclosing joblib.parallel_config sets "
            "n_jobs or the backend), a positive number of workers, or -1 (all CPUs), -2 (all but "
            f"one), ... as in scikit-learn; got {n_jobs!r}")
    return int(n_jobs)


def check_rows_per_chunk(rows_per_chunk) -> int | None:
    """None (from the cost model) or a positive integer.

    Parameters
    ----------
    rows_per_chunk : int or None
        The caller's ``rows_per_chunk``: None lets the cost model size the chunks
        (:func:`plan_rows`).

    Returns
    -------
    int or None
        ``rows_per_chunk`` as a Python int, or None.

    Raises
    ------
    ValueError
        For a bool, a non-integer, or an integer below 1.

    Examples
    --------
    >>> import numpy as np
    >>> check_rows_per_chunk(np.int64(50)), check_rows_per_chunk(None)
    (50, None)
    >>> try:
    ...     check_rows_per_chunk(0)
    ... except ValueError as err:
    ...     print(str(err)[:30])
    rows_per_chunk must be None (s
    """
    if rows_per_chunk is None:
        return None
    if isinstance(rows_per_chunk, (bool, np.bool_)) or \
            not isinstance(rows_per_chunk, (numbers.Integral, np.integer)) or rows_per_chunk < 1:
        raise ValueError("rows_per_chunk must be None (sized by the cost model) or a positive "
                         f"integer; got {rows_per_chunk!r}")
    return int(rows_per_chunk)


def effective_n_jobs(n_jobs=None) -> int:
    """Workers joblib would use for ``n_jobs`` here (inside any ``joblib.parallel_config``).

    Parameters
    ----------
    n_jobs : int or None, default None
        As in scikit-learn (checked by :func:`check_n_jobs`).

    Returns
    -------
    int
        The number of workers, at least 1: ``joblib.effective_n_jobs`` of ``n_jobs``, so
        it depends on the machine's CPUs for negative ``n_jobs`` and on an enclosing
        ``joblib.parallel_config`` for None.

    Raises
    ------
    ValueError
        When ``n_jobs`` is not valid (see :func:`check_n_jobs`).

    Examples
    --------
    >>> import joblib
    >>> effective_n_jobs(1)
    1
    >>> with joblib.parallel_config(n_jobs=3):
    ...     print(effective_n_jobs())
    3
    """
    import joblib

    return int(joblib.effective_n_jobs(check_n_jobs(n_jobs)))


def row_chunks(n_rows: int, rows_per_chunk: int) -> list[slice]:
    """Consecutive slices of ``rows_per_chunk`` rows (the last one shorter) covering ``n_rows``.

    Parameters
    ----------
    n_rows : int
        Number of rows to cover.
    rows_per_chunk : int
        Rows per slice (values below 1 count as 1).

    Returns
    -------
    list of slice
        ``slice(start, stop)`` for ``start = 0, rows_per_chunk, ...``; empty for ``n_rows = 0``.

    Examples
    --------
    >>> from kernelxai.parallel import row_chunks
    >>> row_chunks(7, 3)
    [slice(0, 3, None), slice(3, 6, None), slice(6, 7, None)]
    """
    step = max(1, int(rows_per_chunk))
    return [slice(start, min(n_rows, start + step)) for start in range(0, n_rows, step)]


def one_chunk(n_rows, flops_all, bytes_all=0.0, chunk_seconds=CHUNK_SECONDS) -> bool:
    """Whether :func:`plan_rows` would put all ``n_rows`` rows in one chunk whatever one row costs.

    True when all the work fits one chunk's target (at :data:`CHUNK_RATE`, or the config's
    ``flops_per_second``) with room for the rounding of the rows per chunk, and the peak memory
    of all rows is at most half of ``max_memory``: then the cost of one row, which
    :func:`plan_rows` needs otherwise, need not be estimated (for some games that estimate
    reads their first terms, a fixed cost small calls would pay).

    Parameters
    ----------
    n_rows : int
    flops_all : float
        Estimated operations of all rows.
    bytes_all : float
        Estimated peak memory of all rows.
    chunk_seconds : float
        As in :func:`plan_rows`.

    Returns
    -------
    bool

    Examples
    --------
    >>> one_chunk(100, flops_all=1e6), one_chunk(100, flops_all=1e12)
    (True, False)
    """
    n_rows = int(n_rows)
    if n_rows <= 1:
        return True
    config = get_config()
    rate = config["flops_per_second"] or CHUNK_RATE
    fits = float(flops_all) * n_rows / (n_rows - 1) <= chunk_seconds * rate
    return bool(fits and float(bytes_all) <= config["max_memory"] / 2)


def plan_rows(n_rows: int, flops_all: float, flops_one: float, bytes_all: float = 0.0, bytes_one: float = 0.0,
              chunk_seconds: float = CHUNK_SECONDS) -> int:
    """Rows per chunk from the cost of all ``n_rows`` rows and of one row.

    Parameters
    ----------
    n_rows : int
    flops_all, flops_one : float
        Estimated floating-point operations for all rows and for one row.
    bytes_all, bytes_one : float
        Estimated peak memory for all rows and for one row (0: unknown).
    chunk_seconds : float
        Target work per chunk, in seconds at :data:`CHUNK_RATE` operations a second (or the
        config's ``flops_per_second`` when set).

    Returns
    -------
    int
        Rows per chunk, in 1..n_rows: enough for ``chunk_seconds`` of work and for the work
        every chunk repeats (``flops_one`` minus one row's share) to be at most
        :data:`MAX_REPEATED_SHARE` of a chunk, at most what keeps the estimated peak memory
        within ``max_memory``; then evened out so that the chunks have about equal sizes.
        All rows (one chunk) when the cost does not grow with the rows; 1 for ``n_rows <= 1``.

    Examples
    --------
    At 10^9 operations a second, 1000 rows of 10^9 operations each (plus 10^9 that every
    chunk repeats) are cut into chunks of about equal size:

    >>> import kernelxai as kx
    >>> from kernelxai.parallel import plan_rows, row_chunks
    >>> with kx.config_context(flops_per_second=1e9):
    ...     rows = plan_rows(1000, flops_all=1e12, flops_one=2e9)
    >>> rows, len(row_chunks(1000, rows))
    (11, 91)
    >>> plan_rows(1000, flops_all=5e9, flops_one=5e9)  # no work per row: one chunk
    1000
    """
    n_rows = int(n_rows)
    if n_rows <= 1:
        return 1
    config = get_config()
    per_row = max(0.0, (float(flops_all) - float(flops_one)) / (n_rows - 1))
    if not per_row > 0 or not math.isfinite(per_row):
        return n_rows  # no work that grows with the rows: one chunk
    repeated = max(0.0, float(flops_one) - per_row)
    rate = config["flops_per_second"] or CHUNK_RATE
    rows = max(math.ceil(chunk_seconds * rate / per_row),
               math.ceil(repeated / (MAX_REPEATED_SHARE * per_row)))
    mem_row = max(0.0, (float(bytes_all) - float(bytes_one)) / (n_rows - 1))
    if mem_row > 0 and math.isfinite(mem_row):
        room = config["max_memory"] - max(0.0, float(bytes_one) - mem_row)
        rows = min(rows, max(1, int(room // mem_row)))
    rows = min(max(1, rows), n_rows)
    return math.ceil(n_rows / math.ceil(n_rows / rows))
