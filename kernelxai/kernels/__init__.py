r"""Kernels: the first thing a model is made of.

Takes nothing from the rest of kernelxai. Hands on kernel objects that the
models, value functions and estimators evaluate: product kernels
:math:`k(x, x') = \prod_j k_j(x_j, x'_j)` (:class:`RBF` with ARD lengthscales,
:class:`Laplace`, :class:`Cauchy`, :class:`Categorical`, their :class:`Product`),
non-product kernels (:class:`Matern`, :class:`Linear`, :class:`Constant`,
:class:`SumKernel`), the Gram tensors of coalitions (:class:`CoalitionGrams`), the
median heuristic (:func:`median_heuristic`), and the exact translation of fitted
scikit-learn kernels that the converters of :mod:`kernelxai.models.convert` use.
"""

from ._coalition_grams import CoalitionGrams
from ._lengthscales import as_lengthscale, median_heuristic
from ._non_product import Linear, Matern, SumKernel
from ._product_kernels import (
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
           "median_heuristic", "as_lengthscale"]
