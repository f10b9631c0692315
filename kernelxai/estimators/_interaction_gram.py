r"""Sizes 0 to 3 of the superset-form indices on kernel-valued terms: symmetric rank-k updates at BLAS speed.

Takes a block of product-game terms that the fast path of ``_interaction_dense`` takes
(factor pairs of one sign, bounded ratios), for a call of
:func:`~kernelxai.estimators._interaction_product_orders.product_interaction_orders` whose
sizes are all in 0..3, all of superset form (every interaction index; not the generalised
values) and all wanted for every set (``"dense"``); hands on each size's values of all its
sets, their mass (the scale of the efficiency check), the block's v(N) and v(empty). Same
nodes, weights and certified node count as ``_interaction_dense`` (its docstring); the
arithmetic is laid out so that almost all of it is one BLAS call, and the rest is one pass
over each number (compiled with numba where it is installed, ``_interaction_gram_numba``).

The identity
------------
For a term :math:`w \prod_{S} a \prod_{N \setminus S} c` and a node x, with
:math:`F_l = c_l + x D_l`, :math:`P = \prod_l F_l` and :math:`u_l = D_l / F_l`, a set T gets
:math:`w W_t(x) P \prod_{j \in T} u_j` (``_interaction_product_orders``). Write

.. math::
    s = \gamma \sqrt{|w P|}, \qquad B_l = s\, u_l = \frac{s}{G_l + x},
    \qquad G_l = c_l / D_l,

so that :math:`F_l / D_l = G_l + x`: one addition and one division per factor and node,
where the direct form takes a multiplication, an addition and a division. With
:math:`\sigma = \mathrm{sign}(w P)` (the same at every node: a factor keeps its pair's
sign) the coefficient of size t on the rows B is :math:`\kappa_t = \sigma W_t s^{2-t} / \gamma^2`.
The terms of a block are sorted once by :math:`\sigma`; a *tile* is a range of nodes times a
range of terms of one sign, its rows laid out node by node (about :data:`TILE_ELEMENTS`
numbers).

* t = 2: :math:`\sum_r \kappa \, B_{ri} B_{rj}` with :math:`\gamma^2 = |W_2(x)|`, so that
  :math:`\kappa = \pm 1` over a tile (per run of nodes whose weight has one sign): one symmetric
  rank-k update per tile (numpy's ``a @ a.T``, BLAS ``syrk``: only the triangle -- the
  arithmetic of the pairs and no more), added into one d x d matrix per block;
* t = 1: where the pairs are wanted at the same nodes, one more row
  :math:`\kappa_1 / \kappa_2` below B makes the update's last row the size-1 values; else a
  matrix-vector product. t = 0: a sum;
* t = 3: every triple (i, j, l), i < j < l, once, by its middle player j: the pairs (i, j),
  i < j, weighted by :math:`\kappa\, B_{rj} B_{ri}`, times the columns l > j where j is below
  the middle of the players, the pairs (j, l), l > j, times the columns i < j above it -- so
  the operand built per row is at most d/2 wide and the matrix products have at least d/2
  columns; neighbouring j are grouped (at most :data:`_MID_ROWS` pairs, wasting at most an
  eighth of the products), and the rows taken :data:`_MID_COLUMNS` at a time (the operand stays
  in the cache). The products are added into one buffer per group and block, placed in
  lexicographic order once per block.

:math:`P = D_\Pi \prod_l (G_l + x)` with :math:`D_\Pi = \prod_l D_l` formed once per term
(mantissa and power of two); the product over the players is taken in chunks short enough
that it neither overflows nor underflows (every :math:`|G_l + x|` lies within
:math:`2^{\pm 62}`, below). A factor with :math:`D_l = 0` is constant, :math:`F_l = c_l`: it goes into
:math:`D_\Pi` as :math:`c_l`, its :math:`G_l + x` is set to 1 for the product and its :math:`B_l` to 0;
a term constant in every factor adds to no set of size 1 or more and is left out.

Accuracy
--------
:math:`G_l` is rounded once (relative :math:`2^{-53}`), so
:math:`fl(G_l + x) = (F_l / D_l)(1 + \epsilon)` with
:math:`|\epsilon| \le (|c_l| / |F_l| + 1)\, 2^{-53}`. For x <= 1/2, :math:`|F_l| \ge (1 - x)|c_l| \ge |c_l| / 2`
(a convex combination of a pair of one sign): three units of rounding, as the direct form.
For x > 1/2 the route takes :math:`H_l - (1 - x)`, :math:`H_l = a_l / D_l`, by the same
argument, unless every pair of the block is within a ratio :data:`_RHO_ONE_FORM` (then
:math:`|c_l| / |F_l| \le 2 \rho`: at most 33 units, 4e-15, and the block saves the second
form). The values equal the direct form's to about 1e-14 relative to their mass (tested at
1e-12 of the largest value against the general route, which is tested against 80-digit
arithmetic).

Which blocks
------------
Every term must be a fast term of ``_interaction_dense`` (checked by the caller) and every
:math:`|G_l|, |H_l|` with :math:`D_l \ne 0` at most :data:`_G_MAX` (so
:math:`|G_l + x| \le 2^{62}`, and it is at least :math:`2^{-64}` by the fast path's ratio
bound; two normal numbers of one sign always meet it, :math:`|c / D| \le 2^{53}`), and every
nonzero weight within :math:`2^{\pm 300}` (so s and the rows stay far inside the double
range). Blocks that fail go to ``_interaction_dense`` unchanged.

The mass
--------
The efficiency check's scale, :math:`\sum_r |c_r| (\sum_l |u_{rl}|)^t / t!` as in
``_interaction_dense``. Where every pair of the block is within a ratio
:data:`_RHO_MASS`, :math:`\sum_l |u_l(x)|` is bounded once per term by
:math:`\bar u = \sum_l |D_l| / \min(|a_l|, |c_l|)` (at most :math:`2^t` times the
node's own sum): no pass per node. Otherwise the sum is taken at every node.

Memory and compiled loops
-------------------------
A block's arrays (a few MB) are the calling thread's working arrays, kept from block to
block and call to call (:func:`_work`): fresh arrays of that size cost more to map and touch
page by page than the passes over them (3-4 ms per block measured on the development
machine, where the passes took 1 ms). Where numba is installed and its kernels are loaded
(:func:`prepare_kernels`: by a call of at least :data:`COMPILE_MACS` multiply-adds, or
earlier), the per-term constants and a tile's rows are formed in one compiled pass over the
numbers (``_interaction_gram_numba``) instead of a numpy pass per operation; the values agree
to rounding (tested).
"""

from __future__ import annotations

import math
import threading
from functools import lru_cache
from types import SimpleNamespace

import numpy as np

from ._interaction_dense import _row_plan, block_nodes, bound_free, exact_nodes, nodes_from_sums, taylor_first
from ._interaction_gram_numba import gram_kernels, loaded_kernels, numba_available, read_only
from ._interaction_indices import lex_rank, n_sets

__all__ = ["gram_sizes", "gram_block", "prepare_kernels", "USE_NUMBA", "COMPILE_MACS", "middle_plan", "add_triples",
           "TILE_ELEMENTS", "BLOCK_ELEMENTS"]

#: |c/D| and |a/D| at most this (where D != 0): every |G + x| within 2**62.
_G_MAX = 2.0**61
#: Nonzero weights |w| within 2**+-_W_EXP.
_W_EXP = 300
#: Pairs within this ratio: the form G + x at every node (no H = a / D).
_RHO_ONE_FORM = 16.0
#: Pairs within this ratio: the mass from the per-term bound u-bar (no pass per node).
_RHO_MASS = 2.0
#: Players x terms of one block of this route (the calling module cuts the game's terms to it).
BLOCK_ELEMENTS = 2**18
#: Players x rows (term, node) of one tile: its two buffers stay in the second-level cache.
TILE_ELEMENTS = 2**17
#: Pairs of one matrix product of the triples at most (a group of middle players).
_MID_ROWS = 64
#: Pairs of a group at least, whatever it wastes.
_MID_MIN = 16
#: Largest share of a group's products wasted (columns beyond the group's first middle player).
_MID_WASTE = 0.125
#: Rows (term, node) of one matrix product of the triples.
_MID_COLUMNS = 768
#: Whether the loops run compiled where numba is installed (``_interaction_gram_numba``); False: numpy.
USE_NUMBA = True
#: Multiply-adds of a call from which the compiled kernels are loaded if they are not yet (about 5 s of
#: arithmetic at 20 GMAC/s: loading them, 2-8 s of processor time once per process, costs less than that).
COMPILE_MACS = 1e11
#: Bound of log2 |x| below which a product of n factors of magnitude in 2**+-b is taken whole (n b <= it).
_RANGE = 1000.0


#: Numbers of one working array a thread keeps from block to block and call to call at most.
_KEEP = 2**23
_LOCAL = threading.local()


def _work(name, shape, dtype=np.float64):
    """A working array of the calling thread, reused from block to block (module docstring, "Memory and
    compiled loops").

    Fresh arrays of a block's size cost more to map and touch page by page than the passes over
    them (measured 3-4 ms for the 4 MB of a block at d = 50). Each name is one array at a time: the
    caller is done with it before the thread asks for the name again.
    """
    space = getattr(_LOCAL, "space", None)
    if space is None:
        space = _LOCAL.space = {}
    n = math.prod(shape)
    key = (name, np.dtype(dtype).char)
    flat = space.get(key)
    if flat is None or flat.size < n:
        flat = np.empty(max(n, 1), dtype)
        if n <= _KEEP:
            space[key] = flat
    return flat[:n].reshape(shape)


def prepare_kernels(macs) -> bool:
    """Load the compiled kernels for a call of ``macs`` multiply-adds where that pays (:data:`COMPILE_MACS`);
    return whether they are in use."""
    if USE_NUMBA and loaded_kernels() is None and macs >= COMPILE_MACS and numba_available():
        gram_kernels()
    return USE_NUMBA and loaded_kernels() is not None


def gram_sizes(plans) -> bool:
    """Whether the sizes of a call (its ``_Size`` plans) are this route's: superset form, 0..3, at least one."""
    return bool(plans) and all(p.form == "superset" and 0 <= p.t <= 3 for p in plans)


def _chunked_product(F, bound):
    """(mantissa, exponent) of the product over the first axis of F, every |F| within 2**+-bound:
    chunks of factors whose products stay in range, then their mantissas and powers of two."""
    d = F.shape[0]
    m = max(1, min(d, int(_RANGE // max(bound, 1.0))))
    whole = d // m
    parts = []
    if whole:
        parts.append(np.multiply.reduce(F[:whole * m].reshape((whole, m) + F.shape[1:]), axis=1))
    if d > whole * m:
        parts.append(np.multiply.reduce(F[whole * m:], axis=0)[None])
    stack = parts[0] if len(parts) == 1 else np.concatenate(parts)
    mant, ex = np.frexp(stack)
    if len(stack) == 1:
        return mant[0], ex[0]
    M, e = np.frexp(np.multiply.reduce(mant, axis=0))        # at most ~1000 mantissas >= 1/2: no underflow
    return M, e + ex.sum(axis=0)


def _exact_product(F):
    """(mantissa, exponent) of the product over the first axis of F, every factor split by frexp."""
    mant, ex = np.frexp(F)
    E = ex.sum(axis=0, dtype=np.int64)
    M = np.ones(F.shape[1:])
    for lo in range(0, F.shape[0], 512):                               # 512 mantissas >= 2**-512
        M, e = np.frexp(M * np.multiply.reduce(mant[lo:lo + 512], axis=0))
        E = E + e
    return M, E


class _Instance:
    """One instance's block of terms, sorted by the sign of w P, with the per-term constants of the route.

    ``ok`` is False where the block is not this route's (module docstring); nothing else is set then.
    """

    def __init__(self, A, C, W, plans, sizes, kernels=None, first=True):
        self.terms, self.d = A.shape[0], A.shape[1]                      # terms with the zero weights
        self.first = first
        signed = bool(C.min() < 0)
        neg = (W < 0) ^ (np.count_nonzero(C < 0, axis=1) % 2 == 1) if signed else W < 0   # sign(w P) < 0
        order = np.flatnonzero((W != 0) & ~neg)
        self.npos = len(order)
        order = np.concatenate([order, np.flatnonzero((W != 0) & neg)])
        self.R = len(order)
        self.w = W[order]
        aw = np.abs(self.w)
        self.ok = bool(self.R == 0 or (aw.min() >= 2.0**-_W_EXP and aw.max() <= 2.0**_W_EXP))
        self.full = self.empty = 0.0
        if not self.ok or not self.R:
            return
        if kernels is not None:
            self._compiled(kernels, read_only(A), read_only(C), order, plans, sizes, signed)
        else:
            self._numpy(A, C, order, plans, sizes, signed)

    def _work(self, name, shape, dtype=np.float64):
        """A working array: the thread's (:func:`_work`) for a block's first instance, a fresh one for the others
        (blocks of several instances are small; their instances' arrays are alive together)."""
        return _work(name, shape, dtype) if self.first else np.empty(shape, dtype)

    def _numpy(self, A, C, order, plans, sizes, signed):
        """The per-term constants by numpy passes."""
        d, R = self.d, self.R
        work = self._work
        rows = work("rows", (R, d))
        self.A, self.C = work("A", (d, R)), work("C", (d, R))
        np.copyto(self.A, np.take(A, order, axis=0, out=rows).T)
        np.copyto(self.C, np.take(C, order, axis=0, out=rows).T)
        with np.errstate(over="ignore", under="ignore"):
            self.full = float(self.w @ np.multiply.reduce(self.A, axis=0))
            self.empty = float(self.w @ np.multiply.reduce(self.C, axis=0))
        D = np.subtract(self.A, self.C, out=work("D", (d, R)))
        self.zero = np.equal(D, 0.0, out=work("zero", (d, R), bool))
        self.has_zero = bool(self.zero.any())
        if self.has_zero and 0 not in sizes and self.zero.all():        # constant terms: no set of size >= 1
            self.R = 0
            return
        small = work("small", (d, R))
        if signed:
            np.minimum(np.abs(self.A), np.abs(self.C), out=small)
        else:
            np.minimum(self.A, self.C, out=small)
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.abs(D, out=work("q", (d, R)))
            np.divide(q, small, out=q)                                   # rho - 1 of each pair
            lo = float(np.min(q, where=~self.zero, initial=np.inf)) if self.has_zero else float(q.min())
            rho = 1.0 + float(q.max())
            if not self._bounds(lo, rho, float(small.min()), float(small.max())):
                return
            self.G = np.divide(self.C, D, out=work("G", (d, R)))
            self.H = None if rho <= _RHO_ONE_FORM else np.divide(self.A, D, out=work("H", (d, R)))
        self.ubar = np.add.reduce(q, axis=0) if rho <= _RHO_MASS else None
        factors = np.where(self.zero, self.C, D) if self.has_zero else D
        self.pd_m, self.pd_e = _chunked_product(factors, self.pd_bound)
        self.nodes = block_nodes(self.A[None], self.C[None], D[None], plans, self.d)

    def _compiled(self, kernels, A, C, order, plans, sizes, signed):
        """The per-term constants in one compiled pass (``_interaction_gram_numba``)."""
        d, R = self.d, self.R
        work = self._work
        self.A, self.C, self.G = work("A", (d, R)), work("C", (d, R)), work("G", (d, R))
        self.zero = work("zero", (d, R), bool)
        self.pd_m, self.pd_e = np.empty(R), np.empty(R, dtype=np.int64)
        ubar, prod_a, prod_c, sums, stats = np.empty(R), np.empty(R), np.empty(R), np.empty((3, R)), np.empty(3)
        with np.errstate(all="ignore"):
            kernels["prep"](A, C, order.astype(np.int64), self.A, self.C, self.G, self.zero, self.pd_m, self.pd_e,
                            ubar, prod_a, prod_c, sums, stats, signed)
            self.full, self.empty = float(self.w @ prod_a), float(self.w @ prod_c)
        self.has_zero = bool(self.zero.any())
        if self.has_zero and 0 not in sizes and self.zero.all():
            self.R = 0
            return
        lo, rho = float(stats[0]), 1.0 + float(stats[1])
        if not self._bounds(lo, rho, 2.0**-1000, 2.0**1000):
            return
        if stats[2]:                                                     # a factor beyond 2**+-126: D's product exactly
            D = np.subtract(self.A, self.C, out=work("H", (d, R)))
            self.pd_m, self.pd_e = _exact_product(np.where(self.zero, self.C, D))
        if rho > _RHO_ONE_FORM:
            with np.errstate(divide="ignore", invalid="ignore"):
                self.H = np.subtract(self.A, self.C, out=work("H", (d, R)))
                np.divide(self.A, self.H, out=self.H)
        else:
            self.H = None
        self.ubar = ubar if rho <= _RHO_MASS else None
        free = bound_free(plans)
        if free is None:
            free = exact_nodes(plans) if signed else None
        self.nodes = free if free is not None else nodes_from_sums(plans, d, *(float(v) for v in sums.max(axis=1)))

    def _bounds(self, lo, rho, s_min, s_max) -> bool:
        """Check the route's bounds (module docstring); set the range of |G + x| and of the factors of D's product."""
        self.ok = lo * (_G_MAX - 1.0) >= 1.0                             # |G|, |H| <= 1 / q + 1
        # |G + x| = |F / D| lies in [1 / rho, 1 / lo + 1]; |D| = q small and c in [s_min, rho s_max]
        self.bound = max(math.log2(1.0 / lo + 1.0), math.log2(rho)) + 1.0 if self.ok else 0.0
        if self.ok:
            logs = [math.log2(min(max(v, 2.0**-1074), 2.0**1023)) for v in (lo * s_min, rho * s_max, s_min)]
            self.pd_bound = max(abs(v) for v in logs) + 1.0
        return self.ok


class _Sizes:
    """What one instance's sizes accumulate (in the thread's working arrays): values in the route's layouts
    -- the pairs as a (d + 1) x (d + 1) matrix whose last row takes the size-1 values riding on the pairs'
    update, the triples in one buffer per group of :func:`middle_plan` -- and the mass."""

    def __init__(self, plans, d):
        self.d = d
        self.vals, self.mass = {}, {id(p): 0.0 for p in plans}
        self.pairs = None
        for p in plans:
            if p.t == 2:
                self.pairs = self.vals[id(p)] = _zeroed("pairs", (d + 1, d + 1))
            elif p.t == 3:
                plan = middle_plan(d)
                flat = _zeroed("triples", (sum(g[3] * g[5] for g in plan),))
                offsets = np.cumsum([0] + [g[3] * g[5] for g in plan])
                self.vals[id(p)] = [flat[o:o + g[3] * g[5]].reshape(g[3], g[5]) for o, g in zip(offsets, plan)]
            else:
                self.vals[id(p)] = np.zeros(d if p.t == 1 else 1)

    def add_to(self, p, out):
        """Add the size's values of all its sets, in lexicographic order, to ``out`` (C(d, t),)."""
        d, v = self.d, self.vals[id(p)]
        if p.t == 2:
            out += np.take(v.reshape(-1), _pair_positions(d), out=_work("take", (n_sets(d, 2),)))
        elif p.t == 3:
            for g, buf in zip(middle_plan(d), v):
                out[g[7]] += buf.reshape(-1)[g[6]]
        else:
            out += v
            if p.t == 1 and self.pairs is not None:                      # the riders (_tile_values)
                out += self.pairs[d, :d]


@lru_cache(maxsize=32)
def _pair_positions(d) -> np.ndarray:
    """Flat positions in a (d + 1) x (d + 1) matrix of the pairs (i, j), i < j, in lexicographic order."""
    i, j = np.triu_indices(d, 1)
    return i * (d + 1) + j


def _zeroed(name, shape):
    """A working array (:func:`_work`) set to zero."""
    out = _work(name, shape)
    out.fill(0.0)
    return out


def gram_block(A, C, W, plans, outs):
    """Add every size's values and mass for a block of fast terms (module docstring) to ``outs``; or None.

    Parameters
    ----------
    A, C : ndarray (K, R, d)
        Present and absent factors of fast terms (``_interaction_dense.fast_terms``).
    W : ndarray (K, R)
    plans : tuple of ``_Size``
        The call's sizes (:func:`gram_sizes`).
    outs : dict
        {id(plan): (values (K, C(d, t)), mass (K,))}, added to in place.

    Returns
    -------
    SimpleNamespace or None
        ``rows`` {id(plan): int} (rows (term, node) with a weight of the size), ``full``, ``empty``
        (K,); None where a term is not this route's (nothing was added; the caller takes
        ``_interaction_dense``).
    """
    K, _, d = A.shape
    sizes = {p.t for p in plans}
    kernels = loaded_kernels() if USE_NUMBA else None
    insts = []
    for k in range(K):
        inst = _Instance(A[k], C[k], W[k], plans, sizes, kernels, first=k == 0)
        if not inst.ok:
            return None
        insts.append(inst)
    out = SimpleNamespace(rows={id(p): 0 for p in plans},
                          full=np.array([i.full for i in insts]), empty=np.array([i.empty for i in insts]))
    nodes = max([inst.nodes for inst in insts if inst.R] + [0])   # one count for the block, as _interaction_dense
    if not any(inst.R for inst in insts):
        nodes = block_nodes(np.ones((1, d, 1)), np.ones((1, d, 1)), np.zeros((1, d, 1)), plans, d)
    _, _, weights, _ = _row_plan(plans, nodes)
    for p in plans:
        out.rows[id(p)] = sum(inst.terms for inst in insts) * int(np.count_nonzero(weights[p.t]))
    for k, inst in enumerate(insts):
        if not inst.R:
            continue
        acc = _Sizes(plans, d)
        _run_instance(inst, plans, acc, nodes, kernels)
        for p in plans:
            values, mass = outs[id(p)]
            acc.add_to(p, values[k])
            mass[k] += acc.mass[id(p)]
    return out


def _tiles(n_gl, Q, npos, R, d):
    """(q0, q1, r0, r1, sign): node ranges (Gauss-Legendre nodes, then the points) times terms of one sign,
    about :data:`TILE_ELEMENTS` players x rows each."""
    cols = max(1, TILE_ELEMENTS // d)
    out = []
    for a, b in ((0, n_gl), (n_gl, Q)):
        if b <= a:
            continue
        for r0, r1, sign in ((0, npos, 1.0), (npos, R, -1.0)):
            n = r1 - r0
            if n == 0:
                continue
            if n >= cols:                                             # one node, terms in pieces
                out += [(q, q + 1, t, min(r1, t + cols), sign) for q in range(a, b) for t in range(r0, r1, cols)]
            else:                                                     # several nodes, all the terms
                g = max(1, -(-cols // n))
                out += [(q, min(b, q + g), r0, r1, sign) for q in range(a, b, g)]
    return out


def _run_instance(inst: _Instance, plans, acc: _Sizes, nodes, kernels=None):
    """Every node of one instance's block, tile by tile, into ``acc``."""
    d, R = inst.d, inst.R
    x, s_, weights, where = _row_plan(plans, nodes)
    Q = len(x)
    pair = next((p for p in plans if p.t == 2), None)
    one = next((p for p in plans if p.t == 1), None)
    W2 = weights[2] if pair is not None else np.zeros(Q)
    gamma2 = np.where(W2 != 0, np.abs(W2), 1.0)
    gamma = np.sqrt(gamma2)
    # the size-1 values ride on the pairs' update where both are wanted (_tile_values): kappa_1 / kappa_2
    fold = (weights[1] * np.sign(W2) / gamma2) if one is not None and pair is not None else np.zeros(Q)
    high = (x > 0.5) & (inst.H is not None)
    tiles = _tiles(nodes, Q, inst.npos, R, d)
    width = max((q1 - q0) * (r1 - r0) for q0, q1, r0, r1, _ in tiles)
    buf = SimpleNamespace(T=_work("T", (d * width,)) if kernels is None else None, B=_work("B", ((d + 1) * width,)),
                          wp=_work("wp", (width,)), p1=_work("p1", (width,)))
    taylor = [(p, {where[xx] for xx, ii, _ in p.rule.points if ii == 1}) for p in plans if p.t == 1 and p.imax == 1]
    absw = np.abs(inst.w)
    upow = {p.t: inst.ubar**p.t / math.factorial(p.t) for p in plans} if inst.ubar is not None else None
    chunk = max(1, min(d, int(_RANGE // max(inst.bound, 1.0))))
    for q0, q1, r0, r1, sign in tiles:
        g, n = q1 - q0, r1 - r0
        B = buf.B[:(d + 1) * g * n].reshape(d + 1, g * n)
        folded = bool(fold[q0:q1].all()) and bool(W2[q0:q1].all())
        if kernels is None:
            T = buf.T[:d * g * n].reshape(d, g, n)
            wp, scale, p1 = _numpy_rows(inst, T, B, x[q0:q1], s_[q0:q1], gamma[q0:q1], r0, r1)
            if folded:
                np.multiply(fold[q0:q1, None], scale, out=B[d].reshape(g, n))
        else:
            T, scale = None, None
            wp, p1 = buf.wp[:g * n], buf.p1[:g * n]
            kernels["rows"](inst.G, inst.G if inst.H is None else inst.H, inst.zero, inst.has_zero, x[q0:q1],
                            s_[q0:q1], high[q0:q1], inst.pd_m, inst.pd_e, absw, gamma[q0:q1], r0, r1, chunk, B, wp,
                            p1, inst.ubar is None, fold[q0:q1], folded)
            wp, p1 = wp.reshape(g, n), p1.reshape(g, n)
        tile = SimpleNamespace(B=B, g=g, n=n, d=d, sign=sign, wp=wp, gamma=gamma[q0:q1, None], scale=scale,
                               gamma2=gamma2[q0:q1, None], q0=q0, q1=q1, r0=r0, r1=r1, W2=W2[q0:q1], folded=folded)
        _tile_values(tile, plans, weights, acc)
        for p in plans:
            Wt = weights[p.t][q0:q1]
            if Wt.any():
                if upow is not None:
                    per_node = wp @ upow[p.t][r0:r1]
                else:
                    per_node = (wp * p1**p.t).sum(axis=1) / math.factorial(p.t)
                acc.mass[id(p)] += float(np.abs(Wt) @ per_node)
        for p, points in taylor:
            for q in points:
                if q0 <= q < q1:
                    Tq = T[:, q - q0] if T is not None else _ratio_at(inst, x[q], s_[q], high[q], r0, r1)
                    _taylor(inst, p, q, Tq, tile, where, acc)


def _numpy_rows(inst: _Instance, T, B, x, s_, gamma, r0, r1):
    """The rows of a tile by numpy passes: T = G + x, the row products, B = s / T; (|w P|, s, p1) (g, n)."""
    d, g, n = T.shape
    _ratios(inst, T, x, s_, r0, r1)
    mant, ex = _chunked_product(T.reshape(d, g * n), inst.bound)
    with np.errstate(over="ignore", under="ignore"):
        P = np.ldexp(mant.reshape(g, n) * inst.pd_m[r0:r1], ex.reshape(g, n) + inst.pd_e[r0:r1])
        wp = np.abs(inst.w[r0:r1] * P)
    scale = np.sqrt(wp) * gamma[:, None]                                 # gamma sqrt|w P|
    np.divide(scale.reshape(1, -1), T.reshape(d, -1), out=B[:d])
    if inst.has_zero:
        np.copyto(B[:d].reshape(d, g, n), 0.0, where=inst.zero[:, None, r0:r1])
    p1 = None if inst.ubar is not None else _row_sums(B[:d], scale, g, n)
    return wp, scale, p1


def _ratio_at(inst: _Instance, x, s_, high, r0, r1):
    """T (d, n) = F / D at one node for terms r0:r1 (1 where D = 0)."""
    T = inst.H[:, r0:r1] - s_ if high else inst.G[:, r0:r1] + x
    if inst.has_zero:
        T[inst.zero[:, r0:r1]] = 1.0
    return T


def _ratios(inst: _Instance, T, x, s_, r0, r1):
    """T (d, g, n) = F / D at the nodes x (1 - x = s_) of terms r0:r1: G + x, or H - (1 - x) beyond 1/2
    where H is kept; 1 where D = 0."""
    with np.errstate(invalid="ignore"):
        high = (x > 0.5) & (inst.H is not None)
        lo = int(np.count_nonzero(~high))                                # nodes ascend: the low ones first
        if lo:
            np.add(inst.G[:, None, r0:r1], x[:lo][None, :, None], out=T[:, :lo])
        if lo < len(x):
            np.subtract(inst.H[:, None, r0:r1], s_[lo:][None, :, None], out=T[:, lo:])
    if inst.has_zero:
        np.copyto(T, 1.0, where=inst.zero[:, None, r0:r1])


def _row_sums(B, scale, g, n):
    """sum_l |u_l| = sum_l |B_l| / s per row (g, n)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.add.reduce(np.abs(B), axis=0).reshape(g, n) / scale
    return np.where(scale > 0, s, 0.0)


def _tile_values(tile, plans, weights, acc):
    r"""Add every size's share of one tile (rows B (d, g n), node-major, terms of one sign).

    The coefficient of size t on the rows is :math:`\kappa_t = \sigma W_t s^{2-t} / \gamma^2`. Where
    the pairs are wanted at every node of the tile, the size-1 values ride on their update: the row
    below B holds :math:`\kappa_1 / \kappa_2` (written with the rows), and the update's last row is
    :math:`\sum_r \kappa_2 B_{ri} \kappa_1 / \kappa_2`."""
    B, d, sign, q0, q1 = tile.B, tile.d, tile.sign, tile.q0, tile.q1
    cols = B[:d]
    pair = next((p for p in plans if p.t == 2 and weights[2][q0:q1].any()), None)
    if tile.scale is None and any(p.t in (0, 3) or (p.t == 1 and not tile.folded) for p in plans):
        tile.scale = np.sqrt(tile.wp) * tile.gamma
    riders = []
    for p in plans:
        Wt = weights[p.t][q0:q1, None]
        if p.t == 2 or not Wt.any():
            continue
        if p.t == 0:
            acc.vals[id(p)][0] += float(sign * np.sum(Wt * tile.wp))
        elif p.t == 1:
            if tile.folded and pair is not None:
                riders.append(p)
            else:
                acc.vals[id(p)] += cols @ (sign * Wt * tile.scale / tile.gamma2).reshape(-1)
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                kappa = np.where(tile.scale > 0, sign * Wt / (tile.gamma2 * tile.scale), 0.0).reshape(-1)
            add_triples(acc.vals[id(p)], kappa, cols, d)
    if pair is not None:
        rows = d + 1 if riders else d
        _pairs(acc.pairs[:rows, :rows], B[:rows], tile.W2, tile.g, tile.n, sign)


def _pairs(G, X, Wq, g, n, sign):
    """G += the sum over the tile's rows of kappa_2 X X^T (kappa_2 = sign(W_2) sigma): one symmetric rank-k
    update (numpy's ``a @ a.T``, BLAS syrk) per run of nodes whose weight has one sign (all of them, for a
    nonnegative density)."""
    s = np.sign(Wq)
    m = X.shape[0]
    prod = _work("XXt", (m, m))
    i = 0
    while i < g:
        j = i
        while j < g and s[j] == s[i]:
            j += 1
        if s[i] != 0:
            part = X[:, i * n:j * n]
            np.matmul(part, part.T, out=prod)
            if sign * s[i] > 0:
                G += prod
            else:
                G -= prod
        i = j


@lru_cache(maxsize=32)
def middle_plan(d) -> tuple:
    """The groups of the triples by their middle player (module docstring).

    Returns
    -------
    tuple of (side, j0, j1, M, partner, N, take, dest)
        ``side`` "low" (rows: pairs (i, j), i < j, for j in j0:j1; partner columns l in ``partner``,
        a slice from j0 + 1) or "high" (rows: pairs (j, l), l > j; partner columns i < j1 - 1);
        M rows, N partner columns; ``take`` the flat indices (row, column) of the triples and
        ``dest`` their lexicographic positions.

    Examples
    --------
    >>> plan = middle_plan(6)
    >>> sum(len(g[6]) for g in plan) == math.comb(6, 3)
    True
    """
    groups = []
    half = (d - 1) / 2.0
    j = 1
    while j <= d - 2:
        low = j <= half or d <= 16
        j0, M, used, wasted = j, 0, 0, 0
        while j <= d - 2 and (j <= half or d <= 16) == low:
            m = j if low else d - 1 - j
            more_used = m * (d - 1 - j) if low else m * j
            more_waste = m * (j - j0) if low else 0
            if M >= _MID_ROWS or (M >= _MID_MIN and wasted + more_waste > _MID_WASTE * (used + more_used)):
                break
            M, used, wasted = M + m, used + more_used, wasted + more_waste
            j += 1
        groups.append(_middle_group(low, j0, j, M, d))
    return tuple(groups)


def _middle_group(low, j0, j1, M, d):
    """One group of :func:`middle_plan`: the triples its product's entries are, and where they go."""
    if low:
        rows = np.array([(i, jj) for jj in range(j0, j1) for i in range(jj)], dtype=np.int64).reshape(-1, 2)
        cols = np.arange(j0 + 1, d)
        valid = cols[None, :] > rows[:, 1:2]
        r_idx, c_idx = np.nonzero(valid)
        triples = np.stack([rows[r_idx, 0], rows[r_idx, 1], cols[c_idx]], axis=1)
        partner = slice(j0 + 1, d)
    else:
        rows = np.array([(jj, l) for jj in range(j0, j1) for l in range(jj + 1, d)], dtype=np.int64).reshape(-1, 2)
        cols = np.arange(0, j1 - 1)
        valid = cols[None, :] < rows[:, 0:1]
        r_idx, c_idx = np.nonzero(valid)
        triples = np.stack([cols[c_idx], rows[r_idx, 0], rows[r_idx, 1]], axis=1)
        partner = slice(0, j1 - 1)
    take = np.flatnonzero(valid)
    return ("low" if low else "high", j0, j1, M, partner, len(cols), take, lex_rank(triples, d))


def add_triples(bufs, kappa, cols, d):
    """Add :math:`\\sum_r \\kappa_r B_{ri} B_{rj} B_{rl}` of every triple to the groups' buffers (:func:`middle_plan`).

    Parameters
    ----------
    bufs : list of ndarray (M, N)
        One per group of ``middle_plan(d)``.
    kappa : ndarray (rows,)
    cols : ndarray (d, rows)
        The rows B, players along the first axis.
    d : int

    Examples
    --------
    >>> import itertools
    >>> rng = np.random.default_rng(0)
    >>> kappa, B = rng.normal(size=7), rng.normal(size=(5, 7))
    >>> bufs = [np.zeros((g[3], g[5])) for g in middle_plan(5)]
    >>> add_triples(bufs, kappa, B, 5)
    >>> got = np.zeros(10)
    >>> for g, b in zip(middle_plan(5), bufs):
    ...     got[g[7]] += b.reshape(-1)[g[6]]
    >>> ref = [np.sum(kappa * B[list(T)].prod(axis=0)) for T in itertools.combinations(range(5), 3)]
    >>> bool(np.allclose(got, ref))
    True
    """
    plan = middle_plan(d)
    n = cols.shape[1]
    width = min(n, _MID_COLUMNS)
    M_max = max(g[3] for g in plan)
    Y = _work("Y", (M_max * width,))
    CU = _work("CU", (d * width,))
    YB = _work("YB", (max(g[3] * g[5] for g in plan),))
    for c0 in range(0, n, width):
        c1 = min(n, c0 + width)
        m = c1 - c0
        Bc = cols[:, c0:c1]
        cu = np.multiply(Bc, kappa[c0:c1], out=CU[:d * m].reshape(d, m))
        y = Y[:M_max * m].reshape(M_max, m)
        for (side, j0, j1, M, partner, N, _, _), buf in zip(plan, bufs):
            at = 0
            for j in range(j0, j1):
                if side == "low":
                    np.multiply(Bc[:j], cu[j], out=y[at:at + j])
                    at += j
                else:
                    np.multiply(Bc[j + 1:], cu[j], out=y[at:at + d - 1 - j])
                    at += d - 1 - j
            prod = np.matmul(y[:M], Bc[partner].T, out=YB[:M * N].reshape(M, N))
            buf += prod


def _taylor(inst: _Instance, p, q, Tq, tile, where, acc):
    """A size-1 plan's first-order Taylor terms at point node q, the tile's terms (``_interaction_dense.taylor_first``;
    Tq (d, n) = F / D at the node)."""
    r0, r1, sign, wp = tile.r0, tile.r1, tile.sign, tile.wp[q - tile.q0]
    with np.errstate(divide="ignore"):
        U = 1.0 / Tq                                                     # (d, n)
    if inst.has_zero:
        U[inst.zero[:, r0:r1]] = 0.0
    p1 = np.add.reduce(np.abs(U), axis=0)
    w = inst.w[r0:r1]
    rows = SimpleNamespace(where=where, w=w[None])
    with np.errstate(divide="ignore", invalid="ignore"):
        P = np.where(w != 0, sign * wp / w, 0.0)                          # w P = sign |w P|
    vals, mass = taylor_first(rows, p, q, P[None], U[None], p1[None])
    acc.vals[id(p)] += vals[0]
    acc.mass[id(p)] += float(mass[0])
