"""Leverage SHAP (``method="leverage_shap"``): KernelSHAP's regression sampled by leverage scores.

Musco & Witter, "Provably Accurate Shapley Value Estimation via Leverage Score Sampling", ICLR 2025.
After the efficiency constraint is projected out, the KernelSHAP regression over all coalitions
has leverage scores proportional to 1 / C(d, |S|): every coalition size carries the same total
leverage. Sampling rows in proportion to their leverage (and reweighting each by the Shapley
kernel over its inclusion probability) solves the regression to within (1 + eps) of its optimum
with O(d log d + d / eps) evaluations, which KernelSHAP's kernel-proportional sampling does not
guarantee. As in the paper, coalitions come in complementary pairs drawn without replacement,
and sizes whose every pair fits in the budget are taken whole.
"""

from __future__ import annotations

from ._odd_regression import min_pair_budget, paired_cost, run_paired
from ._registry import Cost, Estimator, EstimatorResult, Option, register

__all__ = ["LeverageSHAP"]


@register
class LeverageSHAP(Estimator):
    """Leverage SHAP: complementary pairs by leverage score, without replacement, constrained regression.

    Design: the pairs {S, S^c} are grouped in classes by the size h of their smaller member; the
    budget is spread evenly over coalition sizes (the leverage scores), a class whose pairs all fit
    is taken whole, every class gets at least two pairs where the budget allows, and the pairs of
    a class are a simple random sample without replacement (see
    :mod:`kernelxai.estimators._pair_sampling`; the paper draws each pair independently with
    probability min(1, c l_S), which fixes the budget only in expectation -- fixing the count per
    class keeps the same inclusion probabilities and spends the budget exactly). Each pair is
    weighted by the Shapley kernel over its inclusion probability; the regression is solved with
    efficiency exact (:mod:`kernelxai.estimators._odd_regression`).

    ``budget`` counts game evaluations: v(empty), v(all) and both members of every pair, so
    ``(budget - 2) // 2`` pairs (an odd budget leaves one evaluation unused); at least 2d + 2,
    or all 2**d coalitions (then the values are exact). Default 2d + 2050.

    Intervals (``intervals=True``, at ``level``): stratified delta-method standard errors of the
    weighted regression (the CLT of the stratified Horvitz-Thompson totals it is a smooth function
    of) with HC2 residuals and Satterthwaite t quantiles; infinite (and said so in
    ``meta["interval"]``) with fewer than two pairs per unknown, below 4d - 2 evaluations, where
    the spread cannot be estimated (at 2d + 2 such intervals covered 0.77 at a stated 0.95). The
    paper gives no intervals; this variance is kernelxai's.
    """

    name = "leverage_shap"
    aliases = ("leverage",)
    exact = False
    description = "Leverage SHAP: complementary pairs by leverage score without replacement, constrained WLS"
    options = {
        "budget": Option(None, "int", 3, doc="game evaluations: v(empty), v(all) and both members of each pair"),
        "intervals": Option(True, "bool", doc="stratified delta-method t-intervals"),
        "level": Option(0.95, "level", doc="interval level"),
    }

    def min_budget(self, n_players) -> int:
        return min_pair_budget(n_players, 1) if n_players > 1 else 2

    def cost(self, game, options) -> Cost:
        return paired_cost(game, options, 1, self.name)

    def advice(self, game, options) -> list[str]:
        return ["a smaller budget=...", "groups of features as players (groups=...)"]

    def run(self, game, rng, options) -> EstimatorResult:
        return run_paired(game, rng, options, target="leverage", order=1, method=self.name,
                          sampling="complementary pairs by leverage score (uniform over sizes), "
                                   "without replacement, stratified by size")
