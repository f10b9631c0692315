"""Kernels: the first thing a model is made of.

Takes nothing from the rest of kernelxai. Hands on kernel objects that the
models, value functions and estimators evaluate: product kernels
``k(x, x') = prod_j k_j(x_j, x'_j)`` (RBF/ARD, Laplace, Cauchy, Categorical,
their products; :mod:`~kernelxai.kernels.product_kernels`), non-product
kernels (Matern, linear, constants, sums; :mod:`~kernelxai.kernels.non_product`),
the Gram tensors of coalitions (:mod:`~kernelxai.kernels.coalition_grams`), the
median heuristic (:mod:`~kernelxai.kernels.lengthscales`), and the exact
translation of fitted scikit-learn kernels (:mod:`kernelxai.kernels.from_sklearn`).
"""

from .coalition_grams import CoalitionGrams
from .lengthscales import as_lengthscale, median_heuristic
from .non_product import Linear, Matern, SumKernel
from .product_kernels import (
    BLOCK_SHARE,
    RBF,
    Categorical,
    Cauchy,
    Constant,
    Kernel,
    Laplace,
    Product,
    ProductKernel,
    ProductOf,
)

__all__ = ["Kernel", "ProductKernel", "RBF", "Laplace", "Cauchy", "Categorical", "Product",
           "Matern", "Constant", "ProductOf", "SumKernel", "Linear", "CoalitionGrams",
           "median_heuristic", "as_lengthscale", "BLOCK_SHARE"]
