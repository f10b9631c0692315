"""Kernel ridge regression with an unpenalised intercept, and its closed-form leave-one-out error.

Takes X, y and optionally a kernelxai kernel and the ridge parameter. Hands on
a fitted :class:`KernelRidge` whose model is a
:class:`~kernelxai.models.KernelExpansion` (``expansion_``);
:func:`loo_scores` is the cross-validation of the ridge parameter in closed form.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy import linalg as sla
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from .._linalg import cholesky_jitter
from ._estimation import (
    DEFAULT_LAMBDAS,
    check_grid,
    check_lam,
    check_min_samples,
    fitted_feature_names,
    resolve_kernel,
    validate_data,
)
from ._expansion import KernelExpansion

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..kernels import Kernel

__all__ = ["KernelRidge", "loo_scores", "DEFAULT_LAMBDAS"]


class KernelRidge(RegressorMixin, BaseEstimator):
    r"""Kernel ridge regression with an unpenalised intercept; the fitted model is a KernelExpansion.

    Minimises

    .. math::
        \frac{1}{n} \sum_i \big(y_i - f(x_i)\big)^2 + \lambda \|f - b\|^2_{\mathcal{H}}
        \quad\text{over}\quad f = \sum_i \alpha_i k(\cdot, x_i) + b.

    The minimiser solves :math:`(K + n\lambda I)\alpha + b\mathbf{1} = y` with
    :math:`\mathbf{1}^\top\alpha = 0`, i.e. with :math:`A = K + n\lambda I`,
    :math:`b = \mathbf{1}^\top A^{-1} y / \mathbf{1}^\top A^{-1} \mathbf{1}` and
    :math:`\alpha = A^{-1}(y - b\mathbf{1})` -- the :math:`n`-scaled
    ridge of RKHS-SHAP, with the intercept fitted rather than penalised.

    Parameters
    ----------
    kernel : kernelxai Kernel or None
        None: a product RBF kernel with per-feature median-heuristic lengthscales
        (:func:`kernelxai.kernels.median_heuristic`).
    lam : float or None
        Ridge parameter. None: chosen from ``lams`` by leave-one-out
        cross-validation in closed form (exact for this penalised least-squares
        fit; one eigendecomposition of K serves the whole grid). Above
        ``cv_max_samples`` rows the choice is made on a random subsample of that
        size (seeded by ``random_state``) and then used on all rows -- lam is a
        per-sample penalty, so it transfers.
    lams : array, optional
        The grid searched when ``lam=None`` (default ``DEFAULT_LAMBDAS``).
    cv_max_samples : int
    random_state : int
        Seed of that subsample.

    Attributes
    ----------
    expansion_ : KernelExpansion
    kernel_, lam_, alpha_, intercept_, X_fit_
    cv_scores_ : ndarray or None
        Mean squared leave-one-out error per grid value.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from kernelxai.models import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(60, 2))
    >>> y = np.sin(X[:, 0]) + 0.1 * X[:, 1]
    >>> m = KernelRidge().fit(X, y)   # RBF, median-heuristic lengthscales, lam by leave-one-out
    >>> bool(np.allclose(m.predict(X[:3]), m.expansion_.predict(X[:3])))
    True
    >>> kx.explain(m, X[:3], background=X).values.shape
    (3, 2)
    """

    def __init__(self, kernel: Kernel | None = None, lam: float | None = None, *, lams: ArrayLike | None = None,
                 cv_max_samples: int = 1500, random_state: int | np.random.Generator | None = 0) -> None:
        self.kernel = kernel
        self.lam = lam
        self.lams = lams
        self.cv_max_samples = cv_max_samples
        self.random_state = random_state

    def fit(self, X: ArrayLike, y: ArrayLike) -> KernelRidge:
        X, y = validate_data(self, X, y, y_numeric=True)
        check_min_samples(X, "KernelRidge")
        y = np.asarray(y, dtype=float)
        kernel = resolve_kernel(self.kernel, X)
        lam = check_lam(self.lam)
        self.cv_scores_ = None
        if lam is None:
            grid = check_grid(self.lams)
            rows = np.arange(len(X))
            if len(X) > self.cv_max_samples:
                rows = np.sort(np.random.default_rng(self.random_state).choice(
                    len(X), int(self.cv_max_samples), replace=False))
            self.cv_scores_ = loo_scores(kernel.gram(X[rows]), y[rows], grid)
            lam = float(grid[int(np.argmin(self.cv_scores_))])
        alpha, b = _ridge_with_intercept(kernel.gram(X), y, lam)
        self.kernel_, self.lam_, self.alpha_, self.intercept_ = kernel, lam, alpha, b
        self.X_fit_ = X
        self.expansion_ = KernelExpansion(X, alpha, kernel, b, feature_names=fitted_feature_names(self))
        return self

    def predict(self, X: ArrayLike) -> np.ndarray:
        check_is_fitted(self, "expansion_")
        X = validate_data(self, X, reset=False)
        return self.expansion_.predict(X)


def _ridge_with_intercept(K, y, lam):
    """alpha, b solving (K + n lam I) alpha + b 1 = y, 1'alpha = 0 (K is overwritten)."""
    n = len(y)
    K[np.diag_indices_from(K)] += n * lam
    L = cholesky_jitter(K, "K + n lam I", "increase lam (the ridge) or check the kernel and data for NaN")
    sol = sla.cho_solve((L, True), np.column_stack([y, np.ones(n)]))
    b = float(sol[:, 0].sum() / sol[:, 1].sum())
    return sol[:, 0] - b * sol[:, 1], b


def loo_scores(K: np.ndarray, y: np.ndarray, grid: ArrayLike) -> np.ndarray:
    r"""Closed-form leave-one-out mean squared error of :class:`KernelRidge` for each lam.

    The fit is penalised least squares, so the leave-one-out residual is
    :math:`(y_i - \hat y_i) / (1 - S_{ii})` for the smoother :math:`\hat y = S y`. Here
    :math:`y - \hat y = n\lambda\alpha` and :math:`\alpha = P y` with
    :math:`P = A^{-1} - A^{-1}\mathbf{1}\mathbf{1}^\top A^{-1} / (\mathbf{1}^\top A^{-1}\mathbf{1})`,
    :math:`A = K + n\lambda I`, so the residual is :math:`\alpha_i / P_{ii}`. One
    eigendecomposition of :math:`K` gives :math:`A^{-1}` for every :math:`\lambda`. (The
    penalty :math:`n\lambda` is held fixed when a point is left out.)

    Parameters
    ----------
    K : ndarray (n, n)
        The Gram matrix of the training inputs (symmetric positive semi-definite).
    y : ndarray (n,)
        Targets.
    grid : sequence of float
        Ridge parameters lam to score.

    Returns
    -------
    ndarray (len(grid),)
        The mean squared leave-one-out error for each lam.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 1))
    >>> y = np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=30)
    >>> scores = kx.models.loo_scores(kx.kernels.RBF(0.5).gram(X), y, [1e-4, 1e-2, 1.0])
    >>> scores.round(4)                     # too little and too much smoothing both err more
    array([0.0673, 0.0565, 0.3908])
    """
    n = len(y)
    s, U = np.linalg.eigh(K)
    s = np.clip(s, 0.0, None)
    Uy, U1, U2 = U.T @ y, U.sum(axis=0), U * U
    scores = np.empty(len(grid))
    for k, lam in enumerate(grid):
        inv = 1.0 / (s + n * lam)
        Ay, A1 = U @ (inv * Uy), U @ (inv * U1)
        c = A1.sum()
        alpha = Ay - A1 * (Ay.sum() / c)
        P_ii = U2 @ inv - A1 * A1 / c
        scores[k] = np.mean((alpha / np.maximum(P_ii, 1e-300)) ** 2)
    return scores
