"""Kernel models: f(x) = sum_i alpha_i k(x, x_i) + b.

:class:`KernelExpansion` is the common currency: every supported model (the
estimators here, fitted scikit-learn models) is converted to one, and value
functions only ever see a KernelExpansion.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_matrix, feature_names_of
from .kernels import DEFAULT_BLOCK_ELEMENTS, Kernel

__all__ = ["KernelExpansion"]


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
    """

    def __init__(self, X_train, alpha, kernel, intercept=0.0, feature_names=None):
        if not isinstance(kernel, Kernel):
            raise TypeError(
                f"kernel must be a kernelxai kernel (e.g. kx.kernels.RBF); got {type(kernel).__name__}"
            )
        names = feature_names or feature_names_of(X_train)
        self.X_train = check_matrix(X_train, "X_train", n_features=kernel.n_features)
        alpha = np.asarray(alpha, dtype=float).ravel()
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
        self.feature_names = list(names) if names is not None else [f"x{j}" for j in range(d)]
        if len(self.feature_names) != d:
            raise ValueError(f"feature_names has {len(self.feature_names)} entries for {d} features")

    @property
    def n_features(self):
        return self.X_train.shape[1]

    def check_X(self, X, name="X"):
        """Validate points to evaluate or explain against the model's feature count."""
        return check_matrix(X, name, n_features=self.n_features, allow_1d=True)

    def predict(self, X, max_elements=DEFAULT_BLOCK_ELEMENTS):
        """f(X), evaluated in row blocks."""
        X = self.check_X(X)
        out = np.empty(X.shape[0])
        step = max(1, int(max_elements) // max(1, self.X_train.shape[0] * self.n_features))
        for start in range(0, X.shape[0], step):
            block = X[start:start + step]
            out[start:start + len(block)] = self.kernel.gram(block, self.X_train) @ self.alpha
        return out + self.intercept

    __call__ = predict

    def __repr__(self):
        return (f"KernelExpansion(n={self.X_train.shape[0]}, d={self.n_features}, "
                f"kernel={self.kernel!r}, intercept={self.intercept:.4g})")


def as_expansion(model):
    """Convert a supported model to a :class:`KernelExpansion` (exact, no refitting).

    Accepted: a KernelExpansion (returned as is).
    """
    if isinstance(model, KernelExpansion):
        return model
    raise TypeError(
        f"cannot explain a {type(model).__name__}; supported models: kernelxai.models.KernelExpansion"
    )


__all__ += ["as_expansion"]
