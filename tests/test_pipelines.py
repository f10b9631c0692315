"""Pipelines and plain callables are explained, never refused (issue #11, item 2).

Found: ``Pipeline(StandardScaler(), SVR())`` -- the standard way to fit a
kernel model -- and any plain callable f(X) -> y were refused by
``kx.explain``, even with ``value="marginal"``.

* Per-feature affine preprocessing is folded exactly into the kernel: the
  expansion predicts what the pipeline predicts (1e-10) and its mean-embedding
  values equal model-call averages of the pipeline itself (1e-9).
* Anything else is explained through model calls, with the route in meta.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.decomposition import PCA
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel, WhiteKernel
from sklearn.gaussian_process.kernels import Matern as SkMatern
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import (
    FunctionTransformer,
    MaxAbsScaler,
    MinMaxScaler,
    PolynomialFeatures,
    RobustScaler,
    StandardScaler,
)
from sklearn.svm import SVC, SVR

import kernelxai as kx
from kernelxai.explainers._explain import BackgroundRequiredError
from kernelxai.kernels import RBF, Cauchy, Laplace, Product
from kernelxai.models import KernelExpansion, KernelLogisticRegression, KernelRidge, as_expansion
from kernelxai.models.convert._affine import IGNORED_LENGTHSCALE, AffineMap, affine_map, fold_affine

D = 5
_rng = np.random.default_rng(11)
# features on very different scales and offsets, so a wrong fold cannot pass by accident
X = _rng.normal(size=(50, D)) * [1.0, 3.0, 0.02, 4.0, 500.0] + [0.0, 10.0, -1.0, 7.0, 2000.0]
Y = np.sin(X[:, 0]) + X[:, 1] / 3 + 20 * X[:, 2] + np.cos(X[:, 3] / 4) + X[:, 4] / 500
BG, XE = X[:12], X[30:34] + 0.1 * np.std(X, axis=0)


def _column_transformer():
    # output columns in the order [4, 0 | 2 | 1, 3]: reordered, with passthrough. (Columns in the
    # thousands are scaled: sklearn's rbf_kernel forms |a|^2 + |b|^2 - 2ab, whose own cancellation
    # there is ~1e-9, more than the 1e-10 checked.)
    return ColumnTransformer([("std", StandardScaler(), [4, 0]), ("mm", MinMaxScaler(), [2])],
                             remainder="passthrough")


SCALERS = {
    "standard": StandardScaler,
    "minmax": lambda: MinMaxScaler(feature_range=(-1, 2)),
    "maxabs": MaxAbsScaler,
    "robust": RobustScaler,
    "column_transformer": _column_transformer,
}
MODELS = {
    "svr": lambda: SVR(C=5.0, gamma=0.3),
    "krr": lambda: SkKernelRidge(kernel="rbf", gamma=0.2, alpha=0.1),
    "gpr": lambda: GaussianProcessRegressor(
        ConstantKernel(2.0) * SkRBF([1.0, 2.0, 0.5, 1.5, 3.0]) + WhiteKernel(0.1),
        optimizer=None, normalize_y=True),
}


def _fit(pipe, X=X, y=Y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return pipe.fit(X, y)


def _check_efficiency(e, f):
    np.testing.assert_allclose(e.values.sum(axis=1) + e.base_values, f, atol=1e-9)


@pytest.mark.parametrize("model", sorted(MODELS))
@pytest.mark.parametrize("scaler", sorted(SCALERS))
def test_affine_pipeline_folds_exactly(scaler, model):
    """Found: refused. Now the expansion is in the original units, and exact."""
    pipe = _fit(make_pipeline(SCALERS[scaler](), MODELS[model]()))
    expansion = as_expansion(pipe)
    assert expansion.n_features == D
    # exact conversion: predictions in the original units
    np.testing.assert_allclose(expansion.predict(XE), pipe.predict(XE), rtol=0, atol=1e-10)
    np.testing.assert_allclose(expansion.predict(X), pipe.predict(X), rtol=0, atol=1e-10)
    # the product route still applies
    assert expansion.kernel.is_product
    e = kx.explain(pipe, XE, value="interventional", background=BG)
    assert e.meta["route"] == "kernel expansion (exact mean embeddings)"
    assert "folded into the kernel" in e.meta["preprocessing"]
    _check_efficiency(e, pipe.predict(XE))
    # equal to model-call averages of the pipeline itself (not of the expansion)
    calls = kx.explain(pipe.predict, XE, value="marginal", background=BG)
    assert calls.meta["route"].startswith("model calls (marginal)")
    np.testing.assert_allclose(e.values, calls.values, rtol=0, atol=1e-9)
    np.testing.assert_allclose(e.base_values, calls.base_values, rtol=0, atol=1e-9)
    # value="marginal" on the pipeline works too (found: refused even then)
    m = kx.explain(pipe, XE, value="marginal", background=BG)
    np.testing.assert_allclose(m.values, calls.values, rtol=0, atol=1e-9)


def test_folded_lengthscales_and_points_are_in_original_units():
    pipe = _fit(make_pipeline(StandardScaler(), SkKernelRidge(kernel="rbf", gamma=0.5, alpha=0.1)))
    expansion = as_expansion(pipe)
    scaler = pipe[0]
    np.testing.assert_allclose(expansion.kernel.lengthscale, 1.0 * scaler.scale_, rtol=1e-12)
    np.testing.assert_allclose(expansion.X_train, X, rtol=1e-12, atol=1e-12)


def test_column_transformer_order_names_and_dropped_columns():
    """Columns by name, reordered, one dropped (remainder='drop'): values in the input order."""
    cols = ["age", "bmi", "bp", "s1", "s5"]
    df = pd.DataFrame(X, columns=cols)
    ct = ColumnTransformer([("r", RobustScaler(), ["s5", "bp"]), ("m", MaxAbsScaler(), ["age"]),
                            ("p", "passthrough", ["bmi"])])  # s1 dropped
    pipe = _fit(make_pipeline(ct, SVR(C=3.0, gamma=0.5)), df)
    expansion = as_expansion(pipe)
    assert expansion.feature_names == cols
    dfe = pd.DataFrame(XE, columns=cols)
    np.testing.assert_allclose(expansion.predict(XE), pipe.predict(dfe), rtol=0, atol=1e-10)
    # the dropped column's factor is exactly 1
    assert expansion.kernel.lengthscale[3] == IGNORED_LENGTHSCALE
    moved = XE.copy()
    moved[:, 3] += 1e6
    np.testing.assert_array_equal(expansion.predict(moved), expansion.predict(XE))
    e = kx.explain(pipe, dfe, background=df.iloc[:12])
    assert e.feature_names == cols
    np.testing.assert_allclose(e.values[:, 3], 0.0, atol=1e-12)  # a null player
    calls = kx.explain(lambda Z: pipe.predict(pd.DataFrame(Z, columns=cols)), XE, value="marginal",
                       background=BG)
    np.testing.assert_allclose(e.values, calls.values, rtol=0, atol=1e-9)
    _check_efficiency(e, pipe.predict(dfe))


@pytest.mark.parametrize("final", [
    lambda: SkKernelRidge(kernel="laplacian", gamma=0.1, alpha=0.1),
    lambda: GaussianProcessRegressor(SkMatern([1.0, 2.0, 0.5, 1.5, 3.0], nu=2.5), alpha=1e-2,
                                     optimizer=None),
    lambda: KernelRidge(RBF([1.0, 2.0, 0.5, 1.5, 3.0]), lam=1e-2),
    lambda: KernelRidge(Product([(Laplace([1.0, 2.0]), [0, 3]), (Cauchy(1.5), [1, 2, 4])]),
                        lam=1e-2),
], ids=["laplacian", "matern_ard", "kx_krr", "kx_product"])
def test_other_kernels_fold_exactly(final):
    pipe = _fit(make_pipeline(_column_transformer(), final()))
    expansion = as_expansion(pipe)
    np.testing.assert_allclose(expansion.predict(XE), pipe.predict(XE), rtol=0, atol=1e-10)
    e = kx.explain(pipe, XE, background=BG)
    calls = kx.explain(pipe.predict, XE, value="marginal", background=BG)
    np.testing.assert_allclose(e.values, calls.values, rtol=0, atol=1e-9)
    _check_efficiency(e, pipe.predict(XE))


@pytest.mark.parametrize("final", [
    lambda: SkKernelRidge(alpha=0.5),  # the default: kernel="linear"
    lambda: GaussianProcessRegressor(ConstantKernel(1.0) * SkRBF([1.0, 2.0, 0.5, 1.5, 3.0])
                                     + ConstantKernel(0.5) * SkRBF(3.0) + WhiteKernel(0.1),
                                     optimizer=None),
    lambda: GaussianProcessRegressor(SkRBF([1.0, 2.0, 0.5, 1.5, 3.0]) * SkRBF(2.0)
                                     + ConstantKernel(0.3), optimizer=None, alpha=1e-2),
], ids=["linear", "sum_of_rbf", "product_plus_constant"])
def test_composite_and_linear_kernels_fold_exactly(final):
    """Sums and products of product kernels, and the linear kernel, stay exact after scaling."""
    pipe = _fit(make_pipeline(_column_transformer(), final()))
    try:
        as_expansion(pipe[-1])
    except TypeError:
        pytest.skip("this kernel is not converted by kernelxai (kernelxai.models)")
    expansion = as_expansion(pipe)
    np.testing.assert_allclose(expansion.predict(XE), pipe.predict(XE), rtol=0, atol=1e-10)
    e = kx.explain(pipe, XE, background=BG)
    assert e.meta["route"].startswith("kernel expansion")
    calls = kx.explain(pipe.predict, XE, value="marginal", background=BG)
    np.testing.assert_allclose(e.values, calls.values, rtol=0, atol=1e-9)
    _check_efficiency(e, pipe.predict(XE))


def test_non_product_kernel_route_says_model_calls():
    pipe = _fit(make_pipeline(StandardScaler(), GaussianProcessRegressor(
        SkMatern(1.0, nu=1.5), optimizer=None, alpha=1e-2)))
    e = kx.explain(pipe, XE, background=BG)
    assert e.meta["route"].startswith("model calls (marginal): the kernel Matern")
    _check_efficiency(e, pipe.predict(XE))


def test_classifiers_fold_to_their_decision_function():
    labels = Y > np.median(Y)
    for clf in (SVC(C=2.0, gamma=0.2), KernelLogisticRegression(RBF(2.0), lam=1e-2)):
        pipe = _fit(make_pipeline(StandardScaler(), clf), y=labels)
        expansion = as_expansion(pipe)
        np.testing.assert_allclose(expansion.predict(XE), pipe.decision_function(XE), rtol=0,
                                   atol=1e-10)
        e = kx.explain(pipe, XE, background=BG)
        assert e.meta["route"] == "kernel expansion (exact mean embeddings)"
        _check_efficiency(e, pipe.decision_function(XE))


def test_svm_pipeline_keeps_support_vectors_only():
    pipe = _fit(make_pipeline(StandardScaler(), SVR(C=5.0)))
    expansion = as_expansion(pipe)
    assert len(expansion.X_train) == len(pipe[-1].support_)
    assert getattr(expansion, "holds_training_inputs", False) is False


def test_zero_scale_column_is_folded_into_the_coefficients():
    """s_k = 0: u_k is the constant m_k; its factor k(m_k - u_ik) moves into alpha_i."""
    rng = np.random.default_rng(3)
    U = rng.normal(size=(20, 3))
    for kernel in (RBF([1.0, 0.7, 2.0]), Laplace(1.3)):
        inner = KernelExpansion(U, rng.normal(size=20), kernel, 0.4)
        amap = AffineMap([2, 0, 1], [2.0, 0.0, -0.5], [1.0, 0.3, -2.0], 4)  # column 3 unused
        folded = fold_affine(inner, amap)
        Z = rng.normal(size=(6, 4)) * 3
        np.testing.assert_allclose(folded.predict(Z), inner.predict(amap(Z)), rtol=0, atol=1e-12)
        assert folded.n_features == 4


def test_affine_maps_of_the_steps_match_transform():
    Xt = X + 0.5
    steps = [StandardScaler(with_mean=False), StandardScaler(with_std=False), RobustScaler(
        with_centering=False), MinMaxScaler(), MaxAbsScaler(), FunctionTransformer(),
        _column_transformer(), make_pipeline(StandardScaler(), MinMaxScaler())]
    for step in steps:
        step.fit(X)
        np.testing.assert_allclose(affine_map(step, D)(Xt), step.transform(Xt), rtol=1e-12,
                                   atol=1e-12)


def test_non_affine_steps_are_named():
    for step in (PCA(2), MinMaxScaler(clip=True), PolynomialFeatures(2),
                 FunctionTransformer(np.log1p)):
        with pytest.raises(TypeError, match="affine"):
            affine_map(step.fit(np.abs(X)), D)


@pytest.mark.parametrize("pre", [lambda: PCA(4), lambda: PolynomialFeatures(2)],
                         ids=["pca", "polynomial"])
def test_other_pipelines_are_explained_through_model_calls(pre):
    pipe = _fit(make_pipeline(StandardScaler(), pre(), SVR(C=3.0)))
    name = type(pipe[1]).__name__
    e = kx.explain(pipe, XE, background=BG)
    assert e.meta["route"].startswith("model calls (marginal)")
    assert f"{name} is not a per-feature affine map" in e.meta["route"]
    assert e.meta["method"] == "exact"
    _check_efficiency(e, pipe.predict(XE))
    m = kx.explain(pipe, XE, value="marginal", background=BG)
    np.testing.assert_allclose(m.values, e.values, rtol=0, atol=1e-12)
    with pytest.raises(TypeError, match="needs a kernel model.*value='marginal'"):
        kx.explain(pipe, XE, value="observational", background=BG)
    with pytest.raises(TypeError, match="needs a kernel model.*gaussian_conditional"):
        kx.explain(pipe, XE, value="functional_baseline")


def test_callables_and_other_models_are_explained_through_model_calls():
    def f(Z):
        return Z[:, 0] * Z[:, 1] + np.sin(Z[:, 2])

    e = kx.explain(lambda Z: f(Z), XE, background=BG)
    assert e.meta["route"] == ("model calls (marginal): a plain callable is not a kernel model "
                               "kernelxai can convert")
    _check_efficiency(e, f(XE))
    # the interventional game of a callable is the marginal one
    m = kx.explain(f, XE, value="marginal", background=BG)
    np.testing.assert_allclose(m.values, e.values, rtol=0, atol=1e-12)
    g = kx.explain(f, XE, value="gaussian_conditional", background=X, n_samples=30)
    _check_efficiency(g, f(XE))
    lin = LinearRegression().fit(X, Y)
    e = kx.explain(lin, XE, background=BG)
    assert "LinearRegression is not a kernel model" in e.meta["route"]
    # a linear model's interventional values are coef * (x - mean background)
    np.testing.assert_allclose(e.values, lin.coef_ * (XE - BG.mean(axis=0)), rtol=0, atol=1e-9)
    # an unsupported kernel is explained too, with the reason
    poly = SkKernelRidge(kernel="poly", degree=2, alpha=1.0).fit(X / X.std(0), Y)
    e = kx.explain(poly, XE / X.std(0), background=BG / X.std(0))
    assert "kernel='poly'" in e.meta["route"]


def test_many_features_use_a_sampled_estimator():
    rng = np.random.default_rng(0)
    W = rng.normal(size=(20, 15))
    e = kx.explain(lambda Z: (Z ** 2).sum(axis=1), W[:2], background=W[:8], seed=0)
    assert e.meta["method"] != "exact"
    assert e.meta["route"].startswith("model calls (marginal)")
    _check_efficiency(e, (W[:2] ** 2).sum(axis=1))


def test_classifier_through_model_calls_uses_the_decision_function():
    labels = Y > np.median(Y)
    pipe = _fit(make_pipeline(PCA(4), SVC(C=2.0)), y=labels)
    e = kx.explain(pipe, XE, background=BG)
    assert e.meta["route"].startswith("model calls (marginal)")
    _check_efficiency(e, pipe.decision_function(XE))
    # a classifier kernelxai knows nothing about: its decision function, not its labels
    logistic = _fit(make_pipeline(PCA(4), LogisticRegression()), y=labels)
    e = kx.explain(logistic, XE, background=BG)
    assert e.meta["model_output"] == "decision_function"
    _check_efficiency(e, logistic.decision_function(XE))


def test_model_calls_need_a_background():
    with pytest.raises(BackgroundRequiredError, match=r"callable.*pass background=\.\.\."):
        kx.explain(lambda Z: Z.sum(axis=1), XE)
    with pytest.raises(ValueError, match=r"pass background="):
        kx.explain(lambda Z: Z.sum(axis=1), XE, value="marginal")
    pipe = _fit(make_pipeline(PCA(3), SkKernelRidge(kernel="rbf")))
    with pytest.raises(ValueError, match=r"PCA is not a per-feature affine map.*pass background="):
        kx.explain(pipe, XE)


def test_unfitted_pipeline_is_a_value_error():
    with pytest.raises(ValueError, match="not fitted"):
        as_expansion(make_pipeline(StandardScaler(), SVR()))


def test_route_of_kernel_models_and_non_models():
    pipe = _fit(make_pipeline(StandardScaler(), SkKernelRidge(kernel="rbf", gamma=0.2)))
    assert kx.explain(pipe, XE, value="marginal", background=BG).meta["route"].startswith(
        "model calls (marginal)")
    assert kx.explain(pipe, XE, value="functional_baseline").meta["route"].startswith(
        "kernel expansion")
    with pytest.raises(TypeError, match="neither a kernel model.*function f"):
        kx.explain("not a model", XE, background=BG)
