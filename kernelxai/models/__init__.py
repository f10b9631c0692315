"""Models: what is explained, as a kernel expansion f = sum_i alpha_i k(., x_i) + b.

Takes kernels. Hands on :class:`KernelExpansion` (:mod:`~kernelxai.models.expansion`),
kernelxai's own estimators (kernel ridge, :mod:`~kernelxai.models.ridge`; kernel
logistic regression, :mod:`~kernelxai.models.logistic`) and :func:`as_expansion`,
the dispatcher over the registered converters of :mod:`kernelxai.models.convert`
that converts a fitted model exactly.
"""

from .convert import SUPPORTED_MODELS, as_expansion  # noqa: I001 - after the models the converters take
from .expansion import KernelExpansion
from .logistic import KernelLogisticRegression
from .ridge import DEFAULT_LAMBDAS, KernelRidge, loo_scores

__all__ = ["KernelExpansion", "KernelRidge", "KernelLogisticRegression", "as_expansion",
           "DEFAULT_LAMBDAS", "SUPPORTED_MODELS", "loo_scores"]
