"""Which route computes a game's pairwise Shapley interactions, and at what cost.

Takes a game, ``method=`` and ``budget=``; hands on the route (``"exact"``,
``"product"`` or ``"sampled"``, ``"auto"`` resolved and checked against the game), the
reason for an automatic choice, the checked budget, and the estimated operations of the
route with advice for when they are too many.

``"exact"``
    Enumeration of all 2**d coalitions (up to 20 players; ``"auto"`` up to 12)
    (``_interaction_exact``).
``"product"``
    Product games in polynomial time, all four indices (``_interaction_product``, which hands
    the work to the any-order engine; priced as that engine's sizes 1 and 2 by
    ``_interaction_orders.order_cost``).
``"sampled"``
    Any game: unbiased stratified sampling with t-intervals (``_interaction_sampled``).

These are the routes of the pairs (order 2, all of them) of SII, k-SII, STII and FSII.
Given ``index=`` and ``order=`` (and ``sets=``/``top=``), :func:`plan_interactions` and
:func:`interaction_cost` hand every other request -- any index, any order -- to
``_interaction_orders`` (the enumeration oracle and the product route of any order).
"""

from __future__ import annotations

import numpy as np

from .._calibration import Work
from ..games import ProductGame
from ._interaction_orders import order_cost, order_request, plan_orders
from ._interaction_sampled import sampling_plan
from ._registry import InvalidOptionError, NotApplicableError

__all__ = ["METHODS", "METHOD_ALIASES", "AUTO_EXACT_PLAYERS", "MAX_EXACT_PLAYERS", "DEFAULT_BUDGET",
           "check_method", "why_not", "applicable_methods", "interaction_cost", "cost_advice",
           "plan_interactions"]

#: The routes of ``method=`` (besides "auto").
METHODS = ("exact", "product", "sampled")
#: Other spellings of the routes.
METHOD_ALIASES = {"brute": "exact", "enumeration": "exact", "quadrature": "product",
                  "sampling": "sampled"}
#: ``method="auto"`` enumerates coalitions up to this many players.
AUTO_EXACT_PLAYERS = 12
#: ``method="exact"`` refuses above this many players.
MAX_EXACT_PLAYERS = 20
#: Default budget (game evaluations) of ``method="sampled"``.
DEFAULT_BUDGET = 4096


def check_method(method) -> str:
    """``method`` with its aliases resolved ("auto" or one of METHODS), else ValueError."""
    if isinstance(method, str):
        m = METHOD_ALIASES.get(method, method)
        if m == "auto" or m in METHODS:
            return m
    raise ValueError(f"unknown method {method!r}; accepted: 'auto', "
                     f"{', '.join(repr(m) for m in METHODS)}")


def why_not(method, game) -> str | None:
    """None if ``method`` applies to ``game``, else the reason."""
    d = game.n_players
    if method == "product" and not isinstance(game, ProductGame):
        return (f"it needs a product game (a ProductGame: interventional or functional-baseline "
                f"values of a product kernel, MMD/HSIC games) and this game is a "
                f"{type(game).__name__}")
    if method == "exact" and d > MAX_EXACT_PLAYERS:
        return f"it enumerates 2**{d} coalitions, more than the limit of 2**{MAX_EXACT_PLAYERS}"
    return None


def applicable_methods(game) -> list[str]:
    """The routes of METHODS that apply to ``game``."""
    return [m for m in METHODS if why_not(m, game) is None]


def interaction_cost(method, game, index, budget, *, order=2, sets=None, top=None) -> tuple[Work, str]:
    """Estimated work of a route on ``game``, by kind, and a one-line account of it.

    ``order``, ``sets`` and ``top`` other than the order-2 pairs of SII, k-SII, STII and FSII are
    priced by ``_interaction_orders.order_cost`` (``method`` resolved by :func:`plan_interactions`).
    """
    request = order_request(game, index, order, sets, top)
    if not request.legacy:
        cost = order_cost(method, game, request)
        return cost.work, cost.detail
    d, n = game.n_players, game.n_instances or 1
    if method == "exact":
        # the coefficients times the worths: one matrix product (BLAS)
        return (game.evaluation_work(2**d) + Work(blas_flops=2.0 * 2**d * (d * d + d) * n),
                f"2**{d} coalitions x {n} instance(s), all pairs")
    if method == "product":
        if game.n_terms() is None:
            return Work(), "unknown number of terms"
        if d >= 2:        # the pairs and the order-1 terms are the any-order engine's sizes 1 and 2
            cost = order_cost(method, game, request)
            return cost.work, cost.detail
        return game.term_work(), f"{game.n_terms()} term(s) x {n} instance(s), d = {d}: no pairs"
    # the coalitions of the exact sizes in one call, the drawn rounds in another
    _, _, n_exact, _ = sampling_plan(d, budget)
    n_exact = min(n_exact, budget)
    work = game.evaluation_work(n_exact) + Work(flops=2.0 * budget * (d * d + d) * (n + 1))
    if budget > n_exact:
        work = work + game.evaluation_work(budget - n_exact)
    return work, f"{budget} game evaluations x {n} instance(s), all pairs"


def cost_advice(method, game) -> list[str]:
    """What to try when a route costs too much."""
    advice = list(game.cost_advice())
    if method == "exact":
        advice.insert(0, "method='sampled' with budget=..., or groups of features as players")
    if method == "sampled":
        advice.insert(0, "a smaller budget=...")
    return advice


def _plan_request(game, method, budget, request) -> tuple[str, str | None, None]:
    """(method, why, None) of a request beyond the pairs of SII, k-SII, STII and FSII; no budget there."""
    resolved, why = plan_orders(game, method, request)
    if budget is not None:
        raise InvalidOptionError(
            "budget= is an option of method='sampled', which estimates the pairs (order=2) of SII, "
            f"k-SII, STII and FSII; {request.describe()} by method={resolved!r} evaluates what it needs")
    return resolved, why, None


def plan_interactions(game, method, budget, *, index=None, order=2, sets=None,
                      top=None) -> tuple[str, str | None, int | None]:
    """(method, why, budget): ``"auto"`` resolved for ``game``, checked against it, budget checked.

    With ``index`` given, a request other than the order-2 pairs of SII, k-SII, STII and FSII
    (another index, another order, ``sets=`` or ``top=``) is planned by
    ``_interaction_orders.plan_orders`` (``"exact"`` or ``"product"``; no budget).
    """
    if index is not None:
        request = order_request(game, index, order, sets, top)
        if not request.legacy:
            return _plan_request(game, method, budget, request)
    d = game.n_players
    why = None
    if method == "auto":
        if isinstance(game, ProductGame) and game.n_terms() is not None:
            method, why = "product", "a product game: polynomial-time quadrature"
        elif d <= AUTO_EXACT_PLAYERS:
            method, why = "exact", f"{d} <= {AUTO_EXACT_PLAYERS} players: enumeration"
        else:
            method, why = "sampled", (f"{d} players and no product structure: stratified sampling "
                                      "with intervals")
    reason = why_not(method, game)
    if reason is not None:
        raise NotApplicableError(
            f"method={method!r} does not apply to this game: {reason}. Methods that apply: "
            f"{', '.join(repr(m) for m in applicable_methods(game))} (or method='auto')")
    return method, why, _check_budget(method, budget)


def _check_budget(method, budget) -> int | None:
    """The budget of ``"sampled"`` (default :data:`DEFAULT_BUDGET`); other methods refuse one."""
    if method != "sampled":
        if budget is not None:
            raise InvalidOptionError(f"budget= is an option of method='sampled' only; method={method!r} "
                                     "evaluates what it needs")
        return None
    if budget is None:
        return DEFAULT_BUDGET
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
        raise InvalidOptionError(f"budget must be a positive integer (game evaluations); got {budget!r}")
    return int(budget)
