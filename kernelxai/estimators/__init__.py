"""Estimators: from a game to Shapley values (and interactions), as declared plug-ins.

Takes games (:mod:`kernelxai.games`) and hands on arrays of values with their
intervals, which :func:`kx.shapley_values <kernelxai.shapley_values>`
wraps in an :class:`~kernelxai.explanation.Explanation`. Each estimator module
holds one family and registers it with
:func:`~kernelxai.estimators.register`:

================  ================================  ===============================================
module            methods                           what it needs and gives
================  ================================  ===============================================
``exact``         ``exact`` (``brute``)             any game up to 26 players; exact
``kernelshap``    ``kernel``                        any game; KernelSHAP (WLS), intervals; paired
                                                    without replacement with ``replace=False``
``leverageshap``  ``leverage_shap`` (``leverage``)  any game; Leverage SHAP, stratified t-intervals
``polyshap``      ``polyshap``                      any game; PolySHAP (all interactions up to an
                                                    order), stratified t-intervals
``msr``           ``msr`` (``regression_msr``)      any game; regression-adjusted Monte Carlo,
                                                    unbiased, t-intervals
``oddshap``       ``oddshap`` (``odd_shap``)        any game; OddSHAP (odd regression with the odd
                                                    interactions of a tree proxy); no intervals
``permutation``   ``permutation``                   any game; t-intervals
``quadrature``    ``product`` (``quadrature``),     a ProductGame; exact in polynomial time
                  ``stable``, ``newton``
``bayes``         ``bayes_shap`` (``bayes``)        any game; Bayesian SHAP, design-based (sandwich)
                                                    intervals (credible ones when asked)
================  ================================  ===============================================

The product routes behind ``quadrature``: ``product`` (the face: ``product_shapley``),
``gauss_legendre`` (the rule and its node counts), ``quadrature_kernel`` /
``quadrature_numba`` (numpy and compiled kernels), ``pkex_routes`` (``stable``,
``newton``), ``term_tasks`` (blocks of terms, the node count ahead of time) and
``product_reference`` (the mpmath check). Pairwise interactions
(:func:`kx.shapley_interactions <kernelxai.shapley_interactions>`):
``interaction_index`` (SII, k-SII, STII, FSII as functionals of worths),
``interaction_exact``, ``interaction_product``, ``interaction_sampled`` and
``interaction_plan`` (route and cost). Behind ``leverage_shap``, ``polyshap``, ``oddshap`` and
``kernel`` without replacement: ``pair_sampling`` (complementary pairs without replacement,
stratified by size) and ``odd_regression`` (one equation per pair, efficiency exact, stratified
intervals); behind ``oddshap`` also ``tree_proxy`` (boosted trees on coalitions and their exact
odd Fourier coefficients).
``shapley`` is the entry point
``kx.shapley_values``; ``common`` the pieces the estimators share; ``arena_guide`` the error the
arena measured (package data ``_arena_errors.json``), put beside every sampled estimate.

``kx.shapley_values(game, method=...)`` checks a method's requirements and
options once; ``method="auto"`` asks every applicable estimator for its cost.
"""

from . import (  # registration
    _bayes,
    _exact,
    _kernelshap,
    _leverageshap,
    _msr,
    _oddshap,
    _permutation,
    _polyshap,
    _quadrature,
)
from ._choose import choose
from ._common import t_interval
from ._product import PrecisionError, estimate_nodes, gauss_legendre_01, product_shapley, reference_shapley
from ._registry import (
    COMMON_OPTIONS,
    Cost,
    CostLimitError,
    Estimator,
    EstimatorResult,
    InvalidOptionError,
    NotApplicableError,
    Option,
    available_methods,
    estimators,
    get_estimator,
    register,
)
from ._shapley import applicable_methods, estimate_cost, shapley_values

__all__ = ["shapley_values", "available_methods", "applicable_methods", "estimate_cost", "choose",
           "Estimator", "EstimatorResult", "Option", "Cost", "register", "get_estimator", "estimators",
           "InvalidOptionError", "NotApplicableError", "CostLimitError", "PrecisionError", "COMMON_OPTIONS",
           "t_interval", "product_shapley", "reference_shapley", "estimate_nodes", "gauss_legendre_01"]
