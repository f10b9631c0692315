"""Product games: weighted sums of multiplicative games, the structure product kernels give.

Takes the :class:`~kernelxai.Game` base and its grouping.
Hands on :class:`ProductGame` (v_k(S) = sum_r w_kr prod_{l in S} a_krl
prod_{l not in S} c_krl, streamed as blocks of terms), :class:`SumOfProductGames`
(sums of product kernels), :class:`GroupedProductGame` (groups of players of
a product game, again a product game), :class:`UnitAbsentGame` (absent
factors all 1) and :func:`unit_product_worths` (their worths by exp(Z log a)).
The polynomial-time estimators (``kernelxai.estimators._product``) read
the terms.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._calibration import Work
from .._config import working_elements
from .._validation import as_real_array
from ._game_types import Game, GroupedGame

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["ProductGame", "SumOfProductGames", "GroupedProductGame", "UnitAbsentGame",
           "unit_product_worths", "HasUnitGames"]


class HasUnitGames:
    r"""Ability: the games of the unit models :math:`k(\cdot, x_i)` form one ProductGame.

    Their Shapley values are the representer entries, in polynomial time.

    A mixin without a constructor of its own: games declare it by inheriting
    from it and implement :meth:`unit_game`; other modules test it with ``isinstance``.

    Examples
    --------
    The interventional game of a kernel ridge model declares it; its unit game
    has one instance per (training point, explained point):

    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(8, 2))
    >>> krr = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0])
    >>> game = kx.values.Interventional(krr, background=X).game(X[:3])
    >>> isinstance(game, kx.games.HasUnitGames), game.unit_game().n_instances
    (True, 24)
    """

    def unit_game(self) -> ProductGame:  # pragma: no cover - abstract
        """A ProductGame with ``n_train * n_x`` instances, instance ``i * n_x + a`` for unit model i at :math:`x_a`."""
        raise NotImplementedError


class ProductGame(Game):
    r"""A weighted sum of multiplicative games, one sum per instance.

    .. math::
        v_k(S) = \sum_r w_{kr} \prod_{l \in S} a_{krl} \prod_{l \notin S} c_{krl}

    This is the structure product kernels give every kernel-based value function
    (:func:`~kernelxai.estimators.product_shapley`): the functional baseline has one term per training point with
    ``c = 1``; the interventional game one term per (training, background) pair.
    Shapley values of such a game are available in polynomial time
    (``method="product"``), with no coalition enumeration.

    Parameters
    ----------
    a, c : array (n_instances or 1, R, d)
        Factors of a present / absent player. A leading axis of length 1
        broadcasts over instances; 2-D arrays (R, d) are one instance. None
        (the default) in subclasses that generate their terms in :meth:`iter_terms`.
    weights : array (n_instances or 1, R)
        The term weights ``w_kr`` (2-D ``a`` and ``c`` take 1-D ``weights`` (R,)).
    n_players : int, optional
        Required when no factor arrays are given; otherwise taken from ``a``.
    n_instances : int, optional
        Needed only when every array broadcasts (leading axis 1); default 1 then.
    player_names : list of str, optional
        Default ``["x0", "x1", ...]``.
    data : ndarray (n_instances, d), optional
        The explained points, when the game comes from a value function.
    meta : dict, optional
        Free-form description, copied.

    Subclasses with too many terms to hold in memory override
    :meth:`iter_terms` to generate them in blocks.

    Raises
    ------
    ValueError
        If the arrays do not have (or do not broadcast to) the shapes above,
        hold NaN or inf, or no arrays and no ``n_players`` are given; or, as
        :class:`~kernelxai.Game`, for bad ``player_names`` or ``n_instances``.

    Examples
    --------
    One term: :math:`v(S) = \prod_{l \in S} a_l` with :math:`a = (2, 3)` and absent factors 1:

    >>> import numpy as np
    >>> import kernelxai as kx
    >>> g = kx.ProductGame([[[2.0, 3.0]]], [[[1.0, 1.0]]], [[1.0]])
    >>> g, g.n_terms()
    (ProductGame(n_players=2, n_instances=1), 1)
    >>> kx.games.tabulate(g).ravel()   # by bitmask: {}, {0}, {1}, {0, 1}
    array([1., 2., 3., 6.])
    >>> kx.shapley_values(g, method="product").values
    array([[2., 3.]])

    Two instances, three terms; the polynomial-time route agrees with enumeration:

    >>> a = np.random.default_rng(0).uniform(0.5, 2.0, size=(2, 3, 3))
    >>> g = kx.ProductGame(a, np.ones((1, 3, 3)), np.ones((1, 3)))
    >>> fast = kx.shapley_values(g, method="product").values
    >>> fast.shape, bool(np.allclose(fast, kx.shapley_values(g, method="exact").values))
    ((2, 3), True)
    """

    def __init__(self, a: ArrayLike | None = None, c: ArrayLike | None = None, weights: ArrayLike | None = None, *,
                 n_players: int | None = None, n_instances: int | None = None,
                 player_names: Sequence[str] | None = None, data: ArrayLike | None = None,
                 meta: Mapping[str, Any] | None = None) -> None:
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

    def n_terms(self) -> int | None:
        """Multiplicative terms per instance (None if unknown); the product routes cost O(terms d^2)."""
        return None if self._a is None else int(self._a.shape[1])

    def evaluation_flops(self, n_coalitions: int) -> float:
        terms = self.n_terms()
        if terms is None:
            return super().evaluation_flops(n_coalitions)
        return 2.0 * float(n_coalitions) * (self.n_instances or 1) * terms * self.n_players

    def term_work(self) -> Work:
        """The work of forming the terms :meth:`iter_terms` yields (kernel factors, copies), by kind.

        Nothing for stored factor arrays; games that compute their terms on the fly (kernel
        models' value functions, the MMD and HSIC games) count their kernel evaluations. The
        product routes add it to their own work.
        """
        return Work()

    def iter_terms(self, max_elements: int | None = None) -> Iterator[tuple[slice, np.ndarray, np.ndarray, np.ndarray]]:
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
            def pick(x, rows=rows):
                return x if x.shape[0] == 1 else x[rows]

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

    def grouped(self, groups: Sequence[Sequence[int]], names: Sequence[str] | None = None) -> ProductGame:
        """Groups as players; still a :class:`ProductGame` (factors multiply within a group)."""
        return GroupedProductGame(self, groups, names)


class SumOfProductGames(ProductGame):
    r"""The weighted sum :math:`v(S) = \sum_g w_g v_g(S)` of product games -- again a product game.

    Its multiplicative terms are those of every component, each component's
    weights scaled by its :math:`w_g`, so the polynomial-time routes
    (``method="product"``) apply unchanged; worths (``method="exact"`` and the
    sampling estimators) are the weighted sums of the components' worths, by
    each component's own fast route (mean embeddings, :math:`\exp(Z \log a)`, ...). A
    kernel expansion with a :class:`~kernelxai.kernels.SumKernel`
    :math:`\sum_r c_r k_r` is the sum of the expansions with the product kernels :math:`k_r`,
    and its interventional and functional-baseline games are these sums.

    Parameters
    ----------
    games : sequence of ProductGame
        At least one; all with the same players and number of instances.
    weights : sequence of float, optional
        :math:`w_g` (default all 1).
    player_names, data, meta : optional
        Default: those of the first game.

    Raises
    ------
    ValueError
        If ``games`` is empty, the games differ in players or instances, or
        ``weights`` is not one finite number per game.
    TypeError
        If a game is not a :class:`ProductGame`.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> a = np.random.default_rng(0).uniform(0.5, 2.0, size=(2, 3, 3))
    >>> g = kx.ProductGame(a, np.ones((1, 3, 3)), np.ones((1, 3)))
    >>> h = kx.ProductGame(a ** 2, np.ones((1, 3, 3)), np.ones((1, 3)))
    >>> s = kx.games.SumOfProductGames([g, h], weights=[1.0, -0.5])
    >>> s, s.n_terms()
    (SumOfProductGames(n_players=3, n_instances=2), 6)
    >>> z = kx.games.all_coalitions(3)
    >>> bool(np.allclose(s(z), g(z) - 0.5 * h(z)))
    True
    """

    def __init__(self, games: Sequence[ProductGame], weights: Sequence[float] | None = None, *,
                 player_names: Sequence[str] | None = None, data: ArrayLike | None = None,
                 meta: Mapping[str, Any] | None = None) -> None:
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

    def n_terms(self) -> int | None:
        counts = [g.n_terms() for g in self.games]
        return None if any(c is None for c in counts) else int(sum(counts))

    def evaluation_flops(self, n_coalitions: int) -> float:
        return float(sum(g.evaluation_flops(n_coalitions) for g in self.games))

    def term_work(self) -> Work:
        total = Work()
        for g in self.games:
            total = total + g.term_work()
        return total

    def cost_advice(self) -> list[str]:
        return self.games[0].cost_advice()

    def iter_terms(self, max_elements: int | None = None) -> Iterator[tuple[slice, np.ndarray, np.ndarray, np.ndarray]]:
        for game, weight in zip(self.games, self.weights):
            for rows, w, a, c in game.iter_terms(max_elements):
                yield rows, np.asarray(w, dtype=float) * weight, a, c

    def _evaluate(self, coalitions):
        out = None
        for game, weight in zip(self.games, self.weights):
            v = weight * np.asarray(game(coalitions), dtype=float)
            out = v if out is None else out + v
        return out

    def grouped(self, groups: Sequence[Sequence[int]], names: Sequence[str] | None = None) -> ProductGame:
        """Groups as players: the sum of the grouped components (each keeps its fast worths)."""
        parts = [g.grouped(groups, names) for g in self.games]
        return SumOfProductGames(parts, self.weights, player_names=parts[0].player_names,
                                 meta=self.meta)


class GroupedProductGame(ProductGame):
    """Groups of players of a product game acting as single players: again a product game.

    A group's factors are the products of its members' factors; made by
    :meth:`ProductGame.grouped`.
    """

    def __init__(self, game, groups, names):
        template = GroupedGame(game, groups, names)  # validates the partition
        super().__init__(n_players=len(template.groups), n_instances=game.n_instances,
                         player_names=template.player_names, data=None, meta=game.meta)
        self.game, self.groups = game, template.groups

    def n_terms(self) -> int | None:
        return self.game.n_terms()

    def evaluation_flops(self, n_coalitions) -> float:
        return self.game.evaluation_flops(n_coalitions)

    def term_work(self) -> Work:
        return self.game.term_work()

    def cost_advice(self) -> list[str]:
        return self.game.cost_advice()

    def iter_terms(self, max_elements=None) -> Iterator[tuple[slice, np.ndarray, np.ndarray, np.ndarray]]:
        for rows, w, a, c in self.game.iter_terms(max_elements):
            ga = np.stack([a[..., g].prod(axis=-1) for g in self.groups], axis=-1)
            gc = np.stack([c[..., g].prod(axis=-1) for g in self.groups], axis=-1)
            yield rows, w, ga, gc


def unit_product_worths(coalitions: np.ndarray, blocks: Iterable[tuple[slice, np.ndarray, np.ndarray]],
                        n_instances: int, max_elements: int | None = None) -> np.ndarray:
    r"""Worths :math:`\sum_r w_r \prod_{l \in S} a_{rl}` of product games whose absent factors are 1.

    Evaluated as :math:`\exp(Z \log a)` by one matrix product per block (a zero factor
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
        Number of instances (columns of the result).
    max_elements : int, optional
        Memory budget (float64 elements) of one block of intermediate arrays;
        default from the working-memory configuration.

    Returns
    -------
    ndarray (m, n_instances)
        The worths, summed over the blocks.

    Raises
    ------
    ValueError
        If a factor is negative (its logarithm would not exist).

    Examples
    --------
    Two terms ``(2, 3)`` and ``(0, 1)``, shared by two instances; the zero stays exact:

    >>> import kernelxai as kx
    >>> z = kx.games.all_coalitions(2)
    >>> blocks = [(slice(0, 2), [[1.0, 1.0]], [[[2.0, 3.0], [0.0, 1.0]]])]
    >>> kx.games.unit_product_worths(z, blocks, 2)
    array([[2., 2.],
           [2., 2.],
           [4., 4.],
           [6., 6.]])
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


_ONE = np.ones(1)
_ONE.flags.writeable = False


class UnitAbsentGame(ProductGame):
    """A :class:`ProductGame` whose absent factors are all 1 (c = 1).

    Subclasses only generate terms; worths come from :func:`unit_product_worths`
    (one matrix product per block), and grouping keeps both the product
    structure and the fast worths. The grouped game has no ``data`` (explained
    points have one column per feature, not per group).

    Parameters
    ----------
    a, c, weights, n_players, n_instances, player_names, data, meta
        As :class:`ProductGame`. The worths take every absent factor as 1;
        given arrays ``c`` must be all ones (the polynomial-time routes read
        them), and ``a`` must be non-negative.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> a = np.random.default_rng(0).uniform(0.5, 2.0, size=(2, 3, 3))
    >>> u = kx.games.UnitAbsentGame(a, np.ones((1, 3, 3)), np.ones((1, 3)))
    >>> g = kx.ProductGame(a, np.ones((1, 3, 3)), np.ones((1, 3)))
    >>> u, bool(np.allclose(kx.games.tabulate(u), kx.games.tabulate(g)))
    (UnitAbsentGame(n_players=3, n_instances=2), True)
    """

    @staticmethod
    def absent_ones(shape: tuple[int, ...]) -> np.ndarray:
        """The absent factors of terms of ``shape``: all 1, read-only, one number in memory.

        As ``np.broadcast_to(1.0, shape)``, made in a fraction of its time (a game yields one per
        block of terms, and a one-point call is a single block, #25).

        Parameters
        ----------
        shape : tuple of int
            The shape of the terms' factors, e.g. ``(instances, terms, d)``.

        Returns
        -------
        ndarray
            Ones of ``shape``, all strides 0.

        Examples
        --------
        >>> from kernelxai.games import UnitAbsentGame
        >>> c = UnitAbsentGame.absent_ones((1, 2, 3))
        >>> c.shape, c.strides, float(c.sum()), c.flags.writeable
        ((1, 2, 3), (0, 0, 0), 6.0, False)
        """
        return np.ndarray(shape, dtype=float, buffer=_ONE, strides=(0,) * len(shape))

    def _evaluate(self, coalitions):
        return _unit_worths(self, coalitions)

    def evaluation_flops(self, n_coalitions: int) -> float:
        terms = self.n_terms()
        if terms is None:
            return Game.evaluation_flops(self, n_coalitions)
        # exp(Z log a): a matrix product and one exponential per term
        return float(n_coalitions) * (self.n_instances or 1) * terms * (2.0 * self.n_players + 20.0)

    def grouped(self, groups: Sequence[Sequence[int]], names: Sequence[str] | None = None) -> ProductGame:
        return _GroupedUnitGame(self, groups, names)


def _unit_worths(game, coalitions):
    blocks = ((rows, w, a) for rows, w, a, _ in game.iter_terms())
    return unit_product_worths(coalitions, blocks, game.n_instances)


class _GroupedUnitGame(GroupedProductGame):
    """A grouped product game whose absent factors are all 1: fast worths by exp(Z log a)."""

    def _evaluate(self, coalitions):
        return _unit_worths(self, coalitions)
