"""Coalition utilities: enumeration, bitmasks, Shapley and KernelSHAP weights, sampling.

Takes numbers of players; hands on coalitions as boolean arrays ``(m, d)``
(column ``j`` says whether player ``j`` is in), their bitmask codes (bit ``j``
is player ``j``), the Shapley weights by coalition size, the Shapley-kernel
weights of KernelSHAP, and paired samples from the Shapley kernel. The games
(``kernelxai.games._game_types``) and the estimators use them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.special import comb, gammaln

from .._validation import check_positive_int, check_rng

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["all_coalitions", "coalitions_to_bitmasks", "bitmasks_to_coalitions", "shapley_weights",
           "shapley_kernel_weights", "coalition_size_distribution", "sample_coalitions",
           "MAX_ENUMERATION_PLAYERS"]

#: Largest number of players for which enumerating all 2**d coalitions is allowed.
MAX_ENUMERATION_PLAYERS = 26

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


def all_coalitions(d: int) -> np.ndarray:
    """All ``2**d`` coalitions as a boolean array; row ``k`` is bitmask ``k``.

    Parameters
    ----------
    d : int
        Number of players, from 1 to :data:`MAX_ENUMERATION_PLAYERS`.

    Returns
    -------
    ndarray of bool, shape (2**d, d)
        Row ``k`` holds the coalition whose bitmask is ``k`` (column ``j`` is
        player ``j``), so the empty coalition comes first and the full one last.

    Raises
    ------
    ValueError
        If ``d`` is not a positive integer or exceeds :data:`MAX_ENUMERATION_PLAYERS`.

    Examples
    --------
    >>> import kernelxai as kx
    >>> kx.games.all_coalitions(2).astype(int)
    array([[0, 0],
           [1, 0],
           [0, 1],
           [1, 1]])
    """
    d = _check_enumerable(d)
    return bitmasks_to_coalitions(np.arange(2**d, dtype=np.int64), d)


def bitmasks_to_coalitions(masks: ArrayLike, d: int) -> np.ndarray:
    """Decode integer bitmasks (bit ``j`` = player ``j``) to a boolean array (m, d).

    The inverse of :func:`coalitions_to_bitmasks`.

    Parameters
    ----------
    masks : array-like of int, shape (m,)
        Bitmask codes; bit ``j`` set means player ``j`` is in the coalition.
    d : int
        Number of players (columns of the result); bits at positions ``>= d`` are ignored.

    Returns
    -------
    ndarray of bool, shape (m, d)
        Row ``i`` is the coalition coded by ``masks[i]``.

    Examples
    --------
    >>> import kernelxai as kx
    >>> kx.games.bitmasks_to_coalitions([5, 2], 3).astype(int)
    array([[1, 0, 1],
           [0, 1, 0]])
    """
    masks = np.asarray(masks, dtype=np.int64)
    return ((masks[:, None] >> np.arange(d, dtype=np.int64)) & 1).astype(bool)


def coalitions_to_bitmasks(coalitions: ArrayLike) -> np.ndarray:
    r"""Encode a boolean coalition array (m, d) as integer bitmasks (bit ``j`` = player ``j``).

    The inverse of :func:`bitmasks_to_coalitions`.

    Parameters
    ----------
    coalitions : array-like of bool, shape (m, d) or (d,)
        Coalitions, one per row (a single 1-D coalition is treated as one row);
        column ``j`` says whether player ``j`` is in.

    Returns
    -------
    ndarray of int64, shape (m,)
        The code :math:`\sum_j z_j 2^j` of each coalition.

    Raises
    ------
    ValueError
        If there are more than 62 players (the codes would overflow int64).

    Examples
    --------
    >>> import kernelxai as kx
    >>> kx.games.coalitions_to_bitmasks([[True, False, True], [False, True, False]])
    array([5, 2])
    """
    z = np.asarray(coalitions, dtype=bool)
    if z.ndim == 1:
        z = z[None, :]
    if z.shape[1] > 62:
        raise ValueError(f"bitmasks hold at most 62 players; got {z.shape[1]}")
    return z.astype(np.int64) @ (np.int64(1) << np.arange(z.shape[1], dtype=np.int64))


def shapley_weights(d: int) -> np.ndarray:
    r"""Shapley weights :math:`\mu(s) = s!\,(d-s-1)!\,/\,d!` for :math:`s = 0, \dots, d-1`.

    :math:`\mu(|S|)` multiplies the marginal contribution :math:`v(S \cup \{j\}) - v(S)` of a
    player :math:`j \notin S` in the Shapley formula (lecture, slide "Shapley values").

    Parameters
    ----------
    d : int
        Number of players, at least 1.

    Returns
    -------
    ndarray of float, shape (d,)
        Entry ``s`` is :math:`\mu(s)`, the weight of a coalition of size ``s`` not holding the player.

    Raises
    ------
    ValueError
        If ``d`` is not a positive integer.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> np.round(kx.games.shapley_weights(3), 4)
    array([0.3333, 0.1667, 0.3333])
    """
    d = check_positive_int(d, "number of players")
    s = np.arange(d)
    return np.exp(gammaln(s + 1) + gammaln(d - s) - gammaln(d + 1))


def shapley_kernel_weights(d: int, sizes: int | ArrayLike) -> np.ndarray:
    """Shapley-kernel weights k(d, s) = (d-1) / (C(d, s) s (d-s)) (RKHS-SHAP Prop. 4).

    Infinite for the empty and the full coalition, which estimators treat as
    exact constraints rather than as huge weights.

    Parameters
    ----------
    d : int
        Number of players, at least 1.
    sizes : int or array-like of int
        Coalition sizes ``s`` between 0 and ``d``.

    Returns
    -------
    ndarray of float, shape of ``sizes``
        The weight ``k(d, s)`` of one coalition of each size; ``inf`` where ``s`` is 0 or ``d``.

    Raises
    ------
    ValueError
        If ``d`` is not a positive integer.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> np.round(kx.games.shapley_kernel_weights(3, [0, 1, 2, 3]), 4)
    array([   inf, 0.3333, 0.3333,    inf])
    """
    d = check_positive_int(d, "number of players")
    s = np.asarray(sizes)
    with np.errstate(divide="ignore"):
        w = (d - 1) / (comb(d, s) * s * (d - s))
    return np.where((s == 0) | (s == d), np.inf, w)


def coalition_size_distribution(d: int) -> tuple[np.ndarray, np.ndarray]:
    """Probability of each coalition size s = 1..d-1 under the Shapley kernel.

    The total kernel mass of size ``s`` is ``C(d, s) k(d, s) = (d-1)/(s(d-s))``;
    normalised, it is the distribution KernelSHAP draws sizes from.

    Parameters
    ----------
    d : int
        Number of players, at least 2.

    Returns
    -------
    sizes : ndarray of int, shape (d - 1,)
        The sizes ``1, ..., d-1``.
    probabilities : ndarray of float, shape (d - 1,)
        Probability of each size; they sum to 1 and are symmetric in ``s <-> d - s``.

    Raises
    ------
    ValueError
        If ``d`` is not an integer of at least 2.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> sizes, p = kx.games.coalition_size_distribution(4)
    >>> sizes, np.round(p, 4)
    (array([1, 2, 3]), array([0.3636, 0.2727, 0.3636]))
    """
    d = check_positive_int(d, "number of players", minimum=2)
    s = np.arange(1, d)
    p = 1.0 / (s * (d - s))
    return s, p / p.sum()


def sample_coalitions(d: int, n: int, seed: int | np.random.Generator | None = None, *,
                      paired: bool = True) -> np.ndarray:
    """Draw ``n`` coalitions from the Shapley kernel (empty and full excluded).

    A size is drawn with probability proportional to ``(d-1)/(s(d-s))``, then a
    coalition of that size uniformly. With ``paired=True`` (Covert & Lee 2021)
    ``n // 2`` coalitions are drawn and each is followed by its complement,
    which has the same kernel weight; ``n`` must then be even.

    Parameters
    ----------
    d : int
        Number of players, at least 2.
    n : int
        Number of coalitions to draw, at least 1 (even when ``paired``).
    seed : None, int or numpy.random.Generator, optional
        Source of randomness; an int or ``None`` seeds a new Generator.
    paired : bool, default True
        Follow each drawn coalition by its complement.

    Returns
    -------
    ndarray of bool, shape (n, d)
        The coalitions, one per row; none is empty or full. With ``paired``,
        rows ``2i`` and ``2i + 1`` are complements.

    Raises
    ------
    ValueError
        If ``d < 2``, ``n < 1``, or ``paired`` and ``n`` is odd.
    TypeError
        If ``seed`` is not None, an int or a Generator.

    Examples
    --------
    >>> import kernelxai as kx
    >>> z = kx.games.sample_coalitions(4, 6, seed=0)
    >>> z.shape, bool((z[0::2] == ~z[1::2]).all())
    ((6, 4), True)
    >>> bool((z.sum(axis=1) > 0).all() and (z.sum(axis=1) < 4).all())
    True
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
