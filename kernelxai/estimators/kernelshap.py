"""KernelSHAP as constrained weighted least squares (``method="kernel"``).

Lecture slides; RKHS-SHAP Prop. 4. Minimises
sum_S w(S) (v(S) - v(empty) - sum_{j in S} phi_j)^2 subject to
sum_j phi_j = v(all) - v(empty), by eliminating the last player. With all
coalitions the weights are the Shapley-kernel weights and the solution is the
exact Shapley value. Sampled coalitions are drawn *from* the Shapley kernel
(paired with their complements) and then weighted equally -- not weighted by
the kernel a second time.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_level, check_positive_int
from ..games import (
    MAX_ENUMERATION_PLAYERS,
    all_coalitions,
    sample_coalitions,
    shapley_kernel_weights,
)
from .common import as_instances, block_elements, evaluate_blocks
from .registry import Cost, Estimator, EstimatorResult, Option, register

__all__ = ["KernelSHAP", "KERNEL_ENUMERATION_PLAYERS"]

#: Up to this many players "kernel" uses all coalitions unless a budget is given.
KERNEL_ENUMERATION_PLAYERS = 14


@register
class KernelSHAP(Estimator):
    """KernelSHAP with exact constraints; optional bootstrap intervals.

    ``budget`` counts game evaluations: the sampled coalitions plus v(empty)
    and v(all). Default: all coalitions up to 14 players, else 2d + 2050.
    ``bootstrap=B`` adds intervals for sampled coalitions: the B-fold
    nonparametric bootstrap over the sampled coalitions (a complementary pair
    is one resampling unit), re-solving the constrained regression for each
    resample; ``stderr`` is the bootstrap standard deviation and
    ``lower``/``upper`` the percentile interval at ``level``. A regression
    estimate is not a mean of i.i.d. unbiased terms, so no t-interval is
    offered for it. With all coalitions enumerated the values are exact and
    the intervals have zero width.
    """

    name = "kernel"
    exact = False
    description = "KernelSHAP: weighted least squares over coalitions"
    options = {
        "budget": Option(None, "int", 3, doc="game evaluations (coalitions), v(empty) and v(all) included"),
        "paired": Option(True, "bool", doc="add each sampled coalition's complement"),
        "bootstrap": Option(None, "int", 2, doc="bootstrap resamples for intervals"),
        "level": Option(0.95, "level", doc="interval level"),
    }
    option_aliases = {"n_coalitions": "budget"}

    def _from_alias(self, old, value):
        return self._alias_int(old, value, 1) + 2

    def min_budget(self, n_players):
        return 2 * n_players + 2

    def _plan(self, game, options):
        d = game.n_players
        n_inner = 2**d - 2 if d <= MAX_ENUMERATION_PLAYERS else None
        budget = options["budget"]
        if budget is None:
            if d <= KERNEL_ENUMERATION_PLAYERS:
                return True, n_inner
            return False, 2 * d + 2048
        n_coalitions = budget - 2
        if n_inner is not None and n_coalitions >= n_inner:
            return True, n_inner
        if options["paired"] and n_coalitions % 2:
            n_coalitions += 1
        return False, n_coalitions

    def cost(self, game, options):
        d, n = game.n_players, game.n_instances or 1
        if d == 1:
            return Cost(game.evaluation_flops(2), 0.0, 2)
        _, m = self._plan(game, options)
        boot = options["bootstrap"] or 0
        flops = game.evaluation_flops(m + 2) + 2.0 * m * d * (d + n) + boot * (m * d * d + n * d * d)
        return Cost(flops, 8.0 * m * (n + d), m + 2, f"{m} coalitions x {n} instance(s)")

    def advice(self, game, options):
        return ["a smaller budget=...", "groups of features as players (groups=...)"]

    def run(self, game, rng, options):
        d = game.n_players
        n = game.n_instances or 1
        max_elements = block_elements(options["max_elements"])
        v_empty = as_instances(game.empty_value, game)
        v_full = as_instances(game.full_value, game)
        total = v_full - v_empty
        if d == 1:
            return EstimatorResult(total[:, None], v_empty, budget=2,
                                   meta={"sampling": "one player: phi = v(all) - v(empty)"})
        enumerate_all, n_coalitions = self._plan(game, options)
        paired = options["paired"]
        if enumerate_all:
            z = all_coalitions(d)[1:-1]
            weights = shapley_kernel_weights(d, z.sum(axis=1))
            sampling = "all coalitions"
        else:
            z = sample_coalitions(d, n_coalitions, rng, paired=paired)
            weights = np.ones(len(z))
            sampling = ("paired samples from the Shapley kernel" if paired
                        else "samples from the Shapley kernel")
        y = evaluate_blocks(game, z, max_elements, options["progress"], "KernelSHAP coalitions") - v_empty
        zf = z.astype(float)
        design = zf[:, :-1] - zf[:, -1:]
        target = y - zf[:, -1:] * total
        sw = np.sqrt(weights / weights.max())[:, None]
        coef, _, rank, _ = np.linalg.lstsq(sw * design, sw * target, rcond=None)
        if rank < d - 1:
            raise ValueError(
                f"budget={len(z) + 2} is too small to identify {d} Shapley values: the sampled "
                f"coalitions span only {rank + 1} of {d} directions. Use a larger budget "
                f"(at least {self.min_budget(d)} is a sensible minimum)")
        phi = np.empty((n, d))
        phi[:, :-1] = coef.T
        phi[:, -1] = total - coef.sum(axis=0)
        result = EstimatorResult(phi, v_empty, budget=len(z) + 2,
                                 meta={"n_coalitions": len(z), "sampling": sampling})
        if options["bootstrap"] is not None:
            level = check_level(options["level"])
            n_boot = check_positive_int(options["bootstrap"], "bootstrap", minimum=2)
            result.meta["level"] = level
            if enumerate_all:
                result.stderr, result.lower, result.upper = np.zeros_like(phi), phi.copy(), phi.copy()
                result.meta["interval"] = "none needed: all coalitions enumerated, values exact"
            else:
                unit = 2 if paired else 1
                reps = _bootstrap(design, target, total, unit, n_boot, rng, max_elements)
                alpha = 1.0 - level
                result.stderr = reps.std(axis=0, ddof=1)
                result.lower = np.quantile(reps, alpha / 2, axis=0)
                result.upper = np.quantile(reps, 1 - alpha / 2, axis=0)
                result.meta.update(
                    bootstrap=n_boot,
                    interval=(f"percentile bootstrap over the sampled coalitions ({n_boot} resamples"
                              f"{' of complementary pairs' if paired else ''})"))
        return result


def _bootstrap(design, target, total, unit, n_boot, rng, max_elements):
    """Bootstrap replicates (B, n, d) of the constrained KernelSHAP regression.

    Rows are resampled in units of ``unit`` consecutive rows (complementary
    pairs); each replicate's normal equations are assembled from per-unit
    Gram blocks with one matrix product and solved in a batch.
    """
    m, p = design.shape
    n = target.shape[1]
    n_units = m // unit
    counts = rng.multinomial(n_units, np.full(n_units, 1.0 / n_units), size=n_boot).astype(float)
    Du = design.reshape(n_units, unit, p)
    gram = np.einsum("uki,ukj->uij", Du, Du).reshape(n_units, p * p)
    G = (counts @ gram).reshape(n_boot, p, p)
    reps = np.empty((n_boot, n, p + 1))
    cols = max(1, max_elements // max(n_units * p, 1))
    for start in range(0, n, cols):
        sl = slice(start, min(n, start + cols))
        Tu = target[:, sl].reshape(n_units, unit, -1)
        rhs = np.einsum("uki,ukc->uic", Du, Tu).reshape(n_units, -1)
        R = (counts @ rhs).reshape(n_boot, p, -1)
        try:
            coef = np.linalg.solve(G, R)
        except np.linalg.LinAlgError:  # a resample that misses a direction: least squares
            coef = np.stack([np.linalg.lstsq(G[b], R[b], rcond=None)[0] for b in range(n_boot)])
        reps[:, sl, :-1] = coef.transpose(0, 2, 1)
        reps[:, sl, -1] = total[sl] - coef.sum(axis=1)
    return reps
