"""``kx.explain``: one call from a model and points to an Explanation."""

from __future__ import annotations

import difflib
import inspect

from .estimators.registry import InvalidOptionError
from .games import ProductGame
from .models import as_expansion
from .shapley import shapley_values
from .values import base as _values

__all__ = ["explain"]

#: keywords of kx.explain itself, besides the value function's and the estimator's
_OWN = ("seed",)


def _value_function_options(cls):
    params = inspect.signature(cls.__init__).parameters
    return [k for k, p in params.items() if k not in ("self", "model")
            and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def explain(model, X, value="interventional", background=None, method="auto", *, groups=None,
            group_names=None, **options):
    """Shapley values of a kernel model's predictions at the rows of ``X``.

    Parameters
    ----------
    model : KernelExpansion, kernelxai estimator, or fitted scikit-learn model
        Anything :func:`kernelxai.models.as_expansion` accepts.
    X : array (n, d) or DataFrame
        Points to explain; DataFrame columns become feature names.
    value : str
        The value function (see ``kx.values.registered()``), e.g.
        ``"interventional"``, ``"observational"``, ``"functional_baseline"``.
    background : array, optional
        Reference sample for value functions that use one; defaults to the
        model's training inputs.
    method : str
        The estimator (see :func:`kernelxai.shapley_values`); ``"auto"`` takes
        the cheapest exact route the game allows (enumeration up to 12
        features, the polynomial-time product routes for product kernels),
        else KernelSHAP.
    groups : list of lists of feature indices or names, optional
        Explain groups of features as single players (group Shapley).
    group_names : list of str, optional
    **options
        Split between the value function (its constructor's keywords, e.g.
        ``eta``) and the estimator (e.g. ``budget``, ``seed``). An unknown
        keyword is answered with both lists.

    Returns
    -------
    Explanation

    Examples
    --------
    >>> from sklearn.kernel_ridge import KernelRidge                        # doctest: +SKIP
    >>> krr = KernelRidge(kernel="rbf", gamma=0.5, alpha=0.1).fit(X, y)      # doctest: +SKIP
    >>> e = kx.explain(krr, X[:50], value="interventional")                 # doctest: +SKIP
    >>> e = kx.explain(krr, X[:50], value="observational", eta=1e-3)        # doctest: +SKIP
    """
    expansion = as_expansion(model)
    cls = _values.get(value)
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
    vf = cls(expansion, **vf_options)
    game = vf.game(X)
    if method in ("product", "quadrature", "stable", "newton") and not isinstance(game, ProductGame):
        kernel = expansion.kernel
        why = (f"the model's kernel {kernel!r} is not a product kernel" if not kernel.is_product
               else f"the {value!r} value function does not produce a product game")
        raise ValueError(
            f"method={method!r} computes exact Shapley values of product games only, and {why}. "
            "Product kernels: RBF, Laplace, Cauchy, Categorical, Product (value='interventional' "
            "or 'functional_baseline'). Use method='auto', 'exact' (up to ~12 features), 'kernel' "
            "(budget=...) or 'permutation' instead")
    try:
        return shapley_values(game, method=method, **options)
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
