r"""Interaction indices of any order for product games in polynomial time: leave-|T|-out quadrature.

Takes a :class:`~kernelxai.games.ProductGame` (interventional and functional-baseline
games of product kernels, their sums and groupings, GP means, MMD/HSIC games), an index
of ``_interaction_indices`` and an order; hands on the index's values of every set of the
sizes the order asks for (``"dense"``), of the sets asked for (``sets=``), or of the
``top=`` largest |values| of each size per instance, with a certificate. No coalition is
evaluated.

The identity
------------
One term :math:`g(S) = w \prod_{j \in S} a_j \prod_{j \notin S} c_j` has the Moebius transform
:math:`m(L) = w \prod_{j \in L} D_j \prod_{j \notin L} c_j`, :math:`D_j = a_j - c_j`, and every index
is (``_interaction_indices``, :class:`ProductRule`)

.. math::
    I(T) = w\,\pi(T) \Big[\sum_q W_q \prod_{l \notin T} F_l(x_q)
           + \sum_{(x, i, W)} W\, e_i\big(D, F(x); N \setminus T\big)\Big],
    \qquad F_l(x) = c_l + x D_l,

with :math:`\pi(T) = \prod_{j \in T} D_j` (interaction indices) or :math:`\prod_T a - \prod_T c`
(generalised values), Gauss-Legendre nodes :math:`x_q` carrying the index's polynomial
density (plus point masses at 0, 1/2 or 1), and, only for the lower orders of k-SII and
FBII, the weighted elementary symmetric sums :math:`e_i = \sum_{|J| = i} D_J \prod_{l \notin T \cup J} F_l`
of low degree i at a point.

How it is computed
------------------
Two routes give the same numbers up to rounding. Terms whose factor pairs have one sign,
bounded ratios and row products within :math:`2^{\pm 600}` (kernel values: the usual case)
take the *fast path* of ``_interaction_dense``: one set of rows (term, node) shared by every
size of the call, formed one node at a time, the values of all sets of a size by matrix
products whose prefix weights are built incrementally, and a node count certified by a bound
(often 6-10 nodes where the exact rule has d/2; that module's docstring). Where a call wants
every set of sizes up to 3 of an interaction index (superset form), its fast terms take
``_interaction_gram`` instead: the same nodes and weights, the pairs as one symmetric rank-k
update per tile of terms, the triples by their middle player (that module's docstring). The
other terms take the *general route* below, each size at its own exact nodes. The blocks of terms are
summed on as many threads as there are CPUs, each into partial sums of its own that are
added in the blocks' order, so the result does not depend on the threads. What follows
describes the general route; the fast path does the same arithmetic where it applies.

*Values at nodes* (i = 0, every index): with the row product :math:`P = \prod_l F_l(x_q)`
and :math:`u_j = D_j / F_j`, a row (term, node) contributes :math:`w W_q P \prod_{j \in T} u_j` to
:math:`I(T)`. P is carried as mantissa and power of two (it underflows near
:math:`0.3^{600}`), and :math:`2^{\lfloor \log_2 P / t \rfloor}` is moved into each :math:`u_j`, so
nothing leaves the double range unless the contribution itself does (a contribution
below about 1e-300 in magnitude may come out as 0). All sets of a size are matrix
products: :math:`\sum_r c_r u_{ri}` (t = 1), and for t >= 2
:math:`I(p \cup \{l\}) = \sum_r (c_r \prod_{j \in p} u_{rj})\, u_{rl}` for every (t-1)-set p and
l > max p, one BLAS product per group of prefixes with neighbouring last players
(``_interaction_dense.add_dense``, as the fast path) and chunk of rows; explicit sets are
gathered (t multiplications per row and set). Sets always come out in lexicographic order.
Division is correctly rounded, so this is as accurate as the product itself where every
factor is a normal number; rows (term, node) with a zero, subnormal or non-finite factor
are computed without division, as :math:`\prod_{j \in T} D_j \prod_{l \notin T} F_l` (O(d) per set).
With nonnegative factors (kernel values) every :math:`F_l` is a convex combination of
:math:`a_l, c_l`: no cancellation inside a row.

*Taylor coefficients at points* (i >= 1; k-SII and FBII below the top order): the
elementary symmetric recursion :math:`E_i \leftarrow E_i F_l + E_{i-1} D_l` over the players
outside T (times :math:`D_l` for those in T), with power-of-two rescaling, for every row and
set: O(d i) per row and set, no division, no cancellation beyond the sums' own (the
coefficient recursion measured at ~1e-15 by PKeX-Shapley). The power-sum (Newton)
route would be O(t) per set but loses accuracy when one :math:`u_j` is large; this part
is used only for sets below the top order, whose number is smaller.

The general route takes ceil((d - t + deg rho + 1) / 2) Gauss-Legendre nodes, exact for
any factors; the fast path as few as its bound certifies (relative truncation error
:math:`2^{-53}` of each set's integral), never more. ``"nodes"`` in the result says how many
were used.

``top=``: certified without forming all sets
--------------------------------------------
For the sizes whose rule reads values only (every index at its top order, all sizes of
SII, BII, CHII, STII, FSII, the Moebius transforms and the generalised values), the
generalised Hoelder inequality over the rows gives, per instance,

.. math::
    |I(T)| \le \sum_r |c_r| \prod_{j \in T} |u_{rj}| \le \prod_{j \in T} \beta_j + \kappa,
    \qquad \beta_j = \Big(\sum_r |c_r|\, |u_{rj}|^t\Big)^{1/t},

(:math:`\kappa` bounds the rows computed without division; for generalised values both
products count). The sets of the top few players by :math:`\beta` are evaluated first;
the top-th largest |value| among them, :math:`\theta`, is a lower bound of the true top-th
largest, so every set with :math:`\prod_T \beta + \kappa < \theta` can be skipped. The others are
found by a pruned enumeration over players sorted by :math:`\beta` (a partial set is
dropped when even the largest remaining :math:`\beta` cannot reach :math:`\theta`), evaluated, and the
largest |values| returned. The result is *certified*: every set not evaluated has a
proven bound below the top-th value returned (up to floating-point rounding of the
values and bounds, relative 1e-10). Where the candidates would exceed a twelfth of all
sets (gathering sets one by one is then slower than all of them by matrix products), or
the rule reads Taylor coefficients (lower orders of k-SII and FBII), all sets
of the size are computed and the top ones selected -- exact and certified as well.
"""

from __future__ import annotations

import math
import os
import threading
from functools import lru_cache

import numpy as np

from .._config import working_elements
from .._threads import single_threaded_blas, with_helpers
from ..games import ProductGame
from ._common import progress_bar
from ._interaction_dense import SLAB_ELEMENTS, NodeRows, add_dense, dense_values, fast_terms, taylor_first
from ._interaction_enumeration import OrderValues, _group_sets
from ._interaction_gram import BLOCK_ELEMENTS as GRAM_ELEMENTS
from ._interaction_gram import gram_block, gram_sizes, prepare_kernels
from ._interaction_indices import InteractionIndex, all_sets, get_index, lex_rank, n_sets

__all__ = ["product_interaction_orders", "product_orders_work", "size_plan", "MAX_DENSE_SETS"]

#: Factors below this magnitude (or not finite) send their row to the division-free route.
_TINY = 2.0**-960
#: Dense results larger than this many numbers per instance are refused (use sets= or top=).
MAX_DENSE_SETS = 50_000_000
#: Relative safety margin of the top= bound comparisons.
_MARGIN = 1e-10
_RENORM_EVERY = 16
#: Terms whose factors allow it take the shared rows of ``_interaction_dense`` (False: every term
#: takes each size's own rows; the tests compare the two).
_FAST_PATH = True
#: Blocks of fast terms whose call wants every set of sizes 0..3 of a superset-form index take
#: ``_interaction_gram`` (False: ``_interaction_dense`` for all of them; the tests compare the two).
_GRAM = True


# --------------------------------------------------------------------------- #
# per-size plan
# --------------------------------------------------------------------------- #
class _Size:
    """The quadrature of one set size: value nodes (x, 1-x, W) and Taylor points."""

    def __init__(self, idx: InteractionIndex, t, d, k):
        self.t, self.form = t, idx.form_at(t)
        rule = idx.rule(t, d, k)
        self.rule = rule
        self.x, self.s, self.W = rule.quadrature(d - t)
        # Gauss-Legendre nodes of the exact rule (the rest of x are point masses)
        self.gl_exact = max(1, math.ceil((d - t + rule.density_degree + 1) / 2)) if rule.density else 0
        pts = rule.derivative_points()
        xs = sorted({(p[0], p[1]) for p in pts})
        self.bx = np.array([p[0] for p in xs])
        self.bs = np.array([p[1] for p in xs])
        self.imax = max((p[2] for p in pts), default=0)
        # weights (X, imax+1) of e_i at each distinct point
        self.bW = np.zeros((len(xs), self.imax + 1))
        for x, s, i, w in pts:
            self.bW[xs.index((x, s)), i] += w
        if len(xs) and self.form != "superset":
            raise AssertionError("Taylor points are only used by superset-form indices")

    @property
    def Q(self):
        return len(self.x)

    @property
    def has_points(self):
        return len(self.bx) > 0


@lru_cache(maxsize=256)
def _cached_size(name, t, d, k) -> _Size:
    return _Size(get_index(name), t, d, k)


def size_plan(idx: InteractionIndex, t, d, k) -> _Size:
    """The :class:`_Size` of an index's sets of size t (kept: a rule in exact fractions takes ~0.1 ms to build,
    a tenth of a small call's time, and the same plan makes ``_interaction_dense._row_plan``'s cache hit)."""
    return _cached_size(idx.name, int(t), int(d), int(k))


def _factors_at(A, C, x, s):
    """F = c + x (a - c) for x <= 1/2, a - (1-x)(a - c) beyond: (K, R, Q, d); and D = a - c (K, R, d)."""
    D = A - C
    F = np.empty(A.shape[:2] + (len(x), A.shape[2]))
    low = x <= 0.5
    if low.any():
        F[:, :, low, :] = C[:, :, None, :] + x[low][:, None] * D[:, :, None, :]
    if not low.all():
        F[:, :, ~low, :] = A[:, :, None, :] - s[~low][:, None] * D[:, :, None, :]
    return F, D


def _mantissa_product(F):
    """(M, E) with M 2**E = prod over the last axis of F (normal, finite factors); M in [0.5, 1) or 0."""
    mant, ex = np.frexp(F)
    E = ex.sum(axis=-1, dtype=np.int64)
    M = np.ones(F.shape[:-1])
    for lo in range(0, F.shape[-1], 512):       # 512 mantissas >= 2**-512: no underflow
        M = M * np.prod(mant[..., lo:lo + 512], axis=-1)
        M, e = np.frexp(M)
        E = E + e
    return M, E


#: Row products within 2**+-_SAFE_EXP need no rescaling of the ratios u.
_SAFE_EXP = 600


class _Rows:
    """The rows (term, node) of a block of terms at one size's value nodes."""

    def __init__(self, A, C, W, size: _Size):
        K, R, d = A.shape
        Q = size.Q
        F4, D = _factors_at(A, C, size.x, size.s)                        # (K, R, Q, d)
        self.shape = (K, R * Q, d)
        coef = (W[:, :, None] * size.W).reshape(K, R * Q)
        with np.errstate(invalid="ignore", over="ignore"):
            absF = np.abs(F4)
            ok4 = (np.min(absF, axis=-1) >= _TINY) & (np.max(absF, axis=-1) < np.inf)
        del absF
        all_ok = bool(ok4.all())
        Fs4 = F4 if all_ok else np.where(ok4[..., None], F4, 1.0)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            P = np.prod(Fs4, axis=-1).reshape(K, R * Q)
            M, E = np.frexp(P)
            E = E.astype(np.int64)
            odd = ~((np.abs(P) >= 2.0**-1000) & (np.abs(P) <= 2.0**1000))    # under/overflow: redo exactly
            if odd.any():
                M[odd], E[odd] = _mantissa_product(Fs4.reshape(self.shape)[odd])
            if size.form == "superset":
                nums4 = [D[:, :, None, :]]
            else:
                nums4 = [A[:, :, None, :], C[:, :, None, :]]
            self.u = [(n / Fs4).reshape(self.shape) for n in nums4]
        ok = ok4.reshape(K, R * Q)
        if not all_ok:
            self.u = [np.where(ok[..., None], u, 0.0) for u in self.u]
        self.coef, self.M, self.E, self.ok = coef, M, E, ok
        self.slow = np.argwhere(~ok)                                       # (n_slow, 2): (k, row)
        if len(self.slow):
            kk, rr = self.slow.T
            self.slow_F = F4.reshape(self.shape)[kk, rr]
            self.slow_nums = [np.broadcast_to(n, F4.shape)[kk, rr // Q, rr % Q] for n in nums4]
            self.slow_coef = coef[kk, rr]

    def scaled(self, t):
        """(c', [u'...]): c' prod_{j in T} u'_j = w W P prod_{j in T} u_j, in range."""
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            if t == 0:
                return np.where(self.ok, np.ldexp(self.coef * self.M, self.E), 0.0), []
            g = np.where(np.abs(self.E) > _SAFE_EXP, np.floor_divide(self.E, t), 0)
            c = np.where(self.ok, np.ldexp(self.coef * self.M, self.E - t * g), 0.0)
            if not g.any():
                return c, self.u
            return c, [np.ldexp(u, g[..., None]) for u in self.u]

    def slow_values(self, sets, member):
        """(n_slow, m) the division-free contributions of the slow rows to ``sets``."""
        n_slow, d = self.slow_F.shape
        m = len(sets)
        out = np.zeros((n_slow, m))
        step = max(1, 2**20 // max(1, d * n_slow))
        for lo in range(0, m, step):
            mem = member[lo:lo + step][None]                               # (1, mc, d)
            F = self.slow_F[:, None, :]
            with np.errstate(over="ignore", under="ignore", invalid="ignore"):
                parts = [np.prod(np.where(mem, n[:, None, :], F), axis=-1) for n in self.slow_nums]
            # meeting form: (prod_T a - prod_T c) prod_{not T} F
            inner = parts[0] if len(parts) == 1 else parts[0] - parts[1]
            out[:, lo:lo + step] = self.slow_coef[:, None] * inner
        return out


def _member(sets, d):
    m = np.zeros((len(sets), d), dtype=bool)
    if sets.shape[1]:
        m[np.arange(len(sets))[:, None], sets] = True
    return m


def _esp_abs(u, t):
    """e_t(|u|) along the last axis (a row's sum over all t-sets of |prod u|), by Newton's identities.

    Only a scale (the mass of the efficiency check): power sums of |u| and Newton's identities,
    clipped at 0 where their rounding cancels.
    """
    au = np.abs(u)
    with np.errstate(over="ignore", invalid="ignore"):
        p = [None] + [np.sum(au**j, axis=-1) for j in range(1, t + 1)]
        e = [np.ones(u.shape[:-1])]
        for m in range(1, t + 1):
            e.append(sum((-1) ** (i - 1) * e[m - i] * p[i] for i in range(1, m + 1)) / m)
    return np.maximum(e[t], 0.0)


# --------------------------------------------------------------------------- #
# part A: values at nodes
# --------------------------------------------------------------------------- #
def _dense_a(rows: _Rows, t, d, want_mass):
    """(K, C(d, t)) all sets of size t (lexicographic), and the mass (K,)."""
    c, us = rows.scaled(t)
    K = c.shape[0]
    m = n_sets(d, t)
    out = np.zeros((K, m))
    mass = np.zeros(K)
    for sign, u in zip((1.0, -1.0), us or [None]):
        if t == 0:
            out[:, 0] += c.sum(axis=1)
            mass += np.abs(c).sum(axis=1)
            continue
        if t == 1:
            out += sign * np.einsum("kr,krj->kj", c, u)
        else:
            out += sign * dense_values(c, np.ascontiguousarray(np.swapaxes(u, 1, 2)), t, d)
        if want_mass:
            mass += np.einsum("kr,kr->k", np.abs(c), _esp_abs(u, t))
    if len(rows.slow):
        sets = all_sets(d, t)
        vals = rows.slow_values(sets, _member(sets, d))
        np.add.at(out, rows.slow[:, 0], vals)
        np.add.at(mass, rows.slow[:, 0], np.abs(vals).sum(axis=1))
    return out, mass


def _sets_a(rows: _Rows, sets, d, want_mass):
    """(K, m) the given sets (one size), and the mass (K,)."""
    t = sets.shape[1]
    c, us = rows.scaled(t)
    K, RQ = c.shape
    m = len(sets)
    out = np.zeros((K, m))
    mass = np.zeros(K)
    step = max(1, working_elements(32) // max(1, K * RQ * max(t, 1)))
    for lo in range(0, m, step):
        S = sets[lo:lo + step]
        for sign, u in zip((1.0, -1.0), us or [None]):
            if t == 0:
                out[:, lo:lo + step] += c.sum(axis=1)[:, None]
                mass += np.abs(c).sum(axis=1) * len(S)
                continue
            with np.errstate(over="ignore", under="ignore", invalid="ignore"):
                P = u[:, :, S[:, 0]]
                for j in range(1, t):
                    P = P * u[:, :, S[:, j]]
            out[:, lo:lo + step] += sign * np.einsum("kr,krm->km", c, P)
            if want_mass:
                mass += np.einsum("kr,krm->k", np.abs(c), np.abs(P))
    if len(rows.slow):
        vals = rows.slow_values(sets, _member(sets, d))
        np.add.at(out, rows.slow[:, 0], vals)
        np.add.at(mass, rows.slow[:, 0], np.abs(vals).sum(axis=1))
    return out, mass


def _bounds_a(rows: _Rows, t):
    """(beta (K, d), kappa (K,)): |I(T)| <= prod_T beta + kappa for every t-set (module docstring)."""
    c, us = rows.scaled(t)
    with np.errstate(over="ignore", invalid="ignore"):
        S = [np.einsum("kr,krj->kj", np.abs(c), np.abs(u) ** t) for u in us]
        beta = np.maximum.reduce(S) ** (1.0 / t)
    if len(us) == 2:
        beta = beta * 2.0 ** (1.0 / t)       # prod_T a' + prod_T c' <= 2 prod_T max
    kappa = np.zeros(c.shape[0])
    if len(rows.slow):
        big = np.abs(rows.slow_F)
        for n in rows.slow_nums:
            big = np.maximum(big, np.abs(n))
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            each = np.abs(rows.slow_coef) * np.prod(big, axis=-1) * len(rows.slow_nums)
        np.add.at(kappa, rows.slow[:, 0], each)
    return beta, kappa


# --------------------------------------------------------------------------- #
# part B: Taylor coefficients at points, by the masked ESP recursion
# --------------------------------------------------------------------------- #
def _esp_scaled(D, F, deg):
    """e_j(D, F; N) for j <= deg along the last axis: (E (..., deg+1), exponent (...)), value E 2**exponent."""
    E = np.zeros(F.shape[:-1] + (deg + 1,))
    E[..., 0] = 1.0
    acc = np.zeros(F.shape[:-1], dtype=np.int64)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        for l in range(F.shape[-1]):
            new = E * F[..., l, None]
            new[..., 1:] += E[..., :-1] * D[..., l, None]
            E = new
            if (l + 1) % _RENORM_EVERY == 0:
                _, e = np.frexp(np.max(np.abs(E), axis=-1))
                E = np.ldexp(E, -e[..., None])
                acc += e
    return E, acc


def _points_b(A, C, W, size: _Size, sets, d, want_mass):
    """(K, m) the Taylor-point part of the given sets, and its mass (K,).

    For every row (term, point) and set T the recursion E_i <- E_i F_l + E_{i-1} D_l over the
    players l outside T, E_i <- E_i D_l for those in T, gives D_T e_i(D, F; N \\ T) (no division).
    The mass, sum over all t-sets T and i of |W| |D_T| e_i(|D|, |F|; N \\ T), is by counting
    C(t+i, i) e_{t+i}(|D|, |F|; N) per row: an upper bound of the given sets' mass.
    """
    K, R, _ = A.shape
    t = sets.shape[1]
    X, I = len(size.bx), size.imax + 1
    F, D = _factors_at(A, C, size.bx, size.bs)                           # (K, R, X, d)
    D = np.broadcast_to(D[:, :, None, :], F.shape)
    m = len(sets)
    member = _member(sets, d)
    out = np.zeros((K, m))
    coefW = W[:, :, None, None] * size.bW                                 # (K, R, X, I)
    step = max(1, working_elements(32) // max(1, 3 * K * R * X * I))
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        for lo in range(0, m, step):
            mem = member[lo:lo + step]                                     # (mc, d)
            E = np.zeros((K, R, X, len(mem), I))
            E[..., 0] = 1.0
            acc = np.zeros((K, R, X, len(mem)), dtype=np.int64)
            for l in range(d):
                inside = mem[:, l][:, None]                                # (mc, 1)
                fl = F[..., l][..., None, None]
                dl = D[..., l][..., None, None]
                grow = np.where(inside, dl, fl)                            # D_l in T, F_l outside
                new = E * grow
                if I > 1:
                    new[..., 1:] += np.where(inside, 0.0, E[..., :-1] * dl)
                E = new
                if (l + 1) % _RENORM_EVERY == 0 or l == d - 1:
                    _, e = np.frexp(np.max(np.abs(E), axis=-1))
                    E = np.ldexp(E, -e[..., None])
                    acc += e
            total = np.ldexp(np.einsum("krxmi,krxi->krxm", E, coefW), acc)
            out[:, lo:lo + step] = total.sum(axis=(1, 2))
    mass = np.zeros(K)
    if want_mass:
        Es, acc = _esp_scaled(np.abs(D), np.abs(F), t + size.imax)            # (K, R, X, t+I)
        counts = np.array([math.comb(t + i, i) for i in range(I)], dtype=float)
        with np.errstate(over="ignore", under="ignore"):
            per = np.ldexp(np.einsum("krxi,krxi->krx", np.abs(coefW) * counts, Es[..., t:t + I]), acc)
        mass = per.sum(axis=(1, 2))
    return out, mass


# --------------------------------------------------------------------------- #
# jobs and the pass over the terms
# --------------------------------------------------------------------------- #
class _Job:
    """One thing to accumulate over all term blocks: dense values, given sets, or bounds, of one size."""

    def __init__(self, kind, size: _Size, n, d, sets=None):
        self.kind, self.size, self.d, self.sets = kind, size, d, sets
        t = size.t
        if kind == "dense":
            m = n_sets(d, t)
        elif kind == "sets":
            m = len(sets)
        else:
            m = d
        self.out = np.zeros((n, m))
        self.mass = np.zeros(n)
        self.kappa = np.zeros(n)
        # (term, value node) rows computed, and terms: the nodes per term the size used
        self.node_rows, self.terms = 0.0, 0.0

    def add_node(self, rows: NodeRows, qs, P, ratios, p1, target):
        """Add the share of a group of nodes ``qs`` of a block of fast terms (``_interaction_dense``)."""
        size, d, t = self.size, self.d, self.size.t
        c = rows.coef(t, qs, P)
        if c is not None:
            self.node_rows += rows.K * rows.R * int(np.count_nonzero(rows.weights[t][qs]))
        if c is not None and not (size.form == "meeting" and t == 0):     # prod_empty a - prod_empty c = 0
            names = ("u",) if size.form == "superset" else ("a", "c")
            us = [ratios[name] for name in names]
            if self.kind == "dense":
                acc = self.out[target]
                for sign, u in zip((1.0, -1.0), us):
                    add_dense(acc, c if sign > 0 else -c, u, t, d)
                # the mass: sum_r |c_r| (sum_l |u_rl|)^t / t!, an upper bound of sum_T sum_r |c_r prod_T u_r|
                # (the general route takes the elementary symmetric sum itself); the efficiency check's scale
                with np.errstate(over="ignore"):
                    self.mass[target] += sum(np.einsum("kr,kr->k", np.abs(c), p1[name] ** t)
                                             for name in names) / math.factorial(t)
            else:
                view = _NodeView(c, [np.swapaxes(u, 1, 2) for u in us])
                if self.kind == "bound":
                    beta, kappa = _bounds_a(view, t)
                    self.out[target] += beta**t
                else:
                    self._add(target, *_sets_a(view, self.sets, d, True))
        for i, q in enumerate(qs):
            if self._taylor_here(rows, q):
                sl = slice(i * rows.R, (i + 1) * rows.R)
                self._add(target, *taylor_first(rows, size, q, P[:, sl], ratios["u"][:, :, sl], p1["u"][:, sl]))

    def twin(self, rows) -> _Job:
        """A job of the same kind, size and sets for ``rows`` instances, with sums of its own (one block's)."""
        return _Job(self.kind, self.size, rows, self.d, self.sets)

    def merge(self, other: _Job, target):
        """Add a twin's sums to this job's rows ``target`` (a twin of one row adds to all of them)."""
        self.out[target] += other.out
        self.mass[target] += other.mass
        self.kappa[target] += other.kappa
        self.node_rows += other.node_rows
        self.terms += other.terms

    def _taylor_here(self, rows, q):
        """Whether node q holds a first-order Taylor point this job takes from the shared rows."""
        size = self.size
        return (self.kind == "dense" and size.t == 1 and size.imax == 1 and size.form == "superset"
                and any(i == 1 and rows.where[x] == q for x, i, _ in size.rule.points))

    def _add(self, target, vals, mass):
        self.out[target] += vals
        self.mass[target] += mass

    def end_block(self, A, C, W, target):
        """After a block of fast terms' nodes: count its terms; the Taylor coefficients the shared rows do
        not give (``_points_b``)."""
        size, d, t = self.size, self.d, self.size.t
        self.terms += A.shape[0] * A.shape[1]
        if size.has_points and self.kind != "bound" and not (
                self.kind == "dense" and t == 1 and size.imax == 1 and size.form == "superset"):
            sets = all_sets(d, t) if self.kind == "dense" else self.sets
            self._add(target, *_points_b(A, C, W, size, sets, d, True))

    def add(self, A, C, W, target, rows: _Rows | None):
        size, d, t = self.size, self.d, self.size.t
        self.terms += A.shape[0] * A.shape[1]
        self.node_rows += A.shape[0] * A.shape[1] * size.Q
        if size.form == "meeting" and t == 0:    # prod_empty a - prod_empty c = 0
            return
        if self.kind == "bound":
            beta, kappa = _bounds_a(rows, t)
            # sums of |c||u|^t add over blocks: keep beta^t
            self.out[target] += beta**t
            self.kappa[target] += kappa
            return
        if size.Q:
            if self.kind == "dense":
                vals, mass = _dense_a(rows, t, d, True)
            else:
                vals, mass = _sets_a(rows, self.sets, d, True)
            self.out[target] += vals
            self.mass[target] += mass
        if size.has_points:
            sets = all_sets(d, t) if self.kind == "dense" else self.sets
            vals, mass = _points_b(A, C, W, size, sets, d, True)
            self.out[target] += vals
            self.mass[target] += mass


def _run(game, jobs, n, max_elements, progress, desc, n_jobs=None):
    """One pass over the game's terms, feeding every job; returns (v_empty, v_full) (n,).

    The blocks of terms are summed one by one into partial sums of their own, on as many threads
    as ``n_jobs`` (default: the usable CPUs) allows, and the partial sums are added to the jobs in
    the blocks' order: the result is bit-for-bit that of one thread (:class:`_OrderedSums`).
    """
    d = game.n_players
    work = working_elements(16) if max_elements is None else int(max_elements)
    threads = _usable_cpus() if n_jobs is None else max(1, int(n_jobs))
    total = None if game.n_terms() is None else game.n_terms() * n
    # the matrix products are many and small (one node's terms at a time): one BLAS thread each
    # (threaded BLAS spent most of its time waiting on a busy machine, up to 700x slower)
    with progress_bar(total, desc, "term", progress) as bar, single_threaded_blas():
        sums = _OrderedSums(jobs, n, d, bar)
        numbers = sum(job.out.shape[1] for job in jobs)
        for block in game.iter_terms():
            tasks = _blocks(block, jobs, n, d, work)
            # threads where the blocks hold enough arithmetic to pay for waking them, and while the blocks
            # in flight (three per thread at most), whose partial sums are as large as their instances'
            # results, hold no more than the result or max_memory / 8
            terms = sum(t[1].shape[0] * t[1].shape[1] for t in tasks)
            held = 3 * threads * max([t[1].shape[0] for t in tasks] + [0]) * numbers
            use = threads if _threaded(terms, d, jobs) and held <= max(n * numbers, working_elements(8)) else 1
            sums.run(tasks, min(use, len(tasks)))
    return sums.v_empty, sums.v_full


#: Blocks of fast terms one block of the game is cut into at least (where each keeps 64 terms).
_PIECES = 2
#: Multiply-adds (about) below which one block of the game's terms is summed on one thread.
_THREAD_WORK = 2**25


def _threaded(terms, d, jobs) -> bool:
    """Whether a block of ``terms`` terms holds enough arithmetic to pay for threads (about ten nodes per
    term: the rows and the values of every job)."""
    return 10.0 * terms * (d + sum(job.out.shape[1] for job in jobs)) >= _THREAD_WORK


def _usable_cpus():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


class _OrderedSums:
    """The blocks of one pass, each summed into jobs of its own on any thread, added in block order.

    A thread takes the next block unless blocks finished out of turn would pile up (at most two
    per thread wait); each finished block's partial sums wait in ``pending`` until the blocks
    before it are added, so the order of the additions never depends on the threads.
    """

    def __init__(self, jobs, n, d, bar):
        self.jobs, self.d, self.bar = jobs, d, bar
        self.v_full, self.v_empty = np.zeros(n), np.zeros(n)
        self.cond = threading.Condition()

    def run(self, tasks, threads):
        """Sum ``tasks`` (from :func:`_blocks`) on ``threads`` threads; return when all are added."""
        self.tasks, self.next, self.turn, self.pending, self.failed = tasks, 0, 0, {}, False
        with_helpers(lambda: self._work(threads), max(1, threads))

    def _work(self, threads):
        while True:
            with self.cond:
                while (not self.failed and self.next < len(self.tasks)
                       and self.next - self.turn >= 2 * threads):
                    self.cond.wait()
                if self.failed or self.next >= len(self.tasks):
                    return
                i, self.next = self.next, self.next + 1
            try:
                part = self._part(self.tasks[i])
            except BaseException:
                with self.cond:
                    self.failed = True
                    self.cond.notify_all()
                raise
            with self.cond:
                self.pending[i] = part
                while self.turn in self.pending:
                    self._add(self.tasks[self.turn], *self.pending.pop(self.turn))
                    self.turn += 1
                self.cond.notify_all()

    def _part(self, task):
        """One block's sums: (jobs of its own (one row per instance of the block), v(N), v(empty))."""
        _, A, C, W, plans, fast, _ = task
        own = [job.twin(A.shape[0]) for job in self.jobs]
        full, empty = _feed(own, (A, C, W), slice(0, A.shape[0]), self.d, (plans, fast))
        return own, full, empty

    def _add(self, task, own, full, empty):
        target = task[0]
        for job, part in zip(self.jobs, own):
            job.merge(part, target)
        self.v_full[target] += full
        self.v_empty[target] += empty
        self.bar.update(task[-1])


def _blocks(block, jobs, n, d, work):
    """The tasks of one block of the game's terms: (target rows, A, C, W, plans, fast terms, progress).

    Fast terms (``_interaction_dense``) are cut so that one node's (players x terms) slab holds
    at most SLAB_ELEMENTS numbers, and, where the block is worth threads (:func:`_threaded`),
    into at least :data:`_PIECES` pieces of 64 terms or more (work for two threads; a number that
    depends on the problem, not on the threads, nor do the sums); the others as the general
    route's arrays allow (``work`` numbers).
    """
    rows_slice, w, a, c = block
    a, c, w = (np.asarray(x, dtype=float) for x in (a, c, w))
    shape = np.broadcast_shapes(a.shape, c.shape, w.shape + (a.shape[-1],))
    K, R = shape[0], shape[1]
    if R == 0:
        return []
    start = rows_slice.start or 0
    n_rows = len(range(*rows_slice.indices(n)))
    shared = K == 1 and n_rows > 1
    a, c = np.broadcast_to(a, shape), np.broadcast_to(c, shape)
    w = np.broadcast_to(w, shape[:2])
    plans = tuple({id(j.size): j.size for j in jobs}.values())
    fast = fast_terms(a, c) if _FAST_PATH else np.zeros(R, dtype=bool)
    gram = fast.all() and _gram_call(jobs, plans)
    if fast.all():
        budget, per_term = min(work, GRAM_ELEMENTS if gram else SLAB_ELEMENTS), d
    else:
        budget, per_term = work, 8 * max([j.size.Q + len(j.size.bx) for j in jobs] + [1]) * d + d
    rc = max(1, min(R, budget // per_term))
    if fast.all() and rc == R and K == 1 and R >= 64 * _PIECES and _threaded(R, d, jobs):
        rc = -(-R // _PIECES)
    elif gram and rc < R:                       # pieces of one size, a multiple of _PIECES of them
        pieces = -(-R // rc)
        rc = -(-R // (-(-pieces // _PIECES) * _PIECES))
    kc = max(1, min(K, budget // (per_term * R))) if rc == R else 1
    tasks = []
    for k0 in range(0, K, kc):
        target = slice(start, start + n_rows) if shared else slice(start + k0, start + min(K, k0 + kc))
        for r0 in range(0, R, rc):
            W = w[k0:k0 + kc, r0:r0 + rc]
            tasks.append((target, a[k0:k0 + kc, r0:r0 + rc], c[k0:k0 + kc, r0:r0 + rc], W, plans,
                          fast[r0:r0 + rc], W.size * (n_rows if shared else 1)))
    return tasks


def _gram_call(jobs, plans) -> bool:
    """Whether a pass's fast terms go to ``_interaction_gram``: every job dense, sizes 0..3 of superset form."""
    return _GRAM and all(job.kind == "dense" for job in jobs) and gram_sizes(plans)


def _feed_fast(jobs, block, target, plans):
    """Add a block's fast terms (A, C, W) to every job: through ``_interaction_gram`` where the call and the
    terms are its, else through rows shared by all sizes, node by node (``_interaction_dense``). Returns
    their shares of v(N) and v(empty) (K,)."""
    A, C, W = block
    res = None
    if _gram_call(jobs, plans):
        outs = {id(job.size): (job.out[target], job.mass[target]) for job in jobs}
        res = gram_block(A, C, np.broadcast_to(W, A.shape[:2]), plans, outs)
    if res is not None:
        for job in jobs:
            job.node_rows += res.rows[id(job.size)]
            job.end_block(A, C, W, target)
        return res.full, res.empty
    rows = NodeRows(A, C, W, plans, {p.form for p in plans})
    for qs, P, ratios, p1 in rows:
        for job in jobs:
            job.add_node(rows, qs, P, ratios, p1, target)
    for job in jobs:
        job.end_block(A, C, W, target)
    return rows.full, rows.empty


def _feed(jobs, block, target, d, fast_plan):
    """Add one block of terms (A, C, W) to every job: the fast terms by :func:`_feed_fast` (``fast_plan`` =
    (plans, which terms)), the others through each size's own rows (:class:`_Rows`). Returns the block's
    shares of v(N) and v(empty) (K,)."""
    A, C, W = block
    plans, fast = fast_plan
    full = empty = 0.0
    if fast.any():
        keep = np.flatnonzero(fast)
        Af, Cf, Wf = (A, C, W) if len(keep) == A.shape[1] else (A[:, keep], C[:, keep], W[:, keep])
        full, empty = _feed_fast(jobs, (Af, Cf, Wf), target, plans)
        if len(keep) == A.shape[1]:
            return full, empty
    slow = np.flatnonzero(~fast)
    A, C, W = (A, C, W) if len(slow) == A.shape[1] else (A[:, slow], C[:, slow], W[:, slow])
    with np.errstate(over="ignore", under="ignore"):
        full = full + np.einsum("kr,kr->k", W, np.prod(A, axis=-1))
        empty = empty + np.einsum("kr,kr->k", W, np.prod(C, axis=-1))
    cache = {}
    for job in jobs:
        old = None
        if job.size.Q:
            key = id(job.size)
            if key not in cache:
                cache[key] = _Rows(A, C, W, job.size)
            old = cache[key]
        job.add(A, C, W, target, old)
    return full, empty


class _NodeView:
    """One node's rows of a size, with the interface of :class:`_Rows` (``scaled``, ``slow``)."""

    def __init__(self, c, us):
        self.c, self.us = c, us
        self.slow = np.zeros((0, 2), dtype=np.int64)

    def scaled(self, t):
        """(c (K, R), [u (K, R, d)]): the size's coefficients and ratios at the node."""
        return self.c, (self.us if t else [])


# --------------------------------------------------------------------------- #
# top=: candidates by the bound
# --------------------------------------------------------------------------- #
def _seed_sets(beta, t, top, d):
    """Union over instances of the t-sets of each instance's p best players by beta, C(p, t) >= 2 top."""
    p = t
    while p < d and math.comb(p, t) < 2 * top:
        p += 1
    best = np.argsort(-beta, axis=1, kind="stable")[:, :p]                # (n, p)
    combos = all_sets(p, t)
    sets = np.sort(best[:, combos], axis=-1).reshape(-1, t)
    return np.unique(sets, axis=0)


def _candidates(beta_row, kappa, theta, t, d, limit):
    """t-sets with prod beta + kappa >= theta (pruned enumeration); None if more than ``limit``."""
    tau = theta * (1 - _MARGIN) - kappa * (1 + _MARGIN)
    if not tau > 0:
        return None
    order = np.argsort(-beta_row, kind="stable")
    with np.errstate(divide="ignore"):
        lb = np.log(np.maximum(beta_row[order], 1e-300)) + math.log1p(_MARGIN)
    cs = np.concatenate([[0.0], np.cumsum(lb)])
    log_tau = math.log(tau)
    # partial sets as positions in the sorted order; optimistic completion by the next largest
    pos = np.arange(d - t + 1)[:, None]
    logs = lb[pos[:, 0]]
    for level in range(1, t + 1):
        last = pos[:, -1]
        more = t - level
        opt = logs + (cs[np.minimum(last + 1 + more, d)] - cs[np.minimum(last + 1, d)])
        keep = opt >= log_tau
        pos, logs = pos[keep], logs[keep]
        if len(pos) > limit:
            return None
        if level == t:
            break
        hi = d - t + level
        counts = np.maximum(hi - pos[:, -1], 0)
        rows = np.repeat(np.arange(len(pos)), counts)
        starts = np.cumsum(counts) - counts
        new = pos[rows, -1] + 1 + (np.arange(len(rows)) - np.repeat(starts, counts))
        pos = np.concatenate([pos[rows], new[:, None]], axis=1)
        logs = logs[rows] + lb[new]
    return np.sort(order[pos], axis=1)


# --------------------------------------------------------------------------- #
# the entry point
# --------------------------------------------------------------------------- #
def product_interaction_orders(game, index, order, *, sets=None, top=None, sizes=None,  # noqa: PLR0913 - the request (index, order, sets, top, sizes) and the pass's options
                               max_elements=None, progress=None, guard=None, n_jobs=None) -> dict:
    """An index's values of any order for a product game, by leave-|T|-out quadrature.

    Parameters
    ----------
    game : ProductGame
    index : str or InteractionIndex
        A name of ``INDEX_NAMES`` or an alias (``_interaction_indices.get_index``).
    order : int
        k in 1..d. "up to k" indices (k-SII, STII, FSII, FBII) give sizes 1..k; the others size k.
    sets : sequence of sequences of int, optional
        Only these sets (sizes 0..k for "up to k" indices, any size otherwise); each size's
        result lists them in the order given (``layout="sets"``).
    top : int, optional
        Per instance and size, the ``top`` sets of largest |value| (``layout="top"``),
        certified (module docstring). Not with ``sets``.
    sizes : sequence of int, optional
        Set sizes to compute instead of the order's (e.g. ``(0, 1, 2)``).
    max_elements : int, optional
        float64 elements of one block of terms (default from ``kx.config_context(max_memory=...)``).
    progress : bool, optional
    guard : callable, optional
        ``top=`` only: called before the last pass with {size: (layout, number of sets)} the
        bound lets through (known only then); it may raise to refuse (the cost guard does).
    n_jobs : int, optional
        Threads summing the blocks of terms (default: the usable CPUs; the values do not
        depend on it).

    Returns
    -------
    dict
        ``"index"`` (canonical name), ``"order"`` k, ``"values"``: {t: OrderValues} with
        ``sets`` (m, t) and ``values`` (n, m) for ``"dense"`` (all C(d, t) sets,
        lexicographic, as ``itertools.combinations``) and ``"sets"``; ``sets`` (n, top, t),
        ``values`` (n, top), ``certified`` and ``evaluated`` (n,) for ``"top"``; ``mass``
        (n,) the absolute size of the sums (dense and sets); ``"v_empty"``, ``"v_full"`` (n,);
        ``"budget"`` 0 (no game evaluation); ``"nodes"`` {t: value nodes per term} (rows
        (term, node) the size's values read, over terms: the quadrature nodes the route used).

    Raises
    ------
    TypeError
        ``game`` is not a ProductGame with known terms.
    ValueError
        Unknown index, order outside 1..d, a set of a size without value, ``sets`` with
        ``top``, ``top`` not a positive integer, or a dense result above
        :data:`MAX_DENSE_SETS` numbers per instance.
    FloatingPointError
        A value came out non-finite (factors so large that a contribution overflows).

    Examples
    --------
    >>> import numpy as np
    >>> import kernelxai as kx
    >>> a = np.random.default_rng(0).uniform(0.2, 1.0, size=(2, 5, 4))   # 2 points, 5 terms, 4 players
    >>> g = kx.ProductGame(a, np.ones((1, 5, 4)), np.ones((1, 5)))
    >>> res = product_interaction_orders(g, "k-SII", 3)
    >>> sorted(res["values"]), res["values"][3].sets.shape, res["values"][3].values.shape
    ([1, 2, 3], (4, 3), (2, 4))
    >>> total = sum(res["values"][t].values.sum(axis=1) for t in (1, 2, 3))   # efficiency
    >>> bool(np.allclose(total, res["v_full"] - res["v_empty"]))
    True
    """
    if not isinstance(game, ProductGame) or game.n_terms() is None:
        raise TypeError("the product route needs a ProductGame with known terms; got "
                        f"{type(game).__name__}")
    idx = get_index(index)
    d, n = game.n_players, game.n_instances or 1
    k = idx.check_order(order, d)
    groups = _resolve_groups(idx, k, d, sets, top, sizes)
    plans = {t: size_plan(idx, t, d, k) for t in groups}
    run = _Pass(game, n, d, max_elements, progress, f"product {idx.name}", n_jobs)
    results: dict[int, OrderValues] = {}
    if top is None:
        jobs = {t: _Job("dense" if chosen is None else "sets", plans[t], n, d, chosen)
                for t, chosen in groups.items()}
        if _gram_call(list(jobs.values()), tuple(plans.values())):
            prepare_kernels(sum(n_sets(d, t) * (p.gl_exact + len(p.rule.points)) for t, p in plans.items())
                            * game.n_terms() * n)
        v_empty, v_full = run(list(jobs.values()))
        for t, job in jobs.items():
            chosen = groups[t]
            results[t] = OrderValues(t, all_sets(d, t) if chosen is None else chosen, job.out,
                                     "dense" if chosen is None else "sets", mass=job.mass)
        nodes = {t: job.node_rows / max(job.terms, 1.0) for t, job in jobs.items()}
    else:
        nodes = {}
        v_empty, v_full = _top(run, idx, plans, int(top), results, guard, nodes)
    for t, ov in results.items():
        if not np.all(np.isfinite(ov.values)):
            raise FloatingPointError(f"{idx.name} values of size {t} came out non-finite: a term's "
                                     "contribution overflows the double range")
    return {"index": idx.name, "order": k, "values": dict(sorted(results.items())),
            "v_empty": v_empty, "v_full": v_full, "budget": 0, "nodes": dict(sorted(nodes.items()))}


def _resolve_groups(idx, k, d, sets, top, sizes) -> dict:
    """{size: None (all sets) or the sets asked for (m, t)}, every argument checked."""
    if sets is not None and top is not None:
        raise ValueError("give sets= or top=, not both")
    if top is not None and (isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1):
        raise ValueError(f"top must be a positive integer (sets per size and instance); got {top!r}")
    if sets is not None:
        return _group_sets(idx, sets, k, d)
    wanted = idx.sizes(k, d) if sizes is None else [idx.check_size(t, k, d) for t in sizes]
    groups = {t: None for t in sorted(set(wanted))}
    for t in groups:
        if n_sets(d, t) > MAX_DENSE_SETS and (top is None or idx.rule(t, d, k).max_derivative):
            raise ValueError(f"all {n_sets(d, t)} sets of size {t} per instance are more than "
                             f"{MAX_DENSE_SETS}; ask for sets=... or "
                             + ("top=..." if top is None else "fewer players (this size has no bound)"))
    return groups


class _Pass:
    """A pass over the game's terms with fixed options: ``run(jobs)`` -> (v_empty, v_full)."""

    def __init__(self, game, n, d, max_elements, progress, desc, n_jobs=None):
        self.game, self.n, self.d = game, n, d
        self.max_elements, self.progress, self.desc, self.n_jobs = max_elements, progress, desc, n_jobs

    def __call__(self, jobs):
        return _run(self.game, jobs, self.n, self.max_elements, self.progress, self.desc, self.n_jobs)


def _select_top(values, sets, top):
    """Per instance the ``top`` entries of largest |value|: (sets (n, top, t), values (n, top))."""
    top = min(top, values.shape[1])
    part = np.argsort(-np.abs(values), axis=1, kind="stable")[:, :top]
    return sets[part], np.take_along_axis(values, part, axis=1)


def _top(run: _Pass, idx, plans, top, results, guard=None, nodes=None):
    """The top= path (module docstring); fills ``results`` (and ``nodes``: value nodes per term of each
    size's last pass); returns (v_empty, v_full).

    ``guard``, when given, is called before the third pass with {t: (layout, sets)} -- what the
    bound lets through, now known -- and may refuse (e.g. the cost guard).
    """
    n, d = run.n, run.d
    boundable = {t: p for t, p in plans.items() if not p.has_points and t >= 1
                 and n_sets(d, t) > 2 * top}
    # pass 1: bounds of the boundable sizes, all sets of the others
    jobs = [_Job("bound", p, n, d) for p in boundable.values()]
    dense = {t: _Job("dense", p, n, d) for t, p in plans.items() if t not in boundable}
    v_empty, v_full = run(jobs + list(dense.values()))
    bounds = {job.size.t: (job.out ** (1.0 / job.size.t), job.kappa) for job in jobs}
    # pass 2: the seeds; pass 3: every set whose bound reaches the seeds' top-th |value|
    seeds = {t: _Job("sets", p, n, d, _seed_sets(bounds[t][0], t, top, d)) for t, p in boundable.items()}
    if seeds:
        run(list(seeds.values()))
    more = {t: _more_sets(seeds[t], bounds[t], top, d) for t in boundable}
    for t, s in more.items():
        if s is None and n_sets(d, t) > MAX_DENSE_SETS:
            raise ValueError(f"top={top} at size {t}: the bound does not narrow the {n_sets(d, t)} sets "
                             f"down to a number that fits, and all of them are more than {MAX_DENSE_SETS}; "
                             "ask for sets=... or fewer players (groups)")
    extra = {t: _Job("dense" if s is None else "sets", boundable[t], n, d, s)
             for t, s in more.items() if s is None or len(s)}
    if guard is not None and extra:
        guard({t: ("dense", n_sets(d, t)) if s is None else ("sets", len(s)) for t, s in more.items()
               if t in extra})
    if extra:
        run(list(extra.values()))
    for t in plans:
        if t in dense or more[t] is None:
            job = dense.get(t) or extra[t]
            s, v = _select_top(job.out, all_sets(d, t), top)
            evaluated = n_sets(d, t)
        else:
            parts = [seeds[t]] + ([extra[t]] if t in extra else [])
            s, v = _select_top(np.concatenate([p.out for p in parts], axis=1),
                               np.concatenate([p.sets for p in parts]), top)
            evaluated = sum(len(p.sets) for p in parts)
        results[t] = OrderValues(t, s, v, "top", certified=np.ones(n, bool),
                                 evaluated=np.full(n, evaluated))
        last = extra.get(t) or dense.get(t) or seeds[t]
        if nodes is not None:
            nodes[t] = last.node_rows / max(last.terms, 1.0)
    return v_empty, v_full


def _more_sets(seed: _Job, bound, top, d):
    """The sets beyond the seeds whose bound reaches some instance's top-th |value| among the seeds
    ((m, t), possibly empty), or None when they would be more than a twelfth of all sets (gathering one set
    costs about eight times its share of the dense matrix products, measured at d = 50-200) or not fit."""
    t = seed.size.t
    vals = seed.out
    theta = -np.sort(-np.abs(vals), axis=1)[:, min(top, vals.shape[1]) - 1]
    limit = min(n_sets(d, t) // 12, max(1000, working_elements(16) // max(t, 1)))
    found = []
    for i in range(len(theta)):
        cand = _candidates(bound[0][i], bound[1][i], theta[i], t, d, limit)
        if cand is None:
            return None
        found.append(cand)
    extra = np.unique(np.concatenate(found + [np.zeros((0, t), np.int64)]), axis=0)
    extra = extra[~np.isin(lex_rank(extra, d), lex_rank(seed.sets, d))]
    return None if len(extra) + len(seed.sets) > limit else extra


def product_orders_work(d, n_terms, n_instances, index, order, *, n_sets_by_size=None) -> dict:
    """Estimated arithmetic of :func:`product_interaction_orders`: multiply-adds and result size.

    Parameters
    ----------
    d, n_terms, n_instances : int
    index, order
    n_sets_by_size : dict int -> int, optional
        Sets per size (default all C(d, t) of the order's sizes).

    Returns
    -------
    dict
        ``"multiply_adds"`` (sets x terms x nodes x t, plus d x terms x points x (i+1) per
        set for the Taylor part), ``"numbers"`` (values returned per instance) and
        ``"nodes"`` {t: Q}.

    Examples
    --------
    >>> w = product_orders_work(50, 300, 1, "SII", 3)
    >>> w["numbers"], w["nodes"]
    (19600, {3: 24})
    """
    idx = get_index(index)
    k = idx.check_order(order, d)
    sizes = n_sets_by_size or {t: n_sets(d, t) for t in idx.sizes(k, d)}
    ops, nodes = 0.0, {}
    for t, m in sizes.items():
        p = size_plan(idx, t, d, k)
        nodes[t] = p.Q
        ops += float(m) * n_terms * n_instances * p.Q * max(t, 1)
        if p.has_points:
            ops += float(m) * n_terms * n_instances * d * len(p.bx) * (p.imax + 1) * 2
    return {"multiply_adds": ops, "numbers": int(sum(sizes.values())), "nodes": nodes}
