"""The Shapley prior: predicting Shapley values, with credible bands, from values known elsewhere.

Takes a fitted GP (or a scikit-learn kernel and a background) and Shapley
values known at some points; hands on the posterior of the Shapley values at
new points as an :class:`~kernelxai.explanation.Explanation` (Chau, Muandet &
Sejdinovic 2023), with the covariance routes of ``kernelxai.explainers._gp_routes``
taken under the GP *prior*.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular

from .._params import Anything, Data, Either, InstanceOf, OneOf, Real, parameters
from .._validation import check_columns, check_feature_names, default_feature_names, feature_names_in
from ..estimators._registry import check_cost
from ..explanation import Explanation
from ._gp_posterior import Z95, Posterior, check_rows, fitted_gp
from ._gp_product import product_terms
from ._gp_routes import MAX_POINTS, ExactRoute, ProductRoute, route_cost, uniform_weights

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["ShapleyPrior"]


class ShapleyPrior:
    r"""GP regression of explanation functions with the kernel a GP prior induces on them.

    Under a GP prior :math:`f \sim \mathcal{GP}(0, k)`, the Shapley values
    :math:`\phi_x = A_x f(Z_x)` form a vector-valued Gaussian process over :math:`x` with the
    matrix-valued kernel

    .. math::
        \kappa(x, x') = A_x\, k(Z_x, Z_{x'})\, A_{x'}^\top \quad (d \times d),

    :math:`Z_x` the evaluation points of :math:`x`'s coalitions and :math:`A_x` the Shapley
    weights times the value function's weights. Given Shapley values
    computed at some points, ``predict`` returns the posterior of the Shapley
    values at new points -- without computing them there -- with a :math:`d \times d`
    covariance per point (Chau, Muandet & Sejdinovic 2023, the "Shapley
    prior").

    Parameters
    ----------
    kernel : GaussianProcessRegressor or scikit-learn kernel
        A fitted GP (its fitted ``kernel_``; the background defaults to its
        training inputs) or a scikit-learn kernel object.
    background : array (m, d), optional
        Background rows of the interventional value function (required with
        a bare kernel).
    method : {"auto", "product", "exact"}
        How :math:`\kappa` is computed: ``"product"`` for product kernels (and sums of
        them, any :math:`d`), ``"exact"`` enumerates coalitions (:math:`2^d m` evaluation
        points per point, any kernel). ``"auto"`` takes the first that applies.
    noise : float, optional
        Variance added to the diagonal of :math:`\kappa` at the fitted points: the
        noise of the given Shapley values (0 for exact ones). The default
        adds 1e-8 times the mean prior variance, for numerical stability only.

    Attributes
    ----------
    X_ : array (p, d)
        The points whose Shapley values were given to ``fit``.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from sklearn.gaussian_process import GaussianProcessRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 2)); y = X[:, 0] * X[:, 1]
    >>> gp = GaussianProcessRegressor().fit(X, y)
    >>> known = kx.explain(gp, X[:10], background=X[:8])
    >>> prior = kx.ShapleyPrior(gp, background=X[:8]).fit(X[:10], known.values)
    >>> prior.predict(X[10:12]).covariance.shape
    (2, 2, 2)
    """

    @parameters("kx.ShapleyPrior", kernel=Anything(), background=Data(none=True),
                method=OneOf("auto", "product", "exact"), noise=Real(0.0, closed="left", none=True))
    def __init__(self, kernel: Any, background: ArrayLike | None = None, *, method: str = "auto",
                 noise: float | None = None) -> None:
        self.kernel = kernel
        self.background = background
        self.method = method
        self.noise = noise

    # ------------------------------------------------------------ internals
    def _setup(self):
        from sklearn.gaussian_process.kernels import Kernel as SkKernel

        kern, default_bg, names = self.kernel, None, None
        try:
            from sklearn.gaussian_process import GaussianProcessRegressor
        except ImportError:  # pragma: no cover
            GaussianProcessRegressor = ()
        if isinstance(kern, GaussianProcessRegressor):
            fitted_gp(kern)
            default_bg = np.asarray(kern.X_train_, dtype=float)
            names = getattr(kern, "feature_names_in_", None)
            kern = kern.kernel_
        elif not isinstance(kern, SkKernel):
            raise TypeError(
                "ShapleyPrior needs a fitted GaussianProcessRegressor or a scikit-learn kernel "
                f"(sklearn.gaussian_process.kernels); got {type(kern).__name__}"
            )
        if self.background is None and default_bg is None:
            raise ValueError("background is required when ShapleyPrior is given a kernel, not a fitted GP")
        # a DataFrame background must have the columns the GP was fitted with (as in kx.explain)
        check_columns(self.background, "background", model=self.kernel)
        bg = default_bg if self.background is None else self.background
        B = np.asarray(bg, dtype=float)
        if B.ndim != 2 or B.shape[0] == 0 or not np.isfinite(B).all():
            raise ValueError(f"background must be a finite array of shape (m, d), m >= 1; got shape {B.shape}")
        d = B.shape[1]
        terms = product_terms(kern, d)
        method = self.method
        if method == "auto":
            method = "product" if terms is not None else "exact"
        if method == "product" and terms is None:
            raise ValueError(f"method='product' needs a product kernel (or a sum of them); {kern} is not one")
        if method == "exact" and (d > 30 or 2**d * B.shape[0] > MAX_POINTS):
            raise ValueError(
                f"method='exact' needs 2^d * m = 2^{d} * {B.shape[0]} evaluation points per point, above "
                f"{MAX_POINTS}: use a smaller background or a product kernel"
            )
        post = Posterior(kern)
        m = B.shape[0]
        if method == "product":
            route = ProductRoute(post, B, terms)
        else:
            route = ExactRoute(post, B, lambda rows, masks: uniform_weights(rows, masks, m))
        return route, B, names

    @staticmethod
    def _flat(block) -> np.ndarray:
        n1, n2, d, _ = block.shape
        return block.transpose(0, 2, 1, 3).reshape(n1 * d, n2 * d)

    # --------------------------------------------------------------- public
    @parameters("kx.ShapleyPrior.fit", X=Data(none=True),
                values=Either(InstanceOf((Explanation,), "an Explanation"), Data()))
    def fit(self, X: ArrayLike | None, values: Explanation | ArrayLike) -> ShapleyPrior:
        """Condition on Shapley values ``values`` (p, d) known at the points ``X`` (p, d).

        ``values`` may be an Explanation (its ``values``; its ``data`` is used
        when ``X`` is None) or a DataFrame. Named values are matched by name:
        when the features have names (the GP was fitted on a DataFrame, or
        ``X`` or the background is one), an Explanation's ``feature_names`` or
        a DataFrame's columns must be those names in that order, else they
        are refused with the message ``kx.explain`` gives for ``X`` -- a value
        read into another feature's place would be silently wrong.
        Unnamed values (arrays, an Explanation of arrays) are read by position.

        Raises
        ------
        ValueError
            ``X`` or ``values`` has columns other than the features', or in
            another order; shapes that differ; NaN or inf.
        """
        given = values
        if isinstance(values, Explanation):
            if X is None:
                X = values.data
            values = values.values
        self.route_, self.B_, names = self._setup()
        d = self.B_.shape[1]
        Xa = check_rows(X, d, model=self.kernel, sample=self.background)
        _check_value_names(given, d, names, X, self.background)
        Phi = np.asarray(values, dtype=float)
        if Phi.shape != Xa.shape:
            raise ValueError(f"values must have shape {Xa.shape} (one Shapley value per point and "
                             f"feature); got {Phi.shape}")
        if not np.isfinite(Phi).all():
            raise ValueError("values contain NaN or inf")
        check_cost(route_cost(self.route_.name, d, self.B_.shape[0], 0, 2**min(d, 30))
                   * (len(Xa) * (len(Xa) + 1) / 2),
                   f"the Shapley prior between {len(Xa)} points (d = {d}, m = {self.B_.shape[0]})",
                   ["fewer known points", "a smaller background (kx.explainers.subsample)"])
        K = self._flat(self.route_.block(Xa))
        K = 0.5 * (K + K.T)
        scale = float(np.mean(np.diag(K))) if K.size else 1.0
        noise = 1e-8 * scale if self.noise is None else float(self.noise)
        if not np.isfinite(noise) or noise < 0:
            raise ValueError(f"noise must be a finite variance >= 0; got {self.noise!r}")
        K[np.diag_indices_from(K)] += noise
        try:
            self.L_ = cholesky(K, lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            K[np.diag_indices_from(K)] += 1e-6 * max(scale, np.finfo(float).tiny)
            self.L_ = cholesky(K, lower=True, check_finite=False)
            noise += 1e-6 * scale
        self.noise_ = noise
        self.X_, self.values_ = Xa, Phi
        self.alpha_ = cho_solve((self.L_, True), Phi.ravel())
        self.n_features_in_ = d
        self.feature_names_ = names
        return self

    @parameters("kx.ShapleyPrior.predict", X=Data())
    def predict(self, X: ArrayLike) -> Explanation:
        """Posterior of the Shapley values at ``X``: an Explanation with bands and covariances.

        ``values`` (n, d) the posterior mean, ``covariance`` (n, d, d),
        ``stderr`` and 95% ``lower``/``upper``. ``base_values`` are not
        predicted (0).
        """
        if not hasattr(self, "alpha_"):
            raise ValueError("this ShapleyPrior is not fitted: call fit(X, values) first")
        d = self.n_features_in_
        Xa = check_rows(X, d, model=self.kernel, sample=self.background)
        cross = self._flat(self.route_.block(Xa, self.X_))                  # (n d, p d)
        mean = (cross @ self.alpha_).reshape(len(Xa), d)
        own = np.stack([self.route_.block(Xa[i:i + 1])[0, 0] for i in range(len(Xa))])
        V = solve_triangular(self.L_, cross.T, lower=True, check_finite=False)   # (p d, n d)
        V = V.reshape(-1, len(Xa), d)
        cov = own - np.einsum("tai,taj->aij", V, V)
        cov = 0.5 * (cov + np.transpose(cov, (0, 2, 1)))
        stderr = np.sqrt(np.clip(np.diagonal(cov, axis1=1, axis2=2), 0.0, None))
        names = None if self.feature_names_ is None else list(self.feature_names_)
        return Explanation(
            mean, base_values=np.zeros(len(Xa)), data=Xa, feature_names=names,
            stderr=stderr, lower=mean - Z95 * stderr, upper=mean + Z95 * stderr, covariance=cov,
            meta={"method": f"Shapley prior ({self.route_.name} kernel), {len(self.X_)} known points",
                  "credible_level": 0.95, "base_values": "not predicted (0)", "noise": self.noise_},
        )


def _check_value_names(values, d, model_names, X, background) -> None:
    """Refuse named Shapley values whose features are not the prior's, in its order (as kx.explain refuses X).

    The reference is the first of: the names the GP was fitted with, ``X``'s
    columns, the background's. An Explanation names its features by
    ``feature_names`` (the default ``x0, x1, ...`` count as unnamed), a
    DataFrame by its string columns; anything else is read by position.
    """
    if isinstance(values, Explanation):
        got = list(values.feature_names)
        got = None if got == default_feature_names(d) else got
        reorder = "values[:, {expected!r}] (an Explanation sliced by name)"
    else:
        got = feature_names_in(values) if hasattr(values, "columns") else None
        reorder = None
    if got is None:
        return
    for expected, reference in ((None if model_names is None else [str(c) for c in model_names],
                                 "the model was fitted with"),
                                (feature_names_in(X) if hasattr(X, "columns") else None, "X has"),
                                (feature_names_in(background) if hasattr(background, "columns") else None,
                                 "the background has")):
        if expected is not None:
            check_feature_names(values, expected, "values", reference=reference, got=got, reorder=reorder)
            return
