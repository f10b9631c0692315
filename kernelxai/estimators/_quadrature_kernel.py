"""The quadrature route's numpy kernel: psi_j for blocks of terms, in reused working arrays.

Takes blocks of terms of a product game (present factors a, absent factors c,
weights w); hands on the weighted integrals w_m psi_mj =
w_m int_0^1 prod_{l != j} (t a_ml + (1-t) c_ml) dt by Gauss-Legendre
(:func:`quadrature_block`, :func:`psi_quadrature`) with the node count of
``kernelxai.estimators._gauss_legendre.node_count``, to the driver
(:func:`kernelxai.estimators.product_shapley`), the paper routes'
error check and GP-SHAP.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from ._gauss_legendre import gauss_legendre_01, node_count, prefix_suffix

__all__ = ["WORK_ELEMENTS", "Workspace", "thread_workspace", "quadrature_block", "transposed", "psi_prefix_suffix",
           "psi_quadrature"]

#: Default size of one task (float64 numbers per working array), chosen to stay near the cache.
WORK_ELEMENTS = 2**17


class Workspace:
    """Working arrays of the quadrature kernel, reused from block to block.

    Fresh arrays of this size cost more to map and touch (page faults) than
    the arithmetic done on them, so each thread allocates one workspace and
    hands out contiguous (d, M) views of it.
    """

    def __init__(self, size):
        self.size = int(size)
        self._flat = {}

    def get(self, name, rows, cols) -> np.ndarray:
        """A C-contiguous (rows, cols) array, reusing the buffer of that name."""
        flat = self._flat.get(name)
        if flat is None or flat.size < rows * cols:
            flat = self._flat[name] = np.empty(max(self.size, rows * cols))
        return flat[:rows * cols].reshape(rows, cols)


_LOCAL = threading.local()


def thread_workspace(size=WORK_ELEMENTS) -> Workspace:
    """A workspace of ``size`` numbers per array kept by the calling thread from call to call.

    A new workspace maps its arrays afresh and touches them page by page: at
    the default size that costs about 0.3 ms, as much as the arithmetic of a
    one-point call at d = 50 (#25). Each thread keeps one workspace of the
    default size (a few MB: one array per name the kernel uses), so a small
    call pays for the mapping once per thread, not per call; other sizes get
    a new workspace. The caller must be done with the views it handed out
    before the thread uses the workspace again (the routes copy their results
    out of it task by task).
    """
    if size != WORK_ELEMENTS:
        return Workspace(size)
    space = getattr(_LOCAL, "workspace", None)
    if space is None:
        space = _LOCAL.workspace = Workspace(size)
    return space


def quadrature_block(a, c, d, w=None, nodes=None, work=None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Weighted integrals of one block of terms, transposed: the quadrature kernel.

    Parameters
    ----------
    a : (M, d); c : (M, d) or None (all ones); w : (M,) or None (all ones)
    nodes : int, optional
        Number of Gauss-Legendre nodes; default: as many as the accuracy needs
        (:func:`node_count`).
    work : Workspace, optional
        Where the working arrays live; the results are views into it, valid
        until its next use.

    Returns
    -------
    G : (d, M)
        G[j, m] = w_m psi_mj.
    D : (d, M)
        (a - c)^T.
    C : (d, M) or None
        c^T.

    Working arrays are (d, M) with the terms along the contiguous axis, so the
    product over features is a sequence of long vectorised multiplications.
    Every factor comes from one node parameter, ``c + t (a - c)`` for
    t <= 1/2 and ``a - (1 - t)(a - c)`` beyond: with a, c >= 0 neither
    cancels, and no node carries the bias of a pair (t, 1 - t) whose rounded
    values do not add up to 1 (which, multiplied over d factors, would shift
    the products by up to d/2 ulps). Per node: two passes for the factors, one
    for their product, one division for the leave-one-out products, one sum.
    Terms whose result is not finite (a factor zero in both states, or
    overflow) are redone by prefix x suffix products with ceil(d/2) nodes.
    """
    M = a.shape[0]
    if work is None:
        work = Workspace(d * M)
    D, F, G = (work.get(name, d, M) for name in ("D", "F", "G"))
    A = transposed(a, "A", work)
    if c is None:
        C = None
        np.subtract(A, 1.0, out=D)
    else:
        C = transposed(c, "C", work)
        np.subtract(A, C, out=D)
    if nodes is None:
        nodes = node_count(A, C, D, d, F, G)
    t, s, omega = gauss_legendre_01(nodes)
    T = work.get("T", 1, M)[0]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for k in range(nodes):
            if t[k] <= 0.5:
                np.multiply(D, t[k], out=F)
                np.add(F, 1.0 if C is None else C, out=F)
            else:
                np.multiply(D, -s[k], out=F)
                np.add(F, A, out=F)
            np.multiply.reduce(F, axis=0, out=T)
            if w is not None:
                np.multiply(T, w, out=T)
            np.multiply(T, omega[k], out=T)
            if k == 0:
                np.divide(T, F, out=G)
            else:
                np.divide(T, F, out=F)
                np.add(G, F, out=G)
        bad = ~np.isfinite(np.add.reduce(G, axis=0))
    if bad.any():  # a factor is zero in both states, or the product overflowed
        psi = psi_prefix_suffix(a[bad], None if c is None else c[bad], d)
        G[:, bad] = (psi if w is None else psi * w[bad, None]).T
    return G, D, C


def transposed(x, name, work) -> np.ndarray:
    """x.T (d, M) as a C-contiguous array in the workspace.

    Always a copy: per-feature Gram tensors are feature-major, so x.T is often
    a view with contiguous rows, but rows spread over the whole tensor (one
    page each), which every pass over the factors would walk again.
    """
    out = work.get(name, x.shape[1], x.shape[0])
    out[...] = x.T
    return out


def psi_prefix_suffix(a, c, d) -> np.ndarray:
    """psi (M, d) with ceil(d/2) nodes and leave-one-out products by prefix x suffix (no division)."""
    t, s, omega = gauss_legendre_01(max(1, math.ceil(d / 2)))
    a = a[:, :, None]
    c = 1.0 if c is None else c[:, :, None]
    G = np.where(t <= 0.5, c + t * (a - c), a - s * (a - c))   # (M, d, q), as in the kernel
    return np.einsum("mdq,q->md", prefix_suffix(G, axis=1), omega)


def psi_quadrature(a, c, d) -> np.ndarray:
    """psi_j = int_0^1 prod_{l != j} (t a_l + (1-t) c_l) dt by Gauss-Legendre.

    a, c : (M, d); c None means all ones. Returns psi (M, d). Blocks of terms
    go through :func:`quadrature_block` with as many nodes as the accuracy
    needs (at most ceil(d/2)). No BLAS call is made here: this runs on several
    Python threads at once, and concurrent calls into a threaded OpenBLAS are
    not safe everywhere.

    Parameters
    ----------
    a : ndarray (M, d)
        Present factors of M terms.
    c : ndarray (M, d) or None
        Absent factors; None means all ones.
    d : int
        Number of players.

    Returns
    -------
    ndarray (M, d)
        psi[m, j]; the Shapley value of player j in term m of weight w_m is
        w_m (a_mj - c_mj) psi[m, j].

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([[0.5, 0.8, 0.9]])
    >>> psi = psi_quadrature(a, None, 3)
    >>> psi.round(6)                             # psi_0 = int_0^1 (1 - 0.2 t)(1 - 0.1 t) dt
    array([[0.856667, 0.716667, 0.683333]])
    >>> (2.0 * (a - 1.0) * psi).round(6)         # the Shapley values of v(S) = 2 prod_{l in S} a_l
    array([[-0.856667, -0.286667, -0.136667]])
    """
    M = a.shape[0]
    psi = np.empty((M, d))
    step = max(1, WORK_ELEMENTS // max(1, d))
    work = thread_workspace()   # copied out block by block
    for lo in range(0, M, step):
        hi = min(M, lo + step)
        G, _, _ = quadrature_block(a[lo:hi], None if c is None else c[lo:hi], d, work=work)
        psi[lo:hi] = G.T
    return psi
