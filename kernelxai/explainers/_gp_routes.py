"""The covariance routes of GP-SHAP: exact, sampled and product.

Takes a latent posterior (``kernelxai.explainers._gp_posterior.Posterior``),
background rows and the value function's cell weights, and hands on, for two
sets of explained points, the covariance blocks ``Cov(phi_x, phi_x')`` (n1, n2, d, d)
that :func:`~kernelxai.explain_gp` and
:class:`~kernelxai.ShapleyPrior` assemble.

* :class:`ExactRoute` enumerates the 2^d coalitions (any kernel, both value functions);
* :class:`SampledRoute` samples permutations (an unbiased U-statistic with jackknife errors);
* :class:`ProductRoute` uses the product-kernel quadrature of ``kernelxai.explainers._gp_product``.

:func:`choose_route` picks one and :func:`route_cost` estimates its work.
"""

from __future__ import annotations

import math
from math import factorial
from typing import TYPE_CHECKING

import numpy as np

from .._calibration import Work, fresh_numbers
from .._config import working_elements
from ..values._observational import Observational
from ._gp_product import product_prior, product_psi

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["ExactRoute", "SampledRoute", "ProductRoute", "uniform_weights", "observational_weights",
           "choose_route", "route_cost", "MAX_POINTS", "DEFAULT_PERMUTATIONS"]

#: largest number of evaluation points (2^d x m per explained point, times n
#: for ``joint=True``) the exact route accepts; the work grows as its square
MAX_POINTS = 2**16

#: default number of permutations of the sampled route
DEFAULT_PERMUTATIONS = 64


# --------------------------------------------------------------------------- #
# coalitions and Shapley weights
# --------------------------------------------------------------------------- #
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


class _Permutations:
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
    def n(self):
        return len(self.order)

    def total_map(self):
        """T = sum_p W_p, shape (d, c)."""
        d, c = self.order.shape[1], len(self.masks)
        T = np.zeros((d, c))
        feat = self.order.ravel()
        np.add.at(T, (feat, self.chain[:, 1:].ravel()), 1.0)
        np.add.at(T, (feat, self.chain[:, :-1].ravel()), -1.0)
        return T

    def own_terms(self, C):
        """W_p C W_p^T for every permutation p, shape (P, d, d), in feature order (any C (c, c))."""
        ch = self.chain
        sub = C[ch[:, :, None], ch[:, None, :]]                   # (P, d+1, d+1)
        delta = sub[:, 1:, 1:] - sub[:, 1:, :-1] - sub[:, :-1, 1:] + sub[:, :-1, :-1]
        inv = self.inverse_order
        rows = np.arange(self.n)[:, None, None]
        return delta[rows, inv[:, :, None], inv[:, None, :]]

    def cross_terms(self, H):
        """W_p H for every p with H (c, d): shape (P, d, d), rows in feature order."""
        ch = self.chain
        diff = H[ch[:, 1:]] - H[ch[:, :-1]]                        # (P, d, d) in chain order
        rows = np.arange(self.n)[:, None]
        return diff[rows, self.inverse_order]


# --------------------------------------------------------------------------- #
# covariances of weighted cell sums
# --------------------------------------------------------------------------- #
class _CellCov:
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

    def whitened(self, cells):
        """(n_train, len(cells)): L^{-1} sum_b w_b k(X_train, z_b)."""
        G = np.empty((self.post.n_train, len(cells)))
        for blk in self._blocks(cells):
            part = self.post.whitened(self._points(cells[blk]))
            G[:, blk] = np.einsum("tcm,cm->tc", part.reshape(-1, blk.stop - blk.start, self.m),
                                  self.w[cells[blk]])
        return G

    def cov(self, cells1, cells2=None):
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


# --------------------------------------------------------------------------- #
# the routes: covariance blocks for pairs of point sets
# --------------------------------------------------------------------------- #
class _Route:
    """Covariance of Shapley values between two sets of explained points."""

    name = "?"

    def block(self, X1, X2=None):
        """(n1, n2, d, d): Cov(phi_{x1_a}, phi_{x2_b}); X2=None means X1 (symmetric)."""
        raise NotImplementedError


class ExactRoute(_Route):
    """The exact covariance route: all 2^d coalitions, any kernel, either value function.

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
        :func:`uniform_weights` with m bound, or :func:`observational_weights`.

    Notes
    -----
    Its checks on a small GP are in ``tests/test_gp_route_examples.py`` (the posterior it takes
    comes from private helpers only).
    """

    name = "exact"

    def __init__(self, post, B, weights_fn):
        self.post, self.B, self.weights_fn = post, B, weights_fn
        d = B.shape[1]
        self.masks = _coalition_masks(d)
        self.W = _shapley_matrix(self.masks)

    def _cov(self, rows):
        return _CellCov(self.post, rows, self.masks, self.weights_fn(rows, self.masks), self.B)

    def block(self, X1, X2=None) -> np.ndarray:
        c = len(self.masks)
        if X2 is None:
            cc = self._cov(X1)
            C = cc.cov(np.arange(len(X1) * c)).reshape(len(X1), c, len(X1), c)
        else:
            rows = np.vstack([X1, X2])
            cc = self._cov(rows)
            C = cc.cov(np.arange(len(X1) * c), np.arange(len(X1) * c, len(rows) * c))
            C = C.reshape(len(X1), c, len(X2), c)
        return np.einsum("jS,aSbT,kT->abjk", self.W, C, self.W, optimize=True)

    def per_point(self, X) -> tuple[np.ndarray, None]:
        out = np.empty((len(X), X.shape[1], X.shape[1]))
        for i in range(len(X)):
            out[i] = self.block(X[i:i + 1])[0, 0]
        return out, None


class SampledRoute(_Route):
    """The sampled covariance route: random permutations, any kernel, either value function.

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
        :func:`uniform_weights` with m bound, or :func:`observational_weights`.
    n_permutations : int
        Number P of permutations (at least 3 for the jackknife).
    rng : numpy Generator
        Draws the permutations.

    Notes
    -----
    Its checks on a small GP are in ``tests/test_gp_route_examples.py`` (the posterior it takes
    comes from private helpers only).
    """

    name = "sampled"

    def __init__(self, post, B, weights_fn, n_permutations, rng):
        self.post, self.B, self.weights_fn = post, B, weights_fn
        self.perm = _Permutations(B.shape[1], n_permutations, rng)

    def _cell_cov(self, X1, X2=None):
        c = len(self.perm.masks)
        rows = X1 if X2 is None else np.vstack([X1, X2])
        cc = _CellCov(self.post, rows, self.perm.masks, self.weights_fn(rows, self.perm.masks), self.B)
        if X2 is None:
            return cc.cov(np.arange(len(X1) * c)).reshape(len(X1), c, len(X1), c)
        C = cc.cov(np.arange(len(X1) * c), np.arange(len(X1) * c, len(rows) * c))
        return C.reshape(len(X1), c, len(X2), c)

    def block(self, X1, X2=None) -> np.ndarray:
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


class ProductRoute(_Route):
    """The product covariance route: interventional values of product kernels, no enumeration.

    The prior term comes from ``kernelxai.explainers._gp_product.product_prior``
    and the data term from the Shapley values of the training points' games
    (``kernelxai.explainers._gp_product.product_psi``), both by
    Gauss-Legendre quadrature in polynomial time in d.

    Parameters
    ----------
    post : Posterior
        The GP's latent posterior (or prior) covariance.
    B : ndarray (m, d)
        Background rows.
    terms : list of (float, ProductKernel)
        The GP kernel as weighted product terms
        (``kernelxai.explainers._gp_product.product_terms``).

    Notes
    -----
    Its checks on a small GP are in ``tests/test_gp_route_examples.py`` (the posterior it takes
    comes from private helpers only).
    """

    name = "product"

    def __init__(self, post, B, terms):
        self.post, self.B, self.terms = post, B, terms

    def _whitened_psi(self, X):
        if self.post.L is None:
            return np.zeros((0, len(X), X.shape[1]))
        psi = product_psi(self.terms, X, self.B, self.post.X_train)     # (n, d, nt)
        n, d, nt = psi.shape
        G = self.post.solve(psi.transpose(2, 0, 1).reshape(nt, n * d))
        return G.reshape(nt, n, d)

    def block(self, X1, X2=None) -> np.ndarray:
        prior = product_prior(self.terms, X1, X1 if X2 is None else X2, self.B)
        G1 = self._whitened_psi(X1)
        G2 = G1 if X2 is None else self._whitened_psi(X2)
        cross = np.einsum("taj,tbk->abjk", G1, G2, optimize=True)
        return self.post.scale2 * (prior - cross)

    def per_point(self, X) -> tuple[np.ndarray, None]:
        out = np.empty((len(X), X.shape[1], X.shape[1]))
        for i in range(len(X)):
            out[i] = self.block(X[i:i + 1])[0, 0]
        return out, None


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
    >>> B = X[:5]
    >>> weights = observational_weights(gp, B, 1e-3)
    >>> W = weights(X[:2], np.array([[False, False, False], [True, True, True]]))
    >>> W.shape, np.round(W.sum(axis=2), 4)       # the weights of a coalition sum to about 1
    ((2, 2, 5), array([[1., 1.],
           [1., 1.]]))
    """

    value = Observational(gp, background=B, eta=eta, form="product")

    def weights(rows, masks):
        game = value._game(rows)
        return np.transpose(game.cme_weights(masks), (2, 0, 1))   # (n, c, m)

    return weights


# --------------------------------------------------------------------------- #
# choosing a route
# --------------------------------------------------------------------------- #
def choose_route(method, value, terms, d, m, n, joint) -> str:
    """The covariance route for ``method`` ("auto" resolved), refusing one that does not apply.

    ``"auto"`` takes ``"product"`` for interventional values of a product
    kernel, else ``"exact"`` when the evaluation points fit ``MAX_POINTS``,
    else ``"sampled"``.

    Parameters
    ----------
    method : {"auto", "exact", "sampled", "product"}
        The route asked for.
    value : {"interventional", "observational"}
        The value function.
    terms : list of (float, ProductKernel) or None
        The kernel's product terms (``kernelxai.explainers._gp_product.product_terms``);
        None when it has none.
    d, m, n : int
        Features, background rows and explained points.
    joint : bool
        Whether covariances across points are wanted (the exact route then
        needs n 2^d m evaluation points).

    Returns
    -------
    str
        ``"exact"``, ``"sampled"`` or ``"product"``.

    Raises
    ------
    ValueError
        ``"product"`` for observational values or a kernel without product
        terms; ``"exact"`` above ``MAX_POINTS`` evaluation points.

    Examples
    --------
    >>> choose_route("auto", "observational", None, d=3, m=5, n=2, joint=False)
    'exact'
    >>> choose_route("auto", "observational", None, d=20, m=100, n=2, joint=False)
    'sampled'
    >>> choose_route("product", "observational", None, d=3, m=5, n=2, joint=False)
    Traceback (most recent call last):
    ...
    ValueError: method='product' computes the covariance of interventional values only ...
    """
    per_point = 2**d * m if d <= 30 else np.inf
    if method == "auto":
        if value == "interventional" and terms is not None:
            return "product"
        return "exact" if per_point * (n if joint else 1) <= MAX_POINTS else "sampled"
    if method == "product":
        if value != "interventional":
            raise ValueError(
                "method='product' computes the covariance of interventional values only (the "
                "observational weights beta(x_S) are not products over features); use "
                "method='exact' (d <= ~12) or 'sampled' for value='observational'"
            )
        if terms is None:
            raise ValueError(
                "method='product' needs a product kernel (RBF, ARD or not, Laplace-type, their "
                "products, constants, and sums of those); this GP's kernel is not one. Use "
                "method='exact' (small d) or method='sampled'."
            )
    if method == "exact" and per_point * (n if joint else 1) > MAX_POINTS:
        what = f"n * 2^d * m = {n} * 2^{d} * {m}" if joint else f"2^d * m = 2^{d} * {m}"
        raise ValueError(
            f"the exact GP-SHAP covariance needs f at {what} = {per_point * (n if joint else 1):.0f} "
            f"evaluation points {'jointly' if joint else 'per explained point'}, above the limit of "
            f"{MAX_POINTS}. Use fewer background rows (kx.explainers.subsample(background, m) or "
            "kx.explainers.summarize), method='product' (product kernels, interventional), "
            "method='sampled', " + ("or joint=False." if joint else "or fewer features.")
        )
    return method


def route_cost(route, d, m, n_train, n_cells) -> Work:
    """The work per explained point (or per pair of points), by kind.

    Exact and sampled routes: the prior covariance of the ``n_cells * m`` evaluation points
    (kernel evaluations, elementwise) and their whitening by the training Cholesky factor
    (triangular solves, BLAS). Product route: the 2-D quadrature of the prior term
    (elementwise) and the training system's products (BLAS).

    Parameters
    ----------
    route : {"exact", "sampled", "product"}
        The route.
    d : int
        Features.
    m : int
        Background rows.
    n_train : int
        Training points of the GP (0 for the prior).
    n_cells : int or float
        Coalitions evaluated per point by the exact or sampled route (ignored
        by the product route).

    Returns
    -------
    Work
        Elementwise (``flops``) and dense linear algebra (``blas_flops``)
        operations, priced in seconds by the cost guard (``.seconds``).

    Examples
    --------
    >>> w = route_cost("exact", 3, 5, 20, 2**3)      # d = 3, m = 5, 20 training points, 8 coalitions
    >>> w.flops, w.blas_flops
    (19200.0, 32000.0)
    """
    if route == "product":
        q = max(1, math.ceil(d / 2))
        # the prior term's broadcasts over (rows, rows, nodes^2, d) blocks run out of the cache
        return Work(flops=30.0 * m * m * q * q * d * d + 4.0 * m * n_train * q * d,
                    blas_flops=2.0 * n_train * n_train * d)
    pts = n_cells * m
    # the cross-covariance with the training points and its whitened copy are new arrays
    # every point: their first touch counts when they are too large for reused memory
    return Work(flops=3.0 * pts * pts * d + 2.0 * pts * n_train * d + fresh_numbers(2.0 * pts * n_train, pts * n_train),
                blas_flops=2.0 * pts * n_train * n_train)
