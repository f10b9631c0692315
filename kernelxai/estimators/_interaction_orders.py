r"""Interactions of any order and every declared index: the request, its route, its price, its run.

Takes a game, an index (any name or alias of ``_interaction_indices.INDEX_NAMES``), an
order k and optionally ``sets=`` or ``top=``; hands on what ``kx.shapley_interactions``
needs beyond today's order-2 routes:

* :func:`order_request` -- the checked request (:class:`OrderRequest`): the index's
  declaration, k, the sets asked for (feature names or positions, resolved against the
  game), ``top``; :attr:`OrderRequest.legacy` says whether today's order-2 routes
  (``_interaction_exact``, ``_interaction_product``, ``_interaction_sampled``) serve it
  (SII, k-SII, STII, FSII at order 2 with all pairs: their values stay what they were);
* :func:`plan_orders` -- ``method="auto"`` resolved and checked: ``"product"`` for product
  games (``_interaction_product_orders``, polynomial in d), ``"exact"`` (the enumeration
  oracle, ``_interaction_enumeration``) up to 12 players by default and 14 on request;
  ``"sampled"`` estimates only the order-2 pairs of the four indices above and is refused
  here with the reason;
* :func:`order_cost` -- the whole call priced before it starts: seconds
  (:class:`~kernelxai._calibration.Work`) and bytes (the C(d, t) values and sets of each
  size per point, the enumeration's coefficient matrices and least-squares systems);
  :func:`check_memory` holds the bytes to ``kx.config_context(max_memory=...)``;
* :func:`run_orders` -- the values of every size the order asks for (or of the sets asked
  for, or the ``top`` of each size per point) plus the index's values of the single
  players (the Explanation's ``values``), v(empty), v(N) and the scale of the rounding;
* :func:`check_orders_efficiency` -- the index's efficiency (sizes 1..k for k-SII, STII,
  FSII and SV; the single players for SII, CHII, SGV, CHGV) checked wherever the result
  holds all sets of those sizes, relative to the mass of the sums.

What ``top=`` costs: the product route bounds every set's value by a product of
per-player bounds, evaluates the sets of each point's best players (the seeds), then
only the sets whose bound reaches the seeds' ``top``-th value; the price announced is that
minimum (bounds plus seeds), the worst case (the bound prunes nothing) is the dense call of
that size, announced beside it. Enumeration forms every set anyway and selects.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._calibration import Work
from .._config import get_config, working_elements
from .._params import InvalidOptionError, closest
from ..games import ProductGame
from ._interaction_dense import SLAB_ELEMENTS
from ._interaction_enumeration import MAX_ENUMERATION_PLAYERS, OrderValues, enumerate_interactions
from ._interaction_indices import (
    INDEX_CONCEPTS,
    INDEX_NAMES,
    InteractionIndex,
    all_sets,
    efficiency_residual,
    get_index,
    n_sets,
)
from ._interaction_product_orders import product_interaction_orders, product_orders_work, size_plan
from ._registry import CostLimitError, NotApplicableError, check_cost, format_seconds
from ._term_tasks import estimate_nodes

__all__ = ["LEGACY_INDICES", "AUTO_ENUMERATION_PLAYERS", "OrderRequest", "OrderCost", "check_index_name",
           "order_request", "resolve_sets", "plan_orders", "orders_why_not", "order_cost", "order_advice", "value_rows",
           "check_memory", "top_guard", "run_orders", "check_orders_efficiency", "describe_cost"]

#: The indices today's order-2 routes serve (all pairs, order=2): their values do not change.
LEGACY_INDICES = ("SII", "k-SII", "STII", "FSII")
#: ``method="auto"`` enumerates coalitions for interactions of any order up to this many players.
AUTO_ENUMERATION_PLAYERS = 12
#: Elementwise operations per (term, node, player) of the product route's set-up of one pass (the
#: factors at the nodes, their ratios and row products, shared by the sizes), and per multiply-add
#: of its values: all sets of a size by matrix products (``_VALUE_FLOPS``), given sets gathered
#: (``_GATHER_FLOPS``). Measured at d = 20-300, sizes 1-5 on 2 shared cores, within a factor 2-3
#: (the node counts estimated by :func:`value_rows`) where the call takes more than ~50 ms; below
#: that the fixed costs of a call dominate and are not counted.
_PREP_FLOPS = 8.0
_VALUE_FLOPS = 0.12
_GATHER_FLOPS = 2.0
#: Exact node counts above which the cost estimate probes the game's first terms for the node count.
_PROBE_FROM = 10
#: Elementwise operations per (set, coalition) of the enumeration's coefficient matrices (bit
#: operations on int64 and their broadcasts; measured).
_COEF_FLOPS = 40.0


def _aliases():
    names = list(INDEX_NAMES)
    owner = {}
    for idx in INDEX_CONCEPTS.values():
        for spelling in (idx.name,) + idx.aliases:
            names.append(spelling)
            owner[spelling] = idx.name
    return names, owner


def check_index_name(index) -> str:
    """An interaction index: a name of ``INDEX_NAMES`` (SV, BV, SII, ..., Moebius, ..., EGV) or an alias.

    Returns the canonical name; names are compared case-insensitively on letters and digits
    ("ksii", "faith-shap", "banzhaf", "Möbius" work). A misspelt name is refused with the
    accepted names and "did you mean".

    Examples
    --------
    >>> check_index_name("faith-shap"), check_index_name("mobius")
    ('FSII', 'Moebius')
    >>> check_index_name("k-SI")
    Traceback (most recent call last):
    ...
    kernelxai._params.InvalidOptionError: unknown interaction index 'k-SI'; accepted: ... did you mean 'k-SII'?
    """
    try:
        return get_index(index).name
    except ValueError:
        pass
    names, owner = _aliases()
    close = closest(index, names)
    hint = f" did you mean {owner.get(close[0], close[0])!r}?" if close else ""
    raise InvalidOptionError(
        f"unknown interaction index {index!r}; accepted: {', '.join(repr(n) for n in INDEX_NAMES)} "
        "(case-insensitive; aliases such as 'ksii', 'faith-shap', 'banzhaf', 'mobius' work too)." + hint)


# --------------------------------------------------------------------------- #
# the request
# --------------------------------------------------------------------------- #
@dataclass(frozen=True)
class OrderRequest:
    """What is asked: the index's declaration, the order k, the sets (positions) or ``top``.

    Attributes
    ----------
    index : InteractionIndex
    order : int
        k, checked against the game's number of players.
    sets : tuple of tuple of int or None
        The sets asked for (sorted positions, duplicates removed, in the order given).
    top : int or None
        The number of sets of largest absolute value per size and point.
    """

    index: InteractionIndex
    order: int
    sets: tuple | None = None
    top: int | None = None

    @property
    def legacy(self) -> bool:
        """Whether today's order-2 routes serve the request (their values stay as they were)."""
        return self.index.name in LEGACY_INDICES and self.order == 2 and self.sets is None and self.top is None

    def sizes(self, d) -> tuple[int, ...]:
        """The set sizes the result holds: the order's (see ``InteractionIndex.sizes``) or those of ``sets``."""
        if self.sets is not None:
            return tuple(sorted({len(s) for s in self.sets}))
        return self.index.sizes(self.order, d)

    def describe(self) -> str:
        """``"index='k-SII', order=3, top=5"``: the request in the words of the call."""
        text = f"index={self.index.name!r}, order={self.order}"
        if self.sets is not None:
            text += f", {len(self.sets)} set(s)"
        if self.top is not None:
            text += f", top={self.top}"
        return text


def resolve_sets(sets, names, d) -> tuple[tuple[int, ...], ...]:
    """The sets asked for as sorted tuples of player positions (names looked up), duplicates dropped.

    Each set is a sequence of feature names or positions (a single name or position is a set
    of one); the empty tuple is the empty set.

    Raises
    ------
    ValueError
        Not a sequence of sets, an unknown name (with "did you mean"), a position out of
        range, a player repeated within a set, or no set at all.

    Examples
    --------
    >>> resolve_sets([("b", "a"), "c", (0, 1), [2, 0]], ["a", "b", "c"], 3)
    ((0, 1), (2,), (0, 2))
    """
    if isinstance(sets, (str, bytes)) or not hasattr(sets, "__iter__"):
        raise ValueError(f"sets must be a list of sets, each a tuple of feature names or positions "
                         f"(e.g. sets=[('age', 'bmi'), ('age', 'bmi', 'bp')]); got {sets!r}")
    position = {str(n): j for j, n in enumerate(names)}
    out: dict[tuple[int, ...], None] = {}
    for s in sets:
        members = (s,) if isinstance(s, (str, int, np.integer)) else tuple(np.asarray(s, dtype=object).ravel())
        pos = []
        for p in members:
            if isinstance(p, str):
                if p not in position:
                    close = closest(p, list(position), ignore_case=False)
                    hint = f"; did you mean {close[0]!r}?" if close else ""
                    raise ValueError(f"sets: unknown feature {p!r}; the features are {list(position)}{hint}")
                pos.append(position[p])
            elif isinstance(p, (int, np.integer)) and not isinstance(p, (bool, np.bool_)):
                if not 0 <= int(p) < d:
                    raise ValueError(f"sets: position {int(p)} is out of range for {d} features (0..{d - 1})")
                pos.append(int(p))
            else:
                raise ValueError(f"sets: a set holds feature names or positions; got {p!r} in {s!r}")
        if len(set(pos)) != len(pos):
            raise ValueError(f"sets: {s!r} names a feature twice")
        out[tuple(sorted(pos))] = None
    if not out:
        raise ValueError("sets is empty: give at least one set, or sets=None for all sets of the order")
    return tuple(out)


def order_request(game, index, order, sets=None, top=None) -> OrderRequest:
    """The checked request of a call on ``game`` (index, order against d, sets resolved, top).

    Raises
    ------
    ValueError
        Unknown index, an order the index does not have for ``game``'s players, a set of a
        size the index has no value for, ``sets`` with ``top``, or ``top`` < 1.
    """
    idx = get_index(check_index_name(index))
    d = game.n_players
    if idx.name in LEGACY_INDICES and sets is None and top is None and not isinstance(order, bool) \
            and isinstance(order, (int, np.integer)) and order == 2:
        return OrderRequest(idx, 2)             # today's pairs: any d, one player included (no pairs)
    k = idx.check_order(order, d)
    if sets is not None and top is not None:
        raise ValueError("give sets= (the sets you want) or top= (the largest of each size), not both")
    if top is not None and (isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1):
        raise ValueError(f"top must be a positive integer (sets per size and point); got {top!r}")
    chosen = None
    if sets is not None:
        chosen = resolve_sets(sets, game.player_names, d)
        for s in chosen:
            idx.check_size(len(s), k, d)
    return OrderRequest(idx, k, chosen, None if top is None else int(top))


# --------------------------------------------------------------------------- #
# the route
# --------------------------------------------------------------------------- #
def _is_product(game) -> bool:
    return isinstance(game, ProductGame) and game.n_terms() is not None


def orders_why_not(method, game, request) -> str | None:
    """None if ``method`` computes ``request`` on ``game``, else the reason."""
    d = game.n_players
    if method == "product" and not _is_product(game):
        return (f"it needs a product game (a ProductGame with known terms: interventional or "
                f"functional-baseline values of a product kernel, GP means, MMD/HSIC games) and this "
                f"game is a {type(game).__name__}")
    if method == "exact" and d > MAX_ENUMERATION_PLAYERS:
        return (f"it enumerates 2**{d} coalitions; interactions of any order are enumerated for at most "
                f"{MAX_ENUMERATION_PLAYERS} players")
    if method == "sampled":
        return ("method='sampled' estimates only the pairs (order=2, all of them) of SII, k-SII, STII and "
                f"FSII; {request.describe()} is computed exactly by enumeration or for product games")
    return None


def _applicable(game, request):
    return [m for m in ("exact", "product") if orders_why_not(m, game, request) is None]


def plan_orders(game, method, request) -> tuple[str, str | None]:
    """(method, why): ``"auto"`` resolved for ``game`` and ``request``, the method checked against them.

    Raises
    ------
    NotApplicableError
        The method cannot compute the request on this game (the message says why and which
        methods can); ``"auto"`` on a game of more than 12 players that is not a product game.
    """
    d = game.n_players
    if method == "auto":
        if _is_product(game):
            return "product", "a product game: leave-|T|-out quadrature, exact in polynomial time"
        if d <= AUTO_ENUMERATION_PLAYERS:
            return "exact", f"{d} <= {AUTO_ENUMERATION_PLAYERS} players: enumeration of 2**{d} coalitions"
        explicit = (f" method='exact' enumerates up to {MAX_ENUMERATION_PLAYERS} players (ask for it)."
                    if d <= MAX_ENUMERATION_PLAYERS else "")
        raise NotApplicableError(
            f"{request.describe()} of a game of {d} players that is not a product game has no route: "
            f"enumeration is automatic up to {AUTO_ENUMERATION_PLAYERS} players, and method='sampled' "
            "estimates only the pairs (order=2) of SII, k-SII, STII and FSII." + explicit
            + " Try groups of features as players (groups=...), a model with a product kernel (its "
            "interventional and functional-baseline games are product games), or index in "
            "('SII', 'k-SII', 'STII', 'FSII') with order=2 and no sets=/top= (sampled)")
    reason = orders_why_not(method, game, request)
    if reason is not None:
        others = _applicable(game, request)
        raise NotApplicableError(
            f"method={method!r} does not apply to {request.describe()} on this game: {reason}. Methods that "
            f"apply: {', '.join(repr(m) for m in others) or 'none'}"
            + (" (or method='auto')" if others else
               "; try groups of features as players (groups=...) or a model with a product kernel"))
    return method, None


# --------------------------------------------------------------------------- #
# the price
# --------------------------------------------------------------------------- #
@dataclass(frozen=True)
class OrderCost:
    """The price of a call: ``work`` (seconds at this machine's rates), ``result_bytes`` (what is handed
    back), ``working_bytes`` (the largest temporaries), a one-line ``detail``, and for ``top=`` the
    ``worst`` case (the bound prunes nothing) or None."""

    work: Work
    result_bytes: float
    working_bytes: float
    detail: str
    worst: Work | None = None

    @property
    def nbytes(self) -> float:
        """Result plus working memory."""
        return self.result_bytes + self.working_bytes


def _counts(request, d, n, method) -> tuple[dict[int, int], dict[int, int]]:
    """({size: sets computed}, {size: numbers per point handed back}), the singles (``values``) included."""
    k, idx = request.order, request.index
    if request.sets is not None:
        held: dict[int, int] = {}
        for s in request.sets:
            held[len(s)] = held.get(len(s), 0) + 1
        computed = dict(held)
        computed[1] = computed.get(1, 0) + d
        return computed, held
    sizes = idx.sizes(k, d)
    if request.top is None:
        held = {t: n_sets(d, t) for t in sizes}
        computed = dict(held)
        computed.setdefault(1, d)
        return computed, held
    held = {t: min(request.top, n_sets(d, t)) for t in sizes}
    if method == "exact":
        computed = {t: n_sets(d, t) for t in sizes}
        computed.setdefault(1, d)
        return computed, held
    computed = {1: d}
    for t in sizes:
        p = t
        while p < d and math.comb(p, t) < 2 * request.top:
            p += 1
        seeds = min(n_sets(d, t), n * math.comb(p, t))
        computed[t] = computed.get(t, 0) + (seeds if n_sets(d, t) > 2 * request.top else n_sets(d, t))
    return computed, held


def _product_work(game, request, computed, passes, gathered=()) -> Work:
    """The product route's work for ``computed`` sets per size, ``passes[t]`` passes over the terms at size t.

    Per size: the set-up of each pass (factors at the nodes, ratios, row products), the
    values (sets x terms x nodes x t multiply-adds, ``product_orders_work``; gathered one
    by one for the sizes in ``gathered``, by matrix products otherwise) and, for the lower
    sizes of k-SII and FBII, the Taylor coefficients (their recursion, twice the
    multiply-adds it counts).
    """
    d, n, terms = game.n_players, game.n_instances or 1, game.n_terms()
    idx, k = request.index, request.order
    per_size, shared = value_rows(game, request, computed)
    # the rows (factors at the nodes, ratios, row products) are formed once per pass for all sizes
    work = game.term_work() + Work(flops=_PREP_FLOPS * terms * n * shared * d * max(passes.values(), default=1))
    for t, m in computed.items():
        size = size_plan(idx, t, d, k)
        total = product_orders_work(d, terms, n, idx, k, n_sets_by_size={t: m})["multiply_adds"]
        exact = float(m) * terms * n * size.Q * max(t, 1)
        values = float(m) * terms * n * per_size[t] * max(t, 1)
        rate = _GATHER_FLOPS if t in gathered or t <= 1 else _VALUE_FLOPS
        work = work + Work(flops=rate * values + 2.0 * (total - exact))
    return work


def value_rows(game, request, computed) -> tuple[dict[int, int], int]:
    """({size: value nodes per term}, rows per term shared by the sizes): what the product route will use.

    The route (``_interaction_dense``) shares one set of rows among the sizes: as many
    Gauss-Legendre nodes as its bound gives the neediest size, then the sizes' points. That
    bound is close to the first-order route's on the same factors, estimated here from the
    game's first terms (``estimate_nodes``), plus the degree of a size's density; never more
    than the exact count.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> g = kx.ProductGame(np.full((1, 30, 100), 0.99), np.ones((1, 30, 100)), np.ones((1, 30)))
    >>> value_rows(g, order_request(g, "k-SII", 2), {1: 100, 2: 4950})   # exact: 50 (+ 2 points) and 50
    ({1: 9, 2: 7}, 9)
    """
    idx, k, d = request.index, request.order, game.n_players
    plans = {t: size_plan(idx, t, d, k) for t in computed}
    dense = [p for p in plans.values() if p.rule.density]
    # the probe forms the game's first terms: not worth it where the exact count is a few nodes anyway
    first = estimate_nodes(game) if max([p.gl_exact for p in dense] + [0]) > _PROBE_FROM else d
    gl = max([min(p.gl_exact, first + p.rule.density_degree) for p in dense] + [0])
    points = {x for p in plans.values() for x, _, _ in p.rule.points}
    per_size = {t: (gl if p.rule.density else 0) + len({x for x, i, _ in p.rule.points if i == 0})
                for t, p in plans.items()}
    return per_size, gl + len(points)


def _exact_work(game, request, computed) -> tuple[Work, float]:
    """(work, working bytes) of the enumeration: the worths, the coefficient matrices, the solves."""
    d, n = game.n_players, game.n_instances or 1
    N = 2**d
    idx, k = request.index, request.order
    work = game.evaluation_work(N)
    table = 8.0 * N * (n + d)
    if idx.definition.startswith("least squares"):
        # FBII: an SVD least-squares solve (LAPACK gelsd, about 4x a plain product's rate, measured); FSII:
        # the normal equations of the weighted fit and their KKT solve
        lo = 0 if idx.definition.endswith("banzhaf") else 1
        p = sum(n_sets(d, t) for t in range(lo, k + 1))
        solve = 4.0 * (4.0 * N * p * p + 8.0 * p**3) if lo == 0 else 2.0 * (2.0 * N * p * p + p**3)
        work = work + Work(flops=_COEF_FLOPS * N * p, blas_flops=solve + 4.0 * N * p * n)
        return work, table + 8.0 * (3.0 * N * p + 2.0 * (p + 1) ** 2)
    if idx.definition == "bernoulli":
        peak = 0.0
        for t, m in computed.items():
            for j in range(k - t + 1):
                sup = n_sets(d, t + j)
                work = work + Work(flops=_COEF_FLOPS * sup * N, blas_flops=2.0 * sup * (N + m) * n)
                peak = max(peak, 8.0 * (6.0 * sup * N + m * sup))
        return work, table + peak
    for _, m in computed.items():
        work = work + Work(flops=_COEF_FLOPS * m * N, blas_flops=2.0 * m * N * n)
    chunk = min(max(computed.values()), _chunk_sets(N))
    return work, table + 8.0 * 6.0 * chunk * N


def _chunk_sets(N) -> int:
    """Sets per block of the enumeration's coefficient matrices (six arrays of sets x coalitions)."""
    return max(1, working_elements(6 * 4) // N)


def order_cost(method, game, request) -> OrderCost:
    """The whole call's price: seconds and bytes, before it starts (module docstring).

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> g = kx.ProductGame(np.full((1, 300, 200), 0.9), np.ones((1, 300, 200)), np.ones((1, 300)),
    ...                    n_instances=10)
    >>> c = order_cost("product", g, order_request(g, "SII", 3))
    >>> round(c.result_bytes / 2**20), c.detail
    (130, 'C(200, 3) = 1313400 sets per point x 10 point(s), 300 term(s), about 20 nodes')
    """
    d, n = game.n_players, game.n_instances or 1
    computed, held = _counts(request, d, n, method)
    lead = max(held)
    if request.top is None:
        result = 8.0 * n * sum(held.values()) + 8.0 * sum(m * t for t, m in held.items())
        if held.get(2) == n_sets(d, 2) and request.sets is None:
            result += 8.0 * n * d * d                         # the pairs as (n, d, d) too
    else:
        result = 8.0 * n * sum(m * (t + 2) for t, m in held.items())
    result += 8.0 * n * d                                     # the singles (values)
    sets_word = (f"C({d}, {lead}) = {n_sets(d, lead)} sets" if request.sets is None and request.top is None
                 else f"{sum(held.values())} set(s)" if request.sets is not None
                 else f"top {request.top} of C({d}, {lead}) = {n_sets(d, lead)} sets")
    worst = None
    if method == "product":
        terms = game.n_terms()
        sizes = request.index.sizes(request.order, d)
        # top=: the bounds, the seeds and the sets the bound lets through are three passes per size
        passes = {t: 3 for t in sizes} if request.top is not None else {}
        gathered = tuple(computed) if request.sets is not None or request.top is not None else ()
        work = _product_work(game, request, computed, passes, gathered)
        if request.top is not None:
            dense = {t: n_sets(d, t) for t in sizes}
            dense[1] = max(dense.get(1, 0), d)
            worst = _product_work(game, request, dense, passes)      # the bound prunes nothing: all sets
        _, nodes = value_rows(game, request, computed)
        detail = f"{sets_word} per point x {n} point(s), {terms} term(s), about {nodes} nodes"
        # the values accumulate in the result itself; beside them one block's partial sums (its
        # instances' results), the blocks of terms (at most max_memory / 16) and a node's slabs
        per_block = min(n, max(1, SLAB_ELEMENTS // max(1, d * terms)))
        blocks = min(8.0 * working_elements(16), 64.0 * n * terms * nodes * d)
        working = 8.0 * per_block * sum(computed.values()) + blocks + 8.0 * 8 * SLAB_ELEMENTS
        return OrderCost(work, result, working, detail, worst)
    work, working = _exact_work(game, request, computed)
    detail = f"{sets_word} per point x {n} point(s), 2**{d} coalitions ({request.index.definition})"
    return OrderCost(work, result, working, detail, None)


def order_advice(method, game, request) -> list[str]:
    """What to try when a call costs too much (time or memory)."""
    advice = []
    if request.top is None and request.sets is None:
        advice.append("top=... (the largest sets of each size per point, found without forming all of them "
                      "for product games)")
        advice.append("sets=[...] (only the sets you need)")
    if request.order > 1 and request.index.order_means != "1":
        advice.append(f"a smaller order (order={request.order - 1})")
    advice.append("fewer rows of X")
    if method == "exact":
        advice.append("groups of features as players (groups=...)")
    return advice + list(game.cost_advice())


def top_guard(game, request, what, advice):
    """The cost guard of ``top=`` once the bound has spoken: the sets it lets through, priced and held to
    ``max_cost`` before they are computed (``product_interaction_orders(guard=...)``)."""
    def guard(through):
        counts = {t: m for t, (_, m) in through.items()}
        work = _product_work(game, request, counts, {}, tuple(t for t, (lay, _) in through.items() if lay == "sets"))
        d = game.n_players
        sets = ", ".join(f"{m} of the C({d}, {t}) = {n_sets(d, t)} sets of size {t}" for t, m in counts.items())
        check_cost(work, f"{what}: the bound lets {sets} through (the bounds and the seeds are done), which",
                   advice)
    return guard


def check_memory(nbytes, what, advice=()) -> None:
    """Refuse, before any work, a call that would hold more than ``kx.get_config()["max_memory"]`` bytes.

    Raises
    ------
    CostLimitError
        With the estimate, what would make it fit and how to raise the limit.
    """
    limit = get_config()["max_memory"]
    if nbytes > limit:
        raise CostLimitError(
            f"{what} would hold about {nbytes / 2**20:,.0f} MiB, more than max_memory="
            f"{limit / 2**20:,.0f} MiB. To make it fit: " + "; ".join(advice or ["a smaller problem"])
            + ". To run it anyway: `with kx.config_context(max_memory=...): ...` (bytes)")


# --------------------------------------------------------------------------- #
# the run
# --------------------------------------------------------------------------- #
def run_orders(game, request, method, max_elements=None, progress=None, guard=None) -> dict:
    """The request's values on ``game`` by ``method`` (``"exact"`` or ``"product"``).

    ``guard`` (the product route's ``top=``) is called with what the bound lets through
    before those sets are computed (:func:`top_guard`).

    Returns
    -------
    dict
        ``"blocks"`` {t: OrderValues} (``"dense"``, ``"sets"`` or ``"top"``; values (n, m)),
        ``"singles"`` (n, d) the index's values of the single players, ``"v_empty"``,
        ``"v_full"`` (n,), ``"mass"`` (n,) the absolute size of the sums (the scale of the
        efficiency check), ``"budget"`` (coalitions evaluated: 2**d or 0) and ``"dense"``
        {t: (n, C(d, t))} every size computed in full (for the efficiency check).
    """
    if method == "product":
        return _run_product(game, request, max_elements, progress, guard)
    return _run_exact(game, request)


def _with_singles(sets, d):
    """The sets asked for followed by the d single players (the singles' values are the Explanation's)."""
    return list(sets) + [(j,) for j in range(d)]


def _split_singles(blocks, user_sets, d):
    """(blocks of the sets asked for, singles (n, d)) from a result for ``_with_singles(user_sets, d)``."""
    ones = blocks[1]
    singles = ones.values[:, -d:]
    n_user = sum(1 for s in user_sets if len(s) == 1)
    out = dict(blocks)
    if n_user:
        out[1] = OrderValues(1, ones.sets[:n_user], ones.values[:, :n_user], "sets", mass=ones.mass)
    else:
        del out[1]
    return out, singles


def _run_product(game, request, max_elements, progress, guard):
    d = game.n_players
    idx, k = request.index, request.order
    common = dict(max_elements=max_elements, progress=progress)
    if request.sets is not None:
        res = product_interaction_orders(game, idx, k, sets=_with_singles(request.sets, d), **common)
        blocks, singles = _split_singles(res["values"], request.sets, d)
        dense = {1: singles}
        mass = sum(ov.mass for ov in res["values"].values())
    elif request.top is not None:
        res = product_interaction_orders(game, idx, k, top=request.top, guard=guard, **common)
        ones = product_interaction_orders(game, idx, k, sizes=(1,), **common)["values"][1]
        blocks, singles, dense, mass = res["values"], ones.values, {1: ones.values}, ones.mass
    else:
        sizes = sorted(set(idx.sizes(k, d)) | {1})
        res = product_interaction_orders(game, idx, k, sizes=sizes, **common)
        dense = {t: ov.values for t, ov in res["values"].items()}
        singles = dense[1]
        blocks = {t: ov for t, ov in res["values"].items() if t in idx.sizes(k, d)}
        mass = sum(ov.mass for ov in res["values"].values())
    return {"blocks": blocks, "singles": singles, "v_empty": res["v_empty"], "v_full": res["v_full"],
            "mass": np.asarray(mass, dtype=float), "budget": 0, "dense": dense}


def _tabulate(game) -> np.ndarray:
    """The worths of all 2**d coalitions as (2**d, n), bitmask order."""
    from ..games import tabulate

    V = np.asarray(tabulate(game), dtype=float)
    return V.reshape(V.shape[0], -1)


def _enumerate_dense(V, idx, k, sizes, d) -> dict[int, np.ndarray]:
    """{t: (n, C(d, t))} by the definitions, the coefficient matrices in blocks of sets where they allow it."""
    if idx.definition in ("derivative", "marginal"):
        out = {}
        step = _chunk_sets(V.shape[0])
        for t in sizes:
            m = n_sets(d, t)
            if m <= step:
                out[t] = enumerate_interactions(V, idx, k, sizes=(t,))[t].values
                continue
            sets = all_sets(d, t)
            parts = [enumerate_interactions(V, idx, k, sets=sets[lo:lo + step].tolist())[t].values
                     for lo in range(0, m, step)]
            out[t] = np.concatenate(parts, axis=1)
        return out
    return {t: ov.values for t, ov in enumerate_interactions(V, idx, k, sizes=sizes).items()}


def _select_top(values, sets, top):
    """Per point the ``top`` sets of largest |value| (ties by position): sets (n, top, t), values (n, top)."""
    top = min(top, values.shape[1])
    part = np.argsort(-np.abs(values), axis=1, kind="stable")[:, :top]
    return sets[part], np.take_along_axis(values, part, axis=1)


def _run_exact(game, request):
    d = game.n_players
    idx, k = request.index, request.order
    V = _tabulate(game)
    n = V.shape[1]
    if request.sets is not None:
        res = enumerate_interactions(V, idx, k, sets=_with_singles(request.sets, d))
        blocks, singles = _split_singles(res, request.sets, d)
        dense = {1: singles}
    else:
        sizes = sorted(set(idx.sizes(k, d)) | {1})
        dense = _enumerate_dense(V, idx, k, sizes, d)
        singles = dense[1]
        blocks = {}
        for t in idx.sizes(k, d):
            sets = all_sets(d, t)
            if request.top is None:
                blocks[t] = OrderValues(t, sets, dense[t], "dense")
            else:
                s, v = _select_top(dense[t], sets, request.top)
                blocks[t] = OrderValues(t, s, v, "top", certified=np.ones(n, bool),
                                        evaluated=np.full(n, n_sets(d, t)))
    return {"blocks": blocks, "singles": singles, "v_empty": V[0].copy(), "v_full": V[-1].copy(),
            "mass": np.abs(V).sum(axis=0), "budget": 2**d, "dense": dense}


# --------------------------------------------------------------------------- #
# efficiency
# --------------------------------------------------------------------------- #
def check_orders_efficiency(request, method, res, d, tolerance) -> tuple[float | None, str]:
    """(relative error or None, what was checked): the index's efficiency where the result allows it.

    The sizes :meth:`InteractionIndex.efficient_sizes` names must all be held in full
    (``res["dense"]``); the error is relative to |v(N)| + |v(empty)| + the absolute values of
    the terms + ``res["mass"]`` (the absolute size of the sums: the scale of their rounding).

    Raises
    ------
    RuntimeError
        Above ``tolerance`` (a bug; please report it).
    """
    idx, k = request.index, request.order
    sizes = idx.efficient_sizes(k, d)
    if sizes is None:
        return None, f"{idx.name} has no efficiency property: nothing to check"
    missing = [t for t in sizes if t not in res["dense"]]
    if missing:
        which = "all orders 1..d" if idx.efficiency == "all orders" else f"sizes {list(sizes)}"
        return None, (f"not checked: {idx.name}'s efficiency sums every set of {which}, and this result "
                      "does not hold all of them")
    values = {t: res["dense"][t] for t in sizes}
    resid = efficiency_residual(idx, k, d, values, res["v_empty"], res["v_full"])
    scale = (np.abs(res["v_full"]) + np.abs(res["v_empty"]) + res["mass"]
             + sum(np.abs(v).sum(axis=1) for v in values.values()))
    rel_each = np.abs(resid) / np.where(scale > 0, scale, 1.0)
    rel = float(np.max(rel_each)) if rel_each.size else 0.0
    what = f"checked: the sets of sizes {list(sizes)} sum to v(N) - v(empty)"
    if tolerance is not None and not rel <= tolerance:
        i = int(np.argmax(rel_each))
        raise RuntimeError(
            f"{idx.name} of order {k} by method={method!r} is not efficient: for instance {i} the sets of "
            f"sizes {list(sizes)} sum to {float(resid[i] + res['v_full'][i] - res['v_empty'][i])!r} but "
            f"v(N) - v(empty) = {float(res['v_full'][i] - res['v_empty'][i])!r} (relative error {rel:.1e}, "
            f"tolerance {tolerance:.0e}). This is a bug in kernelxai -- please report it")
    return rel, what


def describe_cost(cost: OrderCost) -> str:
    """``"about 2 s (worst case 40 s), 12 MiB"``: the estimate in words, for ``meta``."""
    text = f"about {format_seconds(cost.work.seconds)}"
    if cost.worst is not None:
        text += f" (if the bound prunes nothing: {format_seconds(cost.worst.seconds)})"
    return text + f", {cost.nbytes / 2**20:,.1f} MiB"
