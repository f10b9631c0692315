"""The import graph of kernelxai: no cycle between modules, and every stage imports only the stages below it.

Every ``import`` in ``kernelxai/`` is read with :mod:`ast` -- at the top of a module and inside
functions and classes alike (an import in a function body is still a dependency; it only runs
later). Relative imports are resolved; ``from pkg import submodule`` is an import of the submodule,
``from pkg import name`` and ``import pkg`` an import of the package's ``__init__``. The parents a
Python import runs first (``kernelxai.games`` before ``kernelxai.games._coalitions``) are not counted:
a package ``__init__`` importing its own submodules is not by itself a cycle.

The stage order is written down once, in :data:`STAGES`.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "kernelxai"

#: The stages of the data flow, lowest first. A module may import from its own stage and the
#: stages below it, never above. ``models.convert`` (one converter per model family) sits above
#: the rest of ``models`` (what the converters produce). ``parallel`` sits below ``values``: the
#: interventional value function's mean embeddings are a reduction over the background's rows run
#: by ``parallel.reduce_rows``, and ``parallel`` itself needs only the ground floor, the estimators'
#: progress bar and the Explanation. ``report`` (``python -m kernelxai.report`` and ``kx.report``) runs
#: a notebook over every stage and is the top stage; ``kernelxai/__init__.py`` (the public names)
#: re-exports every stage (``report`` lazily), so it is above it: nothing in the library may import it.
STAGES = [
    ("ground", ["_config", "_validation", "_suggest", "_argparse", "_params", "_threads", "_calibration", "_linalg",
                "_memory"]),
    ("explanation", ["explanation"]),
    ("kernels", ["kernels"]),
    ("games", ["games"]),
    ("models", ["models"]),
    ("models.convert", ["models.convert"]),
    ("estimators", ["estimators"]),
    ("parallel", ["parallel"]),
    ("values", ["values"]),
    ("uncertainty", ["uncertainty"]),
    ("functionals", ["functionals"]),
    ("explainers", ["explainers"]),
    ("plots", ["plots"]),
    ("widgets", ["widgets"]),
    ("workbench, datasets", ["workbench", "datasets"]),
    ("check", ["check"]),
    ("report", ["report"]),
    ("the public names (kernelxai/__init__.py)", [""]),
]

#: Left out of the cycle check: it only re-exports. ``kernelxai/__init__.py`` imports every stage
#: for the public names (any module importing it back is already a layer violation, reported by
#: the layer test).
NOT_IN_CYCLE_CHECK = {PACKAGE}


# --------------------------------------------------------------------------- #
# the graph
# --------------------------------------------------------------------------- #
def _modules():
    """``{dotted name: (path, is_package)}`` of every module of kernelxai."""
    out = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        out[".".join(parts)] = (path, is_package)
    return out


class _Imports(ast.NodeVisitor):
    """Every import statement of a module, anywhere in it: ``(names imported, line, type_only)``."""

    def __init__(self):
        self.found = []
        self._type_only = 0

    def visit_If(self, node):
        test = node.test
        guard = (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
            isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
        if not guard:
            self.generic_visit(node)
            return
        self._type_only += 1
        for child in node.body:
            self.visit(child)
        self._type_only -= 1
        for child in node.orelse:
            self.visit(child)

    def visit_Import(self, node):
        self.found.append((None, 0, [a.name for a in node.names], node.lineno, self._type_only > 0))

    def visit_ImportFrom(self, node):
        self.found.append((node.module, node.level, [a.name for a in node.names], node.lineno,
                           self._type_only > 0))


def _known(name, modules):
    """``name`` if it is a module of kernelxai, else its longest prefix that is one (None outside)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def import_edges():
    """``{module: [(target module, path, line, type_only)]}`` for every import between kernelxai modules."""
    modules = _modules()
    edges = {}
    for name, (path, is_package) in modules.items():
        visitor = _Imports()
        visitor.visit(ast.parse(path.read_text(), filename=str(path)))
        package = name if is_package else name.rpartition(".")[0]
        out = []
        for module, level, names, line, type_only in visitor.found:
            if module is None and level == 0:  # import a.b.c: an import of a.b.c
                targets = [_known(n, modules) for n in names]
            else:
                if level:
                    base = package.split(".")
                    if level - 1 > len(base) - 1:
                        continue  # beyond the top of kernelxai: not ours
                    base = base[:len(base) - (level - 1)]
                    source = ".".join(base + ([module] if module else []))
                else:
                    source = module
                # from pkg import submodule: the submodule; from pkg import name: pkg's __init__
                targets = [f"{source}.{n}" if f"{source}.{n}" in modules else _known(source, modules)
                           for n in names]
            for target in dict.fromkeys(targets):
                if target is not None and target != name:
                    out.append((target, path, line, type_only))
        edges[name] = out
    return edges


def _where(path, line):
    return f"{path.relative_to(ROOT)}:{line}"


# --------------------------------------------------------------------------- #
# no cycle
# --------------------------------------------------------------------------- #
def _strongly_connected(graph):
    """Tarjan's strongly connected components of ``{node: set of nodes}`` (iterative)."""
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    out.append(_pop_component(stack, on_stack, node))
    return out


def _pop_component(stack, on_stack, root):
    """The members of Tarjan's stack down to ``root``, popped, sorted: one strongly connected component."""
    component = []
    while True:
        member = stack.pop()
        on_stack.discard(member)
        component.append(member)
        if member == root:
            return sorted(component)


def _a_cycle(graph, component):
    """The shortest cycle through the first module of a strongly connected component."""
    start, members = component[0], set(component)
    previous, frontier = {start: None}, [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node] & members):
                if child == start:
                    path = [node]
                    while previous[path[-1]] is not None:
                        path.append(previous[path[-1]])
                    return path[::-1] + [start]
                if child not in previous:
                    previous[child] = node
                    following.append(child)
        frontier = following
    raise AssertionError(f"no cycle through {start}")  # pragma: no cover - a component has one


def test_import_graph_has_no_cycles():
    """No cycle between modules, imports inside functions included (type-only imports excepted).

    Found before the stage folders: models -> pipelines -> nystroem -> models, outputs <-> nystroem,
    parallel -> shapley / interactions -> parallel, functionals -> models -> regularised.
    """
    edges = import_edges()
    graph, where = defaultdict(set), {}
    for name, out in edges.items():
        if name in NOT_IN_CYCLE_CHECK:
            continue
        graph[name]
        for target, path, line, type_only in out:
            if type_only or target in NOT_IN_CYCLE_CHECK:
                continue  # type-only imports never run
            graph[name].add(target)
            where.setdefault((name, target), _where(path, line))
    cycles = [c for c in _strongly_connected(graph) if len(c) > 1]
    report = []
    for component in cycles:
        cycle = _a_cycle(graph, component)
        steps = "\n".join(f"    {a} -> {b}   ({where[a, b]})" for a, b in zip(cycle, cycle[1:]))
        report.append(f"import cycle among {len(component)} modules ({', '.join(component)}); one cycle:\n"
                      + steps)
    assert not report, "\n".join(report)


# --------------------------------------------------------------------------- #
# stages
# --------------------------------------------------------------------------- #
def stage_of(module):
    """``(position, stage name)`` of a kernelxai module in :data:`STAGES` (the longest matching folder)."""
    best = None
    for position, (stage, folders) in enumerate(STAGES):
        for folder in folders:
            full = f"{PACKAGE}.{folder}" if folder else PACKAGE
            matches = module == full or (folder and module.startswith(full + "."))
            if matches and (best is None or len(full) > best[0]):
                best = (len(full), position, stage)
    return None if best is None else best[1:]


def test_every_module_is_in_a_stage():
    unplaced = sorted(name for name in _modules() if stage_of(name) is None)
    assert not unplaced, f"modules in no stage of tests/test_layers.py STAGES: {unplaced}"


def test_every_module_imports_only_its_own_stage_and_below():
    """A package's ``__init__`` may import its own submodules (it re-exports them); nothing else goes up."""
    modules = _modules()
    violations = []
    for name, out in import_edges().items():
        own = stage_of(name)
        if own is None:
            continue  # reported by test_every_module_is_in_a_stage
        is_package = modules[name][1]
        for target, path, line, type_only in out:
            if is_package and target.startswith(name + "."):
                continue
            theirs = stage_of(target)
            if theirs is not None and theirs[0] > own[0]:
                kind = " (type-only)" if type_only else ""
                violations.append(f"{_where(path, line)} {name} -> {target}{kind}: "
                                  f"stage {own[1]!r} imports stage {theirs[1]!r} above it")
    assert not violations, ("imports that go up the stages (order in tests/test_layers.py STAGES):\n"
                            + "\n".join(sorted(violations)))


def contributing_stages() -> list[list[str]]:
    """The stages of CONTRIBUTING.md's picture, lowest first, as the folders and files of each row.

    The picture is the first code block under "The flow and the folders"; a stage row names its
    folders (``games/``, ``models/convert/``) or files (``widgets.py``) before the "takes" column,
    and the ground floor's files span the rows at the top (merged into one stage here).
    """
    text = (ROOT / "CONTRIBUTING.md").read_text()
    block = text.split("## The flow and the folders", 1)[1].split("```", 2)[1]
    stages: list[list[str]] = []
    for line in block.splitlines():
        head = line[:31]
        names = [t.removesuffix("/").removesuffix(".py").replace("/", ".") for t in head.split()
                 if t.endswith("/") or t.endswith(".py")]
        if not names:
            continue
        if stages and all(n.startswith("_") for n in names) and all(n.startswith("_") for n in stages[-1]):
            stages[-1] += names
        else:
            stages.append(names)
    return stages


def test_contributing_shows_the_same_stage_order():
    expected = [sorted(folders) for _, folders in STAGES if folders != [""]]
    shown = [sorted(names) for names in contributing_stages()]
    assert shown == expected, ("CONTRIBUTING.md's picture of the stages and STAGES of tests/test_layers.py "
                               f"disagree:\n  CONTRIBUTING.md: {shown}\n  STAGES:          {expected}")
