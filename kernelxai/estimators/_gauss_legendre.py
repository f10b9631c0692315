"""The quadrature rule of the Beta-integral identity, and how many of its nodes are needed.

Takes a node count, or the present and absent factors a, c of a product
game's terms; hands on Gauss-Legendre nodes and weights on [0, 1] accurate to
about one ulp (:func:`gauss_legendre_01`), the exact Shapley weights
(:func:`shapley_weights_exact`), leave-one-out products
(:func:`leave_one_out_product`, :func:`prefix_suffix`) and the node count the
accuracy needs (:func:`nodes_needed`, :func:`node_count`) to the product
routes (``kernelxai.estimators._product``) and the modules that integrate
the same identity (interactions, GP-SHAP, functionals).

How many nodes
--------------
Exactness for every polynomial of degree d-1 is more than double precision
needs: kernel values near 1 make the integrand nearly exp(-t sum_l (1 - a_l)),
which a handful of nodes integrates to rounding. For a, c >= 0 the count is
chosen per block of terms from a bound (never more than ceil(d/2)). With
rho_l = (a_l - c_l) / (a_l + c_l), S1 = sum_l |rho_l|, S2 = sum_l rho_l^2,
S0 = |sum_l rho_l| and any Bernstein-ellipse parameter R > 1, H = (R + 1/R)/2:

1. g_j(t) = prod_{l != j} (c_l + t (a_l - c_l)) is a polynomial, so its
   Chebyshev coefficients on [0, 1] satisfy |b_k| <= 2 M R^-k with M its
   largest modulus on the ellipse; n-point Gauss-Legendre integrates T_k
   exactly for k < 2n, odd T_k to zero, and errs by at most 2 + 2/(k^2-1)
   on the others, so the error is at most (8/3) M R^(2-2n) / (R^2 - 1).
2. On the ellipse |t - 1/2| <= H/2, hence with m_l = (a_l + c_l)/2,
   M <= prod_l m_l (1 + H |rho_l|) <= prod_l m_l exp(H S1), and by
   log|1 + w| <= Re w + |w|^2 / 2 also M <= prod_l m_l exp(H S0 + H^2 S2 / 2)
   (the better one when a - c changes sign, as in interventional games).
3. psi_j >= exp(int_0^1 log g_j) (Jensen) = prod_{l != j} I(a_l, c_l), the
   identric means, and log(m_l / I(a_l, c_l)) = sum_k rho^2k / (2k (2k+1))
   <= (1 - log 2) rho_l^2.

So the relative error of every psi_j is at most
(8/3) R^(2-2n) / (R^2 - 1) exp(min(H S1, H S0 + H^2 S2/2) + (1 - log 2) S2);
the smallest n that brings the best R below 2^-53 is used. At d = 500 with
an RBF lengthscale sqrt(d/2) that is 9 nodes instead of 250, about one or
two more than the fewest that reach the accuracy (tested against mpmath).
Negative or non-finite factors, or a factor zero in both states, get
ceil(d/2). Each factor is formed from one node parameter (c + t (a - c) for
t <= 1/2, a - (1-t)(a - c) beyond): a rounded pair (t, 1 - t) that does not
add up to 1 would shift every factor the same way, ~d/2 ulps over d factors.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .._validation import check_positive_int

__all__ = ["gauss_legendre_01", "shapley_weights_exact", "leave_one_out_product", "prefix_suffix",
           "nodes_needed", "node_count", "unit_node_count"]

# ``np.longdouble`` is the 80-bit x87 format on x86-64 Linux (64-bit mantissa);
# where it is plain double the refinement below still converges, to ~1e-16.
_LD = np.longdouble


def _legendre_pair(theta, q):
    """P_q and P_{q-1} at x = cos(theta), for 0 <= theta <= pi/2, in extended precision.

    The three-term recurrence is run on differences E_k = P_k - P_{k-1} with
    u = 1 - x = 2 sin^2(theta/2) as input: (k+1) E_{k+1} = k E_k - (2k+1) u P_k.
    Near x = 1, x itself cannot carry theta to full precision and the plain
    recurrence loses digits (P' is of order q^2 there); u can.
    """
    u = 2 * np.sin(theta / 2) ** 2
    p_prev, p = np.ones_like(u), 1 - u
    e = -u
    for k in range(1, q):
        e = (k * e - (2 * k + 1) * u * p) / (k + 1)
        p_prev, p = p, p + e
    return p, p_prev


@lru_cache(maxsize=128)
def _gauss_legendre_01(q):
    x0, _ = np.polynomial.legendre.leggauss(q)
    # the roots with x >= 0 (theta in [0, pi/2]); the others are their mirror images
    theta = np.arccos(x0[x0 >= -1e-300]).astype(_LD)
    for _ in range(50):
        p, p_prev = _legendre_pair(theta, q)
        # d/dtheta P_q(cos theta) = q (x P_q - P_{q-1}) / sin(theta)
        step = p * np.sin(theta) / (q * (np.cos(theta) * p - p_prev))
        theta = theta - step
        if np.max(np.abs(step / theta)) < 8 * np.finfo(_LD).eps:
            break
    _, p_qm1 = _legendre_pair(theta, q)
    # weight on [-1, 1]: 2 (1 - x^2) / (q P_{q-1}(x))^2; halved for [0, 1]
    weight = np.sin(theta) ** 2 / (q * q * p_qm1 * p_qm1)
    t = np.cos(theta / 2) ** 2          # (1 + x) / 2 >= 1/2
    s = np.sin(theta / 2) ** 2          # (1 - x) / 2 = 1 - t, without cancellation
    mirror = slice(None) if q % 2 == 0 else slice(1, None)  # x = 0 appears once
    t_all = np.concatenate([s[mirror][::-1], t])
    s_all = np.concatenate([t[mirror][::-1], s])
    w_all = np.concatenate([weight[mirror][::-1], weight])
    order = np.argsort(t_all)
    out = tuple(np.asarray(v[order], dtype=float) for v in (t_all, s_all, w_all))
    for v in out:
        v.setflags(write=False)
    return out


def gauss_legendre_01(q: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Gauss-Legendre nodes and weights on [0, 1], accurate to about one ulp.

    Nodes from numpy's ``leggauss`` carry relative errors of 1e-13 to 1e-11
    for tens to hundreds of nodes, which shows in Shapley values when kernel
    values are small. Here they are refined by Newton's method on
    :math:`P_q(\cos\theta)` in extended precision, and both :math:`t` and :math:`1 - t` are returned,
    each computed without cancellation (:math:`t = \cos^2(\theta/2)`, :math:`1 - t = \sin^2(\theta/2)`).

    Parameters
    ----------
    q : int
        Number of nodes, at least 1.

    Returns
    -------
    t, one_minus_t, weights : ndarray (q,)
        Integrates polynomials of degree :math:`\le 2q - 1` on :math:`[0, 1]` exactly.
        Increasing nodes; read-only arrays (cached per ``q``).

    Raises
    ------
    ValueError
        ``q`` is less than 1.

    Examples
    --------
    >>> from kernelxai.estimators import gauss_legendre_01
    >>> t, one_minus_t, w = gauss_legendre_01(3)
    >>> t.round(6), w.round(6)
    (array([0.112702, 0.5     , 0.887298]), array([0.277778, 0.444444, 0.277778]))
    >>> round(float(w @ t**5), 12)         # exact up to degree 5: int_0^1 t^5 dt = 1/6
    0.166666666667
    """
    q = int(q)
    if q < 1:
        raise ValueError(f"need at least one node; got {q}")
    return _gauss_legendre_01(q)


@lru_cache(maxsize=64)
def _shapley_weights_exact(d):
    out = np.array([1 / (d * math.comb(d - 1, q)) for q in range(d)], dtype=float)
    out.setflags(write=False)
    return out


def shapley_weights_exact(d) -> np.ndarray:
    """mu(q) = q! (d-q-1)! / d! = 1 / (d C(d-1, q)), q = 0..d-1, correctly rounded.

    Computed from exact integer binomials, so each weight carries only the
    final rounding (the log-gamma route loses ~d * 1e-16 relative at large d).
    Weights below the double range come out as 0 (d >~ 1030).

    Parameters
    ----------
    d : int
        Number of players, at least 1.

    Returns
    -------
    ndarray (d,)
        mu(0), ..., mu(d-1): the Shapley weight of a coalition of size q
        without the player. Read-only (cached per ``d``).

    Raises
    ------
    ValueError
        ``d`` is not a positive integer.

    Examples
    --------
    >>> shapley_weights_exact(3)          # 1/3, 1/6, 1/3
    array([0.33333333, 0.16666667, 0.33333333])
    """
    d = check_positive_int(d, "number of players")
    return _shapley_weights_exact(d)


def leave_one_out_product(F, *, out=None) -> np.ndarray:
    """prod_{l != j} F[..., l] for every j, along the last axis.

    Computed as the total product divided by the own factor, which is as
    accurate as the product itself; rows where a factor is zero or the total
    underflows fall back to prefix x suffix products.

    Parameters
    ----------
    F : ndarray (..., d)
        Factors, float.
    out : ndarray, optional
        Where to write the result (shape of ``F``); default a new array.

    Returns
    -------
    ndarray (..., d)
        Entry j is the product of all factors of its row but F[..., j].

    Examples
    --------
    >>> import numpy as np
    >>> leave_one_out_product(np.array([[2.0, 3.0, 5.0], [2.0, 0.0, 5.0]]))   # a zero: no division
    array([[15., 10.,  6.],
           [ 0., 10.,  0.]])
    """
    total = np.prod(F, axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        res = np.divide(total, F, out=out)
    bad = np.abs(total[..., 0]) < 1e-290
    if np.any(bad):
        res[bad] = prefix_suffix(F[bad], axis=-1)
    return res


def prefix_suffix(G, axis) -> np.ndarray:
    """prod_{l != j} G[l] along ``axis`` for every j, by exclusive prefix and suffix products (no division).

    Exact where division is not: zeros, subnormal and huge factors. O(d) per
    row, in two cumulative products.

    Parameters
    ----------
    G : ndarray
        Factors.
    axis : int
        The axis of the d factors.

    Returns
    -------
    ndarray
        Shaped as ``G``: entry j along ``axis`` is the product of the others.

    Examples
    --------
    >>> import numpy as np
    >>> prefix_suffix(np.array([2.0, 3.0, 5.0]), axis=0)
    array([15., 10.,  6.])
    >>> prefix_suffix(np.array([[2.0, 2.0], [0.0, 3.0], [5.0, 4.0]]), axis=0)   # factors along the rows
    array([[ 0., 12.],
           [10.,  8.],
           [ 0.,  6.]])
    """
    G = np.moveaxis(G, axis, -1)
    prefix = np.ones_like(G)
    suffix = np.ones_like(G)
    if G.shape[-1] > 1:
        prefix[..., 1:] = np.cumprod(G[..., :-1], axis=-1)
        suffix[..., :-1] = np.cumprod(G[..., :0:-1], axis=-1)[..., ::-1]
    return np.moveaxis(prefix * suffix, -1, axis)


# --------------------------------------------------------------------------- #
# how many nodes the accuracy needs (module docstring)
# --------------------------------------------------------------------------- #
#: Relative truncation error allowed in each integral psi_j: half an ulp of 1,
#: below the rounding error the products themselves carry.
_TRUNCATION = 2.0**-53

#: Bernstein-ellipse parameters over which the node bound is minimised.
_RHO = 1.0 + np.geomspace(1e-3, 1e8, 512)
_LOG_RHO = np.log(_RHO)
_HALF_AXIS = (_RHO + 1.0 / _RHO) / 2
_BOUND_CONST = math.log(8 / 3) - np.log((_RHO - 1) * (_RHO + 1)) - math.log(_TRUNCATION)
_H_MAX = 1.0 - math.log(2.0)


def nodes_needed(s1, s2, d, s0=None) -> int:
    """Gauss-Legendre nodes that integrate every psi_j to relative error 2^-53.

    For factors a_l, c_l >= 0 (a_l + c_l > 0) write rho_l = (a_l - c_l) / (a_l + c_l).
    Given ``s1 >= sum_l |rho_l|``, ``s2 >= sum_l rho_l^2`` and optionally
    ``s0 >= |sum_l rho_l|``, the truncation error of n nodes, relative to every
    psi_j, is at most

        (8/3) R^(2-2n) / (R^2 - 1) * exp(min(H s1, H s0 + H^2 s2 / 2) + (1 - log 2) s2),

    H = (R + 1/R) / 2, for every Bernstein-ellipse parameter R > 1 (module
    docstring). The count returned is the smallest n that brings the best of
    these below 2^-53, and never more than ceil(d/2), which is exact whatever
    the factors. Non-finite sums (a factor zero in both states, or a
    negative factor reported as NaN) get ceil(d/2).

    Parameters
    ----------
    s1, s2 : float
        Upper bounds of ``sum_l |rho_l|`` and ``sum_l rho_l^2``.
    d : int
        Number of players.
    s0 : float, optional
        Upper bound of ``|sum_l rho_l|``; sharper when a - c changes sign.

    Returns
    -------
    int
        The node count, in 1..ceil(d/2) (1 when ``s1 == 0``: every factor
        is constant in t).

    Examples
    --------
    >>> nodes_needed(0.5, 0.05, d=100)             # factors close to constant: a few nodes
    7
    >>> nodes_needed(20.0, 5.0, d=100), nodes_needed(float("nan"), 0.0, d=100)   # at most ceil(d/2)
    (29, 50)
    """
    full = max(1, math.ceil(d / 2))
    if not (math.isfinite(s1) and s1 >= 0 and math.isfinite(s2) and s2 >= 0
            and (s0 is None or (math.isfinite(s0) and s0 >= 0))):
        return full
    if s1 == 0:  # every factor is constant in t
        return 1
    growth = _HALF_AXIS * s1
    if s0 is not None:  # mixed signs of a - c cancel in the growth off the real interval
        growth = np.minimum(growth, _HALF_AXIS * s0 + _HALF_AXIS**2 * (s2 / 2))
    need = 1 + (_BOUND_CONST + growth + _H_MAX * s2) / (2 * _LOG_RHO)
    return int(min(full, max(1, math.ceil(need.min()))))


def unit_node_count(a, d) -> int | None:
    """:func:`node_count` of terms whose absent factors are all 1, from their present factors ``a`` (M, d).

    The same bound from the same sums, taken along the rows of ``a`` as the game
    hands them on (no transposed copy; the sums may differ from
    :func:`node_count`'s in the last bit). None when some factor is outside
    [0, 1] or not finite: :func:`node_count` handles those.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.random.default_rng(0).uniform(0.9, 1.0, size=(5, 40))   # 5 terms, 40 players
    >>> unit_node_count(a, 40), node_count(a.T, None, a.T - 1.0, 40, np.empty((40, 5)), np.empty((40, 5)))
    (8, 8)
    """
    a_min, a_max = float(a.min()), float(a.max())
    if not (a_min >= 0 and a_max <= 1.0):
        return None
    # |rho_l| = (1 - a_l) / (1 + a_l) <= (1 - a_l) / (1 + a_min), all of one sign
    # row sums by einsum: 2-3x faster than add.reduce along the short rows, no BLAS threads
    s1 = max(0.0, d - float(np.einsum("ij->i", a).min())) / (1 + a_min)
    return nodes_needed(s1, s1 * (1 - a_min) / (1 + a_min), d)


def node_count(A, C, D, d, scratch, scratch2) -> int:
    """Nodes needed for the terms (columns) of one block; see :func:`nodes_needed`.

    A, C (d, M) hold the present and absent factors (C None: all ones) and
    D = A - C; the sums are taken per term and their largest values used for
    the whole block. The bound needs non-negative factors; otherwise, or when
    any factor is not finite, the block gets ceil(d/2) nodes (exact).

    Parameters
    ----------
    A : ndarray (d, M)
        Present factors, one column per term.
    C : ndarray (d, M) or None
        Absent factors; None means all ones.
    D : ndarray (d, M)
        A - C (A - 1 when ``C`` is None).
    d : int
        Number of players.
    scratch, scratch2 : ndarray (d, M)
        Working arrays, overwritten.

    Returns
    -------
    int
        Nodes for the block, in 1..ceil(d/2).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.random.default_rng(0).uniform(0.9, 1.0, size=(40, 5))   # 40 players, 5 terms
    >>> node_count(A, None, A - 1.0, 40, np.empty_like(A), np.empty_like(A))   # ceil(40/2) = 20 would be exact
    8
    """
    full = max(1, math.ceil(d / 2))
    a_min, a_max = float(A.min()), float(A.max())
    if C is None:
        if not (a_min >= 0 and a_max <= 1.0):
            return node_count(A, np.ones_like(A), D, d, scratch, scratch2)
        # |rho_l| = (1 - a_l) / (1 + a_l) <= (1 - a_l) / (1 + a_min), all of one sign
        s1 = -float(np.add.reduce(D, axis=0).min()) / (1 + a_min)
        return nodes_needed(s1, s1 * (1 - a_min) / (1 + a_min), d)
    if not (a_min >= 0 and float(C.min()) >= 0 and math.isfinite(a_max)):
        return full
    np.add(A, C, out=scratch2)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(D, scratch2, out=scratch)      # rho_l; NaN where a_l = c_l = 0
    s0 = float(np.abs(np.add.reduce(scratch, axis=0)).max())
    np.abs(scratch, out=scratch2)
    s1 = float(np.add.reduce(scratch2, axis=0).max())
    np.multiply(scratch, scratch, out=scratch)
    s2 = float(np.add.reduce(scratch, axis=0).max())
    return nodes_needed(s1, s2, d, s0)
