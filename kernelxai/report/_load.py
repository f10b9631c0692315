"""Reading what ``python -m kernelxai.report`` is given: a model file, a table, the rows to explain.

Takes file paths and command-line strings; hands on a fitted model, a DataFrame of the model's
features (the label column dropped, the columns in the order the model was fitted with) and the
row positions to explain. Every refusal is a :class:`ReportInputError` whose message names the
file or the column and says what is accepted.

Loading a model safely: a ``.skops`` file (scikit-learn's persistence format without pickle, the
``report`` extra) is loaded only when every type it holds is trusted -- the types skops trusts
itself, those listed in :data:`TRUSTED_PREFIXES` (scikit-learn's Gaussian-process kernels and
kernelxai's own models and kernels) and those given with ``--trust``; the others are refused by
name. A pickle or joblib file is loaded only with ``trust_pickle=True`` (``--trust-pickle``),
because unpickling runs code stored in the file.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._suggest import did_you_mean

__all__ = ["ReportInputError", "TRUSTED_PREFIXES", "load_model", "load_table", "model_columns",
           "parse_rows", "is_skops_file"]

#: Module prefixes whose classes a ``.skops`` file may hold without ``--trust``: scikit-learn's
#: Gaussian-process kernels and its GP classifier's per-class parts (plain data, rebuilt by
#: scikit-learn's own code), and kernelxai's models and kernels.
TRUSTED_PREFIXES = ("sklearn.gaussian_process.kernels.", "sklearn.gaussian_process._gpc.",
                    "kernelxai.models.", "kernelxai.kernels.", "kernelxai.functionals.")

#: what ``load_table`` reads, by file suffix
TABLE_SUFFIXES = {".csv": "CSV", ".txt": "CSV", ".tsv": "tab-separated", ".parquet": "Parquet", ".pq": "Parquet"}

_REPORT_EXTRA = "pip install 'kernelxai[report]'"


class ReportInputError(ValueError):
    """A file, a column or a row of ``python -m kernelxai.report`` that cannot be used, and why.

    Raised before any explanation is computed (the command exits with status 2 and the message).

    Examples
    --------
    >>> from kernelxai.report import load_table
    >>> try:
    ...     load_table("no-such-file.csv")
    ... except ValueError as error:
    ...     print(error)
    DATA file 'no-such-file.csv' does not exist
    """


# --------------------------------------------------------------------------- #
# the model
# --------------------------------------------------------------------------- #
def is_skops_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a skops archive (a zip file holding ``schema.json``)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return "schema.json" in archive.namelist()
    except (zipfile.BadZipFile, OSError):
        return False


def _readable(path, what) -> Path:
    path = Path(path)
    if not path.exists():
        raise ReportInputError(f"{what} file '{path}' does not exist")
    if not path.is_file():
        raise ReportInputError(f"{what} '{path}' is not a file")
    if not os.access(path, os.R_OK):
        raise ReportInputError(f"{what} file '{path}' cannot be read (permission denied)")
    return path


def _trusted_by_default(name: str) -> bool:
    """Whether a type name reported by skops is one of :data:`TRUSTED_PREFIXES`' classes (and exists)."""
    if not name.startswith(TRUSTED_PREFIXES):
        return False
    module, _, attr = name.rpartition(".")
    try:
        return isinstance(getattr(importlib.import_module(module), attr, None), type)
    except ImportError:
        return False


def _load_skops(path: Path, trust: Sequence[str]) -> Any:
    try:
        import skops.io as sio
    except ImportError:
        raise ReportInputError(f"MODEL '{path}' is a skops file, and reading it needs skops: {_REPORT_EXTRA} "
                               "(or pip install skops)") from None

    try:
        untrusted = sio.get_untrusted_types(file=path)
    except Exception as exc:  # a damaged archive: say so, with skops's reason
        raise ReportInputError(f"MODEL '{path}' is not a readable skops file: {exc}") from None
    refused = [t for t in untrusted if t not in trust and not _trusted_by_default(t)]
    if refused:
        flags = " ".join(f"--trust {t}" for t in refused)
        raise ReportInputError(
            f"MODEL '{path}' holds types that are not trusted: {', '.join(refused)}. Loading a type runs "
            "its code on the file's data; trust only types you know. To load it anyway, pass "
            f"{flags} (kx.report(..., trust=[...]) in Python)")
    try:
        return sio.load(path, trusted=list(untrusted))
    except Exception as exc:
        raise ReportInputError(f"MODEL '{path}' could not be loaded by skops: {type(exc).__name__}: {exc}") from None


def _load_pickle(path: Path, trust_pickle: bool) -> Any:
    if not trust_pickle:
        raise ReportInputError(
            f"MODEL '{path}' is a pickle or joblib file, and loading one runs code stored in the file: a "
            "pickle can do anything your account can. Load it only if you made it or trust whoever did, "
            "with --trust-pickle (kx.report(..., trust_pickle=True)); or save the model with skops "
            "(skops.io.dump(model, 'model.skops')), which kernelxai loads without running code from it")
    import joblib  # reads plain pickles too

    try:
        return joblib.load(path)
    except Exception as exc:
        raise ReportInputError(f"MODEL '{path}' could not be unpickled: {type(exc).__name__}: {exc}") from None


def load_model(path: str | os.PathLike, *, trust: Sequence[str] = (), trust_pickle: bool = False) -> Any:
    """Load a fitted model from a skops file, or from a pickle / joblib file when told to trust it.

    Parameters
    ----------
    path : str or path
        A ``.skops`` file (recognised by its content: a zip archive with ``schema.json``), or a
        pickle / joblib file.
    trust : sequence of str
        Type names (as skops reports them, e.g. ``"mypackage.MyKernel"``) to load beyond the
        types skops trusts itself and :data:`TRUSTED_PREFIXES` (``--trust``).
    trust_pickle : bool
        Load a pickle or joblib file (``--trust-pickle``). Unpickling runs code stored in the
        file, so this is refused unless asked for.

    Returns
    -------
    object
        The fitted model.

    Raises
    ------
    ReportInputError
        The file does not exist or cannot be read; a skops file holds untrusted types (listed,
        with the ``--trust`` flags that would load them); skops is not installed; a pickle without
        ``trust_pickle`` (the message says why); the loaded object is no model (neither callable
        nor with ``predict``, ``decision_function`` or ``score_samples``).

    Examples
    --------
    >>> import os, tempfile, joblib
    >>> from sklearn.svm import SVR
    >>> from kernelxai.report import load_model
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "svr.joblib")
    ...     _ = joblib.dump(SVR().fit([[0.0], [1.0]], [0.0, 1.0]), path)
    ...     try:
    ...         load_model(path)
    ...     except ValueError as error:
    ...         print(str(error).split(":")[0])
    ...     type(load_model(path, trust_pickle=True)).__name__
    MODEL '...svr.joblib' is a pickle or joblib file, and loading one runs code stored in the file
    'SVR'
    """
    path = _readable(path, "MODEL")
    model = _load_skops(path, list(trust)) if is_skops_file(path) else _load_pickle(path, trust_pickle)
    if not (callable(model) or any(hasattr(model, m) for m in ("predict", "decision_function", "score_samples"))):
        raise ReportInputError(f"MODEL '{path}' holds a {type(model).__name__}, not a fitted model (no predict, "
                               "decision_function or score_samples)")
    return model


# --------------------------------------------------------------------------- #
# the table
# --------------------------------------------------------------------------- #
def load_table(path: str | os.PathLike, *, what: str = "DATA") -> pd.DataFrame:
    """Read a CSV (``.csv``, ``.txt``), tab-separated (``.tsv``) or Parquet (``.parquet``, ``.pq``) table.

    Parameters
    ----------
    path : str or path
        The file; the header row (CSV) or the schema (Parquet) names the columns.
    what : str
        What the file is, for messages (``"DATA"``, ``"--background"``).

    Returns
    -------
    DataFrame
        The table, its columns named by strings.

    Raises
    ------
    ReportInputError
        The file does not exist or cannot be read or parsed; its suffix is not one of the above;
        a Parquet file without pyarrow installed (the ``report`` extra); an empty table.

    Examples
    --------
    >>> import os, tempfile
    >>> from kernelxai.report import load_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "data.csv")
    ...     _ = open(path, "w").write("a,b,y\\n1,2,3\\n4,5,6\\n")
    ...     load_table(path).shape
    (2, 3)
    """
    path = _readable(path, what)
    kind = TABLE_SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise ReportInputError(f"{what} file '{path}' is not a table kernelxai reads: it reads "
                               + ", ".join(f"{k} ({v})" for k, v in TABLE_SUFFIXES.items()))
    if kind == "Parquet" and importlib.util.find_spec("pyarrow") is None:
        raise ReportInputError(f"{what} file '{path}' is Parquet, and reading Parquet needs pyarrow: "
                               f"{_REPORT_EXTRA} (or pip install pyarrow); or save the table as CSV")
    try:
        table = (pd.read_parquet(path) if kind == "Parquet"
                 else pd.read_csv(path, sep="\t" if kind == "tab-separated" else ","))
    except Exception as exc:
        raise ReportInputError(f"{what} file '{path}' could not be read as {kind}: {type(exc).__name__}: "
                               f"{str(exc).strip().splitlines()[0] if str(exc).strip() else ''}") from None
    if table.empty:
        raise ReportInputError(f"{what} file '{path}' has no rows")
    table.columns = [str(c) for c in table.columns]
    return table


def _unknown(names, columns, what) -> None:
    unknown = [n for n in names if n not in columns]
    if unknown:
        hint = did_you_mean(unknown, columns)
        raise ReportInputError(f"{what} {', '.join(repr(n) for n in unknown)} not in the columns of DATA "
                               f"{list(columns)}" + (f"; {hint}" if hint else ""))


def _fitted_names(model) -> list[str] | None:
    names = getattr(model, "feature_names_in_", None)
    if names is None and getattr(model, "has_feature_names", False):
        names = model.feature_names
    return None if names is None else [str(n) for n in names]


def _check_against_model(names, model, target) -> list[str]:
    """``names`` in the model's fitted order, or a refusal saying which columns differ."""
    fitted = _fitted_names(model)
    if fitted is None:
        n = getattr(model, "n_features_in_", None)
        if n is not None and int(n) != len(names):
            raise ReportInputError(
                f"the model was fitted on {int(n)} features (it records no names) and DATA has {len(names)} "
                f"columns {names}" + ("" if target else " (is one of them the label? pass --target NAME)")
                + ": choose the model's columns, in order, with --features")
        return list(names)
    missing = [c for c in fitted if c not in names]
    unseen = [c for c in names if c not in fitted]
    if missing or unseen:
        parts = ([f"missing: {missing}"] if missing else []) + ([f"not in the model: {unseen}"] if unseen else [])
        hint = " (is it the label? pass --target NAME)" if len(unseen) == 1 and not target else ""
        raise ReportInputError(f"the columns of DATA do not match the features the model was fitted with "
                               f"{fitted}: {'; '.join(parts)}{hint}. Choose them with --features")
    return fitted


def model_columns(table: pd.DataFrame, model: Any, *, target: str | None = None,
                  features: Sequence[str] | None = None, what: str = "DATA") -> pd.DataFrame:
    """The model's feature columns of ``table``: the label dropped, checked against the model, in its order.

    Parameters
    ----------
    table : DataFrame
    model : object
        The fitted model; its ``feature_names_in_`` (or ``n_features_in_``) is what the columns
        must match.
    target : str, optional
        The label column, dropped (``--target``).
    features : sequence of str, optional
        The model's columns of ``table`` (``--features``); default: every column but ``target``.
    what : str
        What the table is, for messages.

    Returns
    -------
    DataFrame
        Float columns in the model's fitted order (matched by name when the model has names).

    Raises
    ------
    ReportInputError
        ``target`` or a name of ``features`` is not a column (with "did you mean"); the columns
        do not match the model's (missing and unknown ones listed); a column is not numeric or
        has missing values.
    """
    columns = list(table.columns)
    if target is not None and target not in columns:
        hint = did_you_mean([target], columns)
        raise ReportInputError(f"--target {target!r} is not a column of {what}; its columns are {columns}"
                               + (f"; {hint}" if hint else ""))
    if features is not None:
        _unknown(features, columns, "--features")
        names = list(features)
    else:
        names = [c for c in columns if c != target]
    names = _check_against_model(names, model, target)
    frame = table[names]
    text = [c for c in names if not pd.api.types.is_numeric_dtype(frame[c]) or pd.api.types.is_bool_dtype(frame[c])]
    if text:
        raise ReportInputError(f"columns of {what} that are not numbers: {text}; kernel models take numeric "
                               "features (encode them, or leave them out with --features)")
    gaps = [c for c in names if frame[c].isna().any()]
    if gaps:
        raise ReportInputError(f"columns of {what} with missing values: {gaps}; fill or drop those rows first")
    return frame.astype(float)


# --------------------------------------------------------------------------- #
# rows
# --------------------------------------------------------------------------- #
_ITEM = re.compile(r"^\s*(\d+)\s*(?::\s*(\d+)\s*)?$")


def parse_rows(text: str, n_rows: int) -> np.ndarray:
    """Row positions from ``--points``: ``"0:20"`` (0 to 19), ``"3,5,9"``, or both (``"0:5,10"``).

    Parameters
    ----------
    text : str
        Comma-separated items, each a row position or a range ``start:stop`` (stop excluded).
    n_rows : int
        The rows of DATA.

    Returns
    -------
    ndarray of int
        The positions, in the order given, without repeats.

    Raises
    ------
    ReportInputError
        An item that is not a position or range, a position outside ``0 .. n_rows - 1``, an
        empty selection.

    Examples
    --------
    >>> parse_rows("0:3,7", 10)
    array([0, 1, 2, 7])
    """
    rows: list[int] = []
    for item in str(text).split(","):
        m = _ITEM.match(item)
        if m is None:
            raise ReportInputError(f"--points {text!r}: {item.strip()!r} is not a row position or a range "
                                   "start:stop; e.g. --points 0:20 or --points 3,5,9")
        start = int(m.group(1))
        stop = int(m.group(2)) if m.group(2) is not None else start + 1
        if start >= n_rows or stop > n_rows:
            raise ReportInputError(f"--points {text!r}: DATA has {n_rows} rows (positions 0 to {n_rows - 1})")
        rows.extend(range(start, stop))
    rows = list(dict.fromkeys(rows))
    if not rows:
        raise ReportInputError(f"--points {text!r} selects no rows")
    return np.asarray(rows, dtype=int)
