"""Sphinx configuration of kernelxai's documentation (``make docs`` -> build/docs/).

The site builds offline: MathJax comes from the ``sphinx-mathjax-offline`` package and is copied
into ``_static/``, the theme's fonts and scripts are its own files, and notebook widgets load no
JavaScript from a CDN. ``docs/_ext/kx_offline.py`` fails the build if a page's ``<script>`` or
``<link>`` points at an http(s) URL. The API pages (``api/``) and the notebook gallery
(``gallery/``) are written at the start of every build by the local extensions in ``docs/_ext/``
from the code, the notebooks and their executed copies; the routes tables of ``routes.md`` are
generated from the code too, and the build fails while they are out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import kx_api  # noqa: E402

import kernelxai  # noqa: E402

# the API pages must exist before Sphinx lists the source files (autosummary reads them then)
kx_api.write_pages(HERE)

project = "kernelxai"
author = "kernelxai developers"
copyright = "kernelxai developers, BSD-3-Clause"
release = version = kernelxai.__version__ if hasattr(kernelxai, "__version__") else "0.1.0"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax 3 from the package, copied into _static/mathjax/
    "numpydoc",
    "myst_nb",
    "kx_api",
    "kx_gallery",
    "kx_routes",
    "kx_offline",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
# _generated/: the routes tables that older builds wrote there (they now live in routes.md)
exclude_patterns = ["_build", "figures/README*", "**.ipynb_checkpoints", "_templates", "_generated"]
templates_path = ["_templates"]

# --- autodoc / autosummary / numpydoc -------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # numpydoc's Parameters/Returns say the types
autodoc_member_order = "bysource"
# scikit-learn adds set_*_request / get_metadata_routing to every estimator; their docstrings
# point into scikit-learn's own documentation
autodoc_default_options = {
    "exclude-members": "set_fit_request,set_score_request,set_predict_request,set_transform_request,"
                       "set_partial_fit_request,set_output,get_metadata_routing",
}
numpydoc_show_class_members = False  # the class template lists the members
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = False
numpydoc_xref_param_type = False

# --- MyST and notebooks ---------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist", "html_image"]
myst_heading_anchors = 3
nb_execution_mode = "off"  # the gallery renders notebooks executed by scripts/run_notebooks.py
nb_ipywidgets_js = {}  # no RequireJS / widget manager from a CDN; widgets show their text
nb_mime_priority_overrides = [
    ("html", "application/vnd.jupyter.widget-view+json", None),
    ("html", "application/vnd.jupyter.widget-state+json", None),
]
nb_merge_streams = True
suppress_warnings = ["mystnb.unknown_mime_type", "myst.header"]

# --- HTML -----------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "kernelxai"
# _static/ holds the example report (scripts/example_report.py; make docs writes it when missing),
# copied as it is: a standalone HTML file that loads nothing
html_static_path = ["_static"]
html_theme_options = {
    "navbar_end": ["theme-switcher", "navbar-icon-links"],
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "use_edit_page_button": False,
    "check_switcher": False,
}
html_show_sourcelink = False
html_copy_source = False
html_last_updated_fmt = None

# The Binder URL of the README's badges (one notebook is appended by the gallery).
binder_url = "https://mybinder.org/v2/gh/kernelxai/kernelxai/main?urlpath=lab/tree/notebooks/{name}.ipynb"
