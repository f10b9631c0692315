"""The pairwise Shapley interaction indices as linear functionals of a game's worths.

Takes coalitions (bool (m, d)) and an index name; hands on the coefficients c(T) with
which each index is sum_T c(T) v(T), the tables of those coefficients by coalition size
that the enumeration (``_interaction_exact``) and the sampling estimator
(``_interaction_sampled``) use, and the efficiency check every route's result passes.

For players i != j and S a coalition without them, write
``Delta_ij v(S) = v(S+i+j) - v(S+i) - v(S+j) + v(S)``, ``s = |S|``, d = number of players.

``"SII"`` (Grabisch & Roubens)
    I_ij = sum_S s! (d-2-s)! / (d-1)! Delta_ij v(S); order-1 terms are the Shapley values.
``"k-SII"`` (Bordt & von Luxburg), k = 2
    the SII pairs; order-1 terms phi_i - 1/2 sum_j I_ij.
``"STII"`` (Sundararajan et al.), order 2
    I_ij = (2/d) sum_S Delta_ij v(S) / C(d-1, s); order-1 terms v({i}) - v(empty).
``"FSII"`` (Faith-SHAP, Tsai et al.), order 2
    the coefficients of the order-<=2 polynomial in the coalition that best fits v in the
    Shapley-kernel-weighted least-squares sense with v(empty) and v(N) exact.

k-SII, STII and FSII are *efficient*: order-1 terms plus pairs (i < j) sum to
v(N) - v(empty). Every result is checked for it (for SII: the Shapley values' efficiency),
and a violation raises ``RuntimeError`` -- it would be a bug.

Faith-SHAP in closed form
-------------------------
Solving the constrained weighted least-squares problem and comparing with candidate
closed forms on random games (tests/test_interactions.py does this with an independent
least-squares solver) gives, for order 2, ::

    FSII_ij = 6 sum_S (s+1)! (d-s-1)! / (d+1)! Delta_ij v(S),     FSII_i = phi_i - 1/2 sum_j FSII_ij,

i.e. the pairs are a cardinal interaction index with Beta(s+2, d-s) weights and the
order-1 terms are the Shapley values minus half of the pairs (the same shape as k-SII).
All four indices are therefore linear in the worths with weights that depend only on
``|S|``, which is what the three routes (exact, product, sampled) use.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

__all__ = ["INDICES", "check_index", "pair_weight", "shapley_weight", "CoefficientTables",
           "interaction_coefficients", "check_efficiency"]

#: The interaction indices, as spelled in ``index=``.
INDICES = ("SII", "k-SII", "STII", "FSII")


def check_index(index) -> str:
    """The index named by ``index`` (case-insensitive; "ksii", "faith-shap" work), else ValueError."""
    if isinstance(index, str):
        key = "".join(ch for ch in index.upper() if ch.isalnum())
        found = {"SII": "SII", "KSII": "k-SII", "STII": "STII", "FSII": "FSII",
                 "FAITHSHAP": "FSII"}.get(key)
        if found is not None:
            return found
    raise ValueError(f"unknown interaction index {index!r}; accepted: "
                     f"{', '.join(repr(i) for i in INDICES)} (case-insensitive; 'ksii' works too)")


def pair_weight(index, d, s) -> Fraction:
    """Weight of Delta_ij v(S), ``|S| = s``, in the pair term of ``index`` (exact Fraction)."""
    if index in ("SII", "k-SII"):
        return Fraction(1, (d - 1) * math.comb(d - 2, s))
    if index == "STII":
        return Fraction(2, d * math.comb(d - 1, s))
    return Fraction(6, (d + 1) * math.comb(d, s + 1))  # FSII: 6 (s+1)! (d-s-1)! / (d+1)!


def shapley_weight(d, s) -> Fraction:
    """s! (d-1-s)! / d!, the Shapley weight of a coalition of size s without the player."""
    return Fraction(1, d * math.comb(d - 1, s))


class CoefficientTables:
    """Coefficients of v(T) by ``|T| = k``: pair[k, m] (m = [i in T] + [j in T], sign included),
    one[k, z] (z = [i in T]) for the order-1 terms before any pair correction."""

    def __init__(self, index, d, factors=None):
        self.index, self.d = index, d
        factors = [Fraction(1)] * (d + 1) if factors is None else factors
        pair = np.zeros((d + 1, 3))
        one = np.zeros((d + 1, 2))
        for k in range(d + 1):
            f = factors[k]
            if f == 0:
                continue
            for m, sign in ((0, 1), (1, -1), (2, 1)):
                s = k - m
                if d >= 2 and 0 <= s <= d - 2:
                    pair[k, m] = float(sign * f * pair_weight(index, d, s))
            if index == "STII":
                one[k, 1] = float(f) if k == 1 else 0.0
                one[k, 0] = -float(f) if k == 0 else 0.0
            else:
                one[k, 1] = float(f * shapley_weight(d, k - 1)) if k >= 1 else 0.0
                one[k, 0] = -float(f * shapley_weight(d, k)) if k <= d - 1 else 0.0
        self.pair, self.one = pair, one

    def coefficients(self, z) -> tuple[np.ndarray, np.ndarray]:
        """c1 (m, d) and c2 (m, d, d): the order-1 terms and pairs are sum_T c(T) v(T)."""
        zi = np.asarray(z, dtype=np.int8)
        k = zi.sum(axis=1, dtype=np.int64)
        c2 = self.pair[k[:, None, None], zi[:, :, None] + zi[:, None, :]]
        idx = np.arange(self.d)
        c2[:, idx, idx] = 0.0
        c1 = self.one[k[:, None], zi]
        if self.index in ("k-SII", "FSII"):
            c1 = c1 - 0.5 * c2.sum(axis=2)
        return c1, c2

    def size_sums(self) -> tuple[np.ndarray, np.ndarray]:
        """sum over all T with ``|T| = k`` of c(T): (pair (d+1,), order-1 (d+1,)), equal for all i, j."""
        d = self.d
        pair = np.zeros(d + 1)
        one = np.zeros(d + 1)
        for k in range(d + 1):
            if d >= 2:
                pair[k] = sum(math.comb(d - 2, k - m) * mult * self.pair[k, m]
                              for m, mult in ((0, 1), (1, 2), (2, 1)) if 0 <= k - m <= d - 2)
            one[k] = (math.comb(d - 1, k - 1) * self.one[k, 1] if k >= 1 else 0.0) + \
                (math.comb(d - 1, k) * self.one[k, 0] if k <= d - 1 else 0.0)
            if self.index in ("k-SII", "FSII"):
                one[k] -= 0.5 * (d - 1) * pair[k]
        return pair, one


def interaction_coefficients(coalitions, index="k-SII") -> tuple[np.ndarray, np.ndarray]:
    """The coefficients c(T) with which an index is a linear functional of the worths.

    ``order1[i] = sum_T c1[T, i] v(T)`` and ``pairs[i, j] = sum_T c2[T, i, j] v(T)`` over
    all 2**d coalitions T; the coefficients depend only on ``|T|`` and on whether i and j
    are in T.

    Parameters
    ----------
    coalitions : bool array (m, d)
    index : {"SII", "k-SII", "STII", "FSII"}

    Returns
    -------
    c1 : ndarray (m, d)
    c2 : ndarray (m, d, d)
        Symmetric, zero diagonal.

    Raises
    ------
    ValueError
        ``coalitions`` is not two-dimensional, or ``index`` is not one of
        the indices (case-insensitive; "ksii" and "faith-shap" work too).

    Examples
    --------
    >>> import kernelxai as kx
    >>> Z = kx.games.all_coalitions(3)                  # all 8 coalitions of 3 players
    >>> v = Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2]           # their worths
    >>> c1, c2 = interaction_coefficients(Z, "SII")
    >>> (v @ c1).round(12)                              # SII's order-1 terms: the Shapley values
    array([1., 1., 1.])
    >>> (v @ c2.reshape(8, 9)).reshape(3, 3).round(12)  # the pairs: players 1 and 2 interact
    array([[0., 0., 0.],
           [0., 0., 2.],
           [0., 2., 0.]])
    """
    z = np.asarray(coalitions, dtype=bool)
    if z.ndim != 2:
        raise ValueError(f"coalitions must be a boolean array (m, d); got shape {z.shape}")
    return CoefficientTables(check_index(index), z.shape[1]).coefficients(z)


def check_efficiency(index, method, res, tolerance) -> float:
    """The relative efficiency error of a route's result; RuntimeError above ``tolerance``.

    Order-1 terms plus pairs (i < j) -- for SII the order-1 terms alone -- against
    v(N) - v(empty), relative to the scale of the terms and of their rounding
    (``res["mass"]``). ``tolerance=None`` only measures.
    """
    values, pairs = res["values"], res["pairs"]
    target = res["v_full"] - res["v_empty"]
    upper = 0.5 * pairs.sum(axis=(1, 2))
    total = values.sum(axis=1) + (0.0 if index == "SII" else upper)
    scale = (np.abs(res["v_full"]) + np.abs(res["v_empty"]) + np.abs(values).sum(axis=1)
             + 0.5 * np.abs(pairs).sum(axis=(1, 2)) + res["mass"])
    err = np.abs(total - target)
    rel = float(np.max(err / np.where(scale > 0, scale, 1.0))) if err.size else 0.0
    if tolerance is not None and not rel <= tolerance:
        k = int(np.argmax(err / np.where(scale > 0, scale, 1.0)))
        what = ("the Shapley values (order-1 terms)" if index == "SII"
                else "the order-1 terms plus the pairs (i < j)")
        raise RuntimeError(
            f"{index} by method={method!r} is not efficient: for instance {k} {what} sum to "
            f"{total[k]!r} but v(N) - v(empty) = {target[k]!r} (relative error {rel:.1e}, "
            f"tolerance {tolerance:.0e}). This is a bug in kernelxai -- please report it")
    return rel
