"""Converter of scikit-learn's support vector machines ``SVR``, ``SVC``, ``NuSVR``, ``NuSVC`` (kernel ``"rbf"``).

Takes a fitted ``sklearn.svm.SVR``, ``SVC``, ``NuSVR`` or ``NuSVC`` (the nu-SVMs have the
same dual expansion; only their training problem differs). Hands on the decision function
sum_i dual_coef_i k(x, sv_i) + intercept_ as a kernel expansion over the
support vectors (which are not training inputs: value functions then ask for
``background=``), and the output plans of an SVC: ``"decision"`` (default,
exact), ``"log_odds"`` (binary ``SVC(probability=True)``: the Platt log-odds
B - A f, affine in f, exact), ``"probability"`` (through model calls) and, for
several classes, ``"ovo"`` (one exact expansion per pair of classes) -- see
``kernelxai.models.convert._plans``.
"""

from __future__ import annotations

import copy
import functools
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._validation import as_real_array
from ...kernels import RBF
from .._estimation import fitted_feature_names
from .._expansion import KernelExpansion
from ._converters import (
    DECLINED,
    SUPPORTED_MODELS,
    Converter,
    Example,
    refuse_precomputed,
    register,
    require_fitted,
    split_pipeline,
)
from ._plans import (
    CallOutput,
    OutputPlan,
    affine_expansion,
    class_label,
    column,
    expansion_or_calls,
    log_odds_column,
    refuse,
)

if TYPE_CHECKING:
    from ._converters import Dispatch

__all__ = ["SVM", "platt", "svm_expansion"]


@functools.cache
def _classifiers() -> tuple[type, type]:
    """scikit-learn's ``SVC`` and ``NuSVC``, imported once, on first use (not per conversion, #36)."""
    from sklearn.svm import SVC, NuSVC

    return SVC, NuSVC


def svm_expansion(model: Any, dispatch: Dispatch) -> KernelExpansion:
    """The decision function sum_i dual_coef_i k(x, sv_i) + intercept_ of a fitted libsvm model ('rbf').

    Any of scikit-learn's libsvm estimators (SVR, SVC, NuSVR, NuSVC, OneClassSVM): their
    ``dual_coef_`` and ``intercept_`` carry the signs of ``decision_function``.
    """
    require_fitted(model, "dual_coef_")
    refuse_precomputed(model)
    if model.kernel != "rbf":
        raise TypeError(f"sklearn {type(model).__name__} with kernel={model.kernel!r} is not supported: "
                        f"the supported kernel is 'rbf'; supported models: {SUPPORTED_MODELS}")
    if isinstance(model, _classifiers()) and len(model.classes_) != 2:
        raise TypeError(f"sklearn {type(model).__name__} with {len(model.classes_)} classes is not supported: "
                        "only a binary one (one decision function) can be explained")
    sv = as_real_array(model.support_vectors_, "the model's support vectors")
    # gamma='scale'/'auto' is resolved at fit into the private _gamma; scikit-learn exposes no public value
    kernel = RBF(1.0 / np.sqrt(2.0 * model._gamma))  # noqa: SLF001 - the fitted gamma is not public
    return KernelExpansion(sv, as_real_array(model.dual_coef_, "the model's dual_coef_")[0], kernel,
                           float(np.asarray(model.intercept_).ravel()[0]),
                           feature_names=fitted_feature_names(model),
                           holds_training_inputs=False, source=type(model).__name__)


def _plan(model: Any, svm: Any, rebuild: Any, output: str | None, dispatch: Dispatch) -> Any:
    if not isinstance(svm, _classifiers()):
        return DECLINED  # an SVR: a regressor's outputs, as any model's
    return _svc_plan(model, svm, rebuild, output, dispatch)


def platt(svc) -> tuple[np.ndarray, np.ndarray]:
    """(A, B) of a fitted SVC(probability=True), read without the deprecation warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        A, B = np.asarray(svc.probA_, dtype=float), np.asarray(svc.probB_, dtype=float)
    return A, B


def _has_probability(svc):
    return bool(getattr(svc, "probability", False)) and platt(svc)[0].size > 0


def _svc_plan(model, svc, rebuild, output, dispatch):
    if not hasattr(svc, "dual_coef_"):
        raise ValueError(f"this {type(svc).__name__} is not fitted yet; call fit(X, y) before explaining it")
    classes = list(svc.classes_)
    probability = _has_probability(svc)
    has = ["decision"] + (["log_odds", "probability"] if probability else []) \
        + (["ovo"] if len(classes) > 2 else [])
    kind = output or "decision"
    if kind not in has:
        why = (" (probabilities need SVC(probability=True), or, as scikit-learn >= 1.9 advises, "
               "CalibratedClassifierCV(SVC(), ensemble=False), whose log-odds are exact)"
               if kind in ("log_odds", "probability") else "")
        refuse(svc, output, has, why)
    if len(classes) == 2:
        return _binary_svc(model, svc, rebuild, kind, classes, dispatch)
    if kind == "ovo" or (kind == "decision" and svc.decision_function_shape == "ovo"):
        return _ovo_plan(model, svc, rebuild, classes, dispatch)
    if kind == "decision":
        desc = ("sklearn's one-vs-rest decision function of each class (decision_function_shape="
                "'ovr': pairwise votes plus a bounded transform of the pairwise confidences, not "
                "linear in the kernel expansions, so explained through model calls; "
                "output='ovo' explains the pairwise decision functions exactly)")
        why = "the one-vs-rest decision function is derived non-linearly from the pairwise ones"
        targets = [(str(c), CallOutput(column(model.decision_function, j), model, why))
                   for j, c in enumerate(classes)]
        return OutputPlan("decision", desc, targets, True)
    if kind == "probability":
        desc = ("predict_proba: the probability of each class (Platt maps coupled pairwise by "
                "libsvm; non-linear, explained through model calls)")
        targets = [(str(c), CallOutput(column(model.predict_proba, j), model,
                                        "probabilities are not linear in the decision functions"))
                   for j, c in enumerate(classes)]
        return OutputPlan("probability", desc, targets, True)
    desc = ("the log-odds log p / (1 - p) of each class against the rest, p = predict_proba "
            "(non-linear in the pairwise decision functions, explained through model calls)")
    targets = [(str(c), CallOutput(log_odds_column(model.predict_proba, j), model,
                                    "multi-class log-odds are not linear in the decision functions"))
               for j, c in enumerate(classes)]
    return OutputPlan("log_odds", desc, targets, True)


def _binary_svc(model, svc, rebuild, kind, classes, dispatch):
    positive = classes[1]
    if kind == "decision":
        desc = (f"the decision function f(x) = sum_i dual_coef_i k(x, sv_i) + intercept_ "
                f"(positive: class {class_label(positive)!r}); a kernel expansion")
        target = expansion_or_calls(svc, rebuild, column(model.decision_function, None), model,
                                     "the decision function through model calls", dispatch.as_expansion)
        return OutputPlan("decision", desc, [("decision", target)], False)
    if kind == "probability":
        desc = (f"predict_proba[:, 1], the probability of class {class_label(positive)!r} (the Platt map of the "
                "decision function, then libsvm's pairwise coupling; non-linear, explained "
                "through model calls)")
        target = CallOutput(column(model.predict_proba, 1), model,
                             "the probability is not linear in the decision function")
        return OutputPlan("probability", desc, [("probability", target)], False)
    A, B = (float(v[0]) for v in platt(svc))
    desc = (f"the Platt log-odds of class {class_label(positive)!r}: log p / (1 - p) = B - A f(x) with "
            f"A = probA_ = {A:.6g}, B = probB_ = {B:.6g} and f the decision function, "
            "p = 1 / (1 + exp(A f - B)); affine in f, so a kernel expansion explained exactly "
            "(Shapley values -A times those of f). sklearn's predict_proba passes this p "
            "through libsvm's iterative pairwise coupling (tolerance 0.0025), which moves it "
            "by up to a few 1e-3; output='probability' explains predict_proba itself")

    def platt_log_odds(X):
        return B - A * np.asarray(model.decision_function(X), dtype=float)

    platt_log_odds.model_method = "decision_function"
    target = expansion_or_calls(svc, rebuild, platt_log_odds, model,
                                 "the Platt log-odds through model calls", dispatch.as_expansion)
    if isinstance(target, KernelExpansion):
        target = affine_expansion(target, -A, B)
    return OutputPlan("log_odds", desc, [("log_odds", target)], False)


def _ovo_plan(model, svc, rebuild, classes, dispatch):
    """One exact kernel expansion per pair of classes, from libsvm's layout of dual_coef_.

    ``support_vectors_`` are grouped by class (``n_support_`` of each, in the
    order of ``classes_``); the decision function of the pair (i, j), i < j,
    has coefficients ``dual_coef_[j - 1]`` on the support vectors of class i
    and ``dual_coef_[i]`` on those of class j, intercept ``intercept_[p]`` with
    p the pair's position in (0, 1), (0, 2), ..., (1, 2), ...; positive votes
    for class i.
    """
    k = len(classes)
    sv = as_real_array(svc.support_vectors_, "the model's support vectors")
    coef = as_real_array(svc.dual_coef_, "the model's dual_coef_")
    intercept = np.asarray(svc.intercept_, dtype=float).ravel()
    starts = np.concatenate([[0], np.cumsum(np.asarray(svc.n_support_, dtype=int))])
    targets, p = [], 0
    for i in range(k):
        for j in range(i + 1, k):
            rows_i, rows_j = np.arange(starts[i], starts[i + 1]), np.arange(starts[j], starts[j + 1])
            rows = np.concatenate([rows_i, rows_j])
            alpha = np.concatenate([coef[j - 1, rows_i], coef[i, rows_j]])
            shim = _pair_svc(svc, sv[rows], alpha, intercept[p], [classes[j], classes[i]])
            call = column(_ovo_decision(model, svc), p)
            target = expansion_or_calls(shim, rebuild, call, model,
                                         "the pairwise decision function through model calls",
                                        dispatch.as_expansion)
            targets.append((f"{classes[i]} vs {classes[j]}", target))
            p += 1
    desc = ("the pairwise (one-vs-one) decision functions, one per pair 'a vs b' of classes "
            "(positive: a), each a kernel expansion over the support vectors of a and b, as "
            "decision_function with decision_function_shape='ovo'")
    return OutputPlan("ovo", desc, targets, True)


def _pair_svc(svc, sv, alpha, intercept, classes):
    """A binary SVC whose decision function is sum alpha_i k(x, sv_i) + intercept."""
    shim = copy.copy(svc)
    shim.support_vectors_ = sv
    shim.dual_coef_ = alpha[None, :]
    shim._dual_coef_ = -shim.dual_coef_  # libsvm's own signs for a binary SVC
    shim.intercept_ = np.array([float(intercept)])
    shim._intercept_ = -shim.intercept_
    shim.classes_ = np.asarray(classes)
    shim.support_ = np.arange(len(sv))
    shim._n_support = np.array([len(sv), 0], dtype=np.int32)  # noqa: SLF001 - n_support_ is read-only; libsvm needs it
    return shim


def _ovo_decision(model, svc):
    """decision_function with decision_function_shape='ovo', for the model-call fallback."""
    def decision(X):
        if svc.decision_function_shape == "ovo":
            return model.decision_function(X)
        ovo = copy.copy(svc)
        ovo.decision_function_shape = "ovo"
        _, rebuild = split_pipeline(model)
        return rebuild(ovo).decision_function(X)
    decision.model_method = "decision_function"
    return decision


def _examples() -> list[Example]:
    from sklearn.svm import SVC, SVR, NuSVC, NuSVR

    def platt_log_odds(m):
        A, B = (float(v[0]) for v in platt(m))
        return lambda Z: B - A * m.decision_function(Z)

    def ovo(m):
        return lambda Z: _ovo_decision(m, m)(Z)

    return [
        Example("SVR", "rbf", lambda X, t: SVR().fit(X, t["regression"]), calls={None: lambda m: m.predict}),
        Example("SVC", "rbf", lambda X, t: SVC(probability=True, random_state=0).fit(X, t["binary"]),
                calls={"decision": lambda m: m.decision_function, "log_odds": platt_log_odds},
                table_output="decision", in_table=False),
        Example("SVC, output='decision'", "rbf", lambda X, t: SVC().fit(X, t["binary"]),
                calls={None: lambda m: m.decision_function}, table_output="decision"),
        Example("SVC (3 classes), output='ovo'", "rbf", lambda X, t: SVC().fit(X, t["three"]),
                calls={"ovo": ovo}, table_output="ovo"),
        Example("NuSVR", "rbf", lambda X, t: NuSVR(nu=0.4).fit(X, t["regression"]),
                calls={None: lambda m: m.predict}),
        Example("NuSVC, output='decision'", "rbf", lambda X, t: NuSVC(nu=0.3).fit(X, t["binary"]),
                calls={None: lambda m: m.decision_function}, table_output="decision"),
        Example("NuSVC (3 classes), output='ovo'", "rbf", lambda X, t: NuSVC(nu=0.2).fit(X, t["three"]),
                calls={"ovo": ovo}, in_table=False),
    ]


SVM = register(Converter(
    name="sklearn_svm",
    classes=("sklearn.svm:SVR", "sklearn.svm:SVC", "sklearn.svm:NuSVR", "sklearn.svm:NuSVC"),
    expansion=svm_expansion,
    plan=_plan,
    outputs=("decision", "log_odds", "probability", "ovo", "prediction"),
    default="decision",
    exact=("decision", "log_odds", "ovo", "prediction"),
    route="sklearn SVR / SVC / NuSVR / NuSVC (kernel 'rbf'): dual_coef_ on the support vectors; SVC decision, "
          "Platt log_odds and pairwise ovo exact, probability through model calls",
    examples=_examples,
    priority=20,
))
