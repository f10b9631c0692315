"""Write the notebook gallery (docs/gallery/) from the executed notebooks.

Takes every ``notebooks/*.ipynb`` and its executed copy from the folder that ``make docs`` names
(``kx_executed_notebooks``: build/notebooks/ after ``make run`` or ``make smoke``); hands Sphinx
the executed copies (rendered by MyST-NB with their outputs, never executed here) and an index
page with, per notebook, a thumbnail (the headline figure of the executed copy), a one-line
description and a link that opens it on Binder. A notebook without an executed copy, or without
a description below, is a warning, so ``sphinx-build -W`` fails rather than publish a gap.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

from sphinx.util import logging

LOGGER = logging.getLogger(__name__)

#: one line per notebook (the catalogue of docs/user-guide/notebooks.md, shortened)
DESCRIPTIONS = {
    "00-index": "The map of all notebooks, with a browser of the explanations and the Binder links.",
    "01-shapley-games": "Taxi and airport games, KernelSHAP as weighted least squares, permutation "
                        "intervals and their coverage.",
    "02-rkhs-shap": "RKHS-SHAP: interventional values from kernel mean embeddings, observational "
                    "values from conditional mean embeddings.",
    "03-pkex-shapley": "Exact Shapley values of product-kernel models (functional baseline): quadrature, "
                       "the paper's recursions, brute force, a 40-digit check.",
    "04-shapley-regulariser": "Shapley values as representer matrices; learning with a penalty on a "
                              "feature's Shapley values (ISV-REG, OSV-REG).",
    "05-mmd-hsic-shapley": "MMD between two samples and HSIC between features and target, split over "
                           "the features.",
    "06-uncertainty": "How sure an explanation is: interval coverage of every estimator, Shapley "
                      "residuals, Bayesian SHAP.",
    "07-shapley-regression-groups": "R² decomposed over covariates; group Shapley for R² and kernel models.",
    "08-your-model": "Explaining the models people fit: pipelines, an SVC in three output spaces, "
                     "multi-class iris, a GP with a composite kernel; every route checked.",
    "09-interactions": "Exact pairwise Shapley interactions (SII, k-SII, STII, FSII) of kernel models.",
    "25-interactions-any-order": "Interactions of every order and index, exact: the functional ANOVA "
                                 "of an SVR, the indices compared, credible intervals of a GP.",
    "26-sampled-explanations": "How good is a sampled explanation? Every sampled estimator scored "
                               "against exact values: error against budget, interval coverage.",
    "10-banana-rkhs-shap": "RKHS-SHAP Exp. 1: recovering exact Shapley values on the Banana distribution.",
    "11-runtime-rkhs-shap": "RKHS-SHAP Exp. 2: how much faster mean embeddings are than model calls.",
    "12-covariate-shift-isv-reg": "RKHS-SHAP Exp. 3: does ISV-REG protect against noise on a feature at "
                                  "test time?",
    "13-fairness-osv-reg": "RKHS-SHAP Exp. 4: OSV-REG removes a sensitive feature and its proxy, "
                           "ISV-REG only the feature.",
    "14-real-data-rkhs-shap": "RKHS-SHAP App. E/C: diabetes (RBF and Matérn) and breast cancer "
                              "(kernel logistic regression).",
    "15-robustness": "RKHS-SHAP Theorem 6: nearby points get nearby explanations, measured exactly.",
    "16-gp-shap": "Stochastic Shapley values of a Gaussian process: credible bands, correlated "
                  "attributions, predicted explanations.",
    "17-scaling": "Scaling up: a Nyström model on 10⁴–10⁶ rows explained exactly, time against d "
                  "and n, two workers, a summarised background and its bound.",
    "18-conditional-estimators": "The lecture's conditional estimators for dependent features against "
                                 "exact conditional Shapley values.",
    "19-anomalies": "Why was this flagged? OneClassSVM and kernel density on breast cancer, explained "
                    "exactly against a chosen reference set.",
    "20-pkex-exact-vs-sampling": "PKeX Exp. 1: how many coalitions KernelSHAP needs to approach the "
                                 "exact values as d grows.",
    "21-pkex-feature-recovery": "PKeX Exp. 2: recovery of 17 active features out of 50.",
    "22-pkex-runtime": "PKeX Fig. 1: runtime of brute force, the paper's recursion and the quadrature.",
    "23-mmd-attribution": "PKeX §5.2: which features make two samples differ.",
    "24-hsic-feature-selection": "PKeX §5.3: feature selection by HSIC Shapley values against MI, "
                                 "Lasso, K-best and trees.",
    "30-uncertainty-pipeline": "Thesis ch. 3: which kind of uncertainty responds to correlation, "
                               "interaction, non-linearity and sample size.",
}


#: a link from a notebook to an exercise notebook (notebooks/exercises/, not part of the gallery)
EXERCISE_LINK = re.compile(r"\]\(exercises/([\w.-]+)\.ipynb\)")


def link_exercises(text: str, binder: str) -> str:
    """Point the links to ``exercises/*.ipynb`` of an executed notebook at Binder (they have no page here)."""
    return EXERCISE_LINK.sub(lambda m: "](" + binder.format(name="exercises/" + m[1]) + ")", text)


#: a line of papermill's injected cell that sets a path of the machine that ran the notebook
BUILD_PATH = re.compile(r"^\s*results_path\s*=")


def hide_build_paths(nb: dict) -> dict:
    """``nb`` with papermill's injected-parameters cell showing only what differs from the defaults.

    papermill writes every parameter it set into a cell tagged ``injected-parameters``; the build
    sets ``results_path`` to an absolute path of the machine that built the site, which says nothing
    about the notebook. That line (and the paths papermill records in the metadata) is dropped; the
    cell is kept when it still sets something (``smoke = True``), else removed.
    """
    cells = []
    for cell in nb.get("cells", []):
        if "injected-parameters" in cell.get("metadata", {}).get("tags", []):
            source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            lines = [line for line in source.splitlines() if not BUILD_PATH.match(line)]
            if not any(line.strip() and not line.lstrip().startswith("#") for line in lines):
                continue
            cell = {**cell, "source": "\n".join(lines)}
        cells.append(cell)
    papermill = nb.get("metadata", {}).get("papermill", {})
    papermill.get("parameters", {}).pop("results_path", None)
    for key in ("input_path", "output_path"):
        papermill.pop(key, None)
    return {**nb, "cells": cells}


def headline_png(nb: dict) -> bytes | None:
    """The PNG of the cell tagged 'headline' (else the first PNG) of an executed notebook."""
    first = None
    for cell in nb.get("cells", []):
        for output in cell.get("outputs", []):
            png = output.get("data", {}).get("image/png")
            if png is None:
                continue
            png = base64.b64decode(png if isinstance(png, str) else "".join(png))
            if "headline" in cell.get("metadata", {}).get("tags", []):
                return png
            first = first or png
    return first


def _mode(nb: dict) -> str:
    params = nb.get("metadata", {}).get("papermill", {}).get("parameters", {})
    if params.get("smoke"):
        return "smoke mode"
    if params.get("paper"):
        return "the papers' settings"
    return "default settings"


def write_gallery(app) -> None:
    src = Path(app.srcdir)
    root = src.parent
    executed = Path(app.config.kx_executed_notebooks or root / "build" / "notebooks")
    out = src / "gallery"
    thumbs = out / "thumbs"
    thumbs.mkdir(parents=True, exist_ok=True)
    binder = app.config.binder_url
    cards, toc, modes = [], [], set()
    for nb_path in sorted((root / "notebooks").glob("*.ipynb")):
        name = nb_path.stem
        description = DESCRIPTIONS.get(name)
        if description is None:
            LOGGER.warning("notebook %s has no one-line description in docs/_ext/kx_gallery.py", name)
            description = ""
        run = executed / nb_path.name
        if not run.exists():
            LOGGER.warning("notebook %s has no executed copy in %s (run make docs, make smoke or make run)",
                           name, executed)
            continue
        nb = hide_build_paths(json.loads(link_exercises(run.read_text(encoding="utf-8"), binder)))
        text = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
        target = out / nb_path.name
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
        modes.add(_mode(nb))
        png = headline_png(nb)
        thumb = ""
        if png is not None:
            path = thumbs / f"{name}.png"
            if not path.exists() or path.read_bytes() != png:
                path.write_bytes(png)
            thumb = f'<img src="thumbs/{name}.png" alt="{name}" width="180">'
        cards.append(f"| {thumb} | {{doc}}`{name} <{name}>` | {description} | "
                     f"[open on Binder]({binder.format(name=name)}) |")
        toc.append(name)
    how = ", ".join(sorted(modes)) or "none"
    page = [
        "# Notebook gallery", "",
        "Every notebook of `notebooks/`, rendered with its outputs. The pages are **not executed",
        "when the site is built**: `make docs` renders the executed copies that `make run` (default",
        "settings) or `make smoke` (smoke mode, what the tests run) left in `build/notebooks/`, and",
        "runs the missing ones in smoke mode first (`scripts/run_notebooks.py --smoke`: seconds each,",
        "compared with the recorded baselines). Smoke mode shrinks the sizes, so numbers and figures",
        f"are coarser than a full run's. This build rendered notebooks executed with: **{how}**.", "",
        "Each name opens the rendered notebook here; *open on Binder* starts it in JupyterLab on mybinder.org.", "",
        "**An example report**: what `python -m kernelxai.report` writes for an SVR pipeline on scikit-learn's",
        'diabetes data, <a href="../_static/example-report.html">as one standalone HTML file</a>, and the same',
        "report notebook [as an app in Voilà on Binder](https://mybinder.org/v2/gh/kernelxai/kernelxai/main?"
        "urlpath=voila/render/kernelxai/report/report.ipynb) (see {doc}`../user-guide/reports`).", "",
        "| | notebook | what it shows | |", "|---|---|---|---|",
    ] + cards + ["", "```{toctree}", ":hidden:", ""] + toc + ["```", ""]
    text = "\n".join(page)
    index = out / "index.md"
    if not index.exists() or index.read_text(encoding="utf-8") != text:
        index.write_text(text, encoding="utf-8")


def setup(app):
    app.add_config_value("kx_executed_notebooks", "", "env")
    app.add_config_value("binder_url", "", "html")
    app.connect("builder-inited", write_gallery, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
