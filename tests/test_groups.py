"""Group Shapley (lecture, "Group Shapley"): groups of features as players.

* On product games the grouped game keeps its product structure, so the
  polynomial-time route, exact enumeration and the textbook formula on worths
  computed here from scratch all agree.
* Under the lecture's conditions (a prediction function additively separable
  over the groups, and independent groups for conditional value functions)
  a group's value equals the sum of its members' feature values; without them
  it does not.
"""


import numpy as np
import pytest
from oracles import textbook_shapley

import kernelxai as kx
from kernelxai.games import GroupedGame, ProductGame, all_coalitions, tabulate

GROUPS = [[0, 3], [1], [2, 4, 5]]


def random_product_game(n=3, R=5, d=6, seed=0):
    rng = np.random.default_rng(seed)
    a, c = rng.uniform(0, 1, (n, R, d)), rng.uniform(0, 1, (n, R, d))
    w = rng.normal(size=(n, R))
    return ProductGame(a, c, w), (a, c, w)


def grouped_worths_from_scratch(factors, groups):
    """v_G(T) = sum_r w_r prod_{l in union T} a_rl prod_{l not in union T} c_rl, per instance."""
    a, c, w = factors
    G = len(groups)
    table = np.zeros((2**G, a.shape[0]))
    for mask, zg in enumerate(all_coalitions(G)):
        members = [l for g, on in zip(groups, zg) if on for l in g]
        inside = np.zeros(a.shape[2], dtype=bool)
        inside[members] = True
        table[mask] = (w * np.where(inside, a, c).prod(axis=2)).sum(axis=1)
    return table


def test_grouped_product_game_keeps_its_structure_and_worths():
    game, factors = random_product_game()
    grouped = game.grouped(GROUPS, names=["a", "b", "c"])
    assert isinstance(grouped, ProductGame) and grouped.n_players == 3
    assert grouped.player_names == ["a", "b", "c"]
    table = grouped_worths_from_scratch(factors, GROUPS)
    np.testing.assert_allclose(tabulate(grouped), table, atol=1e-12)
    np.testing.assert_allclose(tabulate(GroupedGame(game, GROUPS)), table, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_grouped_exact_product_and_brute_force_agree(seed):
    game, factors = random_product_game(seed=seed)
    grouped = game.grouped(GROUPS)
    brute = np.array([textbook_shapley(col, 3) for col in grouped_worths_from_scratch(factors, GROUPS).T])
    exact = kx.shapley_values(grouped, "exact")
    product = kx.shapley_values(grouped, "product")
    np.testing.assert_allclose(exact.values, brute, atol=1e-12)
    np.testing.assert_allclose(product.values, brute, atol=1e-12)
    np.testing.assert_allclose(product.base_values, exact.base_values, atol=1e-12)
    assert exact.meta["budget"] == 2**3          # 2^G coalitions instead of 2^d
    assert exact.feature_names == ["x0+x3", "x1", "x2+x4+x5"]


def test_a_single_group_and_singleton_groups():
    game, _ = random_product_game(seed=5)
    whole = kx.shapley_values(game.grouped([list(range(6))]), "product")
    np.testing.assert_allclose(whole.values[:, 0], game.full_value - game.empty_value, atol=1e-12)
    singletons = kx.shapley_values(game.grouped([[j] for j in range(6)]), "product")
    np.testing.assert_allclose(singletons.values, kx.shapley_values(game, "exact").values, atol=1e-12)


def test_bad_groups_are_refused():
    game, _ = random_product_game()
    for bad in ([[0, 1], [2, 3]], [[0, 1, 2], [2, 3, 4, 5]], [[0, 1, 2, 3, 4, 5], []], [[0, 1, 2, 3, 4, 9]]):
        with pytest.raises(ValueError):
            game.grouped(bad)


# ----------------------------------------------------------------------------- lecture's conditions
def marginal_game(f, X, background):
    """Model-agnostic interventional game: v(S) = mean_b f(x_S, b_{S^c}), per row of X."""
    n, d = X.shape

    def worths(z):
        comp = np.where(z[:, None, None, :], X[None, :, None, :], background[None, None, :, :])
        return f(comp.reshape(-1, d)).reshape(len(z), n, len(background)).mean(axis=2)

    return kx.FunctionGame(worths, d, n_instances=n)


def group_sums(values, groups):
    return np.stack([values[:, g].sum(axis=1) for g in groups], axis=1)


def test_separable_function_group_values_equal_summed_feature_values():
    rng = np.random.default_rng(1)
    X, B = rng.normal(size=(4, 6)), rng.normal(size=(30, 6))
    B[:, 3] += B[:, 1]  # dependence between groups is harmless for interventional values

    def f(A):  # additively separable over GROUPS, with interactions inside each group
        return (A[:, 0] * A[:, 3] + np.sin(A[:, 1])
                + A[:, 2] * A[:, 4] ** 2 - A[:, 5] * A[:, 2])

    game = marginal_game(f, X, B)
    features = kx.shapley_values(game).values
    groups = kx.shapley_values(game.grouped(GROUPS)).values
    np.testing.assert_allclose(groups, group_sums(features, GROUPS), atol=1e-12)


def test_cross_group_interaction_breaks_the_equality():
    rng = np.random.default_rng(2)
    X, B = rng.normal(size=(4, 6)), rng.normal(size=(30, 6))
    f = lambda A: A[:, 0] * A[:, 1] + A[:, 2] * A[:, 3] * A[:, 4] + A[:, 5]
    game = marginal_game(f, X, B)
    gap = np.abs(kx.shapley_values(game.grouped(GROUPS)).values
                 - group_sums(kx.shapley_values(game).values, GROUPS))
    assert gap.max() > 0.05


def gaussian_conditional_game(w, cov, X):
    """Observational game of f(x) = w^T x under X ~ N(0, cov): v(S) = w^T E[X | X_S = x_S]."""
    n, d = X.shape

    def worths(z):
        out = np.empty((len(z), n))
        for k, s in enumerate(z):
            S, T = np.flatnonzero(s), np.flatnonzero(~s)
            if len(S) == 0:
                out[k] = 0.0
                continue
            cond = cov[np.ix_(T, S)] @ np.linalg.solve(cov[np.ix_(S, S)], X[:, S].T)
            out[k] = X[:, S] @ w[S] + w[T] @ cond
        return out

    return kx.FunctionGame(worths, d, n_instances=n)


def test_observational_values_need_independent_groups():
    rng = np.random.default_rng(3)
    d = 6
    w = rng.normal(size=d)
    X = rng.normal(size=(3, d))
    block = np.eye(d)
    for g in GROUPS:  # correlation inside groups only
        block[np.ix_(g, g)] = 0.6
        block[g, g] = 1.0
    game = gaussian_conditional_game(w, block, X)
    np.testing.assert_allclose(kx.shapley_values(game.grouped(GROUPS)).values,
                               group_sums(kx.shapley_values(game).values, GROUPS), atol=1e-10)
    mixed = block.copy()
    mixed[0, 1] = mixed[1, 0] = 0.5  # features 0 and 1 sit in different groups
    game = gaussian_conditional_game(w, mixed, X)
    gap = np.abs(kx.shapley_values(game.grouped(GROUPS)).values
                 - group_sums(kx.shapley_values(game).values, GROUPS))
    assert gap.max() > 1e-3


# ----------------------------------------------------------------------------- through kx.explain
def _fitted_krr(d=6, n=60, seed=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) * X[:, 3] + X[:, 1] - X[:, 2] * X[:, 4] + 0.1 * rng.normal(size=n)
    return kx.models.KernelRidge(lam=1e-2).fit(X, y), X


def test_explain_with_groups_product_and_exact_agree_with_brute_force():
    model, X = _fitted_krr()
    background, points = X[:25], X[40:44]
    names = ["g03", "g1", "g245"]
    prod = kx.explain(model, points, background=background, method="product", groups=GROUPS,
                      group_names=names)
    exact = kx.explain(model, points, background=background, method="exact", groups=GROUPS,
                       group_names=names)
    assert prod.feature_names == exact.feature_names == names
    np.testing.assert_allclose(prod.values, exact.values, atol=1e-10)
    np.testing.assert_allclose(prod.output, model.predict(points), atol=1e-10)
    # brute force: the model-agnostic interventional game of the predictions, grouped by hand
    game = marginal_game(model.predict, points, background)
    table = tabulate(GroupedGame(game, GROUPS))
    brute = np.array([textbook_shapley(col, 3) for col in table.T])
    np.testing.assert_allclose(exact.values, brute, atol=1e-10)
    # the product kernel's interventional game is not separable across these groups
    features = kx.explain(model, points, background=background, method="exact").values
    assert np.abs(exact.values - group_sums(features, GROUPS)).max() > 1e-3
