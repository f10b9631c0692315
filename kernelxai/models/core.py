"""Kernel models: f(x) = sum_i alpha_i k(x, x_i) + b.

:class:`KernelExpansion` is the common currency: every supported model (the
estimators here, fitted scikit-learn models) is converted to one, and value
functions only ever see a KernelExpansion.

* :class:`KernelRidge` and :class:`KernelLogisticRegression` -- scikit-learn
  estimators whose fitted model is a KernelExpansion (``expansion_``); by
  default a product RBF kernel with median-heuristic lengthscales and the
  ridge parameter chosen by cross-validation.
* :func:`as_expansion` -- exact conversion of fitted scikit-learn
  ``KernelRidge``, ``SVR``, ``SVC`` (binary) and ``GaussianProcessRegressor``.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy import linalg as sla
from scipy.special import expit, log_expit
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted
from .._threads import single_threaded_blas

from .._linalg import cholesky_jitter
from .._config import working_elements
from .._validation import (
    as_real_array,
    check_feature_names,
    check_matrix,
    default_feature_names,
    feature_names_in,
    feature_names_of,
)
from ..kernels.core import RBF, Kernel, median_heuristic

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data as _validate_data
except ImportError:  # pragma: no cover - older scikit-learn
    def _validate_data(estimator, *args, **kwargs):
        return estimator._validate_data(*args, **kwargs)

__all__ = ["KernelExpansion", "KernelRidge", "KernelLogisticRegression", "as_expansion",
           "DEFAULT_LAMBDAS"]

#: Grid of ridge parameters searched by cross-validation when ``lam=None``.
DEFAULT_LAMBDAS = np.logspace(-7, 0, 15)


class KernelExpansion:
    """A kernel model f(x) = sum_i alpha_i k(x, x_i) + intercept.

    Parameters
    ----------
    X_train : array (n, d) or DataFrame
        The expansion points x_i (training inputs, support vectors, ...).
    alpha : array (n,)
        Coefficients.
    kernel : Kernel
    intercept : float
    feature_names : list of str, optional
        Default: DataFrame columns of ``X_train``, else x0, x1, ...
    holds_training_inputs : bool, default True
        Whether ``X_train`` are the model's training inputs (kernel ridge,
        Gaussian processes, kernelxai's estimators) or only its expansion
        points (an SVM's support vectors). Value functions that average over
        a background sample default to ``X_train`` only when it holds the
        training inputs; otherwise they ask for ``background=``.
    source : str, optional
        What the expansion was converted from (e.g. ``"SVC"``), for messages.

    Attributes
    ----------
    feature_names : list of str
    has_feature_names : bool
        True when the names are real -- DataFrame columns of ``X_train`` or
        given -- rather than the default x0, x1, ...; only real names are
        checked against the columns of DataFrames explained later (as
        scikit-learn checks ``feature_names_in_``).
    holds_training_inputs : bool
    source : str or None
    """

    def __init__(self, X_train, alpha, kernel, intercept=0.0, feature_names=None, *,
                 holds_training_inputs=True, source=None):
        if not isinstance(kernel, Kernel):
            raise TypeError(
                f"kernel must be a kernelxai kernel (e.g. kx.kernels.RBF); got {type(kernel).__name__}"
            )
        names = feature_names or feature_names_of(X_train)
        self.X_train = check_matrix(X_train, "X_train", n_features=kernel.n_features)
        if not isinstance(holds_training_inputs, (bool, np.bool_)):
            raise TypeError(f"holds_training_inputs must be True or False; got {holds_training_inputs!r}")
        self.holds_training_inputs = bool(holds_training_inputs)
        self.source = None if source is None else str(source)
        alpha = as_real_array(alpha, "alpha").ravel()
        if alpha.shape != (self.X_train.shape[0],):
            raise ValueError(
                f"alpha must have one coefficient per training point ({self.X_train.shape[0]}); "
                f"got {alpha.shape[0]}"
            )
        if not np.all(np.isfinite(alpha)):
            raise ValueError("alpha contains NaN or inf")
        intercept = float(intercept)
        if not np.isfinite(intercept):
            raise ValueError("intercept must be finite")
        self.alpha = alpha
        self.kernel = kernel
        self.intercept = intercept
        d = self.X_train.shape[1]
        self.feature_names = [str(c) for c in names] if names is not None else default_feature_names(d)
        if len(self.feature_names) != d:
            raise ValueError(f"feature_names has {len(self.feature_names)} entries for {d} features")
        # real names: given (other than the defaults some callers spell out) or string DataFrame
        # columns; integer column labels are positions, as in scikit-learn
        real = feature_names if feature_names else feature_names_in(X_train)
        self.has_feature_names = real is not None and (
            [str(c) for c in real] != default_feature_names(d))

    @property
    def n_features(self):
        return self.X_train.shape[1]

    def check_X(self, X, name="X"):
        """Validate points against the model's feature count and, for a DataFrame, its feature names."""
        check_feature_names(X, feature_names_in(self), name)
        return check_matrix(X, name, n_features=self.n_features, allow_1d=True)

    def predict(self, X, max_elements=None):
        """f(X), evaluated in row blocks of about ``max_elements`` numbers (default: from the config)."""
        X = self.check_X(X)
        out = np.empty(X.shape[0])
        max_elements = working_elements(2) if max_elements is None else int(max_elements)
        step = max(1, max_elements // max(1, self.X_train.shape[0] * self.n_features))
        for start in range(0, X.shape[0], step):
            block = X[start:start + step]
            out[start:start + len(block)] = self.kernel.gram(block, self.X_train) @ self.alpha
        return out + self.intercept

    __call__ = predict

    def __repr__(self):
        return (f"KernelExpansion(n={self.X_train.shape[0]}, d={self.n_features}, "
                f"kernel={self.kernel!r}, intercept={self.intercept:.4g})")



# --------------------------------------------------------------------------- #
# shared helpers of the estimators
# --------------------------------------------------------------------------- #
def _resolve_kernel(kernel, X):
    if kernel is None:
        return RBF(median_heuristic(X))
    if not isinstance(kernel, Kernel):
        raise TypeError(f"kernel must be a kernelxai kernel (e.g. kx.kernels.RBF(1.0)) or None "
                        f"(product RBF with median-heuristic lengthscales); got {type(kernel).__name__}")
    if kernel.n_features is not None and kernel.n_features != X.shape[1]:
        raise ValueError(f"the kernel has parameters for {kernel.n_features} features; "
                         f"X has {X.shape[1]}")
    return kernel


def _check_lam(lam):
    if lam is None:
        return None
    if isinstance(lam, bool) or not isinstance(lam, numbers.Real) or not np.isfinite(lam) or lam <= 0:
        raise ValueError(f"lam must be a positive number or None (cross-validation); got {lam!r}")
    return float(lam)


def _check_grid(lams):
    grid = DEFAULT_LAMBDAS if lams is None else np.asarray(lams, dtype=float).ravel()
    if grid.size == 0 or not np.all(np.isfinite(grid)) or np.any(grid <= 0):
        raise ValueError(f"lams must be a non-empty list of positive numbers; got {lams!r}")
    return grid


def _min_samples(X, name):
    if X.shape[0] < 2:
        raise ValueError(f"{name} needs at least 2 samples; got 1 sample")


def _names(estimator, d):
    """The estimator's real feature names (from a DataFrame at fit time), else None (x0, x1, ...)."""
    names = getattr(estimator, "feature_names_in_", None)
    return [str(c) for c in names] if names is not None else None


# --------------------------------------------------------------------------- #
# kernel ridge regression
# --------------------------------------------------------------------------- #
class KernelRidge(RegressorMixin, BaseEstimator):
    """Kernel ridge regression with an unpenalised intercept; the fitted model is a KernelExpansion.

    Minimises (1/n) sum_i (y_i - f(x_i))^2 + lam ||f - b||^2_H over
    f = sum_i alpha_i k(., x_i) + b. The minimiser solves
    (K + n lam I) alpha + b 1 = y with 1'alpha = 0, i.e. with A = K + n lam I,
    b = 1'A^{-1}y / 1'A^{-1}1 and alpha = A^{-1}(y - b 1) -- the n-scaled
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
    """

    def __init__(self, kernel=None, lam=None, *, lams=None, cv_max_samples=1500, random_state=0):
        self.kernel = kernel
        self.lam = lam
        self.lams = lams
        self.cv_max_samples = cv_max_samples
        self.random_state = random_state

    def fit(self, X, y):
        X, y = _validate_data(self, X, y, y_numeric=True)
        _min_samples(X, "KernelRidge")
        y = np.asarray(y, dtype=float)
        kernel = _resolve_kernel(self.kernel, X)
        lam = _check_lam(self.lam)
        self.cv_scores_ = None
        if lam is None:
            grid = _check_grid(self.lams)
            rows = np.arange(len(X))
            if len(X) > self.cv_max_samples:
                rows = np.sort(np.random.default_rng(self.random_state).choice(
                    len(X), int(self.cv_max_samples), replace=False))
            self.cv_scores_ = loo_scores(kernel.gram(X[rows]), y[rows], grid)
            lam = float(grid[int(np.argmin(self.cv_scores_))])
        alpha, b = _ridge_with_intercept(kernel.gram(X), y, lam)
        self.kernel_, self.lam_, self.alpha_, self.intercept_ = kernel, lam, alpha, b
        self.X_fit_ = X
        self.expansion_ = KernelExpansion(X, alpha, kernel, b, feature_names=_names(self, X.shape[1]))
        return self

    def predict(self, X):
        check_is_fitted(self, "expansion_")
        X = _validate_data(self, X, reset=False)
        return self.expansion_.predict(X)


def _ridge_with_intercept(K, y, lam):
    """alpha, b solving (K + n lam I) alpha + b 1 = y, 1'alpha = 0 (K is overwritten)."""
    n = len(y)
    K[np.diag_indices_from(K)] += n * lam
    L = cholesky_jitter(K, "K + n lam I", "increase lam (the ridge) or check the kernel and data for NaN")
    sol = sla.cho_solve((L, True), np.column_stack([y, np.ones(n)]))
    b = float(sol[:, 0].sum() / sol[:, 1].sum())
    return sol[:, 0] - b * sol[:, 1], b


def loo_scores(K, y, grid):
    """Closed-form leave-one-out mean squared error of :class:`KernelRidge` for each lam.

    The fit is penalised least squares, so the leave-one-out residual is
    (y_i - yhat_i) / (1 - S_ii) for the smoother yhat = S y. Here
    y - yhat = n lam alpha and alpha = P y with
    P = A^{-1} - A^{-1} 1 1' A^{-1} / (1'A^{-1}1), A = K + n lam I, so the
    residual is alpha_i / P_ii. One eigendecomposition of K gives A^{-1} for
    every lam. (The penalty n lam is held fixed when a point is left out.)
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


# --------------------------------------------------------------------------- #
# kernel logistic regression
# --------------------------------------------------------------------------- #
class KernelLogisticRegression(ClassifierMixin, BaseEstimator):
    """Binary kernel logistic regression; its logit is a KernelExpansion.

    Minimises (1/n) sum_i log(1 + exp(-s_i f(x_i))) + lam ||f - b||^2_H over
    f = sum_i alpha_i k(., x_i) + b, with s_i = +-1 the labels (RKHS-SHAP
    App. E; there is no reference implementation). Solved by damped Newton
    steps on the stationarity conditions (p - t)/n + 2 lam alpha = 0,
    sum(p - t) = 0, with a backtracking line search on the objective.

    ``expansion_`` is the logit f(x) = log p(y = classes_[1] | x) / p(y = classes_[0] | x);
    Shapley values of the logit are what :func:`kernelxai.explain` reports.

    Parameters
    ----------
    kernel : kernelxai Kernel or None
        None: product RBF with median-heuristic lengthscales.
    lam : float or None
        None: chosen from ``lams`` by stratified ``cv``-fold cross-validation of
        the log-loss (on at most ``cv_max_samples`` rows).
    lams, cv, cv_max_samples, random_state, max_iter, tol
    """

    def __init__(self, kernel=None, lam=None, *, lams=None, cv=3, cv_max_samples=1500,
                 random_state=0, max_iter=100, tol=1e-8):
        self.kernel = kernel
        self.lam = lam
        self.lams = lams
        self.cv = cv
        self.cv_max_samples = cv_max_samples
        self.random_state = random_state
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y):
        X, y = _validate_data(self, X, y)
        _min_samples(X, "KernelLogisticRegression")
        from sklearn.utils.multiclass import check_classification_targets

        check_classification_targets(y)
        self.classes_, t = np.unique(y, return_inverse=True)
        if len(self.classes_) != 2:
            raise ValueError(f"Only binary classification is supported: KernelLogisticRegression "
                             f"needs exactly 2 classes; y has {len(self.classes_)} "
                             f"({self.classes_.tolist()[:10]})")
        t = t.astype(float)
        kernel = _resolve_kernel(self.kernel, X)
        lam = _check_lam(self.lam)
        self.cv_scores_ = None
        if lam is None:
            lam = self._select_lam(X, t, kernel)
        K = kernel.gram(X)
        alpha, b, self.n_iter_ = _fit_logistic(K, t, lam, self.max_iter, self.tol)
        self.kernel_, self.lam_, self.alpha_, self.intercept_ = kernel, lam, alpha, b
        self.X_fit_ = X
        self.expansion_ = KernelExpansion(X, alpha, kernel, b, feature_names=_names(self, X.shape[1]))
        return self

    def _select_lam(self, X, t, kernel):
        from sklearn.model_selection import StratifiedKFold

        grid = _check_grid(self.lams)
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

    def decision_function(self, X):
        """The logit f(x) (positive: classes_[1])."""
        check_is_fitted(self, "expansion_")
        X = _validate_data(self, X, reset=False)
        return self.expansion_.predict(X)

    def predict_proba(self, X):
        p = expit(self.decision_function(X))
        return np.column_stack([1 - p, p])

    def predict(self, X):
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
    for it in range(1, max_iter + 1):
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


# --------------------------------------------------------------------------- #
# conversion of fitted models
# --------------------------------------------------------------------------- #
SUPPORTED_MODELS = (
    "kernelxai.models.KernelExpansion; fitted kernelxai.models.KernelRidge / "
    "KernelLogisticRegression; fitted sklearn.kernel_ridge.KernelRidge (any kernel but "
    "'precomputed': 'rbf'/'laplacian' as product kernels, 'linear' in closed form, the others "
    "exactly through model calls); sklearn.svm.SVR and SVC (kernel 'rbf'; multi-class through "
    "kx.explain(output=...)); sklearn.gaussian_process.GaussianProcessRegressor (any kernel: "
    "sums and products of RBF/ConstantKernel stay product games, WhiteKernel drops out, Matern "
    "of any nu, the others exactly through model calls); a sklearn Pipeline of "
    "StandardScaler / MinMaxScaler / MaxAbsScaler / RobustScaler (or a ColumnTransformer of these) "
    "followed by one of these, or by a Nystroem step and a linear model (Ridge, LogisticRegression, "
    "SVR(kernel='linear'), LinearSVC, ...: an expansion over the landmarks)"
)


def as_expansion(model):
    """Convert a supported model to a :class:`KernelExpansion` (exact, no refitting).

    Supported (predictions of the expansion equal the model's to rounding):

    * a KernelExpansion (returned as is);
    * fitted :class:`KernelRidge` / :class:`KernelLogisticRegression` (the
      logit) of kernelxai;
    * ``sklearn.kernel_ridge.KernelRidge``: kernel ``"rbf"``
      (exp(-gamma ||x - x'||^2) = RBF with lengthscale 1/sqrt(2 gamma)),
      ``"laplacian"`` (exp(-gamma ||x - x'||_1) = Laplace with lengthscale
      1/gamma), ``"linear"`` (closed form), any other string or callable
      (the exact kernel, explained through model calls), single output
      (several outputs: ``kx.explain(..., output=...)``);
    * ``sklearn.svm.SVR`` and binary ``sklearn.svm.SVC`` with kernel ``"rbf"``
      (the decision function sum_i dual_coef_i k(x, sv_i) + intercept_);
    * ``sklearn.gaussian_process.GaussianProcessRegressor``: the posterior
      mean with any fitted kernel (:mod:`kernelxai.sklearn_kernels`): sums and
      products of RBF / ConstantKernel stay product kernels or sums of them,
      a WhiteKernel does not enter the mean at new points, Matern of any nu,
      the rest exactly; ``normalize_y`` is undone exactly;
    * a ``sklearn.pipeline.Pipeline`` of per-feature affine preprocessing
      (``StandardScaler``, ``MinMaxScaler``, ``MaxAbsScaler``, ``RobustScaler``,
      a ``ColumnTransformer`` of these with passthrough or drop) followed by
      one of the models above: the scaling is folded into the kernel's
      lengthscales and the expansion points are mapped back, so the expansion
      is on the pipeline's input columns, in their units
      (:mod:`kernelxai.pipelines`);
    * a pipeline with a ``Nystroem`` step (kernel ``"rbf"``, ``"laplacian"``,
      ``"linear"``, a Gaussian-process kernel; others exactly through model
      calls) followed by a linear model (``Ridge``, ``LogisticRegression``'s
      decision function, ``SVR(kernel="linear")``, ``LinearSVC``, ...): the
      exact expansion sum_l alpha_l k(x, L_l) + b over its landmarks L with
      alpha = normalization_.T @ coef (:mod:`kernelxai.nystroem`). Random
      features (``RBFSampler``) are not an expansion: explained through model
      calls.

    Anything else raises a TypeError listing these (``kx.explain`` then
    explains the model through model calls); an unfitted model a ValueError.
    """
    if isinstance(model, KernelExpansion):
        return model
    if isinstance(model, (KernelRidge, KernelLogisticRegression)):
        _require_fitted(model, "expansion_")
        return model.expansion_
    module = type(model).__module__ or ""
    if module.startswith("sklearn."):
        from sklearn.gaussian_process import GaussianProcessRegressor
        from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
        from sklearn.svm import SVC, SVR

        if isinstance(model, SkKernelRidge):
            return _from_sklearn_krr(model)
        if isinstance(model, (SVR, SVC)):
            return _from_sklearn_svm(model)
        if isinstance(model, GaussianProcessRegressor):
            return _from_sklearn_gpr(model)
        from sklearn.pipeline import Pipeline

        if isinstance(model, Pipeline):
            from .convert.pipelines import expansion_of_pipeline

            return expansion_of_pipeline(model)
    raise TypeError(f"cannot explain a {type(model).__name__}; supported models: {SUPPORTED_MODELS}")


def _require_fitted(model, attribute):
    if not hasattr(model, attribute):
        raise ValueError(f"this {type(model).__name__} is not fitted yet; call fit(X, y) before "
                         "explaining it")


def _sklearn_names(model, d):
    names = getattr(model, "feature_names_in_", None)
    return [str(c) for c in names] if names is not None else None


def _from_sklearn_krr(model):
    """Exact expansion of a fitted sklearn KernelRidge, with any kernel it accepts.

    "rbf" / "laplacian" give product kernels, "linear" the closed-form
    :class:`~kernelxai.kernels.Linear`; every other kernel (strings of
    ``pairwise_kernels`` and callables) is evaluated by scikit-learn itself
    (:class:`kernelxai.sklearn_kernels.Pairwise`, explained through model calls).
    """
    from ..kernels.from_sklearn import krr_kernel

    _require_fitted(model, "dual_coef_")
    if isinstance(model.kernel, str) and model.kernel == "precomputed":
        raise TypeError("sklearn KernelRidge with kernel='precomputed' cannot be explained: its "
                        "kernel function is unknown; fit it with a kernel function (a string such "
                        f"as 'rbf', or a callable); supported models: {SUPPORTED_MODELS}")
    X = np.asarray(model.X_fit_, dtype=float)
    kernel = krr_kernel(model, X.shape[1])
    coef = np.asarray(model.dual_coef_, dtype=float)
    if coef.ndim == 2 and coef.shape[1] != 1:
        raise TypeError(f"sklearn KernelRidge with {coef.shape[1]} outputs is not supported; "
                        "fit one model per output")
    return KernelExpansion(X, coef.ravel(), kernel, 0.0, feature_names=_sklearn_names(model, X.shape[1]))


def _from_sklearn_svm(model):
    from sklearn.svm import SVC

    _require_fitted(model, "dual_coef_")
    if model.kernel != "rbf":
        raise TypeError(f"sklearn {type(model).__name__} with kernel={model.kernel!r} is not supported: "
                        f"the supported kernel is 'rbf'; supported models: {SUPPORTED_MODELS}")
    if isinstance(model, SVC) and len(model.classes_) != 2:
        raise TypeError(f"sklearn SVC with {len(model.classes_)} classes is not supported: only "
                        "binary SVC (one decision function) can be explained")
    sv = np.asarray(model.support_vectors_, dtype=float)
    kernel = RBF(1.0 / np.sqrt(2.0 * model._gamma))
    return KernelExpansion(sv, np.asarray(model.dual_coef_, dtype=float)[0], kernel,
                           float(np.asarray(model.intercept_).ravel()[0]),
                           feature_names=_sklearn_names(model, sv.shape[1]),
                           holds_training_inputs=False, source=type(model).__name__)


def _from_sklearn_gpr(model):
    _require_fitted(model, "alpha_")
    X = np.asarray(model.X_train_, dtype=float)
    scale, kernel = _parse_gp_kernel(model.kernel_, X.shape[1])
    alpha = np.asarray(model.alpha_, dtype=float)
    if alpha.ndim == 2 and alpha.shape[1] != 1:
        raise TypeError(f"GaussianProcessRegressor with {alpha.shape[1]} targets is not supported")
    std = float(np.asarray(model._y_train_std).ravel()[0])
    mean = float(np.asarray(model._y_train_mean).ravel()[0])
    return KernelExpansion(X, scale * std * alpha.ravel(), kernel, mean,
                           feature_names=_sklearn_names(model, X.shape[1]))


def _parse_gp_kernel(k, d):
    """(scale, kernelxai kernel) of a fitted GP kernel (:func:`kernelxai.sklearn_kernels.gp_kernel`).

    Sums and products of ConstantKernel, RBF (ARD or not) and the other
    product pieces become a product kernel times a scale or a SumKernel;
    WhiteKernel summands vanish (zero at new points); [C *] Matern (any nu)
    becomes Matern; every other combination of scikit-learn's kernels is
    evaluated as it is (not a product kernel: model calls). A piece that is
    not a scikit-learn kernel raises a TypeError naming it.
    """
    from ..kernels.from_sklearn import gp_kernel

    return gp_kernel(k, d)

