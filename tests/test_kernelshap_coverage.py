"""KernelSHAP's intervals cover the exact Shapley value at their stated level.

Random tabular games of 4-8 players with standard-normal worths (every
coalition's worth independent, so the games are as far from additive as they
get); exact values by enumeration; three sampled budgets per game between a
few draws more than the minimum and just under enumeration. Seeds are fixed,
so the test is deterministic; the number of game-player pairs is chosen so
that the asserted floor (0.93 at a stated 0.95) is more than 3 binomial
standard errors below the level.
"""

import numpy as np
import pytest

import kernelxai as kx

LEVEL = 0.95
FLOOR = 0.93
N_GAMES = 120


def _random_games(n_games, seed):
    """(game, exact values, budgets) for random tabular games of 4-8 players."""
    rng = np.random.default_rng(seed)
    for _ in range(n_games):
        d = int(rng.integers(4, 9))
        game = kx.TabularGame(rng.normal(size=2**d))
        budgets = np.unique(np.round(np.geomspace(2 * d + 4, 2**d - 1, 3)).astype(int))
        yield game, kx.shapley_values(game).values, budgets


def _coverage(n_games, seed, **options):
    hits, widths, failed = [], [], 0
    for g, (game, exact, budgets) in enumerate(_random_games(n_games, seed)):
        for k, budget in enumerate(budgets):
            try:
                e = kx.shapley_values(game, "kernel", budget=int(budget), level=LEVEL, seed=1000 * g + k, **options)
            except ValueError:  # the draws do not identify every value: no estimate at all
                failed += 1
                continue
            hits.extend((e.lower <= exact) & (exact <= e.upper))
            widths.extend(e.upper - e.lower)
    return np.mean(hits), len(hits), np.median(widths), failed


@pytest.mark.parametrize("paired", [True, False])
def test_kernelshap_intervals_cover_at_their_level_on_random_games(paired):
    coverage, n_pairs, width, failed = _coverage(N_GAMES, 25, interval="sandwich", paired=paired)
    assert LEVEL - FLOOR >= 3 * np.sqrt(LEVEL * (1 - LEVEL) / n_pairs), n_pairs
    assert failed <= 0.1 * N_GAMES * 3          # tiny budgets of 4-5 players: draws that identify nothing
    assert coverage >= FLOOR, (coverage, n_pairs)
    assert np.isfinite(width)                      # intervals are informative, not infinite, typically


def test_all_coalitions_give_zero_width():
    game = kx.TabularGame(np.random.default_rng(3).normal(size=2**5))
    exact = kx.shapley_values(game).values
    for options in ({"interval": "sandwich"}, {"bootstrap": 50}, {"interval": "percentile"}):
        e = kx.shapley_values(game, "kernel", **options)
        np.testing.assert_allclose(e.values, exact, atol=1e-12)
        assert np.all(e.stderr == 0) and np.all(e.lower == e.values) and np.all(e.upper == e.values)
        assert "exact" in e.meta["interval"]


def test_values_do_not_depend_on_the_interval():
    # recorded from the estimator before its intervals changed (same seed, same budget)
    game = kx.TabularGame(np.random.default_rng(7).normal(size=2**6))
    before = [0.5022821177148066, -0.49457304027990434, 0.17769978732285496,
              -0.9447525415486218, -0.9961388876516875, 0.5670578832349296]
    for options in ({}, {"interval": "sandwich"}, {"bootstrap": 100}, {"interval": "percentile"}):
        e = kx.shapley_values(game, "kernel", budget=40, seed=3, **options)
        np.testing.assert_allclose(e.values, before, rtol=0, atol=1e-13)


def test_interval_kinds_and_their_labels():
    game = kx.TabularGame(np.random.default_rng(8).normal(size=(2**7, 3)))
    plain = kx.shapley_values(game, "kernel", budget=60, seed=1)
    assert not plain.has_intervals
    sand = kx.shapley_values(game, "kernel", budget=60, seed=1, interval="sandwich")
    assert "sandwich" in sand.meta["interval"] and sand.meta["degrees_of_freedom"].shape == (7,)
    assert np.all(sand.lower < sand.values) and np.all(sand.values < sand.upper)
    boot = kx.shapley_values(game, "kernel", budget=60, seed=1, bootstrap=100)   # asks for the default kind
    np.testing.assert_array_equal(boot.lower, sand.lower)
    pct = kx.shapley_values(game, "kernel", budget=60, seed=1, interval="percentile", bootstrap=100)
    assert "percentile" in pct.meta["interval"] and pct.meta["bootstrap"] == 100
    # the minimum budget leaves no draw to spare: the spread cannot be estimated
    tight = kx.shapley_values(game, "kernel", budget=16, seed=3, interval="sandwich")
    assert np.all(np.isinf(tight.stderr)) and "infinite" in tight.meta["interval"]
    with pytest.raises(ValueError, match="interval"):
        kx.shapley_values(game, "kernel", budget=60, interval="normal")
