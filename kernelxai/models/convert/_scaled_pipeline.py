"""Converter of pipelines of per-feature scalers before a kernel model: folded into the kernel.

Takes a fitted ``sklearn.pipeline.Pipeline`` whose preprocessing steps are
per-feature affine maps (``StandardScaler``, ``MinMaxScaler``, ``MaxAbsScaler``,
``RobustScaler``, a ``ColumnTransformer`` of these; :data:`AFFINE_STEPS`) and
whose final step some converter takes (converted through the dispatcher this
converter receives). Hands on the same kernel model on the pipeline's input
columns, in their units: the scales folded into the lengthscales and the
expansion points mapped back (the maths: ``kernelxai.models.convert._affine``).
A step that is not such a map raises a TypeError naming it, and ``kx.explain``
explains the pipeline through model calls with that reason. The outputs of a
pipeline are those of its final step: its plan is the final step's plan, with
the pipeline called for the outputs explained through model calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._expansion import KernelExpansion
from ._affine import AFFINE_STEPS, IGNORED_LENGTHSCALE, AffineMap, affine_map, compose_affine, fold_affine
from ._converters import DECLINED, Converter, Example, register, split_pipeline

if TYPE_CHECKING:
    from ._converters import Dispatch

__all__ = ["SCALED_PIPELINE", "AffineMap", "affine_map", "compose_affine", "fold_affine",
           "IGNORED_LENGTHSCALE", "AFFINE_STEPS"]


def _expansion(pipeline: Any, dispatch: Dispatch) -> KernelExpansion:
    """Exact :class:`~kernelxai.models.KernelExpansion` of a fitted pipeline, in the original units.

    Parameters
    ----------
    pipeline : fitted ``sklearn.pipeline.Pipeline``
        Per-feature affine preprocessing steps (``AFFINE_STEPS``) followed by
        any model the dispatcher converts whose kernel absorbs per-feature
        scales (``kernelxai.models.convert._affine.fold_affine``). (Pipelines
        with a ``Nystroem`` step or random features have their own converters,
        asked first.)
    dispatch : Dispatch
        Converts the final step.

    Returns
    -------
    KernelExpansion
        On the pipeline's input columns; its predictions equal the
        pipeline's ``predict`` (regressors) or ``decision_function`` (SVC,
        kernel logistic regression) to rounding.

    Raises
    ------
    TypeError
        A step is not a per-feature affine map, or the final model or its
        kernel cannot be converted; the message names the step.
    ValueError
        The pipeline is not fitted.
    """
    steps = list(pipeline.steps)
    final_name, final = steps[-1]
    if final is None or isinstance(final, str):
        raise TypeError(f"the pipeline ends in {final!r}, not a model")
    n_in = getattr(pipeline, "n_features_in_", None)
    amap = compose_affine(steps[:-1], n_in)
    inner = dispatch.as_expansion(final)
    if amap is None:
        amap = AffineMap.identity(inner.n_features)
    if amap.n_out != inner.n_features:
        raise ValueError(f"the preprocessing gives {amap.n_out} columns but the final model "
                         f"{final_name!r} takes {inner.n_features}")
    names = getattr(pipeline, "feature_names_in_", None)
    names = [str(c) for c in names] if names is not None else None
    return fold_affine(inner, amap, feature_names=names)


def _plan(model: Any, pipeline: Any, rebuild: Any, output: str | None, dispatch: Dispatch) -> Any:
    """The final step's plan (a pipeline's outputs are its final step's); nested pipelines are not split."""
    if pipeline is not model:
        return DECLINED
    final, rebuild = split_pipeline(model)
    return dispatch.plan(model, final, rebuild, output)


def _examples() -> list[Example]:
    from sklearn.compose import ColumnTransformer
    from sklearn.decomposition import PCA
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler, RobustScaler, StandardScaler
    from sklearn.svm import SVC, SVR

    def columns(X, t):
        d = X.shape[1]
        ct = ColumnTransformer([("a", StandardScaler(), list(range(0, d, 2))),
                                ("b", MinMaxScaler(), list(range(1, d, 2)))])
        return make_pipeline(ct, RobustScaler(), KernelRidge(kernel="laplacian", gamma=0.3)).fit(
            X, t["regression"])

    return [
        Example("Pipeline(StandardScaler, SVR)", "rbf",
                lambda X, t: make_pipeline(StandardScaler(), SVR()).fit(X, t["regression"]),
                calls={None: lambda m: m.predict}),
        Example("Pipeline(ColumnTransformer, RobustScaler, KernelRidge)", "laplacian", columns,
                calls={None: lambda m: m.predict}, in_table=False),
        Example("Pipeline(StandardScaler, SVC)", "rbf",
                lambda X, t: make_pipeline(StandardScaler(), SVC()).fit(X, t["three"]),
                calls={"ovo": lambda m: _ovo(m)}, table_output="ovo", in_table=False),
        Example("Pipeline(PCA, SVR)", "rbf", lambda X, t: make_pipeline(PCA(2), SVR()).fit(X, t["regression"]),
                calls={None: lambda m: m.predict}, route="model calls"),
    ]


def _ovo(pipeline: Any) -> Any:
    import copy

    svc = copy.copy(pipeline.steps[-1][1])
    svc.decision_function_shape = "ovo"
    _, rebuild = split_pipeline(pipeline)
    return rebuild(svc).decision_function


SCALED_PIPELINE = register(Converter(
    name="scaled_pipeline",
    classes=("sklearn.pipeline:Pipeline",),
    expansion=_expansion,
    plan=_plan,
    outputs=("decision", "log_odds", "latent", "probability", "ovo", "prediction"),
    default="prediction",
    exact=("decision", "log_odds", "latent", "ovo", "prediction"),
    route="Pipeline of per-feature scalers (StandardScaler, MinMaxScaler, MaxAbsScaler, RobustScaler, "
          "ColumnTransformer) and a converted model: folded into the kernel; outputs of its final step",
    examples=_examples,
    priority=90,
))
