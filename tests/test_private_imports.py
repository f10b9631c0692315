"""What users read and copy uses public names only: notebooks, docstring examples, README, docs.

kernelxai's implementation modules are private (``kernelxai/<stage>/_name.py``); each stage's
``__init__.py`` lists what it offers. Tests and benchmarks may reach into private modules; the
material a user reads and copies from may not, so that a module can be renamed or split without
breaking anyone's code. This test reads:

- the notebooks: their sources (``notebooks/src/*.py``, ``notebooks/exercises/src/*.py``, the report
  notebook's ``notebooks/report/report.py``) and the ``.ipynb`` built from them (every cell, code and
  Markdown);
- the docstring examples of the library: the source of every ``>>>`` / ``...`` line of every
  docstring in ``kernelxai/`` (a doctest runs in its module's namespace, so an example of a private
  helper uses the helper's bare name, never an import of its private module);
- ``README.md`` and the pages of the documentation (``docs/**/*.md``), except the history pages
  ``docs/changelog.md`` and ``docs/findings.md``, which say what the code was called at the time,
  and the pages the build generates (``docs/api/``, ``docs/gallery/``);

and fails on any dotted name with a private component (``kernelxai._config``,
``kx.estimators._product.product_shapley``, ``kx._calibration``) and any import of one
(``from kernelxai.x._y import z``, ``import kernelxai._memory``, ``from kernelxai import _threads``).
Dunder names (``kx.__version__``) are public, and a file path (``kernelxai/_config.py``, as a
developer page shows the layout of the checkout) is not a name anyone imports. It also checks that
the API reference gives no private module a page.
"""

from __future__ import annotations

import ast
import doctest
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: a dotted kernelxai name with a component that starts with one underscore (not a dunder)
PRIVATE_PATH = re.compile(r"\b(?:kernelxai|kx)(?:\.[A-Za-z_]\w*)*?\._(?!_)\w*")
#: ``from kernelxai... import a, b`` (the names, up to the end of the line or the closing parenthesis)
FROM_IMPORT = re.compile(r"\bfrom\s+(kernelxai(?:\.\w+)*)\s+import\s+(\([^)]*\)|[^\n#]*)")
#: ``import kernelxai.x.y`` (one or several modules)
PLAIN_IMPORT = re.compile(r"^\s*import\s+(kernelxai[\w.]*(?:\s*,\s*kernelxai[\w.]*)*)", re.M)

#: pages that record history: what the code was called when they were written
HISTORY_PAGES = {"changelog.md", "findings.md"}
#: folders of docs/ that the build writes from the code and the executed notebooks
GENERATED_DOCS = {"api", "gallery", "_build", "_generated"}


def private_names(text: str) -> list[tuple[int, str]]:
    """``(line, snippet)`` for every private kernelxai name that ``text`` names or imports."""
    found = []

    def line_of(pos):
        return text.count("\n", 0, pos) + 1

    for m in PRIVATE_PATH.finditer(text):
        found.append((line_of(m.start()), m.group(0)))
    for m in FROM_IMPORT.finditer(text):
        names = re.findall(r"\b(\w+)(?:\s+as\s+\w+)?", m.group(2).strip("()"))
        names = [n for n in names if n != "as"]
        private = [n for n in names if n.startswith("_") and not n.startswith("__")]
        if private:
            found.append((line_of(m.start()), f"from {m.group(1)} import {', '.join(private)}"))
    for m in PLAIN_IMPORT.finditer(text):
        for module in re.split(r"\s*,\s*", m.group(1)):
            if any(p.startswith("_") and not p.startswith("__") for p in module.split(".")):
                found.append((line_of(m.start()), f"import {module}"))
    return sorted(set(found))


# --------------------------------------------------------------------------- #
# what is read
# --------------------------------------------------------------------------- #
def notebook_texts():
    """``(label, text)`` of each notebook source and each cell of each built notebook."""
    out = []
    for folder in ("notebooks/src", "notebooks/exercises/src", "notebooks/report"):
        for path in sorted((ROOT / folder).glob("*.py")):
            out.append((str(path.relative_to(ROOT)), path.read_text()))
    for folder in ("notebooks", "notebooks/exercises"):
        for path in sorted((ROOT / folder).glob("*.ipynb")):
            cells = json.loads(path.read_text())["cells"]
            for i, cell in enumerate(cells):
                source = cell["source"]
                out.append((f"{path.relative_to(ROOT)} cell {i}",
                            "".join(source) if isinstance(source, list) else source))
    return out


def _docstrings(tree: ast.Module):
    """``(first line, docstring)`` of the module and of every class and function in it."""
    nodes = [tree, *(n for n in ast.walk(tree)
                     if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef))]
    for node in nodes:
        body = getattr(node, "body", [])
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            yield body[0].lineno, body[0].value.value


def example_texts():
    """``(label, source)`` of every docstring example (``>>>`` and ``...`` lines) in kernelxai/."""
    parser = doctest.DocTestParser()
    out = []
    for path in sorted((ROOT / "kernelxai").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for first, doc in _docstrings(tree):
            for example in parser.get_examples(doc):
                out.append((f"{path.relative_to(ROOT)}:{first + example.lineno}", example.source))
    return out


def page_texts():
    """``(label, text)`` of README.md and of each hand-written page of docs/."""
    pages = [ROOT / "README.md"]
    for path in sorted((ROOT / "docs").rglob("*.md")):
        parts = path.relative_to(ROOT / "docs").parts
        if parts[0] in GENERATED_DOCS or path.name in HISTORY_PAGES:
            continue
        pages.append(path)
    return [(str(p.relative_to(ROOT)), p.read_text()) for p in pages]


def _report(texts) -> list[str]:
    problems = []
    for label, text in texts:
        for line, snippet in private_names(text):
            problems.append(f"{label} (line {line}): {snippet}")
    return problems


# --------------------------------------------------------------------------- #
# the tests
# --------------------------------------------------------------------------- #
def test_notebooks_use_public_names():
    texts = notebook_texts()
    assert len(texts) > 30  # the sources and the built notebooks were found
    problems = _report(texts)
    assert not problems, "notebooks name private kernelxai modules:\n" + "\n".join(problems)


def test_docstring_examples_use_public_names():
    texts = example_texts()
    assert len(texts) > 500  # the examples were found
    problems = _report(texts)
    assert not problems, (
        "docstring examples name private kernelxai modules (use the public name, or the bare "
        "name of the module's own helper: a doctest runs in its module's namespace):\n"
        + "\n".join(problems))


def test_readme_and_docs_use_public_names():
    texts = page_texts()
    assert any(label == "docs/user-guide/explaining.md" for label, _ in texts)
    problems = _report(texts)
    assert not problems, "README / docs pages name private kernelxai modules:\n" + "\n".join(problems)


def test_the_api_reference_has_no_private_page():
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        from kx_names import api_sections, documented_objects, is_private
    finally:
        sys.path.pop(0)
    titles = [title for title, _, _ in api_sections()]
    assert titles[0] == "kernelxai" and "kernelxai.models.convert" in titles
    assert [t for t in titles if is_private(t)] == []
    assert [name for name, _ in documented_objects() if is_private(name)] == []


@pytest.mark.parametrize("text", [
    "from kernelxai.estimators._product import product_shapley",
    "kx.estimators._product.product_shapley(game)",
    "kernelxai._calibration.fresh_numbers",
    "`kx._calibration`",
    "import kernelxai._memory",
    "import numpy, kernelxai.workbench._routes",
    "from kernelxai import _threads",
    "from kernelxai.workbench import (\n    default,\n    _routes,\n)",
    "python -m kernelxai.workbench._routes --update docs/routes.md",
])
def test_the_check_finds_private_names(text):
    assert private_names(text)


@pytest.mark.parametrize("text", [
    "import kernelxai as kx\nkx.explain(model, X)",
    "from kernelxai.estimators import product_shapley",
    "kx.__version__, kernelxai.__all__",
    "kernelxai/_config.py and kernelxai/estimators/_product.py",
    "from kernelxai.workbench import default, resolve_parameters",
    "python -m kernelxai.check --smoke",
])
def test_the_check_passes_public_names(text):
    assert private_names(text) == []
