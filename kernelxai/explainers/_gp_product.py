"""The product route of GP-SHAP: Shapley covariances of product kernels without enumerating coalitions.

Takes a scikit-learn kernel (split into weighted :class:`~kernelxai.kernels.ProductKernel`
terms by :func:`product_terms`), explained points and background rows, and
hands on the prior term ``A k(Z_x, Z_x') A^T`` (:func:`product_prior`, a 2-D
Gauss-Legendre double Shapley transform) and the cross-term games ``Psi``
(:func:`product_psi`) to ``kernelxai.explainers._gp_routes.ProductRoute``.
"""

from __future__ import annotations

import math

import numpy as np

from .._config import working_elements
from ..estimators._gauss_legendre import gauss_legendre_01, prefix_suffix
from ..estimators._quadrature_kernel import psi_quadrature
from ..kernels import ProductKernel, SumKernel
from ..kernels._from_sklearn import gp_kernel

__all__ = ["product_terms", "product_prior", "product_psi"]


def product_terms(kernel, d) -> list | None:
    """[(weight, ProductKernel)] with sum_r weight_r k_r = kernel (sklearn), or None.

    Parameters
    ----------
    kernel : scikit-learn kernel
        A fitted GP's kernel (``gp.kernel_``). A ``WhiteKernel`` summand is
        dropped: it is 0 between two sets of points.
    d : int
        The number of features.

    Returns
    -------
    list of (float, ProductKernel) or None
        The weighted product-kernel terms (terms of weight 0 left out); None
        when the kernel is not a sum of product kernels (e.g. Matern), so the
        product route does not apply.

    Examples
    --------
    >>> from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Matern, WhiteKernel
    >>> product_terms(ConstantKernel(2.0) * RBF(1.0) + WhiteKernel(0.1), 3)
    [(2.0, RBF(lengthscale=1.0))]
    >>> product_terms(Matern(1.0), 3) is None
    True
    """

    scale, kern = gp_kernel(kernel, d)
    if isinstance(kern, SumKernel):
        return [(scale * w, k) for w, k in kern.terms if w != 0.0]
    if isinstance(kern, ProductKernel):
        return [(scale, kern)] if scale != 0.0 else []
    return None


def product_prior(terms, X1, X2, B) -> np.ndarray:
    """Prior covariance ``A k(Z_x, Z_x') A^T`` for all pairs: (n1, n2, d, d).

    Per pair of background rows (b, b') the kernel between (x_S, b_{S^c}) and
    (x'_T, b'_{T^c}) is prod_l h_l(l in S, l in T) with
    h_l(1, 1) = k_l(x_l, x'_l), h_l(1, 0) = k_l(x_l, b'_l), h_l(0, 1) = k_l(b_l, x'_l),
    h_l(0, 0) = k_l(b_l, b'_l). Its Shapley transform in S (player j) and in T
    (player k) is, by the Beta identity in t for S and t' for T,

        j != k:  int int D_j(t') E_k(t) prod_{l != j, k} M_l(t, t') dt dt'
        j == k:  int int F_j prod_{l != j} M_l(t, t') dt dt'

    with M_l = t t' h11 + t (1-t') h10 + (1-t) t' h01 + (1-t)(1-t') h00,
    D_j(t') = t' (h11 - h01) + (1-t') (h10 - h00),
    E_k(t) = t (h11 - h10) + (1-t) (h01 - h00) and F_j = h11 - h01 - h10 + h00.
    Both integrands are polynomials of degree d - 1 in t and in t': ceil(d/2)
    Gauss-Legendre nodes per axis are exact. Leave-out products are prefix x
    suffix products (no division by small factors).

    Parameters
    ----------
    terms : list of (float, ProductKernel)
        The kernel as weighted product terms (:func:`product_terms`).
    X1 : ndarray (n1, d)
        Explained points x.
    X2 : ndarray (n2, d)
        Explained points x'.
    B : ndarray (m, d)
        Background rows b (the absent features' values, averaged over).

    Returns
    -------
    ndarray (n1, n2, d, d)
        Entry [a, c, j, k]: the prior covariance of phi_j(x_a) and phi_k(x'_c).

    Examples
    --------
    By efficiency the d x d block sums to the prior variance of f(x) - mean_b f(b):

    >>> import numpy as np
    >>> from sklearn.gaussian_process.kernels import RBF
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2, 3)); B = rng.normal(size=(5, 3))
    >>> P = product_prior(product_terms(RBF(1.0), 3), X, X, B)
    >>> Z, a = np.vstack([X[:1], B]), np.r_[1.0, np.full(5, -0.2)]
    >>> P.shape, round(float(P[0, 0].sum()), 6), round(float(a @ RBF(1.0)(Z, Z) @ a), 6)
    ((2, 2, 3, 3), 0.897726, 0.897726)
    """
    n1, d = X1.shape
    n2, m = X2.shape[0], B.shape[0]
    t, s, w = gauss_legendre_01(max(1, math.ceil(d / 2)))
    q = len(t)
    out = np.zeros((n1, n2, d, d))
    # work items: (point pair, b, b', t, t') -- chunk over pairs of points and rows b
    per_item = 12 * d
    budget = max(1, working_elements(2) // per_item)
    b_step = max(1, min(m, budget // (m * q * q)))
    pair_step = max(1, budget // (b_step * m * q * q))
    tt = (t[:, None] * t[None, :]).ravel()          # (q*q,) index (t, t')
    ts_ = (t[:, None] * s[None, :]).ravel()
    st_ = (s[:, None] * t[None, :]).ravel()
    ss_ = (s[:, None] * s[None, :]).ravel()
    t_of = np.repeat(t, q)                           # t for index (t, t')
    s_of = np.repeat(s, q)
    tp_of = np.tile(t, q)                            # t'
    sp_of = np.tile(s, q)
    wq = np.outer(w, w).ravel() / (m * m)
    pairs = [(a, b) for a in range(n1) for b in range(n2)]
    for weight, kern in terms:
        hxx = kern.feature_grams(X1, X2)           # (n1, n2, d)
        hxb = kern.feature_grams(X1, B)            # (n1, m, d)
        hbx = kern.feature_grams(B, X2)            # (m, n2, d)
        hbb = kern.feature_grams(B, B)             # (m, m, d)
        for p0 in range(0, len(pairs), pair_step):
            chunk = pairs[p0:p0 + pair_step]
            ia = np.array([a for a, _ in chunk])
            ib = np.array([b for _, b in chunk])
            acc = np.zeros((len(chunk), d, d))
            for b0 in range(0, m, b_step):
                bs = slice(b0, min(m, b0 + b_step))
                nb = bs.stop - bs.start
                # shapes (pairs, nb, m, 1, d) broadcast against nodes (q*q, 1)
                h11 = hxx[ia, ib][:, None, None, None, :]
                h10 = hxb[ia][:, None, :, None, :]
                h01 = hbx[bs, :][:, ib].transpose(1, 0, 2)[:, :, None, None, :]
                h00 = hbb[bs][None, :, :, None, :]
                M = (tt[:, None] * h11 + ts_[:, None] * h10 + st_[:, None] * h01
                     + ss_[:, None] * h00)          # (pairs, nb, m, q*q, d)
                D = tp_of[:, None] * (h11 - h01) + sp_of[:, None] * (h10 - h00)
                E = t_of[:, None] * (h11 - h10) + s_of[:, None] * (h01 - h00)
                F = np.broadcast_to(h11 - h01 - h10 + h00, M.shape)
                shape = (len(chunk), nb * m * q * q, d)
                M = M.reshape(shape)
                D = np.broadcast_to(D, (len(chunk), nb, m, q * q, d)).reshape(shape)
                E = np.broadcast_to(E, (len(chunk), nb, m, q * q, d)).reshape(shape)
                F = F.reshape(shape)
                wt = np.broadcast_to(wq, (nb, m, q * q)).reshape(-1)
                for j in range(d):  # a loop over features: leave j (and k) out
                    Mj = M.copy()
                    Mj[:, :, j] = 1.0
                    loo = prefix_suffix(Mj, axis=2)           # prod_{l != j, k} (k != j); prod_{l != j} at k = j
                    row = np.einsum("prk,pr,r->pk", E * loo, D[:, :, j], wt)
                    row[:, j] = np.einsum("pr,pr,r->p", F[:, :, j], loo[:, :, j], wt)
                    acc[:, j, :] += row
            out[ia, ib] += weight * acc
    return out


def product_psi(terms, X, B, X_train) -> np.ndarray:
    """Psi (n, d, n_train): Shapley values of S -> mean_b k((x_S, b_{S^c}), x_i) per train point i.

    Each training point's game is a product game (absent factors k_l(b_l, x_il)),
    solved by quadrature without enumerating coalitions, in blocks of
    training points.

    Parameters
    ----------
    terms : list of (float, ProductKernel)
        The kernel as weighted product terms (:func:`product_terms`).
    X : ndarray (n, d)
        Explained points.
    B : ndarray (m, d)
        Background rows.
    X_train : ndarray (n_train, d)
        The GP's training inputs.

    Returns
    -------
    ndarray (n, d, n_train)
        Entry [a, j, i]: feature j's Shapley value at x_a in the game of
        training point i.

    Examples
    --------
    By efficiency, summing over features gives k(x, x_i) - mean_b k(b, x_i):

    >>> import numpy as np
    >>> from sklearn.gaussian_process.kernels import RBF
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2, 3)); B = rng.normal(size=(5, 3)); X_train = rng.normal(size=(4, 3))
    >>> Psi = product_psi(product_terms(RBF(1.0), 3), X, B, X_train)
    >>> efficient = RBF(1.0)(X[:1], X_train)[0] - RBF(1.0)(B, X_train).mean(axis=0)
    >>> Psi.shape, bool(np.allclose(Psi[0].sum(axis=0), efficient))
    ((2, 3, 4), True)
    """
    n, d = X.shape
    m, nt = B.shape[0], X_train.shape[0]
    out = np.zeros((n, d, nt))
    step = max(1, working_elements(4) // max(1, 8 * m * d * max(1, math.ceil(d / 2))))
    for weight, kern in terms:
        cb = kern.feature_grams(B, X_train)                      # (m, nt, d): c_l = k_l(b_l, x_il)
        for i0 in range(0, nt, step):
            cols = slice(i0, min(nt, i0 + step))
            c = cb[:, cols]                                      # (m, k, d)
            for a in range(n):
                av = kern.feature_grams(X[a:a + 1], X_train[cols])[0]   # (k, d)
                A = np.broadcast_to(av[None], c.shape).reshape(-1, d)
                C = c.reshape(-1, d)
                psi = psi_quadrature(A, C, d) * (A - C)          # (m*k, d)
                out[a, :, cols] += weight * psi.reshape(m, -1, d).mean(axis=0).T
    return out
