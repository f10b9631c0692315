r"""Interaction indices of any order by enumeration of all 2**d coalitions: the oracle.

Takes a table of worths (2**d rows in bitmask order, bit j = player j; optionally a second
axis of instances) or a :class:`~kernelxai.Game` of few players, an index and an order;
hands on the index's values of every set of each size the order asks for (or of the sets
asked for), computed from each index's *definition*, not from its Moebius weights:

``"derivative"`` (SV, BV, SII, BII, CHII, STII, Moebius, Co-Moebius)
    :math:`I(T) = \sum_{S \subseteq N \setminus T} p(t, s)\, \Delta_T v(S)` with
    :math:`\Delta_T v(S) = \sum_{L \subseteq T} (-1)^{t-|L|} v(S \cup L)`: every coalition M
    enters with :math:`p(t, |M \setminus T|)\,(-1)^{t - |M \cap T|}`.
``"marginal"`` (SGV, BGV, CHGV, IGV, EGV)
    :math:`I(T) = \sum_{S \subseteq N \setminus T} p(t, s)\, [v(S \cup T) - v(S)]`.
``"bernoulli"`` (k-SII)
    SII of every set of sizes t..k from its derivatives, then
    :math:`\Phi_k(T) = \sum_{j=0}^{k-t} B_j \sum_{|J| = j,\, J \cap T = \emptyset} \mathrm{SII}(T \cup J)`.
``"least squares shapley"`` (FSII)
    The coefficients :math:`\beta_T` (:math:`1 \le |T| \le k`) minimising
    :math:`\sum_{0 < |S| < d} \mu(s) \big(v(S) - v(\emptyset) - \sum_{T \subseteq S} \beta_T\big)^2`,
    :math:`\mu(s) = \frac{d-1}{\binom{d}{s} s (d-s)}`, subject to
    :math:`\sum_T \beta_T = v(N) - v(\emptyset)` (and :math:`\beta_\emptyset = v(\emptyset)`),
    solved through its KKT system.
``"least squares banzhaf"`` (FBII)
    The coefficients :math:`\beta_T` (:math:`0 \le |T| \le k`) minimising
    :math:`\sum_{S} \big(v(S) - \sum_{T \subseteq S} \beta_T\big)^2` over all 2^d coalitions.

The derivative weights p are :meth:`InteractionIndex.derivative_weight`. The Moebius
route (``kernelxai.estimators._interaction_indices.from_moebius``) and the product
route (``_interaction_product_orders``) are checked against this.
"""

from __future__ import annotations

import numpy as np

from ..games._game_types import Game, tabulate
from ._interaction_indices import InteractionIndex, all_sets, bernoulli_numbers, get_index, lex_rank, set_masks

__all__ = ["MAX_ENUMERATION_PLAYERS", "OrderValues", "as_worths", "enumerate_interactions"]

#: The oracle builds (sets x 2**d) coefficient matrices and least-squares systems: small d only.
MAX_ENUMERATION_PLAYERS = 14


class OrderValues:
    """Values of one set size: ``sets`` (m, t) int rows of players and ``values`` (n, m).

    ``layout`` is ``"dense"`` (all C(d, t) sets in lexicographic order), ``"sets"`` (the sets
    asked for, in the order asked) or ``"top"`` (per instance: ``sets`` (n, m, t), the
    largest |values| first; ``certified`` (n,) bool and ``evaluated`` (n,) the number of
    sets whose value was computed). ``mass`` (n,), where given, is the sum of the absolute
    contributions (the scale of the rounding error).
    """

    __slots__ = ("size", "sets", "values", "layout", "certified", "evaluated", "mass")

    def __init__(self, size, sets, values, layout, certified=None, evaluated=None, mass=None):
        self.size, self.sets, self.values, self.layout = int(size), sets, values, layout
        self.certified, self.evaluated, self.mass = certified, evaluated, mass

    def as_dict(self) -> dict:
        """``{tuple(set): values[:, j]}`` for the dense and sets layouts (values of all instances)."""
        if self.layout == "top":
            raise ValueError("top= results differ by instance; read .sets[i] and .values[i]")
        return {tuple(int(p) for p in s): self.values[..., j] for j, s in enumerate(self.sets)}

    def __repr__(self):
        return (f"OrderValues(size={self.size}, layout={self.layout!r}, sets={self.sets.shape}, "
                f"values={self.values.shape})")


def as_worths(worths) -> tuple[np.ndarray, int, bool]:
    """(table (2**d, n), d, single): a Game is tabulated; 1-D tables are one instance."""
    if isinstance(worths, Game):
        if worths.n_players > MAX_ENUMERATION_PLAYERS:
            raise ValueError(f"enumeration takes at most {MAX_ENUMERATION_PLAYERS} players; the game "
                             f"has {worths.n_players}")
        worths = tabulate(worths)
    V = np.asarray(worths, dtype=float)
    if V.ndim not in (1, 2):
        raise ValueError(f"worths must have shape (2**d,) or (2**d, n); got {V.shape}")
    single = V.ndim == 1
    V = V.reshape(V.shape[0], -1)
    d = V.shape[0].bit_length() - 1
    if V.shape[0] != 2**d or d < 1:
        raise ValueError(f"worths must have 2**d rows, d >= 1 (one per bitmask); got {V.shape[0]}")
    if d > MAX_ENUMERATION_PLAYERS:
        raise ValueError(f"enumeration takes at most {MAX_ENUMERATION_PLAYERS} players; got {d}")
    return V, d, single


def _p_table(idx, t, d, k) -> np.ndarray:
    return np.array([float(idx.derivative_weight(t, s, d, k)) for s in range(d - t + 1)])


def _derivative_values(idx, V, d, k, sets) -> np.ndarray:
    """(n, m) sum_S p(t, s) Delta_T v(S) (or the marginal form) for sets of one size."""
    t = sets.shape[1]
    p = _p_table(idx, t, d, k)
    T = set_masks(sets)[:, None] if t else np.zeros((len(sets), 1), dtype=np.int64)
    M = np.arange(2**d, dtype=np.int64)[None, :]
    outside = np.bitwise_count(M & ~T).astype(np.int64)       # |M \ T| = s
    inside = np.bitwise_count(M & T).astype(np.int64)          # |M cap T|
    if idx.definition == "derivative" or idx.form_at(t) == "superset":
        coef = p[np.minimum(outside, d - t)] * np.where((t - inside) % 2 == 0, 1.0, -1.0)
    else:  # marginal: + p(t, |M \ T|) where T is in M, - p(t, |M|) where M misses T
        coef = np.where(inside == t, p[np.minimum(outside, d - t)], 0.0) \
            - np.where(inside == 0, p[np.minimum(outside, d - t)], 0.0)
        if t == 0:
            coef = np.zeros_like(coef)
    return (coef @ V).T


def _k_sii(idx, V, d, k, sets, t) -> np.ndarray:
    if t == 0:
        return np.repeat(V[0][:, None], len(sets), axis=1)
    sii = get_index("SII")
    B = bernoulli_numbers(k - t)
    T = set_masks(sets)
    out = np.zeros((V.shape[1], len(sets)))
    for j in range(k - t + 1):
        if B[j] == 0:
            continue
        sup = all_sets(d, t + j)
        vals = _derivative_values(sii, V, d, k, sup)          # SII of every set of size t + j
        S = set_masks(sup)
        inc = ((S[None, :] & T[:, None]) == T[:, None]).astype(float)   # T subset of S
        out += float(B[j]) * vals @ inc.T
    return out


def _design(d, sizes) -> tuple[np.ndarray, np.ndarray]:
    """[T subset S] for all coalitions S (rows, bitmask order) and the sets T of ``sizes`` (columns)."""
    cols = [all_sets(d, t) for t in sizes]
    masks = np.concatenate([set_masks(c) if c.shape[1] else np.zeros(1, dtype=np.int64) for c in cols])
    S = np.arange(2**d, dtype=np.int64)[:, None]
    return ((S & masks[None, :]) == masks[None, :]).astype(float), masks


def _faithful(idx, V, d, k) -> dict[int, np.ndarray]:
    """{t: (n, C(d, t))} for t = 0..k by the index's least-squares definition."""
    sizes = list(range(0, k + 1))
    X, _ = _design(d, sizes)
    n = V.shape[1]
    if idx.definition == "least squares banzhaf":
        beta, *_ = np.linalg.lstsq(X, V, rcond=None)
    else:
        inner = np.arange(1, 2**d - 1)
        size = np.bitwise_count(inner).astype(np.int64)
        mu = np.array([(d - 1) / (_comb(d, s) * s * (d - s)) for s in size])
        Xi = X[inner][:, 1:]                                   # beta_empty fixed at v(empty)
        y = V[inner] - V[0][None, :]
        p = Xi.shape[1]
        A = np.zeros((p + 1, p + 1))
        A[:p, :p] = Xi.T @ (mu[:, None] * Xi)
        A[:p, p] = A[p, :p] = 1.0
        rhs = np.zeros((p + 1, n))
        rhs[:p] = Xi.T @ (mu[:, None] * y)
        rhs[p] = V[-1] - V[0]
        sol = np.linalg.solve(A, rhs)
        beta = np.concatenate([V[0][None, :], sol[:p]], axis=0)
    out, start = {}, 0
    for t in sizes:
        m = _comb(d, t)
        out[t] = beta[start:start + m].T
        start += m
    return out


def _comb(n, k) -> int:
    import math
    return math.comb(int(n), int(k))


def enumerate_interactions(worths, index, order, *, sets=None, sizes=None) -> dict[int, OrderValues]:
    """Every set's index value by enumeration, from the index's definition (module docstring).

    Parameters
    ----------
    worths : array (2**d,) or (2**d, n), or Game
        Worths in bitmask order (bit j = player j), as ``kx.games.tabulate`` gives them; a
        game of at most :data:`MAX_ENUMERATION_PLAYERS` players is tabulated.
    index : str or InteractionIndex
        Any name of ``INDEX_NAMES`` or an alias.
    order : int
        k: "up to k" indices return sizes 1..k, the others size k (see ``InteractionIndex.sizes``).
    sets : sequence of sequences of int, optional
        Only these sets (any sizes the index has at order k, the empty set included);
        the result then has one entry per size, each with ``layout="sets"`` in the order
        the sets of that size were given.
    sizes : sequence of int, optional
        The set sizes wanted instead of the order's (e.g. ``(0, 1, 2)`` with the empty set).

    Returns
    -------
    dict int -> OrderValues
        Per size t: ``sets`` (m, t) and ``values`` (n, m) (``(m,)`` for a 1-D table).

    Raises
    ------
    ValueError
        Unknown index, an order outside 1..d, a set of a size the index has no value for, a
        repeated or out-of-range player, or too many players.

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.array([[(m >> j) & 1 for j in range(3)] for m in range(8)], dtype=float)
    >>> v = Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2]                  # f = x0 + 2 x1 x2 from x = 0 to x = 1
    >>> res = enumerate_interactions(v, "STII", 2)
    >>> res[1].values.round(12), float(res[2].as_dict()[(1, 2)].round(12))
    (array([1., 0., 0.]), 2.0)
    """
    idx: InteractionIndex = get_index(index)
    V, d, single = as_worths(worths)
    k = idx.check_order(order, d)
    groups = _group_sets(idx, sets, k, d) if sets is not None else \
        {t: None for t in (idx.sizes(k, d) if sizes is None else [idx.check_size(t, k, d) for t in sizes])}
    out = {}
    faithful = _faithful(idx, V, d, k) if idx.definition.startswith("least squares") else None
    for t, chosen in groups.items():
        dense = all_sets(d, t)
        which = dense if chosen is None else chosen
        if faithful is not None:
            vals = faithful[t][:, lex_rank(which, d)] if t else faithful[0][:, np.zeros(len(which), int)]
        elif idx.definition == "bernoulli":
            vals = _k_sii(idx, V, d, k, which, t)
        else:
            vals = _derivative_values(idx, V, d, k, which)
        if single:
            vals = vals[0]
        out[t] = OrderValues(t, which, vals, "dense" if chosen is None else "sets")
    return out


def _group_sets(idx, sets, k, d) -> dict[int, np.ndarray]:
    """The sets asked for, grouped by size (each sorted), checked against the index and d."""
    groups: dict[int, list] = {}
    for s in sets:
        members = sorted(int(p) for p in s)
        if len(set(members)) != len(members) or (members and not (0 <= members[0] and members[-1] < d)):
            raise ValueError(f"set {tuple(s)!r} must name distinct players among 0..{d - 1}")
        groups.setdefault(idx.check_size(len(members), k, d), []).append(members)
    return {t: np.asarray(v, dtype=np.int64).reshape(len(v), t) for t, v in sorted(groups.items())}
