"""Permutation sampling with t-intervals (``method="permutation"``).

Štrumbelj & Kononenko; thesis Alg. 1. Each ordering gives one unbiased
estimate of every phi_j (the marginal contribution of j when it joins the
players before it). With ``antithetic=True`` each ordering is followed by its
reverse and the pair's average counts as one sample. Standard errors are
sd/sqrt(K) (ddof 1) over the K independent samples; the interval uses the t
quantile with K-1 dof. With fewer than 10 samples no interval is stated (infinite bounds): the
t-interval over 5 orderings under-covered (see :data:`MIN_INTERVAL_SAMPLES`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._common import as_instances, block_elements, evaluate_blocks, progress_bar, t_interval
from ._registry import Cost, Estimator, EstimatorResult, InvalidOptionError, Option, register

__all__ = ["Permutation"]

#: Orderings drawn when no budget is given.
DEFAULT_PERMUTATIONS = 100
#: Fewest independent samples (orderings, or antithetic pairs) for which an interval is stated (infinite
#: below): with 5 orderings the t-interval covered 0.927 at a stated 0.95 on a GP mean at d = 10 and
#: 0.941 at d = 50; with 10 or more 0.936-0.957 (benchmarks/bench_estimators.py --coverage, 2,000
#: (point, feature) pairs per case).
MIN_INTERVAL_SAMPLES = 10


@register
class Permutation(Estimator):
    """Mean of marginal contributions over random orderings, with t-intervals.

    ``budget`` counts game evaluations: each ordering costs d - 1 of them
    (plus v(empty) and v(all) once), so ``budget=B`` draws
    (B - 2) // (d - 1) orderings (at least 2). The old option
    ``n_permutations`` gives the number of orderings directly.
    """

    name = "permutation"
    exact = False
    description = "permutation sampling with t-intervals"
    options = {
        "budget": Option(None, "int", 3, doc="game evaluations; each ordering costs d - 1"),
        "antithetic": Option(False, "bool", doc="follow each ordering by its reverse"),
        "level": Option(0.95, "level", doc="interval level"),
    }
    option_aliases = {"n_permutations": "budget"}

    def _from_alias(self, old, value):
        return ("orderings", self._alias_int(old, value, 2))

    def resolve_options(self, options) -> dict[str, Any]:
        given = dict(options)
        orderings = None
        if "n_permutations" in given and "budget" not in given:
            orderings = self._from_alias("n_permutations", given.pop("n_permutations"))[1]
        out = super().resolve_options(given)
        out["orderings"] = orderings
        return out

    def min_budget(self, n_players) -> int:
        return 2 * max(n_players - 1, 1) + 2

    def n_orderings(self, game, options) -> int:
        d = game.n_players
        if options.get("orderings") is not None:
            return options["orderings"]
        if options["budget"] is None or d == 1:
            return DEFAULT_PERMUTATIONS
        m = max(2, (options["budget"] - 2) // (d - 1))
        if options["antithetic"] and m % 2:
            m -= 1 if m > 2 else -1
        return m

    def cost(self, game, options) -> Cost:
        d, n = game.n_players, game.n_instances or 1
        m = self.n_orderings(game, options)
        ev = m * (d - 1) + 2
        return Cost.of(game.evaluation_work(ev), 8.0 * m * n * d, ev,
                       f"{m} orderings x {d - 1} coalitions x {n} instance(s)", flops=4.0 * m * n * d)

    def advice(self, game, options) -> list[str]:
        return ["a smaller budget=...", "groups of features as players (groups=...)"]

    def run(self, game, rng, options) -> EstimatorResult:
        d = game.n_players
        n = game.n_instances or 1
        level = options["level"]
        max_elements = block_elements(options["max_elements"])
        m = self.n_orderings(game, options)
        antithetic = options["antithetic"]
        if antithetic and m % 2:
            raise InvalidOptionError(
                f"antithetic sampling pairs each ordering with its reverse, so the number of "
                f"orderings must be even; got {m}")
        n_base = m // 2 if antithetic else m
        orders = np.argsort(rng.random((n_base, d)), axis=1)
        if antithetic:
            orders = np.stack([orders, orders[:, ::-1]], axis=1).reshape(m, d)
        position = np.empty_like(orders)
        np.put_along_axis(position, orders, np.arange(d)[None, :].repeat(m, axis=0), axis=1)
        v_empty = as_instances(game.empty_value, game)
        v_full = as_instances(game.full_value, game)
        samples = np.empty((m, n, d))
        per_order = max(1, max_elements // max((d + 1) * (n + d), 1))
        with progress_bar(m, "permutation sampling", "ordering", options["progress"]) as bar:
            for start in range(0, m, per_order):
                pos = position[start:start + per_order]
                k = np.arange(1, d)
                prefix = pos[:, None, :] < k[None, :, None]  # (b, d-1, d): players before position k
                worths = np.empty((len(pos), d + 1, n))
                worths[:, 0] = v_empty
                worths[:, d] = v_full
                if d > 1:
                    inner = evaluate_blocks(game, prefix.reshape(-1, d), max_elements, False)
                    worths[:, 1:d] = inner.reshape(len(pos), d - 1, n)
                gains = np.diff(worths, axis=1)  # (b, d, n): gain of the player at each position
                samples[start:start + len(pos)] = np.take_along_axis(
                    gains, pos[:, :, None], axis=1).transpose(0, 2, 1)
                bar.update(len(pos))
        if antithetic:
            samples = 0.5 * (samples[0::2] + samples[1::2])
        mean, stderr, lower, upper = t_interval(samples, level)
        interval = "t-interval over permutation samples"
        if len(samples) < MIN_INTERVAL_SAMPLES:   # a t-interval over a few skewed samples under-covers
            stderr, lower, upper = (np.full_like(mean, np.inf), np.full_like(mean, -np.inf),
                                    np.full_like(mean, np.inf))
            interval = (f"infinite: {len(samples)} independent samples are too few for a t-interval "
                        f"(at least {MIN_INTERVAL_SAMPLES}; a larger budget)")
        return EstimatorResult(
            mean, v_empty, stderr, lower, upper, budget=m * (d - 1) + 2,
            meta={"n_permutations": m, "antithetic": bool(antithetic), "level": level, "interval": interval})
