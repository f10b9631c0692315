"""``kx.shapley_values``: one entry point from a game to an Explanation.

The estimators themselves are plug-ins in :mod:`kernelxai.estimators`, each
declaring the game it needs, its options and its cost. This function checks
all of that once, in one place:

1. the method exists (or is ``"auto"``, which asks every applicable estimator
   for its cost) and applies to the game -- otherwise it says why and which
   methods do;
2. the options are ones the method accepts -- otherwise it lists them;
3. the estimated cost is below ``kx.config_context(max_cost=...)`` --
   otherwise it refuses before starting and says what would make the call
   affordable; above ``progress_after`` seconds it shows a progress bar;
4. the result is finite and has the right shape, and becomes an
   :class:`~kernelxai.Explanation` whose ``meta`` records the method, whether
   it is exact, the budget used and the cost estimate.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from .._config import config_context, get_config
from .._params import Either, InstanceOf, Seed, Text, parameters
from .._validation import check_rng
from ..explanation import Explanation
from ..games import Game
from ._arena_guide import measured_error
from ._choose import choose_with_cost
from ._common import as_instances, bar_open, call_estimate, t_interval
from ._registry import (
    CostLimitError,
    Estimator,
    InvalidOptionError,
    NotApplicableError,
    available_methods,
    estimators,
    format_seconds,
    get_estimator,
)

__all__ = ["shapley_values", "available_methods", "applicable_methods", "estimate_cost",
           "t_interval"]


def option_takers(arguments) -> list[tuple]:
    """Who takes the ``**options`` of a call: the estimator ``method`` names (any of them for "auto")."""
    method = arguments.get("method", "auto")
    if isinstance(method, str) and method == "auto":
        names = sorted({n for est in estimators().values() for n in (*est.accepted_options(), *est.option_aliases)})
        return [("the estimators", names, "Their options: see kx.available_methods() and each method's "
                                          "documentation (method='auto' picks one)")]
    est = get_estimator(method)
    return [(f"method={est.name!r}", [*est.accepted_options(), *est.option_aliases])]


#: The declared parameters of the entry points from a game (the estimators' options are declared by each
#: estimator, :class:`~kernelxai.estimators.Option`).
PARAMETERS = dict(game=InstanceOf((Game,), "a kernelxai Game (wrap a function with kx.FunctionGame or a "
                                           "table with kx.TabularGame)"),
                  method=Either(Text(), InstanceOf((Estimator,), "an Estimator")), seed=Seed())


def applicable_methods(game: Game) -> list[str]:
    """Names of the registered methods that apply to ``game``.

    Parameters
    ----------
    game : Game

    Returns
    -------
    list of str
        Sorted method names (no aliases, no ``"auto"``) whose estimator's
        requirements the game meets.

    Examples
    --------
    >>> import kernelxai as kx
    >>> from kernelxai.estimators import applicable_methods
    >>> applicable_methods(kx.FunctionGame(lambda Z: Z.sum(axis=1), 3))
    ['bayes_shap', 'exact', 'kernel', 'leverage_shap', 'msr', 'oddshap', 'permutation', 'polyshap']
    >>> applicable_methods(kx.ProductGame([[0.5, 0.8, 0.9]], [[1.0, 1.0, 1.0]], [2.0]))
    ['bayes_shap', 'exact', 'kernel', 'leverage_shap', 'msr', 'newton', 'oddshap', 'permutation', 'polyshap',
     'product', 'stable']
    """
    return sorted(name for name, est in estimators().items() if est.why_not(game) is None)


def resolve_method(game, method, options) -> tuple:
    """(estimator, why it was chosen or None, its resolved options, its Cost or None) of a call.

    The cost is that ``kernelxai.estimators._choose.choose_with_cost`` computed
    when ``method="auto"`` compared the routes (None otherwise): callers
    estimate it only when it is None.
    """
    if not isinstance(game, Game):
        raise TypeError(
            f"shapley_values needs a kernelxai Game; got {type(game).__name__}. "
            "Wrap a function with kx.FunctionGame or a table with kx.TabularGame")
    if method == "auto":
        est, why, resolved, cost = choose_with_cost(game, options)
        if resolved is not None:
            return est, why, resolved, cost
    else:
        est, why = get_estimator(method), None
        reason = est.why_not(game)
        if reason is not None:
            raise NotApplicableError(
                f"method={method!r} ({est.description}) does not apply to this game: {reason}. "
                f"Methods that apply: {', '.join(repr(m) for m in applicable_methods(game))} "
                "(or method='auto')")
    return est, why, est.resolve_options(options), None


@parameters("kx.estimate_cost", consumers=option_takers, **PARAMETERS)
def estimate_cost(game: Game, method: str | Estimator = "auto", **options: Any) -> dict[str, Any]:
    """The cost estimate of ``shapley_values(game, method, **options)``, without running it.

    The method and options are checked as :func:`shapley_values` checks them;
    ``max_cost`` is not applied (this is how to see the cost of a call it
    would refuse).

    Parameters
    ----------
    game : Game
    method : str, default "auto"
        ``"auto"`` (the estimator :func:`shapley_values` would choose) or one
        of :func:`available_methods`.
    **options
        The method's options, as for :func:`shapley_values`; ``seed`` is
        accepted and ignored.

    Returns
    -------
    dict
        ``method``; the work by kind: ``flops`` (elementwise operations), ``blas_flops``
        (dense linear algebra), ``steps`` (Python-level steps), ``model_seconds`` (model
        calls, timed on the model); ``seconds``, the work priced at this machine's rates
        (:func:`kernelxai.calibrate`, or all operations at ``flops_per_second`` when that
        is set); ``memory`` (bytes), ``evaluations`` (game evaluations) and ``detail``.

    Raises
    ------
    TypeError
        ``game`` is not a kernelxai Game.
    ValueError
        ``method`` is not a registered method.
    NotApplicableError
        The method does not apply to the game.
    InvalidOptionError
        An option the method does not accept, or a bad value.

    Examples
    --------
    >>> import kernelxai as kx
    >>> g = kx.FunctionGame(lambda Z: Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2], 3)
    >>> cost = kx.estimate_cost(g, method="permutation", budget=60)
    >>> cost["method"], cost["evaluations"], cost["flops"] > 0, isinstance(cost["seconds"], float)
    ('permutation', 60, True, True)
    >>> kx.estimate_cost(kx.ProductGame([[0.5, 0.8, 0.9]], [[1.0, 1.0, 1.0]], [2.0]))["method"]   # "auto"
    'product'
    """
    options.pop("seed", None)
    est, _, resolved, cost = resolve_method(game, method, options)
    cost = est.cost(game, resolved) if cost is None else cost
    return {"method": est.name, "flops": cost.flops, "blas_flops": cost.blas_flops, "steps": cost.steps,
            "model_seconds": cost.model_seconds, "seconds": cost.seconds, "memory": cost.memory,
            "evaluations": cost.evaluations, "detail": cost.detail}


@parameters("kx.shapley_values", consumers=option_takers, **PARAMETERS)
def shapley_values(game: Game, method: str | Estimator = "exact", *, seed: int | np.random.Generator | None = None,
                   **options: Any) -> Explanation:
    """Shapley values of every player of ``game``, for every instance.

    Parameters
    ----------
    game : Game
    method : str
        ``"auto"`` or one of :func:`available_methods`: ``"exact"``,
        ``"kernel"``, ``"permutation"``, ``"product"``, ``"stable"``,
        ``"newton"``, ``"bayes_shap"``, ``"leverage_shap"``, ``"msr"``,
        ``"oddshap"``, ``"polyshap"`` (see :mod:`kernelxai.estimators`).
    seed : None, int or numpy.random.Generator
        Randomness of sampling methods.
    **options
        The method's options, e.g. ``budget`` (game evaluations) for the
        sampled methods, ``antithetic``/``level`` for ``"permutation"``,
        ``bootstrap`` for ``"kernel"``; ``max_elements`` (block size in
        float64 elements) and ``progress`` for all. Unknown options are
        answered with the list the method accepts.

    Returns
    -------
    Explanation
        ``values`` (n, d) -- or (d,) for a game with scalar worths -- and
        ``base_values`` = v(empty), so ``values.sum(-1) + base_values = v(all)``.
        ``meta`` records ``method``, ``exact``, ``budget`` (game
        evaluations), ``estimated_seconds`` and, for ``"auto"``, why the
        method was chosen.

    Raises
    ------
    NotApplicableError
        The method does not apply to the game (e.g. ``"product"`` on a game
        without product structure).
    InvalidOptionError
        An option the method does not accept, or a bad value.
    CostLimitError
        The estimated time exceeds ``kx.get_config()["max_cost"]``.

    Examples
    --------
    >>> import kernelxai as kx
    >>> g = kx.FunctionGame(lambda Z: Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2], 3)
    >>> e = kx.shapley_values(g)
    >>> e
    Explanation(shape=(3,), method='exact')
    >>> e.values.round(12)
    array([1., 1., 1.])
    >>> e = kx.shapley_values(g, method="permutation", n_permutations=200, seed=0)
    >>> bool(abs(e.values.sum() - 3.0) < 1e-9)
    True
    """
    est, why, resolved, cost = resolve_method(game, method, options)
    return run_resolved(game, est, why, resolved, seed, est.cost(game, resolved) if cost is None else cost)


def run_resolved(game, est, why, resolved, seed, cost) -> Explanation:
    """:func:`shapley_values` once the method is resolved and its cost estimated.

    ``cost=None`` skips the estimate's uses -- the ``max_cost`` check, the progress bar and
    ``meta["estimated_seconds"]`` (NaN) -- for a part of a call whose whole cost was
    estimated and checked once (a chunk of rows, :mod:`kernelxai.parallel`).
    """
    rng = None if seed is None and not est.uses_rng else check_rng(seed)
    if cost is None:
        resolved = dict(resolved, progress=False)
        with config_context(progress=False):
            result = est.run(game, rng, resolved)
        return _explanation(game, est, result, why, float("nan"), resolved)
    seconds = cost.seconds
    config = get_config()
    if config["max_cost"] is not None and seconds > config["max_cost"]:
        advice = est.advice(game, resolved) + list(game.cost_advice())
        raise CostLimitError(
            f"method={est.name!r} would take about {format_seconds(seconds)} on this game "
            f"({cost.detail}; ~{cost.flops:.1e} floating-point operations), more than "
            f"max_cost={format_seconds(config['max_cost'])}. To make it affordable: "
            + "; ".join(advice or ["a smaller problem"])
            + ". To run it anyway: `with kx.config_context(max_cost=None): ...`")
    progress = resolved.get("progress")
    if progress is None:
        progress = config["progress"] is True or (
            config["progress"] == "auto" and seconds > config["progress_after"])
    resolved["progress"] = bool(progress)
    if progress and not bar_open():  # a nested call reports into the open bar, without a line of its own
        tqdm.write(f"kernelxai: method={est.name!r}, estimated {format_seconds(seconds)} "
                   f"({cost.detail})", file=sys.stderr)
    with config_context(progress=bool(progress)), call_estimate(format_seconds(seconds)):
        result = est.run(game, rng, resolved)
    return _explanation(game, est, result, why, seconds, resolved)


def _explanation(game, est, result, why, seconds, options):
    n, d = game.n_instances or 1, game.n_players
    values = np.asarray(result.values, dtype=float)
    if values.shape != (n, d):
        raise RuntimeError(f"estimator {est.name!r} returned values of shape {values.shape}; "
                           f"expected {(n, d)} (a bug in the estimator)")
    if not np.isfinite(values).all():
        raise FloatingPointError(
            f"method {est.name!r} produced non-finite Shapley values; this is a bug or an overflow "
            "the method cannot handle -- try method='product' or 'exact'")
    base = result.base_values
    if base is None:
        base = as_instances(game.empty_value, game)
    meta = {**game.meta, "method": est.name, "exact": bool(est.exact), **result.meta,
            "budget": result.budget, "estimated_seconds": seconds}
    if why is not None:
        meta["auto"] = why
    guide = None if est.exact else measured_error(est, options, d, result.budget)
    if guide is not None:   # a sampled estimate: the error the arena measured near this d and budget, as a guide
        meta["arena_error"] = guide
    extras = {"stderr": result.stderr, "lower": result.lower, "upper": result.upper}
    covariance = result.covariance
    data = game.data
    if game.n_instances is None:  # a single game: one row, returned as 1-D
        values = values[0]
        base = float(np.asarray(base).reshape(-1)[0])
        extras = {k: (None if v is None else np.asarray(v)[0]) for k, v in extras.items()}
        covariance = None if covariance is None else np.asarray(covariance)[0]
        data = None if data is None else np.asarray(data).reshape(-1)
    kwargs = {} if covariance is None else {"covariance": covariance}
    return Explanation(values, base, data=data, feature_names=game.player_names, meta=meta,
                       **extras, **kwargs)


# kept importable from here for existing code
__all__ += ["InvalidOptionError", "NotApplicableError", "CostLimitError"]
