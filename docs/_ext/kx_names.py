"""Every public name of kernelxai, in the order the API reference documents them.

The public surface is what the ``__all__`` lists say, read in this order:

1. ``kernelxai.__all__`` -- what ``import kernelxai as kx`` offers: the entry points, the objects
   they hand over and take, the configuration (grouped by the comments of that list);
2. each stage package that ``kernelxai.__all__`` names, in that order, each followed by its public
   subpackages and modules (``kernelxai.models.convert`` after ``kernelxai.models``, the per-paper
   modules of ``kernelxai.datasets`` after it, ``kernelxai.workbench.exercises`` after
   ``kernelxai.workbench``);
3. the public modules of ``kernelxai`` that ``kernelxai.__all__`` does not name (the command
   ``python -m kernelxai.check``).

A module is public when no component of its dotted name starts with ``_``; a private module
(``kernelxai.estimators._product``) never has a page, whatever its ``__all__`` says: its public
names are documented where a package re-exports them. Hands on ``(title, module, names)``
sections to the documentation's API pages (``kx_api.py``, next to this file) and to the
docstring tests (``tests/test_docstrings.py``), so that what is documented and what is checked
are the same list. It lives with the documentation's extensions, not in the package: it reads
the whole public surface, which sits above every stage of the library.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import pkgutil
import re
import types

import kernelxai


def is_private(dotted: str) -> bool:
    """Whether a dotted name has a component that starts with ``_`` (``kernelxai._config``).

    Parameters
    ----------
    dotted : str
        A dotted module or object name.

    Returns
    -------
    bool
        True when some component (after splitting on ``.``) starts with an underscore.

    Examples
    --------
    >>> is_private("kernelxai.estimators._product"), is_private("kernelxai.estimators")
    (True, False)
    """
    return any(part.startswith("_") for part in dotted.split("."))


def _public(module: types.ModuleType) -> list[str]:
    names = getattr(module, "__all__", None)
    return [n for n in names if not n.startswith("_")] if names is not None else []


def _with_submodules(module: types.ModuleType, out: list[str]) -> None:
    """Append ``module`` and, depth first, its public submodules that define ``__all__``."""
    if module.__name__ in out or is_private(module.__name__):
        return
    out.append(module.__name__)
    if not hasattr(module, "__path__"):
        return
    for info in sorted(pkgutil.iter_modules(module.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        sub = importlib.import_module(f"{module.__name__}.{info.name}")
        if hasattr(sub, "__all__"):
            _with_submodules(sub, out)


def page_modules() -> list[str]:
    """The dotted names of the API pages after ``kernelxai``'s own, in the order of the reference.

    Returns
    -------
    list of str
        ``"kernelxai.kernels"``, ``"kernelxai.models"``, ``"kernelxai.models.convert"``, ...:
        the stage packages in the order ``kernelxai.__all__`` names them, each followed by its
        public submodules, then the public modules ``kernelxai.__all__`` leaves out. No name
        has a private component.

    Examples
    --------
    >>> names = page_modules()
    >>> names.index("kernelxai.models") < names.index("kernelxai.models.convert")
    True
    >>> any(is_private(n) for n in names)
    False
    """
    out: list[str] = []
    for n in kernelxai.__all__:
        obj = getattr(kernelxai, n)
        if isinstance(obj, types.ModuleType):
            _with_submodules(obj, out)
    for info in sorted(pkgutil.iter_modules(kernelxai.__path__), key=lambda i: i.name):
        dotted = f"kernelxai.{info.name}"
        if info.name.startswith("_") or dotted in out:
            continue
        mod = importlib.import_module(dotted)
        if hasattr(mod, "__all__"):
            _with_submodules(mod, out)
    return out


def api_sections() -> list[tuple[str, types.ModuleType, list[str]]]:
    """(title, module, names) for every page of the API reference, in the order objects are claimed.

    Returns
    -------
    list of (str, module, list of str)
        The dotted title of each page (``"kernelxai"``, ``"kernelxai.kernels"``, ...), the
        module it documents and the public names it lists, ``kernelxai`` first (its stage
        packages are pages of their own, not names of its page).

    Examples
    --------
    >>> from kx_names import api_sections
    >>> title, module, names = api_sections()[0]
    >>> title, "explain" in names
    ('kernelxai', True)
    """
    top = [n for n in _public(kernelxai) if not isinstance(getattr(kernelxai, n), types.ModuleType)]
    pages = [("kernelxai", kernelxai, top)]
    for name in page_modules():
        mod = importlib.import_module(name)
        pages.append((name, mod, _public(mod)))
    return pages


def groups(module: types.ModuleType, names: list[str]) -> list[tuple[str, list[str]]]:
    """``names`` in the groups that the comments of the module's ``__all__`` list open.

    A comment line inside the ``__all__`` list (``# entry points``) starts a group headed by its
    text; names before the first comment, or of a module whose ``__all__`` has no comment, form
    one group with an empty heading. Names not found in the list's source keep their order at
    the end.

    Parameters
    ----------
    module : module
        The module whose source holds the ``__all__`` list.
    names : list of str
        The names to group (those of the page, in ``__all__`` order).

    Returns
    -------
    list of (str, list of str)
        ``(heading, names)`` per group, in order; headings are capitalised, no group is empty.

    Examples
    --------
    >>> import kernelxai
    >>> heading, first = groups(kernelxai, ["explain", "Explanation"])[0]
    >>> heading, first
    ('Entry points', ['explain'])
    """
    lines = _all_source(module)
    if lines is None:
        return [("", list(names))]
    heading, found, placed = "", [], set()
    current: list[str] = []
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("#"):
            found.append((heading, current))
            text = stripped.lstrip("#").strip()
            heading, current = text[:1].upper() + text[1:], []
            continue
        for literal in re.findall(r"[\"']([^\"']+)[\"']", line.split("#")[0]):
            if literal in names and literal not in placed:
                current.append(literal)
                placed.add(literal)
    found += [(heading, current), ("", [n for n in names if n not in placed])]
    return [(h, group) for h, group in found if group]


def _all_source(module: types.ModuleType) -> list[str] | None:
    """The source lines of the module's ``__all__ = [...]`` assignment (None if it has none)."""
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return None
    span = None
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            span = (node.lineno, node.end_lineno)
    return None if span is None else source.splitlines()[span[0] - 1:span[1]]


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


@functools.cache
def public_names() -> dict[int, str]:
    """``{id(object): dotted public name}`` of every documented class, function and module.

    Returns
    -------
    dict
        The first public name of each object (as :func:`documented_objects` gives it) and the
        dotted name of every public module with a page (computed once per process).

    Examples
    --------
    >>> import kernelxai
    >>> public_names()[id(kernelxai.explain)]
    'kernelxai.explain'
    """
    out = {id(obj): name for name, obj in documented_objects()}
    for name in ["kernelxai", *page_modules()]:
        out.setdefault(id(importlib.import_module(name)), name)
    return out
