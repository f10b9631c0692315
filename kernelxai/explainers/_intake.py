"""The one door from what the user passed to what the value functions take.

Takes a model as the user passed it (a KernelExpansion, one of kernelxai's
estimators, a fitted scikit-learn model or pipeline, any object with
``predict``, a plain callable) and ``output=``. Hands on an :class:`Intake`:
per output of the model one :class:`Target` -- its exact kernel expansion
(converted once, by :func:`kernelxai.models.convert.as_expansion`), or the
function to call for it with the reason it is explained through model calls --
and the output plan that stacks the per-output explanations. ``kx.explain``
and ``kx.explain_interactions`` (through ``kernelxai.explainers._explain.build_game``)
take models through here; nothing downhill converts a model again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._validation import densify
from ..models.convert import as_expansion, output_plan
from ..models.convert._converters import PrecomputedKernelError
from ..models.convert._plans import CallOutput

if TYPE_CHECKING:
    from ..models._expansion import KernelExpansion
    from ..models.convert import OutputPlan

__all__ = ["Target", "Intake", "intake", "as_target", "why_not_a_kernel_model", "dense_inputs"]


@dataclass(frozen=True)
class Target:
    """One output of a model, as the value functions take it.

    Attributes
    ----------
    name : str or None
        The output's name on the Explanation's outputs axis (None: the model's only output).
    model : object
        What was converted (the user's model, or one output of it).
    expansion : KernelExpansion or None
        The exact kernel expansion, or None when the output is explained through model calls.
    why_not : str or None
        Why there is no kernel expansion (the reason ``meta["route"]`` reports), else None.
    call : object or None
        What the model-call value functions call (an object with ``predict``, or a
        callable): a classifier is called through its ``decision_function``
        (its ``predict`` gives labels), an outlier detector through its score
        (``decision_function``, else ``score_samples``; its ``predict`` gives
        +-1 labels). None when ``expansion`` is given.
    model_output : str or None
        The method of the user's model that ``call`` calls, for a model-call
        target: ``"predict"``, ``"decision_function"``, ``"predict_proba"``,
        ``"score_samples"``, ``"transform"`` or ``"__call__"`` (a plain
        function); ``kx.explain`` reports it as ``meta["model_method"]``.
        None when ``expansion`` is given (or the method is unknown).

    Examples
    --------
    >>> f = lambda P: P[:, 0] ** 2
    >>> t = as_target(f)                     # a plain function: explained through model calls
    >>> t.is_exact, t.model_output, t.call is f
    (False, '__call__', True)
    >>> t.why_not
    'a plain callable is not a kernel model kernelxai can convert'
    """

    name: str | None
    model: Any
    expansion: KernelExpansion | None
    why_not: str | None = None
    call: Any = None
    model_output: str | None = None

    @property
    def is_exact(self) -> bool:
        """Whether the output is a kernel expansion (else it is explained through model calls)."""
        return self.expansion is not None


@dataclass(frozen=True)
class Intake:
    """What :func:`intake` hands on: the targets of one call and, for several or chosen outputs, their plan.

    Attributes
    ----------
    targets : tuple of Target
    plan : OutputPlan or None
        None when the model is explained as it is (one target); otherwise the
        plan whose :meth:`~kernelxai.models.convert.OutputPlan.finish`
        turns the per-target explanations into one.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> krr = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0])
    >>> door = intake(krr)
    >>> len(door.targets), door.plan is None, door.targets[0].is_exact
    (1, True, True)
    """

    targets: tuple
    plan: OutputPlan | None = None


def intake(model: Any, output: str | None = None) -> Intake:
    """Turn ``(model, output=)`` into the targets the value functions take.

    Parameters
    ----------
    model : object
        Anything ``kx.explain`` takes.
    output : str or None
        One of :data:`kernelxai.models.convert.OUTPUTS`, or None for the model's default.

    Returns
    -------
    Intake

    Raises
    ------
    ValueError
        ``output`` is not an output of this model (the message lists the ones it has).
    PrecomputedKernelError
        The model was fitted with ``kernel="precomputed"``: neither exact routes
        nor model calls over the features can explain it (the message says what to do).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> krr = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0])
    >>> intake(krr).targets[0].expansion
    KernelExpansion(n=20, d=3, kernel=RBF(lengthscale=1.0), intercept=0)
    >>> intake(krr, output="density")
    Traceback (most recent call last):
    ...
    ValueError: output='density' is not an output of this KernelRidge ...; its outputs are 'prediction'
    """
    plan = output_plan(model, output)
    if plan is None:
        return Intake((as_target(model),))
    return Intake(tuple(as_target(target, name) for name, target in plan.targets), plan)


def as_target(model: Any, name: str | None = None) -> Target:
    """One model (or one output of it) as a :class:`Target`: its kernel expansion, else what to call.

    Parameters
    ----------
    model : object
        A model, or one output of it (from an output plan).
    name : str, optional
        The output's name.

    Returns
    -------
    Target
        With ``expansion`` set when :func:`kernelxai.models.as_expansion`
        converts the model; otherwise with ``why_not``, ``call`` and
        ``model_output`` (a classifier is called through its
        ``decision_function``).

    Raises
    ------
    PrecomputedKernelError
        The model was fitted with ``kernel="precomputed"``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> krr = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, X[:, 0])
    >>> from sklearn.tree import DecisionTreeRegressor
    >>> as_target(krr).is_exact
    True
    >>> tree = as_target(DecisionTreeRegressor(max_depth=2).fit(X, X[:, 0]))
    >>> tree.is_exact, tree.model_output, tree.why_not
    (False, 'predict', 'a DecisionTreeRegressor is not a kernel model kernelxai converts exactly')
    """
    try:
        expansion = as_expansion(model)
    except PrecomputedKernelError:  # model calls of the features cannot explain it either
        raise
    except TypeError as err:  # not a kernel model kernelxai converts: explained through model calls
        call, model_output = _call_of(model)
        return Target(name, model, None, why_not_a_kernel_model(model, err), call, model_output)
    return Target(name, model, expansion)


def dense_inputs(X: Any, background: Any) -> tuple[Any, Any]:
    """``(X, background)`` with a scipy sparse matrix densified, or refused by name when too large.

    kernelxai computes with dense arrays; a sparse matrix is accepted when its
    dense copy fits in ``kx.get_config()["max_memory"]`` bytes
    (``kernelxai._validation.densify``). Anything else passes unchanged
    (DataFrames keep their columns).

    Parameters
    ----------
    X : array-like, DataFrame or scipy sparse matrix
        The points to explain.
    background : array-like, DataFrame, scipy sparse matrix or None
        The background sample (None passes through).

    Returns
    -------
    tuple
        ``(X, background)``, each a dense ndarray if it was sparse, else as given.

    Raises
    ------
    ValueError
        A sparse input whose dense copy would exceed the memory budget (raised
        by ``kernelxai._validation.densify``).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> X, background = dense_inputs(sp.eye(3, format="csr"), None)
    >>> type(X).__name__, X.shape, background is None
    ('ndarray', (3, 3), True)
    """
    return densify(X, "X"), None if background is None else densify(background, "background")


def why_not_a_kernel_model(model: Any, err: Exception) -> str:
    """Why ``model`` is not converted to a kernel expansion: the conversion's reason, shortened.

    Parameters
    ----------
    model : object
        The model :func:`kernelxai.models.as_expansion` refused.
    err : Exception
        The TypeError it raised.

    Returns
    -------
    str
        The reason ``meta["route"]`` reports: for a plain callable or a
        scikit-learn model it does not convert, one short sentence; else the
        conversion's message without its list of supported models.

    Examples
    --------
    >>> import kernelxai as kx
    >>> f = lambda P: P[:, 0]
    >>> try:
    ...     kx.models.as_expansion(f)
    ... except TypeError as err:
    ...     print(why_not_a_kernel_model(f, err))
    a plain callable is not a kernel model kernelxai can convert
    """
    if isinstance(model, CallOutput):   # an output its converter explains through model calls, and why
        return model.why
    module = type(model).__module__ or ""
    if not module.startswith(("sklearn.", "kernelxai.")) and callable(model) \
            and not hasattr(model, "predict"):
        return "a plain callable is not a kernel model kernelxai can convert"
    reason = str(err).split("; supported models")[0].split("; folded exactly")[0]
    if reason.startswith("cannot explain a "):
        return f"a {type(model).__name__} is not a kernel model kernelxai converts exactly"
    return reason


class _ModelMethod:
    """A model seen through one of its methods (its score, not its labels), for the model-call value functions."""

    def __init__(self, model: Any, method: str) -> None:
        self.model = model
        self.method = method
        self.display_name = getattr(model, "display_name", type(model).__name__)
        for attr in ("feature_names_in_", "n_features_in_"):
            if hasattr(model, attr):
                setattr(self, attr, getattr(model, attr))

    def predict(self, X: Any) -> Any:
        return getattr(self.model, self.method)(X)


def _call_of(model: Any) -> tuple[Any, str | None]:
    """(what to call, which method of the model that calls): the one place a model-call target is chosen.

    An output of an output plan calls what its plan says; a classifier is called
    through ``decision_function`` when it has one (``predict`` gives labels); an
    outlier detector (scikit-learn's ``is_outlier_detector``: +-1 ``predict``,
    e.g. OneClassSVM, IsolationForest, LocalOutlierFactor(novelty=True)) through
    its score, ``decision_function``, else ``score_samples``, never its labels;
    anything else through ``predict`` (a plain function: itself).
    """
    if isinstance(model, CallOutput):
        return model, model.model_method
    has_predict = callable(getattr(model, "predict", None))
    if not callable(model) and not has_predict:
        return model, None  # refused by the value function step, with its message
    if not has_predict:
        return model, "__call__"
    from sklearn.base import is_classifier, is_outlier_detector

    try:
        classifier, detector = is_classifier(model), is_outlier_detector(model)
    except AttributeError:  # not a scikit-learn estimator
        classifier = detector = False
    scores = ("decision_function", "score_samples") if detector else ("decision_function",) if classifier else ()
    for method in scores:
        if callable(getattr(model, method, None)):
            return _ModelMethod(model, method), method
    return model, "predict"
