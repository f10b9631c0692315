"""Real data sets of the RKHS-SHAP experiments (supplement App. E), with a local cache.

``load(name)`` returns a :class:`Dataset` (features as a DataFrame, target as
a Series). Two kinds of sources:

* bundled with scikit-learn, always available offline: ``"diabetes"``,
  ``"breast_cancer"``, ``"wine"``, ``"iris"``;
* downloaded once and cached as CSV under :func:`data_home`
  (``$KERNELXAI_DATA`` or ``~/.cache/kernelxai``): ``"pima"`` (OpenML 37),
  ``"adult"`` (OpenML 1590), ``"boston"`` (OpenML 531; the paper's housing
  data -- note its ethically problematic ``B`` column), ``"california_housing"``
  (scikit-learn's fetcher).

When a downloaded data set is neither cached nor reachable, :func:`load`
raises :class:`DatasetUnavailable` saying so and where to put the file. It
never substitutes another data set.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..workbench._reporting import atomic_write

__all__ = ["Dataset", "DatasetUnavailable", "load", "available", "data_home", "BUNDLED", "REMOTE",
           "numeric_design"]


class DatasetUnavailable(RuntimeError):
    """A data set that must be downloaded is neither cached nor reachable.

    Raised by :func:`load` (a ``RuntimeError``) instead of substituting
    another data set; its message names the file to put in the cache.

    Examples
    --------
    >>> import tempfile
    >>> from kernelxai.datasets import real
    >>> with tempfile.TemporaryDirectory() as home:
    ...     try:
    ...         real.load("pima", data_home_path=home, download=False)
    ...     except real.DatasetUnavailable as err:
    ...         print(err)
    data set 'pima' is not cached at ...pima.csv and download=False. Run ...
    """


@dataclass
class Dataset:
    """A loaded data set: features ``X`` (DataFrame), target ``y`` (Series).

    Made by :func:`load`; :func:`numeric_design` turns it into float arrays.

    Attributes
    ----------
    name : str
        The name :func:`load` knows it by.
    X : pandas.DataFrame
        The features, one column per feature (categorical columns kept as they are).
    y : pandas.Series
        The target (class labels for classification).
    task : str
        ``"regression"`` or ``"classification"``.
    source : str
        Where it came from (bundled loader, cache file or download).
    notes : str, default ""
        Caveats about the data.
    categorical : list of str, default []
        Names of the non-numeric feature columns.

    Examples
    --------
    >>> import pandas as pd
    >>> from kernelxai.datasets.real import Dataset
    >>> ds = Dataset("toy", pd.DataFrame({"a": [1.0, 2.0], "b": [0.5, 0.1]}), pd.Series([0.0, 1.0]),
    ...              "regression", "made by hand")
    >>> ds, ds.feature_names
    (Dataset('toy', 2 x 2, regression, made by hand), ['a', 'b'])
    """

    name: str
    X: pd.DataFrame
    y: pd.Series
    task: str  # "regression" or "classification"
    source: str
    notes: str = ""
    categorical: list = field(default_factory=list)

    @property
    def feature_names(self) -> list[str]:
        return [str(c) for c in self.X.columns]

    def __repr__(self):
        return f"Dataset({self.name!r}, {self.X.shape[0]} x {self.X.shape[1]}, {self.task}, {self.source})"


#: name -> (scikit-learn loader name, task)
BUNDLED = {
    "diabetes": ("load_diabetes", "regression"),
    "breast_cancer": ("load_breast_cancer", "classification"),
    "wine": ("load_wine", "classification"),
    "iris": ("load_iris", "classification"),
}

#: name -> (source, identifier, task, target column, notes)
REMOTE = {
    "pima": ("openml", 37, "classification", "class", "Pima Indians diabetes (768 x 8)"),
    "adult": ("openml", 1590, "classification", "class", "UCI census income (48 842 x 14)"),
    "boston": ("openml", 531, "regression", "MEDV",
               "Boston housing (506 x 13); its B column encodes race -- use with care"),
    "california_housing": ("sklearn", "fetch_california_housing", "regression", "MedHouseVal",
                           "California housing (20 640 x 8)"),
}

_HOSTS = {"openml": "www.openml.org", "sklearn": "ndownloader.figshare.com"}


def available() -> list[str]:
    """Names :func:`load` accepts.

    Returns
    -------
    list of str
        The bundled data sets (sorted), then the downloaded ones (sorted).

    Examples
    --------
    >>> from kernelxai.datasets import real
    >>> real.available()
    ['breast_cancer', 'diabetes', 'iris', 'wine', 'adult', 'boston', 'california_housing', 'pima']
    """
    return sorted(BUNDLED) + sorted(REMOTE)


def data_home(path: str | os.PathLike | None = None) -> Path:
    """The cache directory: ``path``, else ``$KERNELXAI_DATA``, else ``~/.cache/kernelxai``.

    The directory is not created here (:func:`load` creates it when it writes).

    Parameters
    ----------
    path : str or Path, optional
        An explicit cache directory, which wins over the environment.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> from kernelxai.datasets import real
    >>> real.data_home("my_cache").name
    'my_cache'
    """
    path = path or os.environ.get("KERNELXAI_DATA") or Path.home() / ".cache" / "kernelxai"
    return Path(path)


def _reachable(host, timeout=3.0):
    try:
        socket.setdefaulttimeout(timeout)
        socket.getaddrinfo(host, 443)
        return True
    except OSError:
        return False
    finally:
        socket.setdefaulttimeout(None)


def load(name: str, *, data_home_path: str | os.PathLike | None = None, download: bool = True) -> Dataset:
    """Load a data set by name (see :func:`available`).

    Parameters
    ----------
    name : str
    data_home_path : str or Path, optional
        Cache directory (default :func:`data_home`).
    download : bool
        If False, only bundled or already cached data sets load; others raise
        :class:`DatasetUnavailable` at once (no network access).

    Returns
    -------
    Dataset

    Raises
    ------
    ValueError
        Unknown name.
    DatasetUnavailable
        A data set that must be downloaded is not cached and cannot be fetched
        (offline, or ``download=False``).

    Examples
    --------
    A data set bundled with scikit-learn loads offline:

    >>> from kernelxai.datasets import real
    >>> ds = real.load("iris")
    >>> ds
    Dataset('iris', 150 x 4, classification, scikit-learn load_iris (bundled))
    >>> ds.feature_names[:2], ds.y[:2].tolist()
    (['sepal length (cm)', 'sepal width (cm)'], ['setosa', 'setosa'])

    A downloaded one is read from its CSV in the cache (here a made-up file):

    >>> import os, tempfile
    >>> import pandas as pd
    >>> with tempfile.TemporaryDirectory() as home:
    ...     pd.DataFrame({"glucose": [148.0, 85.0], "class": ["pos", "neg"]}).to_csv(
    ...         os.path.join(home, "pima.csv"), index=False)
    ...     ds = real.load("pima", data_home_path=home, download=False)
    >>> ds.X.shape, ds.y.tolist()
    ((2, 1), ['pos', 'neg'])
    """
    if name in BUNDLED:
        return _load_bundled(name)
    if name not in REMOTE:
        raise ValueError(f"unknown data set {name!r}; available: {', '.join(available())}")
    source, ident, task, target, notes = REMOTE[name]
    home = data_home(data_home_path)
    cached = home / f"{name}.csv"
    if cached.exists():
        frame = pd.read_csv(cached)
        return _from_frame(name, frame, target, task, f"cache {cached}", notes)
    where = f"OpenML data id {ident}" if source == "openml" else f"scikit-learn {ident}"
    help_text = (f"Run kx.datasets.real.load({name!r}) once with network access, or save the data as "
                 f"CSV (features plus a {target!r} column) at {cached}")
    if not download:
        raise DatasetUnavailable(f"data set {name!r} is not cached at {cached} and download=False. "
                                 + help_text)
    if not _reachable(_HOSTS[source]):
        raise DatasetUnavailable(f"data set {name!r} is not available offline: {where} cannot be reached "
                                 f"and no cached copy exists at {cached}. " + help_text)
    try:
        frame = _download(source, ident, target, home)
    except Exception as exc:  # network errors of every kind end here, clearly labelled
        raise DatasetUnavailable(f"data set {name!r} could not be downloaded from {where} "
                                 f"({type(exc).__name__}: {exc}); no cached copy at {cached}. "
                                 + help_text) from exc
    # atomic: an interrupted write never leaves a truncated CSV that later loads as the cache
    with atomic_write(cached, newline="") as fh:
        frame.to_csv(fh, index=False)
    return _from_frame(name, frame, target, task, f"downloaded from {where}", notes)


def _load_bundled(name):
    import sklearn.datasets as skd

    loader, task = BUNDLED[name]
    bunch = getattr(skd, loader)(as_frame=True)
    X, y = bunch.data, bunch.target
    if task == "classification" and hasattr(bunch, "target_names"):
        y = pd.Series(np.asarray(bunch.target_names)[np.asarray(y)], name="target")
    return Dataset(name, X, y, task, f"scikit-learn {loader} (bundled)")


def _download(source, ident, target, home):
    import sklearn.datasets as skd

    if source == "openml":
        bunch = skd.fetch_openml(data_id=ident, data_home=str(home / "openml"), as_frame=True,
                                 n_retries=1, delay=0.5)
    else:
        bunch = getattr(skd, ident)(data_home=str(home / "sklearn"), as_frame=True, n_retries=1, delay=0.5)
    frame = bunch.data.copy()
    frame[target] = np.asarray(bunch.target)
    return frame


def _from_frame(name, frame, target, task, source, notes):
    if target not in frame.columns:
        raise ValueError(f"cached data for {name!r} has no target column {target!r}; "
                         f"columns: {list(frame.columns)}")
    X = frame.drop(columns=[target])
    categorical = [str(c) for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    return Dataset(name, X, frame[target], task, source, notes, categorical)


def numeric_design(ds: Dataset, *, dropna: bool = True) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Features as floats: categorical columns ordinal-coded, rows with missing values dropped.

    Parameters
    ----------
    ds : Dataset
        A data set from :func:`load` (or made by hand).
    dropna : bool, default True
        Drop the rows with a missing feature or target; if False they are
        kept (a missing category is coded -1, a missing number stays NaN).

    Returns
    -------
    X : ndarray (n, d)
    y : ndarray (n,)
    categorical : list of int
        Column indices that were categorical (use a Categorical kernel factor there).

    Examples
    --------
    >>> import pandas as pd
    >>> from kernelxai.datasets.real import Dataset, numeric_design
    >>> frame = pd.DataFrame({"size": [1.0, 2.0, None], "colour": ["red", "green", "red"]})
    >>> ds = Dataset("toy", frame, pd.Series([0.0, 1.0, 2.0]), "regression", "by hand", categorical=["colour"])
    >>> X, y, cat = numeric_design(ds)   # the row with a missing size is dropped
    >>> X, y, cat
    (array([[1., 1.],
           [2., 0.]]), array([0., 1.]), [1])
    """
    X = ds.X.copy()
    keep = ~(X.isna().any(axis=1) | ds.y.isna()) if dropna else np.ones(len(X), bool)
    X, y = X[keep], ds.y[keep]
    cat = []
    for j, col in enumerate(X.columns):
        if str(col) in ds.categorical or not pd.api.types.is_numeric_dtype(X[col]):
            X[col] = pd.Categorical(X[col]).codes.astype(float)
            cat.append(j)
    return X.to_numpy(dtype=float), np.asarray(y), cat
