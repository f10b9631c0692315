"""Output plans: which outputs a model has, what they mean, and one explainable target per output.

``kx.explain(model, X, output=...)`` explains one *output* of a model:

* ``"decision"`` -- an SVM's decision function, a kernel expansion (the
  default for SVMs; explained exactly).
* ``"log_odds"`` -- the log-odds of the positive class. For a binary
  ``SVC(probability=True)`` the Platt map makes it affine in the decision
  function ``f``: libsvm's probability of ``classes_[1]`` is
  ``1 / (1 + exp(A f - B))`` with ``A = probA_``, ``B = probB_`` (libsvm's own
  decision value is ``-f``), so the Platt log-odds are ``B - A f``, again a
  kernel expansion (coefficients times ``-A``): their Shapley values are
  exactly ``-A`` times those of ``f`` and their base value is ``B - A`` times
  the decision function's base value. (scikit-learn's ``predict_proba`` then
  runs libsvm's iterative pairwise coupling, which stops at a tolerance and
  moves the probability by up to a few 1e-3 from the Platt map, so its logit
  is not exactly affine in ``f``; ``output="probability"`` explains
  ``predict_proba`` itself.) For scikit-learn's replacement of
  ``probability=True``, ``CalibratedClassifierCV(SVC(), ensemble=False,
  method="sigmoid")``, the probability is exactly ``1 / (1 + exp(a f + b))``
  (the calibrator's ``a_``, ``b_``), so the logit of ``predict_proba`` is the
  kernel expansion ``-(a f + b)``: exact, and the default for it. For
  kernelxai's :class:`~kernelxai.models.KernelLogisticRegression` the
  log-odds are its latent function (the default; exact).
* ``"latent"`` -- a ``GaussianProcessClassifier``'s Laplace posterior mean of
  the latent function, ``k(x, X)(y - pi)``: a kernel expansion (the default;
  exact). Its predicted probability averages the sigmoid over the latent
  variance, so the logit of ``predict_proba`` is shrunk towards 0 relative to
  it.
* ``"probability"`` -- ``predict_proba``: not linear in any kernel expansion,
  so explained through model calls (the interventional game by averaging model
  calls over a background sample: exact enumeration up to 12 features, a
  sampled estimator beyond).
* ``"ovo"`` -- the ``k (k - 1) / 2`` pairwise (one-vs-one) decision functions of
  a multi-class SVC, each a kernel expansion over the support vectors of its
  two classes (exact), whatever its ``decision_function_shape``.
* ``"prediction"`` -- a regressor's prediction (the default for regressors);
  one output per target of a multi-output ``KernelRidge`` or
  ``GaussianProcessRegressor``.

A model with several outputs (multi-class, multi-output) is explained output
by output and the results are stacked on the Explanation's outputs axis:
values ``(n, d, k)``, ``output_names`` the class labels (``"a vs b"`` for
pairwise decision functions) or ``"output_0", ...``; efficiency holds per
output and ``e[..., name]`` is the ordinary explanation of one output.

Takes the converters' kernel expansions and the user's model; hands on an
:class:`OutputPlan` per ``output=`` (one target per output: a kernel expansion or
a :class:`CallOutput` explained through model calls). Each converter builds its
plans from these pieces and :func:`kernelxai.models.convert.output_plan` decides;
``kx.explain`` runs each target through its ordinary routes and :meth:`OutputPlan.finish` stacks the results.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from ..._validation import as_real_array
from ...explanation import Explanation
from ...explanation._attributions import block_shape
from .._expansion import KernelExpansion

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from numpy.typing import ArrayLike

__all__ = ["OUTPUTS", "MODEL_METHODS", "method_name", "OutputPlan", "CallOutput", "class_label", "refuse",
           "expansion_or_calls", "training_inputs", "affine_expansion", "model_call_plan", "column", "log_odds_column",
           "stack_outputs", "quiet_call"]


#: every output kx.explain(..., output=...) knows, with what it means in general
OUTPUTS = {
    "decision": "the decision function (an SVM's kernel expansion; positive: classes_[1])",
    "log_odds": "the log-odds log p / (1 - p) of the positive class",
    "latent": "the latent function of a Gaussian process classifier (Laplace posterior mean)",
    "probability": "predict_proba, the predicted class probability",
    "ovo": "the pairwise (one-vs-one) decision functions of a multi-class SVC",
    "prediction": "the prediction of a regressor (one output per target)",
    "score": "score_samples of an outlier detector (a OneClassSVM: decision_function + offset_)",
    "density": "the density estimate exp(score_samples) of a KernelDensity (a kernel expansion)",
    "log_density": "score_samples of a KernelDensity, the log of its density estimate",
    "components": "transform of a KernelPCA: one output per component (each a kernel expansion)",
}

#: the model methods a model-call target may call (what meta["model_method"] reports)
MODEL_METHODS = ("predict", "decision_function", "predict_proba", "score_samples", "transform")


class OutputPlan:
    """How to explain one output kind of a model: its targets and what they mean.

    Parameters
    ----------
    kind : str
        One of :data:`OUTPUTS`.
    description : str
        What the explained numbers are, for ``meta["output_description"]``.
    targets : list of (name, target)
        A :class:`~kernelxai.models.KernelExpansion` (exact routes) or a
        model-call target (an object with ``predict``) per output.
    multi : bool
        Whether the result has an outputs axis (``output_names`` = the names).

    Examples
    --------
    Plans come from :func:`~kernelxai.models.convert.output_plan`;
    ``kx.explain(model, X, output=...)`` explains each target and
    :meth:`finish` stacks the results:

    >>> import numpy as np
    >>> from sklearn.svm import SVC
    >>> from kernelxai.models.convert import output_plan
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> plan = output_plan(SVC().fit(X, np.digitize(X[:, 0], [-0.5, 0.5])), "ovo")
    >>> plan.kind, plan.multi, plan.through_model_calls
    ('ovo', True, False)
    >>> name, target = plan.targets[0]
    >>> name, type(target).__name__
    ('0 vs 1', 'KernelExpansion')
    """

    def __init__(self, kind: str, description: str, targets: Sequence[tuple[str, Any]], multi: bool) -> None:
        self.kind = kind
        self.description = description
        self.targets = list(targets)
        self.multi = bool(multi)

    @property
    def through_model_calls(self) -> bool:
        """Whether some output is explained through model calls (it then needs a background)."""
        return any(isinstance(t, CallOutput) for _, t in self.targets)

    @staticmethod
    def background_for(target: Any, background: ArrayLike | None) -> object:
        """The background to explain ``target`` with: the given one, else the model's training inputs."""
        if background is None and isinstance(target, CallOutput):
            return getattr(target, "X_train", None)
        return background

    def missing_background(self, background: ArrayLike | None) -> str | None:
        """Why a background is needed and missing (a message), or None."""
        for _, target in self.targets:
            if isinstance(target, CallOutput) and self.background_for(target, background) is None:
                return (f"output={self.kind!r} is explained through model calls ({target.why}), "
                        "which average the model over a background sample, and this model keeps "
                        "no training inputs: pass background=..., e.g. kx.explain(model, X, "
                        f"output={self.kind!r}, background=X_train) (a few hundred rows suffice)")
        return None

    def finish(self, results: Sequence[Explanation]) -> Explanation:
        """One Explanation from the per-output ``results`` (stacked on the outputs axis if multi)."""
        for (_, target), result in zip(self.targets, results):
            if isinstance(target, CallOutput):
                head = str(result.meta.get("route", "model calls (marginal)")).split(":")[0]
                result.meta["route"] = f"{head}: {target.why}"
        if not self.multi:
            out = results[0]
        else:
            out = stack_outputs(results, [name for name, _ in self.targets])
        out.meta["output"] = self.kind
        out.meta["output_kind"] = self.kind
        out.meta["output_description"] = self.description
        return out


def class_label(c) -> object:
    """A class label as the user wrote it: numpy scalars become Python ones (1, not np.int64(1))."""
    return c.item() if isinstance(c, np.generic) else c


class CallOutput:
    """One output of a model seen through model calls: ``predict`` returns that output."""

    def __init__(self, fn, model, why, X_train=None, model_method=None):
        self._fn = fn
        self.why = why
        #: the method of the user's model that ``fn`` calls (meta["model_method"]), if known
        self.model_method = model_method or method_name(fn)
        #: what error messages call it: the user's model, not this wrapper
        self.display_name = getattr(model, "display_name", type(model).__name__)
        for attr in ("feature_names_in_", "n_features_in_"):
            if hasattr(model, attr):
                setattr(self, attr, getattr(model, attr))
        if X_train is not None:
            self.X_train = X_train

    def predict(self, X) -> np.ndarray:
        return self._fn(X)

    def __repr__(self):
        return f"model calls ({self.why})"


def refuse(model, output, has, why="") -> None:
    """ValueError: ``output`` is not one of the outputs ``has`` of this model."""
    what = type(model).__name__
    raise ValueError(f"output={output!r} is not an output of this {what}{why}; its outputs are "
                     f"{', '.join(repr(h) for h in has)}")


def expansion_or_calls(shim, rebuild, call, model, why_calls, convert, X_train=None) -> object:
    """The exact expansion ``convert(rebuild(shim))``, or, if it has none, ``call`` through model calls."""
    try:
        return convert(rebuild(shim))
    except TypeError as err:
        reason = str(err).split("; supported models")[0]
        return CallOutput(call, model, f"{why_calls}: {reason}", X_train)


def training_inputs(model, attribute) -> np.ndarray | None:
    """The model's stored training inputs (``attribute``) as floats, or None."""
    X = getattr(model, attribute, None)
    return None if X is None else as_real_array(X, "the model's training inputs")


def affine_expansion(expansion, scale, shift) -> KernelExpansion:
    """The kernel expansion scale * f + shift."""
    return KernelExpansion(expansion.X_train, scale * expansion.alpha, expansion.kernel,
                           scale * expansion.intercept + shift,
                           feature_names=list(expansion.feature_names) if expansion.has_feature_names
                           else None,
                           holds_training_inputs=expansion.holds_training_inputs,
                           source=expansion.source)


def model_call_plan(model, final, output) -> OutputPlan | None:
    """Classifiers and outlier detectors kernelxai does not convert: their outputs through model calls."""
    if output is None:
        return None
    classifier, has = _called_outputs(model, final)
    if not classifier and not has:
        if output == "prediction":
            return None
        refuse(final, output, ["prediction"], " (it is not a classifier)")
    if output not in has:
        refuse(final, output, has or ["prediction"])
    return _call_plan(model, final, output)


def _called_outputs(model, final):
    """Whether ``final`` is a classifier, and the outputs the methods of ``model`` give."""
    from sklearn.base import is_classifier

    try:
        classifier = is_classifier(final)
    except AttributeError:
        classifier = False
    has = []
    if callable(getattr(model, "decision_function", None)):
        has.append("decision")
    if callable(getattr(model, "predict_proba", None)):
        has += ["log_odds", "probability"]
    if callable(getattr(model, "score_samples", None)):
        has.append("score")
    return classifier, has


def _call_plan(model, final, output):
    """The plan of ``output`` (one the model's methods give) through calls of the model."""
    classes = [str(c) for c in getattr(model, "classes_", getattr(final, "classes_", []))]
    binary = len(classes) <= 2
    why = f"a {type(final).__name__} is not a kernel model kernelxai converts exactly"
    if output == "decision":
        fn = model.decision_function
        if binary:
            return OutputPlan("decision", "decision_function (positive: classes_[1])",
                              [("decision", CallOutput(column(fn, None), model, why))], False)
        return OutputPlan("decision", "decision_function, one column per class",
                          [(c, CallOutput(column(fn, j), model, why))
                           for j, c in enumerate(classes)], True)
    if output == "score":
        return OutputPlan("score", "score_samples (an outlier detector's score: lower is more abnormal)",
                          [("score", CallOutput(column(model.score_samples, None), model, why))], False)
    make = log_odds_column if output == "log_odds" else column
    what = ("the log-odds log p / (1 - p) of" if output == "log_odds" else "predict_proba of")
    if binary:
        return OutputPlan(output, f"{what} classes_[1]",
                          [(output, CallOutput(make(model.predict_proba, 1), model, why))], False)
    return OutputPlan(output, f"{what} each class",
                      [(c, CallOutput(make(model.predict_proba, j), model, why))
                       for j, c in enumerate(classes)], True)


def column(fn, j) -> object:
    """X -> column j of fn(X) (the whole 1-D output when j is None)."""
    def predict(X):
        out = np.asarray(fn(X), dtype=float)
        return out if j is None else out[:, j]
    predict.model_method = method_name(fn)
    return predict


def log_odds_column(fn, j) -> object:
    """X -> the log-odds log p / (1 - p) of column j of the probabilities fn(X)."""
    def predict(X):
        p = np.asarray(fn(X), dtype=float)[:, j]
        return np.log(p) - np.log1p(-p)
    predict.model_method = method_name(fn)
    return predict


def method_name(fn) -> str | None:
    """The name of the model method ``fn`` is (or calls, when it says so), if it is one of :data:`MODEL_METHODS`."""
    name = getattr(fn, "model_method", None) or getattr(fn, "__name__", None)
    return name if name in MODEL_METHODS else None


def stack_outputs(results, names) -> Explanation:
    """Explanations of the same points, one per output, stacked on a trailing outputs axis."""
    first = results[0]

    def stacked(attr):
        arrays = [getattr(r, attr) for r in results]
        if any(a is None for a in arrays):
            return None
        return np.stack([np.asarray(a, dtype=float) for a in arrays], axis=-1)

    meta = dict(first.meta)
    for key in set().union(*(r.meta for r in results)):
        vals = [r.meta.get(key) for r in results]
        if all(isinstance(v, np.ndarray) and v.ndim and v.shape in (r.values.shape, block_shape(r.axes, r.shape))
               for v, r in zip(vals, results)):
            meta[key] = np.stack(vals, axis=-1)   # per-cell / per-block arrays get the outputs axis
        elif any(not _same(v, vals[0]) for v in vals[1:]):
            meta[key] = dict(zip(names, vals))
    return Explanation(
        stacked("values"), stacked("base_values"), data=first.data,
        feature_names=first.feature_names, stderr=stacked("stderr"), lower=stacked("lower"),
        upper=stacked("upper"), meta=meta, output_names=names,
        interactions=stacked("interactions"), covariance=stacked("covariance"),
        joint_covariance=stacked("joint_covariance"), axes=tuple(first.axes) + ("output",))


def _same(a, b):
    try:
        return bool(np.all(a == b)) if not isinstance(a, dict) else a == b
    except (TypeError, ValueError):
        return a is b


def quiet_call(fn, A) -> np.ndarray:
    """fn(A) without scikit-learn's feature-name warnings (the probes are plain arrays)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return np.asarray(fn(A), dtype=float)
