"""The estimator and value-function contract, generated from the registries.

A new estimator registered in kernelxai.estimators, or a new value function
registered in kernelxai.values, is tested here without writing anything:
shapes, efficiency, symmetry, null player and linearity on random games
(hypothesis), seed determinism, unknown options, inapplicable games, the
cost ceiling, d = 1, and group names.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kernelxai as kx
from kernelxai.estimators import CostLimitError, InvalidOptionError, NotApplicableError, estimators
from kernelxai.games import ProductGame

ESTIMATORS = sorted(estimators())


# --------------------------------------------------------------------------- games
def product_game(rng, d, n=2, terms=3):
    """A random product game (kernel-like factors in (0, 1])."""
    a = rng.uniform(0.05, 1.0, size=(n, terms, d))
    c = rng.uniform(0.05, 1.0, size=(n, terms, d))
    w = rng.normal(size=(n, terms))
    return ProductGame(a, c, w)


def game_for(name, rng, d, n=2):
    """A game the estimator applies to: a product game for product routes, else a table."""
    est = estimators()[name]
    if issubclass(est.requires, ProductGame):
        return product_game(rng, d, n)
    return kx.TabularGame(rng.normal(size=(2**d, n)))


def exact_values(game):
    return kx.shapley_values(game, "exact").values


def options_for(name, d):
    """Options that make sampled estimators accurate enough to check axioms loosely."""
    est = estimators()[name]
    if est.exact:
        return {}
    return {"budget": 4000 if name != "permutation" else 4000 * max(d - 1, 1)}


# --------------------------------------------------------------------------- shapes and axioms
@pytest.mark.parametrize("name", ESTIMATORS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(d=st.integers(1, 5), seed=st.integers(0, 2**16))
def test_shapes_and_efficiency(name, d, seed):
    rng = np.random.default_rng(seed)
    game = game_for(name, rng, d)
    e = kx.shapley_values(game, name, seed=0, **options_for(name, d))
    assert e.values.shape == (2, d)
    assert e.meta["method"] == estimators()[name].name
    assert e.meta["exact"] is estimators()[name].exact
    full, empty = game.full_value, game.empty_value
    np.testing.assert_allclose(e.base_values, empty, atol=1e-10)
    # every estimator here is efficient by construction (exact or constrained)
    np.testing.assert_allclose(e.values.sum(1), full - empty, atol=1e-8)
    if estimators()[name].exact:
        np.testing.assert_allclose(e.values, exact_values(game), atol=1e-9)


@pytest.mark.parametrize("name", ESTIMATORS)
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(d=st.integers(3, 5), seed=st.integers(0, 2**16))
def test_null_player_symmetry_and_linearity(name, d, seed):
    rng = np.random.default_rng(seed)
    est = estimators()[name]
    opts = options_for(name, d)
    if issubclass(est.requires, ProductGame):
        # null player: a = c for player 0; symmetry: players 0 and 1 share factors
        a = rng.uniform(0.05, 1.0, size=(1, 3, d))
        c = rng.uniform(0.05, 1.0, size=(1, 3, d))
        c[..., 0] = a[..., 0]
        w = rng.normal(size=(1, 3))
        g = ProductGame(a, c, w)
        phi = kx.shapley_values(g, name, **opts).values[0]
        assert abs(phi[0]) < 1e-10
        a2, c2 = a.copy(), c.copy()
        a2[..., 1], c2[..., 1] = a2[..., 2], c2[..., 2]
        phi2 = kx.shapley_values(ProductGame(a2, c2, w), name, **opts).values[0]
        assert abs(phi2[1] - phi2[2]) < 1e-9
        # linearity: weights add
        w2 = rng.normal(size=(1, 3))
        sum_game = ProductGame(np.concatenate([a, a], 1), np.concatenate([c, c], 1),
                               np.concatenate([w, w2], 1))
        parts = phi + kx.shapley_values(ProductGame(a, c, w2), name, **opts).values[0]
        np.testing.assert_allclose(kx.shapley_values(sum_game, name, **opts).values[0], parts,
                                   atol=1e-9)
        return
    # tabular games: an additive game is explained exactly by every estimator here
    coef = rng.normal(size=d)
    coef[0] = 0.0                 # null player
    coef[1] = coef[min(2, d - 1)]  # symmetric pair (when d > 2)
    z = kx.games.all_coalitions(d).astype(float)
    table = z @ coef
    g = kx.TabularGame(table)
    e = kx.shapley_values(g, name, seed=1, **opts)
    if e.has_intervals and name == "bayes_shap":  # the prior shrinks a little: within the intervals
        assert np.all(e.lower - 1e-9 <= coef) and np.all(coef <= e.upper + 1e-9)
    else:
        np.testing.assert_allclose(e.values, coef, atol=1e-8)
    # linearity on arbitrary games for exact estimators; for sampled ones with common randomness
    t1, t2 = rng.normal(size=2**d), rng.normal(size=2**d)
    p1 = kx.shapley_values(kx.TabularGame(t1), name, seed=3, **opts).values
    p2 = kx.shapley_values(kx.TabularGame(t2), name, seed=3, **opts).values
    p12 = kx.shapley_values(kx.TabularGame(t1 + 2 * t2), name, seed=3, **opts).values
    np.testing.assert_allclose(p12, p1 + 2 * p2, atol=1e-8)


# --------------------------------------------------------------------------- seeds, options, games
@pytest.mark.parametrize("name", ESTIMATORS)
def test_seed_determinism(name):
    game = game_for(name, np.random.default_rng(0), 4)
    opts = {} if estimators()[name].exact else {"budget": 40}
    a = kx.shapley_values(game, name, seed=7, **opts).values
    b = kx.shapley_values(game, name, seed=7, **opts).values
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_unknown_options_list_what_is_accepted(name):
    game = game_for(name, np.random.default_rng(0), 3)
    with pytest.raises(InvalidOptionError) as err:
        kx.shapley_values(game, name, n_permutation=50, etta=1e-3)
    message = str(err.value)
    assert "n_permutation" in message and "It accepts:" in message and name in message
    for option in estimators()[name].accepted_options():
        assert option in message
    # no private function names leak into the message
    assert "_permutation()" not in message and "got an unexpected keyword" not in message


@pytest.mark.parametrize("name", ESTIMATORS)
def test_inapplicable_games_say_why_and_what_applies(name):
    est = estimators()[name]
    if not issubclass(est.requires, ProductGame):
        pytest.skip("applies to every game")
    with pytest.raises(NotApplicableError, match="Methods that apply: .*'exact'"):
        kx.shapley_values(kx.TabularGame(np.arange(8.0)), name)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_cost_ceiling_refuses_before_starting(name):
    calls = []

    def fn(z):
        calls.append(len(z))
        return z.sum(1).astype(float)

    est = estimators()[name]
    if issubclass(est.requires, ProductGame):
        game = product_game(np.random.default_rng(0), 20, n=1, terms=5000)
    else:
        game = kx.FunctionGame(fn, 20)
    with kx.config_context(max_cost=1e-9):
        with pytest.raises(CostLimitError, match="max_cost.*config_context\\(max_cost=None\\)"):
            kx.shapley_values(game, name)
    assert calls == []  # nothing was evaluated


@pytest.mark.parametrize("name", ESTIMATORS)
def test_one_player(name):
    est = estimators()[name]
    if issubclass(est.requires, ProductGame):
        g = ProductGame(np.array([[[0.7]]]), np.array([[[0.2]]]), np.array([[2.0]]))
        target = 2.0 * (0.7 - 0.2)
    else:
        g = kx.TabularGame([1.0, 3.5])
        target = 2.5
    e = kx.shapley_values(g, name, seed=0)
    np.testing.assert_allclose(np.ravel(e.values), [target], atol=1e-12)


def test_every_estimator_declares_its_contract():
    for name, est in estimators().items():
        assert est.name == name and est.description
        assert isinstance(est.exact, bool) and isinstance(est.uses_rng, bool)
        if not est.uses_rng:   # it says it draws nothing: it runs without a generator
            game = game_for(name, np.random.default_rng(0), 4)
            options = est.resolve_options({})
            np.testing.assert_array_equal(est.run(game, None, options).values,
                                          est.run(game, np.random.default_rng(0), options).values)
        assert inspect.isclass(est.requires)
        if not est.exact:
            assert "budget" in est.accepted_options()
            assert est.min_budget(5) >= 2
        cost = est.cost(game_for(name, np.random.default_rng(0), 4), est.resolve_options({}))
        assert cost.flops >= 0 and cost.seconds >= 0


def test_auto_asks_for_costs():
    g = product_game(np.random.default_rng(1), 14, n=1, terms=4)
    e = kx.shapley_values(g, "auto")
    assert e.meta["method"] == "product" and "cheapest exact route" in e.meta["auto"]
    small = kx.TabularGame(np.arange(8.0))
    assert kx.shapley_values(small, "auto").meta["method"] == "exact"
    big = kx.FunctionGame(lambda z: z.sum(1).astype(float), 16)
    # no exact route: the sampled estimator the arena measured most accurate (estimators._choose.SAMPLED_RULES)
    assert kx.shapley_values(big, "auto", seed=0).meta["method"] == "leverage_shap"


# --------------------------------------------------------------------------- value functions
def _kernel_model(d=3, n=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return kx.models.KernelExpansion(X, rng.normal(size=n), kx.kernels.RBF(1.2), 0.3), X


@pytest.mark.parametrize("value", kx.values.registered())
def test_value_functions_d1_groups_by_name_and_efficiency(value):
    model, X = _kernel_model(d=3)
    e = kx.explain(model, X[:4], value=value)
    assert e.values.shape == (4, 3)
    g = kx.explain(model, X[:4], value=value, groups=[["x0", "x1"], ["x2"]])
    assert g.values.shape == (4, 2) and g.feature_names == ["x0+x1", "x2"]
    np.testing.assert_allclose(g.values.sum(1), e.values.sum(1), atol=1e-8)
    with pytest.raises(ValueError, match="unknown feature 'nope'"):
        kx.explain(model, X[:4], value=value, groups=[["nope"], ["x0", "x1", "x2"]])
    model1, X1 = _kernel_model(d=1)
    e1 = kx.explain(model1, X1[:3], value=value)
    np.testing.assert_allclose(e1.values[:, 0] + e1.base_values, model1.predict(X1[:3]), atol=1e-8)
