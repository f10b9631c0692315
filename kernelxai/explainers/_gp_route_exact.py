"""The exact covariance route of GP-SHAP: all 2^d coalitions, any kernel, either value function.

Takes a ``kernelxai.explainers._gp_route_base.CovarianceProblem``; hands
on the covariance blocks of the Shapley values, the linear map W (d, 2^d) of
the coalition worths applied on both sides of their posterior covariance.
Registered as ``method="exact"`` in ``kernelxai.explainers._gp_routes``.
"""

from __future__ import annotations

from math import factorial

import numpy as np

from ._gp_posterior import Posterior
from ._gp_route_base import MAX_POINTS, CellCovariance, CovarianceRoute

__all__ = ["ExactRoute", "Exact", "coalition_masks", "shapley_matrix"]


def coalition_masks(d) -> np.ndarray:
    """Boolean matrix (2^d, d): row S has feature j when bit j of S is set."""
    codes = np.arange(2**d)[:, None]
    return ((codes >> np.arange(d)[None, :]) & 1).astype(bool)


def shapley_matrix(masks) -> np.ndarray:
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


class ExactRoute:
    """The exact covariance route's computation: all 2^d coalitions, any kernel, either value function.

    The Shapley values are a linear map W (d, 2^d) of the coalition worths,
    each a weighted sum of f over m background cells, so their covariance is
    W C W^T with C the posterior covariance of the 2^d cell sums per point:
    2^d m evaluation points per explained point (see ``MAX_POINTS``).

    Parameters
    ----------
    post : Posterior
        The GP's latent posterior (or prior) covariance.
    B : ndarray (m, d)
        Background rows.
    weights_fn : callable
        ``weights_fn(rows, masks) -> (n, c, m)``: the value function's weight
        of each background row in each cell (point, coalition), e.g.
        ``uniform_weights`` with m bound, or ``observational_weights``
        (``kernelxai.explainers._gp_route_base``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.gaussian_process.kernels import RBF
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> prior, B = Posterior(RBF(1.0)), X[:5]              # the GP prior of an RBF kernel
    >>> uniform = lambda rows, masks: np.full((len(rows), len(masks), 5), 0.2)
    >>> C = ExactRoute(prior, B, uniform).block(X[:2])     # Cov(phi(x_a), phi(x_b)) for a, b in the two points
    >>> a = np.r_[1.0, np.full(5, -0.2)]                   # efficiency: the variance of f(x) - mean_b f(b)
    >>> C.shape, round(float(C[0, 0].sum()), 6), round(float(a @ RBF(1.0)(np.vstack([X[:1], B])) @ a), 6)
    ((2, 2, 3, 3), 0.444538, 0.444538)
    """

    name = "exact"

    def __init__(self, post: Posterior, B: np.ndarray, weights_fn):
        self.post, self.B, self.weights_fn = post, B, weights_fn
        d = B.shape[1]
        self.masks = coalition_masks(d)
        self.W = shapley_matrix(self.masks)

    def block(self, X1, X2=None) -> np.ndarray:
        """(n1, n2, d, d): Cov(phi_{x1_a}, phi_{x2_b}); X2=None means X1 (symmetric)."""
        rows = X1 if X2 is None else np.vstack([X1, X2])
        cells = CellCovariance(self.post, rows, self.masks, self.weights_fn(rows, self.masks), self.B)
        C = cells.blocks(len(X1), None if X2 is None else len(X2))
        return np.einsum("jS,aSbT,kT->abjk", self.W, C, self.W, optimize=True)

    def per_point(self, X) -> tuple[np.ndarray, None]:
        """(n, d, d): each point's covariance, and None (exact: no Monte Carlo error)."""
        out = np.empty((len(X), X.shape[1], X.shape[1]))
        for i in range(len(X)):
            out[i] = self.block(X[i:i + 1])[0, 0]
        return out, None


class Exact(CovarianceRoute):
    """``method="exact"``: the covariance from all 2^d coalitions (any kernel, either value function).

    Refused when the evaluation points, 2^d m per explained point (n 2^d m
    jointly), exceed ``MAX_POINTS``.
    """

    name = "exact"

    def check(self, value, terms, d, m, n, joint) -> None:
        points = exact_points(d, m, n, joint)
        if points > MAX_POINTS:
            what = f"n * 2^d * m = {n} * 2^{d} * {m}" if joint else f"2^d * m = 2^{d} * {m}"
            raise ValueError(
                f"the exact GP-SHAP covariance needs f at {what} = {points:.0f} "
                f"evaluation points {'jointly' if joint else 'per explained point'}, above the limit of "
                f"{MAX_POINTS}. Use fewer background rows (kx.explainers.subsample(background, m) or "
                "kx.explainers.summarize), method='product' (product kernels, interventional), "
                "method='sampled', " + ("or joint=False." if joint else "or fewer features.")
            )

    def computation(self, problem, seed) -> ExactRoute:
        return ExactRoute(problem.post, problem.B, problem.weights)

    def describe(self, problem) -> str:
        d, m = problem.B.shape[1], problem.B.shape[0]
        return (f"C is the GP posterior covariance at the 2^{d} x {m} evaluation points (x_S, b_(S^c)) "
                "of each point and A holds the Shapley weights")


def exact_points(d, m, n, joint) -> float:
    """Evaluation points of the exact route: 2^d m per explained point, times n for ``joint``."""
    per_point = 2**d * m if d <= 30 else np.inf
    return per_point * (n if joint else 1)
