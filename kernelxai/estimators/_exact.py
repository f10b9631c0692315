"""Exact Shapley values by enumerating all 2**d coalitions (``method="exact"``, alias ``"brute"``)."""

from __future__ import annotations

import math

import numpy as np

from ..games import MAX_ENUMERATION_PLAYERS, bitmasks_to_coalitions, shapley_weights
from ._common import block_elements, progress_bar
from ._registry import Cost, Estimator, EstimatorResult, register

__all__ = ["Exact", "AUTO_MAX_PLAYERS"]

#: ``method="auto"`` enumerates coalitions up to this many players.
AUTO_MAX_PLAYERS = 12


@register
class Exact(Estimator):
    """phi_j = sum_S mu(|S|) (v(S+j) - v(S)) over all coalitions, in one pass.

    Written as phi = C^T v with C[S, j] = mu(|S|-1) if j in S else -mu(|S|), so
    each coalition is evaluated once for all players and all instances and the
    coalitions are streamed in blocks.
    """

    name = "exact"
    aliases = ("brute",)
    exact = True
    uses_rng = False
    auto = True
    description = "enumeration of all 2**d coalitions"

    def why_not(self, game) -> str | None:
        reason = super().why_not(game)
        if reason is None and game.n_players > MAX_ENUMERATION_PLAYERS:
            return (f"it enumerates 2**{game.n_players} coalitions, more than the limit of "
                    f"2**{MAX_ENUMERATION_PLAYERS}")
        return reason

    def auto_eligible(self, game) -> bool:
        return game.n_players <= AUTO_MAX_PLAYERS

    def cost(self, game, options) -> Cost:
        d, n = game.n_players, game.n_instances or 1
        m = 2.0**d
        step = max(1, block_elements(options["max_elements"]) // max(n + d, 1))
        memory = 8.0 * min(m, step) * (n + d)
        return Cost.of(game.evaluation_work(2**d), memory, 2**d, f"2**{d} coalitions x {n} instance(s)",
                       flops=2.0 * m * n * d, steps=math.ceil(m / step))

    def advice(self, game, options) -> list[str]:
        return ["a sampled estimator (method='kernel' or 'permutation' with budget=...)",
                "groups of features as players (groups=...), 2**groups coalitions instead of 2**d"]

    def run(self, game, rng, options) -> EstimatorResult:
        d = game.n_players
        n = game.n_instances or 1
        mu = shapley_weights(d)
        phi = np.zeros((d, n))
        step = max(1, block_elements(options["max_elements"]) // max(n + d, 1))
        base = None
        with progress_bar(2**d, "exact Shapley", "coalition", options["progress"]) as bar:
            for start in range(0, 2**d, step):
                masks = np.arange(start, min(2**d, start + step), dtype=np.int64)
                z = bitmasks_to_coalitions(masks, d)
                v = game(z).reshape(len(z), n)
                if start == 0:
                    base = v[0].copy()
                size = z.sum(axis=1)
                coef = np.where(z, mu[np.maximum(size - 1, 0)][:, None],
                                -mu[np.minimum(size, d - 1)][:, None])
                phi += coef.T @ v
                bar.update(len(z))
        return EstimatorResult(phi.T, base, budget=2**d)
