"""OddSHAP (``method="oddshap"``, #38) against exact truth, and its boosted-tree proxy.

Games with exact values by enumeration (up to 12 players) or by ``method="product"`` (an RBF SVR's
interventional game). Every seed is fixed, so every assertion is deterministic; the statistical
ones are set several Monte Carlo standard errors from what they guard.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import kernelxai as kx
from kernelxai.estimators import InvalidOptionError
from kernelxai.estimators._oddshap import select_odd_terms
from kernelxai.estimators._tree_proxy import boosted_leaves, odd_spectrum


def _relative_error(values, exact):
    values, exact = np.atleast_2d(values), np.atleast_2d(exact)
    return float(np.sum((values - exact) ** 2) / np.sum(exact ** 2))


def _and_game(d=12):
    """Additive part plus two three-way ANDs: the odd part lies in the span of the singletons and the
    two 3-sets, so OddSHAP with both sets among its columns is exact."""
    a = np.linspace(-1.0, 1.0, d)

    def v(Z):
        Z = np.asarray(Z, dtype=bool)
        return Z @ a + 3.0 * (Z[:, 0] & Z[:, 1] & Z[:, 2]) - 2.0 * (Z[:, 4] & Z[:, 7] & Z[:, 9])

    return kx.FunctionGame(v, d)


@pytest.fixture(scope="module")
def svr_game():
    """The interventional game of an RBF SVR on 10 features, 3 points; exact values by quadrature."""
    from sklearn.svm import SVR

    rng = np.random.default_rng(4)
    X = rng.normal(size=(200, 10))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] * X[:, 3] + np.tanh(X[:, 4:].sum(1))
    model = SVR(C=3.0, gamma=0.1).fit(X, y)
    game = kx.values.Interventional(model, X[:30]).game(X[150:153])
    return game, kx.shapley_values(game, "product").values


# --------------------------------------------------------------------------- the proxy
def test_the_spectrum_of_the_trees_is_their_exact_fourier_transform():
    d = 7
    rng = np.random.default_rng(1)
    Z = np.array(list(itertools.product([False, True], repeat=d)))
    y = np.sin(Z @ rng.normal(size=d)) + 2.0 * (Z[:, 0] & Z[:, 3] & Z[:, 5])
    base, leaves = boosted_leaves(np.concatenate([Z, Z]), np.concatenate([y, y + 0.01]))
    fitted = np.full(len(Z), base)
    for players, signs, value in leaves:
        fitted[np.all(Z[:, players] == (signs < 0), axis=1)] += value
    chi = 1.0 - 2.0 * Z
    sets, coefs = odd_spectrum(leaves, d)
    listed = {tuple(t): c for group, cs in zip(sets, coefs) for t, c in zip(group, cs)}
    for size in (3, 5, 7):
        for T in itertools.combinations(range(d), size):
            walsh = float(np.mean(fitted * chi[:, list(T)].prod(axis=1)))
            assert abs(listed.get(T, 0.0) - walsh) < 1e-12
    # the planted interaction has the largest odd coefficient of three players: 2 (-1/2)^3
    top = sets[0][np.argmax(np.abs(coefs[0]))]
    assert tuple(top) == (0, 3, 5)


def test_the_proxy_selects_the_planted_interactions():
    game = _and_game()
    rng = np.random.default_rng(0)
    first = rng.random((200, 12)) < rng.random((200, 1))
    y_first, y_second = game(first), game(~first)
    chosen = select_odd_terms(first, y_first, y_second, float(game.full_value), 5)
    found = {tuple(t) for group in chosen for t in group}
    assert {(0, 1, 2), (4, 7, 9)} <= found and len(found) == 5
    assert select_odd_terms(first, y_first, y_second, float(game.full_value), 0) == []


# --------------------------------------------------------------------------- exactness and accuracy
@pytest.mark.parametrize("d", [2, 5, 8])
def test_every_pair_sampled_gives_the_exact_values(d):
    game = kx.TabularGame(np.random.default_rng(d).normal(size=(2**d, 3)))
    exact = kx.shapley_values(game).values
    e = kx.shapley_values(game, "oddshap", budget=2**d, seed=0)
    np.testing.assert_allclose(e.values, exact, atol=1e-10)
    assert e.meta["budget"] == 2**d
    assert "exact" in e.meta["sampling"]


def test_odd_part_in_the_span_of_the_chosen_columns_is_recovered_exactly():
    game = _and_game()
    exact = kx.shapley_values(game).values
    e = kx.shapley_values(game, "oddshap", budget=300, seed=3)
    assert e.meta["n_terms"][0] == 30                    # ceil(300 / 10): 12 singletons and 18 odd sets
    np.testing.assert_allclose(e.values, exact, atol=1e-9)
    # the same pairs without the interaction columns (Leverage SHAP's regression) are not exact
    lev = kx.shapley_values(game, "leverage_shap", budget=300, seed=3, intervals=False)
    assert _relative_error(lev.values, exact) > 1e-6
    # below interaction_factor x d evaluations the columns are the singletons: constrained, Leverage SHAP's values
    low = kx.shapley_values(game, "oddshap", budget=100, seed=3, efficiency="constrained")
    np.testing.assert_allclose(low.values, kx.shapley_values(game, "leverage_shap", budget=100, seed=3,
                                                              intervals=False).values, atol=1e-12)
    assert low.meta["n_terms"][0] == 12 and low.meta["proxy"].startswith("none")


def test_the_split_is_regression_adjusted_monte_carlo_with_the_fitted_proxy():
    """efficiency="split" equals phi(f) + the Horvitz-Thompson estimate of phi(v - f) (Witter et al.'s
    estimator), f the weighted odd fit on the same pairs, computed here from the Shapley formula."""
    import math

    from kernelxai.estimators._odd_regression import OddFeatures, odd_terms, pair_weights, shapley_map
    from kernelxai.estimators._oddshap import solve_split
    from kernelxai.estimators._pair_sampling import allocate_pairs, class_populations, draw_pairs, size_class_mass

    d = 11
    table = np.random.default_rng(5).normal(size=2**d)
    game = kx.TabularGame(table)
    population = class_populations(d)
    taken = allocate_pairs(population, size_class_mass(d, "leverage"), 60)
    design = draw_pairs(d, taken, np.random.default_rng(0))
    v = np.asarray(game(np.concatenate([design.first, ~design.first])), dtype=float) - game.empty_value
    y1, y2 = v[:len(design.first)], v[len(design.first):]
    total = float(game.full_value - game.empty_value)
    terms = odd_terms(d, 1) + [np.array([[0, 1, 2], [3, 5, 8]])]
    F, M, w = OddFeatures(design.first, terms), shapley_map(d, terms), pair_weights(d, design)
    split = solve_split(F, (0.5 * (y1 - y2))[:, None], w, np.array([total]), M, 10**6)[0]
    # the proxy: f(S) = sum_T alpha_T chi_T(S) fitted by weighted least squares, no constraint
    X = F[np.arange(len(F))]
    alpha = np.linalg.solve(X.T @ (w[:, None] * X), X.T @ (w * 0.5 * (y1 - y2)))
    delta = (y1 - y2) - 2.0 * X @ alpha                       # r(S) - r(S^c), r = v - f
    h = design.stratum + 1
    binom = np.array([math.comb(d, int(k)) for k in h], dtype=float)
    inclusion = (taken / population)[design.stratum]
    inside = design.first
    correction = ((delta / (h * binom * inclusion))[:, None] * inside
                  - (delta / ((d - h) * binom * inclusion))[:, None] * ~inside).sum(axis=0)
    full_residual = total + 2.0 * alpha.sum()                 # r(D) - r(empty): f(D) - f(empty) = -2 sum alpha
    msr = M @ alpha + correction + full_residual / d
    np.testing.assert_allclose(split, msr, atol=1e-10)
    np.testing.assert_allclose(split.sum(), total, atol=1e-10)


@pytest.mark.parametrize("efficiency", ["split", "constrained"])
def test_both_forms_are_exact_with_every_pair(efficiency):
    game = kx.TabularGame(np.random.default_rng(2).normal(size=(2**7, 2)))
    e = kx.shapley_values(game, "oddshap", budget=2**7, seed=0, efficiency=efficiency)
    np.testing.assert_allclose(e.values, kx.shapley_values(game).values, atol=1e-10)


def test_consistent_on_a_model_game_and_no_worse_than_leverage_shap(svr_game):
    game, exact = svr_game
    errors = {}
    for budget in (200, 600):
        odd = [_relative_error(kx.shapley_values(game, "oddshap", budget=budget, seed=s).values, exact)
               for s in range(6)]
        lev = [_relative_error(kx.shapley_values(game, "leverage_shap", budget=budget, seed=s,
                                                 intervals=False).values, exact) for s in range(6)]
        errors[budget] = (np.mean(odd), np.mean(lev))
    assert errors[600][0] < errors[200][0] / 2          # the error falls with the budget
    assert errors[200][0] < errors[200][1] and errors[600][0] < errors[600][1]


def test_close_to_unbiased_on_a_small_game():
    """Not unbiased (a regression on sampled pairs), but its bias is small against its spread:
    the mean over 60 seeds is much closer to the truth than a single run."""
    game = kx.TabularGame(np.random.default_rng(11).normal(size=2**9))
    exact = kx.shapley_values(game).values.ravel()
    runs = np.array([kx.shapley_values(game, "oddshap", budget=200, seed=s).values.ravel() for s in range(60)])
    single = np.mean([np.sum((r - exact) ** 2) for r in runs])
    bias = np.sum((runs.mean(axis=0) - exact) ** 2)
    assert bias < single / 10
    np.testing.assert_allclose(runs.sum(axis=1), game.full_value - game.empty_value, atol=1e-9)   # efficiency


# --------------------------------------------------------------------------- the contract of the call
def test_determinism_by_seed_and_evaluations_within_the_budget():
    calls = []

    def v(Z):
        calls.append(len(Z))
        return _and_game()(Z)

    game = kx.FunctionGame(v, 12)
    a = kx.shapley_values(game, "oddshap", budget=401, seed=7)
    assert sum(calls) == a.meta["budget"] == 400 <= 401         # an odd budget leaves one evaluation unused
    b = kx.shapley_values(game, "oddshap", budget=401, seed=7)
    c = kx.shapley_values(game, "oddshap", budget=401, seed=8)
    np.testing.assert_array_equal(a.values, b.values)
    assert not np.array_equal(a.values, c.values)
    cost = kx.estimate_cost(game, "oddshap", budget=401)
    assert cost["evaluations"] == 400 and cost["seconds"] > 0


def test_no_intervals_are_stated(svr_game):
    game, _ = svr_game
    e = kx.shapley_values(game, "oddshap", budget=300, seed=0)
    assert e.lower is None and e.upper is None and e.stderr is None
    assert e.meta["interval"].startswith("none")
    with pytest.raises(InvalidOptionError, match="level"):
        kx.shapley_values(game, "oddshap", budget=300, level=0.9)


@pytest.mark.parametrize(("options", "error", "match"), [
    ({"budget": 21}, ValueError, "at least 22 game evaluations"),
    ({"budget": 100.0}, InvalidOptionError, "budget"),
    ({"budget": 200, "interaction_factor": 0}, InvalidOptionError, "interaction_factor"),
    ({"budget": 200, "eta": 5}, InvalidOptionError, "interaction_factor"),
    ({"budget": 200, "efficiency": "equal"}, InvalidOptionError, "'split', 'constrained'"),
])
def test_bad_options_are_refused_with_what_is_accepted(options, error, match):
    game = kx.FunctionGame(lambda z: z.sum(1).astype(float), 10)
    with pytest.raises(error, match=match):
        kx.shapley_values(game, "oddshap", seed=0, **options)


def test_one_player_and_the_alias():
    game = kx.TabularGame(np.array([1.0, 4.0]))
    e = kx.shapley_values(game, "odd_shap", budget=10, seed=0)
    np.testing.assert_allclose(e.values.ravel(), [3.0])
    assert e.meta["method"] == "oddshap"
