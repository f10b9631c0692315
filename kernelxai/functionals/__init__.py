"""Shapley functionals: the Riesz representer of each Shapley value, and what it is used for.

Takes models, value functions and the product routes. Hands on the
representer matrices acting on a model's coefficients (RKHS-SHAP §3.1), their
RKHS norms and the Theorem-6 robustness bound, and the kernel models that
learn with a penalty on chosen features' Shapley values (the Shapley
regulariser, RKHS-SHAP §4: :class:`ShapleyRegularisedKernelRidge`,
:class:`ShapleyRegularisedKernelLogisticRegression`).
"""


from ._regularised import ShapleyRegularisedKernelLogisticRegression, ShapleyRegularisedKernelRidge
from ._representers import (
    ShapleyRepresenters,
    cme_gamma_norms,
    functional_distances,
    resolve_features,
    sample_shapley_coalitions,
    shapley_coefficients,
    shapley_representers,
    theorem6_bound,
)

__all__ = [
    "ShapleyRepresenters",
    "shapley_representers",
    "shapley_coefficients",
    "sample_shapley_coalitions",
    "resolve_features",
    "functional_distances",
    "cme_gamma_norms",
    "theorem6_bound",
    "ShapleyRegularisedKernelRidge",
    "ShapleyRegularisedKernelLogisticRegression",
]
