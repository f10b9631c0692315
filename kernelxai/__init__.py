"""kernelxai: Shapley-value explanations of kernel methods, Jupyter first.

The data flow, one stage per folder: data -> model (:mod:`~kernelxai.models`)
-> value function (:mod:`~kernelxai.values`) -> game (:mod:`~kernelxai.games`)
-> estimator (:mod:`~kernelxai.estimators`) -> Explanation
(:mod:`~kernelxai.explanation`) -> plots / widgets / notebooks. The entry
points (:mod:`~kernelxai.explainers`) take what the user passed through that
flow.

>>> import kernelxai as kx
>>> taxi = kx.TabularGame({(): 0, (0,): 6, (1,): 12, (2,): 42, (0, 1): 12,
...                        (0, 2): 42, (1, 2): 42, (0, 1, 2): 42})
>>> kx.shapley_values(taxi).values
array([ 2.,  5., 35.])
"""

from . import _aliases, _memory, estimators, functionals, games, kernels, models, uncertainty, values
from ._calibration import calibrate
from ._config import config_context, get_config, set_config
from .estimators import product, shapley
from .estimators.shapley import available_methods, estimate_cost, shapley_values
from .explainers import background, discrepancy, regression
from .explainers.discrepancy import explain_hsic, explain_mmd
from .explainers.explain import explain
from .explainers.gp_shap import ShapleyPrior, explain_gp
from .explainers.interactions import explain_interactions, shapley_interactions
from .explainers.regression import explain_r2
from .explanation import Explanation
from .functionals import regularised
from .games import FunctionGame, Game, GroupedGame, ProductGame, TabularGame
from .workbench import reporting
from .workbench.reporting import save_results

_memory.prime_allocator()   # large temporaries from reused memory, not fresh pages (see kernelxai._memory)
_aliases.install()
for _old in ("kernelxai.sklearn_kernels", "kernelxai.regularised", "kernelxai.product",
             "kernelxai.shapley", "kernelxai.explain", "kernelxai.interactions",
             "kernelxai.gp_shap", "kernelxai.discrepancy", "kernelxai.regression",
             "kernelxai.background", "kernelxai.reporting"):
    _aliases.alias(_old)  # already imported: registered now, so kx.explain stays the function
del _old

#: submodules imported on first use (they pull in matplotlib / ipywidgets)
_LAZY = {"plots": "kernelxai.plots", "widgets": "kernelxai.widgets",
         "datasets": "kernelxai.datasets", "exercises": "kernelxai.workbench.exercises"}


def __getattr__(name: str):  # noqa: ANN202
    import importlib

    if name in _LAZY:
        module = importlib.import_module(_LAZY[name])
        globals()[name] = module
        return module
    if f"{__name__}.{name}" in _aliases.OLD_PATHS:  # kx.outputs, kx.gp_shap, ... of earlier releases
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'kernelxai' has no attribute {name!r}")


def __dir__() -> list[str]:
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
    "calibrate",
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
