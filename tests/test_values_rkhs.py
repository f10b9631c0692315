"""RKHS-SHAP value functions against independent truth.

Interventional (KME, Prop. 3) vs the model-agnostic marginal game computed by
brute-force model calls; the polynomial-time product route vs enumeration;
observational (CME) vs a direct transcription of Prop. 3 one coalition at a
time; Nystrom vs exact; the Gaussian-conditional baseline vs closed forms.
"""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kernelxai as kx
from kernelxai.games import ProductGame, all_coalitions, tabulate
from kernelxai.kernels import RBF, Categorical, Cauchy, Laplace, Matern, Product
from kernelxai.models import KernelExpansion
from kernelxai.values import GaussianConditional, Interventional, Marginal


def make_model(d, n=30, kernel=None, seed=0, intercept=0.4):
    rng = np.random.default_rng(seed)
    Xt = rng.normal(size=(n, d))
    kernel = kernel or RBF(rng.uniform(0.6, 2.0, d))
    return KernelExpansion(Xt, rng.normal(size=n), kernel, intercept=intercept)


def marginal_by_loops(f, X, B, S):
    """(1/m) sum_b f(x_S, b_{S^c}) for each x, one synthetic point at a time."""
    out = []
    for x in X:
        pts = []
        for b in B:
            p = b.copy()
            p[list(S)] = x[list(S)]
            pts.append(p)
        out.append(np.mean(f(np.array(pts))))
    return np.array(out)


def shapley_by_formula(worth, d):
    """Textbook Shapley formula from a dict coalition(tuple) -> worths (n,)."""
    from math import factorial

    phi = np.zeros((len(worth[()]), d))
    for j in range(d):
        others = [i for i in range(d) if i != j]
        for s in range(d):
            for S in itertools.combinations(others, s):
                w = factorial(s) * factorial(d - s - 1) / factorial(d)
                phi[:, j] += w * (worth[tuple(sorted(S + (j,)))] - worth[S])
    return phi


# ----------------------------------------------------------------- interventional
@pytest.mark.parametrize("kernel", [None, Laplace(0.9), Cauchy([0.5, 1.0, 2.0, 1.5]),
                                    Product([(RBF([1.0, 2.0]), [0, 3]), (Categorical(), [1, 2])])],
                         ids=["rbf-ard", "laplace", "cauchy", "mixed"])
def test_interventional_game_equals_marginal_game_by_loops(kernel):
    d = 4
    model = make_model(d, kernel=kernel)
    rng = np.random.default_rng(1)
    B, X = rng.normal(size=(12, d)), rng.normal(size=(5, d))
    if kernel is not None and isinstance(kernel, Product):  # discrete columns for the delta kernel
        model = KernelExpansion(np.round(model.X_train), model.alpha, kernel, model.intercept)
        B, X = np.round(B), np.round(X)
    game = Interventional(model, B).game(X)
    assert isinstance(game, ProductGame)
    table = tabulate(game)
    direct = game._worths(all_coalitions(d))  # the per-coalition route, not the table
    for mask, S in enumerate(all_coalitions(d)):
        members = tuple(np.flatnonzero(S))
        truth = marginal_by_loops(model.predict, X, B, members)
        np.testing.assert_allclose(table[mask], truth, atol=1e-12)
        np.testing.assert_allclose(direct[mask], truth, atol=1e-12)


@pytest.mark.parametrize("d", [2, 3, 6, 9, 12])
def test_interventional_exact_equals_marginal_exact_and_product(d):
    """Full background, all coalitions: KME = model-agnostic (= shap KernelExplainer) = product route."""
    model = make_model(d, n=25, seed=d)
    rng = np.random.default_rng(d)
    X = rng.normal(size=(4, d))
    vf = Interventional(model)  # background = training inputs
    exact = kx.shapley_values(vf.game(X), method="exact")
    product = kx.shapley_values(vf.game(X), method="product")
    kernel_wls = kx.shapley_values(vf.game(X), method="kernel")
    np.testing.assert_allclose(product.values, exact.values, atol=1e-10)
    np.testing.assert_allclose(product.base_values, exact.base_values, atol=1e-10)
    np.testing.assert_allclose(kernel_wls.values, exact.values, atol=1e-10)
    if d <= 9:  # the model-call baseline is slow beyond that
        marginal = kx.shapley_values(Marginal(model, model.X_train).game(X), method="exact")
        np.testing.assert_allclose(exact.values, marginal.values, atol=1e-10)
        np.testing.assert_allclose(exact.base_values, marginal.base_values, atol=1e-10)
    # efficiency: values + base = f(x); base = mean of f over the background
    np.testing.assert_allclose(exact.values.sum(1) + exact.base_values, model.predict(X), atol=1e-10)
    np.testing.assert_allclose(exact.base_values, model.predict(model.X_train).mean(), atol=1e-10)


def test_interventional_matches_textbook_shapley_formula():
    d = 3
    model = make_model(d)
    rng = np.random.default_rng(3)
    B, X = rng.normal(size=(9, d)), rng.normal(size=(4, d))
    worth = {S: marginal_by_loops(model.predict, X, B, S)
             for s in range(d + 1) for S in itertools.combinations(range(d), s)}
    phi = kx.shapley_values(Interventional(model, B).game(X), method="product").values
    np.testing.assert_allclose(phi, shapley_by_formula(worth, d), atol=1e-12)


def test_product_route_at_d100_is_finite_and_efficient():
    d = 100
    model = make_model(d, n=40, kernel=RBF(8.0), seed=5)
    rng = np.random.default_rng(5)
    B, X = rng.normal(size=(25, d)), rng.normal(size=(3, d))
    vf = Interventional(model, B)
    assert kx.estimators.choose(vf.game(X))[0].name == "product"
    e = kx.explain(model, X, background=B)
    assert e.meta["method"] == "product"
    assert np.all(np.isfinite(e.values))
    np.testing.assert_allclose(e.values.sum(1), model.predict(X) - model.predict(B).mean(), atol=1e-10)


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 5), st.integers(0, 10**6))
def test_interventional_axioms_property(d, seed):
    """Efficiency; a feature the model ignores (huge lengthscale) gets ~0; exact = product."""
    rng = np.random.default_rng(seed)
    ls = rng.uniform(0.5, 2.0, d)
    ls[0] = 1e8  # feature 0 is (numerically) ignored by the model
    model = make_model(d, n=15, kernel=RBF(ls), seed=seed)
    B, X = rng.normal(size=(8, d)), rng.normal(size=(3, d))
    g = Interventional(model, B).game(X)
    e = kx.shapley_values(g, method="exact")
    np.testing.assert_allclose(e.values.sum(1) + e.base_values, model.predict(X), atol=1e-10)
    np.testing.assert_allclose(e.values[:, 0], 0, atol=1e-9)
    np.testing.assert_allclose(kx.shapley_values(g, method="product").values, e.values, atol=1e-10)


def test_interventional_groups_keep_product_structure():
    d = 5
    model = make_model(d)
    X = np.random.default_rng(2).normal(size=(3, d))
    groups = [[0, 1], [2], [3, 4]]
    g = Interventional(model, groups=groups, group_names=["a", "b", "c"]).game(X)
    assert isinstance(g, ProductGame) and g.player_names == ["a", "b", "c"]
    exact = kx.shapley_values(g, method="exact")
    np.testing.assert_allclose(kx.shapley_values(g, method="product").values, exact.values, atol=1e-12)
    # the grouped game is the feature game on expanded coalitions
    full = tabulate(Interventional(model).game(X))
    for mask, Z in enumerate(all_coalitions(3)):
        feats = sum(1 << j for k, grp in enumerate(groups) if Z[k] for j in grp)
        np.testing.assert_allclose(tabulate(g)[mask], full[feats], atol=1e-12)


def test_interventional_non_product_kernel_uses_model_calls():
    d = 3
    model = make_model(d, kernel=Matern(1.2, 1.5))
    rng = np.random.default_rng(4)
    B, X = rng.normal(size=(10, d)), rng.normal(size=(4, d))
    g = Interventional(model, B).game(X)
    assert not isinstance(g, ProductGame)
    for S in all_coalitions(d):
        np.testing.assert_allclose(g(S[None])[0], marginal_by_loops(model.predict, X, B, tuple(np.flatnonzero(S))),
                                   atol=1e-12)


def test_interventional_chunking_does_not_change_values():
    d = 4
    model = make_model(d, n=50)
    X = np.random.default_rng(6).normal(size=(7, d))
    big = kx.shapley_values(Interventional(model).game(X), "exact").values
    small = kx.shapley_values(Interventional(model, max_elements=500).game(X), "exact").values
    prod_small = kx.shapley_values(Interventional(model, max_elements=500).game(X), "product",
                                   max_elements=2000).values
    np.testing.assert_allclose(small, big, atol=1e-12)
    np.testing.assert_allclose(prod_small, big, atol=1e-12)


# ----------------------------------------------------------------- Gaussian conditional
def test_gaussian_conditional_linear_model_closed_form():
    """For f(x) = w'x, v(S)(x) = w_S'x_S + w_{S^c}'E[X_{S^c} | x_S] exactly up to MC noise of the mean."""
    rng = np.random.default_rng(7)
    d = 3
    cov = np.array([[1.0, 0.8, 0.0], [0.8, 1.0, 0.3], [0.0, 0.3, 1.0]])
    data = rng.multivariate_normal(np.zeros(d), cov, size=4000)
    w = np.array([1.0, -2.0, 0.5])
    vf = GaussianConditional(lambda Z: Z @ w, data, n_samples=4000, sample_seed=1)
    X = rng.normal(size=(3, d))
    g = vf.game(X)
    mu, C = data.mean(0), np.cov(data, rowvar=False)
    for S in all_coalitions(d)[1:-1]:
        s, t = np.flatnonzero(S), np.flatnonzero(~S)
        cond = mu[t] + (X[:, s] - mu[s]) @ np.linalg.solve(C[np.ix_(s, s)], C[np.ix_(s, t)])
        truth = X[:, s] @ w[s] + cond @ w[t]
        np.testing.assert_allclose(g(S[None])[0], truth, atol=0.06)
    e = kx.shapley_values(g)
    np.testing.assert_allclose(e.values.sum(1) + e.base_values, X @ w, atol=1e-10)
    np.testing.assert_allclose(e.base_values, (data @ w).mean(), atol=1e-12)


# ----------------------------------------------------------------- bad input
def test_value_function_bad_input():
    model = make_model(3)
    X = np.zeros((2, 3))
    with pytest.raises(ValueError, match="single row"):
        Interventional(model, np.zeros((1, 3)))
    with pytest.raises(ValueError, match="single row"):
        Marginal(model, np.zeros((1, 3)))
    with pytest.raises(ValueError, match="4 features but 3"):
        Interventional(model, np.zeros((5, 4)))
    with pytest.raises(ValueError, match="2 features but 3"):
        Interventional(model).game(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="NaN"):
        Interventional(model).game(np.array([[np.nan, 0, 0]]))
    with pytest.raises(ValueError, match="inf"):
        Interventional(model, np.array([[np.inf, 0, 0], [0, 0, 0]]))
    with pytest.raises(TypeError, match="supported models"):
        Interventional(object())
    with pytest.raises(TypeError, match="predict"):
        Marginal(3.0, X)
    with pytest.raises(ValueError, match="one number per row"):
        kx.shapley_values(Marginal(lambda Z: np.c_[Z, Z], np.ones((3, 3))).game(X))
    with pytest.raises(TypeError, match="ProductGame|product"):
        kx.shapley_values(Interventional(make_model(3, kernel=Matern(1.0))).game(X), method="product")


# ----------------------------------------------------------------- observational
from kernelxai.values import Observational  # noqa: E402


def cme_by_formula(model, B, X, S, eta):
    """RKHS-SHAP Prop. 3 written out with explicit matrices, one coalition."""
    k, m = model.kernel, len(B)
    gamma = np.linalg.solve(k.gram(B, B, S) + m * eta * np.eye(m), k.gram(B, X, S))
    return model.intercept + model.alpha @ (k.gram(model.X_train, X, S) * (k.gram(model.X_train, B, ~S) @ gamma))


def cme_regression_by_formula(model, B, X, S, eta):
    """RKHS-SHAP App. C eq. (8) with explicit matrices, one coalition."""
    k, m = model.kernel, len(B)
    beta = np.linalg.solve(k.gram(B, B, S) + m * eta * np.eye(m), model.predict(B) - model.intercept)
    return model.intercept + k.gram(X, B, S) @ beta


@pytest.mark.parametrize("own_background", [True, False])
@pytest.mark.parametrize("max_elements", [2**25, 3000], ids=["batched", "one-by-one"])
def test_observational_product_form_equals_prop3(own_background, max_elements):
    d, eta = 4, 1e-2
    model = make_model(d, n=30, seed=11)
    rng = np.random.default_rng(11)
    B = model.X_train if own_background else rng.normal(size=(23, d))
    X = rng.normal(size=(5, d))
    g = Observational(model, B, eta, max_elements=max_elements).game(X)
    table = tabulate(g)
    Z = all_coalitions(d)
    for mask in range(1, 2**d - 1):
        np.testing.assert_allclose(table[mask], cme_by_formula(model, B, X, Z[mask], eta), atol=1e-12)
    np.testing.assert_allclose(table[0], model.predict(B).mean(), atol=1e-12)   # v(empty) set
    np.testing.assert_allclose(table[-1], model.predict(X), atol=1e-12)          # v(D) = f(x)


@pytest.mark.parametrize("kernel", [Matern(1.3, 0.5), Matern([1.0, 2.0, 0.7], 2.5), RBF(1.0)],
                         ids=["matern-0.5", "matern-2.5-ard", "rbf-regression"])
def test_observational_regression_form_equals_appendix_c(kernel):
    d, eta = 3, 5e-3
    model = make_model(d, n=25, kernel=kernel, seed=12)
    X = np.random.default_rng(12).normal(size=(4, d))
    vf = Observational(model, eta=eta, form="regression")
    assert vf.form == "regression"
    g = vf.game(X)
    Z = all_coalitions(d)
    for mask in range(1, 2**d - 1):
        np.testing.assert_allclose(g(Z[mask]), cme_regression_by_formula(model, model.X_train, X, Z[mask], eta),
                                   atol=1e-12)


@pytest.mark.parametrize("kernel", [RBF([0.8, 1.2, 2.0, 1.0]), Matern(1.5, 1.5)], ids=["product", "matern"])
def test_observational_efficiency_to_1e10(kernel):
    d = 4
    model = make_model(d, n=40, kernel=kernel, seed=13)
    X = np.random.default_rng(13).normal(size=(6, d))
    for method in ("exact", "kernel"):
        e = kx.explain(model, X, value="observational", method=method, eta=1e-3)
        np.testing.assert_allclose(e.values.sum(1) + e.base_values, model.predict(X), atol=1e-10)
        np.testing.assert_allclose(e.base_values, model.predict(model.X_train).mean(), atol=1e-10)
    e = kx.explain(model, X, value="observational", method="permutation", n_permutations=10, seed=0)
    np.testing.assert_allclose(e.values.sum(1) + e.base_values, model.predict(X), atol=1e-10)


def test_nystrom_with_all_points_as_landmarks_is_the_exact_cme():
    d, eta = 3, 1e-2
    for kernel in (RBF([1.0, 0.7, 1.5]), Matern(1.0, 1.5)):
        model = make_model(d, n=35, kernel=kernel, seed=14)
        X = np.random.default_rng(14).normal(size=(4, d))
        exact = tabulate(Observational(model, eta=eta).game(X))
        nys = tabulate(Observational(model, eta=eta, landmarks=35).game(X))
        np.testing.assert_allclose(nys, exact, atol=1e-5)
        chunked = tabulate(Observational(model, eta=eta, landmarks=35, max_elements=20000).game(X))
        np.testing.assert_allclose(chunked, nys, atol=1e-10)
        # fewer landmarks: an approximation, still efficient by construction
        e = kx.shapley_values(Observational(model, eta=eta, landmarks=10).game(X))
        np.testing.assert_allclose(e.values.sum(1) + e.base_values, model.predict(X), atol=1e-10)


def test_nystrom_keeps_the_m_eta_scaling():
    """Doubling the background (duplicated rows) with eta fixed leaves the CME unchanged.

    K_S(BB, BB) + 2m eta I on a duplicated sample has the same regression
    solution as K_S(B, B) + m eta I; dropping the m (eta alone) would not.
    """
    d, eta = 3, 1e-2
    model = make_model(d, n=20, seed=15)
    X = np.random.default_rng(15).normal(size=(3, d))
    B = model.X_train
    once = tabulate(Observational(model, B, eta, landmarks=B).game(X))
    twice = tabulate(Observational(model, np.r_[B, B], eta, landmarks=B).game(X))
    np.testing.assert_allclose(twice, once, atol=1e-8)
    exact_twice = tabulate(Observational(model, np.r_[B, B], eta).game(X))
    np.testing.assert_allclose(exact_twice, tabulate(Observational(model, B, eta).game(X)), atol=1e-10)


def test_observational_ill_conditioned_warns_never_nan():
    d = 3
    model = make_model(d, n=30, seed=16)
    B = np.repeat(model.X_train[:10], 3, axis=0)  # duplicated rows: K_S singular
    X = np.random.default_rng(16).normal(size=(3, d))
    with pytest.warns(RuntimeWarning, match="jitter"):
        e = kx.explain(model, X, value="observational", background=B, eta=1e-300)
    assert np.all(np.isfinite(e.values))


def test_observational_groups_and_names():
    import pandas as pd

    d = 4
    model = make_model(d, seed=17)
    X = pd.DataFrame(np.random.default_rng(17).normal(size=(3, d)), columns=list("abcd"))
    e = kx.explain(model, X, value="observational", groups=[[0, 1], [2, 3]], group_names=["ab", "cd"])
    assert e.feature_names == ["ab", "cd"]
    np.testing.assert_allclose(e.values.sum(1) + e.base_values, model.predict(X.values), atol=1e-10)
    assert kx.explain(model, X, value="observational").feature_names == list("abcd")


def test_observational_bad_input():
    model = make_model(3)
    for eta in (0.0, -1e-3, np.nan, "0.1"):
        with pytest.raises(ValueError, match="eta"):
            Observational(model, eta=eta)
    with pytest.raises(ValueError, match="single row"):
        Observational(model, np.zeros((1, 3)))
    with pytest.raises(ValueError, match="form='product'.*product kernel"):
        Observational(make_model(3, kernel=Matern(1.0)), form="product")
    with pytest.raises(ValueError, match="unknown form"):
        Observational(model, form="nonsense")
    with pytest.raises(ValueError, match="exceeds"):
        Observational(model, landmarks=1000)
    with pytest.raises(ValueError, match="2 features but 3"):
        Observational(model, landmarks=np.zeros((5, 2)))
    with pytest.raises(ValueError, match="does not produce a product game"):
        kx.explain(model, np.zeros((2, 3)), value="observational", method="product")


# ----------------------------------------------------------------- datasets of the experiments
from kernelxai.datasets import real, rkhs_shap  # noqa: E402


@pytest.mark.parametrize("b", [1.0, 10.0, 100.0])
def test_banana_conditional_mean_against_adaptive_quadrature(b):
    from scipy import integrate

    v = 10.0
    xs = np.array([-3.0, -0.7, 0.0, 0.4, 2.5, 9.0])
    got = rkhs_shap.banana_conditional_u(xs, b, v)
    for x, g in zip(xs, got):
        u = lambda z: (z * z - v) / b
        dens = lambda z, k: u(z) ** k * np.exp(-z * z / (2 * v) - (x - u(z)) ** 2 / 2)
        pts = [np.sqrt(v + b * x)] if v + b * x > 0 else None
        num = integrate.quad(dens, 0, 40, args=(1,), points=pts, limit=400, epsabs=0, epsrel=1e-12)[0]
        den = integrate.quad(dens, 0, 40, args=(0,), points=pts, limit=400, epsabs=0, epsrel=1e-12)[0]
        assert g == pytest.approx(num / den, abs=1e-9)


def test_banana_ground_truth_properties():
    b, v = 10.0, 10.0
    X, y = rkhs_shap.banana(4000, b, v, seed=0)
    np.testing.assert_allclose(y, rkhs_shap.banana_function(X, b, v))
    for kind in ("interventional", "observational", "observational_paper"):
        phi = rkhs_shap.banana_shapley(X, b, v, kind)
        np.testing.assert_allclose(phi.sum(1), y, atol=1e-12)  # efficiency with E f = 0
    # Monte Carlo check of E[U | X2 = x2] on a thin slice of the sample
    U = (X[:, 0] ** 2 - v) / b
    near = np.abs(X[:, 1] - 1.0) < 0.1
    assert U[near].mean() == pytest.approx(rkhs_shap.banana_conditional_u(1.0, b, v), abs=0.15)
    # the paper's approximation is good when Var U = 2 v^2 / b^2 is large and poor when it is small
    def gap(bb):
        X2 = rkhs_shap.banana(1000, bb, v, seed=1)[0][:, 1]
        return np.abs(rkhs_shap.banana_conditional_u(X2, bb, v) - X2).mean()

    assert gap(1.0) < 0.3 < 0.6 < gap(100.0)


def test_correlated_gaussian_design():
    X, y = rkhs_shap.correlated_gaussian(20000, seed=1)
    C = np.corrcoef(X, rowvar=False)
    assert C[3, 4] == pytest.approx(0.9, abs=0.01) and abs(C[0, 1]) < 0.03
    np.testing.assert_allclose(y, X @ [1, 2, 3, 4, 10])
    Xs = rkhs_shap.shift_feature(X, 1.5, seed=2)
    np.testing.assert_array_equal(Xs[:, :4], X[:, :4])
    assert np.std(Xs[:, 4] - X[:, 4]) == pytest.approx(1.5, rel=0.03)


def test_real_data_bundled_and_unavailable(tmp_path):
    ds = real.load("diabetes")
    assert ds.X.shape == (442, 10) and "bmi" in ds.feature_names and ds.task == "regression"
    bc = real.load("breast_cancer")
    assert bc.X.shape == (569, 30) and set(bc.y) == {"malignant", "benign"}
    with pytest.raises(real.DatasetUnavailable, match="pima.*not cached"):
        real.load("pima", data_home_path=tmp_path, download=False)
    with pytest.raises(ValueError, match="unknown data set"):
        real.load("nonsense")
    # a cached CSV is used as is (what a first online run leaves behind)
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "colour": ["r", "g", "r"], "class": [0, 1, 0]})
    frame.to_csv(tmp_path / "pima.csv", index=False)
    cached = real.load("pima", data_home_path=tmp_path, download=False)
    assert cached.categorical == ["colour"] and "cache" in cached.source
    X, y, cat = real.numeric_design(cached)
    assert X.shape == (3, 2) and cat == [1]


def test_real_data_offline_raises_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(real, "_reachable", lambda host, timeout=3.0: False)
    with pytest.raises(real.DatasetUnavailable, match="not available offline"):
        real.load("adult", data_home_path=tmp_path)


def test_interventional_equals_shap_kernel_explainer():
    """With the full background and all coalitions, shap's KernelExplainer computes this game."""
    shap = pytest.importorskip("shap")
    d = 4
    model = make_model(d, n=20, seed=21)
    X = np.random.default_rng(21).normal(size=(3, d))
    ours = kx.explain(model, X, value="interventional", method="exact").values
    explainer = shap.KernelExplainer(model.predict, model.X_train)
    theirs = np.asarray(explainer.shap_values(X, nsamples=2**d + 10, silent=True))
    np.testing.assert_allclose(ours, theirs, atol=1e-8)
