"""The functional baseline value function (PKeX Def. 1, Lemma 4, Prop. 10)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.svm import SVR

import kernelxai as kx
from kernelxai.games import all_coalitions

METHODS = ("quadrature", "stable", "newton", "brute")


def svr_expansion(d, n=150, seed=0):
    """A fitted scikit-learn SVR as a KernelExpansion (rbf gamma -> RBF lengthscale 1/sqrt(2 gamma))."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X @ rng.normal(size=d) + 0.1 * rng.normal(size=n)
    svr = SVR(kernel="rbf", gamma=0.5 / d, C=10.0).fit(X, y)
    model = kx.models.KernelExpansion(svr.support_vectors_, svr.dual_coef_[0],
                                      kx.kernels.RBF(1 / np.sqrt(2 * svr.gamma)), svr.intercept_[0])
    np.testing.assert_allclose(model.predict(X[:5]), svr.predict(X[:5]), atol=1e-10)
    return model, rng.normal(size=(6, d))


@pytest.mark.parametrize("d", [2, 4, 8, 12])
def test_all_methods_agree_with_brute_force_and_efficiency(d):
    model, Xe = svr_expansion(d, seed=d)
    brute = kx.explain(model, Xe, value="functional_baseline", method="brute")
    f = model.predict(Xe)
    np.testing.assert_allclose(brute.values.sum(1), f - model.intercept - model.alpha.sum(), atol=1e-10)
    np.testing.assert_allclose(brute.base_values, model.intercept + model.alpha.sum(), atol=1e-12)
    for method in METHODS:
        e = kx.explain(model, Xe, value="functional_baseline", method=method)
        np.testing.assert_allclose(e.values, brute.values, atol=1e-10, err_msg=method)
        np.testing.assert_allclose(e.values.sum(1), f - model.intercept - model.alpha.sum(),
                                   atol=1e-10, err_msg=method)
        np.testing.assert_allclose(e.output, f, atol=1e-10)
    assert kx.explain(model, Xe, value="functional_baseline").meta["method"] == "product"


@pytest.mark.parametrize("d", [3, 7])
def test_normalised_variant(d):
    """Prop. 10: v(empty) = b; phi grows by sum(alpha)/d; values sum to f(x) - b."""
    model, Xe = svr_expansion(d, seed=20 + d)
    model.alpha = model.alpha + 0.05          # make sum(alpha) clearly non-zero
    plain = kx.explain(model, Xe, value="functional_baseline")
    f = model.predict(Xe)
    for method in METHODS:
        e = kx.explain(model, Xe, value="functional_baseline", normalize=True, method=method)
        np.testing.assert_allclose(e.values.sum(1), f - model.intercept, atol=1e-10)
        np.testing.assert_allclose(e.values, plain.values + model.alpha.sum() / d, atol=1e-10)
        np.testing.assert_allclose(e.base_values, model.intercept, atol=1e-12)


def test_worths_are_the_definition():
    """v_x(S) = alpha^T k_S(X_S, x_S) + b, computed here from the kernel's own Gram matrices."""
    model, Xe = svr_expansion(5, seed=3)
    game = kx.values.FunctionalBaseline(model).game(Xe)
    Z = all_coalitions(5)
    expected = np.array([model.kernel.gram(Xe, model.X_train, subset=z) @ model.alpha for z in Z])
    np.testing.assert_allclose(game(Z), expected + model.intercept, rtol=1e-12, atol=1e-12)
    normalised = kx.values.FunctionalBaseline(model, normalize=True).game(Xe)
    expected[0] = 0.0
    np.testing.assert_allclose(normalised(Z), expected + model.intercept, rtol=1e-12, atol=1e-12)


def test_zero_kernel_factors_are_exact():
    """A categorical feature gives exact zeros; worths and all routes stay exact."""
    rng = np.random.default_rng(4)
    X = np.c_[rng.normal(size=(40, 3)), rng.integers(0, 3, size=40)]
    kernel = kx.kernels.Product([(kx.kernels.RBF([1.0, 2.0, 1.5]), [0, 1, 2]),
                                 (kx.kernels.Categorical(), [3])])
    model = kx.models.KernelExpansion(X, rng.normal(size=40), kernel)
    Xe = X[:4] + np.r_[0.1, 0.1, 0.1, 0.0]
    brute = kx.explain(model, Xe, value="functional_baseline", method="exact")
    for method in ("quadrature", "stable"):
        np.testing.assert_allclose(kx.explain(model, Xe, value="functional_baseline",
                                              method=method).values, brute.values, atol=1e-12)


def test_groups_keep_the_product_structure():
    model, Xe = svr_expansion(6, seed=5)
    groups = [[0, 1], [2], [3, 4, 5]]
    e = kx.explain(model, Xe, value="functional_baseline", groups=groups, group_names=["a", "b", "c"])
    brute = kx.explain(model, Xe, value="functional_baseline", groups=groups, method="exact")
    np.testing.assert_allclose(e.values, brute.values, atol=1e-12)
    assert e.feature_names == ["a", "b", "c"]
    np.testing.assert_allclose(e.values.sum(1), model.predict(Xe) - model.intercept - model.alpha.sum(),
                               atol=1e-10)


def test_sampling_estimators_run_on_the_same_game():
    model, Xe = svr_expansion(10, seed=6)
    exact = kx.explain(model, Xe, value="functional_baseline").values
    ks = kx.explain(model, Xe, value="functional_baseline", method="kernel", n_coalitions=4000, seed=0)
    assert np.abs(ks.values - exact).max() < 0.05 * np.abs(exact).max()
    np.testing.assert_allclose(ks.values.sum(1), exact.sum(1), atol=1e-10)


def test_feature_names_flow_from_dataframes():
    model, Xe = svr_expansion(3, seed=7)
    frame = pd.DataFrame(Xe, columns=["age", "bmi", "bp"])
    e = kx.explain(model, frame, value="functional_baseline")
    assert e.feature_names == ["age", "bmi", "bp"]
    assert e.data.shape == e.values.shape


def test_registered_and_auto():
    assert "functional_baseline" in kx.values.registered()
    model, _ = svr_expansion(3)
    vf = kx.values.FunctionalBaseline(model)
    assert kx.estimators.choose(vf.game(np.zeros((1, 3))))[0].name == "product"
    assert "normalize=False" in repr(vf)


def test_sklearn_models_via_as_expansion():
    """Works on a fitted scikit-learn SVR directly once models.as_expansion supports it (issue #3)."""
    model, Xe = svr_expansion(4, seed=8)
    rng = np.random.default_rng(8)
    X = rng.normal(size=(100, 4))
    svr = SVR(kernel="rbf", gamma=0.2).fit(X, X[:, 0] - X[:, 1] ** 2)
    try:
        expansion = kx.models.as_expansion(svr)
    except TypeError:
        pytest.skip("as_expansion does not support SVR yet")
    e = kx.explain(svr, Xe, value="functional_baseline")
    np.testing.assert_allclose(e.output, svr.predict(Xe), atol=1e-8)
    np.testing.assert_allclose(e.values.sum(1),
                               svr.predict(Xe) - expansion.intercept - expansion.alpha.sum(), atol=1e-8)


# --------------------------------------------------------------------------- bad input
class _NotProduct(kx.kernels.Kernel):
    def gram(self, A, B=None):
        A, B = self._check_pair(A, B)
        return np.exp(-np.abs(A[:, None, :] - B[None, :, :]).sum(-1) ** 2)


def test_non_product_kernel_is_refused():
    rng = np.random.default_rng(0)
    model = kx.models.KernelExpansion(rng.normal(size=(10, 3)), np.ones(10), _NotProduct())
    with pytest.raises(TypeError, match="product kernel"):
        kx.explain(model, np.zeros((1, 3)), value="functional_baseline")


def test_one_feature_works():
    """d = 1 works everywhere: the one value is f(x) - b - sum(alpha) (f(x) - b normalised)."""
    model = kx.models.KernelExpansion(np.arange(5.0)[:, None], np.ones(5), kx.kernels.RBF(1.0), 0.5)
    x = np.array([[1.3], [3.7]])
    for normalize, shift in ((False, model.alpha.sum()), (True, 0.0)):
        e = kx.explain(model, x, value="functional_baseline", normalize=normalize)
        np.testing.assert_allclose(e.values[:, 0], model.predict(x) - 0.5 - shift, atol=1e-12)


def test_bad_points_are_refused():
    model, Xe = svr_expansion(3)
    with pytest.raises(ValueError, match="features"):
        kx.explain(model, np.zeros((2, 4)), value="functional_baseline")
    bad = Xe.copy()
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        kx.explain(model, bad, value="functional_baseline")
    bad[1, 2] = np.inf
    with pytest.raises(ValueError, match="inf"):
        kx.explain(model, bad, value="functional_baseline")
    with pytest.raises(TypeError, match="normalize"):
        kx.values.FunctionalBaseline(model, normalize="yes")
    with pytest.raises(ValueError, match="background"):
        kx.explain(model, Xe, value="functional_baseline", background=Xe)
