"""Exact Shapley values of product games in polynomial time.

For a multiplicative game g(S) = prod_{l in S} a_l prod_{l not in S} c_l the
Shapley weight is a Beta integral, mu(q) = int_0^1 t^q (1-t)^(d-1-q) dt, so

    phi_j(g) = (a_j - c_j) int_0^1 prod_{l != j} (t a_l + (1-t) c_l) dt.

The integrand is a polynomial of degree d-1 in t: Gauss-Legendre quadrature
with ceil(d/2) nodes on [0, 1] is exact. When a and c lie in [0, 1] (kernel
values) every factor is a convex combination of non-negative numbers, so no
cancellation occurs at any d. The same identity underlies QuadraSHAP
(Mohammadi et al.) for product games in general.

Three routes compute the same numbers and are registered as estimators of
:func:`kernelxai.shapley_values`:

``"product"`` (alias ``"quadrature"``)
    the Beta-integral identity by Gauss-Legendre quadrature: O(R d ceil(d/2))
    per instance for R terms, no cancellation, accurate at any d;
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

from ._config import progress_enabled, working_elements
from ._validation import check_choice, check_positive_int
from .games import ProductGame

__all__ = ["gauss_legendre_01", "leave_one_out_product", "product_shapley",
           "shapley_weights_exact", "reference_shapley", "ROUTES", "PrecisionError"]

#: The routes of :func:`product_shapley`, by name.
ROUTES = ("quadrature", "stable", "newton")

# ``np.longdouble`` is the 80-bit x87 format on x86-64 Linux (64-bit mantissa);
# where it is plain double the refinement below still converges, to ~1e-16.
_LD = np.longdouble

class PrecisionError(FloatingPointError):
    """A route's own error bound says its result would not be accurate."""


#: Largest relative error bound the paper's routes may return (``tolerance``).
DEFAULT_TOLERANCE = 1e-8


#: Default working set of one task (float64 elements), chosen to stay in cache.
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
# --------------------------------------------------------------------------- #
def _psi_quadrature(a, c, d):
    """psi_j = int_0^1 prod_{l != j} (t a_l + (1-t) c_l) dt by Gauss-Legendre.

    a, c : (M, d); c None means all ones. The factors of all nodes come from one
    contraction of (M, d, 2) with (2, q); the leave-one-out product is the
    total over the own factor (exact to rounding when no factor is zero);
    terms with a zero factor are redone with prefix x suffix products. No BLAS
    call is made here: this runs on several Python threads at once, and
    concurrent calls into a threaded OpenBLAS are not safe everywhere.
    """
    t, s, omega = gauss_legendre_01(max(1, math.ceil(d / 2)))
    ts = np.stack([t, s])
    ac = np.empty((a.shape[0], d, 2))
    ac[..., 0] = a
    ac[..., 1] = 1.0 if c is None else c
    F = np.einsum("mdk,kq->mdq", ac, ts)             # (M, d, q): t_k a_l + s_k c_l
    total = np.multiply.reduce(F, axis=1)            # (M, q)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(total[:, None, :], F, out=F)       # leave-one-out products
    psi = np.einsum("mdq,q->md", F, omega)
    bad = ~np.isfinite(psi).all(axis=1)
    if bad.any():  # a factor is zero (a_l = c_l = 0) or the product overflowed
        G = np.einsum("mdk,kq->mdq", ac[bad], ts)
        psi[bad] = np.einsum("mdq,q->md", _prefix_suffix(G, axis=1), omega)
    return psi


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
    if all(st == 0 for st in c.strides):
        return c.size == 0 or c.flat[0] == 1.0
    return bool(np.all(c == 1.0))


def _tasks(game, route, max_elements, work_elements):
    """Yield (rows, per_instance, starts, w, a, c) tasks of at most ~work_elements numbers.

    ``a`` (M, d) and ``c`` (M, d) or None are the factors of M terms;
    ``per_instance`` False means the terms belong to every instance in
    ``rows``; else ``starts`` (offsets of each instance's first term, for
    ``np.add.reduceat``) and the instances ``rows`` covered by the task.
    """
    d = game.n_players
    if route == "quadrature":
        step = max(1, work_elements // (d * max(1, math.ceil(d / 2))))
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


def _default_jobs():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def product_shapley(game, *, route="quadrature", max_elements=None, n_jobs=None,
                    progress=None, work_elements=_WORK_ELEMENTS, tolerance=DEFAULT_TOLERANCE,
                    return_bound=False):
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
        calls, so the threads never enter a threaded BLAS concurrently; each
        thread sums its own share of the terms, so results can differ from
        ``n_jobs=1`` in the last bits.
    progress : bool, optional
        Show a tqdm bar over terms.
    work_elements : int
        Working-set size of one task; the default keeps it in cache.
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
    Cost per instance for R terms: O(R d ceil(d/2)) for the quadrature,
    O(R d^3) for the paper's routes; memory O(work_elements) per thread. The
    terms are streamed in blocks and no coalition is ever formed.
    """
    if not isinstance(game, ProductGame):
        raise TypeError(
            f"method={route!r} needs a ProductGame -- a value function of a model with a "
            f"product kernel; got {type(game).__name__}. Use method='exact' or 'kernel' instead"
        )
    check_choice(route, "route", ROUTES)
    d, n = game.n_players, game.n_instances or 1
    n_jobs = _default_jobs() if n_jobs is None else check_positive_int(n_jobs, "n_jobs")
    if max_elements is None:
        max_elements = working_elements(8)
    psi_of = _PSI[route]
    tasks = _tasks(game, route, max_elements, work_elements)
    lock = threading.Lock()
    failed = threading.Event()
    show = progress_enabled(progress)
    bar = tqdm(desc=f"product Shapley ({route})", unit="term", disable=not show, leave=False)
    worst = [0.0]

    def work():
        phi = np.zeros((n, d))
        base = np.zeros(n)
        while not failed.is_set():
            with lock:
                task = next(tasks, None)
            if task is None:
                break
            rows, per_instance, starts, w, a, c = task
            try:
                if route == "stable" and tolerance is not None:
                    _check_stable_range(a, c, d)
                psi = psi_of(a, c, d)
                if route != "quadrature":
                    top = _measured_error(psi, a, c, d)
                    with lock:
                        worst[0] = max(worst[0], top)
                    if tolerance is not None and not top <= tolerance:
                        raise PrecisionError(_precision_message(route, top, tolerance, d))
            except BaseException:
                failed.set()
                raise
            diff = a - (1.0 if c is None else c)
            contrib = w[:, None] * diff * psi
            prod_c = np.ones(len(w)) if c is None else np.prod(c, axis=1)
            if per_instance:
                phi[rows] += np.add.reduceat(contrib, starts, axis=0)
                base[rows] += np.add.reduceat(w * prod_c, starts)
            else:
                phi[rows] += contrib.sum(axis=0)
                base[rows] += (w * prod_c).sum()
            if show:
                with lock:
                    bar.update(len(w))
        return phi, base

    try:
        if n_jobs == 1:
            phi, base = work()
        else:
            with ThreadPoolExecutor(n_jobs) as pool:
                futures = [pool.submit(work) for _ in range(n_jobs)]
                parts = [f.result() for f in futures]
            phi = sum(p for p, _ in parts)
            base = sum(b for _, b in parts)
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
