"""What the covariance routes of GP-SHAP share: the plug-in contract, the problem, the cell covariances.

A covariance route is a plug-in, as an estimator is for the mean: one object,
registered by name in ``kernelxai.explainers._gp_routes``, that says
whether it applies (:meth:`CovarianceRoute.check`), what it costs per
explained point (:meth:`CovarianceRoute.cost`), how it computes
(:meth:`CovarianceRoute.computation`: an object whose ``block`` and
``per_point`` give the covariance blocks ``Cov(phi_x, phi_x')``), and how
``meta`` describes it. The routes themselves live one per module
(``_gp_route_exact``, ``_gp_route_sampled``, ``_gp_route_product``).

Takes a :class:`CovarianceProblem` -- the latent posterior
(``kernelxai.explainers._gp_posterior.Posterior``), the background rows,
the kernel's product terms and the value function's cell weights -- and hands
on covariance blocks to :func:`~kernelxai.explain_gp` and
:class:`~kernelxai.ShapleyPrior`. The exact and
sampled routes evaluate the value function cell by cell (point, coalition,
background row): :class:`CellCovariance` is their posterior covariance of
weighted cell sums, and :func:`uniform_weights` / :func:`observational_weights`
the two value functions' weights.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._calibration import Work, fresh_numbers
from .._config import working_elements
from ..values._observational import Observational
from ._gp_posterior import Posterior

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["CovarianceProblem", "CovarianceRoute", "CellCovariance", "uniform_weights",
           "observational_weights", "MAX_POINTS", "DEFAULT_PERMUTATIONS"]

#: largest number of evaluation points (2^d x m per explained point, times n
#: for ``joint=True``) the exact route accepts; the work grows as its square
MAX_POINTS = 2**16

#: default number of permutations of the sampled route
DEFAULT_PERMUTATIONS = 64


@dataclass(frozen=True)
class CovarianceProblem:
    """What a covariance route is given: the posterior, the background and the value function.

    Attributes
    ----------
    post : Posterior
        The GP's latent posterior (or prior) covariance.
    B : ndarray (m, d)
        Background rows.
    terms : list of (float, ProductKernel) or None
        The kernel's product terms
        (``kernelxai.explainers._gp_product.product_terms``) for
        interventional values; None otherwise (the product route needs them).
    weights : callable
        ``weights(rows, masks) -> (n, c, m)``: the value function's weight of
        each background row in each cell (point, coalition), e.g.
        :func:`uniform_weights` with m bound, or :func:`observational_weights`.
    n_permutations : int or None
        Permutations of the sampled route (None for the exact ones).
    """

    post: Posterior
    B: np.ndarray
    terms: list | None
    weights: Callable[[np.ndarray, np.ndarray], np.ndarray]
    n_permutations: int | None = None


class CovarianceRoute:
    """A covariance route of GP-SHAP, as a plug-in (one instance per route, registered by name).

    A subclass sets ``name`` and ``estimated`` and implements
    :meth:`computation`; :meth:`check`, :meth:`cells`, :meth:`cost`,
    :meth:`permutations` and :meth:`extra_meta` have defaults for a route
    that evaluates the value function cell by cell and is exact.

    Attributes
    ----------
    name : str
        The ``method=`` of :func:`kernelxai.explain_gp`.
    estimated : bool
        Whether the covariance is a Monte Carlo estimate (with standard errors
        of its own, from ``per_point``) rather than exact to rounding.
    uses_rng : bool
        Whether :meth:`computation` draws random numbers from its ``seed``
        (every chunk of rows then starts from the same seed).
    """

    name = "?"
    estimated = False
    uses_rng = False

    def check(self, value, terms, d, m, n, joint) -> None:
        """Refuse (ValueError, saying what to use instead) a problem the route cannot compute."""

    def permutations(self, budget, d) -> int | None:
        """The permutations ``budget`` (game evaluations per point) buys; exact routes refuse a budget."""
        if budget is not None:
            raise ValueError(f"budget applies to method='sampled' only; the {self.name!r} route is exact")
        return None

    def cells(self, d, n_permutations) -> float:
        """Coalitions evaluated per explained point (``inf`` when beyond counting)."""
        return 2**d if d <= 30 else np.inf

    def cost(self, d, m, n_train, n_cells) -> Work:
        """The work per explained point (or pair of points) of ``n_cells`` coalitions.

        The prior covariance of the ``n_cells * m`` evaluation points (kernel
        evaluations, elementwise) and their whitening by the training Cholesky
        factor (triangular solves, BLAS).
        """
        pts = n_cells * m
        # the cross-covariance with the training points and its whitened copy are new arrays
        # every point: their first touch counts when they are too large for reused memory
        return Work(flops=3.0 * pts * pts * d + 2.0 * pts * n_train * d
                    + fresh_numbers(2.0 * pts * n_train, pts * n_train),
                    blas_flops=2.0 * pts * n_train * n_train)

    def computation(self, problem, seed):  # pragma: no cover - abstract
        """The object computing the covariance blocks (``block(X1, X2=None)``, ``per_point(X)``)."""
        raise NotImplementedError

    def describe(self, problem) -> str:  # pragma: no cover - abstract
        """How the covariance was computed, for ``meta["covariance"]``."""
        raise NotImplementedError

    def extra_meta(self, problem, mc_stderr) -> dict:
        """What the route adds to ``meta`` besides its name and description."""
        return {}

    def __repr__(self):
        return f"<GP-SHAP covariance route {self.name!r}>"


# --------------------------------------------------------------------------- #
# covariances of weighted cell sums
# --------------------------------------------------------------------------- #
class CellCovariance:
    """Posterior covariance of weighted cell sums ``sum_b w[cell, b] f(z[cell, b])``.

    ``rows`` (n, d) explained points, ``masks`` (c, d) coalitions, ``weights``
    (n, c, m). Cells are ordered point-major. Nothing of size (N, N) in the
    evaluation points is formed: kernels are evaluated block by block.
    """

    def __init__(self, post, rows, masks, weights, B):
        self.post, self.rows, self.masks, self.B = post, rows, masks, B
        self.w = weights.reshape(-1, B.shape[0])           # (n * c, m)
        self.m, self.c = B.shape[0], len(masks)
        self.per = max(1, int(math.sqrt(working_elements(4))) // self.m)

    def _points(self, cells):
        point, coal = divmod(cells, self.c)
        Z = np.where(self.masks[coal][:, None, :], self.rows[point][:, None, :], self.B[None, :, :])
        return Z.reshape(-1, self.B.shape[1])

    def _blocks(self, cells):
        for s in range(0, len(cells), self.per):
            yield slice(s, min(s + self.per, len(cells)))

    def whitened(self, cells) -> np.ndarray:
        """(n_train, len(cells)): L^{-1} sum_b w_b k(X_train, z_b)."""
        G = np.empty((self.post.n_train, len(cells)))
        for blk in self._blocks(cells):
            part = self.post.whitened(self._points(cells[blk]))
            G[:, blk] = np.einsum("tcm,cm->tc", part.reshape(-1, blk.stop - blk.start, self.m),
                                  self.w[cells[blk]])
        return G

    def cov(self, cells1, cells2=None) -> np.ndarray:
        """(len(cells1), len(cells2)) posterior covariance of the cell sums."""
        same = cells2 is None
        cells2 = cells1 if same else cells2
        K = np.empty((len(cells1), len(cells2)))
        b1 = list(self._blocks(cells1))
        b2 = list(self._blocks(cells2))
        for a, s in enumerate(b1):
            Z1 = self._points(cells1[s])
            w1 = self.w[cells1[s]]
            for t in (b2[a:] if same else b2):
                k = self.post.kernel(Z1, self._points(cells2[t]))
                k = k.reshape(s.stop - s.start, self.m, t.stop - t.start, self.m)
                block = np.einsum("am,ambn,bn->ab", w1, k, self.w[cells2[t]], optimize=True)
                K[s, t] = block
                if same:
                    K[t, s] = block.T
        G1 = self.whitened(cells1)
        G2 = G1 if same else self.whitened(cells2)
        C = self.post.scale2 * (K - G1.T @ G2)
        return 0.5 * (C + C.T) if same else C

    def blocks(self, n1, n2=None) -> np.ndarray:
        """(n1, c, n2, c): the covariance of the cells of the first ``n1`` rows with those of the
        next ``n2`` (None: of the first ``n1`` rows with themselves)."""
        c = self.c
        if n2 is None:
            return self.cov(np.arange(n1 * c)).reshape(n1, c, n1, c)
        C = self.cov(np.arange(n1 * c), np.arange(n1 * c, (n1 + n2) * c))
        return C.reshape(n1, c, n2, c)


# --------------------------------------------------------------------------- #
# value functions as cell weights
# --------------------------------------------------------------------------- #
def uniform_weights(rows, masks, m) -> np.ndarray:
    """Cell weights (n, c, m) of the interventional value function: 1/m per background row.

    Parameters
    ----------
    rows : ndarray (n, d)
        Explained points.
    masks : bool array (c, d)
        Coalitions.
    m : int
        Background rows.

    Returns
    -------
    ndarray (n, c, m)
        Every entry 1/m.

    Examples
    --------
    >>> import numpy as np
    >>> w = uniform_weights(np.zeros((2, 3)), np.zeros((8, 3), dtype=bool), 5)
    >>> w.shape, float(w[0, 0, 0])
    ((2, 8, 5), 0.2)
    """
    return np.full((len(rows), len(masks), m), 1.0 / m)


def observational_weights(gp, B, eta) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """Cell weights of the observational value function: the CME weights kx.explain uses.

    Parameters
    ----------
    gp : object
        The model (or latent regressor) :class:`~kernelxai.values.Observational` takes.
    B : ndarray (m, d)
        Background rows the conditional mean embedding is fitted on.
    eta : float
        CME regularisation.

    Returns
    -------
    callable
        ``weights(rows, masks) -> (n, c, m)``: the weight beta_b(x_S) of each
        background row for each point and coalition.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.gaussian_process import GaussianProcessRegressor
    >>> from sklearn.gaussian_process.kernels import RBF
    >>> X = np.random.default_rng(0).normal(size=(20, 3)); y = X[:, 0] + X[:, 1] * X[:, 2]
    >>> gp = GaussianProcessRegressor(RBF(1.0), alpha=0.1, optimizer=None).fit(X, y)
    >>> weights = observational_weights(gp, X[:5], 1e-3)
    >>> W = weights(X[:2], np.array([[False, False, False], [True, True, True]]))
    >>> W.shape, np.round(W.sum(axis=2), 4)       # the weights of a coalition sum to about 1
    ((2, 2, 5), array([[1., 1.],
           [1., 1.]]))
    """

    value = Observational(gp, background=B, eta=eta, form="product")

    def weights(rows, masks):
        game = value.game(rows)
        return np.transpose(game.cme_weights(masks), (2, 0, 1))   # (n, c, m)

    return weights
