"""Exact Shapley values of product games in polynomial time.

For a multiplicative game g(S) = prod_{l in S} a_l prod_{l not in S} c_l the
Shapley weight is a Beta integral, mu(q) = int_0^1 t^q (1-t)^(d-1-q) dt, so

    phi_j(g) = (a_j - c_j) int_0^1 prod_{l != j} (t a_l + (1-t) c_l) dt.

The integrand is a polynomial of degree d-1 in t: Gauss-Legendre quadrature
with ceil(d/2) nodes on [0, 1] is exact. When a and c lie in [0, 1] (kernel
values) every factor is a convex combination of non-negative numbers, so no
cancellation occurs at any d. The same identity underlies QuadraSHAP
(Mohammadi et al.) for product games in general.

How many nodes
--------------
Exactness for every polynomial of degree d-1 is more than double precision
needs: kernel values near 1 make the integrand nearly exp(-t sum_l (1 - a_l)),
which a handful of nodes integrates to rounding. For a, c >= 0 the count is
chosen per block of terms from a bound (never more than ceil(d/2)). With
rho_l = (a_l - c_l) / (a_l + c_l), S1 = sum_l |rho_l|, S2 = sum_l rho_l^2,
S0 = |sum_l rho_l| and any Bernstein-ellipse parameter R > 1, H = (R + 1/R)/2:

1. g_j(t) = prod_{l != j} (c_l + t (a_l - c_l)) is a polynomial, so its
   Chebyshev coefficients on [0, 1] satisfy |b_k| <= 2 M R^-k with M its
   largest modulus on the ellipse; n-point Gauss-Legendre integrates T_k
   exactly for k < 2n, odd T_k to zero, and errs by at most 2 + 2/(k^2-1)
   on the others, so the error is at most (8/3) M R^(2-2n) / (R^2 - 1).
2. On the ellipse |t - 1/2| <= H/2, hence with m_l = (a_l + c_l)/2,
   M <= prod_l m_l (1 + H |rho_l|) <= prod_l m_l exp(H S1), and by
   log|1 + w| <= Re w + |w|^2 / 2 also M <= prod_l m_l exp(H S0 + H^2 S2 / 2)
   (the better one when a - c changes sign, as in interventional games).
3. psi_j >= exp(int_0^1 log g_j) (Jensen) = prod_{l != j} I(a_l, c_l), the
   identric means, and log(m_l / I(a_l, c_l)) = sum_k rho^2k / (2k (2k+1))
   <= (1 - log 2) rho_l^2.

So the relative error of every psi_j is at most
(8/3) R^(2-2n) / (R^2 - 1) exp(min(H S1, H S0 + H^2 S2/2) + (1 - log 2) S2);
the smallest n that brings the best R below 2^-53 is used. At d = 500 with
an RBF lengthscale sqrt(d/2) that is 9 nodes instead of 250, about one or
two more than the fewest that reach the accuracy (tested against mpmath).
Negative or non-finite factors, or a factor zero in both states, get
ceil(d/2). Each factor is formed from one node parameter (c + t (a - c) for
t <= 1/2, a - (1-t)(a - c) beyond): a rounded pair (t, 1 - t) that does not
add up to 1 would shift every factor the same way, ~d/2 ulps over d factors.

Three routes compute the same numbers and are registered as estimators of
:func:`kernelxai.shapley_values`:

``"product"`` (alias ``"quadrature"``)
    the Beta-integral identity by Gauss-Legendre quadrature: O(R d n) per
    instance for R terms and n <= ceil(d/2) nodes (above), no cancellation,
    accurate at any d; numpy by default, or compiled with numba
    (``backend="numba"``, the extra ``kernelxai[numba]``);
``"stable"``
    PKeX-Shapley Alg. 2: the elementary symmetric polynomials e_q(Z_{-j}) by
    the coefficient recursion of the characteristic polynomial, with the
    scaling of Alg. 2, then psi_j = sum_q mu(q) e_q(Z_{-j}). O(R d^3);
    accurate, but e_q ~ C(d-1, q) overflows the double range once d >~ 1030;
``"newton"``
    PKeX-Shapley Alg. 1 (Theorem 3): e_q(Z_{-j}) by Newton's identities from
    power sums. O(R d^3); the alternating sums cancel catastrophically, and
    the values lose all accuracy around d ~ 50-70.

The paper's routes are written for the functional baseline game (c = 1). For a
general product game they are homogenised: h_q = sum_{|S| = q} prod_S a
prod_{rest} c, computed by the recursion h_q <- c_i h_q + a_i h_{q-1} (equal to
Alg. 2 when c = 1), and Newton's identities run on the ratios a / c (so they
need c != 0).

The estimators work on any :class:`~kernelxai.games.ProductGame`; they know
nothing of kernels.
"""

from __future__ import annotations

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

import numpy as np
from tqdm.auto import tqdm

from scipy.special import gammaln

from .._config import progress_enabled, working_elements
from .._validation import check_choice, check_positive_int
from ..games.core import ProductGame, SumOfProductGames

__all__ = ["gauss_legendre_01", "leave_one_out_product", "product_shapley",
           "shapley_weights_exact", "reference_shapley", "estimate_nodes", "ROUTES", "BACKENDS",
           "PrecisionError"]

#: The routes of :func:`product_shapley`, by name.
ROUTES = ("quadrature", "stable", "newton")

# ``np.longdouble`` is the 80-bit x87 format on x86-64 Linux (64-bit mantissa);
# where it is plain double the refinement below still converges, to ~1e-16.
_LD = np.longdouble

class PrecisionError(FloatingPointError):
    """A route's own error bound says its result would not be accurate."""


#: Largest relative error bound the paper's routes may return (``tolerance``).
DEFAULT_TOLERANCE = 1e-8


#: Default size of one task (float64 numbers per working array), chosen to stay near the cache.
_WORK_ELEMENTS = 2**17


def _legendre_pair(theta, q):
    """P_q and P_{q-1} at x = cos(theta), for 0 <= theta <= pi/2, in extended precision.

    The three-term recurrence is run on differences E_k = P_k - P_{k-1} with
    u = 1 - x = 2 sin^2(theta/2) as input: (k+1) E_{k+1} = k E_k - (2k+1) u P_k.
    Near x = 1, x itself cannot carry theta to full precision and the plain
    recurrence loses digits (P' is of order q^2 there); u can.
    """
    u = 2 * np.sin(theta / 2) ** 2
    p_prev, p = np.ones_like(u), 1 - u
    e = -u
    for k in range(1, q):
        e = (k * e - (2 * k + 1) * u * p) / (k + 1)
        p_prev, p = p, p + e
    return p, p_prev


@lru_cache(maxsize=128)
def _gauss_legendre_01(q):
    x0, _ = np.polynomial.legendre.leggauss(q)
    # the roots with x >= 0 (theta in [0, pi/2]); the others are their mirror images
    theta = np.arccos(x0[x0 >= -1e-300]).astype(_LD)
    for _ in range(50):
        p, p_prev = _legendre_pair(theta, q)
        # d/dtheta P_q(cos theta) = q (x P_q - P_{q-1}) / sin(theta)
        step = p * np.sin(theta) / (q * (np.cos(theta) * p - p_prev))
        theta = theta - step
        if np.max(np.abs(step / theta)) < 8 * np.finfo(_LD).eps:
            break
    _, p_qm1 = _legendre_pair(theta, q)
    # weight on [-1, 1]: 2 (1 - x^2) / (q P_{q-1}(x))^2; halved for [0, 1]
    weight = np.sin(theta) ** 2 / (q * q * p_qm1 * p_qm1)
    t = np.cos(theta / 2) ** 2          # (1 + x) / 2 >= 1/2
    s = np.sin(theta / 2) ** 2          # (1 - x) / 2 = 1 - t, without cancellation
    mirror = slice(None) if q % 2 == 0 else slice(1, None)  # x = 0 appears once
    t_all = np.concatenate([s[mirror][::-1], t])
    s_all = np.concatenate([t[mirror][::-1], s])
    w_all = np.concatenate([weight[mirror][::-1], weight])
    order = np.argsort(t_all)
    out = tuple(np.asarray(v[order], dtype=float) for v in (t_all, s_all, w_all))
    for v in out:
        v.setflags(write=False)
    return out


def gauss_legendre_01(q):
    """Gauss-Legendre nodes and weights on [0, 1], accurate to about one ulp.

    Nodes from numpy's ``leggauss`` carry relative errors of 1e-13 to 1e-11
    for tens to hundreds of nodes, which shows in Shapley values when kernel
    values are small. Here they are refined by Newton's method on
    P_q(cos theta) in extended precision, and both t and 1 - t are returned,
    each computed without cancellation (t = cos^2(theta/2), 1-t = sin^2(theta/2)).

    Returns
    -------
    t, one_minus_t, weights : ndarray (q,)
        Integrates polynomials of degree <= 2q - 1 on [0, 1] exactly.
    """
    q = int(q)
    if q < 1:
        raise ValueError(f"need at least one node; got {q}")
    return _gauss_legendre_01(q)


@lru_cache(maxsize=64)
def _shapley_weights_exact(d):
    out = np.array([1 / (d * math.comb(d - 1, q)) for q in range(d)], dtype=float)
    out.setflags(write=False)
    return out


def shapley_weights_exact(d):
    """mu(q) = q! (d-q-1)! / d! = 1 / (d C(d-1, q)), q = 0..d-1, correctly rounded.

    Computed from exact integer binomials, so each weight carries only the
    final rounding (the log-gamma route loses ~d * 1e-16 relative at large d).
    Weights below the double range come out as 0 (d >~ 1030).
    """
    d = check_positive_int(d, "number of players")
    return _shapley_weights_exact(d)


def leave_one_out_product(F, *, out=None):
    """prod_{l != j} F[..., l] for every j, along the last axis.

    Computed as the total product divided by the own factor, which is as
    accurate as the product itself; rows where a factor is zero or the total
    underflows fall back to prefix x suffix products.
    """
    total = np.prod(F, axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        res = np.divide(total, F, out=out)
    bad = np.abs(total[..., 0]) < 1e-290
    if np.any(bad):
        res[bad] = _prefix_suffix(F[bad], axis=-1)
    return res


def _prefix_suffix(G, axis):
    """prod_{l != j} G[l] along ``axis`` by exclusive prefix and suffix products (no division)."""
    G = np.moveaxis(G, axis, -1)
    prefix = np.ones_like(G)
    suffix = np.ones_like(G)
    if G.shape[-1] > 1:
        prefix[..., 1:] = np.cumprod(G[..., :-1], axis=-1)
        suffix[..., :-1] = np.cumprod(G[..., :0:-1], axis=-1)[..., ::-1]
    return np.moveaxis(prefix * suffix, -1, axis)


# --------------------------------------------------------------------------- #
# the three routes: psi[m, j] for terms m, so that phi_j = sum_m w_m (a_mj - c_mj) psi[m, j]
# first the quadrature: how many nodes the accuracy needs, and its kernel
# --------------------------------------------------------------------------- #
#: Relative truncation error allowed in each integral psi_j: half an ulp of 1,
#: below the rounding error the products themselves carry.
_TRUNCATION = 2.0**-53

#: Bernstein-ellipse parameters over which the node bound is minimised.
_RHO = 1.0 + np.geomspace(1e-3, 1e8, 512)
_LOG_RHO = np.log(_RHO)
_HALF_AXIS = (_RHO + 1.0 / _RHO) / 2
_BOUND_CONST = math.log(8 / 3) - np.log((_RHO - 1) * (_RHO + 1)) - math.log(_TRUNCATION)
_H_MAX = 1.0 - math.log(2.0)


def _nodes_needed(s1, s2, d, s0=None):
    """Gauss-Legendre nodes that integrate every psi_j to relative error 2^-53.

    For factors a_l, c_l >= 0 (a_l + c_l > 0) write rho_l = (a_l - c_l) / (a_l + c_l).
    Given ``s1 >= sum_l |rho_l|``, ``s2 >= sum_l rho_l^2`` and optionally
    ``s0 >= |sum_l rho_l|``, the truncation error of n nodes, relative to every
    psi_j, is at most

        (8/3) R^(2-2n) / (R^2 - 1) * exp(min(H s1, H s0 + H^2 s2 / 2) + (1 - log 2) s2),

    H = (R + 1/R) / 2, for every Bernstein-ellipse parameter R > 1 (module
    docstring). The count returned is the smallest n that brings the best of
    these below 2^-53, and never more than ceil(d/2), which is exact whatever
    the factors. Non-finite sums (a factor zero in both states, or a
    negative factor reported as NaN) get ceil(d/2).
    """
    full = max(1, math.ceil(d / 2))
    sums = (s1, s2) if s0 is None else (s0, s1, s2)
    if not all(math.isfinite(v) and v >= 0 for v in sums):
        return full
    if s1 == 0:  # every factor is constant in t
        return 1
    growth = _HALF_AXIS * s1
    if s0 is not None:  # mixed signs of a - c cancel in the growth off the real interval
        growth = np.minimum(growth, _HALF_AXIS * s0 + _HALF_AXIS**2 * (s2 / 2))
    need = 1 + (_BOUND_CONST + growth + _H_MAX * s2) / (2 * _LOG_RHO)
    return int(min(full, max(1, math.ceil(need.min()))))


def _node_count(A, C, D, d, scratch, scratch2):
    """Nodes needed for the terms (columns) of one block; see :func:`_nodes_needed`.

    A, C (d, M) hold the present and absent factors (C None: all ones) and
    D = A - C; the sums are taken per term and their largest values used for
    the whole block. The bound needs non-negative factors; otherwise, or when
    any factor is not finite, the block gets ceil(d/2) nodes (exact).
    """
    full = max(1, math.ceil(d / 2))
    a_min, a_max = float(A.min()), float(A.max())
    if C is None:
        if not (a_min >= 0 and a_max <= 1.0):
            return _node_count(A, np.ones_like(A), D, d, scratch, scratch2)
        # |rho_l| = (1 - a_l) / (1 + a_l) <= (1 - a_l) / (1 + a_min), all of one sign
        s1 = -float(np.add.reduce(D, axis=0).min()) / (1 + a_min)
        return _nodes_needed(s1, s1 * (1 - a_min) / (1 + a_min), d)
    if not (a_min >= 0 and float(C.min()) >= 0 and math.isfinite(a_max)):
        return full
    np.add(A, C, out=scratch2)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(D, scratch2, out=scratch)      # rho_l; NaN where a_l = c_l = 0
    s0 = float(np.abs(np.add.reduce(scratch, axis=0)).max())
    np.abs(scratch, out=scratch2)
    s1 = float(np.add.reduce(scratch2, axis=0).max())
    np.multiply(scratch, scratch, out=scratch)
    s2 = float(np.add.reduce(scratch, axis=0).max())
    return _nodes_needed(s1, s2, d, s0)


class _Workspace:
    """Working arrays of the quadrature kernel, reused from block to block.

    Fresh arrays of this size cost more to map and touch (page faults) than
    the arithmetic done on them, so each thread allocates one workspace and
    hands out contiguous (d, M) views of it.
    """

    def __init__(self, size):
        self.size = int(size)
        self._flat = {}

    def get(self, name, rows, cols):
        """A C-contiguous (rows, cols) array, reusing the buffer of that name."""
        flat = self._flat.get(name)
        if flat is None or flat.size < rows * cols:
            flat = self._flat[name] = np.empty(max(self.size, rows * cols))
        return flat[:rows * cols].reshape(rows, cols)


def _quadrature_block(a, c, d, w=None, nodes=None, work=None):
    """Weighted integrals of one block of terms, transposed: the quadrature kernel.

    Parameters
    ----------
    a : (M, d); c : (M, d) or None (all ones); w : (M,) or None (all ones)
    nodes : int, optional
        Number of Gauss-Legendre nodes; default: as many as the accuracy needs
        (:func:`_node_count`).
    work : _Workspace, optional
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
        work = _Workspace(d * M)
    D, F, G = (work.get(name, d, M) for name in ("D", "F", "G"))
    A = _transposed(a, "A", work)
    if c is None:
        C = None
        np.subtract(A, 1.0, out=D)
    else:
        C = _transposed(c, "C", work)
        np.subtract(A, C, out=D)
    if nodes is None:
        nodes = _node_count(A, C, D, d, F, G)
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
        psi = _psi_prefix_suffix(a[bad], None if c is None else c[bad], d)
        G[:, bad] = (psi if w is None else psi * w[bad, None]).T
    return G, D, C


def _transposed(x, name, work):
    """x.T (d, M) as a C-contiguous array in the workspace.

    Always a copy: per-feature Gram tensors are feature-major, so x.T is often
    a view with contiguous rows, but rows spread over the whole tensor (one
    page each), which every pass over the factors would walk again.
    """
    out = work.get(name, x.shape[1], x.shape[0])
    out[...] = x.T
    return out


def _psi_prefix_suffix(a, c, d):
    """psi (M, d) with ceil(d/2) nodes and leave-one-out products by prefix x suffix (no division)."""
    t, s, omega = gauss_legendre_01(max(1, math.ceil(d / 2)))
    a = a[:, :, None]
    c = 1.0 if c is None else c[:, :, None]
    G = np.where(t <= 0.5, c + t * (a - c), a - s * (a - c))   # (M, d, q), as in the kernel
    return np.einsum("mdq,q->md", _prefix_suffix(G, axis=1), omega)


def _psi_quadrature(a, c, d):
    """psi_j = int_0^1 prod_{l != j} (t a_l + (1-t) c_l) dt by Gauss-Legendre.

    a, c : (M, d); c None means all ones. Returns psi (M, d). Blocks of terms
    go through :func:`_quadrature_block` with as many nodes as the accuracy
    needs (at most ceil(d/2)). No BLAS call is made here: this runs on several
    Python threads at once, and concurrent calls into a threaded OpenBLAS are
    not safe everywhere.
    """
    M = a.shape[0]
    psi = np.empty((M, d))
    step = max(1, _WORK_ELEMENTS // max(1, d))
    work = _Workspace(d * min(M, step))
    for lo in range(0, M, step):
        hi = min(M, lo + step)
        G, _, _ = _quadrature_block(a[lo:hi], None if c is None else c[lo:hi], d, work=work)
        psi[lo:hi] = G.T
    return psi


# --------------------------------------------------------------------------- #
# the same kernel compiled with numba (optional: backend="numba")
# --------------------------------------------------------------------------- #
#: The kernels of the quadrature route: "numpy" (default) or "numba" (the extra kernelxai[numba]).
BACKENDS = ("numpy", "numba")

_NUMBA = {}
_NUMBA_LOCK = threading.Lock()


def _numba_kernels():
    """Compile (once per process) and return the numba kernels of the quadrature.

    ``copy`` brings a block of terms into row-major order when it is not (per-
    feature Gram tensors are feature-major); ``sums`` takes the sums the node
    count needs, and prod_l c_l, per term; ``quadrature`` runs the loops of
    :func:`_quadrature_block` one term at a time, so that its d factors stay
    in the first-level cache: per node one loop forms the factors and their
    product, a second adds the leave-one-out products. ``fastmath={"reassoc"}``
    lets the compiler split sums and the product over features into vector
    lanes (a different order of the same operations; no other fast-math
    licence is taken, so NaN and inf still flag the terms to redo).
    ``error_model="numpy"`` keeps division free of Python's zero check, which
    would stop vectorisation. The signatures are given, so compilation (a few
    seconds) happens here, once, for inputs of any layout.
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
            f8 = types.float64
            any2 = types.Array(f8, 2, "A", readonly=True)
            row2 = types.Array(f8, 2, "C", readonly=True)
            any1 = types.Array(f8, 1, "A", readonly=True)
            out2, out1 = types.Array(f8, 2, "C"), types.Array(f8, 1, "C")
            jit = dict(nogil=True, error_model="numpy", fastmath={"reassoc"}, cache=False)

            @numba.njit(types.void(any2, out2), **jit)
            def copy(a, A):
                # any layout in, row-major out (numpy's own copy of a transposed view is slower)
                for m in range(a.shape[0]):
                    for l in range(a.shape[1]):
                        A[m, l] = a[m, l]

            @numba.njit(types.UniTuple(f8, 3)(row2, row2, out1), **jit)
            def sums(A, C, prod_c):
                # prod_c[m] = prod_l c_ml; returns the largest |sum_l rho_l|, sum_l |rho_l|,
                # sum_l rho_l^2 over terms, rho = (a - c) / (a + c), or -1 for all three when
                # there is no bound (see _nodes_needed)
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

            @numba.njit(types.void(row2, row2, any1, any1, any1, any1, out2, out1), **jit)
            def quadrature(A, C, w, t, s, omega, out, bad):
                # out[m, j] = w_m (a_mj - c_mj) psi_mj; bad[m] = 1 where that is not finite
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

            _NUMBA["copy"] = copy
            _NUMBA["sums"] = sums
            _NUMBA["quadrature"] = quadrature
    return _NUMBA


def _quadrature_contrib_numba(a, c, d, w, work=None):
    """The numba kernel on one block of terms: contributions (M, d) and prod_l c_ml (M,).

    contributions[m, j] = w_m (a_mj - c_mj) psi_mj, as :func:`_quadrature_block`
    computes them (transposed there); the node count is the same bound.
    """
    kernels = _numba_kernels()
    M = a.shape[0]
    if work is None:
        work = _Workspace(d * M)
    A, C = (_row_major(x, a.shape, name, work, kernels["copy"]) for x, name in ((a, "nbA"), (c, "nbC")))
    out = work.get("nbout", M, d)
    prod_c, bad = (work.get(name, 1, M)[0] for name in ("nbprod", "nbbad"))
    s0, s1, s2 = kernels["sums"](A, C, prod_c)
    nodes = _nodes_needed(s1, s2, d, s0) if s1 >= 0 else max(1, math.ceil(d / 2))
    t, s, omega = gauss_legendre_01(nodes)
    kernels["quadrature"](A, C, w, t, s, omega, out, bad)
    if bad.any():  # a factor is zero in both states, or the product overflowed
        rows = bad != 0
        cb = None if c is None else C[rows]
        psi = _psi_prefix_suffix(A[rows], cb, d)
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


def _psi_stable(a, c, d):
    """PKeX-Shapley Alg. 2: psi_j = sum_q mu(q) e_q(Z_{-j}) by the coefficient recursion.

    For every j the polynomial prod_{l != j} (x + z_l) (homogenised: (c_l x + a_l))
    is built one factor at a time, coefficient by coefficient (Alg. 2, lines
    8-18, with the signs of the characteristic polynomial dropped: both terms
    of each update have the same sign, so the arithmetic is the same). The
    factors are scaled by s = max_l |a_l| (Alg. 2, lines 6-7; here per term)
    and e_q is multiplied by s^q at the end (line 19). The polynomials of all
    j that have not yet skipped their own factor are identical, so one shared
    prefix stands in for them -- the same operations in the same order as
    running Alg. 2 separately for each j. Work O(d^3) per term.
    """
    return _stable_core(a, c, d)


def _stable_core(a, c, d):
    M = a.shape[0]
    scale = np.abs(a).max(axis=1)
    scale[scale == 0] = 1.0
    A = (a / scale[:, None]).T       # (d, M)
    C = None if c is None else c.T
    H = np.zeros((d, d, M))          # H[q, j, m]: coefficients of the polynomial without j
    P = np.zeros((d + 1, M))         # shared prefix, degree <= i after i factors
    P[0] = 1.0
    with np.errstate(over="ignore", invalid="ignore"):
        for i in range(d):
            if i:
                view = H[:i + 1, :i]
                shifted = A[i] * view[:i]
                if C is not None:
                    view *= C[i]
                view[1:] += shifted
            H[:i + 1, i] = P[:i + 1]
            shifted = A[i] * P[:i + 1]
            if C is not None:
                P[:i + 2] *= C[i]
            P[1:i + 2] += shifted
        weights = shapley_weights_exact(d)[:, None] * scale[None, :] ** np.arange(d)[:, None]
        return np.einsum("qjm,qm->mj", H, weights)


def _psi_newton(a, c, d):
    """PKeX-Shapley Alg. 1 (Theorem 3): e_q(Z_{-j}) by Newton's identities.

    Power sums p_r(Z_{-j}) = sum_{l != j} z_l^r (exclusive prefix + suffix
    sums, r = 1..d-1), then e_q = (1/q) sum_{r=1}^q (-1)^{r-1} e_{q-r} p_r and
    psi_j = sum_q mu(q) e_q(Z_{-j}). With absent factors c != 1 the identities
    run on z = a / c and psi_j carries prod_{l != j} c_l. The alternating sum
    is what makes this route lose accuracy as d grows.
    """
    M = a.shape[0]
    if c is not None and np.any(c == 0):
        raise ValueError(
            "method='newton' (PKeX Alg. 1) works with the ratios a/c of present to absent "
            "factors and this game has absent factors equal to 0; use method='product' (the "
            "quadrature) or 'stable'"
        )
    z = a if c is None else a / c
    if d == 1:
        return np.ones((M, 1))
    power = np.ones_like(z)
    signed = np.empty((d - 1, M, d))  # (-1)^(r-1) p_r(Z_{-j}), r = 1..d-1
    with np.errstate(over="ignore", invalid="ignore"):
        for r in range(1, d):
            power = power * z
            signed[r - 1] = _exclusive_sum(power)
            if r % 2 == 0:
                signed[r - 1] *= -1
        E = np.empty((d, M, d))
        E[0] = 1.0
        for q in range(1, d):
            E[q] = np.einsum("rmj,rmj->mj", E[q - 1::-1], signed[:q]) / q
        psi = np.einsum("qmj,q->mj", E, shapley_weights_exact(d))
    if c is not None:
        psi = psi * _prefix_suffix(c, axis=1)
    return psi


def _exclusive_sum(P):
    """sum_{l != j} P[:, l] for every j, by exclusive prefix + suffix sums (no subtraction)."""
    out = np.zeros_like(P)
    out[:, 1:] += np.cumsum(P[:, :-1], axis=1)
    out[:, :-1] += np.cumsum(P[:, :0:-1], axis=1)[:, ::-1]
    return out


_PSI = {"quadrature": _psi_quadrature, "stable": _psi_stable, "newton": _psi_newton}


# --------------------------------------------------------------------------- #
# the driver: stream term blocks, split them into cache-sized tasks, run tasks on threads
# --------------------------------------------------------------------------- #
def _is_one(c):
    if c.size == 0:
        return True
    if c.flat[0] != 1.0:  # kernel values of absent features are rarely all 1: settle it early
        return False
    if all(st == 0 for st in c.strides):
        return True
    return bool(np.all(c == 1.0))


def _tasks(game, route, max_elements, work_elements):
    """Yield (rows, per_instance, starts, w, a, c) tasks of at most ~work_elements numbers.

    ``a`` (M, d) and ``c`` (M, d) or None are the factors of M terms;
    ``per_instance`` False means the terms belong to every instance in
    ``rows``; else ``starts`` (offsets of each instance's first term, for
    ``np.add.reduceat``) and the instances ``rows`` covered by the task.
    """
    d = game.n_players
    if route == "quadrature":  # one task = one block of the kernel: d x step numbers per array
        step = max(1, work_elements // d)
    else:  # the recursions loop over d in Python: larger tasks amortise it
        step = max(1, 16 * work_elements // (d * d))
    for rows, w, a, c in game.iter_terms(max(d, max_elements // 4)):
        a, c, w = np.asarray(a, dtype=float), np.asarray(c, dtype=float), np.asarray(w, dtype=float)
        shape = np.broadcast_shapes(a.shape, c.shape, w.shape + (1,))
        K, R = shape[0], shape[1]
        if R == 0:
            continue
        start = rows.start or 0
        n_rows = len(range(*rows.indices(game.n_instances)))
        per_instance = K != 1 or n_rows == 1
        c_one = _is_one(c)
        a = np.broadcast_to(a, shape).reshape(K * R, d)
        w = np.broadcast_to(w, shape[:2]).reshape(K * R)
        if c_one:
            c = None
        else:
            c = np.broadcast_to(c, shape).reshape(K * R, d)
        for lo in range(0, K * R, step):
            hi = min(K * R, lo + step)
            cc = None if c is None else c[lo:hi]
            if per_instance:
                first, last = lo // R, (hi - 1) // R
                bounds = np.arange(first, last + 1) * R
                starts = np.maximum(bounds, lo) - lo
                task_rows = slice(start + first, start + last + 1)
            else:
                starts, task_rows = None, rows
            yield task_rows, per_instance, starts, w[lo:hi], a[lo:hi], cc


# --------------------------------------------------------------------------- #
# the node count ahead of time, for the cost model
# --------------------------------------------------------------------------- #
#: Terms the node-count probe looks at (at most), and the numbers (terms x d) it may hold.
_PROBE_TERMS = 4096
_PROBE_ELEMENTS = 2**19

#: Where a game keeps its node estimates (see :func:`estimate_nodes`).
_ESTIMATE_ATTRIBUTE = "_kx_node_estimates"


def estimate_nodes(game, *, max_terms=None, work_elements=_WORK_ELEMENTS):
    """Gauss-Legendre nodes the quadrature route will use on ``game``, from its first terms.

    The quadrature chooses its node count per task of terms from a bound
    (module docstring, "How many nodes"): often a handful where ceil(d/2)
    would be exact for any factors. This takes the first terms the game
    yields, splits them into tasks as :func:`product_shapley` does, and
    returns the largest count the kernel would choose for those tasks -- an
    estimate for the whole game, exact for the terms it saw. Terms further on
    may need more (up to ceil(d/2)) or fewer.

    Parameters
    ----------
    game : ProductGame
    max_terms : int, optional
        Terms to look at; default 4096, fewer at large d (at most 2^19 numbers,
        terms x d). The game is asked for blocks of about that size, so one
        small block is formed (a game whose smallest block is larger, e.g.
        one explained point against every training point, forms that block).
    work_elements : int
        Size of one task, as in :func:`product_shapley`.

    Returns
    -------
    int
        In 1..ceil(d/2); ceil(d/2) when the game yields no terms.

    Notes
    -----
    The parts of a :class:`~kernelxai.games.SumOfProductGames` (e.g. the
    summands of a SumKernel) are looked at each in turn, and the largest of
    their counts is returned: the first part's terms say nothing of the
    others'.

    The estimate is cached on the game (games are not changed after they
    are made): cost estimates ask for it several times per call. The cache
    is dropped when any attribute of the game is rebound, or its number of
    players, instances or terms changes. The numba backend takes the same
    bound from exact per-term sums, so it uses at most as many nodes.
    """
    return _estimate_nodes(game, max_terms, work_elements)[0]


def _estimate_nodes(game, max_terms=None, work_elements=_WORK_ELEMENTS):
    """(nodes, terms looked at, whether any absent factor differs from 1) of :func:`estimate_nodes`.

    For d <= 2 (one node is exact) nothing is looked at and the absent
    factors are taken to be general.
    """
    if not isinstance(game, ProductGame):
        raise TypeError(f"estimate_nodes needs a ProductGame; got {type(game).__name__}")
    d = game.n_players
    full = max(1, math.ceil(d / 2))
    if max_terms is None:
        max_terms = max(1, min(_PROBE_TERMS, _PROBE_ELEMENTS // max(1, d)))
    max_terms = check_positive_int(max_terms, "max_terms")
    work_elements = check_positive_int(work_elements, "work_elements")
    key = (max_terms, work_elements)
    names, values = _game_stamp(game)
    store = game.__dict__.get(_ESTIMATE_ATTRIBUTE)
    if (store is None or store["names"] != names or len(store["values"]) != len(values)
            or any(x is not y for x, y in zip(store["values"], values))):
        store = {"names": names, "values": values, "estimates": {}}
    if key not in store["estimates"]:
        store["estimates"][key] = _probe_nodes(game, d, full, max_terms, work_elements)
        try:
            setattr(game, _ESTIMATE_ATTRIBUTE, store)
        except AttributeError:  # pragma: no cover - a game that takes no attributes: no cache
            pass
    return store["estimates"][key]


def _game_stamp(game):
    """What the node estimate of ``game`` depends on: its sizes and its attributes (by identity)."""
    own = sorted((k, v) for k, v in vars(game).items() if k != _ESTIMATE_ATTRIBUTE) \
        if hasattr(game, "__dict__") else []
    names = (type(game), game.n_players, game.n_instances, game.n_terms(), tuple(k for k, _ in own))
    return names, tuple(v for _, v in own)


def _summands(game):
    """The product games whose terms ``game`` yields one after the other (itself, or a sum's parts).

    The terms of a :class:`~kernelxai.games.SumOfProductGames` are those of its
    parts in turn and no task mixes two parts, so each part gets its own node
    counts (e.g. the summands of a SumKernel with different lengthscales).
    """
    if isinstance(game, SumOfProductGames) and type(game).iter_terms is SumOfProductGames.iter_terms:
        return [part for g in game.games for part in _summands(g)]
    return [game]


def _probe_nodes(game, d, full, max_terms, work_elements):
    if full == 1:
        return 1, 0, True
    parts = _summands(game)
    if len(parts) > 1:  # each part's first terms (its own cache): the largest count, all terms seen
        found = [_estimate_nodes(part, max_terms, work_elements) for part in parts]
        return (max(q for q, _, _ in found), sum(k for _, k, _ in found),
                any(g for _, _, g in found))
    nodes, seen, general = 0, 0, False
    space = _Workspace(work_elements)
    tasks = _tasks(game, "quadrature", 4 * max_terms * d, work_elements)
    try:
        for _, _, _, _, a, c in tasks:
            take = min(len(a), max_terms - seen)
            a, c = a[:take], None if c is None else c[:take]
            M = a.shape[0]
            # as _quadrature_block forms them: (d, M) factors, their differences, two scratch arrays
            D, F, G = (space.get(name, d, M) for name in ("D", "F", "G"))
            A = _transposed(a, "A", space)
            C = None if c is None else _transposed(c, "C", space)
            np.subtract(A, 1.0 if C is None else C, out=D)
            nodes = max(nodes, _node_count(A, C, D, d, F, G))
            general = general or C is not None
            seen += take
            if seen >= max_terms or nodes >= full:
                break
    finally:
        tasks.close()
    if seen == 0:
        return full, 0, True
    return nodes, seen, general


def _default_jobs():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def product_shapley(game, *, route="quadrature", max_elements=None, n_jobs=None,
                    progress=None, work_elements=_WORK_ELEMENTS, tolerance=DEFAULT_TOLERANCE,
                    return_bound=False, backend="numpy"):
    """Exact Shapley values and v(empty) of a :class:`ProductGame`.

    Parameters
    ----------
    game : ProductGame
    route : {"quadrature", "stable", "newton"}
        How psi_j = sum_q mu(q) e_q(Z_{-j}) is computed (see the module
        docstring): the Beta-integral quadrature (module docstring), PKeX-Shapley
        Alg. 2 (coefficient recursion) or Alg. 1 (Newton's identities).
    max_elements : int
        Size (float64 numbers) of the term blocks requested from the game.
    n_jobs : int, optional
        Threads working on term blocks (numpy releases the GIL); default: the
        CPUs available to this process. The per-task kernels make no BLAS
        calls, so the threads never enter a threaded BLAS concurrently. The
        blocks' sums are added in block order whichever thread computed them,
        so the result is bit-for-bit that of ``n_jobs=1``.
    progress : bool, optional
        Show a tqdm bar over terms.
    work_elements : int
        Size of one task: for the quadrature the numbers (d x terms) in each
        of its working arrays; the default keeps them near the cache.
    tolerance : float or None
        The paper's routes measure their own error: each block of terms is
        checked against the quadrature (no cancellation, O(d^2) per term
        against their O(d^3)); when the normwise relative error of a term
        exceeds ``tolerance`` a :class:`PrecisionError` is raised with
        advice, and ``"stable"`` refuses up front where its coefficients
        would overflow. ``None`` returns whatever the route computes (for
        showing how the routes fail).
    return_bound : bool
        Also return the largest measured relative error over all terms (0
        for the quadrature).
    backend : {"numpy", "numba"}
        The quadrature's kernel: numpy (default), or the same loops compiled
        with numba (optional extra ``kernelxai[numba]``; compiled on first use,
        a few seconds once per process), several times faster. Both agree to
        rounding (1e-13 relative is tested). The paper's routes are numpy only.

    Returns
    -------
    values : ndarray (n_instances, d)
        With ``tolerance=None`` may hold inf/NaN where a route overflows
        (``"stable"`` at d >~ 1030).
    base_values : ndarray (n_instances,)
    error : float
        Only with ``return_bound=True``.

    Notes
    -----
    Cost per instance for R terms: O(R d n) for the quadrature with n <=
    ceil(d/2) nodes, as few as its accuracy needs (module docstring), and
    O(R d^3) for the paper's routes; memory O(work_elements) per thread. The
    terms are streamed in blocks and no coalition is ever formed; the points
    of a block are integrated together.
    """
    if not isinstance(game, ProductGame):
        raise TypeError(
            f"method={route!r} needs a ProductGame -- a value function of a model with a "
            f"product kernel; got {type(game).__name__}. Use method='exact' or 'kernel' instead"
        )
    check_choice(route, "route", ROUTES)
    check_choice(backend, "backend", BACKENDS)
    if backend == "numba" and route == "quadrature":
        _numba_kernels()  # compile (or fail for want of numba) before any thread starts
    d, n = game.n_players, game.n_instances or 1
    n_jobs = _default_jobs() if n_jobs is None else check_positive_int(n_jobs, "n_jobs")
    if max_elements is None:
        max_elements = working_elements(8)
    psi_of = _PSI[route]
    tasks = enumerate(_tasks(game, route, max_elements, work_elements))
    # Each task's sums are added in task order, whichever thread finished it first: the
    # result is bit-for-bit that of one thread (parts wait in `pending` until their turn).
    phi = np.zeros((n, d))
    base = np.zeros(n)
    pending = {}
    turn = [0]
    lock = threading.Lock()
    failed = threading.Event()
    show = progress_enabled(progress)
    bar = tqdm(desc=f"product Shapley ({route})", unit="term", disable=not show, leave=False)
    worst = [0.0]

    def work():
        space = _Workspace(work_elements)
        while not failed.is_set():
            with lock:
                index, task = next(tasks, (None, None))
            if task is None:
                break
            rows, per_instance, starts, w, a, c = task
            try:
                if route == "quadrature" and backend == "numba":
                    contrib, prod_c = _quadrature_contrib_numba(a, c, d, w, work=space)
                    axis = 0
                elif route == "quadrature":
                    # transposed: contrib[j, m] = w_m (a_mj - c_mj) psi_mj, terms along axis 1
                    contrib, diff, cT = _quadrature_block(a, c, d, w, work=space)
                    np.multiply(contrib, diff, out=contrib)
                    prod_c = None if cT is None else np.multiply.reduce(cT, axis=0)
                    axis = 1
                else:
                    if route == "stable" and tolerance is not None:
                        _check_stable_range(a, c, d)
                    psi = psi_of(a, c, d)
                    top = _measured_error(psi, a, c, d)
                    with lock:
                        worst[0] = max(worst[0], top)
                    if tolerance is not None and not top <= tolerance:
                        raise PrecisionError(_precision_message(route, top, tolerance, d))
                    contrib = w[:, None] * (a - (1.0 if c is None else c)) * psi
                    prod_c = None if c is None else np.prod(c, axis=1)
                    axis = 0
            except BaseException:
                failed.set()
                raise
            if prod_c is None:
                prod_c = np.ones(len(w))
            if per_instance:
                part = np.add.reduceat(contrib, starts, axis=axis)
                part = part.T if axis else part
                base_part = np.add.reduceat(w * prod_c, starts)
            else:
                part = contrib.sum(axis=axis)
                base_part = (w * prod_c).sum()
            with lock:
                pending[index] = (rows, part, base_part)
                while turn[0] in pending:
                    r, p_, b_ = pending.pop(turn[0])
                    phi[r] += p_
                    base[r] += b_
                    turn[0] += 1
                if show:
                    bar.update(len(w))

    try:
        if n_jobs == 1:
            work()
        else:
            with ThreadPoolExecutor(n_jobs) as pool:
                futures = [pool.submit(work) for _ in range(n_jobs)]
                for f in futures:
                    f.result()
    finally:
        bar.close()
    if return_bound:
        return phi, base, worst[0]
    return phi, base


def _measured_error(psi, a, c, d):
    """Largest normwise relative error of a paper route's psi against the quadrature, over terms.

    The quadrature has no cancellation for non-negative factors and costs
    O(d^2) per term against the paper routes' O(d^3), so measuring each block
    against it adds little; non-finite output counts as an infinite error.
    """
    ref = _psi_quadrature(a, c, d)
    with np.errstate(over="ignore", invalid="ignore"):
        num = np.sqrt(np.sum((psi - ref) ** 2, axis=1))
        den = np.sqrt(np.sum(ref**2, axis=1))
        rel = np.where(den > 0, num / np.where(den > 0, den, 1.0), num)
    rel = np.where(np.isfinite(rel), rel, np.inf)
    return float(rel.max()) if len(rel) else 0.0


def _precision_message(route, bound, tolerance, d):
    name = {"newton": "Newton's identities (PKeX Alg. 1)",
            "stable": "the coefficient recursion (PKeX Alg. 2)"}.get(route, route)
    return (f"method={route!r}: {name} lost precision at d = {d}: measured against the quadrature its "
            f"relative error is {bound:.1e} (tolerance {tolerance:.0e}). Use method='product' "
            "(Gauss-Legendre quadrature of the "
            "Beta integral: exact, no cancellation at any d). To see the route's output anyway, "
            "call kernelxai.product.product_shapley(game, route=..., tolerance=None)")


#: log of the largest double: coefficients beyond it overflow.
_LOG_MAX = math.log(np.finfo(float).max)


def _check_stable_range(a, c, d):
    """Refuse before computing when Alg. 2's coefficients would overflow.

    After scaling the present factors by their maximum, e_q of the remaining
    d - 1 factors is at most C(d-1, q) max(1, max|c|)^(d-1-q); the largest of
    these must stay below the double range.
    """
    c_max = 1.0 if c is None else float(np.max(np.abs(c))) if c.size else 1.0
    q = np.arange(d)
    log_e = (gammaln(d) - gammaln(q + 1) - gammaln(d - q)
             + (d - 1 - q) * math.log(max(1.0, c_max)))
    if log_e.max() > _LOG_MAX - 2:
        raise PrecisionError(
            f"method='stable': the coefficient recursion (PKeX Alg. 2) would overflow at d = {d} "
            f"(its coefficients reach ~1e{log_e.max() / math.log(10):.0f}, beyond the double range "
            "~1.8e308). Use method='product' (the quadrature), which is accurate at any d")


# --------------------------------------------------------------------------- #
# a high-precision reference (mpmath), for checking the double-precision routes
# --------------------------------------------------------------------------- #
@lru_cache(maxsize=8)
def _mp_nodes(level, dps):
    import mpmath
    from mpmath.calculus.quadrature import GaussLegendre

    with mpmath.workdps(dps):
        raw = GaussLegendre(mpmath.mp).calc_nodes(level, mpmath.mp.prec)
        return tuple(((x + 1) / 2, (1 - x) / 2, w / 2) for x, w in raw)


def reference_shapley(game, *, dps=40, max_work=5 * 10**7):
    """Shapley values of a small :class:`ProductGame` in high precision (mpmath).

    The Beta-integral identity evaluated with mpmath arithmetic at ``dps``
    digits, Gauss-Legendre nodes from mpmath's own routine (3 * 2^(k-1) of
    them, the fewest that are exact for degree d - 1) and leave-one-out
    products from prefix and suffix products -- nothing shared with the
    double-precision code but the input factors. Pure Python: meant for
    checking, on games with few terms (cost ~ terms x d x nodes operations).

    Returns
    -------
    values : ndarray (n_instances, d)
        Rounded to double at the end.
    """
    try:
        import mpmath
    except ImportError:  # pragma: no cover - mpmath comes with the test extra
        raise ImportError("reference_shapley needs mpmath (pip install mpmath)") from None
    if not isinstance(game, ProductGame):
        raise TypeError(f"reference_shapley needs a ProductGame; got {type(game).__name__}")
    d, n = game.n_players, game.n_instances or 1
    level = 1
    while 3 * 2 ** (level - 1) < max(1, math.ceil(d / 2)):
        level += 1
    nodes = _mp_nodes(level, int(dps))
    n_terms = sum(np.broadcast_shapes(np.shape(a), np.shape(c))[1] * max(1, len(range(
        *rows.indices(n)))) for rows, _, a, c in game.iter_terms())
    if n_terms * d * len(nodes) > max_work:
        raise ValueError(
            f"reference_shapley would take ~{n_terms * d * len(nodes):.1e} mpmath operations "
            f"(limit max_work={max_work:.0e}); use a game with fewer terms or players"
        )
    with mpmath.workdps(int(dps)):
        zero = mpmath.mpf(0)
        phi = [[zero] * d for _ in range(n)]
        for rows, w, a, c in game.iter_terms():
            shape = np.broadcast_shapes(np.shape(a), np.shape(c), np.shape(w) + (1,))
            a, c = np.broadcast_to(a, shape), np.broadcast_to(c, shape)
            w = np.broadcast_to(w, shape[:2])
            instances = range(*rows.indices(n))
            for k, inst in enumerate(instances):
                kk = k if shape[0] > 1 else 0
                for r in range(shape[1]):
                    ar = [mpmath.mpf(float(v)) for v in a[kk, r]]
                    cr = [mpmath.mpf(float(v)) for v in c[kk, r]]
                    psi = [zero] * d
                    for t, s, omega in nodes:
                        F = [t * al + s * cl for al, cl in zip(ar, cr)]
                        prefix = [mpmath.mpf(1)] * d
                        for l in range(1, d):
                            prefix[l] = prefix[l - 1] * F[l - 1]
                        suffix = mpmath.mpf(1)
                        for j in range(d - 1, -1, -1):
                            psi[j] += omega * prefix[j] * suffix
                            suffix *= F[j]
                    wr = mpmath.mpf(float(w[kk, r]))
                    for j in range(d):
                        phi[inst][j] += wr * (ar[j] - cr[j]) * psi[j]
        return np.array([[float(v) for v in row] for row in phi])
