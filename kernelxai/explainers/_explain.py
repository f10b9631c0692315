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
from typing import TYPE_CHECKING

from .._params import did_you_mean, unknown_keywords_error
from ..estimators._registry import InvalidOptionError, estimators, get_estimator
from ..games import ProductGame
from ..parallel._chunking import check_n_jobs
from ..values import _base as _values
from ..values._agnostic import GaussianConditional, Marginal, MarginalGame
from ..values._conditional import Empirical, GaussianCopula
from ..values._interventional import Interventional
from ._intake import Target, as_target, dense_inputs, intake
from ._rows import explain_rows

if TYPE_CHECKING:
    from ..explanation import Explanation

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
        message of every entry point (:func:`kernelxai._params.unknown_keywords_error`).

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
    if not options and estimator_names is None and isinstance(method, str) and method == "auto":
        return   # nothing to check (the value function exists; "auto" names every estimator)
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


def explain(model, X, value="interventional", background=None, method="auto", *, groups=None,
            group_names=None, output=None, n_jobs=None, rows_per_chunk=None, **options) -> Explanation:
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
        else KernelSHAP.
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
        ``eta``) and the estimator (e.g. ``budget``, ``seed``). A keyword that
        none of kx.explain, the value function and the estimator takes (a typo
        such as ``backgroud=``) is refused before any work with all three lists
        and "did you mean 'background'?".

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
        ``value="observational"`` or ``"functional_baseline"`` for a model that
        is not a kernel model (they need its kernel).

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
    if plan is not None:  # one explanation per output (models.convert.plans), stacked on an outputs axis
        missing = plan.missing_background(background)
        if missing:
            raise BackgroundRequiredError(missing)
        return plan.finish([_explain_target(target, X, value, plan.background_for(target.model, background),
                                            method, groups, group_names, n_jobs, rows_per_chunk, dict(options))
                            for target in door.targets])
    return _explain_target(door.targets[0], X, value, background, method, groups, group_names, n_jobs,
                           rows_per_chunk, options)


def _explain_target(target, X, value, background, method, groups, group_names, n_jobs, rows_per_chunk,
                    options):
    """kx.explain of one output of the model (a ``kernelxai.explainers._intake.Target``)."""
    model = target.model
    check_n_jobs(n_jobs)
    check_keywords(target, value, method, options)
    game, route, expansion, model_output, accepted, vf = _build_game(
        target, X, value, background, groups=groups, group_names=group_names, options=options)
    if method in ("product", "quadrature", "stable", "newton") and not isinstance(game, ProductGame):
        kernel = None if expansion is None else expansion.kernel
        why = (f"the model is explained through model calls ({route})" if kernel is None
               else f"the model's kernel {kernel!r} is not a product kernel" if not kernel.is_product
               else f"the {value!r} value function does not produce a product game")
        raise ValueError(
            f"method={method!r} computes exact Shapley values of product games only, and {why}. "
            "Product kernels: RBF, Laplace, Cauchy, Categorical, Product (value='interventional' "
            "or 'functional_baseline'). Use method='auto', 'exact' (up to ~12 features), 'kernel' "
            "(budget=...) or 'permutation' instead")
    try:
        result = explain_rows(vf, game, X, method, options, n_jobs=n_jobs,
                              rows_per_chunk=rows_per_chunk)
    except InvalidOptionError as err:
        vf_names = [k for k in accepted if k not in ("background", "data", "groups", "group_names")]
        unknown = [k for k in options if k not in _OWN and str(k) in str(err)]
        hint = did_you_mean(unknown, vf_names)
        raise InvalidOptionError(
            f"{err} The {value!r} value function accepts: {', '.join(vf_names) or 'no options'}."
            + (f" {hint}" if hint else "")) from None
    result.meta["route"] = route
    folded = _folded_steps(model) if expansion is not None else None
    if folded:
        result.meta["preprocessing"] = (f"{', '.join(folded)} folded into the kernel (per-feature "
                                        "affine): values in the original features' units")
    if model_output is not None:
        result.meta["model_method"] = result.meta["model_output"] = model_output  # the method called
    return result


def build_game(model, X, value="interventional", background=None, *, groups=None,
               group_names=None, options=None, return_value_function=False):
    """The game ``kx.explain`` explains, for a model with one output (no ``output=`` plan).

    Used by :func:`kx.explain <explain>` and :func:`kx.explain_interactions
    <kernelxai.explainers._interactions.explain_interactions>`, so both explain the same game.
    The value function's keywords are popped from the dict ``options``; what
    is left belongs to the estimator.

    Returns
    -------
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
        Only with ``return_value_function=True``: the object that built ``game``
        (``value_function.game(rows)`` gives the game of other rows).
    """
    options = {} if options is None else options
    game, route, expansion, model_output, accepted, vf = _build_game(
        as_target(model), X, value, background, groups=groups, group_names=group_names, options=options)
    if return_value_function:
        return game, route, expansion, model_output, accepted, vf
    return game, route, expansion, model_output, accepted


def _build_game(target: Target, X, value, background, *, groups, group_names, options):
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
    return game, route, expansion, model_output, accepted, vf


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
