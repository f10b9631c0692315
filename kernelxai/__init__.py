"""kernelxai: Shapley-value explanations of kernel methods, Jupyter first.

The data flow, one stage per package: data -> model (:mod:`~kernelxai.models`)
-> value function (:mod:`~kernelxai.values`) -> game (:mod:`~kernelxai.games`)
-> estimator (:mod:`~kernelxai.estimators`) -> Explanation
(:mod:`~kernelxai.explanation`) -> plots / widgets / notebooks. The entry
points (:mod:`~kernelxai.explainers`) take what the user passed through that
flow; the most used of them are listed here as well.

Importing kernelxai defines things and does nothing else: it changes neither the
process's allocator, environment, BLAS threads, warning filters nor the
matplotlib backend.

>>> import kernelxai as kx
>>> taxi = kx.TabularGame({(): 0, (0,): 6, (1,): 12, (2,): 42, (0, 1): 12,
...                        (0, 2): 42, (1, 2): 42, (0, 1, 2): 42})
>>> kx.shapley_values(taxi).values
array([ 2.,  5., 35.])
"""

from . import (
    estimators,
    explainers,
    explanation,
    functionals,
    games,
    kernels,
    models,
    parallel,
    uncertainty,
    values,
    workbench,
)
from ._calibration import calibrate
from ._config import config_context, get_config, set_config
from ._memory import prime_allocator
from .estimators import available_methods, estimate_cost, shapley_values
from .explainers import (
    ShapleyPrior,
    compare_estimators,
    explain,
    explain_gp,
    explain_hsic,
    explain_interactions,
    explain_mmd,
    explain_r2,
    shapley_interactions,
)
from .explanation import Explanation
from .games import FunctionGame, Game, GroupedGame, ProductGame, TabularGame

#: stage packages imported on first use (they pull in matplotlib, ipywidgets or data files); kx.report
#: is the report stage, a module that is also callable: kx.report(model, X, ...)
_LAZY = {"plots": "kernelxai.plots", "widgets": "kernelxai.widgets",
         "datasets": "kernelxai.datasets", "exercises": "kernelxai.workbench.exercises",
         "report": "kernelxai.report"}


def __getattr__(name: str) -> object:
    import importlib

    if name in _LAZY:
        module = importlib.import_module(_LAZY[name])
        globals()[name] = module
        return module
    raise AttributeError(f"module 'kernelxai' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(__all__) | {"__version__"})


__version__ = "0.1.0"

__all__ = [
    # entry points
    "explain",
    "explain_interactions",
    "shapley_interactions",
    "explain_gp",
    "ShapleyPrior",
    "explain_mmd",
    "explain_hsic",
    "explain_r2",
    "shapley_values",
    "available_methods",
    "estimate_cost",
    "compare_estimators",
    # the objects they hand over and take
    "Explanation",
    "Game",
    "TabularGame",
    "FunctionGame",
    "ProductGame",
    "GroupedGame",
    # configuration
    "config_context",
    "get_config",
    "set_config",
    "calibrate",
    "prime_allocator",
    # the stages
    "kernels",
    "models",
    "values",
    "games",
    "estimators",
    "explanation",
    "parallel",
    "explainers",
    "uncertainty",
    "functionals",
    "plots",
    "widgets",
    "datasets",
    "workbench",
    "exercises",
    "report",
]
