r"""Synthetic designs of the RKHS-SHAP experiments (Chau et al., NeurIPS 2022).

* :func:`banana` -- the Banana distribution :math:`B(1/b, v)` of Exp. 1 and 2 (supplement
  E.1) and its regression function, with the exact ground-truth Shapley values
  :func:`banana_shapley`.
* :func:`correlated_gaussian` -- the Gaussian design of Exp. 3 and 4 (covariate
  shift and fairness): :math:`d = 5`, unit variances, :math:`\operatorname{corr}(X_4, X_5) = 0.9`,
  :math:`y = x^\top\beta` with :math:`\beta = (1, 2, 3, 4, 10)`; :func:`shift_feature` adds the
  test-time noise on one feature.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import logsumexp

from .._validation import check_choice, check_matrix, check_positive_int, check_rng

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike

__all__ = ["banana", "banana_function", "banana_conditional_u", "banana_shapley",
           "correlated_gaussian", "shift_feature", "BANANA_BS"]

#: The curvature parameters b of RKHS-SHAP Exp. 1 (X2 = (Z1^2 - v)/b + Z2).
BANANA_BS = (1, 10, 20, 50, 100)


def _check_b_v(b, v):
    for name, val in (("b", b), ("v", v)):
        if isinstance(val, bool) or not isinstance(val, numbers.Real) or not np.isfinite(val) or val <= 0:
            raise ValueError(f"{name} must be a positive number; got {val!r}")
    return float(b), float(v)


def banana(n: int = 3000, b: float = 1.0, v: float = 10.0, *, noise: float = 0.0,
           seed: int | np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""Sample the Banana distribution and the regression target.

    :math:`Z \sim \mathcal{N}\big(0, \operatorname{diag}(v, 1)\big)`; :math:`X_1 = Z_1`,
    :math:`X_2 = (Z_1^2 - v)/b + Z_2`; :math:`y = f(X) + \text{noise}\cdot\varepsilon` with
    :math:`f(x) = (x_1^2 - v)/b + x_2` (supplement E.1).

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

    Raises
    ------
    ValueError
        If ``n`` is not a positive integer, ``b`` or ``v`` is not a positive
        number, or ``noise`` is negative or not finite.
    TypeError
        If ``seed`` is not None, an int or a Generator.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelxai.datasets.rkhs_shap import banana, banana_function
    >>> X, y = banana(n=4, b=1.0, seed=0)
    >>> X.shape, bool(np.allclose(y, banana_function(X, b=1.0)))   # noise=0: y = f(X)
    ((4, 2), True)
    >>> X, y = banana(n=4000, b=100.0, seed=0)
    >>> np.round(X.var(axis=0), 1)   # Var X1 = v; a nearly straight banana: Var X2 = 2 v^2 / b^2 + 1
    array([10.,  1.])
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


def banana_function(X: ArrayLike, b: float, v: float = 10.0) -> np.ndarray:
    r""":math:`f(x) = (x_1^2 - v)/b + x_2`, the Banana regression function.

    Parameters
    ----------
    X : array (n, 2) or (2,)
        Points (a 1-D array is one point).
    b : float > 0
        Inverse curvature.
    v : float > 0, default 10.0
        Variance of X1.

    Returns
    -------
    ndarray (n,)

    Raises
    ------
    ValueError
        If ``b`` or ``v`` is not a positive number, or ``X`` does not have two
        columns or holds NaN or inf.

    Examples
    --------
    >>> from kernelxai.datasets.rkhs_shap import banana_function
    >>> banana_function([[1.0, 2.0], [0.0, 0.0]], b=1.0)   # (1 - 10) + 2 and (0 - 10) + 0
    array([ -7., -10.])
    """
    b, v = _check_b_v(b, v)
    X = check_matrix(X, "X", n_features=2, allow_1d=True)
    return (X[:, 0] ** 2 - v) / b + X[:, 1]


def banana_conditional_u(x2: float | ArrayLike, b: float, v: float = 10.0, *, panel_width: float | None = None,
                         order: int = 8, max_elements: int = 2**22) -> np.ndarray:
    r""":math:`\mathbb{E}[U \mid X_2 = x_2]` with :math:`U = (Z_1^2 - v)/b`, by composite Gauss-Legendre quadrature.

    :math:`X_2 = U + Z_2` with :math:`Z_2 \sim \mathcal{N}(0, 1)` independent of :math:`Z_1 \sim \mathcal{N}(0, v)`, so

    .. math::
        \mathbb{E}[U \mid x_2] = \frac{\int u(z)\, \varphi\big(x_2 - u(z)\big)\, p(z)\, dz}
                                      {\int \varphi\big(x_2 - u(z)\big)\, p(z)\, dz}.

    The integrand is even in :math:`z`; with :math:`z = \sqrt{v}\, s`, :math:`s \ge 0`, the weight is
    :math:`\exp\big(-s^2/2 - (x_2 - u)^2/2\big)` with :math:`u = v (s^2 - 1)/b`. Its peak in :math:`s` has width
    about :math:`b / (2 v s)`, narrow for small :math:`b`, so the panels are four times narrower
    than that where they are (``panel_width`` fixes one width instead),
    ``order`` nodes per panel, over :math:`s \in \big[0, \max(9, s^* + 1 + \min(10 b / v, 9))\big]`
    with :math:`s^* = \sqrt{1 + b \max(x_2) / v}`.
    Weights are combined in log space (no underflow).
    (The paper replaces this by :math:`x_2`, which is accurate only when
    :math:`\operatorname{Var} U = 2 v^2 / b^2` is large.)

    Parameters
    ----------
    x2 : float or array
        Values of X2 to condition on, any shape.
    b : float > 0
        Inverse curvature.
    v : float > 0, default 10.0
        Variance of Z1.
    panel_width : float, optional
        A fixed width (in s) of the quadrature panels instead of the adaptive ones.
    order : int, default 8
        Gauss-Legendre nodes per panel.
    max_elements : int, default 2**22
        Numbers held by one block of x2 values times nodes.

    Returns
    -------
    ndarray like x2

    Raises
    ------
    ValueError
        If ``b`` or ``v`` is not a positive number, or ``x2`` holds NaN or inf.

    Examples
    --------
    For a curved banana (b = 1) the conditional mean is close to x2; for a
    straight one (b = 100) U hardly varies and x2 is mostly noise:

    >>> import numpy as np
    >>> from kernelxai.datasets.rkhs_shap import banana_conditional_u
    >>> x2 = np.array([-5.0, 0.0, 5.0])
    >>> np.round(banana_conditional_u(x2, b=1.0), 4)
    array([-5.1586, -0.101 ,  4.9163])
    >>> np.round(banana_conditional_u(x2, b=100.0), 4)
    array([-0.0502, -0.0035,  0.4063])
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


def banana_shapley(X: ArrayLike, b: float, v: float = 10.0, kind: str = "interventional") -> np.ndarray:
    r"""Ground-truth Shapley values of f on the Banana distribution.

    With :math:`U = (x_1^2 - v)/b`:

    * ``"interventional"``: :math:`\phi = (U, x_2)` (supplement E.1, exact);
    * ``"observational"``: :math:`v(\emptyset) = 0`, :math:`v(\{1\}) = 2U`,
      :math:`v(\{2\}) = x_2 + \mathbb{E}[U \mid X_2 = x_2]`, :math:`v(D) = f(x)`, so
      :math:`\phi_1 = (3U - \mathbb{E}[U \mid x_2]) / 2` and :math:`\phi_2 = (2 x_2 + \mathbb{E}[U \mid x_2] - U) / 2`,
      with :math:`\mathbb{E}[U \mid x_2]` from :func:`banana_conditional_u` (exact);
    * ``"observational_paper"``: the supplement's closed form
      :math:`\phi_1 = (3U - x_2)/2`, :math:`\phi_2 = (3 x_2 - U)/2`, which assumes
      :math:`\mathbb{E}[U \mid X_2 = x_2] = x_2`.

    Parameters
    ----------
    X : array (n, 2) or (2,)
        The explained points.
    b : float > 0
        Inverse curvature.
    v : float > 0, default 10.0
        Variance of X1.
    kind : {"interventional", "observational", "observational_paper"}, default "interventional"
        Which value function (see above).

    Returns
    -------
    ndarray (n, 2)
        In every case the rows sum to f(x) (v(empty) = 0).

    Raises
    ------
    ValueError
        If ``kind`` is unknown, ``b`` or ``v`` is not a positive number, or
        ``X`` does not have two columns.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelxai.datasets.rkhs_shap import banana_function, banana_shapley
    >>> X = np.array([[1.0, 2.0], [-3.0, 0.5]])
    >>> banana_shapley(X, b=1.0)
    array([[-9. ,  2. ],
           [-1. ,  0.5]])
    >>> phi = banana_shapley(X, b=1.0, kind="observational")
    >>> np.round(phi, 4), bool(np.allclose(phi.sum(axis=1), banana_function(X, b=1.0)))
    (array([[-14.4539,   7.4539],
           [ -1.7007,   1.2007]]), True)
    """
    kind = check_choice(kind, "kind", ("interventional", "observational", "observational_paper"))
    b, v = _check_b_v(b, v)
    X = check_matrix(X, "X", n_features=2, allow_1d=True)
    U, x2 = (X[:, 0] ** 2 - v) / b, X[:, 1]
    if kind == "interventional":
        return np.column_stack([U, x2])
    cond = x2 if kind == "observational_paper" else banana_conditional_u(x2, b, v)
    return np.column_stack([(3 * U - cond) / 2, (2 * x2 + cond - U) / 2])


def correlated_gaussian(n: int = 3000, *, rho: float = 0.9, beta: Sequence[float] = (1.0, 2.0, 3.0, 4.0, 10.0),
                        noise: float = 0.0,
                        seed: int | np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""The Gaussian design of RKHS-SHAP Exp. 3 and 4.

    :math:`X \sim \mathcal{N}(0, \Sigma)` with :math:`\Sigma_{ii} = 1` and :math:`\Sigma_{45} = \Sigma_{54} = \rho`
    (features 4 and 5, zero-based columns 3 and 4; :math:`X_5` is the sensitive feature of Exp. 4
    and :math:`X_4` its correlated proxy), :math:`y = X\beta` (:math:`+\, \text{noise}\cdot\varepsilon`).

    Parameters
    ----------
    n : int, default 3000
        Number of rows, at least 1.
    rho : float, default 0.9
        Correlation of the last two features, strictly between -1 and 1.
    beta : sequence of 5 floats, default (1, 2, 3, 4, 10)
        The linear coefficients.
    noise : float, default 0.0
        Standard deviation of Gaussian noise added to ``X beta`` (0: none).
    seed : None, int or numpy.random.Generator, optional
        Source of randomness.

    Returns
    -------
    X : ndarray (n, 5)
    y : ndarray (n,)

    Raises
    ------
    ValueError
        If ``n`` is not a positive integer, ``beta`` does not have 5 entries,
        or ``rho`` is not strictly between -1 and 1.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelxai.datasets.rkhs_shap import correlated_gaussian
    >>> X, y = correlated_gaussian(n=2000, seed=0)
    >>> X.shape, round(float(np.corrcoef(X[:, 3], X[:, 4])[0, 1]), 2)
    ((2000, 5), 0.9)
    >>> bool(np.allclose(y, X @ [1.0, 2.0, 3.0, 4.0, 10.0]))
    True
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


def shift_feature(X: ArrayLike, sigma: float, feature: int = 4,
                  seed: int | np.random.Generator | None = None) -> np.ndarray:
    r"""X with :math:`\mathcal{N}(0, \sigma^2)` noise added to one column (Exp. 3's test-time shift of X5).

    Parameters
    ----------
    X : array (n, d)
        The points; not modified (a copy is returned).
    sigma : float >= 0
        Standard deviation of the added noise.
    feature : int, default 4
        The column (zero-based) that gets the noise; 4 is X5.
    seed : None, int or numpy.random.Generator, optional
        Source of randomness.

    Returns
    -------
    ndarray (n, d)
        A copy of X, column ``feature`` shifted.

    Raises
    ------
    ValueError
        If ``feature`` is not a column of X, ``sigma`` is negative or not finite,
        or X is not a finite 2-D array.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelxai.datasets.rkhs_shap import correlated_gaussian, shift_feature
    >>> X, _ = correlated_gaussian(n=3, seed=0)
    >>> shifted = shift_feature(X, sigma=1.0, seed=0)
    >>> bool(np.array_equal(shifted[:, :4], X[:, :4])), np.round(shifted[:, 4] - X[:, 4], 4)
    (True, array([ 0.1257, -0.1321,  0.6404]))
    """
    X = check_matrix(X, "X").copy()
    if not 0 <= feature < X.shape[1]:
        raise ValueError(f"feature {feature} out of range for {X.shape[1]} columns")
    if not np.isfinite(sigma) or sigma < 0:
        raise ValueError(f"sigma must be a non-negative number; got {sigma!r}")
    X[:, feature] += sigma * check_rng(seed).normal(size=len(X))
    return X
