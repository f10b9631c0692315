"""Cooperative games and coalition utilities.

A *game* maps coalitions of players to worths. Coalitions are boolean arrays of
shape ``(m, d)``: column ``j`` says whether player ``j`` is in the coalition.
Where an integer code is needed, bit ``j`` of the bitmask is player ``j``.

Games here are vectorised over *instances*: a game built by a value function
for ``n`` explained points returns an array of shape ``(m, n)``; a plain game
(the taxi game of the lecture, say) returns shape ``(m,)``.

Besides the base class this module holds

* :class:`TabularGame` -- worths listed by coalition,
* :class:`FunctionGame` -- worths from a Python callable,
* :class:`ProductGame` -- weighted sums of multiplicative games, the structure
  behind product kernels that the polynomial-time estimators exploit,
* :class:`SumOfProductGames` -- weighted sums of product games (sums of product
  kernels), again a product game,
* :class:`GroupedGame` -- groups of players acting as single players,
* coalition utilities: enumeration, Shapley weights, Shapley-kernel weights and
  paired sampling from the Shapley kernel.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy.special import comb, gammaln

from .._config import working_elements
from .._validation import as_real_array, check_positive_int, check_rng

__all__ = [
    "Game",
    "TabularGame",
    "FunctionGame",
    "ProductGame",
    "SumOfProductGames",
    "GroupedGame",
    "all_coalitions",
    "coalitions_to_bitmasks",
    "bitmasks_to_coalitions",
    "shapley_weights",
    "shapley_kernel_weights",
    "coalition_size_distribution",
    "sample_coalitions",
    "MAX_ENUMERATION_PLAYERS",
]

#: Largest number of players for which enumerating all 2**d coalitions is allowed.
MAX_ENUMERATION_PLAYERS = 26


# --------------------------------------------------------------------------- #
# coalition utilities
# --------------------------------------------------------------------------- #
def _check_enumerable(d):
    d = check_positive_int(d, "number of players")
    if d > MAX_ENUMERATION_PLAYERS:
        raise ValueError(
            f"enumerating all 2**{d} coalitions is not feasible (limit: "
            f"{MAX_ENUMERATION_PLAYERS} players); use a sampling method such as "
            "method='kernel' with n_coalitions, method='permutation', or a "
            "polynomial-time method where the game allows it"
        )
    return d


def all_coalitions(d):
    """All ``2**d`` coalitions as a boolean array; row ``k`` is bitmask ``k``.

    Examples
    --------
    >>> all_coalitions(2).astype(int)
    array([[0, 0],
           [1, 0],
           [0, 1],
           [1, 1]])
    """
    d = _check_enumerable(d)
    return bitmasks_to_coalitions(np.arange(2**d, dtype=np.int64), d)


def bitmasks_to_coalitions(masks, d):
    """Decode integer bitmasks (bit ``j`` = player ``j``) to a boolean array (m, d)."""
    masks = np.asarray(masks, dtype=np.int64)
    return ((masks[:, None] >> np.arange(d, dtype=np.int64)) & 1).astype(bool)


def coalitions_to_bitmasks(coalitions):
    """Encode a boolean coalition array (m, d) as integer bitmasks (bit ``j`` = player ``j``)."""
    z = np.asarray(coalitions, dtype=bool)
    if z.ndim == 1:
        z = z[None, :]
    if z.shape[1] > 62:
        raise ValueError(f"bitmasks hold at most 62 players; got {z.shape[1]}")
    return z.astype(np.int64) @ (np.int64(1) << np.arange(z.shape[1], dtype=np.int64))


def shapley_weights(d):
    """Shapley weights mu(s) = s! (d-s-1)! / d! for s = 0..d-1.

    ``mu(|S|)`` multiplies the marginal contribution ``v(S+j) - v(S)`` of a
    player ``j`` not in ``S`` in the Shapley formula (lecture, slide "Shapley values").
    """
    d = check_positive_int(d, "number of players")
    s = np.arange(d)
    return np.exp(gammaln(s + 1) + gammaln(d - s) - gammaln(d + 1))


def shapley_kernel_weights(d, sizes):
    """Shapley-kernel weights k(d, s) = (d-1) / (C(d, s) s (d-s)) (RKHS-SHAP Prop. 4).

    Infinite for the empty and the full coalition, which estimators treat as
    exact constraints rather than as huge weights.
    """
    d = check_positive_int(d, "number of players")
    s = np.asarray(sizes)
    with np.errstate(divide="ignore"):
        w = (d - 1) / (comb(d, s) * s * (d - s))
    return np.where((s == 0) | (s == d), np.inf, w)


def coalition_size_distribution(d):
    """Probability of each coalition size s = 1..d-1 under the Shapley kernel.

    The total kernel mass of size ``s`` is ``C(d, s) k(d, s) = (d-1)/(s(d-s))``;
    normalised, it is the distribution KernelSHAP draws sizes from.
    """
    d = check_positive_int(d, "number of players", minimum=2)
    s = np.arange(1, d)
    p = 1.0 / (s * (d - s))
    return s, p / p.sum()


def sample_coalitions(d, n, seed=None, *, paired=True):
    """Draw ``n`` coalitions from the Shapley kernel (empty and full excluded).

    A size is drawn with probability proportional to ``(d-1)/(s(d-s))``, then a
    coalition of that size uniformly. With ``paired=True`` (Covert & Lee 2021)
    ``n // 2`` coalitions are drawn and each is followed by its complement,
    which has the same kernel weight; ``n`` must then be even.

    Returns
    -------
    ndarray of bool, shape (n, d)
    """
    d = check_positive_int(d, "number of players", minimum=2)
    n = check_positive_int(n, "n", minimum=1)
    rng = check_rng(seed)
    if paired and n % 2:
        raise ValueError(f"paired sampling needs an even number of coalitions; got {n}")
    n_draw = n // 2 if paired else n
    sizes, p = coalition_size_distribution(d)
    drawn = rng.choice(sizes, size=n_draw, p=p)
    # a uniform coalition of size s: the s smallest of d uniform keys
    keys = rng.random((n_draw, d))
    ranks = np.argsort(np.argsort(keys, axis=1), axis=1)
    z = ranks < drawn[:, None]
    if paired:
        z = np.stack([z, ~z], axis=1).reshape(n, d)
    return z


# --------------------------------------------------------------------------- #
# games
# --------------------------------------------------------------------------- #
class Game:
    """A cooperative game over ``n_players``, vectorised over instances.

    Subclasses implement :meth:`_evaluate`, which receives a validated boolean
    array of shape ``(m, d)`` and returns worths of shape ``(m,)`` (a single
    game) or ``(m, n_instances)``.

    Attributes
    ----------
    n_players : int
    player_names : list of str
    n_instances : int or None
        None for a single game whose worths are scalars.
    data : ndarray (n_instances, d) or None
        The explained points, when the game comes from a value function.
    meta : dict
        Free-form description (value function, model, ...) carried into the
        :class:`~kernelxai.Explanation`.
    """

    def __init__(self, n_players, player_names=None, n_instances=None, data=None, meta=None):
        self.n_players = check_positive_int(n_players, "n_players")
        if player_names is None:
            player_names = [f"x{j}" for j in range(self.n_players)]
        player_names = [str(p) for p in player_names]
        if len(player_names) != self.n_players:
            raise ValueError(
                f"player_names has {len(player_names)} entries but the game has "
                f"{self.n_players} players"
            )
        self.player_names = player_names
        if n_instances is not None:
            n_instances = check_positive_int(n_instances, "n_instances")
        self.n_instances = n_instances
        self.data = data
        self.meta = dict(meta or {})

    # -- public ----------------------------------------------------------------
    def __call__(self, coalitions):
        """Worths of ``coalitions`` (bool array (m, d), or (d,) for one coalition)."""
        z, single = self._check_coalitions(coalitions)
        out = np.asarray(self._evaluate(z), dtype=float)
        expected = (len(z),) if self.n_instances is None else (len(z), self.n_instances)
        if out.shape != expected:
            raise ValueError(
                f"{type(self).__name__} returned worths of shape {out.shape}; expected {expected}"
            )
        if not np.all(np.isfinite(out)):
            bad = np.argwhere(~np.isfinite(out))[0]
            members = np.flatnonzero(z[bad[0]]).tolist()
            raise ValueError(
                f"the game returned a non-finite worth ({out[tuple(bad)]}) for coalition "
                f"{members}; worths must be finite numbers"
            )
        return out[0] if single else out

    @property
    def empty_value(self):
        """v(empty set)."""
        return self(np.zeros(self.n_players, dtype=bool))

    @property
    def full_value(self):
        """v(all players)."""
        return self(np.ones(self.n_players, dtype=bool))

    @property
    def is_vectorised(self):
        return self.n_instances is not None

    # -- cost model ------------------------------------------------------------
    def evaluation_flops(self, n_coalitions):
        """Estimated floating-point operations of evaluating ``n_coalitions`` coalitions.

        Used by the estimators' cost models (``method="auto"``, progress bars,
        the ``max_cost`` ceiling). The default assumes a cheap game (a few
        operations per coalition, player and instance); games whose worths
        are expensive (model calls, linear solves) override it.
        """
        return 4.0 * float(n_coalitions) * (self.n_instances or 1) * self.n_players

    def cost_advice(self):
        """Ways to make this game cheaper to explain (sentences for error messages)."""
        return []

    def grouped(self, groups, names=None):
        """The game in which each group of players acts as one player."""
        return GroupedGame(self, groups, names=names)

    def __repr__(self):
        n = "" if self.n_instances is None else f", n_instances={self.n_instances}"
        return f"{type(self).__name__}(n_players={self.n_players}{n})"

    # -- for subclasses --------------------------------------------------------
    def _evaluate(self, coalitions):  # pragma: no cover - abstract
        raise NotImplementedError

    def _check_coalitions(self, coalitions):
        z = np.asarray(coalitions)
        single = z.ndim == 1
        if single:
            z = z[None, :]
        if z.ndim != 2 or z.shape[1] != self.n_players:
            raise ValueError(
                f"coalitions must be a boolean array of shape (m, {self.n_players}) "
                f"(one column per player); got shape {np.shape(coalitions)}"
            )
        if z.dtype != bool:
            if z.dtype.kind in "iu" and np.all((z == 0) | (z == 1)):
                z = z.astype(bool)
            else:
                raise ValueError(
                    "coalitions must be boolean (or integers 0/1); got dtype "
                    f"{z.dtype}{' with values other than 0/1' if z.dtype.kind in 'iu' else ''}"
                )
        return z, single


class FunctionGame(Game):
    """A game whose worths come from a callable ``fn(coalitions) -> worths``.

    Parameters
    ----------
    fn : callable
        Receives a boolean array (m, d); returns (m,) or (m, n_instances).
    n_players : int
    player_names : list of str, optional
    n_instances : int, optional
    """

    def __init__(self, fn, n_players, player_names=None, n_instances=None, data=None, meta=None):
        if not callable(fn):
            raise TypeError(f"fn must be callable; got {type(fn).__name__}")
        super().__init__(n_players, player_names, n_instances, data, meta)
        self.fn = fn

    def _evaluate(self, coalitions):
        return self.fn(coalitions)


class TabularGame(Game):
    """A game given by the worth of every coalition.

    Parameters
    ----------
    values : mapping or array
        Either a mapping from tuples of player indices to worths, e.g.
        ``{(): 0, (0,): 6, (1,): 12, (0, 1): 12, ...}`` (every coalition must be
        listed; order inside a tuple does not matter), or an array of length
        ``2**d`` indexed by bitmask (bit ``j`` = player ``j``), optionally with a
        second axis of instances.
    player_names : list of str, optional

    Examples
    --------
    The taxi game of the lecture (Amy, Bob, Claire):

    >>> taxi = TabularGame({(): 0, (0,): 6, (1,): 12, (2,): 42, (0, 1): 12,
    ...                     (0, 2): 42, (1, 2): 42, (0, 1, 2): 42},
    ...                    player_names=["Amy", "Bob", "Claire"])
    >>> taxi([[True, True, False]])
    array([12.])
    """

    def __init__(self, values, player_names=None):
        if isinstance(values, Mapping):
            table, d = self._table_from_mapping(values, player_names)
        else:
            table = as_real_array(values, "values")
            if table.ndim not in (1, 2):
                raise ValueError(
                    "values must be a mapping of coalitions to worths or an array of "
                    f"shape (2**d,) or (2**d, n_instances); got shape {table.shape}"
                )
            size = table.shape[0]
            d = int(round(np.log2(size))) if size > 0 else -1
            if size < 2 or 2**d != size:
                raise ValueError(
                    f"an array of worths must have length 2**d (one per bitmask); got {size}"
                )
        if not np.all(np.isfinite(table)):
            raise ValueError("values contain NaN or inf; every worth must be a finite number")
        n_instances = table.shape[1] if table.ndim == 2 else None
        super().__init__(d, player_names, n_instances)
        self.table = table

    @staticmethod
    def _table_from_mapping(values, player_names):
        keys = [tuple(sorted(int(i) for i in k)) for k in values]
        members = {i for k in keys for i in k}
        if player_names is not None:
            d = len(player_names)
        else:
            d = max(members) + 1 if members else 0
        if d < 1:
            raise ValueError("the game needs at least one player")
        if members and (min(members) < 0 or max(members) >= d):
            raise ValueError(
                f"player indices must lie in 0..{d - 1}; got {sorted(members)}"
            )
        if len(set(keys)) != len(keys):
            raise ValueError("a coalition is listed twice in values")
        for key, worth in zip(keys, values.values()):
            if not np.all(np.isfinite(as_real_array(worth, f"the worth of coalition {key}"))):
                raise ValueError(
                    f"the worth of coalition {key} is {worth!r}; worths must be finite (no NaN or inf)"
                )
        first = np.asarray(next(iter(values.values())), dtype=float)
        table = np.full((2**d,) + first.shape, np.nan)
        for key, worth in zip(keys, values.values()):
            mask = sum(1 << i for i in key)
            table[mask] = worth
        missing = np.flatnonzero(np.isnan(table.reshape(2**d, -1)).any(axis=1))
        if len(missing):
            names = [tuple(np.flatnonzero(bitmasks_to_coalitions([m], d)[0]).tolist()) for m in missing[:5]]
            raise ValueError(
                f"values lists {len(keys)} of the {2**d} coalitions; missing e.g. {names}. "
                "Every coalition, the empty one included, needs a worth"
            )
        return table, d

    def _evaluate(self, coalitions):
        return self.table[coalitions_to_bitmasks(coalitions)]


class GroupedGame(Game):
    """Groups of players of ``game`` acting as single players (group Shapley).

    Parameters
    ----------
    game : Game
    groups : sequence of sequences of int
        A partition of the players of ``game``.
    names : list of str, optional
        Group names; by default the member names joined by ``+``.
    """

    def __init__(self, game, groups, names=None):
        groups = [list(map(int, g)) for g in groups]
        flat = sorted(i for g in groups for i in g)
        if any(len(g) == 0 for g in groups):
            raise ValueError("every group needs at least one player")
        if flat != list(range(game.n_players)):
            raise ValueError(
                f"groups must partition the {game.n_players} players (each exactly once); got {groups}"
            )
        if names is None:
            names = ["+".join(game.player_names[i] for i in g) for g in groups]
        # a group has no single feature value, so the explained points' data (one
        # column per feature) does not carry over; the ungrouped game keeps it
        super().__init__(len(groups), names, game.n_instances, None, game.meta)
        self.game = game
        self.groups = groups
        self._membership = np.zeros((len(groups), game.n_players), dtype=bool)
        for k, g in enumerate(groups):
            self._membership[k, g] = True

    def _evaluate(self, coalitions):
        return self.game(coalitions.astype(np.int64) @ self._membership.astype(np.int64) > 0)

    def evaluation_flops(self, n_coalitions):
        return self.game.evaluation_flops(n_coalitions)

    def cost_advice(self):
        return self.game.cost_advice()


class ProductGame(Game):
    """A weighted sum of multiplicative games, one sum per instance.

    .. math::
        v_k(S) = \\sum_r w_{kr} \\prod_{l \\in S} a_{krl} \\prod_{l \\notin S} c_{krl}

    This is the structure product kernels give every kernel-based value function
    (:mod:`kernelxai.product`): the functional baseline has one term per training point with
    ``c = 1``; the interventional game one term per (training, background) pair.
    Shapley values of such a game are available in polynomial time
    (``method="product"``), with no coalition enumeration.

    Parameters
    ----------
    a, c : array (n_instances or 1, R, d)
        Factors of a present / absent player. A leading axis of length 1
        broadcasts over instances.
    weights : array (n_instances or 1, R)
    n_instances : int, optional
        Needed only when every array broadcasts (leading axis 1).

    Subclasses with too many terms to hold in memory override
    :meth:`iter_terms` to generate them in blocks.
    """

    def __init__(self, a=None, c=None, weights=None, *, n_players=None, n_instances=None,
                 player_names=None, data=None, meta=None):
        if a is not None:
            a, c, weights = (np.asarray(x, dtype=float) for x in (a, c, weights))
            if a.ndim == 2:
                a, c, weights = a[None], c[None], weights[None]
            if a.ndim != 3 or c.ndim != 3 or weights.ndim != 2:
                raise ValueError(
                    "a and c must have shape (n_instances, R, d) and weights (n_instances, R); "
                    f"got {a.shape}, {c.shape}, {weights.shape}"
                )
            n_players = a.shape[2]
            leading = {a.shape[0], c.shape[0], weights.shape[0]} - {1}
            if len(leading) > 1 or c.shape[1:] != a.shape[1:] or weights.shape[1] != a.shape[1]:
                raise ValueError(
                    f"a {a.shape}, c {c.shape} and weights {weights.shape} do not broadcast "
                    "over (n_instances, R, d)"
                )
            if n_instances is None:
                n_instances = leading.pop() if leading else 1
            for name, arr in (("a", a), ("c", c), ("weights", weights)):
                if not np.all(np.isfinite(arr)):
                    raise ValueError(f"{name} contains NaN or inf")
        if n_players is None:
            raise ValueError("n_players is required when no factor arrays are given")
        super().__init__(n_players, player_names, n_instances, data, meta)
        self._a, self._c, self._w = a, c, weights

    def n_terms(self):
        """Multiplicative terms per instance (None if unknown); the product routes cost O(terms d^2)."""
        return None if self._a is None else int(self._a.shape[1])

    def evaluation_flops(self, n_coalitions):
        terms = self.n_terms()
        if terms is None:
            return super().evaluation_flops(n_coalitions)
        return 2.0 * float(n_coalitions) * (self.n_instances or 1) * terms * self.n_players

    def iter_terms(self, max_elements=None):
        """Yield ``(rows, w, a, c)`` blocks covering all terms of all instances.

        ``rows`` is a slice of instances; ``w`` has shape (len(rows) or 1, R_b),
        ``a`` and ``c`` (len(rows) or 1, R_b, d). Terms of one instance may be
        split across blocks; the blocks' contributions add up.
        """
        n, (_, R, d) = self.n_instances, self._a.shape
        if max_elements is None:
            max_elements = working_elements(8)
        rows_per_block = max(1, max_elements // max(R * d, 1))
        for start in range(0, n, rows_per_block):
            rows = slice(start, min(n, start + rows_per_block))
            pick = (lambda x: x if x.shape[0] == 1 else x[rows])
            yield rows, pick(self._w), pick(self._a), pick(self._c)

    def _evaluate(self, coalitions):
        out = np.zeros((len(coalitions), self.n_instances))
        for rows, w, a, c in self.iter_terms():
            prod = np.ones((len(coalitions),) + np.broadcast_shapes(a.shape[:2], w.shape))
            for l in range(self.n_players):
                inside = coalitions[:, l][:, None, None]
                prod *= np.where(inside, a[None, :, :, l], c[None, :, :, l])
            block = np.einsum("mkr,kr->mk", prod, np.broadcast_to(w, prod.shape[1:]))
            out[:, rows] += block
        return out

    def grouped(self, groups, names=None):
        """Groups as players; still a :class:`ProductGame` (factors multiply within a group)."""
        return _GroupedProductGame(self, groups, names)


class SumOfProductGames(ProductGame):
    """The weighted sum v(S) = sum_g w_g v_g(S) of product games -- again a product game.

    Its multiplicative terms are those of every component, each component's
    weights scaled by its w_g, so the polynomial-time routes
    (``method="product"``) apply unchanged; worths (``method="exact"`` and the
    sampling estimators) are the weighted sums of the components' worths, by
    each component's own fast route (mean embeddings, exp(Z log a), ...). A
    kernel expansion with a :class:`~kernelxai.kernels.SumKernel`
    sum_r c_r k_r is the sum of the expansions with the product kernels k_r,
    and its interventional and functional-baseline games are these sums.

    Parameters
    ----------
    games : sequence of ProductGame
        At least one; all with the same players and number of instances.
    weights : sequence of float, optional
        w_g (default all 1).
    player_names, data, meta : optional
        Default: those of the first game.
    """

    def __init__(self, games, weights=None, *, player_names=None, data=None, meta=None):
        games = list(games)
        if not games:
            raise ValueError("SumOfProductGames needs at least one game; got none")
        bad = [type(g).__name__ for g in games if not isinstance(g, ProductGame)]
        if bad:
            raise TypeError(f"SumOfProductGames adds product games (ProductGame); got {bad}")
        shapes = {(g.n_players, g.n_instances) for g in games}
        if len(shapes) > 1:
            raise ValueError(f"the games must have the same (players, instances); got {sorted(shapes, key=str)}")
        w = np.ones(len(games)) if weights is None else as_real_array(weights, "weights").ravel()
        if w.shape != (len(games),) or not np.all(np.isfinite(w)):
            raise ValueError(f"weights must be {len(games)} finite numbers (one per game); got {weights!r}")
        first = games[0]
        super().__init__(n_players=first.n_players, n_instances=first.n_instances,
                         player_names=player_names or first.player_names,
                         data=first.data if data is None else data,
                         meta=first.meta if meta is None else meta)
        self.games, self.weights = games, w

    def n_terms(self):
        counts = [g.n_terms() for g in self.games]
        return None if any(c is None for c in counts) else int(sum(counts))

    def evaluation_flops(self, n_coalitions):
        return float(sum(g.evaluation_flops(n_coalitions) for g in self.games))

    def cost_advice(self):
        return self.games[0].cost_advice()

    def iter_terms(self, max_elements=None):
        for game, weight in zip(self.games, self.weights):
            for rows, w, a, c in game.iter_terms(max_elements):
                yield rows, np.asarray(w, dtype=float) * weight, a, c

    def _evaluate(self, coalitions):
        out = None
        for game, weight in zip(self.games, self.weights):
            v = weight * np.asarray(game(coalitions), dtype=float)
            out = v if out is None else out + v
        return out

    def grouped(self, groups, names=None):
        """Groups as players: the sum of the grouped components (each keeps its fast worths)."""
        parts = [g.grouped(groups, names) for g in self.games]
        return SumOfProductGames(parts, self.weights, player_names=parts[0].player_names,
                                 meta=self.meta)


class _GroupedProductGame(ProductGame):
    def __init__(self, game, groups, names):
        template = GroupedGame(game, groups, names)  # validates the partition
        super().__init__(n_players=len(template.groups), n_instances=game.n_instances,
                         player_names=template.player_names, data=None, meta=game.meta)
        self.game, self.groups = game, template.groups

    def n_terms(self):
        return self.game.n_terms()

    def evaluation_flops(self, n_coalitions):
        return self.game.evaluation_flops(n_coalitions)

    def cost_advice(self):
        return self.game.cost_advice()

    def iter_terms(self, max_elements=None):
        for rows, w, a, c in self.game.iter_terms(max_elements):
            ga = np.stack([a[..., g].prod(axis=-1) for g in self.groups], axis=-1)
            gc = np.stack([c[..., g].prod(axis=-1) for g in self.groups], axis=-1)
            yield rows, w, ga, gc


def unit_product_worths(coalitions, blocks, n_instances, max_elements=None):
    """Worths sum_r w_r prod_{l in S} a_rl of product games whose absent factors are 1.

    Evaluated as exp(Z log a) by one matrix product per block (a zero factor
    is tracked separately, so exact zeros stay exact), which is what makes
    sampling estimators affordable on these games.

    Parameters
    ----------
    coalitions : bool array (m, d)
    blocks : iterable of (rows, w, a)
        ``rows`` a slice of instances, ``w`` (K or 1, R), ``a`` (K or 1, R, d)
        with K = the number of instances in ``rows`` (or 1: the same terms for
        all of them).
    n_instances : int

    Returns
    -------
    ndarray (m, n_instances)
    """
    if max_elements is None:
        max_elements = working_elements(8)
    Z = np.asarray(coalitions, dtype=float)
    m = len(Z)
    out = np.zeros((m, n_instances))
    for rows, w, a in blocks:
        a = np.asarray(a, dtype=float)
        w = np.broadcast_to(np.asarray(w, dtype=float), a.shape[:2])
        K, R = a.shape[:2]
        if np.any(a < 0):
            raise ValueError("unit_product_worths needs non-negative factors (kernel values)")
        positive = a > 0
        has_zero = not positive.all()
        log_a = np.log(np.where(positive, a, 1.0)).transpose(0, 2, 1)   # (K, d, R)
        zeros = (~positive).astype(float).transpose(0, 2, 1) if has_zero else None
        step = max(1, max_elements // max(1, K * R))
        for lo in range(0, m, step):
            z = Z[lo:lo + step]
            prod = np.exp(np.matmul(z, log_a))                                # (K, m_c, R)
            if has_zero:
                prod[np.matmul(z, zeros) > 0] = 0.0
            # (m_c, K); K = 1 broadcasts over the instances in rows
            out[lo:lo + step, rows] += np.einsum("kmr,kr->mk", prod, w)
    return out


class UnitAbsentGame(ProductGame):
    """A :class:`ProductGame` whose absent factors are all 1 (c = 1).

    Subclasses only generate terms; worths come from :func:`unit_product_worths`
    (one matrix product per block), and grouping keeps both the product
    structure and the fast worths. The grouped game has no ``data`` (explained
    points have one column per feature, not per group).
    """

    def _evaluate(self, coalitions):
        return _unit_worths(self, coalitions)

    def evaluation_flops(self, n_coalitions):
        terms = self.n_terms()
        if terms is None:
            return Game.evaluation_flops(self, n_coalitions)
        # exp(Z log a): a matrix product and one exponential per term
        return float(n_coalitions) * (self.n_instances or 1) * terms * (2.0 * self.n_players + 20.0)

    def grouped(self, groups, names=None):
        return _GroupedUnitGame(self, groups, names)


def _unit_worths(game, coalitions):
    blocks = ((rows, w, a) for rows, w, a, _ in game.iter_terms())
    return unit_product_worths(coalitions, blocks, game.n_instances)


class _GroupedUnitGame(_GroupedProductGame):
    """A grouped product game whose absent factors are all 1: fast worths by exp(Z log a)."""

    def _evaluate(self, coalitions):
        return _unit_worths(self, coalitions)



# --------------------------------------------------------------------------- #
# abilities other modules ask for (declared by the game classes, never probed)
# --------------------------------------------------------------------------- #
class LinearInCoefficients:
    """Ability: worths linear in a kernel model's coefficients, v(S)(x_a) = (M_S alpha)[a] + b.

    Games of kernel models that declare it provide
    :meth:`coefficient_matrices`; Shapley functionals (representer matrices)
    and the Shapley regulariser are built from them.
    """

    def coefficient_matrices(self, coalitions, weights=None):  # pragma: no cover - abstract
        """M_S for each coalition (or weighted sums of them): (c or q, n_x, n_train)."""
        raise NotImplementedError


class HasUnitGames:
    """Ability: the games of the unit models k(., x_i) form one ProductGame.

    Their Shapley values are the representer entries, in polynomial time.
    """

    def unit_game(self):  # pragma: no cover - abstract
        """A ProductGame with n_train * n_x instances, instance i * n_x + a for unit model i at x_a."""
        raise NotImplementedError


def tabulate(game: Game):
    """Worths of every coalition, indexed by bitmask: shape (2**d,) or (2**d, n)."""
    return game(all_coalitions(game.n_players))


__all__ += ["tabulate", "UnitAbsentGame", "unit_product_worths", "LinearInCoefficients",
            "HasUnitGames"]

