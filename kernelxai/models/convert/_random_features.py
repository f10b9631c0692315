"""Pipelines of random features (``RBFSampler``, ...): refused as kernel expansions, with the reason.

Takes a fitted scikit-learn Pipeline with a random-feature map. Such a model
is a linear model on random features, not a kernel expansion over stored
points, so there is no exact mean-embedding route: this converter's
``expansion`` raises a TypeError whose message is the reason ``kx.explain``
reports when it explains the pipeline through model calls (the interventional
game as the average of model calls over the background). A ``Nystroem`` step
instead is converted exactly (``kernelxai.models.convert._nystroem``).
"""

from __future__ import annotations

from typing import Any

from .._expansion import KernelExpansion
from ._converters import Converter, Example, pipeline_steps, register

__all__ = ["RANDOM_FEATURE_MAPS", "random_features_reason", "RANDOM_FEATURES"]

#: scikit-learn feature maps whose models are not kernel expansions over stored points
RANDOM_FEATURE_MAPS = {
    "RBFSampler": "random Fourier features sqrt(2/D) cos(omega . x + c) with random frequencies",
    "SkewedChi2Sampler": "random features of the skewed chi-squared kernel (Monte Carlo)",
    "AdditiveChi2Sampler": "a sampled Fourier approximation of the additive chi-squared kernel",
    "PolynomialCountSketch": "count-sketched tensor products of the inputs",
}


def random_features_reason(model) -> str | None:
    """Why a pipeline with a random-feature map is explained through model calls, else None.

    Returns
    -------
    str or None
        A sentence naming the step (``RBFSampler``, ...) and saying that its
        model is not a kernel expansion over stored points.
    """
    steps = pipeline_steps(model)
    if steps is None:
        return None
    for name, step in steps[:-1]:
        what = RANDOM_FEATURE_MAPS.get(type(step).__name__)
        if what is not None and (type(step).__module__ or "").startswith("sklearn."):
            return (f"pipeline step {name!r}: {type(step).__name__} ({what}) gives a model that is "
                    "not a kernel expansion over stored points, so it has no exact mean-embedding "
                    "route; it is explained through model calls (the interventional game as the "
                    "average of model calls over the background). A Nystroem step instead is "
                    "converted exactly")
    return None


def _has_random_features(model: Any) -> bool:
    return random_features_reason(model) is not None


def _expansion(pipeline: Any, dispatch: Any) -> KernelExpansion:
    raise TypeError(random_features_reason(pipeline))


def _examples() -> list[Example]:
    from sklearn.kernel_approximation import RBFSampler
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline

    def fit(X, t):
        return make_pipeline(RBFSampler(gamma=0.5, n_components=20, random_state=0), Ridge(1e-2)).fit(
            X, t["regression"])

    return [Example("Pipeline(RBFSampler, Ridge)", "rbf", fit, calls={None: lambda m: m.predict},
                    route="model calls")]


RANDOM_FEATURES = register(Converter(
    name="random_features_pipeline",
    classes=("sklearn.pipeline:Pipeline",),
    predicate=_has_random_features,
    expansion=_expansion,
    route="Pipeline with RBFSampler / SkewedChi2Sampler / AdditiveChi2Sampler / PolynomialCountSketch: "
          "not an expansion over stored points; explained through model calls, with the reason",
    examples=_examples,
    priority=70,
    exact=(),
))
