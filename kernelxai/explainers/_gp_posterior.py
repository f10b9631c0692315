"""The fitted Gaussian process as GP-SHAP takes it: its latent posterior, and checked inputs.

Takes a fitted scikit-learn ``GaussianProcessRegressor`` (or a binary
``GaussianProcessClassifier`` under its Laplace approximation) and hands on a
:class:`FittedGP`: the posterior covariance of the latent function
(:class:`Posterior`), the model whose posterior mean ``kx.explain`` explains,
and what the covariance means. A multi-class classifier is split by
:func:`one_vs_rest` into the binary classifiers scikit-learn fitted, one per
class, each taken as the binary case. The points and background rows are
checked here too, with the column check every entry point makes
(``kernelxai._validation.check_columns``).
"""

from __future__ import annotations

import copy

import numpy as np
from scipy.linalg import solve_triangular

from .._validation import as_real_array, check_columns
from ..models.convert._plans import class_label
from ..models.convert._sklearn_gp import latent_regressor

__all__ = ["FittedGP", "fitted_gp", "one_vs_rest", "Posterior", "check_rows", "gp_background",
           "efficiency_variance", "Z95"]

#: two-sided 95% standard normal quantile
Z95 = 1.959963984540054


class FittedGP:
    """What explain_gp needs of a fitted GP: its posterior, and a regressor for the mean.

    ``post`` is the posterior of the latent f; ``mean_model`` is what
    ``kx.explain`` explains for the posterior mean (the GP itself, or for a
    binary Laplace classifier a regressor whose mean is the latent mean);
    ``mean_options`` are the extra keywords of that ``kx.explain`` call;
    ``what`` describes the covariance's meaning.

    Parameters
    ----------
    post : Posterior
        The posterior covariance of the latent function.
    mean_model : object
        The model ``kx.explain`` explains for the posterior mean (the GP, or a
        classifier explained with ``output="latent"``).
    regressor : object
        A regressor whose posterior mean is the latent mean (the GP itself for
        a regressor; built by scikit-learn's Laplace approximation for a
        classifier).
    mean_options : dict
        Extra keywords of the ``kx.explain`` call for the mean.
    what : str
        What the covariance of the Shapley values means (reported in ``meta``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.gaussian_process import GaussianProcessRegressor
    >>> from sklearn.gaussian_process.kernels import RBF
    >>> X = np.random.default_rng(0).normal(size=(20, 3)); y = X[:, 0] + X[:, 1] * X[:, 2]
    >>> gp = GaussianProcessRegressor(RBF(1.0), alpha=0.1, optimizer=None).fit(X, y)
    >>> fg = fitted_gp(gp)
    >>> type(fg.post).__name__, fg.mean_model is gp, fg.mean_options
    ('Posterior', True, {})
    >>> print(fg.what)
    posterior covariance A C A^T of the Shapley values of the latent function
    (observation noise and WhiteKernel excluded)
    """

    def __init__(self, post, mean_model, regressor, mean_options, what):
        self.post, self.mean_model, self.regressor = post, mean_model, regressor
        self.mean_options, self.what = mean_options, what


def fitted_gp(gp) -> FittedGP:
    """What explain_gp and ShapleyPrior take of a fitted scikit-learn GP (refusing any other model).

    Parameters
    ----------
    gp : GaussianProcessRegressor or binary GaussianProcessClassifier
        Fitted.

    Returns
    -------
    FittedGP
        For a regressor, the posterior of its latent function (``normalize_y``
        undone) and the GP itself as ``mean_model``; for a binary classifier,
        the Laplace posterior and ``mean_options={"output": "latent"}``.

    Raises
    ------
    TypeError
        ``gp`` is not a scikit-learn GaussianProcessRegressor or
        GaussianProcessClassifier.
    ValueError
        ``gp`` is not fitted, is a regressor fitted to several outputs, or a
        classifier with more than two classes (split it with :func:`one_vs_rest`).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.gaussian_process import GaussianProcessRegressor
    >>> from sklearn.gaussian_process.kernels import RBF
    >>> X = np.random.default_rng(0).normal(size=(20, 3)); y = X[:, 0] + X[:, 1] * X[:, 2]
    >>> gp = GaussianProcessRegressor(RBF(1.0), alpha=0.1, optimizer=None).fit(X, y)
    >>> fitted_gp(gp).post.n_train
    20
    >>> fitted_gp(object())
    Traceback (most recent call last):
    ...
    TypeError: gp must be a fitted scikit-learn GaussianProcessRegressor or a binary GaussianProcessClassifier; ...
    """
    from sklearn.gaussian_process import GaussianProcessClassifier, GaussianProcessRegressor

    if isinstance(gp, GaussianProcessClassifier):
        return _check_gpc(gp)
    if not isinstance(gp, GaussianProcessRegressor):
        raise TypeError(
            "gp must be a fitted scikit-learn GaussianProcessRegressor or a binary "
            f"GaussianProcessClassifier; got {type(gp).__name__}. For the posterior-mean Shapley "
            "values of other models use kx.explain(model, X)."
        )
    if not hasattr(gp, "X_train_") or not hasattr(gp, "L_"):
        raise ValueError(
            "gp is not fitted: call gp.fit(X, y) first (an unfitted GaussianProcessRegressor "
            "would explain its prior, which explain_gp does not do)"
        )
    y_train = np.asarray(gp.y_train_)
    if y_train.ndim == 2 and y_train.shape[1] != 1:
        raise ValueError(
            f"explain_gp explains a single-output GP; gp was fitted to {y_train.shape[1]} "
            "outputs. Fit one GaussianProcessRegressor per output."
        )
    # normalize_y's scale: scikit-learn keeps it only in this private attribute (no public accessor)
    std = np.ravel(np.asarray(getattr(gp, "_y_train_std", 1.0), dtype=float))
    scale = float(std[0]) if std.size else 1.0
    what = ("posterior covariance A C A^T of the Shapley values of the latent function "
            "(observation noise and WhiteKernel excluded"
            + (", normalize_y undone" if scale != 1.0 else "") + ")")
    return FittedGP(Posterior(gp.kernel_, gp.X_train_, gp.L_, scale), gp, gp, {}, what)


def _check_gpc(gpc):

    if not hasattr(gpc, "base_estimator_"):
        raise ValueError("gp is not fitted: call gp.fit(X, y) first")
    if len(gpc.classes_) != 2:
        raise ValueError(
            f"fitted_gp takes a binary GaussianProcessClassifier (one latent function); this one "
            f"has {len(gpc.classes_)} classes, each with its own one-vs-rest latent GP: split it with "
            "one_vs_rest(gp) (explain_gp does) and take each binary classifier."
        )
    base = gpc.base_estimator_
    post = Posterior(base.kernel_, base.X_train_, base.L_, 1.0,
                      row_scale=np.asarray(base.W_sr_, dtype=float))
    what = ("Laplace-approximate posterior covariance A C A^T of the Shapley values of the latent "
            f"function (the log-odds of class {class_label(gpc.classes_[1])!r}): C = k - k_X W^(1/2) B^(-1) "
            "W^(1/2) k_X, as scikit-learn's predict_proba uses it")
    return FittedGP(post, gpc, latent_regressor(gpc, base), {"output": "latent"}, what)


def one_vs_rest(gp) -> list[tuple[str, object]] | None:
    """The binary classifiers of a fitted multi-class GaussianProcessClassifier, one per class.

    scikit-learn fits a multi-class ``GaussianProcessClassifier`` one-vs-rest:
    one binary Laplace classifier per class ``c`` (``y == c`` against the
    rest) in ``gp.base_estimator_.estimators_``, each with its own latent GP.
    Each is handed on wrapped as a binary ``GaussianProcessClassifier`` (a
    shallow copy of ``gp`` whose ``base_estimator_`` is that estimator and
    whose classes are ``["not c", c]``, so its latent function is the
    log-odds of ``c``), to be explained as the binary case.

    Parameters
    ----------
    gp : object
        Any model.

    Returns
    -------
    list of (str, GaussianProcessClassifier) or None
        ``(str(c), binary classifier)`` per class, in ``gp.classes_`` order;
        None when ``gp`` is not a fitted multi-class GaussianProcessClassifier.

    Raises
    ------
    ValueError
        For ``multi_class="one_vs_one"`` (no latent function per class).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.gaussian_process import GaussianProcessClassifier
    >>> from sklearn.gaussian_process.kernels import RBF
    >>> X = np.random.default_rng(0).normal(size=(20, 3)); y = np.array(["a", "b", "c"])[np.arange(20) % 3]
    >>> gpc = GaussianProcessClassifier(RBF(1.0), optimizer=None).fit(X, y)
    >>> [(name, list(binary.classes_)) for name, binary in one_vs_rest(gpc)]
    [('a', ['not a', 'a']), ('b', ['not b', 'b']), ('c', ['not c', 'c'])]
    """
    from sklearn.gaussian_process import GaussianProcessClassifier

    if not isinstance(gp, GaussianProcessClassifier) or not hasattr(gp, "base_estimator_") \
            or len(gp.classes_) == 2:
        return None
    estimators = getattr(gp.base_estimator_, "estimators_", None)
    if getattr(gp, "multi_class", "one_vs_rest") != "one_vs_rest" or estimators is None \
            or len(estimators) != len(gp.classes_):
        raise ValueError(
            "explain_gp explains a multi-class GaussianProcessClassifier through its one-vs-rest latent "
            "functions (one per class); this one was fitted with multi_class='one_vs_one', which has "
            "none. Fit it with multi_class='one_vs_rest' (the default)."
        )
    binaries = []
    for c, est in zip(gp.classes_, estimators):
        binary = copy.copy(gp)
        binary.base_estimator_ = est
        binary.classes_ = np.array([f"not {class_label(c)}", class_label(c)], dtype=object)
        binary.n_classes_ = 2
        binaries.append((str(c), binary))
    return binaries


class Posterior:
    """Prior or posterior covariance of the latent f of a GP.

    ``c(Z1, Z2) = scale^2 [k(Z1, Z2) - k(Z1, X) (K + alpha I)^{-1} k(X, Z2)]``
    with ``k`` evaluated as ``kernel(Z1, Z2)`` (scikit-learn): a
    ``WhiteKernel`` gives 0 between two sets of points, so it is the latent
    function's covariance (no observation noise), and ``scale`` undoes
    ``normalize_y``. Without training data (``L=None``) it is the prior.
    For a binary Laplace classifier ``(K + alpha I)^{-1}`` becomes
    ``W^{1/2} B^{-1} W^{1/2}`` with ``L`` the Cholesky factor of ``B`` and
    ``row_scale = W^{1/2}`` (GPML Algorithm 3.2).

    Parameters
    ----------
    kernel : scikit-learn kernel
        The fitted kernel (``gp.kernel_``), called as ``kernel(Z1, Z2)``.
    X_train : array (n_train, d), optional
        The training inputs; None for the prior.
    L : array (n_train, n_train), optional
        Lower Cholesky factor of K + alpha I (``gp.L_``), or of B for a
        Laplace classifier; None for the prior.
    scale : float, default 1.0
        Standard deviation of the targets when ``normalize_y`` was used.
    row_scale : array (n_train,), optional
        W^{1/2} of a Laplace classifier (``W_sr_``); None for a regressor.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.gaussian_process import GaussianProcessRegressor
    >>> from sklearn.gaussian_process.kernels import RBF
    >>> X = np.random.default_rng(0).normal(size=(20, 3)); y = X[:, 0] + X[:, 1] * X[:, 2]
    >>> gp = GaussianProcessRegressor(RBF(1.0), alpha=0.1, optimizer=None).fit(X, y)
    >>> post = Posterior(gp.kernel_, gp.X_train_, gp.L_)
    >>> post.n_train, post.whitened(X[:2]).shape
    (20, (20, 2))
    >>> Posterior(RBF(1.0)).whitened(X[:2]).shape      # the prior: nothing to subtract
    (0, 2)
    """

    def __init__(self, kernel, X_train=None, L=None, scale=1.0, row_scale=None):
        self.kernel = kernel
        self.X_train = None if X_train is None else np.asarray(X_train, dtype=float)
        self.L = None if L is None else np.asarray(L)
        self.scale2 = float(scale) ** 2
        self.row_scale = None if row_scale is None else np.asarray(row_scale, dtype=float)

    def solve(self, KX) -> np.ndarray:
        """L^{-1} R KX for KX (n_train, k) with R the row scaling (identity for a regressor)."""
        if self.row_scale is not None:
            KX = self.row_scale[:, None] * KX
        return solve_triangular(self.L, KX, lower=True, check_finite=False)

    @property
    def n_train(self) -> int:
        return 0 if self.L is None else self.X_train.shape[0]

    def whitened(self, Z) -> np.ndarray:
        """L^{-1} k(X_train, Z), shape (n_train, len(Z))."""
        if self.L is None:
            return np.zeros((0, len(Z)))
        return self.solve(self.kernel(self.X_train, Z))


def efficiency_variance(post, x, B) -> tuple[float, float]:
    """Var(f(x) - mean_b f(b)) computed directly, and the scale of its terms.

    The variance of the sum of the Shapley values (by efficiency,
    f(x) - mean_b f(b)) under the posterior, from one small covariance of
    the points [x; B]: the check ``explain_gp`` makes of the full covariance.

    Parameters
    ----------
    post : Posterior
        The GP's posterior covariance.
    x : ndarray (d,)
        One explained point.
    B : ndarray (m, d)
        The background rows.

    Returns
    -------
    var : float
        a' C a with a = (1, -1/m, ..., -1/m) and C the posterior covariance
        of [x; B].
    size : float
        The same sum with absolute values, the scale its rounding error is
        relative to.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.gaussian_process import GaussianProcessRegressor
    >>> from sklearn.gaussian_process.kernels import RBF
    >>> X = np.random.default_rng(0).normal(size=(20, 3)); y = X[:, 0] + X[:, 1] * X[:, 2]
    >>> gp = GaussianProcessRegressor(RBF(1.0), alpha=0.1, optimizer=None).fit(X, y)
    >>> var, size = efficiency_variance(fitted_gp(gp).post, X[0], X[:5])
    >>> _, C = gp.predict(np.vstack([X[:1], X[:5]]), return_cov=True)   # the same, by scikit-learn
    >>> a = np.r_[1.0, np.full(5, -0.2)]
    >>> round(float(var), 6), round(float(a @ C @ a), 6)
    (0.035955, 0.035955)
    """
    P = np.vstack([x[None, :], B])
    a = np.concatenate([[1.0], np.full(B.shape[0], -1.0 / B.shape[0])])
    K = post.kernel(P, P)
    G = post.whitened(P)
    var = post.scale2 * (a @ K @ a - np.sum((G @ a) ** 2))
    size = post.scale2 * (np.abs(a) @ np.abs(K) @ np.abs(a) + np.sum((np.abs(G) @ np.abs(a)) ** 2))
    return var, size


def check_rows(X, d, what="X", *, model=None, sample=None) -> np.ndarray:
    """Points (n, d) a GP explanation is taken at, as a float array.

    A DataFrame must have the columns ``model`` was fitted with (or, for an
    unnamed model, those of ``sample``, the background) in that order
    (``kernelxai._validation.check_columns``, as ``kx.explain``).

    Parameters
    ----------
    X : array (n, d) or (d,), or DataFrame
        The points; a single point of shape (d,) becomes one row.
    d : int
        The number of features the GP was fitted on.
    what : str, default "X"
        The argument's name, for error messages.
    model : object, optional
        The fitted model whose feature names a DataFrame must have.
    sample : array or DataFrame, optional
        The background, whose columns a DataFrame must have for an unnamed model.

    Returns
    -------
    ndarray (n, d) of float

    Raises
    ------
    ValueError
        If the shape is not (n, d), an entry is NaN or inf, or a DataFrame's
        columns differ from the model's.

    Examples
    --------
    >>> import numpy as np
    >>> check_rows([0.0, 1.0, 2.0], 3)
    array([[0., 1., 2.]])
    >>> check_rows(np.zeros((2, 2)), 3)
    Traceback (most recent call last):
    ...
    ValueError: X must have shape (n, 3) (the GP was fitted on 3 features); got shape (2, 2)
    """
    check_columns(X, what, model=model, sample=sample)
    Xa = as_real_array(X, what) if not hasattr(X, "columns") else np.asarray(X, dtype=float)
    if Xa.ndim == 1 and Xa.shape[0] == d:
        Xa = Xa[None, :]
    if Xa.ndim != 2 or Xa.shape[1] != d:
        raise ValueError(
            f"{what} must have shape (n, {d}) (the GP was fitted on {d} features); got shape {np.shape(X)}"
        )
    if not np.isfinite(Xa).all():
        raise ValueError(f"{what} contains NaN or inf; explain finite points only")
    return Xa


def gp_background(background, default, d, *, model=None) -> np.ndarray:
    """The background rows (m, d), defaulting to ``default`` (the training inputs).

    A DataFrame must have the columns ``model`` was fitted with, in that order
    (``kernelxai._validation.check_columns``, as ``kx.explain``).

    Parameters
    ----------
    background : array (m, d), DataFrame or None
        The rows given by the user.
    default : ndarray (n_train, d)
        What None stands for (the GP's training inputs).
    d : int
        The number of features.
    model : object, optional
        The fitted model whose feature names a DataFrame must have.

    Returns
    -------
    ndarray (m, d) of float

    Raises
    ------
    ValueError
        If the background is not 2-D with d columns and at least one row, has
        NaN or inf, or a DataFrame's columns differ from the model's.

    Examples
    --------
    >>> import numpy as np
    >>> X_train = np.random.default_rng(0).normal(size=(20, 3))
    >>> gp_background(None, X_train, 3).shape, gp_background(X_train[:4], X_train, 3).shape
    ((20, 3), (4, 3))
    """
    check_columns(background, "background", model=model)
    B = default if background is None else np.asarray(background, dtype=float)
    if B.ndim != 2 or B.shape[1] != d or B.shape[0] == 0:
        raise ValueError(
            f"background must have shape (m, {d}) with m >= 1; got shape {np.shape(background)}"
        )
    if not np.isfinite(B).all():
        raise ValueError("background contains NaN or inf")
    return B
