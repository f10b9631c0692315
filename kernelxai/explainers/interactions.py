"""Shapley interactions: SII, k-SII, STII and Faith-SHAP (FSII) of order 2.

For players i != j and S a coalition without them, write
Delta_ij v(S) = v(S+i+j) - v(S+i) - v(S+j) + v(S), s = |S|, d = number of players.

``"SII"`` (Grabisch & Roubens)
    I_ij = sum_S s! (d-2-s)! / (d-1)! Delta_ij v(S); order-1 terms are the Shapley values.
``"k-SII"`` (Bordt & von Luxburg), k = 2
    the SII pairs; order-1 terms phi_i - 1/2 sum_j I_ij.
``"STII"`` (Sundararajan et al.), order 2
    I_ij = (2/d) sum_S Delta_ij v(S) / C(d-1, s); order-1 terms v({i}) - v(empty).
``"FSII"`` (Faith-SHAP, Tsai et al.), order 2
    the coefficients of the order-<=2 polynomial in the coalition that best fits v in the
    Shapley-kernel-weighted least-squares sense with v(empty) and v(N) exact.

k-SII, STII and FSII are *efficient*: order-1 terms plus pairs (i < j) sum to
v(N) - v(empty). Every result is checked for it (for SII: the Shapley values' efficiency),
and a violation raises ``RuntimeError`` -- it would be a bug.

Faith-SHAP in closed form
-------------------------
Solving the constrained weighted least-squares problem and comparing with candidate
closed forms on random games (tests/test_interactions.py does this with an independent
least-squares solver) gives, for order 2,

    FSII_ij = 6 sum_S (s+1)! (d-s-1)! / (d+1)! Delta_ij v(S),     FSII_i = phi_i - 1/2 sum_j FSII_ij,

i.e. the pairs are a cardinal interaction index with Beta(s+2, d-s) weights and the
order-1 terms are the Shapley values minus half of the pairs (the same shape as k-SII).
All four indices are therefore linear in the worths with weights that depend only on
|S|, which is what the three routes below use.

Routes (``method=``)
--------------------
``"exact"``
    Enumeration of all 2**d coalitions (up to 20 players; ``"auto"`` up to 12): each
    index is sum_T c(T) v(T) with coefficients c(T) that depend on |T| and on whether i
    and j are in T, so the pairs of all instances come from one matrix product of the
    coefficient table with the table of worths, streamed in blocks of coalitions.
``"product"``
    Product games (:class:`~kernelxai.games.ProductGame`: interventional and
    functional-baseline games of product kernels, sums of them, grouped ones, MMD/HSIC
    games). For g(S) = prod_{l in S} a_l prod_{l not in S} c_l, Delta_ij g(S) =
    (a_i - c_i)(a_j - c_j) prod_{l in S} a_l prod_{l not in S+i+j} c_l, and every index
    weight is a Beta integral, so with F_l(t) = t a_l + (1-t) c_l

        SII_ij  = (a_i - c_i)(a_j - c_j) int_0^1            prod_{l != i,j} F_l(t) dt,
        STII_ij = (a_i - c_i)(a_j - c_j) int_0^1 2 (1-t)      prod_{l != i,j} F_l(t) dt,
        FSII_ij = (a_i - c_i)(a_j - c_j) int_0^1 6 t (1-t)   prod_{l != i,j} F_l(t) dt,

    polynomials of degree <= d in t: Gauss-Legendre with ceil((d+1)/2) nodes is exact.
    All pairs of a term cost O(d^2 Q). The leave-two-out products are taken as
    sqrt|T| / F_i x sqrt|T| / F_j with T = prod_l F_l -- a rank-one update per node, so all
    pairs of all terms of an instance are one matrix product (BLAS) -- where that is as
    accurate as the product itself: every F_l a normal number (division is correctly
    rounded; sqrt|T| as the product of the sqrt|F_l| does not underflow before
    |T| ~ 1e-600). (Term, node) pairs with a zero or subnormal factor use exclusive
    prefix / middle / suffix products, no division; that route alone is ~300 times
    slower at d = 200 (measured), which is why it is the fallback. The
    order-1 Shapley values come from :func:`kernelxai.product.product_shapley`; STII's
    v({i}) - v(empty) = sum w (a_i - c_i) prod_{l != i} c_l from prefix x suffix products.
``"sampled"``
    Any game. An unbiased estimator with t-intervals, in the spirit of SHAP-IQ
    (Fumagalli et al. 2023) with SVARM-IQ-style stratification by coalition size
    (Kolpaczki et al. 2024): the coalition sizes 0, 1, d-1, d (and more sizes from the
    outside in while they take at most half the budget) are summed exactly; each
    *round* then draws one uniform coalition of every remaining size k <= d/2 and also
    evaluates its complement (one coalition of every size), and estimates
    sum_{|T|=k} c(T) (v(T) - b) by C(d, k) c(T) (v(T) - b), where b (the mean of the
    exactly summed worths) is a control variate whose exact total is added back.
    Each round is an unbiased estimate of *all* order-1 terms and pairs at once (one
    evaluation per coalition serves every pair), rounds are i.i.d., so the standard
    error is sd/sqrt(rounds) and the interval uses the t quantile. Because the exact
    sizes include 0, 1, d-1 and d, the estimates are efficient exactly, round by round.

    Why this one: shapiq's documentation lists permutation sampling (SII, STII),
    SHAP-IQ, SVARM-IQ and KernelSHAP-IQ / Inconsistent KernelSHAP-IQ. Permutation
    sampling for pairs updates a pair only when i and j are adjacent in the ordering
    (about 2/d of the orderings); KernelSHAP-IQ is usually the most accurate per
    evaluation for k-SII but is a regression estimator, biased at finite budgets and
    without an interval of known coverage. The estimator here keeps unbiasedness,
    valid intervals and exact efficiency, at the price of some variance.

Order 3 is not implemented: the exact and product routes extend (Delta_ijk and a
leave-three-out product, O(d^3 Q) per term), but ``order=2`` is what is offered.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .._config import get_config, working_elements
from .._validation import check_level, check_rng
from ..estimators._common import block_elements, progress_bar
from ..estimators.registry import InvalidOptionError, NotApplicableError, check_cost
from .explain import BackgroundRequiredError, build_game
from ..explanation.core import Explanation
from ..games.core import Game, ProductGame, bitmasks_to_coalitions
from ..models.convert.outputs import output_plan
from ..parallel.core import _inside_chunk, check_n_jobs, interactions_rows
from ..estimators.product import _prefix_suffix, gauss_legendre_01, product_shapley

__all__ = ["shapley_interactions", "explain_interactions", "INDICES", "METHODS",
           "interaction_coefficients"]

#: The interaction indices, as spelled in ``index=``.
INDICES = ("SII", "k-SII", "STII", "FSII")
#: The routes of ``method=`` (besides "auto").
METHODS = ("exact", "product", "sampled")
_METHOD_ALIASES = {"brute": "exact", "enumeration": "exact", "quadrature": "product",
                   "sampling": "sampled"}
#: ``method="auto"`` enumerates coalitions up to this many players.
AUTO_EXACT_PLAYERS = 12
#: ``method="exact"`` refuses above this many players.
MAX_EXACT_PLAYERS = 20
#: Relative tolerance of the efficiency check.
DEFAULT_TOLERANCE = 1e-9
#: Default budget (game evaluations) of ``method="sampled"``.
DEFAULT_BUDGET = 4096

# the product route divides by factors only when they are normal numbers (above this)
_SMALL_FACTOR = 1e-290


# --------------------------------------------------------------------------- #
# input checks
# --------------------------------------------------------------------------- #
def _check_index(index):
    if isinstance(index, str):
        key = "".join(ch for ch in index.upper() if ch.isalnum())
        found = {"SII": "SII", "KSII": "k-SII", "STII": "STII", "FSII": "FSII",
                 "FAITHSHAP": "FSII"}.get(key)
        if found is not None:
            return found
    raise ValueError(f"unknown interaction index {index!r}; accepted: "
                     f"{', '.join(repr(i) for i in INDICES)} (case-insensitive; 'ksii' works too)")


def _check_order(order):
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or order != 2:
        extra = " (order-1 terms alone are kx.shapley_values)" if order == 1 else ""
        raise ValueError(f"order={order!r} is not supported: only pairwise interactions, order=2, "
                         f"are implemented{extra}")
    return 2


def _check_method(method):
    if isinstance(method, str):
        m = _METHOD_ALIASES.get(method, method)
        if m == "auto" or m in METHODS:
            return m
    raise ValueError(f"unknown method {method!r}; accepted: 'auto', "
                     f"{', '.join(repr(m) for m in METHODS)}")


def _why_not(method, game):
    """None if ``method`` applies to ``game``, else the reason."""
    d = game.n_players
    if method == "product" and not isinstance(game, ProductGame):
        return (f"it needs a product game (a ProductGame: interventional or functional-baseline "
                f"values of a product kernel, MMD/HSIC games) and this game is a "
                f"{type(game).__name__}")
    if method == "exact" and d > MAX_EXACT_PLAYERS:
        return f"it enumerates 2**{d} coalitions, more than the limit of 2**{MAX_EXACT_PLAYERS}"
    return None


def _applicable(game):
    return [m for m in METHODS if _why_not(m, game) is None]


# --------------------------------------------------------------------------- #
# the indices as linear functionals of the worths: weights by coalition size
# --------------------------------------------------------------------------- #
def _pair_weight(index, d, s):
    """Weight of Delta_ij v(S), |S| = s, in the pair term of ``index`` (exact Fraction)."""
    if index in ("SII", "k-SII"):
        return Fraction(1, (d - 1) * math.comb(d - 2, s))
    if index == "STII":
        return Fraction(2, d * math.comb(d - 1, s))
    return Fraction(6, (d + 1) * math.comb(d, s + 1))  # FSII: 6 (s+1)! (d-s-1)! / (d+1)!


def _shapley_weight(d, s):
    return Fraction(1, d * math.comb(d - 1, s))


class _Tables:
    """Coefficients of v(T) by |T| = k: pair[k, m] (m = [i in T] + [j in T], sign included),
    one[k, z] (z = [i in T]) for the order-1 terms before any pair correction."""

    def __init__(self, index, d, factors=None):
        self.index, self.d = index, d
        factors = [Fraction(1)] * (d + 1) if factors is None else factors
        pair = np.zeros((d + 1, 3))
        one = np.zeros((d + 1, 2))
        for k in range(d + 1):
            f = factors[k]
            if f == 0:
                continue
            for m, sign in ((0, 1), (1, -1), (2, 1)):
                s = k - m
                if d >= 2 and 0 <= s <= d - 2:
                    pair[k, m] = float(sign * f * _pair_weight(index, d, s))
            if index == "STII":
                one[k, 1] = float(f) if k == 1 else 0.0
                one[k, 0] = -float(f) if k == 0 else 0.0
            else:
                one[k, 1] = float(f * _shapley_weight(d, k - 1)) if k >= 1 else 0.0
                one[k, 0] = -float(f * _shapley_weight(d, k)) if k <= d - 1 else 0.0
        self.pair, self.one = pair, one

    def coefficients(self, z):
        """c1 (m, d) and c2 (m, d, d): the order-1 terms and pairs are sum_T c(T) v(T)."""
        zi = np.asarray(z, dtype=np.int8)
        k = zi.sum(axis=1, dtype=np.int64)
        c2 = self.pair[k[:, None, None], zi[:, :, None] + zi[:, None, :]]
        idx = np.arange(self.d)
        c2[:, idx, idx] = 0.0
        c1 = self.one[k[:, None], zi]
        if self.index in ("k-SII", "FSII"):
            c1 = c1 - 0.5 * c2.sum(axis=2)
        return c1, c2

    def size_sums(self):
        """sum over all T with |T| = k of c(T): (pair (d+1,), order-1 (d+1,)), equal for all i, j."""
        d = self.d
        pair = np.zeros(d + 1)
        one = np.zeros(d + 1)
        for k in range(d + 1):
            if d >= 2:
                pair[k] = sum(math.comb(d - 2, k - m) * mult * self.pair[k, m]
                              for m, mult in ((0, 1), (1, 2), (2, 1)) if 0 <= k - m <= d - 2)
            one[k] = (math.comb(d - 1, k - 1) * self.one[k, 1] if k >= 1 else 0.0) + \
                (math.comb(d - 1, k) * self.one[k, 0] if k <= d - 1 else 0.0)
            if self.index in ("k-SII", "FSII"):
                one[k] -= 0.5 * (d - 1) * pair[k]
        return pair, one


def interaction_coefficients(coalitions, index="k-SII"):
    """The coefficients c(T) with which an index is a linear functional of the worths.

    ``order1[i] = sum_T c1[T, i] v(T)`` and ``pairs[i, j] = sum_T c2[T, i, j] v(T)`` over
    all 2**d coalitions T; the coefficients depend only on |T| and on whether i and j
    are in T.

    Parameters
    ----------
    coalitions : bool array (m, d)
    index : {"SII", "k-SII", "STII", "FSII"}

    Returns
    -------
    c1 : ndarray (m, d)
    c2 : ndarray (m, d, d)
        Symmetric, zero diagonal.
    """
    z = np.asarray(coalitions, dtype=bool)
    if z.ndim != 2:
        raise ValueError(f"coalitions must be a boolean array (m, d); got shape {z.shape}")
    return _Tables(_check_index(index), z.shape[1]).coefficients(z)


# --------------------------------------------------------------------------- #
# route 1: enumeration
# --------------------------------------------------------------------------- #
def _exact(game, index, max_elements, progress):
    d, n = game.n_players, game.n_instances or 1
    tables = _Tables(index, d)
    step = max(1, min(2**d, block_elements(max_elements) // (d * d + 2 * d + n)))
    pairs = np.zeros((d * d, n))
    order1 = np.zeros((d, n))
    mass = np.zeros(n)
    v_empty = v_full = None
    with progress_bar(2**d, f"exact {index}", "coalition", progress) as bar:
        for start in range(0, 2**d, step):
            masks = np.arange(start, min(2**d, start + step), dtype=np.int64)
            z = bitmasks_to_coalitions(masks, d)
            V = np.asarray(game(z), dtype=float).reshape(len(z), n)
            if start == 0:
                v_empty = V[0].copy()
            if masks[-1] == 2**d - 1:
                v_full = V[-1].copy()
            c1, c2 = tables.coefficients(z)
            pairs += c2.reshape(len(z), d * d).T @ V
            order1 += c1.T @ V
            mass += (np.abs(c2).sum(axis=(1, 2)) + np.abs(c1).sum(axis=1)) @ np.abs(V)
            bar.update(len(z))
    return {"values": order1.T, "pairs": pairs.T.reshape(n, d, d), "v_empty": v_empty,
            "v_full": v_full, "mass": mass, "budget": 2**d}


# --------------------------------------------------------------------------- #
# route 2: product games in polynomial time
# --------------------------------------------------------------------------- #
def _n_nodes(d):
    return max(1, math.ceil((d + 1) / 2))


def _node_weights(index, d):
    t, s, omega = gauss_legendre_01(_n_nodes(d))
    if index == "STII":
        return t, s, omega * 2.0 * s
    if index == "FSII":
        return t, s, omega * 6.0 * t * s
    return t, s, np.array(omega)


def leave_two_out_product(G):
    """prod_{l != i, j} G[..., l] for all i != j, by prefix, middle and suffix products.

    No division, so zeros and tiny factors are handled exactly. O(d^2) per row.

    Parameters
    ----------
    G : array (N, d)

    Returns
    -------
    ndarray (N, d, d), symmetric with zero diagonal.
    """
    G = np.asarray(G, dtype=float)
    N, d = G.shape
    prefix = np.ones((N, d))
    suffix = np.ones((N, d))
    if d > 1:
        prefix[:, 1:] = np.cumprod(G[:, :-1], axis=1)
        suffix[:, :-1] = np.cumprod(G[:, :0:-1], axis=1)[:, ::-1]
    # middle[i, j] = prod_{i < l < j} G_l: cumulative products of rows that hold G_l for l > i
    H = np.where(np.arange(d)[None, :, None] < np.arange(d)[None, None, :], G[:, None, :], 1.0)
    cum = np.cumprod(H, axis=2)
    middle = np.ones((N, d, d))
    middle[:, :, 1:] = cum[:, :, :-1]
    L = prefix[:, :, None] * middle * suffix[:, None, :]
    L = np.triu(L, 1)
    return L + np.swapaxes(L, 1, 2)


def _pair_block(A, C, W, t, s, nodew, division):
    """Pair terms (k, d, d) and their absolute mass (k,) for factors A, C (k, r, d), weights W (k, r).

    With F = t A + (1-t) C per node, the pair (i, j) of a term at a node is
    w omega (a_i - c_i)(a_j - c_j) prod_{l != i,j} F_l = w omega sign(T) u_i u_j with
    u_i = (a_i - c_i) sqrt|T| / F_i and T = prod_l F_l: a rank-one update, so all pairs of
    all terms and nodes of an instance are one matrix product. sqrt|T| is the product of
    the sqrt|F_l| (no underflow until |T| < 1e-600), and division is correctly rounded, so
    this is as accurate as the product itself wherever every F_l is a normal number.
    (Term, node) pairs with a zero or subnormal factor use :func:`leave_two_out_product`.
    """
    k, r, d = A.shape
    F = A[:, :, None, :] * t[:, None] + C[:, :, None, :] * s[:, None]     # (k, r, Q, d)
    D = A - C
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        if division:
            ok = np.all(np.abs(F) >= _SMALL_FACTOR, axis=-1)               # (k, r, Q)
            root = np.prod(np.sqrt(np.abs(F)), axis=-1)
            sign = np.where(np.sum(F < 0, axis=-1) % 2 == 1, -1.0, 1.0)
            ratio = D[:, :, None, :] / np.where(ok[..., None], F, 1.0)
            U = ratio * root[..., None]
            ok &= np.all(np.isfinite(U), axis=-1)
            # root below the normal range: every pair is below it too unless a ratio is huge
            ok &= (root > _SMALL_FACTOR) | np.all(np.abs(ratio) < 1e10, axis=-1)
        else:
            ok = np.zeros(F.shape[:3], dtype=bool)
            U, sign = np.zeros(F.shape), np.ones(F.shape[:3])
    U = np.where(ok[..., None], U, 0.0)
    coef = np.where(ok, W[:, :, None] * nodew * sign, 0.0)                # (k, r, Q)
    Q = len(t)
    U2 = U.reshape(k, r * Q, d)
    P = np.matmul(np.swapaxes(U2 * coef.reshape(k, r * Q, 1), 1, 2), U2)
    mass = np.einsum("krq,krq->k", np.abs(coef), np.abs(U).sum(axis=-1) ** 2)
    bad = np.argwhere(~ok)                                                 # sorted by instance
    if len(bad):
        per = max(1, (2**21) // max(1, d * d))
        for lo in range(0, len(bad), per):
            kk, rr, qq = bad[lo:lo + per].T
            L = leave_two_out_product(F[kk, rr, qq])
            Dk = D[kk, rr]
            contrib = (W[kk, rr] * nodew[qq])[:, None, None] * Dk[:, :, None] * Dk[:, None, :] * L
            first = np.flatnonzero(np.r_[True, kk[1:] != kk[:-1]])
            P[kk[first]] += np.add.reduceat(contrib, first, axis=0)
            mass[kk[first]] += np.add.reduceat(np.abs(contrib).sum(axis=(1, 2)), first)
    return P, mass


def _product(game, index, max_elements, progress, *, division=True, n_jobs=None):
    d, n = game.n_players, game.n_instances or 1
    t, s, nodew = _node_weights(index, d)
    Q = len(t)
    work = min(working_elements(16), 2**22) if max_elements is None else int(max_elements)
    pairs = np.zeros((n, d, d))
    single = np.zeros((n, d))
    v_full, v_empty, mass = np.zeros(n), np.zeros(n), np.zeros(n)
    total = None if game.n_terms() is None else game.n_terms() * n
    with progress_bar(total, f"product {index}", "term", progress) as bar:
        for rows, w, a, c in game.iter_terms():
            a, c, w = (np.asarray(x, dtype=float) for x in (a, c, w))
            shape = np.broadcast_shapes(a.shape, c.shape, w.shape + (1,))
            K, R = shape[0], shape[1]
            if R == 0:
                continue
            start = rows.start or 0
            n_rows = len(range(*rows.indices(n)))
            shared = K == 1 and n_rows > 1
            a, c = np.broadcast_to(a, shape), np.broadcast_to(c, shape)
            w = np.broadcast_to(w, shape[:2])
            per_term = Q * d * 4 + d
            rc = max(1, min(R, work // per_term))
            kc = max(1, min(K, work // (per_term * R))) if rc == R else 1
            for k0 in range(0, K, kc):
                ks = slice(k0, min(K, k0 + kc))
                target = slice(start, start + n_rows) if shared else \
                    slice(start + k0, start + min(K, k0 + kc))
                for r0 in range(0, R, rc):
                    rs = slice(r0, min(R, r0 + rc))
                    A, C, W = a[ks, rs], c[ks, rs], w[ks, rs]
                    P, m = _pair_block(A, C, W, t, s, nodew, division)
                    pairs[target] += P
                    mass[target] += m
                    with np.errstate(over="ignore", under="ignore"):
                        full = np.einsum("kr,kr->k", W, np.prod(A, axis=-1))
                        empty = np.einsum("kr,kr->k", W, np.prod(C, axis=-1))
                    v_full[target] += full
                    v_empty[target] += empty
                    mass[target] += np.abs(full) + np.abs(empty)
                    if index == "STII":
                        single[target] += np.einsum("kr,krd->kd", W, (A - C) * _prefix_suffix(C, -1))
                    bar.update(W.size * (n_rows if shared else 1))
    pairs = 0.5 * (pairs + np.swapaxes(pairs, 1, 2))
    idx = np.arange(d)
    pairs[:, idx, idx] = 0.0
    if index == "STII":
        values = single
    else:
        phi, _ = product_shapley(game, max_elements=max_elements, n_jobs=n_jobs, progress=False)
        values = phi if index == "SII" else phi - 0.5 * pairs.sum(axis=2)
    return {"values": values, "pairs": pairs, "v_empty": v_empty, "v_full": v_full, "mass": mass,
            "budget": 0}


# --------------------------------------------------------------------------- #
# route 3: stratified, unbiased sampling with exact border sizes
# --------------------------------------------------------------------------- #
def _coalitions_of_size(d, k):
    """All coalitions of size k as a bool array (C(d, k), d)."""
    import itertools

    if k == 0:
        return np.zeros((1, d), dtype=bool)
    idx = np.array(list(itertools.combinations(range(d), k)), dtype=np.int64)
    z = np.zeros((len(idx), d), dtype=bool)
    np.put_along_axis(z, idx, True, axis=1)
    return z


def _sampling_plan(d, budget):
    """(border b, sizes drawn per round, evaluations of the exact part, per round)."""
    if 2**min(d, 62) <= budget:  # the budget covers every coalition: no sampling needed
        return d, [], 2**d, 0
    b = min(1, d)
    exact = sum(math.comb(d, k) for k in range(d + 1) if k <= b or k >= d - b)
    while b + 1 < d - b - 1 and exact + 2 * math.comb(d, b + 1) <= budget // 2:
        b += 1
        exact += 2 * math.comb(d, b)
    drawn = list(range(b + 1, d // 2 + 1)) if b + 1 <= d - b - 1 else []
    return b, drawn, exact, 2 * len(drawn)


def _sample_of_size(rng, rounds, d, k):
    keys = rng.random((rounds, d))
    ranks = np.argsort(np.argsort(keys, axis=1), axis=1)
    return ranks < k


def _round_coalitions(rng, rounds, d, drawn, per_block, unit):
    """The sampled rounds' coalitions, (B, 2 len(drawn), d), in blocks of ``per_block`` rounds.

    Each round holds one coalition of every drawn size k and its complement. The random
    numbers are drawn in units of ``unit`` rounds (size by size within a unit) whatever
    ``per_block`` is, so the coalitions depend on the seed and the unit only.
    """
    pending, have = [], 0
    for u0 in range(0, rounds, unit):
        U = min(unit, rounds - u0)
        zs = [_sample_of_size(rng, U, d, k) for k in drawn]
        pending.append(np.stack([x for zk in zs for x in (zk, ~zk)], axis=1))
        have += U
        while have >= per_block:
            block = np.concatenate(pending) if len(pending) > 1 else pending[0]
            yield block[:per_block]
            rest = block[per_block:]
            pending, have = ([rest] if len(rest) else []), len(rest)
    if have:
        yield np.concatenate(pending) if len(pending) > 1 else pending[0]


def _sampled(game, index, budget, rng, level, max_elements, progress):
    from scipy import stats

    d, n = game.n_players, game.n_instances or 1
    b, drawn, n_exact, per_round = _sampling_plan(d, budget)
    rounds = (budget - n_exact) // per_round if per_round else 0
    if per_round and rounds < 2:
        need = n_exact + 2 * per_round
        raise InvalidOptionError(
            f"budget={budget} is too small for method='sampled' with {d} players: the exact sizes "
            f"take {n_exact} evaluations and each round {per_round}; give budget >= {need}")
    border = [k for k in range(d + 1) if k <= b or k >= d - b]
    # the exact part: every coalition of the border sizes
    z_border = np.concatenate([_coalitions_of_size(d, k) for k in border])
    exact_tables = _Tables(index, d)
    V = np.asarray(game(z_border), dtype=float).reshape(len(z_border), n)
    c1, c2 = exact_tables.coefficients(z_border)
    pairs0 = np.einsum("mij,mn->nij", c2, V)
    order0 = c1.T @ V
    mass = (np.abs(c2).sum(axis=(1, 2)) + np.abs(c1).sum(axis=1)) @ np.abs(V)
    sizes = z_border.sum(axis=1)
    v_empty = V[sizes == 0][0].copy()
    v_full = V[sizes == d][0].copy()
    level = check_level(level)
    if not drawn:  # every coalition was summed exactly
        zeros = np.zeros((n, d))
        return {"values": order0.T, "pairs": pairs0, "v_empty": v_empty, "v_full": v_full,
                "mass": mass, "budget": len(z_border), "stderr": zeros, "lower": order0.T.copy(),
                "upper": order0.T.copy(), "pairs_stderr": np.zeros((n, d, d)),
                "pairs_lower": pairs0.copy(), "pairs_upper": pairs0.copy(),
                "meta": {"n_rounds": 0, "exact_sizes": border, "level": level}}
    control = V.mean(axis=0)                                         # (n,)
    # the control variate's exact total over the sampled sizes
    pair_sums, one_sums = exact_tables.size_sums()
    mid = [k for k in range(d + 1) if k not in border]
    cv_pair = control * float(pair_sums[mid].sum())
    cv_one = control * float(one_sums[mid].sum())
    # per-size factors: C(d, k) / (coalitions of size k per round)
    factors = [Fraction(0)] * (d + 1)
    for k in drawn:
        if 2 * k == d:
            factors[k] = Fraction(math.comb(d, k), 2)
        else:
            factors[k] = Fraction(math.comb(d, k))
            factors[d - k] = Fraction(math.comb(d, k))
    tables = _Tables(index, d, factors)
    E = per_round
    elems = block_elements(max_elements)
    per_block = max(1, min(rounds, elems // max(1, E * (d * d + d + n) + d * d * n)))
    s1 = np.zeros((n, d)); q1 = np.zeros((n, d))
    s2 = np.zeros((n, d, d)); q2 = np.zeros((n, d, d))
    shift1 = shift2 = None
    mass_s = np.zeros(n)
    # the draws come in units that do not depend on n (per_block does), so the coalitions do
    # not depend on how many rows are explained together (kernelxai.parallel)
    unit = max(1, min(rounds, working_elements() // max(1, E * d)))
    with progress_bar(rounds, f"sampled {index}", "round", progress) as bar:
        for z in _round_coalitions(rng, rounds, d, drawn, per_block, unit):
            B = len(z)
            z = z.reshape(B * E, d)
            W = np.asarray(game(z), dtype=float).reshape(B, E, n) - control
            c1, c2 = tables.coefficients(z)
            est2 = np.matmul(np.swapaxes(c2.reshape(B, E, d * d), 1, 2), W)   # (B, d*d, n)
            est2 = np.moveaxis(est2, 2, 1).reshape(B, n, d, d)
            est1 = np.moveaxis(np.matmul(np.swapaxes(c1.reshape(B, E, d), 1, 2), W), 2, 1)  # (B, n, d)
            if shift1 is None:
                shift1, shift2 = est1.mean(axis=0), est2.mean(axis=0)
            e1, e2 = est1 - shift1, est2 - shift2
            s1 += e1.sum(axis=0); q1 += (e1**2).sum(axis=0)
            s2 += e2.sum(axis=0); q2 += (e2**2).sum(axis=0)
            w_abs = (np.abs(c2).sum(axis=(1, 2)) + np.abs(c1).sum(axis=1)).reshape(B, E)
            mass_s += np.einsum("be,ben->n", w_abs, np.abs(W)) / rounds
            bar.update(B)
    M = rounds
    mean1, mean2 = shift1 + s1 / M, shift2 + s2 / M
    var1 = np.clip((q1 - s1**2 / M) / (M - 1), 0.0, None)
    var2 = np.clip((q2 - s2**2 / M) / (M - 1), 0.0, None)
    se1, se2 = np.sqrt(var1 / M), np.sqrt(var2 / M)
    half = stats.t.ppf(0.5 + level / 2, M - 1)
    values = order0.T + cv_one[:, None] + mean1
    pairs = pairs0 + cv_pair[:, None, None] + mean2
    idx = np.arange(d)
    pairs = 0.5 * (pairs + np.swapaxes(pairs, 1, 2))
    se2 = 0.5 * (se2 + np.swapaxes(se2, 1, 2))
    pairs[:, idx, idx] = 0.0
    se2[:, idx, idx] = 0.0
    return {"values": values, "pairs": pairs, "v_empty": v_empty, "v_full": v_full,
            "mass": mass + mass_s + np.abs(cv_one) * d + np.abs(cv_pair) * d * d,
            "budget": len(z_border) + M * E,
            "stderr": se1, "lower": values - half * se1, "upper": values + half * se1,
            "pairs_stderr": se2, "pairs_lower": pairs - half * se2, "pairs_upper": pairs + half * se2,
            "meta": {"n_rounds": int(M), "exact_sizes": border, "level": level}}


# --------------------------------------------------------------------------- #
# cost models and the efficiency check
# --------------------------------------------------------------------------- #
def _cost(method, game, index, budget):
    d, n = game.n_players, game.n_instances or 1
    if method == "exact":
        return (game.evaluation_flops(2**d) + 2.0 * 2**d * (d * d + d) * n,
                f"2**{d} coalitions x {n} instance(s), all pairs")
    if method == "product":
        terms = game.n_terms()
        if terms is None:
            return 0.0, "unknown number of terms"
        Q = _n_nodes(d)
        # the pairs are a matrix product (BLAS runs ~10x the configured numpy rate)
        per_term = Q * d * (0.2 * d + 12.0) + (6.0 * d * math.ceil(d / 2) if index != "STII" else 0)
        return float(terms) * n * per_term, f"{terms} term(s) x {n} instance(s), d = {d}, {Q} nodes"
    return (game.evaluation_flops(budget) + 2.0 * budget * (d * d + d) * (n + 1),
            f"{budget} game evaluations x {n} instance(s), all pairs")


def _advice(method, game):
    advice = list(game.cost_advice())
    if method == "exact":
        advice.insert(0, "method='sampled' with budget=..., or groups of features as players")
    if method == "sampled":
        advice.insert(0, "a smaller budget=...")
    return advice


def _check_efficiency(index, method, res, tolerance):
    values, pairs = res["values"], res["pairs"]
    target = res["v_full"] - res["v_empty"]
    upper = 0.5 * pairs.sum(axis=(1, 2))
    total = values.sum(axis=1) + (0.0 if index == "SII" else upper)
    scale = (np.abs(res["v_full"]) + np.abs(res["v_empty"]) + np.abs(values).sum(axis=1)
             + 0.5 * np.abs(pairs).sum(axis=(1, 2)) + res["mass"])
    err = np.abs(total - target)
    rel = float(np.max(err / np.where(scale > 0, scale, 1.0))) if err.size else 0.0
    if tolerance is not None and not rel <= tolerance:
        k = int(np.argmax(err / np.where(scale > 0, scale, 1.0)))
        what = ("the Shapley values (order-1 terms)" if index == "SII"
                else "the order-1 terms plus the pairs (i < j)")
        raise RuntimeError(
            f"{index} by method={method!r} is not efficient: for instance {k} {what} sum to "
            f"{total[k]!r} but v(N) - v(empty) = {target[k]!r} (relative error {rel:.1e}, "
            f"tolerance {tolerance:.0e}). This is a bug in kernelxai -- please report it")
    return rel


def _plan(game, method, budget):
    """(method, why, budget): ``"auto"`` resolved for ``game``, checked against it, budget checked."""
    d = game.n_players
    why = None
    if method == "auto":
        if isinstance(game, ProductGame) and game.n_terms() is not None:
            method, why = "product", "a product game: polynomial-time quadrature"
        elif d <= AUTO_EXACT_PLAYERS:
            method, why = "exact", f"{d} <= {AUTO_EXACT_PLAYERS} players: enumeration"
        else:
            method, why = "sampled", (f"{d} players and no product structure: stratified sampling "
                                      "with intervals")
    reason = _why_not(method, game)
    if reason is not None:
        raise NotApplicableError(
            f"method={method!r} does not apply to this game: {reason}. Methods that apply: "
            f"{', '.join(repr(m) for m in _applicable(game))} (or method='auto')")
    if method != "sampled" and budget is not None:
        raise InvalidOptionError(f"budget= is an option of method='sampled' only; method={method!r} "
                                 "evaluates what it needs")
    if method == "sampled":
        if budget is None:
            budget = DEFAULT_BUDGET
        elif isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
            raise InvalidOptionError(f"budget must be a positive integer (game evaluations); "
                                     f"got {budget!r}")
        budget = int(budget)
    return method, why, budget


# --------------------------------------------------------------------------- #
# public API
# --------------------------------------------------------------------------- #
def shapley_interactions(game, index="k-SII", order=2, method="auto", *, budget=None,
                         random_state=None, tolerance=DEFAULT_TOLERANCE, level=0.95,
                         max_elements=None, progress=None) -> Explanation:
    """Pairwise Shapley interactions (SII, k-SII, STII or Faith-SHAP) of every instance of ``game``.

    Parameters
    ----------
    game : Game
    index : {"SII", "k-SII", "STII", "FSII"}
        Case-insensitive; ``"ksii"`` and ``"faith-shap"`` work too. See the module docstring.
    order : int
        2 (pairwise). Other orders are refused.
    method : {"auto", "exact", "product", "sampled"}
        ``"exact"``: enumeration of all 2**d coalitions (<= 20 players). ``"product"``:
        polynomial time for product games, all four indices. ``"sampled"``: unbiased
        stratified sampling with t-intervals, any game. ``"auto"``: ``"product"`` for
        product games, else ``"exact"`` up to 12 players, else ``"sampled"``.
    budget : int, optional
        Game evaluations of ``"sampled"`` (default 4096, at least what the exact sizes
        0, 1, d-1, d need plus two rounds). Other methods refuse it.
    random_state : None, int or numpy.random.Generator
        Randomness of ``"sampled"``.
    tolerance : float or None
        Relative tolerance of the efficiency check (order-1 terms plus pairs against
        v(N) - v(empty), relative to the scale of the terms and of their rounding); None
        skips it.
    level : float
        Level of the intervals of ``"sampled"``.
    max_elements : int, optional
        float64 elements of one block (default: from ``kx.config_context(max_memory=...)``).
    progress : bool, optional
        Progress bar; default from the cost estimate (``kx.config_context(progress=...)``).

    Returns
    -------
    Explanation
        ``values`` (n, d) the order-1 terms of the index (SII: Shapley values; k-SII and
        FSII: phi_i - 1/2 sum_j I_ij; STII: v({i}) - v(empty)), ``interactions`` (n, d, d)
        the pairs (symmetric, zero diagonal), ``base_values`` v(empty). ``meta`` records
        ``index``, ``order``, ``method``, ``exact``, ``budget`` (game evaluations),
        ``efficiency_error`` and ``estimated_seconds``; ``"sampled"`` adds ``stderr``,
        ``lower``, ``upper`` for the values and ``meta["interactions_stderr"]``,
        ``["interactions_lower"]``, ``["interactions_upper"]`` (n, d, d) for the pairs.
        A game with scalar worths gives (d,) and (d, d).

    Raises
    ------
    ValueError
        Unknown index, method or order.
    NotApplicableError
        The method does not apply to the game (the message names those that do).
    InvalidOptionError
        ``budget`` where no sampling happens, or a budget too small.
    CostLimitError
        The estimated time exceeds ``kx.get_config()["max_cost"]``.
    RuntimeError
        The result is not efficient (a bug; please report it).

    Examples
    --------
    >>> import kernelxai as kx
    >>> g = kx.FunctionGame(lambda Z: Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2], 3)
    >>> e = kx.shapley_interactions(g, index="STII")
    >>> e.values.round(12), e.interactions[1, 2].round(12)
    (array([1., 0., 0.]), 2.0)
    """
    index, order, method = _check_index(index), _check_order(order), _check_method(method)
    if not isinstance(game, Game):
        raise TypeError(f"shapley_interactions needs a kernelxai Game; got {type(game).__name__}. "
                        "Wrap a function with kx.FunctionGame or a table with kx.TabularGame")
    if tolerance is not None and (isinstance(tolerance, bool) or not tolerance > 0):
        raise ValueError(f"tolerance must be a positive number or None; got {tolerance!r}")
    method, why, budget = _plan(game, method, budget)
    flops, detail = _cost(method, game, index, budget)
    show = check_cost(flops, f"shapley_interactions(index={index!r}, method={method!r}) ({detail})",
                      _advice(method, game))
    if progress is None:
        progress = show
    if method == "exact":
        res = _exact(game, index, max_elements, progress)
    elif method == "product":
        # inside a chunk of kernelxai.parallel: one thread, so that the sums do not depend on it
        res = _product(game, index, max_elements, progress, n_jobs=1 if _inside_chunk() else None)
    else:
        res = _sampled(game, index, budget, check_rng(random_state), level, max_elements, progress)
    for key in ("values", "pairs"):
        if not np.all(np.isfinite(res[key])):
            raise FloatingPointError(
                f"method={method!r} produced non-finite {index} terms (an overflow it cannot "
                "handle); try another method")
    rel = _check_efficiency(index, method, res, tolerance)
    return _explanation(game, index, method, res, rel, why,
                        flops / get_config()["flops_per_second"])


def _explanation(game, index, method, res, rel, why, seconds):
    meta = {**game.meta, "index": index, "order": 2, "method": method,
            "exact": method != "sampled", "budget": res["budget"], "efficiency_error": rel,
            "estimated_seconds": seconds}
    if why is not None:
        meta["auto"] = why
    if method == "product":
        meta["algorithm"] = "Gauss-Legendre quadrature of the Beta-integral identities"
    extras = {"stderr": res.get("stderr"), "lower": res.get("lower"), "upper": res.get("upper")}
    if method == "sampled":
        meta.update(res["meta"])
        meta["estimator"] = ("stratified unbiased coalition sampling (exact border sizes, one "
                             "coalition and its complement per size and round, control variate)")
        meta["interval"] = f"t-interval over {res['meta']['n_rounds']} rounds"
        meta["interactions_stderr"] = res["pairs_stderr"]
        meta["interactions_lower"] = res["pairs_lower"]
        meta["interactions_upper"] = res["pairs_upper"]
    values, base, pairs, data = res["values"], res["v_empty"], res["pairs"], game.data
    if game.n_instances is None:
        values, pairs, base = values[0], pairs[0], float(base[0])
        extras = {k: (None if v is None else v[0]) for k, v in extras.items()}
        for key in ("interactions_stderr", "interactions_lower", "interactions_upper"):
            if key in meta:
                meta[key] = meta[key][0]
        data = None if data is None else np.asarray(data).reshape(-1)
    return Explanation(values, base, data=data, feature_names=game.player_names, meta=meta,
                       interactions=pairs, **extras)


#: keywords of explain_interactions that belong to shapley_interactions
_OWN = ("budget", "random_state", "tolerance", "level", "max_elements", "progress")


def explain_interactions(model, X, value="interventional", background=None, index="k-SII",
                         order=2, method="auto", *, groups=None, group_names=None, output=None,
                         n_jobs=None, rows_per_chunk=None, **kw) -> Explanation:
    """Pairwise Shapley interactions of a model's predictions at the rows of ``X``.

    Builds the game :func:`kx.explain <kernelxai.explain>` builds (same models, value
    functions, backgrounds, groups and outputs) and calls :func:`shapley_interactions`.

    Parameters
    ----------
    model, X, value, background, groups, group_names, output
        As in :func:`kernelxai.explain`.
    index, order, method
        As in :func:`shapley_interactions`; for product kernels with
        ``value="interventional"`` or ``"functional_baseline"`` ``"auto"`` takes the exact
        polynomial-time route.
    n_jobs : int, optional
        Workers over chunks of rows, as in :func:`kernelxai.explain` (joblib; honours
        ``joblib.parallel_config``, e.g. ``backend="dask"``); the result does not depend
        on it, also for ``"sampled"`` with a seed (:mod:`kernelxai.parallel`).
    rows_per_chunk : int, optional
        Rows per chunk; default from the cost model.
    **kw
        ``budget``, ``random_state``, ``tolerance``, ``level``, ``max_elements``,
        ``progress`` (see :func:`shapley_interactions`) and the value function's options
        (e.g. ``eta``).

    Returns
    -------
    Explanation
        ``values`` (n, d) order-1 terms, ``interactions`` (n, d, d), feature names from
        ``X``; ``meta["route"]`` as in :func:`kernelxai.explain`.
    """
    index, order, method = _check_index(index), _check_order(order), _check_method(method)
    plan = output_plan(model, output)
    if plan is not None:
        missing = plan.missing_background(background)
        if missing:
            raise BackgroundRequiredError(missing)
        return plan.finish([explain_interactions(target, X, value,
                                                 plan.background_for(target, background), index,
                                                 order, method, groups=groups,
                                                 group_names=group_names, n_jobs=n_jobs,
                                                 rows_per_chunk=rows_per_chunk, **kw)
                            for _, target in plan.targets])
    check_n_jobs(n_jobs)
    own = {k: kw.pop(k) for k in list(kw) if k in _OWN}
    game, route, _, model_output, accepted, vf = build_game(
        model, X, value, background, groups=groups, group_names=group_names, options=kw,
        return_value_function=True)
    if kw:
        vf = [k for k in accepted if k not in ("background", "data", "groups", "group_names")]
        s = "s" if len(kw) > 1 else ""
        raise InvalidOptionError(
            f"unknown option{s} {', '.join(repr(k) for k in kw)} for explain_interactions. It "
            f"accepts: {', '.join(_OWN)}; the {value!r} value function accepts: "
            f"{', '.join(vf) or 'no options'}")
    result = interactions_rows(vf, game, X, index, order, method, own, n_jobs=n_jobs,
                               rows_per_chunk=rows_per_chunk)
    result.meta["route"] = route
    if model_output is not None:
        result.meta["model_output"] = model_output
    return result

