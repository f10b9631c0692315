"""kernelxai: Shapley-value explanations of kernel methods, Jupyter first.

The data flow: data -> model -> value function -> game ->
estimator -> Explanation -> plots / widgets / notebooks.

>>> import kernelxai as kx
>>> taxi = kx.TabularGame({(): 0, (0,): 6, (1,): 12, (2,): 42, (0, 1): 12,
...                        (0, 2): 42, (1, 2): 42, (0, 1, 2): 42})
>>> kx.shapley_values(taxi).values
array([ 2.,  5., 35.])
"""

from .explanation import Explanation
from .games import FunctionGame, Game, GroupedGame, ProductGame, TabularGame
from .shapley import available_methods, shapley_values
from . import games, kernels, models, plots, product, shapley, values, widgets  # noqa: F401
from .explain import explain
from . import regression, uncertainty  # noqa: F401  (uncertainty registers method="bayes_shap")
from .regression import explain_r2
from . import discrepancy  # noqa: F401
from .discrepancy import explain_hsic, explain_mmd
from .reporting import save_results
from . import functionals  # noqa: F401  (Shapley functionals, RKHS-SHAP §3.1, §4)

__version__ = "0.1.0"

__all__ = [
    "Explanation",
    "Game",
    "TabularGame",
    "FunctionGame",
    "ProductGame",
    "GroupedGame",
    "shapley_values",
    "explain",
    "explain_mmd",
    "explain_hsic",
    "available_methods",
    "save_results",
    "games",
    "kernels",
    "models",
    "values",
    "plots",
    "shapley",
    "product",
    "widgets",
    "uncertainty",
    "regression",
    "functionals",
    "explain_r2",
]
