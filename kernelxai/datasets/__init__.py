"""Data: the synthetic designs of the papers and loaders for real data sets.

One module per source: ``rkhs_shap`` (RKHS-SHAP experiments), ``pkex``
(PKeX-Shapley experiments), ``thesis`` (uncertainty experiments), ``real``
(real-data loaders with a local cache; never a silent substitute when offline).
"""

from . import (  # noqa: F401
    pkex,  # noqa: F401
    real,
    rkhs_shap,
)
from .thesis import thesis_game, thesis_model, thesis_sample  # noqa: F401
