"""The Shapley regulariser: kernel models that learn with a penalty on chosen features' Shapley values.

RKHS-SHAP §4, Prop. 7. With f = sum_i alpha_i k(., x_i) + b and
the representer matrix R_A of feature A at the training points (the Shapley
values of A are R_A alpha, :mod:`kernelxai.functionals`), the estimators here
minimise

    (1/n) sum_i loss(y_i, f(x_i)) + lam alpha'K alpha + lam_shapley (1/n) sum_A ||R_A alpha||^2,

i.e. the usual kernel model plus lam_shapley times the mean squared Shapley
value of each regularised feature over the training points. ISV-REG uses the
interventional representer, OSV-REG the observational (CME) one. R_A carries
the exact Shapley weights over all coalitions (or coalitions sampled from
``p(S) ∝ 1 / C(d-1, |S|)`` when 2^d is too large) -- not the uniform average over
coalitions (a Banzhaf value) of the reference implementation.

Scales. Prop. 7 minimises sum_i loss + lam_f ||f||^2 + (lam_S / n) sum_i phi_A(x_i)^2;
divided by n that is the objective above with lam = lam_f / n and
``lam_shapley`` = lam_S / n, the factor in front of R'R in Prop. 7's closed
form alpha = (K^2 + lam_f K + (lam_S / n) R'R)^{-1} K y and the ``lambda_sv``
of the reference code (which runs its grid 0, 0.5, ..., 2.5 on this scale).
So ``lam_shapley`` weighs a mean squared Shapley value against a mean squared
residual, independently of n; the normal equations here read
(K^2 + n lam K + lam_shapley R'R) alpha = K (y - b 1).

Numerics. K of a smooth kernel is numerically singular, and K^2 squares its
condition number, so the normal equations are never formed. K = U diag(s) U'
once; the squared-loss solution is computed in the scaled eigenbasis
D = diag(sqrt(s (s + n lam))), where the system matrix is
I + lam_shapley D^{-1} U'R'R U D^{-1} (symmetric positive definite, eigenvalues
>= 1) and lam_shapley = 0 reproduces :class:`~kernelxai.models.KernelRidge`
exactly. In directions where s < 1e-12 max(s) the Shapley penalty is dropped:
there ``|R u| <= ||phi||_H sqrt(s)`` is pure rounding noise, which the optimiser
would otherwise exploit with huge coefficients. The logistic loss is
minimised by L-BFGS in whitened coordinates beta = diag(sqrt(s)) U' alpha
(eigen-directions above the same threshold), warm-started from the
unregularised kernel logistic regression.
"""

from __future__ import annotations

import numbers
import warnings
from typing import TYPE_CHECKING

import numpy as np
from scipy import linalg as sla
from scipy.optimize import minimize
from scipy.special import expit, log_expit
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from .._validation import as_real_array, check_choice, check_positive_int, default_feature_names
from ..models._estimation import fitted_feature_names as _names
from ..models._estimation import validate_data as _validate_data
from ..models._expansion import KernelExpansion
from ..models._logistic import KernelLogisticRegression
from ..models._ridge import KernelRidge
from ._representers import resolve_features, shapley_representers

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike

    from ..kernels import Kernel

__all__ = ["ShapleyRegularisedKernelRidge", "ShapleyRegularisedKernelLogisticRegression",
           "EIGEN_RTOL"]

#: Eigen-directions of K below this fraction of the largest eigenvalue carry no Shapley penalty.
EIGEN_RTOL = 1e-12

VALUES = ("interventional", "observational")


def _check_lam_shapley(lam_shapley):
    if (isinstance(lam_shapley, bool) or not isinstance(lam_shapley, numbers.Real)
            or not np.isfinite(lam_shapley) or lam_shapley < 0):
        raise ValueError(f"lam_shapley must be a non-negative number (0: no Shapley penalty); "
                         f"got {lam_shapley!r}")
    return float(lam_shapley)


def _check_eta(eta):
    if isinstance(eta, bool) or not isinstance(eta, numbers.Real) or not np.isfinite(eta) or eta <= 0:
        raise ValueError(f"eta (the CME regularisation of OSV-REG) must be a positive number; "
                         f"got {eta!r}")
    return float(eta)


class _ShapleyPenaltyMixin:
    """Shared checks, representers and spectral set-up of the two estimators."""

    def _check_params(self, names, lam_shapley):
        value = check_choice(self.value, "value", VALUES)
        eta = _check_eta(self.eta)
        feats = self.features
        if feats is None:
            feats = ()
        feats = resolve_features(feats, names, allow_empty=True)
        if not feats and lam_shapley > 0:
            warnings.warn(f"lam_shapley={lam_shapley} but features is empty: no Shapley value is "
                          "penalised and the model is the unregularised one. Name the features "
                          "to regularise, e.g. features=['x4']", UserWarning, stacklevel=3)
        if feats and len(feats) == len(names) and lam_shapley > 0:
            warnings.warn("every feature's Shapley values are regularised: since they sum to "
                          "f(x) - E[f] (efficiency), the penalty pushes the model toward a constant",
                          UserWarning, stacklevel=3)
        if self.n_coalitions is not None:
            check_positive_int(self.n_coalitions, "n_coalitions")
        return value, eta, feats

    def _representers(self, X, kernel, names, value, eta, feats):
        model = KernelExpansion(X, np.zeros(len(X)), kernel, feature_names=names)
        options = {"eta": eta} if value == "observational" else {}
        method = "auto" if self.n_coalitions is None else "sampled"
        return shapley_representers(model, X, value, features=feats, method=method,
                                    n_coalitions=self.n_coalitions, seed=self.random_state,
                                    **options)

    @staticmethod
    def _spectrum(K, reps) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
        """Eigen-decomposition of K and the representers in its eigenbasis (penalty-free tail zeroed)."""
        s, U = np.linalg.eigh(K)
        top = max(float(s[-1]), np.finfo(float).tiny)
        keep = s > EIGEN_RTOL * top
        s = np.maximum(s, top * 1e-16)
        RU = None
        if reps is not None:
            R = reps.matrices.reshape(-1, reps.matrices.shape[2])
            RU = R @ U
            RU[:, ~keep] = 0.0
        return s, U, RU, keep


def _set_fitted(est, X, alpha, b, reps, lam_shapley) -> None:
    """Write the fitted attributes of a Shapley-regularised estimator (its own fit, or one of a path)."""
    est.alpha_, est.intercept_ = alpha, float(b)
    est.expansion_ = KernelExpansion(X, alpha, est.kernel_, b, feature_names=_names(est, X.shape[1]))
    est.lam_shapley_ = lam_shapley
    est.representers_ = reps
    if reps is not None:
        phi = reps.values(alpha)
        est.features_ = list(reps.features)
        est.shapley_penalty_ = float(np.mean(phi**2, axis=0).sum())
    else:
        est.features_ = []
        est.shapley_penalty_ = 0.0


# --------------------------------------------------------------------------- #
# squared loss: closed form
# --------------------------------------------------------------------------- #
class ShapleyRegularisedKernelRidge(_ShapleyPenaltyMixin, KernelRidge):
    r"""Kernel ridge regression with a Shapley regulariser (RKHS-SHAP Prop. 7; ISV-REG / OSV-REG).

    Minimises

    .. math::
        \frac{1}{n} \sum_i \big(y_i - f(x_i)\big)^2 + \lambda \|f - b\|^2_{\mathcal{H}}
        + \lambda_\phi \sum_A \frac{1}{n} \sum_i \phi_A(x_i)^2
        \quad\text{over}\quad f = \sum_i \alpha_i k(\cdot, x_i) + b,

    where :math:`\phi_A` are the Shapley values of feature :math:`A` (interventional or
    observational) at the training points and :math:`\lambda_\phi` is ``lam_shapley``. Closed
    form (Prop. 7, with an unpenalised intercept):
    :math:`\big(K^2 + n\lambda K + \lambda_\phi \sum_A R_A^\top R_A\big)\, \alpha = K (y - b\mathbf{1})`,
    :math:`\mathbf{1}^\top (K\alpha + b\mathbf{1}) = \mathbf{1}^\top y`, solved stably in :math:`K`'s eigenbasis.

    Parameters
    ----------
    kernel : kernelxai Kernel or None
        None: product RBF with per-feature median-heuristic lengthscales.
        Representers need a product kernel.
    lam : float or None
        Ridge parameter; None: chosen by the leave-one-out CV of the
        *unregularised* :class:`~kernelxai.models.KernelRidge` and then held
        fixed, so that lam_shapley alone moves the fit.
    lam_shapley : float >= 0
        Weight of the mean squared Shapley value of each regularised feature
        (:math:`\lambda_S / n` of Prop. 7's closed form).
    features : sequence of names or indices
        The features A whose Shapley values are penalised (several allowed).
    value : {"interventional", "observational"}
        ISV-REG or OSV-REG.
    eta : float > 0
        CME regularisation of the observational representer (:math:`K_S + n\eta I`).
    n_coalitions : int, optional
        None: exact Shapley weights over all coalitions (polynomial-time route
        for interventional values above 12 features). An int: that many
        coalitions per feature sampled from :math:`p(S) \propto 1 / \binom{d-1}{|S|}`, seeded by
        ``random_state``.
    lams, cv_max_samples, random_state
        As in :class:`~kernelxai.models.KernelRidge`.

    Attributes
    ----------
    expansion_, alpha_, intercept_, kernel_, lam_ : as in KernelRidge
    lam_shapley_ : float
    features_ : list of int
        Indices of the regularised features.
    representers_ : ShapleyRepresenters or None
        :math:`R_A` at the training points (:math:`\phi_A(X_\text{train}) = R_A \alpha`, ``alpha_``).
    shapley_penalty_ : float
        :math:`\sum_A \operatorname{mean}_i \phi_A(x_i)^2` of the fitted model.

    Examples
    --------
    The penalty on feature x2's Shapley values shrinks them as ``lam_shapley`` grows
    (:meth:`path` fits several values at the cost of one):

    >>> import numpy as np
    >>> from kernelxai.functionals import ShapleyRegularisedKernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> y = X[:, 0] + X[:, 1] + 0.5 * X[:, 2]
    >>> model = ShapleyRegularisedKernelRidge(lam=1e-2, features=["x2"])
    >>> fits = model.path(X, y, [0.0, 1.0, 10.0])
    >>> [round(fit.shapley_penalty_, 4) for fit in fits]
    [0.1323, 0.0548, 0.0086]

    On the data of the RKHS-SHAP experiments:

    >>> X, y = kx.datasets.rkhs_shap.correlated_gaussian(500, seed=0)          # doctest: +SKIP
    >>> m = ShapleyRegularisedKernelRidge(lam_shapley=1.0, features=[4]).fit(X, y)  # doctest: +SKIP
    >>> kx.explain(m, X[:50], value="interventional")                          # doctest: +SKIP
    """

    def __init__(self, kernel: Kernel | None = None, lam: float | None = None, lam_shapley: float = 0.0,  # noqa: PLR0913 - a scikit-learn estimator: one keyword per hyper-parameter
                 features: Sequence[int | str] | None = (), value: str = "interventional", eta: float = 1e-3, *,
                 n_coalitions: int | None = None, lams: ArrayLike | None = None, cv_max_samples: int = 1500,
                 random_state: int | np.random.Generator | None = 0) -> None:
        super().__init__(kernel=kernel, lam=lam, lams=lams, cv_max_samples=cv_max_samples,
                         random_state=random_state)
        self.lam_shapley = lam_shapley
        self.features = features
        self.value = value
        self.eta = eta
        self.n_coalitions = n_coalitions

    def fit(self, X: ArrayLike, y: ArrayLike) -> ShapleyRegularisedKernelRidge:
        self._fit_many(X, y, [self])
        return self

    def path(self, X: ArrayLike, y: ArrayLike, lam_shapleys: ArrayLike) -> list[ShapleyRegularisedKernelRidge]:
        """Fitted copies of this estimator for several lam_shapley values, sharing all the work.

        The representers, the eigen-decomposition of K and the scaled penalty
        are computed once; each value then costs one Cholesky factorisation.
        The estimator itself is left unchanged.

        Returns
        -------
        list of fitted ShapleyRegularisedKernelRidge, in the order of ``lam_shapleys``
        """
        values = list(np.atleast_1d(np.asarray(lam_shapleys, dtype=float)))
        if not values:
            raise ValueError("lam_shapleys is empty; give at least one value")
        estimators = [clone(self).set_params(lam_shapley=v) for v in values]
        self._fit_many(X, y, estimators)
        return estimators

    def _fit_many(self, X, y, estimators):
        checked = [_check_lam_shapley(e.lam_shapley) for e in estimators]
        base = estimators[0]
        X_arr, y_arr = _validate_data(base, X, y, y_numeric=True)
        names = _names(base, X_arr.shape[1]) or default_feature_names(X_arr.shape[1])
        value, eta, feats = self._check_params(names, max(checked))
        KernelRidge.fit(base, X, y)                       # kernel_, lam_ (CV), validation
        X, y = base.X_fit_, as_real_array(y_arr, "y")
        n = len(X)
        reps = self._representers(X, base.kernel_, names, value, eta, feats) if feats else None
        K = base.kernel_.gram(X)
        s, U, RU, _ = self._spectrum(K, reps)
        del K
        lam = base.lam_
        D = np.sqrt(s * (s + n * lam))
        scale = np.sqrt(s / (s + n * lam))
        gy, g1 = scale * (U.T @ y), scale * U.sum(axis=0)
        Hs = None
        if RU is not None:
            RD = RU / D
            Hs = RD.T @ RD
            del RD
        for est, ls in zip(estimators, checked):
            if est is not base:
                for attr in ("kernel_", "lam_", "cv_scores_", "X_fit_", "n_features_in_",
                             "feature_names_in_"):
                    if hasattr(base, attr):
                        setattr(est, attr, getattr(base, attr))
            if Hs is None or ls == 0.0:
                c1, c2 = gy, g1
            else:
                M = ls * Hs
                M[np.diag_indices_from(M)] += 1.0
                L = sla.cho_factor(M, lower=True)
                sol = sla.cho_solve(L, np.column_stack([gy, g1]))
                c1, c2 = sol[:, 0], sol[:, 1]
            b = (y.sum() - g1 @ c1) / (n - g1 @ c2)
            alpha = U @ ((c1 - b * c2) / D)
            _set_fitted(est, X, alpha, b, reps, ls)


# --------------------------------------------------------------------------- #
# logistic loss: L-BFGS
# --------------------------------------------------------------------------- #
class ShapleyRegularisedKernelLogisticRegression(_ShapleyPenaltyMixin, KernelLogisticRegression):
    r"""Binary kernel logistic regression with a Shapley regulariser (RKHS-SHAP Prop. 7, logistic loss).

    Minimises

    .. math::
        \frac{1}{n} \sum_i \log\big(1 + e^{-s_i f(x_i)}\big) + \lambda \|f - b\|^2_{\mathcal{H}}
        + \lambda_\phi \sum_A \frac{1}{n} \sum_i \phi_A(x_i)^2

    (:math:`s_i = \pm 1`, :math:`\lambda_\phi` = ``lam_shapley``), with :math:`\phi_A` the
    Shapley values of the logit :math:`f`. No closed form: L-BFGS (scipy) on whitened
    coordinates, from the unregularised fit. The logit is what
    :func:`kernelxai.explain` explains.

    Parameters
    ----------
    kernel, lam, lam_shapley, features, value, eta, n_coalitions
        As in :class:`ShapleyRegularisedKernelRidge`; lam = None is chosen by
        the cross-validation of the unregularised
        :class:`~kernelxai.models.KernelLogisticRegression`.
    lams, cv, cv_max_samples, random_state
        As in KernelLogisticRegression.
    max_iter : int
        Iterations of L-BFGS (and of the Newton warm start).
    tol : float
        Gradient tolerance of L-BFGS.

    Attributes
    ----------
    classes_, expansion_, alpha_, intercept_, kernel_, lam_, lam_shapley_, features_,
    representers_, shapley_penalty_, n_iter_

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from kernelxai.functionals import ShapleyRegularisedKernelLogisticRegression
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> y = (X[:, 0] + X[:, 1] + 0.5 * X[:, 2] > 0).astype(int)
    >>> plain = ShapleyRegularisedKernelLogisticRegression(lam=1e-2, features=["x2"]).fit(X, y)
    >>> model = ShapleyRegularisedKernelLogisticRegression(lam=1e-2, lam_shapley=1.0, features=["x2"]).fit(X, y)
    >>> model.features_, round(plain.shapley_penalty_, 4), round(model.shapley_penalty_, 4)
    ([2], 0.0386, 0.0112)
    >>> kx.explain(model, X[:2]).values.shape  # the logit's Shapley values
    (2, 3)
    """

    def __init__(self, kernel: Kernel | None = None, lam: float | None = None, lam_shapley: float = 0.0,  # noqa: PLR0913 - a scikit-learn estimator: one keyword per hyper-parameter
                 features: Sequence[int | str] | None = (), value: str = "interventional", eta: float = 1e-3, *,
                 n_coalitions: int | None = None, lams: ArrayLike | None = None, cv: int = 3,
                 cv_max_samples: int = 1500, random_state: int | np.random.Generator | None = 0, max_iter: int = 1000,
                 tol: float = 1e-9) -> None:
        super().__init__(kernel=kernel, lam=lam, lams=lams, cv=cv, cv_max_samples=cv_max_samples,
                         random_state=random_state, max_iter=max_iter, tol=tol)
        self.lam_shapley = lam_shapley
        self.features = features
        self.value = value
        self.eta = eta
        self.n_coalitions = n_coalitions

    def fit(self, X: ArrayLike, y: ArrayLike) -> ShapleyRegularisedKernelLogisticRegression:
        ls = _check_lam_shapley(self.lam_shapley)
        X_arr, y_arr = _validate_data(self, X, y)
        names = _names(self, X_arr.shape[1]) or default_feature_names(X_arr.shape[1])
        value, eta, feats = self._check_params(names, ls)
        KernelLogisticRegression.fit(self, X, y)          # classes_ (binary check), lam_, warm start
        X = self.X_fit_
        t = (np.asarray(y_arr).ravel() == self.classes_[1]).astype(float)
        n = len(X)
        reps = self._representers(X, self.kernel_, names, value, eta, feats) if feats else None
        if reps is None or ls == 0.0:
            _set_fitted(self, X, self.alpha_, self.intercept_, reps, ls)
            return self
        K = self.kernel_.gram(X)
        s, U, RU, keep = self._spectrum(K, reps)
        alpha0 = self.alpha_
        Uk, sk = U[:, keep], s[keep]
        F = Uk * np.sqrt(sk)                               # f = F beta + b
        G = RU[:, keep] / np.sqrt(sk)                      # phi = G beta
        lam, sgn = self.lam_, 2 * t - 1
        # precondition: lam |beta|^2 + (ls/n) |G beta|^2 = |theta|^2 / 2 with beta = T theta
        P = (2 * ls / n) * (G.T @ G)
        P[np.diag_indices_from(P)] += 2 * lam
        e, V = np.linalg.eigh(P)
        e = np.maximum(e, 2 * lam)
        T = V / np.sqrt(e)
        FT = F @ T
        theta0 = np.sqrt(e) * (V.T @ (np.sqrt(sk) * (Uk.T @ alpha0)))     # T^{-1} beta0

        def objective(z):
            theta, b = z[:-1], z[-1]
            f = FT @ theta + b
            val = -log_expit(sgn * f).mean() + 0.5 * theta @ theta
            r = (expit(f) - t) / n
            grad = np.empty_like(z)
            grad[:-1] = FT.T @ r + theta
            grad[-1] = r.sum()
            return val, grad

        res = minimize(objective, np.append(theta0, self.intercept_), jac=True, method="L-BFGS-B",
                       options={"maxiter": int(self.max_iter), "gtol": float(self.tol),
                                "ftol": 1e-15, "maxcor": 30})
        if not res.success:
            warnings.warn(f"L-BFGS did not converge ({res.message}); increase max_iter or lam",
                          ConvergenceWarning, stacklevel=2)
        beta, b = T @ res.x[:-1], float(res.x[-1])
        self.n_iter_ = int(res.nit)
        _set_fitted(self, X, Uk @ (beta / np.sqrt(sk)), b, reps, ls)
        return self
