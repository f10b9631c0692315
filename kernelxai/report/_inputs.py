"""What the report notebook is given: the model, the points, the background and the settings.

Takes what :func:`kernelxai.report.report` resolved (a fitted model, DataFrames, options); hands
the report notebook a :class:`ReportInputs` through a private folder. The notebook runs in
another process (a Jupyter kernel started by papermill), so the inputs travel as a pickle that
this process writes into a folder only its user can read, signed with a key that exists only in
this process and in the notebook's parameters: :func:`load_inputs` unpickles nothing whose
signature does not match, so it cannot be made to run code from a file someone else put there.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._numbers import DEFAULT_TOLERANCE

__all__ = ["ReportInputs", "write_inputs", "load_inputs", "fingerprint", "demo_inputs"]

_PAYLOAD, _SIGNATURE = "inputs.pkl", "inputs.sig"


@dataclass
class ReportInputs:
    """The model and data of one report, as the report notebook reads them.

    Attributes
    ----------
    model : object
        The fitted model (anything ``kx.explain`` takes).
    points : DataFrame
        The rows to explain, in the model's feature order; the index holds their positions in DATA.
    background : DataFrame
        The reference rows the values are relative to (same columns).
    value : str
        The value function (``kx.explain``'s ``value``).
    output : str or None
        The output of a classifier or detector to explain (``kx.explain``'s ``output``).
    compare : object or None
        A second model explained on the same points and background (``--compare``).
    baseline : dict or None
        The JSON a previous report wrote (``--baseline``), compared with this one.
    tolerance : float
        Drift beyond this fails the check (:func:`kernelxai.report.drift`).
    sources : dict
        What was read, for the report's first section: files, trusted types, the command.

    Examples
    --------
    >>> import kernelxai as kx
    >>> inputs = kx.report.load_inputs(None)      # the demo: an SVR on scikit-learn's diabetes data
    >>> inputs.points.shape, inputs.value
    ((100, 10), 'interventional')
    """

    model: Any
    points: pd.DataFrame
    background: pd.DataFrame
    value: str = "interventional"
    output: str | None = None
    compare: Any = None
    baseline: dict | None = None
    tolerance: float = DEFAULT_TOLERANCE
    sources: dict = field(default_factory=dict)


def fingerprint(frame: pd.DataFrame) -> str:
    """A SHA-256 of a DataFrame's column names and float values: same rows, same fingerprint.

    A report records the fingerprints of its explained rows and its background, and a later run
    with ``--baseline`` refuses to compare attributions computed on other rows.

    Parameters
    ----------
    frame : DataFrame

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> import pandas as pd, kernelxai as kx
    >>> a = pd.DataFrame({"x": [1.0, 2.0]})
    >>> same, other = kx.report.fingerprint(a.copy()), kx.report.fingerprint(a[::-1])
    >>> kx.report.fingerprint(a) == same, kx.report.fingerprint(a) == other
    (True, False)
    """
    digest = hashlib.sha256("\x1f".join(map(str, frame.columns)).encode())
    digest.update(np.ascontiguousarray(frame.to_numpy(dtype=float)).tobytes())
    return digest.hexdigest()


def write_inputs(inputs: ReportInputs, folder: str | os.PathLike) -> str:
    """Pickle ``inputs`` into ``folder`` (made readable by its owner only) and return the signing key (hex)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    payload = pickle.dumps(inputs, protocol=pickle.HIGHEST_PROTOCOL)
    key = secrets.token_hex(32)
    (folder / _PAYLOAD).write_bytes(payload)
    (folder / _SIGNATURE).write_text(hmac.new(bytes.fromhex(key), payload, hashlib.sha256).hexdigest())
    return key


def load_inputs(folder: str | os.PathLike | None, key: str | None = None) -> ReportInputs:
    """The inputs ``kx.report`` handed the report notebook, or the demo when ``folder`` is None.

    Parameters
    ----------
    folder : str, path or None
        The folder :func:`kernelxai.report.report` wrote (the notebook's ``inputs_path``
        parameter); None gives the demo (:func:`demo_inputs`), so that the notebook runs on its own.
    key : str, optional
        The key the folder was signed with (the notebook's ``inputs_key`` parameter).

    Returns
    -------
    ReportInputs

    Raises
    ------
    ValueError
        The folder holds no inputs, or their signature does not match ``key``: nothing is
        unpickled then (unpickling a file runs code from it).

    Examples
    --------
    >>> import kernelxai as kx
    >>> kx.report.load_inputs(None).sources["model"]
    "demo: StandardScaler + SVR fitted on scikit-learn's diabetes data (442 rows, 10 features)"
    """
    if folder is None:
        return demo_inputs()
    folder = Path(folder)
    try:
        payload = (folder / _PAYLOAD).read_bytes()
        signature = (folder / _SIGNATURE).read_text().strip()
    except OSError as exc:
        raise ValueError(f"no report inputs in {folder}: {exc}") from None
    try:
        expected = hmac.new(bytes.fromhex(key or ""), payload, hashlib.sha256).hexdigest()
    except ValueError:   # not a hex key
        expected = ""
    if not key or not expected or not hmac.compare_digest(signature, expected):
        raise ValueError(f"the report inputs in {folder} are not signed with this key: refusing to unpickle them "
                         "(they are written by kx.report / python -m kernelxai.report for one run)")
    return pickle.loads(payload)  # written by this user's kx.report, signed with a one-run key


def demo_inputs(seed: int = 0) -> ReportInputs:
    """A small demo: a scaler + SVR pipeline on scikit-learn's diabetes data (shipped with scikit-learn).

    Parameters
    ----------
    seed : int
        Which 100 rows are explained and which 100 are the background.

    Returns
    -------
    ReportInputs

    Examples
    --------
    >>> demo_inputs().background.shape
    (100, 10)
    """
    from sklearn.datasets import load_diabetes
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVR

    X, y = load_diabetes(return_X_y=True, as_frame=True)
    model = make_pipeline(StandardScaler(), SVR(C=50.0, epsilon=5.0, gamma=0.05)).fit(X, y)
    rng = np.random.default_rng(seed)
    points = np.sort(rng.choice(len(X), 100, replace=False))
    background = np.sort(rng.choice(len(X), 100, replace=False))
    return ReportInputs(model=model, points=X.iloc[points], background=X.iloc[background],
                        sources={"model": "demo: StandardScaler + SVR fitted on scikit-learn's diabetes data "
                                          f"({len(X)} rows, {X.shape[1]} features)",
                                 "data": "sklearn.datasets.load_diabetes", "target": "disease progression",
                                 "background": f"{len(background)} rows of DATA drawn with seed {seed}",
                                 "points": f"{len(points)} rows of DATA drawn with seed {seed}"})
