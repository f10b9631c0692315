r"""The fast path of the leave-|T|-out quadrature: rows shared by every size, dense matrix products.

Takes a block of product-game terms (present and absent factors a, c, weights w) and the
plans of the set sizes one call of
:func:`~kernelxai.estimators._interaction_product_orders.product_interaction_orders` asks
for; hands on, node by node, the ratios and row products every size reads, and the matrix
products that turn them into the values of all sets of a size. The calling module's
docstring has the identity; this one says how the arithmetic is laid out and why the node
count may be smaller than the exact one.

Which terms
-----------
A term whose every pair (a_l, c_l) has one sign, magnitudes at least :math:`2^{-960}` and
a ratio :math:`|a_l / c_l|` within :math:`2^{\pm 64}`, and whose products
:math:`\prod_l \min(|a_l|, |c_l|)` and :math:`\prod_l \max(|a_l|, |c_l|)` lie in
:math:`[2^{-600}, 2^{600}]` (kernel values are the usual case): every factor
:math:`F_l(x) = c_l + x (a_l - c_l)`, x in [0, 1], is a convex combination of its pair, so
it has the pair's sign and lies between them, no row (term, node) needs the division-free
route, every ratio :math:`u_l = D_l / F_l` is at most :math:`2^{64} + 1` in magnitude and every
row product :math:`P = \prod_l F_l` lies in :math:`[2^{-600}, 2^{600}]`, where the general route
does not rescale either: the arithmetic is the general route's, laid out differently. The
other terms go to the general route (``_interaction_product_orders._Rows``).

One set of rows for every size, one node at a time
--------------------------------------------------
The rows (node, term) are shared by all sizes of the call: Gauss-Legendre nodes (as many
as the size that needs most, below) followed by the union of the sizes' point masses
(x = 0, 1/2, 1) and Taylor points; each size has its own weights on them (zero where it
has none). The rows are formed one node at a time, with the players along the second axis
and the terms along the last, so that every pass runs over one contiguous (players x terms)
slab in the cache (:data:`SLAB_ELEMENTS` numbers; a block of terms is cut to fit):
:math:`F = c + x D` (two passes), :math:`P = \prod_l F_l` (a reduction over the players),
:math:`u = D / F` (one) and :math:`\sum_l |u_l|` (one, the scale of the mass); a generalised
value (meeting form) needs :math:`a/F` and :math:`c/F` instead of :math:`u`. Every size then
adds the share of a group of nodes to its values (below): one node where the block has many
terms, several side by side (one more pass, at most :data:`GROUP_ELEMENTS` numbers) where it
has few, so that the matrix products see :data:`GEMM_ROWS` rows.

The matrix products
-------------------
With :math:`c_r = w\, W_q P` the values of the t-sets are :math:`I(T) = \sum_r c_r \prod_{j \in T} u_{rj}`.
t = 1 is one matrix-vector product per node. For t >= 2 the (t-1)-sets p (prefixes) are
taken in colexicographic order, grouped by their largest player j, and
:math:`I(p \cup \{l\}) = \sum_r (c_r \prod_{j \in p} u_{rj})\, u_{rl}` for l > j is one matrix
product per group of neighbouring j (a group grows while it holds fewer than
:data:`_MIN_GROUP` prefixes or while the columns it wastes, l in (j0, j], stay below an
eighth of those it uses), multiplied with the columns after the group's first player
only. The prefix weights are built by broadcast multiplications into one buffer: the
prefixes ending in j are the (t-2)-set products of players below j (the first
:math:`\binom{j}{t-2}` of their colexicographic list) times :math:`u_{\cdot j}`; for t = 3 that is
:math:`(c\,u_{\cdot i})\,u_{\cdot j}`, for t = 2 just :math:`c\, u_{\cdot j}`. The products' entries
are added at their sets' lexicographic positions (:func:`prefix_plan`; contiguous for t = 2).

How many nodes (certified)
--------------------------
Exactness for every polynomial needs :math:`\lceil (d - t + \deg\rho + 1)/2 \rceil` nodes; the
integrands of kernel games are much smoother. For factors :math:`a_l, c_l \ge 0` the bound of
``kernelxai.estimators._gauss_legendre`` (Chebyshev coefficients on a Bernstein ellipse;
Jensen's inequality for the denominator) holds for the integral over [0, 1] of any product
of linear factors with nonnegative endpoints. Each term :math:`\gamma x^a (1-x)^b` of an
index's density times :math:`P_U = \prod_{l \notin T} F_l` is such a product, with a + b extra
factors (x: endpoints 1 and 0; 1 - x: 0 and 1), each with
:math:`|\rho| = |a_l - c_l| / (a_l + c_l) = 1`. Its sums over the factors are at most
:math:`S_1 + a + b`, :math:`S_2 + a + b` and (the signed sum, which can grow when T is left
out, :math:`|\rho_l| \le 1`) :math:`S_0 + t + a + b`, with :math:`S_1, S_2, S_0` the block's
largest sums over all d players; n nodes integrate it to relative error :math:`2^{-53}` once
:func:`~kernelxai.estimators._gauss_legendre.nodes_needed` says so for those sums and
d - t + a + b + 1 players (a product of d - t + a + b factors). A density is integrated
term by term, so a set's integral errs by at most :math:`2^{-53} \sum |\gamma| \int x^a (1-x)^b P_U`:
relative :math:`2^{-53}` for a nonnegative density (SII, CHII, k-SII and STII, FSII at its
top order), relative to the integral with :math:`|\gamma|` for the signed densities of FSII's
lower orders -- below the rounding of the sums either way, far below 1e-12. Point masses
and Taylor coefficients are exact. The count never exceeds the exact one, and is the
exact one when a factor is negative or the exact count is :data:`_FEW_NODES` or fewer (the
bound would rarely give less).

First-order Taylor coefficients
-------------------------------
k-SII below its top order and FBII read Taylor coefficients of :math:`P_U` at points; for a
single player T = {j} and the first coefficient,
:math:`P_U'(x) = P_U(x) \sum_{l \ne j} u_l(x)`, so the contribution is
:math:`\sum_r w W P\, u_j L_j` with the leave-one-out sums :math:`L_j` taken as prefix plus
suffix sums (no cancellation beyond the sum's own), at the rows of that point. Higher
coefficients and larger sets use the general route's recursion.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .._config import working_elements
from ._gauss_legendre import gauss_legendre_01, nodes_needed
from ._interaction_indices import all_sets, lex_rank, n_sets

__all__ = ["fast_terms", "block_nodes", "bound_free", "exact_nodes", "nodes_from_sums", "NodeRows", "dense_values",
           "add_dense", "prefix_plan", "taylor_first", "SLAB_ELEMENTS", "GEMM_ROWS", "GROUP_ELEMENTS"]

#: Smallest factor magnitude of the fast path (as the general route's division threshold).
_TINY = 2.0**-960
#: Largest ratio |a_l / c_l| (either way) of the fast path: every |u_l| <= 2**64 + 1.
_RATIO = 2.0**64
#: Row products within 2**+-_SAFE_EXP need no rescaling of the ratios.
_SAFE = 2.0**600
#: Exact node counts up to which the bound is not computed (kernel values need 6-10 nodes anyway).
_FEW_NODES = 8
#: Prefixes below which a group of the matrix products grows whatever columns it wastes.
_MIN_GROUP = 32
#: Largest share of a group's columns wasted on l <= its prefixes' last player.
_WASTE = 0.125
#: Prefixes per group at most (the buffer of prefix weights is this many rows).
_MAX_GROUP = 1024
#: float64 numbers of one node's (players x terms) slab: the passes over it stay in the cache,
#: and the terms of a block are as many as this allows.
SLAB_ELEMENTS = 2**15
#: Rows (term, node) the matrix products of a group of nodes take at least where a block has few
#: terms (its nodes' ratios are then copied side by side, one more pass), as long as the group's
#: ratios are at most GROUP_ELEMENTS numbers (beyond the cache, twice as slow, measured).
GEMM_ROWS = 8192
GROUP_ELEMENTS = 2**17


def fast_terms(A, C) -> np.ndarray:
    """(R,) bool: the terms of a block (A, C (K, R, d)) the fast path takes (module docstring)."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        lo = min(float(A.min()), float(C.min()))
        hi = max(float(A.max()), float(C.max()))
        d = A.shape[-1]
        if lo >= _TINY and hi <= _RATIO * lo and d * math.log2(lo) >= -600 and d * math.log2(hi) <= 600:
            return np.ones(A.shape[1], dtype=bool)
        small = np.minimum(np.abs(A), np.abs(C))
        big = np.maximum(np.abs(A), np.abs(C))
        ok = ((small >= _TINY) & (big <= _RATIO * small) & ((A > 0) == (C > 0))).all(axis=(0, 2))
        ok &= (np.prod(small, axis=-1) >= 1 / _SAFE).all(axis=0) & (np.prod(big, axis=-1) <= _SAFE).all(axis=0)
    return ok


def block_nodes(AT, CT, DT, plans, d) -> int:
    """Gauss-Legendre nodes of a block of fast terms (AT, CT, DT = AT - CT: (K, d, R), players along the
    second axis): the most any size with a density needs by the certified bound (module docstring);
    the exact count where a factor is negative; 0 when no size has a density."""
    free = bound_free(plans)
    if free is not None:
        return free
    if not (AT.min() >= 0 and CT.min() >= 0):
        return exact_nodes(plans)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.add(AT, CT)
        np.divide(DT, rho, out=rho)
    s0 = float(np.abs(np.add.reduce(rho, axis=1)).max())
    s2 = float(np.einsum("kdr,kdr->kr", rho, rho).max())
    s1 = float(np.add.reduce(np.abs(rho, out=rho), axis=1).max())
    return nodes_from_sums(plans, d, s0, s1, s2)


def exact_nodes(plans) -> int:
    """The most Gauss-Legendre nodes any size with a density has in its exact rule (0 without a density)."""
    return max([p.gl_exact for p in plans if p.rule.density] + [0])


def bound_free(plans):
    """The node count of a block where the bound is not computed (no density: 0; an exact count of
    :data:`_FEW_NODES` or fewer: that count), else None."""
    exact = exact_nodes(plans)
    return exact if exact <= _FEW_NODES else None


def nodes_from_sums(plans, d, s0, s1, s2) -> int:
    """:func:`block_nodes` from the block's largest sums of rho = D / (a + c) over the players:
    s0 of |sum rho|, s1 of sum |rho|, s2 of sum rho**2 (nonnegative factors)."""
    sizes = [p for p in plans if p.rule.density]
    n = 1
    for p in sizes:
        need = max(nodes_needed(s1 + a + b, s2 + a + b, d - p.t + a + b + 1, s0 + p.t + a + b)
                   for _, a, b in p.rule.density)
        n = max(n, min(p.gl_exact, need))
    return n


@lru_cache(maxsize=256)
def _row_plan(plans, n_gl):
    """Nodes (x, 1-x) of the shared rows, each size's weights on them, and where each point is.

    Rows: ``n_gl`` Gauss-Legendre nodes, then every point any size reads (values or Taylor
    coefficients), sorted. Returns (x, s, weights {t: (Q,)}, point index {x: node}).
    """
    points = sorted({p[0] for plan in plans for p in plan.rule.points})
    gl = gauss_legendre_01(n_gl) if n_gl else (np.zeros(0), np.zeros(0))
    x = np.concatenate([gl[0], [float(v) for v in points]])
    s = np.concatenate([gl[1], [float(1 - v) for v in points]])
    where = {v: n_gl + i for i, v in enumerate(points)}
    weights = {}
    for plan in plans:
        W = np.zeros(len(x))
        if plan.rule.density:
            _, _, ws = plan.rule.quadrature(2 * n_gl - 1 - plan.rule.density_degree)
            W[:n_gl] = ws[:n_gl]
        for v, i, w in plan.rule.points:
            if i == 0:
                W[where[v]] += float(w)
        weights[plan.t] = W
    return x, s, weights, where


class NodeRows:
    """The rows of one block of fast terms, formed one node at a time (module docstring).

    Iterating yields ``(qs, P, ratios, p1)`` per group of nodes (:meth:`groups`): the nodes'
    indices, the row products P (K, g R), the ratios {name: (K, d, g R)} (``"u"`` for the
    superset form, ``"a"`` and ``"c"`` for the meeting form) and their magnitudes summed over the
    players {name: (K, g R)}, rows node-major. The arrays are reused from group to group: read
    them before the next one.

    Attributes
    ----------
    x : ndarray (Q,)
        The nodes; ``weights`` {t: (Q,)} each size's weight on them; ``where`` {x: node} the points.
    K, R, nodes : int
        Instances, terms and Gauss-Legendre nodes of the block.
    w : ndarray (K, R)
        The terms' weights.
    full, empty : ndarray (K,)
        The block's shares of v(N) and v(empty).
    """

    def __init__(self, A, C, W, plans, forms):
        K, R, d = A.shape
        self.K, self.R, self.d = K, R, d
        self.w = np.broadcast_to(W, (K, R))
        self.AT = np.ascontiguousarray(np.swapaxes(A, 1, 2))           # (K, d, R): players, then terms
        self.CT = np.ascontiguousarray(np.swapaxes(C, 1, 2))
        self.DT = self.AT - self.CT
        self.nodes = block_nodes(self.AT, self.CT, self.DT, plans, d)
        self.x, self.s, self.weights, self.where = _row_plan(plans, self.nodes)
        self.names = (("u",) if "superset" in forms else ()) + (("a", "c") if "meeting" in forms else ())
        with np.errstate(over="ignore", under="ignore"):
            self.full = np.einsum("kr,kr->k", self.w, np.multiply.reduce(self.AT, axis=1))
            self.empty = np.einsum("kr,kr->k", self.w, np.multiply.reduce(self.CT, axis=1))

    def groups(self):
        """The nodes in the groups they are used in: Gauss-Legendre nodes together, enough of them for
        :data:`GEMM_ROWS` rows (term, node) a group where the block has fewer terms (at most
        :data:`GROUP_ELEMENTS` ratios a group); the points in one group."""
        n_gl, Q = self.nodes, len(self.x)
        step = max(1, min(n_gl, -(-GEMM_ROWS // max(1, self.R)), GROUP_ELEMENTS // max(1, self.K * self.d * self.R)))
        out = [list(range(q, min(n_gl, q + step))) for q in range(0, n_gl, step)]
        return out + ([list(range(n_gl, Q))] if Q > n_gl else [])

    def __iter__(self):
        K, d, R = self.K, self.d, self.R
        AT, CT, DT = self.AT, self.CT, self.DT
        nums = {"u": DT, "a": AT, "c": CT}
        groups = self.groups()
        g_max = max(len(g) for g in groups)
        F, tmp = np.empty((K, d, R)), np.empty((K, d, R))
        P = np.empty((K, g_max, R))
        ratios = {name: np.empty((K, d, g_max, R)) for name in self.names}
        p1 = {name: np.empty((K, g_max, R)) for name in self.names}
        sign = np.sign(DT) * np.sign(CT) if "u" in self.names else None   # the sign of u at every node
        for qs in groups:
            g = len(qs)
            for i, q in enumerate(qs):
                with np.errstate(over="ignore", under="ignore", invalid="ignore"):
                    if self.x[q] <= 0.5:
                        np.multiply(DT, self.x[q], out=F)
                        np.add(F, CT, out=F)
                    else:
                        np.multiply(DT, -self.s[q], out=F)
                        np.add(F, AT, out=F)
                    np.multiply.reduce(F, axis=1, out=P[:, i])
                    for name in self.names:
                        # one node: straight into the rows; several: a contiguous slab first, then its place
                        out = ratios[name][:, :, 0] if g_max == 1 else tmp
                        np.divide(nums[name], F, out=out)
                        if name == "u":
                            np.einsum("kdr,kdr->kr", out, sign, out=p1[name][:, i])
                        else:                   # a/F and c/F are never negative here
                            np.add.reduce(out, axis=1, out=p1[name][:, i])
                        if g_max > 1:
                            ratios[name][:, :, i] = out
            yield (qs, P[:, :g].reshape(K, g * R),
                   {name: r[:, :, :g].reshape(K, d, g * R) for name, r in ratios.items()},
                   {name: v[:, :g].reshape(K, g * R) for name, v in p1.items()})

    def coef(self, t, qs, P):
        """c (K, g R) = w W_q P of size t at the nodes ``qs`` (a group), or None where the size has no weight."""
        W = self.weights[t][qs]
        if not W.any():
            return None
        g = len(qs)
        return ((P.reshape(self.K, g, self.R) * W[:, None]) * self.w[:, None, :]).reshape(self.K, g * self.R)


def dense_values(c, UT, t, d) -> np.ndarray:
    """(K, C(d, t)): :math:`\\sum_r c_r \\prod_{j \\in T} u_{rj}` for every t-set T, in lexicographic order.

    Parameters
    ----------
    c : ndarray (K, rows)
    UT : ndarray (K, d, rows)
        The ratios, players along the second axis.
    t, d : int
        Set size (>= 0) and number of players.

    Examples
    --------
    >>> import itertools
    >>> rng = np.random.default_rng(0)
    >>> c, U = rng.normal(size=(1, 6)), rng.normal(size=(1, 5, 6))
    >>> v = dense_values(c, U, 3, 5)
    >>> ref = [np.sum(c[0] * U[0, list(T)].prod(axis=0)) for T in itertools.combinations(range(5), 3)]
    >>> bool(np.allclose(v[0], ref))
    True
    """
    out = np.zeros((c.shape[0], n_sets(d, t)))
    add_dense(out, c, UT, t, d)
    return out


def add_dense(out, c, UT, t, d):
    """Add the t-sets' values of rows (c, UT) to ``out`` (K, C(d, t), lexicographic); rows are taken in
    chunks that keep the prefix buffers within the memory budget."""
    K, rows = c.shape
    if t == 0:
        out[:, 0] += c.sum(axis=1)
        return
    if t == 1:
        out += np.matmul(UT, c[:, :, None])[:, :, 0]
        return
    groups = prefix_plan(d, t)
    if not groups:
        return
    per_row = K * (n_sets(d - 1, t - 2) + max(g[3] - g[2] for g in groups))
    step = max(64, min(rows, working_elements(32) // max(1, per_row)))
    for r0 in range(0, rows, step):
        _dense_chunk(out, c[:, r0:r0 + step], UT[:, :, r0:r0 + step], t, d, groups)


def _dense_chunk(out, c, UT, t, d, groups):
    """Add one chunk of rows' contributions to ``out`` (module docstring)."""
    K, rows = c.shape
    # colexicographic (t-2)-set products times c, of the players below the last one that has columns
    base = c[:, None, :]
    for level in range(1, t - 1):
        base = _extend_colex(base, UT, level, d - 1)
    buf = np.empty((K, max(g[3] - g[2] for g in groups), rows))
    for j0, j1, p0, p1, take, dest in groups:
        W = buf[:, :p1 - p0]
        if t == 2:
            np.multiply(UT[:, j0:j1], c[:, None, :], out=W)
        else:
            at = 0
            for j in range(j0, j1):
                m = math.comb(j, t - 2)
                np.multiply(base[:, :m], UT[:, j:j + 1], out=W[:, at:at + m])
                at += m
        G = np.matmul(W, np.swapaxes(UT[:, j0 + 1:], 1, 2))
        out[:, dest] += G.reshape(K, -1)[:, take]


def _extend_colex(base, UT, level, upto):
    """Colexicographic ``level``-set products (largest player below ``upto``) from the (level-1)-set ones."""
    K, _, rows = base.shape
    out = np.empty((K, math.comb(upto, level), rows))
    at = 0
    for j in range(level - 1, upto):
        m = math.comb(j, level - 1)
        np.multiply(base[:, :m], UT[:, j:j + 1], out=out[:, at:at + m])
        at += m
    return out


@lru_cache(maxsize=32)
def prefix_plan(d, t) -> tuple:
    """The groups of :func:`add_dense` for t-sets of d players (t >= 2; empty otherwise).

    Returns
    -------
    tuple of (j0, j1, p0, p1, take, dest)
        Prefixes p0:p1 (colexicographic (t-1)-sets whose largest player is in j0:j1), multiplied
        with the columns j0+1 .. d-1; ``take`` the flat indices (prefix, column) of the sets'
        entries and ``dest`` their lexicographic positions (a slice where they are contiguous).

    Examples
    --------
    >>> [(g[0], g[1], len(g[4]), g[5]) for g in prefix_plan(5, 2)]
    [(0, 4, 10, slice(0, 10, None))]
    """
    if t < 2 or t > d:
        return ()
    s = t - 1
    counts = [math.comb(j, s - 1) for j in range(d)]           # prefixes whose largest player is j
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    colex = colex_sets(d, s)
    groups, j0 = [], s - 1
    while j0 < d - 1:
        j1, used, wasted = j0 + 1, counts[j0] * (d - 1 - j0), 0
        while j1 < d - 1:
            more = counts[j1]
            if (starts[j1 + 1] - starts[j0] > _MAX_GROUP
                    or (starts[j1] - starts[j0] >= _MIN_GROUP and wasted + more * (j1 - j0) > _WASTE * used)):
                break
            used += more * (d - 1 - j1)
            wasted += more * (j1 - j0)
            j1 += 1
        pre = colex[starts[j0]:starts[j1]]                        # (n, s)
        cols = np.arange(j0 + 1, d)
        valid = cols[None, :] > pre[:, -1:]
        take = np.flatnonzero(valid)
        members = np.concatenate([np.repeat(pre, valid.sum(axis=1), axis=0),
                                  np.broadcast_to(cols, valid.shape)[valid][:, None]], axis=1)
        dest = lex_rank(members, d)
        if np.array_equal(dest, np.arange(dest[0], dest[0] + len(dest))):
            dest = slice(int(dest[0]), int(dest[0]) + len(dest))
        groups.append((j0, j1, int(starts[j0]), int(starts[j1]), take, dest))
        j0 = j1
    return tuple(groups)


def taylor_first(rows: NodeRows, plan, q, P, U, p1):
    """(values (K, d), mass (K,)): a size-1 plan's first-order Taylor terms at node q (a point of the plan),
    from the node's row products P (K, R), ratios U (K, d, R) and their magnitudes' sums p1 (K, R).

    :math:`W \\sum_r w_r P_r\\, u_{rj} L_{rj}` with the leave-one-out sums :math:`L_j = \\sum_{l \\ne j} u_l`
    taken as prefix plus suffix sums; the mass :math:`|W| \\sum_r |w_r P_r| (\\sum_l |u_{rl}|)^2` bounds
    the absolute sum.
    """
    W = sum(float(w) for x, i, w in plan.rule.points if i == 1 and rows.where[x] == q)
    loo = np.zeros_like(U)
    np.cumsum(U[:, :-1], axis=1, out=loo[:, 1:])
    loo[:, :-1] += np.cumsum(U[:, :0:-1], axis=1)[:, ::-1]
    cw = W * P * rows.w                                               # (K, R)
    return np.einsum("kr,kdr->kd", cw, U * loo), np.einsum("kr,kr->k", np.abs(cw), p1 * p1)


def colex_sets(d, s) -> np.ndarray:
    """All s-sets of d players in colexicographic order (by largest player, then the next, ...).

    Examples
    --------
    >>> colex_sets(4, 2).tolist()
    [[0, 1], [0, 2], [1, 2], [0, 3], [1, 3], [2, 3]]
    """
    sets = all_sets(d, s)
    return sets[np.lexsort(sets.T)]
