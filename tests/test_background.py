"""Backgrounds made explicit, and summarised on request (issue #11, item 3).

SVMs keep only their support vectors: a value function that needs a
background asks for one instead of silently averaging over the support
vectors. ``kx.explainers`` subsamples or summarises a large background and
reports the MMD the summary costs.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

import kernelxai as kx
from kernelxai import explainers as kb
from kernelxai.values._base import default_background


# --------------------------------------------------------------------------- #
# support-vector models need an explicit background
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def cancer_svc():
    from sklearn.svm import SVC

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)[:, :6]
    return X, SVC(kernel="rbf", gamma=0.2).fit(X, y)


NEEDS_BACKGROUND = ["interventional", "observational", "marginal", "gaussian_conditional"]


@pytest.mark.parametrize("value", NEEDS_BACKGROUND)
def test_svm_without_background_asks_for_one(cancer_svc, value):
    """The finding: the default background silently became the support vectors
    (breast cancer: base value 0.072 against a mean decision function of 0.441)."""
    X, svc = cancer_svc
    n_sv = len(svc.support_vectors_)
    options = {"n_samples": 5} if value == "gaussian_conditional" else {}
    with pytest.raises(ValueError) as err:
        kx.explain(svc, X[:2], value=value, **options)
    msg = str(err.value)
    assert f"this SVC keeps only its {n_sv} support vectors, not its training inputs" in msg
    assert "kx.explain(model, X_test, background=X_train)" in msg


@pytest.mark.parametrize("value", NEEDS_BACKGROUND)
def test_svm_with_background_is_relative_to_it(cancer_svc, value):
    X, svc = cancer_svc
    B = X[::4]
    options = {"n_samples": 5} if value == "gaussian_conditional" else {}
    e = kx.explain(svc, X[:3], value=value, background=B, **options)
    np.testing.assert_allclose(e.output, svc.decision_function(X[:3]), atol=1e-8)
    if value in ("interventional", "observational", "marginal"):
        # v(empty) is the mean decision function over the background, not over the support vectors
        np.testing.assert_allclose(e.base_values, svc.decision_function(B).mean(), atol=1e-8)
        assert abs(svc.decision_function(B).mean()
                   - svc.decision_function(svc.support_vectors_).mean()) > 0.05


def test_functional_baseline_needs_no_background(cancer_svc):
    X, svc = cancer_svc
    e = kx.explain(svc, X[:3], value="functional_baseline")
    np.testing.assert_allclose(e.output, svc.decision_function(X[:3]), atol=1e-8)


def test_svm_value_function_classes_ask_too(cancer_svc):
    X, svc = cancer_svc
    f = kx.models.as_expansion(svc)
    assert not f.holds_training_inputs and f.source == "SVC"
    for make in (lambda: kx.values.Marginal(f), lambda: kx.values.GaussianConditional(f),
                 lambda: kx.values.Interventional(f).game(X[:1]),
                 lambda: kx.values.Observational(f).game(X[:1])):
        with pytest.raises(ValueError, match="support vectors, not its training inputs"):
            make()


def test_models_that_keep_their_training_inputs_default_to_them():
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF as SkRBF
    from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
    from sklearn.svm import SVR

    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    y = X[:, 0] - X[:, 1] ** 2
    for model in (SkKernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(X, y),
                  GaussianProcessRegressor(SkRBF(1.0), alpha=1e-2).fit(X, y),
                  kx.models.KernelRidge(lam=1e-2).fit(X, y)):
        f = kx.models.as_expansion(model)
        assert f.holds_training_inputs
        e = kx.explain(model, X[:3], value="interventional")
        np.testing.assert_allclose(e.base_values, model.predict(X).mean(), atol=1e-8)
    f = kx.models.as_expansion(SVR(gamma=0.3).fit(X, y))
    assert not f.holds_training_inputs and f.source == "SVR"


def test_default_background_helper():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(8, 2))
    f = kx.models.KernelExpansion(A, rng.normal(size=8), kx.kernels.RBF(1.0))
    assert default_background(f, None) is f.X_train
    B = rng.normal(size=(5, 2))
    assert default_background(f, B) is B
    sv = kx.models.KernelExpansion(A, rng.normal(size=8), kx.kernels.RBF(1.0),
                                   holds_training_inputs=False, source="SVR")
    with pytest.raises(ValueError, match="this SVR keeps only its 8 support vectors"):
        default_background(sv, None)
    other = kx.models.KernelExpansion(A, rng.normal(size=8), kx.kernels.RBF(1.0),
                                      holds_training_inputs=False)
    with pytest.raises(ValueError, match="this model keeps only its 8 expansion points"):
        default_background(other, None)
    with pytest.raises(ValueError, match=r"background is None and the model keeps no training inputs"):
        kx.values.Marginal(lambda Z: Z.sum(axis=1))
    with pytest.raises(TypeError, match="holds_training_inputs must be True or False"):
        kx.models.KernelExpansion(A, np.zeros(8), kx.kernels.RBF(1.0), holds_training_inputs="no")


# --------------------------------------------------------------------------- #
# kx.explainers.subsample / summarize
# --------------------------------------------------------------------------- #
def _clustered(seed=1):
    rng = np.random.default_rng(seed)
    centres = [(0.0, 600), (3.0, 300), (-3.0, 100)]
    X = np.vstack([rng.normal(c, 0.3, size=(k, 4)) for c, k in centres])
    return X


def test_subsample_shapes_names_and_no_repeats():
    X = _clustered()
    S = kb.subsample(X, 50, seed=0)
    assert S.shape == (50, 4)
    assert len(np.unique(S, axis=0)) == 50
    np.testing.assert_array_equal(S, kb.subsample(X, 50, seed=0))
    assert not np.array_equal(S, kb.subsample(X, 50, seed=1))
    df = pd.DataFrame(X, columns=list("abcd"), index=np.arange(1000) + 7)
    D = kb.subsample(df, 10, seed=np.random.default_rng(3))
    assert list(D.columns) == list("abcd") and D.shape == (10, 4)
    np.testing.assert_array_equal(D.to_numpy(), df.loc[D.index].to_numpy())
    assert kb.subsample(X, 1000, seed=0).shape == (1000, 4)
    with pytest.raises(ValueError, match=r"n must be at most the number of rows of X \(1000\); got 1001"):
        kb.subsample(X, 1001)
    with pytest.raises(ValueError, match="n=0 of kx.explainers.subsample must be an integer >= 1"):
        kb.subsample(X, 0)


@pytest.mark.parametrize("method", ["kmeans", "herding"])
def test_summarize_shapes_weights_and_names(method):
    X = _clustered()
    df = pd.DataFrame(X, columns=list("abcd"))
    s = kb.summarize(df, 12, method=method, seed=0)
    assert isinstance(s, kb.BackgroundSummary) and len(s) == 12
    assert list(s.points.columns) == list("abcd") and s.points.shape == (12, 4)
    assert s.weights.shape == (12,) and np.isclose(s.weights.sum(), 1.0) and np.all(s.weights > 0)
    assert s.n_sample == 1000 and s.method == method and s.mmd >= 0 and s.weighted_mmd >= 0
    assert method in repr(s) and "mmd=" in repr(s)
    if method == "herding":
        np.testing.assert_allclose(s.weights, 1 / 12)
        assert len(np.unique(s.points.to_numpy(), axis=0)) == 12    # distinct rows of X
        assert s.mmd == s.weighted_mmd
    else:
        # cluster shares: the summary's weighted mean is the sample mean (k-means centroids)
        np.testing.assert_allclose(s.weights @ s.points.to_numpy(), X.mean(axis=0), atol=1e-8)
        np.testing.assert_allclose(s.weights * 1000, np.round(s.weights * 1000), atol=1e-9)
    # the reported MMDs are those of kx.explainers.mmd on the same kernel
    assert np.isclose(s.mmd, kb.mmd(s.points, X, kernel=s.kernel), atol=1e-7)
    assert np.isclose(s.weighted_mmd, kb.mmd(s.points, X, s.weights, kernel=s.kernel), atol=1e-7)


@pytest.mark.parametrize("method", ["kmeans", "herding"])
def test_summary_mmd_falls_as_n_grows(method):
    X = _clustered()
    kernel = kx.kernels.RBF(kx.kernels.median_heuristic(X))
    mmds = [kb.summarize(X, n, method=method, kernel=kernel, seed=0).weighted_mmd
            for n in (4, 16, 64)]
    assert mmds[0] > mmds[1] > mmds[2]


def test_mmd_of_the_full_sample_is_zero():
    X = _clustered()[::5]
    assert kb.mmd(X, X) < 1e-6
    assert kb.summarize(X, len(X), method="herding").mmd < 1e-6
    assert kb.mmd(X[:50], X) > 0.05


def test_mmd_in_blocks_matches_one_block():
    X = _clustered()
    S = X[::37]
    w = np.arange(1, len(S) + 1, dtype=float)
    w /= w.sum()
    kernel = kx.kernels.Laplace(1.0)      # the exact Gram route
    one = kb.mmd(S, X, w, kernel=kernel)
    blocked = kb.mmd(S, X, w, kernel=kernel, max_elements=500)
    assert np.isclose(one, blocked, rtol=1e-10, atol=1e-12)


def test_herding_beats_uniform_subsampling_on_a_clustered_sample():
    X = _clustered()
    kernel = kx.kernels.RBF(kx.kernels.median_heuristic(X))
    herd = kb.summarize(X, 20, method="herding", kernel=kernel).mmd
    uniform = [kb.mmd(kb.subsample(X, 20, seed=s), X, kernel=kernel) for s in range(10)]
    assert herd < 0.5 * np.median(uniform)
    assert herd < min(uniform)


def test_summary_points_are_a_background(cancer_svc):
    X, svc = cancer_svc
    s = kb.summarize(X, 15, method="herding")
    e = kx.explain(svc, X[:2], value="interventional", background=s.points)
    np.testing.assert_allclose(e.base_values, svc.decision_function(s.points).mean(), atol=1e-8)


def test_summarize_refuses_bad_arguments():
    X = _clustered()[:30]
    with pytest.raises(ValueError,
                       match="method='random' of kx.explainers.summarize must be one of 'kmeans', 'herding'"):
        kb.summarize(X, 5, method="random")
    with pytest.raises(ValueError, match="n must be at most the number of rows of X"):
        kb.summarize(X, 31)
    with pytest.raises(TypeError, match="kernel must be a kernelxai kernel"):
        kb.summarize(X, 5, kernel="rbf")
    with pytest.raises(ValueError, match="weights must be 30 non-negative numbers summing to 1"):
        kb.mmd(X, X, np.ones(30))
