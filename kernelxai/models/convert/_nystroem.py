"""Pipelines of Nyström features and a linear model, folded exactly into kernel expansions.

scikit-learn's ``Nystroem(kernel=k, n_components=m)`` keeps m landmarks
L_1..L_m (``components_``, a uniform random sample of the training rows) and
a normalisation matrix N (``normalization_``, the inverse square root of
k(L, L)), and maps a point u to the features

    phi(u) = k(u, L) N^T                    (a row of m numbers).

A linear model on these features, g(u) = phi(u) . w + b, is therefore

    g(u) = k(u, L) (N^T w) + b = sum_l alpha_l k(u, L_l) + b,   alpha = N^T w,

an exact kernel expansion over the landmarks: no approximation beyond the
one the model itself makes. Per-feature affine steps before the Nyström step
(``StandardScaler`` and the others of ``kernelxai.models.convert._affine.AFFINE_STEPS``)
are folded into the kernel's lengthscales as for any kernel model
(``kernelxai.models.convert._affine.fold_affine``), so the expansion lives on the
pipeline's input columns; affine steps between the Nyström step and the
linear model (a ``StandardScaler`` of the features, say) are folded into w
and b. A model fitted to 10^6 rows with 100 components is an expansion over
100 points, and every exact route of kernelxai applies to it.

What is converted
-----------------
* Nyström kernels: ``"rbf"`` (product RBF, lengthscale 1/sqrt(2 gamma)),
  ``"laplacian"`` (product Laplace, lengthscale 1/gamma), ``"linear"``
  (closed form), a scikit-learn Gaussian-process kernel object (as
  ``kernelxai.kernels._from_sklearn.gp_kernel`` reads it: sums and products of
  RBF / ConstantKernel stay product kernels or sums of them). Every other
  kernel (``"poly"``, ``"sigmoid"``, ``"cosine"``, ``"chi2"``, a callable) is
  kept exactly as scikit-learn evaluates it (``kernelxai.kernels._from_sklearn.Pairwise``);
  it is not a product kernel, so its interventional game is evaluated through
  model calls on the synthetic points (x_S, b_{S^c}) -- exact with all
  coalitions, and ``meta["route"]`` says so.
* Final models: linear models whose output is ``phi . coef_ + intercept_``
  -- scikit-learn's linear regressors (``LinearRegression``, ``Ridge``,
  ``Lasso``, ``ElasticNet``, ``SGDRegressor``, ``HuberRegressor``, ...;
  several targets give one expansion per target), linear classifiers'
  ``decision_function`` (``LogisticRegression``, ``SGDClassifier``,
  ``RidgeClassifier``, ``LinearSVC``, ...; one expansion per class when there
  are more than two), ``LinearSVR``, and ``SVR`` / ``NuSVR`` / binary ``SVC``
  / ``NuSVC`` with ``kernel="linear"``. The linearity is checked on probe
  points before the conversion is accepted. For a binary logistic model
  (``LogisticRegression``, ``SGDClassifier(loss="log_loss")``)
  ``predict_proba`` is the sigmoid of the decision function, so its log-odds
  are the same expansion (``output="log_odds"``, the default there);
  probabilities (``output="probability"``) and multi-class log-odds are not
  linear and go through model calls.

Random features are different: ``RBFSampler`` (random Fourier features,
sqrt(2/D) cos(omega . u + c)), ``SkewedChi2Sampler``, ``AdditiveChi2Sampler``
and ``PolynomialCountSketch`` give models that are not kernel expansions over
stored points, so kernelxai explains such pipelines through model calls (the
interventional game as the average of model calls over the background) and
says so in ``meta["route"]``.

Examples
--------
>>> import numpy as np, kernelxai as kx
>>> from sklearn.pipeline import make_pipeline
>>> from sklearn.kernel_approximation import Nystroem
>>> from sklearn.linear_model import Ridge
>>> X = np.random.default_rng(0).normal(size=(2000, 3)); y = np.sin(X[:, 0]) * X[:, 1]
>>> pipe = make_pipeline(Nystroem(gamma=0.5, n_components=50, random_state=0), Ridge(1e-3)).fit(X, y)
>>> f = kx.models.as_expansion(pipe)
>>> f.X_train.shape, bool(np.allclose(f.predict(X[:5]), pipe.predict(X[:5]), atol=1e-10))
((50, 3), True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...kernels import RBF, Laplace, Linear
from ...kernels._from_sklearn import Pairwise, gp_kernel
from .._expansion import KernelExpansion
from ._affine import compose_affine, fold_affine
from ._converters import DECLINED, Converter, Example, pipeline_steps, register
from ._plans import CallOutput, OutputPlan, class_label, column, log_odds_column, quiet_call, refuse
from ._random_features import RANDOM_FEATURE_MAPS, random_features_reason

if TYPE_CHECKING:
    from ...explanation import Explanation

__all__ = ["NystroemPipeline", "is_nystroem_pipeline", "random_features_reason", "nystroem_kernel",
           "expansion_of_nystroem_pipeline", "nystroem_plan", "RANDOM_FEATURE_MAPS", "NYSTROEM"]

#: what the final step of a converted Nyström pipeline may be, for messages
LINEAR_FINALS = ("a linear model with coef_ and intercept_ (sklearn.linear_model regressors and "
                 "classifiers, LinearSVR, LinearSVC, SVR / NuSVR / binary SVC / NuSVC with "
                 "kernel='linear')")

#: binary classifiers whose predict_proba is the sigmoid of their decision function
_SIGMOID_PROBABILITY = ("LogisticRegression", "LogisticRegressionCV")


# --------------------------------------------------------------------------- #
# recognising the pipelines
# --------------------------------------------------------------------------- #
def _is_nystroem(step):
    from sklearn.kernel_approximation import Nystroem

    return isinstance(step, Nystroem)


def is_nystroem_pipeline(model) -> bool:
    """Whether ``model`` is a scikit-learn Pipeline with a ``Nystroem`` step (at its top level)."""
    steps = pipeline_steps(model)
    return steps is not None and any(_is_nystroem(step) for _, step in steps[:-1])


# --------------------------------------------------------------------------- #
# the kernel of a Nystroem step
# --------------------------------------------------------------------------- #
def _kernel_params(nys):
    """The keyword arguments scikit-learn passes to the kernel (as ``Nystroem._get_kernel_params``)."""
    from sklearn.metrics.pairwise import KERNEL_PARAMS

    params = dict(nys.kernel_params or {})
    if isinstance(nys.kernel, str):
        for p in KERNEL_PARAMS.get(nys.kernel, ()):
            if getattr(nys, p, None) is not None:
                params[p] = getattr(nys, p)
    return params


def nystroem_kernel(nys, n_features) -> tuple:
    """(scale, kernelxai kernel) with scale * kernel(A, B) equal to the Nystroem step's kernel.

    Parameters
    ----------
    nys : fitted ``sklearn.kernel_approximation.Nystroem``
    n_features : int
        Columns the step takes (its ``gamma=None`` default is 1 / n_features).

    Returns
    -------
    scale : float
    kernel : Kernel
        RBF / Laplace for ``"rbf"`` / ``"laplacian"``, Linear for
        ``"linear"``, the reading of ``kernelxai.kernels._from_sklearn.gp_kernel``
        for a Gaussian-process kernel object, otherwise
        ``kernelxai.kernels._from_sklearn.Pairwise`` (exact, not a product kernel).

    Raises
    ------
    TypeError
        ``kernel="precomputed"`` (there is no kernel function to explain).
    """
    from sklearn.gaussian_process.kernels import Kernel as GPKernel

    kernel = nys.kernel
    if isinstance(kernel, GPKernel):
        return gp_kernel(kernel, n_features)
    if isinstance(kernel, str) and kernel == "precomputed":
        raise TypeError("Nystroem(kernel='precomputed') has no kernel function kernelxai can "
                        "evaluate at new points; fit it with a kernel such as 'rbf'")
    params = _kernel_params(nys)
    if isinstance(kernel, str) and kernel in ("rbf", "laplacian"):
        gamma = params.get("gamma")
        gamma = 1.0 / n_features if gamma is None else float(gamma)
        if not gamma > 0:
            raise TypeError(f"Nystroem(kernel={kernel!r}) with gamma={gamma!r} is not a valid kernel")
        return 1.0, (RBF(1.0 / np.sqrt(2.0 * gamma)) if kernel == "rbf" else Laplace(1.0 / gamma))
    if isinstance(kernel, str) and kernel == "linear":
        return 1.0, Linear()
    return 1.0, Pairwise(kernel, params)


# --------------------------------------------------------------------------- #
# the linear model on the features
# --------------------------------------------------------------------------- #
def _is_linear_final(final):
    """Whether ``final`` is a scikit-learn model whose output is X @ coef_.T + intercept_."""
    from sklearn.svm import SVC, SVR, LinearSVC, LinearSVR, NuSVC, NuSVR

    if isinstance(final, (LinearSVR, LinearSVC)):
        return True
    if isinstance(final, (SVR, NuSVR, SVC, NuSVC)):
        return getattr(final, "kernel", None) == "linear"
    from sklearn.linear_model import SGDRegressor

    if isinstance(final, SGDRegressor):  # not a LinearModel subclass, but linear
        return True
    try:
        from sklearn.linear_model._base import LinearClassifierMixin, LinearModel
    except ImportError:  # pragma: no cover - a future scikit-learn moved them
        return False
    return isinstance(final, (LinearModel, LinearClassifierMixin))


def _output_method(final):
    from sklearn.base import is_classifier

    return "decision_function" if is_classifier(final) else "predict"


def _check_affine_on(fn, P, W, b, what):
    """Raise TypeError unless fn(P) equals P @ W + b to rounding (the probe check of linearity)."""
    got = quiet_call(fn, P).reshape(len(P), -1)
    want = P @ W + b
    scale = np.abs(P) @ np.abs(W) + np.abs(b) + 1e-300
    if got.shape != want.shape or not np.all(np.abs(got - want) <= 1e-9 * scale + 1e-12):
        raise TypeError(f"{what} is not phi . coef_ + intercept_ on probe points: it is not a "
                        "linear function of the Nystroem features kernelxai can fold")


def _linear_part(final, n_features, probes):
    """(W (p, k), b (k,)) with the final model's output = Phi @ W + b (checked on ``probes``)."""
    name = type(final).__name__
    if not _is_linear_final(final):
        raise TypeError(f"the final step {name} is not a linear model of the Nystroem features; "
                        f"converted exactly: {LINEAR_FINALS}")
    from sklearn.svm import SVC, NuSVC

    if isinstance(final, (SVC, NuSVC)) and len(getattr(final, "classes_", ())) > 2:
        raise TypeError(f"a multi-class {name} combines its pairwise decision functions "
                        "non-linearly (one-vs-rest shape); only binary SVC / NuSVC is converted")
    if not hasattr(final, "coef_"):
        raise ValueError(f"this {name} is not fitted yet; call fit(X, y) before explaining it")
    coef = final.coef_
    coef = np.asarray(coef.toarray() if hasattr(coef, "toarray") else coef, dtype=float)
    W = coef[:, None] if coef.ndim == 1 else coef.T
    if W.shape[0] != n_features:
        raise ValueError(f"the final {name} takes {W.shape[0]} features but the steps before it "
                         f"give {n_features}")
    b = np.atleast_1d(np.asarray(final.intercept_, dtype=float)).ravel()
    b = np.broadcast_to(b, (W.shape[1],)).astype(float) if b.size == 1 else b
    if b.shape != (W.shape[1],):
        raise TypeError(f"the final {name} has {W.shape[1]} outputs but {b.size} intercepts")
    method = _output_method(final)
    _check_affine_on(getattr(final, method), probes, W, b, f"{name}.{method}")
    return W, b


# --------------------------------------------------------------------------- #
# the parsed pipeline
# --------------------------------------------------------------------------- #
class NystroemPipeline:
    """A fitted ``Pipeline([affine steps..., Nystroem, affine steps..., linear model])``, read exactly.

    Parameters
    ----------
    pipeline : fitted sklearn Pipeline

    Attributes
    ----------
    pre : AffineMap or None
        The per-feature affine steps before the Nyström step (None: none).
    nystroem : Nystroem
    kernel : Kernel
        The Nyström kernel on the columns it sees, as a kernelxai kernel
        (times ``scale``).
    landmarks : ndarray (m, d_u)
        ``components_``, in the units the Nyström step sees.
    coefficients : ndarray (m, k)
        alpha = scale * N^T w' per output, w' the linear model's weights with
        the affine steps after the Nyström step folded in.
    intercepts : ndarray (k,)
    final : the linear model
    is_classifier : bool
    names : list of str or None
        The pipeline's input feature names (``feature_names_in_``).

    Raises
    ------
    TypeError
        A step is neither a per-feature affine map nor the Nyström step, the
        final model is not linear, or the kernel is ``"precomputed"``; the
        message names the step.
    ValueError
        The pipeline is not fitted.
    """

    def __init__(self, pipeline):
        from sklearn.base import is_classifier
        from sklearn.exceptions import NotFittedError
        from sklearn.utils.validation import check_is_fitted

        steps = pipeline_steps(pipeline)
        if steps is None or not is_nystroem_pipeline(pipeline):
            raise TypeError("not a Pipeline with a Nystroem step")
        where = [k for k, (_, step) in enumerate(steps[:-1]) if _is_nystroem(step)]
        if len(where) > 1:
            raise TypeError("a pipeline with several Nystroem steps is a composition of kernels, "
                            "not one kernel expansion")
        k_nys = where[0]
        nys_name, nys = steps[k_nys]
        final_name, final = steps[-1]
        if final is None or isinstance(final, str):
            raise TypeError(f"the pipeline ends in {final!r}, not a model")
        try:
            check_is_fitted(nys)
        except NotFittedError:
            raise ValueError("this pipeline is not fitted yet; call fit(X, y) before explaining it") \
                from None
        self.pre = compose_affine(steps[:k_nys], getattr(pipeline, "n_features_in_", None))
        d_u = int(nys.n_features_in_)
        if self.pre is not None and self.pre.n_out != d_u:
            raise ValueError(f"the steps before {nys_name!r} give {self.pre.n_out} columns; it takes {d_u}")
        L = nys.components_
        self.landmarks = np.asarray(L.toarray() if hasattr(L, "toarray") else L, dtype=float)
        N = np.asarray(nys.normalization_, dtype=float)
        m = len(self.landmarks)
        post = compose_affine(steps[k_nys + 1:-1], m)
        scale, self.kernel = nystroem_kernel(nys, d_u)
        # probe points in the final model's feature space: the landmarks' own features, and 0
        phi = quiet_call(nys.transform, self.landmarks)
        probes = phi if post is None else post(phi)
        probes = np.vstack([np.zeros((1, probes.shape[1])), probes[:16]])
        W, b = _linear_part(final, probes.shape[1], probes)
        self.probes = probes
        if post is not None:  # g = (phi[:, src] * s + shift) @ W + b
            W_phi = np.zeros((m, W.shape[1]))
            np.add.at(W_phi, post.source, post.scale[:, None] * W)
            b = b + post.shift @ W
            W = W_phi
        self.coefficients = scale * (N.T @ W)
        self.intercepts = np.asarray(b, dtype=float)
        self.nystroem, self.final, self.pipeline = nys, final, pipeline
        self.nystroem_name, self.final_name = nys_name, final_name
        self.pre_names = [str(n) for n, _ in steps[:k_nys]]
        self.post_names = [str(n) for n, _ in steps[k_nys + 1:-1]]
        self.is_classifier = bool(is_classifier(final))
        names = getattr(pipeline, "feature_names_in_", None)
        self.names = [str(c) for c in names] if names is not None else None

    @property
    def n_outputs(self) -> int:
        return self.coefficients.shape[1]

    def expansions(self) -> list[KernelExpansion]:
        """One :class:`~kernelxai.models.KernelExpansion` per output, on the pipeline's input columns.

        The expansion points are the landmarks (mapped back through the
        affine steps before the Nyström step). They are a uniform random
        sample of the training rows, so value functions use them as the
        default background (``holds_training_inputs=True``); pass
        ``background=`` for a larger one.
        """
        out = []
        for j in range(self.n_outputs):
            inner = KernelExpansion(self.landmarks, self.coefficients[:, j], self.kernel,
                                    float(self.intercepts[j]),
                                    feature_names=None if self.pre is not None else self.names,
                                    holds_training_inputs=True, source="Nystroem pipeline")
            out.append(inner if self.pre is None else fold_affine(inner, self.pre,
                                                                  feature_names=self.names))
        return out

    def describe(self) -> str:
        """One sentence: the model as a kernel expansion over the landmarks."""
        pre = (f"; {', '.join(self.pre_names)} folded into the kernel (values in the input units)"
               if self.pre_names else "")
        post = f"; {', '.join(self.post_names)} folded into the weights" if self.post_names else ""
        return (f"{type(self.final).__name__} on {len(self.landmarks)} Nystroem features = "
                f"sum_l alpha_l k(x, L_l) + b over the {len(self.landmarks)} landmarks with alpha = "
                f"N^T w, a kernel expansion (exact){pre}{post}")


def expansion_of_nystroem_pipeline(pipeline) -> KernelExpansion:
    """The exact :class:`~kernelxai.models.KernelExpansion` of a Nyström pipeline with one output.

    Parameters
    ----------
    pipeline : fitted sklearn Pipeline
        Per-feature affine steps, a ``Nystroem`` step, per-feature affine
        steps, and a linear model (module docstring).

    Returns
    -------
    KernelExpansion
        Over the landmarks, on the pipeline's input columns; its predictions
        equal the pipeline's ``predict`` (regressors) or ``decision_function``
        (classifiers) to rounding (amplified by the conditioning of the
        landmarks' Gram matrix, whose inverse square root N the features use).

    Raises
    ------
    TypeError
        Not convertible (the message says which step and why), or several
        outputs (multi-class, multi-target: ``kx.explain(..., output=...)``
        explains each).
    ValueError
        The pipeline is not fitted.
    """
    model = NystroemPipeline(pipeline)
    if model.n_outputs != 1:
        what = "classes" if model.is_classifier else "targets"
        raise TypeError(f"this Nystroem pipeline has {model.n_outputs} {what}, one kernel expansion "
                        "each; kx.explain explains them all (an outputs axis), e.g. "
                        "kx.explain(model, X, output='decision')")
    return model.expansions()[0]


# --------------------------------------------------------------------------- #
# outputs, and the registration
# --------------------------------------------------------------------------- #
def _sigmoid_probability(nm):
    """Whether predict_proba[:, 1] of a binary model is exactly sigmoid(decision_function)."""
    final = nm.final
    name = type(final).__name__
    if name not in _SIGMOID_PROBABILITY and not (name == "SGDClassifier"
                                                   and getattr(final, "loss", None) == "log_loss"):
        return False
    if nm.n_outputs != 1 or not callable(getattr(final, "predict_proba", None)):
        return False
    Z = nm.probes[1:]  # the landmarks' features as the final model sees them
    p = quiet_call(final.predict_proba, Z)[:, 1]
    f = quiet_call(final.decision_function, Z).ravel()
    ok = (p > 1e-12) & (p < 1 - 1e-12)
    logit = np.log(p[ok]) - np.log1p(-p[ok])
    return bool(np.all(np.abs(logit - f[ok]) <= 1e-8 * (1 + np.abs(f[ok]))))


class _NystroemPlan(OutputPlan):
    """An OutputPlan whose explanation records that it explained a Nystroem pipeline."""

    def __init__(self, kind, description, targets, multi, nm):
        super().__init__(kind, description, targets, multi)
        self.nystroem = nm

    def finish(self, results) -> Explanation:
        out = super().finish(results)
        nm = self.nystroem
        out.meta["nystroem"] = {"n_landmarks": int(len(nm.landmarks)), "nystroem_kernel": repr(nm.kernel),
                                "final": type(nm.final).__name__}
        if nm.pre_names:
            out.meta["preprocessing"] = (f"{', '.join(nm.pre_names)} folded into the kernel "
                                         "(per-feature affine): values in the original features' units")
        return out


def nystroem_plan(model, output=None) -> tuple[bool, OutputPlan | None]:
    """The output plan of a Nyström pipeline: ``(handled, plan)``.

    ``handled`` is False when ``model`` is not a Nyström pipeline kernelxai
    converts; :func:`kernelxai.models.convert.output_plan` then carries on as for
    any other pipeline (and the conversion's error becomes the reason for
    explaining it through model calls).

    Outputs: regressors ``"prediction"`` (one exact expansion per target);
    classifiers ``"decision"`` (exact; one per class when there are more
    than two), ``"log_odds"`` (exact for binary logistic models, whose
    probability is the sigmoid of the decision function -- the default there;
    through model calls otherwise) and ``"probability"`` (through model calls).
    """
    if not is_nystroem_pipeline(model):
        return False, None
    try:
        nm = NystroemPipeline(model)
        exps = nm.expansions()
    except TypeError:  # e.g. a scaler before a kernel that cannot absorb it: model calls, with why
        return False, None
    what = nm.describe()
    if not nm.is_classifier:
        return True, _regressor_plan(nm, exps, output, what)
    classes = list(getattr(nm.final, "classes_", []))
    binary = len(exps) == 1
    sigmoid = binary and _sigmoid_probability(nm)
    has = ["decision"]
    if callable(getattr(model, "predict_proba", None)):
        has += ["log_odds", "probability"]
    kind = output or ("log_odds" if sigmoid else "decision")
    if kind not in has:
        refuse(nm.final, output, has)
    positive = f"positive: class {class_label(classes[1])!r}" if binary and len(classes) == 2 else ""
    X_train = exps[0].X_train
    if kind == "decision" or (kind == "log_odds" and sigmoid):
        if kind == "log_odds":
            desc = (f"the log-odds log p / (1 - p) of class {class_label(classes[1])!r}: predict_proba is "
                    f"the sigmoid of the decision function, {what}")
        else:
            desc = f"the decision function ({positive or 'one per class'}): {what}"
        targets = [(kind, exps[0])] if binary else [(str(c), e) for c, e in zip(classes, exps)]
        return True, _NystroemPlan(kind, desc, targets, not binary, nm)
    return True, _called_probability_plan(model, nm, kind, classes, binary, X_train)


def _regressor_plan(nm, exps, output, what):
    """A Nystroem regressor's prediction: one exact expansion per target."""
    if output not in (None, "prediction"):
        refuse(nm.final, output, ["prediction"], " (a regressor's output is its prediction)")
    if len(exps) == 1:
        return _NystroemPlan("prediction", f"the prediction: {what}", [("prediction", exps[0])], False, nm)
    return _NystroemPlan("prediction", f"the prediction of each of the {len(exps)} targets "
                         f"(output_j: column j of predict), each {what}",
                         [(f"output_{j}", e) for j, e in enumerate(exps)], True, nm)


def _called_probability_plan(model, nm, kind, classes, binary, X_train):
    """A Nystroem classifier's probabilities, or multi-class log-odds, through model calls."""
    if kind == "log_odds":
        why = "multi-class log-odds are not linear in the decision functions"
        make, desc = log_odds_column, "the log-odds log p / (1 - p) of"
    else:
        why = "the probability is a non-linear function of the Nystroem expansion"
        make, desc = column, "predict_proba of"
    if binary:
        target = CallOutput(make(model.predict_proba, 1), model, why, X_train)
        return _NystroemPlan(kind, f"{desc} class {class_label(classes[1])!r} (through model calls)",
                             [(kind, target)], False, nm)
    return _NystroemPlan(kind, f"{desc} each class (through model calls)",
                         [(str(c), CallOutput(make(model.predict_proba, j), model, why, X_train))
                          for j, c in enumerate(classes)], True, nm)


def _expansion(pipeline, dispatch) -> KernelExpansion:
    return expansion_of_nystroem_pipeline(pipeline)


def _plan(model, pipeline, rebuild, output, dispatch) -> object:
    """The Nystroem plan of the whole model; a pipeline it cannot convert goes on as any pipeline."""
    if pipeline is not model:
        return DECLINED
    handled, plan = nystroem_plan(model, output)
    return plan if handled else DECLINED


def _examples() -> list[Example]:
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    def ridge(X, t):
        return make_pipeline(Nystroem(gamma=0.5, n_components=12, random_state=0), Ridge(1e-3)).fit(
            X, t["regression"])

    def logistic(X, t):
        return make_pipeline(StandardScaler(), Nystroem(kernel="laplacian", gamma=0.4, n_components=12,
                                                        random_state=0),
                             LogisticRegression()).fit(X, t["binary"])

    def three(X, t):
        return make_pipeline(Nystroem(gamma=0.3, n_components=12, random_state=0),
                             LogisticRegression()).fit(X, t["three"])

    def logit(m):
        def call(Z):
            p = m.predict_proba(Z)[:, 1]
            return np.log(p) - np.log1p(-p)
        return call

    return [
        Example("Pipeline(Nystroem, Ridge)", "rbf", ridge, calls={None: lambda m: m.predict}),
        Example("Pipeline(StandardScaler, Nystroem, LogisticRegression), output='log_odds'", "laplacian",
                logistic, calls={None: logit, "decision": lambda m: m.decision_function},
                table_output="log_odds"),
        Example("Pipeline(Nystroem, LogisticRegression) (3 classes)", "rbf", three,
                calls={"decision": lambda m: m.decision_function}, table_output="decision", in_table=False),
    ]


NYSTROEM = register(Converter(
    name="nystroem_pipeline",
    classes=("sklearn.pipeline:Pipeline",),
    predicate=is_nystroem_pipeline,
    expansion=_expansion,
    plan=_plan,
    outputs=("prediction", "decision", "log_odds", "probability"),
    default="prediction",
    exact=("prediction", "decision", "log_odds"),
    route="Pipeline([scalers,] Nystroem, [scalers,] linear model): sum_l alpha_l k(x, L_l) + b over the "
          "landmarks, alpha = N^T w (exact); log_odds exact for binary logistic models",
    examples=_examples,
    priority=60,
))
