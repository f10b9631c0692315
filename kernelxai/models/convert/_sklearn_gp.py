"""Converter of scikit-learn's Gaussian processes: the regressor's mean, the classifier's latent mean.

Takes a fitted ``GaussianProcessRegressor`` or ``GaussianProcessClassifier``.
Hands on the posterior mean sum_i alpha_i k(x, x_i) + mean of a regressor with
any fitted kernel (``kernelxai.kernels._from_sklearn.gp_kernel``: sums and
products of RBF / ConstantKernel stay product kernels or sums of them, a
WhiteKernel does not enter the mean at new points, Matern of any nu, the rest
exactly; ``normalize_y`` undone; one expansion per target), and the output
plans of a classifier: ``"latent"`` (default, exact: the Laplace posterior mean
k(x, X)(y - pi), one per class one-vs-rest), ``"log_odds"`` (the same latent
function) and ``"probability"`` (through model calls).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import numpy as np

from ...kernels._from_sklearn import gp_kernel
from .._estimation import fitted_feature_names
from .._expansion import KernelExpansion
from ._converters import Converter, Example, register, require_fitted
from ._plans import CallOutput, OutputPlan, class_label, column, refuse, training_inputs
from ._sklearn_krr import multi_output_plan

if TYPE_CHECKING:
    from ._converters import Dispatch

__all__ = ["GP_REGRESSOR", "GP_CLASSIFIER", "latent_regressor"]


def _gpr_expansion(model: Any, dispatch: Dispatch) -> KernelExpansion:
    require_fitted(model, "alpha_")
    X = np.asarray(model.X_train_, dtype=float)
    scale, kernel = gp_kernel(model.kernel_, X.shape[1])
    alpha = np.asarray(model.alpha_, dtype=float)
    if alpha.ndim == 2 and alpha.shape[1] != 1:
        raise TypeError(f"GaussianProcessRegressor with {alpha.shape[1]} targets is not supported")
    # scikit-learn keeps normalize_y's target scaling only in private attributes; there is no public accessor
    std = float(np.asarray(model._y_train_std).ravel()[0])  # noqa: SLF001 - normalize_y's scale, not public
    mean = float(np.asarray(model._y_train_mean).ravel()[0])  # noqa: SLF001 - normalize_y's shift, not public
    return KernelExpansion(X, scale * std * alpha.ravel(), kernel, mean,
                           feature_names=fitted_feature_names(model))


def _target_column(scaling: Any, j: int) -> np.ndarray:
    """Target ``j``'s entry of a per-target normalisation (one shared entry stays as it is)."""
    if np.size(scaling) > 1:
        return np.atleast_1d(np.asarray(scaling, dtype=float))[j:j + 1]
    return np.atleast_1d(scaling)


def _gpr_column(gpr: Any, j: int) -> Any:
    shim = copy.copy(gpr)
    shim.alpha_ = np.asarray(gpr.alpha_, dtype=float)[:, j]
    # normalize_y's per-target shift and scale live only in private attributes (no public accessor or setter)
    shim._y_train_mean = _target_column(gpr._y_train_mean, j)  # noqa: SLF001 - normalize_y's shift, not public
    shim._y_train_std = _target_column(gpr._y_train_std, j)  # noqa: SLF001 - normalize_y's scale, not public
    return shim


def _gpr_plan(model: Any, gpr: Any, rebuild: Any, output: str | None, dispatch: Dispatch) -> OutputPlan | None:
    return multi_output_plan(model, gpr, rebuild, output, "alpha_", _gpr_column, dispatch)


def _gpc_plan(model: Any, gpc: Any, rebuild: Any, output: str | None, dispatch: Dispatch) -> OutputPlan:
    if not hasattr(gpc, "base_estimator_"):
        raise ValueError("this GaussianProcessClassifier is not fitted yet; call fit(X, y) before "
                         "explaining it")
    classes = list(gpc.classes_)
    binary = len(classes) == 2
    ovr = not binary and getattr(gpc, "multi_class", "one_vs_rest") == "one_vs_rest"
    if not binary and not ovr:
        raise ValueError(
            "a GaussianProcessClassifier with multi_class='one_vs_one' has no real-valued output to "
            "explain: no latent function per class, and scikit-learn gives it no predict_proba; fit "
            "it with multi_class='one_vs_rest' (the default) to explain its latent functions "
            "(output='latent', exact) or probabilities (output='probability')")
    has = ["latent", "log_odds", "probability"]
    kind = output or has[0]
    if kind not in has:
        refuse(gpc, output, has)
    X_train = training_inputs(gpc.base_estimator_ if binary else gpc.base_estimator_.estimators_[0],
                               "X_train_")
    if kind == "probability":
        why = "predicted probabilities average a sigmoid over the latent posterior"
        if binary:
            desc = (f"predict_proba[:, 1], the probability of class {class_label(classes[1])!r} (non-linear, "
                    "explained through model calls)")
            target = CallOutput(column(model.predict_proba, 1), model, why, X_train)
            return OutputPlan("probability", desc, [("probability", target)], False)
        desc = "predict_proba: the probability of each class (explained through model calls)"
        targets = [(str(c), CallOutput(column(model.predict_proba, j), model, why, X_train))
                   for j, c in enumerate(classes)]
        return OutputPlan("probability", desc, targets, True)
    what = ("the Laplace posterior mean of the latent function f(x) = k(x, X)(y - pi), "
            "a kernel expansion (exact); the log-odds at the latent mode: predict_proba averages "
            "sigmoid(f) over the latent variance, so its logit is shrunk towards 0")
    if binary:
        desc = f"{what}; positive: class {class_label(classes[1])!r}"
        return OutputPlan(kind, desc, [(kind, _latent_expansion(gpc, gpc.base_estimator_, dispatch))], False)
    desc = f"{what}; one per class, each fitted one-vs-rest"
    targets = [(str(c), _latent_expansion(gpc, est, dispatch))
               for c, est in zip(classes, gpc.base_estimator_.estimators_)]
    return OutputPlan(kind, desc, targets, True)


def _latent_expansion(gpc: Any, binary: Any, dispatch: Dispatch) -> KernelExpansion:
    """The latent mean k(x, X)(y - pi) of a fitted binary Laplace GP classifier, as a GP regressor's mean."""
    return dispatch.as_expansion(latent_regressor(gpc, binary))


def latent_regressor(gpc, binary) -> Any:
    """A fitted GaussianProcessRegressor whose mean is the binary Laplace classifier's latent mean."""
    from sklearn.gaussian_process import GaussianProcessRegressor

    shim = GaussianProcessRegressor(kernel=binary.kernel_)
    shim.X_train_ = np.asarray(binary.X_train_, dtype=float)
    shim.kernel_ = binary.kernel_
    shim.alpha_ = np.asarray(binary.y_train_, dtype=float) - np.asarray(binary.pi_, dtype=float)
    # a fitted regressor without normalize_y: scikit-learn reads these private attributes in predict
    shim._y_train_mean = np.zeros(1)  # noqa: SLF001 - no public way to set normalize_y's shift
    shim._y_train_std = np.ones(1)  # noqa: SLF001 - no public way to set normalize_y's scale
    shim.y_train_ = shim.alpha_
    for attr in ("feature_names_in_", "n_features_in_"):
        if hasattr(gpc, attr):
            setattr(shim, attr, getattr(gpc, attr))
    return shim


def _latent_call(m: Any) -> Any:
    """The latent mean of a binary Laplace classifier as scikit-learn computes it inside predict_proba."""
    base = m.base_estimator_
    return lambda Z: base.kernel_(np.asarray(Z, dtype=float), base.X_train_) @ (base.y_train_ - base.pi_)


def _regressor_examples() -> list[Example]:
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process import kernels as gpk

    def gpr(make):
        return lambda X, t: GaussianProcessRegressor(make(X.shape[1]), optimizer=None).fit(X, t["regression"])

    def normalized(X, t):
        return GaussianProcessRegressor(gpk.RBF(1.5), optimizer=None, normalize_y=True).fit(X, t["regression"])

    call = {None: lambda m: m.predict}
    return [
        Example("GaussianProcessRegressor", "C * RBF(ARD) + White",
                gpr(lambda d: gpk.ConstantKernel(2.0) * gpk.RBF(np.ones(d)) + gpk.WhiteKernel(0.1)), calls=call),
        Example("GaussianProcessRegressor", "RBF + RBF", gpr(lambda d: gpk.RBF(1.0) + gpk.RBF(3.0)), calls=call),
        Example("GaussianProcessRegressor", "Matern(nu=2.5)", gpr(lambda d: gpk.Matern(1.0, nu=2.5)), calls=call,
                route="model calls"),
        Example("GaussianProcessRegressor", "RationalQuadratic", gpr(lambda d: gpk.RationalQuadratic()),
                calls=call, route="model calls"),
        Example("GaussianProcessRegressor", "DotProduct", gpr(lambda d: gpk.DotProduct() + gpk.WhiteKernel(0.1)),
                calls=call, route="model calls"),
        Example("GaussianProcessRegressor (normalize_y)", "RBF", normalized, calls=call, in_table=False),
    ]


def _classifier_examples() -> list[Example]:
    from sklearn.gaussian_process import GaussianProcessClassifier
    from sklearn.gaussian_process import kernels as gpk

    def fit(X, t):
        return GaussianProcessClassifier(gpk.RBF(1.0), optimizer=None).fit(X, t["binary"])

    return [Example("GaussianProcessClassifier, output='latent'", "RBF", fit,
                    calls={None: _latent_call, "log_odds": _latent_call}, table_output="latent")]


GP_REGRESSOR = register(Converter(
    name="sklearn_gp_regressor",
    classes=("sklearn.gaussian_process:GaussianProcessRegressor",),
    expansion=_gpr_expansion,
    plan=_gpr_plan,
    route="GaussianProcessRegressor: the posterior mean alpha_ on X_train_ (any kernel; product kernels "
          "stay product games, others exact through model calls); one expansion per target",
    examples=_regressor_examples,
    priority=40,
))

GP_CLASSIFIER = register(Converter(
    name="sklearn_gp_classifier",
    classes=("sklearn.gaussian_process:GaussianProcessClassifier",),
    plan=_gpc_plan,
    outputs=("latent", "log_odds", "probability"),
    default="latent",
    exact=("latent", "log_odds"),
    route="GaussianProcessClassifier: the Laplace latent mean k(x, X)(y - pi) per class (exact); "
          "probability through model calls",
    examples=_classifier_examples,
    priority=40,
))
