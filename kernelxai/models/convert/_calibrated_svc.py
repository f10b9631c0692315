"""Converter of ``CalibratedClassifierCV`` around a kernel classifier: exact sigmoid log-odds.

Takes a fitted ``sklearn.calibration.CalibratedClassifierCV``. With
``ensemble=False`` and ``method="sigmoid"`` a binary calibrated classifier
predicts p = 1 / (1 + exp(a f + b)), so its log-odds -(a f + b) are a kernel
expansion whenever the decision function f of the classifier inside is one
(that classifier is converted by whichever converter takes it, through the
dispatcher this converter receives). Hands on the output plans ``"log_odds"``
(default, exact), ``"decision"`` (exact) and ``"probability"`` (model calls);
anything else (several folds, isotonic calibration, more classes) is
explained through model calls. There is no single expansion of the model
itself: ``as_expansion`` refuses it and ``kx.explain`` uses the plans.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._converters import Converter, Example, register
from ._plans import CallOutput, OutputPlan, affine_expansion, class_label, column, log_odds_column, refuse

if TYPE_CHECKING:
    from ._converters import Dispatch

__all__ = ["CALIBRATED"]


def _plan(model: Any, cal: Any, rebuild: Any, output: str | None, dispatch: Dispatch) -> OutputPlan:
    """CalibratedClassifierCV: Platt scaling of one kernel classifier is exact in log-odds.

    With ``ensemble=False`` and ``method="sigmoid"`` a binary calibrated
    classifier predicts p = 1 / (1 + exp(a f + b)) for its one calibrator's
    ``a_``, ``b_`` and f the decision function of its estimator (fitted on
    all data), so its log-odds -(a f + b) are a kernel expansion when f is.
    Anything else (an ensemble of folds, isotonic calibration, several
    classes) is explained through model calls.
    """
    if not hasattr(cal, "calibrated_classifiers_"):
        raise ValueError("this CalibratedClassifierCV is not fitted yet; call fit(X, y) before "
                         "explaining it")
    classes = list(cal.classes_)
    members = cal.calibrated_classifiers_
    inner = getattr(members[0], "estimator", None)
    try:  # scikit-learn >= 1.6: calibrating an already fitted model
        from sklearn.frozen import FrozenEstimator
    except ImportError:  # pragma: no cover
        FrozenEstimator = ()
    if isinstance(inner, FrozenEstimator):
        inner = inner.estimator
    calibrators = getattr(members[0], "calibrators", [])
    expansion = None
    if len(classes) == 2 and len(members) == 1 and len(calibrators) == 1 \
            and hasattr(calibrators[0], "a_") and callable(getattr(inner, "decision_function", None)):
        try:
            expansion = dispatch.as_expansion(rebuild(inner))
        except TypeError:
            expansion = None
    has = (["log_odds", "decision"] if expansion is not None else ["log_odds"]) + ["probability"]
    kind = output or ("log_odds" if expansion is not None else "probability")
    if kind not in has:
        refuse(cal, output, has, " (a decision function needs ensemble=False, method='sigmoid' and "
                "a kernel model kernelxai converts, e.g. SVC)" if kind == "decision" else "")
    if expansion is not None and kind != "probability":
        a, b = float(calibrators[0].a_), float(calibrators[0].b_)
        if kind == "decision":
            desc = (f"the decision function f of the calibrated {type(inner).__name__} "
                    f"(positive: class {class_label(classes[1])!r}); a kernel expansion")
            return OutputPlan("decision", desc, [("decision", expansion)], False)
        desc = (f"the log-odds of class {class_label(classes[1])!r}: log p / (1 - p) = -(a f(x) + b) with the "
                f"sigmoid calibrator's a = {a:.6g}, b = {b:.6g} and f the decision function of "
                f"the {type(inner).__name__}: affine in f, so a kernel expansion explained exactly "
                "(Shapley values -a times those of f); equal to the logit of predict_proba")
        return OutputPlan("log_odds", desc, [("log_odds", affine_expansion(expansion, -a, -b))], False)
    why = ("the calibrated probability is not an affine map of one kernel expansion (several "
           "folds, isotonic calibration, more than two classes, or a model kernelxai does not "
           "convert)")
    make = log_odds_column if kind == "log_odds" else column
    what = "the log-odds log p / (1 - p) of" if kind == "log_odds" else "predict_proba of"
    if len(classes) == 2:
        return OutputPlan(kind, f"{what} class {class_label(classes[1])!r} (through model calls)",
                          [(kind, CallOutput(make(model.predict_proba, 1), model, why))], False)
    return OutputPlan(kind, f"{what} each class (through model calls)",
                      [(str(c), CallOutput(make(model.predict_proba, j), model, why))
                       for j, c in enumerate(classes)], True)


def _examples() -> list[Example]:
    import numpy as np
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.svm import SVC

    def fit(X, t):
        return CalibratedClassifierCV(SVC(), method="sigmoid", ensemble=False).fit(X, t["binary"])

    def logit(m):
        def call(Z):
            p = m.predict_proba(Z)[:, 1]
            return np.log(p) - np.log1p(-p)
        return call

    def decision(m):
        return m.calibrated_classifiers_[0].estimator.decision_function

    return [
        Example("CalibratedClassifierCV(SVC, sigmoid), output='log_odds'", "rbf", fit,
                calls={None: logit, "decision": decision}, table_output="log_odds"),
        Example("CalibratedClassifierCV(SVC, sigmoid), output='probability'", "rbf", fit,
                table_output="probability", route="model calls"),
    ]


CALIBRATED = register(Converter(
    name="sklearn_calibrated",
    classes=("sklearn.calibration:CalibratedClassifierCV",),
    plan=_plan,
    outputs=("log_odds", "decision", "probability"),
    default="log_odds",
    exact=("log_odds", "decision"),
    route="CalibratedClassifierCV(ensemble=False, method='sigmoid') of a converted classifier: log_odds "
          "-(a f + b) and decision exact; probability through model calls",
    examples=_examples,
    priority=30,
))
