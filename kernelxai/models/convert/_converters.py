"""The converter registry: what a model family declares so that kernelxai can convert it.

Takes :class:`Converter` declarations (one per model family, registered by the
family's own module in :mod:`kernelxai.models.convert`). Hands on
:func:`registered`, which the dispatcher (:func:`kernelxai.models.convert.as_expansion`,
:func:`kernelxai.models.convert.output_plan`), the routes table
(``kernelxai.workbench._routes``) and the contract tests (``tests/test_converters.py``)
read; and the small helpers every converter uses to read a fitted model.

A converter never imports the dispatcher: its functions receive it as an
argument (a :class:`Dispatch`), so a converter that converts an inner model
(a pipeline's final step, the classifier inside a calibrated one) asks the
dispatcher which converter takes that.
"""

from __future__ import annotations

import abc
import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .._expansion import KernelExpansion
    from ._plans import OutputPlan

__all__ = ["Converter", "Example", "Dispatch", "DECLINED", "register", "registered", "get",
           "SUPPORTED_MODELS", "require_fitted", "pipeline_steps", "split_pipeline",
           "PrecomputedKernelError", "refuse_precomputed"]

#: what the TypeError of :func:`kernelxai.models.as_expansion` lists as supported
SUPPORTED_MODELS = (
    "kernelxai.models.KernelExpansion; fitted kernelxai.models.KernelRidge / "
    "KernelLogisticRegression; fitted sklearn.kernel_ridge.KernelRidge (any kernel but "
    "'precomputed': 'rbf'/'laplacian' as product kernels, 'linear' in closed form, the others "
    "exactly through model calls); sklearn.svm.SVR, SVC, NuSVR, NuSVC and OneClassSVM (kernel 'rbf'; "
    "multi-class through kx.explain(output=...)); sklearn.neighbors.KernelDensity (output='density'); "
    "sklearn.decomposition.KernelPCA (each component); "
    "sklearn.gaussian_process.GaussianProcessRegressor (any kernel: sums and products of "
    "RBF/ConstantKernel stay product games, WhiteKernel drops out, Matern "
    "of any nu, the others exactly through model calls); a sklearn Pipeline of "
    "StandardScaler / MinMaxScaler / MaxAbsScaler / RobustScaler (or a ColumnTransformer of these) "
    "followed by one of these, or by a Nystroem step and a linear model (Ridge, LogisticRegression, "
    "SVR(kernel='linear'), LinearSVC, ...: an expansion over the landmarks)"
)


class _Declined:
    """What a converter's ``plan`` returns when the model is not its to plan after all."""

    def __repr__(self) -> str:
        return "DECLINED"


#: returned by a converter's ``plan`` to let the dispatcher ask the next converter
DECLINED = _Declined()


class Dispatch(Protocol):
    """The dispatcher, as converters receive it (they never import it)."""

    def as_expansion(self, model: Any) -> KernelExpansion:
        """The exact kernel expansion of any model some converter takes (TypeError otherwise)."""

    def plan(self, model: Any, estimator: Any, rebuild: Callable, output: str | None) -> OutputPlan | None:
        """The output plan of ``estimator`` (``model``'s final step; ``rebuild`` puts one back)."""


@dataclass(frozen=True)
class Example:
    """A small fitted model of a converter's family, for the contract tests and the routes table.

    Parameters
    ----------
    label, kernel : str
        The routes table's "model" and "kernel" columns.
    fit : callable
        ``fit(X, targets)`` -> the fitted model; ``targets`` is a dict with
        ``"regression"`` (real y), ``"binary"`` and ``"three"`` (class labels).
    calls : dict
        output (None: the model's default) -> ``call(model)``, a function of a
        2-D array giving that output through the model's own methods (a
        column per output for several outputs). The contract test compares
        ``kx.explain(..., output=output)`` with brute-force enumeration of these
        calls; empty for a model kernelxai refuses.
    route : str
        How ``meta["route"]`` of ``value="interventional"`` starts.
    table_output : str or None
        The ``output=`` of the routes table's row (None: the default).
    in_table : bool
        Whether the model is a row of the routes table (docs/routes.md).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.svm import SVR
    >>> from kernelxai.models.convert import Example
    >>> ex = Example("SVR", "rbf", lambda X, t: SVR().fit(X, t["regression"]),
    ...              calls={None: lambda m: m.predict})
    >>> X = np.random.default_rng(0).normal(size=(20, 2))
    >>> model = ex.fit(X, {"regression": X[:, 0]})
    >>> bool(np.allclose(ex.calls[None](model)(X[:3]), model.predict(X[:3]))), ex.route
    (True, 'kernel expansion')
    """

    label: str
    kernel: str
    fit: Callable[[Any, dict], Any]
    calls: dict = field(default_factory=dict)
    route: str = "kernel expansion"
    table_output: str | None = None
    in_table: bool = True


@dataclass(frozen=True)
class Converter:
    """How one model family becomes kernel expansions.

    Parameters
    ----------
    name : str
        Unique name (``registered()`` and the contract tests use it).
    classes : tuple of str
        The fitted model classes it takes, named lazily as ``"module:Class"``
        (subclasses included). A class is only imported for a model whose type
        lives in the same top-level package, so scikit-learn is imported only
        for scikit-learn models.
    predicate : callable, optional
        ``predicate(model) -> bool``: which models it takes (with ``classes``:
        which of the models of those classes).
    expansion : callable, optional
        ``expansion(model, dispatch)`` -> the exact :class:`~kernelxai.models.KernelExpansion`
        of a single-output model, or TypeError saying why there is none (the
        reason ``kx.explain`` reports when it explains the model through model
        calls). None: the family has no single expansion (only output plans).
    plan : callable, optional
        ``plan(model, estimator, rebuild, output, dispatch)`` -> the
        :class:`~kernelxai.models.convert.OutputPlan` of ``output=``, None
        (explain the model as it is) or :data:`DECLINED` (not this converter's
        to plan: the dispatcher asks the next one, and finally plans it as a
        model explained through model calls). ``estimator`` is the object the
        converter took (a pipeline's final step, or ``model`` itself), and
        ``rebuild(est)`` is ``model`` with that estimator replaced by ``est``.
    outputs : tuple of str
        The outputs it offers (of :data:`~kernelxai.models.convert.OUTPUTS`).
    default : str
        The output explained when ``output=None``.
    exact : tuple of str
        The outputs it converts exactly to kernel expansions (the rest: model calls).
    route : str
        One line for the table of converters (docs/routes.md).
    examples : callable, optional
        ``examples()`` -> list of :class:`Example`. Every registered converter
        needs one: the contract tests fail without it.
    priority : int
        Converters that take the same model are asked in increasing priority.

    Examples
    --------
    A family's module declares one and passes it to :func:`register`; the
    dispatcher then asks it :meth:`takes` for every model:

    >>> import numpy as np
    >>> from sklearn.svm import SVR
    >>> from kernelxai.models.convert import Converter, registered
    >>> svr = SVR().fit(np.random.default_rng(0).normal(size=(20, 2)), np.arange(20.0))
    >>> svm = next(c for c in registered() if c.name == "sklearn_svm")
    >>> svm.takes(svr), svm.default, svm.outputs
    (True, 'decision', ('decision', 'log_odds', 'probability', 'ovo', 'prediction'))
    >>> Converter("has_coef", predicate=lambda m: hasattr(m, "coef_")).takes(svr)   # rbf: no coef_
    False
    """

    name: str
    classes: tuple = ()
    predicate: Callable[[Any], bool] | None = None
    expansion: Callable | None = None
    plan: Callable | None = None
    outputs: tuple = ("prediction",)
    default: str = "prediction"
    exact: tuple = ("prediction",)
    route: str = ""
    examples: Callable[[], list] | None = None
    priority: int = 50

    def takes(self, model: Any) -> bool:
        """Whether this converter takes ``model``: one of ``classes`` (if any) and ``predicate`` (if any)."""
        if self.classes and not self._is_instance(model):
            return False
        return self.predicate is None or bool(self.predicate(model))

    def of_class(self, model: Any) -> bool:
        """Whether ``model`` is one of ``classes`` (True when none are named): the class half of :meth:`takes`."""
        return not self.classes or self._is_instance(model)

    def _is_instance(self, model: Any) -> bool:
        module = type(model).__module__ or ""
        for spec in self.classes:
            where, _, name = spec.partition(":")
            if not module.startswith(where.split(".")[0] + "."):
                continue  # a model of another library: its classes are not imported for it
            if isinstance(model, _class_named(where, name)):
                return True
        return False


@functools.cache
def _class_named(module: str, name: str) -> type:
    """The class ``name`` of ``module``, imported the first time it is asked for."""
    return getattr(importlib.import_module(module), name)


_REGISTRY: dict[str, Converter] = {}
_ORDER: list[Converter] = []   # the registered converters in the order they are tried


def register(converter: Converter) -> Converter:
    """Add ``converter`` to the registry (a name registered twice is an error).

    Registering the same object again is allowed (a module imported twice).

    Parameters
    ----------
    converter : Converter

    Returns
    -------
    Converter
        ``converter`` itself.

    Raises
    ------
    TypeError
        ``converter`` is not a :class:`Converter`.
    ValueError
        Another converter is registered under its name, or its ``default``
        is not one of its ``outputs``.

    Examples
    --------
    >>> from kernelxai.models.convert import Converter, register, registered
    >>> first = registered()[0]
    >>> register(first) is first              # the same object again: nothing changes
    True
    >>> register(Converter(first.name))       # a second converter of that name
    Traceback (most recent call last):
    ...
    ValueError: a converter named 'kernelxai' is already registered
    """
    if not isinstance(converter, Converter):
        raise TypeError(f"register takes a Converter; got {type(converter).__name__}")
    if converter.name in _REGISTRY and _REGISTRY[converter.name] is not converter:
        raise ValueError(f"a converter named {converter.name!r} is already registered")
    if converter.default not in converter.outputs:
        raise ValueError(f"converter {converter.name!r}: its default output {converter.default!r} "
                         f"is not one of its outputs {converter.outputs}")
    _REGISTRY[converter.name] = converter
    _ORDER.clear()
    _CANDIDATES.clear()
    return converter


def registered() -> list[Converter]:
    """Every registered converter, in the order the dispatcher asks them.

    Increasing ``priority``; ties in the order of registration.

    Returns
    -------
    list of Converter

    Examples
    --------
    >>> from kernelxai.models.convert import registered
    >>> [c.name for c in registered()]
    ['kernelxai', 'kernelxai_logistic', 'sklearn_kernel_ridge', ...]
    """
    if not _ORDER:  # sorted once per registration, not on every conversion
        order = list(_REGISTRY)
        _ORDER.extend(sorted(_REGISTRY.values(), key=lambda c: (c.priority, order.index(c.name))))
    return list(_ORDER)


#: The converters whose classes a model's class is one of (see :func:`candidates`), by class and ABC state.
_CANDIDATES: dict[tuple, tuple[Converter, ...]] = {}
_MAX_CANDIDATES = 256


def candidates(model: Any) -> tuple[Converter, ...]:
    """The registered converters, in order, whose ``classes`` ``model`` is one of, or that name none.

    The converters that may take ``model``: :meth:`Converter.takes` is true for
    one of these exactly when its ``predicate`` (if any) is. The class test
    depends on the model's class alone, so the answer is kept per class (a
    call then asks no converter of another family, #36): per class, ABC
    registration state (``abc.get_cache_token()``: a class registered with an
    ABC later is seen) and registry (:func:`register` forgets them all). A
    model whose ``__class__`` is not its type (a proxy) is asked afresh.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.svm import SVR
    >>> svr = SVR().fit(np.random.default_rng(0).normal(size=(20, 2)), np.arange(20.0))
    >>> "sklearn_svm" in [c.name for c in candidates(svr)], "sklearn_kernel_ridge" in [c.name for c in candidates(svr)]
    (True, False)
    """
    kind = type(model)
    key = (kind, abc.get_cache_token())
    found = _CANDIDATES.get(key) if model.__class__ is kind else None
    if found is None:
        found = tuple(c for c in registered() if c.of_class(model))
        if model.__class__ is kind:
            if len(_CANDIDATES) >= _MAX_CANDIDATES:
                _CANDIDATES.clear()
            _CANDIDATES[key] = found
    return found


def get(name: str) -> Converter:
    """The registered converter called ``name``."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"no converter named {name!r}; registered: {sorted(_REGISTRY)}") from None


# --------------------------------------------------------------------------- #
# reading fitted models
# --------------------------------------------------------------------------- #
def require_fitted(model: Any, attribute: str) -> None:
    """ValueError unless ``model`` has the attribute its fit sets."""
    if not hasattr(model, attribute):
        raise ValueError(f"this {type(model).__name__} is not fitted yet; call fit(X, y) before "
                         "explaining it")


class PrecomputedKernelError(TypeError, ValueError):
    """A model fitted with ``kernel="precomputed"``: it has no kernel function to explain feature by feature.

    A TypeError (the model is of a kind kernelxai cannot explain, as for other
    models that do not convert) and a ValueError (what model calls of it would
    have raised: its inputs are rows of a Gram matrix, not the features).
    """


def refuse_precomputed(model: Any) -> None:
    """Raise :class:`PrecomputedKernelError` if ``model`` (or a step of its pipeline) has ``kernel="precomputed"``.

    Such a model saw only the Gram matrix K(X_train, X_train): its inputs are
    kernel values against the n training points, not the features, and the
    kernel function that made them is unknown to kernelxai. So neither an exact
    route (it needs the kernel) nor model calls over a background of features
    (the model takes n columns of kernel values) can explain it feature by
    feature. The message says what to do instead.
    """
    steps = pipeline_steps(model) or [(None, model)]
    for name, step in steps:
        if not (isinstance(getattr(step, "kernel", None), str) and step.kernel == "precomputed"):
            continue
        what = type(step).__name__
        where = f"this {what}" if step is model else f"the step {name!r} ({what}) of this pipeline"
        n = getattr(step, "n_features_in_", None)
        columns = f"its {n} inputs are" if n is not None else "its inputs are"
        method = ("decision_function" if callable(getattr(model, "decision_function", None))
                  else "predict" if callable(getattr(model, "predict", None)) else "transform")
        raise PrecomputedKernelError(
            f"{where} was fitted with kernel='precomputed': kernelxai sees only the Gram matrix, not the "
            f"kernel function that made it, and {columns} kernel values against the training points, not "
            "your features, so a precomputed kernel cannot be explained feature by feature. Instead, fit "
            f"the {what} with the kernel function (a string such as kernel='rbf', or a callable "
            "kernel=my_kernel) and explain that, or explain the function of the original features through "
            f"model calls: kx.explain(lambda Z: model.{method}(my_kernel(Z, X_train)), X, "
            "background=X_train)")


def pipeline_steps(model: Any) -> list | None:
    """The (name, step) pairs of a non-empty scikit-learn Pipeline, else None."""
    if not hasattr(model, "steps"):   # before the import: most models are not pipelines (a call per conversion)
        return None
    from sklearn.pipeline import Pipeline

    if isinstance(model, Pipeline) and len(model.steps) > 0:
        return list(model.steps)
    return None


def split_pipeline(model: Any) -> tuple[Any, Callable]:
    """(final estimator, rebuild): rebuild(est) is the model with its final estimator replaced."""
    from sklearn.pipeline import Pipeline

    if isinstance(model, Pipeline) and len(model.steps) > 0:
        head, (name, _) = model.steps[:-1], model.steps[-1]
        return model.steps[-1][1], lambda est: Pipeline(list(head) + [(name, est)])
    return model, lambda est: est
