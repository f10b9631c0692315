"""Shapley attributions of MMD (PKeX Prop. 6) and HSIC (Prop. 8, App. G)."""

import numpy as np
import pandas as pd
import pytest

import kernelxai as kx
from kernelxai.datasets import pkex
from kernelxai.explainers._discrepancy import HSICGame, MMDGame, hsic_permutation_test, mmd_permutation_test


def mmd_reference(X, Z, kernel, unbiased=True):
    """MMD^2 from the full Gram matrices (Gretton et al. 2012)."""
    n, m = len(X), len(Z)
    Kxx, Kzz, Kxz = kernel.gram(X, X), kernel.gram(Z, Z), kernel.gram(X, Z)
    if unbiased:
        return ((Kxx.sum() - np.trace(Kxx)) / (n * (n - 1)) + (Kzz.sum() - np.trace(Kzz)) / (m * (m - 1))
                - 2 * Kxz.mean())
    return Kxx.mean() + Kzz.mean() - 2 * Kxz.mean()


def hsic_reference(X, Y, kx_, ky):
    n = len(X)
    H = np.eye(n) - 1.0 / n
    return np.trace(kx_.gram(X) @ H @ ky.gram(Y) @ H) / (n - 1) ** 2


def small_samples(seed=0, n=35, m=28, d=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Z = rng.normal(size=(m, d))
    Z[:, d // 2:] = rng.standard_t(4, size=(m, d - d // 2))
    return X, Z


# --------------------------------------------------------------------------- MMD
@pytest.mark.parametrize("unbiased", [True, False])
def test_mmd_values_sum_to_the_statistic_and_equal_brute_force(unbiased):
    X, Z = small_samples()
    kernel = kx.kernels.RBF([1.0, 1.5, 2.0, 1.0, 0.7, 1.2])
    stat = mmd_reference(X, Z, kernel, unbiased)
    e = kx.explain_mmd(X, Z, kernel=kernel, unbiased=unbiased, seed=0)
    assert e.values.shape == (6,) and e.base_values == 0     # one signed explanation
    np.testing.assert_allclose(e.values.sum(), stat, atol=1e-10)
    np.testing.assert_allclose(e.meta["statistic"], stat, atol=1e-12)
    brute = kx.explain_mmd(X, Z, kernel=kernel, unbiased=unbiased, method="exact", n_permutations=0)
    np.testing.assert_allclose(e.values, brute.values, atol=1e-12)
    for method in ("stable", "newton"):
        np.testing.assert_allclose(kx.explain_mmd(X, Z, kernel=kernel, unbiased=unbiased, method=method,
                                                  n_permutations=0).values, brute.values, atol=1e-12)


def test_mmd_game_worths_are_the_restricted_statistic():
    X, Z = small_samples(1, d=4)
    kernel = kx.kernels.RBF(1.3)
    game = MMDGame(X, Z, kernel)
    for mask in ([1, 0, 0, 1], [0, 1, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1]):
        S = np.flatnonzero(mask)
        expected = mmd_reference(X[:, S], Z[:, S], kx.kernels.RBF(1.3)) if len(S) else 0.0
        np.testing.assert_allclose(game(np.array(mask, dtype=bool)), [expected], atol=1e-13)


def test_mmd_default_kernel_is_the_pooled_median_heuristic():
    X, Z = small_samples(2)
    e = kx.explain_mmd(X, Z, n_permutations=0)
    ls = kx.kernels.median_heuristic(np.vstack([X, Z]), pooled=True)
    np.testing.assert_allclose(e.values.sum(), mmd_reference(X, Z, kx.kernels.RBF(ls)), atol=1e-10)
    assert np.isnan(e.meta["p_value"])


def test_mmd_attribution_on_the_synthetic_design():
    """PKeX §5.2: identically distributed features pull MMD down, the differing ones push it up."""
    X, Z = pkex.two_sample(n=500, m=500, d_same=10, d_diff=10, seed=0)
    e = kx.explain_mmd(X, Z, seed=0, n_permutations=100)
    phi = e.values
    assert phi[:10].mean() <= 0
    assert np.all(phi[10:] > 0)
    np.testing.assert_allclose(phi.sum(), e.meta["statistic"], atol=1e-10)
    assert e.meta["p_value"] <= 0.05


def test_mmd_permutation_test_is_calibrated_under_the_null():
    rng = np.random.default_rng(3)
    pvals = []
    kernel = kx.kernels.RBF(2.0)
    for _ in range(40):
        X, Z = rng.normal(size=(30, 3)), rng.normal(size=(25, 3))
        stat, p = mmd_permutation_test(X, Z, kernel, n_permutations=99, seed=rng)
        np.testing.assert_allclose(stat, mmd_reference(X, Z, kernel), atol=1e-12)
        pvals.append(p)
    pvals = np.array(pvals)
    assert 0.0 < np.mean(pvals <= 0.1) < 0.3       # about 10% rejections at level 0.1
    assert pvals.min() >= 1 / 100


def test_mmd_game_streams_pairs_in_bounded_blocks():
    X, Z = small_samples(4, n=120, m=90, d=5)
    game = MMDGame(X, Z, kx.kernels.RBF(1.0))
    sizes = [a.size for _, _, a, _ in game.iter_terms(max_elements=5 * 210 * 8)]
    assert max(sizes) <= 5 * 210 * 8 and len(sizes) > 10
    total = sum(a.shape[1] for _, _, a, _ in game.iter_terms(max_elements=5 * 210 * 8))
    assert total == 210 * 209 // 2             # unordered pairs, diagonal dropped (unbiased)


# --------------------------------------------------------------------------- HSIC
def test_hsic_values_sum_to_the_statistic_and_equal_brute_force():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(50, 7))
    y = np.sin(X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.normal(size=50)
    e = kx.explain_hsic(X, y, seed=0)
    kxx = kx.kernels.RBF(kx.kernels.median_heuristic(X, pooled=True))
    kyy = kx.kernels.RBF(kx.kernels.median_heuristic(y[:, None], pooled=True))
    stat = hsic_reference(X, y[:, None], kxx, kyy)
    np.testing.assert_allclose(e.values.sum(), stat, atol=1e-10)
    np.testing.assert_allclose(e.meta["statistic"], stat, atol=1e-12)
    assert e.values.shape == (7,) and e.base_values == 0     # one signed explanation
    brute = kx.explain_hsic(X, y, method="exact", n_permutations=0)
    np.testing.assert_allclose(e.values, brute.values, atol=1e-12)
    assert np.argmax(e.values) in (0, 1)
    assert e.meta["p_value"] <= 0.05


def test_hsic_class_labels_get_the_delta_kernel():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(60, 4))
    labels = np.where(X[:, 2] > 0, "yes", "no")
    e = kx.explain_hsic(pd.DataFrame(X, columns=list("abcd")), pd.Series(labels), seed=1)
    assert e.meta["kernel_y"] == "Categorical()" and e.meta["labels"]
    assert e.feature_names == list("abcd") and np.argmax(e.values) == 2
    codes = (labels == "yes").astype(float)[:, None]
    kxx = kx.kernels.RBF(kx.kernels.median_heuristic(X, pooled=True))
    np.testing.assert_allclose(e.values.sum(), hsic_reference(X, codes, kxx, kx.kernels.Categorical()),
                               atol=1e-10)


def test_hsic_multivariate_target_attributes_both_sides():
    """App. G: one game per side, each summing to HSIC."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(40, 4))
    Y = np.c_[X[:, 0] + 0.3 * rng.normal(size=40), rng.normal(size=40), X[:, 3] ** 2]
    e = kx.explain_hsic(X, Y, n_permutations=0)
    assert e.values.shape == (2, 7) and e.meta["rows"] == ["x", "y"]
    stat = e.meta["statistic"]
    np.testing.assert_allclose(e.values.sum(1), [stat, stat], atol=1e-10)
    assert np.all(e.values[0, 4:] == 0) and np.all(e.values[1, :4] == 0)
    kxx = kx.kernels.RBF(kx.kernels.median_heuristic(X, pooled=True))
    kyy = kx.kernels.RBF(kx.kernels.median_heuristic(Y, pooled=True))
    np.testing.assert_allclose(stat, hsic_reference(X, Y, kxx, kyy), atol=1e-12)
    game_y = HSICGame(Y, X, kyy, kxx)
    np.testing.assert_allclose(e.values[1, 4:], kx.shapley_values(game_y, method="exact").values[0],
                               atol=1e-12)
    only_y = kx.explain_hsic(X, Y, attribute="y", n_permutations=0)
    assert only_y.feature_names == ["y0", "y1", "y2"]
    assert only_y.values.shape == (3,) and np.argmin(only_y.values) == 1


def test_hsic_permutation_test_detects_dependence_and_not_independence():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(80, 2))
    k = kx.kernels.RBF(1.0)
    _, p_dep = hsic_permutation_test(X, X[:, :1] ** 2, k, k, n_permutations=99, seed=0)
    _, p_ind = hsic_permutation_test(X, rng.normal(size=(80, 1)), k, k, n_permutations=99, seed=0)
    assert p_dep <= 0.02 and p_ind > 0.05


# --------------------------------------------------------------------------- bad input
def test_bad_input_gets_clear_errors():
    X, Z = small_samples(9)
    with pytest.raises(TypeError, match="product kernel"):
        kx.explain_mmd(X, Z, kernel=kx.kernels.Matern(1.0))
    with pytest.raises(ValueError, match="d = 1"):
        kx.explain_mmd(X[:, :1], Z[:, :1])
    with pytest.raises(ValueError, match="same features"):
        kx.explain_mmd(X, Z[:, :4])
    with pytest.raises(ValueError, match="different columns"):
        kx.explain_mmd(pd.DataFrame(X, columns=list("abcdef")), pd.DataFrame(Z, columns=list("abcdfe")))
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        kx.explain_mmd(bad, Z)
    bad[3, 1] = np.inf
    with pytest.raises(ValueError, match="inf"):
        kx.explain_hsic(bad, np.arange(len(bad)))
    const = X.copy()
    const[:, 2] = 1.0
    Zc = Z.copy()
    Zc[:, 2] = 1.0
    with pytest.raises(ValueError, match="constant"):
        kx.explain_mmd(const, Zc)
    with pytest.raises(ValueError, match="constant"):
        kx.explain_hsic(const, X[:, 0])
    with pytest.raises(ValueError, match="rows"):
        kx.explain_hsic(X, X[:-1, 0])
    with pytest.raises(ValueError, match="constant"):
        kx.explain_hsic(X, np.ones(len(X)))
    with pytest.raises(TypeError, match="product kernel"):
        kx.explain_hsic(X, X[:, 0], kernel_x=kx.kernels.Matern(1.0))
    with pytest.raises(ValueError, match="attribute"):
        kx.explain_hsic(X, X[:, 0], attribute="z")
    with pytest.raises(ValueError, match="n_permutations"):
        kx.explain_mmd(X, Z, n_permutations=-1)


# --------------------------------------------------------------------------- data of the PKeX experiments
def test_pkex_designs():
    X, Z = pkex.two_sample(n=4000, m=4000, d_same=2, d_diff=2, df=5.0, seed=0)
    assert X.shape == Z.shape == (4000, 4)
    np.testing.assert_allclose(Z[:, :2].var(0), 1.0, atol=0.1)
    np.testing.assert_allclose(Z[:, 2:].var(0), 5.0 / 3.0, rtol=0.15)          # t covariance df/(df-2)
    _, Zm = pkex.two_sample(n=10, m=4000, d_same=1, d_diff=2, df=5.0, match_covariance=True, seed=1)
    np.testing.assert_allclose(Zm[:, 1:].var(0), 1.0, rtol=0.15)
    X, y, active = pkex.active_features(n=50, d=8, n_active=3, target="poly10", seed=0)
    assert X.shape == (50, 8) and y.shape == (50,) and list(active) == [0, 1, 2]
    X2, y2, _ = pkex.active_features(n=50, d=8, n_active=3, target="poly10", seed=0)
    np.testing.assert_array_equal(y, y2)
    Xl, yl, beta = pkex.linear_regression(n=30, d=4, noise=0.0, seed=0)
    np.testing.assert_allclose(yl, Xl @ beta)
    with pytest.raises(ValueError, match="target"):
        pkex.active_features(target="cubic")
    with pytest.raises(ValueError, match="df"):
        pkex.two_sample(df=2.0)


def test_selection_data_never_substitutes():
    from kernelxai.datasets import real

    X, y, task = pkex.load_selection_data("wine")
    assert X.shape == (178, 13) and task == "classification" and set(y) == {0, 1, 2}
    with pytest.raises(real.DatasetUnavailable, match="not replaced"):
        pkex.load_selection_data("skillcraft")
    with pytest.raises(ValueError, match="unknown data set"):
        pkex.load_selection_data("mnist")
    a, b = pkex.diabetes_by_sex()
    assert len(a) + len(b) == 442 and "sex" not in a.columns and a.shape[1] == 9


# ------------------------------------------------------- the returned explanation
def test_mmd_returns_one_signed_explanation_with_its_statistic():
    """values (d,), e.statistic / e.p_value shown in the repr, bar draws the signs."""
    import matplotlib.pyplot as plt

    X, Z = pkex.two_sample(n=60, m=60, d_same=3, d_diff=2, seed=1)
    e = kx.explain_mmd(X, Z, seed=0, n_permutations=99)
    assert e.values.shape == (5,) and e.base_values == 0.0
    assert e.statistic == e.meta["statistic"] and e.p_value == e.meta["p_value"]
    np.testing.assert_allclose(e.output, e.statistic, atol=1e-10)
    assert f"MMD^2_u = {e.statistic:.3g}, p = {e.p_value:.3g}" in repr(e)
    ax = kx.plots.bar(e)
    widths = np.array([p.get_width() for p in ax.patches])
    np.testing.assert_allclose(np.sort(widths), np.sort(e.values))
    assert widths.min() < 0 < widths.max()          # same features pull MMD down, others push up
    plt.close("all")
    skipped = kx.explain_mmd(X, Z, unbiased=False, n_permutations=0)
    assert "MMD^2_b = " in repr(skipped) and "p not computed" in repr(skipped)
    # a sampled estimator's intervals come along, one per feature
    sampled = kx.explain_mmd(X, Z, method="permutation", budget=400, seed=0, n_permutations=0)
    assert sampled.lower.shape == sampled.upper.shape == sampled.stderr.shape == (5,)
    assert np.all(sampled.lower <= sampled.values) and np.all(sampled.values <= sampled.upper)
    assert kx.Explanation(np.zeros(3)).statistic is None        # not an explanation of a statistic


def test_hsic_returns_one_signed_explanation_per_side():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(40, 4))
    Y = np.c_[X[:, 0] + 0.3 * rng.normal(size=40), rng.normal(size=40), X[:, 3] ** 2]
    e = kx.explain_hsic(X, Y[:, 0], seed=0, n_permutations=49)
    assert e.values.shape == (4,) and e.base_values == 0.0 and e.meta["rows"] == ["x"]
    assert f"HSIC = {e.statistic:.3g}, p = {e.p_value:.3g}" in repr(e)
    np.testing.assert_allclose(e.output, e.statistic, atol=1e-10)
    only_y = kx.explain_hsic(X, Y, attribute="y", n_permutations=0)
    assert only_y.values.shape == (3,) and only_y.meta["rows"] == ["y"]
    # both sides: two games over X's then Y's features; each row one signed explanation
    both = kx.explain_hsic(X, Y, attribute="both", method="permutation", budget=200, seed=0,
                           n_permutations=0)
    assert both.values.shape == both.lower.shape == (2, 7) and both.meta["rows"] == ["x", "y"]
    assert np.all(both.lower[0, 4:] == 0) and np.all(both.upper[1, :4] == 0)
    x_side = both[0]
    assert x_side.values.shape == (7,) and x_side.statistic == both.statistic
    assert "HSIC = " in repr(x_side)
