"""Which estimator ``method="auto"`` picks for a game, and why."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._registry import Estimator, InvalidOptionError, estimators, get_estimator

if TYPE_CHECKING:
    from typing import Any

    from ..games import Game

__all__ = ["choose", "choose_with_cost", "SAMPLED_RULES", "choose_sampled"]

#: What ``method="auto"`` takes when no exact route applies: the sampled estimator the arena
#: (``kx.compare_estimators``, ``benchmarks/bench_estimators.py``) measured most accurate, as rules
#: ``(smallest d, smallest budget as a multiple of d, method)``, the first match wins. A rule whose
#: method is not registered, does not apply to the game, needs a larger budget (its ``min_budget``)
#: or does not take the options given is passed over; KernelSHAP is the last word. The rules and the
#: measurements behind them: docs/user-guide/estimators.md, "Which sampled estimator".
#: Measured (benchmarks/bench_estimators.py, three product-kernel model families -- RBF SVR, kernel ridge,
#: GP mean -- 3 points; at d = 50 (16 seeds) and 200 (8 seeds) beside shapiq 1.8's approximators, same games):
#: d >= 200, from 5d: OddSHAP, 0.70-1.04x the error of shapiq's best approximator at every budget 5d-100d
#: at d = 200 (its MSR with a linear proxy at 5d-10d, its OddSHAP from 20d), 0.08-0.40x KernelSHAP's and
#: 0.2-0.8x Leverage SHAP's (which had 1.13-7.0x shapiq's best there); d >= 50, from 5d: Leverage SHAP,
#: 0.94-1.02x shapiq's best at 5d-100d at d = 50 (16 seeds; OddSHAP the same within noise, 0.92-1.10x,
#: for the cost of its proxy), 0.47-0.72x KernelSHAP's; any d from 10d: Leverage SHAP, 0.20-0.67x
#: KernelSHAP's at d = 10 (at 5d there 1.26x: KernelSHAP kept).
SAMPLED_RULES: tuple[tuple[int, float, str], ...] = (
    (200, 5.0, "oddshap"),
    (50, 5.0, "leverage_shap"),
    (1, 10.0, "leverage_shap"),
    (1, 0.0, "kernel"),
)


def choose(game: Game, options: dict[str, Any] | None = None) -> tuple[Estimator, str]:
    """The estimator ``method="auto"`` picks for ``game``, and why.

    Among the exact estimators that apply to the game and may be chosen
    automatically (enumeration up to 12 players, the product routes for
    product games), the one with the lowest estimated cost; if none applies,
    the sampled estimator the arena measured most accurate at this d and budget
    (:data:`SAMPLED_RULES`: OddSHAP from 5d evaluations at d >= 200, Leverage SHAP
    from 5d at d >= 50 and from 10d at any d), else KernelSHAP.

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
    >>> est, why = choose(kx.FunctionGame(lambda Z: Z.sum(axis=1), 20), {"budget": 60})
    >>> est.name, why
    ('kernel', 'no exact route is affordable for 20 players and this game; KernelSHAP with sampled coalitions')
    >>> choose(kx.FunctionGame(lambda Z: Z.sum(axis=1), 20), {"budget": 400})[0].name   # 20d: the arena's rule
    'leverage_shap'
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
    est, why = choose_sampled(game, options)
    return est, why, None, None


def choose_sampled(game: Game, options: dict[str, Any] | None = None) -> tuple[Estimator, str]:
    """The sampled estimator ``method="auto"`` takes when no exact route applies, and why (:data:`SAMPLED_RULES`).

    Parameters
    ----------
    game : Game
    options : dict, optional
        The options of the call; ``budget`` (game evaluations; when not given, the candidate's
        default) selects the rule, and a candidate that does not take every option given is
        passed over.

    Returns
    -------
    (Estimator, str)

    Examples
    --------
    >>> import kernelxai as kx
    >>> est, why = choose_sampled(kx.FunctionGame(lambda Z: Z.sum(axis=1), 20), {"budget": 400})
    >>> est.name in kx.available_methods(), why.startswith("no exact route is affordable for 20 players")
    (True, True)
    """
    options = dict(options or {})
    d = game.n_players
    for smallest_d, multiple, name in SAMPLED_RULES:
        if d < smallest_d or name not in estimators():
            continue
        est = get_estimator(name)
        if est.why_not(game) is not None:
            continue
        try:
            resolved = est.resolve_options(options)
        except InvalidOptionError:
            continue
        budget = resolved.get("budget")   # the budget asked for, else the one the estimator would use
        budget = est.cost(game, resolved).evaluations if budget is None else budget
        if budget is None or budget < multiple * d or budget < (est.min_budget(d) or 0):
            continue
        if name == "kernel":
            break
        return est, (f"no exact route is affordable for {d} players and this game; {name!r}, the sampled "
                     f"estimator the arena measured most accurate at this d and budget (docs: estimators)")
    return get_estimator("kernel"), (f"no exact route is affordable for {d} players and "
                                     "this game; KernelSHAP with sampled coalitions")
