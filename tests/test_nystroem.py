"""Nystroem pipelines are kernel expansions over their landmarks (issue #16, item 2).

A linear model w . phi(x) + b on Nystroem features phi(x) = k(x, L) N^T is
sum_l alpha_l k(x, L_l) + b with alpha = N^T w. The conversion must give
exactly the pipeline's own predict / decision_function (1e-10), and the exact
explanation must equal the interventional game evaluated by calling the
pipeline itself (a brute-force enumeration written here). Random Fourier
features are not an expansion: they go through model calls, and say so.
"""

import warnings

import numpy as np
import pytest
from oracles import textbook_shapley
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process.kernels import RBF as SkRBF
from sklearn.gaussian_process.kernels import ConstantKernel
from sklearn.kernel_approximation import Nystroem, RBFSampler
from sklearn.linear_model import LinearRegression, LogisticRegression, PoissonRegressor, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from sklearn.svm import SVC, SVR, LinearSVC

import kernelxai as kx
from kernelxai.kernels import RBF, Laplace
from kernelxai.models import KernelExpansion, as_expansion
from kernelxai.models.convert._nystroem import NystroemPipeline

D = 3
_rng = np.random.default_rng(5)
# different scales and offsets, so a wrong fold of the scaler cannot pass by accident
SCALE, SHIFT = np.array([1.0, 4.0, 0.3]), np.array([0.0, 10.0, -2.0])
X = _rng.normal(size=(400, D)) * SCALE + SHIFT
Y = np.sin(X[:, 0]) * (X[:, 1] - 10) + 3 * X[:, 2]
X_TEST = _rng.normal(size=(30, D)) * SCALE + SHIFT
BACKGROUND = X[:25]


def _nys(**kw):
    kw.setdefault("n_components", 30)
    kw.setdefault("random_state", 0)
    return Nystroem(**kw)


def _fit(pipe, y=Y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return pipe.fit(X, y)


def _rel_err(a, b):
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))) / max(1.0, np.max(np.abs(b))))


def brute_force_interventional(predict, x, background):
    """phi of v(S) = mean_b predict(x_S, b_{S^c}) by enumerating all 2^d coalitions (pipeline calls)."""
    d = len(x)
    table = np.empty(2**d)
    for mask in range(2**d):
        Z = background.copy()
        on = [j for j in range(d) if mask >> j & 1]
        Z[:, on] = x[on]
        table[mask] = predict(Z).mean()
    return textbook_shapley(table, d), table[0]


REGRESSORS = {
    "ridge": lambda: make_pipeline(_nys(gamma=0.2), Ridge(1e-3)),
    "scaler+ridge": lambda: make_pipeline(StandardScaler(), _nys(gamma=0.3), Ridge(1e-3)),
    "scaler+ridge+scaler": lambda: make_pipeline(StandardScaler(), _nys(gamma=0.3), StandardScaler(),
                                                 Ridge(1e-3)),
    "svr": lambda: make_pipeline(_nys(gamma=0.2), SVR(kernel="linear", C=10.0)),
    "scaler+svr": lambda: make_pipeline(StandardScaler(), _nys(gamma=0.3), SVR(kernel="linear")),
    "laplacian": lambda: make_pipeline(MinMaxScaler(), _nys(kernel="laplacian", gamma=0.7),
                                       LinearRegression()),
    "gp kernel": lambda: make_pipeline(StandardScaler(),
                                       _nys(kernel=ConstantKernel(2.0) * SkRBF([0.8, 1.5, 2.0])),
                                       Ridge(1e-3)),
}


# --------------------------------------------------------------------------- #
# the conversion
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("name", sorted(REGRESSORS))
def test_expansion_predicts_what_the_pipeline_predicts(name):
    pipe = _fit(REGRESSORS[name]())
    f = as_expansion(pipe)
    assert isinstance(f, KernelExpansion) and f.kernel.is_product
    assert len(f.X_train) == 30                       # an expansion over the landmarks
    assert _rel_err(f.predict(X_TEST), pipe.predict(X_TEST)) < 1e-10


def test_coefficients_are_the_normalisation_times_the_weights():
    """alpha = normalization_.T @ coef_, over components_, with gamma -> lengthscale 1/sqrt(2 gamma)."""
    pipe = _fit(make_pipeline(_nys(gamma=0.2), Ridge(1e-3)))
    nys, ridge = pipe[0], pipe[-1]
    f = as_expansion(pipe)
    np.testing.assert_allclose(f.alpha, nys.normalization_.T @ ridge.coef_, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(f.X_train, nys.components_)
    assert isinstance(f.kernel, RBF) and np.isclose(f.kernel.lengthscale, 1 / np.sqrt(0.4))
    assert f.intercept == pytest.approx(ridge.intercept_, abs=1e-15)
    # the default gamma of Nystroem is 1 / n_features, as in scikit-learn's rbf_kernel
    g = as_expansion(_fit(make_pipeline(_nys(), Ridge(1e-3))))
    assert np.isclose(g.kernel.lengthscale, 1 / np.sqrt(2 / D))


def test_laplacian_kernel_and_gamma_from_kernel_params():
    pipe = _fit(make_pipeline(_nys(kernel="laplacian", kernel_params={"gamma": 0.4}), Ridge(1e-2)))
    f = as_expansion(pipe)
    assert isinstance(f.kernel, Laplace) and np.isclose(f.kernel.lengthscale, 1 / 0.4)
    assert _rel_err(f.predict(X_TEST), pipe.predict(X_TEST)) < 1e-10


def test_scaler_is_folded_into_the_lengthscales():
    pipe = _fit(REGRESSORS["scaler+ridge"]())
    f = as_expansion(pipe)
    scaler = pipe[0]
    np.testing.assert_allclose(f.kernel.lengthscale, scaler.scale_ / np.sqrt(2 * 0.3), rtol=1e-13)
    # the expansion points are the landmarks in the input units
    np.testing.assert_allclose(f.X_train, scaler.inverse_transform(pipe[1].components_), rtol=1e-12)


@pytest.mark.parametrize("final", ["logistic", "svc", "linear_svc"])
def test_binary_classifiers_decision_function(final):
    est = {"logistic": LogisticRegression(C=10.0), "svc": SVC(kernel="linear"),
           "linear_svc": LinearSVC()}[final]
    pipe = _fit(make_pipeline(StandardScaler(), _nys(gamma=0.3), est), Y > 0)
    f = as_expansion(pipe)
    assert _rel_err(f.predict(X_TEST), pipe.decision_function(X_TEST)) < 1e-10


def test_logistic_log_odds_are_the_expansion_and_the_default_output():
    pipe = _fit(make_pipeline(StandardScaler(), _nys(gamma=0.3), LogisticRegression(C=10.0)), Y > 0)
    p = pipe.predict_proba(X_TEST)[:, 1]
    logit = np.log(p) - np.log1p(-p)
    e = kx.explain(pipe, X_TEST[:4], background=BACKGROUND)
    assert e.meta["output"] == "log_odds" and e.meta["route"].startswith("kernel expansion")
    # efficiency against the model's own predict_proba: values + base = logit(p)
    np.testing.assert_allclose(e.values.sum(1) + e.base_values, logit[:4], rtol=0, atol=1e-9)
    # the probability is not linear: through model calls, saying why
    ep = kx.explain(pipe, X_TEST[:2], output="probability", background=BACKGROUND)
    assert ep.meta["route"].startswith("model calls") and "non-linear" in ep.meta["route"]
    np.testing.assert_allclose(ep.values.sum(1) + ep.base_values, p[:2], rtol=0, atol=1e-12)


def test_multiclass_one_exact_expansion_per_class():
    labels = np.digitize(Y, np.quantile(Y, [1 / 3, 2 / 3]))
    pipe = _fit(make_pipeline(StandardScaler(), _nys(gamma=0.3), LogisticRegression(C=10.0)), labels)
    e = kx.explain(pipe, X_TEST[:5], background=BACKGROUND)
    assert e.values.shape == (5, D, 3) and e.meta["output"] == "decision"
    assert e.meta["route"].startswith("kernel expansion")
    dec = pipe.decision_function(X_TEST[:5])
    np.testing.assert_allclose(e.values.sum(1) + e.base_values, dec, rtol=0, atol=1e-9)
    # per class: the pipeline's own interventional game, enumerated here
    for c in range(3):
        phi, _ = brute_force_interventional(lambda Z: pipe.decision_function(Z)[:, c],
                                            X_TEST[0], BACKGROUND)
        np.testing.assert_allclose(e.values[0, :, c], phi, rtol=0, atol=1e-9)
    # multi-class log-odds are not linear in the decision functions: model calls
    lo = kx.explain(pipe, X_TEST[:2], output="log_odds", background=BACKGROUND)
    assert lo.values.shape == (2, D, 3) and lo.meta["route"].startswith("model calls")
    with pytest.raises(TypeError, match="3 classes"):
        as_expansion(pipe)


def test_multi_target_ridge_one_expansion_per_target():
    pipe = _fit(make_pipeline(StandardScaler(), _nys(gamma=0.3), Ridge(1e-3)), np.c_[Y, Y**2])
    e = kx.explain(pipe, X_TEST[:4], background=BACKGROUND)
    assert e.values.shape == (4, D, 2) and e.output_names == ["output_0", "output_1"]
    np.testing.assert_allclose(e.values.sum(1) + e.base_values, pipe.predict(X_TEST[:4]),
                               rtol=0, atol=1e-8)


# --------------------------------------------------------------------------- #
# explanations: exact route = the pipeline's own game
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("name", ["ridge", "scaler+ridge", "scaler+svr", "scaler+ridge+scaler"])
def test_exact_explanation_equals_the_pipelines_own_interventional_game(name):
    pipe = _fit(REGRESSORS[name]())
    e = kx.explain(pipe, X_TEST[:3], background=BACKGROUND)
    assert e.meta["route"] == "kernel expansion (exact mean embeddings)"
    assert e.meta["nystroem"]["n_landmarks"] == 30
    for a in range(3):
        phi, base = brute_force_interventional(pipe.predict, X_TEST[a], BACKGROUND)
        np.testing.assert_allclose(e.values[a], phi, rtol=0, atol=1e-10 * max(1, np.abs(phi).max()))
        assert e.base_values[a] == pytest.approx(base, abs=1e-10 * max(1, abs(base)))
    # efficiency against the pipeline's predictions
    np.testing.assert_allclose(e.values.sum(1) + e.base_values, pipe.predict(X_TEST[:3]),
                               rtol=0, atol=1e-10 * np.abs(Y).max())
    # and the model-agnostic route of kernelxai, calling the pipeline, agrees
    m = kx.explain(lambda Z: pipe.predict(Z), X_TEST[:3], value="marginal", background=BACKGROUND,
                   method="exact")
    np.testing.assert_allclose(e.values, m.values, rtol=0, atol=1e-10 * max(1, np.abs(m.values).max()))


def test_product_route_agrees_with_enumeration_on_a_nystroem_pipeline():
    pipe = _fit(REGRESSORS["scaler+ridge"]())
    a = kx.explain(pipe, X_TEST[:3], background=BACKGROUND, method="product")
    b = kx.explain(pipe, X_TEST[:3], background=BACKGROUND, method="exact")
    np.testing.assert_allclose(a.values, b.values, rtol=0, atol=1e-11)


def test_default_background_is_the_landmarks():
    """Landmarks are a uniform random sample of the training rows: the default background."""
    pipe = _fit(REGRESSORS["scaler+ridge"]())
    e = kx.explain(pipe, X_TEST[:2])
    landmarks = pipe[0].inverse_transform(pipe[1].components_)
    phi, _ = brute_force_interventional(pipe.predict, X_TEST[0], landmarks)
    np.testing.assert_allclose(e.values[0], phi, rtol=0, atol=1e-9)
    assert e.meta["n_background"] == 30


def test_fit_on_a_large_sample_and_explain_exactly():
    """200 000 rows, 100 landmarks: the model is an expansion over 100 points, explained exactly."""
    rng = np.random.default_rng(0)
    Xl = rng.normal(size=(200_000, D))
    yl = np.sin(Xl[:, 0]) * Xl[:, 1] + Xl[:, 2] ** 2
    pipe = make_pipeline(StandardScaler(), Nystroem(gamma=0.2, n_components=100, random_state=0),
                         Ridge(1e-3)).fit(Xl, yl)
    f = as_expansion(pipe)
    assert f.X_train.shape == (100, D)
    pts, bg = Xl[:5], Xl[1000:1200]
    assert _rel_err(f.predict(pts), pipe.predict(pts)) < 1e-10
    e = kx.explain(pipe, pts, background=bg)
    assert e.meta["route"] == "kernel expansion (exact mean embeddings)"
    np.testing.assert_allclose(e.values.sum(1) + e.base_values, pipe.predict(pts), rtol=0, atol=1e-9)
    phi, _ = brute_force_interventional(pipe.predict, pts[0], bg)
    np.testing.assert_allclose(e.values[0], phi, rtol=0, atol=1e-9)


# --------------------------------------------------------------------------- #
# what is not converted, and says why
# --------------------------------------------------------------------------- #
def test_random_fourier_features_go_through_model_calls_and_say_so():
    pipe = _fit(make_pipeline(RBFSampler(gamma=0.2, n_components=50, random_state=0), Ridge(1e-3)))
    with pytest.raises(TypeError, match="RBFSampler .*random Fourier features.*not a kernel expansion"):
        as_expansion(pipe)
    e = kx.explain(pipe, X_TEST[:2], background=BACKGROUND)
    route = e.meta["route"]
    assert route.startswith("model calls") and "RBFSampler" in route and "Fourier" in route
    phi, _ = brute_force_interventional(pipe.predict, X_TEST[0], BACKGROUND)
    np.testing.assert_allclose(e.values[0], phi, rtol=0, atol=1e-9)


def test_non_product_nystroem_kernel_is_exact_through_model_calls():
    """'poly' is no product kernel: an exact expansion still, whose game needs model calls."""
    pipe = _fit(make_pipeline(_nys(kernel="poly", degree=2, gamma=0.1, coef0=1.0, n_components=10),
                              Ridge(1e-3)))
    f = as_expansion(pipe)
    assert not f.kernel.is_product
    assert _rel_err(f.predict(X_TEST), pipe.predict(X_TEST)) < 1e-8
    e = kx.explain(pipe, X_TEST[:2], background=BACKGROUND)
    assert "not a product kernel" in e.meta["route"]
    phi, _ = brute_force_interventional(pipe.predict, X_TEST[0], BACKGROUND)
    np.testing.assert_allclose(e.values[0], phi, rtol=0, atol=1e-7 * max(1, np.abs(phi).max()))


def test_nonlinear_final_model_is_refused_with_a_reason_then_model_calls():
    pipe = _fit(make_pipeline(StandardScaler(), _nys(gamma=0.3), PoissonRegressor()), np.abs(Y))
    with pytest.raises(TypeError, match="PoissonRegressor is not a linear model"):
        as_expansion(pipe)
    e = kx.explain(pipe, X_TEST[:2], background=BACKGROUND)
    assert e.meta["route"].startswith("model calls") and "PoissonRegressor" in e.meta["route"]


def test_unfitted_pipeline_is_a_value_error():
    with pytest.raises(ValueError, match="not fitted"):
        NystroemPipeline(make_pipeline(_nys(), Ridge()))


def test_a_regressor_has_no_decision_output():
    pipe = _fit(REGRESSORS["ridge"]())
    with pytest.raises(ValueError, match="'prediction'"):
        kx.explain(pipe, X_TEST[:2], output="decision")


def test_scaler_before_a_kernel_that_cannot_absorb_it_goes_through_model_calls():
    pipe = _fit(make_pipeline(StandardScaler(), _nys(kernel="poly", degree=2, n_components=10),
                              Ridge(1e-3)))
    with pytest.raises(TypeError, match="does not absorb per-feature scales"):
        as_expansion(pipe)
    e = kx.explain(pipe, X_TEST[:2], background=BACKGROUND)
    assert e.meta["route"].startswith("model calls") and "absorb" in e.meta["route"]
    phi, _ = brute_force_interventional(pipe.predict, X_TEST[0], BACKGROUND)
    np.testing.assert_allclose(e.values[0], phi, rtol=0, atol=1e-9 * max(1, np.abs(phi).max()))
