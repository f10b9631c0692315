"""Which names a notebook accepts as parameters, and refusing the others.

Takes a parameters cell's source, a notebook file or a running notebook's namespace
(IPython's input history); hands on the names its parameters cell assigns, the names a
caller set after it (papermill's injected cell), and a ValueError naming a name that is
not a parameter, listing the accepted ones and suggesting a close one
(``kernelxai._params.closest``, the one "did you mean" rule).
Used by :func:`kernelxai.workbench.resolve_parameters` inside the notebook and by the runners
(``make run``, ``python -m kernelxai.check``, the tests) before a kernel starts.
"""

from __future__ import annotations

import ast
import json

from .._params import closest

__all__ = ["check_parameter_names", "names_set_after_the_parameters_cell", "notebook_parameters",
           "parameter_names"]


def parameter_names(source) -> list[str]:
    """The names a parameters cell assigns at its top level, in order, read without running it.

    Parameters
    ----------
    source : str
        The cell's Python source.

    Returns
    -------
    list of str
        Every name bound by a top-level assignment (``name = ...``, ``name: T = ...``,
        ``name += ...``, ``a, b = ...``); imports and expressions are not parameters.

    Raises
    ------
    ValueError
        If the source is not valid Python.

    Examples
    --------
    >>> parameter_names("import kernelxai as kx\\nsmoke = False\\nn = kx.workbench.default(3)\\n")
    ['smoke', 'n']
    """
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ValueError(f"the parameters cell is not valid Python: {exc}") from None
    names = []
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        else:
            continue
        for target in targets:
            names += [name for name in _bound(target) if name not in names]
    return names


def _bound(target):
    """The names an assignment target binds (``x.y = ...`` and ``x[0] = ...`` bind none)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return _bound(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _bound(element)]
    return []


def notebook_parameters(notebook) -> list[str]:
    """The parameter names of a notebook file: what its cell tagged "parameters" assigns.

    Parameters
    ----------
    notebook : str or os.PathLike
        A ``.ipynb`` file (nbformat 4).

    Returns
    -------
    list of str
        :func:`parameter_names` of the first code cell tagged ``parameters``;
        empty when the notebook has none (it then accepts no parameters).

    Raises
    ------
    FileNotFoundError
        When the file does not exist.
    ValueError
        When the file is not JSON, or its parameters cell is not valid Python.

    Examples
    --------
    >>> from kernelxai.check import notebooks_dir
    >>> names = notebook_parameters(notebooks_dir() / "01-shapley-games.ipynb")
    >>> {"smoke", "paper", "seed", "results_path"} <= set(names)
    True
    """
    with open(notebook, encoding="utf-8") as fh:
        cells = json.load(fh).get("cells", [])
    for cell in cells:
        if cell.get("cell_type") == "code" and "parameters" in cell.get("metadata", {}).get("tags", []):
            source = cell.get("source", "")
            return parameter_names(source if isinstance(source, str) else "".join(source))
    return []


def check_parameter_names(given, accepted, *, notebook=None) -> None:
    """Refuse names that are not parameters, naming them and the accepted ones.

    Parameters
    ----------
    given : iterable of str
        The names the caller sets (e.g. papermill's ``parameters``).
    accepted : iterable of str
        The notebook's parameters (:func:`notebook_parameters`).
    notebook : str, optional
        The notebook's name, for the message (default: "this notebook").

    Raises
    ------
    ValueError
        For the first call with a name not accepted, e.g. ``unknown parameter
        'n_perms' (did you mean 'n_permutations'?); notebook 01-shapley-games
        accepts: budgets, n_permutations, ...``.

    Examples
    --------
    >>> check_parameter_names(["n_perms"], ["n_permutations", "seed"], notebook="01")
    Traceback (most recent call last):
    ...
    ValueError: unknown parameter 'n_perms' (did you mean 'n_permutations'?); notebook 01 accepts: n_permutations, seed
    """
    accepted = sorted(set(accepted))
    unknown = list(dict.fromkeys(name for name in given if name not in accepted))
    if not unknown:
        return
    named = []
    for name in unknown:
        close = closest(str(name), accepted, ignore_case=False)   # n_refs: n_references, not n_repeats
        named.append(repr(name) + (f" (did you mean {close[0]!r}?)" if close else ""))
    where = f"notebook {notebook}" if notebook else "this notebook"
    listed = f"accepts: {', '.join(accepted)}" if accepted else "accepts no parameters"
    raise ValueError(f"unknown parameter{'s' if len(unknown) > 1 else ''} {', '.join(named)}; {where} {listed}")


def _literal(node):
    """Whether ``node`` is a value papermill writes: a literal, or float('nan') / float('inf')."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float"
            and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Constant)):
        return True
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def names_set_after_the_parameters_cell(namespace) -> tuple[list[str], list[str]] | None:
    """(names set, names the parameters cell assigns) read from IPython's input history, or None.

    In a Jupyter kernel ``namespace["_ih"]`` lists the cells run so far, the running
    one last. Walking back from the one before it, the cells that only assign
    literal values (papermill's injected cell, or values typed into a cell of
    their own) are the caller's; the first other cell is taken as the parameters
    cell. None outside IPython, or when no such cell is found.

    Parameters
    ----------
    namespace : dict
        The notebook's ``globals()``; only its ``_ih`` entry is read.

    Returns
    -------
    tuple of (list of str, list of str) or None
        The names the caller's cells set, in the order they ran, and
        :func:`parameter_names` of the parameters cell; None when ``_ih`` is absent or not
        a list of strings, when a cell before the running one is not valid Python, or when
        every earlier cell only assigns literals.

    Examples
    --------
    >>> history = ["", "seed = 0\\nn_permutations = default(100)", "n_perms = 10", "params = resolve(globals())"]
    >>> names_set_after_the_parameters_cell({"_ih": history})
    (['n_perms'], ['seed', 'n_permutations'])
    >>> names_set_after_the_parameters_cell({}) is None
    True
    """
    history = namespace.get("_ih")
    if not isinstance(history, list) or not all(isinstance(h, str) for h in history):
        return None
    set_by_caller = []
    for source in reversed(history[:-1]):
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return None
        if all(isinstance(node, ast.Assign) and _literal(node.value)
               and all(isinstance(t, ast.Name) for t in node.targets) for node in tree.body):
            set_by_caller = [t.id for node in tree.body for t in node.targets] + set_by_caller
            continue
        return set_by_caller, parameter_names(source)
    return None
