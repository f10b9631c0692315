"""kernelxai: Shapley-value explanations of kernel methods, Jupyter first.

The data flow: data -> model -> value function -> game ->
estimator -> Explanation -> plots / widgets / notebooks.

>>> import kernelxai as kx
>>> taxi = kx.TabularGame({(): 0, (0,): 6, (1,): 12, (2,): 42, (0, 1): 12,
...                        (0, 2): 42, (1, 2): 42, (0, 1, 2): 42})
>>> kx.shapley_values(taxi).values
array([ 2.,  5., 35.])
"""

from ._config import config_context, get_config, set_config
from .explanation import Explanation
from .games import FunctionGame, Game, GroupedGame, ProductGame, TabularGame
from .shapley import available_methods, estimate_cost, shapley_values
from . import estimators, games, kernels, models, product, shapley, values  # noqa: F401
from .explain import explain
from .interactions import explain_interactions, shapley_interactions
from .gp_shap import ShapleyPrior, explain_gp
from . import regression, uncertainty  # noqa: F401
from .regression import explain_r2
from . import discrepancy  # noqa: F401
from .discrepancy import explain_hsic, explain_mmd
from .reporting import save_results
from . import functionals, regularised  # noqa: F401  (Shapley functionals, RKHS-SHAP §3.1, §4)
from . import background  # noqa: F401  (kx.background: subsample, summarize, mmd)

#: submodules imported on first use (they pull in matplotlib / ipywidgets)
_LAZY = ("plots", "widgets", "datasets", "exercises")


def __getattr__(name):
    if name in _LAZY:
        import importlib

        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'kernelxai' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


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
    "explain_gp",
    "ShapleyPrior",
    "explain_hsic",
    "available_methods",
    "estimate_cost",
    "config_context",
    "get_config",
    "set_config",
    "estimators",
    "regularised",
    "background",
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
    "shapley_interactions",
    "explain_interactions",
    "exercises",
]
