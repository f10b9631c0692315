"""Kernels: the first thing a model is made of.

Takes nothing from the rest of kernelxai. Hands on kernel objects that the
models, value functions and estimators evaluate: product kernels
``k(x, x') = prod_j k_j(x_j, x'_j)`` (RBF/ARD, Laplace, Cauchy, Categorical,
their products), non-product kernels (Matern, linear, constants, sums), the
Gram tensors of coalitions, the median heuristic, and the exact translation of
fitted scikit-learn kernels (:mod:`kernelxai.kernels.from_sklearn`).
"""

from .core import (
    BLOCK_SHARE,
    RBF,
    Categorical,
    Cauchy,
    CoalitionGrams,
    Constant,
    Kernel,
    Laplace,
    Linear,
    Matern,
    Product,
    ProductKernel,
    ProductOf,
    SumKernel,
    as_lengthscale,
    median_heuristic,
)

__all__ = ["Kernel", "ProductKernel", "RBF", "Laplace", "Cauchy", "Categorical", "Product",
           "Matern", "Constant", "ProductOf", "SumKernel", "Linear", "CoalitionGrams",
           "median_heuristic", "as_lengthscale", "BLOCK_SHARE"]
