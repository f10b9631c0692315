r"""Models: what is explained, as a kernel expansion :math:`f = \sum_i \alpha_i k(\cdot, x_i) + b`.

Takes kernels. Hands on :class:`KernelExpansion`, kernelxai's own estimators
(:class:`KernelRidge`; kernel logistic regression, :class:`KernelLogisticRegression`)
and :func:`as_expansion`,
the dispatcher over the registered converters of :mod:`kernelxai.models.convert`
that converts a fitted model exactly.
"""

from .convert import SUPPORTED_MODELS, as_expansion  # noqa: I001 - after the models the converters take
from ._expansion import KernelExpansion
from ._logistic import KernelLogisticRegression
from ._ridge import DEFAULT_LAMBDAS, KernelRidge, loo_scores

__all__ = ["KernelExpansion", "KernelRidge", "KernelLogisticRegression", "as_expansion",
           "DEFAULT_LAMBDAS", "SUPPORTED_MODELS", "loo_scores"]
