"""Models: what is explained, as a kernel expansion f = sum_i alpha_i k(., x_i) + b.

Takes kernels. Hands on :class:`KernelExpansion`, kernelxai's own estimators
(kernel ridge, kernel logistic regression) and :func:`as_expansion`, which converts a fitted model exactly
through the converters of :mod:`kernelxai.models.convert`.
"""

from .core import (
    DEFAULT_LAMBDAS,
    SUPPORTED_MODELS,
    KernelExpansion,
    KernelLogisticRegression,
    KernelRidge,
    as_expansion,
    loo_scores,
)

__all__ = ["KernelExpansion", "KernelRidge", "KernelLogisticRegression", "as_expansion",
           "DEFAULT_LAMBDAS", "SUPPORTED_MODELS", "loo_scores"]
