"""Module paths of earlier releases, kept importable after the move to stage folders.

``import kernelxai.product`` (now :mod:`kernelxai.estimators.product`) and the
other flat paths of kernelxai 0.1 still work: the old name is the new module
itself (same object, so attributes, monkeypatching and pickling agree), loaded
when it is first asked for. Ground floor: imports nothing of kernelxai at
import time.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType

#: old module path -> the module that holds its code now
OLD_PATHS = {
    "kernelxai.sklearn_kernels": "kernelxai.kernels.from_sklearn",
    "kernelxai.regularised": "kernelxai.functionals.regularised",
    "kernelxai.pipelines": "kernelxai.models.convert",
    "kernelxai.nystroem": "kernelxai.models.convert.nystroem",
    "kernelxai.outputs": "kernelxai.models.convert.dispatch",
    "kernelxai.product": "kernelxai.estimators.product",
    "kernelxai.shapley": "kernelxai.estimators.shapley",
    "kernelxai.explain": "kernelxai.explainers.explain",
    "kernelxai.interactions": "kernelxai.explainers.interactions",
    "kernelxai.gp_shap": "kernelxai.explainers.gp_shap",
    "kernelxai.discrepancy": "kernelxai.explainers.discrepancy",
    "kernelxai.regression": "kernelxai.explainers.regression",
    "kernelxai.background": "kernelxai.explainers.background",
    "kernelxai.routes": "kernelxai.workbench.routes",
    "kernelxai.reporting": "kernelxai.workbench.reporting",
    "kernelxai.exercises": "kernelxai.workbench.exercises",
}


class _Alias(importlib.abc.Loader):
    """Loads an old path as the module that holds its code now."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec) -> ModuleType:  # noqa: ANN001
        module = importlib.import_module(self.target)
        self.own_spec = module.__spec__
        return module

    def exec_module(self, module) -> None:  # noqa: ANN001
        # the import system gave the module the alias's __spec__; give it back its own
        module.__spec__ = self.own_spec


class _OldPaths(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None) -> importlib.machinery.ModuleSpec | None:  # noqa: ANN001
        new = OLD_PATHS.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias(new))


def install() -> None:
    """Make the old paths importable (once per process)."""
    if not any(isinstance(f, _OldPaths) for f in sys.meta_path):
        sys.meta_path.append(_OldPaths())


def alias(old: str) -> None:
    """Register an old path now (its module imported), so the import system never sets it on the parent."""
    sys.modules.setdefault(old, importlib.import_module(OLD_PATHS[old]))
