"""Every public function and class documents itself the numpydoc way, with an example that runs.

The list of names is the API reference's (``documented_objects`` of ``docs/_ext/kx_names.py``),
so a name added to an ``__all__`` is checked here the moment it gets a page. For each object:

- an ``Examples`` section with at least one ``>>>`` line (``--doctest-modules`` runs it: see
  pyproject's ``addopts``; ``make doctest`` runs them alone);
- a ``Parameters`` section naming every parameter of its signature (classes: of the constructor;
  ``Attributes`` counts for dataclass fields);
- for a function that returns something (its annotation is not ``None``): ``Returns`` or ``Yields``;
- for a function or constructor whose own body has a ``raise SomeError(...)``: ``Raises``.
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs" / "_ext"))
from kx_names import documented_objects

OBJECTS = documented_objects()
SECTION = re.compile(r"^([A-Z][A-Za-z ]+)\n-{3,}\s*$", re.M)


def _sections(doc: str) -> dict[str, str]:
    parts = SECTION.split(doc)
    found = {}
    for title, body in zip(parts[1::2], parts[2::2], strict=False):
        found[title.strip()] = body
    return found


def _documented_params(body: str) -> set[str]:
    names = set()
    for line in body.splitlines():
        if not line or line[0].isspace() or ":" not in line and not re.match(r"^\*{0,2}\w+(, \*{0,2}\w+)*$", line):
            continue
        head = line.split(" : ")[0].split(":")[0]
        for name in head.split(","):
            names.add(name.strip().lstrip("*"))
    return names


def _signature_params(obj) -> list[str]:
    target = obj
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return []
    names = []
    for p in sig.parameters.values():
        if p.name in ("self", "cls"):
            continue
        if p.name.startswith("_"):
            continue
        names.append(p.name)
    return names


def _own_raises(func) -> bool:
    """Whether ``func``'s own body (not nested functions) raises an exception it names."""
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        return False
    tree = ast.parse(source)
    top = tree.body[0]
    if not isinstance(top, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    stack = list(top.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        if isinstance(node, ast.Raise) and node.exc is not None:
            return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def _returns_something(func) -> bool:
    try:
        ann = inspect.signature(func).return_annotation
    except (TypeError, ValueError):
        return False
    return ann not in (None, "None", inspect.Signature.empty, type(None))


def problems(name: str, obj) -> list[str]:
    """What the docstring of ``obj`` lacks (empty when it is complete)."""
    doc = inspect.getdoc(obj) or ""
    if not doc:
        return ["no docstring"]
    sections = _sections(doc)
    found = []
    if ">>>" not in sections.get("Examples", ""):
        found.append("no Examples section with a >>> line")
    is_class = inspect.isclass(obj)
    is_exception = is_class and issubclass(obj, BaseException)
    if not is_exception:
        params = _signature_params(obj)
        documented = _documented_params(sections.get("Parameters", ""))
        if is_class:
            documented |= _documented_params(sections.get("Attributes", ""))
            documented |= _documented_params(sections.get("Other Parameters", ""))
        else:
            documented |= _documented_params(sections.get("Other Parameters", ""))
        missing = [p for p in params if p not in documented]
        if missing:
            found.append(f"parameters not documented: {missing}")
    if inspect.isroutine(obj) and _returns_something(obj) and not (
            "Returns" in sections or "Yields" in sections):
        found.append("no Returns section")
    body = obj.__init__ if is_class and not is_exception and "__init__" in vars(obj) else obj
    if (inspect.isroutine(body) or inspect.isfunction(body)) and _own_raises(body) and "Raises" not in sections:
        found.append("raises, but no Raises section")
    return found


@pytest.mark.parametrize("name,obj", OBJECTS, ids=[n for n, _ in OBJECTS])
def test_docstring_complete(name, obj):
    found = problems(name, obj)
    assert not found, f"{name}: " + "; ".join(found)


def test_every_page_is_checked():
    # the list is not empty and holds the main entry points (a broken enumeration would pass vacuously)
    names = {n for n, _ in OBJECTS}
    assert {"kernelxai.explain", "kernelxai.Explanation", "kernelxai.explain_gp"} <= names
    assert len(names) > 100   # the curated surface (#36): about 190 classes and functions


def test_the_checker_finds_what_is_missing():
    def bare(x: int, y: int = 2) -> int:
        """Add.

        Parameters
        ----------
        x : int
            One.
        """
        if x < 0:
            raise ValueError("negative")
        return x + y

    found = problems("bare", bare)
    assert any("Examples" in f for f in found)
    assert any("['y']" in f for f in found)
    assert any("Returns" in f for f in found)
    assert any("Raises" in f for f in found)
