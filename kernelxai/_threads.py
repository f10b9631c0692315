"""Single-threaded native thread pools for a block of code, safe across threads.

Batches of small dense solves run faster on one BLAS thread than on several
(threaded BLAS spends its time synchronising). ``threadpoolctl.threadpool_limits``
as a context manager records "the original limits" when it is entered and
puts them back when it is left; the limits are process-wide, so when two
threads use it at once the second records the first's limit of 1 as the
original and, if it leaves last, leaves the whole process at one thread for
good. :func:`single_threaded_blas` shares one limit among all threads: the
first thread to enter records the original limits and sets 1, the last to
leave restores them; nesting and concurrent use are safe.

The process-wide lock and counter below, and the pool of helper threads of
:func:`with_helpers` (started once, kept for the process), are the only state,
and they mirror state that already is process-wide (the native libraries'
thread counts, the process's threads).
Finding the loaded libraries (reading ``/proc/self/maps``) takes ~3 ms, more
than a small explanation; threadpoolctl >= 3.8 keeps one controller and finds
them again only when the number of imported modules changes
(``threadpoolctl.get_cached_controller``), which is used when present.

Small problems wake no thread (#36): OpenBLAS itself keeps small products on the
calling thread (below its own size thresholds), and the routes whose small
factorisations it would share out (observational, GP-SHAP, the interventional
worth table) hold BLAS to one thread with :func:`small_blas` /
:func:`single_threaded_blas`. Entering and leaving that limit reads and sets
each library's thread count with one C call (~20 us; threadpoolctl's
``threadpool_limits`` gathers a full description of every library first, ~110 us,
220 us after a rest). ``tests/test_thin_door.py`` checks that small calls after
a rest wake no other thread; ``benchmarks/bench_overhead.py`` times them cold and
warm.
"""

from __future__ import annotations

import contextlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import threadpoolctl

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

__all__ = ["blas_threads", "single_threaded_blas", "small_blas", "with_helpers", "SMALL_SYSTEM"]

_lock = threading.Lock()
_active = {"depth": 0, "changed": []}


def _libraries() -> list:
    """threadpoolctl's controllers of the loaded BLAS and OpenMP libraries.

    From threadpoolctl's cached controller where it has one (>= 3.8); older versions find the
    libraries anew (reading ``/proc/self/maps``, ~3 ms).
    """
    cached = getattr(threadpoolctl, "get_cached_controller", None)
    controller = cached() if cached is not None else threadpoolctl.ThreadpoolController()
    return controller.lib_controllers


def _limit_to_one() -> list:
    """Set every library that runs on more than one thread to one; return ``[(library, its limit)]``.

    Each library's limit is read and set directly (one C call each, through threadpoolctl's
    controllers): ``threadpoolctl.threadpool_limits`` gathers every library's full description
    first, which took ~110 us to enter and leave, 220 us after a rest -- a fifth of a small
    call's time. A library already on one thread is left alone, so a process held to one thread
    (``OPENBLAS_NUM_THREADS=1``) pays nothing more.
    """
    changed = []
    for library in _libraries():
        limit = library.get_num_threads()
        if limit is not None and limit != 1:
            library.set_num_threads(1)
            changed.append((library, limit))
    return changed


def _restore(changed: list) -> None:
    """Set the libraries :func:`_limit_to_one` changed back to their limits."""
    for library, limit in changed:
        library.set_num_threads(limit)


def _release_control():
    """Let any thread make the next change to a process-wide OpenBLAS pool.

    threadpoolctl >= 3.8 lets only the thread that last changed a
    process-wide (pthreads) OpenBLAS pool change it again until that thread
    leaves its ``threadpool_limits`` block; changes from other threads are
    silently ignored. Our limit is set by one thread and restored by
    another, so control is handed back after each change -- unless this
    thread is itself inside a caller's ``threadpool_limits`` block, whose
    control stays with it. Older threadpoolctl versions have no such notion
    and need nothing.
    """
    openblas = getattr(threadpoolctl, "OpenBLASController", None)
    clear = getattr(openblas, "clear_controlling_thread", None)
    ownership = getattr(threadpoolctl, "CONTROLLING_THREAD_OWNERSHIP", None)
    if clear is not None and getattr(ownership, "count", 0) <= 0:
        clear()


@contextlib.contextmanager
def single_threaded_blas(enabled=True) -> Iterator[None]:
    """Limit BLAS (and OpenMP) thread pools to one thread for the ``with`` block.

    Parameters
    ----------
    enabled : bool, default True
        False makes the block a no-op (for callers that limit only small
        problems).

    Notes
    -----
    One limit is shared by every thread: the first thread to enter records
    the process's current limits and sets 1; threads entering meanwhile
    (and nested blocks) only count themselves in; the last to leave
    restores the recorded limits, also when the block raised. Libraries
    whose limits are per-thread (OpenBLAS built on OpenMP) are limited only
    in the thread that entered first.

    Examples
    --------
    >>> import numpy as np
    >>> with single_threaded_blas():
    ...     x = np.linalg.solve(np.eye(3) * 2.0, np.ones(3))
    >>> x
    array([0.5, 0.5, 0.5])
    """
    if not enabled:
        yield
        return
    with _lock:
        if _active["depth"] == 0:
            _active["changed"] = _limit_to_one()
            if _active["changed"]:
                _release_control()
        _active["depth"] += 1
    try:
        yield
    finally:
        with _lock:
            _active["depth"] -= 1
            if _active["depth"] == 0:
                changed, _active["changed"] = _active["changed"], []
                if changed:
                    _restore(changed)
                    _release_control()


#: Below this many rows a linear system is small: its solves and products run on one BLAS thread.
SMALL_SYSTEM = 2000


def small_blas(m) -> contextlib.AbstractContextManager:
    """Single-threaded BLAS for work on small systems (m < SMALL_SYSTEM rows), else a no-op.

    Threaded BLAS spends more time synchronising than computing on many small
    factorisations and products; on a busy 2-core machine batched 200 x 200
    Cholesky factorisations were measured 10-400x slower with two threads than
    with one, and GP-SHAP's covariance routes (200 training points) 1.0-1.3x
    slower even on an idle one. The cost guard prices such work at one BLAS
    thread's rate.

    Parameters
    ----------
    m : int
        Rows of the systems the block works on.

    Returns
    -------
    context manager
        :func:`single_threaded_blas` when ``m < SMALL_SYSTEM``, else one that does nothing.

    Examples
    --------
    >>> with small_blas(200):
    ...     blas_threads()
    1
    """
    return single_threaded_blas(enabled=m < SMALL_SYSTEM)


def blas_threads() -> int:
    """Threads the BLAS libraries would use now: the fewest over the loaded ones, at most the usable cores.

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> blas_threads() >= 1
    True
    >>> with single_threaded_blas():
    ...     blas_threads()
    1
    """
    counts = [int(library.get_num_threads() or 1) for library in _libraries() if library.user_api == "blas"]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(counts + [cores]) if counts else 1)



#: The helper threads of :func:`with_helpers`: one pool per process, started on first use and kept.
_helpers: dict = {"pool": None, "size": 0}
_helpers_lock = threading.Lock()


def _forget_helpers():  # a forked child has the pool object but none of its threads
    _helpers.update(pool=None, size=0)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_helpers)


def with_helpers(work: Callable[[], None], n_jobs: int) -> None:
    """Run ``work()`` in this thread and on ``n_jobs - 1`` helper threads at once; return when all are done.

    ``work`` takes its tasks from a queue it shares with its copies and returns when none
    are left. The helpers come from one pool per process, started the first time and kept
    between calls: starting threads anew took 0.4-1.2 ms each on the development machine,
    more than a small call's arithmetic. A helper that has not started by the time this
    thread's copy returns is cancelled (the tasks are done), so a call made from inside
    another call's helper never waits for a helper the pool cannot start.

    Parameters
    ----------
    work : callable
        Called with no arguments, once in this thread and once per started helper.
    n_jobs : int
        Copies of ``work`` at most (1: this thread only).

    Raises
    ------
    BaseException
        The first exception raised by this thread's copy or by a helper, after every
        started helper has returned.

    Examples
    --------
    >>> import threading
    >>> tasks, lock, done = iter(range(100)), threading.Lock(), []
    >>> def work():
    ...     while True:
    ...         with lock:
    ...             task = next(tasks, None)
    ...         if task is None:
    ...             return
    ...         done.append(task * task)
    >>> with_helpers(work, 2)
    >>> sum(done)
    328350
    """
    if n_jobs <= 1:
        work()
        return
    with _helpers_lock:
        if _helpers["size"] < n_jobs - 1:
            if _helpers["pool"] is not None:
                _helpers["pool"].shutdown(wait=False)
            _helpers["pool"] = ThreadPoolExecutor(n_jobs - 1, thread_name_prefix="kernelxai-helper")
            _helpers["size"] = n_jobs - 1
        # submitted under the lock: a pool replaced by a larger one is shut down only after
        # (and still runs) what was submitted to it
        futures = [_helpers["pool"].submit(work) for _ in range(n_jobs - 1)]
    error = None
    try:
        work()
    except BaseException as exc:  # raised again below, once the helpers are done
        error = exc
    for future in futures:
        if future.cancel():
            continue
        try:
            future.result()
        except BaseException as exc:  # the first error is raised, after every helper is done
            error = error if error is not None else exc
    if error is not None:
        raise error
