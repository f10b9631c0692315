"""``kx.report(model, X, ...)``: resolve the inputs, check them, run the report notebook, hand back the numbers.

Takes a fitted model (or a model file) and a table (or a table file) with the options of
``python -m kernelxai.report``; hands on a :class:`Report`: the paths of the standalone HTML, the
executed notebook and the JSON of the numbers, the numbers themselves and, with ``compare`` or
``baseline``, the :class:`~kernelxai.report.Drift` of the attributions.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._params import Boolean, Either, InstanceOf, Integer, Real, Text, parameters
from .._validation import feature_names_in
from ..explainers._explain import explain
from ._inputs import ReportInputs, fingerprint
from ._load import ReportInputError, load_model, load_table, model_columns, parse_rows
from ._numbers import DEFAULT_TOLERANCE, Drift
from ._render import ReportFailure, check_out, render_report

__all__ = ["report", "Report", "DEFAULT_POINTS", "DEFAULT_BACKGROUND_ROWS", "resolve", "check_explainable"]

#: rows explained when ``points`` is not given (drawn with the seed; all rows of a smaller table)
DEFAULT_POINTS = 100
#: background rows drawn from the table when no ``background`` is given
DEFAULT_BACKGROUND_ROWS = 100

_PATH = InstanceOf((str, os.PathLike), "a file path")


@dataclass
class Report:
    """What :func:`report` wrote and computed.

    Attributes
    ----------
    html, notebook, json : Path
        The standalone HTML report, the executed notebook and the JSON of the numbers.
    numbers : dict
        The JSON's content: ``values`` (n, d) and ``base_values`` as ``kx.explain`` returns
        them, ``features``, ``points`` (row positions in the table), ``certificate``,
        ``importance``, ``interactions``, ``cost``, ``versions``, ...
    drift : dict of str to Drift
        ``"compare"`` and/or ``"baseline"``: how the attributions moved (empty without either).
    seconds : float
        Wall time of the whole call.

    Examples
    --------
    >>> import kernelxai as kx
    >>> kx.report.Report.__dataclass_fields__.keys()
    dict_keys(['html', 'notebook', 'json', 'numbers', 'drift', 'seconds'])
    """

    html: Path
    notebook: Path
    json: Path
    numbers: dict
    drift: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def values(self) -> np.ndarray:
        """The Shapley values of the explained points, as ``kx.explain`` returned them."""
        return np.asarray(self.numbers["values"], dtype=float)

    @property
    def ok(self) -> bool:
        """Whether no attribution moved beyond the tolerance (True without ``compare``/``baseline``)."""
        return all(d.ok for d in self.drift.values())

    def __repr__(self) -> str:
        moved = {k: d.moved for k, d in self.drift.items()}
        return (f"Report(html={str(self.html)!r}, points={len(self.numbers.get('points', []))}, "
                f"features={len(self.numbers.get('features', []))}" + (f", moved={moved}" if self.drift else "") + ")")


# --------------------------------------------------------------------------- #
# resolving what was passed
# --------------------------------------------------------------------------- #
def _model(model, what, trust, trust_pickle):
    if isinstance(model, (str, os.PathLike)):
        return load_model(model, trust=trust, trust_pickle=trust_pickle), f"{what} file {os.fspath(model)}"
    return model, f"a {type(model).__name__} passed in Python"


def _table(X, model, what):
    """A DataFrame of ``X`` (a file, a DataFrame or an array) and where it came from."""
    if isinstance(X, (str, os.PathLike)):
        return load_table(X, what=what), f"{what} file {os.fspath(X)}"
    if isinstance(X, pd.DataFrame):
        return X.reset_index(drop=True), f"a DataFrame passed in Python ({X.shape[0]} rows)"
    array = np.asarray(X, dtype=float)
    if array.ndim != 2:
        raise ReportInputError(f"{what} must be a table (rows x columns); got an array of shape {array.shape}")
    names = feature_names_in(model)
    if names is None or len(names) != array.shape[1]:
        names = [f"x{j}" for j in range(array.shape[1])]
    return pd.DataFrame(array, columns=names), f"an array passed in Python ({array.shape[0]} rows)"


def _rows(spec, n, seed, stream, default):
    """Row positions: ``spec`` ("0:20", "3,5,9", a list), else ``default`` rows drawn with the seed (all if fewer)."""
    if spec is None:
        if n <= default:
            return np.arange(n)
        return np.sort(np.random.default_rng([seed, stream]).choice(n, default, replace=False))
    if isinstance(spec, str):
        return parse_rows(spec, n)
    rows = np.asarray(spec, dtype=int).ravel()
    if rows.size == 0 or rows.min() < 0 or rows.max() >= n:
        raise ReportInputError(f"points must be row positions in 0 .. {n - 1}; got {list(rows)[:10]}")
    return rows


def _background(background, background_rows, table, features, model, target, seed):
    """The background DataFrame and a sentence saying what it is."""
    if background is None:
        rows = _rows(None, len(table), seed, 1, background_rows)
        note = (f"all {len(rows)} rows of DATA" if len(rows) == len(table)
                else f"{len(rows)} rows of DATA drawn with seed {seed}")
        return features.iloc[rows], note
    frame, where = _table(background, model, "--background")
    label = target if target is not None and target in frame.columns else None
    chosen = list(features.columns) if set(features.columns) <= set(frame.columns) else None
    return model_columns(frame, model, target=label, features=chosen, what="--background"), f"the rows of {where}"


def _baseline(baseline):
    if baseline is None or isinstance(baseline, dict):
        return baseline, None
    path = Path(baseline)
    if not path.is_file():
        raise ReportInputError(f"--baseline file '{path}' does not exist")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ReportInputError(f"--baseline file '{path}' is not the JSON of a report: {exc}") from None
    if not isinstance(data, dict) or "values" not in data or "fingerprints" not in data:
        raise ReportInputError(f"--baseline file '{path}' is not the JSON a kernelxai report wrote (no values or "
                               "fingerprints)")
    return data, os.fspath(path)


def _check_baseline(baseline, inputs):
    """Refuse a baseline computed on other points, background, features or settings (its drift means nothing)."""
    if baseline is None:
        return
    now = {"features": list(inputs.points.columns), "points": fingerprint(inputs.points),
           "background": fingerprint(inputs.background), "value": inputs.value, "output": inputs.output}
    then = {"features": baseline.get("features"), "points": baseline["fingerprints"].get("points"),
            "background": baseline["fingerprints"].get("background"),
            "value": baseline.get("settings", {}).get("value"), "output": baseline.get("settings", {}).get("output")}
    differ = [k for k in now if now[k] != then[k]]
    if differ:
        raise ReportInputError(
            f"--baseline was computed with other {', '.join(differ)} than this run, so its attributions cannot "
            "be compared: run with the same DATA, --points, --background / --background-rows, --seed, --value "
            "and --output as the report that wrote it")


def check_explainable(inputs, echo):
    """kx.explain on one point and a few background rows: its own refusal, before a kernel starts."""
    for name, model in (("MODEL", inputs.model), ("--compare", inputs.compare)):
        if model is None:
            continue
        try:
            explain(model, inputs.points.iloc[:1], value=inputs.value, background=inputs.background.iloc[:10],
                    output=inputs.output)
        except Exception as exc:
            raise ReportFailure(f"kx.explain cannot explain {name} ({type(model).__name__}) as asked: "
                                f"{type(exc).__name__}: {exc}") from exc
    echo("kx.explain takes the model")


# --------------------------------------------------------------------------- #
# the entry point
# --------------------------------------------------------------------------- #
@parameters("kx.report", X=Either(_PATH, InstanceOf((pd.DataFrame, np.ndarray, list), "a DataFrame or an array")),
            target=Text(none=True), value=Text(), output=Text(none=True), background_rows=Integer(1),
            tolerance=Real(0.0, closed="left"), seed=Integer(0), trust_pickle=Boolean(), progress=Boolean(),
            timeout=Integer(1))
def report(model: Any, X: Any, *, target: str | None = None, features: Sequence[str] | None = None,  # noqa: PLR0913 - the options of python -m kernelxai.report, one keyword each
           points: str | Sequence[int] | None = None, background: Any = None,
           background_rows: int = DEFAULT_BACKGROUND_ROWS, value: str = "interventional",
           output: str | None = None, compare: Any = None, baseline: str | os.PathLike | dict | None = None,
           tolerance: float = DEFAULT_TOLERANCE, out: str | os.PathLike = "report.html", seed: int = 0,
           trust: Sequence[str] = (), trust_pickle: bool = False, progress: bool = True,
           timeout: int = 1800) -> Report:
    """Explain a fitted model on a table and write a standalone HTML report, its notebook and its numbers.

    The report notebook shipped with kernelxai runs with papermill on the model and rows given:
    the model and how it was converted, the exactness certificate, global importance with
    intervals, a beeswarm and dependence plots, the largest interactions, credible bands for
    Gaussian processes, which reference answers which question for anomaly detectors, the
    drift against ``compare`` / ``baseline``, the cost and the versions. Nothing is written
    unless everything succeeds: the three files are made in a temporary folder and moved into
    place at the end.

    Parameters
    ----------
    model : fitted model, or a path
        Anything ``kx.explain`` takes, or a model file (see :func:`load_model`: a ``.skops``
        file, or a pickle / joblib file with ``trust_pickle=True``). It must be picklable (the
        notebook runs in its own kernel).
    X : DataFrame, array, or a path
        The table: CSV, TSV or Parquet file, or the data itself.
    target : str, optional
        The label column of ``X``, dropped.
    features : sequence of str, optional
        The model's columns of ``X`` (default: all but ``target``; they must match the model's
        ``feature_names_in_``, and are put in its order).
    points : str or sequence of int, optional
        The rows to explain: ``"0:20"``, ``"3,5,9"`` or positions; default
        :data:`DEFAULT_POINTS` rows drawn with ``seed`` (all rows of a smaller table).
    background : DataFrame, array or path, optional
        The reference rows (same columns; a ``target`` column there is dropped). Default:
        ``background_rows`` rows of ``X`` drawn with ``seed``.
    background_rows : int
        Rows of ``X`` in the default background.
    value : str
        The value function (``kx.explain``'s ``value``).
    output : str, optional
        The output of a classifier or detector (``kx.explain``'s ``output``).
    compare : fitted model or path, optional
        Another model (a refit, a new version) explained on the same points and background;
        its drift from ``model`` is reported.
    baseline : path or dict, optional
        The JSON a previous report wrote; this run's attributions are compared with it (same
        data, points, background and settings, else refused).
    tolerance : float
        Drift above ``tolerance`` times the scale of the attributions fails (see
        :func:`drift`).
    out : str or path
        The HTML file; the notebook and the JSON are written next to it (same stem,
        ``.ipynb`` and ``.json``).
    seed : int
        Seeds the row draws and the bootstrap.
    trust : sequence of str
        Types a skops file may hold beyond the default ones (``--trust``).
    trust_pickle : bool
        Load pickle / joblib model files (``--trust-pickle``): unpickling runs code from the file.
    progress : bool
        Print what is being done, and papermill's progress bar.
    timeout : int
        Seconds any one cell of the notebook may run.

    Returns
    -------
    Report

    Raises
    ------
    ReportInputError
        A file that is missing or cannot be read, a refused model file, columns that do not
        match the model, a target or feature that is not a column, bad ``points``, a baseline
        of other data (nothing is run).
    ReportFailure
        ``kx.explain`` refuses the model (its message), the notebook fails (the cell's error),
        or the HTML cannot be written (nothing is written).

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np, pandas as pd, kernelxai as kx
    >>> from sklearn.svm import SVR
    >>> X = pd.DataFrame(np.random.default_rng(0).normal(size=(60, 3)), columns=["a", "b", "c"])
    >>> svr = SVR().fit(X, X.a - X.b * X.c)
    >>> with tempfile.TemporaryDirectory() as tmp:          # doctest: +SKIP
    ...     r = kx.report(svr, X, points="0:10", out=os.path.join(tmp, "svr.html"), progress=False)
    ...     sorted(p.name for p in (r.html, r.notebook, r.json)), r.values.shape
    (['svr.html', 'svr.ipynb', 'svr.json'], (10, 3))
    """
    started = time.perf_counter()
    echo: Callable[[str], None] = (lambda text: print(f"kernelxai.report: {text}", flush=True)) if progress else \
        (lambda text: None)
    check_out(out)
    inputs, notes = resolve(model, X, target=target, features=features, points=points, background=background,
                             background_rows=background_rows, value=value, output=output, compare=compare,
                             baseline=baseline, tolerance=tolerance, seed=seed, trust=trust,
                             trust_pickle=trust_pickle)
    echo(f"{len(inputs.points)} points, {len(inputs.background)} background rows, "
         f"{inputs.points.shape[1]} features; {notes}")
    check_explainable(inputs, echo)
    echo("running the report notebook")
    paths, numbers = render_report(inputs, out, seed=seed, progress=progress, timeout=timeout, echo=echo)
    drifts = {k: Drift.from_dict(v) for k, v in (numbers.get("drift") or {}).items()}
    result = Report(*paths, numbers=numbers, drift=drifts, seconds=time.perf_counter() - started)
    echo(f"wrote {result.html}, {result.notebook.name} and {result.json.name} in {result.seconds:.1f} s")
    return result


def resolve(model, X, *, target, features, points, background, background_rows, value, output,  # noqa: PLR0913 - report()'s options, resolved in one place
             compare, baseline, tolerance, seed, trust, trust_pickle) -> tuple[ReportInputs, str]:
    """Load and check everything :func:`report` was given; return the inputs and a note for the console."""
    model, model_source = _model(model, "MODEL", trust, trust_pickle)
    table, data_source = _table(X, model, "DATA")
    chosen = model_columns(table, model, target=target, features=features)
    rows = _rows(points, len(table), seed, 0, DEFAULT_POINTS)
    back, back_note = _background(background, background_rows, table, chosen, model, target, seed)
    other, other_source = (None, None) if compare is None else _model(compare, "--compare", trust, trust_pickle)
    if other is not None:
        model_columns(table, other, target=target, features=list(chosen.columns))  # same columns for both
    base, base_source = _baseline(baseline)
    inputs = ReportInputs(
        model=model, points=chosen.iloc[rows], background=back, value=value, output=output, compare=other,
        baseline=base, tolerance=float(tolerance),
        sources={"model": model_source, "data": data_source, "target": target, "background": back_note,
                 "points": (f"rows {points}" if isinstance(points, str) else
                            f"{len(rows)} rows" + (f" drawn with seed {seed}" if points is None
                                                   and len(rows) < len(table) else "")),
                 "compare": other_source, "baseline": base_source or ("a dict" if base is not None else None),
                 "trusted": list(trust), "trust_pickle": bool(trust_pickle)})
    _check_baseline(base, inputs)
    return inputs, f"model: {type(model).__name__} ({model_source})"
