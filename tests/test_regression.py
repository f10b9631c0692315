"""Shapley regression: R^2 decomposed over covariates (lecture), against scikit-learn fits."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.datasets import load_diabetes
from sklearn.linear_model import LinearRegression

import kernelxai as kx
from kernelxai.explainers._regression import R2Game
from kernelxai.games import all_coalitions, tabulate


def sk_r2(X, y, cols):
    cols = list(cols)
    if not cols:
        return 0.0
    Xs = X[:, cols]
    return LinearRegression().fit(Xs, y).score(Xs, y)


def test_values_sum_to_the_full_models_r2_on_diabetes():
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    e = kx.explain_r2(X, y)
    full = LinearRegression().fit(X, y).score(X, y)
    assert e.values.sum() == pytest.approx(full, abs=1e-12)
    assert e.meta["r2"] == pytest.approx(full, abs=1e-12) and e.base_values == 0
    assert e.feature_names == list(X.columns)
    # bmi and s5 carry most of the explained variance
    assert set(np.array(e.feature_names)[np.argsort(e.values)[-2:]]) == {"bmi", "s5"}


@given(st.integers(1, 5), st.integers(0, 2**31 - 1))
def test_every_worth_is_the_r2_of_a_least_squares_fit(d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, d)) @ rng.normal(size=(d, d))
    y = X @ rng.normal(size=d) + rng.normal(size=40)
    table = tabulate(R2Game(X, y))
    for mask, z in enumerate(all_coalitions(d)):
        assert table[mask] == pytest.approx(sk_r2(X, y, np.flatnonzero(z)), abs=1e-9)
    e = kx.explain_r2(X, y)
    assert e.values.sum() == pytest.approx(sk_r2(X, y, range(d)), abs=1e-9)


def test_uncorrelated_covariates_get_their_squared_correlations():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(100, 4))
    X, _ = np.linalg.qr(A - A.mean(0))  # orthonormal columns, each orthogonal to the ones vector
    y = X @ [3.0, 1.0, 0.0, -2.0] + rng.normal(size=100)
    Xc = X - X.mean(0)
    assert np.abs(Xc.T @ Xc - np.eye(4)).max() < 1e-12  # exactly uncorrelated covariates
    corr2 = np.array([np.corrcoef(X[:, j], y)[0, 1] ** 2 for j in range(4)])
    np.testing.assert_allclose(kx.explain_r2(X, y).values, corr2, atol=1e-10)


def test_two_covariates_closed_form():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 2))
    X[:, 1] += 0.7 * X[:, 0]
    y = X @ [1.0, 2.0] + rng.normal(size=80)
    r1, r2, r12 = sk_r2(X, y, [0]), sk_r2(X, y, [1]), sk_r2(X, y, [0, 1])
    np.testing.assert_allclose(kx.explain_r2(X, y).values,
                               [(r1 + r12 - r2) / 2, (r2 + r12 - r1) / 2], atol=1e-12)


def test_duplicate_and_constant_covariates():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(60, 2))
    y = x @ [1.0, -1.0] + 0.5 * rng.normal(size=60)
    X = np.column_stack([x[:, 0], x[:, 0], x[:, 1], np.full(60, 4.0)])
    e = kx.explain_r2(X, y)
    assert e.values[0] == pytest.approx(e.values[1], abs=1e-10)  # symmetric players
    assert e.values[3] == pytest.approx(0, abs=1e-12)              # null player
    assert e.values.sum() == pytest.approx(sk_r2(x, y, [0, 1]), abs=1e-10)


def test_groups_decompose_r2_over_groups_of_covariates():
    X, y = load_diabetes(return_X_y=True)
    groups = [[0, 1], [2, 3], [4, 5, 6, 7, 8, 9]]
    e = kx.explain_r2(X, y, groups=groups, group_names=["demographic", "body", "serum"])
    assert e.feature_names == ["demographic", "body", "serum"]
    assert e.values.sum() == pytest.approx(sk_r2(X, y, range(10)), abs=1e-12)
    # group worths are the R^2 of the union of the groups' covariates
    r = {S: sk_r2(X, y, sum((groups[g] for g in S), [])) for k in range(4)
         for S in combinations(range(3), k)}
    phi0 = (r[(0,)] - r[()]) / 3 + (r[(0, 1)] - r[(1,)]) / 6 + (r[(0, 2)] - r[(2,)]) / 6 \
        + (r[(0, 1, 2)] - r[(1, 2)]) / 3
    assert e.values[0] == pytest.approx(phi0, abs=1e-12)


def test_sampling_estimators_apply():
    X, y = load_diabetes(return_X_y=True)
    exact = kx.explain_r2(X, y).values
    perm = kx.explain_r2(X, y, method="permutation", n_permutations=400, seed=0)
    assert np.all(np.abs(perm.values - exact) <= 5 * perm.stderr + 1e-12)


def test_bad_input():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20, 3))
    with pytest.raises(ValueError, match="constant"):
        kx.explain_r2(X, np.ones(20))
    with pytest.raises(ValueError, match="one value per row"):
        kx.explain_r2(X, np.ones(19))
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        kx.explain_r2(X_nan, rng.normal(size=20))
    with pytest.raises(ValueError, match="NaN"):
        kx.explain_r2(X, np.r_[np.nan, rng.normal(size=19)])
    with pytest.raises(ValueError, match="group_names given without groups"):
        kx.explain_r2(X, rng.normal(size=20), group_names=["a"])
    with pytest.raises(ValueError, match="partition"):
        kx.explain_r2(X, rng.normal(size=20), groups=[[0, 1]])
