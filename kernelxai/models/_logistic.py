"""Binary kernel logistic regression (RKHS-SHAP App. E), fitted by damped Newton steps.

Takes X and two-class labels, optionally a kernelxai kernel and the ridge
parameter. Hands on a fitted :class:`KernelLogisticRegression` whose logit is a
:class:`~kernelxai.models.KernelExpansion` (``expansion_``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.special import expit, log_expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._threads import single_threaded_blas
from ._estimation import (
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

__all__ = ["KernelLogisticRegression"]


class KernelLogisticRegression(ClassifierMixin, BaseEstimator):
    r"""Binary kernel logistic regression; its logit is a KernelExpansion.

    Minimises

    .. math::
        \frac{1}{n} \sum_i \log\big(1 + e^{-s_i f(x_i)}\big) + \lambda \|f - b\|^2_{\mathcal{H}}
        \quad\text{over}\quad f = \sum_i \alpha_i k(\cdot, x_i) + b,

    with :math:`s_i = \pm 1` the labels (RKHS-SHAP
    App. E; there is no reference implementation). Solved by damped Newton
    steps on the stationarity conditions :math:`(p - t)/n + 2\lambda\alpha = 0`,
    :math:`\sum_i (p_i - t_i) = 0`, with a backtracking line search on the objective.

    ``expansion_`` is the logit :math:`f(x) = \log p(y = c_1 \mid x) / p(y = c_0 \mid x)`
    (:math:`c_0, c_1` = ``classes_``);
    Shapley values of the logit are what :func:`kernelxai.explain` reports.

    Parameters
    ----------
    kernel : kernelxai Kernel or None
        None: product RBF with median-heuristic lengthscales.
    lam : float or None
        None: chosen from ``lams`` by stratified ``cv``-fold cross-validation of
        the log-loss (on at most ``cv_max_samples`` rows).
    lams, cv, cv_max_samples, random_state, max_iter, tol
        ``lams``: the grid searched when ``lam=None`` (default
        ``DEFAULT_LAMBDAS``); ``cv`` (default 3): the number of folds (fewer
        if a class has fewer rows; with fewer than 2 folds the grid's median
        is used); ``cv_max_samples`` (default 1500): rows of the random
        subsample the choice is made on; ``random_state`` (default 0): seed
        of that subsample and of the folds; ``max_iter`` (default 100) and
        ``tol`` (default 1e-8): Newton steps at most, and the relative change
        of the objective at which they stop.

    Attributes
    ----------
    expansion_ : KernelExpansion
        The fitted logit.
    classes_ : ndarray (2,)
        The two labels; ``classes_[1]`` is the positive class.
    kernel_, lam_, alpha_, intercept_, X_fit_
        The kernel, ridge parameter, coefficients, intercept and training
        inputs of the fit.
    cv_scores_ : ndarray or None
        Mean log-loss per grid value (None when ``lam`` was given).
    n_iter_ : int
        Newton steps of the final fit.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    >>> clf = kx.models.KernelLogisticRegression(lam=1e-3).fit(X, y)
    >>> clf.predict_proba(X[:2]).round(3)
    array([[0.16 , 0.84 ],
           [0.011, 0.989]])
    >>> bool(np.allclose(clf.decision_function(X[:3]), clf.expansion_.predict(X[:3])))   # the logit
    True
    >>> kx.explain(clf, X[:3], background=X).values.shape
    (3, 2)
    """

    def __init__(self, kernel: Kernel | None = None, lam: float | None = None, *, lams: ArrayLike | None = None,
                 cv: int = 3, cv_max_samples: int = 1500, random_state: int | np.random.Generator | None = 0,
                 max_iter: int = 100, tol: float = 1e-8) -> None:
        self.kernel = kernel
        self.lam = lam
        self.lams = lams
        self.cv = cv
        self.cv_max_samples = cv_max_samples
        self.random_state = random_state
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X: ArrayLike, y: ArrayLike) -> KernelLogisticRegression:
        X, y = validate_data(self, X, y)
        check_min_samples(X, "KernelLogisticRegression")
        from sklearn.utils.multiclass import check_classification_targets

        check_classification_targets(y)
        self.classes_, t = np.unique(y, return_inverse=True)
        if len(self.classes_) != 2:
            raise ValueError(f"Only binary classification is supported: KernelLogisticRegression "
                             f"needs exactly 2 classes; y has {len(self.classes_)} "
                             f"({self.classes_.tolist()[:10]})")
        t = t.astype(float)
        kernel = resolve_kernel(self.kernel, X)
        lam = check_lam(self.lam)
        self.cv_scores_ = None
        if lam is None:
            lam = self._select_lam(X, t, kernel)
        K = kernel.gram(X)
        alpha, b, self.n_iter_ = _fit_logistic(K, t, lam, self.max_iter, self.tol)
        self.kernel_, self.lam_, self.alpha_, self.intercept_ = kernel, lam, alpha, b
        self.X_fit_ = X
        self.expansion_ = KernelExpansion(X, alpha, kernel, b, feature_names=fitted_feature_names(self))
        return self

    def _select_lam(self, X, t, kernel):
        from sklearn.model_selection import StratifiedKFold

        grid = check_grid(self.lams)
        rng = np.random.default_rng(self.random_state)
        rows = np.arange(len(X))
        if len(X) > self.cv_max_samples:
            rows = np.sort(rng.choice(len(X), int(self.cv_max_samples), replace=False))
        Xs, ts = X[rows], t[rows]
        K = kernel.gram(Xs)
        n_splits = int(min(self.cv, np.bincount(ts.astype(int)).min()))
        if n_splits < 2:
            return float(np.median(grid))
        folds = StratifiedKFold(n_splits, shuffle=True, random_state=self.random_state)
        loss = np.zeros(len(grid))
        for train, test in folds.split(Xs, ts):
            Ktr, Kte = K[np.ix_(train, train)], K[np.ix_(test, train)]
            for k, lam in enumerate(grid):
                alpha, b, _ = _fit_logistic(Ktr, ts[train], lam, self.max_iter, self.tol)
                f = Kte @ alpha + b
                s = 2 * ts[test] - 1
                loss[k] += -log_expit(s * f).sum()
        self.cv_scores_ = loss / len(Xs)
        return float(grid[int(np.argmin(loss))])

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """The logit f(x) (positive: classes_[1])."""
        check_is_fitted(self, "expansion_")
        X = validate_data(self, X, reset=False)
        return self.expansion_.predict(X)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        p = expit(self.decision_function(X))
        return np.column_stack([1 - p, p])

    def predict(self, X: ArrayLike) -> np.ndarray:
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


def _fit_logistic(K, t, lam, max_iter=100, tol=1e-8):
    """Damped Newton for (1/n) sum softplus(-s f) + lam alpha'K alpha, f = K alpha + b.

    Newton is applied to F(alpha, b) = [(p - t)/n + 2 lam alpha, 1'(p - t)/n],
    whose zero is the minimiser (the alpha-gradient is K F_alpha); each step
    is accepted only if the objective decreases (backtracking).
    """
    if len(t) < 1500:  # many small dense solves: threaded BLAS only adds synchronisation
        with single_threaded_blas():
            return _newton_logistic(K, t, lam, max_iter, tol)
    return _newton_logistic(K, t, lam, max_iter, tol)


def _newton_logistic(K, t, lam, max_iter, tol):
    n = len(t)
    s = 2 * t - 1
    alpha, b = np.zeros(n), float(np.log((t.mean() + 1e-12) / (1 - t.mean() + 1e-12)))

    def objective(alpha, b):
        f = K @ alpha + b
        return -log_expit(s * f).mean() + lam * alpha @ (K @ alpha), f

    obj, f = objective(alpha, b)
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - the count is returned
        p = expit(f)
        w = p * (1 - p)
        F = np.concatenate([(p - t) / n + 2 * lam * alpha, [(p - t).sum() / n]])
        J = np.empty((n + 1, n + 1))
        J[:n, :n] = w[:, None] * K / n
        J[np.diag_indices(n)] += 2 * lam
        J[:n, n] = w / n
        J[n, :n] = w @ K / n
        J[n, n] = w.sum() / n
        try:
            step = np.linalg.solve(J, -F)
        except np.linalg.LinAlgError:
            step = -F
        size = 1.0
        while True:
            new_alpha, new_b = alpha + size * step[:n], b + size * step[n]
            new_obj, new_f = objective(new_alpha, new_b)
            if new_obj <= obj + 1e-16 * abs(obj) or size < 1e-10:
                break
            size /= 2
        converged = abs(obj - new_obj) <= tol * max(1.0, abs(obj)) and np.abs(size * step).max() < 1e-6
        alpha, b, obj, f = new_alpha, new_b, new_obj, new_f
        if converged:
            break
    return alpha, float(b), it
