"""Which outputs a model has, what they mean, and one explainable target per output.

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

:func:`output_plan` decides; ``kx.explain`` runs each target through its
ordinary routes and :meth:`OutputPlan.finish` stacks the results.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np

from ...explanation.core import Explanation
from ..core import KernelExpansion, KernelLogisticRegression, KernelRidge, as_expansion

__all__ = ["OUTPUTS", "OutputPlan", "output_plan"]

#: every output kx.explain(..., output=...) knows, with what it means in general
OUTPUTS = {
    "decision": "the decision function (an SVM's kernel expansion; positive: classes_[1])",
    "log_odds": "the log-odds log p / (1 - p) of the positive class",
    "latent": "the latent function of a Gaussian process classifier (Laplace posterior mean)",
    "probability": "predict_proba, the predicted class probability",
    "ovo": "the pairwise (one-vs-one) decision functions of a multi-class SVC",
    "prediction": "the prediction of a regressor (one output per target)",
}


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
    """

    def __init__(self, kind, description, targets, multi):
        self.kind = kind
        self.description = description
        self.targets = list(targets)
        self.multi = bool(multi)

    @property
    def through_model_calls(self):
        """Whether some output is explained through model calls (it then needs a background)."""
        return any(isinstance(t, _CallOutput) for _, t in self.targets)

    @staticmethod
    def background_for(target, background):
        """The background to explain ``target`` with: the given one, else the model's training inputs."""
        if background is None and isinstance(target, _CallOutput):
            return getattr(target, "X_train", None)
        return background

    def missing_background(self, background):
        """Why a background is needed and missing (a message), or None."""
        for _, target in self.targets:
            if isinstance(target, _CallOutput) and self.background_for(target, background) is None:
                return (f"output={self.kind!r} is explained through model calls ({target.why}), "
                        "which average the model over a background sample, and this model keeps "
                        "no training inputs: pass background=..., e.g. kx.explain(model, X, "
                        f"output={self.kind!r}, background=X_train) (a few hundred rows suffice)")
        return None

    def finish(self, results):
        """One Explanation from the per-output ``results`` (stacked on the outputs axis if multi)."""
        for (_, target), result in zip(self.targets, results):
            if isinstance(target, _CallOutput):
                head = str(result.meta.get("route", "model calls (marginal)")).split(":")[0]
                result.meta["route"] = f"{head}: {target.why}"
        if not self.multi:
            out = results[0]
        else:
            out = _stack(results, [name for name, _ in self.targets])
        out.meta["output"] = self.kind
        out.meta["output_kind"] = self.kind
        out.meta["output_description"] = self.description
        return out


def _label(c):
    """A class label as the user wrote it: numpy scalars become Python ones (1, not np.int64(1))."""
    return c.item() if isinstance(c, np.generic) else c


class _CallOutput:
    """One output of a model seen through model calls: ``predict`` returns that output."""

    def __init__(self, fn, model, why, X_train=None):
        self._fn = fn
        self.why = why
        #: what error messages call it: the user's model, not this wrapper
        self.display_name = getattr(model, "display_name", type(model).__name__)
        for attr in ("feature_names_in_", "n_features_in_"):
            if hasattr(model, attr):
                setattr(self, attr, getattr(model, attr))
        if X_train is not None:
            self.X_train = X_train

    def predict(self, X):
        return self._fn(X)

    def __repr__(self):
        return f"model calls ({self.why})"


# --------------------------------------------------------------------------- #
# the plan
# --------------------------------------------------------------------------- #
def output_plan(model, output=None):
    """The outputs of ``model`` to explain for ``output=``, or None for the model's only output.

    Parameters
    ----------
    model : object
        Anything ``kx.explain`` takes.
    output : str or None
        One of :data:`OUTPUTS`; None: the model's default (``"decision"`` for
        SVMs, ``"log_odds"`` for kernel logistic regression, ``"latent"`` for
        Gaussian process classifiers, ``"prediction"`` for regressors).

    Returns
    -------
    OutputPlan or None
        None when there is nothing to do beyond explaining the model as it is
        (a single-output model and no ``output`` asked for).

    Raises
    ------
    ValueError
        ``output`` is not a known output, or not one this model has (the
        message lists the ones it has).
    """
    if output is not None and (not isinstance(output, str) or output not in OUTPUTS):
        raise ValueError(f"output must be one of {sorted(OUTPUTS)} or None (the model's default); "
                         f"got {output!r}")
    from .nystroem import nystroem_plan

    handled, plan = nystroem_plan(model, output)  # Nystroem + linear model: expansions over landmarks
    if handled:
        return plan
    final, rebuild = _split_pipeline(model)
    module = type(final).__module__ or ""
    if isinstance(final, KernelLogisticRegression):
        return _klr_plan(model, final, output)
    if isinstance(final, (KernelExpansion, KernelRidge)):
        return _single_output(final, output)
    if module.startswith("sklearn."):
        from sklearn.gaussian_process import GaussianProcessClassifier, GaussianProcessRegressor
        from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
        from sklearn.calibration import CalibratedClassifierCV
        from sklearn.svm import SVC

        if isinstance(final, CalibratedClassifierCV):
            return _calibrated_plan(model, final, rebuild, output)
        if isinstance(final, SVC):
            return _svc_plan(model, final, rebuild, output)
        if isinstance(final, GaussianProcessClassifier):
            return _gpc_plan(model, final, output)
        if isinstance(final, SkKernelRidge):
            return _multi_output_plan(model, final, rebuild, output, "dual_coef_", _krr_column)
        if isinstance(final, GaussianProcessRegressor):
            return _multi_output_plan(model, final, rebuild, output, "alpha_", _gpr_column)
    return _other_plan(model, final, output)


def _split_pipeline(model):
    """(final estimator, rebuild): rebuild(est) is the model with its final estimator replaced."""
    from sklearn.pipeline import Pipeline

    if isinstance(model, Pipeline) and len(model.steps) > 0:
        head, (name, _) = model.steps[:-1], model.steps[-1]
        return model.steps[-1][1], lambda est: Pipeline(list(head) + [(name, est)])
    return model, lambda est: est


def _refuse(model, output, has, why=""):
    what = type(model).__name__
    raise ValueError(f"output={output!r} is not an output of this {what}{why}; its outputs are "
                     f"{', '.join(repr(h) for h in has)}")


def _expansion_or_calls(shim, rebuild, call, model, why_calls, X_train=None):
    """The exact expansion of ``rebuild(shim)``, or, if it has none, ``call`` through model calls."""
    try:
        return as_expansion(rebuild(shim))
    except TypeError as err:
        reason = str(err).split("; supported models")[0]
        return _CallOutput(call, model, f"{why_calls}: {reason}", X_train)


def _single_output(final, output):
    if output in (None, "prediction"):
        return None
    _refuse(final, output, ["prediction"], " (a regression function has one output, its value)")


def _training_inputs(model, attribute):
    X = getattr(model, attribute, None)
    return None if X is None else np.asarray(X, dtype=float)


# --------------------------------------------------------------------------- #
# SVC
# --------------------------------------------------------------------------- #
def _platt(svc):
    """(A, B) of a fitted SVC(probability=True), read without the deprecation warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        A, B = np.asarray(svc.probA_, dtype=float), np.asarray(svc.probB_, dtype=float)
    return A, B


def _has_probability(svc):
    return bool(getattr(svc, "probability", False)) and _platt(svc)[0].size > 0


def _svc_plan(model, svc, rebuild, output):
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
        _refuse(svc, output, has, why)
    if len(classes) == 2:
        return _binary_svc(model, svc, rebuild, kind, classes)
    if kind == "ovo" or (kind == "decision" and svc.decision_function_shape == "ovo"):
        return _ovo_plan(model, svc, rebuild, classes)
    if kind == "decision":
        desc = ("sklearn's one-vs-rest decision function of each class (decision_function_shape="
                "'ovr': pairwise votes plus a bounded transform of the pairwise confidences, not "
                "linear in the kernel expansions, so explained through model calls; "
                "output='ovo' explains the pairwise decision functions exactly)")
        why = "the one-vs-rest decision function is derived non-linearly from the pairwise ones"
        targets = [(str(c), _CallOutput(_column(model.decision_function, j), model, why))
                   for j, c in enumerate(classes)]
        return OutputPlan("decision", desc, targets, True)
    if kind == "probability":
        desc = ("predict_proba: the probability of each class (Platt maps coupled pairwise by "
                "libsvm; non-linear, explained through model calls)")
        targets = [(str(c), _CallOutput(_column(model.predict_proba, j), model,
                                        "probabilities are not linear in the decision functions"))
                   for j, c in enumerate(classes)]
        return OutputPlan("probability", desc, targets, True)
    desc = ("the log-odds log p / (1 - p) of each class against the rest, p = predict_proba "
            "(non-linear in the pairwise decision functions, explained through model calls)")
    targets = [(str(c), _CallOutput(_log_odds_column(model.predict_proba, j), model,
                                    "multi-class log-odds are not linear in the decision functions"))
               for j, c in enumerate(classes)]
    return OutputPlan("log_odds", desc, targets, True)


def _binary_svc(model, svc, rebuild, kind, classes):
    positive = classes[1]
    if kind == "decision":
        desc = (f"the decision function f(x) = sum_i dual_coef_i k(x, sv_i) + intercept_ "
                f"(positive: class {_label(positive)!r}); a kernel expansion")
        target = _expansion_or_calls(svc, rebuild, _column(model.decision_function, None), model,
                                     "the decision function through model calls")
        return OutputPlan("decision", desc, [("decision", target)], False)
    if kind == "probability":
        desc = (f"predict_proba[:, 1], the probability of class {_label(positive)!r} (the Platt map of the "
                "decision function, then libsvm's pairwise coupling; non-linear, explained "
                "through model calls)")
        target = _CallOutput(_column(model.predict_proba, 1), model,
                             "the probability is not linear in the decision function")
        return OutputPlan("probability", desc, [("probability", target)], False)
    A, B = (float(v[0]) for v in _platt(svc))
    desc = (f"the Platt log-odds of class {_label(positive)!r}: log p / (1 - p) = B - A f(x) with "
            f"A = probA_ = {A:.6g}, B = probB_ = {B:.6g} and f the decision function, "
            "p = 1 / (1 + exp(A f - B)); affine in f, so a kernel expansion explained exactly "
            "(Shapley values -A times those of f). sklearn's predict_proba passes this p "
            "through libsvm's iterative pairwise coupling (tolerance 0.0025), which moves it "
            "by up to a few 1e-3; output='probability' explains predict_proba itself")

    def platt_log_odds(X):
        return B - A * np.asarray(model.decision_function(X), dtype=float)

    target = _expansion_or_calls(svc, rebuild, platt_log_odds, model,
                                 "the Platt log-odds through model calls")
    if isinstance(target, KernelExpansion):
        target = _affine(target, -A, B)
    return OutputPlan("log_odds", desc, [("log_odds", target)], False)


def _affine(expansion, scale, shift):
    """The kernel expansion scale * f + shift."""
    return KernelExpansion(expansion.X_train, scale * expansion.alpha, expansion.kernel,
                           scale * expansion.intercept + shift,
                           feature_names=list(expansion.feature_names) if expansion.has_feature_names
                           else None,
                           holds_training_inputs=expansion.holds_training_inputs,
                           source=expansion.source)


def _ovo_plan(model, svc, rebuild, classes):
    """One exact kernel expansion per pair of classes, from libsvm's layout of dual_coef_.

    ``support_vectors_`` are grouped by class (``n_support_`` of each, in the
    order of ``classes_``); the decision function of the pair (i, j), i < j,
    has coefficients ``dual_coef_[j - 1]`` on the support vectors of class i
    and ``dual_coef_[i]`` on those of class j, intercept ``intercept_[p]`` with
    p the pair's position in (0, 1), (0, 2), ..., (1, 2), ...; positive votes
    for class i.
    """
    k = len(classes)
    sv = np.asarray(svc.support_vectors_)
    coef = np.asarray(svc.dual_coef_, dtype=float)
    intercept = np.asarray(svc.intercept_, dtype=float).ravel()
    starts = np.concatenate([[0], np.cumsum(np.asarray(svc.n_support_, dtype=int))])
    targets, p = [], 0
    for i in range(k):
        for j in range(i + 1, k):
            rows_i, rows_j = np.arange(starts[i], starts[i + 1]), np.arange(starts[j], starts[j + 1])
            rows = np.concatenate([rows_i, rows_j])
            alpha = np.concatenate([coef[j - 1, rows_i], coef[i, rows_j]])
            shim = _pair_svc(svc, sv[rows], alpha, intercept[p], [classes[j], classes[i]])
            call = _column(_ovo_decision(model, svc), p)
            target = _expansion_or_calls(shim, rebuild, call, model,
                                         "the pairwise decision function through model calls")
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
    shim._n_support = np.array([len(sv), 0], dtype=np.int32)
    return shim


def _ovo_decision(model, svc):
    """decision_function with decision_function_shape='ovo', for the model-call fallback."""
    def decision(X):
        if svc.decision_function_shape == "ovo":
            return model.decision_function(X)
        ovo = copy.copy(svc)
        ovo.decision_function_shape = "ovo"
        _, rebuild = _split_pipeline(model)
        return rebuild(ovo).decision_function(X)
    return decision


def _calibrated_plan(model, cal, rebuild, output):
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
            expansion = as_expansion(rebuild(inner))
        except TypeError:
            expansion = None
    has = (["log_odds", "decision"] if expansion is not None else ["log_odds"]) + ["probability"]
    kind = output or ("log_odds" if expansion is not None else "probability")
    if kind not in has:
        _refuse(cal, output, has, " (a decision function needs ensemble=False, method='sigmoid' and "
                "a kernel model kernelxai converts, e.g. SVC)" if kind == "decision" else "")
    if expansion is not None and kind != "probability":
        a, b = float(calibrators[0].a_), float(calibrators[0].b_)
        if kind == "decision":
            desc = (f"the decision function f of the calibrated {type(inner).__name__} "
                    f"(positive: class {_label(classes[1])!r}); a kernel expansion")
            return OutputPlan("decision", desc, [("decision", expansion)], False)
        desc = (f"the log-odds of class {_label(classes[1])!r}: log p / (1 - p) = -(a f(x) + b) with the "
                f"sigmoid calibrator's a = {a:.6g}, b = {b:.6g} and f the decision function of "
                f"the {type(inner).__name__}: affine in f, so a kernel expansion explained exactly "
                "(Shapley values -a times those of f); equal to the logit of predict_proba")
        return OutputPlan("log_odds", desc, [("log_odds", _affine(expansion, -a, -b))], False)
    why = ("the calibrated probability is not an affine map of one kernel expansion (several "
           "folds, isotonic calibration, more than two classes, or a model kernelxai does not "
           "convert)")
    make = _log_odds_column if kind == "log_odds" else _column
    what = "the log-odds log p / (1 - p) of" if kind == "log_odds" else "predict_proba of"
    if len(classes) == 2:
        return OutputPlan(kind, f"{what} class {_label(classes[1])!r} (through model calls)",
                          [(kind, _CallOutput(make(model.predict_proba, 1), model, why))], False)
    return OutputPlan(kind, f"{what} each class (through model calls)",
                      [(str(c), _CallOutput(make(model.predict_proba, j), model, why))
                       for j, c in enumerate(classes)], True)


# --------------------------------------------------------------------------- #
# kernel logistic regression, Gaussian process classifier
# --------------------------------------------------------------------------- #
def _klr_plan(model, klr, output):
    kind = output or "log_odds"
    has = ["log_odds", "decision", "latent", "probability"]
    if kind not in has:
        _refuse(klr, output, has)
    positive = klr.classes_[1] if hasattr(klr, "classes_") else "classes_[1]"
    if kind == "probability":
        desc = (f"predict_proba[:, 1] = sigmoid(f(x)), the probability of class {_label(positive)!r} "
                "(non-linear, explained through model calls)")
        target = _CallOutput(_column(model.predict_proba, 1), model,
                             "the probability is a sigmoid of the kernel expansion",
                             _training_inputs(klr, "X_fit_"))
        return OutputPlan("probability", desc, [("probability", target)], False)
    desc = (f"the log-odds f(x) = log p / (1 - p) of class {_label(positive)!r}, the model's latent "
            "kernel expansion (its decision_function; predict_proba = sigmoid(f)); exact")
    return OutputPlan(kind, desc, [(kind, as_expansion(model))], False)


def _gpc_plan(model, gpc, output):
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
        _refuse(gpc, output, has)
    X_train = _training_inputs(gpc.base_estimator_ if binary else gpc.base_estimator_.estimators_[0],
                               "X_train_")
    if kind == "probability":
        why = "predicted probabilities average a sigmoid over the latent posterior"
        if binary:
            desc = (f"predict_proba[:, 1], the probability of class {_label(classes[1])!r} (non-linear, "
                    "explained through model calls)")
            target = _CallOutput(_column(model.predict_proba, 1), model, why, X_train)
            return OutputPlan("probability", desc, [("probability", target)], False)
        desc = "predict_proba: the probability of each class (explained through model calls)"
        targets = [(str(c), _CallOutput(_column(model.predict_proba, j), model, why, X_train))
                   for j, c in enumerate(classes)]
        return OutputPlan("probability", desc, targets, True)
    what = ("the Laplace posterior mean of the latent function f(x) = k(x, X)(y - pi), "
            "a kernel expansion (exact); the log-odds at the latent mode: predict_proba averages "
            "sigmoid(f) over the latent variance, so its logit is shrunk towards 0")
    if binary:
        desc = f"{what}; positive: class {_label(classes[1])!r}"
        return OutputPlan(kind, desc, [(kind, _latent_expansion(gpc, gpc.base_estimator_))], False)
    desc = f"{what}; one per class, each fitted one-vs-rest"
    targets = [(str(c), _latent_expansion(gpc, est))
               for c, est in zip(classes, gpc.base_estimator_.estimators_)]
    return OutputPlan(kind, desc, targets, True)


def _latent_expansion(gpc, binary):
    """The latent mean k(x, X)(y - pi) of a fitted binary Laplace GP classifier, as a GP regressor's mean."""
    return as_expansion(latent_regressor(gpc, binary))


def latent_regressor(gpc, binary):
    """A fitted GaussianProcessRegressor whose mean is the binary Laplace classifier's latent mean."""
    from sklearn.gaussian_process import GaussianProcessRegressor

    shim = GaussianProcessRegressor(kernel=binary.kernel_)
    shim.X_train_ = np.asarray(binary.X_train_, dtype=float)
    shim.kernel_ = binary.kernel_
    shim.alpha_ = np.asarray(binary.y_train_, dtype=float) - np.asarray(binary.pi_, dtype=float)
    shim._y_train_mean = np.zeros(1)
    shim._y_train_std = np.ones(1)
    shim.y_train_ = shim.alpha_
    for attr in ("feature_names_in_", "n_features_in_"):
        if hasattr(gpc, attr):
            setattr(shim, attr, getattr(gpc, attr))
    return shim


# --------------------------------------------------------------------------- #
# multi-output regressors
# --------------------------------------------------------------------------- #
def _krr_column(krr, j):
    shim = copy.copy(krr)
    shim.dual_coef_ = np.asarray(krr.dual_coef_, dtype=float)[:, j]
    return shim


def _gpr_column(gpr, j):
    shim = copy.copy(gpr)
    shim.alpha_ = np.asarray(gpr.alpha_, dtype=float)[:, j]
    shim._y_train_mean = np.atleast_1d(np.asarray(gpr._y_train_mean, dtype=float))[j:j + 1] \
        if np.size(gpr._y_train_mean) > 1 else np.atleast_1d(gpr._y_train_mean)
    shim._y_train_std = np.atleast_1d(np.asarray(gpr._y_train_std, dtype=float))[j:j + 1] \
        if np.size(gpr._y_train_std) > 1 else np.atleast_1d(gpr._y_train_std)
    return shim


def _multi_output_plan(model, reg, rebuild, output, attribute, column):
    if output not in (None, "prediction"):
        _refuse(reg, output, ["prediction"], " (a regressor's output is its prediction)")
    if not hasattr(reg, attribute):
        return None  # as_expansion says it is not fitted
    coef = np.asarray(getattr(reg, attribute))
    if coef.ndim < 2 or coef.shape[1] == 1:
        return None
    k = coef.shape[1]
    targets = []
    for j in range(k):
        call = _column(model.predict, j)
        targets.append((f"output_{j}", _expansion_or_calls(
            column(reg, j), rebuild, call, model, f"output {j} through model calls")))
    desc = (f"the prediction of each of the {k} targets (output_j: column j of predict), "
            "each a kernel expansion")
    return OutputPlan("prediction", desc, targets, True)


# --------------------------------------------------------------------------- #
# any other model
# --------------------------------------------------------------------------- #
def _other_plan(model, final, output):
    """Classifiers kernelxai does not convert: their outputs through model calls."""
    if output is None:
        return None
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
    if not classifier and not has:
        if output == "prediction":
            return None
        _refuse(final, output, ["prediction"], " (it is not a classifier)")
    if output not in has:
        _refuse(final, output, has or ["prediction"])
    classes = [str(c) for c in getattr(model, "classes_", getattr(final, "classes_", []))]
    binary = len(classes) <= 2
    why = f"a {type(final).__name__} is not a kernel model kernelxai converts exactly"
    if output == "decision":
        fn = model.decision_function
        if binary:
            return OutputPlan("decision", "decision_function (positive: classes_[1])",
                              [("decision", _CallOutput(_column(fn, None), model, why))], False)
        return OutputPlan("decision", "decision_function, one column per class",
                          [(c, _CallOutput(_column(fn, j), model, why))
                           for j, c in enumerate(classes)], True)
    make = _log_odds_column if output == "log_odds" else _column
    what = ("the log-odds log p / (1 - p) of" if output == "log_odds" else "predict_proba of")
    if binary:
        return OutputPlan(output, f"{what} classes_[1]",
                          [(output, _CallOutput(make(model.predict_proba, 1), model, why))], False)
    return OutputPlan(output, f"{what} each class",
                      [(c, _CallOutput(make(model.predict_proba, j), model, why))
                       for j, c in enumerate(classes)], True)


# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #
def _column(fn, j):
    """X -> column j of fn(X) (the whole 1-D output when j is None)."""
    def predict(X):
        out = np.asarray(fn(X), dtype=float)
        return out if j is None else out[:, j]
    return predict


def _log_odds_column(fn, j):
    def predict(X):
        p = np.asarray(fn(X), dtype=float)[:, j]
        return np.log(p) - np.log1p(-p)
    return predict


def _stack(results, names):
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
        if all(isinstance(v, np.ndarray) and v.ndim and v.shape in (r.values.shape, r._block_shape())
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
