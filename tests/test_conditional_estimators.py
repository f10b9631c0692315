"""The lecture's conditional estimators: Gaussian copula and empirical (Aas et al.), beside the Gaussian.

Truths are computed here, independently of kernelxai's estimators:
* a linear model f(x) = b + beta'x with Gaussian features N(mu, C) has the
  conditional game v(S)(x) = b + beta_S'x_S + beta_T'(mu_T + C_TS C_SS^{-1}(x_S - mu_S)),
  T = S^c, and its Shapley values by enumerating the Shapley formula;
* with lognormal features X = exp(Y), Y ~ N(mu, C), the same model has
  E[X_T | x_S] = exp(m_T + diag(V_TT)/2), m, V the Gaussian conditional of Y_T given log x_S;
* the empirical estimator's game from the formulas of Aas et al. written out with
  Python loops over coalitions (np.linalg.inv of each Sigma_SS, a sort, the cumulative share).
"""

from __future__ import annotations

from math import factorial

import numpy as np
import pytest
from scipy.stats import rankdata

import kernelxai as kx
from kernelxai.estimators import InvalidOptionError
from kernelxai.games import all_coalitions
from kernelxai.values import Empirical, GaussianConditional, GaussianCopula, Marginal
from kernelxai.values._conditional import conditional_gaussian_blocks, empirical_quantiles, normal_scores

D = 3
COV = np.array([[1.0, 0.7, 0.3], [0.7, 1.0, 0.5], [0.3, 0.5, 1.0]])
MU = np.array([0.5, -1.0, 2.0])
BETA = np.array([1.0, -2.0, 0.5])
B0 = 0.25


def linear(Z):
    return B0 + Z @ BETA


def shapley_by_formula(worth, d):
    """phi_j = sum_{S not containing j} |S|!(d-|S|-1)!/d! (v(S+j) - v(S)); worth(S) -> (n,)."""
    cache = {tuple(S): worth(S) for S in all_coalitions(d)}
    n = len(next(iter(cache.values())))
    phi = np.zeros((n, d))
    for S in all_coalitions(d):
        k = int(S.sum())
        for j in np.flatnonzero(~S):
            Sj = S.copy()
            Sj[j] = True
            weight = factorial(k) * factorial(d - k - 1) / factorial(d)
            phi[:, j] += weight * (cache[tuple(Sj)] - cache[tuple(S)])
    return phi


def gaussian_conditional_moments(Y, S, mu, C):
    """Mean (n, |T|) and covariance (|T|, |T|) of Y_T given Y_S = Y[:, S] for Y ~ N(mu, C)."""
    s, t = np.flatnonzero(S), np.flatnonzero(~S)
    A = np.linalg.solve(C[np.ix_(s, s)], C[np.ix_(s, t)])
    return mu[t] + (Y[:, s] - mu[s]) @ A, C[np.ix_(t, t)] - C[np.ix_(t, s)] @ A


def exact_linear_gaussian(X, mu=MU, C=COV):
    def worth(S):
        if not S.any():
            return np.full(len(X), B0 + mu @ BETA)
        if S.all():
            return linear(X)
        mean, _ = gaussian_conditional_moments(X, S, mu, C)
        return B0 + X[:, S] @ BETA[S] + mean @ BETA[~S]

    return shapley_by_formula(worth, X.shape[1])


def exact_linear_lognormal(Y, mu, C):
    """Shapley values of f(x) = b + beta'x at x = exp(Y) for X = exp(N(mu, C)), in closed form."""
    def worth(S):
        if not S.any():
            return np.full(len(Y), B0 + np.exp(mu + np.diag(C) / 2) @ BETA)
        if S.all():
            return linear(np.exp(Y))
        mean, V = gaussian_conditional_moments(Y, S, mu, C)
        return B0 + np.exp(Y[:, S]) @ BETA[S] + np.exp(mean + np.diag(V) / 2) @ BETA[~S]

    return shapley_by_formula(worth, Y.shape[1])


@pytest.fixture(scope="module")
def gaussian_data():
    rng = np.random.default_rng(11)
    data = rng.multivariate_normal(MU, COV, size=3000)
    X = rng.multivariate_normal(MU, COV, size=6)  # held out: not rows of the background
    return data, X


# --------------------------------------------------------------------------- building blocks
def test_batched_conditioning_matches_per_coalition_solves():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(4, 4))
    C = A @ A.T + 0.2 * np.eye(4)
    z = all_coalitions(4)[1:-1]
    coef, cov_sqrt, whiten = conditional_gaussian_blocks(C, z)
    for c, S in enumerate(z):
        s, t = np.flatnonzero(S), np.flatnonzero(~S)
        A_st = np.linalg.solve(C[np.ix_(s, s)], C[np.ix_(s, t)])
        np.testing.assert_allclose(coef[c][np.ix_(s, t)], A_st, atol=1e-10)
        assert np.all(coef[c][~S] == 0) and np.all(coef[c][:, S] == 0)
        cond = C[np.ix_(t, t)] - C[np.ix_(t, s)] @ A_st
        np.testing.assert_allclose(cov_sqrt[c] @ cov_sqrt[c], _embed(cond, t, 4), atol=1e-10)
        np.testing.assert_allclose(whiten[c] @ whiten[c].T,
                                   _embed(np.linalg.inv(C[np.ix_(s, s)]), s, 4), atol=1e-10)


def _embed(block, idx, d):
    out = np.zeros((d, d))
    out[np.ix_(idx, idx)] = block
    return out


def test_batched_conditioning_with_collinear_present_features():
    """x2 = x0 + x1: conditioning on all three is conditioning on x0, x1 (a pseudo-inverse)."""
    rng = np.random.default_rng(1)
    base = rng.normal(size=(500, 3))
    data = np.column_stack([base[:, 0], base[:, 1], base[:, 0] + base[:, 1], base[:, 2] + base[:, 0]])
    C = np.cov(data, rowvar=False)
    S = np.array([[True, True, True, False]])
    coef, cov_sqrt, _ = conditional_gaussian_blocks(C, S)
    A_ref = np.linalg.solve(C[:2, :2], C[:2, 3:])
    y = data[:5] - data.mean(0)
    np.testing.assert_allclose((y @ coef[0])[:, 3], (y[:, :2] @ A_ref)[:, 0], atol=1e-8)
    cond_ref = C[3, 3] - C[3, :2] @ A_ref[:, 0]
    np.testing.assert_allclose((cov_sqrt[0] @ cov_sqrt[0])[3, 3], cond_ref, atol=1e-8)


def test_normal_scores_and_quantiles_against_scipy_and_numpy():
    rng = np.random.default_rng(2)
    B = np.column_stack([rng.exponential(size=40), rng.integers(0, 5, size=40).astype(float)])
    from scipy.stats import norm

    scores = normal_scores(np.sort(B, axis=0), B)
    for j in range(2):  # mid-ranks over m + 1, also with ties
        np.testing.assert_allclose(scores[:, j], norm.ppf(rankdata(B[:, j]) / 41), atol=1e-12)
    outside = normal_scores(np.sort(B, axis=0), np.array([[-1.0, -1.0], [99.0, 99.0]]))
    np.testing.assert_allclose(outside[0], norm.ppf(0.5 / 41))
    np.testing.assert_allclose(outside[1], norm.ppf(40.5 / 41))
    u = rng.uniform(size=(7, 3))
    col = np.sort(B[:, 0])
    np.testing.assert_allclose(empirical_quantiles(col, u, "linear"), np.quantile(col, u), atol=1e-12)
    np.testing.assert_allclose(empirical_quantiles(col, u, "inverted_cdf"),
                               np.quantile(col, u, method="inverted_cdf"), atol=0)


# --------------------------------------------------------------------------- efficiency, kx.explain
@pytest.mark.parametrize("value", ["gaussian_copula", "empirical"])
def test_efficiency_and_base_value_through_explain(gaussian_data, value):
    data, X = gaussian_data
    B = data[:300]

    def f(Z):
        return np.sin(Z[:, 0]) * Z[:, 1] + Z[:, 2] ** 2

    options = {"n_samples": 50} if value == "gaussian_copula" else {}
    e = kx.explain(f, X, value=value, background=B, **options)
    np.testing.assert_allclose(e.values.sum(1) + e.base_values, f(X), atol=1e-10)
    np.testing.assert_allclose(e.base_values, f(B).mean(), atol=1e-12)
    assert e.meta["value_function"] == value and e.meta["route"].startswith(f"model calls ({value})")


def test_kernel_model_route_names_the_value_function(gaussian_data):
    data, X = gaussian_data
    model = kx.models.KernelExpansion(data[:40], np.linspace(-1, 1, 40), kx.kernels.RBF(1.0))
    e = kx.explain(model, X[:2], value="empirical", background=data[:200])
    assert "value='empirical' averages calls of the kernel expansion" in e.meta["route"]
    np.testing.assert_allclose(e.output, model.predict(X[:2]), atol=1e-10)


# --------------------------------------------------------------------------- convergence to the truth
def test_gaussian_estimators_converge_to_exact_linear_gaussian_values(gaussian_data):
    """Linear model, Gaussian features: the Gaussian and the copula estimators find the exact values.

    The copula's marginals are the empirical ones and its back-transform interpolates order
    statistics, so with 3000 rows it is within Monte-Carlo and sampling error of the truth, a
    little looser than the Gaussian one, which fits the right family."""
    data, X = gaussian_data
    truth = exact_linear_gaussian(X)
    independent = kx.shapley_values(Marginal(linear, data).game(X)).values
    assert np.abs(independent - truth).mean() > 0.3  # the test can tell conditional from not
    gauss = kx.shapley_values(GaussianConditional(linear, data, n_samples=1000).game(X)).values
    copula = kx.shapley_values(GaussianCopula(linear, data, n_samples=1000).game(X)).values
    np.testing.assert_allclose(gauss, truth, atol=0.08)
    np.testing.assert_allclose(copula, truth, atol=0.12)
    assert np.abs(copula - truth).mean() < 0.05


def test_empirical_approximates_exact_linear_gaussian_values(gaussian_data):
    """Looser: a kernel-weighted average over the nearest rows (sigma = 0.1) has the bias of a
    Nadaraya-Watson smoother where the data density changes, and its variance comes from the few
    rows that carry the weight (no Monte-Carlo draws to add), so it is only approximately right;
    still far closer than the independence (marginal) values."""
    data, X = gaussian_data
    truth = exact_linear_gaussian(X)
    emp = kx.shapley_values(Empirical(linear, data).game(X)).values
    independent = kx.shapley_values(Marginal(linear, data).game(X)).values
    assert np.abs(emp - truth).mean() < 0.12
    assert np.abs(emp - truth).mean() < 0.25 * np.abs(independent - truth).mean()


def test_copula_tracks_lognormal_features_where_the_gaussian_fit_does_not():
    """Gaussian copula, lognormal marginals, linear model: the exact values are in closed form.
    The copula estimator is right; the Gaussian fit of the raw (skewed) data is biased."""
    rng = np.random.default_rng(5)
    mu, C = np.zeros(D), np.array([[1.0, 0.8, 0.5], [0.8, 1.0, 0.6], [0.5, 0.6, 1.0]]) * 0.5
    data = np.exp(rng.multivariate_normal(mu, C, size=3000))
    Y = rng.multivariate_normal(mu, C, size=6)
    truth = exact_linear_lognormal(Y, mu, C)
    X = np.exp(Y)
    copula = kx.shapley_values(GaussianCopula(linear, data, n_samples=1000).game(X)).values
    gauss = kx.shapley_values(GaussianConditional(linear, data, n_samples=1000).game(X)).values
    err_copula, err_gauss = np.abs(copula - truth).mean(), np.abs(gauss - truth).mean()
    assert err_copula < 0.05
    assert err_copula < 0.5 * err_gauss


# --------------------------------------------------------------------------- empirical by its formulas
def empirical_by_formulas(f, B, X, sigma, eta, cap):
    """Aas et al.'s empirical v(S)(x), written with loops over coalitions, points and kept rows."""
    d = B.shape[1]
    Sigma = np.cov(B, rowvar=False)
    table = []
    for S in all_coalitions(d):
        if not S.any():
            table.append(np.full(len(X), f(B).mean()))
            continue
        if S.all():
            table.append(f(X))
            continue
        inv = np.linalg.inv(Sigma[np.ix_(S, S)])
        row = []
        for x in X:
            diff = x[S] - B[:, S]
            dist2 = np.einsum("ms,st,mt->m", diff, inv, diff) / S.sum()
            w = np.exp(-dist2 / (2 * sigma**2))
            order = np.argsort(-w, kind="stable")
            share = np.cumsum(w[order]) / w.sum()
            K = min(int(np.searchsorted(share, eta) + 1), cap)
            total = 0.0
            for i in order[:K]:
                point = np.where(S, x, B[i])
                total += w[i] * f(point[None])[0]
            row.append(total / w[order[:K]].sum())
        table.append(np.array(row))
    return np.array(table)


@pytest.mark.parametrize("sigma, eta, cap", [(0.1, 0.95, 1000), (0.5, 0.8, 1000), (1.0, 0.95, 7),
                                             (0.3, 1.0, 1000)])
def test_empirical_game_is_aas_formula(sigma, eta, cap):
    rng = np.random.default_rng(3)
    B = rng.multivariate_normal(np.zeros(D), COV, size=60) * np.array([1.0, 10.0, 0.1])
    X = rng.multivariate_normal(np.zeros(D), COV, size=4) * np.array([1.0, 10.0, 0.1])

    def f(Z):
        return Z[:, 0] * Z[:, 1] - np.cos(10 * Z[:, 2])

    game = Empirical(f, B, bandwidth=sigma, weight_share=eta, n_samples=cap).game(X)
    np.testing.assert_allclose(game(all_coalitions(D)), empirical_by_formulas(f, B, X, sigma, eta, cap),
                               rtol=1e-9, atol=1e-9)


def test_chunked_evaluation_is_the_same(gaussian_data):
    data, X = gaussian_data
    z = all_coalitions(D)
    for make in (lambda **k: GaussianCopula(linear, data[:200], n_samples=30, **k),
                 lambda **k: Empirical(linear, data[:200], **k)):
        np.testing.assert_allclose(make(max_elements=97).game(X)(z), make().game(X)(z), atol=1e-12)


# --------------------------------------------------------------------------- copula invariance
def test_copula_is_invariant_under_increasing_transforms():
    """exp applied to feature 1 and the model composed with log: the same values -- exactly with
    the inverted-CDF quantiles (generated values are order statistics), within the order-statistic
    interpolation with the linear ones. The empirical estimator is not invariant (Mahalanobis
    distances change), which the test also shows."""
    rng = np.random.default_rng(4)
    data = rng.multivariate_normal(np.zeros(D), COV, size=400)
    X = rng.multivariate_normal(np.zeros(D), COV, size=4)

    def f(Z):
        return Z[:, 0] * Z[:, 1] + np.sin(Z[:, 2])

    def g(Z):
        return f(np.column_stack([Z[:, 0], np.log(Z[:, 1]), Z[:, 2]]))

    def T(A):
        return np.column_stack([A[:, 0], np.exp(A[:, 1]), A[:, 2]])

    for method, atol in (("inverted_cdf", 1e-12), ("linear", 0.02)):
        a = kx.shapley_values(GaussianCopula(f, data, n_samples=80, quantile_method=method).game(X))
        b = kx.shapley_values(GaussianCopula(g, T(data), n_samples=80, quantile_method=method).game(T(X)))
        np.testing.assert_allclose(a.values, b.values, atol=atol)
    a = kx.shapley_values(Empirical(f, data).game(X)).values
    b = kx.shapley_values(Empirical(g, T(data)).game(T(X))).values
    assert np.abs(a - b).max() > 0.05


# --------------------------------------------------------------------------- seeds and options
def test_seeded_reproducibility(gaussian_data):
    data, X = gaussian_data
    z = all_coalitions(D)

    def copula(seed):
        return GaussianCopula(linear, data[:300], n_samples=40, sample_seed=seed).game(X)(z)

    np.testing.assert_array_equal(copula(7), copula(7))
    assert np.abs(copula(7) - copula(8)).max() > 1e-3
    e1 = kx.explain(linear, X, value="gaussian_copula", background=data[:300], n_samples=40,
                    sample_seed=np.random.default_rng(3))
    e2 = kx.explain(linear, X, value="gaussian_copula", background=data[:300], n_samples=40,
                    sample_seed=np.random.default_rng(3))
    np.testing.assert_array_equal(e1.values, e2.values)
    emp = [Empirical(linear, data[:300]).game(X)(z) for _ in range(2)]  # no draws: deterministic
    np.testing.assert_array_equal(emp[0], emp[1])


@pytest.mark.parametrize("kwargs, message", [
    ({"bandwidth": 0}, "bandwidth must be a positive finite number"),
    ({"bandwidth": -0.1}, "bandwidth must be a positive finite number"),
    ({"bandwidth": np.nan}, "bandwidth must be a positive finite number"),
    ({"bandwidth": True}, "bandwidth must be a positive finite number"),
    ({"bandwidth": "0.1"}, "bandwidth must be a positive finite number"),
    ({"weight_share": 0.0}, r"weight_share must be a number in \(0, 1\]"),
    ({"weight_share": 1.5}, r"weight_share must be a number in \(0, 1\]"),
    ({"n_samples": 0}, "n_samples must be >= 1"),
    ({"n_samples": 2.5}, "n_samples must be an integer"),
])
def test_empirical_bad_options(gaussian_data, kwargs, message):
    with pytest.raises(ValueError, match=message):
        Empirical(linear, gaussian_data[0][:50], **kwargs)


@pytest.mark.parametrize("kwargs, message", [
    ({"quantile_method": "nearest"}, "unknown quantile_method 'nearest'; accepted: 'linear', 'inverted_cdf'"),
    ({"n_samples": 0}, "n_samples must be >= 1"),
    ({"sample_seed": "x"}, "seed must be None, an int or a numpy.random.Generator"),
])
def test_copula_bad_options(gaussian_data, kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        GaussianCopula(linear, gaussian_data[0][:50], **kwargs)


def test_bad_data_and_unknown_options_through_explain(gaussian_data):
    data, X = gaussian_data
    with pytest.raises(ValueError, match="single row"):
        GaussianCopula(linear, data[:1])
    with pytest.raises(ValueError, match="single row"):
        Empirical(linear, data[:1])
    with pytest.raises(ValueError, match="background"):
        kx.explain(linear, X, value="empirical")
    with pytest.raises(InvalidOptionError, match="did you mean 'bandwidth'"):
        kx.explain(linear, X, value="empirical", background=data[:100], bandwith=0.2)
    assert {"gaussian_copula", "empirical"} <= set(kx.values.registered())
