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

__all__ = ["CHUNK_SECONDS", "MAX_REPEATED_SHARE", "check_n_jobs", "check_rows_per_chunk",
           "effective_n_jobs", "row_chunks", "plan_rows"]

#: estimated seconds of work per chunk (at ``kx.get_config()["flops_per_second"]``)
CHUNK_SECONDS = 0.5
#: largest share of a chunk's estimated work that may be work every chunk repeats
MAX_REPEATED_SHARE = 0.1


def check_n_jobs(n_jobs) -> int | None:
    """``n_jobs`` as scikit-learn reads it: None, a positive count, or -1, -2, ... (CPUs counted back).

    Raises
    ------
    ValueError
        For 0, a non-integer or a bool.
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
    """None (from the cost model) or a positive integer."""
    if rows_per_chunk is None:
        return None
    if isinstance(rows_per_chunk, (bool, np.bool_)) or \
            not isinstance(rows_per_chunk, (numbers.Integral, np.integer)) or rows_per_chunk < 1:
        raise ValueError("rows_per_chunk must be None (sized by the cost model) or a positive "
                         f"integer; got {rows_per_chunk!r}")
    return int(rows_per_chunk)


def effective_n_jobs(n_jobs=None) -> int:
    """Workers joblib would use for ``n_jobs`` here (inside any ``joblib.parallel_config``)."""
    import joblib

    return int(joblib.effective_n_jobs(check_n_jobs(n_jobs)))


def row_chunks(n_rows, rows_per_chunk) -> list[slice]:
    """Consecutive slices of ``rows_per_chunk`` rows (the last one shorter) covering ``n_rows``."""
    step = max(1, int(rows_per_chunk))
    return [slice(start, min(n_rows, start + step)) for start in range(0, n_rows, step)]


def plan_rows(n_rows, flops_all, flops_one, bytes_all=0.0, bytes_one=0.0,
              chunk_seconds=CHUNK_SECONDS) -> int:
    """Rows per chunk from the cost of all ``n_rows`` rows and of one row.

    Parameters
    ----------
    n_rows : int
    flops_all, flops_one : float
        Estimated floating-point operations for all rows and for one row.
    bytes_all, bytes_one : float
        Estimated peak memory for all rows and for one row (0: unknown).
    chunk_seconds : float
        Target work per chunk, in seconds at ``kx.get_config()["flops_per_second"]``.

    Returns
    -------
    int
        Rows per chunk, in 1..n_rows: enough for ``chunk_seconds`` of work and for the work
        every chunk repeats (``flops_one`` minus one row's share) to be at most
        :data:`MAX_REPEATED_SHARE` of a chunk, at most what keeps the estimated peak memory
        within ``max_memory``; then evened out so that the chunks have about equal sizes.
    """
    n_rows = int(n_rows)
    if n_rows <= 1:
        return 1
    config = get_config()
    per_row = max(0.0, (float(flops_all) - float(flops_one)) / (n_rows - 1))
    if not per_row > 0 or not math.isfinite(per_row):
        return n_rows  # no work that grows with the rows: one chunk
    repeated = max(0.0, float(flops_one) - per_row)
    rows = max(math.ceil(chunk_seconds * config["flops_per_second"] / per_row),
               math.ceil(repeated / (MAX_REPEATED_SHARE * per_row)))
    mem_row = max(0.0, (float(bytes_all) - float(bytes_one)) / (n_rows - 1))
    if mem_row > 0 and math.isfinite(mem_row):
        room = config["max_memory"] - max(0.0, float(bytes_one) - mem_row)
        rows = min(rows, max(1, int(room // mem_row)))
    rows = min(max(1, rows), n_rows)
    return math.ceil(n_rows / math.ceil(n_rows / rows))
