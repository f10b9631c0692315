"""Running the report notebook and writing its three files, all or nothing.

Takes :class:`~kernelxai.report.ReportInputs` and the HTML path asked for; hands on the paths of
the standalone HTML, the executed notebook and the JSON of the numbers, and the numbers. The
notebook (``report.ipynb``, shipped inside this package; its source is
``notebooks/report/report.py``) runs with papermill in a temporary folder next to the HTML; only
when it ran and its HTML was written are the three files moved into place, so a failure leaves
no half-written report. The HTML is nbconvert's lab template without its scripts (RequireJS,
MathJax, Mermaid, widgets): figures are embedded as data URIs and nothing is fetched at view
time, which :func:`online_references` checks before anything is written.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from ._inputs import ReportInputs, write_inputs
from ._load import ReportInputError

__all__ = ["NOTEBOOK", "ReportFailure", "render_report", "check_out", "to_html", "online_references",
           "hide_parameters", "static_outputs"]

#: the report notebook shipped with kernelxai
NOTEBOOK = Path(__file__).resolve().parent / "report.ipynb"

#: the lab template of nbconvert without anything that loads from the network
_TEMPLATE = """{%- extends "index.html.j2" -%}
{% block html_head_js %}{% endblock html_head_js %}
{% block jupyter_widgets %}{% endblock jupyter_widgets %}
{% block html_head_js_mathjax %}{% endblock html_head_js_mathjax %}
{% block html_head_js_mermaidjs %}{% endblock html_head_js_mermaidjs %}
"""

#: a script, stylesheet, image or frame loaded from the network (comments in CSS are not loads)
_ONLINE = re.compile(r"<(?:script|img|iframe)[^>]*\ssrc=[\"']?(?:https?:)?//[^>]*>"
                     r"|<link[^>]*\shref=[\"']?(?:https?:)?//[^>]*>"
                     r"|@import\s+(?:url\()?[\"']?(?:https?:)?//", re.IGNORECASE)

#: the MIME type of a widget's output (a live view; nothing without a widget manager)
WIDGET = "application/vnd.jupyter.widget-view+json"

#: papermill's tag of the cell it injects (it holds this run's temporary paths and key)
INJECTED = "injected-parameters"

_NEEDED = {"nbconvert": "writes the HTML", "ipykernel": "runs the notebook", "nbformat": "reads it"}


class ReportFailure(RuntimeError):
    """The report could not be made: ``kx.explain`` refused the model, a cell failed, or the HTML was not written.

    Nothing is written when it is raised (``python -m kernelxai.report`` exits with status 1).

    Examples
    --------
    >>> import kernelxai as kx
    >>> issubclass(kx.report.ReportFailure, RuntimeError)
    True
    """


def online_references(html: str) -> list[str]:
    """The tags of ``html`` that would load something from the network (a standalone report has none)."""
    return [m.group(0)[:120] for m in _ONLINE.finditer(html)]


def hide_parameters(nb: Any) -> Any:
    """``nb`` without papermill's injected-parameters cell and the parameters it recorded (temporary paths, a key)."""
    nb["cells"] = [c for c in nb["cells"] if INJECTED not in c.get("metadata", {}).get("tags", [])]
    papermill = nb.get("metadata", {}).get("papermill", {})
    for key in ("parameters", "input_path", "output_path"):
        papermill.pop(key, None)
    return nb


def static_outputs(nb: Any) -> Any:
    """``nb`` with each widget output that carries a static drawing (HTML or an image) shown as that drawing.

    A page without a widget manager (the standalone HTML) cannot draw a widget; the report's
    explorer displays its first drawing beside the widget, and nbconvert, which prefers the
    widget, is given the drawing alone. A widget without a drawing is left as it is.
    """
    static = ("text/html", "image/png", "image/svg+xml", "image/jpeg")
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET in data and any(data.get(kind) for kind in static):
                del data[WIDGET]
    return nb


def to_html(nb: Any, title: str) -> str:
    """The executed notebook as one standalone HTML page: prose and outputs, no code, no network.

    Raises
    ------
    ReportFailure
        When the page would still load something from the network (named).
    """
    import nbformat
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    config = Config()
    config.TagRemovePreprocessor.enabled = True
    config.TagRemovePreprocessor.remove_cell_tags = {INJECTED, "parameters"}
    exporter = HTMLExporter(config=config, template_name="lab", template_file="kx_report.html.j2",
                            extra_loaders=[DictLoader({"kx_report.html.j2": _TEMPLATE})], exclude_input=True,
                            exclude_input_prompt=True, exclude_output_prompt=True, embed_images=True)
    node = static_outputs(nbformat.reads(nbformat.writes(nb), as_version=4))   # a copy, sources as strings
    node.metadata["title"] = title
    try:
        body, _ = exporter.from_notebook_node(node)
    except Exception as exc:
        raise ReportFailure(f"nbconvert could not write the HTML: {type(exc).__name__}: {exc}") from exc
    online = online_references(body)
    if online:
        raise ReportFailure(f"the HTML report would load from the network: {online[:3]}")
    return body


def _check_requirements() -> None:
    import importlib.util

    missing = [m for m in _NEEDED if importlib.util.find_spec(m) is None]
    if missing:
        raise ReportFailure("the report needs the notebooks extra: pip install 'kernelxai[notebooks]' (missing: "
                            + ", ".join(f"{m}, which {_NEEDED[m]}" for m in missing) + ")")


@contextlib.contextmanager
def _quiet_kernel(log: Path):
    """The kernel's stderr (file descriptor 2, which it inherits) into ``log``; this process's stays on the console.

    papermill's progress bar is written to ``sys.stderr``, which is pointed at a copy of the
    console's descriptor meanwhile; papermill's own warnings about the parameters cell are muted.
    """
    logger = logging.getLogger("papermill")
    level = logger.level
    logger.setLevel(logging.ERROR)
    sys.stderr.flush()
    saved, python_stderr = os.dup(2), sys.stderr
    console = open(saved, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)
    with open(log, "w", encoding="utf-8") as fh:
        os.dup2(fh.fileno(), 2)
        sys.stderr = console
        try:
            yield
        finally:
            console.close()   # flushed; the descriptor stays open (closefd=False)
            sys.stderr = python_stderr
            os.dup2(saved, 2)
            os.close(saved)
            logger.setLevel(level)


@contextlib.contextmanager
def _inline_figures():
    """The kernel's figures as inline PNG outputs, whatever MPLBACKEND this process has (restored after)."""
    saved = os.environ.get("MPLBACKEND")
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("MPLBACKEND", None)
        else:
            os.environ["MPLBACKEND"] = saved


def _execute(staging: Path, stem: str, inputs_dir: Path, key: str, *, seed, progress, timeout) -> None:
    import papermill as pm

    parameters = {"inputs_path": str(inputs_dir), "inputs_key": key, "results_path": str(staging / f"{stem}.json"),
                  "seed": int(seed)}
    try:
        with _inline_figures(), _quiet_kernel(staging / "kernel.log"):
            pm.execute_notebook(str(NOTEBOOK), str(staging / f"{stem}.ipynb"), parameters=parameters,
                                kernel_name="python3", cwd=str(staging), progress_bar=progress, log_output=False,
                                execution_timeout=timeout)
    except Exception as exc:   # papermill's error names the cell; keep its last line (the exception)
        text = str(getattr(exc, "evalue", "") or exc).strip()
        name = getattr(exc, "ename", type(exc).__name__)
        cell = getattr(exc, "exec_count", None)
        where = f" in cell {cell}" if cell is not None else ""
        raise ReportFailure(f"the report notebook failed{where}: {name}: {text.splitlines()[-1] if text else ''}") \
            from exc


def check_out(out: str | os.PathLike) -> Path:
    """The HTML path ``-o`` names, absolute (the kernel runs in another folder); refused if it cannot be one.

    Raises
    ------
    ReportInputError
        ``out`` is a directory, lies under a file, or ends in ``.ipynb`` / ``.json`` (written next to it).
    """
    out = Path(out).resolve()
    if out.is_dir():
        raise ReportInputError(f"-o {out} is a directory; give the HTML file to write, e.g. {out / 'report.html'}")
    if out.suffix.lower() in (".ipynb", ".json"):
        raise ReportInputError(f"-o {out}: the HTML file must not end in .ipynb or .json (those are written "
                               "next to it)")
    blocked = next((p for p in out.parents if p.exists() and not p.is_dir()), None)
    if blocked is not None:
        raise ReportInputError(f"-o {out} cannot be written: {blocked} is a file, not a folder")
    return out


def render_report(inputs: ReportInputs, out: str | os.PathLike, *, seed: int = 0, progress: bool = True,
                  timeout: int = 1800, echo=None) -> tuple[tuple[Path, Path, Path], dict]:
    """Run the report notebook on ``inputs``; write ``out`` (HTML), its ``.ipynb`` and ``.json`` all or nothing.

    Returns
    -------
    ((html, notebook, json), numbers)

    Raises
    ------
    ReportFailure
        The notebooks extra is missing, the notebook failed (the cell and its error), or the HTML
        would need the network; nothing is written then.
    """
    _check_requirements()
    import nbformat

    out = check_out(out)
    made = [p for p in (out.parent, *out.parent.parents) if not p.exists()]   # removed again on failure
    out.parent.mkdir(parents=True, exist_ok=True)
    stem = out.stem
    echo = echo or (lambda text: None)
    staging = Path(tempfile.mkdtemp(prefix=f".{stem}-", dir=out.parent))
    inputs_dir = Path(tempfile.mkdtemp(prefix="kernelxai-report-inputs-"))
    try:
        key = write_inputs(inputs, inputs_dir)
        _execute(staging, stem, inputs_dir, key, seed=seed, progress=progress, timeout=timeout)
        if not (staging / f"{stem}.json").is_file():
            raise ReportFailure("the report notebook ran but wrote no numbers (its last cell did not run?)")
        numbers = json.loads((staging / f"{stem}.json").read_text(encoding="utf-8"))
        nb = hide_parameters(nbformat.read(staging / f"{stem}.ipynb", as_version=4))
        nbformat.write(nb, staging / f"{stem}.ipynb")
        echo("writing the standalone HTML")
        (staging / out.name).write_text(to_html(nb, f"kernelxai report: {stem}"), encoding="utf-8")
        targets = (out, out.with_suffix(".ipynb"), out.with_suffix(".json"))
        for source, target in zip((out.name, f"{stem}.ipynb", f"{stem}.json"), targets):
            os.replace(staging / source, target)
        made = []
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(inputs_dir, ignore_errors=True)
        for folder in made:   # deepest first: the folders this call made, if nothing else is in them
            with contextlib.suppress(OSError):
                folder.rmdir()
    return targets, numbers
