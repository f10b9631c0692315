"""Exact Shapley values of product games in polynomial time (MATH.md §3).

For a multiplicative game g(S) = prod_{l in S} a_l prod_{l not in S} c_l the
Shapley weight is a Beta integral, mu(q) = int_0^1 t^q (1-t)^(d-1-q) dt, so

    phi_j(g) = (a_j - c_j) int_0^1 prod_{l != j} (t a_l + (1-t) c_l) dt.

The integrand is a polynomial of degree d-1 in t: Gauss-Legendre quadrature
with ceil(d/2) nodes on [0, 1] is exact. When a and c lie in [0, 1] (kernel
values) every factor is a convex combination of non-negative numbers, so no
cancellation occurs at any d. The same identity underlies QuadraSHAP
(Mohammadi et al.) for product games in general.

The estimator here works on any :class:`~kernelxai.games.ProductGame`; it
knows nothing of kernels.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from tqdm.auto import tqdm

from .games import ProductGame

__all__ = ["gauss_legendre_01", "leave_one_out_product", "product_shapley"]

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


def gauss_legendre_01(q):
    """Gauss-Legendre nodes and weights on [0, 1], accurate to about one ulp.

    Nodes from numpy's ``leggauss`` carry relative errors of 1e-13 to 1e-11
    for tens to hundreds of nodes, which shows in Shapley values when kernel
    values are small (MATH.md §3). Here they are refined by Newton's method on
    P_q(cos theta) in extended precision, and both t and 1 - t are returned,
    each computed without cancellation (t = cos^2(theta/2), 1-t = sin^2(theta/2)).

    Returns
    -------
    t, one_minus_t, weights : ndarray (q,)
        Integrates polynomials of degree <= 2q - 1 on [0, 1] exactly.
    """
    q = int(q)
    if q < 1:
        raise ValueError(f"need at least one node; got {q}")
    return _gauss_legendre_01(q)


def leave_one_out_product(F, *, out=None):
    """prod_{l != j} F[..., l] for every j, along the last axis.

    Computed as the total product divided by the own factor, which is as
    accurate as the product itself; rows where a factor is zero or the total
    underflows fall back to prefix x suffix products.
    """
    total = np.prod(F, axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        res = np.divide(total, F, out=out)
    bad = np.abs(total[..., 0]) < 1e-290
    if np.any(bad):
        G = F[bad]
        prefix = np.ones_like(G)
        suffix = np.ones_like(G)
        prefix[..., 1:] = np.cumprod(G[..., :-1], axis=-1)
        suffix[..., :-1] = np.cumprod(G[..., :0:-1], axis=-1)[..., ::-1]
        res[bad] = prefix * suffix
    return res


def product_shapley(game, *, max_elements=2**22, progress=None):
    """Exact Shapley values and v(empty) of a :class:`ProductGame`.

    Cost O(R d ceil(d/2)) per instance for R terms, memory O(max_elements):
    the terms are streamed in blocks and no coalition is ever formed.

    Returns
    -------
    values : ndarray (n_instances, d)
    base_values : ndarray (n_instances,)
    """
    if not isinstance(game, ProductGame):
        raise TypeError(
            "method='product' needs a ProductGame -- a value function of a model with a "
            f"product kernel; got {type(game).__name__}. Use method='exact' or 'kernel' instead"
        )
    d, n = game.n_players, game.n_instances
    t, s, omega = gauss_legendre_01(max(1, math.ceil(d / 2)))
    q = len(t)
    phi = np.zeros((n, d))
    base = np.zeros(n)
    blocks = game.iter_terms(max(d, max_elements // 4))
    show = progress if progress is not None else False
    for rows, w, a, c in tqdm(blocks, desc="product Shapley", disable=not show, leave=False):
        shape = np.broadcast_shapes(a.shape, c.shape)
        acc = np.zeros(shape)
        F = np.empty(shape)
        tmp = np.empty(shape)
        loo = np.empty(shape)
        for k in range(q):
            np.multiply(a, t[k], out=F)
            np.multiply(c, s[k], out=tmp)
            F += tmp
            leave_one_out_product(F, out=loo)
            loo *= omega[k]
            acc += loo
        acc *= a - c
        phi[rows] += np.einsum("krd,kr->kd", acc, np.broadcast_to(w, shape[:2]))
        base[rows] += np.einsum("kr,kr->k", np.broadcast_to(w, shape[:2]),
                                np.broadcast_to(np.prod(c, axis=-1), shape[:2]))
    return phi, base


def _product_method(game, rng, *, max_elements=2**22, progress=None):
    values, base = product_shapley(game, max_elements=max_elements, progress=progress)
    return {"values": values, "base_values": base,
            "meta": {"budget": 0, "exact": True,
                     "route": "Gauss-Legendre quadrature of the Beta-integral identity"}}


def _register():
    from .shapley import register_method

    register_method("product", aliases=("quadrature",))(_product_method)


_register()
