"""Running the notebooks with papermill and comparing each with its baseline (the body of
``python -m kernelxai.check``).

Takes the notebooks (:func:`~kernelxai.check.notebooks_dir`) and their baselines; hands on one row per
notebook (ran or failed, seconds, summary, :class:`~kernelxai.check.Comparison`), written as a report by
``_check_report``. papermill is imported when a notebook is run (it is slow to import).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import sys
import time
from pathlib import Path

from ._check_report import write_report
from ._notebook_baselines import annotate, baselines_dir, compare_notebook, notebooks_dir
from ._parameter_names import check_parameter_names, notebook_parameters

__all__ = ["check_requirements", "run_check"]

#: modules the notebooks need beyond kernelxai's dependencies (the notebooks extra)
_NEEDED = {"ipykernel": "runs the notebooks", "nbformat": "reads them", "mpmath": "notebook 03's reference"}


def check_requirements() -> None:
    """Raise a RuntimeError naming the modules of the notebooks extra that are not installed.

    The modules are ipykernel (runs the notebooks), nbformat (reads them) and mpmath (notebook
    03's reference values); none is imported, only looked up.

    Raises
    ------
    RuntimeError
        When any is missing, naming each and the command that installs the extra.

    Examples
    --------
    >>> try:
    ...     check_requirements()
    ...     print("the notebooks can run")
    ... except RuntimeError as error:
    ...     print(str(error)[:53])
    the notebooks can run
    """
    missing = [m for m in _NEEDED if importlib.util.find_spec(m) is None]
    if missing:
        raise RuntimeError("python -m kernelxai.check needs the notebooks extra: pip install 'kernelxai[notebooks]' "
                           f"(missing: {', '.join(f'{m}, which {_NEEDED[m]}' for m in missing)})")


def _execute(path, results, parameters, out_nb, log, timeout):
    """Run one notebook with papermill; return an error string or None."""
    import papermill as pm

    logging.getLogger("papermill").setLevel(logging.ERROR)
    try:
        with open(log, "w", encoding="utf-8") as fh, _stderr_to(fh):
            pm.execute_notebook(str(path), str(out_nb), parameters={**parameters, "results_path": str(results)},
                                kernel_name="python3", cwd=str(path.parent), progress_bar=False,
                                execution_timeout=timeout, log_output=False)
    except Exception as exc:  # papermill names the failing cell in its message
        text = str(exc).strip()
        return f"{type(exc).__name__}: {text.splitlines()[-1] if text else ''}"
    return None


class _stderr_to:
    """Redirect file descriptor 2 (this process's and the kernel's stderr) to an open file."""

    def __init__(self, fh):
        self.fh = fh

    def __enter__(self):
        sys.stderr.flush()
        self.saved = os.dup(2)
        os.dup2(self.fh.fileno(), 2)

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)


def run_check(*, smoke=False, only=None, output="kernelxai-check", timeout=1800, echo=print,
              notebooks=None) -> list:
    """Run the notebooks, compare them with their baselines and write the report; return the rows.

    Parameters
    ----------
    smoke : bool
        Smoke mode (tiny sizes, a few minutes in all) instead of the default sizes.
    only : list of str, optional
        Notebook names to run (default: all).
    output : str or os.PathLike
        Directory for the executed notebooks, results, logs and ``report.md`` / ``report.html``.
    timeout : int
        Seconds any one cell may run.
    echo : callable
        Where progress lines go (None: nowhere).
    notebooks : str or os.PathLike, optional
        The directory of the notebooks and their ``baselines/`` (default: :func:`~kernelxai.check.notebooks_dir`).

    Returns
    -------
    list of dict
        One row per notebook: name, ok, error, seconds, summary, comparison.

    Raises
    ------
    ValueError
        Before any notebook runs: a name in ``only`` that is not a notebook, or a
        notebook whose parameters cell lacks a parameter the check sets
        (the names a notebook's ``parameters`` cell must define).
    RuntimeError
        When the notebooks extra is not installed (:func:`check_requirements`).
    FileNotFoundError
        When ``notebooks`` is not given and kernelxai has no notebooks
        (:func:`~kernelxai.check.notebooks_dir`).

    Examples
    --------
    Running the notebooks takes minutes; a name that is not a notebook is refused at once:

    >>> import tempfile
    >>> from kernelxai.check import run_check
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     try:
    ...         run_check(smoke=True, only=["01-shapley-gmaes"], output=tmp)
    ...     except ValueError as error:
    ...         print(error)
    no such notebook(s): 01-shapley-gmaes; available: 00-index, 01-shapley-games, ...
    """
    echo = echo or (lambda *a, **k: None)
    check_requirements()
    source = Path(notebooks) if notebooks is not None else notebooks_dir()
    paths = sorted(source.glob("[0-9][0-9]-*.ipynb"))
    if only:
        wanted = {n.removesuffix(".ipynb") for n in only}
        unknown = sorted(wanted - {p.stem for p in paths})
        if unknown:
            raise ValueError(f"no such notebook(s): {', '.join(unknown)}; "
                             f"available: {', '.join(p.stem for p in paths)}")
        paths = [p for p in paths if p.stem in wanted]
    params = {"smoke": True} if smoke else {}
    for path in paths:  # every name, before any kernel starts
        check_parameter_names([*params, "results_path"], notebook_parameters(path), notebook=path.stem)
    output = Path(output).resolve()
    for sub in ("notebooks", "results", "logs"):
        (output / sub).mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    rows = []
    for k, path in enumerate(paths, 1):
        name = path.stem
        echo(f"[{k}/{len(paths)}] {name} ...", end=" ", flush=True)
        results_path = output / "results" / f"{name}.json"
        if results_path.exists():
            results_path.unlink()
        start = time.perf_counter()
        error = _execute(path, results_path, params, output / "notebooks" / path.name,
                         output / "logs" / f"{name}.log", timeout)
        seconds = time.perf_counter() - start
        comparison, summary = None, ""
        if error is None and not results_path.exists():
            error = "the notebook wrote no results JSON"
        if error is None:
            results = json.loads(results_path.read_text(encoding="utf-8"))
            summary = results.get("summary", "")
            comparison = compare_notebook(name, results, baselines=baselines_dir(source))
            annotate(results_path, comparison)
        rows.append({"name": name, "ok": error is None, "error": error, "seconds": seconds,
                     "summary": summary, "comparison": comparison})
        echo(("FAILED" if error else comparison.cell()) + f" in {seconds:.0f} s", flush=True)
    write_report(rows, output, mode="smoke" if smoke else "default", source=source)
    return rows

