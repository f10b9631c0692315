"""``kx.explain``: one call from a model and points to an Explanation."""

from __future__ import annotations

import inspect

from .shapley import shapley_values
from .values import base as _values

__all__ = ["explain"]


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
        The estimator; ``"auto"`` lets the value function choose.
    groups : list of lists of int, optional
        Explain groups of features as single players (group Shapley).
    group_names : list of str, optional
    **options
        Split between the value function (its constructor's keywords, e.g.
        ``eta``) and the estimator (e.g. ``n_coalitions``, ``seed``).

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
    from .games import ProductGame
    from .models import as_expansion

    expansion = as_expansion(model)
    cls = _values.get(value)
    accepted = inspect.signature(cls.__init__).parameters
    vf_options = {k: options.pop(k) for k in list(options) if k in accepted and k not in ("self", "model")}
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
    if method == "auto":
        method = vf.auto_method(game)
    if method in ("product", "quadrature") and not isinstance(game, ProductGame):
        kernel = expansion.kernel
        why = (f"the model's kernel {kernel!r} is not a product kernel" if not kernel.is_product
               else f"the {value!r} value function does not produce a product game")
        raise ValueError(
            f"method={method!r} computes exact Shapley values of product games only, and {why}. "
            "Product kernels: RBF, Laplace, Cauchy, Categorical, Product (value='interventional' "
            "or 'functional_baseline'). Use method='exact' (up to ~12 features), 'kernel' "
            "(n_coalitions=...) or 'permutation' instead")
    return shapley_values(game, method=method, **options)
