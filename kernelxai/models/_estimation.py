"""What kernelxai's own estimators share when they fit: input checks, the kernel, the ridge grid.

Takes the arguments of ``fit`` (an estimator, X, y, ``kernel=``, ``lam=``,
``lams=``). Hands on validated arrays, a kernelxai kernel (the product RBF
with median-heuristic lengthscales by default), the ridge parameter or grid,
and the feature names recorded at fit, for ``kernelxai.models._ridge``,
``kernelxai.models._logistic`` and the Shapley-regularised estimators.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..kernels import RBF, Kernel, median_heuristic

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data
except ImportError:  # pragma: no cover - older scikit-learn
    def validate_data(estimator: Any, *args: Any, **kwargs: Any) -> Any:
        """scikit-learn's data validation of an estimator (older releases: a method)."""
        return estimator._validate_data(*args, **kwargs)  # noqa: SLF001 - scikit-learn < 1.6 has no public validate_data

__all__ = ["DEFAULT_LAMBDAS", "validate_data", "resolve_kernel", "check_lam", "check_grid",
           "check_min_samples", "fitted_feature_names"]

#: Grid of ridge parameters searched by cross-validation when ``lam=None``.
DEFAULT_LAMBDAS = np.logspace(-7, 0, 15)


def resolve_kernel(kernel, X) -> Kernel:
    """The kernel to fit with: ``kernel`` checked against X, or a median-heuristic product RBF for None."""
    if kernel is None:
        return RBF(median_heuristic(X))
    if not isinstance(kernel, Kernel):
        raise TypeError(f"kernel must be a kernelxai kernel (e.g. kx.kernels.RBF(1.0)) or None "
                        f"(product RBF with median-heuristic lengthscales); got {type(kernel).__name__}")
    if kernel.n_features is not None and kernel.n_features != X.shape[1]:
        raise ValueError(f"the kernel has parameters for {kernel.n_features} features; "
                         f"X has {X.shape[1]}")
    return kernel


def check_lam(lam) -> float | None:
    """A positive ridge parameter as a float, or None (chosen by cross-validation)."""
    if lam is None:
        return None
    if isinstance(lam, bool) or not isinstance(lam, numbers.Real) or not np.isfinite(lam) or lam <= 0:
        raise ValueError(f"lam must be a positive number or None (cross-validation); got {lam!r}")
    return float(lam)


def check_grid(lams) -> np.ndarray:
    """The grid of ridge parameters searched by cross-validation (``DEFAULT_LAMBDAS`` for None)."""
    grid = DEFAULT_LAMBDAS if lams is None else np.asarray(lams, dtype=float).ravel()
    if grid.size == 0 or not np.all(np.isfinite(grid)) or np.any(grid <= 0):
        raise ValueError(f"lams must be a non-empty list of positive numbers; got {lams!r}")
    return grid


def check_min_samples(X, name) -> None:
    """Refuse a fit on fewer than two rows."""
    if X.shape[0] < 2:
        raise ValueError(f"{name} needs at least 2 samples; got 1 sample")


def fitted_feature_names(estimator, d=None) -> list[str] | None:
    """The estimator's real feature names (from a DataFrame at fit time), else None (x0, x1, ...)."""
    names = getattr(estimator, "feature_names_in_", None)
    return [str(c) for c in names] if names is not None else None
