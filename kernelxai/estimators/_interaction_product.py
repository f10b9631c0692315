"""Pairwise Shapley interactions of product games in polynomial time.

Takes a :class:`~kernelxai.games.ProductGame` (interventional and functional-baseline
games of product kernels, sums of them, grouped ones, MMD/HSIC games) and an index; hands
on the order-1 terms, the pairs, v(empty), v(N) and the absolute mass of the sums, as
``_interaction_exact`` does, without enumerating coalitions.

For g(S) = prod_{l in S} a_l prod_{l not in S} c_l, Delta_ij g(S) =
(a_i - c_i)(a_j - c_j) prod_{l in S} a_l prod_{l not in S+i+j} c_l, and every index
weight is a Beta integral, so with F_l(t) = t a_l + (1-t) c_l

    SII_ij  = (a_i - c_i)(a_j - c_j) int_0^1            prod_{l != i,j} F_l(t) dt,
    STII_ij = (a_i - c_i)(a_j - c_j) int_0^1 2 (1-t)      prod_{l != i,j} F_l(t) dt,
    FSII_ij = (a_i - c_i)(a_j - c_j) int_0^1 6 t (1-t)   prod_{l != i,j} F_l(t) dt,

polynomials of degree <= d in t: Gauss-Legendre with ceil((d+1)/2) nodes is exact.
All pairs of a term cost O(d^2 Q). The leave-two-out products are taken as
sqrt|T| / F_i x sqrt|T| / F_j with T = prod_l F_l -- a rank-one update per node, so all
pairs of all terms of an instance are one matrix product (BLAS) -- where that is as
accurate as the product itself: every F_l a normal number (division is correctly
rounded; sqrt|T| as the product of the sqrt|F_l| does not underflow before
|T| ~ 1e-600). (Term, node) pairs with a zero or subnormal factor use exclusive
prefix / middle / suffix products, no division; that route alone is ~300 times
slower at d = 200 (measured), which is why it is the fallback. The
order-1 Shapley values come from :func:`kernelxai.estimators.product_shapley`; STII's
v({i}) - v(empty) = sum w (a_i - c_i) prod_{l != i} c_l from prefix x suffix products.

This is the route of the pairs (order 2) of these four indices. By default
(``division=True``) it hands the work to the any-order engine
(``_interaction_product_orders``: sizes 1 and 2 of the index at order 2, from rows shared by
both sizes, with the node count the accuracy needs) -- the same integrals, equal up to
rounding to the pairwise quadrature above, which ``division=False`` keeps (prefix / middle /
suffix products throughout) as the reference the tests compare with.
"""

from __future__ import annotations

import math

import numpy as np

from .._config import working_elements
from ._common import progress_bar
from ._gauss_legendre import gauss_legendre_01, prefix_suffix
from ._interaction_product_orders import product_interaction_orders
from ._product import product_shapley

__all__ = ["n_nodes", "node_weights", "leave_two_out_product", "pair_block", "product_interactions"]

# the product route divides by factors only when they are normal numbers (above this)
_SMALL_FACTOR = 1e-290
#: Numbers of one block of terms by default (terms x nodes x d, about four arrays of them): the
#: temporaries of :func:`pair_block` stay near the cache (2**22 measured 1.2-1.8x slower).
_BLOCK_ELEMENTS = 2**18


def n_nodes(d) -> int:
    """Gauss-Legendre nodes that integrate the degree-d polynomials exactly: ceil((d+1)/2)."""
    return max(1, math.ceil((d + 1) / 2))


def node_weights(index, d) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nodes t, 1 - t and the weights of ``index``'s Beta integral (omega, 2 (1-t) omega or 6 t (1-t) omega)."""
    t, s, omega = gauss_legendre_01(n_nodes(d))
    if index == "STII":
        return t, s, omega * 2.0 * s
    if index == "FSII":
        return t, s, omega * 6.0 * t * s
    return t, s, np.array(omega)


def leave_two_out_product(G) -> np.ndarray:
    """prod_{l != i, j} G[..., l] for all i != j, by prefix, middle and suffix products.

    No division, so zeros and tiny factors are handled exactly. O(d^2) per row.

    Parameters
    ----------
    G : array (N, d)

    Returns
    -------
    ndarray (N, d, d), symmetric with zero diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> leave_two_out_product(np.array([[2.0, 3.0, 5.0]]))[0]   # [0, 1] is the product without 0 and 1: 5
    array([[0., 5., 3.],
           [5., 0., 2.],
           [3., 2., 0.]])
    """
    G = np.asarray(G, dtype=float)
    N, d = G.shape
    prefix = np.ones((N, d))
    suffix = np.ones((N, d))
    if d > 1:
        prefix[:, 1:] = np.cumprod(G[:, :-1], axis=1)
        suffix[:, :-1] = np.cumprod(G[:, :0:-1], axis=1)[:, ::-1]
    # middle[i, j] = prod_{i < l < j} G_l: cumulative products of rows that hold G_l for l > i
    H = np.where(np.arange(d)[None, :, None] < np.arange(d)[None, None, :], G[:, None, :], 1.0)
    cum = np.cumprod(H, axis=2)
    middle = np.ones((N, d, d))
    middle[:, :, 1:] = cum[:, :, :-1]
    L = prefix[:, :, None] * middle * suffix[:, None, :]
    L = np.triu(L, 1)
    return L + np.swapaxes(L, 1, 2)


def pair_block(A, C, W, t, s, nodew, division) -> tuple[np.ndarray, np.ndarray]:
    """Pair terms (k, d, d) and their absolute mass (k,) for factors A, C (k, r, d), weights W (k, r).

    With F = t A + (1-t) C per node, the pair (i, j) of a term at a node is
    w omega (a_i - c_i)(a_j - c_j) prod_{l != i,j} F_l = w omega sign(T) u_i u_j with
    u_i = (a_i - c_i) sqrt|T| / F_i and T = prod_l F_l: a rank-one update, so all pairs of
    all terms and nodes of an instance are one matrix product. sqrt|T| is the product of
    the sqrt|F_l| (no underflow until |T| < 1e-600), and division is correctly rounded, so
    this is as accurate as the product itself wherever every F_l is a normal number.
    (Term, node) pairs with a zero or subnormal factor use :func:`leave_two_out_product`.
    """
    k, r, d = A.shape
    F = A[:, :, None, :] * t[:, None] + C[:, :, None, :] * s[:, None]     # (k, r, Q, d)
    D = A - C
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        if division:
            ok = np.all(np.abs(F) >= _SMALL_FACTOR, axis=-1)               # (k, r, Q)
            root = np.prod(np.sqrt(np.abs(F)), axis=-1)
            sign = np.where(np.sum(F < 0, axis=-1) % 2 == 1, -1.0, 1.0)
            ratio = D[:, :, None, :] / np.where(ok[..., None], F, 1.0)
            U = ratio * root[..., None]
            ok &= np.all(np.isfinite(U), axis=-1)
            # root below the normal range: every pair is below it too unless a ratio is huge
            ok &= (root > _SMALL_FACTOR) | np.all(np.abs(ratio) < 1e10, axis=-1)
        else:
            ok = np.zeros(F.shape[:3], dtype=bool)
            U, sign = np.zeros(F.shape), np.ones(F.shape[:3])
    U = np.where(ok[..., None], U, 0.0)
    coef = np.where(ok, W[:, :, None] * nodew * sign, 0.0)                # (k, r, Q)
    Q = len(t)
    U2 = U.reshape(k, r * Q, d)
    P = np.matmul(np.swapaxes(U2 * coef.reshape(k, r * Q, 1), 1, 2), U2)
    mass = np.einsum("krq,krq->k", np.abs(coef), np.abs(U).sum(axis=-1) ** 2)
    bad = np.argwhere(~ok)                                                 # sorted by instance
    if len(bad):
        per = max(1, (2**21) // max(1, d * d))
        for lo in range(0, len(bad), per):
            kk, rr, qq = bad[lo:lo + per].T
            L = leave_two_out_product(F[kk, rr, qq])
            Dk = D[kk, rr]
            contrib = (W[kk, rr] * nodew[qq])[:, None, None] * Dk[:, :, None] * Dk[:, None, :] * L
            first = np.flatnonzero(np.r_[True, kk[1:] != kk[:-1]])
            P[kk[first]] += np.add.reduceat(contrib, first, axis=0)
            mass[kk[first]] += np.add.reduceat(np.abs(contrib).sum(axis=(1, 2)), first)
    return P, mass


def product_interactions(game, index, max_elements, progress, *, division=True, n_jobs=None) -> dict:
    """Order-1 terms and pairs of ``index`` for a product game, by quadrature (see the module docstring).

    Parameters
    ----------
    game : ProductGame
    index : str
        One of ``kernelxai.estimators._interaction_index.INDICES`` (checked by the caller).
    max_elements : int or None
        float64 elements of one block of terms.
    progress : bool or None
    division : bool
        True: the any-order engine (module docstring), which divides where that is as
        accurate; False: the pairwise quadrature with prefix / middle / suffix products
        throughout (no division), and the order-1 terms by
        :func:`~kernelxai.estimators.product_shapley`.
    n_jobs : int, optional
        Threads of the engine (``division=True``) or of
        :func:`~kernelxai.estimators.product_shapley` (``division=False``).

    Returns
    -------
    dict
        ``values`` (n, d) order-1 terms, ``pairs`` (n, d, d), ``v_empty`` and ``v_full`` (n,),
        ``mass`` (n,) the absolute size of the sums (the scale of the efficiency check) and
        ``budget`` (game evaluations)

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> g = kx.ProductGame([[0.5, 0.8, 0.9]], [[1.0, 1.0, 1.0]], [2.0])   # v(S) = 2 prod_{l in S} a_l
    >>> res = product_interactions(g, "SII", max_elements=None, progress=False)
    >>> res["pairs"][0].round(6), res["budget"]      # no coalition evaluated
    (array([[0.  , 0.19, 0.09],
           [0.19, 0.  , 0.03],
           [0.09, 0.03, 0.  ]]), 0)
    >>> bool(np.allclose(res["pairs"], kx.shapley_interactions(g, index="SII", method="exact").interactions))
    True
    """
    if division and game.n_players >= 2:
        return _by_orders(game, index, max_elements, progress, n_jobs)
    d, n = game.n_players, game.n_instances or 1
    t, s, nodew = node_weights(index, d)
    Q = len(t)
    work = min(working_elements(16), _BLOCK_ELEMENTS) if max_elements is None else int(max_elements)
    pairs = np.zeros((n, d, d))
    single = np.zeros((n, d))
    v_full, v_empty, mass = np.zeros(n), np.zeros(n), np.zeros(n)
    total = None if game.n_terms() is None else game.n_terms() * n
    with progress_bar(total, f"product {index}", "term", progress) as bar:
        for rows, w, a, c in game.iter_terms():
            a, c, w = (np.asarray(x, dtype=float) for x in (a, c, w))
            shape = np.broadcast_shapes(a.shape, c.shape, w.shape + (1,))
            K, R = shape[0], shape[1]
            if R == 0:
                continue
            start = rows.start or 0
            n_rows = len(range(*rows.indices(n)))
            shared = K == 1 and n_rows > 1
            a, c = np.broadcast_to(a, shape), np.broadcast_to(c, shape)
            w = np.broadcast_to(w, shape[:2])
            per_term = Q * d * 4 + d
            rc = max(1, min(R, work // per_term))
            kc = max(1, min(K, work // (per_term * R))) if rc == R else 1
            for k0 in range(0, K, kc):
                ks = slice(k0, min(K, k0 + kc))
                target = slice(start, start + n_rows) if shared else \
                    slice(start + k0, start + min(K, k0 + kc))
                for r0 in range(0, R, rc):
                    rs = slice(r0, min(R, r0 + rc))
                    A, C, W = a[ks, rs], c[ks, rs], w[ks, rs]
                    P, m = pair_block(A, C, W, t, s, nodew, division)
                    pairs[target] += P
                    mass[target] += m
                    with np.errstate(over="ignore", under="ignore"):
                        full = np.einsum("kr,kr->k", W, np.prod(A, axis=-1))
                        empty = np.einsum("kr,kr->k", W, np.prod(C, axis=-1))
                    v_full[target] += full
                    v_empty[target] += empty
                    mass[target] += np.abs(full) + np.abs(empty)
                    if index == "STII":
                        single[target] += np.einsum("kr,krd->kd", W, (A - C) * prefix_suffix(C, -1))
                    bar.update(W.size * (n_rows if shared else 1))
    pairs = 0.5 * (pairs + np.swapaxes(pairs, 1, 2))
    idx = np.arange(d)
    pairs[:, idx, idx] = 0.0
    if index == "STII":
        values = single
    else:
        phi, _ = product_shapley(game, max_elements=max_elements, n_jobs=n_jobs, progress=False)
        values = phi if index == "SII" else phi - 0.5 * pairs.sum(axis=2)
    return {"values": values, "pairs": pairs, "v_empty": v_empty, "v_full": v_full, "mass": mass,
            "budget": 0}


def _by_orders(game, index, max_elements, progress, n_jobs=None) -> dict:
    r""":func:`product_interactions`' result from the any-order engine: sizes 1 and 2 of ``index`` at order 2.

    Its size 1 is the order-1 terms (the Shapley value for SII, :math:`\phi_i - \frac12 \sum_j I_{ij}` for
    k-SII and FSII, the Moebius coefficients for STII); the mass adds |v(N)| + |v(empty)| as the
    pairwise quadrature's does.
    """
    d, n = game.n_players, game.n_instances or 1
    res = product_interaction_orders(game, index, 2, sizes=(1, 2), max_elements=max_elements, progress=progress,
                                     n_jobs=n_jobs)
    ones, twos = res["values"][1], res["values"][2]
    pairs = np.zeros((n, d, d))
    i, j = np.triu_indices(d, 1)                        # the lexicographic order of the pairs
    pairs[:, i, j] = twos.values
    pairs[:, j, i] = twos.values
    mass = ones.mass + twos.mass + np.abs(res["v_full"]) + np.abs(res["v_empty"])
    return {"values": ones.values, "pairs": pairs, "v_empty": res["v_empty"], "v_full": res["v_full"],
            "mass": mass, "budget": 0}
