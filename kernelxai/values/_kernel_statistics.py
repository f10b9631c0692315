"""The MMD and HSIC games: kernel statistics with absent features' kernel factors set to 1.

Takes two samples (MMD) or a sample and a target (HSIC) with a product kernel; hands on a
:class:`~kernelxai.games.ProductGame` over the features whose worth v(S) is the statistic
computed with the kernel factors of the features in S only (PKeX-Shapley §4, Mohammadi et
al. 2025: the functional baseline of a kernel statistic). Every entry of a kernel matrix
is then a multiplicative game, and the statistic -- a weighted sum of entries -- is a
product game with one term per pair of points:

* MMD (PKeX Def. 5, Prop. 6): v(S) = sum_{i != j} k_S(x_i, x_j) / (n(n-1))
  + sum_{i != j} k_S(z_i, z_j) / (m(m-1)) - 2 sum_{i, j} k_S(x_i, z_j) / (nm);
  v(empty) = 0 and v(D) = MMD^2_u, so sum_j phi_j = MMD^2_u (PKeX Lemma 11).
* HSIC (PKeX Def. 7, Prop. 8): v(S) = tr(K_S H L H) / (n-1)^2; v(empty) = 0
  (H 1 = 0), so sum_j phi_j = HSIC (PKeX Lemma 12). With a multivariate Y and
  a product kernel on it (PKeX App. G), the same game with the roles swapped
  attributes HSIC to Y's features.

The games stream their terms in blocks of pairs (memory O((n + m) d) per block). The
entry points that check the inputs, estimate the Shapley values and add a permutation
test are :func:`kernelxai.explain_mmd` and :func:`kernelxai.explain_hsic`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._calibration import Work, arithmetic_passes, kernel_factors
from ..games import UnitAbsentGame

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence
    from typing import Any

    from numpy.typing import ArrayLike

    from ..kernels import Kernel

__all__ = ["MMDGame", "HSICGame", "BLOCK_ELEMENTS"]

#: Default number of float64 numbers in one block of pair terms (32 MB).
BLOCK_ELEMENTS = 2**22


def _pair_blocks(n_rows, n_cols_fn, d, max_elements):
    """Row blocks [r0, r1) so that a block of pairs holds about max_elements numbers."""
    step = max(1, int(max_elements) // max(1, n_cols_fn * d))
    for r0 in range(0, n_rows, step):
        yield r0, min(n_rows, r0 + step)


def _pairs_formed(N, d, max_elements=BLOCK_ELEMENTS) -> float:
    """Pairs whose kernel factors the blocks of :func:`_pair_blocks` form: each block is whole rows.

    A block of rows [r0, r1) forms the factors of every pair with a column in [r0, N): the
    upper triangle's rows padded to a trapezoid, the whole square N^2 for a sample that fits in
    one block (twice the N^2 / 2 unordered pairs), tending to N^2 / 2 with many blocks.
    """
    return float(sum((r1 - r0) * (N - r0) for r0, r1 in _pair_blocks(N, N, d, max_elements)))


def _upper_mask(r0, r1, N, include_diagonal):
    """Pairs (i, j), i in [r0, r1), j in [r0, N), with j > i (j >= i when include_diagonal)."""
    i = np.arange(r0, r1)[:, None]
    j = np.arange(r0, N)[None, :]
    return (j >= i) if include_diagonal else (j > i)


class MMDGame(UnitAbsentGame):
    r"""The MMD game of PKeX Def. 5: :math:`v(S) = \mathrm{MMD}^2` computed with the factors of :math:`S` only.

    One term per unordered pair of the pooled sample :math:`[X; Z]` (the kernel is
    symmetric): weight :math:`2 W(g_i, g_j)` for :math:`i < j`, and :math:`W(g, g)` on the diagonal
    for the biased (V-statistic) estimate. :math:`W` is :math:`\frac{1}{n(n-1)}`, :math:`\frac{1}{m(m-1)}` and
    :math:`-\frac{1}{nm}` for pairs within :math:`X`, within :math:`Z` and across (unbiased), or :math:`\frac{1}{n^2}`,
    :math:`\frac{1}{m^2}`, :math:`-\frac{1}{nm}` (biased). Absent factors are 1.

    Parameters
    ----------
    X : ndarray (n, d)
        Sample from P (n >= 2 for the unbiased estimate).
    Z : ndarray (m, d)
        Sample from Q, with the same d features (the players).
    kernel : ProductKernel
        Product kernel; its ``feature_grams`` gives the per-feature factors.
    unbiased : bool, default True
        The U-statistic :math:`\mathrm{MMD}^2_u` (no diagonal terms) or the biased V-statistic.
    player_names : list of str, optional
        Names of the d features.
    meta : dict, optional
        Extra metadata carried into the explanation.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from kernelxai.explainers import MMDGame
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20, 2)); Z = rng.normal(size=(20, 2)) + [1.0, 0.0]
    >>> game = MMDGame(X, Z, kx.kernels.RBF(1.0))
    >>> game.n_terms()                       # 40 * 39 / 2 pairs of the pooled sample
    780
    >>> np.round(kx.shapley_values(game).values, 4)   # sums to MMD^2_u = 0.2728
    array([[ 0.3414, -0.0686]])
    """

    def __init__(self, X: ArrayLike, Z: ArrayLike, kernel: Kernel, unbiased: bool = True,
                 player_names: Sequence[str] | None = None, meta: Mapping[str, Any] | None = None) -> None:
        super().__init__(n_players=X.shape[1], n_instances=1, player_names=player_names, meta=meta)
        self.X, self.Z, self.kernel, self.unbiased = X, Z, kernel, bool(unbiased)
        self.U = np.vstack([X, Z])
        self.group = np.r_[np.zeros(len(X), dtype=int), np.ones(len(Z), dtype=int)]
        n, m = len(X), len(Z)
        if self.unbiased:
            self.W = np.array([[1 / (n * (n - 1)), -1 / (n * m)], [-1 / (n * m), 1 / (m * (m - 1))]])
        else:
            self.W = np.array([[1 / n**2, -1 / (n * m)], [-1 / (n * m), 1 / m**2]])

    def n_terms(self) -> int:
        N = len(self.U)
        return N * (N - 1) // 2 + (0 if self.unbiased else N)

    def term_work(self) -> Work:
        """Kernel factors of the pooled sample's pairs the blocks form, and the pairs' selection."""
        pairs = _pairs_formed(len(self.U), self.n_players)
        return Work(flops=kernel_factors(pairs * self.n_players) + arithmetic_passes(6.0 * pairs * self.n_players))

    def iter_terms(self, max_elements: int = BLOCK_ELEMENTS) -> Iterator[tuple]:
        U, N, d = self.U, len(self.U), self.n_players
        for r0, r1 in _pair_blocks(N, N - 0, d, max_elements):
            keep = _upper_mask(r0, r1, N, include_diagonal=not self.unbiased)
            G = self.kernel.feature_grams(U[r0:r1], U[r0:])
            W = self.W[self.group[r0:r1, None], self.group[None, r0:]]
            W = np.where(np.arange(r0, r1)[:, None] == np.arange(r0, N)[None, :], W, 2 * W)
            a = G[keep][None]
            yield slice(0, 1), W[keep][None], a, self.absent_ones(a.shape)


class HSICGame(UnitAbsentGame):
    r"""The HSIC game of PKeX Def. 7: :math:`v(S) = \operatorname{tr}(K_S H L H) / (n-1)^2`.

    Players are the features of ``A`` (with product kernel ``kernel_a``); the
    other side enters only through the fixed doubly centred Gram matrix
    :math:`H L H` of ``B`` under ``kernel_b`` (any kernel), whose entries
    :math:`L_{ij} - \bar L_{i\cdot} - \bar L_{\cdot j} + \bar L` are the term weights. One term per
    unordered pair (weight doubled off the diagonal). Swapping A and B gives
    the App. G game that attributes HSIC to B's features.

    Parameters
    ----------
    A : ndarray (n, d)
        The side whose d features are the players.
    B : ndarray (n, d_b)
        The other side, one row per row of A.
    kernel_a : ProductKernel
        Product kernel on A; its ``feature_grams`` gives the per-feature factors.
    kernel_b : Kernel
        Any kernel on B.
    player_names : list of str, optional
        Names of A's d features.
    meta : dict, optional
        Extra metadata carried into the explanation.
    max_elements : int, default ``BLOCK_ELEMENTS`` (2**22)
        float64 numbers one block of B's Gram rows may hold while the row
        means of L are computed.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from kernelxai.explainers import HSICGame
    >>> rng = np.random.default_rng(0)
    >>> A = rng.normal(size=(20, 2)); B = A[:, :1] ** 2 + 0.1 * rng.normal(size=(20, 1))
    >>> k = kx.kernels.RBF(1.0)
    >>> game = HSICGame(A, B, k, k)
    >>> np.round(kx.shapley_values(game).values, 4)   # feature 0 carries the dependence
    array([[0.0139, 0.0018]])
    """

    def __init__(self, A: ArrayLike, B: ArrayLike, kernel_a: Kernel, kernel_b: Kernel,
                 player_names: Sequence[str] | None = None, meta: Mapping[str, Any] | None = None,
                 max_elements: int = BLOCK_ELEMENTS) -> None:
        super().__init__(n_players=A.shape[1], n_instances=1, player_names=player_names, meta=meta)
        self.A, self.B, self.kernel_a, self.kernel_b = A, B, kernel_a, kernel_b
        n = len(A)
        self.row_means = np.empty(n)
        step = max(1, int(max_elements) // max(1, n))
        for r0 in range(0, n, step):
            self.row_means[r0:r0 + step] = kernel_b.gram(B[r0:r0 + step], B).mean(axis=1)
        self.grand_mean = float(self.row_means.mean())

    def n_terms(self) -> int:
        n = len(self.A)
        return n * (n + 1) // 2

    def term_work(self) -> Work:
        """Kernel factors of both sides for the pairs of rows the blocks form, and the pairs' selection."""
        pairs = _pairs_formed(len(self.A), self.n_players)
        sides = self.n_players + np.shape(self.B)[1] if np.ndim(self.B) == 2 else self.n_players + 1
        return Work(flops=kernel_factors(pairs * sides) + arithmetic_passes(6.0 * pairs * (self.n_players + 1)))

    def iter_terms(self, max_elements: int = BLOCK_ELEMENTS) -> Iterator[tuple]:
        A, n, d = self.A, len(self.A), self.n_players
        scale = 1.0 / (n - 1) ** 2
        for r0, r1 in _pair_blocks(n, n, d, max_elements):
            keep = _upper_mask(r0, r1, n, include_diagonal=True)
            G = self.kernel_a.feature_grams(A[r0:r1], A[r0:])
            L = self.kernel_b.gram(self.B[r0:r1], self.B[r0:])
            W = (L - self.row_means[r0:r1, None] - self.row_means[None, r0:] + self.grand_mean) * scale
            W = np.where(np.arange(r0, r1)[:, None] == np.arange(r0, n)[None, :], W, 2 * W)
            a = G[keep][None]
            yield slice(0, 1), W[keep][None], a, self.absent_ones(a.shape)
