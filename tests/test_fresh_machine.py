"""A fresh machine's ``make run`` works with ``pip install -e ".[notebooks]"`` and writes only under build/.

The dependency rule (test_every_import_is_provided_by_the_notebooks_install)
---------------------------------------------------------------------------
``make run`` installs ``kernelxai[notebooks]``: the runtime dependencies of
pyproject.toml plus its ``notebooks`` extra, and everything those require,
transitively. Every ``import x`` / ``from x import ...`` anywhere in
``kernelxai/**/*.py`` and ``notebooks/src/*.py`` (found with :mod:`ast`,
including imports inside functions) must name a top-level module that is

* in the standard library (``sys.stdlib_module_names``), or
* kernelxai itself, or
* provided (``importlib.metadata.packages_distributions``) by a distribution
  in that closure (walked with ``importlib.metadata.requires`` on the
  installed distributions; kernelxai's own requirements are read from
  pyproject.toml, so the test checks the tree, not an older install), or
* one of the documented optional packages :data:`OPTIONAL` (shap, dask,
  distributed, numba, shapiq, skops) -- and then only inside a
  ``try: ... except ImportError`` block, and only in ``kernelxai/``.

A ``try/except ImportError`` around any *other* import does not make it
optional: library functions that notebooks call (e.g. ``reference_shapley``,
which notebook 03 uses and which imports mpmath inside such a block) would
fail on a fresh machine all the same. This is what caught mpmath sitting in
the ``test`` extra instead of the ``notebooks`` extra.
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: optional packages kernelxai uses when present; imported only inside try/except ImportError
OPTIONAL = frozenset({"shap", "dask", "distributed", "numba", "shapiq", "skops"})


def _normalise(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def _kernelxai_requirements(extras):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in extras:
        reqs += project["optional-dependencies"][extra]
    return reqs


def dependency_closure(extras=("notebooks",), own=_kernelxai_requirements):
    """Normalised names of every distribution ``pip install kernelxai[extras]`` brings in.

    ``own(extras)`` gives kernelxai's own requirements (default: from pyproject.toml).
    """
    from packaging.requirements import Requirement

    closure, todo = set(), [(r, ()) for r in own(extras)]
    while todo:
        text, active = todo.pop()
        req = Requirement(text)
        if req.marker is not None and not any(
                req.marker.evaluate({"extra": e}) for e in (active or ("",))):
            continue
        name = _normalise(req.name)
        if name == "kernelxai":  # a self-reference such as kernelxai[notebooks,app]
            todo += [(r, ()) for r in own(sorted(req.extras))]
            continue
        key = (name, tuple(sorted(req.extras)))
        if key in closure:
            continue
        closure.add(key)
        try:
            requires = md.requires(req.name) or []
        except md.PackageNotFoundError:  # e.g. a platform-specific requirement; nothing to follow
            continue
        todo += [(r, tuple(sorted(req.extras))) for r in requires]
    return {name for name, _ in closure}


def _in_try_importerror(parents):
    for node in parents:
        if isinstance(node, ast.Try):
            for handler in node.handlers:
                names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
                if any(isinstance(n, ast.Name) and n.id in {"ImportError", "ModuleNotFoundError",
                                                              "Exception"} for n in names):
                    return True
    return False


def _type_checking_only(node):
    """Whether ``node`` is an ``if TYPE_CHECKING:`` block (imports for annotations only)."""
    test = getattr(node, "test", None) if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports(path):
    """[(top-level module, line, inside try/except ImportError)] of a Python file."""
    tree = ast.parse(Path(path).read_text(), filename=str(path))
    found = []

    def visit(node, parents):
        if _type_checking_only(node):  # `if TYPE_CHECKING:` blocks never run
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append((alias.name.split(".")[0], node.lineno, _in_try_importerror(parents)))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module.split(".")[0], node.lineno, _in_try_importerror(parents)))
        for child in ast.iter_child_nodes(node):
            # only the try *body* guards an import, not its handlers or else/finally
            inner = parents + [node] if not isinstance(node, ast.Try) or child in node.body else parents
            visit(child, inner)

    visit(tree, [])
    return found


def missing_imports(files, closure, *, library):
    """Import problems of ``files`` as readable lines, by the rule of the module docstring."""
    providers = md.packages_distributions()
    problems = []
    for path in files:
        for module, line, guarded in imports(path):
            shown = Path(path).relative_to(ROOT) if Path(path).is_relative_to(ROOT) else Path(path).name
            where = f"{shown}:{line}: import {module}"
            if module in sys.stdlib_module_names or module in {"kernelxai", "__future__"}:
                continue
            if module in OPTIONAL:
                if not (library and guarded):
                    problems.append(f"{where} -- optional package; import it only inside "
                                    "try/except ImportError in kernelxai/")
                continue
            dists = {_normalise(d) for d in providers.get(module, [])}
            if not dists:
                problems.append(f"{where} -- no installed distribution provides it")
            elif not dists & closure:
                problems.append(f"{where} -- provided by {', '.join(sorted(dists))}, which "
                                "kernelxai[notebooks] does not install (add it to pyproject.toml)")
    return problems


def test_every_import_is_provided_by_the_notebooks_install():
    closure = dependency_closure(("notebooks",))
    library = sorted((ROOT / "kernelxai").rglob("*.py"))
    notebooks = sorted((ROOT / "notebooks" / "src").glob("*.py"))
    assert library and notebooks
    problems = (missing_imports(library, closure, library=True)
                + missing_imports(notebooks, closure, library=False))
    assert not problems, "imports a fresh `make run` cannot satisfy:\n  " + "\n  ".join(problems)


def test_the_rule_catches_a_dependency_only_the_test_extra_brings(tmp_path):
    """mpmath only in the test extra (the original bug) is reported, even inside a try block."""
    def before_the_fix(extras):
        return [r for r in _kernelxai_requirements(extras) if not r.startswith("mpmath")]

    closure = dependency_closure(("notebooks",), own=before_the_fix)
    assert "mpmath" not in closure and "numpy" in closure and "ipykernel" in closure
    probe = tmp_path / "probe.py"
    probe.write_text("try:\n    import mpmath\nexcept ImportError:\n    mpmath = None\n"
                     "try:\n    import shap\nexcept ImportError:\n    shap = None\n")
    problems = missing_imports([probe], closure, library=True)
    assert len(problems) == 1 and "import mpmath" in problems[0] and "does not install" in problems[0]
    # in a notebook, even an optional package is a hard dependency
    problems = missing_imports([probe], closure | {"mpmath"}, library=False)
    assert len(problems) == 1 and "import shap" in problems[0] and "optional" in problems[0]
    # and a library import of an optional package outside try/except ImportError is reported
    probe.write_text("import shap\n")
    assert "optional" in missing_imports([probe], closure, library=True)[0]


# --------------------------------------------------------------------------- #
# make run writes only under build/
# --------------------------------------------------------------------------- #
TINY = {
    "cells": [
        {"cell_type": "code", "id": "p", "metadata": {"tags": ["parameters"]}, "execution_count": None,
         "outputs": [], "source": "import kernelxai as kx\nsmoke = False\npaper = False\nseed = 0\n"
                                  "results_path = '../build/results/99-tiny.json'\n"
                                  "n = kx.workbench.default(3, smoke=2, minimum=1)"},
        {"cell_type": "code", "id": "r", "metadata": {"tags": ["headline"]}, "execution_count": None,
         "outputs": [], "source": "%matplotlib inline\nimport matplotlib.pyplot as plt\n"
                                  "params = kx.workbench.resolve_parameters(globals())\n"
                                  "globals().update(params)\nplt.plot(range(n)); plt.show()\n"
                                  "kx.workbench.save_results(results_path, {'n': n}, summary=f'n = {n}', "
                                  "parameters=params)"},
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                                "name": "python3"}},
    "nbformat": 4, "nbformat_minor": 5,
}


def _snapshot(root):
    return {p.relative_to(root).as_posix(): p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file()}


def _copy_of_the_repository(tmp_path, notebooks):
    """scripts/, the given notebooks and docs/ copied to a temporary tree (kernelxai is installed)."""
    copy = tmp_path / "repo"
    shutil.copytree(ROOT / "scripts", copy / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "notebooks").mkdir(parents=True)
    for name in notebooks:
        shutil.copy(ROOT / "notebooks" / f"{name}.ipynb", copy / "notebooks")
    (copy / "docs" / "figures").mkdir(parents=True)
    (copy / "notebooks" / "99-tiny.ipynb").write_text(json.dumps(TINY))
    return copy


def _run(copy, *args):
    done = subprocess.run([sys.executable, str(copy / "scripts" / "run_notebooks.py"), *args],
                          cwd=copy, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def _new_or_changed(before, after):
    return sorted(k for k, v in after.items() if before.get(k) != v)


@pytest.mark.notebook
@pytest.mark.slow
def test_make_run_writes_only_under_build(tmp_path):
    copy = _copy_of_the_repository(tmp_path, ["01-shapley-games"])
    before = _snapshot(copy)
    out = _run(copy, "--smoke", "--only", "01-shapley-games")
    changed = _new_or_changed(before, _snapshot(copy))
    outside = [p for p in changed if not p.startswith("build/")]
    assert not outside, f"make run --smoke wrote outside build/: {outside}"
    assert "build/results/01-shapley-games.json" in changed, (changed, out)
    # default mode without --figures: still nothing outside build/
    before = _snapshot(copy)
    _run(copy, "--only", "99-tiny")
    changed = _new_or_changed(before, _snapshot(copy))
    assert [p for p in changed if not p.startswith("build/")] == []
    results = json.loads((copy / "build" / "results" / "99-tiny.json").read_text())
    assert results["n"] == 3 and results["parameters"]["n"] == 3


@pytest.mark.notebook
@pytest.mark.slow
def test_figures_flag_refreshes_docs_figures(tmp_path):
    copy = _copy_of_the_repository(tmp_path, [])
    other = tmp_path / "elsewhere"
    _run(copy, "--figures", "--only", "99-tiny", "--build", str(other))
    assert (copy / "docs" / "figures" / "99-tiny.png").read_bytes().startswith(b"\x89PNG")
    assert (other / "results" / "99-tiny.json").exists() and not (copy / "build").exists()
    done = subprocess.run([sys.executable, str(copy / "scripts" / "run_notebooks.py"), "--smoke",
                           "--figures"], cwd=copy, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--figures cannot be combined with --smoke" in done.stderr


def test_gitignore_covers_what_runs_leave_behind():
    patterns = {line.strip() for line in (ROOT / ".gitignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")}
    for needed in ("build/", "notebooks/results/", ".venv/", ".ipynb_checkpoints/", "__pycache__/"):
        assert needed in patterns, f".gitignore lacks {needed}"
