"""The sampled covariance route of GP-SHAP: random permutations, any kernel, either value function.

Takes a ``kernelxai.explainers._gp_route_base.CovarianceProblem`` and a
seed; hands on an unbiased estimate of the covariance blocks of the Shapley
values (a U-statistic over pairs of permutations) with jackknife standard
errors of every entry. Registered as ``method="sampled"`` in
``kernelxai.explainers._gp_routes``.
"""

from __future__ import annotations

import math

import numpy as np

from ._gp_posterior import Posterior
from ._gp_route_base import DEFAULT_PERMUTATIONS, CellCovariance, CovarianceRoute

__all__ = ["SampledRoute", "Sampled", "Permutations"]


class Permutations:
    """P random permutations as chains of coalitions over shared cells.

    ``masks`` (c, d) are the distinct coalitions met; ``chain`` (P, d + 1)
    the cell of the k-th coalition of each chain (k = 0 empty, k = d full);
    ``order`` (P, d) the permutations. The estimate of permutation p is
    ``phi[order[p, k]] = v(chain[p, k + 1]) - v(chain[p, k])``.
    """

    def __init__(self, d, n_permutations, rng):
        order = np.argsort(rng.random((n_permutations, d)), axis=1)
        prefix = np.zeros((n_permutations, d + 1, d), dtype=bool)
        rows = np.arange(n_permutations)
        for k in range(d):  # a loop over features, not data
            prefix[:, k + 1] = prefix[:, k]
            prefix[rows, k + 1, order[:, k]] = True
        masks, inverse = np.unique(prefix.reshape(-1, d), axis=0, return_inverse=True)
        self.masks, self.order = masks, order
        self.chain = inverse.reshape(n_permutations, d + 1)
        self.inverse_order = np.argsort(order, axis=1)

    @property
    def n(self) -> int:
        return len(self.order)

    def total_map(self) -> np.ndarray:
        """T = sum_p W_p, shape (d, c)."""
        d, c = self.order.shape[1], len(self.masks)
        T = np.zeros((d, c))
        feat = self.order.ravel()
        np.add.at(T, (feat, self.chain[:, 1:].ravel()), 1.0)
        np.add.at(T, (feat, self.chain[:, :-1].ravel()), -1.0)
        return T

    def own_terms(self, C) -> np.ndarray:
        """W_p C W_p^T for every permutation p, shape (P, d, d), in feature order (any C (c, c))."""
        ch = self.chain
        sub = C[ch[:, :, None], ch[:, None, :]]                   # (P, d+1, d+1)
        delta = sub[:, 1:, 1:] - sub[:, 1:, :-1] - sub[:, :-1, 1:] + sub[:, :-1, :-1]
        inv = self.inverse_order
        rows = np.arange(self.n)[:, None, None]
        return delta[rows, inv[:, :, None], inv[:, None, :]]

    def cross_terms(self, H) -> np.ndarray:
        """W_p H for every p with H (c, d): shape (P, d, d), rows in feature order."""
        ch = self.chain
        diff = H[ch[:, 1:]] - H[ch[:, :-1]]                        # (P, d, d) in chain order
        rows = np.arange(self.n)[:, None]
        return diff[rows, self.inverse_order]


class SampledRoute:
    """The sampled covariance route's computation: random permutations, any kernel, either value function.

    Each permutation p gives an unbiased Shapley estimate W_p v; the mean of
    W_p C W_q^T over pairs p != q is an unbiased estimate of the covariance
    (a U-statistic), with jackknife standard errors from :meth:`per_point`.

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
    n_permutations : int
        Number P of permutations (at least 3 for the jackknife).
    rng : numpy Generator
        Draws the permutations.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.gaussian_process.kernels import RBF
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> prior, B = Posterior(RBF(1.0)), X[:5]              # the GP prior of an RBF kernel
    >>> uniform = lambda rows, masks: np.full((len(rows), len(masks), 5), 0.2)
    >>> cov, err = SampledRoute(prior, B, uniform, 32, np.random.default_rng(0)).per_point(X[:1])
    >>> cov.shape, err.shape, round(float(cov[0].sum()), 6)   # the sum is exact, the entries estimates
    ((1, 3, 3), (1, 3, 3), 0.444538)
    """

    name = "sampled"

    def __init__(self, post: Posterior, B: np.ndarray, weights_fn, n_permutations, rng):
        self.post, self.B, self.weights_fn = post, B, weights_fn
        self.perm = Permutations(B.shape[1], n_permutations, rng)

    def _cell_cov(self, X1, X2=None):
        rows = X1 if X2 is None else np.vstack([X1, X2])
        cells = CellCovariance(self.post, rows, self.perm.masks, self.weights_fn(rows, self.perm.masks), self.B)
        return cells.blocks(len(X1), None if X2 is None else len(X2))

    def block(self, X1, X2=None) -> np.ndarray:
        """(n1, n2, d, d): the estimate of Cov(phi_{x1_a}, phi_{x2_b}); X2=None means X1."""
        perm = self.perm
        T = perm.total_map() / perm.n
        C = self._cell_cov(X1, X2)
        # the mean of W_p C W_q^T over p != q: the full double sum minus its diagonal
        full = np.einsum("jS,aSbT,kT->abjk", T, C, T, optimize=True) * perm.n**2
        own = np.zeros_like(full)
        for a in range(C.shape[0]):
            for b in range(C.shape[2]):
                own[a, b] = perm.own_terms(C[a, :, b, :]).sum(axis=0)
        return (full - own) / (perm.n * (perm.n - 1))

    def per_point(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Per point: the U-statistic and the jackknife standard error of each entry."""
        perm = self.perm
        P = perm.n
        d = X.shape[1]
        out = np.empty((len(X), d, d))
        err = np.empty((len(X), d, d))
        T = perm.total_map()
        for i in range(len(X)):
            C = self._cell_cov(X[i:i + 1])[0, :, 0, :]
            own = perm.own_terms(C)                            # (P, d, d)
            H = C @ T.T                                        # (c, d)
            cross = perm.cross_terms(H)                        # W_p C T^T, (P, d, d)
            TCT = T @ H
            Q = own.sum(axis=0)
            out[i] = (TCT - Q) / (P * (P - 1))
            # leave one permutation out: T_{-p} C T_{-p}^T - (Q - Q_p)
            loo = (TCT[None] - cross - np.transpose(cross, (0, 2, 1)) + own - (Q[None] - own))
            loo /= (P - 1) * (P - 2)
            err[i] = np.sqrt((P - 1) / P * ((loo - loo.mean(axis=0)) ** 2).sum(axis=0))
        return out, err


class Sampled(CovarianceRoute):
    """``method="sampled"``: the covariance estimated from random permutations (any kernel, either value function).

    ``budget`` (game evaluations per point) buys ``ceil(budget / (d - 1))``
    permutations, at least 3 (default :data:`DEFAULT_PERMUTATIONS`); ``meta``
    gains ``n_permutations`` and ``covariance_mc_stderr``.
    """

    name = "sampled"
    estimated = True
    uses_rng = True

    def permutations(self, budget, d) -> int:
        """``budget`` (a positive integer, or None) as permutations: ceil(budget / (d - 1)), at least 3."""
        return DEFAULT_PERMUTATIONS if budget is None else max(3, math.ceil(budget / max(1, d - 1)))

    def cells(self, d, n_permutations) -> float:
        # the distinct coalitions its permutations pass (at most 2**d)
        return min((n_permutations or 3) * (d - 1) + 2, 2.0**d if d <= 60 else np.inf)

    def computation(self, problem, seed) -> SampledRoute:
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        return SampledRoute(problem.post, problem.B, problem.weights, problem.n_permutations, rng)

    def describe(self, problem) -> str:
        return (f"estimated from {problem.n_permutations} random permutations per point (unbiased U-statistic; "
                "jackknife standard errors in meta['covariance_mc_stderr'])")

    def extra_meta(self, problem, mc_stderr) -> dict:
        return {"n_permutations": problem.n_permutations, "covariance_mc_stderr": mc_stderr}
