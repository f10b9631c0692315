"""Checks of the exercise notebooks 03 (KernelSHAP as weighted least squares: the Shapley-kernel
weight, the distribution of coalition sizes, the constrained fit) and 04 (Shapley regression and
group Shapley: R² of a sub-model, its Shapley split, groups of players).

Takes nothing; registers its tasks with ``_grading.register`` when imported. The reference
:func:`constrained_wls` is checked against kernelxai's KernelSHAP by the tests.
"""

from __future__ import annotations

import numpy as np

from ...estimators._shapley import shapley_values
from ...explainers._regression import R2Game, explain_r2
from ...games import TabularGame, all_coalitions, coalition_size_distribution, sample_coalitions, shapley_kernel_weights
from ._grading import Fail, answer_array, answer_scalar, call_answer, close_to, fmt, register
from ._student_games import exact_shapley, random_table, set_function

# =========================================================================== #
# 03 KernelSHAP as weighted least squares
# =========================================================================== #
_NB3 = "03-kernelshap-wls"


@register("kernel-weight", "the Shapley-kernel weight k(d, s) of a coalition of size s",
          "kernel_weight(d, s) -> float", _NB3)
def _check_kernel_weight(fn, rng):
    ds = [int(rng.integers(5, 9)), int(rng.integers(9, 16)), 3]
    for d in ds:
        truth = shapley_kernel_weights(d, np.arange(d + 1))
        got = np.empty(d + 1)
        for s in range(d + 1):
            context = f"kernel_weight(d={d}, s={s})"
            got[s] = answer_scalar(call_answer(fn, (d, s), context), "a number", context, finite=False)
        inner = slice(1, d)
        for s in (0, d):
            if np.isfinite(got[s]):
                raise Fail(f"check the weight of the {'empty' if s == 0 else 'full'} coalition (s = {s}): "
                           "it is not a finite number -- the empty and full coalitions are "
                           "constraints of the regression (return math.inf)")
        if np.allclose(got[inner], truth[inner], rtol=1e-9, atol=0):
            continue
        ratio = got[inner] / truth[inner]
        if np.allclose(ratio, ratio[0], rtol=1e-9) and ratio[0] > 0:
            raise Fail(f"for d = {d} your weights are proportional to the Shapley kernel but off by "
                       f"the factor {fmt(ratio[0])}; the lecture's k(M, S) = (M - 1) / (C(M, |S|) |S| (M - |S|))")
        if not np.allclose(got[inner], got[inner][::-1], rtol=1e-9):
            raise Fail(f"for d = {d} your weights are not symmetric: a coalition and its complement "
                       "must get the same weight, k(d, s) = k(d, d - s)")
        raise Fail(f"for d = {d} the weights differ from the Shapley kernel: is the binomial "
                   "coefficient C(d, s) in the denominator?")
    return f"equal to kx.games.shapley_kernel_weights for d = {', '.join(map(str, ds))}"


@register("size-distribution", "the probability of each coalition size when sampling from the Shapley kernel",
          "size_probabilities(d) -> array (d - 1,)", _NB3)
def _check_size_distribution(fn, rng):
    for d in (2, int(rng.integers(3, 8)), int(rng.integers(8, 20))):
        context = f"size_probabilities({d})"
        got = answer_array(call_answer(fn, (d,), context), (d - 1,), "probabilities of sizes 1..d-1", context)
        truth = coalition_size_distribution(d)[1]
        if np.allclose(got, truth, rtol=1e-9, atol=1e-15):
            continue
        if not np.isclose(got.sum(), 1.0, rtol=1e-9):
            raise Fail(f"{context} sums to {fmt(got.sum())}: probabilities must add up to 1")
        per = shapley_kernel_weights(d, np.arange(1, d))
        if np.allclose(got, per / per.sum(), rtol=1e-9):
            raise Fail(f"{context}: you normalised the weight of *one* coalition; a size s holds "
                       "C(d, s) coalitions, each with weight k(d, s)")
        raise Fail(f"{context} is not proportional to the total Shapley-kernel weight of each size")
    return "equal to kx.games.coalition_size_distribution for 3 values of d"


def constrained_wls(Z, v, w) -> np.ndarray:
    """Shapley-kernel WLS with the rows of infinite weight (empty, full) as exact constraints."""
    Z = np.asarray(Z, dtype=bool)
    empty, full = ~Z.any(axis=1), Z.all(axis=1)
    v0, v1 = v[empty][0], v[full][0]
    inner = ~(empty | full)
    zf = Z[inner].astype(float)
    y = v[inner] - v0
    design = zf[:, :-1] - zf[:, -1:]
    target = y - zf[:, -1] * (v1 - v0)
    sw = np.sqrt(w[inner] / w[inner].max())
    coef = np.linalg.lstsq(sw[:, None] * design, sw * target, rcond=None)[0]
    return np.append(coef, (v1 - v0) - coef.sum())


@register("constrained-wls", "KernelSHAP: Shapley values as a weighted least-squares fit with two constraints",
          "kernel_shap(Z, v, w) -> array (d,)", _NB3)
def _check_constrained_wls(fn, rng):
    cases = []
    for d in (3, int(rng.integers(4, 7))):
        table = random_table(rng, d)
        Z = all_coalitions(d)
        order = rng.permutation(len(Z))                      # rows in any order
        cases.append((f"all {2**d} coalitions of a random game with {d} players", Z[order],
                      table[order], shapley_kernel_weights(d, Z[order].sum(axis=1)), exact_shapley(table)))
    d = 8
    table = random_table(rng, d)
    inner = sample_coalitions(d, 60, rng, paired=True)
    Z = np.vstack([np.zeros(d, bool), inner, np.ones(d, bool)])
    masks = Z.astype(np.int64) @ (1 << np.arange(d))
    w = np.where(Z.any(axis=1) & ~Z.all(axis=1), 1.0, np.inf)
    cases.append((f"60 coalitions sampled from the Shapley kernel (weight 1 each) plus ∅ and N, "
                  f"{d} players", Z, table[masks], w, constrained_wls(Z, table[masks], w)))
    for context, Z, v, w, truth in cases:
        d = Z.shape[1]
        got = answer_array(call_answer(fn, (Z.copy(), v.copy(), w.copy()), context), (d,), "one value per player",
                           context)
        scale = np.abs(v).max()
        err = np.abs(got - truth).max()
        if err <= 1e-7 * max(1.0, scale):
            continue
        v0, v1 = v[~Z.any(axis=1)][0], v[Z.all(axis=1)][0]
        if err < 1e-2 * max(1.0, scale):
            raise Fail(f"close (max error {err:.1e}) but not exact ({context}): a large finite weight "
                       "only approximates the constraints -- eliminate one unknown instead")
        if not close_to(got.sum(), v1 - v0, scale, rtol=1e-6):
            raise Fail(f"efficiency fails: your values sum to {fmt(got.sum())} but v(N) - v(∅) = "
                       f"{fmt(v1 - v0)} ({context}); impose it as a constraint")
        raise Fail(f"not the weighted least-squares solution ({context}): fit v(S) - v(∅) on the "
                   "players in S with the weights w, subject to sum(phi) = v(N) - v(∅)")
    return "exact with all coalitions (= kx.shapley_values) and right on a sampled design"


# =========================================================================== #
# 04 Shapley regression and group Shapley
# =========================================================================== #
_NB4 = "04-regression-and-groups"


def _regression_data(rng, n, d):
    A = rng.normal(size=(d, d)) / np.sqrt(d)
    X = rng.normal(size=(n, d)) @ (np.eye(d) + A) + rng.normal(size=d) * 3
    y = X @ rng.normal(size=d) + 0.5 * X[:, 0] ** 2 + rng.normal(size=n) + 5.0
    return X, y


def _r2_table(X, y):
    d = X.shape[1]
    return R2Game(X, y)(all_coalitions(d))


@register("r-squared", "the R² of the least-squares fit on a subset of the covariates",
          "r_squared(X, y, S) -> float", _NB4)
def _check_r_squared(fn, rng):
    for n, d in ((40, 3), (int(rng.integers(30, 90)), 4)):
        X, y = _regression_data(rng, n, d)
        table = _r2_table(X, y)
        for mask in [0, 2**d - 1] + [int(m) for m in rng.choice(np.arange(1, 2**d - 1), 3, replace=False)]:
            S = [j for j in range(d) if (mask >> j) & 1]
            context = f"random data (n={n}, d={d}) and S={S}"
            got = answer_scalar(call_answer(fn, (X.copy(), y.copy(), list(S)), context), "a number", context)
            if abs(got - table[mask]) <= 1e-8:
                continue
            if not S:
                raise Fail(f"with no covariates the fit is the mean of y, so R² = 0; you returned "
                           f"{fmt(got)}")
            Xs = X[:, S]
            beta = np.linalg.lstsq(Xs, y, rcond=None)[0]
            no_intercept = 1 - ((y - Xs @ beta) ** 2).sum() / ((y - y.mean()) ** 2).sum()
            if abs(got - no_intercept) <= 1e-8:
                raise Fail(f"your fit has no intercept ({context}): add a column of ones (or centre "
                           "X and y)")
            raise Fail(f"R² = 1 - RSS/TSS of the least-squares fit of y on the columns S and an "
                       f"intercept; yours differs ({context})")
    return "equal to kernelxai's R² game (kx.explainers._regression.R2Game) on 2 random data sets"


@register("shapley-regression", "R² split over the covariates by the Shapley value",
          "r2_shapley(X, y) -> array (d,)", _NB4)
def _check_shapley_regression(fn, rng):
    for n, d in ((50, 3), (int(rng.integers(40, 100)), int(rng.integers(4, 7)))):
        X, y = _regression_data(rng, n, d)
        context = f"random data (n={n}, d={d})"
        got = answer_array(call_answer(fn, (X.copy(), y.copy()), context), (d,), "one share per covariate", context)
        truth = np.asarray(explain_r2(X, y).values, dtype=float).ravel()
        if np.allclose(got, truth, atol=1e-8, rtol=0):
            continue
        full = truth.sum()
        if abs(got.sum() - full) > 1e-8:
            raise Fail(f"the shares must add up to the R² of the full model, {fmt(full)}; yours add up "
                       f"to {fmt(got.sum())} ({context})")
        raise Fail(f"the shares add up but are not the Shapley values of v(S) = R²_S ({context})")
    return "equal to kx.explain_r2 on 2 random data sets"


@register("group-shapley", "Shapley values with groups of players as the players",
          "group_shapley(v, d, groups) -> array (len(groups),)", _NB4)
def _check_group_shapley(fn, rng):
    for d in (4, int(rng.integers(5, 8))):
        table = random_table(rng, d)
        perm = rng.permutation(d)
        cuts = np.sort(rng.choice(np.arange(1, d), size=2, replace=False))
        groups = [sorted(g.tolist()) for g in np.split(perm, cuts)]
        context = f"a random game with {d} players and groups={groups}"
        got = answer_array(call_answer(fn, (set_function(table, d), d, [list(g) for g in groups]), context),
                           (len(groups),), "one value per group", context)
        truth = np.asarray(shapley_values(TabularGame(table).grouped(groups)).values, dtype=float).ravel()
        scale = np.abs(table).max()
        if close_to(got, truth, scale):
            continue
        total = table[-1] - table[0]
        if not close_to(got.sum(), total, scale):
            raise Fail(f"efficiency fails: your group values sum to {fmt(got.sum())} but v(N) - v(∅) = "
                       f"{fmt(total)} ({context})")
        summed = np.array([exact_shapley(table)[g].sum() for g in groups])
        if close_to(got, summed, scale):
            raise Fail("you summed the feature-level Shapley values within each group; group Shapley "
                       "treats each group as one player (the two agree only for special games)")
        raise Fail(f"not the Shapley values of the game whose players are the groups ({context}): "
                   "a coalition of groups switches on every feature of its groups")
    return "equal to kx.shapley_values on the grouped game (GroupedGame), 2 random partitions"
