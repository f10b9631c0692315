"""Converter of scikit-learn's ``KernelRidge``: its dual coefficients on its training inputs.

Takes a fitted ``sklearn.kernel_ridge.KernelRidge`` with any kernel but
``"precomputed"``. Hands on the exact expansion sum_i dual_coef_i k(x, x_i):
``"rbf"`` / ``"laplacian"`` as product kernels, ``"linear"`` in closed form,
every other kernel (strings of ``pairwise_kernels``, callables) as scikit-learn
evaluates it (``kernelxai.kernels._from_sklearn.Pairwise``, explained
through model calls); several targets give one expansion each (an outputs axis).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._validation import as_real_array
from ...kernels._from_sklearn import krr_kernel
from .._estimation import fitted_feature_names
from .._expansion import KernelExpansion
from ._converters import Converter, Example, refuse_precomputed, register, require_fitted
from ._plans import OutputPlan, column, expansion_or_calls, refuse

if TYPE_CHECKING:
    from ._converters import Dispatch

__all__ = ["SKLEARN_KERNEL_RIDGE", "multi_output_plan"]


def _expansion(model: Any, dispatch: Dispatch) -> KernelExpansion:
    """Exact expansion of a fitted sklearn KernelRidge, with any kernel it accepts."""
    require_fitted(model, "dual_coef_")
    refuse_precomputed(model)
    X = as_real_array(model.X_fit_, "the model's training inputs")
    kernel = krr_kernel(model, X.shape[1])
    coef = np.asarray(model.dual_coef_, dtype=float)
    if coef.ndim == 2 and coef.shape[1] != 1:
        raise TypeError(f"sklearn KernelRidge with {coef.shape[1]} outputs is not supported; "
                        "fit one model per output")
    return KernelExpansion(X, coef.ravel(), kernel, 0.0, feature_names=fitted_feature_names(model))


def multi_output_plan(model: Any, reg: Any, rebuild: Any, output: str | None, attribute: str,
                      one_column: Any, dispatch: Dispatch) -> OutputPlan | None:
    """The plan of a regressor with several targets: one expansion per target (else None).

    ``one_column(reg, j)`` is a copy of ``reg`` whose coefficients (``attribute``) are those of target j.
    """
    if output not in (None, "prediction"):
        refuse(reg, output, ["prediction"], " (a regressor's output is its prediction)")
    if not hasattr(reg, attribute):
        return None  # as_expansion says it is not fitted
    coef = np.asarray(getattr(reg, attribute))
    if coef.ndim < 2 or coef.shape[1] == 1:
        return None
    k = coef.shape[1]
    targets = []
    for j in range(k):
        call = column(model.predict, j)
        targets.append((f"output_{j}", expansion_or_calls(
            one_column(reg, j), rebuild, call, model, f"output {j} through model calls",
            dispatch.as_expansion)))
    desc = (f"the prediction of each of the {k} targets (output_j: column j of predict), "
            "each a kernel expansion")
    return OutputPlan("prediction", desc, targets, True)


def _krr_column(krr: Any, j: int) -> Any:
    shim = copy.copy(krr)
    shim.dual_coef_ = np.asarray(krr.dual_coef_, dtype=float)[:, j]
    return shim


def _plan(model: Any, krr: Any, rebuild: Any, output: str | None, dispatch: Dispatch) -> OutputPlan | None:
    return multi_output_plan(model, krr, rebuild, output, "dual_coef_", _krr_column, dispatch)


def _examples() -> list[Example]:
    from sklearn.kernel_ridge import KernelRidge

    def krr(**kw):
        return lambda X, t: KernelRidge(**kw).fit(X, t["regression"])

    def two_targets(X, t):
        y = t["regression"]
        return KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, np.column_stack([y, y ** 2]))

    call = {None: lambda m: m.predict}
    return [
        Example("KernelRidge", "rbf", krr(kernel="rbf", gamma=0.5), calls=call),
        Example("KernelRidge", "laplacian", krr(kernel="laplacian", gamma=0.5), calls=call),
        Example("KernelRidge", "linear (default)", krr(), calls=call),
        Example("KernelRidge", "poly", krr(kernel="poly", degree=2), calls=call, route="model calls"),
        Example("KernelRidge", "cosine", krr(kernel="cosine"), calls=call, route="model calls"),
        Example("KernelRidge (2 targets)", "rbf", two_targets, calls={"prediction": lambda m: m.predict},
                in_table=False),
    ]


SKLEARN_KERNEL_RIDGE = register(Converter(
    name="sklearn_kernel_ridge",
    classes=("sklearn.kernel_ridge:KernelRidge",),
    expansion=_expansion,
    plan=_plan,
    route="sklearn KernelRidge: dual_coef_ on X_fit_ (rbf/laplacian product kernels, linear closed form, "
          "other kernels exact through model calls); one expansion per target",
    examples=_examples,
    priority=10,
))
