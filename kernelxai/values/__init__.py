"""Value functions: how absent features are removed, producing Games.

Each module holds one family; each registers its classes under the names
``kx.explain(value=...)`` accepts.
"""

from .agnostic import GaussianConditional, Marginal
from .base import ValueFunction, get, register, registered
from .baseline import FunctionalBaseline
from .conditional import Empirical, GaussianCopula
from .interventional import Interventional
from .observational import Observational

__all__ = ["ValueFunction", "register", "registered", "get", "FunctionalBaseline",
           "Interventional", "Observational", "Marginal", "GaussianConditional",
           "GaussianCopula", "Empirical"]
