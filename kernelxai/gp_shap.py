"""Stochastic Shapley values of Gaussian process regression (GP-SHAP).

A fitted Gaussian process gives a posterior distribution over functions f.
Every Shapley value is a linear functional of f: for the interventional value
function v_x(S) = (1/m) sum_b f(x_S, b_{S^c}), the Shapley values of the point
x are ``phi_x = A f(Z_x)`` where ``Z_x`` holds the evaluation points
(x_S, b_{S^c}) over all coalitions S and background rows b, and A combines
the Shapley weights with the factor 1/m. So phi is jointly Gaussian with mean
``A m(Z_x)`` (the Shapley values of the posterior mean, which
:func:`kernelxai.explain` computes) and covariance ``A c(Z_x, Z_x') A^T`` with
c the posterior covariance of the latent function (Chau, Muandet &
Sejdinovic, NeurIPS 2023).

>>> import numpy as np, kernelxai as kx
>>> from sklearn.gaussian_process import GaussianProcessRegressor
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(20, 2)); y = X[:, 0] - X[:, 1] ** 2
>>> gp = GaussianProcessRegressor().fit(X, y)
>>> e = explain_gp(gp, X[:3])
>>> e.covariance.shape
(3, 2, 2)
"""

from __future__ import annotations

from math import factorial

import numpy as np
from scipy.linalg import solve_triangular

from ._config import get_config
from .estimators.registry import check_cost

__all__ = ["explain_gp"]

#: two-sided 95% standard normal quantile
_Z95 = 1.959963984540054

#: largest number of evaluation points (2^d x m per explained point, times n
#: for ``joint=True``) the exact route accepts; the work grows as its square
_MAX_POINTS = 2**16

_METHODS = ("auto", "exact")
_VALUES = ("interventional", "observational")


def _coalition_masks(d):
    """Boolean matrix (2^d, d): row S has feature j when bit j of S is set."""
    codes = np.arange(2**d)[:, None]
    return ((codes >> np.arange(d)[None, :]) & 1).astype(bool)


def _shapley_matrix(masks):
    """Shapley weights W (d, 2^d) with phi = W v for a game given as v[S].

    ``W[j, S] = |S-1|! (d-|S|)! / d!`` if j is in S, and
    ``-|S|! (d-|S|-1)! / d!`` if it is not (the coalition S without j gains j).
    """
    n_coal, d = masks.shape
    size = masks.sum(axis=1)
    weight = np.array([factorial(s) * factorial(d - 1 - s) / factorial(d) for s in range(d)])
    inside = weight[np.clip(size - 1, 0, d - 1)]
    outside = weight[np.clip(size, 0, d - 1)]
    return np.where(masks.T, inside[None, :], -outside[None, :])


def _check_gp(gp):
    try:
        from sklearn.gaussian_process import GaussianProcessRegressor
    except ImportError:  # pragma: no cover - scikit-learn is a dependency
        GaussianProcessRegressor = ()
    if not isinstance(gp, GaussianProcessRegressor):
        raise TypeError(
            "gp must be a fitted scikit-learn GaussianProcessRegressor; got "
            f"{type(gp).__name__}. For the posterior-mean Shapley values of other models use "
            "kx.explain(model, X)."
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
    std = np.ravel(np.asarray(getattr(gp, "_y_train_std", 1.0), dtype=float))
    return float(std[0]) if std.size else 1.0


class _Posterior:
    """Posterior covariance of the latent f of a fitted GaussianProcessRegressor.

    ``c(Z1, Z2) = scale^2 [k(Z1, Z2) - k(Z1, X) (K + alpha I)^{-1} k(X, Z2)]``
    with ``k`` evaluated as ``gp.kernel_(Z1, Z2)``: a ``WhiteKernel`` gives 0
    between two sets of points, so it is the latent function's covariance (no
    observation noise), and ``scale`` undoes ``normalize_y``.
    """

    def __init__(self, gp, scale):
        self.kernel = gp.kernel_
        self.X_train = np.asarray(gp.X_train_, dtype=float)
        self.L = np.asarray(gp.L_)
        self.scale2 = scale**2

    def whitened(self, Z):
        """L^{-1} k(X_train, Z), shape (n_train, len(Z))."""
        return solve_triangular(self.L, self.kernel(self.X_train, Z), lower=True, check_finite=False)

    def cov(self, Z1, Z2):
        return self.scale2 * (self.kernel(Z1, Z2) - self.whitened(Z1).T @ self.whitened(Z2))


def _reduced_cov(post, Z, m, chunk_points):
    """Posterior covariance of the cell means of f.

    ``Z`` has ``n_cells * m`` rows; consecutive blocks of m rows form one cell
    (one coalition of one explained point). Returns the (n_cells, n_cells)
    covariance of the cell means ``(1/m) sum_b f(z_{cell, b})``, computed in
    blocks of at most ``chunk_points`` rows so that no (N, N) matrix is formed.
    """
    n_cells = Z.shape[0] // m
    per = max(1, chunk_points // m)
    starts = list(range(0, n_cells, per))
    G = np.empty((post.X_train.shape[0], n_cells))
    for s in starts:
        e = min(s + per, n_cells)
        G[:, s:e] = post.whitened(Z[s * m:e * m]).reshape(-1, e - s, m).mean(axis=2)
    Kbar = np.empty((n_cells, n_cells))
    for a, s in enumerate(starts):
        e = min(s + per, n_cells)
        for t in starts[a:]:
            u = min(t + per, n_cells)
            block = post.kernel(Z[s * m:e * m], Z[t * m:u * m]).reshape(e - s, m, u - t, m).mean(axis=(1, 3))
            Kbar[s:e, t:u] = block
            Kbar[t:u, s:e] = block.T
    C = post.scale2 * (Kbar - G.T @ G)
    return 0.5 * (C + C.T)


def _efficiency_variance(post, x, B):
    """Var(f(x) - mean_b f(b)) computed directly, and the scale of its terms."""
    P = np.vstack([x[None, :], B])
    a = np.concatenate([[1.0], np.full(B.shape[0], -1.0 / B.shape[0])])
    K = post.kernel(P, P)
    G = post.whitened(P)
    var = post.scale2 * (a @ K @ a - np.sum((G @ a) ** 2))
    size = post.scale2 * (np.abs(a) @ np.abs(K) @ np.abs(a) + np.sum((np.abs(G) @ np.abs(a)) ** 2))
    return var, size


def explain_gp(gp, X, value="interventional", background=None, *, joint=False, method="auto"):
    """Shapley values of a Gaussian process posterior, with their exact covariance.

    Under the posterior, the function f is random, and so are its Shapley
    values. They are jointly Gaussian: their mean is the Shapley values of the
    posterior mean (exactly ``kx.explain(gp, X, value=value,
    background=background)``), and their covariance is ``A C A^T`` with C the
    posterior covariance of the *latent* function at the evaluation points
    (x_S, b_{S^c}) and A the Shapley weights times 1/m.

    Parameters
    ----------
    gp : sklearn.gaussian_process.GaussianProcessRegressor
        Fitted, single output, any kernel :func:`kernelxai.models.as_expansion`
        converts. ``normalize_y=True`` is taken into account (values and
        covariances are in the units of y). A ``WhiteKernel`` is treated as
        observation noise: the covariance is that of the latent function f,
        not of noisy observations y (which would add noise independent of
        every Shapley value only at coinciding points).
    X : array (n, d) or DataFrame
        Points to explain.
    value : {"interventional", "observational"}
        The value function. ``"interventional"`` is
        v_x(S) = (1/m) sum_b f(x_S, b_{S^c}). ``"observational"`` is planned
        and refused for now.
    background : array (m, d), optional
        Background rows b; defaults to the GP's training inputs. The exact
        route evaluates f at 2^d * m points per explained point, so keep m
        modest (``kx.background.subsample`` or ``kx.background.summarize``).
    joint : bool
        Also return the covariance across points and features,
        ``joint_covariance`` of shape (n*d, n*d), ordered point-major
        (index ``i * d + j``). Costs (n * 2^d * m)^2 kernel evaluations.
    method : {"auto", "exact"}
        How the covariance is computed; only the exact enumeration of
        coalitions exists so far, and ``"auto"`` takes it.

    Returns
    -------
    Explanation
        ``values`` (n, d) the posterior-mean Shapley values, ``base_values``
        as ``kx.explain`` gives them, ``covariance`` (n, d, d) the posterior
        covariance of each point's Shapley values, ``stderr`` their posterior
        standard deviations and ``lower`` / ``upper`` the 95% credible bounds
        ``values -/+ 1.96 stderr``; ``joint_covariance`` (n*d, n*d) when
        ``joint=True``.

    Raises
    ------
    TypeError
        If ``gp`` is not a GaussianProcessRegressor.
    ValueError
        If ``gp`` is unfitted or multi-output, if ``value`` or ``method`` is
        not accepted, if the shapes do not match, or if the evaluation points
        exceed the exact route's limit.
    RuntimeError
        If the computed covariance violates efficiency (the variance of the
        sum of the Shapley values must equal Var(f(x) - v_x(empty))).
    """
    scale = _check_gp(gp)
    if value not in _VALUES:
        raise ValueError(f"value must be one of {_VALUES}; got {value!r}")
    if value == "observational":
        raise ValueError(
            "value='observational' is planned but not implemented yet in explain_gp "
            "(its conditional-mean-embedding weights make A depend on x); use "
            "value='interventional' for now"
        )
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}")
    if not isinstance(joint, (bool, np.bool_)):
        raise ValueError(f"joint must be True or False; got {joint!r}")

    post = _Posterior(gp, scale)
    d = post.X_train.shape[1]
    Xa = np.asarray(X, dtype=float)
    if Xa.ndim == 1 and Xa.shape[0] == d:
        Xa = Xa[None, :]
    if Xa.ndim != 2 or Xa.shape[1] != d:
        raise ValueError(
            f"X must have shape (n, {d}) (gp was fitted on {d} features); got shape {np.shape(X)}"
        )
    B = post.X_train if background is None else np.asarray(background, dtype=float)
    if B.ndim != 2 or B.shape[1] != d or B.shape[0] == 0:
        raise ValueError(
            f"background must have shape (m, {d}) with m >= 1; got shape {np.shape(background)}"
        )
    n, m = Xa.shape[0], B.shape[0]
    per_point = 2**d * m if d <= 30 else np.inf
    total = per_point * (n if joint else 1)
    if total > _MAX_POINTS:
        what = f"n * 2^d * m = {n} * 2^{d} * {m}" if joint else f"2^d * m = 2^{d} * {m}"
        raise ValueError(
            f"the exact GP-SHAP covariance needs f at {what} = {total:.0f} evaluation points "
            f"{'jointly' if joint else 'per explained point'}, above the limit of {_MAX_POINTS}. "
            "Use fewer background rows (kx.background.subsample(background, m) or "
            "kx.background.summarize), fewer features, "
            + ("or joint=False (per-point covariances only)." if joint else "or fewer features.")
        )

    # the work: per explained point (or jointly) the kernel between all evaluation points and the
    # training set, and the (2^d m)^2 posterior covariance -- refused above max_cost, announced above
    # progress_after (kx.config_context)
    n_train = len(gp.X_train_)
    blocks = 1 if joint else n
    check_cost(blocks * (2.0 * total * n_train * (n_train + d) + 3.0 * total * total * d
                         + 2.0 * total * n_train * total),
               f"the exact GP-SHAP covariance ({total} evaluation points "
               f"{'jointly' if joint else f'per point, {n} points'}, {n_train} training points)",
               ["a smaller background (kx.background.subsample / summarize)", "fewer explained points",
                "joint=False"])

    # the mean: Shapley values of the posterior mean, exactly as kx.explain gives them
    from .explain import explain

    mean = explain(gp, X if np.ndim(X) == 2 else Xa, value=value, background=background)

    masks = _coalition_masks(d)
    W = _shapley_matrix(masks)
    chunk_points = max(m, int(np.sqrt(get_config()["max_memory"] / (8.0 * max(d, 8)))))

    def points(rows):
        # (len(rows), 2^d, m, d) -> rows of cells (point, coalition), m background rows each
        Z = np.where(masks[None, :, None, :], rows[:, None, None, :], B[None, None, :, :])
        return Z.reshape(-1, d)

    cov = np.empty((n, d, d))
    joint_cov = None
    if joint:
        C = _reduced_cov(post, points(Xa), m, chunk_points).reshape(n, 2**d, n, 2**d)
        joint_cov = np.einsum("jS,aSbT,kT->ajbk", W, C, W, optimize=True).reshape(n * d, n * d)
        joint_cov = 0.5 * (joint_cov + joint_cov.T)
        for i in range(n):
            cov[i] = joint_cov[i * d:(i + 1) * d, i * d:(i + 1) * d]
    else:
        for i in range(n):
            C = _reduced_cov(post, points(Xa[i:i + 1]), m, chunk_points)
            cov[i] = W @ C @ W.T
    cov = 0.5 * (cov + np.transpose(cov, (0, 2, 1)))

    # efficiency draw by draw: 1^T Cov(phi_x) 1 == Var(f(x) - v_x(empty))
    for i in range(n):
        target, size = _efficiency_variance(post, Xa[i], B)
        got = cov[i].sum()
        if abs(got - target) > 1e-8 * max(size, np.finfo(float).tiny):
            raise RuntimeError(
                f"efficiency violated at row {i} of X: 1^T Cov(phi) 1 = {got!r} but "
                f"Var(f(x) - v_x(empty)) = {target!r}; please report this"
            )

    stderr = np.sqrt(np.clip(np.diagonal(cov, axis1=1, axis2=2), 0.0, None))
    values = np.asarray(mean.values, dtype=float)
    meta = {
        "value_function": value,
        "method": "exact",
        "covariance": (
            f"exact posterior covariance A C A^T of the Shapley values of the latent function "
            f"(observation noise and WhiteKernel excluded{', normalize_y undone' if scale != 1.0 else ''}): "
            f"C is the GP posterior covariance at the 2^{d} x {m} evaluation points (x_S, b_(S^c)) of "
            "each point, averaged over background rows, and A holds the Shapley weights"
        ),
        "n_background": m,
        "credible_level": 0.95,
    }
    from .explanation import Explanation

    return Explanation(
        values,
        base_values=mean.base_values,
        data=mean.data,
        feature_names=mean.feature_names,
        stderr=stderr,
        lower=values - _Z95 * stderr,
        upper=values + _Z95 * stderr,
        meta=meta,
        covariance=cov,
        joint_covariance=joint_cov,
    )
