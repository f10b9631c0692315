"""Write the API reference pages (docs/api/) from the public names of the code.

Takes ``kernelxai.__all__``, each stage package's ``__all__`` and the ``__all__`` of the modules
that ``kernelxai.__all__`` names (``kx.background``, ``kx.product``, ...), and hands Sphinx one
Markdown page per package with an ``autosummary`` table; autosummary then writes one page per
name (docs/api/generated/) from its numpydoc docstring. Each object is documented once, at the
first place in this order (``kx.X`` first): a later package lists it under "Also here" with a
link, so that no cross-reference has two targets.
"""

from __future__ import annotations

import inspect
import pkgutil
import shutil
import types
from pathlib import Path

from kx_names import api_sections
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


def _page(title, module, names, owner) -> str:
    own, elsewhere, constants = [], [], []
    for n in names:
        obj = getattr(module, n)
        if not (inspect.isclass(obj) or inspect.isroutine(obj) or isinstance(obj, types.ModuleType)
                or callable(obj)):
            constants.append(n)
            continue
        key = id(obj) if (inspect.isclass(obj) or inspect.isroutine(obj)) else None
        if key is not None and key in owner:
            elsewhere.append((n, owner[key]))
        else:
            own.append(n)
            if key is not None:
                owner[key] = f"{title}.{n}"
    lines = [f"# `{title}`", "", "```{eval-rst}", f".. automodule:: {title}", "   :no-members:", "```", ""]
    if own:
        lines += ["```{eval-rst}", f".. currentmodule:: {title}", "", ".. autosummary::",
                  "   :toctree: generated", "   :nosignatures:", ""]
        lines += [f"   {n}" for n in own]
        lines += ["```", ""]
    if constants:
        lines += ["## Constants", "", "```{eval-rst}"]
        for n in constants:
            lines += _constant(title, module, n)
        lines += ["```", ""]
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
    for title, module, names in _sections():
        slug = title.replace(".", "-")
        text = _page(title, module, names, owner)
        path = out / f"{slug}.md"
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        toc.append(slug)
    index = ["# API reference", "",
             "Every public name: `kernelxai.__all__` (what `import kernelxai as kx` offers) first,",
             "then each stage package's `__all__`, lowest stage first, and the modules that",
             "`kernelxai.__all__` names. Each page is generated from the numpydoc docstrings.", "",
             "```{toctree}", ":maxdepth: 1", ""] + toc + ["```", ""]
    text = "\n".join(index)
    for stale in out.glob("*.md"):
        if stale.stem not in toc and stale.stem != "index":
            stale.unlink()
    if not (out / "index.md").exists() or (out / "index.md").read_text() != text:
        (out / "index.md").write_text(text)


def setup(app):
    return {"parallel_read_safe": True, "parallel_write_safe": True}
