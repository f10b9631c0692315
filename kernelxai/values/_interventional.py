"""Interventional Shapley values of kernel models via kernel mean embeddings.

RKHS-SHAP Prop. 3: for f(x) = sum_i alpha_i k(x, x_i) + b with a
product kernel and a background sample b_1..b_m,

    nu_I(x, S) = sum_i alpha_i K_S(x, x_i) mu_{S^c}(x_i) + b,
    mu_{S^c}(x_i) = (1/m) sum_b K_{S^c}(b, x_i),

which is exactly the model-agnostic interventional game
(1/m) sum_b f(x_S, b_{S^c}) -- no approximation, only a cheaper route.

The game is also a :class:`~kernelxai.games.ProductGame` (``kernelxai.estimators._product``): one
multiplicative term per training point i and background point b, with
a_l = k_l(x_l, x_il), c_l = k_l(b_l, x_il) and weight alpha_i / m, plus the
intercept as a constant term. So ``method="product"`` gives the exact Shapley
values in O(n m d q) per explained point (q <= ceil(d/2) quadrature nodes, as few
as the accuracy needs) with no coalition
enumeration or sampling, while ``"exact"``, ``"kernel"`` and
``"permutation"`` evaluate coalitions through the kernel mean embeddings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._calibration import Work, arithmetic_passes, fresh_numbers, kernel_factors
from .._config import working_elements
from .._threads import single_threaded_blas
from .._validation import feature_names_in
from ..games import (
    HasUnitGames,
    LinearInCoefficients,
    ProductGame,
    SumOfProductGames,
    coalitions_to_bitmasks,
)
from ..games._game_types import group_membership
from ..games._product_games import GroupedProductGame
from ..kernels import Constant, Linear
from ..models._expansion import KernelExpansion
from ..models.convert import as_expansion
from ..parallel import reduce_rows
from ._agnostic import MarginalGame, check_background, check_max_elements, check_points, flops_per_point
from ._base import (
    SMALL_TERMS,
    EmbeddingValueFunction,
    ValueFunction,
    default_background,
    distinct_coalition_weights,
    register,
)

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["Interventional", "InterventionalGame", "SumOfKernelGames", "split_sum_expansion",
           "linear_interventional_game"]

#: Up to this many players a request for many coalitions builds the table of all 2**d worths.
TABLE_MAX_PLAYERS = 16
#: Explained points per block of the table's per-point pass hold at most this many numbers
#: (at least one point): blocks stay in cache.
_POINT_BLOCK_ELEMENTS = 2**15
#: Training points per pass of a mean-embedding sum hold at most this many numbers (at least one point).
_SUM_BLOCK_ELEMENTS = 2**17
#: Numbers in one block of the absent features' products (coalitions x rows x training points).
_ABSENT_BLOCK_ELEMENTS = 2**18
#: Passes over (2**d, n) arrays a worth table makes besides its rows' and points' (cost model).
_TABLE_PASSES = 8


def _subset_products(G, out):
    """out[s] = prod_{l in s} G[l] for every bitmask s of the len(G) features (subset recurrence).

    G has shape (d, ...), one factor array per feature; out has shape (2**d,) + G.shape[1:].
    One multiplication per entry, each a contiguous pass: out[s + 2^l] = out[s] * G[l] for
    s < 2^l.
    """
    out[0] = 1.0
    for l in range(len(G)):
        h = 1 << l
        np.multiply(out[:h], G[l], out=out[h:2 * h])
    return out


def _halves(d):
    """(d_low, d_high): the features split in two, low bits first (bitmask s = s_low + 2**d_low s_high)."""
    return d // 2, d - d // 2


def _gram_blocks(kernel, A, X_train, rows_per_block):
    """Yield (rows, G) with G[a, i, l] = k_l(A[a, l], x_il), in blocks of rows of A."""
    for start in range(0, len(A), rows_per_block):
        rows = slice(start, min(len(A), start + rows_per_block))
        yield rows, kernel.feature_grams(A[rows], X_train)


class _EmbeddingSums:
    """What every part of a mean-embedding reduction needs; the background rows travel with the part.

    ``absent`` is a (c, d) boolean array of absent features per coalition, or None for
    the products over every subset of features (the table of all 2**d coalitions).
    """

    def __init__(self, kernel, X_train, absent, max_elements):
        self.kernel, self.X_train, self.absent, self.max_elements = kernel, X_train, absent, max_elements

    def row_flops(self, d):
        """Operations per background row: its products for every subset (or coalition), and their sum."""
        n = len(self.X_train)
        if self.absent is None:
            return 2.0 * n * (2**d + d)
        return float(n) * len(self.absent) * (d + 1)


def _subset_sums(job, B):
    """sum_b prod_{l in s} k_l(b_l, x_il) for every bitmask s of the features: (2**d, n).

    With the features split in halves, s = s_low + 2**d_low s_high and
    prod_{l in s} = P_low[s_low] * P_high[s_high], so for each training point i the
    sums over the rows b of all 2**d products are one matrix product,
    P_high[:, b, i] @ P_low[:, b, i].T -- the subset products of each half (2**d_low +
    2**d_high multiplications per (b, i)) and n small BLAS-3 products instead of 2**d
    elementwise passes over the (rows, n) table.
    """
    d, n = B.shape[1], len(job.X_train)
    low, high = _halves(d)
    width = 2**low + 2**high + d                       # numbers per (row, training point) in flight
    step = max(1, job.max_elements // (n * (width + 2 * d)))
    out = np.empty((n, 2**high, 2**low))   # not np.zeros: calloc maps fresh pages, malloc reuses freed ones
    out.fill(0.0)
    for rows, G in _gram_blocks(job.kernel, B, job.X_train, step):
        k = rows.stop - rows.start
        # training points per pass: the pass's products stay in cache (each point's sums are
        # its own matrix product, so the passes do not change a bit of them)
        cols = max(1, min(n, _SUM_BLOCK_ELEMENTS // (k * width)))
        F = np.empty((d, cols, k))
        P_low, P_high = np.empty((2**low, cols, k)), np.empty((2**high, cols, k))
        sums = np.empty((cols, 2**high, 2**low))
        for i0 in range(0, n, cols):
            c = min(cols, n - i0)
            np.copyto(F[:, :c], G[:, i0:i0 + c].transpose(2, 1, 0))   # F[l, i, b] = k_l(b_l, x_il)
            _subset_products(F[:low, :c], P_low[:, :c])
            _subset_products(F[low:, :c], P_high[:, :c])
            # out[i, s_high, s_low] += sum_b P_high[s_high, i, b] P_low[s_low, i, b]
            np.matmul(P_high[:, :c].transpose(1, 0, 2), P_low[:, :c].transpose(1, 2, 0), out=sums[:c])
            out[i0:i0 + c] += sums[:c]
    return out.reshape(n, 2**d).T


def _absent_sums(job, B):
    """sum_b prod_{l not in S_k} k_l(b_l, x_il) for the coalitions S_k: (c, n)."""
    absent = job.absent
    (c, d), n = absent.shape, len(job.X_train)
    # rows per block: the products (c, rows, n) stay near the cache -- each feature's pass over
    # them reads and writes them again (measured 2-3x faster than one block of 58 MB)
    step = max(1, min(job.max_elements // (n * (c + d)), _ABSENT_BLOCK_ELEMENTS // (c * n)))
    out = np.zeros((c, n))
    block = np.empty((c, min(step, len(B)), n))   # one buffer for every block: no new pages per block
    for rows, G in _gram_blocks(job.kernel, B, job.X_train, step):
        P = block[:, :rows.stop - rows.start]
        P.fill(1.0)
        for l in range(d):
            sel = absent[:, l]
            if sel.any():
                P[sel] *= G[None, :, :, l]
        out += np.ones(P.shape[1]) @ P  # sum over the block's background rows (BLAS)
    return out


def split_sum_expansion(
    expansion, fold_constants=False, return_scales=False
) -> list[KernelExpansion] | tuple[list[KernelExpansion], list[float], float]:
    """The expansions with product kernels whose sum is an expansion with a SumKernel.

    f(x) = sum_i alpha_i sum_r c_r k_r(x, x_i) + b is the sum over r of
    f_r(x) = sum_i (c_r alpha_i) k_r(x, x_i), the intercept b going with the
    first. With ``fold_constants`` a ``Constant`` summand (k_r = 1) is folded
    into that intercept as c_r sum_i alpha_i -- right for games in which it is
    the same constant in every coalition (the interventional game), not for
    the functional baseline, whose empty coalition it may leave (normalised).

    Returns
    -------
    list of KernelExpansion
        With ``return_scales``: ``(expansions, scales, folded)``, the part r
        having coefficients scales[r] * alpha and ``folded`` the total weight c
        of the folded Constant summands (their contribution c sum_i alpha_i).
    """
    kernel, alpha = expansion.kernel, expansion.alpha
    terms = [(w, k) for w, k in kernel.terms if w != 0.0]
    varying = [t for t in terms if not isinstance(t[1], Constant)]
    folded = 0.0
    parts = []
    for w, k in terms:
        if fold_constants and varying and isinstance(k, Constant):
            folded += w
            continue
        parts.append((w, k))
    if not parts:
        parts = [(0.0, Constant())]
    constant = folded * float(alpha.sum())
    expansions = [KernelExpansion(expansion.X_train, w * alpha, k,
                                  (expansion.intercept + constant) if r == 0 else 0.0,
                                  feature_names=feature_names_in(expansion),
                                  holds_training_inputs=expansion.holds_training_inputs,
                                  source=expansion.source)
                  for r, (w, k) in enumerate(parts)]
    if return_scales:
        return expansions, [w for w, _ in parts], folded
    return expansions


class SumOfKernelGames(SumOfProductGames, LinearInCoefficients):
    """The game of an expansion with a SumKernel: the sum of its summands' product games.

    Also linear in the model's coefficients: with the summand r having
    coefficients c_r alpha, v(S) = sum_r c_r M^r_S alpha + c_0 1 1' alpha + b,
    where M^r_S are the summands' coefficient matrices and c_0 the weight of
    Constant summands folded into the intercept.
    """

    def __init__(self, games, scales, folded, *, player_names=None, data=None, meta=None):
        super().__init__(games, player_names=player_names, data=data, meta=meta)
        self.scales, self.folded = [float(c) for c in scales], float(folded)

    def coefficient_matrices(self, coalitions, weights=None) -> np.ndarray:
        """sum_r c_r M^r_S (+ c_0 on every entry): (c, n_x, n_train), or (q, n_x, n_train) with weights."""
        z, _ = self._check_coalitions(coalitions)
        out = None
        for game, c in zip(self.games, self.scales):
            M = c * game.coefficient_matrices(z, weights)
            out = M if out is None else out + M
        if self.folded != 0.0:
            W = np.ones(len(z)) if weights is None else np.asarray(weights, dtype=float).sum(axis=0)
            if weights is None:
                out = out + self.folded
            else:
                out = out + self.folded * W[:, None, None]
        return out

    def grouped(self, groups, names=None) -> ProductGame:
        return SumOfProductGames.grouped(self, groups, names)


def linear_interventional_game(expansion, background, X, player_names, meta=None) -> ProductGame:
    """The interventional game of a linear-kernel expansion in closed form, as a product game.

    With k(x, x') = x . x' the model is f(x) = w . x + b, w = sum_i alpha_i x_i,
    and its interventional game is additive:
    v(S) = b + sum_{j in S} w_j x_j + sum_{j not in S} w_j mean_b b_j. That is
    a :class:`~kernelxai.games.ProductGame` with d + 1 terms -- term j has
    factor w_j x_j (present) / w_j mean_b b_j (absent) on feature j and 1
    elsewhere, the last term is the intercept -- so ``"product"`` and
    ``"exact"`` are both exact and phi_j = w_j (x_j - mean_b b_j).
    """
    n, d = X.shape
    w = expansion.X_train.T @ expansion.alpha
    a = np.ones((n, d + 1, d))
    c = np.ones((1, d + 1, d))
    idx = np.arange(d)
    a[:, idx, idx] = X * w
    c[0, idx, idx] = background.mean(axis=0) * w
    weights = np.concatenate([np.ones(d), [expansion.intercept]])[None, :]
    return ProductGame(a, c, weights, n_instances=n, player_names=player_names, data=X, meta=meta)



class InterventionalGame(ProductGame, LinearInCoefficients, HasUnitGames):
    """The interventional game of a product-kernel expansion, for the rows of X.

    Coalition worths come from kernel mean embeddings (RKHS-SHAP Prop. 3):
    when at least a quarter of all 2**d coalitions is requested (and d <= 16)
    the worths of all coalitions are tabulated once, with subset products
    built by a doubling recursion (O((m + n_x) n 2**d) multiplications);
    otherwise the requested coalitions are evaluated directly. Terms for the
    polynomial-time estimator come from :meth:`iter_terms`.
    """

    def __init__(self, expansion, background, X, player_names, *, max_elements=None,
                 progress=False):
        super().__init__(n_players=X.shape[1], n_instances=len(X), player_names=player_names, data=X,
                         meta={"value_function": "interventional", "kernel": repr(expansion.kernel),
                               "n_background": len(background), "n_train": len(expansion.X_train)})
        self.expansion, self.background, self.X = expansion, background, X
        self.max_elements = working_elements(2) if max_elements is None else int(max_elements)
        self.progress = progress
        self._table = None
        self._kx_term_cache = None   # (A, C) of a small game: see iter_terms

    # -------------------------------------------------------------- cost model
    def n_terms(self) -> int:
        """One term per (training point, background point), plus the intercept unless it is 0."""
        return len(self.expansion.X_train) * len(self.background) + (self.expansion.intercept != 0.0)

    def evaluation_flops(self, n_coalitions) -> float:
        """Tabulating all 2**d worths costs ~(m + 2 n_x + 8) n 2**d; single coalitions ~1.5 (m + n_x) n d each.

        The table's 8 n 2**d besides its rows and points: passes over arrays of all subsets by
        training point, whatever m and n_x -- zeroing and adding up the sums, their transposed
        copy, the division by m, the complements' gather and the product with alpha (at
        d = 10 and n = 383, 3 MB each, a third of a 3-point call's time).
        """
        d, n, m, nx = self.n_players, len(self.expansion.X_train), len(self.background), self.n_instances
        # coalitions one by one: per feature, the products of the coalitions that hold it (half
        # of them on average) are gathered, multiplied and written back -- 3 passes over half
        direct = float(n_coalitions) * (m + nx) * n * (1.5 * d + 2)
        if d <= TABLE_MAX_PLAYERS and 4 * n_coalitions >= 2**d:
            # and the first touch of its two new 2**d x n arrays (the sums, the weights) when
            # they are too large for the memory the allocator reuses (kernelxai._memory)
            return min(direct, float(m + 2 * nx + _TABLE_PASSES) * n * 2**d + 2.0**d * d * (m + nx)
                       + fresh_numbers(2.0 * n * 2**d, n * 2**d))
        return direct

    def evaluation_work(self, n_coalitions) -> Work:
        """:meth:`evaluation_flops` as elementwise work, and the mean embeddings' set-up: the
        background's reduction runs in parts on the workers (a pool of threads per call)."""
        return Work(flops=self.evaluation_flops(n_coalitions), steps=400.0)

    def cost_advice(self) -> list[str]:
        return [f"a smaller or summarised background (background=..., now {len(self.background)} rows)",
                f"fewer explained points per call (now {self.n_instances})"]

    # -------------------------------------------------------------- KME route
    def _evaluate(self, z):
        d = self.n_players
        # batched matrix-vector products: threaded BLAS only adds synchronisation here
        with single_threaded_blas():
            if self._table is None and d <= TABLE_MAX_PLAYERS and 4 * len(z) >= 2**d \
                    and 2**d * self.n_instances <= 4 * self.max_elements:
                self._table = self.worth_table()
            if self._table is not None:
                return self._table[coalitions_to_bitmasks(z)]
            uniq, inverse = np.unique(z, axis=0, return_inverse=True)
            return self._worths(uniq)[inverse.ravel()]

    def _grams(self, A, rows_per_block):
        """Yield (rows, G) with G[a, i, l] = k_l(A[a, l], x_il), in blocks of rows of A."""
        return _gram_blocks(self.expansion.kernel, A, self.expansion.X_train, rows_per_block)

    def _embedding(self, absent):
        """(1/m) sum_b of the products over the background (see :class:`_EmbeddingSums`).

        A reduction over the background's rows (:func:`kernelxai.parallel.reduce_rows`):
        in parts, run on the workers of ``kx.explain(n_jobs=...)`` or a Dask cluster, added
        in part order -- the same bits wherever the parts run.
        """
        job = _EmbeddingSums(self.expansion.kernel, self.expansion.X_train, absent, self.max_elements)
        fn = _subset_sums if absent is None else _absent_sums
        total = reduce_rows(fn, self.background, shared=job, row_flops=job.row_flops(self.n_players),
                            progress=self.progress or None, desc="mean embeddings", fresh=True)
        total /= len(self.background)
        return total

    def worth_table(self) -> np.ndarray:
        """Worths of all 2**d coalitions, shape (2**d, n_x), indexed by bitmask.

        v(s)(x_a) = sum_i alpha_i mu_{s^c}(x_i) K_s(x_a, x_i) + b, with K_s the product
        of the two halves' subset products (see :func:`_subset_sums`): per explained
        point one multiplication of the weights by the low half's products and one
        batch of matrix-vector products with the high half's -- about 2 * 2**d * n
        operations per point, the arithmetic of the table itself.
        """
        d, n, nx = self.n_players, len(self.expansion.X_train), self.n_instances
        low, high = _halves(d)
        size = 2**d
        mu = self._embedding(None)  # mu[s, i] = (1/m) sum_b prod_{l in s} k_l(b_l, x_il)
        # W[s_high, s_low, i] = alpha_i mu_{S^c}(x_i) with s = s_low + 2**low s_high; the
        # complement of s is size - 1 - s: mu read backwards, into one new array (large
        # temporaries cost their first touch, several times their arithmetic on a VM)
        W = np.multiply(mu[::-1], self.expansion.alpha[None, :], order="C").reshape(2**high, 2**low, n)
        V = np.empty((2**high, 2**low, nx))
        # explained points per block, and high-half subsets per block when one point's products
        # alone would leave the cache: the block's products Y stay in cache (and are not a new
        # 2**d x n array, whose first touch costs more than its arithmetic on a virtual machine)
        k_max = max(1, min(nx, _POINT_BLOCK_ELEMENTS // (size * n)))
        h_max = max(1, min(2**high, _POINT_BLOCK_ELEMENTS // (k_max * 2**low * n)))
        Y = np.empty((h_max, k_max, 2**low, n))
        step = max(k_max, min(nx, self.max_elements // (n * (2**low + 2**high + 3 * d))))
        for rows, G in self._grams(self.X, step):
            F = G.transpose(2, 0, 1).copy()                  # F[l, a, i] = k_l(x_al, x_il)
            Q_low = _subset_products(F[:low], np.empty((2**low,) + F.shape[1:])).transpose(1, 0, 2)
            Q_high = _subset_products(F[low:], np.empty((2**high,) + F.shape[1:]))[..., None]
            for a0 in range(0, len(F[0]), k_max):
                k = min(k_max, len(F[0]) - a0)
                for h0 in range(0, 2**high, h_max):
                    h = min(h_max, 2**high - h0)
                    # Y[s_high, a, s_low, i] = W[s_high, s_low, i] K_{s_low}(x_a, x_i), then the sums
                    # over i with K_{s_high}(x_a, x_i): one matrix-vector product per (s_high, a)
                    np.multiply(W[h0:h0 + h, None], Q_low[None, a0:a0 + k], out=Y[:h, :k])
                    part = np.matmul(Y[:h, :k], Q_high[h0:h0 + h, a0:a0 + k])[..., 0]   # (h, k, 2**low)
                    V[h0:h0 + h, :, rows.start + a0:rows.start + a0 + k] = part.transpose(0, 2, 1)
        return V.reshape(size, nx) + self.expansion.intercept

    def _worths(self, z):
        """Worths of the (distinct) coalitions z, shape (len(z), n_x)."""
        step = self._step(len(z))
        weights = self.expansion.alpha[None, :] * self._absent_embeddings(z)
        out = np.empty((len(z), self.n_instances))
        for rows, P in self._present_products(z, step):
            out[:, rows] = np.matmul(P, weights[:, :, None])[..., 0]
        return out + self.expansion.intercept

    def _step(self, nc):
        return max(1, self.max_elements // (len(self.expansion.X_train) * (nc + self.n_players)))

    def _absent_embeddings(self, z):
        """mu[k, i] = (1/m) sum_b prod_{l not in S_k} k_l(b_l, x_il): the KME of the absent features."""
        return self._embedding(~np.asarray(z, dtype=bool))

    def _present_products(self, z, step):
        """Yield (rows, P) with P[k, a, i] = K_{S_k}(x_a, x_i), in blocks of explained points."""
        d, n = self.n_players, len(self.expansion.X_train)
        for rows, G in self._grams(self.X, step):
            P = np.ones((len(z), rows.stop - rows.start, n))
            for l in range(d):
                sel = z[:, l]
                if sel.any():
                    P[sel] *= G[None, :, :, l]
            yield rows, P

    def coefficient_matrices(self, coalitions, weights=None) -> np.ndarray:
        """The worths as linear maps of alpha: v(S)(x_a) = (M_S @ alpha)[a] + intercept.

        RKHS-SHAP Prop. 3: M_S[a, i] = K_S(x_a, x_i) mu_{S^c}(x_i). Weighted
        sums of these matrices are how Shapley functionals become representer
        matrices (:mod:`kernelxai.functionals`).

        Parameters
        ----------
        coalitions : bool array (c, d)
        weights : array (c, q), optional
            If given, return sum_k weights[k, r] M_{S_k} for each column r
            instead of the c matrices themselves.

        Returns
        -------
        ndarray (c, n_x, n_train), or (q, n_x, n_train) with ``weights``
        """
        z, _ = self._check_coalitions(coalitions)
        uniq, W = distinct_coalition_weights(z, weights)
        step = self._step(len(uniq))
        C = W.T[:, :, None] * self._absent_embeddings(uniq)[None]   # (q, c, n)
        out = np.empty((W.shape[1], self.n_instances, len(self.expansion.X_train)))
        for rows, P in self._present_products(uniq, step):
            out[:, rows] = np.einsum("cai,qci->qai", P, C)
        return out

    def unit_game(self) -> ProductGame:
        """The interventional games of the unit models k(., x_i), one per (training point, explained point).

        A :class:`~kernelxai.games.ProductGame` with n_train * n_x instances,
        instance i * n_x + a being the game of f = k(., x_i) at x_a: its
        Shapley values are the representer entries R_j[a, i] (RKHS-SHAP
        Prop. 5), available in polynomial time with ``method="product"``.
        """
        return _UnitInterventionalGame(self)

    # ---------------------------------------------------------- product route
    def term_work(self) -> Work:
        """Kernel factors of (point, training point) and (training point, background row) pairs,
        and the copies that pair each point's factors with every background row."""
        d, n, m, nx = self.n_players, len(self.expansion.X_train), len(self.background), self.n_instances
        return Work(flops=kernel_factors(float(nx * n + n * m) * d) + arithmetic_passes(4.0 * nx * n * m * d)
                    + fresh_numbers(float(nx * n * m * d), min(nx * n * m * d, working_elements(8))))

    def iter_terms(self, max_elements=None) -> Iterator[tuple[slice, np.ndarray, np.ndarray, np.ndarray]]:
        """Terms (i, b): a = k(x, x_i) per feature, c = k(b, x_i) per feature, w = alpha_i / m.

        Plus one constant term (a = c = 1) carrying the intercept, unless it is 0. Blocks hold
        about ``max_elements`` numbers: instances x training points x
        background points x features.
        """
        exp, B, X = self.expansion, self.background, self.X
        d, n, m, nx = self.n_players, len(exp.X_train), len(B), self.n_instances
        kernel = exp.kernel
        if max_elements is None:
            max_elements = working_elements(8)
        if exp.intercept != 0.0:
            yield (slice(0, nx), np.array([[exp.intercept]]), np.ones((1, 1, d)), np.ones((1, 1, d)))
        max_terms = max(1, max_elements // d)
        mb = min(m, max_terms)
        ni = max(1, min(n, max_terms // mb, max_elements // (nx * d)))
        cx = max(1, min(nx, max_elements // (ni * mb * d)))
        # a small game forms its factors once, whatever the blocks asked for: the product
        # route's node-count probe reads its first terms before the route sums them all
        if (nx * n + n * m) * d <= SMALL_TERMS and self._kx_term_cache is None:
            A_all, C_all = kernel.feature_grams(X, exp.X_train), kernel.feature_grams(exp.X_train, B)
            A_all.flags.writeable = C_all.flags.writeable = False
            self._kx_term_cache = (A_all, C_all)
        cached = self._kx_term_cache
        for i0 in range(0, n, ni):
            ib = slice(i0, min(n, i0 + ni))
            Xi = exp.X_train[ib]
            k_i = ib.stop - ib.start
            A = kernel.feature_grams(X, Xi) if cached is None else cached[0][:, ib]  # (nx, k_i, d)
            for b0 in range(0, m, mb):
                bb = slice(b0, min(m, b0 + mb))
                k_b = bb.stop - bb.start
                C = kernel.feature_grams(Xi, B[bb]) if cached is None else cached[1][ib, bb]
                C = C.reshape(1, k_i * k_b, d)  # rows (i, b); a copy when sliced from the cache
                w = np.repeat(exp.alpha[ib] / m, k_b)[None, :]
                for x0 in range(0, nx, cx):
                    xb = slice(x0, min(nx, x0 + cx))
                    a = np.repeat(A[xb], k_b, axis=1)  # (cx, k_i * k_b, d), rows (i, b)
                    yield xb, w, a, C

    def grouped(self, groups, names=None) -> GroupedProductGame:
        """Groups as players: product terms multiply within groups, worths via the KME route."""
        return _GroupedInterventionalGame(self, groups, names)


class _UnitInterventionalGame(ProductGame):
    """See :meth:`InterventionalGame.unit_game`: terms b with a = k(x_a, x_i), c = k(b, x_i), w = 1/m."""

    def __init__(self, game):
        n, nx = len(game.expansion.X_train), game.n_instances
        super().__init__(n_players=game.n_players, n_instances=n * nx, player_names=game.player_names,
                         meta={"value_function": "interventional unit models"})
        self.source = game

    def n_terms(self):
        return len(self.source.background)

    def iter_terms(self, max_elements=None):
        if max_elements is None:
            max_elements = working_elements(8)
        g = self.source
        kernel, Xt, B, X = g.expansion.kernel, g.expansion.X_train, g.background, g.X
        n, nx, m, d = len(Xt), g.n_instances, len(B), g.n_players
        w = np.full((1, m), 1.0 / m)
        per_point = nx * m * d
        ni = max(1, max_elements // per_point)
        cx = nx if ni > 1 else max(1, min(nx, max_elements // (m * d)))
        for i0 in range(0, n, ni):
            ib = slice(i0, min(n, i0 + ni))
            C = kernel.feature_grams(Xt[ib], B)                        # (k, m, d)
            A = kernel.feature_grams(Xt[ib], X)                        # (k, nx, d)
            for x0 in range(0, nx, cx):
                xb = slice(x0, min(nx, x0 + cx))
                k, kx = ib.stop - ib.start, xb.stop - xb.start
                a = A[:, xb].reshape(k * kx, 1, d)
                c = np.repeat(C, kx, axis=0) if kx > 1 else C
                if k == 1:
                    yield slice(i0 * nx + x0, i0 * nx + x0 + kx), w, a, c
                else:  # whole rows of explained points: instances i * nx + a are contiguous
                    yield slice(i0 * nx, ib.stop * nx), w, a, c


class _GroupedInterventionalGame(GroupedProductGame):
    def __init__(self, game, groups, names):
        super().__init__(game, groups, names)
        self._membership = group_membership(self.groups, game.n_players).astype(np.int64)

    def _evaluate(self, coalitions):
        return self.game(coalitions.astype(np.int64) @ self._membership > 0)


@register("interventional")
class Interventional(ValueFunction, EmbeddingValueFunction):
    r"""Interventional value function of a kernel model (RKHS-SHAP Prop. 3, KME).

    :math:`\nu_I(x, S) = \mathbb{E}_b\big[f(x_S, b_{S^c})\big]` over the background sample, computed for
    product kernels from kernel mean embeddings as
    :math:`\sum_i \alpha_i K_S(x, x_i)\, \mu_{S^c}(x_i) + b`. The result is exactly the
    model-agnostic interventional game of :class:`~kernelxai.values.Marginal`
    (and of shap's KernelExplainer with the same background).

    Parameters
    ----------
    model : KernelExpansion or anything :func:`kernelxai.models.as_expansion` accepts
    background : array (m, d), m >= 2, optional
        Default: the model's training inputs (as in the paper).
    groups, group_names : optional
        Players as groups of features (the product structure is kept).
    max_elements : int
        Memory budget (float64 elements) of one block of intermediate arrays.
    progress : bool
        Show a progress bar while tabulating coalition worths.

    Notes
    -----
    A :class:`~kernelxai.kernels.SumKernel` (sums of product kernels, e.g. a
    Gaussian process with ``C1 * RBF + C2 * RBF``) gives the sum of the
    interventional games of its product-kernel summands
    (:class:`~kernelxai.games.SumOfProductGames`): exact on ``"product"`` and
    ``"exact"``. The :class:`~kernelxai.kernels.Linear` kernel gives the
    additive game of the linear model in closed form (a product game with
    :math:`d + 1` terms).

    Other non-product kernels (e.g. :class:`~kernelxai.kernels.Matern`,
    scikit-learn's ``"poly"`` or ``RationalQuadratic``) have no
    mean-embedding factorisation; their interventional game is evaluated by
    calling the model on the synthetic points :math:`(x_S, b_{S^c})` -- the same game,
    at the model-agnostic cost (``meta["route"] == "model calls"``).

    ``kx.explain(method="auto")`` asks the estimators for their cost: for
    product kernels, ``"exact"`` (tabulating all coalitions through the mean
    embeddings, about :math:`(m + 2 n_x)\, n\, 2^d` operations) when :math:`d \le 12` and that is
    cheaper than ``"product"`` (about :math:`n_x n m d (17 + 5 q)`, :math:`q \le \lceil d/2 \rceil` the
    quadrature nodes it would use on the first terms); otherwise
    ``"product"``. Both are exact and agree to rounding, so the choice only
    picks the cheaper route: at the paper's runtime setting (d = 2)
    tabulation is ~100x cheaper, at d = 100 only the product route is
    feasible. Non-product kernels: ``"exact"`` up to 12 features, else
    ``"kernel"``.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20, 3)); y = X[:, 0] + X[:, 1] * X[:, 2]
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, y)
    >>> vf = kx.values.Interventional(model, background=X)
    >>> e = kx.shapley_values(vf.game(X[:2]))
    >>> np.round(e.values, 4)
    array([[ 0.1503, -0.1519, -0.0805],
           [ 0.1461, -0.1231, -0.0845]])

    The same game by model calls (:class:`~kernelxai.values.Marginal`):

    >>> calls = kx.values.Marginal(model.predict, background=X).game(X[:2])
    >>> bool(np.allclose(kx.shapley_values(calls).values, e.values))
    True
    """

    name = "interventional (KME)"

    def __init__(self, model: Any, background: ArrayLike | None = None, *,
                 groups: Sequence[Sequence[int | str]] | None = None, group_names: Sequence[str] | None = None,
                 max_elements: int | None = None, progress: bool = False) -> None:
        self.model = as_expansion(model)
        bg = default_background(self.model, background)
        self.background = check_background(bg, self.model.n_features,
                                           feature_names=feature_names_in(self.model))
        # an unnamed model: the background's columns, if it was a DataFrame, are what X must match
        self.background_names = feature_names_in(bg) if feature_names_in(self.model) is None else None
        self.max_elements = None if max_elements is None else check_max_elements(max_elements)
        self.progress = bool(progress)
        self._set_groups(groups, group_names)

    @property
    def is_product(self) -> bool:
        return bool(self.model.kernel.is_product)

    def _game(self, X):
        X, names = check_points(X, self.model.n_features, self.model.feature_names)
        if self.is_product:
            return InterventionalGame(self.model, self.background, X, names,
                                      max_elements=self.max_elements, progress=self.progress)
        kernel = self.model.kernel
        meta = {"value_function": "interventional", "kernel": repr(kernel),
                "n_background": len(self.background), "n_train": len(self.model.X_train)}
        if getattr(kernel, "is_sum_of_products", False):
            parts, scales, folded = split_sum_expansion(self.model, fold_constants=True,
                                                        return_scales=True)
            games = [InterventionalGame(part, self.background, X, names, max_elements=self.max_elements,
                                        progress=self.progress)
                     for part in parts]
            meta["route"] = "sum of product games (kernel mean embeddings of each product kernel)"
            return SumOfKernelGames(games, scales, folded, player_names=names, data=X, meta=meta)
        if isinstance(kernel, Linear):
            meta["route"] = "closed form (linear model: additive game, phi_j = w_j (x_j - mean_b b_j))"
            return linear_interventional_game(self.model, self.background, X, names, meta)
        return MarginalGame(self.model.predict, X, self.background, names, progress=self.progress,
                            point_flops=flops_per_point(self.model, X.shape[1]),
                            meta={"value_function": "interventional", "kernel": repr(self.model.kernel),
                                  "n_background": len(self.background), "route": "model calls"})

    def __repr__(self):
        return f"Interventional(model={self.model!r}, background={len(self.background)} rows)"
