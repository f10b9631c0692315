"""The kernel expansion f(x) = sum_i alpha_i k(x, x_i) + b: the common currency of the models stage.

Takes expansion points, coefficients and a kernelxai kernel. Hands on
:class:`KernelExpansion`: every supported model (kernelxai's estimators,
fitted models converted by :mod:`kernelxai.models.convert`) becomes one, and
the value functions only ever see a KernelExpansion.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._config import working_elements
from .._validation import (
    as_real_array,
    check_feature_names,
    check_matrix,
    default_feature_names,
    feature_names_in,
    feature_names_of,
)
from ..kernels import Kernel

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike

__all__ = ["KernelExpansion"]


class KernelExpansion:
    r"""A kernel model :math:`f(x) = \sum_i \alpha_i k(x, x_i) + b` (``b`` the intercept).

    Parameters
    ----------
    X_train : array (n, d) or DataFrame
        The expansion points :math:`x_i` (training inputs, support vectors, ...).
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

    Raises
    ------
    TypeError
        ``kernel`` is not a kernelxai kernel, or ``holds_training_inputs`` is
        not a bool.
    ValueError
        ``X_train`` is not a finite (n, d) array with the kernel's number of
        features; ``alpha`` has not one finite coefficient per row; the
        intercept is not finite; or ``feature_names`` has not d entries.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    >>> f = kx.models.KernelExpansion(X, [1.0, -0.5, 2.0], kx.kernels.RBF(1.0), intercept=0.1,
    ...                               feature_names=["age", "dose"])
    >>> f
    KernelExpansion(n=3, d=2, kernel=RBF(lengthscale=1.0), intercept=0.1)
    >>> f.predict(np.array([[0.0, 0.0], [1.0, 1.0]])).round(6)   # sum_i alpha_i k(x, x_i) + 0.1
    array([1.067405, 0.900373])
    >>> kx.explain(f, X[:2], background=X).values.shape
    (2, 2)
    """

    def __init__(self, X_train: ArrayLike, alpha: ArrayLike, kernel: Kernel, intercept: float = 0.0,
                 feature_names: Sequence[str] | None = None, *, holds_training_inputs: bool = True,
                 source: str | None = None) -> None:
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
        if not np.isfinite(alpha).all():
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
    def n_features(self) -> int:
        return self.X_train.shape[1]

    def check_X(self, X: ArrayLike, name: str = "X") -> np.ndarray:
        """Validate points against the model's feature count and, for a DataFrame, its feature names."""
        check_feature_names(X, feature_names_in(self), name)
        return check_matrix(X, name, n_features=self.n_features, allow_1d=True)

    def predict(self, X: ArrayLike, max_elements: int | None = None) -> np.ndarray:
        """:math:`f(X)`, evaluated in row blocks of about ``max_elements`` numbers (default: from the config)."""
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
