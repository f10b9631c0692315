"""Uncertainty of Shapley explanations: single-reference games, Shapley residuals,
Bayesian SHAP and bootstrap intervals for KernelSHAP.

Truth comes from closed-form oracles, textbook formulas written out here,
a direct sparse least-squares solve of the residual problem, closed-form
conjugate updates, and coverage over repeated seeds.
"""


import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from oracles import textbook_shapley
from scipy import stats
from scipy.linalg import hadamard
from scipy.sparse.linalg import lsqr

import kernelxai as kx
from kernelxai import uncertainty as U
from kernelxai.games import all_coalitions, sample_coalitions, shapley_kernel_weights, tabulate

LEVEL = 0.95


def coverage_band(repeats, level=LEVEL, k=3.0):
    """k binomial standard errors of a coverage rate over ``repeats`` independent runs.

    The hits of the players of one run are correlated, so the runs -- not the
    run-player pairs -- are the independent trials (conservative).
    """
    return k * np.sqrt(level * (1 - level) / repeats)


def poly_game(fn, d):
    """The baseline-0 game of a function at x = (1, ..., 1): v(S) = fn(1_S)."""
    return kx.FunctionGame(lambda z: fn(z.astype(float)), d)


# =========================================================================== residuals
def test_walsh_hadamard_matches_the_hadamard_matrix():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(32, 3))
    np.testing.assert_allclose(U.walsh_hadamard(a), hadamard(32) @ a, atol=1e-12)
    np.testing.assert_allclose(U.walsh_hadamard(U.walsh_hadamard(a)) / 32, a, atol=1e-12)
    with pytest.raises(ValueError, match="2\\*\\*d"):
        U.walsh_hadamard(np.ones(6))


@pytest.mark.parametrize("fn, d, phi, norms", [
    (lambda X: X.sum(1), 3, [1, 1, 1], [0, 0, 0]),
    (lambda X: X[:, 0] + 2 * X[:, 1] * X[:, 2], 3, [1, 1, 1], [0, np.sqrt(2), np.sqrt(2)]),
    (lambda X: X[:, 0] * X[:, 1], 2, [0.5, 0.5], [0.5, 0.5]),
    (lambda X: X.prod(1), 3, [1 / 3] * 3, [0.645497] * 3),
])
def test_residual_oracles(fn, d, phi, norms):
    res = U.shapley_residuals(poly_game(fn, d))
    np.testing.assert_allclose(res.values, phi, atol=1e-12)
    np.testing.assert_allclose(res.residual_norms, norms, atol=1e-6)
    np.testing.assert_allclose(res.relative, res.residual_norms / res.total_norm, atol=1e-12)


def test_total_and_partial_norm_oracles():
    res = U.shapley_residuals(poly_game(lambda X: X[:, 0] + 2 * X[:, 1] * X[:, 2], 3))
    assert res.total_norm == pytest.approx(np.sqrt(20), abs=1e-12)
    # x1 contributes 1 on its 4 edges; x2 (and x3) contribute 0, 0, 2, 2
    np.testing.assert_allclose(res.partial_norms, [2, np.sqrt(8), np.sqrt(8)], atol=1e-12)
    np.testing.assert_allclose(res.relative_to_player, [0, 0.5, 0.5], atol=1e-12)


def _sparse_residuals(table):
    """Direct route: the incidence matrices and a sparse least-squares solve per player."""
    d = int(np.log2(len(table)))
    tails, heads, dirs = [], [], []
    for j in range(d):
        for S in range(2**d):
            if not S >> j & 1:
                tails.append(S)
                heads.append(S | 1 << j)
                dirs.append(j)
    E = len(tails)
    r = np.arange(E)
    D = sp.csr_matrix((np.r_[-np.ones(E), np.ones(E)], (np.r_[r, r], np.r_[tails, heads])),
                      shape=(E, 2**d))
    dirs = np.asarray(dirs)
    Dv = D @ table
    comps, resid = [], []
    for i in range(d):
        Div = np.where(dirs == i, Dv, 0.0)
        # v_i(empty) = 0: drop the column of the empty coalition
        sol = lsqr(D[:, 1:], Div, atol=1e-14, btol=1e-14, iter_lim=10_000)[0]
        vi = np.r_[0.0, sol]
        comps.append(vi)
        resid.append(Div - D @ vi)
    return np.array(comps), np.array(resid), dirs, np.array(tails)


@pytest.mark.parametrize("d", [2, 3, 5])
def test_residuals_match_a_direct_sparse_least_squares_solve(d):
    table = np.random.default_rng(d).normal(size=2**d)
    res = U.shapley_residuals(kx.TabularGame(table))
    comps, resid, dirs, tails = _sparse_residuals(table)
    np.testing.assert_allclose(res.component_games, comps, atol=1e-8)
    np.testing.assert_allclose(res.residual_norms, np.linalg.norm(resid, axis=1), atol=1e-8)
    # the edge vectors, in the documented layout (direction j, tails in increasing order)
    for i in range(d):
        mine = res.residual(i)
        for j in range(d):
            np.testing.assert_allclose(mine[j], resid[i][dirs == j], atol=1e-8)
            assert np.all(np.diff(tails[dirs == j]) > 0)
    np.testing.assert_allclose(res.values, comps[:, -1], atol=1e-8)


tables = st.integers(1, 6).flatmap(
    lambda d: arrays(np.float64, 2**d, elements=st.floats(-50, 50, allow_nan=False)))


@given(tables)
def test_residual_identities(table):
    d = int(np.log2(len(table)))
    res = U.shapley_residuals(kx.TabularGame(table))
    scale = 1 + np.abs(table).max()
    # phi is the Shapley value; components add up to the game; residuals cancel
    np.testing.assert_allclose(res.values, textbook_shapley(table, d), atol=1e-9 * scale)
    np.testing.assert_allclose(res.component_games.sum(0), table - table[0], atol=1e-9 * scale)
    np.testing.assert_allclose(res.component_games[:, 0], 0, atol=1e-9 * scale)
    np.testing.assert_allclose(res.residuals.sum(0), 0, atol=1e-9 * scale)
    np.testing.assert_allclose(res.residual_norms,
                               np.linalg.norm(res.residuals.reshape(d, -1), axis=1),
                               atol=1e-7 * scale)
    assert np.all((res.relative >= 0) & (res.relative <= 1 + 1e-12))
    # ||D_i v|| from the edges themselves
    for i in range(d):
        edges = np.array([table[S | 1 << i] - table[S] for S in range(2**d) if not S >> i & 1])
        assert res.partial_norms[i] == pytest.approx(np.linalg.norm(edges), abs=1e-7 * scale)
    assert np.all(res.residual_norms <= res.partial_norms + 1e-7 * scale)


@given(st.integers(1, 7), st.integers(0, 2**31 - 1))
def test_additive_games_have_zero_residuals(d, seed):
    rng = np.random.default_rng(seed)
    w, c = rng.normal(size=d), rng.normal()
    table = all_coalitions(d) @ w + c
    res = U.shapley_residuals(kx.TabularGame(table))
    np.testing.assert_allclose(res.values, w, atol=1e-10)
    np.testing.assert_allclose(res.residual_norms, 0, atol=1e-10)


def test_residuals_are_vectorised_over_instances():
    rng = np.random.default_rng(1)
    table = rng.normal(size=(16, 3))
    res = U.shapley_residuals(kx.TabularGame(table))
    assert res.values.shape == res.residual_norms.shape == (3, 4)
    for k in range(3):
        one = U.shapley_residuals(kx.TabularGame(table[:, k]))
        np.testing.assert_allclose(res.values[k], one.values, atol=1e-12)
        np.testing.assert_allclose(res.residual_norms[k], one.residual_norms, atol=1e-12)
        np.testing.assert_allclose(res.residual(2)[..., k], one.residual(2), atol=1e-12)
    frame = res.to_frame()
    assert len(frame) == 12
    expl = res.to_explanation()
    np.testing.assert_allclose(expl.output, table[-1], atol=1e-12)


def test_constant_game_has_zero_relative_residuals_not_nan():
    res = U.shapley_residuals(kx.TabularGame(np.full(8, 3.0)))
    assert np.all(res.relative == 0) and np.all(res.values == 0)


def test_residuals_refuse_more_than_20_players_and_state_the_cost():
    big = kx.FunctionGame(lambda z: z.sum(1).astype(float), 21)
    with pytest.raises(ValueError, match=r"2\*\*21 = 2,097,152 game evaluations"):
        U.shapley_residuals(big)
    with pytest.raises(TypeError, match="Game"):
        U.shapley_residuals(np.zeros(8))


# =========================================================================== single reference
REFS = np.array([[0, 0, 0], [1, 0, 2], [-1, 1, 0], [2, 2, -1], [0.5, -1, 1]], dtype=float)


def f_oracle(X):
    return X[:, 0] + 2 * X[:, 1] * X[:, 2]


def test_single_reference_oracle():
    e = U.single_reference(f_oracle, np.ones(3), REFS)
    np.testing.assert_allclose(e.values, [0.5, 1.6, 1.6], atol=1e-12)
    np.testing.assert_allclose(e.stderr * np.sqrt(5), [1.118034, 1.816590, 2.701851], atol=1e-6)
    half = stats.t.ppf(0.975, 4) * e.stderr
    np.testing.assert_allclose(e.lower, e.values - half, atol=1e-12)
    np.testing.assert_allclose(e.upper, e.values + half, atol=1e-12)
    assert e.output == pytest.approx(f_oracle(np.ones((1, 3)))[0])
    assert e.meta["reference_values"].shape == (5, 3)
    # each per-reference row is the Shapley value of that single-reference game
    for k, r in enumerate(REFS):
        game = U.single_reference_game(f_oracle, np.ones(3), r)
        np.testing.assert_allclose(e.meta["reference_values"][k],
                                   textbook_shapley(tabulate(game), 3), atol=1e-12)


def test_single_reference_mean_is_the_interventional_shapley_value():
    rng = np.random.default_rng(3)
    X, R = rng.normal(size=(4, 4)), rng.normal(size=(7, 4))
    f = lambda A: np.sin(A[:, 0]) * A[:, 1] + A[:, 2] * A[:, 3] ** 2

    def interventional(z):
        comp = np.where(z[:, None, None, :], X[None, :, None, :], R[None, None, :, :])
        return f(comp.reshape(-1, 4)).reshape(len(z), 4, 7).mean(axis=2)

    exact = kx.shapley_values(kx.FunctionGame(interventional, 4, n_instances=4)).values
    e = U.single_reference(f, X, R)
    np.testing.assert_allclose(e.values, exact, atol=1e-12)
    np.testing.assert_allclose(e.output, f(X), atol=1e-12)
    # the permutation route with many orderings per reference agrees
    p = U.single_reference(f, X, R, method="permutation", n_permutations=3000, seed=0)
    np.testing.assert_allclose(p.values, exact, atol=0.08)
    np.testing.assert_allclose(p.output, f(X), atol=1e-12)  # every ordering is efficient


def test_single_reference_accepts_models_and_dataframes():
    import pandas as pd

    class Model:
        def predict(self, X):
            return f_oracle(np.asarray(X))

    x = pd.DataFrame([[1.0, 1.0, 1.0]], columns=["a", "b", "c"])
    e = U.single_reference(Model(), x, REFS)
    assert e.feature_names == ["a", "b", "c"] and e.values.shape == (1, 3)


@pytest.mark.parametrize("method", ["exact", "permutation"])
def test_single_reference_interval_coverage(method):
    """References ~ N(mu, I) independent: the population interventional value is known."""
    rng = np.random.default_rng(11)
    d, K, repeats = 4, 25, 300
    mu = np.array([0.5, -1.0, 0.0, 1.0])
    x = np.array([1.0, 0.5, -0.5, 2.0])
    f = lambda A: A[:, 0] + 2 * A[:, 1] * A[:, 2] + A[:, 3] ** 2 - A[:, 0] * A[:, 3]

    def population(z):  # E f(x_S, R_{S^c}) with R ~ N(mu, I): means and second moments
        m = np.where(z, x, mu)
        q = np.where(z, x**2, mu**2 + 1)
        return m[:, 0] + 2 * m[:, 1] * m[:, 2] + q[:, 3] - m[:, 0] * m[:, 3]

    exact = kx.shapley_values(kx.FunctionGame(population, d)).values
    hits = []
    for _ in range(repeats):
        R = mu + rng.standard_normal((K, d))
        e = U.single_reference(f, x, R, method=method, seed=rng)
        hits.append((e.lower <= exact) & (exact <= e.upper))
    assert abs(np.mean(hits) - LEVEL) <= coverage_band(repeats), np.mean(hits)


def test_single_reference_bad_input():
    with pytest.raises(ValueError, match="single reference .* no interval"):
        U.single_reference(f_oracle, np.ones(3), REFS[:1])
    with pytest.raises(ValueError, match="references is empty"):
        U.single_reference(f_oracle, np.ones(3), np.zeros((0, 3)))
    for level in (0, 1, 1.5, -0.1):
        with pytest.raises(ValueError, match="level"):
            U.single_reference(f_oracle, np.ones(3), REFS, level=level)
    with pytest.raises(ValueError, match="features"):
        U.single_reference(f_oracle, np.ones(4), REFS)
    with pytest.raises(ValueError, match="NaN"):
        U.single_reference(lambda X: np.full(len(X), np.nan), np.ones(3), REFS)
    with pytest.raises(ValueError, match="n_permutations"):
        U.single_reference(f_oracle, np.ones(3), REFS, method="permutation", n_permutations=0)
    with pytest.raises(ValueError, match="method='kernel' of kx.uncertainty.single_reference must be one of"):
        U.single_reference(f_oracle, np.ones(3), REFS, method="kernel")
    with pytest.raises(TypeError, match="predict"):
        U.single_reference(3.0, np.ones(3), REFS)


# =========================================================================== Bayesian SHAP
def kernel_second_moment(d):
    """E[z z^T] under the Shapley kernel, by enumerating every coalition (independent of kx)."""
    z = all_coalitions(d)[1:-1].astype(float)
    w = shapley_kernel_weights(d, z.sum(1))
    return (z * w[:, None]).T @ z / w.sum()


def test_coalition_second_moment():
    for d in (2, 3, 7, 12):
        np.testing.assert_allclose(U.coalition_second_moment(d), kernel_second_moment(d), atol=1e-12)


def _noise_game(d, seed=0, n=None):
    rng = np.random.default_rng(seed)
    return kx.TabularGame(rng.normal(size=(2**d,) if n is None else (2**d, n)))


@pytest.mark.parametrize("efficiency", [False, True])
def test_bayes_posterior_equals_the_closed_form_conjugate_update(efficiency):
    d, N = 5, 40
    game = _noise_game(d, 1)
    table = tabulate(game)
    Z = sample_coalitions(d, N, 3, paired=False)
    w = np.random.default_rng(4).uniform(0.5, 2.0, N)
    e = U.bayes_shap(game, coalitions=Z, weights=w, efficiency=efficiency, level=0.9)
    # closed form, written out: normalised weights, unit-information prior
    y = game(Z) - table[0]
    Zf, wn, L0 = Z.astype(float), w / w.mean(), kernel_second_moment(d)
    if efficiency:  # the constraint sum(phi) = v(all) - v(empty) as a row of (numerically) infinite weight
        Zf = np.vstack([Zf, np.ones(d)])
        y = np.r_[y, table[-1] - table[0]]
        wn = np.r_[wn, 1e9]
    V = np.linalg.inv(Zf.T @ (wn[:, None] * Zf) + L0)
    phi = V @ Zf.T @ (wn * y)
    dof = len(y)
    s2 = ((y - Zf @ phi) @ (wn * (y - Zf @ phi)) + phi @ L0 @ phi) / dof
    half = stats.t.ppf(0.95, dof) * np.sqrt(s2 * np.diag(V))
    tol = 1e-5 if efficiency else 1e-10
    np.testing.assert_allclose(e.values, phi, atol=tol)
    np.testing.assert_allclose(e.meta["posterior_cov"], V, atol=tol)
    assert e.meta["s2"][0] == pytest.approx(s2, rel=tol)
    assert e.meta["dof"] == dof
    np.testing.assert_allclose(e.upper - e.values, half, atol=tol)
    np.testing.assert_allclose(e.values - e.lower, half, atol=tol)
    if efficiency:
        assert e.values.sum() == pytest.approx(table[-1] - table[0], abs=1e-10)


def test_bayes_prior_is_invariant_to_the_scale_of_the_weights():
    d = 6
    game = _noise_game(d, 2)
    Z = sample_coalitions(d, 30, 0, paired=False)
    w = np.random.default_rng(1).uniform(0.2, 3, 30)
    a = U.bayes_shap(game, coalitions=Z, weights=w)
    b = U.bayes_shap(game, coalitions=Z, weights=1e6 * w)
    np.testing.assert_allclose(a.values, b.values, atol=1e-12)
    np.testing.assert_allclose(a.upper, b.upper, atol=1e-12)


def test_bayes_linear_posterior_matches_augmented_least_squares():
    """The unconstrained update as ridge-type least squares on stacked pseudo-observations."""
    rng = np.random.default_rng(5)
    Z, y, w = rng.normal(size=(30, 4)), rng.normal(size=(30, 2)), rng.uniform(0.1, 2, 30)
    L0 = np.diag([1.0, 2.0, 0.5, 3.0])
    post = U.bayes_linear_posterior(Z, y, w, L0, prior_dof=3, prior_scale=0.7)
    A = np.vstack([np.sqrt(w)[:, None] * Z, np.linalg.cholesky(L0).T])
    b = np.vstack([np.sqrt(w)[:, None] * y, np.zeros((4, 2))])
    coef, rss, *_ = np.linalg.lstsq(A, b, rcond=None)
    np.testing.assert_allclose(post.mean, coef, atol=1e-12)
    np.testing.assert_allclose(post.V, np.linalg.inv(A.T @ A), atol=1e-12)
    np.testing.assert_allclose(post.s2, (3 * 0.7 + rss) / 33, atol=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_bayes_intervals_contain_the_exact_values_of_additive_games(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 11))
    beta = rng.normal(size=d) * rng.choice([0.01, 1, 100])
    game = kx.FunctionGame(lambda z: z @ beta + 5.0, d)
    for n in (2 * d, 50, 500):
        for efficiency in (True, False):
            e = U.bayes_shap(game, n_samples=n, seed=seed, efficiency=efficiency)
            assert np.all((e.lower <= beta) & (beta <= e.upper)), (d, n, efficiency)


def test_bayes_interval_coverage_on_a_noisy_additive_game():
    """Worths = additive + i.i.d. noise on every inner coalition: the model is right."""
    d, repeats = 5, 300
    beta = np.array([1.0, -2.0, 0.5, 0.0, 3.0])
    rng = np.random.default_rng(7)

    def noisy(z):
        inner = (z.sum(1) > 0) & (z.sum(1) < d)
        return z @ beta + inner * rng.normal(size=len(z))

    game = kx.FunctionGame(noisy, d)
    hits = []
    for _ in range(repeats):
        e = U.bayes_shap(game, n_samples=200, seed=rng)
        hits.append((e.lower <= beta) & (beta <= e.upper))
    assert abs(np.mean(hits) - LEVEL) <= coverage_band(repeats), np.mean(hits)


def test_bayes_level_is_not_hard_coded():
    game = _noise_game(6, 3)
    a = U.bayes_shap(game, n_samples=100, seed=0, level=0.8)
    b = U.bayes_shap(game, n_samples=100, seed=0, level=0.99)
    dof = a.meta["dof"]
    ratio = (b.upper - b.values) / (a.upper - a.values)
    np.testing.assert_allclose(ratio, stats.t.ppf(0.995, dof) / stats.t.ppf(0.9, dof), rtol=1e-10)


def test_bayes_is_vectorised_over_instances():
    game = _noise_game(5, 4, n=3)
    e = U.bayes_shap(game, n_samples=64, seed=9)
    for k in range(3):
        one = U.bayes_shap(kx.TabularGame(tabulate(game)[:, k]), n_samples=64, seed=9)
        np.testing.assert_allclose(e.values[k], one.values, atol=1e-12)
        np.testing.assert_allclose(e.upper[k], one.upper, atol=1e-12)
    np.testing.assert_allclose(e.output, game.full_value, atol=1e-10)


def test_bayes_target_width_and_perturbations_to_go():
    game = _noise_game(8, 5)
    for focused in (False, True):
        e = U.bayes_shap(game, seed=0, target_width=0.4, focused=focused)
        assert e.meta["converged"] and e.meta["perturbations_to_go"] == 0
        assert np.max(e.upper - e.lower) <= 0.4
    # the forecast never asks for a negative number
    assert U.perturbations_to_go(np.array([0.1, 0.2]), 0.5, 100) == 0
    assert U.perturbations_to_go(np.array([1.0]), 0.5, 100) == 300
    # a cap stops the loop and says so
    e = U.bayes_shap(game, seed=0, target_width=1e-3, max_samples=200)
    assert e.meta["n_samples"] == 200 and not e.meta["converged"]
    assert e.meta["perturbations_to_go"] > 0


def test_focused_sampling_is_stable_at_extreme_temperatures():
    game = _noise_game(7, 6)
    with np.errstate(over="raise", invalid="raise", divide="raise", under="ignore"):
        for T in (1e-300, 1e300):
            e = U.bayes_shap(game, n_samples=120, seed=1, focused=True, temperature=T)
            assert np.all(np.isfinite(e.values)) and np.all(np.isfinite(e.upper))
    # focused samples get importance weights; the estimate still targets the exact values
    exact = kx.shapley_values(game).values
    e = U.bayes_shap(game, n_samples=4000, seed=2, focused=True)
    assert np.abs(e.values - exact).max() < 0.15
    assert e.meta["focused"]


def test_bayes_through_shapley_values_and_bad_input():
    game = _noise_game(4, 7)
    e = kx.shapley_values(game, method="bayes", n_samples=50, seed=0)
    assert e.meta["method"] == "bayes_shap" and e.has_intervals
    for level in (0, 1, 2):
        with pytest.raises(ValueError, match="level"):
            U.bayes_shap(game, level=level)
    with pytest.raises(ValueError, match="n_samples"):
        U.bayes_shap(game, n_samples=0)
    with pytest.raises(ValueError, match="target_width"):
        U.bayes_shap(game, target_width=-1)
    with pytest.raises(ValueError, match="empty and the full"):
        U.bayes_shap(game, coalitions=all_coalitions(4))
    with pytest.raises(ValueError, match="fixed design"):
        U.bayes_shap(game, weights=np.ones(3))
    # one player: phi = v(all) - v(empty), exactly (d = 1 works everywhere)
    one = U.bayes_shap(kx.TabularGame([0.0, 1.0]))
    assert one.values[0] == 1.0 and one.stderr[0] == 0.0
    with pytest.raises(ValueError, match="prior_strength"):
        U.bayes_shap(game, prior_strength=-1)
    with pytest.raises(ValueError, match="positive definite"):
        U.bayes_shap(game, coalitions=all_coalitions(4)[1:3], prior_strength=0)


def test_reference_sampling_game_is_unbiased_for_the_interventional_game():
    rng = np.random.default_rng(8)
    X, R = rng.normal(size=(2, 3)), rng.normal(size=(6, 3))
    noisy = U.ReferenceSamplingGame(f_oracle, X, R, seed=0)
    z = np.tile(all_coalitions(3), (4000, 1))
    mean = noisy(z).reshape(4000, 8, 2).mean(0)
    comp = np.where(all_coalitions(3)[:, None, None, :], X[None, :, None, :], R[None, None])
    exact = f_oracle(comp.reshape(-1, 3)).reshape(8, 2, 6).mean(2)
    np.testing.assert_allclose(mean[[0, -1]], exact[[0, -1]], atol=1e-12)  # exact at the ends
    np.testing.assert_allclose(mean, exact, atol=0.15)


# =========================================================================== KernelSHAP bootstrap
def test_kernel_bootstrap_keeps_the_estimate_and_labels_the_interval():
    game = _noise_game(10, 8)
    plain = kx.shapley_values(game, "kernel", n_coalitions=300, seed=4)
    boot = kx.shapley_values(game, "kernel", n_coalitions=300, seed=4, bootstrap=100)
    np.testing.assert_array_equal(plain.values, boot.values)
    assert plain.stderr is None and not plain.has_intervals
    assert "bootstrap" in boot.meta["interval"] and boot.meta["bootstrap"] == 100
    assert np.all(boot.lower <= boot.upper)
    exact_all = kx.shapley_values(_noise_game(4, 1), "kernel", bootstrap=50)
    assert np.all(exact_all.stderr == 0) and "exact" in exact_all.meta["interval"]
    with pytest.raises(ValueError, match="bootstrap"):
        kx.shapley_values(game, "kernel", n_coalitions=300, bootstrap=1)
    with pytest.raises(ValueError, match="level"):
        kx.shapley_values(game, "kernel", n_coalitions=300, bootstrap=50, level=1.0)


def test_kernel_bootstrap_stderr_tracks_the_sampling_spread():
    game = _noise_game(10, 9)
    estimates, stderrs = [], []
    for s in range(60):
        e = kx.shapley_values(game, "kernel", n_coalitions=400, seed=s, bootstrap=200)
        estimates.append(e.values)
        stderrs.append(e.stderr)
    ratio = np.mean(stderrs, axis=0) / np.std(estimates, axis=0, ddof=1)
    assert 0.7 < np.median(ratio) < 1.4, ratio


@pytest.mark.parametrize("paired", [True, False])
def test_kernel_bootstrap_coverage(paired):
    game = _noise_game(12, 10)
    exact = kx.shapley_values(game).values
    repeats = 200
    hits = [(lambda e: (e.lower <= exact) & (exact <= e.upper))(
        kx.shapley_values(game, "kernel", n_coalitions=1024, seed=s, bootstrap=200, paired=paired))
        for s in range(repeats)]
    assert abs(np.mean(hits) - LEVEL) <= coverage_band(repeats), np.mean(hits)


def test_permutation_interval_coverage():
    game = _noise_game(8, 11)
    exact = kx.shapley_values(game).values
    repeats = 300
    hits = [(lambda e: (e.lower <= exact) & (exact <= e.upper))(
        kx.shapley_values(game, "permutation", n_permutations=40, seed=s)) for s in range(repeats)]
    assert abs(np.mean(hits) - LEVEL) <= coverage_band(repeats), np.mean(hits)


def test_single_reference_kernel_models_take_the_value_function_route():
    rng = np.random.default_rng(12)
    X = rng.normal(size=(40, 5))
    y = np.sin(X[:, 0]) * X[:, 1] + X[:, 2] ** 2 + 0.1 * rng.normal(size=40)
    model = kx.models.KernelRidge(lam=1e-2).fit(X, y)
    refs = X[:8]
    via_model = U.single_reference(model, X[30:33], refs)
    via_function = U.single_reference(lambda A: model.predict(A), X[30:33], refs)
    assert "value function" in via_model.meta["sampling"]
    assert "value function" not in via_function.meta["sampling"]
    np.testing.assert_allclose(via_model.meta["reference_values"], via_function.meta["reference_values"],
                               atol=1e-10)
    np.testing.assert_allclose(via_model.upper, via_function.upper, atol=1e-10)
