"""Which route ``kx.explain`` takes for a model, a kernel and a value function.

The README's table "model x kernel x value function -> route" is generated
here, by running :func:`kernelxai.explain` on small fitted models (tiny
synthetic data, fitted inside :func:`route_table`) and reading the route it
reports in ``meta["route"]`` -- or the error it raises. The table is therefore
what the code does, not what someone wrote down; a test compares the README
with :func:`route_table_markdown`.

Regenerate the README section with::

    python -m kernelxai.routes --update README.md
"""

from __future__ import annotations

import re
import warnings

import numpy as np

__all__ = ["VALUES", "route_table", "route_table_markdown", "update_readme"]

#: the value functions the table covers, in column order
VALUES = ("interventional", "observational", "functional_baseline", "marginal")

#: the README markers between which the generated table lives
START, END = "<!-- routes:start -->", "<!-- routes:end -->"


def _models(rng):
    """[(model label, kernel label, fitted model, output, background)] on tiny synthetic data."""
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.decomposition import PCA
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process import kernels as gpk
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC, SVR

    from ..models import core as models

    n, d = 40, 3
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=n)
    binary = (X[:, 0] + X[:, 1] > 0).astype(int)
    three = np.digitize(X[:, 0], [-0.4, 0.4])

    def gpr(kernel):
        return GaussianProcessRegressor(kernel, optimizer=None).fit(X, y)

    return [
        ("kernelxai KernelRidge", "product RBF", models.KernelRidge().fit(X, y), None),
        ("KernelRidge", "rbf", KernelRidge(kernel="rbf", gamma=0.5).fit(X, y), None),
        ("KernelRidge", "laplacian", KernelRidge(kernel="laplacian", gamma=0.5).fit(X, y), None),
        ("KernelRidge", "linear (default)", KernelRidge().fit(X, y), None),
        ("KernelRidge", "poly", KernelRidge(kernel="poly", degree=2).fit(X, y), None),
        ("KernelRidge", "cosine", KernelRidge(kernel="cosine").fit(X, y), None),
        ("SVR", "rbf", SVR().fit(X, y), None),
        ("Pipeline(StandardScaler, SVR)", "rbf", make_pipeline(StandardScaler(), SVR()).fit(X, y),
         None),
        ("Pipeline(PCA, SVR)", "rbf", make_pipeline(PCA(2), SVR()).fit(X, y), None),
        ("SVC, output='decision'", "rbf", SVC().fit(X, binary), "decision"),
        ("CalibratedClassifierCV(SVC, sigmoid), output='log_odds'", "rbf",
         CalibratedClassifierCV(SVC(), method="sigmoid", ensemble=False).fit(X, binary), "log_odds"),
        ("CalibratedClassifierCV(SVC, sigmoid), output='probability'", "rbf",
         CalibratedClassifierCV(SVC(), method="sigmoid", ensemble=False).fit(X, binary),
         "probability"),
        ("SVC (3 classes), output='ovo'", "rbf", SVC().fit(X, three), "ovo"),
        ("GaussianProcessRegressor", "C * RBF(ARD) + White",
         gpr(gpk.ConstantKernel(2.0) * gpk.RBF(np.ones(d)) + gpk.WhiteKernel(0.1)), None),
        ("GaussianProcessRegressor", "RBF + RBF", gpr(gpk.RBF(1.0) + gpk.RBF(3.0)), None),
        ("GaussianProcessRegressor", "Matern(nu=2.5)", gpr(gpk.Matern(1.0, nu=2.5)), None),
        ("GaussianProcessRegressor", "RationalQuadratic", gpr(gpk.RationalQuadratic()), None),
        ("GaussianProcessRegressor", "DotProduct", gpr(gpk.DotProduct() + gpk.WhiteKernel(0.1)),
         None),
        ("callable f(X)", "-", _callable, None),
    ], X


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
    from ..explainers.explain import BackgroundRequiredError, explain

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


def route_table(seed=0):
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
    """
    from .._config import config_context

    rng = np.random.default_rng(seed)
    with warnings.catch_warnings(), config_context(progress=False):
        warnings.simplefilter("ignore")  # convergence and deprecation notes of the tiny fits
        entries, X = _models(rng)
        rows = []
        for label, kernel, model, output in entries:
            for value in VALUES:
                rows.append((label, kernel, value, _route(model, X, value, output)))
    return rows


def route_table_markdown(rows=None):
    """The table of :func:`route_table` as markdown: one row per model, one column per value.

    Parameters
    ----------
    rows : list of tuple, optional
        Rows of :func:`route_table`; computed when not given.

    Returns
    -------
    str
        A markdown table (no trailing newline).
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


def update_readme(path, table=None):
    """Replace the text between the README's route markers with the generated table.

    Parameters
    ----------
    path : str or Path
        The README; it must contain :data:`START` and :data:`END` once each.
    table : str, optional
        The markdown table; :func:`route_table_markdown` when not given.
    """
    from pathlib import Path

    path = Path(path)
    text = path.read_text()
    if text.count(START) != 1 or text.count(END) != 1:
        raise ValueError(f"path {str(path)!r} must contain {START} and {END} once each; "
                         f"found {text.count(START)} and {text.count(END)}")
    head, rest = text.split(START)
    _, tail = rest.split(END)
    table = route_table_markdown() if table is None else table
    path.write_text(f"{head}{START}\n{table}\n{END}{tail}")


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    import sys

    if len(sys.argv) == 3 and sys.argv[1] == "--update":
        update_readme(sys.argv[2])
    else:
        print(route_table_markdown())
