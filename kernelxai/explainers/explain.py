"""``kx.explain``: one call from a model and points to an Explanation."""

from __future__ import annotations

import difflib
import inspect
from typing import TYPE_CHECKING

from ..estimators.registry import InvalidOptionError
from ..games import ProductGame
from ..parallel import check_n_jobs
from ..values import base as _values
from ..values.agnostic import GaussianConditional, Marginal, MarginalGame
from ..values.conditional import Empirical, GaussianCopula
from ..values.interventional import Interventional
from .intake import Target, as_target, intake
from .rows import explain_rows

if TYPE_CHECKING:
    from ..explanation import Explanation

__all__ = ["explain", "BackgroundRequiredError"]

#: Explanation.meta["route"] of the exact routes, by value function
_EXACT_ROUTES = {"interventional": "kernel expansion (exact mean embeddings)",
                 "observational": "kernel expansion (conditional mean embeddings)",
                 "functional_baseline": "kernel expansion (functional baseline, product kernel)"}


class BackgroundRequiredError(ValueError, TypeError):
    """A model explained through model calls was given no ``background=``.

    A ValueError (a needed argument is missing its value) and a TypeError (the
    error ``kx.explain`` raised for models it could not convert before they
    were explained through model calls).
    """

#: keywords of kx.explain itself, besides the value function's and the estimator's
_OWN = ("seed",)


def _value_function_options(cls):
    params = inspect.signature(cls.__init__).parameters
    return [k for k, p in params.items() if k not in ("self", "model")
            and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


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
        ``meta["route"]`` says which route was taken and why.
    X : array (n, d) or DataFrame
        Points to explain; DataFrame columns become feature names.
    value : str
        The value function (see ``kx.values.registered()``), e.g.
        ``"interventional"``, ``"observational"``, ``"functional_baseline"``.
    background : array, optional
        Reference sample for value functions that use one; defaults to the
        model's training inputs. Required for models explained through model
        calls.
    method : str
        The estimator (see :func:`kernelxai.shapley_values`); ``"auto"`` takes
        the cheapest exact route the game allows (enumeration up to 12
        features, the polynomial-time product routes for product kernels),
        else KernelSHAP.
    groups : list of lists of feature indices or names, optional
        Explain groups of features as single players (group Shapley).
    group_names : list of str, optional
    output : str, optional
        Which output of the model to explain (:mod:`kernelxai.models.convert.plans`):
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
        ``eta``) and the estimator (e.g. ``budget``, ``seed``). An unknown
        keyword is answered with both lists.

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
    TypeError
        ``value="observational"`` or ``"functional_baseline"`` for a model that
        is not a kernel model (they need its kernel).

    Examples
    --------
    >>> from sklearn.kernel_ridge import KernelRidge                        # doctest: +SKIP
    >>> krr = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, y)      # doctest: +SKIP
    >>> e = kx.explain(krr, X[:50], value="interventional")                 # doctest: +SKIP
    >>> e = kx.explain(krr, X[:50], value="observational", eta=1e-3)        # doctest: +SKIP
    >>> e = kx.explain(lambda Z: Z[:, 0] * Z[:, 1], X[:5], background=X)    # doctest: +SKIP
    """
    door = intake(model, output)
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
    """kx.explain of one output of the model (a :class:`~kernelxai.explainers.intake.Target`)."""
    model = target.model
    check_n_jobs(n_jobs)
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
        hints = []
        for u in unknown:
            close = difflib.get_close_matches(u, vf_names, n=1)
            if close:
                hints.append(f"did you mean {close[0]!r} for {u!r}?")
        raise InvalidOptionError(
            f"{err} The {value!r} value function accepts: {', '.join(vf_names) or 'no options'}."
            + (" " + " ".join(hints) if hints else "")) from None
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
    <kernelxai.interactions.explain_interactions>`, so both explain the same game.
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
    """build_game of a model already through the door (:func:`~kernelxai.explainers.intake.as_target`)."""
    expansion = target.expansion
    cls = _values.get(value)
    if expansion is None:
        cls, called, route, model_output = _through_model_calls(target, value, cls, background)
    else:
        called, model_output = expansion, None
    accepted = _value_function_options(cls)
    vf_options = {k: options.pop(k) for k in list(options)
                  if k in accepted and k not in ("background", "data", "groups", "group_names")}
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

    Classifiers (with ``output=None``, see :mod:`kernelxai.models.convert.plans` for the others) are called
    through ``decision_function`` when they have one: their ``predict`` gives labels
    (:class:`~kernelxai.explainers.intake.Target` says which).
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
