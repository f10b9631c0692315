"""Stochastic Shapley values of Gaussian process regression (GP-SHAP).

A fitted Gaussian process gives a posterior distribution over functions f.
Every Shapley value is a linear functional of f: for the interventional value
function v_x(S) = (1/m) sum_b f(x_S, b_{S^c}), the Shapley values of the point
x are ``phi_x = A f(Z_x)`` where ``Z_x`` holds the evaluation points
(x_S, b_{S^c}) over all coalitions S and background rows b, and A combines
the Shapley weights with the factor 1/m (the observational value function
replaces 1/m by the conditional-mean-embedding weights beta_b(x_S)). So phi is
jointly Gaussian with mean ``A m(Z_x)`` (the Shapley values of the posterior
mean, which :func:`kernelxai.explain` computes) and covariance
``A c(Z_x, Z_x') A^T`` with c the posterior covariance of the latent function
(Chau, Muandet & Sejdinovic, NeurIPS 2023).

Three routes compute the covariance:

``"exact"``
    enumerates the 2^d coalitions: the cells (x_S, b_{S^c}) of every
    coalition, their weights, and the Shapley weight matrix. Any kernel, both
    value functions; 2^d * m evaluation points per explained point.
``"product"``
    for product kernels (and sums of them) and the interventional value
    function, without enumerating coalitions: the cross term
    ``Psi K^-1 Psi^T`` has ``Psi`` = Shapley values of the product games
    S -> mean_b k((x_S, b_{S^c}), x_i), and the prior term
    ``A k(Z_x, Z_x') A^T`` is, per pair of background rows, a double Shapley
    transform of a product of 2 x 2 factors, which the Beta-integral identity
    turns into a 2-D Gauss-Legendre integral with ceil(d/2)^2 nodes (exact).
    O(m^2 d^4 / 4) per point instead of O((2^d m)^2 d).
``"sampled"``
    permutation sampling of coalitions for the cases no exact route reaches:
    each permutation gives an unbiased linear estimate W_p f(Z) of phi, and the
    covariance is the U-statistic ``sum_{p != q} W_p C W_q^T / (P (P - 1))``,
    unbiased for ``A C A^T`` (the products of independent permutations), with
    jackknife standard errors of every entry.

:class:`ShapleyPrior` turns the same covariance, taken under the GP *prior*,
into a matrix-valued kernel over explanation functions and predicts Shapley
values (with credible bands) at new points from values computed at others.

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

import math
import numbers
from math import factorial

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular

from .._config import get_config, working_elements
from .._validation import as_real_array
from ..estimators.registry import check_cost

__all__ = ["explain_gp", "ShapleyPrior"]

#: two-sided 95% standard normal quantile
_Z95 = 1.959963984540054

#: largest number of evaluation points (2^d x m per explained point, times n
#: for ``joint=True``) the exact route accepts; the work grows as its square
_MAX_POINTS = 2**16

_METHODS = ("auto", "exact", "product", "sampled")
_VALUES = ("interventional", "observational")

#: default number of permutations of the sampled route
_DEFAULT_PERMUTATIONS = 64


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
# the fitted GP
# --------------------------------------------------------------------------- #
class _FittedGP:
    """What explain_gp needs of a fitted GP: its posterior, and a regressor for the mean.

    ``post`` is the posterior of the latent f; ``mean_model`` is what
    ``kx.explain`` explains for the posterior mean (the GP itself, or for a
    binary Laplace classifier a regressor whose mean is the latent mean);
    ``mean_options`` are the extra keywords of that ``kx.explain`` call;
    ``what`` describes the covariance's meaning.
    """

    def __init__(self, post, mean_model, regressor, mean_options, what):
        self.post, self.mean_model, self.regressor = post, mean_model, regressor
        self.mean_options, self.what = mean_options, what


def _check_gp(gp):
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
    std = np.ravel(np.asarray(getattr(gp, "_y_train_std", 1.0), dtype=float))
    scale = float(std[0]) if std.size else 1.0
    what = ("posterior covariance A C A^T of the Shapley values of the latent function "
            "(observation noise and WhiteKernel excluded"
            + (", normalize_y undone" if scale != 1.0 else "") + ")")
    return _FittedGP(_Posterior(gp.kernel_, gp.X_train_, gp.L_, scale), gp, gp, {}, what)


def _check_gpc(gpc):
    from ..models.convert.outputs import _label, latent_regressor

    if not hasattr(gpc, "base_estimator_"):
        raise ValueError("gp is not fitted: call gp.fit(X, y) first")
    if len(gpc.classes_) != 2:
        raise ValueError(
            f"explain_gp explains a binary GaussianProcessClassifier (one latent function); this one "
            f"has {len(gpc.classes_)} classes, each with its own one-vs-rest latent GP. Fit a binary "
            "classifier per class of interest (y == c), or use kx.explain(gp, X, output='latent') "
            "for the posterior-mean values of every class."
        )
    base = gpc.base_estimator_
    post = _Posterior(base.kernel_, base.X_train_, base.L_, 1.0,
                      row_scale=np.asarray(base.W_sr_, dtype=float))
    what = ("Laplace-approximate posterior covariance A C A^T of the Shapley values of the latent "
            f"function (the log-odds of class {_label(gpc.classes_[1])!r}): C = k - k_X W^(1/2) B^(-1) "
            "W^(1/2) k_X, as scikit-learn's predict_proba uses it")
    return _FittedGP(post, gpc, latent_regressor(gpc, base), {"output": "latent"}, what)


class _Posterior:
    """Prior or posterior covariance of the latent f of a GP.

    ``c(Z1, Z2) = scale^2 [k(Z1, Z2) - k(Z1, X) (K + alpha I)^{-1} k(X, Z2)]``
    with ``k`` evaluated as ``kernel(Z1, Z2)`` (scikit-learn): a
    ``WhiteKernel`` gives 0 between two sets of points, so it is the latent
    function's covariance (no observation noise), and ``scale`` undoes
    ``normalize_y``. Without training data (``L=None``) it is the prior.
    For a binary Laplace classifier ``(K + alpha I)^{-1}`` becomes
    ``W^{1/2} B^{-1} W^{1/2}`` with ``L`` the Cholesky factor of ``B`` and
    ``row_scale = W^{1/2}`` (GPML Algorithm 3.2).
    """

    def __init__(self, kernel, X_train=None, L=None, scale=1.0, row_scale=None):
        self.kernel = kernel
        self.X_train = None if X_train is None else np.asarray(X_train, dtype=float)
        self.L = None if L is None else np.asarray(L)
        self.scale2 = float(scale) ** 2
        self.row_scale = None if row_scale is None else np.asarray(row_scale, dtype=float)

    def solve(self, KX):
        """L^{-1} R KX for KX (n_train, k) with R the row scaling (identity for a regressor)."""
        if self.row_scale is not None:
            KX = self.row_scale[:, None] * KX
        return solve_triangular(self.L, KX, lower=True, check_finite=False)

    @property
    def n_train(self):
        return 0 if self.L is None else self.X_train.shape[0]

    def whitened(self, Z):
        """L^{-1} k(X_train, Z), shape (n_train, len(Z))."""
        if self.L is None:
            return np.zeros((0, len(Z)))
        return self.solve(self.kernel(self.X_train, Z))


def _cells(rows, masks, B):
    """Evaluation points (len(rows) * c * m, d): x_S from the row, b_{S^c} from the background."""
    Z = np.where(masks[None, :, None, :], rows[:, None, None, :], B[None, None, :, :])
    return Z.reshape(-1, B.shape[1])


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
# the product route
# --------------------------------------------------------------------------- #
def _product_terms(kernel, d):
    """[(weight, ProductKernel)] with sum_r weight_r k_r = kernel (sklearn), or None."""
    from ..kernels.core import ProductKernel, SumKernel
    from ..kernels.from_sklearn import gp_kernel

    scale, kern = gp_kernel(kernel, d)
    if isinstance(kern, SumKernel):
        return [(scale * w, k) for w, k in kern.terms if w != 0.0]
    if isinstance(kern, ProductKernel):
        return [(scale, kern)] if scale != 0.0 else []
    return None


def _product_prior(terms, X1, X2, B):
    """Prior covariance ``A k(Z_x, Z_x') A^T`` for all pairs: (n1, n2, d, d).

    Per pair of background rows (b, b') the kernel between (x_S, b_{S^c}) and
    (x'_T, b'_{T^c}) is prod_l h_l(l in S, l in T) with
    h_l(1, 1) = k_l(x_l, x'_l), h_l(1, 0) = k_l(x_l, b'_l), h_l(0, 1) = k_l(b_l, x'_l),
    h_l(0, 0) = k_l(b_l, b'_l). Its Shapley transform in S (player j) and in T
    (player k) is, by the Beta identity in t for S and t' for T,

        j != k:  int int D_j(t') E_k(t) prod_{l != j, k} M_l(t, t') dt dt'
        j == k:  int int F_j prod_{l != j} M_l(t, t') dt dt'

    with M_l = t t' h11 + t (1-t') h10 + (1-t) t' h01 + (1-t)(1-t') h00,
    D_j(t') = t' (h11 - h01) + (1-t') (h10 - h00),
    E_k(t) = t (h11 - h10) + (1-t) (h01 - h00) and F_j = h11 - h01 - h10 + h00.
    Both integrands are polynomials of degree d - 1 in t and in t': ceil(d/2)
    Gauss-Legendre nodes per axis are exact. Leave-out products are prefix x
    suffix products (no division by small factors).
    """
    from ..estimators.product import _prefix_suffix, gauss_legendre_01

    n1, d = X1.shape
    n2, m = X2.shape[0], B.shape[0]
    t, s, w = gauss_legendre_01(max(1, math.ceil(d / 2)))
    q = len(t)
    out = np.zeros((n1, n2, d, d))
    # work items: (point pair, b, b', t, t') -- chunk over pairs of points and rows b
    per_item = 12 * d
    budget = max(1, working_elements(2) // per_item)
    b_step = max(1, min(m, budget // (m * q * q)))
    pair_step = max(1, budget // (b_step * m * q * q))
    tt = (t[:, None] * t[None, :]).ravel()          # (q*q,) index (t, t')
    ts_ = (t[:, None] * s[None, :]).ravel()
    st_ = (s[:, None] * t[None, :]).ravel()
    ss_ = (s[:, None] * s[None, :]).ravel()
    t_of = np.repeat(t, q)                           # t for index (t, t')
    s_of = np.repeat(s, q)
    tp_of = np.tile(t, q)                            # t'
    sp_of = np.tile(s, q)
    wq = np.outer(w, w).ravel() / (m * m)
    pairs = [(a, b) for a in range(n1) for b in range(n2)]
    for weight, kern in terms:
        hxx = kern.feature_grams(X1, X2)           # (n1, n2, d)
        hxb = kern.feature_grams(X1, B)            # (n1, m, d)
        hbx = kern.feature_grams(B, X2)            # (m, n2, d)
        hbb = kern.feature_grams(B, B)             # (m, m, d)
        for p0 in range(0, len(pairs), pair_step):
            chunk = pairs[p0:p0 + pair_step]
            ia = np.array([a for a, _ in chunk])
            ib = np.array([b for _, b in chunk])
            acc = np.zeros((len(chunk), d, d))
            for b0 in range(0, m, b_step):
                bs = slice(b0, min(m, b0 + b_step))
                nb = bs.stop - bs.start
                # shapes (pairs, nb, m, 1, d) broadcast against nodes (q*q, 1)
                h11 = hxx[ia, ib][:, None, None, None, :]
                h10 = hxb[ia][:, None, :, None, :]
                h01 = hbx[bs, :][:, ib].transpose(1, 0, 2)[:, :, None, None, :]
                h00 = hbb[bs][None, :, :, None, :]
                M = (tt[:, None] * h11 + ts_[:, None] * h10 + st_[:, None] * h01
                     + ss_[:, None] * h00)          # (pairs, nb, m, q*q, d)
                D = tp_of[:, None] * (h11 - h01) + sp_of[:, None] * (h10 - h00)
                E = t_of[:, None] * (h11 - h10) + s_of[:, None] * (h01 - h00)
                F = np.broadcast_to(h11 - h01 - h10 + h00, M.shape)
                shape = (len(chunk), nb * m * q * q, d)
                M = M.reshape(shape)
                D = np.broadcast_to(D, (len(chunk), nb, m, q * q, d)).reshape(shape)
                E = np.broadcast_to(E, (len(chunk), nb, m, q * q, d)).reshape(shape)
                F = F.reshape(shape)
                wt = np.broadcast_to(wq, (nb, m, q * q)).reshape(-1)
                for j in range(d):  # a loop over features: leave j (and k) out
                    Mj = M.copy()
                    Mj[:, :, j] = 1.0
                    loo = _prefix_suffix(Mj, axis=2)           # prod_{l != j, k} (k != j); prod_{l != j} at k = j
                    row = np.einsum("prk,pr,r->pk", E * loo, D[:, :, j], wt)
                    row[:, j] = np.einsum("pr,pr,r->p", F[:, :, j], loo[:, :, j], wt)
                    acc[:, j, :] += row
            out[ia, ib] += weight * acc
    return out


def _product_psi(terms, X, B, X_train):
    """Psi (n, d, n_train): Shapley values of S -> mean_b k((x_S, b_{S^c}), x_i) per train point i."""
    from ..estimators.product import _psi_quadrature

    n, d = X.shape
    m, nt = B.shape[0], X_train.shape[0]
    out = np.zeros((n, d, nt))
    step = max(1, working_elements(4) // max(1, 8 * m * d * max(1, math.ceil(d / 2))))
    for weight, kern in terms:
        cb = kern.feature_grams(B, X_train)                      # (m, nt, d): c_l = k_l(b_l, x_il)
        for i0 in range(0, nt, step):
            cols = slice(i0, min(nt, i0 + step))
            c = cb[:, cols]                                      # (m, k, d)
            for a in range(n):
                av = kern.feature_grams(X[a:a + 1], X_train[cols])[0]   # (k, d)
                A = np.broadcast_to(av[None], c.shape).reshape(-1, d)
                C = c.reshape(-1, d)
                psi = _psi_quadrature(A, C, d) * (A - C)          # (m*k, d)
                out[a, :, cols] += weight * psi.reshape(m, -1, d).mean(axis=0).T
    return out


# --------------------------------------------------------------------------- #
# the routes: covariance blocks for pairs of point sets
# --------------------------------------------------------------------------- #
class _Route:
    """Covariance of Shapley values between two sets of explained points."""

    name = "?"

    def block(self, X1, X2=None):
        """(n1, n2, d, d): Cov(phi_{x1_a}, phi_{x2_b}); X2=None means X1 (symmetric)."""
        raise NotImplementedError


class _ExactRoute(_Route):
    name = "exact"

    def __init__(self, post, B, weights_fn):
        self.post, self.B, self.weights_fn = post, B, weights_fn
        d = B.shape[1]
        self.masks = _coalition_masks(d)
        self.W = _shapley_matrix(self.masks)

    def _cov(self, rows):
        return _CellCov(self.post, rows, self.masks, self.weights_fn(rows, self.masks), self.B)

    def block(self, X1, X2=None):
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

    def per_point(self, X):
        out = np.empty((len(X), X.shape[1], X.shape[1]))
        for i in range(len(X)):
            out[i] = self.block(X[i:i + 1])[0, 0]
        return out, None


class _SampledRoute(_Route):
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

    def block(self, X1, X2=None):
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

    def per_point(self, X):
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


class _ProductRoute(_Route):
    name = "product"

    def __init__(self, post, B, terms):
        self.post, self.B, self.terms = post, B, terms

    def _whitened_psi(self, X):
        if self.post.L is None:
            return np.zeros((0, len(X), X.shape[1]))
        psi = _product_psi(self.terms, X, self.B, self.post.X_train)     # (n, d, nt)
        n, d, nt = psi.shape
        G = self.post.solve(psi.transpose(2, 0, 1).reshape(nt, n * d))
        return G.reshape(nt, n, d)

    def block(self, X1, X2=None):
        prior = _product_prior(self.terms, X1, X1 if X2 is None else X2, self.B)
        G1 = self._whitened_psi(X1)
        G2 = G1 if X2 is None else self._whitened_psi(X2)
        cross = np.einsum("taj,tbk->abjk", G1, G2, optimize=True)
        return self.post.scale2 * (prior - cross)

    def per_point(self, X):
        out = np.empty((len(X), X.shape[1], X.shape[1]))
        for i in range(len(X)):
            out[i] = self.block(X[i:i + 1])[0, 0]
        return out, None


# --------------------------------------------------------------------------- #
# value functions as cell weights
# --------------------------------------------------------------------------- #
def _uniform_weights(rows, masks, m):
    return np.full((len(rows), len(masks), m), 1.0 / m)


def _observational_weights(gp, B, eta):
    """Cell weights of the observational value function: the CME weights kx.explain uses."""
    from ..values.observational import Observational

    value = Observational(gp, background=B, eta=eta, form="product")

    def weights(rows, masks):
        game = value._game(rows)
        return np.transpose(game.cme_weights(masks), (2, 0, 1))   # (n, c, m)

    return weights


def _efficiency_variance(post, x, B):
    """Var(f(x) - mean_b f(b)) computed directly, and the scale of its terms."""
    P = np.vstack([x[None, :], B])
    a = np.concatenate([[1.0], np.full(B.shape[0], -1.0 / B.shape[0])])
    K = post.kernel(P, P)
    G = post.whitened(P)
    var = post.scale2 * (a @ K @ a - np.sum((G @ a) ** 2))
    size = post.scale2 * (np.abs(a) @ np.abs(K) @ np.abs(a) + np.sum((np.abs(G) @ np.abs(a)) ** 2))
    return var, size


def _check_rows(X, d, what="X"):
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


def _check_background(background, default, d):
    B = default if background is None else np.asarray(background, dtype=float)
    if B.ndim != 2 or B.shape[1] != d or B.shape[0] == 0:
        raise ValueError(
            f"background must have shape (m, {d}) with m >= 1; got shape {np.shape(background)}"
        )
    if not np.isfinite(B).all():
        raise ValueError("background contains NaN or inf")
    return B


def _choose(method, value, terms, d, m, n, joint):
    per_point = 2**d * m if d <= 30 else np.inf
    if method == "auto":
        if value == "interventional" and terms is not None:
            return "product"
        return "exact" if per_point * (n if joint else 1) <= _MAX_POINTS else "sampled"
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
    if method == "exact" and per_point * (n if joint else 1) > _MAX_POINTS:
        what = f"n * 2^d * m = {n} * 2^{d} * {m}" if joint else f"2^d * m = 2^{d} * {m}"
        raise ValueError(
            f"the exact GP-SHAP covariance needs f at {what} = {per_point * (n if joint else 1):.0f} "
            f"evaluation points {'jointly' if joint else 'per explained point'}, above the limit of "
            f"{_MAX_POINTS}. Use fewer background rows (kx.background.subsample(background, m) or "
            "kx.background.summarize), method='product' (product kernels, interventional), "
            "method='sampled', " + ("or joint=False." if joint else "or fewer features.")
        )
    return method


def _route_cost(route, d, m, n_train, n_cells):
    """Rough flop count per explained point (or per pair of points)."""
    if route == "product":
        q = max(1, math.ceil(d / 2))
        return 14.0 * m * m * q * q * d * d + 4.0 * m * n_train * q * d + 2.0 * n_train * n_train * d
    pts = n_cells * m
    return 3.0 * pts * pts * d + 2.0 * pts * n_train * (n_train + d)


def explain_gp(gp, X, value="interventional", background=None, *, joint=False, method="auto",
               eta=1e-3, budget=None, random_state=None, n_jobs=None,
               rows_per_chunk=None):
    """Shapley values of a Gaussian process posterior, with their exact covariance.

    Under the posterior, the function f is random, and so are its Shapley
    values. They are jointly Gaussian: their mean is the Shapley values of the
    posterior mean (exactly ``kx.explain(gp, X, value=value,
    background=background)``), and their covariance is ``A C A^T`` with C the
    posterior covariance of the *latent* function at the evaluation points
    (x_S, b_{S^c}) and A the Shapley weights times the value function's
    weights of the background rows.

    Parameters
    ----------
    gp : sklearn.gaussian_process.GaussianProcessRegressor
        Fitted, single output, any kernel :func:`kernelxai.models.as_expansion`
        converts. ``normalize_y=True`` is taken into account (values and
        covariances are in the units of y). A ``WhiteKernel`` is treated as
        observation noise: the covariance is that of the latent function f,
        not of noisy observations y. Or a fitted binary
        ``GaussianProcessClassifier``: its latent function (the log-odds of
        the second class) under scikit-learn's Laplace approximation, whose
        posterior is Gaussian with covariance ``k - k_X W^(1/2) B^(-1)
        W^(1/2) k_X`` (the one ``predict_proba`` integrates over); the mean
        is ``kx.explain(gp, X, output="latent")``.
    X : array (n, d) or DataFrame
        Points to explain.
    value : {"interventional", "observational"}
        ``"interventional"``: v_x(S) = (1/m) sum_b f(x_S, b_{S^c}).
        ``"observational"``: v_x(S) = sum_b beta_b(x_S) f(x_S, b_{S^c}) with the
        conditional-mean-embedding weights of RKHS-SHAP (product kernels,
        regularisation ``eta``), as ``kx.explain(gp, X, "observational")``.
    background : array (m, d), optional
        Background rows b; defaults to the GP's training inputs. The work
        grows as m^2: keep m modest (``kx.background.subsample`` or
        ``kx.background.summarize``).
    joint : bool
        Also return the covariance across points and features,
        ``joint_covariance`` of shape (n*d, n*d), ordered point-major
        (index ``i * d + j``).
    method : {"auto", "exact", "product", "sampled"}
        How the covariance is computed (see the module docstring).
        ``"auto"``: ``"product"`` for interventional values of a product
        kernel (or a sum of them), else ``"exact"`` while 2^d * m evaluation
        points are affordable, else ``"sampled"``.
    eta : float
        CME regularisation of the observational value function.
    budget : int, optional
        Sampled route: game evaluations per explained point, turned into
        ``ceil(budget / (d - 1))`` permutations (default 64 permutations).
    random_state : int or Generator, optional
        Seed of the sampled route.
    n_jobs : int, optional
        Workers over chunks of rows with joblib, as in :func:`kernelxai.explain`
        (``joint=False`` only); the result does not depend on it (:mod:`kernelxai.parallel`).
    rows_per_chunk : int, optional
        Rows per chunk; default from the cost model.

    Returns
    -------
    Explanation
        ``values`` (n, d) the posterior-mean Shapley values, ``base_values``
        as ``kx.explain`` gives them, ``covariance`` (n, d, d) the posterior
        covariance of each point's Shapley values, ``stderr`` their posterior
        standard deviations and ``lower`` / ``upper`` the 95% credible bounds
        ``values -/+ 1.96 stderr``; ``joint_covariance`` (n*d, n*d) when
        ``joint=True``. ``meta["method"]`` names the route; the sampled route
        adds ``meta["covariance_mc_stderr"]`` (n, d, d), the jackknife
        standard errors of the covariance entries.

    Raises
    ------
    TypeError
        If ``gp`` is not a GaussianProcessRegressor or GaussianProcessClassifier.
    ValueError
        If ``gp`` is unfitted or multi-output, if ``value`` or ``method`` is
        not accepted or not applicable, if the shapes do not match, or if the
        evaluation points exceed the exact route's limit.
    RuntimeError
        If the computed covariance violates efficiency (the variance of the
        sum of the Shapley values must equal Var(f(x) - v_x(empty))).
    """
    fitted = _check_gp(gp)
    if value not in _VALUES:
        raise ValueError(f"value must be one of {_VALUES}; got {value!r}")
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}")
    if not isinstance(joint, (bool, np.bool_)):
        raise ValueError(f"joint must be True or False; got {joint!r}")

    post = fitted.post
    kernel = post.kernel
    d = post.X_train.shape[1]
    Xa = _check_rows(X, d)
    B = _check_background(background, post.X_train, d)
    n, m = Xa.shape[0], B.shape[0]
    terms = _product_terms(kernel, d) if value == "interventional" else None
    route_name = _choose(method, value, terms, d, m, n, joint)
    if value == "observational":
        terms_obs = _product_terms(kernel, d)
        if terms_obs is None or len(terms_obs) != 1:
            raise ValueError(
                "value='observational' in explain_gp uses RKHS-SHAP's conditional mean embedding of "
                "a product kernel (RBF, ARD or not, times a constant, plus a WhiteKernel); this GP's "
                f"kernel {kernel} is not one. Use value='interventional'."
            )
        weights_fn = _observational_weights(fitted.regressor, B, eta)
    else:
        weights_fn = lambda rows, masks: _uniform_weights(rows, masks, m)  # noqa: E731

    n_perm = None
    if route_name == "sampled":
        if budget is None:
            n_perm = _DEFAULT_PERMUTATIONS
        else:
            if isinstance(budget, bool) or not isinstance(budget, numbers.Integral) or budget < 1:
                raise ValueError(f"budget must be a positive integer (game evaluations); got {budget!r}")
            n_perm = max(3, math.ceil(budget / max(1, d - 1)))
    elif budget is not None:
        raise ValueError(f"budget applies to method='sampled' only; the {route_name!r} route is exact")

    n_cells = {"exact": 2**d if d <= 30 else np.inf, "sampled": (n_perm or 3) * (d - 1) + 2,
               "product": 0}[route_name]
    per = _route_cost(route_name, d, m, post.n_train, n_cells)
    check_cost(per * (n * n if joint else n),
               f"the {route_name} GP-SHAP covariance ({n} points, d = {d}, m = {m} background rows, "
               f"{post.n_train} training points{', jointly' if joint else ''})",
               ["a smaller background (kx.background.subsample / summarize)", "fewer explained points",
                "joint=False"])

    from ..parallel import core as parallel

    if parallel.check_n_jobs(n_jobs) not in (None, 1) and joint:
        raise ValueError("joint=True couples the rows (their cross-covariances): it runs in one "
                         "process; n_jobs= applies to joint=False")
    if not joint and n > 1:  # chunks of rows with joblib (kernelxai.parallel)
        rows = parallel.check_rows_per_chunk(rows_per_chunk) or parallel.plan_rows(n, per * n, per)
        if rows < n:
            seed = parallel.shared_seed(random_state) if route_name == "sampled" else None
            pieces = parallel.run_rows(_explain_gp_rows, X, n_jobs=n_jobs, rows_per_chunk=rows,
                                       shared=(gp, value, B, route_name, eta, budget, seed),
                                       desc=f"kx.explain_gp ({route_name})")
            backend, workers = parallel.execution(n_jobs, len(pieces))
            return parallel.concat_results(pieces, n_jobs=workers, rows_per_chunk=rows,
                                           backend=backend)

    # the mean: Shapley values of the posterior mean, exactly as kx.explain gives them
    from .explain import explain

    mean_kw = dict(fitted.mean_options, **({"eta": eta} if value == "observational" else {}))
    mean = explain(fitted.mean_model, X if np.ndim(X) == 2 else Xa, value=value, background=B, **mean_kw)

    if route_name == "product":
        route = _ProductRoute(post, B, terms)
    elif route_name == "exact":
        route = _ExactRoute(post, B, weights_fn)
    else:
        rng = random_state if isinstance(random_state, np.random.Generator) \
            else np.random.default_rng(random_state)
        route = _SampledRoute(post, B, weights_fn, n_perm, rng)

    joint_cov = None
    mc_err = None
    if joint:
        full = route.block(Xa)                                    # (n, n, d, d)
        joint_cov = full.transpose(0, 2, 1, 3).reshape(n * d, n * d)
        joint_cov = 0.5 * (joint_cov + joint_cov.T)
        cov = np.stack([joint_cov[i * d:(i + 1) * d, i * d:(i + 1) * d] for i in range(n)])
        if route_name == "sampled":
            _, mc_err = route.per_point(Xa)
    else:
        cov, mc_err = route.per_point(Xa)
    cov = 0.5 * (cov + np.transpose(cov, (0, 2, 1)))

    # efficiency draw by draw: 1^T Cov(phi_x) 1 == Var(f(x) - v_x(empty)); exact for every route
    # (each permutation's estimate is efficient, so the U-statistic is too)
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
    described = {
        "exact": f"C is the GP posterior covariance at the 2^{d} x {m} evaluation points (x_S, b_(S^c)) "
                 "of each point and A holds the Shapley weights",
        "product": "computed without enumerating coalitions: the product-kernel Shapley games of the "
                   "cross term and a 2-D Gauss-Legendre double Shapley transform of the prior term "
                   "(exact to rounding)",
        "sampled": f"estimated from {n_perm} random permutations per point (unbiased U-statistic; "
                   "jackknife standard errors in meta['covariance_mc_stderr'])",
    }[route_name]
    meta = {
        "value_function": value,
        "method": route_name,
        "covariance": fitted.what + "; " + described,
        "n_background": m,
        "credible_level": 0.95,
    }
    if value == "observational":
        meta["eta"] = eta
    if route_name == "sampled":
        meta["n_permutations"] = n_perm
        meta["covariance_mc_stderr"] = mc_err
    from ..explanation.core import Explanation

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


def _explain_gp_rows(job, X):
    """One chunk of :func:`explain_gp`'s rows: the serial call on them (kernelxai.parallel)."""
    import copy

    gp, value, B, method, eta, budget, seed = job
    return explain_gp(gp, X, value, B, method=method, eta=eta, budget=budget,
                      random_state=copy.deepcopy(seed), rows_per_chunk=len(X))


# --------------------------------------------------------------------------- #
# predicting explanations: the Shapley prior
# --------------------------------------------------------------------------- #
class ShapleyPrior:
    """GP regression of explanation functions with the kernel a GP prior induces on them.

    Under a GP prior f ~ GP(0, k), the Shapley values phi_x = A_x f(Z_x) form a
    vector-valued Gaussian process over x with the matrix-valued kernel
    ``kappa(x, x') = A_x k(Z_x, Z_x') A_x'^T`` (d x d). Given Shapley values
    computed at some points, ``predict`` returns the posterior of the Shapley
    values at new points -- without computing them there -- with a d x d
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
        How kappa is computed: ``"product"`` for product kernels (and sums of
        them, any d), ``"exact"`` enumerates coalitions (2^d * m evaluation
        points per point, any kernel). ``"auto"`` takes the first that applies.
    noise : float, optional
        Variance added to the diagonal of kappa at the fitted points: the
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

    def __init__(self, kernel, background=None, *, method="auto", noise=None):
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
            _check_gp(kern)
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
        bg = default_bg if self.background is None else self.background
        B = np.asarray(bg, dtype=float)
        if B.ndim != 2 or B.shape[0] == 0 or not np.isfinite(B).all():
            raise ValueError(f"background must be a finite array of shape (m, d), m >= 1; got shape {B.shape}")
        d = B.shape[1]
        if self.method not in ("auto", "product", "exact"):
            raise ValueError(f"method must be 'auto', 'product' or 'exact'; got {self.method!r}")
        terms = _product_terms(kern, d)
        method = self.method
        if method == "auto":
            method = "product" if terms is not None else "exact"
        if method == "product" and terms is None:
            raise ValueError(f"method='product' needs a product kernel (or a sum of them); {kern} is not one")
        if method == "exact" and (d > 30 or 2**d * B.shape[0] > _MAX_POINTS):
            raise ValueError(
                f"method='exact' needs 2^d * m = 2^{d} * {B.shape[0]} evaluation points per point, above "
                f"{_MAX_POINTS}: use a smaller background or a product kernel"
            )
        post = _Posterior(kern)
        m = B.shape[0]
        if method == "product":
            route = _ProductRoute(post, B, terms)
        else:
            route = _ExactRoute(post, B, lambda rows, masks: _uniform_weights(rows, masks, m))
        return route, B, names

    @staticmethod
    def _flat(block):
        n1, n2, d, _ = block.shape
        return block.transpose(0, 2, 1, 3).reshape(n1 * d, n2 * d)

    # --------------------------------------------------------------- public
    def fit(self, X, values):
        """Condition on Shapley values ``values`` (p, d) known at the points ``X`` (p, d).

        ``values`` may be an Explanation (its ``values``; its ``data`` is used
        when ``X`` is None).
        """
        from ..explanation.core import Explanation

        if isinstance(values, Explanation):
            if X is None:
                X = values.data
            values = values.values
        self.route_, self.B_, names = self._setup()
        d = self.B_.shape[1]
        Xa = _check_rows(X, d)
        Phi = np.asarray(values, dtype=float)
        if Phi.shape != Xa.shape:
            raise ValueError(f"values must have shape {Xa.shape} (one Shapley value per point and "
                             f"feature); got {Phi.shape}")
        if not np.isfinite(Phi).all():
            raise ValueError("values contain NaN or inf")
        check_cost(_route_cost(self.route_.name, d, self.B_.shape[0], 0, 2**min(d, 30))
                   * len(Xa) * (len(Xa) + 1) / 2,
                   f"the Shapley prior between {len(Xa)} points (d = {d}, m = {self.B_.shape[0]})",
                   ["fewer known points", "a smaller background (kx.background.subsample)"])
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

    def predict(self, X):
        """Posterior of the Shapley values at ``X``: an Explanation with bands and covariances.

        ``values`` (n, d) the posterior mean, ``covariance`` (n, d, d),
        ``stderr`` and 95% ``lower``/``upper``. ``base_values`` are not
        predicted (0).
        """
        if not hasattr(self, "alpha_"):
            raise ValueError("this ShapleyPrior is not fitted: call fit(X, values) first")
        from ..explanation.core import Explanation

        d = self.n_features_in_
        Xa = _check_rows(X, d)
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
            stderr=stderr, lower=mean - _Z95 * stderr, upper=mean + _Z95 * stderr, covariance=cov,
            meta={"method": f"Shapley prior ({self.route_.name} kernel), {len(self.X_)} known points",
                  "credible_level": 0.95, "base_values": "not predicted (0)", "noise": self.noise_},
        )
