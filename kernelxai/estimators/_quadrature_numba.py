"""The quadrature route compiled with numba (``backend="numba"``, the extra ``kernelxai[numba]``).

Takes blocks of terms, as ``kernelxai.estimators._quadrature_kernel`` does;
hands on the same contributions w_m (a_mj - c_mj) psi_mj and prod_l c_ml,
computed one term at a time by loops compiled once per process. numba is
imported only when the backend is asked for.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from ._gauss_legendre import gauss_legendre_01, nodes_needed
from ._quadrature_kernel import Workspace, psi_prefix_suffix

__all__ = ["BACKENDS", "numba_kernels", "quadrature_contrib_numba"]

#: The kernels of the quadrature route: "numpy" (default) or "numba" (the extra kernelxai[numba]).
BACKENDS = ("numpy", "numba")

_NUMBA = {}
_NUMBA_LOCK = threading.Lock()


def numba_kernels() -> dict:
    """Compile (once per process) and return the numba kernels of the quadrature.

    ``copy`` brings a block of terms into row-major order when it is not (per-
    feature Gram tensors are feature-major); ``sums`` takes the sums the node
    count needs, and prod_l c_l, per term; ``quadrature`` runs the loops of
    :func:`quadrature_block` one term at a time, so that its d factors stay
    in the first-level cache: per node one loop forms the factors and their
    product, a second adds the leave-one-out products. ``fastmath={"reassoc"}``
    lets the compiler split sums and the product over features into vector
    lanes (a different order of the same operations; no other fast-math
    licence is taken, so NaN and inf still flag the terms to redo).
    ``error_model="numpy"`` keeps division free of Python's zero check, which
    would stop vectorisation. The signatures are given, so compilation (a few
    seconds) happens here, once, for inputs of any layout.

    Returns
    -------
    dict of str to function
        The compiled kernels ``"copy"``, ``"sums"`` and ``"quadrature"``
        (the same dict on every call).

    Raises
    ------
    ImportError
        numba is not installed (the message names the extra ``kernelxai[numba]``).

    Examples
    --------
    The numba backend is optional; ``backend="numpy"`` (the default) needs
    nothing more and gives the same values to rounding:

    >>> import kernelxai as kx
    >>> from kernelxai.estimators import product_shapley
    >>> BACKENDS
    ('numpy', 'numba')
    >>> g = kx.ProductGame([[0.5, 0.8, 0.9]], [[1.0, 1.0, 1.0]], [2.0])
    >>> product_shapley(g, backend="numpy")[0].round(6)
    array([[-0.856667, -0.286667, -0.136667]])

    With numba installed, the kernels compile on first use (a few seconds):

    >>> sorted(numba_kernels())                                    # doctest: +SKIP
    ['copy', 'quadrature', 'sums']
    >>> values, base = product_shapley(g, backend="numba")          # doctest: +SKIP
    """
    with _NUMBA_LOCK:
        if not _NUMBA:
            try:
                import numba
                from numba import types
            except ImportError:
                raise ImportError(
                    "backend='numba' needs numba: pip install 'kernelxai[numba]' (or pip install "
                    "numba); backend='numpy', the default, needs nothing more") from None
            jit = dict(nogil=True, error_model="numpy", fastmath={"reassoc"}, cache=False)
            _NUMBA.update(copy=_copy_kernel(numba, types, jit), sums=_sums_kernel(numba, types, jit),
                          quadrature=_quadrature_loops(numba, types, jit))
    return _NUMBA


def _copy_kernel(numba, types, jit):
    """The compiled ``copy``: any layout in, row-major out (numpy's own copy of a transposed view is slower)."""
    f8 = types.float64

    @numba.njit(types.void(types.Array(f8, 2, "A", readonly=True), types.Array(f8, 2, "C")), **jit)
    def copy(a, A):
        for m in range(a.shape[0]):
            for l in range(a.shape[1]):
                A[m, l] = a[m, l]

    return copy


def _sums_kernel(numba, types, jit):
    """The compiled ``sums``: prod_l c_ml per term, and the sums the node count needs (see nodes_needed)."""
    f8 = types.float64
    row2 = types.Array(f8, 2, "C", readonly=True)

    @numba.njit(types.UniTuple(f8, 3)(row2, row2, types.Array(f8, 1, "C")), **jit)
    def sums(A, C, prod_c):
        # prod_c[m] = prod_l c_ml; returns the largest |sum_l rho_l|, sum_l |rho_l|,
        # sum_l rho_l^2 over terms, rho = (a - c) / (a + c), or -1 for all three when
        # there is no bound (see nodes_needed)
        s0_max, s1_max, s2_max, ok = 0.0, 0.0, 0.0, True
        for m in range(A.shape[0]):
            s0, s1, s2, negative, p = 0.0, 0.0, 0.0, 0.0, 1.0
            for l in range(A.shape[1]):   # branch-free, so that it vectorises
                x, y = A[m, l], C[m, l]
                p *= y
                rho = (x - y) / (x + y)       # NaN when x = y = 0 or a factor is inf
                s0 += rho
                s1 += abs(rho)
                s2 += rho * rho
                negative += (abs(x) - x) + (abs(y) - y)
            prod_c[m] = p
            if not (negative == 0.0 and s1 < np.inf):   # also false for NaN
                ok = False
            s0_max = max(s0_max, abs(s0))
            s1_max = max(s1_max, s1)
            s2_max = max(s2_max, s2)
        if not ok:
            return -1.0, -1.0, -1.0
        return s0_max, s1_max, s2_max

    return sums


def _quadrature_loops(numba, types, jit):
    """The compiled ``quadrature``: out[m, j] = w_m (a_mj - c_mj) psi_mj; bad[m] = 1 where that is not finite."""
    f8 = types.float64
    row2, any1 = types.Array(f8, 2, "C", readonly=True), types.Array(f8, 1, "A", readonly=True)

    @numba.njit(types.void(row2, row2, any1, any1, any1, any1, types.Array(f8, 2, "C"), types.Array(f8, 1, "C")),
                **jit)
    def quadrature(A, C, w, t, s, omega, out, bad):
        M, d = A.shape
        D = np.empty(d)
        F = np.empty(d)
        acc = np.empty(d)
        for m in range(M):
            for l in range(d):
                D[l] = A[m, l] - C[m, l]
                acc[l] = 0.0
            for k in range(t.size):
                prod = 1.0
                if t[k] <= 0.5:  # c + t (a - c)
                    tk = t[k]
                    for l in range(d):
                        f = C[m, l] + tk * D[l]
                        F[l] = f
                        prod *= f
                else:            # a - (1 - t)(a - c)
                    sk = s[k]
                    for l in range(d):
                        f = A[m, l] - sk * D[l]
                        F[l] = f
                        prod *= f
                scale = prod * w[m] * omega[k]
                for l in range(d):
                    acc[l] += scale / F[l]
            total = 0.0
            for l in range(d):
                v = acc[l] * D[l]
                out[m, l] = v
                total += v
            bad[m] = 0.0 if abs(total) < np.inf else 1.0

    return quadrature


def quadrature_contrib_numba(a, c, d, w, work=None) -> tuple[np.ndarray, np.ndarray]:
    """The numba kernel on one block of terms: contributions (M, d) and prod_l c_ml (M,).

    contributions[m, j] = w_m (a_mj - c_mj) psi_mj, as :func:`quadrature_block`
    computes them (transposed there); the node count is the same bound.
    """
    kernels = numba_kernels()
    M = a.shape[0]
    if work is None:
        work = Workspace(d * M)
    A, C = (_row_major(x, a.shape, name, work, kernels["copy"]) for x, name in ((a, "nbA"), (c, "nbC")))
    out = work.get("nbout", M, d)
    prod_c, bad = (work.get(name, 1, M)[0] for name in ("nbprod", "nbbad"))
    s0, s1, s2 = kernels["sums"](A, C, prod_c)
    nodes = nodes_needed(s1, s2, d, s0) if s1 >= 0 else max(1, math.ceil(d / 2))
    t, s, omega = gauss_legendre_01(nodes)
    kernels["quadrature"](A, C, w, t, s, omega, out, bad)
    if bad.any():  # a factor is zero in both states, or the product overflowed
        rows = bad != 0
        cb = None if c is None else C[rows]
        psi = psi_prefix_suffix(A[rows], cb, d)
        out[rows] = psi * w[rows, None] * (A[rows] - (1.0 if cb is None else cb))
    return out, prod_c


def _row_major(x, shape, name, work, copy):
    """x (M, d) as a C-contiguous float64 array (None: ones), copied into the workspace if need be."""
    if x is not None and x.flags.c_contiguous:
        return x
    out = work.get(name, *shape)
    if x is None:
        out[...] = 1.0
    else:
        copy(x, out)
    return out
