"""Models: scikit-learn compatibility, closed forms, exact conversion of fitted models."""

import warnings

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import kernelxai as kx
from kernelxai.kernels import RBF, Laplace, Matern
from kernelxai.models import KernelExpansion, KernelLogisticRegression, KernelRidge, as_expansion, loo_scores

rng = np.random.default_rng(0)
X = rng.normal(size=(120, 3))
y = np.sin(2 * X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.normal(size=120)
labels = (X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=120) > 0.3).astype(int)
X_new = rng.normal(size=(40, 3))


@parametrize_with_checks([KernelRidge(), KernelLogisticRegression()])
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


# ---------------------------------------------------------------- kernel ridge
def test_kernel_ridge_solves_the_penalised_least_squares_problem():
    k = RBF([1.0, 0.7, 2.0])
    lam = 1e-2
    m = KernelRidge(k, lam=lam).fit(X, y)
    n = len(X)
    K = k.gram(X)
    # the bordered system of the unpenalised intercept, solved independently
    M = np.zeros((n + 1, n + 1))
    M[:n, :n] = K + n * lam * np.eye(n)
    M[:n, n] = M[n, :n] = 1.0
    sol = np.linalg.solve(M, np.r_[y, 0.0])
    np.testing.assert_allclose(m.alpha_, sol[:n], atol=1e-9)
    assert m.intercept_ == pytest.approx(sol[n], abs=1e-9)
    np.testing.assert_allclose(m.predict(X_new), K_new(k) @ sol[:n] + sol[n], atol=1e-9)
    assert isinstance(m.expansion_, KernelExpansion)


def K_new(k):
    return k.gram(X_new, X)


def test_loo_scores_equal_brute_force_leave_one_out():
    n = 25
    Xs, ys = X[:n], y[:n]
    k = RBF(1.0)
    K = k.gram(Xs)
    grid = [1e-3, 3e-2, 0.3]
    brute = []
    for lam in grid:
        errs = []
        for i in range(n):
            keep = np.arange(n) != i
            M = np.zeros((n, n))
            M[:n - 1, :n - 1] = K[np.ix_(keep, keep)] + n * lam * np.eye(n - 1)
            M[:n - 1, n - 1] = M[n - 1, :n - 1] = 1.0
            sol = np.linalg.solve(M, np.r_[ys[keep], 0.0])
            errs.append(ys[i] - K[i, keep] @ sol[:-1] - sol[-1])
        brute.append(np.mean(np.square(errs)))
    np.testing.assert_allclose(loo_scores(K, ys, grid), brute, rtol=1e-8)


def test_kernel_ridge_defaults_median_heuristic_and_cv():
    m = KernelRidge().fit(X, y)
    np.testing.assert_allclose(m.kernel_.lengthscale, kx.kernels.median_heuristic(X))
    assert m.lam_ in kx.models.DEFAULT_LAMBDAS
    assert m.cv_scores_[list(kx.models.DEFAULT_LAMBDAS).index(m.lam_)] == m.cv_scores_.min()
    assert m.score(X, y) > 0.9
    assert KernelRidge().get_params()["lam"] is None


# ---------------------------------------------------------------- logistic
def test_kernel_logistic_regression_is_stationary_and_calibrated():
    k = RBF(1.0)
    lam = 1e-3
    clf = KernelLogisticRegression(k, lam=lam).fit(X, labels)
    n = len(X)
    f = clf.decision_function(X)
    p = 1 / (1 + np.exp(-f))
    # stationarity of (1/n) sum softplus(-s f) + lam alpha'K alpha in alpha and b
    np.testing.assert_allclose((p - labels) / n + 2 * lam * clf.alpha_, 0, atol=1e-8)
    assert abs((p - labels).sum()) < 1e-7
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], p)
    assert clf.score(X, labels) > 0.85
    np.testing.assert_allclose(as_expansion(clf).predict(X_new), clf.decision_function(X_new))


def test_kernel_logistic_regression_string_labels_and_cv():
    names = np.array(["no", "yes"])[labels]
    clf = KernelLogisticRegression().fit(X, names)
    assert list(clf.classes_) == ["no", "yes"]
    assert set(clf.predict(X_new)) <= {"no", "yes"}
    assert clf.lam_ in kx.models.DEFAULT_LAMBDAS


# ---------------------------------------------------------------- as_expansion
def _sklearn_models():
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF as SkRBF
    from sklearn.gaussian_process.kernels import ConstantKernel, WhiteKernel
    from sklearn.gaussian_process.kernels import Matern as SkMatern
    from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
    from sklearn.svm import SVC, SVR

    return [
        ("krr-rbf", SkKernelRidge(kernel="rbf", gamma=0.4, alpha=0.1), y, RBF),
        ("krr-rbf-default-gamma", SkKernelRidge(kernel="rbf", alpha=0.1), y, RBF),
        ("krr-laplacian", SkKernelRidge(kernel="laplacian", gamma=0.3, alpha=0.1), y, Laplace),
        ("svr", SVR(C=3.0, gamma="scale"), y, RBF),
        ("svc", SVC(C=2.0, gamma=0.5), labels, RBF),
        ("gpr-rbf", GaussianProcessRegressor(SkRBF(1.0), alpha=1e-2), y, RBF),
        ("gpr-c-rbf-white-normalized", GaussianProcessRegressor(
            ConstantKernel(2.0) * SkRBF([1.0, 1.0, 1.0]) + WhiteKernel(0.1), normalize_y=True), y, RBF),
        ("gpr-rbf-c", GaussianProcessRegressor(SkRBF(1.0) * ConstantKernel(1.5), alpha=1e-2), y, RBF),
        ("gpr-matern", GaussianProcessRegressor(ConstantKernel() * SkMatern(1.0, nu=1.5) + WhiteKernel(),
                                                normalize_y=True), y, Matern),
    ]


@pytest.mark.parametrize("name, model, target, kernel_cls", _sklearn_models(),
                         ids=[m[0] for m in _sklearn_models()])
def test_as_expansion_reproduces_sklearn_predictions(name, model, target, kernel_cls):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, target)
    e = as_expansion(model)
    assert isinstance(e.kernel, kernel_cls)
    expected = model.decision_function(X_new) if hasattr(model, "decision_function") else model.predict(X_new)
    np.testing.assert_allclose(e.predict(X_new), expected, rtol=0, atol=1e-10 * max(1, np.abs(expected).max()))


def test_as_expansion_keeps_dataframe_feature_names():
    import pandas as pd
    from sklearn.kernel_ridge import KernelRidge as SkKernelRidge

    df = pd.DataFrame(X, columns=["age", "bmi", "bp"])
    assert as_expansion(SkKernelRidge(kernel="rbf").fit(df, y)).feature_names == ["age", "bmi", "bp"]
    assert as_expansion(KernelRidge(lam=0.1).fit(df, y)).feature_names == ["age", "bmi", "bp"]


def test_as_expansion_bad_input_names_what_is_supported():
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import DotProduct
    from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
    from sklearn.linear_model import LinearRegression
    from sklearn.svm import SVC, SVR

    with pytest.raises(TypeError, match="precomputed"):
        as_expansion(SkKernelRidge(kernel="precomputed").fit(X @ X.T, y))
    with pytest.raises(TypeError, match="supported models"):
        as_expansion(LinearRegression().fit(X, y))
    with pytest.raises(TypeError, match="'rbf'"):
        as_expansion(SVR(kernel="linear").fit(X, y))
    with pytest.raises(TypeError, match="binary"):
        as_expansion(SVC().fit(X, np.arange(120) % 3))
    from sklearn.gaussian_process.kernels import RBF as SkRBF

    class Custom(SkRBF):
        pass

    with pytest.raises(TypeError, match="Custom"):
        as_expansion(GaussianProcessRegressor(Custom()).fit(X, y))
    # DotProduct (not a product kernel) now converts exactly: predictions agree
    gp = GaussianProcessRegressor(DotProduct(), alpha=1e-2).fit(X, y)
    np.testing.assert_allclose(as_expansion(gp).predict(X[:5]), gp.predict(X[:5]), atol=1e-8)
    for unfitted in (SkKernelRidge(), SVR(), GaussianProcessRegressor(), KernelRidge(),
                     KernelLogisticRegression()):
        with pytest.raises(ValueError, match="not fitted"):
            as_expansion(unfitted)
    with pytest.raises(TypeError, match="supported models"):
        as_expansion("not a model")


def test_estimator_bad_input():
    with pytest.raises(ValueError, match="lam"):
        KernelRidge(lam=-1.0).fit(X, y)
    with pytest.raises(TypeError, match="kernelxai kernel"):
        KernelRidge(kernel="rbf").fit(X, y)
    with pytest.raises(ValueError, match="features"):
        KernelRidge(RBF([1.0, 2.0]), lam=0.1).fit(X, y)
    with pytest.raises(ValueError, match="binary"):
        KernelLogisticRegression(lam=0.1).fit(X, np.arange(120) % 3)
    with pytest.raises(ValueError, match="NaN|infinity"):
        KernelRidge(lam=0.1).fit(np.r_[X[:-1], [[np.nan, 0, 0]]], y)
    with pytest.raises(ValueError, match="features"):
        KernelRidge(lam=0.1).fit(X, y).predict(X[:, :2])


def test_ill_conditioned_ridge_warns_and_stays_finite():
    Xd = np.repeat(X[:10], 3, axis=0)  # duplicated rows: K is singular
    with pytest.warns(RuntimeWarning, match="jitter"):
        m = KernelRidge(RBF(1.0), lam=1e-300).fit(Xd, np.repeat(y[:10], 3))
    assert np.all(np.isfinite(m.alpha_))
