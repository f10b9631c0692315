"""Observational Shapley values of kernel models via conditional mean embeddings.

RKHS-SHAP Prop. 3. With the model f(x) = sum_i alpha_i k(x, x_i) + b
(training points x_i, i = 1..n) and a sample B = b_1..b_m to fit the
conditional mean embedding on (the training inputs by default, as in the paper),
the product-kernel estimator of E[f(X) | X_S = x_S] is

    nu_O(x, S) = b + sum_i alpha_i K_S(x_i, x) [K_{S^c}(x_i, B) Gamma_S(x)]_i,
    Gamma_S(x) = (K_S(B, B) + m eta I)^{-1} K_S(B, x),

i.e. alpha' [K_S(X, x) * Xi_S K_S(X, x)] with Xi_S = K_{S^c}(X, B)(K_S(B, B) + m eta I)^{-1}
-- the n*eta scaling of the paper (n = m by default). For non-product kernels
(supplement App. C, eq. (8)) the embedding of the whole feature map is
regressed on k_S, a kernel of the same form on the coordinates in S:

    nu_O(x, S) = b + k_S(x, B) (K_S(B, B) + m eta I)^{-1} (f(B) - b).

As in the paper's reference implementation, v(empty) is set to the mean of f
over B and v(D) to f(x), so the Shapley values are exactly efficient. Each
linear system is factorised by Cholesky; if that fails (eta far too small for
the conditioning of K_S) jitter is added with a warning -- never a silent NaN.
From ``WALK_ROWS`` background rows on, the exact forms build each K_S(B, B) with
one elementwise product along a walk of the coalition lattice and factorise it
in place: about one Cholesky per coalition, the floor of the exact CME.

For large m a Nystrom variant (``landmarks=``) replaces K_S(B, B) by
Phi_S Phi_S' with Phi_S = K_S(B, L) K_S(L, L)^{-1/2} on landmark points L and
solves by Woodbury, O(m p^2) per coalition for p landmarks, keeping the same
m*eta scaling (a reference implementation silently drops the m; this one does not).

The file is one algorithm -- the CME game and its exact, lattice and Nystrom
routes share the game's state and its cost model -- hence a little over 600 lines.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING

import numpy as np
from scipy import linalg as sla
from scipy.linalg import lapack

from .._calibration import Work, arithmetic_passes, threaded_blas
from .._config import working_elements
from .._linalg import cholesky_jitter
from .._threads import SMALL_SYSTEM, single_threaded_blas, small_blas
from .._validation import (
    check_choice,
    check_matrix,
    check_positive_int,
    check_rng,
    feature_names_in,
)
from ..estimators._common import progress_bar, progress_iter
from ..games import Game, LinearInCoefficients
from ..kernels import CoalitionGrams, Matern, ProductKernel, SumKernel
from ..kernels._coalition_grams import LatticeGrams, lattice_walk
from ..models.convert import as_expansion
from ._agnostic import check_background, check_max_elements, check_points
from ._base import (
    EmbeddingValueFunction,
    ValueFunction,
    default_background,
    distinct_coalition_weights,
    register,
)

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["Observational", "ObservationalGame"]

#: Relative eigenvalue threshold of the Nystrom pseudo-inverse square root.
NYSTROM_RTOL = 1e-10

#: From this many background rows on, exact CME Grams are built along the coalition lattice
#: (one elementwise pass per coalition, one in-place Cholesky); below, batched from cached tensors.
#: Measured: at m = 200 the walk took half the batched route's time for one point and 0.6-0.7x
#: for 100 (d = 6, 8); at m = 100 the batched route was faster, at m = 150 they were even.
WALK_ROWS = 150

def _numpy_side_blas(m):
    """NumPy's BLAS on one thread beside SciPy's factorisations of large systems (m >= SMALL_SYSTEM).

    NumPy and SciPy bundle one OpenBLAS each: while SciPy factorises a large system on every
    thread, NumPy's idle pool must not spin (see LatticeGrams.matmul). Small systems run both
    on one thread anyway (small_blas); then this does nothing.
    """
    return single_threaded_blas(enabled=m >= SMALL_SYSTEM)


CME_SYSTEM = "K_S + m eta I"
CME_ADVICE = "increase eta (the CME regularisation) or check the kernel and data for NaN"


def _pinv_sqrt(W):
    """R with R R' = W^+ (pseudo-inverse), from eigenvalues above NYSTROM_RTOL * max."""
    lam, V = np.linalg.eigh(W)
    keep = lam > NYSTROM_RTOL * max(lam.max(), 0.0)
    if not keep.any():
        return np.zeros((len(W), 1))
    return V[:, keep] / np.sqrt(lam[keep])


class ObservationalGame(Game, LinearInCoefficients):
    """The observational (CME) game of a kernel expansion for the rows of X.

    Parameters are validated by :class:`Observational`; ``form`` is
    ``"product"`` (Prop. 3) or ``"regression"`` (App. C), ``landmarks`` None
    or an array of Nystrom landmark points.
    """

    def __init__(self, expansion, background, X, player_names, *, eta, form, landmarks=None,  # noqa: PLR0913 - internal game: the arrays its value function checked, handed over once
                 max_elements=None, progress=False):
        meta = {"value_function": "observational", "kernel": repr(expansion.kernel), "eta": eta,
                "form": form, "n_background": len(background),
                "landmarks": None if landmarks is None else len(landmarks)}
        super().__init__(X.shape[1], player_names, len(X), X, meta)
        self.expansion, self.background, self.X = expansion, background, X
        self.eta, self.form, self.landmarks = eta, form, landmarks
        self.max_elements = working_elements() if max_elements is None else int(max_elements)
        self.progress = progress
        self.ridge = len(background) * eta  # the m*eta of K_S + m eta I
        self._f_background = expansion.predict(background)
        self._v_empty = float(self._f_background.mean())
        self._v_full = expansion.predict(X)
        self._caches = None

    # -------------------------------------------------------------- cost model
    def evaluation_flops(self, n_coalitions) -> float:
        """Per inner coalition: a Cholesky of an m x m (or landmark) system and products with n_x, n."""
        m, nx, n = len(self.background), self.n_instances, len(self.expansion.X_train)
        if self.landmarks is not None:
            p = len(self.landmarks)
            per = 2.0 * m * p * p + p**3 / 3 + 2.0 * (m + nx + n) * p * self.n_players
        else:
            per = m**3 / 3 + 2.0 * m * m * (nx + self.n_players) + 4.0 * n * m * nx
        return float(n_coalitions) * per

    def evaluation_work(self, n_coalitions) -> Work:
        """The work of ``n_coalitions`` inner coalitions by kind, for the route this game takes.

        Exact forms: per coalition one Cholesky factorisation of the m x m system (m^3 / 3) and
        its solve for the n_x points (2 m^2 n_x), and for the product form the m x n_train
        product with the other Gram (2 m n n_x) -- dense linear algebra; the Grams themselves
        are elementwise work: one product per coalition along the lattice walk (m >= WALK_ROWS),
        else d factors per Gram. Nystrom: as :meth:`evaluation_flops`, elementwise.
        """
        m, nx, n, d = len(self.background), self.n_instances, len(self.expansion.X_train), self.n_players
        c = float(n_coalitions)
        if self.landmarks is not None:
            # per coalition ~10 numpy and LAPACK calls on small matrices (eigendecomposition, solves)
            return Work(flops=self.evaluation_flops(n_coalitions), steps=40.0 * c)
        product = self.form == "product"
        blas = m**3 / 3.0
        # the solves and products with the n_x points: BLAS-3 for many points; for a few they
        # stream the m x m factor once per point, at about the rate of plain arithmetic passes
        thin = 2.0 * m * m * nx + (2.0 * m * n * nx if product else 0.0)
        if nx >= 16:
            blas += thin
            thin = 0.0
        thin = arithmetic_passes(thin)
        if m >= SMALL_SYSTEM:   # systems this large run on every BLAS thread (small_blas)
            blas = threaded_blas(blas)
        walks = (m >= WALK_ROWS and LatticeGrams.supports(self.expansion.kernel)
                 and LatticeGrams.elements(m, m, d, True, d) <= self.max_elements)
        if walks:
            elementwise = 2.0 * m * m + (m + (n if product else 0)) * nx * d + 2.0 * m * nx + thin
            steps = 16.0
        else:
            elementwise = (m * m + m * nx + (n * m + n * nx if product else 0)) * d + m * m + thin
            steps = 8.0
        return Work(flops=c * elementwise, blas_flops=c * blas, steps=c * steps)

    def cost_advice(self) -> list[str]:
        advice = [f"a smaller conditioning sample (background=..., now {len(self.background)} rows)"]
        if self.landmarks is None:
            advice.append("Nystrom landmarks (landmarks=200) for the conditional mean embeddings")
        return advice

    # ------------------------------------------------------------------ driver
    def _evaluate(self, z):
        uniq, inverse = np.unique(z, axis=0, return_inverse=True)
        out = np.empty((len(uniq), self.n_instances))
        inner = []
        for k, S in enumerate(uniq):
            if S.all():
                out[k] = self._v_full
            elif not S.any():
                out[k] = self._v_empty
            else:
                inner.append(k)
        if inner:
            size = len(self.background) if self.landmarks is None else len(self.landmarks)
            with small_blas(size):
                out[inner] = self._inner(uniq[inner])
        return out[inverse.ravel()]

    def _inner(self, Z):
        if self.landmarks is not None:
            return self._nystrom(Z)
        walked = self._walk(Z)
        if walked is not None:
            return walked
        if self.form == "product":
            out = np.empty((len(Z), self.n_instances))
            for rows, _, M in self._prop3_blocks(Z):
                out[rows] = np.einsum("i,cix->cx", self.expansion.alpha, M)
            return out + self.expansion.intercept
        m, nx, d = len(self.background), self.n_instances, self.n_players
        if (m * m + nx * m) * d <= self.max_elements:
            return self._batched(Z, m * m + nx * m)
        return self._one_by_one(Z)

    def _batches(self, Z, per_coalition):
        step = max(1, self.max_elements // (2 * max(1, per_coalition)))
        starts = range(0, len(Z), step)
        return progress_iter([slice(s, min(len(Z), s + step)) for s in starts], "CME coalitions",
                             progress=self.progress or None)

    def _cached_grams(self):
        if self._caches is None:
            exp, B, X, k = self.expansion, self.background, self.X, self.expansion.kernel
            c = {"BB": CoalitionGrams(k, B), "BX": CoalitionGrams(k, B, X)}
            if self.form == "product":
                same = exp.X_train.shape == B.shape and np.array_equal(exp.X_train, B)
                c["TB"] = c["BB"] if same else CoalitionGrams(k, exp.X_train, B)
                c["TX"] = CoalitionGrams(k, exp.X_train, X)
            self._caches = c
        return self._caches

    # ------------------------------------------------- product form (Prop. 3)
    def _prop3_blocks(self, Z, matrices=True):
        """Yield (rows, gamma, M) for batches of the inner coalitions Z (RKHS-SHAP Prop. 3).

        gamma[k] = (K_S(B, B) + m eta I)^{-1} K_S(B, X), shape (m, n_x): the CME
        weights of the background rows; M[k] = K_S(X_train, X) * (K_{S^c}(X_train, B) gamma[k]),
        shape (n_train, n_x), so that v(S)(x) = b + alpha @ M[k][:, x]. With the
        per-feature tensors cached (when they fit in ``max_elements``) coalitions
        are processed in batches, otherwise one at a time in O(m^2) memory.
        M is None when ``matrices`` is False.
        """
        exp, B, X = self.expansion, self.background, self.X
        kernel, m, n, nx, d = exp.kernel, len(B), len(exp.X_train), self.n_instances, self.n_players
        if (m * m + m * nx + n * m + n * nx) * d <= self.max_elements:
            c = self._cached_grams()
            for rows in self._batches(Z, m * m + m * nx + 2 * n * m + 2 * n * nx):
                S = Z[rows]
                K = c["BB"](S)
                K[:, np.arange(m), np.arange(m)] += self.ridge
                L = cholesky_jitter(K, CME_SYSTEM, CME_ADVICE)
                del K
                gamma = sla.cho_solve((L, True), c["BX"](S))                        # (c, m, nx)
                M = None
                if matrices:
                    M = np.matmul(c["TB"](~S), gamma)                                  # (c, n, nx)
                    M *= c["TX"](S)
                yield rows, gamma, M
            return
        block = max(1, self.max_elements // 4)
        for k in progress_iter(range(len(Z)), "CME coalitions", progress=self.progress or None):
            S = Z[k]
            with _numpy_side_blas(m):
                K = kernel.coalition_gram(B, B, S, max_elements=block)
                KX = kernel.coalition_gram(B, X, S, max_elements=block)
            solve = self._factor_in_place(K, lambda S=S: kernel.coalition_gram(B, B, S, max_elements=block))
            gamma = solve(KX)
            del K, solve
            M = None
            if matrices:
                with _numpy_side_blas(m):
                    M = kernel.coalition_gram(exp.X_train, B, ~S, max_elements=block) @ gamma
                    M *= kernel.coalition_gram(exp.X_train, X, S, max_elements=block)
                M = M[None]
            yield slice(k, k + 1), gamma[None], M

    def cme_weights(self, coalitions) -> np.ndarray:
        """Weights of the background rows in the conditional mean embedding, per coalition.

        nu_O(x, S) = sum_b gamma_S(x)_b f(x_S, b_{S^c}) in the product form
        (RKHS-SHAP Prop. 3) with gamma_S(x) = (K_S(B, B) + m eta I)^{-1} K_S(B, x).
        The empty and the full coalition get uniform weights 1/m: v(empty) is
        the mean of f over the background and v(D) = f(x), as this game sets them.

        Returns
        -------
        ndarray (c, m, n_x)
        """
        if self.landmarks is not None or self.form != "product":
            raise ValueError("cme_weights is defined for the exact product form (form='product', "
                             "landmarks=None)")
        z, _ = self._check_coalitions(coalitions)
        m = len(self.background)
        out = np.full((len(z), m, self.n_instances), 1.0 / m)
        inner = np.flatnonzero(z.any(axis=1) & ~z.all(axis=1))
        if len(inner):
            uniq, inverse = np.unique(z[inner], axis=0, return_inverse=True)
            gam = np.empty((len(uniq), m, self.n_instances))
            for rows, gamma, _ in self._prop3_blocks(uniq, matrices=False):
                gam[rows] = gamma
            out[inner] = gam[inverse.ravel()]
        return out

    def coefficient_matrices(self, coalitions, weights=None) -> np.ndarray:
        """The worths as linear maps of alpha: v(S)(x_a) = (M_S @ alpha)[a] + intercept.

        Product form, RKHS-SHAP Prop. 3: M_S = [K_S(X_train, X) * (K_{S^c}(X_train, B) gamma_S)]^T;
        M_empty has every row equal to the mean of K(B, X_train) over the
        background (v(empty) = mean of f over B) and M_D = K(X, X_train)
        (v(D) = f(x)). Weighted sums of these matrices are the Shapley
        representers of :mod:`kernelxai.functionals`.

        Parameters
        ----------
        coalitions : bool array (c, d)
        weights : array (c, q), optional
            If given, return sum_k weights[k, r] M_{S_k} for each column r.

        Returns
        -------
        ndarray (c, n_x, n_train), or (q, n_x, n_train) with ``weights``
        """
        if self.landmarks is not None or self.form != "product":
            raise ValueError(
                "coefficient matrices (Shapley representers) of the observational value function are "
                "implemented for the exact product form (RKHS-SHAP Prop. 3): use a product kernel, "
                f"form='product' and landmarks=None; this game has form={self.form!r}"
                + ("" if self.landmarks is None else f" and {len(self.landmarks)} Nystrom landmarks"))
        z, _ = self._check_coalitions(coalitions)
        uniq, W = distinct_coalition_weights(z, weights)
        exp, B, X = self.expansion, self.background, self.X
        out = np.zeros((W.shape[1], self.n_instances, len(exp.X_train)))
        empty, full = ~uniq.any(axis=1), uniq.all(axis=1)
        if empty.any():
            mean_row = exp.kernel.gram(B, exp.X_train).mean(axis=0)
            out += W[empty].sum(axis=0)[:, None, None] * mean_row[None, None, :]
        if full.any():
            out += W[full].sum(axis=0)[:, None, None] * exp.kernel.gram(X, exp.X_train)[None]
        inner = np.flatnonzero(~empty & ~full)
        if len(inner):
            Wi = W[inner]
            for rows, _, M in self._prop3_blocks(uniq[inner]):
                out += np.einsum("cix,cq->qxi", M, Wi[rows])
        return out

    # ------------------------------------ exact forms along the coalition lattice
    def _walk(self, Z):
        """Worths of the inner coalitions Z along a walk of the coalition lattice, or None if it does not apply.

        Each coalition's Gram K_S(B, B) is one elementwise product of its
        parent's (kept on a stack of at most d partial Grams) and one
        per-feature Gram (``kernelxai.kernels._coalition_grams.LatticeGrams``),
        written into one work matrix that is factorised in place (LAPACK potrf,
        lower triangle in Fortran order) and solved for all right-hand sides of the coalition at
        once (potrs); no inverse is formed. The product form (Prop. 3) is
        rearranged so that no Gram is needed after its factorisation:

            v(S)(x) = b + sum_b gamma_S(b, x) u_S(b, x),
            u_S = K_{S^c}(B, X_train) (alpha * K_S(X_train, x)),

        u_S taken from K_{S^c} when the walk passes S^c, gamma_S when it passes S.
        Needs m >= WALK_ROWS background rows, a product or Matern kernel, and the
        per-feature Grams plus the stack within ``max_elements``; the gamma_S and
        u_S waiting for their partner are bounded by processing the points in chunks.
        """
        exp, B, X = self.expansion, self.background, self.X
        kernel, m, n, nx, d = exp.kernel, len(B), len(exp.X_train), self.n_instances, self.n_players
        product = self.form == "product"
        if m < WALK_ROWS or not LatticeGrams.supports(kernel):
            return None
        keys = np.asarray(Z, dtype=bool).astype(np.int64) @ (1 << np.arange(d, dtype=np.int64))
        full = (1 << d) - 1
        visit = np.r_[keys, full - keys] if product else keys
        order = lattice_walk((visit[:, None] >> np.arange(d) & 1).astype(bool), d)
        depth = max([node[1] for node in order if node[3]], default=1)
        same = product and exp.X_train.shape == B.shape and np.array_equal(exp.X_train, B)
        cache = LatticeGrams.elements(m, m, d, True, depth)
        if product and not same:
            cache += LatticeGrams.elements(m, n, d, False, depth)
        # per point: the gamma_S or u_S waiting for their partner, K_S(B, x) and K_S(X_train, x) of
        # every coalition (formed before the walk, so that no NumPy BLAS call alternates with
        # SciPy's factorisations: see LatticeGrams.matmul) and the per-feature terms
        per_point = len(Z) * (2 * m + (n if product else 0)) + (m + n) * d
        if cache > self.max_elements or per_point > self.max_elements:
            return None
        step = max(1, self.max_elements // per_point)
        out = np.empty((len(Z), nx))
        with progress_bar(len(Z) * -(-nx // step), "CME coalitions", "coalition", self.progress or None) as bar:
            BB = LatticeGrams(kernel, B)
            BT = None if not product or same else LatticeGrams(kernel, B, exp.X_train)
            for start in range(0, nx, step):
                cols = slice(start, min(nx, start + step))
                if product:
                    out[:, cols] = self._walk_prop3(order, keys, BB, BT, X[cols], bar)
                else:
                    out[:, cols] = self._walk_regression(order, keys, BB, X[cols], bar)
        return out + exp.intercept

    def _walk_factor(self, BB, work, node):
        """Cholesky factor (Fortran lower = work's upper triangle) of K_S + m eta I filled in ``work``."""
        mask, depth, feature, keep = node

        def rebuild():
            if keep:
                BB.fill(depth, work)
            else:
                BB.node(depth, feature, out=work)
            return work

        return self._factor_in_place(work, rebuild)

    def _factor_in_place(self, work, rebuild):
        """A solver for (K_S + m eta I) x = rhs, factorising K_S held in ``work``'s upper triangle in place.

        SciPy's LAPACK (potrf, then potrs per right-hand side); if the factorisation fails (K_S
        numerically singular for this eta), ``rebuild()`` writes K_S into ``work`` again and the
        jittered Cholesky of ``kernelxai._linalg.cholesky_jitter`` warns and takes over.
        """
        if not work.flags.c_contiguous:
            work = np.ascontiguousarray(work)
        diagonal = work.reshape(-1)[::len(work) + 1]     # a view (work is C-contiguous)
        diagonal += self.ridge
        c, info = lapack.dpotrf(work.T, lower=1, overwrite_a=1, clean=0)
        # potrf stops at a non-positive or NaN pivot (info > 0); an infinite one shows in the sum
        if info == 0 and math.isfinite(c.diagonal().sum()):
            return lambda rhs: lapack.dpotrs(c, rhs, lower=1)[0]
        work = rebuild()
        K = np.triu(work)
        K += np.triu(work, 1).T
        K[np.diag_indices_from(K)] += self.ridge
        L = cholesky_jitter(K, CME_SYSTEM, CME_ADVICE)
        return lambda rhs: sla.cho_solve((L, True), rhs, check_finite=False)

    def _walk_prop3(self, order, keys, BB, BT, X, bar):
        exp, B = self.expansion, self.background
        kernel, m = exp.kernel, len(B)
        full = (1 << self.n_players) - 1
        where = {int(key): k for k, key in enumerate(keys)}
        masks = (keys[:, None] >> np.arange(self.n_players) & 1).astype(bool)
        BX, TX = CoalitionGrams(kernel, B, X)(masks), CoalitionGrams(kernel, exp.X_train, X)(masks)
        work = np.empty((m, m))
        rect = None if BT is None else np.empty(BT.shape)
        waiting_gamma, waiting_u = {}, {}
        out = np.empty((len(keys), len(X)))

        def pair(k, gamma, u):
            out[k] = np.einsum("bx,bx->x", gamma, u)

        for node in order:
            key, depth, feature, keep = node
            k, kc = where.get(key), where.get(full - key)
            need = keep or k is not None or kc is not None
            if not need:
                continue
            direct = k is not None or (kc is not None and not keep)
            BB.node(depth, feature, out=work if direct else None, keep=keep)
            if BT is not None and (keep or kc is not None):
                BT.node(depth, feature, out=None if keep else rect, keep=keep)
            if kc is not None:   # u_{S} for S = this node's complement, from K_{S^c} = this node's Gram
                W = exp.alpha[:, None] * TX[kc]
                if BT is None:
                    u = BB.matmul(W, full=work) if direct else BB.matmul(W, depth=depth)
                else:
                    u = BT.matmul(W, depth=depth) if keep else BT.matmul(W, full=rect)
                if kc in waiting_gamma:
                    pair(kc, waiting_gamma.pop(kc), u)
                else:
                    waiting_u[kc] = u
            if k is not None:
                solve = self._walk_factor(BB, work, node)
                gamma = solve(BX[k])
                if k in waiting_u:
                    pair(k, gamma, waiting_u.pop(k))
                else:
                    waiting_gamma[k] = gamma
                bar.update()
        return out

    def _walk_regression(self, order, keys, BB, X, bar):
        exp, B = self.expansion, self.background
        m = len(B)
        where = {int(key): k for k, key in enumerate(keys)}
        masks = (keys[:, None] >> np.arange(self.n_players) & 1).astype(bool)
        BX = CoalitionGrams(exp.kernel, B, X)(masks)
        resid = self._f_background - exp.intercept
        work = np.empty((m, m))
        out = np.empty((len(keys), len(X)))
        for node in order:
            key, depth, feature, keep = node
            k = where.get(key)
            BB.node(depth, feature, out=None if k is None else work, keep=keep)
            if k is not None:
                beta = self._walk_factor(BB, work, node)(resid)
                out[k] = np.einsum("b,bx->x", beta, BX[k])   # no NumPy BLAS in the walk
                bar.update()
        return out

    # ------------------------------------- regression form: small m, batched
    def _batched(self, Z, per):
        exp, m = self.expansion, len(self.background)
        c = self._cached_grams()
        out = np.empty((len(Z), self.n_instances))
        for rows in self._batches(Z, per):
            S = Z[rows]
            K = c["BB"](S)
            K[:, np.arange(m), np.arange(m)] += self.ridge
            L = cholesky_jitter(K, CME_SYSTEM, CME_ADVICE)
            del K
            resid = np.broadcast_to(self._f_background - exp.intercept, (len(S), m))
            beta = sla.cho_solve((L, True), resid[..., None])[..., 0]   # (c, m)
            out[rows] = np.matmul(beta[:, None, :], c["BX"](S))[:, 0, :]
        return out + exp.intercept

    # --------------------------------- regression form: large m, one at a time
    def _one_by_one(self, Z):
        exp, B, X = self.expansion, self.background, self.X
        kernel, m = exp.kernel, len(B)
        block = max(1, self.max_elements // 4)
        out = np.empty((len(Z), self.n_instances))
        for k in progress_iter(range(len(Z)), "CME coalitions", progress=self.progress or None):
            S = Z[k]
            with _numpy_side_blas(m):
                K = kernel.coalition_gram(B, B, S, max_elements=block)
            solve = self._factor_in_place(K, lambda S=S: kernel.coalition_gram(B, B, S, max_elements=block))
            beta = solve(self._f_background - exp.intercept)
            del K, solve
            with _numpy_side_blas(m):
                out[k] = kernel.coalition_gram(X, B, S, max_elements=block) @ beta
        return out + exp.intercept

    # ------------------------------------------------------------- Nystrom
    def _nystrom(self, Z):
        """Woodbury solves with Nystrom features on landmarks (see the module docstring)."""
        exp, B, X, Lm = self.expansion, self.background, self.X, self.landmarks
        kernel = exp.kernel
        m, p, d, nc = len(B), len(Lm), self.n_players, len(Z)
        product = self.form == "product"
        LL = CoalitionGrams(kernel, Lm)
        LX = CoalitionGrams(kernel, Lm, X)
        if product:
            TL = CoalitionGrams(kernel, exp.X_train, Lm)
            TX = CoalitionGrams(kernel, exp.X_train, X)
        resid = self._f_background - exp.intercept
        out = np.empty((nc, self.n_instances))
        # coalitions in batches; background rows streamed in chunks inside each batch
        per = 2 * p * p + p * (len(exp.X_train) + self.n_instances)
        for rows in self._batches(Z, per):
            S = Z[rows]
            c = len(S)
            P_SS = np.zeros((c, p, p))
            P_cS = np.zeros((c, p, p)) if product else None
            q_S = None if product else np.zeros((c, p))
            chunk = max(1, self.max_elements // (4 * p * (d + 2 * c)))
            for start in range(0, m, chunk):
                Bc = B[start:start + chunk]
                G = CoalitionGrams(kernel, Bc, Lm)
                KS = G(S)                                    # (c, chunk, p)
                P_SS += np.matmul(KS.transpose(0, 2, 1), KS)
                if product:
                    P_cS += np.matmul(G(~S).transpose(0, 2, 1), KS)
                else:
                    q_S += np.einsum("cbp,b->cp", KS, resid[start:start + chunk])
            W_S = LL(S)
            W_c = LL(~S) if product else None
            KS_LX = LX(S)
            if product:
                KS_TX, Kc_TL = TX(S), TL(~S)
            for k in range(c):
                R = _pinv_sqrt(W_S[k])                             # (p, r)
                A = R.T @ P_SS[k] @ R
                A[np.diag_indices_from(A)] += self.ridge
                LA = cholesky_jitter(A, "the Nystrom system Phi'Phi + m eta I", CME_ADVICE)
                y = sla.cho_solve((LA, True), R.T @ KS_LX[k])      # (r, nx)
                if product:
                    Rc = _pinv_sqrt(W_c[k])
                    H = Kc_TL[k] @ (Rc @ (Rc.T @ (P_cS[k] @ (R @ y))))   # (n, nx)
                    out[rows.start + k] = exp.alpha @ (KS_TX[k] * H)
                else:
                    out[rows.start + k] = y.T @ (R.T @ q_S[k])
        return out + exp.intercept


@register("observational")
class Observational(ValueFunction, EmbeddingValueFunction):
    r"""Observational value function of a kernel model (RKHS-SHAP Prop. 3; App. C).

    :math:`\nu_O(x, S)` estimates :math:`\mathbb{E}[f(X) \mid X_S = x_S]` with the conditional mean
    embedding fitted on ``background`` (default: the model's training inputs),
    regularised by :math:`K_S + m\eta I` (:math:`m` = rows of the background, the paper's
    :math:`n\eta` convention). :math:`v(\emptyset)` = mean of :math:`f` over the background and
    :math:`v(D) = f(x)` exactly, so the values are efficient.

    Parameters
    ----------
    model : KernelExpansion or anything :func:`kernelxai.models.as_expansion` accepts
    background : array (m, d), m >= 2, optional
        The sample the CME is fitted on.
    eta : float > 0
        CME regularisation.
    landmarks : None, int or array (p, d)
        Nystrom variant: an int draws that many landmark rows of the background
        uniformly at random (``landmark_seed``); an array gives them. Same
        :math:`m\eta` scaling; :math:`O(m p^2)` per coalition instead of :math:`O(m^3)`.
    form : {"auto", "product", "regression"}
        ``"product"``: Prop. 3 (product kernels only). ``"regression"``: App. C,
        eq. (8), regressing :math:`f(B)` on :math:`k_S` -- any kernel that can be restricted to
        a coalition (product kernels, :class:`~kernelxai.kernels.Matern`).
        ``"auto"``: product for product kernels, regression otherwise.
    landmark_seed : None, int or Generator
    groups, group_names : optional
        Players as groups of features.
    max_elements : int
        Memory budget (float64 elements) for cached tensors and batches. When
        the per-feature tensors of the background fit (m^2 d plus smaller
        terms), coalitions are processed in batches from one cache; otherwise
        one at a time, in O(m^2) memory.
    progress : bool
        Progress bar over coalitions.

    Raises
    ------
    ValueError
        If ``eta`` is not a positive finite number, ``form`` is not one of the
        three choices, ``form="product"`` is asked of a non-product kernel,
        ``landmarks`` exceeds the background's rows, or the background is
        missing or malformed (see :class:`Interventional`).
    TypeError
        If the model's kernel cannot be restricted to a coalition (neither a
        product kernel, a sum of them, nor Matern).

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20, 3)); y = X[:, 0] + X[:, 1] * X[:, 2]
    >>> model = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, y)
    >>> vf = kx.values.Observational(model, background=X, eta=1e-3)
    >>> vf
    Observational(eta=0.001, form='product', background=20 rows)
    >>> e = kx.shapley_values(vf.game(X[:2]))
    >>> bool(np.allclose(e.values.sum(axis=1) + e.base_values, model.predict(X[:2])))
    True
    """

    name = "observational (CME)"

    def __init__(self, model: Any, background: ArrayLike | None = None, eta: float = 1e-3, *,  # noqa: PLR0913 - options of a public value function, one keyword each as scikit-learn's
                 landmarks: int | ArrayLike | None = None, form: str = "auto",
                 landmark_seed: int | np.random.Generator | None = 0,
                 groups: Sequence[Sequence[int | str]] | None = None, group_names: Sequence[str] | None = None,
                 max_elements: int | None = None, progress: bool = False) -> None:
        self.model = as_expansion(model)
        bg = default_background(self.model, background)
        self.background = check_background(bg, self.model.n_features,
                                           feature_names=feature_names_in(self.model))
        # an unnamed model: the background's columns, if it was a DataFrame, are what X must match
        self.background_names = feature_names_in(bg) if feature_names_in(self.model) is None else None
        if isinstance(eta, bool) or not isinstance(eta, numbers.Real) or not np.isfinite(eta) or eta <= 0:
            raise ValueError(f"eta (the CME regularisation, K_S + m eta I) must be a positive number; "
                             f"got {eta!r}")
        self.eta = float(eta)
        form = check_choice(form, "form", ("auto", "product", "regression"))
        kernel = self.model.kernel
        if form == "auto":
            form = "product" if kernel.is_product else "regression"
        if form == "product" and not kernel.is_product:
            raise ValueError(f"form='product' (RKHS-SHAP Prop. 3) needs a product kernel; the model's "
                             f"kernel is {kernel!r}. Use form='regression' (App. C) or 'auto'")
        if not isinstance(kernel, (ProductKernel, Matern, SumKernel)):
            raise TypeError(f"observational values need K_S for coalitions S: supported kernels are "
                            f"product kernels, sums of them and Matern; got {kernel!r}. Use "
                            "value='interventional' (exact through model calls for any kernel)")
        self.form = form
        self.landmarks = self._landmarks(landmarks, landmark_seed)
        self.max_elements = None if max_elements is None else check_max_elements(max_elements)
        self.progress = bool(progress)
        self._set_groups(groups, group_names)

    def _landmarks(self, landmarks, seed):
        if landmarks is None:
            return None
        B = self.background
        if isinstance(landmarks, (numbers.Integral, np.integer)) and not isinstance(landmarks, bool):
            p = check_positive_int(landmarks, "landmarks")
            if p > len(B):
                raise ValueError(f"landmarks={p} exceeds the {len(B)} background rows")
            rows = np.sort(check_rng(seed).choice(len(B), p, replace=False))
            return B[rows]
        return check_matrix(landmarks, "landmarks", n_features=self.model.n_features)

    def _game(self, X):
        X, names = check_points(X, self.model.n_features, self.model.feature_names)
        return ObservationalGame(self.model, self.background, X, names, eta=self.eta, form=self.form,
                                 landmarks=self.landmarks, max_elements=self.max_elements,
                                 progress=self.progress)

    def __repr__(self):
        nys = "" if self.landmarks is None else f", landmarks={len(self.landmarks)}"
        return (f"Observational(eta={self.eta}, form={self.form!r}, "
                f"background={len(self.background)} rows{nys})")
