"""Value functions: how absent features are removed, producing Games.

Each module holds one family; each registers its classes under the names
``kx.explain(value=...)`` accepts.
"""

from ._agnostic import GaussianConditional, Marginal
from ._base import ValueFunction, get, register, registered
from ._baseline import FunctionalBaseline
from ._conditional import Empirical, GaussianCopula
from ._interventional import Interventional
from ._observational import Observational

__all__ = ["ValueFunction", "register", "registered", "get", "FunctionalBaseline",
           "Interventional", "Observational", "Marginal", "GaussianConditional",
           "GaussianCopula", "Empirical"]
