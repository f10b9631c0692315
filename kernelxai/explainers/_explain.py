"""``kx.explain``: one call from a model and points to an Explanation.

Takes what the user passed (a model, points, ``value=``, ``background=``,
``method=`` and options); hands on an :class:`~kernelxai.explanation.Explanation`
whose ``meta["route"]`` says how it was computed. The model goes through the one
door (``kernelxai.explainers._intake``); sparse ``X`` / ``background`` are
densified there when small enough; a keyword nobody takes is refused before any
work with "did you mean ...?".

Explaining an anomaly score (OneClassSVM, KernelDensity, any outlier detector)
answers "unusual compared with what?": the values say why a point scores
differently from the average score over ``background``, so the background is the
reference. Which one to pass is described under ``background`` in
:func:`explain`.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._config import get_config
from .._params import (
    Checked,
    Data,
    Either,
    Groups,
    InstanceOf,
    Names,
    Seed,
    Text,
    did_you_mean,
    parameters,
    unknown_keywords_error,
)
from ..estimators._registry import (
    Estimator,
    InvalidOptionError,
    check_cost,
    estimators,
    format_seconds,
    get_estimator,
)
from ..estimators._shapley import resolve_method
from ..games import ProductGame
from ..models.convert._dispatch import output_plan
from ..models.convert._plans import OUTPUTS, CallOutput
from ..parallel._chunking import check_n_jobs, check_rows_per_chunk
from ..parallel._runner import execution
from ..values import _base as _values
from ..values._agnostic import GaussianConditional, Marginal, MarginalGame
from ..values._conditional import Empirical, GaussianCopula
from ..values._interventional import Interventional
from ._intake import Target, as_target, dense_inputs, intake
from ._rows import explain_rows

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike

    from ..explanation import Explanation
    from ..games import Game
    from ..models import KernelExpansion
    from ..values import ValueFunction

__all__ = ["explain", "BackgroundRequiredError", "check_keywords", "unknown_keyword_error"]

#: Explanation.meta["route"] of the exact routes, by value function
_EXACT_ROUTES = {"interventional": "kernel expansion (exact mean embeddings)",
                 "observational": "kernel expansion (conditional mean embeddings)",
                 "functional_baseline": "kernel expansion (functional baseline, product kernel)"}


class BackgroundRequiredError(ValueError, TypeError):
    """A model explained through model calls was given no ``background=``.

    A ValueError (a needed argument is missing its value) and a TypeError (the
    error ``kx.explain`` raised for models it could not convert before they
    were explained through model calls).

    Examples
    --------
    A plain callable is explained through model calls, which need a background:

    >>> import numpy as np, kernelxai as kx
    >>> from kernelxai.explainers import BackgroundRequiredError
    >>> X = np.random.default_rng(0).normal(size=(20, 3))
    >>> try:
    ...     kx.explain(lambda P: P[:, 0], X[:2])
    ... except BackgroundRequiredError as err:
    ...     print(err)
    this callable is explained through model calls ... pass background=..., e.g. ...
    >>> e = kx.explain(lambda P: P[:, 0], X[:2], background=X)    # with one it works
    """

#: keywords of kx.explain itself, besides the value function's and the estimator's
_OWN = ("seed",)
#: kx.explain's named arguments (what an unknown keyword may be a typo of)
_ARGUMENTS = ("value", "background", "method", "groups", "group_names", "output", "n_jobs", "rows_per_chunk",
              "seed")
#: value-function keywords that kx.explain fills from its own arguments
_SAMPLE_KEYS = ("background", "data", "groups", "group_names")


def _value_function_options(cls):
    """The keywords of a value function's constructor (a fresh list: callers may keep it)."""
    return list(_constructor_keywords(cls))


@functools.cache
def _constructor_keywords(cls):
    # a class's signature does not change; inspect.signature costs ~0.1 ms per call
    params = inspect.signature(cls.__init__).parameters
    return tuple(k for k, p in params.items() if k not in ("self", "model")
                 and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def unknown_keyword_error(entry, unknown, arguments, value, vf_names, others=None) -> InvalidOptionError:
    """The error for keywords that are neither arguments of ``entry`` nor options of what it passes them to.

    Parameters
    ----------
    entry : str
        The function called, e.g. ``"kx.explain"``.
    unknown : list of str
        The keywords nobody takes.
    arguments : sequence of str
        ``entry``'s own arguments.
    value : str
        The value function's name.
    vf_names : list of str
        The value function's options.
    others : (str, list of str), optional
        What else takes keywords (e.g. ``"method='kernel'"``) and its options;
        None: the estimators, unnamed.

    Returns
    -------
    InvalidOptionError
        Saying that each keyword is not an argument of ``entry`` and, where one
        is close, which argument or option was meant ("did you mean ...?"): the
        message of every entry point (``kernelxai._params.unknown_keywords_error``).

    Examples
    --------
    >>> err = unknown_keyword_error("kx.explain", ["n_sampels"], ["value", "background"],
    ...                             "interventional", ["max_elements", "progress"],
    ...                             ("method='sampling'", ["n_samples", "seed"]))
    >>> type(err).__name__
    'InvalidOptionError'
    >>> print(err)
    'n_sampels' is not an argument of kx.explain, nor an option of the 'interventional' value function or of
    method='sampling'. It accepts: n_samples, seed; ... did you mean 'n_samples' for 'n_sampels'?
    """
    last = others if others is not None else (
        "the estimators", _estimator_option_names("auto"),
        "Their options: see kx.shapley_values (method='auto' picks one)")
    return unknown_keywords_error(entry, unknown, arguments,
                                  [(f"the {value!r} value function", vf_names), last])


#: Options every estimator call takes besides its own (the seed of its random generator).
_CALL_OPTIONS = ("seed",)


def _estimator_option_names(method):
    """Option names (aliases included) of ``method``, or of every estimator for ``"auto"``."""
    chosen = estimators().values() if isinstance(method, str) and method == "auto" else [get_estimator(method)]
    names = set(_CALL_OPTIONS)
    for est in chosen:
        names.update(est.accepted_options())
        names.update(est.option_aliases)
    return sorted(names)


def _any_estimator_takes(name) -> bool:
    """Whether some estimator takes the option ``name`` (``seed`` included), as ``"auto"`` may pick any."""
    return name in _CALL_OPTIONS or any(name in est.accepted_options() or name in est.option_aliases
                                 for est in estimators().values())


def check_keywords(target, value, method, options, *, entry="kx.explain", arguments=_ARGUMENTS,
                   estimator_names=None) -> None:
    """Refuse, before any work, keywords that neither ``entry``, its value function nor its estimator take.

    Parameters
    ----------
    target : Target or None
        The model through the door (its value function is chosen as ``kx.explain``
        chooses it); None: not converted yet (both choices' options pass).
    value : str
        The value function's name.
    method : str
        The estimator (``"auto"``: any estimator's options pass here; the one
        picked checks its own later).
    options : dict
        The keywords given beyond ``entry``'s named arguments.
    entry, arguments : str, sequence of str
        The function called and its named arguments, for the message.
    estimator_names : (str, list of str), optional
        What takes the remaining keywords, and their names (default: the
        estimator ``method``).

    Raises
    ------
    InvalidOptionError
        With :func:`unknown_keyword_error`'s message.
    ValueError
        ``value`` is not a registered value function.

    Examples
    --------
    >>> check_keywords(None, "observational", "auto", {"eta": 1e-2})   # eta: an option of the CME
    >>> check_keywords(None, "interventional", "auto", {"bakground": None})
    Traceback (most recent call last):
    ...
    kernelxai._params.InvalidOptionError: 'bakground' is not an argument of kx.explain, ...
    did you mean 'background' for 'bakground'?
    """
    cls = _values.get(value)
    if not options and estimator_names is None:   # no keyword to check (the value function exists)
        if not (isinstance(method, str) and method == "auto"):
            get_estimator(method)   # an unknown method refused here, as below ("auto" names every estimator)
        return
    vf_names = [k for k in _value_function_options(cls) if k not in _SAMPLE_KEYS]
    if issubclass(cls, Interventional) and (target is None or not target.is_exact):
        # what kx.explain calls for a model explained through model calls
        calls = [k for k in _value_function_options(Marginal) if k not in _SAMPLE_KEYS]
        vf_names = calls if target is not None else vf_names + [k for k in calls if k not in vf_names]
    if estimator_names is None:
        auto = isinstance(method, str) and method == "auto"
        estimator_names = None if auto else (f"method={getattr(method, 'name', method)!r}",
                                             _estimator_option_names(method))
    unknown = [k for k in options if k not in vf_names and (
        k not in estimator_names[1] if estimator_names is not None else not _any_estimator_takes(k))]
    if unknown:
        raise unknown_keyword_error(entry, unknown, arguments, value, vf_names, estimator_names)


#: The declared parameters kx.explain shares with the entry points built on it (kx.explain_interactions).
PARAMETERS = dict(X=Data(), background=Data(none=True), value=Text(),
                  method=Either(Text(), InstanceOf((Estimator,), "an Estimator")), groups=Groups(none=True),
                  group_names=Names(none=True), output=Text(none=True), n_jobs=Checked(check_n_jobs),
                  rows_per_chunk=Checked(check_rows_per_chunk))


@parameters("kx.explain", seed=Seed(), **PARAMETERS)
def explain(model: Any, X: ArrayLike, value: str = "interventional", background: ArrayLike | None = None,  # noqa: PLR0913 - the one door: model, data and value function, then keyword options as scikit-learn's
            method: str | Estimator = "auto", *, groups: Sequence[Sequence[int | str]] | None = None,
            group_names: Sequence[str] | None = None, output: str | None = None, n_jobs: int | None = None,
            rows_per_chunk: int | None = None, **options: Any) -> Explanation:
    """Shapley values of a kernel model's predictions at the rows of ``X``.

    Parameters
    ----------
    model : KernelExpansion, kernelxai estimator, fitted scikit-learn model, or callable
        Anything :func:`kernelxai.models.as_expansion` accepts (including
        pipelines of per-feature scalers before a kernel model) is converted
        exactly to a kernel expansion in the original features' units. Any
        other model -- another pipeline, any fitted scikit-learn regressor or
        classifier, a plain callable ``f(X) -> y`` -- is explained through
        model calls: ``value="interventional"`` becomes the model-agnostic
        ``"marginal"`` game (the same game, by averaging model calls over
        ``background``), and ``"marginal"`` / ``"gaussian_conditional"`` (and the
        dependent-feature estimators ``"gaussian_copula"``, ``"empirical"``) work
        as always; these need ``background=``. Classifiers are explained
        through ``decision_function`` when they have one, else ``predict``.
        ``meta["route"]`` says which route was taken and why. A model fitted
        with ``kernel="precomputed"`` (KernelRidge, SVR, SVC, NuSVR, NuSVC,
        OneClassSVM, KernelPCA) is refused with a ``PrecomputedKernelError``:
        kernelxai sees only its Gram matrix, not the kernel function, so it
        cannot be explained feature by feature. Fit it with the kernel function
        (``kernel="rbf"`` or a callable), or explain the function of the original
        features through model calls:
        ``kx.explain(lambda Z: model.predict(my_kernel(Z, X_train)), X, background=X_train)``.
    X : array (n, d), DataFrame or scipy sparse matrix
        Points to explain; DataFrame columns become feature names. A sparse
        matrix (and a sparse ``background``, or the training inputs of a model
        fitted on one) is densified when its dense copy fits in
        ``kx.get_config()["max_memory"]`` bytes (256 MiB by default; raise it
        with ``kx.config_context(max_memory=...)``); a larger one is refused by
        name, since kernelxai computes with dense arrays.
    value : str
        The value function (see ``kx.values.registered()``), e.g.
        ``"interventional"``, ``"observational"``, ``"functional_baseline"``.
    background : array, optional
        Reference sample for value functions that use one; defaults to the
        model's training inputs. Required for models explained through model
        calls. The values split ``f(x) - mean f(background)``: the background is
        what the point is compared with. For an anomaly score this is the
        question asked -- choose it deliberately:

        * the inliers only, e.g. ``background=X_train[detector.predict(X_train) == 1]``
          (or the rows known to be normal): "why does this point score as more
          anomalous than a typical normal point?" -- usually what "why was it
          flagged?" means;
        * all the training data, anomalies included (``background=X_train``):
          relative to the model's average score, which the anomalies in it
          pull down; the default where the model keeps its training inputs;
        * a chosen peer group (same branch, same month, same class, e.g.
          ``background=X_train[segment == "retail"]``): "unusual compared
          with its peers".

        A OneClassSVM keeps only its support vectors, so it needs
        ``background=``; a few hundred rows suffice.
    method : str
        The estimator (see :func:`kernelxai.shapley_values`); ``"auto"`` takes
        the cheapest exact route the game allows (enumeration up to 12
        features, the polynomial-time product routes for product kernels),
        else the sampled estimator :func:`kx.compare_estimators <kernelxai.compare_estimators>`
        measured most accurate at that d and budget (Leverage SHAP from 10d evaluations,
        from 5d at d >= 50; KernelSHAP below).
    groups : list of lists of feature indices or names, optional
        Explain groups of features as single players (group Shapley).
    group_names : list of str, optional
    output : str, optional
        Which output of the model to explain (:class:`~kernelxai.models.convert.OutputPlan`):
        ``"decision"`` (an SVM's decision function, a kernel expansion: exact;
        the default for SVMs), ``"log_odds"`` (log p / (1 - p) of the positive
        class: for ``SVC(probability=True)`` the Platt log-odds ``B - A f``,
        affine in the decision function ``f`` and so exact; for kernelxai's
        kernel logistic regression its latent function, exact and the
        default), ``"latent"`` (a ``GaussianProcessClassifier``'s Laplace
        latent mean, a kernel expansion: exact, the default), ``"probability"``
        (``predict_proba``: non-linear, explained through model calls over
        ``background``), ``"ovo"`` (a multi-class SVC's pairwise decision
        functions, exact), ``"prediction"`` (regressors). Models with several
        outputs (multi-class, multi-output regression) give values
        ``(n, d, k)`` with ``output_names`` (class labels, ``"a vs b"`` for
        pairs, ``"output_j"`` for targets); efficiency holds per output and
        ``e[..., name]`` is one output's explanation. ``meta["output"]`` and
        ``meta["output_kind"]`` name the output, ``meta["output_description"]``
        says what the numbers are. An output the model does not have raises a
        ValueError listing the ones it has.
    n_jobs : int, optional
        Workers explaining chunks of rows, with joblib as in scikit-learn: None is one
        worker unless an enclosing ``joblib.parallel_config`` says otherwise (under
        ``joblib.parallel_config(backend="dask")`` the chunks run on the Dask cluster),
        -1 all CPUs. The result does not depend on it: bit for bit, also for sampled
        methods with a seed (:mod:`kernelxai.parallel`).
    rows_per_chunk : int, optional
        Rows per chunk; default from the cost model (about half a second of estimated
        work per chunk). Rows that make one chunk are explained in one serial call.
    **options
        Split between the value function (its constructor's keywords, e.g.
        ``eta``) and the estimator (e.g. ``budget``, ``seed``; ``random_state``,
        scikit-learn's name, is another name of ``seed``). A keyword that
        none of kx.explain, the value function and the estimator takes (a typo
        such as ``backgroud=``) is refused before any work with all three lists
        and "did you mean 'background'?"; a value a parameter cannot take is
        refused as ``"method=3 of kx.explain must be a string or an Estimator"``
        (one mechanism checks the arguments of every entry point).

    Returns
    -------
    Explanation
        ``meta["route"]``: ``"kernel expansion (exact mean embeddings)"`` (or
        the value function's other exact route), or
        ``"model calls (marginal): <why>"``.

    Raises
    ------
    BackgroundRequiredError
        The model is explained through model calls and no background was given.
    PrecomputedKernelError
        The model was fitted with ``kernel="precomputed"`` (a TypeError and a ValueError).
    InvalidOptionError
        A keyword nobody takes (see ``**options``).
    ValueError
        An unknown ``value`` (with "did you mean ...?"), or a sparse input too
        large to densify.
    TypeError
        ``value="observational"`` or ``"functional_baseline"`` for a model, or an
        ``output=``, that is not a kernel model (they need its kernel); the
        message names the model's outputs that are (e.g. ``output="density"``
        of a KernelDensity, whose default ``"log_density"`` is not).

    Examples
    --------
    >>> import numpy as np, kernelxai as kx
    >>> from sklearn.kernel_ridge import KernelRidge
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> y = X[:, 0] - 2 * X[:, 1] ** 2
    >>> krr = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, y)
    >>> e = kx.explain(krr, X[:5], background=X)
    >>> e
    Explanation(shape=(5, 3), method='exact', value_function='interventional')
    >>> bool(np.allclose(e.values.sum(axis=1) + e.base_values, krr.predict(X[:5])))
    True
    >>> e = kx.explain(krr, X[:5], value="observational", eta=1e-3)
    >>> e = kx.explain(lambda Z: Z[:, 0] * Z[:, 1], X[:5], background=X[:20])

    Why a point was flagged, compared with the normal points:

    >>> from sklearn.svm import OneClassSVM
    >>> oc = OneClassSVM(gamma=0.5, nu=0.05).fit(X)
    >>> flagged = oc.predict(X) == -1
    >>> e = kx.explain(oc, X[flagged], background=X[~flagged])
    """
    door = intake(model, output)
    X, background = dense_inputs(X, background)
    plan = door.plan
    check_value_applies(door, model, value)
    request = _Request(value, method, groups, group_names, n_jobs, rows_per_chunk)
    if plan is not None:  # one explanation per output (models.convert.plans), stacked on an outputs axis
        missing = plan.missing_background(background)
        if missing:
            raise BackgroundRequiredError(missing)
        _check_outputs_cost(door, X, value, background, method, groups, group_names, n_jobs, options)
        return plan.finish([_explain_target(target, X, plan.background_for(target.model, background), request,
                                            dict(options))
                            for target in door.targets])
    return _explain_target(door.targets[0], X, background, request, options)


#: value functions that explain any model through model calls (the interventional game by averaging them)
_MODEL_CALL_VALUES = (Interventional, Marginal, GaussianConditional, GaussianCopula, Empirical)


def check_value_applies(door, model, value) -> None:
    """Refuse, before any work, a value function that needs a kernel for an output explained through model calls.

    ``value="observational"`` or ``"functional_baseline"`` work with the model's
    kernel; an output that is not a kernel expansion (a KernelDensity's default
    ``"log_density"``, a classifier's ``"probability"``, a random forest) has none.
    The message names the model (never an internal class), says why the output
    is explained through model calls, and lists the outputs of the same model
    that are exact, e.g. ``output="density"`` of a KernelDensity.

    Parameters
    ----------
    door : Intake
        The model through the door (``kernelxai.explainers._intake.intake``).
    model : object
        The model as the user passed it.
    value : str
        The value function's name.

    Raises
    ------
    TypeError
        The value function needs a kernel model and an output of ``door`` is
        explained through model calls.
    ValueError
        ``value`` is not a registered value function.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.neighbors import KernelDensity
    >>> kde = KernelDensity(bandwidth=0.5).fit(np.random.default_rng(0).normal(size=(30, 2)))
    >>> check_value_applies(intake(kde), kde, "observational")
    Traceback (most recent call last):
    ...
    TypeError: value='observational' needs a kernel model ... output='density' is exact (a kernel expansion): ...
    """
    cls = _values.get(value)
    if issubclass(cls, _MODEL_CALL_VALUES):
        return
    called = [t for t in door.targets if not t.is_exact]
    if not called:
        return
    target = called[0]
    name = getattr(target.model, "display_name", None) or (
        type(target.model).__name__ if hasattr(target.model, "predict") else "callable")
    kind = door.plan.kind if door.plan is not None else None
    what = f"this {name}" + (f"'s output {kind!r}" if kind is not None else "")
    exact = _exact_outputs(model, kind)
    alternative = ""
    if exact:
        listed = " and ".join(f"output={o!r}" for o in exact)
        alternative = (f" {listed} {'is' if len(exact) == 1 else 'are'} exact (a kernel expansion): "
                       f"kx.explain(model, X, value={value!r}, output={exact[0]!r}).")
    raise TypeError(
        f"value={value!r} needs a kernel model (it works with the model's kernel), and {what} is "
        f"explained through model calls ({target.why_not}).{alternative} Or explain "
        f"{'that output' if kind is not None else 'it'} through model calls: "
        "kx.explain(model, X, value='marginal', background=X_train) (the interventional game) "
        "or value='gaussian_conditional' / 'gaussian_copula' / 'empirical'")


def _exact_outputs(model, current):
    """The outputs of ``model`` other than ``current`` that are kernel expansions (an error path: tries each)."""
    exact = []
    for name in OUTPUTS:
        if name == current:
            continue
        try:
            plan = output_plan(model, name)
        except (TypeError, ValueError):
            continue
        if plan is not None and plan.targets and not any(isinstance(t, CallOutput) for _, t in plan.targets):
            exact.append(name)
    return exact


def output_cost_key(target) -> tuple:
    """What an output's cost depends on: its kernel's kind and expansion points, or "model calls".

    Two outputs with the same key build games of the same shape (their coefficients differ), so
    the estimators price them the same.
    """
    expansion = target.expansion
    if expansion is None:
        return ("model calls",)
    return ("expansion", type(expansion.kernel).__name__, getattr(expansion.kernel, "is_product", None),
            np.shape(expansion.X_train), np.ndim(expansion.alpha))


def _check_outputs_cost(door, X, value, background, method, groups, group_names, n_jobs,  # noqa: PLR0913 - kx.explain's arguments, priced as they are passed on
                        options) -> None:
    """The cost guard of a call with several outputs: all of them priced together before the first starts.

    Each output's game is built (cheap: the games are lazy) and priced as
    ``kernelxai.explainers._rows.explain_rows`` prices it; their sum, over
    the workers ``n_jobs`` asks for, is held to ``max_cost``. Outputs whose
    games have the same shape (the components of a KernelPCA: one kernel, one
    set of expansion points, other coefficients; the classes of a model
    explained through model calls) cost the same and are priced once. A call
    that would fail is left to fail where it always does (the per-output steps).
    """
    if get_config()["max_cost"] is None or len(door.targets) < 2:
        return
    plan = door.plan
    total, first, priced = None, None, {}
    try:
        for target in door.targets:
            key = output_cost_key(target)
            if key not in priced:
                rest = {k: v for k, v in options.items() if k not in _OWN}
                check_keywords(target, value, method, rest)
                game = _build_game(target, X, value, plan.background_for(target.model, background),
                                   groups=groups, group_names=group_names, options=rest).game
                est, _, resolved, cost = resolve_method(game, method, rest)
                priced[key] = est.cost(game, resolved) if cost is None else cost
                if first is None:
                    first = (est, game, resolved, priced[key])
            total = priced[key] if total is None else total + priced[key]
    except (TypeError, ValueError):
        return   # refused where the outputs are explained, with that step's message
    workers = 1 if n_jobs is None else execution(n_jobs, max(1, len(X)))[1]
    est, game, resolved, cost = first
    k = len(door.targets)
    advice = [f"fewer outputs (this model's {plan.kind!r} has {k}: explain a model with fewer "
              "components, classes or targets)", "fewer rows of X"]
    advice += [a for a in est.advice(game, resolved) + list(game.cost_advice()) if a not in advice]
    check_cost(total.work * (1.0 / workers),
               f"kx.explain of the {k} outputs ({plan.kind!r}: about {format_seconds(cost.seconds)} each, "
               f"method={est.name!r})", advice)


@dataclass(frozen=True)
class _Request:
    """What one ``kx.explain`` call asks, the same for every output of the model."""

    value: str
    method: object
    groups: list | None
    group_names: list | None
    n_jobs: int | None
    rows_per_chunk: int | None


def _explain_target(target, X, background, request, options):
    """kx.explain of one output of the model (a ``kernelxai.explainers._intake.Target``) for a :class:`_Request`."""
    value, method = request.value, request.method
    check_n_jobs(request.n_jobs)
    check_keywords(target, value, method, options)
    built = _build_game(target, X, value, background, groups=request.groups, group_names=request.group_names,
                        options=options)
    _check_product_method(method, built, value)
    try:
        result = explain_rows(built.value_function, built.game, X, method, options, n_jobs=request.n_jobs,
                              rows_per_chunk=request.rows_per_chunk)
    except InvalidOptionError as err:
        vf_names = [k for k in built.accepted if k not in ("background", "data", "groups", "group_names")]
        unknown = [k for k in options if k not in _OWN and str(k) in str(err)]
        hint = did_you_mean(unknown, vf_names)
        raise InvalidOptionError(
            f"{err} The {value!r} value function accepts: {', '.join(vf_names) or 'no options'}."
            + (f" {hint}" if hint else "")) from None
    result.meta["route"] = built.route
    folded = _folded_steps(target.model) if built.expansion is not None else None
    if folded:
        result.meta["preprocessing"] = (f"{', '.join(folded)} folded into the kernel (per-feature "
                                        "affine): values in the original features' units")
    if built.model_output is not None:
        result.meta["model_method"] = result.meta["model_output"] = built.model_output  # the method called
    return result


def _check_product_method(method, built, value) -> None:
    """Refuse the product routes (``method="product"``, ...) for a game that is not a product game."""
    if method not in ("product", "quadrature", "stable", "newton") or isinstance(built.game, ProductGame):
        return
    kernel = None if built.expansion is None else built.expansion.kernel
    why = (f"the model is explained through model calls ({built.route})" if kernel is None
           else f"the model's kernel {kernel!r} is not a product kernel" if not kernel.is_product
           else f"the {value!r} value function does not produce a product game")
    raise ValueError(
        f"method={method!r} computes exact Shapley values of product games only, and {why}. "
        "Product kernels: RBF, Laplace, Cauchy, Categorical, Product (value='interventional' "
        "or 'functional_baseline'). Use method='auto', 'exact' (up to ~12 features), 'kernel' "
        "(budget=...) or 'permutation' instead")


@dataclass(frozen=True)
class GameBuild:
    """The game ``kx.explain`` explains, and what was learnt building it (:func:`build_game`).

    Attributes
    ----------
    game : Game
    route : str
        What ``meta["route"]`` reports.
    expansion : KernelExpansion or None
        The model as a kernel expansion, or None when it is explained through model calls.
    model_output : str or None
        Which method of the model is called when it is explained through model calls
        (``"predict"``, ``"decision_function"``, ``"score_samples"``, ...; ``meta["model_method"]``).
    accepted : list of str
        The value function's constructor keywords (for error messages).
    value_function : ValueFunction
        The object that built ``game`` (``value_function.game(rows)`` gives the game of other rows).
    """

    game: Game
    route: str
    expansion: KernelExpansion | None
    model_output: str | None
    accepted: list
    value_function: ValueFunction


def build_game(model, X, value="interventional", background=None, *, groups=None,
               group_names=None, options=None) -> GameBuild:
    """The game ``kx.explain`` explains, for a model with one output (no ``output=`` plan).

    Used by :func:`kx.explain <explain>` and :func:`kx.explain_interactions
    <kernelxai.explainers._interactions.explain_interactions>`, so both explain the same game.
    The value function's keywords are popped from the dict ``options``; what
    is left belongs to the estimator.

    Returns
    -------
    GameBuild
        The game, the route ``meta["route"]`` reports, the kernel expansion (or
        None), the model's method called (or None), the value function's
        keywords and the value function itself.
    """
    options = {} if options is None else options
    return _build_game(as_target(model), X, value, background, groups=groups, group_names=group_names,
                       options=options)


def _build_game(target: Target, X, value, background, *, groups, group_names, options) -> GameBuild:
    """build_game of a model already through the door (``kernelxai.explainers._intake.as_target``)."""
    expansion = target.expansion
    cls = _values.get(value)
    if expansion is None:
        cls, called, route, model_output = _through_model_calls(target, value, cls, background)
    else:
        called, model_output = expansion, None
    accepted = _value_function_options(cls)
    vf_options = {k: options.pop(k) for k in list(options)
                  if k in accepted and k not in ("background", "data", "groups", "group_names")}
    if "progress" in vf_options:  # the value function's stages and the estimator's bar: both on or both off
        options["progress"] = vf_options["progress"]
    if "background" in accepted:
        vf_options["background"] = background
    elif "data" in accepted:  # value functions fitted to a data sample (e.g. gaussian_conditional)
        if background is not None:
            vf_options["data"] = background
    elif background is not None:
        raise ValueError(f"the {value!r} value function takes no background sample")
    if groups is not None:
        if "groups" not in accepted:
            raise ValueError(f"the {value!r} value function does not support groups")
        vf_options.update(groups=groups, group_names=group_names)
    vf = cls(called, **vf_options)
    game = vf.game(X)
    if expansion is not None:
        route = _exact_route(expansion, value, cls, game)
    return GameBuild(game, route, expansion, model_output, accepted, vf)


def _folded_steps(model):
    """Names of the preprocessing steps of a pipeline converted exactly, else None."""
    steps = getattr(model, "steps", None)
    if not isinstance(steps, list) or len(steps) < 2:
        return None
    return [str(name) for name, _ in steps[:-1]]


def _exact_route(expansion, value, cls, game):
    """meta["route"] of a model converted to a kernel expansion."""
    if issubclass(cls, (Marginal, GaussianConditional, GaussianCopula, Empirical)):
        return f"model calls ({value}): value={value!r} averages calls of the kernel expansion"
    if issubclass(cls, Interventional) and isinstance(game, MarginalGame):
        return (f"model calls (marginal): the kernel {expansion.kernel!r} is not a product kernel, "
                "so its interventional game has no mean-embedding factorisation")
    return _EXACT_ROUTES.get(value, f"kernel expansion ({value})")


def _through_model_calls(target, value, cls, background):
    """(value-function class, model to call, route, model output) for a non-kernel model.

    Classifiers (with ``output=None``, see ``kernelxai.models.convert._plans`` for the others) are called
    through ``decision_function`` when they have one: their ``predict`` gives labels
    (``kernelxai.explainers._intake.Target`` says which).
    """
    model, why_not = target.model, target.why_not
    if not callable(model) and not callable(getattr(model, "predict", None)):
        raise TypeError(f"cannot explain a {type(model).__name__}: it is neither a kernel model "
                        "kernelxai converts nor a fitted model with .predict or a function "
                        "f(X) -> y of a 2-D array")
    if issubclass(cls, Interventional):  # the same game, by averaging model calls
        cls, value = Marginal, "marginal"
    if not issubclass(cls, (Marginal, GaussianConditional, GaussianCopula, Empirical)):
        raise TypeError(
            f"value={value!r} needs a kernel model (it works with the model's kernel), and this "
            f"{getattr(model, 'display_name', type(model).__name__)} is not one: {why_not}. "
            "Explain it through model calls instead: "
            "kx.explain(model, X, value='marginal', background=X_train) (the interventional game) "
            "or value='gaussian_conditional' / 'gaussian_copula' / 'empirical'")
    if background is None:
        what = getattr(model, "display_name", type(model).__name__) if hasattr(model, "predict") \
            else "callable"
        raise BackgroundRequiredError(
            f"this {what} is explained through model calls ({why_not}), which "
            "average the model over a background sample: pass background=..., e.g. "
            "kx.explain(model, X, background=X_train) (a few hundred rows suffice)")
    return cls, target.call, f"model calls ({value}): {why_not}", target.model_output
