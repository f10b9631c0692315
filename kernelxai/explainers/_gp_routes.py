"""The covariance routes of GP-SHAP, registered in one place: exact, sampled and product.

Each route is a plug-in (``kernelxai.explainers._gp_route_base.CovarianceRoute``)
in a module of its own, beside the mean's estimators: it says whether it
applies, what it costs, how it computes and how ``meta`` describes it. Given a
latent posterior (``kernelxai.explainers._gp_posterior.Posterior``), background
rows and the value function's cell weights, each hands on, for two sets of
explained points, the covariance blocks ``Cov(phi_x, phi_x')`` (n1, n2, d, d)
that :func:`~kernelxai.explain_gp` and :class:`~kernelxai.ShapleyPrior` assemble.

* ``"exact"`` (``_gp_route_exact``) enumerates the 2^d coalitions (any kernel, both value functions);
* ``"sampled"`` (``_gp_route_sampled``) samples permutations (an unbiased U-statistic with jackknife errors);
* ``"product"`` (``_gp_route_product``) uses the product-kernel quadrature of ``kernelxai.explainers._gp_product``.

:data:`ROUTES` holds them by name, :func:`choose_route` picks one and
:func:`route_cost` estimates its work.
"""

from __future__ import annotations

from .._calibration import Work
from ._gp_route_base import (
    DEFAULT_PERMUTATIONS,
    MAX_POINTS,
    CovarianceProblem,
    CovarianceRoute,
    observational_weights,
    uniform_weights,
)
from ._gp_route_exact import Exact, ExactRoute, exact_points
from ._gp_route_product import Product, ProductRoute
from ._gp_route_sampled import Sampled, SampledRoute

__all__ = ["ROUTES", "get_route", "choose_route", "route_cost", "CovarianceProblem", "CovarianceRoute",
           "ExactRoute", "SampledRoute", "ProductRoute", "uniform_weights", "observational_weights",
           "MAX_POINTS", "DEFAULT_PERMUTATIONS"]

#: The covariance routes by ``method=`` name (one instance of each plug-in).
ROUTES: dict[str, CovarianceRoute] = {route.name: route for route in (Exact(), Sampled(), Product())}


def get_route(name) -> CovarianceRoute:
    """The registered covariance route ``name`` ("exact", "sampled" or "product"), else ValueError."""
    try:
        return ROUTES[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown GP-SHAP covariance route {name!r}; the routes are "
                         f"{', '.join(repr(r) for r in ROUTES)}") from None


def choose_route(method, value, terms, d, m, n, joint) -> str:
    """The covariance route for ``method`` ("auto" resolved), refusing one that does not apply.

    ``"auto"`` takes ``"product"`` for interventional values of a product
    kernel, else ``"exact"`` when the evaluation points fit ``MAX_POINTS``,
    else ``"sampled"``.

    Parameters
    ----------
    method : {"auto", "exact", "sampled", "product"}
        The route asked for.
    value : {"interventional", "observational"}
        The value function.
    terms : list of (float, ProductKernel) or None
        The kernel's product terms (``kernelxai.explainers._gp_product.product_terms``);
        None when it has none.
    d, m, n : int
        Features, background rows and explained points.
    joint : bool
        Whether covariances across points are wanted (the exact route then
        needs n 2^d m evaluation points).

    Returns
    -------
    str
        ``"exact"``, ``"sampled"`` or ``"product"``.

    Raises
    ------
    ValueError
        ``"product"`` for observational values or a kernel without product
        terms; ``"exact"`` above ``MAX_POINTS`` evaluation points.

    Examples
    --------
    >>> choose_route("auto", "observational", None, d=3, m=5, n=2, joint=False)
    'exact'
    >>> choose_route("auto", "observational", None, d=20, m=100, n=2, joint=False)
    'sampled'
    >>> choose_route("product", "observational", None, d=3, m=5, n=2, joint=False)
    Traceback (most recent call last):
    ...
    ValueError: method='product' computes the covariance of interventional values only ...
    """
    if method == "auto":
        if value == "interventional" and terms is not None:
            return "product"
        return "exact" if exact_points(d, m, n, joint) <= MAX_POINTS else "sampled"
    get_route(method).check(value, terms, d, m, n, joint)
    return method


def route_cost(route, d, m, n_train, n_cells) -> Work:
    """The work per explained point (or per pair of points), by kind.

    Exact and sampled routes: the prior covariance of the ``n_cells * m`` evaluation points
    (kernel evaluations, elementwise) and their whitening by the training Cholesky factor
    (triangular solves, BLAS). Product route: the 2-D quadrature of the prior term
    (elementwise) and the training system's products (BLAS).

    Parameters
    ----------
    route : {"exact", "sampled", "product"}
        The route.
    d : int
        Features.
    m : int
        Background rows.
    n_train : int
        Training points of the GP (0 for the prior).
    n_cells : int or float
        Coalitions evaluated per point by the exact or sampled route (ignored
        by the product route).

    Returns
    -------
    Work
        Elementwise (``flops``) and dense linear algebra (``blas_flops``)
        operations, priced in seconds by the cost guard (``.seconds``).

    Examples
    --------
    >>> w = route_cost("exact", 3, 5, 20, 2**3)      # d = 3, m = 5, 20 training points, 8 coalitions
    >>> w.flops, w.blas_flops
    (19200.0, 32000.0)
    """
    return get_route(route).cost(d, m, n_train, n_cells)
