"""Shapley interactions: SII, k-SII, STII and Faith-SHAP (FSII) of order 2 -- the entry points.

Takes a game (:func:`shapley_interactions`) or a model, the points to explain and a
value function (:func:`explain_interactions`); hands on an
:class:`~kernelxai.explanation.Explanation` with the order-1 terms as ``values`` and the
pairs as ``interactions``, every result checked for efficiency.

The numerics live with the estimators:

* ``kernelxai.estimators._interaction_index`` -- the four indices as linear functionals
  of the worths (definitions, Faith-SHAP in closed form, :func:`interaction_coefficients`,
  the efficiency check);
* ``kernelxai.estimators._interaction_plan`` -- ``method="auto"``, what applies to which
  game, the cost of each route;
* ``kernelxai.estimators._interaction_exact`` -- ``"exact"``: enumeration of 2**d coalitions;
* ``kernelxai.estimators._interaction_product`` -- ``"product"``: product games in
  polynomial time by Gauss-Legendre quadrature of Beta integrals
  (:func:`leave_two_out_product`, :func:`product_interactions`);
* ``kernelxai.estimators._interaction_sampled`` -- ``"sampled"``: any game, unbiased
  stratified sampling with t-intervals.

Order 3 is not implemented: the exact and product routes extend (Delta_ijk and a
leave-three-out product, O(d^3 Q) per term), but ``order=2`` is what is offered.
"""

from __future__ import annotations

import numpy as np

from .._config import get_config
from .._params import Boolean, Checked, InstanceOf, Integer, Real, Seed, parameters
from .._validation import check_rng
from ..estimators._interaction_exact import exact_interactions
from ..estimators._interaction_index import INDICES, check_efficiency, check_index, interaction_coefficients
from ..estimators._interaction_plan import (
    AUTO_EXACT_PLAYERS,
    DEFAULT_BUDGET,
    MAX_EXACT_PLAYERS,
    METHODS,
    check_method,
    cost_advice,
    interaction_cost,
    plan_interactions,
)
from ..estimators._interaction_product import leave_two_out_product, product_interactions
from ..estimators._interaction_sampled import sampled_interactions
from ..estimators._registry import check_cost, format_seconds
from ..explanation import Explanation
from ..games import Game
from ..models.convert import output_plan
from ..parallel._chunking import check_n_jobs
from ..parallel._runner import execution, inside_chunk
from ._explain import (
    PARAMETERS,
    BackgroundRequiredError,
    build_game,
    check_keywords,
    check_value_applies,
    output_cost_key,
    unknown_keyword_error,
)
from ._intake import Intake, as_target, dense_inputs
from ._rows import interactions_rows

__all__ = ["shapley_interactions", "explain_interactions", "INDICES", "METHODS",
           "interaction_coefficients", "leave_two_out_product", "product_interactions",
           "exact_interactions", "sampled_interactions", "AUTO_EXACT_PLAYERS", "MAX_EXACT_PLAYERS",
           "DEFAULT_TOLERANCE", "DEFAULT_BUDGET"]

#: Relative tolerance of the efficiency check.
DEFAULT_TOLERANCE = 1e-9


def _check_order(order):
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or order != 2:
        extra = " (order-1 terms alone are kx.shapley_values)" if order == 1 else ""
        raise ValueError(f"order={order!r} is not supported: only pairwise interactions, order=2, "
                         f"are implemented{extra}")
    return 2


#: shapley_interactions' own parameters (explain_interactions takes them as keywords too)
_OWN_PARAMETERS = dict(index=Checked(check_index), order=Checked(_check_order), method=Checked(check_method),
                       budget=Integer(1, none=True), seed=Seed(), tolerance=Real(0.0, none=True),
                       level=Real(0.0, 1.0), max_elements=Integer(1, none=True), progress=Boolean(none=True))


@parameters("kx.shapley_interactions",
            game=InstanceOf((Game,), "a kernelxai Game (wrap a function with kx.FunctionGame or a table with "
                                     "kx.TabularGame)"), **_OWN_PARAMETERS)
def shapley_interactions(game, index="k-SII", order=2, method="auto", *, budget=None,
                         seed=None, tolerance=DEFAULT_TOLERANCE, level=0.95,
                         max_elements=None, progress=None) -> Explanation:
    r"""Pairwise Shapley interactions (SII, k-SII, STII or Faith-SHAP) of every instance of ``game``.

    Parameters
    ----------
    game : Game
    index : {"SII", "k-SII", "STII", "FSII"}
        Case-insensitive; ``"ksii"`` and ``"faith-shap"`` work too. The user guide's page on
        interactions defines the four indices.
    order : int
        2 (pairwise). Other orders are refused.
    method : {"auto", "exact", "product", "sampled"}
        ``"exact"``: enumeration of all 2**d coalitions (<= 20 players). ``"product"``:
        polynomial time for product games, all four indices. ``"sampled"``: unbiased
        stratified sampling with t-intervals, any game. ``"auto"``: ``"product"`` for
        product games, else ``"exact"`` up to 12 players, else ``"sampled"``.
    budget : int, optional
        Game evaluations of ``"sampled"`` (default 4096, at least what the exact sizes
        0, 1, d-1, d need plus two rounds). Other methods refuse it.
    seed : None, int or numpy.random.Generator
        Randomness of ``"sampled"`` (``random_state=``, scikit-learn's name, is accepted too).
    tolerance : float or None
        Relative tolerance of the efficiency check (order-1 terms plus pairs against
        v(N) - v(empty), relative to the scale of the terms and of their rounding); None
        skips it.
    level : float
        Level of the intervals of ``"sampled"``.
    max_elements : int, optional
        float64 elements of one block (default: from ``kx.config_context(max_memory=...)``).
    progress : bool, optional
        Progress bar; default from the cost estimate (``kx.config_context(progress=...)``).

    Returns
    -------
    Explanation
        ``values`` (n, d) the order-1 terms of the index (SII: Shapley values; k-SII and
        FSII: :math:`\phi_i - \frac{1}{2} \sum_j I_{ij}`; STII: :math:`v(\{i\}) - v(\emptyset)`),
        ``interactions`` (n, d, d) the pairs (symmetric, zero diagonal), ``base_values``
        :math:`v(\emptyset)`. ``meta`` records
        ``index``, ``order``, ``method``, ``exact``, ``budget`` (game evaluations),
        ``efficiency_error`` and ``estimated_seconds``; ``"sampled"`` adds ``stderr``,
        ``lower``, ``upper`` for the values and ``meta["interactions_stderr"]``,
        ``["interactions_lower"]``, ``["interactions_upper"]`` (n, d, d) for the pairs.
        A game with scalar worths gives (d,) and (d, d).

    Raises
    ------
    ValueError
        Unknown index, method or order.
    NotApplicableError
        The method does not apply to the game (the message names those that do).
    InvalidOptionError
        ``budget`` where no sampling happens, or a budget too small.
    CostLimitError
        The estimated time exceeds ``kx.get_config()["max_cost"]``.
    RuntimeError
        The result is not efficient (a bug; please report it).

    Examples
    --------
    >>> import kernelxai as kx
    >>> g = kx.FunctionGame(lambda Z: Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2], 3)
    >>> e = kx.shapley_interactions(g, index="STII")
    >>> e.values.round(12), float(e.interactions[1, 2].round(12))
    (array([1., 0., 0.]), 2.0)
    """
    method, why, budget = plan_interactions(game, method, budget)
    work, detail = interaction_cost(method, game, index, budget)
    show = check_cost(work, f"shapley_interactions(index={index!r}, method={method!r}) ({detail})",
                      cost_advice(method, game))
    if progress is None:
        progress = show
    if method == "exact":
        res = exact_interactions(game, index, max_elements, progress)
    elif method == "product":
        # inside a chunk of kernelxai.parallel: one thread, so that the sums do not depend on it
        res = product_interactions(game, index, max_elements, progress, n_jobs=1 if inside_chunk() else None)
    else:
        res = sampled_interactions(game, index, budget, check_rng(seed), level, max_elements, progress)
    for key in ("values", "pairs"):
        if not np.all(np.isfinite(res[key])):
            raise FloatingPointError(
                f"method={method!r} produced non-finite {index} terms (an overflow it cannot "
                "handle); try another method")
    rel = check_efficiency(index, method, res, tolerance)
    return _explanation(game, index, method, res, rel, why, work.seconds)


def _explanation(game, index, method, res, rel, why, seconds):
    meta = {**game.meta, "index": index, "order": 2, "method": method,
            "exact": method != "sampled", "budget": res["budget"], "efficiency_error": rel,
            "estimated_seconds": seconds}
    if why is not None:
        meta["auto"] = why
    if method == "product":
        meta["algorithm"] = "Gauss-Legendre quadrature of the Beta-integral identities"
    extras = {"stderr": res.get("stderr"), "lower": res.get("lower"), "upper": res.get("upper")}
    if method == "sampled":
        meta.update(res["meta"])
        meta["estimator"] = ("stratified unbiased coalition sampling (exact border sizes, one "
                             "coalition and its complement per size and round, control variate)")
        meta["interval"] = f"t-interval over {res['meta']['n_rounds']} rounds"
        meta["interactions_stderr"] = res["pairs_stderr"]
        meta["interactions_lower"] = res["pairs_lower"]
        meta["interactions_upper"] = res["pairs_upper"]
    values, base, pairs, data = res["values"], res["v_empty"], res["pairs"], game.data
    if game.n_instances is None:
        values, pairs, base = values[0], pairs[0], float(base[0])
        extras = {k: (None if v is None else v[0]) for k, v in extras.items()}
        for key in ("interactions_stderr", "interactions_lower", "interactions_upper"):
            if key in meta:
                meta[key] = meta[key][0]
        data = None if data is None else np.asarray(data).reshape(-1)
    return Explanation(values, base, data=data, feature_names=game.player_names, meta=meta,
                       interactions=pairs, **extras)


#: keywords of explain_interactions that belong to shapley_interactions
_OWN = ("budget", "seed", "tolerance", "level", "max_elements", "progress")
#: explain_interactions' named arguments (what an unknown keyword may be a typo of)
_ARGUMENTS = ("value", "background", "index", "order", "method", "groups", "group_names", "output", "n_jobs",
              "rows_per_chunk")


@parameters("kx.explain_interactions", **{**PARAMETERS, **_OWN_PARAMETERS})
def explain_interactions(model, X, value="interventional", background=None, index="k-SII",
                         order=2, method="auto", *, groups=None, group_names=None, output=None,
                         n_jobs=None, rows_per_chunk=None, **kw) -> Explanation:
    """Pairwise Shapley interactions of a model's predictions at the rows of ``X``.

    Builds the game :func:`kx.explain <kernelxai.explain>` builds (same models, value
    functions, backgrounds, groups and outputs) and calls :func:`shapley_interactions`.

    Parameters
    ----------
    model, X, value, background, groups, group_names, output
        As in :func:`kernelxai.explain`.
    index, order, method
        As in :func:`shapley_interactions`; for product kernels with
        ``value="interventional"`` or ``"functional_baseline"`` ``"auto"`` takes the exact
        polynomial-time route.
    n_jobs : int, optional
        Workers over chunks of rows, as in :func:`kernelxai.explain` (joblib; honours
        ``joblib.parallel_config``, e.g. ``backend="dask"``); the result does not depend
        on it, also for ``"sampled"`` with a seed (:mod:`kernelxai.parallel`).
    rows_per_chunk : int, optional
        Rows per chunk; default from the cost model.
    **kw
        ``budget``, ``seed`` (or ``random_state``), ``tolerance``, ``level``, ``max_elements``,
        ``progress`` (see :func:`shapley_interactions`) and the value function's options
        (e.g. ``eta``).

    Returns
    -------
    Explanation
        ``values`` (n, d) order-1 terms, ``interactions`` (n, d, d), feature names from
        ``X``; ``meta["route"]`` as in :func:`kernelxai.explain`.

    Raises
    ------
    BackgroundRequiredError
        ``output=`` asks for outputs explained through model calls and no
        ``background`` was given.
    InvalidOptionError
        A keyword neither this function, :func:`shapley_interactions` nor the
        value function takes (with "did you mean ...?" when one is close).
    ValueError
        An unknown ``index``, ``method`` or ``value``, an ``order`` other than 2,
        or anything :func:`kernelxai.explain` refuses.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from sklearn.svm import SVR
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> svr = SVR(gamma=0.5).fit(X, X[:, 0] * X[:, 1])
    >>> e = kx.explain_interactions(svr, X[:4], background=X[:20])
    >>> e.values.shape, e.interactions.shape
    ((4, 3), (4, 3, 3))
    """
    X, background = dense_inputs(X, background)
    check_keywords(None, value, method, kw, entry="kx.explain_interactions", arguments=_ARGUMENTS,
                   estimator_names=("shapley_interactions", list(_OWN)))
    plan = output_plan(model, output)
    if plan is not None:
        check_value_applies(Intake(tuple(as_target(t, n) for n, t in plan.targets), plan), model, value)
        missing = plan.missing_background(background)
        if missing:
            raise BackgroundRequiredError(missing)
        _check_outputs_cost(plan, X, value, background, index, method, groups, group_names, n_jobs, kw)
        return plan.finish([explain_interactions(target, X, value,
                                                 plan.background_for(target, background), index,
                                                 order, method, groups=groups,
                                                 group_names=group_names, n_jobs=n_jobs,
                                                 rows_per_chunk=rows_per_chunk, **kw)
                            for _, target in plan.targets])
    check_n_jobs(n_jobs)
    own = {k: kw.pop(k) for k in list(kw) if k in _OWN}
    built = build_game(model, X, value, background, groups=groups, group_names=group_names, options=kw)
    if kw:
        vf_names = [k for k in built.accepted if k not in ("background", "data", "groups", "group_names")]
        raise unknown_keyword_error("kx.explain_interactions", list(kw), _ARGUMENTS, value, vf_names,
                                    ("kx.shapley_interactions", list(_OWN)))
    result = interactions_rows(built.value_function, built.game, X, index, order, method, own,
                               run=shapley_interactions, n_jobs=n_jobs, rows_per_chunk=rows_per_chunk)
    result.meta["route"] = built.route
    if built.model_output is not None:
        result.meta["model_method"] = result.meta["model_output"] = built.model_output  # the method called
    return result



def _check_outputs_cost(plan, X, value, background, index, method, groups,  # noqa: PLR0913 - explain_interactions' arguments, priced as they are passed on
                        group_names, n_jobs, kw) -> None:
    """The cost guard of a call with several outputs: all of them priced together before the first starts.

    As ``kernelxai.explainers._explain._check_outputs_cost`` for ``kx.explain``: each output's
    game is built (lazily, cheap) and its route priced (:func:`interaction_cost`); the sum, over
    the workers ``n_jobs`` asks for, is held to ``max_cost``; outputs of the same shape are priced
    once (``kernelxai.explainers._explain.output_cost_key``). A call that would fail is left
    to fail where the outputs are explained.
    """
    if get_config()["max_cost"] is None or len(plan.targets) < 2:
        return
    total, first, priced = None, None, {}
    try:
        for _, target in plan.targets:
            key = output_cost_key(as_target(target))
            if key not in priced:
                options = {k: v for k, v in kw.items() if k not in _OWN}
                game = build_game(target, X, value, plan.background_for(target, background), groups=groups,
                                  group_names=group_names, options=options).game
                resolved, _, budget = plan_interactions(game, method, kw.get("budget"))
                priced[key], _ = interaction_cost(resolved, game, index, budget)
                if first is None:
                    first = (resolved, game, priced[key])
            total = priced[key] if total is None else total + priced[key]
    except (TypeError, ValueError):
        return
    workers = 1 if n_jobs is None else execution(n_jobs, max(1, len(X)))[1]
    resolved, game, work = first
    k = len(plan.targets)
    check_cost(total * (1.0 / workers),
               f"kx.explain_interactions of the {k} outputs ({plan.kind!r}: about "
               f"{format_seconds(work.seconds)} each, method={resolved!r})",
               [f"fewer outputs (this model's {plan.kind!r} has {k})", "fewer rows of X",
                *cost_advice(resolved, game)])
