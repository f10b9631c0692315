"""The Game and its kinds: worths by table, by function, by groups of players; abilities.

A *game* maps coalitions of players to worths. Coalitions are boolean arrays of
shape ``(m, d)``: column ``j`` says whether player ``j`` is in the coalition.
Games are vectorised over *instances*: a game built by a value function for
``n`` explained points returns an array of shape ``(m, n)``; a plain game (the
taxi game of the lecture, say) returns shape ``(m,)``.

Takes coalitions (``kernelxai.games._coalitions``). Hands on :class:`Game`,
:class:`TabularGame` (worths listed by coalition), :class:`FunctionGame`
(worths from a Python callable), :class:`GroupedGame` (groups of players
acting as single players), :func:`tabulate`, and the abilities other modules
ask a game for (:class:`LinearInCoefficients`, :class:`HasUnitGames`),
declared by the game classes and never probed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from .._calibration import Work
from .._validation import as_real_array, check_positive_int
from ._coalitions import all_coalitions, bitmasks_to_coalitions, coalitions_to_bitmasks

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["Game", "TabularGame", "FunctionGame", "GroupedGame", "tabulate", "LinearInCoefficients",
           "check_coalitions", "group_membership"]


class Game:
    """A cooperative game over ``n_players``, vectorised over instances.

    Subclasses implement :meth:`_evaluate`, which receives a validated boolean
    array of shape ``(m, d)`` and returns worths of shape ``(m,)`` (a single
    game) or ``(m, n_instances)``.

    Calling the game with coalitions (a boolean array ``(m, d)``, integers
    0/1 accepted, or one coalition of shape ``(d,)``) checks them, evaluates
    the worths and checks their shape and finiteness.

    Parameters
    ----------
    n_players : int
        Number of players ``d``, at least 1.
    player_names : list of str, optional
        One name per player; default ``["x0", "x1", ...]``.
    n_instances : int, optional
        Number of instances the worths are vectorised over; None (default)
        for a single game.
    data : ndarray (n_instances, d), optional
        The explained points, when the game comes from a value function.
    meta : dict, optional
        Free-form description, copied.

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

    Raises
    ------
    ValueError
        If ``n_players`` or ``n_instances`` is not a positive integer, or
        ``player_names`` does not hold one name per player. Calling the game
        raises it too for coalitions of the wrong shape or dtype, and for worths
        of the wrong shape or not finite.

    Examples
    --------
    A three-player majority game, by subclassing:

    >>> import kernelxai as kx
    >>> class Majority(kx.Game):
    ...     def _evaluate(self, z):
    ...         return (z.sum(axis=1) >= 2).astype(float)
    >>> g = Majority(3)
    >>> g, g.player_names
    (Majority(n_players=3), ['x0', 'x1', 'x2'])
    >>> g([[1, 1, 0], [1, 0, 0]]), float(g.full_value)
    (array([1., 0.]), 1.0)
    >>> kx.shapley_values(g).values.round(6)
    array([0.333333, 0.333333, 0.333333])
    """

    def __init__(self, n_players: int, player_names: Sequence[str] | None = None, n_instances: int | None = None,
                 data: ArrayLike | None = None, meta: Mapping[str, Any] | None = None) -> None:
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
    def empty_value(self) -> np.ndarray | float:
        """v(empty set)."""
        return self(np.zeros(self.n_players, dtype=bool))

    @property
    def full_value(self) -> np.ndarray | float:
        """v(all players)."""
        return self(np.ones(self.n_players, dtype=bool))

    @property
    def is_vectorised(self) -> bool:
        return self.n_instances is not None

    # -- cost model ------------------------------------------------------------
    def evaluation_flops(self, n_coalitions: int) -> float:
        """Estimated floating-point operations of evaluating ``n_coalitions`` coalitions.

        Used by the estimators' cost models (``method="auto"``, progress bars,
        the ``max_cost`` ceiling). The default assumes a cheap game (a few
        operations per coalition, player and instance); games whose worths
        are expensive (model calls, linear solves) override it.
        """
        return 4.0 * float(n_coalitions) * (self.n_instances or 1) * self.n_players

    def evaluation_work(self, n_coalitions: int) -> Work:
        """The work of evaluating ``n_coalitions`` coalitions, by kind (priced by the cost guard).

        The default is :meth:`evaluation_flops` as elementwise operations; games that do dense
        linear algebra, Python-level loops or model calls say so by overriding it.
        """
        return Work(flops=self.evaluation_flops(n_coalitions))

    def cost_advice(self) -> list[str]:
        """Ways to make this game cheaper to explain (sentences for error messages)."""
        return []

    def grouped(self, groups: Sequence[Sequence[int]], names: Sequence[str] | None = None) -> Game:
        """The game in which each group of players acts as one player."""
        return GroupedGame(self, groups, names=names)

    def __repr__(self):
        n = "" if self.n_instances is None else f", n_instances={self.n_instances}"
        return f"{type(self).__name__}(n_players={self.n_players}{n})"

    # -- for subclasses --------------------------------------------------------
    def _evaluate(self, coalitions):  # pragma: no cover - abstract
        raise NotImplementedError

    def _check_coalitions(self, coalitions):
        return check_coalitions(coalitions, self.n_players)


def check_coalitions(coalitions, n_players) -> tuple[np.ndarray, bool]:
    """``(z, single)``: coalitions of ``n_players`` players as a boolean (m, d) array, and whether one was given.

    Accepts booleans or integers 0/1, of shape (m, d) or (d,) for one coalition (``single``).
    """
    z = np.asarray(coalitions)
    single = z.ndim == 1
    if single:
        z = z[None, :]
    if z.ndim != 2 or z.shape[1] != n_players:
        raise ValueError(
            f"coalitions must be a boolean array of shape (m, {n_players}) "
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


def group_membership(groups, n_players) -> np.ndarray:
    """Boolean (len(groups), n_players): row k marks the players of group k."""
    membership = np.zeros((len(groups), n_players), dtype=bool)
    for k, g in enumerate(groups):
        membership[k, g] = True
    return membership


class FunctionGame(Game):
    """A game whose worths come from a callable ``fn(coalitions) -> worths``.

    Parameters
    ----------
    fn : callable
        Receives a boolean array (m, d); returns (m,) or (m, n_instances).
    n_players : int
    player_names : list of str, optional
    n_instances : int, optional
    data : ndarray (n_instances, d), optional
        The explained points, kept as :attr:`Game.data`.
    meta : dict, optional
        Free-form description, kept (copied) as :attr:`Game.meta`.

    Raises
    ------
    TypeError
        If ``fn`` is not callable.
    ValueError
        As :class:`Game` (bad ``n_players``, ``player_names`` or ``n_instances``).

    Examples
    --------
    >>> import kernelxai as kx
    >>> g = kx.FunctionGame(lambda Z: Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2], 3)
    >>> g
    FunctionGame(n_players=3)
    >>> kx.shapley_values(g).values.round(12)   # the pair's worth 2 is split equally
    array([1., 1., 1.])

    Vectorised over two instances:

    >>> import numpy as np
    >>> g2 = kx.FunctionGame(lambda Z: np.outer(Z.sum(axis=1), [1.0, 2.0]), 2, n_instances=2)
    >>> g2([True, True])
    array([2., 4.])
    """

    def __init__(self, fn: Callable[[np.ndarray], ArrayLike], n_players: int, player_names: Sequence[str] | None = None,
                 n_instances: int | None = None, data: ArrayLike | None = None,
                 meta: Mapping[str, Any] | None = None) -> None:
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
        Default ``["x0", "x1", ...]``; with a mapping it also fixes the number
        of players (otherwise the largest index listed, plus one).

    Raises
    ------
    ValueError
        If an array of worths is not of shape ``(2**d,)`` or ``(2**d, n)``
        with ``2**d >= 2``; if a mapping misses a coalition, lists one twice or
        names a player outside ``0..d-1``; if a worth is NaN or infinite; or if
        ``player_names`` has the wrong length.

    Examples
    --------
    The taxi game of the lecture (Amy, Bob, Claire):

    >>> import kernelxai as kx
    >>> taxi = kx.TabularGame({(): 0, (0,): 6, (1,): 12, (2,): 42, (0, 1): 12,
    ...                        (0, 2): 42, (1, 2): 42, (0, 1, 2): 42},
    ...                       player_names=["Amy", "Bob", "Claire"])
    >>> taxi([[True, True, False]])
    array([12.])
    >>> kx.shapley_values(taxi).values.round(6)
    array([ 2.,  5., 35.])

    The same game as an array indexed by bitmask:

    >>> taxi = kx.TabularGame([0, 6, 12, 12, 42, 42, 42, 42])
    >>> taxi.n_players, taxi.player_names
    (3, ['x0', 'x1', 'x2'])
    """

    def __init__(self, values: Mapping[tuple[int, ...], float] | ArrayLike,
                 player_names: Sequence[str] | None = None) -> None:
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
    def _table_from_mapping(values, player_names) -> tuple[np.ndarray, int]:
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

    Coalition ``T`` of groups has the worth of ``game`` at the union of the
    groups in ``T``. The grouped game keeps the instances and ``meta`` of
    ``game`` but not its ``data`` (a group has no single feature value).
    :meth:`Game.grouped` builds it.

    Raises
    ------
    ValueError
        If a group is empty, or the groups do not hold each player of ``game``
        exactly once; or if ``names`` does not hold one name per group.

    Examples
    --------
    Amy and Bob share a taxi account against Claire:

    >>> import kernelxai as kx
    >>> taxi = kx.TabularGame([0, 6, 12, 12, 42, 42, 42, 42], player_names=["Amy", "Bob", "Claire"])
    >>> pair = kx.GroupedGame(taxi, [[0, 1], [2]])
    >>> pair, pair.player_names
    (GroupedGame(n_players=2), ['Amy+Bob', 'Claire'])
    >>> kx.shapley_values(pair).values.round(6)
    array([ 6., 36.])
    """

    def __init__(self, game: Game, groups: Sequence[Sequence[int]], names: Sequence[str] | None = None) -> None:
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
        self._membership = group_membership(groups, game.n_players)

    def _evaluate(self, coalitions):
        return self.game(coalitions.astype(np.int64) @ self._membership.astype(np.int64) > 0)

    def evaluation_flops(self, n_coalitions: int) -> float:
        return self.game.evaluation_flops(n_coalitions)

    def evaluation_work(self, n_coalitions: int) -> Work:
        return self.game.evaluation_work(n_coalitions)

    def cost_advice(self) -> list[str]:
        return self.game.cost_advice()

# --------------------------------------------------------------------------- #
# abilities other modules ask for (declared by the game classes, never probed)
# --------------------------------------------------------------------------- #
class LinearInCoefficients:
    r"""Ability: worths linear in a kernel model's coefficients, :math:`v(S)(x_a) = (M_S \alpha)_a + b`.

    Games of kernel models that declare it provide
    :meth:`coefficient_matrices`; Shapley functionals (representer matrices)
    and the Shapley regulariser are built from them.

    A mixin without a constructor of its own: it is declared by inheriting
    from it, and other modules test it with ``isinstance``.

    Examples
    --------
    The interventional game of a kernel ridge model declares it:

    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(8, 2))
    >>> krr = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0])
    >>> game = kx.values.Interventional(krr, background=X).game(X[:3])
    >>> isinstance(game, kx.games.LinearInCoefficients)
    True
    >>> game.coefficient_matrices(kx.games.all_coalitions(2)).shape   # (coalitions, points, training points)
    (4, 3, 8)
    """

    def coefficient_matrices(self, coalitions: np.ndarray,
                             weights: np.ndarray | None = None) -> np.ndarray:  # pragma: no cover - abstract
        """:math:`M_S` for each coalition (or weighted sums of them): (c or q, n_x, n_train)."""
        raise NotImplementedError


def tabulate(game: Game) -> np.ndarray:
    """Worths of every coalition, indexed by bitmask: shape (2**d,) or (2**d, n).

    Parameters
    ----------
    game : Game
        A game of at most :data:`~kernelxai.games.MAX_ENUMERATION_PLAYERS` players.

    Returns
    -------
    ndarray of float, shape (2**d,) or (2**d, n_instances)
        Entry ``k`` is the worth of the coalition whose bitmask is ``k``
        (bit ``j`` = player ``j``); it can be passed back to :class:`TabularGame`.

    Examples
    --------
    >>> import kernelxai as kx
    >>> g = kx.FunctionGame(lambda Z: Z.sum(axis=1) ** 2.0, 2)
    >>> kx.games.tabulate(g)
    array([0., 1., 1., 4.])
    """
    return game(all_coalitions(game.n_players))
