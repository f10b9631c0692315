"""Converter of kernelxai's own models: a KernelExpansion, KernelRidge, KernelLogisticRegression.

Takes a :class:`~kernelxai.models.KernelExpansion` (returned as it is) or a
fitted kernelxai estimator. Hands on its ``expansion_`` (for kernel logistic
regression the logit, which is also its log-odds, decision function and
latent function) and the output plans: one prediction for regression
functions; ``"log_odds"`` (default, exact), ``"decision"``, ``"latent"`` and
``"probability"`` (through model calls) for kernel logistic regression.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...kernels import RBF
from .._expansion import KernelExpansion
from .._logistic import KernelLogisticRegression
from .._ridge import KernelRidge
from ._converters import Converter, Example, register, require_fitted
from ._plans import CallOutput, OutputPlan, class_label, column, refuse, training_inputs

if TYPE_CHECKING:
    from ._converters import Dispatch

__all__ = ["OWN_MODELS", "OWN_CLASSIFIER"]


def _is_regression_function(model: Any) -> bool:
    return isinstance(model, (KernelExpansion, KernelRidge))


def _expansion(model: Any, dispatch: Dispatch) -> KernelExpansion:
    if isinstance(model, KernelExpansion):
        return model
    require_fitted(model, "expansion_")
    return model.expansion_


def _single_output(model: Any, final: Any, rebuild: Any, output: str | None,
                   dispatch: Dispatch) -> OutputPlan | None:
    if output in (None, "prediction"):
        return None
    refuse(final, output, ["prediction"], " (a regression function has one output, its value)")


def _klr_plan(model: Any, klr: Any, rebuild: Any, output: str | None, dispatch: Dispatch) -> OutputPlan:
    kind = output or "log_odds"
    has = ["log_odds", "decision", "latent", "probability"]
    if kind not in has:
        refuse(klr, output, has)
    positive = klr.classes_[1] if hasattr(klr, "classes_") else "classes_[1]"
    if kind == "probability":
        desc = (f"predict_proba[:, 1] = sigmoid(f(x)), the probability of class {class_label(positive)!r} "
                "(non-linear, explained through model calls)")
        target = CallOutput(column(model.predict_proba, 1), model,
                            "the probability is a sigmoid of the kernel expansion",
                            training_inputs(klr, "X_fit_"))
        return OutputPlan("probability", desc, [("probability", target)], False)
    desc = (f"the log-odds f(x) = log p / (1 - p) of class {class_label(positive)!r}, the model's latent "
            "kernel expansion (its decision_function; predict_proba = sigmoid(f)); exact")
    return OutputPlan(kind, desc, [(kind, dispatch.as_expansion(model))], False)


def _regression_examples() -> list[Example]:
    def expansion(X, t):
        rng = np.random.default_rng(1)
        return KernelExpansion(X[:12], rng.normal(size=12), RBF(np.full(X.shape[1], 1.3)), 0.4)

    return [
        Example("kernelxai KernelRidge", "product RBF", lambda X, t: KernelRidge().fit(X, t["regression"]),
                calls={None: lambda m: m.predict}),
        Example("KernelExpansion", "product RBF", expansion, calls={None: lambda m: m.predict},
                in_table=False),
    ]


def _classifier_examples() -> list[Example]:
    return [Example("kernelxai KernelLogisticRegression", "product RBF",
                    lambda X, t: KernelLogisticRegression(lam=1e-2).fit(X, t["binary"]),
                    calls={None: lambda m: m.decision_function, "decision": lambda m: m.decision_function,
                           "latent": lambda m: m.decision_function},
                    in_table=False)]


OWN_MODELS = register(Converter(
    name="kernelxai",
    predicate=_is_regression_function,
    expansion=_expansion,
    plan=_single_output,
    route="kernelxai's KernelExpansion and KernelRidge: the expansion itself (exact)",
    examples=_regression_examples,
    priority=0,
))

OWN_CLASSIFIER = register(Converter(
    name="kernelxai_logistic",
    predicate=lambda model: isinstance(model, KernelLogisticRegression),
    expansion=_expansion,
    plan=_klr_plan,
    outputs=("log_odds", "decision", "latent", "probability"),
    default="log_odds",
    exact=("log_odds", "decision", "latent"),
    route="kernelxai's KernelLogisticRegression: its logit, the log-odds (exact); probability "
          "through model calls",
    examples=_classifier_examples,
    priority=0,
))
