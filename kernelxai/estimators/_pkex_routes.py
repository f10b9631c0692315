"""The routes of PKeX-Shapley (Alg. 1, Newton's identities; Alg. 2, the coefficient recursion).

Takes blocks of terms (a, c) of a product game; hands on psi_j = sum_q mu(q)
e_q(Z_{-j}) by the paper's routes (:func:`psi_stable`, :func:`psi_newton`),
their error measured against the quadrature (:func:`measured_error`), the
up-front refusal where Alg. 2 would overflow (:func:`check_stable_range`) and
the :class:`PrecisionError` they raise, to the driver
(:func:`kernelxai.estimators.product_shapley`).

The paper's routes are written for the functional baseline game (c = 1). For a
general product game they are homogenised: h_q = sum_{|S| = q} prod_S a
prod_{rest} c, computed by the recursion h_q <- c_i h_q + a_i h_{q-1} (equal to
Alg. 2 when c = 1), and Newton's identities run on the ratios a / c (so they
need c != 0).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

from ._gauss_legendre import prefix_suffix, shapley_weights_exact
from ._quadrature_kernel import psi_quadrature

__all__ = ["PrecisionError", "DEFAULT_TOLERANCE", "psi_stable", "psi_newton", "measured_error",
           "precision_message", "check_stable_range"]

class PrecisionError(FloatingPointError):
    """A route's own error bound says its result would not be accurate.

    Raised by :func:`~kernelxai.estimators.product_shapley` (and
    ``method="stable"`` / ``"newton"`` of :func:`kernelxai.shapley_values`)
    when the error of a paper's route, measured against the quadrature,
    exceeds ``tolerance``, or where ``"stable"``'s coefficients would
    overflow; the message names the route to use instead. A
    ``FloatingPointError``.

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> from kernelxai.estimators import PrecisionError, product_shapley
    >>> a = np.random.default_rng(0).uniform(0.5, 1.0, size=(1, 80))   # 80 players
    >>> try:
    ...     product_shapley(kx.ProductGame(a, np.ones_like(a), np.ones(1)), route="newton")
    ... except PrecisionError as err:
    ...     print(err)
    method='newton': Newton's identities (PKeX Alg. 1) lost precision at d = 80: ... Use method='product' ...
    """


#: Largest relative error bound the paper's routes may return (``tolerance``).
DEFAULT_TOLERANCE = 1e-8


def psi_stable(a, c, d) -> np.ndarray:
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


def psi_newton(a, c, d) -> np.ndarray:
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
        psi = psi * prefix_suffix(c, axis=1)
    return psi


def _exclusive_sum(P):
    """sum_{l != j} P[:, l] for every j, by exclusive prefix + suffix sums (no subtraction)."""
    out = np.zeros_like(P)
    out[:, 1:] += np.cumsum(P[:, :-1], axis=1)
    out[:, :-1] += np.cumsum(P[:, :0:-1], axis=1)[:, ::-1]
    return out


def measured_error(psi, a, c, d) -> float:
    """Largest normwise relative error of a paper route's psi against the quadrature, over terms.

    The quadrature has no cancellation for non-negative factors and costs
    O(d^2) per term against the paper routes' O(d^3), so measuring each block
    against it adds little; non-finite output counts as an infinite error.
    """
    ref = psi_quadrature(a, c, d)
    with np.errstate(over="ignore", invalid="ignore"):
        num = np.sqrt(np.sum((psi - ref) ** 2, axis=1))
        den = np.sqrt(np.sum(ref**2, axis=1))
        rel = np.where(den > 0, num / np.where(den > 0, den, 1.0), num)
    rel = np.where(np.isfinite(rel), rel, np.inf)
    return float(rel.max()) if len(rel) else 0.0


def precision_message(route, bound, tolerance, d) -> str:
    """The advice a PrecisionError gives when a paper route measured ``bound`` above ``tolerance``."""
    name = {"newton": "Newton's identities (PKeX Alg. 1)",
            "stable": "the coefficient recursion (PKeX Alg. 2)"}.get(route, route)
    return (f"method={route!r}: {name} lost precision at d = {d}: measured against the quadrature its "
            f"relative error is {bound:.1e} (tolerance {tolerance:.0e}). Use method='product' "
            "(Gauss-Legendre quadrature of the "
            "Beta integral: exact, no cancellation at any d). To see the route's output anyway, "
            "call kernelxai.estimators._product.product_shapley(game, route=..., tolerance=None)")


#: log of the largest double: coefficients beyond it overflow.
_LOG_MAX = math.log(np.finfo(float).max)


def check_stable_range(a, c, d) -> None:
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
