r"""KernelSHAP-type regression on complementary pairs: the odd part of the game, weighted, with efficiency exact.

Takes a :class:`~kernelxai.estimators._pair_sampling.PairDesign` and the worths of both members of
every pair; hands on Shapley values and, optionally, their stratified delta-method standard errors
and t-intervals. ``method="leverage_shap"``, ``"polyshap"`` and ``"kernel"`` with ``replace=False``
are this module with different designs and bases.

Why pairs reduce to one equation each. Write the game in the parity (Fourier) basis
:math:`\chi_T(S) = \prod_{j \in T} (1 - 2\,[j \in S])`. Since :math:`\chi_T(S^c) = (-1)^{|T|}\chi_T(S)`,
a pair's two squared residuals are twice the squared residual of its *even* part
:math:`(y(S) + y(S^c))/2` plus twice that of its *odd* part :math:`\tau = (y(S) - y(S^c))/2`, and the
even and odd coefficients never meet (the constraints :math:`f(\emptyset) = v(\emptyset)`,
:math:`f(D) = v(D)` split the same way). The Shapley value of :math:`\chi_T` is
:math:`((-1)^{|T|} - 1)/|T|` for each :math:`i \in T`: :math:`-2/|T|` for odd :math:`|T|`, zero for even.
So the Shapley values of a polynomial fit depend only on the odd regression

.. math::
    \min_\alpha \sum_{\text{pairs } u} \omega_u \Big(\tau_u - \sum_{T \text{ odd}} \alpha_T \chi_T(S_u)\Big)^2
    \quad\text{s.t.}\quad -2 \sum_T \alpha_T = v(D) - v(\emptyset),
    \qquad \phi_i = \sum_{T \ni i} -2\alpha_T / |T| ,

with one equation per pair (Fumagalli et al. 2026, "An odd estimator for Shapley values", and
"PolySHAP", which proves that paired KernelSHAP equals second-order polynomial regression: the
even terms drop out). With the singletons only it *is* KernelSHAP with paired coalitions; with
every pair it is exact for every basis that contains the singletons (the residual is orthogonal
to the linear functions, whose KernelSHAP solution is the Shapley value).

Weights: pair u of class h gets the Shapley-kernel weight of its coalitions over its inclusion
probability, :math:`\omega_u \propto k(d, h)\, N_h / k_h` (Horvitz-Thompson: the weighted normal
equations are unbiased for the full ones).

Intervals: the estimate is a smooth function of two stratified Horvitz-Thompson totals, so its
delta-method variance is that of the total of the unit scores
:math:`\xi_u = \omega_u x_u e_u` (design row times residual) under stratified sampling without
replacement: :math:`\sum_h (1 - k_h/N_h)\, \tfrac{k_h}{k_h - 1} \sum_{u \in h} (\xi_u - \bar\xi_h)^2`,
mapped to the players through the inverse Gram matrix. Residuals are scaled by
:math:`(1 - h_u)^{-1/2}` (the HC2 correction for the leverage :math:`h_u` of each pair; HC3's
:math:`(1 - h_u)^{-1}` for bases with interaction terms, whose many coefficients leave high
leverages and under which HC2 covered 0.89-0.92 at a stated 0.95 in tests), censused
classes contribute nothing, a class with one sampled pair is pooled with the next sampled class
(collapsed strata, conservative), and the t quantile takes Satterthwaite's degrees of freedom per
player and instance. Intervals are infinite (stated as none) with fewer than two pairs per
unknown of the regression (``pairs_per_unknown`` of the options). Three for paired KernelSHAP
without replacement, whose kernel allocation leaves the middle sizes two pairs each at small
budgets: at 2.7 pairs per unknown, 5d at d = 10, its intervals covered 0.86-0.87 at a stated 0.9
on three product-kernel models, where Leverage SHAP's even allocation covered 0.885-0.894. Three
for the interaction bases (order > 2, HC3): at 2.3 pairs per unknown (PolySHAP of order 3, 600
evaluations at d = 10) HC3 over-covered, 0.911-0.926 at a stated 0.9.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from .._threads import small_blas
from ._common import as_instances, block_elements, evaluate_blocks
from ._pair_sampling import allocate_pairs, class_populations, draw_pairs, size_class_mass
from ._registry import Cost, EstimatorResult

__all__ = ["odd_terms", "odd_features", "OddFeatures", "well_conditioned_inverse", "shapley_map", "pair_worths",
           "solve_odd", "OddFit", "stratified_intervals", "pair_weights", "plan_pairs", "min_pair_budget",
           "default_pair_budget", "paired_cost", "run_paired", "n_terms"]


def odd_terms(d: int, order: int) -> list[np.ndarray]:
    """The odd interaction sets of the basis: singletons, then all 3-sets, 5-sets, ... up to ``order``.

    Returns one int array (n_T, |T|) per odd size; the singletons come first in player order, so
    column ``d - 1`` of the features is player ``d - 1`` alone.
    """
    return [np.array(list(combinations(range(d), size)), dtype=np.intp).reshape(-1, size)
            for size in range(1, min(order, d) + 1, 2)]


def n_terms(terms: list[np.ndarray]) -> int:
    return int(sum(len(t) for t in terms))


def odd_features(first: np.ndarray, terms: list[np.ndarray]) -> np.ndarray:
    """chi_T(S) = prod_{j in T} (1 - 2 [j in S]) for every pair's first member S and odd term T, (K, p)."""
    signs = 1.0 - 2.0 * first.astype(float)
    blocks = []
    for sets in terms:
        block = signs[:, sets[:, 0]]
        for col in range(1, sets.shape[1]):
            block = block * signs[:, sets[:, col]]
        blocks.append(block)
    return np.concatenate(blocks, axis=1)


class OddFeatures:
    """The odd features of every pair, formed a block of rows at a time (never the whole K x p array).

    ``F[rows]`` is :func:`odd_features` of those pairs; ``F.shape`` and ``len(F)`` are the full array's.
    """

    def __init__(self, first: np.ndarray, terms: list[np.ndarray]):
        self.first, self.terms = first, terms
        self.shape = (len(first), n_terms(terms))

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, rows):
        return odd_features(self.first[rows], self.terms)


def shapley_map(d: int, terms: list[np.ndarray]) -> np.ndarray:
    """M (d, p): phi = M alpha, with M[i, T] = -2 / |T| for i in T (the Shapley value of chi_T)."""
    M = np.zeros((d, n_terms(terms)))
    start = 0
    for sets in terms:
        cols = np.arange(start, start + len(sets))
        M[sets, cols[:, None]] = -2.0 / sets.shape[1]
        start += len(sets)
    return M


def pair_weights(d: int, design) -> np.ndarray:
    """omega_u: the Shapley-kernel weight of pair u's class over its inclusion probability (max 1)."""
    h = np.arange(1, len(design.population) + 1, dtype=float)
    half = np.where(2 * h == d, 0.5, 1.0)       # N_h / C(d, h): the middle class holds half its coalitions' pairs
    per_class = half / (h * (d - h)) / np.maximum(design.taken, 1)
    w = per_class[design.stratum]
    return w / w.max() if len(w) else w


def pair_worths(game, first, v_empty, max_elements, progress, desc):
    """y(S) - v(empty) and y(S^c) - v(empty) for every pair, each (K, n); one block of 2K evaluations."""
    both = np.empty((2 * len(first), first.shape[1]), dtype=bool)
    both[0::2] = first
    both[1::2] = ~first
    y = evaluate_blocks(game, both, max_elements, progress, desc) - v_empty
    return y[0::2], y[1::2]


class OddFit:
    """The solved odd regression: values and what its intervals need.

    ``phi`` (n, d); ``coef`` (p-1, n) the coefficients left after eliminating player d-1's singleton;
    ``bread`` (p-1, p-1) the inverse weighted Gram matrix; ``L`` (d, p-1) the map from ``coef`` to phi;
    ``problem`` the regression solved: (features F, odd targets tau, weights, total).
    """

    def __init__(self, phi, coef, bread, L, problem):
        self.phi, self.coef, self.bread, self.L, self.problem = phi, coef, bread, L, problem


def well_conditioned_inverse(G: np.ndarray) -> np.ndarray | None:
    """The inverse of the symmetric positive semi-definite ``G``, or None if it is (nearly) singular.

    A Cholesky factorisation decides (its squared pivots bound the eigenvalues): far cheaper than
    an eigendecomposition, which only the rank-deficient case needs.
    """
    with small_blas(len(G)):   # threaded BLAS on a busy machine: 10-100x slower at p ~ 200
        try:
            pivots = np.diag(np.linalg.cholesky(G)) ** 2
        except np.linalg.LinAlgError:
            return None
        if not pivots.min() > 1e-12 * pivots.max():
            return None
        inverse = np.linalg.inv(G)
    return (inverse + inverse.T) / 2


def _eliminated(F, tau, total, last):
    """Design and target after eliminating alpha_last = -total/2 - sum(other alphas)."""
    X = np.delete(F, last, axis=1) - F[:, last:last + 1]
    t = tau + F[:, last:last + 1] * (0.5 * total)[None, :]
    return X, t


def solve_odd(F, tau, weights, total, M, max_elements, budget_text) -> OddFit:
    """Weighted least squares of ``tau`` (K, n) on the odd features ``F`` (K, p; rows formed in blocks)
    with efficiency exact.

    Normal equations are accumulated in blocks of pairs (memory K x p never held twice); the Gram
    matrix is diagonalised once for all instances. Raises ValueError when the pairs do not
    identify every coefficient.
    """
    K, p = F.shape
    d = M.shape[0]
    last = d - 1
    n = tau.shape[1]
    G = np.zeros((p - 1, p - 1))
    r = np.zeros((p - 1, n))
    step = max(1, max_elements // max(p + n, 1))
    for start in range(0, K, step):
        sl = slice(start, start + step)
        X, t = _eliminated(F[sl], tau[sl], total, last)
        Xw = X * weights[sl, None]
        G += Xw.T @ X
        r += Xw.T @ t
    G = (G + G.T) / 2
    bread = well_conditioned_inverse(G)
    if bread is None:   # (nearly) singular: count the directions the pairs span
        vals = np.linalg.eigvalsh(G)
        rank = int((vals > max(vals.max(initial=0.0), 1e-300) * max(p, K) * 1e-12).sum())
        if rank < p - 1:
            raise ValueError(
                f"{budget_text} is too small to identify {d} Shapley values: the {K} sampled complementary "
                f"pairs span only {rank + 1} of the {p} directions of the regression. Use a larger budget")
        bread = np.linalg.pinv(G, hermitian=True)
    coef = bread @ r
    L = np.delete(M, last, axis=1) - M[:, last:last + 1]
    phi = (L @ coef).T - (M[:, last][None, :] * (0.5 * total)[:, None])
    return OddFit(phi, coef, bread, L, (F, tau, weights, total))


def _variance_groups(design):
    """Sampled (non-census) classes grouped so that each group has >= 2 pairs: (list of class lists)."""
    sampled = [h for h in range(len(design.taken)) if 0 < design.taken[h] < design.population[h]]
    groups, pending = [], []
    for h in sampled:
        pending.append(h)
        if design.taken[pending].sum() >= 2:
            groups.append(pending)
            pending = []
    if pending:
        if groups:
            groups[-1].extend(pending)
        else:
            groups.append(pending)
    return groups


def stratified_intervals(fit, design, level, max_elements, power=0.5):
    """Standard errors, bounds and degrees of freedom (each (n, d)) of the odd regression's values.

    See the module docstring: stratified delta method with residuals scaled by (1 - h)^-power
    (0.5: HC2; 1: HC3, for bases whose many coefficients leave high leverages), collapsed strata
    for single-pair classes, Satterthwaite degrees of freedom. Infinite where a sampled pair alone
    determines a direction (leverage 1) or only one pair was sampled outside the censused classes.
    """
    n, d = fit.phi.shape
    groups = _variance_groups(design)
    starts = np.concatenate([[0], np.cumsum(design.taken)])
    label = np.full(len(fit.problem[0]), -1)
    for g, group in enumerate(groups):
        for h in group:
            label[starts[h]:starts[h + 1]] = g
    k = np.array([design.taken[group].sum() for group in groups], dtype=float)
    fpc = np.array([1.0 - min(design.taken[h] / design.population[h] for h in group) for group in groups])
    with small_blas(len(fit.bread)):
        S, Q, degenerate = _group_sums(fit, label, len(groups), power, max_elements)
    degenerate = degenerate or bool(np.any(k < 2))
    keep = k >= 2
    k, fpc, S, Q = k[keep], fpc[keep], S[keep], Q[keep]
    a = (fpc * k / (k - 1.0))[:, None, None]
    part = a * np.maximum(Q - S * S / k[:, None, None], 0.0)          # (groups, n, d)
    var = part.sum(axis=0)
    den = (part ** 2 / (k - 1.0)[:, None, None]).sum(axis=0)
    from scipy import stats  # deferred: scipy.stats takes ~0.5 s to import

    stderr = np.sqrt(var)
    with np.errstate(invalid="ignore", divide="ignore"):
        df = np.where(den > 0, var ** 2 / np.maximum(den, 1e-300), 1.0)
    df = np.maximum(df, 1.0)
    if degenerate:
        stderr = np.full_like(stderr, np.inf)
    half = stats.t.ppf(0.5 + level / 2, df) * stderr
    return stderr, fit.phi - half, fit.phi + half, df, degenerate


def _group_sums(fit, label, n_groups, power, max_elements):
    """Per variance group: S = sum of the unit scores projected on phi, Q = sum of their squares,
    each (groups, n, d); and whether some sampled pair has leverage 1.

    Blocks of rows (units sorted by group) and of instance columns keep every temporary within
    ``max_elements``; group sums are ``np.add.reduceat`` over each block's runs of one group.
    """
    F, tau, weights, total = fit.problem
    n, d = fit.phi.shape
    BL = fit.bread @ fit.L.T                                             # (p-1, d)
    rows = np.flatnonzero(label >= 0)
    S = np.zeros((n_groups, n, d))
    Q = np.zeros((n_groups, n, d))
    degenerate = False
    cols = max(1, min(n, max_elements // max(n_groups * d, 1)))
    step = max(1, max_elements // max(cols * d + F.shape[1] + d, 1))
    for c0 in range(0, n, cols):
        cs = slice(c0, c0 + cols)
        for s0 in range(0, len(rows), step):
            idx = rows[s0:s0 + step]
            X, t = _eliminated(F[idx], tau[idx, cs], total[cs], d - 1)
            w = weights[idx]
            resid = t - X @ fit.coef[:, cs]                                 # (b, c)
            hat = w * ((X @ fit.bread) * X).sum(axis=1)
            if np.any(hat >= 1.0 - 1e-9):
                degenerate = True
                hat = np.minimum(hat, 0.5)
            R = (X @ BL) * (w / (1.0 - hat) ** power)[:, None]             # (b, d): the unit's direction on phi
            lab = label[idx]
            cut = np.concatenate([[0], np.flatnonzero(np.diff(lab)) + 1])
            prod = resid[:, :, None] * R[:, None, :]                        # (b, c, d)
            S[lab[cut], cs] += np.add.reduceat(prod, cut, axis=0)
            Q[lab[cut], cs] += np.add.reduceat(prod * prod, cut, axis=0)
    return S, Q, degenerate


# --------------------------------------------------------------------------- the estimators' shared run
#: Evaluations of the default design beyond 2d (as KernelSHAP's sampled default).
DEFAULT_EXTRA = 2050


def min_pair_budget(d: int, order: int) -> int:
    """Smallest budget (evaluations) for the odd regression: a pair per coefficient (two per coefficient
    with interaction terms, whose many coefficients leave too few pairs to estimate the spread
    otherwise), at least two pairs per size class, plus v(empty) and v(all)."""
    p = 2 * n_terms(odd_terms(d, order)) if order > 2 else d
    return 2 * max(p, 2 * (d // 2)) + 2


def default_pair_budget(d: int, order: int) -> int:
    """2d + 2050 evaluations, or 4 per coefficient of the odd regression if that is more."""
    p = n_terms(odd_terms(d, order)) if order > 2 else d
    return max(2 * d + DEFAULT_EXTRA, 4 * p + 2)


def plan_pairs(d: int, budget, order: int, method: str) -> tuple[bool, int]:
    """(census, pairs): every pair when the budget covers all 2**d coalitions, else (budget - 2) // 2 pairs.

    Raises ValueError for a budget below :func:`min_pair_budget` that does not cover all coalitions.
    """
    if budget is None:
        budget = default_pair_budget(d, order)
    all_pairs = 2 ** (d - 1) - 1 if d < 63 else None
    n_pairs = (budget - 2) // 2
    if all_pairs is not None and n_pairs >= all_pairs:
        return True, all_pairs
    minimum = min_pair_budget(d, order)
    if budget < minimum:
        everything = f" or all 2**{d}" if all_pairs is not None else ""
        raise ValueError(
            f"budget={budget} is too small for method={method!r} with {d} players: it needs at least "
            f"{minimum} game evaluations (v(empty), v(all) and a complementary pair per unknown of its "
            f"regression, two per coalition-size class){everything}")
    return False, n_pairs


def paired_cost(game, options, order, method, extra_flops=0.0):
    """Cost of one paired-regression call: evaluations, features, normal equations, eigh, intervals."""
    d, n = game.n_players, game.n_instances or 1
    if d == 1:
        return Cost.of(game.evaluation_work(2), 0.0, 2)
    census, pairs = plan_pairs(d, options["budget"], order, method)
    p = n_terms(odd_terms(d, order)) if order > 2 else d
    evaluations = 2 * pairs + 2
    flops = pairs * p * max(order, 1) + 2.0 * pairs * (p + n) + extra_flops
    blas = 2.0 * pairs * p * (p + n) + 10.0 * p ** 3
    if options.get("intervals", True) and not census:
        blas += 2.0 * pairs * p * (p + d) + 4.0 * pairs * d * n
    cost = Cost.of(game.evaluation_work(evaluations), 8.0 * pairs * (p + 2 * n + d) + 8.0 * p * p,
                   evaluations, f"{pairs} complementary pairs x {n} instance(s)", flops=flops)
    cost.blas_flops += blas
    return cost


def game_ends(game, **meta):
    """v(empty) (n,), v(all) - v(empty) (n,), and the exact answer of a one-player game (else None)."""
    v_empty = as_instances(game.empty_value, game)
    total = as_instances(game.full_value, game) - v_empty
    if game.n_players != 1:
        return v_empty, total, None
    return v_empty, total, EstimatorResult(total[:, None], v_empty, budget=2,
                                           meta={"sampling": "one player: phi = v(all) - v(empty)", **meta})


def run_paired(game, rng, options, *, target, order, method, sampling):
    """Draw the design, evaluate both members of every pair, solve, and (optionally) add intervals."""
    d = game.n_players
    max_elements = block_elements(options["max_elements"])
    v_empty, total, one = game_ends(game)
    if one is not None:
        return one
    census, n_pairs = plan_pairs(d, options["budget"], order, method)
    population = class_populations(d)
    taken = (population.astype(np.int64) if census
             else allocate_pairs(population, size_class_mass(d, target), n_pairs))
    design = draw_pairs(d, taken, rng)
    y_first, y_second = pair_worths(game, design.first, v_empty, max_elements, options["progress"],
                                    f"{method} pairs")
    tau = 0.5 * (y_first - y_second)
    terms = odd_terms(d, order)
    F = OddFeatures(design.first, terms)
    weights = pair_weights(d, design)
    fit = solve_odd(F, tau, weights, total, shapley_map(d, terms), max_elements,
                    f"budget={options['budget']}")
    meta = {"n_pairs": int(len(F)), "order": order, "n_terms": int(F.shape[1]),
            "sampling": ("all coalitions (every complementary pair): exact" if census else sampling),
            "pairs_per_class": taken}
    result = EstimatorResult(fit.phi, v_empty, budget=design.n_evaluations, meta=meta)
    if options.get("intervals", True):
        level = options["level"]
        meta["level"] = level
        # fewer pairs per unknown: no interval (three for the interaction bases, under HC3)
        per_unknown = options.get("pairs_per_unknown", 3 if order > 2 else 2)
        if census:
            result.stderr, result.lower, result.upper = np.zeros_like(fit.phi), fit.phi.copy(), fit.phi.copy()
            meta["interval"] = "none needed: every coalition evaluated, values exact"
        elif len(F) < per_unknown * (F.shape[1] - 1):
            result.stderr = np.full_like(fit.phi, np.inf)
            result.lower, result.upper = np.full_like(fit.phi, -np.inf), np.full_like(fit.phi, np.inf)
            unknowns = F.shape[1] - 1
            meta["interval"] = (f"infinite: {len(F)} pairs for {unknowns} unknowns leave too few to estimate the "
                                f"spread (intervals need at least {per_unknown * unknowns} pairs, a budget of "
                                f"{2 * per_unknown * unknowns + 2})")
        else:
            hc = "HC2" if order <= 2 else "HC3"
            stderr, lower, upper, df, degenerate = stratified_intervals(
                fit, design, level, max_elements, 0.5 if hc == "HC2" else 1.0)
            result.stderr, result.lower, result.upper = stderr, lower, upper
            meta["degrees_of_freedom"] = df
            meta["interval"] = (f"stratified delta-method ({hc}) t-interval over the sampled pairs, "
                                "Satterthwaite degrees of freedom")
            if degenerate:
                meta["interval"] += ("; infinite: a sampled pair alone determines a direction, so the "
                                     "spread cannot be estimated (use a larger budget)")
    return result
