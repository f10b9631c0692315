"""Conditional value functions for dependent features, by model calls: Gaussian copula, empirical.

The lecture on Shapley values (slides "Contribution function", "Parametric
approaches", "Non-parametric approaches") lists estimators of the
observational contribution function

    v(S)(x) = E[f(X) | X_S = x_S] = E[f(x_S, X_{S^c}) | X_S = x_S]

for dependent features. :class:`~kernelxai.values.GaussianConditional`
(``value="gaussian_conditional"``, module ``kernelxai.values._agnostic``) is
the Gaussian one. This module adds the next two, both from Aas, Jullum & Loland
(2021; arXiv 2019, "Explaining individual predictions when features are dependent:
more accurate approximations to Shapley values"), the lecture's "Aas et al. (2019)":

* :class:`GaussianCopula` (``value="gaussian_copula"``) -- the dependence is a
  Gaussian copula, the marginals are whatever the data say: each feature is
  sent through its empirical CDF and the standard normal quantile function
  (normal scores), the absent scores are drawn from their Gaussian conditional
  given the present ones, and the draws are sent back through each feature's
  empirical quantile function.
* :class:`Empirical` (``value="empirical"``) -- no distributional model: the
  background rows are weighted by how close their present features are to
  x_S (a Gaussian kernel of a scaled Mahalanobis distance) and f(x_S, b_{S^c})
  is averaged with these weights.

Both take ``gaussian_conditional``'s options where they mean the same thing
(``data``, ``groups``, ``max_elements``, ``progress``; the copula also
``n_samples`` and ``sample_seed``; for the empirical estimator, which draws
nothing, ``n_samples`` caps the kept rows), both give efficient Shapley values
(v(empty) = mean f(data), v(all) = f(x)), and both are vectorised over
coalitions and explained points: the per-coalition linear algebra is batched
(one stacked eigendecomposition per block of coalitions) and every model call
takes a block of (coalition, point, sample) rows.

Not included, and why: the lecture's other estimators -- conditional inference
trees (ctree, Redelmeier et al. 2020), vine copulas (Aas et al. 2021) and the
variational autoencoder with arbitrary conditioning (VAEAC, Olsen et al. 2022)
-- each need a heavy dependency (a conditional-inference-tree or vine-copula
library, a deep-learning framework with a network trained per data set). The
R package ``shapr`` (Norsk Regnesentral) implements ctree and VAEAC beside the
Gaussian, copula and empirical approaches, and has a Python wrapper,
``shaprpy``, that calls it through rpy2; vine copulas are fitted and sampled
by ``rvinecopulib`` (R) and ``pyvinecopulib`` (Python). Notebook
18-conditional-estimators compares the estimators here.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import ndtr, ndtri

from .._config import working_elements
from .._validation import check_choice, check_positive_int, check_rng
from ..estimators._common import progress_iter
from ..games import Game
from ._agnostic import ModelCalls, check_max_elements, check_points
from ._base import register

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["GaussianCopula", "Empirical", "GaussianCopulaGame", "EmpiricalGame",
           "conditional_gaussian_blocks", "normal_scores", "empirical_quantiles"]

QUANTILE_METHODS = ("linear", "inverted_cdf")


# --------------------------------------------------------------------------- #
# shared pieces: batched Gaussian conditioning, normal scores, quantiles
# --------------------------------------------------------------------------- #
def _standardise(cov):
    """Correlation matrix and standard deviations of a covariance (zero variance -> sd 1)."""
    sd = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    sd = np.where(sd > 0, sd, 1.0)
    return cov / np.outer(sd, sd), sd


def conditional_gaussian_blocks(R, z) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gaussian conditioning for a stack of coalitions, in one batched eigendecomposition.

    For each coalition S (row of ``z``) and a covariance ``R`` (d x d), with
    T = S^c, the conditional law of X_T given X_S = y_S for X ~ N(0, R) is
    N(y_S R_SS^+ R_ST, R_TT - R_TS R_SS^+ R_ST). The sub-matrices are embedded
    in d x d arrays (zero outside their blocks), so that one stacked
    ``eigh`` serves every coalition: R_SS^+ is the S-block of the inverse of
    R_SS padded with the identity on T (block diagonal, so its inverse is
    exact whatever eigenvectors ``eigh`` picks), with eigenvalues below
    d * eps * max cut (a pseudo-inverse: collinear present features are safe).

    Parameters
    ----------
    R : ndarray (d, d)
        Covariance, ideally standardised (a correlation matrix) so that the
        identity padding is on the same scale.
    z : bool ndarray (c, d)
        Coalitions.

    Returns
    -------
    coef : ndarray (c, d, d)
        R_SS^+ R_ST in rows S and columns T, zero elsewhere: the conditional
        mean of the absent features is ``y @ coef[c]`` (columns T).
    cov_sqrt : ndarray (c, d, d)
        Symmetric square root of the conditional covariance in the T x T
        block, zero elsewhere: ``normals @ cov_sqrt[c]`` are draws of the
        conditional noise (columns T).
    whiten : ndarray (c, d, d)
        A factor W with W W^T = R_SS^+ (rows S, zero elsewhere): the squared
        Mahalanobis distance of a difference u restricted to S is
        ``|u @ whiten[c]|**2``.
    """
    z = np.asarray(z, dtype=bool)
    c, d = z.shape
    m = z.astype(float)
    t = 1.0 - m
    eye = np.eye(d)
    padded = R[None] * m[:, :, None] * m[:, None, :] + eye[None] * t[:, None, :]
    lam, V = np.linalg.eigh(padded)
    cut = d * np.finfo(float).eps * np.max(np.abs(lam), axis=1, keepdims=True)
    inv_sqrt = np.where(lam > cut, 1.0 / np.sqrt(np.where(lam > cut, lam, 1.0)), 0.0)
    whiten = m[:, :, None] * (V * inv_sqrt[:, None, :])          # M V L^{-1/2}
    inv_SS = whiten @ np.swapaxes(whiten, 1, 2)                  # R_SS^+ embedded
    R_ST = R[None] * m[:, :, None] * t[:, None, :]
    coef = inv_SS @ R_ST
    cond = R[None] * t[:, :, None] * t[:, None, :] - np.swapaxes(R_ST, 1, 2) @ coef
    cond = 0.5 * (cond + np.swapaxes(cond, 1, 2))
    mu, U = np.linalg.eigh(cond)
    cov_sqrt = (U * np.sqrt(np.clip(mu, 0.0, None))[:, None, :]) @ np.swapaxes(U, 1, 2)
    cov_sqrt *= t[:, :, None] * t[:, None, :]
    return coef, cov_sqrt, whiten


def normal_scores(sorted_columns, X) -> np.ndarray:
    """Normal scores Phi^{-1}(F_j(x_j)) under each feature's empirical CDF.

    F_j(x) = (#{b < x} + #{b = x}/2 + 1/2) / (m + 1) over the m background
    values b of feature j: for a background row this is its (mid-)rank over
    m + 1, the usual plotting position, and it stays inside (0, 1) for points
    outside the background's range, so the scores are finite.

    Parameters
    ----------
    sorted_columns : ndarray (m, d)
        Each column of the background sorted.
    X : ndarray (n, d)

    Returns
    -------
    ndarray (n, d)
    """
    m, d = sorted_columns.shape
    u = np.empty(X.shape)
    for j in range(d):  # a loop over features; each step is vectorised over points
        lo = np.searchsorted(sorted_columns[:, j], X[:, j], side="left")
        hi = np.searchsorted(sorted_columns[:, j], X[:, j], side="right")
        u[:, j] = (lo + 0.5 * (hi - lo) + 0.5) / (m + 1)
    return ndtri(u)


def empirical_quantiles(sorted_column, u, method="linear") -> np.ndarray:
    """The empirical quantile function of one feature at probabilities ``u`` (any shape).

    ``"linear"``: interpolation between order statistics at position (m - 1) u
    (numpy's default, Hyndman & Fan type 7, as ``shapr`` uses). ``"inverted_cdf"``:
    the order statistic ceil(m u) (type 1); every value it returns is a
    background value, which makes the copula estimator exactly invariant
    under strictly increasing transforms of a feature.
    """
    m = len(sorted_column)
    if method == "linear":
        return np.interp(u * (m - 1), np.arange(m), sorted_column)
    k = np.clip(np.ceil(u * m).astype(np.int64) - 1, 0, m - 1)
    return sorted_column[k]


def _check_fraction(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) \
            or not 0 < value <= 1:
        raise ValueError(f"{name} must be a number in (0, 1]; got {value!r}")
    return float(value)


def _check_bandwidth(value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) \
            or value <= 0:
        raise ValueError(
            f"bandwidth must be a positive finite number (the sigma of the Gaussian weights on the "
            f"scaled Mahalanobis distance; Aas et al. use 0.1); got {value!r}")
    return float(value)


def _coalition_blocks(inner, per_coalition, budget):
    """Split coalition indices into blocks of at most ``budget // per_coalition`` each."""
    step = max(1, budget // max(1, per_coalition))
    return [inner[lo:lo + step] for lo in range(0, len(inner), step)]


class _ModelCallGame(Game):
    """Shared parts of the games below: v(all) = f(x), v(empty) = mean f(data), budget, progress."""

    def __init__(self, predict, X, f_data_mean, player_names, *, max_elements, progress, meta,
                 point_flops):
        super().__init__(X.shape[1], player_names, len(X), X, meta)
        self.predict, self.X, self.f_data_mean = predict, X, f_data_mean
        self.max_elements = working_elements(8) if max_elements is None else check_max_elements(max_elements)
        self.progress = progress
        self.point_flops = 1000.0 * X.shape[1] if point_flops is None else float(point_flops)
        self._full = None

    def _evaluate(self, z):
        out = np.empty((len(z), len(self.X)))
        full, empty = z.all(axis=1), ~z.any(axis=1)
        if full.any():
            if self._full is None:
                self._full = self.predict(self.X)
            out[full] = self._full
        out[empty] = self.f_data_mean
        inner = np.flatnonzero(~(full | empty))
        if len(inner):
            self._inner(z, inner, out)
        return out

    def _bar(self, blocks):
        return progress_iter(blocks, "coalitions", "block", progress=self.progress or None)


# --------------------------------------------------------------------------- #
# Gaussian copula
# --------------------------------------------------------------------------- #
class GaussianCopulaGame(_ModelCallGame):
    """v(S)(x) = (1/L) sum_k f(x_S, Q(Phi(y_k))), y_k ~ N(E[Y_T | y_S], Cov[Y_T | y_S]).

    Y are the normal scores of the features, y_S those of x_S; Q applies each
    feature's empirical quantile function. The L standard-normal draws are
    fixed when the game is made (common random numbers).
    """

    def __init__(self, predict, X, sorted_data, score_mean, score_sd, score_corr, normals,  # noqa: PLR0913 - internal game: the arrays its value function checked, handed over once
                 f_data_mean, player_names, *, quantile_method="linear", max_elements=None,
                 progress=False, meta=None, point_flops=None):
        super().__init__(predict, X, f_data_mean, player_names, max_elements=max_elements,
                         progress=progress, meta=meta, point_flops=point_flops)
        self.sorted_data, self.normals = sorted_data, normals
        self.score_mean, self.score_sd, self.score_corr = score_mean, score_sd, score_corr
        self.quantile_method = quantile_method
        self.scores = (normal_scores(sorted_data, X) - score_mean) / score_sd  # standardised

    def evaluation_flops(self, n_coalitions) -> float:
        """L model calls per coalition and point, plus a few d x d eigendecompositions per coalition."""
        d, L = self.n_players, len(self.normals)
        return float(n_coalitions) * (self.n_instances * L * (self.point_flops + 20.0 * d)
                                      + 30.0 * d**3)

    def cost_advice(self) -> list[str]:
        return [f"fewer Monte Carlo draws (n_samples=..., now {len(self.normals)})"]

    def _inner(self, z, inner, out):
        X, Y, Z = self.X, self.scores, self.normals
        nx, d = X.shape
        L = len(Z)
        budget = self.max_elements
        for idx in self._bar(_coalition_blocks(inner, 4 * d * d + L * d, budget)):
            coef, cov_sqrt, _ = conditional_gaussian_blocks(self.score_corr, z[idx])
            noise = np.einsum("ld,cde->cle", Z, cov_sqrt)             # (b, L, d)
            n_pairs = len(idx) * nx
            step = max(1, budget // (3 * L * d))
            for lo in range(0, n_pairs, step):
                pair = np.arange(lo, min(n_pairs, lo + step))
                ci, ni = pair // nx, pair % nx
                mean = np.einsum("kd,kde->ke", Y[ni], coef[ci])         # standardised scores
                draws = mean[:, None, :] + noise[ci]                   # (k, L, d)
                u = ndtr(draws * self.score_sd + self.score_mean)
                pts = np.empty(draws.shape)
                for j in range(d):  # back to each feature's units (a loop over features)
                    pts[..., j] = empirical_quantiles(self.sorted_data[:, j], u[..., j],
                                                      self.quantile_method)
                present = z[idx][ci][:, None, :]
                pts = np.where(present, X[ni][:, None, :], pts)
                out[idx[ci], ni] = self.predict(pts.reshape(-1, d)).reshape(len(pair), L).mean(axis=1)


@register("gaussian_copula")
class GaussianCopula(ModelCalls):
    r"""Observational game under a Gaussian copula with empirical marginals (Aas et al. 2021).

    Each feature :math:`j` of ``data`` is mapped to normal scores
    :math:`y_j = \Phi^{-1}(F_j(x_j))` with its empirical CDF :math:`F_j` (mid-ranks over
    :math:`m + 1`); the scores are modelled as Gaussian
    with their sample mean and covariance. For a coalition :math:`S` the absent scores
    are drawn ``n_samples`` times from their Gaussian conditional given the
    scores of :math:`x_S`, mapped back to each feature's units by its empirical
    quantile function :math:`F_j^{-1}(\Phi(y_j))`, and the model is averaged over the
    draws with :math:`x_S` kept as it is. :math:`v(\emptyset)` is the mean prediction over
    ``data`` and :math:`v(D) = f(x)`, so the Shapley values are efficient.

    The copula models any monotone marginal (skewed, heavy-tailed, bounded)
    exactly as its sample shows it; the dependence is still Gaussian (no
    tail dependence, symmetric). The values do not change when a feature is
    transformed by a strictly increasing map and the model composed with its
    inverse -- exactly with ``quantile_method="inverted_cdf"``, to within
    the interpolation between neighbouring order statistics with
    ``"linear"``. Generated values never leave the range of ``data``.

    Parameters
    ----------
    model : callable or object with ``predict``
    data : array (m, d) or DataFrame, m >= 2
        Sample the marginals and the copula are estimated from; default: the
        model's training inputs when it keeps them. Pass the training
        inputs, not the points being explained.
    n_samples : int
        Monte Carlo draws per coalition and point.
    sample_seed : None, int or Generator
        Seed of the draws (common random numbers across coalitions and points).
    quantile_method : {"linear", "inverted_cdf"}
        Empirical quantile function of the back-transform: interpolation
        between order statistics (type 7, as ``shapr``) or the order
        statistic itself (type 1).
    groups, group_names, max_elements, progress :
        As for :class:`~kernelxai.values.Marginal`.

    Examples
    --------
    The model uses feature 0 only; feature 1 is nearly a copy of it and
    shares its credit, the independent feature 2 gets little:

    >>> import numpy as np, kernelxai as kx
    >>> rng = np.random.default_rng(0)
    >>> x0 = rng.normal(size=100); X = np.c_[x0, x0 + 0.1 * rng.normal(size=100), rng.normal(size=100)]
    >>> e = kx.explain(lambda P: P[:, 0], [[1.0, 1.0, 0.0]], value="gaussian_copula", background=X,
    ...                n_samples=100)
    >>> bool(e.values[0, 1] > 0.2), bool(abs(e.values[0, 2]) < 0.1)
    (True, True)
    """

    name = "Gaussian copula (Monte Carlo)"

    def __init__(self, model: Any, data: ArrayLike | None = None, *, n_samples: int = 200,  # noqa: PLR0913 - options of a public value function, one keyword each as scikit-learn's
                 sample_seed: int | np.random.Generator | None = 0, quantile_method: str = "linear",
                 groups: Sequence[Sequence[int | str]] | None = None, group_names: Sequence[str] | None = None,
                 max_elements: int | None = None, progress: bool = False) -> None:
        self.data = self._take_model(model, data, "data", groups=groups, group_names=group_names,
                                     max_elements=max_elements, progress=progress)
        self.n_samples = check_positive_int(n_samples, "n_samples")
        self.quantile_method = check_choice(quantile_method, "quantile_method", QUANTILE_METHODS)
        self.sorted_data = np.sort(self.data, axis=0)
        scores = normal_scores(self.sorted_data, self.data)
        self.score_mean = scores.mean(axis=0)
        self.score_corr, self.score_sd = _standardise(np.atleast_2d(np.cov(scores, rowvar=False)))
        self.normals = check_rng(sample_seed).standard_normal((self.n_samples, self.n_features))

    def _game(self, X):
        X, names = check_points(X, self.n_features, self.model_names)
        return GaussianCopulaGame(
            self.predict, X, self.sorted_data, self.score_mean, self.score_sd, self.score_corr,
            self.normals, self._data_mean(), names, quantile_method=self.quantile_method,
            max_elements=self.max_elements, progress=self.progress, point_flops=self.point_flops,
            meta={"value_function": "gaussian_copula", "n_samples": self.n_samples,
                  "quantile_method": self.quantile_method})

    def __repr__(self):
        return f"GaussianCopula(data={len(self.data)} rows, n_samples={self.n_samples})"


# --------------------------------------------------------------------------- #
# empirical (kernel-weighted background rows)
# --------------------------------------------------------------------------- #
class EmpiricalGame(_ModelCallGame):
    """v(S)(x) = sum_k w_k f(x_S, b^k_{S^c}) / sum_k w_k over the most weighted background rows.

    ``w = exp(-D_S^2 / (2 sigma^2))``, ``D_S^2 = (x_S - b_S)' Sigma_SS^{-1} (x_S - b_S) / |S|``.
    Deterministic: no random draws.
    """

    def __init__(self, predict, X, data, sd, corr, bandwidth, weight_share, n_samples, f_data_mean,  # noqa: PLR0913 - internal game: the arrays its value function checked, handed over once
                 player_names, *, max_elements=None, progress=False, meta=None, point_flops=None):
        super().__init__(predict, X, f_data_mean, player_names, max_elements=max_elements,
                         progress=progress, meta=meta, point_flops=point_flops)
        self.background, self.corr = data, corr
        self.scaled_X, self.scaled_data = X / sd, data / sd
        self.bandwidth, self.weight_share, self.n_samples = bandwidth, weight_share, n_samples

    def evaluation_flops(self, n_coalitions) -> float:
        """Distances and a sort over the m rows, and up to min(n_samples, m) model calls."""
        d, m = self.n_players, len(self.background)
        kept = min(self.n_samples, m)
        return float(n_coalitions) * (self.n_instances * (m * (2.0 * d + 4.0 * np.log2(m + 1))
                                                          + kept * self.point_flops)
                                      + 30.0 * d**3 + 2.0 * m * d * d)

    def cost_advice(self) -> list[str]:
        return [f"a smaller background (now {len(self.background)} rows)",
                f"fewer kept rows (n_samples=..., now {self.n_samples})"]

    def _inner(self, z, inner, out):
        X, B = self.X, self.background
        nx, d = X.shape
        m = len(B)
        budget = self.max_elements
        two_s2 = 2.0 * self.bandwidth**2
        for idx in self._bar(_coalition_blocks(inner, 4 * d * d + (nx + m) * d, budget)):
            _, _, whiten = conditional_gaussian_blocks(self.corr, z[idx])
            size = z[idx].sum(axis=1).astype(float)
            xw = np.einsum("nd,cde->cne", self.scaled_X, whiten)        # (b, nx, d)
            bw = np.einsum("md,cde->cme", self.scaled_data, whiten)     # (b, m, d)
            bsq = np.einsum("cme,cme->cm", bw, bw)
            n_pairs = len(idx) * nx
            step = max(1, budget // (3 * m * d))
            for lo in range(0, n_pairs, step):
                pair = np.arange(lo, min(n_pairs, lo + step))
                ci, ni = pair // nx, pair % nx
                k = len(pair)
                xk = xw[ci, ni]                                        # (k, d)
                d2 = (np.einsum("ke,ke->k", xk, xk)[:, None] + bsq[ci]
                      - 2.0 * np.einsum("ke,kme->km", xk, bw[ci]))
                d2 = np.clip(d2, 0.0, None) / size[ci][:, None]
                # weights relative to the nearest row: the normalised weights are unchanged
                # and the nearest row always has weight 1 (no 0/0 when sigma is small)
                w = np.exp(-(d2 - d2.min(axis=1, keepdims=True)) / two_s2)
                order = np.argsort(-w, axis=1, kind="stable")
                ws = np.take_along_axis(w, order, axis=1)
                cum = np.cumsum(ws, axis=1)
                K = (cum < self.weight_share * cum[:, -1:]).sum(axis=1) + 1
                K = np.minimum(K, self.n_samples)
                keep = np.arange(m)[None, :] < K[:, None]
                rows = order[keep]                                     # grouped by pair
                owner = np.repeat(np.arange(k), K)
                wk = ws[keep]
                present = z[idx][ci][owner]
                pts = np.where(present, X[ni][owner], B[rows])
                f = self.predict(pts)
                out[idx[ci], ni] = (np.bincount(owner, weights=wk * f, minlength=k)
                                    / np.bincount(owner, weights=wk, minlength=k))


@register("empirical")
class Empirical(ModelCalls):
    r"""Observational game by kernel-weighted background rows (Aas et al. 2021, "empirical").

    For a coalition :math:`S` each row :math:`b` of ``data`` gets the weight
    :math:`w = \exp\big(-D_S(x, b)^2 / (2\sigma^2)\big)` with the scaled Mahalanobis distance

    .. math::
        D_S(x, b)^2 = (x_S - b_S)^\top \Sigma_{SS}^{-1} (x_S - b_S) / |S|

    (:math:`\Sigma`: the sample covariance of ``data``; division by :math:`|S|` puts coalitions of
    different sizes on one scale). The rows are sorted by weight and only the
    :math:`K` most weighted are kept, :math:`K` the smallest number whose weights make up the
    share ``weight_share`` (Aas's :math:`\eta`) of the total, at most ``n_samples``.
    Then :math:`v(S)(x) = \sum_k w_k f(x_S, b^k_{S^c}) / \sum_k w_k`. :math:`v(\emptyset)` is the
    mean prediction over ``data`` and :math:`v(D) = f(x)`, so the Shapley values are
    efficient. No random draws: the game is deterministic.

    What is simplified: the bandwidth :math:`\sigma` is fixed (Aas et al.'s and
    ``shapr``'s default, 0.1) for every coalition. The lecture does not say how
    to choose it; Aas et al. also describe choosing :math:`\sigma` by minimising an
    AICc criterion of the kernel-weighted fit (exact, or approximated to save
    time), which is not implemented here -- pass ``bandwidth=`` to change
    it. :math:`\Sigma_{SS}^{-1}` is a
    pseudo-inverse when the present features are collinear.

    Caveats: with a small sample or a small :math:`\sigma` the weight falls on the
    nearest row alone (:math:`v(S)` becomes :math:`f` at one donor row); an explained point
    that is itself in ``data`` is its own nearest row, which pulls :math:`v(S)`
    towards :math:`f(x)` -- explain held-out points against the training data. Like
    the Gaussian and copula estimators it assumes numeric features.

    Parameters
    ----------
    model : callable or object with ``predict``
    data : array (m, d) or DataFrame, m >= 2
        Sample whose rows are weighted; default: the model's training inputs
        when it keeps them.
    bandwidth : float > 0
        sigma of the Gaussian weights on the scaled Mahalanobis distance.
    weight_share : float in (0, 1]
        Share of the total weight the kept rows must reach (Aas's eta, 0.95).
    n_samples : int
        At most this many rows are kept per coalition and point (1000, as ``shapr``).
    groups, group_names, max_elements, progress :
        As for :class:`~kernelxai.values.Marginal`.

    Examples
    --------
    The model uses feature 0 only; feature 1 is nearly a copy of it and
    shares its credit, the independent feature 2 gets little:

    >>> import numpy as np, kernelxai as kx
    >>> rng = np.random.default_rng(0)
    >>> x0 = rng.normal(size=100); X = np.c_[x0, x0 + 0.1 * rng.normal(size=100), rng.normal(size=100)]
    >>> e = kx.explain(lambda P: P[:, 0], [[1.0, 1.0, 0.0]], value="empirical", background=X,
    ...                bandwidth=0.2)
    >>> bool(e.values[0, 1] > 0.2), bool(abs(e.values[0, 2]) < 0.1)
    (True, True)
    """

    name = "empirical (kernel-weighted background rows)"

    def __init__(self, model: Any, data: ArrayLike | None = None, *, bandwidth: float = 0.1, weight_share: float = 0.95,  # noqa: PLR0913 - options of a public value function, one keyword each as scikit-learn's
                 n_samples: int = 1000, groups: Sequence[Sequence[int | str]] | None = None,
                 group_names: Sequence[str] | None = None, max_elements: int | None = None,
                 progress: bool = False) -> None:
        self.bandwidth = _check_bandwidth(bandwidth)
        self.weight_share = _check_fraction(weight_share, "weight_share")
        self.n_samples = check_positive_int(n_samples, "n_samples")
        self.data = self._take_model(model, data, "data", groups=groups, group_names=group_names,
                                     max_elements=max_elements, progress=progress)
        self.corr, self.sd = _standardise(np.atleast_2d(np.cov(self.data, rowvar=False)))

    def _game(self, X):
        X, names = check_points(X, self.n_features, self.model_names)
        return EmpiricalGame(
            self.predict, X, self.data, self.sd, self.corr, self.bandwidth, self.weight_share,
            self.n_samples, self._data_mean(), names, max_elements=self.max_elements,
            progress=self.progress, point_flops=self.point_flops,
            meta={"value_function": "empirical", "bandwidth": self.bandwidth,
                  "weight_share": self.weight_share, "n_samples": self.n_samples})

    def __repr__(self):
        return (f"Empirical(data={len(self.data)} rows, bandwidth={self.bandwidth}, "
                f"weight_share={self.weight_share})")
