"""Importing kernelxai's plotting and widget modules draws nothing in: pyplot and ipywidgets load on use."""

import json
import os
import subprocess
import sys

HEAVY = ("matplotlib.pyplot", "ipywidgets")


def _loaded_after(statement):
    """The HEAVY modules in sys.modules after ``statement`` in a fresh interpreter."""
    code = (f"import sys, json\n{statement}\n"
            f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "MPLBACKEND": "agg"})
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_plots_and_widgets_import_without_pyplot_or_ipywidgets():
    assert _loaded_after("import kernelxai.plots, kernelxai.widgets") == []


def test_import_kernelxai_is_light():
    assert _loaded_after("import kernelxai") == []


def test_drawing_still_imports_pyplot():
    loaded = _loaded_after(
        "import numpy as np, kernelxai as kx\n"
        "kx.plots.bar(kx.Explanation(np.ones((3, 2))))"
    )
    assert "matplotlib.pyplot" in loaded
