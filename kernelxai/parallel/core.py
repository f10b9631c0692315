"""Many explained points at once: chunks of rows run with joblib, on one machine or a Dask cluster.

``kx.explain(..., n_jobs=...)`` and ``kx.explain_interactions(..., n_jobs=...)`` cut
the rows of ``X`` into chunks and run the chunks with :mod:`joblib` -- scikit-learn's
convention, so the same call runs on worker processes (joblib's default ``"loky"``
backend), on threads, or on a Dask cluster inside
``joblib.parallel_config(backend="dask")``, with nothing kernelxai-specific to learn.
``n_jobs`` means what it means in scikit-learn: ``None`` is one worker unless an
enclosing ``joblib.parallel_config(n_jobs=...)`` (or the Dask backend, which uses
its workers) says otherwise, ``-1`` is all CPUs, ``-2`` all but one.

How the rows are cut
--------------------
The partition depends on the problem only, never on ``n_jobs``, the backend or the
machine. The estimator's cost model (the same one behind ``method="auto"``, the
progress bar and ``max_cost``) is asked for the cost of all rows and of one row;
the difference is the work per row, the rest is the work every chunk repeats (the
observational game factorises the background's Gram matrix of every coalition once
per call, whatever the number of rows). A chunk gets about :data:`CHUNK_SECONDS` of
estimated work, and at least enough rows that the repeated work is at most
:data:`MAX_REPEATED_SHARE` of it; no more rows than keep the estimator's own peak
memory estimate within ``kx.config_context(max_memory=...)``. A call whose work
fits in one chunk is the plain serial call, unchanged, whatever ``n_jobs``.

Why the results are identical
-----------------------------
Every chunk runs the same code on the same rows wherever it runs, and on one thread:
one BLAS thread (threaded BLAS splits its work by thread count and can round
differently -- measured for GP-SHAP's covariances) and one thread of the product
routes' own term-block pool (whose per-thread partial sums depend on scheduling). So
the values are the same to the last bit for any ``n_jobs`` and backend, exact routes
and sampled ones. With one worker the chunks run in this process: one after the other
for ``n_jobs=1``, and on as many threads as there are CPUs for ``n_jobs=None`` -- the
cores the BLAS and the product routes would otherwise use inside one big call.

For sampled estimators the randomness is the same in every chunk: the estimators
draw *one* set of coalitions (or orderings) for all the rows they explain -- a common
design, one factorisation for all rows -- so every chunk is given the same seed and
draws the same design as the serial call. ``seed=None`` is resolved once, here, to
fresh entropy shared by all chunks; a ``numpy.random.Generator`` is copied into every
chunk (each starts from the caller's state) and afterwards left where the serial call
would leave it. The draws therefore depend neither on ``n_jobs`` nor on the chunking;
a different ``rows_per_chunk`` changes only how the arithmetic is blocked (rounding).
``method="auto"`` is resolved once, on all rows (the cheapest route can depend on the
number of rows).

Shipping the model once
-----------------------
The value function -- the model, converted once to a kernel expansion, and the
background, both validated once -- is built in this process and handed to the
chunks as one object. Under the Dask backend joblib scatters every argument whose
``dask.sizeof`` exceeds 1 kB once per call and lets the workers share it
(:class:`Shipped` reports the size of what it holds, so the value function
qualifies); under loky, arrays above 1 MB are memory-mapped once and the rest of
the object is small. Only the chunk's rows travel with each task.

A few rows, a large background
------------------------------
One explained point makes one chunk, yet its interventional mean embeddings sum over
every background row (10^6 rows: minutes). That sum is a reduction, and
:func:`reduce_rows` runs it in parts of a fixed number of rows (from the problem's size
only) on the workers of the call -- ``kx.explain``'s ``n_jobs`` reaches it through
:func:`reduction_jobs`, and an enclosing Dask backend sends the parts to the cluster --
adding the parts' sums in part order as they arrive. Inside a chunk that already runs on
a worker the parts run one after the other, so workers are never nested.

Estimators whose rows depend on each other cannot be chunked: Bayesian SHAP with
``target_width`` draws coalitions until the widest interval *over the explained
rows* is narrow enough; it runs as one call, and asking for workers is refused.
"""

from __future__ import annotations

import contextlib
import copy
import math
import numbers
import threading

import numpy as np

from .._config import config_context, get_config
from ..estimators._common import progress_bar
from ..explanation.core import Explanation

__all__ = ["run_rows", "row_chunks", "plan_rows", "check_n_jobs", "effective_n_jobs",
           "Shipped", "merge_meta", "explain_rows", "interactions_rows", "CHUNK_SECONDS",
           "MAX_REPEATED_SHARE", "reduce_rows", "reduction_jobs", "part_rows", "PART_FLOPS",
           "MIN_PART_ROWS"]

#: estimated seconds of work per chunk (at ``kx.get_config()["flops_per_second"]``)
CHUNK_SECONDS = 0.5
#: largest share of a chunk's estimated work that may be work every chunk repeats
MAX_REPEATED_SHARE = 0.1

#: estimated operations per part of a reduction over rows (:func:`reduce_rows`)
PART_FLOPS = 5e8
#: fewest rows per part of a reduction (a part's result is one row's size: keep it small next to its work)
MIN_PART_ROWS = 1024

#: ``meta`` entries with one entry per explained row (concatenated across chunks)
PER_ROW_META = ("interactions_stderr", "interactions_lower", "interactions_upper", "s2",
                "covariance_mc_stderr")
#: ``meta`` entries that are bounds over the rows (the largest is kept)
MAX_META = ("efficiency_error", "error_bound", "perturbations_to_go")


# --------------------------------------------------------------------------- #
# arguments
# --------------------------------------------------------------------------- #
def check_n_jobs(n_jobs):
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


def check_rows_per_chunk(rows_per_chunk):
    """None (from the cost model) or a positive integer."""
    if rows_per_chunk is None:
        return None
    if isinstance(rows_per_chunk, (bool, np.bool_)) or \
            not isinstance(rows_per_chunk, (numbers.Integral, np.integer)) or rows_per_chunk < 1:
        raise ValueError("rows_per_chunk must be None (sized by the cost model) or a positive "
                         f"integer; got {rows_per_chunk!r}")
    return int(rows_per_chunk)


def effective_n_jobs(n_jobs=None):
    """Workers joblib would use for ``n_jobs`` here (inside any ``joblib.parallel_config``)."""
    import joblib

    return int(joblib.effective_n_jobs(check_n_jobs(n_jobs)))


# --------------------------------------------------------------------------- #
# the partition
# --------------------------------------------------------------------------- #
def row_chunks(n_rows, rows_per_chunk):
    """Consecutive slices of ``rows_per_chunk`` rows (the last one shorter) covering ``n_rows``."""
    step = max(1, int(rows_per_chunk))
    return [slice(start, min(n_rows, start + step)) for start in range(0, n_rows, step)]


def plan_rows(n_rows, flops_all, flops_one, bytes_all=0.0, bytes_one=0.0,
              chunk_seconds=CHUNK_SECONDS):
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


# --------------------------------------------------------------------------- #
# the runner
# --------------------------------------------------------------------------- #
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


def _inside_chunk():
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
        from .._threads import single_threaded_blas

        _chunk_state.depth = getattr(_chunk_state, "depth", 0) + 1
        try:
            with config_context(**self.config), single_threaded_blas():
                return self.fn(shipped.value, rows)
        finally:
            _chunk_state.depth -= 1


def _n_rows(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)


def take_rows(X, rows):
    """Rows ``rows`` (a slice) of an array, DataFrame or list of rows, keeping its kind."""
    if hasattr(X, "iloc"):
        return X.iloc[rows]
    if isinstance(X, np.ndarray):
        return X[rows]
    return np.asarray(X)[rows]


def execution(n_jobs, n_chunks):
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
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def run_rows(fn, X, *, shared=None, n_jobs=None, rows_per_chunk=None, progress=None,
             desc="rows", config=None):
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
        ``fn``'s results, chunk by chunk. :func:`concat_results` joins Explanations.
    """
    n_jobs = check_n_jobs(n_jobs)
    n = _n_rows(X)
    step = n if rows_per_chunk is None else check_rows_per_chunk(rows_per_chunk)
    slices = row_chunks(n, step)
    out = []
    with progress_bar(n, desc, "row", progress) as bar:
        for rows, result in _in_order(fn, X, slices, shared, n_jobs, config):
            out.append(result)
            bar.update(rows.stop - rows.start)
    return out


def _in_order(fn, X, slices, shared, n_jobs, config):
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


# --------------------------------------------------------------------------- #
# reductions over many rows (a large background)
# --------------------------------------------------------------------------- #
_reduction_state = threading.local()


@contextlib.contextmanager
def reduction_jobs(n_jobs):
    """The workers :func:`reduce_rows` uses inside this block (``kx.explain`` passes its ``n_jobs``)."""
    n_jobs = check_n_jobs(n_jobs)
    before = getattr(_reduction_state, "n_jobs", None)
    _reduction_state.n_jobs = n_jobs
    try:
        yield
    finally:
        _reduction_state.n_jobs = before


def part_rows(row_flops):
    """Rows per part of a reduction whose rows cost ``row_flops`` operations each.

    A part gets about :data:`PART_FLOPS` operations and at least :data:`MIN_PART_ROWS`
    rows (so that its result, the size of one row's contribution, is small next to its
    work). Fixed numbers, not the configured ``flops_per_second``: the partition -- and
    with it the order in which partial sums are added -- depends on the problem only.
    """
    row_flops = float(row_flops)
    if not (row_flops > 0 and math.isfinite(row_flops)):
        return MIN_PART_ROWS
    return max(MIN_PART_ROWS, math.ceil(PART_FLOPS / row_flops))


def reduce_rows(fn, X, *, shared=None, row_flops=1.0, progress=None, desc="rows"):
    """The sum of ``fn(shared, X[part])`` over consecutive parts of the rows of ``X``.

    A reduction over many rows -- the mean embeddings of a background of 10^6 rows --
    cut into parts of :func:`part_rows` rows, each part summed where it runs (its own
    blocks, within ``max_memory``), the parts' sums added here in part order as they
    arrive (never all held at once). The parts run like :func:`run_rows`'s chunks: on
    the workers of an enclosing :func:`reduction_jobs` (``kx.explain(n_jobs=...)``; by
    default, as for ``n_jobs=None``, on threads in this process), on worker processes,
    or on a Dask cluster inside ``joblib.parallel_config(backend="dask")``; one after
    the other inside a chunk of rows that already runs on a worker. The partition does
    not depend on where the parts run, and every part runs on one BLAS thread, so the
    sum is the same to the last bit for any number of workers and any backend.

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

    Returns
    -------
    ndarray
        The sum over all rows (divide by ``len(X)`` for a mean).
    """
    n = _n_rows(X)
    slices = row_chunks(n, part_rows(row_flops))
    n_jobs = 1 if _inside_chunk() else getattr(_reduction_state, "n_jobs", None)
    total = None
    with progress_bar(n, desc, "row", progress) as bar:
        for rows, part in _in_order(fn, X, slices, shared, n_jobs, None):
            if total is None:
                total = np.array(part, dtype=float, copy=True)
            else:
                total += part
            bar.update(rows.stop - rows.start)
    return total


# --------------------------------------------------------------------------- #
# joining the pieces
# --------------------------------------------------------------------------- #
def _same(a, b):
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            return bool(np.array_equal(a, b))
        except Exception:  # pragma: no cover - incomparable contents
            return False
    try:
        return bool(a == b)
    except Exception:  # pragma: no cover - objects without a truth value of ==
        return False


def merge_meta(pieces):
    """The ``meta`` of Explanations of consecutive chunks, as one call would report it.

    Entries with one value per row (:data:`PER_ROW_META`) are concatenated, bounds over
    rows (:data:`MAX_META`) take the largest, entries equal in every chunk are kept;
    anything else becomes the list of the chunks' values and its key is listed in
    ``meta["parallel"]["per_chunk"]``.
    """
    metas = [p.meta for p in pieces]
    keys = list(dict.fromkeys(k for m in metas for k in m))
    out, per_chunk = {}, []
    for key in keys:
        vals = [m.get(key) for m in metas]
        if key in PER_ROW_META and all(isinstance(v, np.ndarray) for v in vals):
            out[key] = np.concatenate(vals, axis=0)
        elif key in MAX_META and all(isinstance(v, numbers.Real) for v in vals):
            out[key] = max(vals)
        elif all(_same(vals[0], v) for v in vals[1:]):
            out[key] = vals[0]
        else:
            out[key] = vals
            per_chunk.append(key)
    out["parallel"] = {"per_chunk": per_chunk}
    return out


def concat_results(pieces, overrides=None, **parallel):
    """One Explanation from the chunks' Explanations.

    ``overrides`` replace ``meta`` entries (values for the whole call, e.g. its
    estimated seconds); ``parallel`` goes to ``meta["parallel"]``.
    """
    meta = merge_meta(pieces)
    overrides = dict(overrides or {})
    meta.update(overrides)
    info = meta.pop("parallel")
    info["per_chunk"] = [k for k in info["per_chunk"] if k not in overrides]
    meta["parallel"] = {**parallel, "chunks": len(pieces), **info}
    return Explanation.concat(pieces, meta=meta)


# --------------------------------------------------------------------------- #
# randomness
# --------------------------------------------------------------------------- #
def shared_seed(seed):
    """The seed every chunk gets: None becomes fresh entropy (an int), drawn once here."""
    if seed is None:
        return int(np.random.SeedSequence().entropy)
    return seed


def _chunk_rng(seed):
    """The chunk's own copy of a Generator (so that every chunk starts from the caller's state)."""
    return copy.deepcopy(seed) if isinstance(seed, np.random.Generator) else seed


def _hand_back(seed, states):
    """Leave a caller's Generator where the serial call would have left it."""
    if isinstance(seed, np.random.Generator) and states and states[0] is not None:
        seed.bit_generator.state = states[0]


def _state(rng):
    return rng.bit_generator.state if isinstance(rng, np.random.Generator) else None


# --------------------------------------------------------------------------- #
# kx.explain
# --------------------------------------------------------------------------- #
class _ExplainJob:
    """What every chunk of a ``kx.explain`` call shares."""

    def __init__(self, value_function, method, options, seed):
        self.value_function, self.method, self.options, self.seed = \
            value_function, method, options, seed


def _explain_chunk(job, X):
    from ..explainers.shapley import _resolve, _run

    rng = _chunk_rng(job.seed)
    game = job.value_function.game(X)
    # the whole call's cost was estimated and checked once: the chunk does not estimate its own
    est, why, resolved = _resolve(game, job.method, dict(job.options))
    result = _run(game, est, why, resolved, rng, None)
    return result, _state(rng)


def _rows_coupled(options):
    """Why the rows of one call depend on each other under these estimator options, else None."""
    if options.get("target_width") is not None:
        return ("Bayesian SHAP with target_width= draws coalitions until the widest interval over "
                "the explained rows is narrow enough, so each row's values depend on the others")
    return None


def explain_rows(value_function, game, X, method, options, *, n_jobs=None, rows_per_chunk=None):
    """``kx.explain``'s Shapley values of ``game`` (the value function's game of ``X``), in chunks.

    Parameters
    ----------
    value_function : ValueFunction
        Builds the game of any rows of ``X`` (``value_function.game(X[rows])``).
    game : Game
        ``value_function.game(X)``: costs, ``method="auto"`` and the serial call use it.
    X : array (n, d) or DataFrame
    method : str
    options : dict
        The estimator's options, ``seed`` included.
    n_jobs, rows_per_chunk : see :func:`kernelxai.explain`.

    Returns
    -------
    Explanation
        As :func:`kernelxai.shapley_values` returns it; when the rows ran in chunks,
        ``meta["parallel"]`` records ``n_jobs`` (workers), ``chunks``,
        ``rows_per_chunk`` and ``backend``.
    """
    from ..explainers.shapley import _resolve, shapley_values

    n_jobs = check_n_jobs(n_jobs)
    rows_per_chunk = check_rows_per_chunk(rows_per_chunk)
    options = dict(options)
    seed = options.pop("seed", None)
    est, why, resolved = _resolve(game, method, dict(options))

    def serial():
        # the plain call; nested in a chunk (e.g. GP-SHAP's mean), with one product thread;
        # reductions over the background (mean embeddings) run in parts on the n_jobs workers
        if _inside_chunk() and "n_jobs" in est.accepted_options():
            result = shapley_values(game, method=est.name, seed=seed, **options, n_jobs=1)
            if why is not None:
                result.meta["auto"] = why
            return result
        with reduction_jobs(n_jobs):
            return shapley_values(game, method=method, seed=seed, **options)

    n = game.n_instances
    if n is None or n < 2:
        return serial()
    cost = est.cost(game, resolved)
    coupled = _rows_coupled(resolved)
    if coupled is not None:
        if n_jobs not in (None, 1) or rows_per_chunk is not None:
            raise ValueError(f"cannot explain the rows in parallel or in chunks: {coupled}. Use "
                             "n_jobs=1, or a fixed budget (n_samples=...) instead of target_width")
        return serial()
    if rows_per_chunk is None:
        probe = est.cost(value_function.game(take_rows(X, slice(0, 1))), resolved)
        rows_per_chunk = plan_rows(n, cost.flops, probe.flops, cost.memory, probe.memory)
    config = get_config()
    over = config["max_cost"] is not None and cost.seconds > config["max_cost"]
    if over or rows_per_chunk >= n:
        # the serial call: unchanged for rows that make one chunk, and above max_cost it
        # refuses (with its advice) before any work is done
        return serial()
    chunk_options = {k: v for k, v in options.items() if k != "progress"}
    chunk_options["progress"] = False
    if "n_jobs" in est.accepted_options():
        chunk_options["n_jobs"] = 1  # the product routes' own threads: one per chunk
    shared_rng = shared_seed(seed) if not est.exact else seed
    job = _ExplainJob(value_function, est.name, chunk_options, shared_rng)
    progress = options.get("progress")
    if progress is None:
        progress = config["progress"] is True or (
            config["progress"] == "auto" and cost.seconds > config["progress_after"])
    chunk_config = dict(config, progress=False, max_cost=None)  # max_cost: checked above, once
    out = run_rows(_explain_chunk, X, shared=job, n_jobs=n_jobs, rows_per_chunk=rows_per_chunk,
                   progress=bool(progress), desc=f"kx.explain ({est.name})", config=chunk_config)
    pieces = [piece for piece, _ in out]
    _hand_back(seed, [state for _, state in out])
    overrides = {"estimated_seconds": cost.seconds, **({"auto": why} if why is not None else {})}
    backend, workers = execution(n_jobs, len(pieces))
    return concat_results(pieces, overrides, n_jobs=workers, rows_per_chunk=rows_per_chunk,
                          backend=backend)


# --------------------------------------------------------------------------- #
# kx.explain_interactions
# --------------------------------------------------------------------------- #
class _InteractionsJob:
    def __init__(self, value_function, index, order, method, options):
        self.value_function, self.index, self.order, self.method, self.options = \
            value_function, index, order, method, options


def _interactions_chunk(job, X):
    from ..explainers.interactions import shapley_interactions

    options = dict(job.options)
    rng = _chunk_rng(options.get("random_state"))
    options["random_state"] = rng
    game = job.value_function.game(X)
    result = shapley_interactions(game, job.index, job.order, job.method, **options)
    return result, _state(rng)


def interactions_rows(value_function, game, X, index, order, method, options, *, n_jobs=None,
                      rows_per_chunk=None):
    """``kx.explain_interactions``'s interactions of ``game``, in chunks of rows (see :func:`explain_rows`).

    ``options`` are :func:`kernelxai.shapley_interactions`'s keywords (``budget``,
    ``random_state``, ``tolerance``, ``level``, ``max_elements``, ``progress``).
    """
    from ..explainers.interactions import _plan, _cost, shapley_interactions

    n_jobs = check_n_jobs(n_jobs)
    rows_per_chunk = check_rows_per_chunk(rows_per_chunk)
    options = dict(options)
    n = game.n_instances
    if n is None or n < 2:
        with reduction_jobs(n_jobs):
            return shapley_interactions(game, index, order, method, **options)
    resolved, why, budget = _plan(game, method, options.get("budget"))
    flops, _ = _cost(resolved, game, index, budget)
    if rows_per_chunk is None:
        probe, _ = _cost(resolved, value_function.game(take_rows(X, slice(0, 1))), index, budget)
        rows_per_chunk = plan_rows(n, flops, probe)
    config = get_config()
    seconds = flops / config["flops_per_second"]
    over = config["max_cost"] is not None and seconds > config["max_cost"]
    if over or rows_per_chunk >= n:
        with reduction_jobs(n_jobs):
            return shapley_interactions(game, index, order, method, **options)
    chunk_options = dict(options, progress=False)
    if resolved == "sampled":
        chunk_options["random_state"] = shared_seed(options.get("random_state"))
    job = _InteractionsJob(value_function, index, order, resolved, chunk_options)
    progress = options.get("progress")
    if progress is None:
        progress = config["progress"] is True or (
            config["progress"] == "auto" and seconds > config["progress_after"])
    chunk_config = dict(config, progress=False, max_cost=None)
    out = run_rows(_interactions_chunk, X, shared=job, n_jobs=n_jobs,
                   rows_per_chunk=rows_per_chunk, progress=bool(progress),
                   desc=f"kx.explain_interactions ({resolved})", config=chunk_config)
    pieces = [piece for piece, _ in out]
    _hand_back(options.get("random_state"), [state for _, state in out])
    overrides = {"estimated_seconds": seconds, **({"auto": why} if why is not None else {})}
    backend, workers = execution(n_jobs, len(pieces))
    return concat_results(pieces, overrides, n_jobs=workers, rows_per_chunk=rows_per_chunk,
                          backend=backend)
