"""Gram matrices of many coalitions: from one cached per-feature tensor, or along the coalition lattice.

Takes a product kernel, a sum of them or a Matern kernel and two point sets;
hands on K_S(A, B) for any coalitions S to the value functions that condition
on coalitions (RKHS-SHAP) and the functionals: :class:`CoalitionGrams` one
matrix product each for any set of coalitions at once, :class:`LatticeGrams`
one elementwise pass each along a depth-first walk (:func:`lattice_walk`) for
large Grams built one coalition at a time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.linalg import blas

from ._non_product import Matern, SumKernel
from ._product_kernels import ProductKernel, check_pair

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ._product_kernels import Kernel

__all__ = ["CoalitionGrams", "LatticeGrams", "lattice_walk"]

#: From this many entries per Gram on, a family of coalitions closed under dropping the last
#: feature is built one multiplication per entry along the family (below, one matrix product
#: with the log-terms and an exponential costs less than a Python step per coalition).
CHAIN_ELEMENTS = 2048

#: Rows per stored block of a symmetric LatticeGrams (at most 16 blocks): each block is one
#: numpy call per pass, so small Grams take few blocks (at m = 200, 16 blocks of 12 rows made
#: the passes cost more in calls than in arithmetic).
BLOCK_ROWS = 100

#: Numbers of per-feature terms a LatticeGrams block forms in one call (all features at once).
TERMS_AT_ONCE = 2**21


class CoalitionGrams:
    r"""Gram matrices :math:`K_S(A, B)` of many coalitions :math:`S` from one cached per-feature tensor.

    Value functions that condition on a coalition (the CME of RKHS-SHAP Prop. 3
    and App. C) need :math:`K_S` for hundreds or thousands of coalitions :math:`S`. Building
    each from scratch costs :math:`|S|` kernel evaluations per entry; here one tensor
    of per-feature terms is computed once and every :math:`K_S` is one matrix product
    with the coalition masks followed by an elementwise map:

    * product kernels: :math:`K_S = \exp\big(\sum_{l \in S} \log k_l\big)` (exact zeros of a
      factor, e.g. the categorical kernel, are tracked separately and stay 0);
    * :class:`Matern`: :math:`K_S = \kappa\Big(\sqrt{\textstyle\sum_{l \in S} \big((a_l - b_l) / \ell_l\big)^2}\Big)`,
      the Matern kernel of the same form on the coordinates in :math:`S`;
    * :class:`SumKernel`: :math:`K_S = \sum_r c_r K_{r,S}`, one cache per summand.

    The empty coalition gives a matrix of ones. The cache holds
    ``len(A) * len(B) * d`` numbers.

    Parameters
    ----------
    kernel : ProductKernel, SumKernel or Matern
    A : array (na, d)
    B : array (nb, d), default A

    Calling the object with a boolean array of coalitions ``(c, d)`` (or one
    coalition ``(d,)``) returns the array ``(c, na, nb)`` of their Gram matrices.

    Raises
    ------
    TypeError
        If ``kernel`` is none of the kernels above.
    ValueError
        If ``A`` or ``B`` holds NaN or inf or is not 2-D (a 1-D array is one
        row), they differ in columns, or the kernel has per-feature parameters
        for another number of features.
        Calling raises it for coalitions with other than ``d`` columns.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> A = np.random.default_rng(0).normal(size=(4, 3))
    >>> k = kx.kernels.RBF(lengthscale=1.0)
    >>> grams = kx.kernels.CoalitionGrams(k, A)
    >>> z = kx.games.all_coalitions(3)
    >>> K = grams(z)   # K[s] = K_S(A, A) for the coalition in row s
    >>> K.shape, bool(np.allclose(K[0], 1.0)), bool(np.allclose(K[5], k.gram(A, subset=z[5])))
    ((8, 4, 4), True, True)
    """

    def __init__(self, kernel: Kernel, A: ArrayLike, B: ArrayLike | None = None) -> None:
        if not isinstance(kernel, (ProductKernel, Matern, SumKernel)):
            raise TypeError(f"CoalitionGrams supports product kernels, sums of them and Matern; "
                            f"got {kernel!r}")
        A, B = check_pair(A, B, kernel.n_features)
        self.kernel, self.shape, self.d = kernel, (A.shape[0], B.shape[0]), A.shape[1]
        self._zeros = None
        self._parts = None
        if isinstance(kernel, SumKernel):  # K_S = sum_r c_r K_{r,S}: one cache per summand
            self._parts = [(w, CoalitionGrams(k, A, B)) for w, k in kernel.terms if w != 0.0]
        elif isinstance(kernel, ProductKernel):
            G = kernel.feature_grams(A, B)
            positive = G > 0
            self._terms = np.log(np.where(positive, G, 1.0)).reshape(-1, self.d).T.copy()
            if not positive.all():
                self._zeros = (~positive).reshape(-1, self.d).T.astype(float)
        else:
            scale = kernel.scales(self.d)
            diff = (A[:, None, :] - B[None, :, :]) / scale
            self._terms = (diff * diff).reshape(-1, self.d).T.copy()

    def __call__(self, coalitions):
        """K_S for each row of ``coalitions`` (bool (c, d)): array (c, na, nb)."""
        Z = np.atleast_2d(np.asarray(coalitions, dtype=float))
        if Z.shape[1] != self.d:
            raise ValueError(f"coalitions must have {self.d} columns; got {Z.shape[1]}")
        if self._parts is not None:
            out = np.zeros((len(Z),) + self.shape)
            for w, part in self._parts:
                out += w * part(Z)
            return out
        if isinstance(self.kernel, ProductKernel) and self.shape[0] * self.shape[1] >= CHAIN_ELEMENTS:
            chained = self._chain(Z)
            if chained is not None:
                return chained.reshape((len(Z),) + self.shape)
        E = Z @ self._terms
        if isinstance(self.kernel, ProductKernel):
            np.exp(E, out=E)
            if self._zeros is not None:
                E[(Z @ self._zeros) > 0] = 0.0
        else:
            E = self.kernel.profile(np.sqrt(np.maximum(E, 0.0)))
        return E.reshape((len(Z),) + self.shape)


    def _chain(self, Z):
        """K_S for a family in which every S minus its last feature is the empty set or in the family.

        Then each K_S is its parent's Gram times one per-feature Gram: one multiplication per
        element instead of a d-term product with the log-terms and an exponential (the exact
        routes ask for all coalitions, a family of this kind). None for other families.
        """
        bits = 1 << np.arange(self.d, dtype=np.int64)
        keys = (Z > 0).astype(np.int64) @ bits
        sizes = (Z > 0).sum(axis=1)
        if not sizes.all():
            return None
        last = self.d - 1 - np.argmax((Z > 0)[:, ::-1], axis=1)
        parents = keys ^ bits[last]
        row = {int(key): r for r, key in enumerate(keys.tolist())}
        if any(p and p not in row for p in parents.tolist()):
            return None
        factors = {}

        def factor(j):
            if j not in factors:
                g = np.exp(self._terms[j])
                if self._zeros is not None:
                    g[self._zeros[j] > 0] = 0.0
                factors[j] = g
            return factors[j]

        out = np.empty((len(Z), self._terms.shape[1]))
        for r in np.argsort(sizes, kind="stable").tolist():
            p, j = int(parents[r]), int(last[r])
            if p:
                np.multiply(out[row[p]], factor(j), out=out[r])
            else:
                out[r] = factor(j)
        return out


def lattice_walk(coalitions, d) -> list[tuple[int, int, int, bool]]:
    """Depth-first order of the coalition lattice that reaches every coalition in ``coalitions``.

    Each coalition S = {s_1 < ... < s_k} is reached through its prefixes
    {s_1}, {s_1, s_2}, ..., so every step adds one feature to the node one
    level up and a node's Gram is one elementwise product of its parent's Gram
    and one per-feature Gram.

    Parameters
    ----------
    coalitions : bool array (c, d)
        The coalitions to reach (the empty one is skipped).
    d : int

    Returns
    -------
    list of (mask, depth, feature, keep)
        ``mask`` the node as an int bit mask (bit j = feature j), ``depth`` its
        size, ``feature`` the feature added to its parent and ``keep`` whether
        a later node extends it (its Gram must then be kept on the stack).
    """
    bits = 1 << np.arange(d, dtype=np.int64)
    targets = np.asarray(coalitions, dtype=bool).astype(np.int64) @ bits
    nodes = set()
    for mask in targets.tolist():
        prefix = 0
        for j in range(d):
            if mask >> j & 1:
                prefix |= 1 << j
                nodes.add(prefix)
    order = []
    todo = [(0, 0, -1)]
    while todo:
        mask, depth, last = todo.pop()
        children = [(mask | 1 << j, depth + 1, j) for j in range(last + 1, d) if (mask | 1 << j) in nodes]
        if depth:
            order.append((mask, depth, last, bool(children)))
        todo.extend(reversed(children))
    return order


class LatticeGrams:
    """K_S(A, B) along a :func:`lattice_walk`: one elementwise pass per coalition, a stack of partial Grams.

    Takes a product kernel (K_S is the elementwise product of per-feature
    Grams) or a :class:`Matern` kernel (K_S is its profile of the sum of
    per-feature squared scaled differences) and two point sets; hands on K_S
    for the nodes of the walk, written into a caller's matrix or kept on a
    stack of at most ``depth`` partial results for the node's children.

    With ``B`` None (K_S(A, A), symmetric) only the upper triangle is stored,
    as row blocks ``rows r0:r1 x columns r0:na``: a full (C-ordered) matrix
    filled by :meth:`node` holds K_S on and above its diagonal (and on the
    diagonal blocks) -- the lower triangle of the same memory read in Fortran
    order, which LAPACK's lower Cholesky factorises in place (20% faster than
    the upper one at a few hundred rows with OpenBLAS), and what :meth:`matmul`
    reads.

    Parameters
    ----------
    kernel : ProductKernel or Matern
    A : array (na, d)
    B : array (nb, d), optional
    n_blocks : int, optional
        Row blocks of the upper triangle (more blocks: less storage below the
        diagonal, more Python calls per pass). Default: one per ``BLOCK_ROWS``
        rows, at most 16.
    """

    def __init__(self, kernel, A, B=None, *, n_blocks=None):
        if not self.supports(kernel):
            raise TypeError(f"LatticeGrams supports product kernels and Matern; got {kernel!r}")
        self.symmetric = B is None
        A, B = check_pair(A, B, kernel.n_features)
        self.kernel, self.shape, self.d = kernel, (A.shape[0], B.shape[0]), A.shape[1]
        self.product = isinstance(kernel, ProductKernel)
        self.bounds = self.row_blocks(A.shape[0], B.shape[0], self.symmetric, n_blocks)
        scale = None if self.product else kernel.scales(self.d)
        # terms[j][block]: feature j's Gram (product) or squared scaled differences (Matern) on
        # one stored block, all features of a block formed in one call
        blocks = [self._terms(A[r0:r1], B[c0:c1], scale) for r0, r1, c0, c1 in self.bounds]
        self.terms = [[block[j] for block in blocks] for j in range(self.d)]
        self.stack = {}

    def _terms(self, A, B, scale):
        # all features of a small block in one call; a large block (the one block of a
        # non-symmetric Gram) feature by feature, so no (rows, cols, d) temporary doubles the cache
        together = len(A) * len(B) * self.d <= TERMS_AT_ONCE
        groups = [list(range(self.d))] if together else [[j] for j in range(self.d)]
        out = []
        for feats in groups:
            if self.product:
                G = self.kernel.feature_grams(A, B, feats)
            else:
                G = A[:, None, feats] - B[None, :, feats]
                G /= scale[feats]
                np.multiply(G, G, out=G)
            out.extend(np.ascontiguousarray(G[:, :, k]) for k in range(len(feats)))
        return out

    @staticmethod
    def supports(kernel) -> bool:
        """Whether K_S of ``kernel`` can be built along the lattice."""
        return isinstance(kernel, (ProductKernel, Matern))

    @staticmethod
    def row_blocks(na, nb, symmetric, n_blocks=None) -> list[tuple[int, int, int, int]]:
        """(r0, r1, c0, c1) of the stored blocks (rows r0:r1, columns c0:c1): the upper triangle in row
        blocks, or the whole matrix."""
        if not symmetric:
            return [(0, na, 0, nb)]
        if n_blocks is None:
            n_blocks = min(16, na // BLOCK_ROWS)
        edges = np.unique(np.linspace(0, na, max(1, min(n_blocks, na)) + 1).astype(int))
        return [(int(a), int(b), int(a), na) for a, b in zip(edges[:-1], edges[1:])]

    @classmethod
    def elements(cls, na, nb, d, symmetric, depth, n_blocks=None) -> int:
        """Numbers held by the per-feature cache and a stack of ``depth`` partial Grams."""
        size = sum((r1 - r0) * (c1 - c0) for r0, r1, c0, c1 in cls.row_blocks(na, nb, symmetric, n_blocks))
        return size * (d + max(0, depth - 1))

    def node(self, depth, feature, out=None, keep=False) -> None:
        """Build K_S of the node ``depth`` of the walk that adds ``feature`` to the node above it.

        The node above (depth - 1) must be on the stack (depth 1: the empty
        coalition). With ``keep`` the node's partial Gram goes on the stack for
        its children; with ``out`` (an (na, nb) array) K_S is written into it
        (upper triangle and diagonal blocks when symmetric).
        """
        parent = self.stack.get(depth - 1) if depth > 1 else None
        own = self.terms[feature]
        if keep:
            if depth == 1:
                self.stack[1] = own
            else:
                slot = self.stack.get(depth)
                if slot is None:
                    slot = [np.empty_like(t) for t in own]
                for p, t, s in zip(parent, own, slot):
                    self._combine(p, t, s)
                self.stack[depth] = slot
            if out is not None:
                self.fill(depth, out)
            return
        if out is None:
            return
        for (r0, r1, c0, c1), t, p in zip(self.bounds, own, parent or own):
            view = out[r0:r1, c0:c1]
            if parent is None:
                view[...] = t
            else:
                self._combine(p, t, view)
            if not self.product:
                view[...] = self.kernel.profile(np.sqrt(view))

    def fill(self, depth, out) -> None:
        """Write K_S of the node on the stack at ``depth`` into ``out``."""
        for (r0, r1, c0, c1), s in zip(self.bounds, self.stack[depth]):
            if self.product:
                out[r0:r1, c0:c1] = s
            else:
                out[r0:r1, c0:c1] = self.kernel.profile(np.sqrt(s))

    def _combine(self, parent, term, out):
        if self.product:
            np.multiply(parent, term, out=out)
        else:
            np.add(parent, term, out=out)

    def matmul(self, W, depth=None, full=None) -> np.ndarray:
        """K_S @ W for the node on the stack at ``depth`` (product kernels) or the K_S written in ``full``.

        The products go through SciPy's BLAS, the library of the factorisations
        that alternate with them in the observational walk: NumPy's and SciPy's
        wheels each bundle an OpenBLAS with its own threads, and switching
        between two threaded pools on a 2-core machine made these products 10-20x
        slower and the factorisations 2x slower (one pool's idle threads keep
        spinning while the other works). A symmetric ``full`` (upper triangle
        and diagonal blocks filled) is one symmetric product (dsymm).
        """
        Wf = np.asfortranarray(W.reshape(len(W), -1))
        if self.symmetric and full is not None:
            # full is C-ordered with K_S on and above its diagonal: as Fortran, the lower triangle
            out = blas.dsymm(1.0, full.T, Wf, side=0, lower=1)
            return out.reshape((self.shape[0],) + W.shape[1:])
        out = np.zeros((self.shape[0], Wf.shape[1]), order="F")
        blocks = (self.stack[depth] if full is None else
                  [full[r0:r1, c0:c1] for r0, r1, c0, c1 in self.bounds])
        for (r0, r1, c0, c1), K in zip(self.bounds, blocks):
            Kt = np.asfortranarray(K.T)          # a view when K is C-contiguous
            out[r0:r1] += blas.dgemm(1.0, Kt, Wf[c0:c1], trans_a=1)
            if self.symmetric and c1 > r1:       # the block's part right of its diagonal block, mirrored
                out[r1:c1] += blas.dgemm(1.0, Kt, Wf[r0:r1])[r1 - c0:]
        return out.reshape((self.shape[0],) + W.shape[1:])
