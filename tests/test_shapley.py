"""Estimators: axioms (hypothesis), agreement, convergence, coverage, bad input."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from oracles import textbook_shapley

import kernelxai as kx
from kernelxai.games import all_coalitions

TAXI = {(): 0, (0,): 6, (1,): 12, (2,): 42, (0, 1): 12, (0, 2): 42, (1, 2): 42, (0, 1, 2): 42}


def airport():
    runway = np.cumsum([8.0, 3.0, 2.0, 5.0])
    return kx.FunctionGame(lambda z: np.where(z.any(1), (z * runway).max(1), 0.0), 4, list("ABCD"))


# ------------------------------------------------------------------ oracles
@pytest.mark.parametrize("method", ["exact", "kernel"])
def test_lecture_oracles(method):
    np.testing.assert_allclose(kx.shapley_values(kx.TabularGame(TAXI), method=method).values,
                               [2, 5, 35], atol=1e-10)
    np.testing.assert_allclose(kx.shapley_values(airport(), method=method).values,
                               [2, 3, 4, 9], atol=1e-10)


def test_permutation_on_oracles_converges():
    e = kx.shapley_values(kx.TabularGame(TAXI), method="permutation", n_permutations=4000, seed=0)
    np.testing.assert_allclose(e.values, [2, 5, 35], atol=5 * e.stderr.max() + 1e-12)
    assert np.isclose(e.values.sum(), 42)  # every ordering is efficient


# ------------------------------------------------------------------ axioms
tables = st.integers(1, 6).flatmap(
    lambda d: arrays(np.float64, 2**d, elements=st.floats(-100, 100, allow_nan=False))
)


@given(tables)
def test_exact_matches_textbook_formula_and_is_efficient(table):
    d = int(np.log2(len(table)))
    e = kx.shapley_values(kx.TabularGame(table), method="exact")
    np.testing.assert_allclose(e.values, textbook_shapley(table, d), atol=1e-9)
    assert np.isclose(e.values.sum(), table[-1] - table[0], atol=1e-9)
    assert e.base_values == table[0]


@given(tables, st.data())
def test_symmetry(table, data):
    d = int(np.log2(len(table)))
    if d < 2:
        return
    i, j = data.draw(st.sampled_from([(a, b) for a in range(d) for b in range(a + 1, d)]))
    # symmetrise: v(S) := v(S) with players i and j swapped, averaged
    z = all_coalitions(d)
    swapped = z.copy()
    swapped[:, [i, j]] = z[:, [j, i]]
    sym = 0.5 * (table + table[kx.games.coalitions_to_bitmasks(swapped)])
    phi = kx.shapley_values(kx.TabularGame(sym)).values
    assert np.isclose(phi[i], phi[j], atol=1e-9)


@given(tables, st.data())
def test_null_player(table, data):
    d = int(np.log2(len(table)))
    j = data.draw(st.integers(0, d - 1))
    # make j a null player: v(S + j) = v(S)
    masks = np.arange(2**d)
    null = table[masks & ~(1 << j)]
    phi = kx.shapley_values(kx.TabularGame(null)).values
    assert abs(phi[j]) < 1e-9


@given(tables, st.floats(-3, 3), st.floats(-3, 3), st.data())
def test_linearity(table, a, b, data):
    other = data.draw(arrays(np.float64, len(table), elements=st.floats(-100, 100)))
    phi = lambda t: kx.shapley_values(kx.TabularGame(t)).values
    np.testing.assert_allclose(phi(a * table + b * other), a * phi(table) + b * phi(other), atol=1e-8)


@given(tables)
def test_kernel_with_all_coalitions_equals_exact(table):
    g = kx.TabularGame(table)
    np.testing.assert_allclose(kx.shapley_values(g, method="kernel").values,
                               kx.shapley_values(g, method="exact").values, atol=1e-10 * (1 + np.abs(table).max()))


# ------------------------------------------------------------------ vectorised games
def test_estimators_are_vectorised_over_instances():
    rng = np.random.default_rng(0)
    table = rng.normal(size=(2**7, 30))
    g = kx.TabularGame(table)
    exact = kx.shapley_values(g, method="exact")
    assert exact.values.shape == (30, 7) and exact.base_values.shape == (30,)
    for k in range(30):
        np.testing.assert_allclose(exact.values[k], textbook_shapley(table[:, k], 7), atol=1e-12)
    np.testing.assert_allclose(kx.shapley_values(g, method="kernel").values, exact.values, atol=1e-10)
    perm = kx.shapley_values(g, method="permutation", n_permutations=50, seed=1)
    assert perm.values.shape == perm.stderr.shape == perm.lower.shape == (30, 7)
    np.testing.assert_allclose(perm.values.sum(1), table[-1] - table[0], atol=1e-10)


def test_exact_streams_coalitions_in_blocks():
    rng = np.random.default_rng(1)
    table = rng.normal(size=(2**9, 4))
    g = kx.TabularGame(table)
    np.testing.assert_allclose(kx.shapley_values(g, max_elements=64).values,
                               kx.shapley_values(g).values, atol=1e-12)


def test_product_method_equals_exact():
    rng = np.random.default_rng(2)
    for d in (1, 2, 5, 9, 12):
        a, c, w = rng.random((4, 25, d)), rng.random((4, 25, d)), rng.normal(size=(4, 25))
        g = kx.ProductGame(a, c, w)
        ex, pr = kx.shapley_values(g, method="exact"), kx.shapley_values(g, method="product")
        np.testing.assert_allclose(pr.values, ex.values, atol=1e-12)
        np.testing.assert_allclose(pr.base_values, ex.base_values, atol=1e-12)


def test_product_method_needs_a_product_game():
    with pytest.raises(TypeError, match="ProductGame"):
        kx.shapley_values(kx.TabularGame(TAXI), method="product")


# ------------------------------------------------------------------ sampling
def test_sampled_kernel_converges():
    rng = np.random.default_rng(3)
    g = kx.TabularGame(rng.normal(size=2**10))
    exact = kx.shapley_values(g).values
    errs = [np.abs(kx.shapley_values(g, method="kernel", n_coalitions=m, seed=4).values - exact).max()
            for m in (100, 1000, 10000)]
    assert errs[2] < errs[0] / 3
    assert np.isclose(kx.shapley_values(g, method="kernel", n_coalitions=100, seed=4).values.sum(),
                      exact.sum())


def test_kernel_uses_all_coalitions_when_budget_covers_them():
    g = kx.TabularGame(np.random.default_rng(0).normal(size=2**5))
    e = kx.shapley_values(g, method="kernel", n_coalitions=10**6)
    assert e.meta["sampling"] == "all coalitions"
    np.testing.assert_allclose(e.values, kx.shapley_values(g).values, atol=1e-12)


def test_seed_reproducibility_and_generators():
    g = kx.TabularGame(np.random.default_rng(0).normal(size=2**6))
    a = kx.shapley_values(g, method="permutation", n_permutations=10, seed=7).values
    b = kx.shapley_values(g, method="permutation", n_permutations=10, seed=np.random.default_rng(7)).values
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("antithetic", [False, True])
def test_permutation_interval_coverage(antithetic):
    """95% t-intervals cover the exact value at a rate consistent with 95%."""
    rng = np.random.default_rng(11)
    g = kx.TabularGame(rng.normal(size=2**6))
    exact = kx.shapley_values(g).values
    hits = []
    for rep in range(300):
        e = kx.shapley_values(g, method="permutation", n_permutations=30, antithetic=antithetic,
                              seed=rng.integers(2**31))
        hits.append((e.lower <= exact) & (exact <= e.upper))
    rate = np.mean(hits)
    # 300 runs; intervals within a run are correlated, so use the per-run count for the band
    assert abs(rate - 0.95) < 3 * np.sqrt(0.95 * 0.05 / 300), rate


def test_antithetic_reduces_variance_on_an_additive_game():
    # for an additive game every ordering gives the exact answer; add a small interaction
    g = kx.FunctionGame(lambda z: z @ np.arange(1.0, 7.0) + 0.3 * z[:, 0] * z[:, 1], 6)
    plain = kx.shapley_values(g, method="permutation", n_permutations=200, seed=0)
    anti = kx.shapley_values(g, method="permutation", n_permutations=200, antithetic=True, seed=0)
    assert anti.stderr.max() < plain.stderr.max()


# ------------------------------------------------------------------ bad input
def test_unknown_method_lists_the_accepted_ones():
    with pytest.raises(ValueError, match="unknown method 'magic'.*'exact'.*'kernel'"):
        kx.shapley_values(kx.TabularGame(TAXI), method="magic")


def test_not_a_game():
    with pytest.raises(TypeError, match="Game"):
        kx.shapley_values(lambda z: z.sum(1))


def test_budgets_too_small():
    g = kx.TabularGame(np.random.default_rng(0).normal(size=2**20 // 2**8))  # d = 12
    with pytest.raises(ValueError, match="too small to identify 12"):
        kx.shapley_values(g, method="kernel", n_coalitions=4, seed=0)
    with pytest.raises(ValueError, match="n_permutations=1 of method='permutation' must be an integer >= 2"):
        kx.shapley_values(g, method="permutation", n_permutations=1)
    with pytest.raises(ValueError, match="even"):
        kx.shapley_values(g, method="permutation", n_permutations=5, antithetic=True)
    with pytest.raises(ValueError, match="level"):
        kx.shapley_values(g, method="permutation", level=95)


def test_exact_refuses_huge_games():
    g = kx.FunctionGame(lambda z: z.sum(1).astype(float), 40)
    with pytest.raises(ValueError, match="2\\*\\*40 coalitions.*Methods that apply: 'bayes_shap', 'kernel', "
                                         "'leverage_shap', 'msr', 'oddshap', 'permutation', 'polyshap'"):
        kx.shapley_values(g, method="exact")
    # while sampling methods still work, and are exact for additive games
    e = kx.shapley_values(g, method="kernel", n_coalitions=200, seed=0)
    np.testing.assert_allclose(e.values, 1.0, atol=1e-9)


def test_game_returning_nan_is_reported():
    g = kx.FunctionGame(lambda z: np.where(z.sum(1) == 2, np.inf, 0.0), 3)
    for method in ("exact", "kernel", "permutation"):
        with pytest.raises(ValueError, match="non-finite"):
            kx.shapley_values(g, method=method, seed=0)
