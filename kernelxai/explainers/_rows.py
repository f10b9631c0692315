"""The drivers of ``n_jobs=``: ``kx.explain``'s and ``kx.explain_interactions``' rows, in chunks.

Takes a value function, its game of the rows of ``X`` and the estimator's options, and
hands back one Explanation, bit for bit what the serial call gives: each driver plans
the chunks from the estimator's cost model and hands :mod:`kernelxai.parallel` the work
of one chunk as a callable (:func:`explain_chunk`, :func:`interactions_chunk`), so the
parallel stage never imports the entry points that call it.
"""

from __future__ import annotations

from collections.abc import Callable

from .._config import get_config
from ..estimators._common import call_estimate
from ..estimators._interaction_plan import interaction_cost, plan_interactions
from ..estimators._registry import format_seconds
from ..estimators._shapley import resolve_method, run_resolved, shapley_values
from ..explanation import Explanation
from ..parallel import plan_rows, run_rows
from ..parallel._chunking import check_n_jobs, check_rows_per_chunk, one_chunk
from ..parallel._merging import concat_results
from ..parallel._reductions import reduction_jobs
from ..parallel._runner import execution, inside_chunk, take_rows
from ..parallel._seeding import chunk_rng, hand_back, rng_state, shared_seed

__all__ = ["explain_rows", "interactions_rows", "explain_chunk", "interactions_chunk", "rows_coupled"]


# --------------------------------------------------------------------------- #
# kx.explain
# --------------------------------------------------------------------------- #
class _ExplainJob:
    """What every chunk of a ``kx.explain`` call shares."""

    def __init__(self, value_function, method, options, seed):
        self.value_function, self.method, self.options, self.seed = \
            value_function, method, options, seed


def explain_chunk(job, X) -> tuple[Explanation, dict | None]:
    """One chunk of :func:`explain_rows`: the Shapley values of the rows ``X`` and the end state of its Generator.

    A module-level function, so that it can be pickled for the workers.

    Parameters
    ----------
    job : object
        What every chunk shares: ``value_function``, ``method`` (resolved),
        ``options`` and ``seed`` (the call's seed, or a shared state for
        sampling estimators; each chunk draws from its own Generator).
    X : array (k, d) or DataFrame
        The chunk's rows.

    Returns
    -------
    result : Explanation
        The Shapley values of the k rows.
    state : dict or None
        The end state of the chunk's Generator (None without a seed), which
        ``kernelxai.parallel._seeding.hand_back`` passes on to the caller's Generator.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> krr = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] * X[:, 1])
    >>> vf = kx.values.Interventional(krr, background=X)
    >>> from types import SimpleNamespace
    >>> job = SimpleNamespace(value_function=vf, method="exact", options={}, seed=None)
    >>> result, state = explain_chunk(job, X[:2])
    >>> result.values.shape, state is None
    ((2, 3), True)
    """
    rng = chunk_rng(job.seed)
    game = job.value_function.game(X)
    # the whole call's cost was estimated and checked once: the chunk does not estimate its own
    est, why, resolved, _ = resolve_method(game, job.method, dict(job.options))
    result = run_resolved(game, est, why, resolved, rng, None)
    return result, rng_state(rng)


def rows_coupled(options) -> str | None:
    """Why the rows of one call depend on each other under these estimator options, else None.

    Rows that depend on each other cannot run in chunks: :func:`explain_rows`
    refuses ``n_jobs`` and ``rows_per_chunk`` for them.

    Parameters
    ----------
    options : dict
        The estimator's resolved options.

    Returns
    -------
    str or None
        The reason (Bayesian SHAP with ``target_width=`` widens its budget
        until every row's interval is narrow enough), or None when the rows
        are independent.

    Examples
    --------
    >>> rows_coupled({"n_samples": 256}) is None
    True
    >>> print(rows_coupled({"target_width": 0.1}))
    Bayesian SHAP with target_width= draws coalitions until the widest interval ... depend on the others
    """
    if options.get("target_width") is not None:
        return ("Bayesian SHAP with target_width= draws coalitions until the widest interval over "
                "the explained rows is narrow enough, so each row's values depend on the others")
    return None


def explain_rows(value_function, game, X, method, options, *, n_jobs=None, rows_per_chunk=None) -> Explanation:
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

    Raises
    ------
    ValueError
        ``n_jobs`` or ``rows_per_chunk`` is given for options under which the
        rows depend on each other (:func:`rows_coupled`), or either is invalid.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> krr = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] * X[:, 1])
    >>> vf = kx.values.Interventional(krr, background=X)
    >>> e = explain_rows(vf, vf.game(X[:4]), X[:4], "exact", {}, n_jobs=1, rows_per_chunk=2)
    >>> e.meta["parallel"]["chunks"], e.meta["parallel"]["backend"]
    (2, 'sequential')
    >>> bool(np.allclose(e.values, kx.shapley_values(vf.game(X[:4]), method="exact").values))
    True
    """
    n_jobs = check_n_jobs(n_jobs)
    rows_per_chunk = check_rows_per_chunk(rows_per_chunk)
    call = _ExplainCall(game, method, options, n_jobs)
    n = game.n_instances
    if n is None or n < 2:
        return call.serial()
    rows_per_chunk = call.chunk_rows(value_function, X, rows_per_chunk)
    if rows_per_chunk is None:
        return call.serial()
    config = get_config()
    # the chunks share the workers: the call takes about the work over the workers it runs on
    seconds = call.cost.seconds / execution(n_jobs, -(-n // rows_per_chunk))[1]
    if rows_per_chunk >= n or (config["max_cost"] is not None and seconds > config["max_cost"]):
        # the serial call: unchanged for rows that make one chunk, and above max_cost it
        # refuses (with its advice) before any work is done
        return call.serial()
    return call.in_chunks(value_function, X, rows_per_chunk, seconds, config)


class _ExplainCall:
    """One :func:`explain_rows` call: its method resolved and priced once, run serially or in chunks."""

    def __init__(self, game, method, options, n_jobs):
        self.game, self.n_jobs = game, n_jobs
        self.options = dict(options)
        self.seed = self.options.pop("seed", None)
        self.est, self.why, self.resolved, self.cost = resolve_method(game, method, dict(self.options))

    def serial(self) -> Explanation:
        """The plain call (``kx.shapley_values`` with the method resolved and priced once).

        Nested in a chunk (e.g. GP-SHAP's mean), with one product thread;
        reductions over the background (mean embeddings) run in parts on the
        ``n_jobs`` workers.
        """
        est, game, why = self.est, self.game, self.why
        if inside_chunk() and "n_jobs" in est.accepted_options():
            result = shapley_values(game, method=est.name, seed=self.seed, **self.options, n_jobs=1)
            if why is not None:
                result.meta["auto"] = why
            return result
        with reduction_jobs(self.n_jobs):
            return run_resolved(game, est, why, dict(self.resolved), self.seed,
                                est.cost(game, self.resolved) if self.cost is None else self.cost)

    def chunk_rows(self, value_function, X, rows_per_chunk) -> int | None:
        """Rows per chunk (from the cost model when not given), or None when the rows run as one call.

        Prices the call (``self.cost``) when ``method="auto"`` did not. Refuses
        ``n_jobs`` / ``rows_per_chunk`` for options under which the rows depend on
        each other (:func:`rows_coupled`).
        """
        est, n = self.est, self.game.n_instances
        if self.cost is None:
            self.cost = est.cost(self.game, self.resolved)
        coupled = rows_coupled(self.resolved)
        if coupled is not None:
            if self.n_jobs not in (None, 1) or rows_per_chunk is not None:
                raise ValueError(f"cannot explain the rows in parallel or in chunks: {coupled}. Use "
                                 "n_jobs=1, or a fixed budget (n_samples=...) instead of target_width")
            return None
        if rows_per_chunk is not None:
            return rows_per_chunk
        if one_chunk(n, self.cost.ops, self.cost.memory):
            return None  # what plan_rows would say, without estimating one row's cost
        probe = est.cost(value_function.game(take_rows(X, slice(0, 1))), self.resolved)
        return plan_rows(n, self.cost.ops, probe.ops, self.cost.memory, probe.memory)

    def in_chunks(self, value_function, X, rows_per_chunk, seconds, config) -> Explanation:
        """The rows in chunks of ``rows_per_chunk`` on the workers (:mod:`kernelxai.parallel`), joined."""
        est, options = self.est, self.options
        chunk_options = {k: v for k, v in options.items() if k != "progress"}
        chunk_options["progress"] = False
        if "n_jobs" in est.accepted_options():
            chunk_options["n_jobs"] = 1  # the product routes' own threads: one per chunk
        shared_rng = shared_seed(self.seed) if not est.exact else self.seed
        job = _ExplainJob(value_function, est.name, chunk_options, shared_rng)
        progress = options.get("progress")
        if progress is None:
            progress = config["progress"] is True or (
                config["progress"] == "auto" and seconds > config["progress_after"])
        chunk_config = dict(config, progress=False, max_cost=None)  # max_cost: checked above, once
        with call_estimate(format_seconds(seconds)):
            out = run_rows(explain_chunk, X, shared=job, n_jobs=self.n_jobs, rows_per_chunk=rows_per_chunk,
                           progress=bool(progress), desc=f"kx.explain ({est.name})", config=chunk_config)
        pieces = [piece for piece, _ in out]
        hand_back(self.seed, [state for _, state in out])
        overrides = {"estimated_seconds": seconds, **({"auto": self.why} if self.why is not None else {})}
        backend, workers = execution(self.n_jobs, len(pieces))
        return concat_results(pieces, overrides, n_jobs=workers, rows_per_chunk=rows_per_chunk,
                              backend=backend)


# --------------------------------------------------------------------------- #
# kx.explain_interactions
# --------------------------------------------------------------------------- #
class _InteractionsJob:
    """What every chunk of a ``kx.explain_interactions`` call shares (``run``: ``kx.shapley_interactions``)."""

    def __init__(self, run, value_function, index, order, method, options):
        self.run, self.value_function, self.index, self.order, self.method, self.options = \
            run, value_function, index, order, method, options


def interactions_chunk(job, X) -> tuple[Explanation, dict | None]:
    """One chunk of :func:`interactions_rows`: the interactions of the rows ``X`` and the end state of its Generator.

    A module-level function, so that it can be pickled for the workers.

    Parameters
    ----------
    job : object
        What every chunk shares: ``run`` (:func:`kernelxai.shapley_interactions`),
        ``value_function``, ``index``, ``order``, ``method`` (resolved) and
        ``options`` (``seed`` seeds the chunk's own Generator).
    X : array (k, d) or DataFrame
        The chunk's rows.

    Returns
    -------
    result : Explanation
        The interactions of the k rows.
    state : dict or None
        The end state of the chunk's Generator (None without a seed).

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> krr = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] * X[:, 1])
    >>> vf = kx.values.Interventional(krr, background=X)
    >>> from types import SimpleNamespace
    >>> job = SimpleNamespace(run=kx.shapley_interactions, value_function=vf, index="k-SII", order=2,
    ...                       method="exact", options={})
    >>> result, state = interactions_chunk(job, X[:2])
    >>> result.interactions.shape, state is None
    ((2, 3, 3), True)
    """
    options = dict(job.options)
    rng = chunk_rng(options.get("seed"))
    options["seed"] = rng
    game = job.value_function.game(X)
    result = job.run(game, job.index, job.order, job.method, **options)
    return result, rng_state(rng)


def interactions_rows(value_function, game, X, index, order, method, options, *,  # noqa: PLR0913 - kx.shapley_interactions' arguments as passed on, and the chunking's
                      run: Callable[..., Explanation], n_jobs=None, rows_per_chunk=None) -> Explanation:
    """``kx.explain_interactions``'s interactions of ``game``, in chunks of rows (see :func:`explain_rows`).

    ``options`` are :func:`kernelxai.shapley_interactions`'s keywords (``sets``, ``top``,
    ``budget``, ``seed``, ``tolerance``, ``level``, ``max_elements``, ``progress``). ``run`` is
    :func:`kernelxai.shapley_interactions` itself, handed in by its module (which calls this
    driver, so this module does not import it back); a module-level function, so that it
    can be pickled for the workers.

    Parameters
    ----------
    value_function : ValueFunction
        Builds the game of any rows of ``X``.
    game : Game
        ``value_function.game(X)``: costs, ``method="auto"`` and the serial call use it.
    X : array (n, d) or DataFrame
        The explained rows.
    index : str
        The interaction index (e.g. ``"k-SII"``).
    order : int
        The interaction order.
    method : str
        ``"auto"``, ``"exact"``, ``"product"`` or ``"sampled"``.
    options : dict
        :func:`kernelxai.shapley_interactions`'s keywords.
    run : callable
        :func:`kernelxai.shapley_interactions`.
    n_jobs, rows_per_chunk : see :func:`kernelxai.explain`.

    Returns
    -------
    Explanation
        As ``run`` returns it (``values`` and ``interactions``); when the rows
        ran in chunks, ``meta["parallel"]`` records them as :func:`explain_rows` does.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> krr = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0] * X[:, 1])
    >>> vf = kx.values.Interventional(krr, background=X)
    >>> e = interactions_rows(vf, vf.game(X[:4]), X[:4], "k-SII", 2, "exact", {},
    ...                       run=kx.shapley_interactions, n_jobs=1, rows_per_chunk=2)
    >>> e.interactions.shape, e.meta["parallel"]["chunks"]
    ((4, 3, 3), 2)
    """
    n_jobs = check_n_jobs(n_jobs)
    rows_per_chunk = check_rows_per_chunk(rows_per_chunk)
    options = dict(options)
    n = game.n_instances
    if n is None or n < 2:
        with reduction_jobs(n_jobs):
            return run(game, index, order, method, **options)
    request = dict(order=order, sets=options.get("sets"), top=options.get("top"))
    resolved, why, budget = plan_interactions(game, method, options.get("budget"), index=index, **request)
    work, _ = interaction_cost(resolved, game, index, budget, **request)
    if rows_per_chunk is None:
        probe, _ = interaction_cost(resolved, value_function.game(take_rows(X, slice(0, 1))), index, budget,
                                    **request)
        rows_per_chunk = plan_rows(n, work.ops, probe.ops)
    config = get_config()
    seconds = work.seconds / execution(n_jobs, -(-n // rows_per_chunk))[1]
    over = config["max_cost"] is not None and seconds > config["max_cost"]
    if over or rows_per_chunk >= n:
        with reduction_jobs(n_jobs):
            return run(game, index, order, method, **options)
    chunk_options = dict(options, progress=False)
    if resolved == "sampled":
        chunk_options["seed"] = shared_seed(options.get("seed"))
    job = _InteractionsJob(run, value_function, index, order, resolved, chunk_options)
    progress = options.get("progress")
    if progress is None:
        progress = config["progress"] is True or (
            config["progress"] == "auto" and seconds > config["progress_after"])
    chunk_config = dict(config, progress=False, max_cost=None)
    with call_estimate(format_seconds(seconds)):
        out = run_rows(interactions_chunk, X, shared=job, n_jobs=n_jobs,
                       rows_per_chunk=rows_per_chunk, progress=bool(progress),
                       desc=f"kx.explain_interactions ({resolved})", config=chunk_config)
    pieces = [piece for piece, _ in out]
    hand_back(options.get("seed"), [state for _, state in out])
    overrides = {"estimated_seconds": seconds, **({"auto": why} if why is not None else {})}
    backend, workers = execution(n_jobs, len(pieces))
    return concat_results(pieces, overrides, n_jobs=workers, rows_per_chunk=rows_per_chunk,
                          backend=backend)
