"""Which estimator ``method="auto"`` picks for a game, and why."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._registry import Estimator, InvalidOptionError, estimators, get_estimator

if TYPE_CHECKING:
    from typing import Any

    from ..games import Game

__all__ = ["choose", "choose_with_cost"]


def choose(game: Game, options: dict[str, Any] | None = None) -> tuple[Estimator, str]:
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
