"""Estimators: from a game to Shapley values (and interactions), as declared plug-ins.

Takes games (:mod:`kernelxai.games`) and hands on arrays of values with their
intervals, which :func:`kx.shapley_values <kernelxai.estimators.shapley.shapley_values>`
wraps in an :class:`~kernelxai.explanation.Explanation`. Each estimator module
holds one family and registers it with
:func:`~kernelxai.estimators.registry.register`:

==================  ===============================  ===============================================
module              methods                          what it needs and gives
==================  ===============================  ===============================================
``exact``           ``exact`` (``brute``)            any game up to 26 players; exact
``kernelshap``      ``kernel``                       any game; KernelSHAP (WLS), intervals
``permutation``     ``permutation``                  any game; t-intervals
``quadrature``      ``product`` (``quadrature``),    a ProductGame; exact in polynomial time
                    ``stable``, ``newton``
``bayes``           ``bayes_shap`` (``bayes``)       any game; Bayesian credible intervals
==================  ===============================  ===============================================

The product routes behind ``quadrature``: ``product`` (the face: ``product_shapley``),
``gauss_legendre`` (the rule and its node counts), ``quadrature_kernel`` /
``quadrature_numba`` (numpy and compiled kernels), ``pkex_routes`` (``stable``,
``newton``), ``term_tasks`` (blocks of terms, the node count ahead of time) and
``product_reference`` (the mpmath check). Pairwise interactions
(:func:`kx.shapley_interactions <kernelxai.shapley_interactions>`):
``interaction_index`` (SII, k-SII, STII, FSII as functionals of worths),
``interaction_exact``, ``interaction_product``, ``interaction_sampled`` and
``interaction_plan`` (route and cost). ``shapley`` is the entry point
``kx.shapley_values``; ``common`` the pieces the estimators share.

``kx.shapley_values(game, method=...)`` checks a method's requirements and
options once; ``method="auto"`` asks every applicable estimator for its cost.
"""

from . import bayes, exact, kernelshap, permutation, quadrature  # noqa: F401  (registration)
from .common import t_interval
from .registry import (
    COMMON_OPTIONS,
    Cost,
    CostLimitError,
    Estimator,
    EstimatorResult,
    InvalidOptionError,
    NotApplicableError,
    Option,
    available_methods,
    estimators,
    get_estimator,
    register,
)

__all__ = ["Estimator", "EstimatorResult", "Option", "Cost", "register", "get_estimator",
           "available_methods", "estimators", "InvalidOptionError", "NotApplicableError",
           "CostLimitError", "COMMON_OPTIONS", "t_interval", "choose"]


def choose(game, options=None) -> tuple[Estimator, str]:
    """The estimator ``method="auto"`` picks for ``game``, and why.

    Among the exact estimators that apply to the game and may be chosen
    automatically (enumeration up to 12 players, the product routes for
    product games), the one with the lowest estimated cost; if none applies,
    KernelSHAP with its default budget.

    Parameters
    ----------
    game : Game
        The game to explain.
    options : dict, optional
        The options of the call (``budget``, ``max_elements``, ...). Each
        candidate sees only the options it accepts; one whose options do not
        pass its checks is left out.

    Returns
    -------
    (Estimator, str)
        The chosen estimator, and the reason (the cost estimates compared,
        or why none of the exact routes applies).

    Examples
    --------
    >>> import kernelxai as kx
    >>> from kernelxai.estimators import choose
    >>> product = kx.ProductGame([[0.5, 0.8, 0.9]], [[1.0, 1.0, 1.0]], [2.0])
    >>> est, why = choose(product)
    >>> est.name, why.startswith("cheapest exact route")
    ('product', True)
    >>> est, why = choose(kx.FunctionGame(lambda Z: Z.sum(axis=1), 20))
    >>> est.name, why
    ('kernel', 'no exact route is affordable for 20 players and this game; KernelSHAP with sampled coalitions')
    """
    est, why, _, _ = choose_with_cost(game, options)
    return est, why


def choose_with_cost(game, options=None) -> tuple:
    """:func:`choose`, with the chosen estimator's options and cost estimate when it has them.

    Returns
    -------
    (Estimator, str, dict or None, Cost or None)
        The estimator and why, as :func:`choose` gives them; then its resolved
        options and its :class:`Cost` when it was priced on all of
        ``options`` (None for KernelSHAP's fallback, or when some options
        were left out as not the chosen estimator's): a caller that resolves
        the same options need not estimate the cost again.
    """
    options = dict(options or {})
    candidates = []
    for est in estimators().values():
        if not (est.exact and est.auto) or est.why_not(game) is not None or not est.auto_eligible(game):
            continue
        accepted = est.accepted_options()
        mine = {k: v for k, v in options.items() if k in accepted}
        try:
            resolved = est.resolve_options(mine)
        except InvalidOptionError:
            continue
        cost = est.cost(game, resolved)
        whole = len(mine) == len(options)
        candidates.append((cost.ops, est.name, est, resolved if whole else None, cost if whole else None))
    if candidates:
        candidates.sort(key=lambda c: (c[0], c[1]))
        best = candidates[0]
        others = ", ".join(f"{c[1]} ~{c[0]:.2g} flops" for c in candidates[1:])
        why = f"cheapest exact route (~{best[0]:.2g} flops" + (f"; {others})" if others else ")")
        return best[2], why, best[3], best[4]
    return get_estimator("kernel"), (f"no exact route is affordable for {game.n_players} players and "
                                     "this game; KernelSHAP with sampled coalitions"), None, None
