"""What a Shapley value leaves out: Shapley residuals (Kumar et al. 2020; thesis §2.3.4).

Each player's Shapley value is read off the closest *inessential* (additive)
game along that player's edges of the coalition hypercube; the residual edge
vector measures the interaction the single number hides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._params import InstanceOf, Integer, parameters
from .._validation import check_positive_int
from ..explanation import Explanation
from ..games import Game, tabulate

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["shapley_residuals", "ShapleyResiduals", "walsh_hadamard", "MAX_RESIDUAL_PLAYERS"]

#: Largest number of players :func:`shapley_residuals` accepts (2**20 coalitions).
MAX_RESIDUAL_PLAYERS = 20


# =========================================================================== #
# 2. Shapley residuals (Kumar et al. 2020)
# =========================================================================== #
def walsh_hadamard(a: ArrayLike) -> np.ndarray:
    r"""Unnormalised Walsh-Hadamard transform along axis 0 (length 2**d).

    :math:`\hat a(T) = \sum_S (-1)^{|S \cap T|} a(S)`, with :math:`S` and :math:`T` bitmasks (bit :math:`j` =
    player :math:`j`); the inverse is the same transform divided by :math:`2^d`. :math:`O(d\, 2^d)` per column.

    Parameters
    ----------
    a : array_like (2**d, ...)
        Values indexed by coalition bitmask along axis 0 (e.g. a game's table of worths);
        every other axis is transformed independently. Not modified.

    Returns
    -------
    ndarray
        The transform, a new float array of ``a``'s shape.

    Raises
    ------
    ValueError
        When the length of axis 0 is not a power of 2.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelxai.uncertainty import walsh_hadamard
    >>> a = np.array([1.0, 2.0, 3.0, 4.0])
    >>> walsh_hadamard(a)
    array([10., -2., -4.,  0.])
    >>> walsh_hadamard(walsh_hadamard(a)) / 4  # the inverse
    array([1., 2., 3., 4.])
    """
    a = np.array(a, dtype=float, copy=True)
    m = a.shape[0]
    d = m.bit_length() - 1
    if m < 1 or 2**d != m:
        raise ValueError(f"the first axis must have length 2**d; got {m}")
    rest = a.shape[1:]
    for h in range(d):
        view = a.reshape((m >> (h + 1), 2, 1 << h) + rest)
        low = view[:, 0].copy()
        view[:, 0] += view[:, 1]
        np.subtract(low, view[:, 1], out=view[:, 1])
    return a


def _popcount(d):
    size = np.zeros(1, dtype=np.int64)
    for _ in range(d):
        size = np.concatenate([size, size + 1])
    return size  # size[T] = |T| for T = 0 .. 2**d - 1


def _upper_half(a, j):
    """View of the rows of ``a`` (2**d, ...) whose bitmask contains bit j."""
    m = a.shape[0]
    return a.reshape((m >> (j + 1), 2, 1 << j) + a.shape[1:])[:, 1]


def _edge_differences(a, j):
    """a(S + j) - a(S) for every S without j, in increasing order of S: (2**(d-1), ...)."""
    m = a.shape[0]
    view = a.reshape((m >> (j + 1), 2, 1 << j) + a.shape[1:])
    return (view[:, 1] - view[:, 0]).reshape((m // 2,) + a.shape[1:])


class ShapleyResiduals:
    r"""Shapley values with their residuals (Kumar et al. 2020); see :func:`shapley_residuals`.

    Attributes
    ----------
    values : ndarray (d,) or (n, d)
        Shapley values :math:`\phi_i = v_i(N)` of the component games (:math:`N` all players).
    residual_norms : ndarray like values
        :math:`\|r_i\|`, the Euclidean norm of each player's residual edge vector.
    relative : ndarray like values
        :math:`\|r_i\| / \|D v\|`: the share of the game's total variation along the
        hypercube edges that player :math:`i`'s value cannot represent (0 for a
        constant game).
    total_norm : float or ndarray (n,)
        :math:`\|D v\|`.
    partial_norms : ndarray like values
        :math:`\|D_i v\|`, the norm of player :math:`i`'s marginal contributions over its own edges.
    relative_to_player : ndarray like values
        :math:`\|r_i\| / \|D_i v\|` in :math:`[0, 1]`: the share of player :math:`i`'s own variation
        that no additive game reproduces (0 where the player never contributes).
    base_value : float or ndarray (n,)
        v(empty).
    player_names : list of str
    n_players : int
        d.
    meta : dict
        The game's ``meta`` and the method.

    Parameters
    ----------
    table : ndarray (2**d, n)
        The worths of every coalition (by bitmask), one column per instance.
    transform : ndarray (2**d, n)
        ``walsh_hadamard(table)``.
    player_names : list of str
        One name per player.
    single : bool
        Whether the game had one instance (then the attributes drop the instance axis).
    meta : dict
        Kept as ``meta`` (and in :meth:`to_explanation`'s ``meta``).

    Examples
    --------
    Built by :func:`shapley_residuals`. In v(S) = [0 in S] + 2 [1 in S][2 in S] every
    player's value is 1, but the interaction of players 1 and 2 leaves residuals:

    >>> import numpy as np
    >>> import kernelxai as kx
    >>> game = kx.FunctionGame(lambda z: z[:, 0] + 2.0 * z[:, 1] * z[:, 2], 3)
    >>> res = kx.uncertainty.shapley_residuals(game)
    >>> res
    ShapleyResiduals(n_players=3, max relative residual=0.316)
    >>> np.round(res.values, 4), np.round(res.relative, 4)
    (array([1., 1., 1.]), array([0.    , 0.3162, 0.3162]))
    >>> res.residual(1).shape  # (d, 2**(d-1)): one entry per edge
    (3, 4)
    """

    def __init__(self, table: np.ndarray, transform: np.ndarray, player_names: Sequence[str], single: bool,
                 meta: Mapping[str, Any]) -> None:
        self._table = table            # (2**d, n)
        self._hat = transform          # (2**d, n)
        d = table.shape[0].bit_length() - 1
        self.n_players = d
        self.player_names = player_names
        self._single = single
        self.meta = meta
        size = _popcount(d)
        self._size = size
        m = 2**d
        inv = np.zeros(m)
        inv[1:] = 1.0 / size[1:]
        self._inv_size = inv
        hat2 = transform**2
        # phi_i = 2^-d sum_{T ∋ i} v̂(T) ((-1)^|T| - 1) / |T|;  ||r_i||^2 = 2^{1-d} sum_{T ∋ i} v̂(T)^2 (1 - 1/|T|)
        c_phi = transform * (((-1.0) ** size - 1.0) * inv)[:, None] / m
        c_res = hat2 * (2.0 * (1.0 - inv) * (size > 0))[:, None] / m
        c_par = hat2 * (2.0 / m)                                  # ||D_i v||^2 = 2^{1-d} sum_{T ∋ i} v̂(T)^2
        phi = np.stack([_upper_half(c_phi, j).sum(axis=(0, 1)) for j in range(d)], axis=-1)
        res2 = np.stack([_upper_half(c_res, j).sum(axis=(0, 1)) for j in range(d)], axis=-1)
        par2 = np.stack([_upper_half(c_par, j).sum(axis=(0, 1)) for j in range(d)], axis=-1)
        total2 = (hat2 * (2.0 * size)[:, None]).sum(axis=0) / m   # ||Dv||^2 = v^T L v
        norms = np.sqrt(np.maximum(res2, 0.0))
        total = np.sqrt(np.maximum(total2, 0.0))
        partial = np.sqrt(np.maximum(par2, 0.0))
        rel = np.where(total[:, None] > 0, norms / np.where(total > 0, total, 1.0)[:, None], 0.0)
        own = np.where(partial > 0, norms / np.where(partial > 0, partial, 1.0), 0.0)
        pick = (lambda a: a[0]) if single else (lambda a: a)
        self.values = pick(phi)
        self.residual_norms = pick(norms)
        self.relative = pick(rel)
        self.partial_norms = pick(partial)
        self.relative_to_player = pick(np.minimum(own, 1.0))
        self.total_norm = float(total[0]) if single else total
        self.base_value = float(table[0, 0]) if single else table[0].copy()
        self._components = None

    # --------------------------------------------------------------- games
    def component_game(self, i: int) -> np.ndarray:
        r"""The inessential game :math:`v_i` closest to :math:`v` along player i's edges: (2**d,) or (2**d, n).

        :math:`v_i(\emptyset) = 0`; :math:`\sum_i v_i = v - v(\emptyset)`.
        """
        i = self._player(i)
        coef = np.zeros_like(self._hat)
        _upper_half(coef, i)[...] = _upper_half(self._hat * self._inv_size[:, None], i)
        vi = walsh_hadamard(coef) / coef.shape[0]
        vi -= vi[0]
        return vi[:, 0] if self._single else vi

    @property
    def component_games(self) -> np.ndarray:
        """All component games, shape (d, 2**d) or (d, 2**d, n) (computed on first use)."""
        if self._components is None:
            self._components = np.stack([self.component_game(i) for i in range(self.n_players)])
        return self._components

    def residual(self, i: int) -> np.ndarray:
        r"""Residual edge vector :math:`r_i = D_i v - D v_i`, shape (d, 2**(d-1)) or (d, 2**(d-1), n).

        Entry [j, k] belongs to the edge from S to S + j, where S is the k-th
        coalition without j in increasing bitmask order.
        """
        i = self._player(i)
        vi = self.component_game(i)
        vi = vi[:, None] if self._single else vi
        out = np.stack([-_edge_differences(vi, j) for j in range(self.n_players)])
        out[i] += _edge_differences(self._table, i)
        return out[..., 0] if self._single else out

    @property
    def residuals(self) -> np.ndarray:
        """All residual edge vectors, shape (d, d, 2**(d-1)[, n])."""
        return np.stack([self.residual(i) for i in range(self.n_players)])

    def _player(self, i):
        if isinstance(i, str):
            if i not in self.player_names:
                raise KeyError(f"unknown player {i!r}; players are {self.player_names}")
            return self.player_names.index(i)
        i = int(i)
        if not 0 <= i < self.n_players:
            raise IndexError(f"player index {i} out of range for {self.n_players} players")
        return i

    # --------------------------------------------------------------- output
    def to_explanation(self) -> Explanation:
        """The Shapley values as an Explanation; residual norms ride along in ``meta``."""
        meta = {**self.meta, "residual_norms": self.residual_norms, "relative_residuals": self.relative}
        return Explanation(self.values, self.base_value, feature_names=self.player_names, meta=meta)

    def to_frame(self) -> pd.DataFrame:
        """One row per player (single game) or per (instance, player)."""
        if self._single:
            return pd.DataFrame({"value": self.values, "residual norm": self.residual_norms,
                                 "relative residual": self.relative}, index=self.player_names)
        n = len(self.values)
        return pd.DataFrame({
            "instance": np.repeat(np.arange(n), self.n_players),
            "player": self.player_names * n,
            "value": self.values.ravel(),
            "residual norm": self.residual_norms.ravel(),
            "relative residual": self.relative.ravel(),
        })

    def __repr__(self):
        return (f"ShapleyResiduals(n_players={self.n_players}, "
                f"max relative residual={np.max(self.relative):.3g})")


@parameters("kx.uncertainty.shapley_residuals", game=InstanceOf((Game,), "a kernelxai Game"),
            max_players=Integer(1))
def shapley_residuals(game: Game, *, max_players: int = MAX_RESIDUAL_PLAYERS) -> ShapleyResiduals:
    r"""Shapley values and Shapley residuals of a game (Kumar et al. 2020).

    View the game as a function :math:`v` on the vertices of the hypercube :math:`\{0,1\}^d`,
    with gradient :math:`D` (the edge :math:`S \to S + j` carries :math:`v(S + j) - v(S)`) and partial gradient
    :math:`D_i` (only the :math:`i`-edges). Player :math:`i`'s component game solves

    .. math::
        \min \|D v_i - D_i v\|^2 \quad \text{subject to} \quad v_i(\emptyset) = 0,

    i.e. the Laplace equation :math:`L v_i = L_i v` with :math:`L = D^\top D` the hypercube
    Laplacian and :math:`L_i = D^\top D_i`; then :math:`\phi_i = v_i(N)` (:math:`N` the set of all
    players) is the Shapley value and :math:`r_i = D_i v - D v_i` the residual (zero for every player
    iff the game is inessential; Kumar et al. 2020, Prop. 1 as stated in thesis §2.3.1).

    Both Laplacians are diagonal in the Walsh-Hadamard basis: :math:`L` has eigenvalue
    :math:`2|T|` and :math:`L_i` eigenvalue :math:`2\,[i \in T]` on the character :math:`(-1)^{|S \cap T|}`. So
    :math:`\hat v_i(T) = [i \in T]\, \hat v(T) / |T|`, and the Shapley value and residual norm of
    every player follow from one transform in :math:`O(d\, 2^d)` time:

    .. math::
        \phi_i &= 2^{-d} \sum_{T \ni i} \hat v(T)\, \frac{(-1)^{|T|} - 1}{|T|}, \\
        \|r_i\|^2 &= 2^{1-d} \sum_{T \ni i} \hat v(T)^2 \Big(1 - \frac{1}{|T|}\Big).

    Component games and residual edge vectors are formed only on request.

    Parameters
    ----------
    game : Game
        Up to ``max_players`` players; vectorised games give one result per instance.
    max_players : int
        Refuse larger games (every one of the 2**d coalitions is evaluated).

    Returns
    -------
    ShapleyResiduals
        Values, residual norms and relative residuals per player (and instance);
        component games and residual edge vectors on request.

    Raises
    ------
    TypeError
        When ``game`` is not a kernelxai :class:`~kernelxai.games.Game`.
    ValueError
        When the game has more than ``max_players`` players, or ``max_players`` is not a
        positive integer.

    Examples
    --------
    Player 0 enters additively and has no residual; the interaction of players 1 and 2
    shows in theirs:

    >>> import numpy as np
    >>> import kernelxai as kx
    >>> game = kx.FunctionGame(lambda z: z[:, 0] + 2.0 * z[:, 1] * z[:, 2], 3)
    >>> kx.uncertainty.shapley_residuals(game).to_frame().round(4)
        value  residual norm  relative residual
    x0    1.0         0.0000             0.0000
    x1    1.0         1.4142             0.3162
    x2    1.0         1.4142             0.3162
    """
    if not isinstance(game, Game):
        raise TypeError(
            f"shapley_residuals needs a kernelxai Game; got {type(game).__name__}. Wrap a table "
            "with kx.TabularGame or a function with kx.FunctionGame"
        )
    d = game.n_players
    max_players = check_positive_int(max_players, "max_players")
    if d > max_players:
        n = game.n_instances or 1
        gib = 2**d * n * 8 * 3 / 2**30
        raise ValueError(
            f"Shapley residuals need the worth of every coalition: {d} players means "
            f"2**{d} = {2**d:,} game evaluations per instance and about {gib:,.1f} GiB of "
            f"working memory, more than the limit of {max_players} players "
            f"(2**{max_players} = {2**max_players:,} evaluations). Group the features "
            "(game.grouped(groups)) to reduce the number of players"
        )
    table = tabulate(game)
    single = table.ndim == 1
    table2 = table[:, None] if single else table
    hat = walsh_hadamard(table2)
    meta = {**game.meta, "method": "Shapley residuals (Walsh-Hadamard)"}
    return ShapleyResiduals(table2, hat, list(game.player_names), single, meta)


