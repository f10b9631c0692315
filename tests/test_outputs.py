"""Classifier outputs (decision, log-odds, probability, latent) and multi-class / multi-output models.

Every route is checked against brute-force Shapley values of the model's own
calls on the same background (the interventional game v(S) = mean_b
f(x_S, b_{S^c}), all coalitions, d <= 5).
"""

from __future__ import annotations

import itertools
import warnings
from math import factorial

import numpy as np
import pytest
from sklearn.calibration import CalibratedClassifierCV
from sklearn.gaussian_process import GaussianProcessClassifier, GaussianProcessRegressor
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

import kernelxai as kx
from kernelxai.explainers._explain import BackgroundRequiredError
from kernelxai.models import KernelExpansion
from kernelxai.models.convert._dispatch import output_plan

# SVC(probability=True) and probA_/probB_ are deprecated from scikit-learn 1.9; they still work
pytestmark = pytest.mark.filterwarnings("ignore:.*probab.*:FutureWarning")


def platt(svc):
    """(probA_, probB_) of a binary SVC (deprecated attributes from scikit-learn 1.9)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return float(svc.probA_[0]), float(svc.probB_[0])


def brute_force(f, X, background):
    """Shapley values (n, d[, k]) and base values of the marginal game of f, by enumeration."""
    X, B = np.asarray(X, float), np.asarray(background, float)
    d = X.shape[1]
    phis, bases = [], []
    for x in X:
        v = {}
        for r in range(d + 1):
            for S in itertools.combinations(range(d), r):
                Z = B.copy()
                Z[:, list(S)] = x[list(S)]
                v[S] = np.asarray(f(Z), float).mean(axis=0)
        phi = np.zeros((d,) + np.shape(v[()]))
        for j in range(d):
            for S, val in v.items():
                if j not in S:
                    w = factorial(len(S)) * factorial(d - len(S) - 1) / factorial(d)
                    phi[j] += w * (v[tuple(sorted(S + (j,)))] - val)
        phis.append(phi)
        bases.append(v[()])
    return np.array(phis), np.array(bases)


def assert_close(e, f, X, background, tol):
    phi, base = brute_force(f, X, background)
    scale = max(1.0, np.abs(phi).max())
    np.testing.assert_allclose(e.values, phi, rtol=0, atol=tol * scale)
    np.testing.assert_allclose(e.base_values, base, rtol=0, atol=tol * scale)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 4))
    y = (X[:, 0] + X[:, 1] ** 2 - 0.5 * X[:, 2] > 0.5).astype(int)
    y3 = np.digitize(X[:, 0] + 0.5 * X[:, 3], [-0.6, 0.6])
    return X, y, y3, X[:12], X[40:43]


@pytest.fixture(scope="module")
def binary_svc(data):
    X, y, *_ = data
    return SVC(probability=True, gamma=0.4, random_state=0).fit(X, y)


# --------------------------------------------------------------------------- #
# binary SVC
# --------------------------------------------------------------------------- #
def test_svc_decision_is_the_default_and_says_so(data, binary_svc):
    X, _, _, B, P = data
    e = kx.explain(binary_svc, P, background=B)
    assert e.meta["output"] == "decision" and "decision function" in e.meta["output_description"]
    assert e.meta["route"].startswith("kernel expansion")
    assert_close(e, binary_svc.decision_function, P, B, 1e-10)


def test_svc_platt_sign_convention(data, binary_svc):
    """libsvm's Platt map: p(classes_[1]) = 1 / (1 + exp(A f - B)), f = decision_function."""
    X, *_ = data
    A, B = platt(binary_svc)
    f = binary_svc.decision_function(X)
    p = binary_svc.predict_proba(X)[:, 1]
    mapped = 1 / (1 + np.exp(A * f - B))
    # predict_proba adds libsvm's iterative pairwise coupling (tolerance 0.005 / 2) on top of Platt
    assert np.abs(mapped - p).max() < 5e-3
    assert np.abs(1 / (1 + np.exp(A * f + B)) - p).max() > 10 * np.abs(mapped - p).max()


def test_svc_log_odds_exact_by_scaling(data, binary_svc):
    X, _, _, B, P = data
    A, Bp = platt(binary_svc)
    dec = kx.explain(binary_svc, P, background=B, output="decision")
    lo = kx.explain(binary_svc, P, background=B, output="log_odds")
    assert lo.meta["output"] == "log_odds" and "Platt" in lo.meta["output_description"]
    assert lo.meta["route"].startswith("kernel expansion")
    np.testing.assert_allclose(lo.values, -A * dec.values, rtol=0, atol=1e-12)
    np.testing.assert_allclose(lo.base_values, Bp - A * dec.base_values, rtol=0, atol=1e-12)
    # against model calls of the Platt log-odds on the synthetic points (x_S, b_{S^c})
    assert_close(lo, lambda Z: Bp - A * binary_svc.decision_function(Z), P, B, 1e-9)
    # efficiency: base + sum = Platt log-odds, within libsvm's coupling of log(p / (1 - p))
    p = binary_svc.predict_proba(P)[:, 1]
    np.testing.assert_allclose(lo.output, Bp - A * binary_svc.decision_function(P), atol=1e-10)
    assert np.abs(lo.output - np.log(p / (1 - p))).max() < 0.1


def test_svc_probability_through_model_calls(data, binary_svc):
    _, _, _, B, P = data
    e = kx.explain(binary_svc, P, background=B, output="probability")
    assert e.meta["output"] == "probability" and e.meta["route"].startswith("model calls")
    assert_close(e, lambda Z: binary_svc.predict_proba(Z)[:, 1], P, B, 1e-10)
    np.testing.assert_allclose(e.output, binary_svc.predict_proba(P)[:, 1], atol=1e-12)


def test_svc_probability_needs_a_background(data, binary_svc):
    _, _, _, _, P = data
    with pytest.raises(BackgroundRequiredError, match="background="):
        kx.explain(binary_svc, P, output="probability")


def test_outputs_a_model_does_not_have(data):
    X, y, y3, B, P = data
    svc = SVC().fit(X, y)
    for out in ("probability", "log_odds"):
        with pytest.raises(ValueError, match=r"probability=True.*'decision'"):
            kx.explain(svc, P, background=B, output=out)
    with pytest.raises(ValueError, match="probability=True"):
        kx.explain(SVC().fit(X, y3), P, background=B, output="probability")
    with pytest.raises(ValueError, match=r"output must be one of .*'proba'"):
        kx.explain(svc, P, background=B, output="proba")
    with pytest.raises(ValueError, match=r"'log_odds' is not an output of this KernelRidge.*'prediction'"):
        kx.explain(SkKernelRidge(kernel="rbf").fit(X, X[:, 0]), P, output="log_odds")
    with pytest.raises(ValueError, match="'probability' is not an output of this KernelRidge"):
        kx.explain(kx.models.KernelRidge(lam=0.1).fit(X, X[:, 0]), P, output="probability")
    with pytest.raises(ValueError, match="'probability' is not an output of this GaussianProcessRegressor"):
        kx.explain(GaussianProcessRegressor().fit(X, X[:, 0]), P, output="probability")
    with pytest.raises(ValueError, match="'decision' is not an output of this GaussianProcessClassifier"):
        kx.explain(GaussianProcessClassifier().fit(X, y), P, output="decision")
    with pytest.raises(ValueError, match="'ovo' is not an output of this SVC"):
        kx.explain(svc, P, background=B, output="ovo")


# --------------------------------------------------------------------------- #
# multi-class SVC
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("n_classes", [3, 4])
def test_each_pairwise_expansion_is_the_ovo_decision_function(data, n_classes):
    X, *_ = data
    y = np.digitize(X[:, 0] + 0.5 * X[:, 3], np.quantile(X[:, 0], np.linspace(0, 1, n_classes + 1)[1:-1]))
    y = np.array(["a", "b", "c", "d"])[y]
    svc = SVC(decision_function_shape="ovo", gamma=0.3, C=3.0).fit(X, y)
    assert len(set(svc.n_support_)) > 1  # unequal numbers of support vectors per class
    plan = output_plan(svc)
    D = svc.decision_function(X)
    assert len(plan.targets) == n_classes * (n_classes - 1) // 2 == D.shape[1]
    pairs = list(itertools.combinations(svc.classes_, 2))
    for p, (name, target) in enumerate(plan.targets):
        assert name == f"{pairs[p][0]} vs {pairs[p][1]}"
        assert isinstance(target, KernelExpansion)
        np.testing.assert_allclose(target.predict(X), D[:, p], rtol=0, atol=1e-10)


def test_ovo_svc_explained_per_pair(data):
    X, _, y3, B, P = data
    svc = SVC(decision_function_shape="ovo", gamma=0.3).fit(X, y3)
    e = kx.explain(svc, P, background=B)
    assert e.values.shape == (3, 4, 3) and e.output_names == ["0 vs 1", "0 vs 2", "1 vs 2"]
    assert e.meta["output"] == "ovo" and e.meta["route"].startswith("kernel expansion")
    assert_close(e, svc.decision_function, P, B, 1e-10)
    np.testing.assert_allclose(e.output, svc.decision_function(P), atol=1e-10)  # efficiency
    one = e[..., "0 vs 2"]
    assert one.values.shape == (3, 4) and one.meta["output"] == "0 vs 2"
    assert one.meta["output_kind"] == "ovo"
    np.testing.assert_allclose(one.output, svc.decision_function(P)[:, 1], atol=1e-10)


def test_ovr_svc_decision_through_model_calls_and_ovo_exactly(data):
    X, _, y3, B, P = data
    svc = SVC(gamma=0.3).fit(X, y3)  # decision_function_shape="ovr", the default
    e = kx.explain(svc, P, background=B)
    assert e.meta["output"] == "decision" and e.meta["route"].startswith("model calls")
    assert "one-vs-rest" in e.meta["output_description"] and e.output_names == ["0", "1", "2"]
    assert_close(e, svc.decision_function, P, B, 1e-10)
    ovo = kx.explain(svc, P, background=B, output="ovo")
    ovo_svc = SVC(gamma=0.3, decision_function_shape="ovo").fit(X, y3)
    assert_close(ovo, ovo_svc.decision_function, P, B, 1e-10)


def test_multiclass_svc_probability_and_log_odds(data):
    X, _, y3, B, P = data
    svc = SVC(gamma=0.3, probability=True, random_state=0).fit(X, y3)
    e = kx.explain(svc, P, background=B, output="probability")
    assert e.output_names == ["0", "1", "2"] and e.meta["route"].startswith("model calls")
    assert_close(e, svc.predict_proba, P, B, 1e-10)
    np.testing.assert_allclose(e.output, svc.predict_proba(P), atol=1e-12)
    lo = kx.explain(svc, P, background=B, output="log_odds")
    assert_close(lo, lambda Z: np.log(svc.predict_proba(Z) / (1 - svc.predict_proba(Z))), P, B, 1e-9)


def test_sampled_estimator_keeps_intervals_per_output(data):
    X, _, y3, B, P = data
    svc = SVC(gamma=0.3, probability=True, random_state=0).fit(X, y3)
    e = kx.explain(svc, P[:2], background=B, output="probability", method="permutation",
                   budget=200, seed=1)
    assert e.values.shape == e.stderr.shape == e.lower.shape == (2, 4, 3)
    np.testing.assert_allclose(e.output, svc.predict_proba(P[:2]), atol=1e-9)


# --------------------------------------------------------------------------- #
# multi-output regressors
# --------------------------------------------------------------------------- #
def test_multi_output_sklearn_kernel_ridge(data):
    X, _, _, B, P = data
    Y = np.column_stack([X[:, 0], np.sin(X[:, 1]), X[:, 2] * X[:, 3]])
    krr = SkKernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(X, Y)
    e = kx.explain(krr, P, background=B)
    assert e.values.shape == (3, 4, 3) and e.output_names == ["output_0", "output_1", "output_2"]
    assert e.meta["output"] == "prediction" and e.meta["route"].startswith("kernel expansion")
    assert_close(e, krr.predict, P, B, 1e-10)
    np.testing.assert_allclose(e.output, krr.predict(P), atol=1e-10)
    single = SkKernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(X, Y[:, 1])
    np.testing.assert_allclose(e[..., "output_1"].values,
                               kx.explain(single, P, background=B).values, atol=1e-10)


@pytest.mark.parametrize("normalize_y", [False, True])
def test_multi_output_gaussian_process_regressor(data, normalize_y):
    X, _, _, B, P = data
    Y = np.column_stack([X[:, 0], 5 * np.sin(X[:, 1]) + 3, 10 * X[:, 2] * X[:, 3] - 2])
    gpr = GaussianProcessRegressor(alpha=1e-2, normalize_y=normalize_y).fit(X, Y)
    e = kx.explain(gpr, P)  # default background: the training inputs
    assert e.values.shape == (3, 4, 3)
    assert_close(e, gpr.predict, P, X, 1e-9)
    np.testing.assert_allclose(e.output, gpr.predict(P), atol=1e-9 * np.abs(Y).max())


# --------------------------------------------------------------------------- #
# kernel logistic regression and Gaussian process classifiers
# --------------------------------------------------------------------------- #
def test_kernel_logistic_regression_log_odds_and_probability(data):
    X, y, _, B, P = data
    klr = kx.models.KernelLogisticRegression(lam=1e-2).fit(X, y)
    e = kx.explain(klr, P, background=B)
    assert e.meta["output"] == "log_odds" and e.meta["route"].startswith("kernel expansion")
    assert_close(e, klr.decision_function, P, B, 1e-10)
    p = kx.explain(klr, P, background=B, output="probability")
    assert p.meta["route"].startswith("model calls")
    assert_close(p, lambda Z: klr.predict_proba(Z)[:, 1], P, B, 1e-10)
    default = kx.explain(klr, P[:1], output="probability")  # background: its training inputs
    np.testing.assert_allclose(default.base_values, klr.predict_proba(X)[:, 1].mean(), atol=1e-12)


def test_binary_gaussian_process_classifier_latent_exact(data):
    X, y, _, B, P = data
    gpc = GaussianProcessClassifier().fit(X, y)
    be = gpc.base_estimator_
    latent = output_plan(gpc).targets[0][1]
    by_hand = be.kernel_(X, be.X_train_) @ (be.y_train_ - be.pi_)
    np.testing.assert_allclose(latent.predict(X), by_hand, rtol=0, atol=1e-10)
    np.testing.assert_allclose(latent.predict(X), gpc.latent_mean_and_variance(X)[0], atol=1e-10)
    e = kx.explain(gpc, P, background=B)
    assert e.meta["output"] == "latent" and e.meta["route"].startswith("kernel expansion")
    assert_close(e, lambda Z: gpc.latent_mean_and_variance(Z)[0], P, B, 1e-10)
    lo = kx.explain(gpc, P, background=B, output="log_odds")
    np.testing.assert_allclose(lo.values, e.values, atol=1e-14)
    p = kx.explain(gpc, P, background=B, output="probability")
    assert p.meta["route"].startswith("model calls")
    assert_close(p, lambda Z: gpc.predict_proba(Z)[:, 1], P, B, 1e-10)


def test_multiclass_gaussian_process_classifier_latent_per_class(data):
    X, _, y3, B, P = data
    gpc = GaussianProcessClassifier().fit(X, y3)
    e = kx.explain(gpc, P, background=B)
    assert e.values.shape == (3, 4, 3) and e.output_names == ["0", "1", "2"]

    def latents(Z):
        return np.column_stack([est.kernel_(Z, est.X_train_) @ (est.y_train_ - est.pi_)
                                for est in gpc.base_estimator_.estimators_])

    assert_close(e, latents, P, B, 1e-10)
    p = kx.explain(gpc, P, background=B, output="probability")
    assert_close(p, gpc.predict_proba, P, B, 1e-10)
    ovo = GaussianProcessClassifier(multi_class="one_vs_one").fit(X, y3)
    with pytest.raises(ValueError, match="one_vs_one.*multi_class='one_vs_rest'"):
        kx.explain(ovo, P, background=B)


# --------------------------------------------------------------------------- #
# other classifiers: outputs through model calls
# --------------------------------------------------------------------------- #
def test_any_classifier_probability_and_log_odds(data):
    X, y, y3, B, P = data
    lr = LogisticRegression().fit(X, y)
    e = kx.explain(lr, P, background=B, output="probability")
    assert e.values.shape == (3, 4)
    assert_close(e, lambda Z: lr.predict_proba(Z)[:, 1], P, B, 1e-10)
    lo = kx.explain(lr, P, background=B, output="log_odds")
    assert_close(lo, lr.decision_function, P, B, 1e-9)
    lr3 = LogisticRegression().fit(X, y3)
    e3 = kx.explain(lr3, P, background=B, output="probability")
    assert e3.output_names == ["0", "1", "2"]
    assert_close(e3, lr3.predict_proba, P, B, 1e-10)


# --------------------------------------------------------------------------- #
# calibrated SVC (the replacement of SVC(probability=True)), pipelines, shapes
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("scaled", [False, True])
def test_calibrated_svc_log_odds_exact_against_predict_proba(data, scaled):
    X, y, _, B, P = data
    cal = CalibratedClassifierCV(SVC(gamma=0.4), ensemble=False, method="sigmoid")
    model = (make_pipeline(StandardScaler(), cal) if scaled else cal).fit(X * [1, 3, 1, 10], y)
    X, B, P = X * [1, 3, 1, 10], B * [1, 3, 1, 10], P * [1, 3, 1, 10]
    e = kx.explain(model, P, background=B)
    assert e.meta["output"] == "log_odds" and e.meta["route"].startswith("kernel expansion")

    def logit(Z):
        p = model.predict_proba(Z)[:, 1]
        return np.log(p / (1 - p))

    assert_close(e, logit, P, B, 1e-9)
    a = float(model[-1].calibrated_classifiers_[0].calibrators[0].a_) if scaled else \
        float(cal.calibrated_classifiers_[0].calibrators[0].a_)
    dec = kx.explain(model, P, background=B, output="decision")
    np.testing.assert_allclose(e.values, -a * dec.values, atol=1e-12)
    prob = kx.explain(model, P, background=B, output="probability")
    assert_close(prob, lambda Z: model.predict_proba(Z)[:, 1], P, B, 1e-10)


def test_calibrated_ensemble_goes_through_model_calls(data):
    X, y, _, B, P = data
    cal = CalibratedClassifierCV(SVC(gamma=0.4), cv=3).fit(X, y)
    e = kx.explain(cal, P, background=B)
    assert e.meta["output"] == "probability" and e.meta["route"].startswith("model calls")
    assert_close(e, lambda Z: cal.predict_proba(Z)[:, 1], P, B, 1e-10)
    with pytest.raises(ValueError, match="ensemble=False"):
        kx.explain(cal, P, background=B, output="decision")


def test_pipeline_of_scaler_and_multiclass_svc(data):
    X, _, y3, B, P = data
    X, B, P = X * [1, 3, 1, 10], B * [1, 3, 1, 10], P * [1, 3, 1, 10]
    pipe = make_pipeline(StandardScaler(), SVC(decision_function_shape="ovo")).fit(X, y3)
    e = kx.explain(pipe, P, background=B)
    assert e.meta["route"].startswith("kernel expansion") and e.values.shape == (3, 4, 3)
    assert_close(e, pipe.decision_function, P, B, 1e-10)


def test_single_point_and_groups_keep_the_outputs_axis(data):
    X, _, _, B, P = data
    Y = np.column_stack([X[:, 0], X[:, 1] ** 2])
    krr = SkKernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(X, Y)
    one = kx.explain(krr, P[0], background=B)
    np.testing.assert_allclose(one.output.ravel(), krr.predict(P[:1]).ravel(), atol=1e-10)
    g = kx.explain(krr, P, background=B, groups=[[0, 1], [2, 3]], group_names=["ab", "cd"])
    assert g.values.shape == (3, 2, 2) and g.feature_names == ["ab", "cd"]
    np.testing.assert_allclose(g.output, krr.predict(P), atol=1e-10)


def test_probability_beyond_enumeration_is_sampled(data):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 13))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    svc = SVC(probability=True, random_state=0).fit(X, y)
    e = kx.explain(svc, X[:1], background=X[:4], output="probability", budget=300, seed=0)
    assert e.meta["method"] != "exact"  # auto: KernelSHAP beyond 12 players
    np.testing.assert_allclose(e.output, svc.predict_proba(X[:1])[:, 1], atol=1e-8)


def test_pairwise_outputs_of_a_kernel_without_an_expansion_are_still_right(data):
    """A pairwise decision function kernelxai cannot convert falls back to model calls, never wrong."""
    X, _, y3, B, P = data
    svc = SVC(kernel="poly", degree=2, decision_function_shape="ovo").fit(X, y3)
    e = kx.explain(svc, P, background=B)
    assert e.values.shape == (3, 4, 3)
    assert_close(e, svc.decision_function, P, B, 1e-10)


def test_calibrated_frozen_svc(data):
    frozen = pytest.importorskip("sklearn.frozen")
    X, y, _, B, P = data
    svc = SVC(gamma=0.4).fit(X[:40], y[:40])
    cal = CalibratedClassifierCV(frozen.FrozenEstimator(svc), method="sigmoid").fit(X[40:], y[40:])
    e = kx.explain(cal, P, background=B)
    assert e.meta["output"] == "log_odds" and e.meta["route"].startswith("kernel expansion")
    p = cal.predict_proba(P)[:, 1]
    np.testing.assert_allclose(e.output, np.log(p / (1 - p)), atol=1e-10)
