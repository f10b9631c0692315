r"""Regression-adjusted Monte Carlo with maximum sample reuse (``method="msr"``).

Witter, Liu & Musco, "Regression-adjusted Monte Carlo Estimators for Shapley Values and
Probabilistic Values", NeurIPS 2025. Fit a proxy game :math:`f` whose Shapley values are known in
closed form, take them, and add an unbiased Monte Carlo estimate of the Shapley values of the
residual game :math:`v - f`. Writing the Shapley value as a sum over *all* coalitions,

.. math::
    \phi_i(v) = \sum_S v(S)\,\big(p_{|S|-1}[i \in S] - p_{|S|}[i \notin S]\big),
    \qquad p_s = \frac{s!\,(d-s-1)!}{d!},

every sampled coalition informs every player (maximum sample reuse): with :math:`S \sim \mathcal D`,

.. math::
    \hat\phi_i = \phi_i(f) + \frac1K \sum_{k=1}^K \big(v(S_k) - f(S_k)\big)\,
    \frac{p_{|S_k|-1}[i \in S_k] - p_{|S_k|}[i \notin S_k]}{\mathcal D(S_k)} .

Here: the proxy is linear, :math:`f(S) = v(\emptyset) + \sum_{j \in S}\beta_j` with
:math:`\sum_j \beta_j = v(D) - v(\emptyset)`, so :math:`\phi(f) = \beta` and the residual vanishes at the
empty and the full coalition (their terms of the sum are exact). Coalitions come with their
complements: a pair contributes :math:`w_i(S)\,(r(S) - r(S^c))`, the residual's odd part (its even
part carries no Shapley value). Pairs are grouped in classes by the size h of their smaller member.
The sampling density is proportional to the norm over players of a pair's weights,
:math:`\|w(S)\| = \sqrt{d / (h(d-h))} / \binom dh` (with :math:`p_{s-1}\binom ds = 1/s`,
:math:`p_s\binom ds = 1/(d-s)`), the density that minimises the summed variance for a residual of even
size; classes whose expected draws would exceed their number of pairs are evaluated whole (a
census: their part of the sum is exact) and the other pairs are drawn i.i.d. (with replacement)
from that density restricted to the remaining classes. The proxy is fitted by least squares on all
evaluated pairs, each weighted by its share of :math:`\sum \|w(S)\|\,\delta(S)^2` (what the sampled
part's variance is proportional to).

Unbiased: the proxy used on the draws of one of ``folds`` folds is fitted on the censused pairs and
the other folds (cross-fitting), so it is independent of the draws it corrects, and each fold's
estimate -- the proxy's values, the exact censused part and the fold's Monte Carlo part -- is
unbiased for every proxy; the estimate is their average weighted by fold size. Efficient exactly
(the corrections of one pair sum to zero over the players). Intervals: the estimate is the mean
of the per-draw scores :math:`\psi_k` over the i.i.d. draws; the t-interval over them (one degree of
freedom fewer than draws) is the CLT interval, treating the fold proxies as fixed (as in
cross-fitted estimators generally).
"""

from __future__ import annotations

import numpy as np

from ._common import as_instances, block_elements
from ._odd_regression import pair_worths, paired_cost, run_paired, well_conditioned_inverse
from ._pair_sampling import allocate_pairs, class_populations, draw_pairs, n_classes, uniform_subsets
from ._registry import Cost, Estimator, EstimatorResult, Option, register

__all__ = ["RegressionMSR", "msr_class_mass"]

#: Default number of cross-fitting folds.
DEFAULT_FOLDS = 10
#: Fewest i.i.d. draws for which an interval is stated (infinite below): the CLT t-interval over the
#: draws' heavy-tailed scores under-covered with fewer -- on three product-kernel models at d = 10,
#: 24 draws covered 0.920-0.938 at a stated 0.95 and 39 draws 0.934-0.944 (benchmarks/bench_estimators.py
#: --coverage); 0.86-0.89 with 14 draws on random games.
MIN_INTERVAL_DRAWS = 30


def msr_class_mass(d: int) -> np.ndarray:
    """rho_h, h = 1..floor(d/2): the summed norm ||w(S)|| of a class's pairs, up to one constant factor.

    N_h ||w|| = (N_h / C(d, h)) sqrt(d / (h (d - h))): 1/sqrt(h(d-h)), half of it for the middle class.
    """
    h = np.arange(1, n_classes(d) + 1, dtype=float)
    return np.where(2 * h == d, 0.5, 1.0) / np.sqrt(h * (d - h))


def _census_classes(d, n_pairs, folds):
    """(censused classes (H,) bool, draws left): classes the density would over-fill are taken whole,
    as long as at least ``folds`` (and 2) draws remain for the Monte Carlo part."""
    population = class_populations(d)
    census = allocate_pairs(population, msr_class_mass(d), n_pairs) >= population
    left = n_pairs - int(population[census].sum())
    while left < max(folds, 2) and census.any():   # give back the largest censused class
        largest = int(np.argmax(np.where(census, population, -1.0)))
        census[largest] = False
        left += int(population[largest])
    return census, left


def _draw(d, census, n_draws, rng):
    """i.i.d. pairs (first members (k, d), classes (k,)) from the density restricted to the other classes."""
    mass = np.where(census, 0.0, msr_class_mass(d))
    classes = rng.choice(len(mass), size=n_draws, p=mass / mass.sum())
    h = classes + 1
    keys = rng.random((n_draws, d))
    middle = 2 * h == d
    keys[middle, -1] = -1.0                      # the middle class: the member that holds the last player
    return uniform_subsets(keys, h), classes


def _eliminated(signs, tau, total):
    """Odd linear design and target with alpha_last = -total/2 - sum(other alphas) eliminated."""
    return signs[:, :-1] - signs[:, -1:], tau + signs[:, -1:] * (0.5 * total)[None, :]


def _row_blocks(rows, step):
    """``rows`` in consecutive blocks of at most ``step``."""
    return (rows[start:start + step] for start in range(0, len(rows), step))


def _fold_proxies(first, tau, weights, total, n_census, fold_of, step):
    """beta (F, d, n): the efficient linear proxy fitted (weighted least squares, min-norm) on the
    censused pairs (the first ``n_census`` rows) and all folds of the drawn pairs but one.

    Normal equations per group of rows (the censused pairs, each fold), in blocks of ``step`` rows."""
    d, n = first.shape[1], tau.shape[1]
    folds = int(fold_of.max()) + 1
    groups = [np.arange(n_census)] + [np.flatnonzero(fold_of == f) + n_census for f in range(folds)]
    G = np.zeros((folds + 1, d - 1, d - 1))
    r = np.zeros((folds + 1, d - 1, n))
    for g, rows in enumerate(groups):
        for idx in _row_blocks(rows, step):
            X, t = _eliminated(1.0 - 2.0 * first[idx], tau[idx], total)
            Xw = X * weights[idx, None]
            G[g] += Xw.T @ X
            r[g] += Xw.T @ t
    G_all, r_all = G.sum(axis=0), r.sum(axis=0)
    betas = np.empty((folds, d, n))
    for f in range(folds):
        inverse = well_conditioned_inverse(G_all - G[f + 1])
        coef = (inverse @ (r_all - r[f + 1]) if inverse is not None
                else np.linalg.lstsq(G_all - G[f + 1], r_all - r[f + 1], rcond=None)[0])
        betas[f, :-1] = -2.0 * coef                       # beta = -2 alpha
        betas[f, -1] = total + 2.0 * coef.sum(axis=0)     # alpha_last = -total/2 - sum(other alphas)
    return betas


@register
class RegressionMSR(Estimator):
    """Regression-adjusted Monte Carlo (MSR) with a linear proxy: unbiased, efficient, CLT intervals.

    ``budget`` counts game evaluations: v(empty), v(all) and both members of every pair, so
    ``(budget - 2) // 2`` pairs (an odd budget leaves one evaluation unused): the censused classes'
    pairs and i.i.d. draws; at least ``2 folds + 2``. With a budget of all 2**d coalitions it
    evaluates them all and returns the exact values. Default 2d + 2050.

    ``folds`` (default 10): cross-fitting folds; the proxy correcting one fold's draws is fitted on
    the others (and the censused pairs), which makes the estimate exactly unbiased. Intervals at
    ``level`` (``intervals=True``): Student-t over the per-draw scores (CLT over the independent
    draws; see the module docstring); infinite (no interval) below 30 i.i.d. draws, where it
    under-covered (:data:`MIN_INTERVAL_DRAWS`).
    """

    name = "msr"
    aliases = ("regression_msr",)
    exact = False
    description = "regression-adjusted Monte Carlo (MSR): linear proxy + unbiased correction, t-intervals"
    options = {
        "budget": Option(None, "int", 3, doc="game evaluations: v(empty), v(all) and both members of each pair"),
        "folds": Option(DEFAULT_FOLDS, "int", 2,
                        doc="cross-fitting folds (the proxy of a fold is fitted on the others)"),
        "intervals": Option(True, "bool", doc="t-intervals over the per-draw scores"),
        "level": Option(0.95, "level", doc="interval level"),
    }

    def min_budget(self, n_players) -> int:
        return 2 * DEFAULT_FOLDS + 2

    def _plan(self, d, options):
        """(every pair, pairs): all of them when the budget covers all 2**d coalitions."""
        budget = options["budget"] if options["budget"] is not None else 2 * d + 2050
        if d < 63 and budget >= 2**d:
            return True, 2 ** (d - 1) - 1
        minimum = 2 * options["folds"] + 2
        if budget < minimum:
            everything = f" or all 2**{d}" if d < 63 else ""
            raise ValueError(
                f"budget={budget} is too small for method='msr' with folds={options['folds']}: it needs "
                f"at least {minimum} game evaluations (v(empty), v(all) and one complementary pair per "
                f"fold){everything}")
        return False, (budget - 2) // 2

    def cost(self, game, options) -> Cost:
        d, n = game.n_players, game.n_instances or 1
        if d == 1:
            return Cost.of(game.evaluation_work(2), 0.0, 2)
        every, pairs = self._plan(d, options)
        if every:
            return paired_cost(game, {"budget": 2**d, "intervals": False}, 1, self.name)
        folds = options["folds"]
        cost = Cost.of(game.evaluation_work(2 * pairs + 2), 8.0 * pairs * (2 * d + 3 * n), 2 * pairs + 2,
                       f"{pairs} complementary pairs x {n} instance(s), {folds} folds",
                       flops=pairs * d * (4.0 + 8.0 * n) + folds * pairs * d * n)
        cost.blas_flops += 2.0 * pairs * d * (d + n) * 2 + folds * 12.0 * d ** 3
        return cost

    def advice(self, game, options) -> list[str]:
        return ["a smaller budget=...", "fewer folds=...", "groups of features as players (groups=...)"]

    def run(self, game, rng, options) -> EstimatorResult:
        d = game.n_players
        v_empty = as_instances(game.empty_value, game)
        total = as_instances(game.full_value, game) - v_empty
        if d == 1:
            return EstimatorResult(total[:, None], v_empty, budget=2,
                                   meta={"sampling": "one player: phi = v(all) - v(empty)"})
        every, n_pairs = self._plan(d, options)
        if every:
            result = run_paired(game, rng, {**options, "budget": 2**d}, target="kernel", order=1,
                                method=self.name, sampling="")
            result.meta["sampling"] = "all coalitions: exact (no Monte Carlo needed)"
            return result
        folds = options["folds"]
        census, n_draws = _census_classes(d, n_pairs, folds)
        population = class_populations(d)
        counted = draw_pairs(d, np.where(census, population, 0).astype(np.int64), rng)
        drawn, drawn_class = _draw(d, census, n_draws, rng)
        first = np.concatenate([counted.first, drawn])
        classes = np.concatenate([counted.stratum, drawn_class])
        y_first, y_second = pair_worths(game, first, v_empty, block_elements(options["max_elements"]),
                                        options["progress"], "MSR pairs")
        odd = y_first - y_second
        n_census = len(counted.first)
        scale = _unit_scales(d, census, classes, n_census, n_draws)
        fold_of = np.arange(n_draws) % folds
        step = max(1, block_elements(options["max_elements"]) // (2 * d + 2 * len(total)))
        betas = _fold_proxies(first, 0.5 * odd, scale["fit"], total, n_census, fold_of, step)
        phi, spread = _msr_estimate(first, odd, scale, betas, n_census, fold_of, step)
        meta = {"n_pairs": n_pairs, "n_census_pairs": n_census, "n_draws": n_draws, "folds": folds,
                "proxy": "linear (efficient), cross-fitted",
                "sampling": "size classes taken whole where the density over-fills them; i.i.d. complementary "
                            "pairs by ||w(S)|| from the others"}
        result = EstimatorResult(phi, v_empty, budget=2 * n_pairs + 2, meta=meta)
        if options["intervals"]:
            from scipy import stats  # deferred: scipy.stats takes ~0.5 s to import

            level = options["level"]
            if n_draws < MIN_INTERVAL_DRAWS:   # a CLT interval over a few heavy-tailed scores under-covers
                inf = np.full_like(phi, np.inf)
                result.stderr, result.lower, result.upper = inf, -inf, inf
                meta.update(level=level, interval=f"infinite: {n_draws} i.i.d. draws are too few for a CLT "
                                                  f"t-interval (at least {MIN_INTERVAL_DRAWS}; a larger budget)")
                return result
            stderr = np.sqrt(spread / (n_draws - 1) / n_draws)
            half = stats.t.ppf(0.5 + level / 2, n_draws - 1) * stderr
            result.stderr, result.lower, result.upper = stderr, phi - half, phi + half
            meta.update(level=level, interval=f"t-interval over {n_draws} i.i.d. draws' scores "
                                              "(CLT; cross-fitted proxies taken as fixed)")
        return result


def _unit_scales(d, census, classes, n_census, n_draws):
    """Per pair: its weight in the proxy fit and its correction weights a (in S) and b (outside S).

    A pair of class h contributes (a [i in S] - b [i not in S]) delta to player i: censused pairs
    exactly (a = 1 / (C(d, h) h), b = 1 / (C(d, h) (d - h))), drawn pairs over their draw
    probability pi_h / N_h (Hansen-Hurwitz); C(d, h) = N_h / ratio_h with ratio_h = 1/2 for the
    middle class, so no binomial coefficient of a large class is ever formed.
    """
    population = class_populations(d)
    h = classes + 1.0
    ratio = np.where(2 * h == d, 0.5, 1.0)
    rho = msr_class_mass(d)
    pi = np.where(census, 0.0, rho) / np.where(census, 0.0, rho).sum()
    drawn = np.arange(len(classes)) >= n_census
    per_pair = np.where(drawn, ratio / np.maximum(pi[classes], 1e-300), ratio / population[classes])
    fit = np.where(drawn, np.where(census, 0.0, rho).sum() / max(n_draws, 1), rho[classes] / population[classes])
    return {"a": per_pair / h, "b": per_pair / (d - h), "fit": fit / fit.max()}


def _msr_estimate(first, odd, scale, betas, n_census, fold_of, step):
    """The estimate (n, d) and the summed squared deviations of the per-draw scores from it (n, d).

    Fold f's score of a draw is psi = beta_f + T_f + g with T_f the censused pairs' exact residual
    Shapley values under proxy f and g_i = delta (a [i in S] - b [i not in S]), delta the pair's odd
    residual; sums over pairs are matrix products over blocks of ``step`` rows (no pairs x d x n
    array, no pairs x d float array).
    """
    folds = len(betas)
    a, b = scale["a"], scale["b"]

    def sums(rows, beta):
        first_sum = np.zeros(beta.shape)
        second_sum = np.zeros(beta.shape)
        for idx in _row_blocks(rows, step):
            inside = first[idx].astype(float)
            delta = odd[idx] + (1.0 - 2.0 * inside) @ beta       # (v(S) - v(S^c)) - (f(S) - f(S^c))
            da, db = delta * a[idx, None], delta * b[idx, None]
            first_sum += inside.T @ da - (1.0 - inside).T @ db
            second_sum += inside.T @ (da * da) + (1.0 - inside).T @ (db * db)
        return first_sum, second_sum

    offset = np.empty_like(betas)
    sum_g = np.empty_like(betas)
    sum_g2 = np.empty_like(betas)
    sizes = np.empty(folds)
    for f in range(folds):
        offset[f] = betas[f] + sums(np.arange(n_census), betas[f])[0]
        rows = np.flatnonzero(fold_of == f) + n_census
        sum_g[f], sum_g2[f] = sums(rows, betas[f])
        sizes[f] = len(rows)
    phi = (np.einsum("f,fdn->dn", sizes, offset) + sum_g.sum(axis=0)) / sizes.sum()      # (d, n)
    c = phi[None] - offset
    spread = (sum_g2 - 2.0 * c * sum_g + sizes[:, None, None] * c * c).sum(axis=0)
    return phi.T, np.maximum(spread, 0.0).T
