"""Synthetic designs of the RKHS-SHAP experiments (Chau et al., NeurIPS 2022).

* :func:`banana` -- the Banana distribution B(1/b, v) of Exp. 1 and 2 (supplement
  E.1) and its regression function, with the exact ground-truth Shapley values
  :func:`banana_shapley`.
* :func:`correlated_gaussian` -- the Gaussian design of Exp. 3 and 4 (covariate
  shift and fairness): d = 5, unit variances, corr(X4, X5) = 0.9,
  y = x'beta with beta = (1, 2, 3, 4, 10); :func:`shift_feature` adds the
  test-time noise on one feature.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.special import logsumexp

from .._validation import check_choice, check_matrix, check_positive_int, check_rng

__all__ = ["banana", "banana_function", "banana_conditional_u", "banana_shapley",
           "correlated_gaussian", "shift_feature", "BANANA_BS"]

#: The curvature parameters b of RKHS-SHAP Exp. 1 (X2 = (Z1^2 - v)/b + Z2).
BANANA_BS = (1, 10, 20, 50, 100)


def _check_b_v(b, v):
    for name, val in (("b", b), ("v", v)):
        if isinstance(val, bool) or not isinstance(val, numbers.Real) or not np.isfinite(val) or val <= 0:
            raise ValueError(f"{name} must be a positive number; got {val!r}")
    return float(b), float(v)


def banana(n=3000, b=1.0, v=10.0, *, noise=0.0, seed=None) -> tuple[np.ndarray, np.ndarray]:
    """Sample the Banana distribution and the regression target.

    Z ~ N(0, diag(v, 1)); X1 = Z1, X2 = (Z1^2 - v)/b + Z2;
    y = f(X) + noise * eps with f(x) = (x1^2 - v)/b + x2 (supplement E.1).

    Parameters
    ----------
    n : int
    b : float > 0
        Inverse curvature: large b makes the banana straight.
    v : float > 0
        Variance of X1.
    noise : float >= 0
        Standard deviation of Gaussian observation noise (0: y = f(X)).
    seed : None, int or Generator

    Returns
    -------
    X : ndarray (n, 2)
    y : ndarray (n,)
    """
    n = check_positive_int(n, "n")
    b, v = _check_b_v(b, v)
    if not np.isfinite(noise) or noise < 0:
        raise ValueError(f"noise must be a non-negative number; got {noise!r}")
    rng = check_rng(seed)
    z1 = rng.normal(0.0, np.sqrt(v), n)
    z2 = rng.normal(0.0, 1.0, n)
    X = np.column_stack([z1, (z1 * z1 - v) / b + z2])
    y = banana_function(X, b, v)
    if noise > 0:
        y = y + noise * rng.normal(size=n)
    return X, y


def banana_function(X, b, v=10.0) -> np.ndarray:
    """f(x) = (x1^2 - v)/b + x2, the Banana regression function."""
    b, v = _check_b_v(b, v)
    X = check_matrix(X, "X", n_features=2, allow_1d=True)
    return (X[:, 0] ** 2 - v) / b + X[:, 1]


def banana_conditional_u(x2, b, v=10.0, *, panel_width=None, order=8, max_elements=2**22) -> np.ndarray:
    """E[U | X2 = x2] with U = (Z1^2 - v)/b, by composite Gauss-Legendre quadrature.

    X2 = U + Z2 with Z2 ~ N(0, 1) independent of Z1 ~ N(0, v), so

        E[U | x2] = int u(z) phi(x2 - u(z)) p(z) dz / int phi(x2 - u(z)) p(z) dz.

    The integrand is even in z; with z = sqrt(v) s, s >= 0, the weight is
    exp(-s^2/2 - (x2 - u)^2/2) with u = v (s^2 - 1)/b. Its peak in s has width
    about b / (2 v s), narrow for small b, so the panels are four times narrower
    than that where they are (``panel_width`` fixes one width instead),
    ``order`` nodes per panel, over s in [0, max(9, s* + 1 + min(10 b / v, 9))]
    with s* = sqrt(1 + b max(x2) / v).
    Weights are combined in log space (no underflow).
    (The paper replaces this by x2, which is accurate only when
    Var U = 2 v^2 / b^2 is large.)

    Returns
    -------
    ndarray like x2
    """
    b, v = _check_b_v(b, v)
    x2 = np.asarray(x2, dtype=float)
    if not np.all(np.isfinite(x2)):
        raise ValueError("x2 contains NaN or inf")
    flat = x2.ravel()
    # the posterior of s peaks near s* = sqrt(1 + b x2 / v) with width ~ b / (2 v s*); the prior
    # exp(-s^2/2) is negligible (< 1e-17) past 9
    s_star = np.sqrt(max(0.0, 1.0 + b * flat.max(initial=0.0) / v))
    s_max = max(9.0, s_star + 1.0 + min(10.0 * b / v, 9.0))
    edges = [0.0]
    while edges[-1] < s_max:  # panels narrower than the peak, whose width is ~ b / (2 v s)
        sk = edges[-1]
        width = panel_width or min(0.05, b / (8.0 * v * max(sk, 1e-3)))
        edges.append(sk + max(width, 1e-6))
    edges = np.asarray(edges)
    t, w = np.polynomial.legendre.leggauss(order)
    half = 0.5 * np.diff(edges)
    s = ((edges[:-1] + half)[:, None] + half[:, None] * t[None, :]).ravel()
    log_w = np.log((half[:, None] * w[None, :]).ravel()) - 0.5 * s * s
    u = v * (s * s - 1.0) / b
    out = np.empty_like(flat)
    step = max(1, max_elements // len(s))
    for start in range(0, len(flat), step):
        x = flat[start:start + step, None]
        logk = log_w[None, :] - 0.5 * (x - u[None, :]) ** 2
        lz = logsumexp(logk, axis=1, keepdims=True)
        out[start:start + step] = (np.exp(logk - lz) * u[None, :]).sum(axis=1)
    return out.reshape(x2.shape)


def banana_shapley(X, b, v=10.0, kind="interventional") -> np.ndarray:
    """Ground-truth Shapley values of f on the Banana distribution.

    With U = (x1^2 - v)/b:

    * ``"interventional"``: phi = (U, x2) (supplement E.1, exact);
    * ``"observational"``: v(empty) = 0, v({1}) = 2U, v({2}) = x2 + E[U | X2 = x2],
      v(D) = f(x), so phi1 = (3U - E[U | x2]) / 2 and phi2 = (2 x2 + E[U | x2] - U) / 2,
      with E[U | x2] from :func:`banana_conditional_u` (exact);
    * ``"observational_paper"``: the supplement's closed form
      phi1 = (3U - x2)/2, phi2 = (3 x2 - U)/2, which assumes E[U | X2 = x2] = x2.

    Returns
    -------
    ndarray (n, 2)
    """
    kind = check_choice(kind, "kind", ("interventional", "observational", "observational_paper"))
    b, v = _check_b_v(b, v)
    X = check_matrix(X, "X", n_features=2, allow_1d=True)
    U, x2 = (X[:, 0] ** 2 - v) / b, X[:, 1]
    if kind == "interventional":
        return np.column_stack([U, x2])
    cond = x2 if kind == "observational_paper" else banana_conditional_u(x2, b, v)
    return np.column_stack([(3 * U - cond) / 2, (2 * x2 + cond - U) / 2])


def correlated_gaussian(n=3000, *, rho=0.9, beta=(1.0, 2.0, 3.0, 4.0, 10.0), noise=0.0,
                        seed=None) -> tuple[np.ndarray, np.ndarray]:
    """The Gaussian design of RKHS-SHAP Exp. 3 and 4.

    X ~ N(0, Sigma) with Sigma_ii = 1 and Sigma_45 = Sigma_54 = rho (features 4
    and 5, zero-based columns 3 and 4; X5 is the sensitive feature of Exp. 4
    and X4 its correlated proxy), y = X beta (+ noise * eps).

    Returns
    -------
    X : ndarray (n, 5)
    y : ndarray (n,)
    """
    n = check_positive_int(n, "n")
    beta = np.asarray(beta, dtype=float)
    if beta.shape != (5,):
        raise ValueError(f"beta must have 5 entries; got shape {beta.shape}")
    if not -1 < rho < 1:
        raise ValueError(f"rho must lie strictly between -1 and 1; got {rho!r}")
    rng = check_rng(seed)
    cov = np.eye(5)
    cov[3, 4] = cov[4, 3] = rho
    X = rng.multivariate_normal(np.zeros(5), cov, size=n, method="cholesky")
    y = X @ beta
    if noise > 0:
        y = y + noise * rng.normal(size=n)
    return X, y


def shift_feature(X, sigma, feature=4, seed=None) -> np.ndarray:
    """X with N(0, sigma^2) noise added to one column (Exp. 3's test-time shift of X5)."""
    X = check_matrix(X, "X").copy()
    if not 0 <= feature < X.shape[1]:
        raise ValueError(f"feature {feature} out of range for {X.shape[1]} columns")
    if not np.isfinite(sigma) or sigma < 0:
        raise ValueError(f"sigma must be a non-negative number; got {sigma!r}")
    X[:, feature] += sigma * check_rng(seed).normal(size=len(X))
    return X
