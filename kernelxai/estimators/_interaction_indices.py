r"""Every interaction index as a declared concept: a weighting of the Moebius transform by set sizes.

Takes an index name (or alias), an order k and a number of players d; hands on the
index's declaration (:class:`InteractionIndex`): its name and aliases, what ``order``
means for it, whether it is efficient, its Moebius weights (exact fractions), the
definition the enumeration oracle (``_interaction_enumeration``) evaluates, and the
quadrature rule (:class:`ProductRule`) with which the product route
(``_interaction_product_orders``) reads it off a product game. Also the Moebius
transform of a table of worths and every index from it (:func:`from_moebius`, the
second, independent exact route), and the set bookkeeping of all routes: the
sets of a size in lexicographic order (:func:`all_sets`), their bitmasks and ranks.

Notation
--------
Players N = {0, ..., d-1}; T the set whose index is wanted, t = |T|; k the order.
The Moebius transform of a game v is :math:`m(L) = \sum_{S \subseteq L} (-1)^{|L|-|S|} v(S)`,
so :math:`v(S) = \sum_{L \subseteq S} m(L)`; the discrete derivative of v by T at
:math:`S \subseteq N \setminus T` is
:math:`\Delta_T v(S) = \sum_{L \subseteq T} (-1)^{t-|L|} v(S \cup L) = \sum_{R \subseteq S} m(T \cup R)`.

Every index offered here is linear in v with weights that depend on set sizes only.
Its Moebius form is one of

* *superset form* (interaction indices): :math:`I(T) = \sum_{L \supseteq T} \omega(t, |L \setminus T|)\, m(L)`;
* *meeting form* (generalised values, Marichal 2000; Marichal, Kojadinovic & Fujimoto 2007):
  :math:`I(T) = \sum_{L \cap T \neq \emptyset} \omega(t, |L \setminus T|)\, m(L)`
  (the weight does not depend on :math:`|L \cap T|`).

================  ===========  ===========================  ==================================
index             ``order``    efficient (sum = v(N)-v(0))  Moebius weight omega(t, r), l = t+r
================  ===========  ===========================  ==================================
SV                1 only       yes                          1/(r+1)
BV                1 only       no                           2^-r
SII               exactly k    its order-1 sets (= SV)      1/(r+1)
BII               exactly k    no                           2^-r
CHII              exactly k    its order-1 sets (= SV)      t/(t+r)
k-SII             up to k      yes                          [r=0] for l <= k, else
                                                            (1/(r+1)) sum_{j<=k-t} C(r+1,j) B_j
STII              up to k      yes                          t<k: [r=0]; t=k: 1/C(l,k)
FSII              up to k      yes                          [r=0] for l <= k, else
                                                            (-1)^(k-t) t/(k+t) C(k,t) C(l-1,k)/C(l+k-1,k+t)
FBII              up to k      no                           [r=0] for l <= k, else
                                                            (-1)^(k-t) 2^-r C(r-1,k-t)
Moebius           exactly k    orders 1..d together         [r=0]
Co-Moebius        exactly k    no                           1
SGV, BGV, CHGV    exactly k    SGV, CHGV: order 1 (= SV)    as SII, BII, CHII (meeting form)
IGV, EGV          exactly k    no                           [r=0], 1 (meeting form)
================  ===========  ===========================  ==================================

B_j are the Bernoulli numbers with B_1 = -1/2. "exactly k" indices give a set the same
value whatever the order asked (shapiq's ``ExactComputer`` returns their sets of all sizes
0..k); "up to k" indices depend on k and are returned for every size 1..k. The empty set
(asked for explicitly) follows shapiq 1.8's ``ExactComputer``: its formula for SII
(:math:`\sum_L m(L)/(|L|+1)`), BII and BV (the mean worth, :math:`2^{-d} \sum_S v(S)`) and
FBII (the fitted intercept), v(empty) for every other index (:attr:`InteractionIndex.empty`;
the formula would give v(N) for Co-Moebius and 0 for the generalised values). (shapiq
itself reports v(empty) for SII at order 1 and 0 for BGV at order 1.)

Not offered (shapiq has them): kADD-SHAP (a least-squares fit in a Bernoulli-weighted
basis whose solution has no size-only Moebius weights we have derived and checked),
JointSV (its weights come from a recursion over coalition sizes that depends on k
and has no Beta-integral form, so the product route would need O(d) nodes per weight
polynomial; not yet done), the Fourier transform (not a weighting of the Moebius
transform by sizes alone: it needs the sign pattern of L within T) and ELC (the
egalitarian least core, a linear programme, not a linear functional of the worths).

The product rule
----------------
For one multiplicative term :math:`g(S) = w \prod_{j \in S} a_j \prod_{j \notin S} c_j`
write :math:`D_j = a_j - c_j` and :math:`F_j(x) = c_j + x D_j`. Its Moebius transform is
:math:`m(L) = w \prod_{j \in L} D_j \prod_{j \notin L} c_j`, and for U = N \ T the
polynomial :math:`P_U(x) = \prod_{l \in U} F_l(x) = \sum_r x^r e_r(U)` has the weighted
elementary symmetric sums :math:`e_r(U) = \sum_{R \subseteq U, |R| = r} D_R\, c_{U \setminus R}`
as coefficients. A superset-form index is therefore
:math:`I(T) = w D_T \sum_r \omega(t, r)\, e_r(U)`, a linear functional of :math:`P_U`;
the meeting form has :math:`w(a_T - c_T)` in front instead of :math:`w D_T`. Every index here
writes that functional as (:class:`ProductRule`)

.. math::
    \sum_r \omega(t, r) e_r(U) = \int_0^1 \rho_t(x) P_U(x)\, dx
    + \sum_{(x, i, W)} W \frac{P_U^{(i)}(x)}{i!},
    \qquad \frac{P_U^{(i)}(x)}{i!} = \sum_{|J| = i} D_J \prod_{l \in U \setminus J} F_l(x),

with a polynomial density :math:`\rho_t` (integrated exactly by Gauss-Legendre) and a few
point evaluations, most with i = 0. Derivatives (i >= 1) appear only for the lower
orders t < k of k-SII (at x = 0 and 1) and FBII (at x = 1/2). :meth:`ProductRule.moment`
gives the weight a rule puts on :math:`e_r`; the tests check it against
:meth:`InteractionIndex.weight` exactly, in rational arithmetic.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, lru_cache

import numpy as np

__all__ = ["InteractionIndex", "ProductRule", "INDEX_CONCEPTS", "INDEX_NAMES", "get_index",
           "bernoulli_numbers", "all_sets", "set_masks", "lex_rank", "n_sets",
           "moebius_transform", "from_moebius", "efficiency_residual"]

_ZERO, _ONE, _HALF = Fraction(0), Fraction(1), Fraction(1, 2)


# --------------------------------------------------------------------------- #
# exact helpers
# --------------------------------------------------------------------------- #
@cache
def bernoulli_numbers(n) -> tuple[Fraction, ...]:
    r"""The Bernoulli numbers :math:`B_0, \dots, B_n` as exact fractions, with :math:`B_1 = -1/2`.

    From the recurrence :math:`\sum_{j=0}^{m} \binom{m+1}{j} B_j = 0` (m >= 1), B_0 = 1.

    Parameters
    ----------
    n : int
        The last index, >= 0.

    Returns
    -------
    tuple of Fraction
        Length n + 1.

    Examples
    --------
    >>> [str(b) for b in bernoulli_numbers(4)]
    ['1', '-1/2', '1/6', '0', '-1/30']
    """
    out = [_ONE]
    for m in range(1, n + 1):
        out.append(-sum((math.comb(m + 1, j) * out[j] for j in range(m)), _ZERO) / (m + 1))
    return tuple(out)


def _falling(n, j) -> int:
    """n (n-1) ... (n-j+1); 0 when j > n >= 0."""
    out = 1
    for q in range(j):
        out *= n - q
    return out


def _beta_int(p, q) -> Fraction:
    """int_0^1 x^p (1-x)^q dx = p! q! / (p+q+1)! for integers p, q >= 0."""
    return Fraction(math.factorial(p) * math.factorial(q), math.factorial(p + q + 1))


# --------------------------------------------------------------------------- #
# the product rule of an index at one set size
# --------------------------------------------------------------------------- #
@dataclass(frozen=True)
class ProductRule:
    r"""How an index of a set of size t is read off :math:`P_U(x) = \prod_{l \notin T} F_l(x)`.

    .. math::
        \Lambda[P_U] = \int_0^1 \rho(x) P_U(x)\,dx + \sum_{(x, i, W) \in \text{points}} W\,\frac{P_U^{(i)}(x)}{i!},
        \qquad \rho(x) = \sum_{(\gamma, a, b) \in \text{density}} \gamma\, x^a (1-x)^b .

    Parameters
    ----------
    density : tuple of (Fraction, int, int)
        Terms :math:`\gamma x^a (1-x)^b` of the polynomial density (empty: none).
    points : tuple of (Fraction, int, Fraction)
        Point functionals (x, i, W): W times the i-th Taylor coefficient of :math:`P_U` at x.

    Examples
    --------
    The Shapley interaction index: the plain integral, weight 1/(r+1) on :math:`e_r`:

    >>> rule = ProductRule(((Fraction(1), 0, 0),), ())
    >>> [str(rule.moment(r)) for r in range(4)]
    ['1', '1/2', '1/3', '1/4']
    """

    density: tuple = ()
    points: tuple = ()

    def moment(self, r) -> Fraction:
        r"""The weight the rule puts on :math:`e_r(U)`: :math:`\int \rho\, x^r + \sum W \binom{r}{i} x^{r-i}`."""
        total = sum((g * _beta_int(a + r, b) for g, a, b in self.density), _ZERO)
        for x, i, w in self.points:
            if r >= i:
                total += w * math.comb(r, i) * (x ** (r - i) if r > i else _ONE)
        return total

    @property
    def density_degree(self) -> int:
        """Degree of the density polynomial (-1 without density)."""
        return max((a + b for _, a, b in self.density), default=-1)

    @property
    def max_derivative(self) -> int:
        """The highest Taylor coefficient a point functional reads (0: values only)."""
        return max((i for _, i, _ in self.points), default=0)

    def quadrature(self, poly_degree) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Nodes x, 1 - x and weights integrating rho(x) p(x) exactly for deg p <= ``poly_degree``,
        together with the point functionals that read values (i = 0).

        The density part is Gauss-Legendre with ceil((deg + 1) / 2) nodes, its weights
        multiplied by rho evaluated exactly (rational arithmetic) at each node.
        """
        return _quadrature(self, int(poly_degree))

    def derivative_points(self) -> tuple[tuple[float, float, int, float], ...]:
        """The point functionals with i >= 1 as (x, 1 - x, i, W) floats."""
        return tuple((float(x), float(1 - x), i, float(w)) for x, i, w in self.points if i >= 1)


@lru_cache(maxsize=256)
def _quadrature(rule, poly_degree):
    from ._gauss_legendre import gauss_legendre_01

    xs, ss, ws = [], [], []
    if rule.density:
        q = max(1, math.ceil((poly_degree + rule.density_degree + 1) / 2))
        t, s, omega = gauss_legendre_01(q)
        for tq, sq, wq in zip(t, s, omega):
            x = Fraction(float(tq))
            rho = sum((g * x**a * (1 - x) ** b for g, a, b in rule.density), _ZERO)
            xs.append(float(tq))
            ss.append(float(sq))
            ws.append(float(wq) * float(rho))
    for x, i, w in rule.points:
        if i == 0:
            xs.append(float(x))
            ss.append(float(1 - x))
            ws.append(float(w))
    out = tuple(np.asarray(v, dtype=float) for v in (xs, ss, ws))
    for v in out:
        v.setflags(write=False)
    return out


def _density(*terms) -> tuple:
    """Collect terms (gamma, a, b), dropping zeros, merging equal (a, b)."""
    acc: dict[tuple[int, int], Fraction] = {}
    for g, a, b in terms:
        acc[(a, b)] = acc.get((a, b), _ZERO) + Fraction(g)
    return tuple((g, a, b) for (a, b), g in sorted(acc.items()) if g != 0)


_VALUE_AT_0 = ProductRule((), ((_ZERO, 0, _ONE),))     # P_U(0): the Moebius coefficient of T
_VALUE_AT_HALF = ProductRule((), ((_HALF, 0, _ONE),))  # P_U(1/2): Banzhaf
_VALUE_AT_1 = ProductRule((), ((_ONE, 0, _ONE),))      # P_U(1): the co-Moebius coefficient
_UNIFORM = ProductRule(((_ONE, 0, 0),), ())            # int_0^1 P_U: Shapley


# --------------------------------------------------------------------------- #
# the weights of each index (Moebius form) -- one function per index
# --------------------------------------------------------------------------- #
def _shapley_weight(t, r, d, k) -> Fraction:
    r"""Shapley interaction index (Grabisch & Roubens 1999): :math:`\omega(t, r) = 1/(r+1)`.

    From :math:`I(T) = \sum_{S \subseteq N \setminus T} \frac{s!\,(d-t-s)!}{(d-t+1)!} \Delta_T v(S)`:
    the derivative weight is :math:`\int_0^1 x^s (1-x)^{d-t-s}\,dx`, so
    :math:`\omega(t, r) = \sum_{s \ge r} \binom{d-t-r}{s-r} \int x^s (1-x)^{d-t-s} = \int_0^1 x^r\,dx`.
    """
    return Fraction(1, r + 1)


def _banzhaf_weight(t, r, d, k) -> Fraction:
    r"""Banzhaf interaction index (Grabisch & Roubens 1999): :math:`\omega(t, r) = 2^{-r}`.

    Derivative weight :math:`2^{-(d-t)}` (the uniform distribution over S), the moment of the
    point mass at x = 1/2.
    """
    return Fraction(1, 2**r)


def _chaining_weight(t, r, d, k) -> Fraction:
    r"""Chaining interaction index (Marichal & Roubens 1999): :math:`\omega(t, r) = t/(t+r)`.

    Derivative weight :math:`\frac{t\,(s+t-1)!\,(d-s-t)!}{d!} = \int_0^1 t x^{t-1} x^s (1-x)^{d-t-s} dx`,
    so :math:`\omega(t, r) = \int_0^1 t x^{t-1} x^r dx`. At t = 0 (undefined) the value is v(empty),
    as in shapiq: :math:`\omega(0, r) = [r = 0]`.
    """
    if t == 0:
        return _ONE if r == 0 else _ZERO
    return Fraction(t, t + r)


def _moebius_weight(t, r, d, k) -> Fraction:
    r"""Moebius transform (Rota 1964; Harsanyi dividends): :math:`\omega(t, r) = [r = 0]`, i.e.
    :math:`I(T) = m(T) = \Delta_T v(\emptyset)`."""
    return _ONE if r == 0 else _ZERO


def _co_moebius_weight(t, r, d, k) -> Fraction:
    r"""Co-Moebius transform (Grabisch 2000; the commonality function): :math:`\omega(t, r) = 1`, i.e.
    :math:`I(T) = \sum_{L \supseteq T} m(L) = \Delta_T v(N \setminus T)
    = \sum_{S \subseteq T} (-1)^{|S|} v(N \setminus S)`, the Moebius transform of the dual game up to sign."""
    return _ONE


def _k_sii_weight(t, r, d, k) -> Fraction:
    r"""k-SII (Bordt & von Luxburg 2023): the Bernoulli aggregation of SII up to order k.

    :math:`\Phi_k(T) = \sum_{j=0}^{k-t} B_j \sum_{J \subseteq N \setminus T, |J| = j} \mathrm{SII}(T \cup J)`
    for 1 <= t <= k (B_1 = -1/2), and v(empty) at t = 0. Counting the ways L is T plus J plus R,

    .. math::
        \omega(t, r) = \sum_{j=0}^{\min(k-t, r)} B_j \binom{r}{j} \frac{1}{r-j+1}
        = \begin{cases} [r = 0], & r \le k - t,\\
          \frac{1}{r+1} \sum_{j=0}^{k-t} \binom{r+1}{j} B_j, & r > k - t, \end{cases}

    using :math:`\binom{r}{j}/(r-j+1) = \binom{r+1}{j}/(r+1)` and
    :math:`\sum_{j=0}^{r} \binom{r+1}{j} B_j = [r = 0]`. (The weight grows like
    :math:`r^{k-t-1}` for k - t >= 2: large Moebius coefficients are shared with sign changes.)
    """
    if t == 0:
        return _ONE if r == 0 else _ZERO
    if r <= k - t:
        return _ONE if r == 0 else _ZERO
    B = bernoulli_numbers(k - t)
    return sum((math.comb(r + 1, j) * B[j] for j in range(k - t + 1)), _ZERO) / (r + 1)


def _stii_weight(t, r, d, k) -> Fraction:
    r"""Shapley-Taylor interaction index (Sundararajan, Dhamdhere & Agarwal 2020).

    Lower orders are the Moebius transform, :math:`\mathrm{STII}(T) = \Delta_T v(\emptyset)` (t < k);
    the top order is :math:`\frac{k}{d} \sum_{S \subseteq N \setminus T} \Delta_T v(S) / \binom{d-1}{s}`,
    whose derivative weight is :math:`k \int_0^1 x^s (1-x)^{d-1-s}dx`, so

    .. math::
        \omega(k, r) = k \int_0^1 x^r (1-x)^{k-1} dx = 1 / \binom{k+r}{k},

    every Moebius coefficient of a set L (l > k) shared equally among its k-subsets.
    """
    if t < k:
        return _ONE if r == 0 else _ZERO
    return Fraction(1, math.comb(k + r, k))


def _fsii_weight(t, r, d, k) -> Fraction:
    r"""Faithful Shapley interaction index, Faith-SHAP (Tsai, Yeh & Ravikumar 2023, Thm. 19).

    The coefficients of the polynomial of degree <= k in the coalition that best fits v in
    the Shapley-kernel-weighted least-squares sense, with v(empty) and v(N) fitted exactly.
    With l = t + r:

    .. math::
        \omega(t, r) = \begin{cases} [r = 0], & l \le k,\\
        (-1)^{k-t} \frac{t}{k+t} \binom{k}{t} \binom{l-1}{k} \Big/ \binom{l+k-1}{k+t}, & l > k, \end{cases}

    and v(empty) at t = 0. (At t = k this is :math:`\frac{(2k-1)!}{((k-1)!)^2} B(l, k)`, the
    cardinal index with Beta(k, k) weights.)
    """
    l = t + r
    if r == 0:
        return _ONE
    if l <= k or t == 0:
        return _ZERO
    return (Fraction((-1) ** (k - t) * t, k + t) * math.comb(k, t) * math.comb(l - 1, k)
            / math.comb(l + k - 1, k + t))


def _fbii_weight(t, r, d, k) -> Fraction:
    r"""Faithful Banzhaf interaction index (Tsai, Yeh & Ravikumar 2023).

    The coefficients of the polynomial of degree <= k that best fits v over all 2^d coalitions
    with equal weights. The best fit is the truncation of the Walsh (Fourier) expansion to
    degree k; rewriting :math:`\prod_{j \in L} z_j = 2^{-l} \sum_{A \subseteq L} \prod_{j \in A} (2 z_j - 1)`
    in monomials gives, with l = t + r,

    .. math::
        \omega(t, r) = \begin{cases} [r = 0], & l \le k,\\
        (-1)^{k-t}\, 2^{-r} \binom{r-1}{k-t}, & l > k, \end{cases}

    (at t = k the Banzhaf interaction index). Its t = 0 entry is the fitted intercept.
    """
    l = t + r
    if r == 0:
        return _ONE
    if l <= k:
        return _ZERO
    return Fraction((-1) ** (k - t) * math.comb(r - 1, k - t), 2**r)


def _internal_weight(t, r, d, k) -> Fraction:
    r"""Internal generalised value (Marichal et al. 2007): :math:`I(T) = v(T) - v(\emptyset)`, meeting form
    :math:`\omega(t, r) = [r = 0]` (every :math:`\emptyset \ne L \subseteq T`)."""
    return _ONE if r == 0 else _ZERO


def _external_weight(t, r, d, k) -> Fraction:
    r"""External generalised value (Marichal et al. 2007): :math:`I(T) = v(N) - v(N \setminus T)`, meeting
    form :math:`\omega(t, r) = 1` (every L that meets T)."""
    return _ONE


# --------------------------------------------------------------------------- #
# the definitions (for the enumeration oracle): weights of discrete derivatives or marginal contributions
# --------------------------------------------------------------------------- #
def _p_shapley(t, s, d, k) -> Fraction:
    """s! (d-t-s)! / (d-t+1)!."""
    return Fraction(math.factorial(s) * math.factorial(d - t - s), math.factorial(d - t + 1))


def _p_banzhaf(t, s, d, k) -> Fraction:
    """2^-(d-t)."""
    return Fraction(1, 2 ** (d - t))


def _p_chaining(t, s, d, k) -> Fraction:
    """t (s+t-1)! (d-s-t)! / d!; at t = 0 the empty set's convention [s = 0]."""
    if t == 0:
        return _ONE if s == 0 else _ZERO
    return Fraction(t * math.factorial(s + t - 1) * math.factorial(d - s - t), math.factorial(d))


def _p_at_empty(t, s, d, k) -> Fraction:
    """[s = 0]: the derivative (or marginal contribution) at the empty coalition."""
    return _ONE if s == 0 else _ZERO


def _p_at_rest(t, s, d, k) -> Fraction:
    """[s = d - t]: at the coalition of all other players."""
    return _ONE if s == d - t else _ZERO


def _p_taylor(t, s, d, k) -> Fraction:
    """Shapley-Taylor: k / (d C(d-1, s)) at t = k, [s = 0] below."""
    if t < k:
        return _ONE if s == 0 else _ZERO
    return Fraction(k, d * math.comb(d - 1, s))


# --------------------------------------------------------------------------- #
# the product rules
# --------------------------------------------------------------------------- #
def _rule_shapley(t, d, k) -> ProductRule:
    return _UNIFORM


def _rule_banzhaf(t, d, k) -> ProductRule:
    return _VALUE_AT_HALF


def _rule_chaining(t, d, k) -> ProductRule:
    # t x^(t-1) dx; t = 0: v(empty)
    return _VALUE_AT_0 if t == 0 else ProductRule(_density((t, t - 1, 0)), ())


def _rule_at_0(t, d, k) -> ProductRule:
    return _VALUE_AT_0


def _rule_at_1(t, d, k) -> ProductRule:
    return _VALUE_AT_1


def _rule_stii(t, d, k) -> ProductRule:
    # top order: k (1-x)^(k-1) dx
    return _VALUE_AT_0 if t < k else ProductRule(_density((k, 0, k - 1)), ())


@cache
def _rule_k_sii(t, d, k) -> ProductRule:
    r"""int_0^1 P_U + sum_{i<k-t} B_{i+1}/(i+1) [P_U^{(i)}(1) - P_U^{(i)}(0)] / i!.

    The extended weight (1/(r+1)) sum_{j<=k-t} C(r+1, j) B_j = 1/(r+1) + sum_{j>=1} (B_j/j) C(r, j-1)
    is the integral plus Taylor coefficients at x = 1 (:math:`\sum_r \binom{r}{i} e_r = P_U^{(i)}(1)/i!`);
    it differs from the true weight only at r < k - t by B_{r+1}/(r+1), the Taylor
    coefficients at x = 0 (:math:`P_U^{(i)}(0)/i! = e_i`).
    """
    if t == 0:
        return _VALUE_AT_0
    B = bernoulli_numbers(k - t)
    points = []
    for i in range(k - t):
        beta = B[i + 1] / (i + 1)
        if beta != 0:
            points += [(_ONE, i, beta), (_ZERO, i, -beta)]
    return ProductRule(_UNIFORM.density, tuple(points))


@cache
def _rule_fsii(t, d, k) -> ProductRule:
    r"""c_t sum_{i=0}^{k-t} (1/i!) (d/dx)^i [x^{t+i-1} (1-x)^{k-1}], c_t = (k+t-1)! / ((t-1)! (k-1)!).

    Derivation: with the cardinal index Y(S) = sum_{L >= S} B(|L|, k) m(L) (density
    x^{|S|-1} (1-x)^{k-1}), the weight above equals
    c_t sum_i (-1)^i sum_{|J| = i} Y(T + J) (expand C(r-1, k-t) = sum_i (-1)^{k-t-i} C(r, i));
    sum_{|J| = i} Y(T + J) integrates P_U^{(i)} / i! against x^{t+i-1} (1-x)^{k-1}, and i
    integrations by parts move the derivatives onto the density (its first i-1 derivatives
    vanish at both ends because t >= 1 and i <= k - 1).
    """
    if t == 0:
        return _VALUE_AT_0
    c = Fraction(math.factorial(k + t - 1), math.factorial(t - 1) * math.factorial(k - 1))
    terms = []
    for i in range(k - t + 1):
        p, q = t + i - 1, k - 1
        for j in range(i + 1):  # j derivatives on x^p, i - j on (1-x)^q
            coef = (c * math.comb(i, j) * _falling(p, j) * (-1) ** (i - j) * _falling(q, i - j)
                    / math.factorial(i))
            if coef != 0:
                terms.append((coef, p - j, q - (i - j)))
    return ProductRule(_density(*terms), ())


@cache
def _rule_fbii(t, d, k) -> ProductRule:
    r"""sum_{i=0}^{k-t} (-1/2)^i P_U^{(i)}(1/2) / i!: the weight sum_i (-1/2)^i C(r, i) 2^{-(r-i)}
    = 2^{-r} sum_{i<=k-t} (-1)^i C(r, i) = (-1)^{k-t} 2^{-r} C(r-1, k-t)."""
    return ProductRule((), tuple((_HALF, i, Fraction(-1, 2) ** i) for i in range(k - t + 1)))


# --------------------------------------------------------------------------- #
# the declarations
# --------------------------------------------------------------------------- #
@dataclass(frozen=True)
class InteractionIndex:
    """One interaction index (or generalised value) as a declared concept.

    Parameters
    ----------
    name : str
        The canonical spelling (shapiq's).
    title : str
        Its long name.
    aliases : tuple of str
        Other accepted spellings (compared case-insensitively, letters and digits only).
    order_means : {"1", "exactly k", "up to k"}
        ``"1"``: a value of single players (order 1 only). ``"exactly k"``: the value of a
        set does not depend on k; ``order=k`` asks for the sets of size k. ``"up to k"``:
        the values depend on k; ``order=k`` gives every size 1..k.
    form : {"superset", "meeting"}
        Moebius form (module docstring): sums over L containing T, or over L meeting T.
    efficiency : {"always", "order 1", "all orders", "none"}
        Which sums equal v(N) - v(empty): the returned sizes 1..k ("always"), the order-1
        values ("order 1"), the sizes 1..d together ("all orders"), or none.
    definition : str
        What the enumeration oracle evaluates: ``"derivative"`` (a weighted sum of discrete
        derivatives), ``"marginal"`` (of marginal contributions v(S+T) - v(S)),
        ``"bernoulli"`` (k-SII from SII), ``"least squares shapley"`` / ``"least squares banzhaf"``.
    reference : str
        Where the definition comes from.
    weight_fn, derivative_fn, rule_fn : callable
        (t, r, d, k) -> Fraction Moebius weight; (t, s, d, k) -> Fraction weight of the
        definition (None for bernoulli and least squares); (t, d, k) -> ProductRule.

    Examples
    --------
    >>> idx = get_index("faith-shap")
    >>> idx.name, idx.order_means, idx.sizes(3, 10)
    ('FSII', 'up to k', (1, 2, 3))
    >>> str(idx.weight(2, 1, 10, 2))     # a triple's Moebius coefficient, shared with a pair
    '1/2'
    """

    name: str
    title: str
    aliases: tuple
    order_means: str
    form: str
    efficiency: str
    definition: str
    reference: str
    weight_fn: Callable = field(repr=False)
    derivative_fn: Callable | None = field(repr=False)
    rule_fn: Callable = field(repr=False)
    empty: str = "v(empty)"

    def _at_empty(self, t) -> bool:
        """Whether the empty set takes the convention v(empty) instead of the formula."""
        return t == 0 and self.empty == "v(empty)"

    def form_at(self, t) -> str:
        """The Moebius form of sets of size t (the empty set's v(empty) is of superset form)."""
        return "superset" if self._at_empty(t) else self.form

    def check_order(self, k, d) -> int:
        """``k`` as an int in 1..d (1 for order-1 indices), else ValueError naming what is accepted."""
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise ValueError(f"order must be an integer; got {k!r}")
        k = int(k)
        if self.order_means == "1" and k != 1:
            raise ValueError(f"{self.name} is a value of single players: order must be 1; got {k}")
        if not 1 <= k <= d:
            raise ValueError(f"order must be between 1 and the number of players {d}; got {k}")
        return k

    def sizes(self, k, d) -> tuple[int, ...]:
        """The set sizes ``order=k`` returns: 1..k for "up to k" indices, (k,) otherwise."""
        k = self.check_order(k, d)
        return tuple(range(1, k + 1)) if self.order_means == "up to k" else (k,)

    def check_size(self, t, k, d) -> int:
        """``t`` if a set of that size has a value at order k, else ValueError."""
        t = int(t)
        top = k if self.order_means == "up to k" else (1 if self.order_means == "1" else d)
        if not 0 <= t <= top:
            raise ValueError(f"{self.name} at order {k} has no value for sets of size {t} "
                             f"(sizes 0..{top}; {d} players)")
        return t

    def weight(self, t, r, d, k) -> Fraction:
        """Moebius weight omega(t, r) of m(L), |L \\ T| = r, in the index of T (exact)."""
        if self._at_empty(t):
            return _ONE if r == 0 else _ZERO
        return self.weight_fn(int(t), int(r), int(d), int(k))

    def derivative_weight(self, t, s, d, k) -> Fraction:
        """The definition's weight of Delta_T v(S) (or of v(S+T) - v(S)), |S| = s (exact)."""
        if self._at_empty(t):
            return _ONE if s == 0 else _ZERO
        if self.derivative_fn is None:
            raise ValueError(f"{self.name} is not defined by weighted derivatives ({self.definition})")
        return self.derivative_fn(int(t), int(s), int(d), int(k))

    def rule(self, t, d, k) -> ProductRule:
        """The :class:`ProductRule` of sets of size ``t`` at order ``k`` among ``d`` players."""
        if self._at_empty(t):
            return _VALUE_AT_0
        return self.rule_fn(int(t), int(d), int(k))

    def efficient_sizes(self, k, d) -> tuple[int, ...] | None:
        """Set sizes whose values together sum to v(N) - v(empty), or None."""
        if self.efficiency == "always":
            return tuple(range(1, k + 1))
        if self.efficiency == "order 1":
            return (1,)
        if self.efficiency == "all orders":
            return tuple(range(1, d + 1))
        return None

    def empty_value(self) -> str:
        """What the value of the empty set is, in words."""
        return {"SII": "sum_L m(L) / (|L| + 1)", "BII": "the mean worth", "BV": "the mean worth",
                "FBII": "the fitted intercept"}.get(self.name, "v(empty)")


_GR = "Grabisch & Roubens (1999), Int. J. Game Theory 28: 547-565"
_MARICHAL = ("Marichal (2000), Discrete Appl. Math. 107; Marichal, Kojadinovic & Fujimoto (2007), "
             "Discrete Appl. Math. 155")

#: Every index offered, by canonical name.
INDEX_CONCEPTS: dict[str, InteractionIndex] = {i.name: i for i in (
    InteractionIndex("SV", "Shapley value", ("shapley", "shapley value", "shap"), "1", "superset",
                     "always", "derivative", "Shapley (1953)", _shapley_weight, _p_shapley, _rule_shapley),
    InteractionIndex("BV", "Banzhaf value", ("banzhaf", "banzhaf value"), "1", "superset", "none",
                     "derivative", "Banzhaf (1965)", _banzhaf_weight, _p_banzhaf, _rule_banzhaf, "formula"),
    InteractionIndex("SII", "Shapley interaction index", ("shapley interaction",), "exactly k",
                     "superset", "order 1", "derivative", _GR, _shapley_weight, _p_shapley,
                     _rule_shapley, "formula"),
    InteractionIndex("BII", "Banzhaf interaction index", ("banzhaf interaction",), "exactly k",
                     "superset", "none", "derivative", _GR, _banzhaf_weight, _p_banzhaf, _rule_banzhaf,
                     "formula"),
    InteractionIndex("CHII", "Chaining interaction index", ("chaining", "chaining interaction"),
                     "exactly k", "superset", "order 1", "derivative",
                     "Marichal & Roubens (1999)", _chaining_weight, _p_chaining, _rule_chaining),
    InteractionIndex("k-SII", "k-Shapley interaction index (n-Shapley values)",
                     ("ksii", "kshapley", "nshapley", "n-shapley values"), "up to k", "superset",
                     "always", "bernoulli", "Bordt & von Luxburg (2023), AISTATS",
                     _k_sii_weight, None, _rule_k_sii),
    InteractionIndex("STII", "Shapley-Taylor interaction index", ("shapley taylor", "shapleytaylor"),
                     "up to k", "superset", "always", "derivative",
                     "Sundararajan, Dhamdhere & Agarwal (2020), ICML", _stii_weight, _p_taylor, _rule_stii),
    InteractionIndex("FSII", "Faithful Shapley interaction index (Faith-SHAP)", ("faith-shap", "faithshap",
                     "faithful shapley"), "up to k", "superset", "always", "least squares shapley",
                     "Tsai, Yeh & Ravikumar (2023), JMLR 24(94)", _fsii_weight, None, _rule_fsii),
    InteractionIndex("FBII", "Faithful Banzhaf interaction index (Faith-Banzhaf)", ("faith-banzhaf",
                     "faithbanzhaf", "faithful banzhaf"), "up to k", "superset", "none",
                     "least squares banzhaf", "Tsai, Yeh & Ravikumar (2023), JMLR 24(94)",
                     _fbii_weight, None, _rule_fbii, "formula"),
    InteractionIndex("Moebius", "Moebius transform (Harsanyi dividends)", ("mobius", "möbius",
                     "harsanyi", "moebius transform"), "exactly k", "superset", "all orders",
                     "derivative", "Rota (1964); Harsanyi (1963)", _moebius_weight, _p_at_empty, _rule_at_0),
    InteractionIndex("Co-Moebius", "Co-Moebius transform (external interaction index)", ("comobius",
                     "co-möbius", "comoebius", "co-mobius"), "exactly k", "superset", "none",
                     "derivative", "Grabisch (2000); Fujimoto, Kojadinovic & Marichal (2006)",
                     _co_moebius_weight, _p_at_rest, _rule_at_1),
    InteractionIndex("SGV", "Shapley generalised value", ("shapley generalized value",), "exactly k",
                     "meeting", "order 1", "marginal", _MARICHAL, _shapley_weight, _p_shapley, _rule_shapley),
    InteractionIndex("BGV", "Banzhaf generalised value", ("banzhaf generalized value",), "exactly k",
                     "meeting", "none", "marginal", _MARICHAL, _banzhaf_weight, _p_banzhaf, _rule_banzhaf),
    InteractionIndex("CHGV", "Chaining generalised value", ("chaining generalized value",), "exactly k",
                     "meeting", "order 1", "marginal", _MARICHAL, _chaining_weight, _p_chaining,
                     _rule_chaining),
    InteractionIndex("IGV", "Internal generalised value", ("internal generalized value",), "exactly k",
                     "meeting", "none", "marginal", _MARICHAL, _internal_weight, _p_at_empty, _rule_at_0),
    InteractionIndex("EGV", "External generalised value", ("external generalized value",), "exactly k",
                     "meeting", "none", "marginal", _MARICHAL, _external_weight, _p_at_rest, _rule_at_1),
)}

#: Canonical names, in the order of the table above.
INDEX_NAMES = tuple(INDEX_CONCEPTS)


def _key(text) -> str:
    return "".join(ch for ch in str(text).lower().replace("ö", "oe") if ch.isalnum())


_LOOKUP = {}
for _idx in INDEX_CONCEPTS.values():
    for _spelling in (_idx.name,) + _idx.aliases:
        _LOOKUP[_key(_spelling)] = _idx


def get_index(index) -> InteractionIndex:
    """The declared index named by ``index`` (a name, an alias or an :class:`InteractionIndex`).

    Names are compared case-insensitively on letters and digits ("k-SII", "ksii",
    "faith-shap", "Möbius" all work).

    Raises
    ------
    ValueError
        An unknown name; the message lists the accepted ones.

    Examples
    --------
    >>> get_index("Möbius").name, get_index("ksii").name
    ('Moebius', 'k-SII')
    """
    if isinstance(index, InteractionIndex):
        return index
    found = _LOOKUP.get(_key(index)) if isinstance(index, str) else None
    if found is None:
        raise ValueError(f"unknown interaction index {index!r}; accepted: {', '.join(INDEX_NAMES)} "
                         "(case-insensitive; e.g. 'ksii', 'faith-shap', 'mobius' work too)")
    return found


# --------------------------------------------------------------------------- #
# sets: enumeration, bitmasks, ranks
# --------------------------------------------------------------------------- #
def n_sets(d, t) -> int:
    """C(d, t), the number of sets of size t."""
    return math.comb(int(d), int(t))


def all_sets(d, t) -> np.ndarray:
    """All sets of size ``t`` of players 0..d-1, one per row, sorted, in lexicographic order.

    The order of ``itertools.combinations(range(d), t)``, built without a Python loop over sets.

    Returns
    -------
    ndarray of int64, shape (C(d, t), t)

    Examples
    --------
    >>> all_sets(4, 2).tolist()
    [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    """
    d, t = int(d), int(t)
    if t == 0:
        return np.zeros((1, 0), dtype=np.int64)
    if t > d:
        return np.zeros((0, t), dtype=np.int64)
    # grow prefixes: a prefix ending in e extends by e+1 .. d-(t-len) (room for the rest)
    sets = np.arange(d - t + 1, dtype=np.int64)[:, None]
    for level in range(1, t):
        last = sets[:, -1]
        hi = d - t + level                   # largest value allowed at this position
        counts = hi - last
        rows = np.repeat(np.arange(len(sets)), counts)
        starts = np.cumsum(counts) - counts
        offset = np.arange(len(rows)) - np.repeat(starts, counts)
        new = last[rows] + 1 + offset
        sets = np.concatenate([sets[rows], new[:, None]], axis=1)
    return sets


def set_masks(sets) -> np.ndarray:
    """Bitmasks (bit j = player j) of sets given as rows of player indices (d <= 62)."""
    sets = np.asarray(sets, dtype=np.int64)
    if sets.ndim == 1:
        sets = sets[None]
    return np.bitwise_or.reduce(np.left_shift(np.int64(1), sets), axis=-1) if sets.shape[-1] else \
        np.zeros(sets.shape[:-1], dtype=np.int64)


@lru_cache(maxsize=64)
def _binom_table(d, t):
    table = np.zeros((d + 2, t + 2), dtype=np.int64)
    for n in range(d + 2):
        for j in range(t + 2):
            table[n, j] = math.comb(n, j)
    table.setflags(write=False)
    return table


def lex_rank(sets, d) -> np.ndarray:
    """Position of each sorted set (rows of ``sets``, all of one size t) in :func:`all_sets` (d, t).

    rank(T) = sum_m [C(d - T_{m-1} - 1, t - m) - C(d - T_m, t - m)] with T_{-1} = -1.

    Examples
    --------
    >>> lex_rank([[0, 1], [1, 3], [2, 3]], 4).tolist()
    [0, 4, 5]
    """
    sets = np.asarray(sets, dtype=np.int64)
    if sets.ndim == 1:
        sets = sets[None]
    t = sets.shape[1]
    if t == 0:
        return np.zeros(len(sets), dtype=np.int64)
    C = _binom_table(int(d), t)
    prev = np.concatenate([np.full((len(sets), 1), -1, dtype=np.int64), sets[:, :-1]], axis=1)
    m = np.arange(t)
    return (C[d - prev - 1, t - m] - C[d - sets, t - m]).sum(axis=1)


# --------------------------------------------------------------------------- #
# the Moebius route: the second exact route, for tables of worths
# --------------------------------------------------------------------------- #
def moebius_transform(worths) -> np.ndarray:
    r"""The Moebius transform :math:`m(L) = \sum_{S \subseteq L} (-1)^{|L|-|S|} v(S)` of a table of worths.

    By the fast subset transform: d passes, each subtracting the worth without player j
    from the worth with it.

    Parameters
    ----------
    worths : array (2**d,) or (2**d, n)
        Indexed by bitmask (bit j = player j).

    Returns
    -------
    ndarray, the shape of ``worths``

    Examples
    --------
    >>> moebius_transform([0.0, 1.0, 2.0, 5.0])   # v = x0 + 2 x1 + 2 x0 x1
    array([0., 1., 2., 2.])
    """
    m = np.array(worths, dtype=float)
    size = m.shape[0]
    d = size.bit_length() - 1
    if size != 2**d:
        raise ValueError(f"worths must have 2**d rows (one per bitmask); got {size}")
    for j in range(d):
        view = m.reshape((2 ** (d - j - 1), 2, 2**j) + m.shape[1:])
        view[:, 1] -= view[:, 0]
    return m


def _weight_table(idx, t, d, k) -> np.ndarray:
    return np.array([float(idx.weight(t, r, d, k)) for r in range(d - t + 1)])


def from_moebius(moebius, index, sets, order) -> np.ndarray:
    r"""Index values of ``sets`` from the Moebius transform, by the index's Moebius weights.

    :math:`I(T) = \sum_{L \supseteq T} \omega(t, |L \setminus T|) m(L)` (superset form) or the sum
    over L meeting T (meeting form); the weights are :meth:`InteractionIndex.weight`.

    Parameters
    ----------
    moebius : array (2**d,) or (2**d, n)
        From :func:`moebius_transform`.
    index : str or InteractionIndex
    sets : array (m, t)
        Sets of one size, rows of player indices.
    order : int
        k.

    Returns
    -------
    ndarray (n, m) (or (m,) for 1-D ``moebius``)

    Examples
    --------
    >>> m = moebius_transform([0.0, 1.0, 2.0, 5.0])
    >>> from_moebius(m, "SII", [[0], [1]], 1), from_moebius(m, "SII", [[0, 1]], 2)
    (array([2., 3.]), array([2.]))
    """
    idx = get_index(index)
    m = np.asarray(moebius, dtype=float)
    single = m.ndim == 1
    m2 = m.reshape(m.shape[0], -1)
    d = m2.shape[0].bit_length() - 1
    sets = np.asarray(sets, dtype=np.int64).reshape(len(sets), -1)
    t = sets.shape[1]
    k = int(order)
    weights = _weight_table(idx, t, d, k)
    T = set_masks(sets)[:, None] if t else np.zeros((len(sets), 1), dtype=np.int64)
    L = np.arange(2**d, dtype=np.int64)[None, :]
    r = np.bitwise_count(L & ~T).astype(np.int64)
    if idx.form_at(t) == "superset":
        take = (L & T) == T
    else:
        take = (L & T) != 0
    coef = np.where(take, weights[np.minimum(r, d - t)], 0.0)
    out = (coef @ m2).T
    return out[0] if single else out


def efficiency_residual(index, order, d, values_by_size, v_empty, v_full) -> np.ndarray | None:
    """Sum of the efficient sizes' values minus v(N) - v(empty), per instance (None: no efficiency).

    Parameters
    ----------
    values_by_size : dict int -> array (n, C(d, t))
        All sets of each size the index's efficiency involves (:meth:`InteractionIndex.efficient_sizes`).

    Raises
    ------
    KeyError
        A size the check needs is missing.
    """
    idx = get_index(index)
    sizes = idx.efficient_sizes(int(order), int(d))
    if sizes is None:
        return None
    total = sum(np.asarray(values_by_size[t]).sum(axis=-1) for t in sizes)
    return total - (np.asarray(v_full) - np.asarray(v_empty))


def _check_tables():  # pragma: no cover - a development aid
    for idx in INDEX_CONCEPTS.values():
        for d in range(1, 7):
            for k in range(1, d + 1):
                if idx.order_means == "1" and k != 1:
                    continue
                for t in itertools.chain(range(0, (k if idx.order_means == "up to k" else d) + 1)):
                    rule = idx.rule(t, d, k)
                    for r in range(d - t + 1):
                        assert rule.moment(r) == idx.weight(t, r, d, k), (idx.name, d, k, t, r)
