"""Many rows at once: chunks and reductions run with joblib, on one machine or a Dask cluster.

Takes the work to run as a callable (it never imports the entry points that
call it) and hands back the results in order, bit for bit what a serial run
gives.
"""

from .core import *  # noqa: F401,F403
from .core import __all__  # noqa: F401
