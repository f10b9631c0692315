r"""OddSHAP (``method="oddshap"``): the paired regression on the odd part of the game, with the odd
interactions a boosted-tree proxy finds.

Fumagalli, Butler, Kang, Ramchandran & Witter, "An odd estimator for Shapley values", 2026
(arXiv:2602.01399). Write the game in the parity (Fourier) basis
:math:`\chi_T(S) = \prod_{j \in T}(1 - 2\,[j \in S])`, :math:`v = \sum_T \hat v_T \chi_T`. The Shapley
value of :math:`\chi_T` is :math:`-2/|T|` for each :math:`i \in T` when :math:`|T|` is odd and zero when it
is even, so

.. math::
    \phi_i(v) = -2 \sum_{T \ni i,\ |T| \text{ odd}} \frac{\hat v_T}{|T|} :

the Shapley value depends on the *odd* part :math:`v_{\mathrm{odd}}(S) = (v(S) - v(S^c))/2` alone.
A complementary pair :math:`\{S, S^c\}` measures that part exactly, and the weighted regression on
pairs splits into an even and an odd regression that never meet (see
:mod:`kernelxai.estimators._odd_regression`). OddSHAP therefore fits, one equation per sampled pair,

.. math::
    \min_\alpha \sum_{\text{pairs } u} \omega_u \Big(\tfrac{v(S_u) - v(S_u^c)}{2}
        - \sum_{T \in \mathcal T} \alpha_T \chi_T(S_u)\Big)^2
    \quad\text{s.t.}\quad -2 \sum_{T \in \mathcal T} \alpha_T = v(D) - v(\emptyset),
    \qquad \hat\phi_i = -2 \sum_{T \in \mathcal T,\, T \ni i} \frac{\alpha_T}{|T|},

over a support :math:`\mathcal T` of odd sets: every singleton, plus the higher-order odd
interactions (:math:`|T| = 3, 5, \dots`) a proxy of the game holds most of. The proxy is a
gradient-boosted tree ensemble fitted to the evaluated coalitions (LightGBM's settings with depth
10 in the paper; :mod:`kernelxai.estimators._tree_proxy` here), whose Fourier spectrum is exact and
sparse: its odd coefficients of largest :math:`|\hat f_T|` name the interactions. With a budget of
:math:`m` evaluations the support holds :math:`\lceil m / \eta \rceil` sets (:math:`\eta` =
``interaction_factor``, 10 as in the paper, i.e. five pairs per coefficient): the :math:`d`
singletons and :math:`\lceil m/\eta \rceil - d` higher-order odd sets. Below :math:`\eta d` evaluations
the support is the singletons alone (the paper falls back to the proxy's own TreeSHAP values
there; kernelxai keeps the consistent regression instead).

How efficiency is imposed (``efficiency=``). ``"constrained"`` is the paper's regression above.
``"split"`` (the default) fits the same weighted regression without the constraint, giving
:math:`\tilde\alpha` and :math:`\tilde\phi_i = -2\sum_{T \ni i} \tilde\alpha_T/|T|`, and then shares the
gap equally:

.. math::
    \hat\phi_i = \tilde\phi_i + \frac1d\Big(v(D) - v(\emptyset) - \sum_j \tilde\phi_j\Big).

This is regression-adjusted Monte Carlo (Witter, Liu & Musco 2025; ``method="msr"``) with the fitted
odd polynomial :math:`f` as its proxy, fitted on the same pairs: the proxy's exact values
:math:`\phi(f)` plus the Horvitz-Thompson estimate of the residual's,

.. math::
    \hat\phi_i = \phi_i(f) + \sum_u \delta_u \big(a_u [i \in S_u] - b_u [i \notin S_u]\big)
        + \frac{r(D) - r(\emptyset)}{d},

with :math:`r = v - f`, :math:`\delta_u = r(S_u) - r(S_u^c)`, :math:`a_u \propto \omega_u (d - h_u)` and
:math:`b_u \propto \omega_u h_u` (pair :math:`u` of class :math:`h_u`; the pair :math:`\{\emptyset, D\}` is
always evaluated). Since :math:`[i \in S] = (1 - \chi_i(S))/2`, the only part of the sum that depends
on :math:`i` is a multiple of :math:`\sum_u \omega_u \delta_u \chi_i(S_u)`, zero by the normal equations
of the fit: the correction is the same for every player, and efficiency fixes it. Compared with
the constrained fit, which moves the unconstrained solution along :math:`\hat G^{-1}\mathbf 1`
(:math:`\hat G` the sampled normal matrix), the split moves it along :math:`\mathbf 1`, the direction
the normal matrix of *all* pairs gives for the singletons (:math:`G^{-1}\mathbf 1 \propto \mathbf 1` by
the symmetry of the Shapley kernel); with few pairs per coefficient :math:`\hat G^{-1}\mathbf 1` is
noisy. Measured: 0.74-0.80x the constrained error at 5d-10d
evaluations on the arena's d = 200 models, equal at d = 50 and from 20d, and lower on random
tabular games of 8-12 players at every budget tried.

Design and weights as Leverage SHAP's: pairs drawn without replacement, stratified by the size of
their smaller member, the budget spread evenly over coalition sizes (the leverage scores; the paper
samples sizes uniformly too), each pair weighted by the Shapley kernel over its inclusion
probability. With ``efficiency="constrained"`` and the singletons alone it *is* Leverage SHAP.
Efficiency holds exactly either way. Consistent: with every pair sampled both forms are exact for
any support that holds the singletons, so the budget of all :math:`2^d` coalitions returns the
exact values (the proxy is then skipped). Not unbiased (the proxy and the regression use the same
pairs; the bias vanishes as the budget grows, measured far below the spread in the tests).

The proxy and the support are per instance (each explained point's game has its own
interactions), so each instance has its own proxy and regression, one after the other (a loop
over the explained points, with a progress bar); the coalitions and their evaluation are shared. The proxy costs
about 100 tree fits on the evaluated coalitions per instance -- seconds at d = 200 and 10^4
evaluations, more than the regression itself, and a noticeable part of a call whose game is cheap.
"""

from __future__ import annotations

import math

import numpy as np

from ._common import block_elements, progress_iter
from ._odd_regression import (
    OddFeatures,
    default_pair_budget,
    game_ends,
    min_pair_budget,
    odd_terms,
    pair_weights,
    pair_worths,
    paired_cost,
    plan_pairs,
    shapley_map,
    solve_odd,
    well_conditioned_inverse,
)
from ._pair_sampling import allocate_pairs, class_populations, draw_pairs, size_class_mass
from ._registry import Cost, Estimator, EstimatorResult, Option, register
from ._tree_proxy import boosted_leaves, odd_spectrum, proxy_work

__all__ = ["OddSHAP", "select_odd_terms", "DEFAULT_INTERACTION_FACTOR"]

#: Evaluations per coefficient of the regression (the paper's eta).
DEFAULT_INTERACTION_FACTOR = 10


def _support_size(d: int, evaluations: int, factor: int) -> int:
    """Higher-order odd sets in the support: ceil(evaluations / factor) - d, at least 0."""
    return max(0, math.ceil(evaluations / factor) - d)


def select_odd_terms(first: np.ndarray, y_first: np.ndarray, y_second: np.ndarray, total: float,
                     n_extra: int) -> list[np.ndarray]:
    """The ``n_extra`` odd sets of 3 or more players the proxy's spectrum weighs most, grouped by size.

    The proxy is fitted to every evaluated coalition: both members of each pair (``first`` and its
    complements, worths ``y_first``, ``y_second`` relative to v(empty)), the empty and the full
    coalition. Returns one int array (n_s, s) per odd size s that has a selected set (ties broken
    by size, then lexicographically).
    """
    d = first.shape[1]
    Z = np.concatenate([first, ~first, np.zeros((1, d), dtype=bool), np.ones((1, d), dtype=bool)])
    y = np.concatenate([y_first, y_second, [0.0, total]])
    _, leaves = boosted_leaves(Z, y)
    sets, coefs = odd_spectrum(leaves, d)
    if not sets or n_extra <= 0:
        return []
    magnitude = np.concatenate([np.abs(c) for c in coefs])
    size_of = np.concatenate([np.full(len(s), s.shape[1]) for s in sets])
    index = np.concatenate([np.arange(len(s)) for s in sets])
    keep = np.argsort(-magnitude, kind="stable")[:n_extra]
    keep = keep[magnitude[keep] > 0]
    chosen = []
    for group in sets:
        size = group.shape[1]
        rows = np.sort(index[keep[size_of[keep] == size]])
        if len(rows):
            chosen.append(group[rows])
    return chosen


def solve_split(F, tau, weights, total, M, max_elements) -> np.ndarray | None:
    """phi (n, d): the weighted odd regression without the efficiency constraint, its gap split equally.

    ``F`` (K, p; rows formed in blocks), ``tau`` (K, n), ``weights`` (K,), ``total`` (n,), ``M`` (d, p)
    as for :func:`~kernelxai.estimators._odd_regression.solve_odd`. This is regression-adjusted
    Monte Carlo with the fitted odd polynomial as its proxy (see the module docstring). None when
    the pairs leave the normal matrix singular.
    """
    K, p = F.shape
    n = tau.shape[1]
    G = np.zeros((p, p))
    r = np.zeros((p, n))
    step = max(1, max_elements // max(p + n, 1))
    for start in range(0, K, step):
        sl = slice(start, start + step)
        X = F[sl]
        Xw = X * weights[sl, None]
        G += Xw.T @ X
        r += Xw.T @ tau[sl]
    inverse = well_conditioned_inverse((G + G.T) / 2)
    if inverse is None:
        return None
    phi = (M @ (inverse @ r)).T
    return phi + ((total - phi.sum(axis=1)) / M.shape[0])[:, None]


def _solve(first, tau, weights, total, terms, max_elements, text, efficiency):
    """phi (n, d) of the odd regression on ``terms``: split (falling back to the constrained
    regression where the unconstrained one is not identified) or constrained."""
    d = first.shape[1]
    F, M = OddFeatures(first, terms), shapley_map(d, terms)
    if efficiency == "split":
        phi = solve_split(F, tau, weights, total, M, max_elements)
        if phi is not None:
            return phi
    return solve_odd(F, tau, weights, total, M, max_elements, text).phi


def _solve_instance(first, tau, weights, total, terms, max_elements, text, efficiency):
    """(phi (d,), columns used) of one instance's odd regression on ``terms``.

    Should the chosen interactions leave a direction the pairs do not identify (a singular normal
    matrix), the regression is solved on the singletons alone -- still consistent -- and the
    column count says so.
    """
    try:
        phi = _solve(first, tau, weights, total, terms, max_elements, text, efficiency)
    except ValueError:
        if len(terms) == 1:
            raise
        terms = terms[:1]
        phi = _solve(first, tau, weights, total, terms, max_elements, text, efficiency)
    return phi[0], sum(len(t) for t in terms)


@register
class OddSHAP(Estimator):
    """OddSHAP: paired regression on the singletons and the odd interactions a tree proxy finds.

    Design: Leverage SHAP's -- complementary pairs without replacement, stratified by size, the
    budget spread evenly over sizes, each pair weighted by the Shapley kernel over its inclusion
    probability. Per explained instance, boosted regression trees are fitted to the evaluated
    coalitions and the odd sets of three or more players with the largest Fourier coefficients in
    the trees join the singletons as columns of the regression, ``ceil(budget /
    interaction_factor)`` columns in all (see the module docstring). Below ``interaction_factor``
    x d evaluations the columns are the singletons alone (Leverage SHAP's regression).

    ``efficiency``: ``"split"`` (default) fits without the efficiency constraint and shares the gap
    equally among the players -- regression-adjusted Monte Carlo with the fitted polynomial as its
    proxy, measured 0.74-0.80x the constrained error at 5d-10d evaluations at d = 200 and never
    above it; ``"constrained"``, the paper's constrained regression (with the singletons alone,
    Leverage SHAP's values). Efficiency holds exactly either way.

    ``budget`` counts game evaluations: v(empty), v(all) and both members of every pair, so
    ``(budget - 2) // 2`` pairs (an odd budget leaves one evaluation unused); at least 2d + 2, or all
    2**d coalitions (then the values are exact). Default 2d + 2050.

    Intervals: none. The columns are chosen from the same evaluations the regression is fitted to,
    which the delta-method variance of the fixed-column regression does not account for, and no
    interval for it was shown to cover; ``kx.shapley_values(..., method="oddshap")`` returns values
    without stderr or bounds (``meta["interval"]`` says so).
    """

    name = "oddshap"
    aliases = ("odd_shap",)
    exact = False
    description = "OddSHAP: paired odd regression on singletons + odd interactions from a boosted-tree proxy"
    options = {
        "budget": Option(None, "int", 3, doc="game evaluations: v(empty), v(all) and both members of each pair"),
        "interaction_factor": Option(DEFAULT_INTERACTION_FACTOR, "int", 1,
                                     doc="evaluations per regression column (the paper's eta): "
                                         "ceil(budget / factor) columns, the d singletons first"),
        "efficiency": Option("split", "choice", choices=("split", "constrained"),
                             doc="fit without the efficiency constraint and split its gap equally (the "
                                 "regression-adjusted form), or the paper's constrained regression"),
    }

    def min_budget(self, n_players) -> int:
        return min_pair_budget(n_players, 1) if n_players > 1 else 2

    def _budget(self, d, options):
        return options["budget"] if options["budget"] is not None else default_pair_budget(d, 1)

    def cost(self, game, options) -> Cost:
        d, n = game.n_players, game.n_instances or 1
        budget = self._budget(d, options)
        cost = paired_cost(game, {"budget": budget, "intervals": False}, 1, self.name)
        if d == 1:
            return cost
        census, pairs = plan_pairs(d, budget, 1, self.name)
        extra = 0 if census else _support_size(d, 2 * pairs + 2, options["interaction_factor"])
        if extra:
            flops, steps = proxy_work(2 * pairs + 2, d)
            p = d + extra
            cost.flops += n * (flops + 3.0 * pairs * p)
            cost.steps += n * steps
            cost.blas_flops += n * (2.0 * pairs * p * p + 10.0 * p ** 3)
            cost.memory = max(cost.memory, 8.0 * (2 * pairs + 2) * d * 2 + 8.0 * pairs * p)
        return cost

    def advice(self, game, options) -> list[str]:
        return ["a smaller budget=...", "a larger interaction_factor=... (fewer interaction columns)",
                "groups of features as players (groups=...)"]

    def run(self, game, rng, options) -> EstimatorResult:
        d = game.n_players
        max_elements = block_elements(options["max_elements"])
        v_empty, total, one = game_ends(game, interval="none: exact")
        if one is not None:
            return one
        budget = self._budget(d, options)
        census, n_pairs = plan_pairs(d, budget, 1, self.name)
        population = class_populations(d)
        taken = (population.astype(np.int64) if census
                 else allocate_pairs(population, size_class_mass(d, "leverage"), n_pairs))
        design = draw_pairs(d, taken, rng)
        y_first, y_second = pair_worths(game, design.first, v_empty, max_elements, options["progress"],
                                        "oddshap pairs")
        tau = 0.5 * (y_first - y_second)
        weights = pair_weights(d, design)
        singles = odd_terms(d, 1)
        extra = 0 if census else _support_size(d, design.n_evaluations, options["interaction_factor"])
        text = f"budget={budget}"
        efficiency = options["efficiency"]
        if extra == 0:
            phi = _solve(design.first, tau, weights, total, singles, max_elements, text, efficiency)
            columns = np.full(len(total), d)
        else:
            phi = np.empty((len(total), d))
            columns = np.empty(len(total), dtype=np.int64)
            for k in progress_iter(range(len(total)), "oddshap proxies", "point", options["progress"]):
                terms = singles + select_odd_terms(design.first, y_first[:, k], y_second[:, k], total[k], extra)
                phi[k], columns[k] = _solve_instance(design.first, tau[:, k:k + 1], weights, total[k:k + 1], terms,
                                                     max_elements, text, efficiency)
        meta = {"n_pairs": len(design.first), "pairs_per_class": taken, "n_terms": columns,
                "interaction_factor": options["interaction_factor"], "efficiency": options["efficiency"],
                "proxy": ("none: every pair evaluated" if census else
                          "none: the budget allows the singletons only" if extra == 0 else
                          "boosted regression trees per instance; the odd sets of >= 3 players with the "
                          "largest Fourier coefficients"),
                "sampling": ("all coalitions (every complementary pair): exact" if census else
                             "complementary pairs by leverage score (uniform over sizes), without "
                             "replacement, stratified by size"),
                "interval": "none: the regression's columns are chosen from the same evaluations"}
        return EstimatorResult(phi, v_empty, budget=design.n_evaluations, meta=meta)
