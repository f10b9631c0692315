"""Coalition utilities: enumeration, bitmasks, Shapley and KernelSHAP weights, sampling.

Takes numbers of players; hands on coalitions as boolean arrays ``(m, d)``
(column ``j`` says whether player ``j`` is in), their bitmask codes (bit ``j``
is player ``j``), the Shapley weights by coalition size, the Shapley-kernel
weights of KernelSHAP, and paired samples from the Shapley kernel. The games
(:mod:`kernelxai.games.game_types`) and the estimators use them.
"""

from __future__ import annotations

import numpy as np
from scipy.special import comb, gammaln

from .._validation import check_positive_int, check_rng

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


def all_coalitions(d) -> np.ndarray:
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


def bitmasks_to_coalitions(masks, d) -> np.ndarray:
    """Decode integer bitmasks (bit ``j`` = player ``j``) to a boolean array (m, d)."""
    masks = np.asarray(masks, dtype=np.int64)
    return ((masks[:, None] >> np.arange(d, dtype=np.int64)) & 1).astype(bool)


def coalitions_to_bitmasks(coalitions) -> np.ndarray:
    """Encode a boolean coalition array (m, d) as integer bitmasks (bit ``j`` = player ``j``)."""
    z = np.asarray(coalitions, dtype=bool)
    if z.ndim == 1:
        z = z[None, :]
    if z.shape[1] > 62:
        raise ValueError(f"bitmasks hold at most 62 players; got {z.shape[1]}")
    return z.astype(np.int64) @ (np.int64(1) << np.arange(z.shape[1], dtype=np.int64))


def shapley_weights(d) -> np.ndarray:
    """Shapley weights mu(s) = s! (d-s-1)! / d! for s = 0..d-1.

    ``mu(|S|)`` multiplies the marginal contribution ``v(S+j) - v(S)`` of a
    player ``j`` not in ``S`` in the Shapley formula (lecture, slide "Shapley values").
    """
    d = check_positive_int(d, "number of players")
    s = np.arange(d)
    return np.exp(gammaln(s + 1) + gammaln(d - s) - gammaln(d + 1))


def shapley_kernel_weights(d, sizes) -> np.ndarray:
    """Shapley-kernel weights k(d, s) = (d-1) / (C(d, s) s (d-s)) (RKHS-SHAP Prop. 4).

    Infinite for the empty and the full coalition, which estimators treat as
    exact constraints rather than as huge weights.
    """
    d = check_positive_int(d, "number of players")
    s = np.asarray(sizes)
    with np.errstate(divide="ignore"):
        w = (d - 1) / (comb(d, s) * s * (d - s))
    return np.where((s == 0) | (s == d), np.inf, w)


def coalition_size_distribution(d) -> tuple[np.ndarray, np.ndarray]:
    """Probability of each coalition size s = 1..d-1 under the Shapley kernel.

    The total kernel mass of size ``s`` is ``C(d, s) k(d, s) = (d-1)/(s(d-s))``;
    normalised, it is the distribution KernelSHAP draws sizes from.
    """
    d = check_positive_int(d, "number of players", minimum=2)
    s = np.arange(1, d)
    p = 1.0 / (s * (d - s))
    return s, p / p.sum()


def sample_coalitions(d, n, seed=None, *, paired=True) -> np.ndarray:
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
