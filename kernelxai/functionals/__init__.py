"""Shapley functionals: the Riesz representer of each Shapley value, and what it is used for.

Takes models, value functions and the product routes. Hands on the
representer matrices acting on a model's coefficients (RKHS-SHAP §3.1), their
RKHS norms and the Theorem-6 robustness bound, and the kernel models that
learn with a penalty on chosen features' Shapley values (the Shapley
regulariser, RKHS-SHAP §4, in :mod:`kernelxai.functionals.regularised`).
"""

from .representers import *  # noqa: F401,F403
from .representers import __all__  # noqa: F401
