"""Shapley interactions of any order and every declared index -- the entry points.

Takes a game (:func:`shapley_interactions`) or a model, the points to explain and a
value function (:func:`explain_interactions`), an index (SV, BV, SII, BII, CHII, k-SII,
STII, FSII, FBII, Moebius, Co-Moebius, SGV, BGV, CHGV, IGV, EGV), an order k and
optionally ``sets=`` or ``top=``; hands on an :class:`~kernelxai.explanation.Explanation`
with the index's values of the single features as ``values``, the sets of every size the
order asks for as ``interaction_orders`` (:class:`~kernelxai.explanation.Interactions`)
and, where all pairs were computed, the pairs as ``interactions`` (n, d, d); every result
is checked for its index's efficiency where the index has one and the result holds the
sets it sums.

The numerics live with the estimators:

* ``kernelxai.estimators._interaction_indices`` -- the sixteen indices declared as
  weightings of the Moebius transform (what ``order`` means for each, efficiency, the
  quadrature rules);
* ``kernelxai.estimators._interaction_orders`` -- any order: the request, ``method="auto"``,
  the price of the whole call (time and memory) and the run;
* ``kernelxai.estimators._interaction_enumeration`` -- ``"exact"`` for any order: the
  definitions over all 2**d coalitions (the oracle; up to 14 players);
* ``kernelxai.estimators._interaction_product_orders`` -- ``"product"`` for any order:
  product games in polynomial time (leave-|T|-out Gauss-Legendre quadrature), ``sets=``
  and the certified ``top=``.

The pairs (order 2, all of them) of SII, k-SII, STII and FSII keep their own routes, whose
values are what they were before orders beyond 2 existed:

* ``kernelxai.estimators._interaction_index`` -- the four indices as linear functionals
  of the worths (Faith-SHAP in closed form, the efficiency check);
* ``kernelxai.estimators._interaction_plan`` -- ``method="auto"`` and the cost of each route;
* ``kernelxai.estimators._interaction_exact`` -- ``"exact"``: enumeration (<= 20 players);
* ``kernelxai.estimators._interaction_product`` -- ``"product"``: leave-two-out quadrature;
* ``kernelxai.estimators._interaction_sampled`` -- ``"sampled"``: any game, unbiased
  stratified sampling with t-intervals. Sampling is offered for these pairs only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._calibration import Work
from .._config import get_config
from .._params import Anything, Boolean, Checked, InstanceOf, Integer, Real, Seed, parameters
from .._validation import check_rng
from ..estimators._interaction_exact import exact_interactions
from ..estimators._interaction_index import check_efficiency, interaction_coefficients
from ..estimators._interaction_indices import INDEX_NAMES, all_sets
from ..estimators._interaction_orders import (
    check_index_name,
    check_memory,
    check_orders_efficiency,
    describe_cost,
    order_advice,
    order_cost,
    order_request,
    run_orders,
    top_guard,
)
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
from ..explanation import Explanation, InteractionBlock, Interactions
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

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from numpy.typing import ArrayLike

__all__ = ["shapley_interactions", "explain_interactions", "INDICES", "METHODS",
           "interaction_coefficients", "leave_two_out_product", "product_interactions",
           "exact_interactions", "sampled_interactions", "AUTO_EXACT_PLAYERS", "MAX_EXACT_PLAYERS",
           "DEFAULT_TOLERANCE", "DEFAULT_BUDGET"]

#: Relative tolerance of the efficiency check.
DEFAULT_TOLERANCE = 1e-9
#: The interaction indices, as spelled in ``index=`` (aliases such as "ksii" work too).
INDICES = INDEX_NAMES

#: shapley_interactions' own parameters (explain_interactions takes them as keywords too)
_OWN_PARAMETERS = dict(index=Checked(check_index_name), order=Integer(1), method=Checked(check_method),
                       sets=Anything(none=True), top=Integer(1, none=True),
                       budget=Integer(1, none=True), seed=Seed(), tolerance=Real(0.0, none=True),
                       level=Real(0.0, 1.0), max_elements=Integer(1, none=True), progress=Boolean(none=True))


@parameters("kx.shapley_interactions",
            game=InstanceOf((Game,), "a kernelxai Game (wrap a function with kx.FunctionGame or a table with "
                                     "kx.TabularGame)"), **_OWN_PARAMETERS)
def shapley_interactions(game: Game, index: str = "k-SII", order: int = 2, method: str = "auto", *,  # noqa: PLR0913 - the index, its order, the sets and each route's options, declared once
                         sets: Iterable[Sequence[str | int]] | None = None, top: int | None = None,
                         budget: int | None = None, seed: int | np.random.Generator | None = None,
                         tolerance: float | None = DEFAULT_TOLERANCE, level: float = 0.95,
                         max_elements: int | None = None, progress: bool | None = None) -> Explanation:
    r"""Interaction indices of any order (SII, k-SII, STII, Faith-SHAP, Moebius, ...) of every instance of ``game``.

    Parameters
    ----------
    game : Game
    index : str
        One of SV, BV, SII, BII, CHII, k-SII, STII, FSII, FBII, Moebius, Co-Moebius, SGV,
        BGV, CHGV, IGV, EGV (``INDICES``); case-insensitive, and aliases work (``"ksii"``,
        ``"faith-shap"``, ``"banzhaf"``, ``"mobius"``). The user guide's page on
        interactions defines them.
    order : int
        k in 1..d, meaning what it means in shapiq: every size 1..k for k-SII, STII, FSII
        and FBII; exactly the sets of size k for SII, BII, CHII, Moebius, Co-Moebius and
        the generalised values; 1 for SV and BV.
    method : {"auto", "exact", "product", "sampled"}
        ``"product"``: product games in polynomial time, every index and order.
        ``"exact"``: enumeration of all 2**d coalitions (the pairs of SII, k-SII, STII, FSII
        up to 20 players; any other index or order up to 14). ``"sampled"``: unbiased
        stratified sampling with t-intervals, any game -- the pairs (order 2) of SII, k-SII,
        STII and FSII only. ``"auto"``: ``"product"`` for product games, else ``"exact"`` up
        to 12 players, else ``"sampled"`` where it applies (and a refusal with the reason
        where it does not).
    sets : list of sets, optional
        Only these sets, each a tuple of feature names or positions (sizes the index has at
        order k; for "up to k" indices sizes 0..k). Not with ``top``.
    top : int, optional
        Per point and size, the ``top`` sets of largest absolute value. The product route
        finds them without forming every set where its bound allows and certifies them
        (``interaction_orders[t].certified``); enumeration forms every set and selects.
    budget : int, optional
        Game evaluations of ``"sampled"`` (default 4096, at least what the exact sizes
        0, 1, d-1, d need plus two rounds). Other methods refuse it.
    seed : None, int or numpy.random.Generator
        Randomness of ``"sampled"`` (``random_state=``, scikit-learn's name, is accepted too).
    tolerance : float or None
        Relative tolerance of the efficiency check (the efficient sizes against
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
        ``values`` (n, d): the index's values of the single features (SII, SGV, CHII, CHGV:
        the Shapley values; k-SII, FSII of order k: their order-1 terms; STII of order
        k >= 2: :math:`v(\{i\}) - v(\emptyset)`; BII, BV: Banzhaf values; Moebius:
        :math:`v(\{i\}) - v(\emptyset)`); ``base_values`` :math:`v(\emptyset)`;
        ``interaction_orders`` the sets of every size the order asks for (dense, by set
        for ``sets=``, per point for ``top=``: :class:`~kernelxai.explanation.Interactions`);
        ``interactions`` (n, d, d) the pairs (symmetric, zero diagonal) where all of them
        were computed. ``meta`` records ``index``, ``order``, ``method``, ``exact``,
        ``budget`` (game evaluations), ``efficiency_error`` (None where nothing is
        checked, and ``efficiency`` says why) and ``estimated_seconds``; ``"sampled"``
        adds ``stderr``, ``lower``, ``upper`` for the values and
        ``meta["interactions_stderr"]``, ``["interactions_lower"]``,
        ``["interactions_upper"]`` (n, d, d) for the pairs. A game with scalar worths
        gives (d,) and (d, d).

    Raises
    ------
    ValueError
        Unknown index (with "did you mean"), method or order (an order the index does not
        have for d players), a set of a size without value, ``sets`` with ``top``.
    NotApplicableError
        The method does not apply to the game and request (the message names those that
        do): ``"sampled"`` beyond the pairs of SII, k-SII, STII and FSII; ``"product"`` for
        a game that is not a product game; enumeration beyond its players.
    InvalidOptionError
        ``budget`` where no sampling happens, or a budget too small.
    CostLimitError
        The estimated time exceeds ``kx.get_config()["max_cost"]``, or the memory the
        result and its work need exceeds ``kx.get_config()["max_memory"]`` (the C(d, t)
        sets of each size per point); the message says what would fit (``top=``,
        ``sets=``, a smaller order).
    RuntimeError
        The result is not efficient (a bug; please report it).

    Examples
    --------
    >>> import kernelxai as kx
    >>> g = kx.FunctionGame(lambda Z: Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2], 3)
    >>> e = kx.shapley_interactions(g, index="STII")
    >>> e.values.round(12), float(e.interactions[1, 2].round(12))
    (array([1., 0., 0.]), 2.0)
    >>> m = kx.shapley_interactions(g, index="Moebius", order=2)       # the pairs' Harsanyi dividends
    >>> m.interaction_orders.value_of((1, 2)).round(12), m.interaction_orders.sizes
    (np.float64(2.0), [2])
    """
    request = order_request(game, index, order, sets, top)
    if not request.legacy:
        return _any_order(game, request, method, budget, tolerance, max_elements, progress)
    index = request.index.name
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
            "estimated_seconds": seconds,
            # order 2 of SII is its pairs; of k-SII, STII, FSII the sizes 1 and 2 (Explanation.interaction_orders)
            "interaction_sizes": [2] if index == "SII" else [1, 2]}
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


def _any_order(game, request, method, budget, tolerance, max_elements, progress):
    """Any index and order, ``sets=``, ``top=``: enumeration or the product route (``_interaction_orders``)."""
    method, why, _ = plan_interactions(game, method, budget, index=request.index.name, order=request.order,
                                       sets=request.sets, top=request.top)
    cost = order_cost(method, game, request)
    what = f"shapley_interactions({request.describe()}, method={method!r}) ({cost.detail}; {describe_cost(cost)})"
    advice = order_advice(method, game, request)
    check_memory(cost.nbytes, what, advice)
    show = check_cost(cost.work, what, advice)
    if progress is None:
        progress = show
    res = run_orders(game, request, method, max_elements, progress, guard=top_guard(game, request, what, advice))
    for t, ov in res["blocks"].items():
        if not np.all(np.isfinite(ov.values)) or not np.all(np.isfinite(res["singles"])):
            raise FloatingPointError(f"method={method!r} produced non-finite {request.index.name} values of size "
                                     f"{t} (an overflow it cannot handle); try another method")
    rel, note = check_orders_efficiency(request, method, res, game.n_players, tolerance)
    return _orders_explanation(game, request, method, res, (rel, note), why, cost)


def _orders_explanation(game, request, method, res, efficiency, why, cost):
    """The Explanation of an any-order result: singles as values, every size in ``interaction_orders``."""
    d, idx = game.n_players, request.index
    single = game.n_instances is None
    blocks = []
    for t, ov in res["blocks"].items():
        sets, vals, cert, ev = ov.sets, ov.values, ov.certified, ov.evaluated
        if single:
            vals = vals[0]
            if ov.layout == "top":
                sets, cert, ev = sets[0], cert[0], ev[0]
        blocks.append(InteractionBlock(t, sets, vals, ov.layout, cert, ev))
    orders = Interactions(blocks, game.player_names, index=idx.name, order=request.order,
                          axes=() if single else ("instance",))
    values, base = res["singles"], res["v_empty"]
    pairs = None
    if 2 in orders and orders[2].layout == "dense":
        i, j = all_sets(d, 2).T
        pairs = np.zeros((values.shape[0], d, d))
        pairs[:, i, j] = pairs[:, j, i] = res["blocks"][2].values
    rel, note = efficiency
    meta = {**game.meta, "index": idx.name, "order": request.order, "method": method, "exact": True,
            "budget": res["budget"], "efficiency_error": rel, "efficiency": note,
            "estimated_seconds": cost.work.seconds}
    if request.top is not None:
        meta["top"] = request.top
    if why is not None:
        meta["auto"] = why
    meta["algorithm"] = ("leave-|T|-out Gauss-Legendre quadrature of the index's Moebius weights"
                         if method == "product" else "the index's definition over all 2**d coalitions")
    data = game.data
    if single:
        values, base = values[0], float(base[0])
        pairs = None if pairs is None else pairs[0]
        data = None if data is None else np.asarray(data).reshape(-1)
    return Explanation(values, base, data=data, feature_names=game.player_names, meta=meta,
                       interactions=pairs, interaction_orders=orders)


#: keywords of explain_interactions that belong to shapley_interactions
_OWN = ("budget", "seed", "tolerance", "level", "max_elements", "progress")
#: explain_interactions' named arguments (what an unknown keyword may be a typo of)
_ARGUMENTS = ("value", "background", "index", "order", "method", "sets", "top", "groups", "group_names", "output",
              "n_jobs", "rows_per_chunk")


@parameters("kx.explain_interactions", **{**PARAMETERS, **_OWN_PARAMETERS})
def explain_interactions(model: Any, X: ArrayLike, value: str = "interventional",  # noqa: PLR0913 - kx.explain's arguments plus the index, its order and the sets
                         background: ArrayLike | None = None, index: str = "k-SII", order: int = 2,
                         method: str = "auto", *, sets: Iterable[Sequence[str | int]] | None = None,
                         top: int | None = None, groups: Sequence[Sequence[int | str]] | None = None,
                         group_names: Sequence[str] | None = None, output: str | None = None,
                         n_jobs: int | None = None, rows_per_chunk: int | None = None, **kw: Any) -> Explanation:
    """Shapley interactions of any order (and other interaction indices) of a model's predictions at the rows of ``X``.

    Builds the game :func:`kx.explain <kernelxai.explain>` builds (same models, value
    functions, backgrounds, groups and outputs) and calls :func:`shapley_interactions`.

    Parameters
    ----------
    model, X, value, background, groups, group_names, output
        As in :func:`kernelxai.explain`.
    index, order, method
        As in :func:`shapley_interactions`: any of the sixteen indices, ``order`` 1..d
        (what it means depends on the index). For product kernels with
        ``value="interventional"`` or ``"functional_baseline"`` ``"auto"`` takes the exact
        polynomial-time route.
    sets : list of sets, optional
        Only these sets, each a tuple of feature (or group) names or positions, e.g.
        ``sets=[("age", "bmi"), ("age", "bmi", "bp")]``.
    top : int, optional
        The ``top`` sets of largest absolute value per point and size (one output at a time).
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
        ``values`` (n, d) the index's values of the single features, ``interaction_orders``
        every size the order asks for, ``interactions`` (n, d, d) where all pairs were
        computed, feature names from ``X``; ``meta["route"]`` as in :func:`kernelxai.explain`.

    Raises
    ------
    BackgroundRequiredError
        ``output=`` asks for outputs explained through model calls and no
        ``background`` was given.
    InvalidOptionError
        A keyword neither this function, :func:`shapley_interactions` nor the
        value function takes (with "did you mean ...?" when one is close).
    ValueError
        An unknown ``index`` (with "did you mean"), ``method`` or ``value``, an ``order``
        the index does not have, ``top`` with several outputs, or anything
        :func:`kernelxai.explain` refuses.
    CostLimitError
        The whole call (all rows, all outputs) would take more than ``max_cost`` seconds or
        hold more than ``max_memory`` bytes (see :func:`shapley_interactions`).

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from sklearn.svm import SVR
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> svr = SVR(gamma=0.5).fit(X, X[:, 0] * X[:, 1])
    >>> e = kx.explain_interactions(svr, X[:4], background=X[:20])
    >>> e.values.shape, e.interactions.shape
    ((4, 3), (4, 3, 3))
    >>> e3 = kx.explain_interactions(svr, X[:4], background=X[:20], index="k-SII", order=3)
    >>> e3.interaction_orders.sizes, e3.interaction_orders[3].values.shape
    ([1, 2, 3], (4, 1))
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
        if top is not None and len(plan.targets) > 1:
            raise ValueError(f"top= picks each point's largest sets, which differ by output; this model's "
                             f"{plan.kind!r} has {len(plan.targets)} outputs: explain one at a time "
                             "(output=...) or ask for sets=[...]")
        request = _Request(index, order, method, sets, top)
        _check_outputs_cost(plan, X, value, background, request, groups, group_names, n_jobs, kw)
        results = [explain_interactions(target, X, value, plan.background_for(target, background), index,
                                        order, method, sets=sets, top=top, groups=groups,
                                        group_names=group_names, n_jobs=n_jobs, rows_per_chunk=rows_per_chunk, **kw)
                   for _, target in plan.targets]
        held = [r.interaction_orders if r.meta.get("interaction_sizes") is None else None for r in results]
        out = plan.finish(results)
        if len(results) > 1 and all(h is not None for h in held):
            out.interaction_orders = Interactions.stack_outputs(held)
        return out
    check_n_jobs(n_jobs)
    own = {k: kw.pop(k) for k in list(kw) if k in _OWN}
    own.update({k: v for k, v in (("sets", sets), ("top", top)) if v is not None})
    built = build_game(model, X, value, background, groups=groups, group_names=group_names, options=kw)
    if kw:
        vf_names = [k for k in built.accepted if k not in ("background", "data", "groups", "group_names")]
        raise unknown_keyword_error("kx.explain_interactions", list(kw), _ARGUMENTS, value, vf_names,
                                    ("kx.shapley_interactions", list(_OWN)))
    _check_call_memory(built.game, _Request(index, order, method, sets, top), own.get("budget"))
    result = interactions_rows(built.value_function, built.game, X, index, order, method, own,
                               run=shapley_interactions, n_jobs=n_jobs, rows_per_chunk=rows_per_chunk)
    result.meta["route"] = built.route
    if built.model_output is not None:
        result.meta["model_method"] = result.meta["model_output"] = built.model_output  # the method called
    return result


class _Request:
    """index, order, method, sets and top of an ``explain_interactions`` call, as passed."""

    def __init__(self, index, order, method, sets, top):
        self.index, self.order, self.method, self.sets, self.top = index, order, method, sets, top

    def priced(self, game, budget) -> tuple[str, Work, float]:
        """(route, work, bytes) of the call on ``game`` (bytes 0 for the pairs of SII, k-SII, STII, FSII)."""
        resolved, _, budget = plan_interactions(game, self.method, budget, index=self.index, order=self.order,
                                                sets=self.sets, top=self.top)
        request = order_request(game, self.index, self.order, self.sets, self.top)
        if request.legacy:
            work, _ = interaction_cost(resolved, game, self.index, budget)
            return resolved, work, 0.0
        cost = order_cost(resolved, game, request)
        return resolved, cost.work, cost.nbytes


def _check_call_memory(game, request, budget) -> None:
    """The memory of the whole call (all rows; chunks hold parts of it) against ``max_memory``."""
    req = order_request(game, request.index, request.order, request.sets, request.top)
    if req.legacy:
        return
    resolved, _, _ = plan_interactions(game, request.method, budget, index=request.index, order=request.order,
                                       sets=request.sets, top=request.top)
    cost = order_cost(resolved, game, req)
    check_memory(cost.nbytes, f"kx.explain_interactions({req.describe()}, method={resolved!r}) ({cost.detail})",
                 order_advice(resolved, game, req))


def _check_outputs_cost(plan, X, value, background, request, groups,  # noqa: PLR0913 - explain_interactions' arguments, priced as they are passed on
                        group_names, n_jobs, kw) -> None:
    """The cost guard of a call with several outputs: all of them priced together before the first starts.

    As ``kernelxai.explainers._explain._check_outputs_cost`` for ``kx.explain``: each output's
    game is built (lazily, cheap) and its route priced (:func:`interaction_cost`, or the
    orders' price with its memory); the sum, over the workers ``n_jobs`` asks for, is held to
    ``max_cost``, the sum of the memory to ``max_memory``; outputs of the same shape are
    priced once (``kernelxai.explainers._explain.output_cost_key``). A call that would fail
    is left to fail where the outputs are explained.
    """
    if len(plan.targets) < 2:
        return
    total, nbytes, first, priced = None, 0.0, None, {}
    try:
        for _, target in plan.targets:
            key = output_cost_key(as_target(target))
            if key not in priced:
                options = {k: v for k, v in kw.items() if k not in _OWN}
                game = build_game(target, X, value, plan.background_for(target, background), groups=groups,
                                  group_names=group_names, options=options).game
                resolved, work, size = request.priced(game, kw.get("budget"))
                priced[key] = (work, size)
                if first is None:
                    first = (resolved, game, work)
            total = priced[key][0] if total is None else total + priced[key][0]
            nbytes += priced[key][1]
    except (TypeError, ValueError):
        return
    resolved, game, work = first
    k = len(plan.targets)
    what = (f"kx.explain_interactions of the {k} outputs ({plan.kind!r}: about "
            f"{format_seconds(work.seconds)} each, method={resolved!r})")
    advice = [f"fewer outputs (this model's {plan.kind!r} has {k})", "fewer rows of X",
              *cost_advice(resolved, game)]
    if nbytes:
        check_memory(nbytes, what, ["top=... or sets=[...]", "a smaller order", *advice])
    if get_config()["max_cost"] is None:
        return
    workers = 1 if n_jobs is None else execution(n_jobs, max(1, len(X)))[1]
    check_cost(total * (1.0 / workers), what, advice)
