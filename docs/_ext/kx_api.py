"""Write the API reference pages (docs/api/) from the public names of the code.

Takes the sections of ``kx_names.py`` (next to this file): ``kernelxai.__all__`` first, grouped by
the comments of that list (entry points, the objects they hand over and take, configuration),
then each stage package's ``__all__`` in the order ``kernelxai.__all__`` names the stages, each
followed by its public submodules. Hands Sphinx one Markdown page per public module with
``autosummary`` tables; autosummary then writes one page per name (docs/api/generated/) from its
numpydoc docstring. Each object is documented once, at the first place in this order (``kx.X``
first): a later package lists it under "Also here" with a link, so that no cross-reference has
two targets. No private module (a dotted name with a component starting with ``_``) gets a page:
the build fails if one would, and a class's private base classes are shown under their public
names (or as plain text when they have none).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import shutil
import types
from pathlib import Path

from kx_names import api_sections, groups, is_private, public_names
from sphinx.pycode import ModuleAnalyzer


def _sections() -> list[tuple[str, types.ModuleType, list[str]]]:
    """(title, module, names) for every page, in the order the objects are claimed."""
    return api_sections()


def _constant(title, module, name) -> list[str]:
    """A ``py:data`` entry: the value and the ``#:`` comment above its assignment, if any."""
    obj = getattr(module, name)
    comment = ""
    for modname in {getattr(module, "__name__", title), *_defining_modules(module)}:
        try:
            docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
        except Exception:
            continue
        if ("", name) in docs:
            comment = " ".join(line.strip() for line in docs[("", name)] if line.strip())
            break
    value = repr(obj)
    value = value if len(value) <= 100 else value[:97] + "..."
    return [f".. py:data:: {title}.{name}", f"   :value: {value}", "", f"   {comment}" if comment else "", ""]


def _defining_modules(module) -> list[str]:
    if not hasattr(module, "__path__"):
        return []
    return [f"{module.__name__}.{info.name}" for info in pkgutil.walk_packages(module.__path__)]


def _summary(module) -> str:
    """The first line of a module's docstring (the stage's one-line description)."""
    doc = (inspect.getdoc(module) or "").strip()
    return " ".join(line.strip() for line in doc.split("\n\n")[0].splitlines())


def _autosummary(title, names) -> list[str]:
    return (["```{eval-rst}", f".. currentmodule:: {title}", "", ".. autosummary::",
             "   :toctree: generated", "   :nosignatures:", ""]
            + [f"   {n}" for n in names] + ["```", ""])


def _sort(title, module, names, owner) -> tuple[list, list, list, list]:
    """The page's names as (own, elsewhere, constants, modules); claims the objects it documents."""
    own, elsewhere, constants, modules = [], [], [], []
    for n in names:
        obj = getattr(module, n)
        if isinstance(obj, types.ModuleType):
            modules.append(obj)
        elif not (inspect.isclass(obj) or inspect.isroutine(obj) or callable(obj)):
            constants.append(n)
        elif (inspect.isclass(obj) or inspect.isroutine(obj)) and id(obj) in owner:
            elsewhere.append((n, owner[id(obj)]))
        else:
            own.append(n)
            if inspect.isclass(obj) or inspect.isroutine(obj):
                owner[id(obj)] = f"{title}.{n}"
    return own, elsewhere, constants, modules


def _module_list(modules, pages) -> list[str]:
    """A reST list of modules, each linked to its page, with its docstring's first paragraph."""
    lines = ["```{eval-rst}"]
    for mod in modules:
        name = mod.__name__
        link = f":py:mod:`{name}`" if name in pages else f"``{name}``"
        lines += [f"* {link} -- {_summary(mod)}" if _summary(mod) else f"* {link}"]
    return [*lines, "```", ""]


def _page(title, module, names, owner, pages) -> str:
    """The Markdown of one page: the module's docstring, its names by group, constants, modules."""
    if is_private(title):
        raise ValueError(f"the API reference would get a page for the private module {title}")
    own, elsewhere, constants, modules = _sort(title, module, names, owner)
    lines = [f"# `{title}`", "", "```{eval-rst}", f".. automodule:: {title}", "   :no-members:", "```", ""]
    for heading, group in groups(module, own):
        lines += ([f"## {heading}", ""] if heading else []) + _autosummary(title, group)
    if constants:
        lines += ["## Constants", "", "```{eval-rst}"]
        lines += [line for n in constants for line in _constant(title, module, n)]
        lines += ["```", ""]
    if title == "kernelxai":  # the stages, each a page of its own
        lines += ["## The stages", "", *_module_list([importlib.import_module(p) for p in pages], pages)]
    elif modules:
        lines += ["## Modules", "", *_module_list(modules, pages)]
    if elsewhere:
        lines += ["Also here (documented once, where first listed):", ""]
        lines += [f"- `{title}.{n}`: {{py:obj}}`{target}`" for n, target in elsewhere]
        lines.append("")
    return "\n".join(lines)


def write_pages(srcdir) -> None:
    """Write docs/api/*.md; called from conf.py, before Sphinx looks for source files."""
    out = Path(srcdir) / "api"
    shutil.rmtree(out / "generated", ignore_errors=True)  # autosummary's stubs of names that may be gone
    out.mkdir(exist_ok=True)
    owner: dict[int, str] = {}
    toc = []
    sections = _sections()
    pages = [title for title, _, _ in sections[1:]]
    for title, module, names in sections:
        slug = title.replace(".", "-")
        text = _page(title, module, names, owner, pages)
        path = out / f"{slug}.md"
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        toc.append(slug)
    index = ["# API reference", "",
             "Every public name: `kernelxai.__all__` (what `import kernelxai as kx` offers: the entry",
             "points, the objects they hand over and take, the configuration) first, then each stage",
             "package's `__all__` in the order of the data flow's stages, each followed by its public",
             "modules. Each page is generated from the numpydoc docstrings; implementation modules",
             "(`_name.py`) are private and have no page.", "",
             "```{toctree}", ":maxdepth: 1", ""] + toc + ["```", ""]
    text = "\n".join(index)
    for stale in out.glob("*.md"):
        if stale.stem not in toc and stale.stem != "index":
            stale.unlink()
    if not (out / "index.md").exists() or (out / "index.md").read_text() != text:
        (out / "index.md").write_text(text)


def public_bases(app, name, obj, options, bases) -> None:
    """Show a class's base classes under their public names (``autodoc-process-bases``).

    A base defined in a private module of kernelxai (``kernelxai.games._game_types.Game``) is
    replaced by a cross-reference to its public name (``kernelxai.Game``); a base that has no
    public name (a private helper class) by its own nearest public bases, so that the page names
    only public classes. Other bases (scikit-learn's) stay as they are; ``object`` is left out
    when other bases remain.
    """
    names = public_names()

    def shown(base) -> list:
        module = getattr(base, "__module__", "") or ""
        if not (module.startswith("kernelxai") and is_private(module)):
            return [base]
        if id(base) in names:
            return [f":py:class:`~{names[id(base)]}`"]
        return [b for parent in base.__bases__ for b in shown(parent)]

    out = []
    for base in list(bases):
        for b in shown(base):
            if all(b is not o and b != o for o in out):
                out.append(b)
    if len(out) > 1:
        out = [b for b in out if b is not object]
    bases[:] = out or [object]


def setup(app):
    app.connect("autodoc-process-bases", public_bases)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
