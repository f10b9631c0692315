r"""Posterior covariances of interaction indices of a GP with a product kernel, without enumerating coalitions.

Takes the GP kernel as weighted product terms (``kernelxai.explainers._gp_product.product_terms``),
one explained point x, the background rows b (m of them), an index of
``kernelxai.estimators._interaction_indices`` at an order k and the sets asked for; hands on
the two parts of the posterior covariance of the index values of the interventional game
:math:`v_x(S) = \frac1m \sum_b f(x_S, b_{S^c})` under a GP posterior with covariance
:math:`c = k - k_X (K + \sigma^2 I)^{-1} k_X^\top`: the *prior term* (:func:`prior_variances`,
:func:`prior_pairs`) and the training points' games (:func:`training_games`, whose index values
:math:`\Psi` give the *data term* :math:`\Psi^\top (K + \sigma^2 I)^{-1} \Psi`).
``kernelxai.explainers._gp_interactions`` assembles them.

The derivation
--------------
Every index value of a set T is linear in the worths, :math:`I_T(v) = \sum_S a_T(S) v(S)`, so

.. math::
    \mathrm{Cov}(I_T, I_{T'}) = \frac{1}{m^2} \sum_{b, b'} \sum_{S, S'} a_T(S)\, a_{T'}(S')\,
    c\big((x_S, b_{S^c}), (x_{S'}, b'_{S'^c})\big).

*The prior term.* For one product term :math:`k = w \prod_l k_l` the kernel between the two
evaluation points is a *two-argument* product game
:math:`G(S, S') = w \prod_l H_l[s_l, s'_l]` with :math:`s_l = [l \in S]` and the 2 x 2 factor
:math:`H_l = \begin{pmatrix} k_l(b_l, b'_l) & k_l(b_l, x_l) \\ k_l(x_l, b'_l) & k_l(x_l, x_l) \end{pmatrix}`
(rows: l in S or not, columns: l in S' or not). Its Moebius transform in both arguments
factorises too: :math:`\mu(L, L') = w \prod_l \mu_l[\,l \in L, l \in L']` with
:math:`\mu_l = \Delta H_l \Delta^\top`, :math:`\Delta = \begin{pmatrix} 1 & 0 \\ -1 & 1 \end{pmatrix}`.
An index of superset form is :math:`I_T = \sum_{L \supseteq T} \omega_t(|L \setminus T|)\, m(L)`, and
its product rule (``ProductRule``) writes
:math:`\sum_{R \subseteq U} \omega_t(|R|) \prod_{l \in R} \alpha_l \prod_{l \in U \setminus R} \beta_l
= \Lambda_t\big[\prod_{l \in U} (\beta_l + x\, \alpha_l)\big]` for any :math:`\alpha, \beta` with one linear
functional :math:`\Lambda_t` of polynomials in x (an integral against a polynomial density plus
Taylor coefficients at a few points). Applying it in L (variable x) and in L' (variable y):

.. math::
    \sum_{S, S'} a_T(S)\, a_{T'}(S')\, G(S, S') = w\, \Lambda^x_t \Lambda^y_{t'}
    \Big[\prod_l p_l(x)^\top H_l\, q_l(y)\Big],

with :math:`p_l(x) = (1 - x, x)` for :math:`l \notin T` and :math:`p_l = \delta = (-1, 1)` for
:math:`l \in T` (and q likewise with T', y). Indeed for :math:`l \notin T \cup T'` the factor is
:math:`\mu_{00} + x \mu_{10} + y \mu_{01} + x y \mu_{11} = p(x)^\top H q(y)`, and for :math:`l \in T`
the Moebius sum is forced to contain l, :math:`\mu_{10} + y \mu_{11} = \delta^\top H q(y)`. The
generalised values (meeting form, :math:`\sum_{L \cap T \ne \emptyset}`) replace
:math:`\prod_{l \in T} \delta^\top H_l(\cdot)` by
:math:`\prod_{l \in T} e_1^\top H_l(\cdot) - \prod_{l \in T} e_0^\top H_l(\cdot)`
(all of T present, minus none of it): a signed pair of products on each side.
The polynomial has degree :math:`d - t` in x and :math:`d - t'` in y, so the tensor product of
the two sides' Gauss-Legendre rules (``ProductRule.quadrature(d - t)``) is exact. A Taylor
point :math:`(x_0, i, W)` reads :math:`[\xi^i]` of the polynomial at :math:`x_0 + \xi`; since each factor
is bilinear, :math:`p_l(x_0 + \xi)^\top H_l q_l(y_0 + \eta) = A_l + \xi B_l + \eta C_l + \xi\eta D_l`, and
the coefficient :math:`[\xi^i \eta^j]` of the product follows from a truncated bivariate
recursion over the features (i, j <= 2 here: the lower orders of k-SII and FBII).

*Variances by the one-dimensional engine.* On the diagonal (T = T') at two value nodes
(x, y) the integrand is :math:`\prod_{l \in T} F_l \prod_{l \notin T} M_l(x, y)` with
:math:`F_l = \delta^\top H_l \delta` and :math:`M_l = p_l(x)^\top H_l p_l(y)` -- the Moebius
coefficient of T of the one-argument product game with absent factors :math:`c_l = M_l` and present
factors :math:`a_l = M_l + F_l`. So the variances of all sets of a size (or of the sets asked for)
are the Moebius transform of one product game whose terms are the rows (product term, b, b',
x-node, y-node) with weights :math:`w W_x W_y / m^2` (four signed copies for the generalised values,
with :math:`F_l = H_l[\sigma, \sigma']`): ``kernelxai.estimators._interaction_product_orders`` computes
it in time proportional to sets x rows x t, with its underflow-safe scaling and BLAS products.
Covariances between different sets (``set_covariance=True``) and the Taylor points go through
:func:`prior_pairs`, which evaluates the bilinear factors directly: O(pairs x rows x d).

*The data term.* :math:`\frac1m \sum_b \sum_S a_T(S)\, k((x_S, b_{S^c}), x_i) = \Psi_{T,i}` is the index
of T of the one-argument product game of training point :math:`x_i` (present factors
:math:`k_l(x_l, x_{il})`, absent :math:`k_l(b_l, x_{il})`, weights :math:`w/m`): the index's own product
route, every index and order. Then
:math:`\mathrm{Cov}(I_T, I_{T'}) = s^2 \big[P(T, T') - (L^{-1}\Psi_T)^\top (L^{-1}\Psi_{T'})\big]` with L the
training Cholesky factor (a Laplace classifier's :math:`W^{1/2}` row scaling included) and s the
``normalize_y`` scale (``kernelxai.explainers._gp_posterior.Posterior``).

Cost per explained point: the rows number :math:`R_t = (\text{terms}) m^2 Q_t^2` with
:math:`Q_t \approx (d - t)/2` nodes; variances cost :math:`R_t \cdot C(d, t) \cdot t` multiply-adds
(the product engine), the data term :math:`n_{train} \cdot (\text{terms}) \cdot m \cdot Q_t \cdot C(d, t)
\cdot t`, and covariances between M sets :math:`R \cdot M^2 d / 2`.
"""

from __future__ import annotations

import math

import numpy as np

from .._config import working_elements
from ..estimators._interaction_indices import get_index
from ..estimators._interaction_product_orders import product_interaction_orders
from ..games import ProductGame

__all__ = ["Side", "prior_variances", "prior_cross", "prior_pairs", "training_games"]

_DELTA = np.array([-1.0, 1.0])
_E1 = np.array([0.0, 1.0])
_E0 = np.array([1.0, 0.0])


class Side:
    """One side of the double transform: the functional of sets of size ``t`` (index, order k, d players).

    Attributes
    ----------
    t : int
    nodes : tuple (x, W)
        The value nodes (Gauss-Legendre nodes with the density folded into W, and point values).
    taylor : list of (x, i, W)
        Taylor points with i >= 1 (the lower orders of k-SII and FBII).
    members : list of (sign, vector)
        How a member of T enters: ``[(1, delta)]`` (superset form) or ``[(1, e1), (-1, e0)]``
        (meeting form).
    """

    def __init__(self, index, t, d, k):
        idx = get_index(index)
        rule = idx.rule(t, d, k)
        xs, _, ws = rule.quadrature(d - t)
        self.t = int(t)
        self.nodes = (np.asarray(xs, dtype=float), np.asarray(ws, dtype=float))
        self.taylor = [(x, i, w) for x, _, i, w in rule.derivative_points()]
        self.members = [(1.0, _DELTA)] if idx.form_at(t) == "superset" else [(1.0, _E1), (-1.0, _E0)]

    def cells(self, with_values=True, with_taylor=True) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """[(i, x (c,), W (c,))]: the side's cells grouped by Taylor order i."""
        out = []
        if with_values and len(self.nodes[0]):
            out.append((0, self.nodes[0], self.nodes[1]))
        if with_taylor:
            for i in sorted({i for _, i, _ in self.taylor}):
                pts = [(x, w) for x, j, w in self.taylor if j == i]
                out.append((i, np.array([p[0] for p in pts]), np.array([p[1] for p in pts])))
        return out


def _grams(kern, x, B):
    """The four factor tables of H_l: h11 (d,), h10 (m, d) [x vs b'], h01 (m, d) [b vs x], h00 (m, m, d)."""
    xr = x[None, :]
    return (kern.feature_grams(xr, xr)[0, 0], kern.feature_grams(xr, B)[0], kern.feature_grams(B, xr)[:, 0],
            kern.feature_grams(B, B))


def _b_step(m, per_b, share=8):
    """Background rows b per block, so that a block of ``per_b`` numbers per row b fits the memory budget."""
    return max(1, min(m, working_elements(share) // max(1, per_b)))


# --------------------------------------------------------------------------- #
# variances: the Moebius transform of one product game of rows (term, b, b', x, y)
# --------------------------------------------------------------------------- #
def prior_variances(terms, x, B, side: Side, sets=None) -> np.ndarray:
    """The prior term of the variance of each set of one size at one point, at the value nodes of both sides.

    Parameters
    ----------
    terms : list of (float, ProductKernel)
        The kernel's product terms.
    x : ndarray (d,)
        The explained point.
    B : ndarray (m, d)
        Background rows.
    side : Side
        The sets' functional (the same on both sides).
    sets : int array (m_t, t), optional
        The sets; None: all C(d, t) in lexicographic order.

    Returns
    -------
    ndarray (m_t,)
        :math:`\\Lambda^x \\Lambda^y` over the value nodes only; the Taylor points (if the side has
        any) are added by :func:`prior_pairs`.

    Examples
    --------
    The Shapley values' prior variances, as the direct recursion of :func:`prior_pairs` gives them:

    >>> import numpy as np, kernelxai as kx
    >>> rng = np.random.default_rng(0)
    >>> x, B = rng.normal(size=3), rng.normal(size=(4, 3))
    >>> terms, side = [(1.0, kx.kernels.RBF(1.0))], Side("SV", 1, 3, 1)
    >>> v = prior_variances(terms, x, B, side)
    >>> mem = np.eye(3, dtype=bool)
    >>> bool(np.allclose(v, prior_pairs(terms, x, B, (side, side), (mem, mem))))
    True
    """
    d, m = x.shape[0], B.shape[0]
    t = side.t
    xs, ws = side.nodes
    q = len(xs)
    total = None
    if not q:       # no value node: the Taylor points (prior_pairs) would hold the whole rule
        return np.zeros(_n_sets(d, t, sets))
    X, Y = np.meshgrid(xs, xs, indexing="ij")
    X, Y = X.ravel(), Y.ravel()                      # (q*q,) node pairs (x, y)
    Wn = np.outer(ws, ws).ravel()
    combos = [(sa * sb, va, vb) for sa, va in side.members for sb, vb in side.members]
    step = _b_step(m, len(combos) * m * q * q * d * 4)
    for weight, kern in terms:
        h11, h10, h01, h00 = _grams(kern, x, B)
        for b0 in range(0, m, step):
            bs = slice(b0, min(m, b0 + step))
            # H entries (nb, m, 1, d) against nodes (q*q, 1)
            e00, e10 = h00[bs][:, :, None, :], h10[None, :, None, :]
            e01, e11 = h01[bs][:, None, None, :], h11[None, None, None, :]
            Mx = ((1 - X) * (1 - Y))[:, None] * e00 + (X * (1 - Y))[:, None] * e10 \
                + ((1 - X) * Y)[:, None] * e01 + (X * Y)[:, None] * e11              # (nb, m, q*q, d)
            H = {(0, 0): e00, (1, 0): e10, (0, 1): e01, (1, 1): e11}
            a_parts, c_parts, w_parts = [], [], []
            for sign, va, vb in combos:
                F = sum(va[s] * vb[u] * H[s, u] for s in (0, 1) for u in (0, 1) if va[s] and vb[u])
                a_parts.append((Mx + F).reshape(-1, d))
                c_parts.append(Mx.reshape(-1, d))
                w_parts.append(np.broadcast_to(sign * weight * Wn / (m * m), Mx.shape[:3]).reshape(-1))
            game = ProductGame(np.concatenate(a_parts)[None], np.concatenate(c_parts)[None],
                               np.concatenate(w_parts)[None])
            part = _moebius(game, t, sets)
            total = part if total is None else total + part
    return np.zeros(_n_sets(d, t, sets)) if total is None else total


def _n_sets(d, t, sets) -> int:
    """C(d, t) for all sets, else the number of sets given."""
    return math.comb(d, t) if sets is None else len(sets)


def _moebius(game, t, sets):
    """The Moebius coefficients of the sets of size t (all, or ``sets``) of a one-instance product game."""
    if sets is None:
        res = product_interaction_orders(game, "Moebius", max(t, 1), sizes=(t,), progress=False)
    else:
        res = product_interaction_orders(game, "Moebius", max(t, 1), sets=[tuple(s) for s in sets], progress=False)
    return res["values"][t].values[0]


# --------------------------------------------------------------------------- #
# covariances between two lists of sets at the value nodes: matrix products
# --------------------------------------------------------------------------- #
def prior_cross(terms, x, B, sides, sets) -> np.ndarray:
    r"""The prior term between every set of one list and every set of another, at the value nodes.

    With :math:`d_l = D_l / M_l`, :math:`e_l = E_l / M_l` and :math:`g_l = F_l / M_l - d_l e_l` (the
    factors of a feature in T only, in T' only, in both, over the factor :math:`M_l` of a feature in
    neither, module docstring), a row (term, b, b', x, y) contributes
    :math:`c \prod_l M_l \sum_{J \subseteq T \cap T'} \prod_J g \prod_{T \setminus J} d \prod_{T' \setminus J} e`.
    For J = {} that is one matrix product over the rows of (sets x rows) factors; for each
    non-empty J, one over the sets that contain it (batched over the J with as many sets).
    For the superset form :math:`F M - D E = \det H_l` (Cauchy-Binet with
    :math:`\det(\delta, p(x)) = -1`), so g is the bounded :math:`\det H_l / M_l^2`. Every
    :math:`M_l` is a positive combination of the four kernel values with weights at least
    :math:`x_{min}\, y_{min}` and :math:`k_l(x_l, x_l) > 0`; where one is below 2^-900 (not a normal
    number to divide by), the rows go through :func:`prior_pairs` instead.

    Parameters
    ----------
    terms : list of (float, ProductKernel)
    x : ndarray (d,)
    B : ndarray (m, d)
    sides : (Side, Side)
    sets : (int array (ma, ta), int array (mb, tb))

    Returns
    -------
    ndarray (ma, mb)

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> rng = np.random.default_rng(0)
    >>> x, B = rng.normal(size=4), rng.normal(size=(3, 4))
    >>> terms, one, two = [(1.0, kx.kernels.RBF(1.0))], Side("SII", 1, 4, 1), Side("SII", 2, 4, 2)
    >>> S1, S2 = np.arange(4)[:, None], np.array([[0, 1], [1, 2], [2, 3]])
    >>> P = prior_cross(terms, x, B, (one, two), (S1, S2))
    >>> mem1, mem2 = np.eye(4, dtype=bool), np.zeros((3, 4), dtype=bool)
    >>> mem2[np.arange(3)[:, None], S2] = True
    >>> direct = prior_pairs(terms, x, B, (one, two), (np.repeat(mem1, 3, 0), np.tile(mem2, (4, 1))))
    >>> bool(np.allclose(P.ravel(), direct))
    True
    """
    side_a, side_b = sides
    SA, SB = (np.asarray(s_, dtype=np.int64) for s_ in sets)
    out = np.zeros((len(SA), len(SB)))
    xa, wa = side_a.nodes
    yb, wb = side_b.nodes
    if not len(xa) or not len(yb) or not len(SA) or not len(SB):
        return out
    d, m = x.shape[0], B.shape[0]
    shared = [_shared(SA, SB, s_) for s_ in range(1, min(SA.shape[1], SB.shape[1]) + 1)]
    widest = max([len(SA) + len(SB)] + [g[1].size + g[2].size for batch in shared for g in batch])
    step = _b_step(m, m * len(xa) * len(yb) * (8 * d + 2 * widest), share=16)
    Wn = np.outer(wa, wb)
    pa = np.stack([1 - xa, xa], axis=1)                      # (X, 2)
    qb = np.stack([1 - yb, yb], axis=1)                      # (Y, 2)
    for weight, kern in terms:
        h11, h10, h01, h00 = _grams(kern, x, B)
        for sa, va in side_a.members:
            for sb, vb in side_b.members:
                for b0 in range(0, m, step):
                    bs = slice(b0, min(m, b0 + step))
                    H = _h_block(h11, h10, h01, h00, bs)         # (nb, m, d, 2, 2)
                    rows = _cross_rows(H, pa, qb, va, vb)
                    if rows is None:                             # a factor too small to divide by
                        return None
                    dr, er, gr, P = rows
                    c = (sa * sb * weight / (m * m)) * (Wn[None, None] * P).reshape(-1)
                    _accumulate(out, c, dr, er, gr, SA, SB, shared)
    return out


def _h_block(h11, h10, h01, h00, bs):
    """H_l of the rows (b in bs, b'): (nb, m, d, 2, 2), rows s (l in S), columns u (l in S')."""
    nb, m, d = h00[bs].shape
    H = np.empty((nb, m, d, 2, 2))
    H[..., 0, 0] = h00[bs]
    H[..., 1, 0] = h10[None]
    H[..., 0, 1] = h01[bs, None]
    H[..., 1, 1] = h11
    return H


def _cross_rows(H, pa, qb, va, vb):
    """Per row (b, b', x, y) flattened: d = D/M, e = E/M, g = F/M - d e (d, R), and prod_l M_l (nb, m, X, Y).

    None when a factor M is below 2^-900 or not finite (no division then).
    """
    Hq = np.einsum("nkdsu,yu->nkyds", H, qb)                       # (nb, m, Y, d, 2)
    M = np.einsum("xs,nkyds->nkxyd", pa, Hq)                       # (nb, m, X, Y, d)
    if not (np.all(np.isfinite(M)) and np.min(np.abs(M)) >= 2.0**-900):
        return None
    D = np.einsum("s,nkyds->nkyd", va, Hq)[:, :, None]              # (nb, m, 1, Y, d)
    E = np.einsum("xs,nkdsu,u->nkxd", pa, H, vb)[:, :, :, None]     # (nb, m, X, 1, d)
    F = np.einsum("s,nkdsu,u->nkd", va, H, vb)[:, :, None, None]    # (nb, m, 1, 1, d)
    dr, er = D / M, E / M
    gr = F / M - dr * er
    d = M.shape[-1]

    def flat(a):     # (d, R): one contiguous row per feature, for gathering sets of features
        return np.ascontiguousarray(np.moveaxis(np.broadcast_to(a, M.shape), -1, 0).reshape(d, -1))

    with np.errstate(under="ignore"):     # a row whose product underflows contributes below 1e-300
        P = np.prod(M, axis=-1)
    return flat(dr), flat(er), flat(gr), P


def _shared(SA, SB, s):
    """The s-subsets J shared by a set of SA and one of SB, batched by how many sets contain them.

    Returns [(J (nJ, s), IA (nJ, na), IB (nJ, nb))]: the sets of SA (rows IA) and of SB (rows IB)
    that contain each J.
    """
    from ..estimators._interaction_indices import all_sets

    ta, tb = SA.shape[1], SB.shape[1]
    subs_a = np.sort(SA[:, all_sets(ta, s)], axis=-1).reshape(-1, s)          # (ma * C(ta, s), s)
    subs_b = np.sort(SB[:, all_sets(tb, s)], axis=-1).reshape(-1, s)
    owner_a = np.repeat(np.arange(len(SA)), len(subs_a) // max(len(SA), 1))
    owner_b = np.repeat(np.arange(len(SB)), len(subs_b) // max(len(SB), 1))
    keys, inv = np.unique(np.concatenate([subs_a, subs_b]), axis=0, return_inverse=True)
    inv = inv.ravel()
    ia_of, ib_of = inv[:len(subs_a)], inv[len(subs_a):]
    count_a = np.bincount(ia_of, minlength=len(keys))
    count_b = np.bincount(ib_of, minlength=len(keys))
    # the owners of each key, grouped by key (a stable sort keeps each set's order)
    by_a, by_b = owner_a[np.argsort(ia_of, kind="stable")], owner_b[np.argsort(ib_of, kind="stable")]
    start_a, start_b = np.cumsum(count_a) - count_a, np.cumsum(count_b) - count_b
    both = np.flatnonzero((count_a > 0) & (count_b > 0))
    out = []
    for na, nb in sorted({(int(count_a[u]), int(count_b[u])) for u in both}):
        us = both[(count_a[both] == na) & (count_b[both] == nb)]
        IA = by_a[start_a[us][:, None] + np.arange(na)]
        IB = by_b[start_b[us][:, None] + np.arange(nb)]
        out.append((keys[us], IA, IB))
    return out


def _rest(S, J):
    """The members of each set S[i, a] outside J[i]: (nJ, n, t - s)."""
    keep = ~(S[..., :, None] == J[:, None, None, :]).any(axis=-1)
    return S[keep].reshape(S.shape[0], S.shape[1], S.shape[2] - J.shape[1])


def _accumulate(out, c, dr, er, gr, SA, SB, shared):
    r"""out[a, b] += sum_rows c sum_J prod_J g prod_{T_a \ J} d prod_{T_b \ J} e (:func:`prior_cross`)."""
    R = len(c)
    alpha = _products(dr, SA) * c                                      # (ma, R)
    out += alpha @ _products(er, SB).T
    flat = out.reshape(-1)
    for batch in shared:
        for J, IA, IB in batch:
            step = max(1, working_elements(16) // max(1, R * (IA.shape[1] + IB.shape[1] + 1)))
            for j0 in range(0, len(J), step):
                sl = slice(j0, j0 + step)
                cg = _products(gr, J[sl]) * c                          # (nJ, R)
                ra, rb = _rest(SA[IA[sl]], J[sl]), _rest(SB[IB[sl]], J[sl])
                al = _products(dr, ra) * cg[:, None, :]                # (nJ, na, R)
                be = _products(er, rb)                                 # (nJ, nb, R)
                block = np.matmul(al, np.ascontiguousarray(be.transpose(0, 2, 1)))   # (nJ, na, nb), by BLAS
                where = IA[sl][:, :, None] * out.shape[1] + IB[sl][:, None, :]
                flat += np.bincount(where.ravel(), weights=block.ravel(), minlength=flat.size)


def _products(F, sets):
    """prod over the last axis of ``sets`` of the rows F[sets] of F (d, R): sets.shape[:-1] + (R,)."""
    t = sets.shape[-1]
    if t == 0:
        return np.ones(sets.shape[:-1] + (F.shape[1],))
    out = F[sets[..., 0]]
    for q in range(1, t):
        out *= F[sets[..., q]]
    return out


# --------------------------------------------------------------------------- #
# pairs of sets, any cells: the bilinear factors evaluated directly
# --------------------------------------------------------------------------- #
def prior_pairs(terms, x, B, sides, mems, *, values=True, taylor=True) -> np.ndarray:
    r"""The prior term :math:`P(T_p, T'_p)` of pairs of sets, by the bilinear recursion over the features.

    Parameters
    ----------
    terms : list of (float, ProductKernel)
    x : ndarray (d,)
    B : ndarray (m, d)
    sides : (Side, Side)
        The functionals of the first and the second sets' size.
    mems : (bool array (P, d), bool array (P, d))
        The members of the first and of the second set of each pair.
    values : bool
        Include the cells where both sides read values (i = j = 0).
    taylor : bool
        Include the cells where a side reads a Taylor coefficient (i or j >= 1).

    Returns
    -------
    ndarray (P,)

    Examples
    --------
    By efficiency the Shapley values' prior covariances sum to the prior variance of
    :math:`f(x) - \frac1m \sum_b f(b)`:

    >>> import numpy as np, kernelxai as kx
    >>> rng = np.random.default_rng(0)
    >>> x, B = rng.normal(size=3), rng.normal(size=(4, 3))
    >>> k = kx.kernels.RBF(1.0)
    >>> terms, side, mem = [(1.0, k)], Side("SV", 1, 3, 1), np.eye(3, dtype=bool)
    >>> i, j = (g.ravel() for g in np.meshgrid(range(3), range(3), indexing="ij"))
    >>> P = prior_pairs(terms, x, B, (side, side), (mem[i], mem[j]))
    >>> Z, a = np.vstack([x, B]), np.r_[1.0, np.full(4, -0.25)]
    >>> bool(np.isclose(P.sum(), a @ k(Z, Z) @ a))
    True
    """
    side_a, side_b = sides
    mem_a, mem_b = (np.asarray(mm, dtype=bool) for mm in mems)
    n_pairs, d = mem_a.shape
    m = B.shape[0]
    out = np.zeros(n_pairs)
    groups = [(ga, gb) for ga in side_a.cells() for gb in side_b.cells()
              if (values if ga[0] == 0 and gb[0] == 0 else taylor)]
    for weight, kern in terms:
        h11, h10, h01, h00 = _grams(kern, x, B)
        for (i, xa, wa), (j, yb, wb) in groups:
            for sa, va in side_a.members:
                for sb, vb in side_b.members:
                    scale = sa * sb * weight / (m * m)
                    out += scale * _cells(h11, h10, h01, h00, (xa, wa, i, va, mem_a), (yb, wb, j, vb, mem_b))
    return out


def _cells(h11, h10, h01, h00, a, b):
    """sum over b, b' and the cells of W_x W_y [xi^i eta^j] prod_l (p0 + xi p1)^T H_l (q0 + eta q1), per pair."""
    xa, wa, i, va, mem_a = a
    yb, wb, j, vb, mem_b = b
    n_pairs, d = mem_a.shape
    m = h00.shape[0]
    X, Y, S = len(xa), len(yb), (i + 1) * (j + 1)
    out = np.zeros(n_pairs)
    per_pair = m * X * Y * (2 * S + 2)
    p_step = max(1, min(n_pairs, working_elements(8) // max(1, per_pair)))
    b_step = _b_step(m, min(n_pairs, p_step) * m * X * Y * (2 * S + 2))
    cw = np.outer(wa, wb)                                                  # (X, Y)
    cls = 2 * mem_a.astype(np.int64) + mem_b                               # (P, d): member of T (2), of T' (1)
    for b0 in range(0, m, b_step):
        bs = slice(b0, min(m, b0 + b_step))
        tables = _class_tables(_h_block(h11, h10, h01, h00, bs), xa, yb, va, vb)
        for p0 in range(0, n_pairs, p_step):
            ps = slice(p0, min(n_pairs, p0 + p_step))
            E = _recursion(tables, cls[ps], (i, j))                         # (P, nb, m, X, Y)
            out[ps] += np.einsum("pnkxy,xy->p", E, cw)
    return out


def _class_tables(H, xa, yb, va, vb):
    r"""The bilinear coefficients (A, B, C, D) of a feature's factor by its class (member of T: 2, of T': 1).

    Each (4, d, nb, m, X, Y): :math:`p_0^\top H q_0, p_1^\top H q_0, p_0^\top H q_1, p_1^\top H q_1` with
    :math:`p_0 = (1 - x, x), p_1 = \delta` for a non-member of T and :math:`p_0 = v_a, p_1 = 0` for a member
    (q likewise with y, T', :math:`v_b`).
    """
    nb, m, d = H.shape[:3]
    X, Y = len(xa), len(yb)
    px = np.stack([1 - xa, xa], axis=1)                                   # (X, 2)
    qy = np.stack([1 - yb, yb], axis=1)                                   # (Y, 2)
    shape = (4, d, nb, m, X, Y)
    A, B, C, D = (np.zeros(shape) for _ in range(4))
    Ht = H.transpose(2, 0, 1, 3, 4)                                       # (d, nb, m, 2, 2)
    vecs_x = {0: (px, _DELTA), 1: (va[None], None)}                       # by membership in T
    vecs_y = {0: (qy, _DELTA), 1: (vb[None], None)}
    for in_a in (0, 1):
        p0, p1 = vecs_x[in_a]
        for in_b in (0, 1):
            q0, q1 = vecs_y[in_b]
            c = 2 * in_a + in_b
            A[c] = np.einsum("xs,dnksu,yu->dnkxy", p0, Ht, q0)
            if p1 is not None:
                B[c] = np.einsum("s,dnksu,yu->dnky", p1, Ht, q0)[:, :, :, None, :]
            if q1 is not None:
                C[c] = np.einsum("xs,dnksu,u->dnkx", p0, Ht, q1)[..., None]
            if p1 is not None and q1 is not None:
                D[c] = np.einsum("s,dnksu,u->dnk", p1, Ht, q1)[..., None, None]
    return A, B, C, D


def _recursion(tables, cls, orders):
    """[xi^i eta^j] of prod_l (A_l + xi B_l + eta C_l + xi eta D_l) per pair (classes ``cls`` (P, d)) and row."""
    A, B, C, D = tables
    i, j = orders
    n_pairs, d = cls.shape
    E = np.zeros((n_pairs,) + A.shape[2:] + (i + 1, j + 1))
    E[..., 0, 0] = 1.0
    for l in range(d):
        c = cls[:, l]
        new = A[c, l][..., None, None] * E
        if i:
            new[..., 1:, :] += B[c, l][..., None, None] * E[..., :-1, :]
        if j:
            new[..., :, 1:] += C[c, l][..., None, None] * E[..., :, :-1]
            if i:
                new[..., 1:, 1:] += D[c, l][..., None, None] * E[..., :-1, :-1]
        E = new
    return E[..., i, j]


# --------------------------------------------------------------------------- #
# the training points' games: the data term
# --------------------------------------------------------------------------- #
def training_games(terms, x, B, X_train) -> ProductGame:
    """The product game of each training point (the instances): S -> mean_b k((x_S, b_{S^c}), x_i).

    Present factors :math:`k_l(x_l, x_{il})`, absent :math:`k_l(b_l, x_{il})`, one term per (kernel term, b)
    with weight :math:`w / m`.

    Parameters
    ----------
    terms : list of (float, ProductKernel)
    x : ndarray (d,)
    B : ndarray (m, d)
    X_train : ndarray (n_train, d)

    Returns
    -------
    ProductGame
        n_train instances, terms x m terms each.

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> rng = np.random.default_rng(0)
    >>> x, B, Xt = rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=(5, 3))
    >>> k = kx.kernels.RBF(1.0)
    >>> g = training_games([(2.0, k)], x, B, Xt)
    >>> full = g(np.ones((1, 3), dtype=bool))[0]              # the full coalition: 2 k(x, x_i)
    >>> g.n_instances, bool(np.allclose(full, 2.0 * k(x[None], Xt)[0]))
    (5, True)
    """
    m, d = B.shape
    nt = X_train.shape[0]
    a_parts, c_parts, w_parts = [], [], []
    for weight, kern in terms:
        av = kern.feature_grams(x[None], X_train)[0]                       # (nt, d)
        cb = kern.feature_grams(X_train, B)                                # (nt, m, d)
        a_parts.append(np.broadcast_to(av[:, None, :], (nt, m, d)))
        c_parts.append(cb)
        w_parts.append(np.full((1, m), weight / m))
    return ProductGame(np.concatenate(a_parts, axis=1), np.concatenate(c_parts, axis=1),
                       np.concatenate(w_parts, axis=1), n_instances=nt)
