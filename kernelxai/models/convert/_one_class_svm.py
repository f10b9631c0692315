"""Converter of scikit-learn's ``OneClassSVM``: its outlier score as a kernel expansion.

Takes a fitted ``sklearn.svm.OneClassSVM`` (kernel ``"rbf"``; other kernels
through model calls, as for the other SVMs). Hands on two outputs, both exact
kernel expansions over the support vectors (which are not the training
inputs: value functions then ask for ``background=``):

* ``"decision"`` (default): ``decision_function(x) = sum_i dual_coef_i k(x, sv_i) + intercept_``
  with ``intercept_ = -rho``; positive for inliers, negative for outliers
  (``predict`` is its sign as +-1 labels, a step function that is never
  explained);
* ``"score"``: ``score_samples(x) = decision_function(x) + offset_``
  (``offset_ = rho``), the same expansion without an intercept.

Both have the same Shapley values; only their base values differ by ``offset_``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._expansion import KernelExpansion
from ._converters import Converter, Example, register, require_fitted
from ._plans import OutputPlan, affine_expansion, column, expansion_or_calls, refuse
from ._sklearn_svm import svm_expansion

if TYPE_CHECKING:
    from ._converters import Dispatch

__all__ = ["ONE_CLASS_SVM"]

_OUTPUTS = ("decision", "score")


def _plan(model: Any, svm: Any, rebuild: Any, output: str | None, dispatch: Dispatch) -> OutputPlan:
    require_fitted(svm, "dual_coef_")
    kind = output or "decision"
    if kind not in _OUTPUTS:
        refuse(svm, output, _OUTPUTS, " (an outlier detector is explained through its score, never its "
                                      "+-1 labels)")
    offset = float(np.asarray(svm.offset_).ravel()[0])
    if kind == "decision":
        desc = ("decision_function(x) = sum_i dual_coef_i k(x, sv_i) - rho (rho = offset_ = "
                f"{offset:.6g}): positive for inliers, negative for outliers; a kernel expansion")
        target = expansion_or_calls(svm, rebuild, column(model.decision_function, None), model,
                                    "the decision function through model calls", dispatch.as_expansion)
        return OutputPlan("decision", desc, [("decision", target)], False)
    desc = ("score_samples(x) = sum_i dual_coef_i k(x, sv_i) = decision_function(x) + offset_ "
            f"(offset_ = {offset:.6g}): lower is more abnormal; a kernel expansion")
    target = expansion_or_calls(svm, rebuild, column(model.score_samples, None), model,
                                "score_samples through model calls", dispatch.as_expansion)
    if isinstance(target, KernelExpansion):
        target = affine_expansion(target, 1.0, offset)
    return OutputPlan("score", desc, [("score", target)], False)


def _examples() -> list[Example]:
    from sklearn.svm import OneClassSVM

    return [
        Example("OneClassSVM, output='decision'", "rbf", lambda X, t: OneClassSVM(gamma=0.3, nu=0.2).fit(X),
                calls={None: lambda m: m.decision_function}, table_output="decision"),
        Example("OneClassSVM, output='score'", "rbf", lambda X, t: OneClassSVM(nu=0.3).fit(X),
                calls={"score": lambda m: m.score_samples}, table_output="score"),
        Example("OneClassSVM", "poly", lambda X, t: OneClassSVM(kernel="poly", degree=2).fit(X),
                calls={None: lambda m: m.decision_function}, route="model calls", in_table=False),
    ]


ONE_CLASS_SVM = register(Converter(
    name="sklearn_one_class_svm",
    classes=("sklearn.svm:OneClassSVM",),
    expansion=svm_expansion,
    plan=_plan,
    outputs=_OUTPUTS,
    default="decision",
    exact=_OUTPUTS,
    route="sklearn OneClassSVM (kernel 'rbf'): decision_function = dual_coef_ on the support vectors - rho; "
          "score_samples = the same expansion + offset_; both exact, never the +-1 labels",
    examples=_examples,
    priority=20,
))
