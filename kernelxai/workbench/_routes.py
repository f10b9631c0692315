"""Which route ``kx.explain`` takes for a model, a kernel and a value function.

The documentation's table "model x kernel x value function -> route"
(``docs/routes.md``) is generated here, by running :func:`kernelxai.explain` on small fitted models (tiny
synthetic data, fitted inside :func:`route_table`) and reading the route it
reports in ``meta["route"]`` -- or the error it raises. The table is therefore
what the code does, not what someone wrote down; a test compares
``docs/routes.md`` with :func:`route_table_markdown`.

The models are the examples the registered converters declare
(:class:`kernelxai.models.convert.Converter`), so a new model family shows up
here when it is registered; :func:`converter_table_markdown` lists the
converters themselves (what each takes, its outputs and its route).

Regenerate the tables of ``docs/routes.md`` with::

    python -m kernelxai.workbench._routes --update docs/routes.md
"""

from __future__ import annotations

import re
import warnings

import numpy as np

from .._config import config_context
from ..explainers._explain import BackgroundRequiredError, explain
from ..models.convert import registered

__all__ = ["VALUES", "route_table", "route_table_markdown", "converter_table_markdown", "update_readme"]

#: the value functions the table covers, in column order
VALUES = ("interventional", "observational", "functional_baseline", "marginal")

#: the markers (in docs/routes.md) between which the generated table lives
START, END = "<!-- routes:start -->", "<!-- routes:end -->"

#: the markers of the generated table of converters (optional in the file)
CONVERTERS_START, CONVERTERS_END = "<!-- converters:start -->", "<!-- converters:end -->"


def _models(rng):
    """[(model label, kernel label, fitted model, output)] on tiny synthetic data, and the data.

    The rows are the examples every registered converter declares
    (:func:`kernelxai.models.convert.registered`, in the dispatcher's order),
    then a plain callable (no converter: model calls).
    """
    n, d = 40, 3
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=n)
    targets = {"regression": y, "binary": (X[:, 0] + X[:, 1] > 0).astype(int),
               "three": np.digitize(X[:, 0], [-0.4, 0.4])}
    entries = [(ex.label, ex.kernel, ex.fit(X, targets), ex.table_output)
               for converter in registered() for ex in converter.examples() if ex.in_table]
    entries.append(("callable f(X)", "-", _callable, None))
    return entries, X


def _callable(Z):
    """A plain function of a 2-D array (module level, so the table row is reproducible)."""
    Z = np.asarray(Z, dtype=float)
    return np.tanh(Z[:, 0]) * Z[:, 1]


def _shorten(text, limit=90):
    """One line of ``text``, cut at ``limit`` characters and stripped of markdown's ``|``."""
    line = " ".join(str(text).split()).replace("|", "/")
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _reason(message):
    """The "needs ..." clause of an error message (what was missing), else its first clause."""
    found = re.search(r"\bneeds? ([^;.:(]+)", message)
    if found:
        return found.group(0).strip()
    return re.split(r":\s|\.\s|\s\(", message, maxsplit=1)[0]


def _route(model, X, value, output):
    """The route kx.explain reports for ``model`` and ``value``, or the error it raises, shortened.

    The call is made first without ``background=``; if it asks for one (a model that keeps
    no training inputs, or one explained through model calls), it is repeated with the
    training inputs and the route is marked "needs background=".
    """
    points = X[:2]
    suffix = ""
    try:
        try:
            e = explain(model, points, value=value, output=output)
        except (TypeError, ValueError) as err:  # the ones that ask for background=... get it
            if not isinstance(err, BackgroundRequiredError) and "background=" not in str(err):
                raise
            suffix = "; needs background="
            e = explain(model, points, value=value, output=output, background=X)
    except (TypeError, ValueError) as err:
        return _shorten(f"refused: {_reason(str(err))}", limit=70)
    route = str(e.meta.get("route", "?"))
    if isinstance(e.meta.get("route"), dict):  # outputs explained by different routes
        route = "; ".join(sorted({str(r).split(":")[0] for r in e.meta["route"].values()}))
    return _shorten(route.split(":")[0] + suffix)


def route_table(seed=0) -> list[tuple[str, str, str, str]]:
    """The route ``kx.explain`` takes for representative models and every value function.

    Parameters
    ----------
    seed : int
        Seed of the tiny synthetic data set (40 rows, 3 features) the models are fitted to.

    Returns
    -------
    list of tuple
        Rows ``(model, kernel, value, route)``: ``route`` is the head of
        ``Explanation.meta["route"]`` (before its explanation after ":"),
        with "; needs background=" when the call asked for a background, or
        ``"refused: <first clause of the error's message>"``.

    Examples
    --------
    The whole table fits about thirty models and explains each four times (a few seconds), so
    the call itself is not run here:

    >>> VALUES
    ('interventional', 'observational', 'functional_baseline', 'marginal')
    >>> rows = route_table(seed=0)  # doctest: +SKIP
    >>> rows[0]  # doctest: +SKIP
    ('kernelxai KernelRidge', 'product RBF', 'interventional', 'kernel expansion (exact mean embeddings)')
    """
    rng = np.random.default_rng(seed)
    with warnings.catch_warnings(), config_context(progress=False):
        warnings.simplefilter("ignore")  # convergence and deprecation notes of the tiny fits
        entries, X = _models(rng)
        rows = []
        for label, kernel, model, output in entries:
            for value in VALUES:
                rows.append((label, kernel, value, _route(model, X, value, output)))
    return rows


def route_table_markdown(rows=None) -> str:
    """The table of :func:`route_table` as markdown: one row per model, one column per value.

    Parameters
    ----------
    rows : list of tuple, optional
        Rows of :func:`route_table`; computed when not given.

    Returns
    -------
    str
        A markdown table (no trailing newline). Rows keep the order in which models first
        appear; the columns are the values of :data:`VALUES` that any row has, and a cell is
        empty where a model has no row for that value.

    Examples
    --------
    >>> rows = [("KernelRidge", "rbf", "interventional", "kernel expansion"),
    ...         ("KernelRidge", "rbf", "marginal", "model calls (marginal)")]
    >>> print(route_table_markdown(rows))
    | model | kernel | `interventional` | `marginal` |
    |---|---|---|---|
    | KernelRidge | rbf | kernel expansion | model calls (marginal) |
    """
    rows = route_table() if rows is None else rows
    cells, order = {}, []
    for model, kernel, value, route in rows:
        if (model, kernel) not in cells:
            order.append((model, kernel))
            cells[(model, kernel)] = {}
        cells[(model, kernel)][value] = route
    values = [v for v in VALUES if any(v in c for c in cells.values())]
    lines = ["| model | kernel | " + " | ".join(f"`{v}`" for v in values) + " |",
             "|---|---|" + "---|" * len(values)]
    for key in order:
        lines.append(f"| {key[0]} | {key[1]} | "
                     + " | ".join(cells[key].get(v, "") for v in values) + " |")
    return "\n".join(lines)


def converter_table_markdown() -> str:
    """The registered converters as markdown: name, what it takes, outputs (default first), route.

    Returns
    -------
    str
        A markdown table (no trailing newline), one row per converter in the dispatcher's order.
        An output is marked "(model calls)" when the converter does not explain it exactly.

    Examples
    --------
    >>> lines = converter_table_markdown().splitlines()
    >>> lines[0]
    '| converter | takes | outputs | route |'
    >>> lines[2].startswith("| `kernelxai` |")
    True
    """
    lines = ["| converter | takes | outputs | route |", "|---|---|---|---|"]
    for c in registered():
        takes = ", ".join(f"`{spec.split(':')[1]}`" for spec in c.classes) or "kernelxai models"
        if c.predicate is not None and c.classes:
            takes += " (some)"
        outputs = [c.default] + [o for o in c.outputs if o != c.default]
        shown = ", ".join(f"`{o}`" + ("" if o in c.exact else " (model calls)") for o in outputs)
        lines.append(f"| `{c.name}` | {takes} | {shown} | {_shorten(c.route, limit=200)} |")
    return "\n".join(lines)


def _replace_between(text, start, end, table, path):
    if text.count(start) != 1 or text.count(end) != 1:
        raise ValueError(f"path {str(path)!r} must contain {start} and {end} once each; "
                         f"found {text.count(start)} and {text.count(end)}")
    head, rest = text.split(start)
    _, tail = rest.split(end)
    return f"{head}{start}\n{table}\n{end}{tail}"


def update_readme(path, table=None) -> None:
    """Replace the text between a Markdown file's route markers with the generated table.

    Between :data:`CONVERTERS_START` and :data:`CONVERTERS_END`, when the file has them,
    the table of converters (:func:`converter_table_markdown`) is written too.

    Parameters
    ----------
    path : str or Path
        The Markdown file (``docs/routes.md``); it must contain :data:`START` and :data:`END` once
        each.
    table : str, optional
        The markdown table; :func:`route_table_markdown` when not given.

    Raises
    ------
    ValueError
        When the file does not hold each route marker (or, if it has one of them, each
        converter marker) exactly once; the file is then not changed.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     page = pathlib.Path(tmp) / "routes.md"
    ...     _ = page.write_text(f"# Routes\\n{START}\\nold table\\n{END}\\n")
    ...     update_readme(page, table="| model | route |")
    ...     print(page.read_text())
    # Routes
    <!-- routes:start -->
    | model | route |
    <!-- routes:end -->
    """
    from pathlib import Path

    path = Path(path)
    text = path.read_text()
    if text.count(START) != 1 or text.count(END) != 1:
        raise ValueError(f"path {str(path)!r} must contain {START} and {END} once each; "
                         f"found {text.count(START)} and {text.count(END)}")
    table = route_table_markdown() if table is None else table
    text = _replace_between(text, START, END, table, path)
    if CONVERTERS_START in text or CONVERTERS_END in text:
        text = _replace_between(text, CONVERTERS_START, CONVERTERS_END, converter_table_markdown(), path)
    path.write_text(text)


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    import sys

    if len(sys.argv) == 3 and sys.argv[1] == "--update":
        update_readme(sys.argv[2])
    else:
        print(route_table_markdown())
