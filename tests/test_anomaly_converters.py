"""Conventions of the anomaly / density / kernel-PCA / nu-SVM converters, and what model calls call.

The registry's contract tests (tests/test_converters.py) check every example against brute-force model
calls; here: the signs and offsets of OneClassSVM, the bandwidths and normalisation of KernelDensity, the
centering of KernelPCA, the default outputs, meta["model_method"] of the model-call routes, and the
refusals.
"""

import numpy as np
import pytest
from sklearn.decomposition import KernelPCA
from sklearn.ensemble import IsolationForest
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import LinearRegression
from sklearn.neighbors import KernelDensity, LocalOutlierFactor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, NuSVC, NuSVR, OneClassSVM

import kernelxai as kx
from kernelxai.kernels import RBF
from kernelxai.models._expansion import KernelExpansion
from kernelxai.models.convert import as_expansion, output_plan
from kernelxai.models.convert._kernel_density import log_kernel_norm


def _data(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.normal(size=(6, d)) * 1.5


def _targets(model, output=None):
    return [t for _, t in output_plan(model, output).targets]


def _efficient(e, f):
    np.testing.assert_allclose(e.values.sum(axis=1) + e.base_values, f, atol=1e-9)


# --------------------------------------------------------------------------- OneClassSVM
def test_one_class_svm_decision_is_the_default_and_exact_with_sklearns_signs():
    X, Z = _data()
    m = OneClassSVM(gamma=0.4, nu=0.2).fit(X)
    exp = as_expansion(m)
    np.testing.assert_allclose(exp.predict(Z), m.decision_function(Z), atol=1e-12)
    np.testing.assert_allclose(exp.intercept, -m.offset_[0])  # intercept_ = -rho, offset_ = rho
    far = np.full((1, 3), 6.0)
    assert m.decision_function(far)[0] < 0 and m.predict(far)[0] == -1  # negative: an outlier
    e = kx.explain(m, Z, background=X)
    assert e.meta["output"] == "decision" and e.meta["route"].startswith("kernel expansion")
    assert "model_method" not in e.meta  # exact: no model calls
    _efficient(e, m.decision_function(Z))


def test_one_class_svm_score_is_the_same_expansion_plus_offset():
    X, Z = _data()
    m = OneClassSVM(gamma=0.4, nu=0.2).fit(X)
    (score,) = _targets(m, "score")
    assert isinstance(score, KernelExpansion)
    np.testing.assert_allclose(score.predict(Z), m.score_samples(Z), atol=1e-12)
    np.testing.assert_allclose(score.intercept, 0.0, atol=1e-12)
    d = kx.explain(m, Z, background=X, output="decision")
    s = kx.explain(m, Z, background=X, output="score")
    np.testing.assert_allclose(s.values, d.values, atol=1e-12)
    np.testing.assert_allclose(s.base_values - d.base_values, m.offset_[0], atol=1e-12)
    _efficient(s, m.score_samples(Z))


def test_one_class_svm_in_a_scaled_pipeline_and_other_kernels_through_its_score():
    X, Z = _data()
    p = make_pipeline(StandardScaler(), OneClassSVM(nu=0.3)).fit(X * [1, 10, 0.1])
    e = kx.explain(p, Z * [1, 10, 0.1], background=X[:10] * [1, 10, 0.1], output="score")
    assert e.meta["route"].startswith("kernel expansion")
    _efficient(e, p.score_samples(Z * [1, 10, 0.1]))
    poly = OneClassSVM(kernel="poly", degree=2).fit(X)
    e = kx.explain(poly, Z, background=X[:10])
    assert e.meta["route"].startswith("model calls") and e.meta["model_method"] == "decision_function"
    _efficient(e, poly.decision_function(Z))
    with pytest.raises(ValueError, match="never its \\+-1 labels"):
        kx.explain(poly, Z, background=X, output="probability")


# --------------------------------------------------------------------------- nu-SVMs
def test_nu_svms_have_the_dual_expansion_of_svr_and_svc():
    X, Z = _data()
    y = np.sin(X[:, 0]) + X[:, 1]
    r = NuSVR(nu=0.4).fit(X, y)
    np.testing.assert_allclose(as_expansion(r).predict(Z), r.predict(Z), atol=1e-12)
    c = NuSVC(nu=0.3, probability=True, random_state=0).fit(X, (X[:, 0] > 0).astype(int))
    np.testing.assert_allclose(as_expansion(c).predict(Z), c.decision_function(Z), atol=1e-12)
    e = kx.explain(c, Z, background=X[:10], output="probability")
    assert e.meta["model_method"] == "predict_proba"
    three = NuSVC(nu=0.2).fit(X, np.digitize(X[:, 0], [-0.4, 0.4]))
    e = kx.explain(three, Z, background=X[:10], output="ovo")
    assert e.output_names == ["0 vs 1", "0 vs 2", "1 vs 2"]
    assert all(str(r).startswith("kernel expansion") for r in np.atleast_1d(e.meta["route"]))


# --------------------------------------------------------------------------- KernelDensity
@pytest.mark.parametrize("kernel", ["gaussian", "tophat", "epanechnikov", "exponential", "linear", "cosine"])
@pytest.mark.parametrize("bandwidth", [0.7, "scott", "silverman"])
@pytest.mark.parametrize("d", [1, 2, 3])
def test_kernel_density_density_is_exp_score_samples(kernel, bandwidth, d):
    X, Z = _data(d=d)
    Z = np.vstack([Z, X[:4] + 0.05])  # inside the support of the compact kernels too
    m = KernelDensity(kernel=kernel, bandwidth=bandwidth).fit(X)
    want = np.exp(m.score_samples(Z))
    got = as_expansion(m).predict(Z)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-300)
    assert (want > 0).any()


def test_kernel_density_bandwidth_rules_weights_and_metrics():
    X, Z = _data(n=50, d=2)
    n, d = X.shape
    scott = KernelDensity(bandwidth="scott").fit(X)
    silverman = KernelDensity(bandwidth="silverman").fit(X)
    assert np.isclose(scott.bandwidth_, n ** (-1 / (d + 4)))
    assert np.isclose(silverman.bandwidth_, (n * (d + 2) / 4) ** (-1 / (d + 4)))
    for m in (scott, silverman):
        k = as_expansion(m).kernel
        assert isinstance(k, RBF) and np.isclose(k.lengthscale, m.bandwidth_)
    assert np.isclose(log_kernel_norm(0.5, 2, "gaussian"), -np.log(2 * np.pi) - 2 * np.log(0.5))
    w = np.linspace(0.1, 3.0, n)
    weighted = KernelDensity(bandwidth=0.6).fit(X, sample_weight=w)
    np.testing.assert_allclose(as_expansion(weighted).predict(Z), np.exp(weighted.score_samples(Z)), rtol=1e-9)
    for metric, kernel in [("manhattan", "exponential"), ("chebyshev", "gaussian"), ("manhattan", "tophat")]:
        m = KernelDensity(kernel=kernel, metric=metric, bandwidth=1.5).fit(X)
        np.testing.assert_allclose(as_expansion(m).predict(Z), np.exp(m.score_samples(Z)), rtol=1e-9)
    assert as_expansion(KernelDensity(kernel="exponential", metric="manhattan").fit(X)).kernel.is_product


def test_kernel_density_default_is_the_log_density_through_score_samples():
    X, Z = _data()
    m = KernelDensity(bandwidth=0.8).fit(X)
    e = kx.explain(m, Z)  # the training inputs are the background
    assert e.meta["output"] == "log_density" and e.meta["model_method"] == "score_samples"
    assert e.meta["route"].startswith("model calls") and "not a kernel expansion" in e.meta["route"]
    _efficient(e, m.score_samples(Z))
    d = kx.explain(m, Z, output="density")
    assert d.meta["route"].startswith("kernel expansion") and d.meta["output"] == "density"
    _efficient(d, np.exp(m.score_samples(Z)))
    obs = kx.explain(m, Z, output="density", value="observational")
    _efficient(obs, np.exp(m.score_samples(Z)))
    with pytest.raises(ValueError, match="'log_density', 'density'"):
        kx.explain(m, Z, output="decision")


def test_kernel_density_cosine_in_four_dimensions_is_nan_in_sklearn_and_says_so():
    X, Z = _data(d=4)
    m = KernelDensity(kernel="cosine", bandwidth=3.0).fit(X)
    assert np.isnan(m.score_samples(Z)).all()
    with pytest.raises(TypeError, match="not positive"):
        as_expansion(m)


# --------------------------------------------------------------------------- KernelPCA
@pytest.mark.parametrize("kw", [
    dict(kernel="rbf", gamma=0.3), dict(kernel="linear"), dict(kernel="poly", degree=3),
    dict(kernel="sigmoid", gamma=0.1), dict(kernel="cosine"),
    dict(kernel="rbf", eigen_solver="arpack"), dict(kernel="rbf", eigen_solver="randomized", random_state=0),
    dict(kernel="rbf", fit_inverse_transform=True)])
def test_kernel_pca_components_are_centered_expansions(kw):
    X, Z = _data()
    m = KernelPCA(n_components=3, **kw).fit(X)
    targets = _targets(m)
    assert all(isinstance(t, KernelExpansion) for t in targets)
    got = np.column_stack([t.predict(Z) for t in targets])
    np.testing.assert_allclose(got, m.transform(Z), atol=1e-9)


def test_kernel_pca_centering_by_hand_and_explanation_axes():
    X, Z = _data()
    m = KernelPCA(n_components=2, kernel="rbf", gamma=0.5).fit(X)
    K = np.exp(-0.5 * ((X[:, None] - X[None]) ** 2).sum(-1))
    Kz = np.exp(-0.5 * ((Z[:, None] - X[None]) ** 2).sum(-1))
    Kc = Kz - Kz.mean(1, keepdims=True) - K.mean(0) + K.mean()
    want = Kc @ (m.eigenvectors_ / np.sqrt(m.eigenvalues_))
    np.testing.assert_allclose(m.transform(Z), want, atol=1e-10)
    e = kx.explain(m, Z)
    assert e.output_names == ["kernelpca0", "kernelpca1"] and e.meta["output"] == "components"
    assert e.values.shape == (len(Z), 3, 2)
    np.testing.assert_allclose(e.values.sum(axis=1) + e.base_values, m.transform(Z), atol=1e-9)


def test_kernel_pca_refusals():
    X, Z = _data()
    pre = KernelPCA(n_components=2, kernel="precomputed").fit(X @ X.T)
    with pytest.raises(TypeError, match="feature by feature"):
        kx.explain(pre, Z)
    m = KernelPCA(n_components=2).fit(X)
    with pytest.raises(ValueError, match="'components'"):
        kx.explain(m, Z, output="prediction")


# --------------------------------------------------------------------------- what model calls call
def test_outlier_detectors_are_explained_through_their_score_never_their_labels():
    X, Z = _data()
    forest = IsolationForest(random_state=0, n_estimators=20).fit(X)
    e = kx.explain(forest, Z, background=X[:8])
    assert e.meta["model_method"] == "decision_function"
    _efficient(e, forest.decision_function(Z))
    e = kx.explain(forest, Z, background=X[:8], output="score")
    assert e.meta["model_method"] == "score_samples"
    _efficient(e, forest.score_samples(Z))
    lof = LocalOutlierFactor(novelty=True, n_neighbors=5).fit(X)
    e = kx.explain(lof, Z, background=X[:8])
    assert e.meta["model_method"] == "decision_function"
    _efficient(e, lof.decision_function(Z))


def test_every_model_call_route_records_the_method_it_called():
    X, Z = _data()
    y = X[:, 0] * X[:, 1]
    linear = LinearRegression().fit(X, y)
    assert kx.explain(linear, Z, background=X[:8]).meta["model_method"] == "predict"
    krr = KernelRidge(kernel="poly", degree=2).fit(X, y)  # calls of its exact expansion, not of the model
    assert "model_method" not in kx.explain(krr, Z, background=X[:8]).meta
    svc = SVC(kernel="poly", degree=2, probability=True, random_state=0).fit(X, (y > 0).astype(int))
    assert kx.explain(svc, Z, background=X[:8]).meta["model_method"] == "decision_function"
    assert kx.explain(svc, Z, background=X[:8], output="probability").meta["model_method"] == "predict_proba"
    assert kx.explain(lambda A: A[:, 0], Z, background=X[:8]).meta["model_method"] == "__call__"
    e = kx.explain_interactions(KernelDensity().fit(X), Z[:2])
    assert e.meta["model_method"] == "score_samples"
