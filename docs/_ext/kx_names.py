"""Every public name of kernelxai, in the order the API reference documents them.

Takes ``kernelxai.__all__``, each stage package's ``__all__`` and the ``__all__`` of the
modules that ``kernelxai.__all__`` names (``kx.background``, ``kx.product``, ...); a stage
package without ``__all__`` (``explainers``, ``workbench``, ``datasets``) contributes its
modules' ``__all__``. Hands on ``(title, module, names)`` sections to the documentation's
API pages (``kx_api.py``, next to this file) and to the docstring tests
(``tests/test_docstrings.py``), so that what is documented and what is checked are the same
list. It lives with the documentation's extensions, not in the package: it reads the whole
public surface, which sits above every stage of the library.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import types

import kernelxai

#: the stage packages, lowest first (CONTRIBUTING.md's picture)
STAGES = [
    "explanation", "kernels", "games", "models", "models.convert", "estimators", "values", "parallel",
    "uncertainty", "functionals", "explainers", "plots", "widgets", "workbench", "datasets", "check",
]


def _public(module: types.ModuleType) -> list[str]:
    names = getattr(module, "__all__", None)
    return list(names) if names is not None else []


def api_sections() -> list[tuple[str, types.ModuleType, list[str]]]:
    """(title, module, names) for every page of the API reference, in the order objects are claimed.

    Returns
    -------
    list of (str, module, list of str)
        The dotted title of each page (``"kernelxai"``, ``"kernelxai.kernels"``, ...), the
        module it documents and the public names it lists, ``kernelxai`` first.

    Examples
    --------
    >>> from kx_names import api_sections
    >>> title, module, names = api_sections()[0]
    >>> title, "explain" in names
    ('kernelxai', True)
    """
    top = [n for n in kernelxai.__all__ if not isinstance(getattr(kernelxai, n), types.ModuleType)]
    pages = [("kernelxai", kernelxai, top)]
    seen = {"kernelxai"}
    modules = [f"kernelxai.{s}" for s in STAGES]
    modules += [getattr(kernelxai, n).__name__ for n in kernelxai.__all__
                if isinstance(getattr(kernelxai, n), types.ModuleType)]
    for name in modules:
        if name in seen:
            continue
        seen.add(name)
        mod = importlib.import_module(name)
        pages.append((name, mod, _public(mod)))
        if not hasattr(mod, "__all__") and hasattr(mod, "__path__"):
            for info in pkgutil.iter_modules(mod.__path__):
                sub = f"{name}.{info.name}"
                if info.name.startswith("_") or sub in seen:
                    continue
                submod = importlib.import_module(sub)
                if _public(submod):
                    seen.add(sub)
                    pages.append((sub, submod, _public(submod)))
    return pages


def documented_objects() -> list[tuple[str, object]]:
    """Each public class and function once, under the first name the API reference gives it.

    Returns
    -------
    list of (str, object)
        ``("kernelxai.explain", <function explain>)``, ...: the dotted name under which the
        object's page is written and the object. Constants and modules are left out.

    Examples
    --------
    >>> from kx_names import documented_objects
    >>> names = [name for name, _ in documented_objects()]
    >>> "kernelxai.explain" in names, len(names) == len(set(names))
    (True, True)
    """
    owner: dict[int, str] = {}
    found = []
    for title, module, names in api_sections():
        for n in names:
            obj = getattr(module, n)
            if isinstance(obj, types.ModuleType):
                continue
            if not (inspect.isclass(obj) or inspect.isroutine(obj) or callable(obj)):
                continue
            if id(obj) in owner:
                continue
            owner[id(obj)] = f"{title}.{n}"
            found.append((f"{title}.{n}", obj))
    return found
