"""The loops of ``_interaction_gram`` compiled with numba, where numba is installed (``kernelxai[numba]``).

Takes what ``_interaction_gram`` would compute with numpy passes -- a block's per-term
constants (the ratios G = c / D and H = a / D, players along the first axis, the terms
sorted; D's product; the sums of the certified node count) and a tile's rows
B = s / (G + x) with their scales -- and computes it in one pass over the numbers
instead of one pass per operation: each number is read once and stays in the cache.
The arithmetic is the numpy route's, operation for operation (the same roundings,
up to the order of a product's chunks), so the values agree to rounding. numba is
imported only when :func:`gram_kernels` is first called; the kernels are compiled then
and cached on disk (numba's ``cache=True``): the first process takes about 8 s of processor
time, later ones 2-4 s to start numba and load them. ``_interaction_gram`` therefore loads
them only for a call long enough to pay for that (or when they are loaded already).
"""

from __future__ import annotations

import importlib.util
import threading

import numpy as np

__all__ = ["gram_kernels", "loaded_kernels", "numba_available", "read_only"]

_KERNELS: dict = {}
_LOCK = threading.Lock()
_MISSING: list = []


def numba_available() -> bool:
    """Whether numba is installed (found without importing it: the import alone takes about a second)."""
    if not _KERNELS and not _MISSING:
        _MISSING.append(importlib.util.find_spec("numba") is None)
    return bool(_KERNELS) or not _MISSING[0]


def loaded_kernels():
    """The kernels if :func:`gram_kernels` has compiled or loaded them in this process, else None."""
    return _KERNELS or None


def read_only(a):
    """A read-only C-contiguous view of ``a`` (a copy where it is not C-contiguous)."""
    v = np.ascontiguousarray(a).view()
    v.flags.writeable = False
    return v


def gram_kernels() -> dict:
    """Compile (once per process) and return the kernels ``"prep"`` and ``"rows"``.

    ``prep`` takes the factors as read-only arrays (:func:`read_only`), ``rows`` writable ones: one
    signature each, so that a call never goes through numba's slow matching.

    Raises
    ------
    ImportError
        numba is not installed.

    Examples
    --------
    Compiling takes seconds the first time (then numba's cache on disk), so the example only asks:

    >>> numba_available() in (True, False)
    True
    >>> sorted(gram_kernels())                                    # doctest: +SKIP
    ['prep', 'rows']
    """
    with _LOCK:
        if not _KERNELS:
            try:
                import numba
                from numba import types
            except ImportError:
                raise ImportError("the compiled loops of the interaction route need numba: pip install "
                                  "'kernelxai[numba]'; without it the numpy loops give the same values") from None

            jit = dict(nogil=True, error_model="numpy", cache=True)
            _KERNELS.update(prep=_prep(numba, types, jit), rows=_rows(numba, types, jit))
    return _KERNELS


def _prep(numba, types, jit):  # noqa: C901 - one compiled loop nest, its branches are the factors' cases
    """The compiled ``prep`` (see ``_interaction_gram._Instance``)."""
    f8, i8 = types.float64, types.int64
    in2 = types.Array(f8, 2, "C", readonly=True)                     # the game's factors (often read-only views)
    out2, out1 = types.Array(f8, 2, "C"), types.Array(f8, 1, "C")
    sig = types.void(in2, in2, types.Array(i8, 1, "C"), out2, out2, out2, types.Array(types.boolean, 2, "C"),
                     out1, types.Array(i8, 1, "C"), out1, out1, out1, out2, out1, types.boolean)

    @numba.njit(sig, **jit)
    def prep(A, C, order, AT, CT, G, zero, pd_m, pd_e, ubar, prod_a, prod_c, rho_sums, stats, signed):  # noqa: PLR0913 - a compiled kernel writes into the caller's arrays
        # sorted term i = input row order[i]: AT, CT, G = c / D (d, R), D = 0 flags; per term: prod of D (c where
        # D = 0) as mantissa (pd_m) and power of two (pd_e), u-bar = sum q, prod a, prod c, the node count's sums
        # of rho = D / (a + c) (|sum|, sum |.|, sum of squares); stats: min q over D != 0, max q, and 1 where a
        # factor of D's product lies outside 2**+-126 (its product is then to be taken again, exactly);
        # q = |D| / min(|a|, |c|). Terms in pieces of 256, each loop over one player's row of a piece (so that
        # it vectorises); D's product renormalised every 8 players.
        d, R = AT.shape
        for i in range(R):                                             # sorted, players along the first axis
            r = order[i]
            for l in range(d):
                AT[l, i] = A[r, l]
                CT[l, i] = C[r, l]
        width = 256
        ub, qhi, qlo, s0, far = np.empty(width), np.empty(width), np.empty(width), np.empty(width), np.empty(width)
        pm = np.empty(width)
        pb = pm.view(np.int64)
        q_lo, q_hi, outside = np.inf, 0.0, 0.0
        for i0 in range(0, R, width):
            m = min(R, i0 + width) - i0
            ub[:m] = 0.0
            qhi[:m] = 0.0
            qlo[:m] = np.inf
            s0[:m] = 0.0
            far[:m] = 0.0
            pm[:m] = 1.0
            pe, pa, pc = pd_e[i0:i0 + m], prod_a[i0:i0 + m], prod_c[i0:i0 + m]
            s1, s2 = rho_sums[1, i0:i0 + m], rho_sums[2, i0:i0 + m]
            pe[:] = 0
            pa[:] = 1.0
            pc[:] = 1.0
            s1[:] = 0.0
            s2[:] = 0.0
            for l in range(d):
                ar, cr, gr, zr = AT[l, i0:i0 + m], CT[l, i0:i0 + m], G[l, i0:i0 + m], zero[l, i0:i0 + m]
                for i in range(m):
                    a, c = ar[i], cr[i]
                    D = a - c
                    gr[i] = c / D
                    if signed:
                        sm = abs(a) if abs(a) < abs(c) else abs(c)
                    else:
                        sm = a if a < c else c
                    q = abs(D) / sm
                    ub[i] += q
                    qhi[i] = q if q > qhi[i] else qhi[i]
                    z = D == 0.0
                    zr[i] = z
                    qz = np.inf if z else q
                    qlo[i] = qz if qz < qlo[i] else qlo[i]
                    f = c if z else D
                    far[i] += 1.0 if (abs(f) < 2.0**-126 or abs(f) > 2.0**126) else 0.0
                    pm[i] *= f
                    pa[i] *= a
                    pc[i] *= c
                    rho = D / (a + c)
                    s0[i] += rho
                    s1[i] += abs(rho)
                    s2[i] += rho * rho
                if (l + 1) % 8 == 0 or l == d - 1:                     # mantissa in [1/2, 1), exponent apart
                    for i in range(m):
                        b = pb[i]
                        pe[i] += ((b >> 52) & 2047) - 1022
                        pb[i] = (b & ~(2047 << 52)) | (1022 << 52)
            for i in range(m):
                pd_m[i0 + i] = pm[i]
                ubar[i0 + i] = ub[i]
                rho_sums[0, i0 + i] = abs(s0[i])
                q_lo = min(q_lo, qlo[i])
                q_hi = max(q_hi, qhi[i])
                outside += far[i]
        stats[0], stats[1], stats[2] = q_lo, q_hi, outside
    return prep


def _rows(numba, types, jit):  # noqa: C901 - one compiled loop nest, its branches are the factors' cases
    """The compiled ``rows`` (see ``_interaction_gram._run_instance``)."""
    f8, i8 = types.float64, types.int64
    in2 = types.Array(f8, 2, "C")
    in1 = types.Array(f8, 1, "C")
    sig = types.void(in2, in2, types.Array(types.boolean, 2, "C"), types.boolean, in1, in1,
                     types.Array(types.boolean, 1, "C"), in1, types.Array(i8, 1, "C"),
                     in1, in1, i8, i8, i8, types.Array(f8, 2, "C"), types.Array(f8, 1, "C"), types.Array(f8, 1, "C"),
                     types.boolean, in1, types.boolean)

    @numba.njit(sig, **jit)
    def rows(G, H, zero, has_zero, x, s, high, pd_m, pd_e, absw, gamma, r0, r1, chunk, B, wp, p1, want_p1,  # noqa: C901, PLR0913 - a compiled kernel writes into the caller's arrays
             fold, want_fold):
        # for node j of the tile and term r in r0:r1, column j n + (r - r0):
        # T_l = G_l + x_j (H_l - s_j where high[j]), 1 where D_l = 0; wp = |w prod_l D_l prod_l T_l|;
        # B_l = sqrt(wp) gamma_j / T_l (0 where D_l = 0); p1 = sum_l |1 / T_l| where wanted; the row below B,
        # B_d = fold_j sqrt(wp) gamma_j, where wanted.
        # Terms in pieces of 512 (their factors stay in the cache between the two sweeps of a node).
        d = G.shape[0]
        n = r1 - r0
        width = 512
        P = np.empty(width)
        E = np.zeros(width, dtype=np.int64)
        bits = P.view(np.int64)
        Q = np.empty(width)
        qbits = Q.view(np.int64)
        for t0 in range(r0, r1, width):
            t1 = min(r1, t0 + width)
            m = t1 - t0
            for j in range(x.shape[0]):
                src = H if high[j] else G
                sh = -s[j] if high[j] else x[j]
                base = j * n + (t0 - r0)
                P[:m] = 1.0
                E[:m] = 0
                for l in range(d):
                    row = src[l, t0:t1]
                    if has_zero:
                        z = zero[l, t0:t1]
                        for r in range(m):
                            P[r] *= 1.0 if z[r] else row[r] + sh
                    else:
                        for r in range(m):
                            P[r] *= row[r] + sh
                    if (l + 1) % chunk == 0 and l + 1 < d:           # mantissa in [1/2, 1), exponent apart
                        for r in range(m):
                            b = bits[r]
                            E[r] += ((b >> 52) & 2047) - 1022
                            bits[r] = (b & ~(2047 << 52)) | (1022 << 52)
                out = wp[base:base + m]
                for r in range(m):                                     # P 2**(E + e_D) m_D: a normal number
                    Q[r] = P[r] * pd_m[t0 + r]
                for r in range(m):                                     # times the power of two, in the exponent
                    qbits[r] += (E[r] + pd_e[t0 + r]) << 52
                for r in range(m):
                    v = abs(absw[t0 + r] * Q[r])
                    out[r] = v
                    P[r] = np.sqrt(v) * gamma[j]
                if want_fold:
                    extra = B[d, base:base + m]
                    for r in range(m):
                        extra[r] = fold[j] * P[r]
                for l in range(d):
                    row = src[l, t0:t1]
                    dest = B[l, base:base + m]
                    if has_zero:
                        z = zero[l, t0:t1]
                        for r in range(m):
                            dest[r] = 0.0 if z[r] else P[r] / (row[r] + sh)
                    else:
                        for r in range(m):
                            dest[r] = P[r] / (row[r] + sh)
                if want_p1:
                    acc = p1[base:base + m]
                    acc[:] = 0.0
                    for l in range(d):
                        row = src[l, t0:t1]
                        z = zero[l, t0:t1]
                        for r in range(m):
                            acc[r] += 0.0 if z[r] else 1.0 / abs(row[r] + sh)

    return rows
