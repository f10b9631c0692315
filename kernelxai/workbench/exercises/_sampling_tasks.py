"""Checks of the exercise notebook 08 (a sampled explanation against the exact one: paired sampling
from the Shapley kernel, and KernelSHAP on the paired sample).

Takes nothing; registers its tasks with ``_grading.register`` when imported. The references:
``kx.games.coalition_size_distribution`` for the sizes, and for the estimate the constrained
least-squares fit (equal weights) on the very coalitions the student's function evaluated.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

from ...games import coalition_size_distribution
from ._grading import Fail, answer_array, call_answer, fmt, register
from ._student_games import exact_shapley, random_table

if TYPE_CHECKING:
    from collections.abc import Callable

_NB8 = "08-sampled-explanations"

#: the p-value below which the sizes (or the members) of a sample are taken not to follow the kernel:
#: a right answer fails once in a million checks
_P_FLOOR = 1e-6


def _coalitions(out, shape, context) -> np.ndarray:
    """The student's coalitions as a boolean matrix of ``shape`` (0/1 numbers accepted)."""
    arr = answer_array(out, shape, "a boolean matrix, one coalition per row", context)
    if not np.isin(arr, (0.0, 1.0)).all():
        raise Fail(f"your function returned numbers other than 0/1 (True/False) on {context}: a row "
                   "marks the players in the coalition")
    return arr.astype(bool)


def _generator(rng) -> np.random.Generator:
    return np.random.default_rng(int(rng.integers(2**32)))


def _pair_sizes_test(Z, d) -> float:
    """p-value of a chi-square test of the pairs' smaller sizes against the Shapley kernel's."""
    sizes, probability = coalition_size_distribution(d)
    small = np.minimum(Z[0::2].sum(axis=1), d - Z[0::2].sum(axis=1))
    expected = np.zeros(d // 2 + 1)
    np.add.at(expected, np.minimum(sizes, d - sizes), probability)
    counts = np.bincount(small, minlength=d // 2 + 1)
    keep = expected > 0
    chi2 = float((((counts - len(small) * expected) ** 2)[keep] / (len(small) * expected[keep])).sum())
    return float(stats.chi2.sf(chi2, keep.sum() - 1))


def _members_test(Z, d) -> float:
    """Smallest p-value of the players' frequencies in the sampled pairs' first coalitions of one size.

    Given its size s, a coalition is uniform: each player is in it with probability s / d
    (a binomial test per player, Bonferroni over the players).
    """
    first = Z[0::2]
    sizes = first.sum(axis=1)
    worst = 1.0
    for s in np.unique(sizes):
        rows = first[sizes == s]
        if len(rows) < 50:
            continue
        for count in rows.sum(axis=0):
            worst = min(worst, d * float(stats.binomtest(int(count), len(rows), s / d).pvalue))
    return worst


@register("paired-coalitions", "paired sampling: coalitions from the Shapley kernel, each followed by its complement",
          "paired_coalitions(d, n_pairs, rng) -> bool array (2 n_pairs, d)", _NB8)
def _check_paired_coalitions(fn, rng):
    for d, n_pairs in ((4, 10), (int(rng.integers(5, 10)), int(rng.integers(11, 40)))):
        context = f"paired_coalitions({d}, {n_pairs}, rng)"
        Z = _coalitions(call_answer(fn, (d, n_pairs, _generator(rng)), context), (2 * n_pairs, d), context)
        sizes = Z.sum(axis=1)
        if np.any((sizes == 0) | (sizes == d)):
            raise Fail(f"{context} drew the empty or the full coalition: their worths enter as constraints, "
                       "the sample holds sizes 1..d-1 only")
        if not np.array_equal(Z[1::2], ~Z[0::2]):
            raise Fail(f"{context}: row 2k+1 must be the complement of row 2k (rows 0 and 1 are one pair, "
                       "rows 2 and 3 the next, ...)")
    d, n_pairs = 8, 4000
    context = f"paired_coalitions({d}, {n_pairs}, rng)"
    Z = _coalitions(call_answer(fn, (d, n_pairs, _generator(rng)), context), (2 * n_pairs, d), context)
    if np.array_equal(Z, _coalitions(call_answer(fn, (d, n_pairs, _generator(rng)), context),
                                     (2 * n_pairs, d), context)):
        raise Fail(f"{context} returned the same sample for two different rng: draw from the rng you are given")
    if _pair_sizes_test(Z, d) < _P_FLOOR:
        uniform = np.bincount(np.minimum(Z[0::2].sum(axis=1), d - Z[0::2].sum(axis=1)), minlength=d // 2 + 1)
        hint = (" (they look uniform over 1..d-1)" if uniform[1] < 0.5 * uniform[1:].sum() else "")
        raise Fail(f"the sizes of {context} do not follow the Shapley kernel's size distribution{hint}: draw "
                   "the size with kx.games.coalition_size_distribution's probabilities (exercise 03, task 2)")
    if _members_test(Z, d) < _P_FLOOR:
        raise Fail(f"in {context} some players are in the coalitions of one size more often than others: given "
                   "its size, a coalition is uniform (e.g. rng.choice(d, size=s, replace=False))")
    return f"pairs of complements, sizes from the Shapley kernel and uniform members ({n_pairs} pairs, d = {d})"


def _recording(worth: Callable) -> tuple[Callable, list]:
    """``worth`` and the list of the coalition matrices it was asked for."""
    asked = []

    def recorded(Z):
        asked.append(np.atleast_2d(np.asarray(Z, dtype=bool)))
        return worth(Z)

    return recorded, asked


def _worth_of(table, d) -> Callable:
    """worth(Z) -> v of each row of the boolean matrix Z, from a table indexed by bitmask."""
    powers = 1 << np.arange(d)

    def worth(Z):
        Z = np.asarray(Z, dtype=bool)
        if Z.ndim != 2 or Z.shape[1] != d:
            raise ValueError(f"worth takes a boolean matrix with {d} columns, one coalition per row; "
                             f"got shape {Z.shape}")
        return table[Z.astype(np.int64) @ powers]

    return worth


def _constrained_fit(Z, v, w, v0, v1) -> np.ndarray:
    """min sum_S w_S (v(S) - v0 - 1_S . phi)^2 subject to sum(phi) = v1 - v0 (the last player eliminated)."""
    A = Z.astype(float)
    design = A[:, :-1] - A[:, -1:]
    target = v - v0 - A[:, -1] * (v1 - v0)
    root = np.sqrt(w)
    coef = np.linalg.lstsq(root[:, None] * design, root * target, rcond=None)[0]
    return np.append(coef, (v1 - v0) - coef.sum())


def _estimate(fn, table, d, budget, rng, context) -> tuple[np.ndarray, np.ndarray]:
    """The student's estimate and the coalitions it evaluated (one matrix, in the order asked)."""
    worth, asked = _recording(_worth_of(table, d))
    phi = answer_array(call_answer(fn, (worth, d, budget, _generator(rng)), context), (d,),
                       "one value per player", context)
    evaluated = np.vstack(asked) if asked else np.zeros((0, d), dtype=bool)
    if len(evaluated) > budget:
        raise Fail(f"your function evaluated {len(evaluated)} coalitions on {context}: the budget counts "
                   "every coalition evaluated, the empty and the full one included")
    return phi, evaluated


def _check_the_fit(phi, Z, table, d, context):
    """phi must be the equal-weight constrained fit on the coalitions the student evaluated."""
    sizes = Z.sum(axis=1)
    inner = (sizes > 0) & (sizes < d)
    if inner.sum() == len(Z) or not inner.any():
        raise Fail(f"on {context} evaluate the empty and the full coalition too (they give the constraint) "
                   "and sampled coalitions of sizes 1..d-1")
    Zi = Z[inner]
    v = _worth_of(table, d)(Zi)
    fit = _constrained_fit(Zi, v, np.ones(len(Zi)), table[0], table[-1])
    if np.allclose(phi, fit, atol=1e-7 * max(1.0, np.abs(fit).max())):
        return
    weights = np.array([(d - 1) / (math.comb(d, int(s)) * s * (d - s)) for s in Zi.sum(axis=1)])
    twice = _constrained_fit(Zi, v, weights, table[0], table[-1])
    if np.allclose(phi, twice, atol=1e-7 * max(1.0, np.abs(twice).max())):
        raise Fail(f"on {context} you weighted the sampled coalitions by the Shapley kernel: sampled from the "
                   "kernel, they enter the regression with equal weights (weighting them again counts it twice)")
    raise Fail(f"on {context} your values are not the constrained least-squares fit (equal weights, "
               "sum = v(N) - v(∅)) on the coalitions you evaluated")


@register("paired-kernelshap", "KernelSHAP on paired samples within a budget of game evaluations",
          "paired_kernel_shap(worth, d, budget, rng) -> array (d,)", _NB8)
def _check_paired_kernelshap(fn, rng):
    # an additive game: any correct regression recovers it exactly, at any budget
    d = int(rng.integers(4, 8))
    a = np.round(rng.normal(size=d), 3)
    masks = np.arange(2**d)
    table = 1.5 + ((masks[:, None] >> np.arange(d)) & 1) @ a
    context = f"an additive game of {d} players, budget 20"
    phi, _ = _estimate(fn, table, d, 20, rng, context)
    if not np.isclose(phi.sum(), table[-1] - table[0], atol=1e-8):
        raise Fail(f"efficiency fails on {context}: your values sum to {fmt(phi.sum())} but v(N) - v(∅) = "
                   f"{fmt(table[-1] - table[0])}; the sum is a constraint of the regression")
    if not np.allclose(phi, a, atol=1e-8):
        raise Fail(f"on {context} the values are not the players' own contributions: a regression on "
                   "coalitions fits an additive game exactly -- check the design matrix and the constraint")
    # a random game: the fit on the coalitions evaluated, which must be paired samples of the kernel
    d, budget, runs = 8, 60, 30
    table = random_table(rng, d)
    exact = exact_shapley(table)
    context = f"a random game of {d} players, budget {budget}"
    mine, samples = [], []
    for _ in range(runs):
        phi, Z = _estimate(fn, table, d, budget, rng, context)
        _check_the_fit(phi, Z, table, d, context)
        mine.append(float((phi - exact) @ (phi - exact)) / float(exact @ exact))
        samples.append(Z[(Z.sum(axis=1) > 0) & (Z.sum(axis=1) < d)])
    Z = np.vstack(samples)
    if len(Z) % 2 or not np.array_equal(Z[1::2], ~Z[0::2]):
        raise Fail(f"on {context} the coalitions evaluated are not pairs of complements (your sampler of task 1)")
    if _pair_sizes_test(Z, d) < _P_FLOOR:
        raise Fail(f"on {context} the sizes of the coalitions evaluated do not follow the Shapley kernel")
    return (f"the constrained fit on paired samples of the kernel, exact on an additive game (relative squared "
            f"error {fmt(np.mean(mine))} on a random game at budget {budget})")
