"""kx.explain: one call from any supported model to an Explanation."""


import numpy as np
import pandas as pd
import pytest

import kernelxai as kx
from kernelxai.kernels import RBF, Matern
from kernelxai.models import KernelExpansion, KernelLogisticRegression, KernelRidge

rng = np.random.default_rng(0)
X = rng.normal(size=(80, 3))
y = np.sin(X[:, 0]) + X[:, 1] ** 2 - 0.5 * X[:, 2]
df = pd.DataFrame(X, columns=["age", "bmi", "bp"])


def test_explain_sklearn_kernel_ridge_without_conversion():
    from sklearn.kernel_ridge import KernelRidge as SkKernelRidge

    krr = SkKernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, y)
    e = kx.explain(krr, X[:10], value="interventional")
    assert e.values.shape == (10, 3)
    np.testing.assert_allclose(e.values.sum(1) + e.base_values, krr.predict(X[:10]), atol=1e-10)
    np.testing.assert_allclose(e.base_values, krr.predict(X).mean(), atol=1e-10)  # background = X_fit_
    # equals the model-agnostic interventional game with the same background
    m = kx.explain(krr, X[:10], value="marginal", method="exact")
    np.testing.assert_allclose(e.values, m.values, atol=1e-10)


def test_explain_kernelxai_estimators_and_feature_names():
    model = KernelRidge(lam=1e-2).fit(df, y)
    e = kx.explain(model, df.iloc[:5])
    assert e.feature_names == ["age", "bmi", "bp"]
    assert e[:, "bmi"].values.shape == (5,)
    np.testing.assert_allclose(e.data, X[:5])
    clf = KernelLogisticRegression(lam=1e-2).fit(X, (y > 0.5).astype(int))
    e = kx.explain(clf, X[:5])  # the logit
    np.testing.assert_allclose(e.values.sum(1) + e.base_values, clf.decision_function(X[:5]), atol=1e-10)


def test_auto_method_rule_and_options_pass_through():
    model = KernelRidge(RBF(1.0), lam=1e-2).fit(X, y)
    e = kx.explain(model, X[:4])  # d = 3: tabulating 8 coalitions is cheaper than the product route
    assert e.meta["method"] == "exact"
    p = kx.explain(model, X[:4], method="product")
    np.testing.assert_allclose(p.values, e.values, atol=1e-10)
    # a background option and estimator options (n_coalitions, seed) are routed correctly
    k = kx.explain(model, X[:4], method="kernel", n_coalitions=4, seed=0, background=X[:20])
    assert k.meta["n_coalitions"] == 4
    np.testing.assert_allclose(k.base_values, model.predict(X[:20]).mean(), atol=1e-10)
    # d > 12 with a product kernel: the polynomial-time route
    Xw = rng.normal(size=(30, 14))
    wide = KernelExpansion(Xw, rng.normal(size=30), RBF(3.0))
    assert kx.explain(wide, Xw[:2]).meta["method"] == "product"
    # d > 12 with a non-product kernel: sampled KernelSHAP
    wide_m = KernelExpansion(Xw, rng.normal(size=30), Matern(3.0, 2.5))
    e = kx.explain(wide_m, Xw[:2], n_coalitions=64, seed=1)
    assert e.meta["method"] == "kernel"


def test_explain_gaussian_conditional_takes_background_as_data():
    model = KernelRidge(RBF(1.0), lam=1e-2).fit(X, y)
    e = kx.explain(model, X[:3], value="gaussian_conditional", background=X[:40], n_samples=20)
    np.testing.assert_allclose(e.base_values, model.predict(X[:40]).mean(), atol=1e-10)


def test_explain_bad_input():
    from sklearn.kernel_ridge import KernelRidge as SkKernelRidge

    model = KernelRidge(RBF(1.0), lam=1e-2).fit(X, y)
    # a non-product kernel is explained exactly through model calls, and says so
    e = kx.explain(SkKernelRidge(kernel="poly").fit(X, y), X[:3], background=X[:8])
    assert "model calls" in e.meta["route"]
    with pytest.raises(ValueError, match="not fitted"):
        kx.explain(SkKernelRidge(), X[:3])
    with pytest.raises(ValueError, match="unknown value function"):
        kx.explain(model, X[:3], value="nonsense")
    with pytest.raises(ValueError, match="2 features but 3"):
        kx.explain(model, X[:3, :2])
    with pytest.raises(ValueError, match="4 features but 3"):
        kx.explain(model, X[:3], background=np.zeros((5, 4)))
    with pytest.raises(ValueError, match="single row"):
        kx.explain(model, X[:3], background=X[:1])
    with pytest.raises(ValueError, match="NaN"):
        kx.explain(model, np.r_[X[:2], [[np.nan, 0, 0]]])
    with pytest.raises(ValueError, match="unknown method"):
        kx.explain(model, X[:3], method="nonsense")
    matern = KernelExpansion(X, np.ones(80), Matern(1.0))
    with pytest.raises(ValueError, match="not a product kernel.*'exact'"):
        kx.explain(matern, X[:3], method="product")


def test_models_fitted_on_dataframes_get_their_column_names_back():
    import warnings

    import pandas as pd
    from sklearn.kernel_ridge import KernelRidge as SkKRR

    from kernelxai.values._agnostic import as_predict

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(30, 3)), columns=["a", "b", "c"])
    model = SkKRR(kernel="rbf").fit(X, X["a"] ** 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # scikit-learn warns when names go missing
        out = as_predict(model)(X.to_numpy()[:5])
        kx.uncertainty.single_reference(model, X.iloc[[0]], X.iloc[1:6])
    np.testing.assert_allclose(out, model.predict(X[:5]))
