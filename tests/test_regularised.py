"""Shapley-regularised kernel ridge and kernel logistic regression (RKHS-SHAP Prop. 7).

Independent truth: KernelRidge / KernelLogisticRegression (lam_shapley = 0),
the normal equations solved directly on a well-conditioned problem, a generic
optimiser on the objective written out in alpha, and kx.explain for the
Shapley values of the fitted models.
"""


import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize
from scipy.special import log_expit
from sklearn.base import clone

import kernelxai as kx
from kernelxai.datasets import rkhs_shap
from kernelxai.functionals._regularised import ShapleyRegularisedKernelLogisticRegression, ShapleyRegularisedKernelRidge
from kernelxai.kernels import RBF
from kernelxai.models import KernelLogisticRegression, KernelRidge

OPTS = {"interventional": {}, "observational": {"eta": 1e-3}}


@pytest.fixture(scope="module")
def gaussian():
    X, y = rkhs_shap.correlated_gaussian(240, seed=0)
    return X, y


@pytest.mark.parametrize("value", ["interventional", "observational"])
@pytest.mark.parametrize("lam", [None, 1e-3])
def test_zero_lam_shapley_reproduces_kernel_ridge(gaussian, value, lam):
    X, y = gaussian
    plain = KernelRidge(lam=lam).fit(X, y)
    reg = ShapleyRegularisedKernelRidge(lam=lam, lam_shapley=0.0, features=[4], value=value).fit(X, y)
    assert reg.lam_ == plain.lam_ and reg.representers_ is not None
    Xtest = rkhs_shap.correlated_gaussian(100, seed=1)[0]
    np.testing.assert_allclose(reg.predict(Xtest), plain.predict(Xtest), atol=1e-8, rtol=0)
    np.testing.assert_allclose(reg.predict(X), plain.predict(X), atol=1e-8, rtol=0)


def test_closed_form_equals_the_normal_equations():
    """Prop. 7's closed form, written out and solved directly where K is well conditioned."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 3))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=40)
    kernel, lam, ls = RBF(0.7), 1e-2, 3.0
    for value in ("interventional", "observational"):
        m = ShapleyRegularisedKernelRidge(kernel, lam, ls, features=[1, 2], value=value).fit(X, y)
        K = kernel.gram(X)
        R = m.representers_
        RtR = sum(Ri.T @ Ri for Ri in R.matrices)
        n = len(y)
        A = np.zeros((n + 1, n + 1))
        A[:n, :n] = K @ K + n * lam * K + ls * RtR
        A[:n, n] = K.sum(axis=1)
        A[n, :n] = K.sum(axis=0)
        A[n, n] = n
        sol = np.linalg.solve(A, np.concatenate([K @ y, [y.sum()]]))
        np.testing.assert_allclose(m.predict(X), K @ sol[:n] + sol[n], atol=1e-8)
        np.testing.assert_allclose(m.intercept_, sol[n], atol=1e-8)


def test_fit_minimises_the_objective():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3))
    y = X @ [1.0, -2.0, 0.5] + 0.1 * rng.normal(size=30)
    m = ShapleyRegularisedKernelRidge(RBF(1.0), 1e-2, 2.0, features=["x0"]).fit(X, y)
    K, R = m.kernel_.gram(X), m.representers_.matrices[0]

    def objective(z):
        a, b = z[:-1], z[-1]
        return np.mean((y - K @ a - b) ** 2) + 1e-2 * a @ K @ a + 2.0 * np.mean((R @ a) ** 2)

    best = objective(np.append(m.alpha_, m.intercept_))
    for _ in range(20):
        z = np.append(m.alpha_, m.intercept_) + 1e-3 * rng.normal(size=31)
        assert objective(z) >= best - 1e-12


@pytest.mark.parametrize("value", ["interventional", "observational"])
def test_mean_squared_shapley_value_falls_monotonically(gaussian, value):
    X, y = gaussian
    grid = [0.0, 0.01, 0.1, 1.0, 10.0, 100.0, 1e3, 1e4]
    path = ShapleyRegularisedKernelRidge(features=[4], value=value).path(X, y, grid)
    assert [m.lam_shapley for m in path] == grid
    mean_sq = []
    for m in path:
        phi = kx.explain(m, X, value=value, method="exact", **OPTS[value]).values
        np.testing.assert_allclose(m.representers_.values(m.alpha_)[:, 0], phi[:, 4], atol=1e-10)
        mean_sq.append(np.mean(phi[:, 4] ** 2))
        assert np.isclose(m.shapley_penalty_, mean_sq[-1], rtol=1e-8)
    assert np.all(np.diff(mean_sq) < 0), mean_sq
    assert mean_sq[-1] < 0.01 * mean_sq[0]


def test_path_equals_separate_fits(gaussian):
    X, y = gaussian
    est = ShapleyRegularisedKernelRidge(lam=1e-4, features=[3, 4])
    path = est.path(X, y, [0.5, 5.0])
    assert not hasattr(est, "expansion_")              # path leaves the estimator itself alone
    for m in path:
        single = clone(est).set_params(lam_shapley=m.lam_shapley).fit(X, y)
        np.testing.assert_allclose(m.predict(X[:20]), single.predict(X[:20]), atol=1e-10)


def test_exp4_design_osv_reg_shrinks_the_proxy_isv_reg_does_not(gaussian):
    """RKHS-SHAP Exp. 4: X4, X5 correlated 0.9, X5 regularised."""
    X, y = gaussian
    out = {}
    for value in ("interventional", "observational"):
        m0, m1 = ShapleyRegularisedKernelRidge(features=[4], value=value).path(X, y, [0.0, 10.0])
        phi0 = kx.explain(m0, X, value=value, method="exact", **OPTS[value]).values
        phi1 = kx.explain(m1, X, value=value, method="exact", **OPTS[value]).values
        out[value] = (np.mean(phi0 ** 2, 0), np.mean(phi1 ** 2, 0))
    before, after = out["observational"]
    assert after[4] < 0.2 * before[4] and after[3] < 0.5 * before[3]      # both shrink
    before, after = out["interventional"]
    assert after[4] < 0.2 * before[4] and after[3] > 2 * before[3]        # phi_4 grows


def test_explain_accepts_the_estimators_and_dataframes(gaussian):
    X, y = gaussian
    df = pd.DataFrame(X, columns=["a", "b", "c", "proxy", "sensitive"])
    m = ShapleyRegularisedKernelRidge(lam_shapley=1.0, features=["sensitive"]).fit(df, y)
    assert m.features_ == [4]
    e = kx.explain(m, df.iloc[:10])
    assert e.feature_names == ["a", "b", "c", "proxy", "sensitive"]
    np.testing.assert_allclose(e.values.sum(1) + e.base_values, m.predict(df.iloc[:10]), atol=1e-10)
    np.testing.assert_allclose(e.values[:, 4], m.representers_.values(m.alpha_)[:10, 0], atol=1e-10)


def test_sampled_coalitions_approximate_the_exact_regulariser(gaussian):
    X, y = gaussian
    exact = ShapleyRegularisedKernelRidge(lam=1e-4, lam_shapley=1.0, features=[4]).fit(X, y)
    sampled = ShapleyRegularisedKernelRidge(lam=1e-4, lam_shapley=1.0, features=[4],
                                            n_coalitions=400, random_state=1).fit(X, y)
    assert not sampled.representers_.exact and exact.representers_.exact
    rel = np.abs(sampled.predict(X) - exact.predict(X)).max() / np.abs(exact.predict(X)).max()
    assert rel < 0.05


# ------------------------------------------------------------ logistic
@pytest.fixture(scope="module")
def binary():
    X, y = rkhs_shap.correlated_gaussian(160, seed=4)
    return X, np.where(y > 0, "yes", "no")


def test_logistic_zero_lam_shapley_is_kernel_logistic_regression(binary):
    X, y = binary
    plain = KernelLogisticRegression(lam=1e-3).fit(X, y)
    reg = ShapleyRegularisedKernelLogisticRegression(lam=1e-3, lam_shapley=0.0, features=[4]).fit(X, y)
    np.testing.assert_allclose(reg.decision_function(X), plain.decision_function(X), atol=1e-10)
    tiny = ShapleyRegularisedKernelLogisticRegression(lam=1e-3, lam_shapley=1e-9, features=[4]).fit(X, y)
    np.testing.assert_allclose(tiny.decision_function(X), plain.decision_function(X), atol=1e-5)
    assert list(reg.classes_) == ["no", "yes"]


def test_logistic_minimises_the_objective(binary):
    X, y = binary
    X, y = X[:50], y[:50]
    t = (y == "yes").astype(float)
    lam, ls = 1e-2, 5.0
    m = ShapleyRegularisedKernelLogisticRegression(RBF(1.5), lam, ls, features=[4],
                                                   value="observational").fit(X, y)
    K, R = m.kernel_.gram(X), m.representers_.matrices[0]
    s = 2 * t - 1

    def objective(z):
        a, b = z[:-1], z[-1]
        f = K @ a + b
        return -log_expit(s * f).mean() + lam * a @ K @ a + ls * np.mean((R @ a) ** 2)

    ours = objective(np.append(m.alpha_, m.intercept_))
    ref = minimize(objective, np.zeros(51), method="BFGS", options={"gtol": 1e-10, "maxiter": 20000})
    assert ours <= ref.fun + 1e-8
    np.testing.assert_allclose(m.decision_function(X), K @ ref.x[:-1] + ref.x[-1], atol=1e-3)


def test_logistic_penalty_falls_and_explain_works(binary):
    X, y = binary
    pens = [ShapleyRegularisedKernelLogisticRegression(lam=1e-3, lam_shapley=ls, features=[4])
            .fit(X, y).shapley_penalty_ for ls in (0.0, 0.1, 1.0, 10.0)]
    assert np.all(np.diff(pens) < 0), pens
    m = ShapleyRegularisedKernelLogisticRegression(lam=1e-3, lam_shapley=1.0, features=[4]).fit(X, y)
    e = kx.explain(m, X[:5])
    np.testing.assert_allclose(e.values.sum(1) + e.base_values, m.decision_function(X[:5]), atol=1e-10)


# ------------------------------------------------------------ bad input
def test_bad_input(gaussian, binary):
    X, y = gaussian
    for bad in (-1.0, np.nan, np.inf, True, "1"):
        with pytest.raises(ValueError, match="lam_shapley must be a non-negative number"):
            ShapleyRegularisedKernelRidge(lam_shapley=bad, features=[4]).fit(X, y)
    with pytest.raises(ValueError, match="unknown feature 'age'"):
        ShapleyRegularisedKernelRidge(lam_shapley=1.0, features=["age"]).fit(X, y)
    with pytest.raises(ValueError, match="out of range"):
        ShapleyRegularisedKernelRidge(lam_shapley=1.0, features=[5]).fit(X, y)
    with pytest.raises(ValueError, match="value must be one of|value"):
        ShapleyRegularisedKernelRidge(lam_shapley=1.0, features=[4], value="banzhaf").fit(X, y)
    with pytest.raises(ValueError, match="eta"):
        ShapleyRegularisedKernelRidge(lam_shapley=1.0, features=[4], value="observational",
                                      eta=0.0).fit(X, y)
    with pytest.raises(ValueError, match="n_coalitions"):
        ShapleyRegularisedKernelRidge(lam_shapley=1.0, features=[4], n_coalitions=0).fit(X, y)
    with pytest.warns(UserWarning, match="features is empty"):
        m = ShapleyRegularisedKernelRidge(lam_shapley=1.0).fit(X, y)
    np.testing.assert_allclose(m.predict(X), KernelRidge().fit(X, y).predict(X), atol=1e-12)
    with pytest.warns(UserWarning, match="toward a constant"):
        ShapleyRegularisedKernelRidge(lam=1e-3, lam_shapley=1.0, features=range(5)).fit(X[:60], y[:60])
    with pytest.raises(ValueError, match="not fitted|fit"):
        kx.explain(ShapleyRegularisedKernelRidge(), X[:3])
    Xb, yb = binary
    with pytest.raises(ValueError, match="needs exactly 2 classes"):
        ShapleyRegularisedKernelLogisticRegression(lam_shapley=1.0, features=[4]).fit(
            Xb, np.arange(len(Xb)) % 3)
    with pytest.raises(ValueError, match="Unknown label type|continuous"):
        ShapleyRegularisedKernelLogisticRegression(lam_shapley=1.0, features=[4]).fit(Xb, y[:len(Xb)])
    with pytest.raises(ValueError, match="lam_shapley"):
        ShapleyRegularisedKernelLogisticRegression(lam_shapley=-2, features=[4]).fit(Xb, yb)
    params = ShapleyRegularisedKernelRidge(lam_shapley=2.0, features=[4]).get_params()
    assert params["lam_shapley"] == 2.0 and params["features"] == [4] and params["value"] == "interventional"
