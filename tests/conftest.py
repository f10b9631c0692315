import os
import sys
from pathlib import Path

import matplotlib
from hypothesis import settings

# tests run headless; notebooks set their own (inline) backend in the kernel
matplotlib.use("Agg")
sys.path.insert(0, str(Path(__file__).resolve().parent))

settings.register_profile("ci", max_examples=60, deadline=None)
settings.register_profile("dev", max_examples=40, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_collection_modifyitems(config, items):
    """Tests marked ``timing`` compare wall time with the rates calibrated in the process: in a
    parallel run (an xdist worker) the other worker's load falls on them unevenly (a threaded BLAS
    product there halves the speed of some routes here and not of the calibration), so they are
    skipped there and ``make test`` runs them alone afterwards (``pytest -m timing``)."""
    import pytest

    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    skip = pytest.mark.skip(reason="timing: runs alone after the parallel run (make test does)")
    for item in items:
        if item.get_closest_marker("timing") is not None:   # the marker, not a keyword such as a test id
            item.add_marker(skip)
