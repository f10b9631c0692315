"""Run a notebook with papermill in smoke mode and return the results it wrote.

Every notebook test calls :func:`run_notebook` with the notebook's name; the
catalogue test checks that each notebook has such a test. :func:`run_notebook`
also compares the results with the notebook's smoke-mode baseline
(notebooks/baselines/NAME.json, see kernelxai.check) and fails the test on drift.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
OUT = ROOT / "build" / "test-notebooks"

#: seconds any single cell may run in smoke mode before the test fails
CELL_TIMEOUT = int(os.environ.get("KERNELXAI_CELL_TIMEOUT", "300"))


class NotebookCellError(AssertionError):
    """A notebook cell raised; the message names the cell and the error."""


def execute(path, results, parameters, out_dir=OUT, timeout=CELL_TIMEOUT):
    """Run ``path`` with papermill (per-cell ``timeout``); raise NotebookCellError on failure.

    A parameter name the notebook's parameters cell does not assign is refused
    before a kernel starts, naming it, the accepted names and a close one.
    """
    from kernelxai.workbench._reporting import check_parameter_names, notebook_parameters

    path = Path(path)
    try:
        check_parameter_names([*parameters, "results_path"], notebook_parameters(path), notebook=path.stem)
    except ValueError as exc:
        raise NotebookCellError(str(exc)) from None
    import papermill as pm
    from papermill.exceptions import PapermillExecutionError

    out_dir.mkdir(parents=True, exist_ok=True)
    executed = out_dir / path.name
    try:
        for attempt in (1, 2):
            try:
                pm.execute_notebook(
                    str(path), str(executed), parameters={**parameters, "results_path": str(results)},
                    kernel_name="python3", cwd=str(path.parent), progress_bar=False,
                    execution_timeout=timeout,
                )
                break
            except RuntimeError as exc:
                # jupyter_client picks free ports before the kernel binds them, so a kernel
                # started while other processes start kernels can lose its port ("Address
                # already in use") and never answer; that is not the notebook's failure:
                # start it once more. Any error raised by a cell is not a RuntimeError here.
                if attempt == 2 or "Kernel didn't respond" not in str(exc):
                    raise
                warnings.warn(f"{path.stem}: the kernel did not start ({exc}); starting it again", stacklevel=2)
    except PapermillExecutionError as exc:
        position, first_line = _failing_cell(executed, exc.exec_count)
        raise NotebookCellError(
            f"{path.stem}: cell {position} failed (execution count {exc.exec_count})\n"
            f"  cell starts: {first_line}\n  {exc.ename}: {exc.evalue}"
        ) from None
    except TimeoutError as exc:  # a cell ran past the per-cell timeout
        raise NotebookCellError(f"{path.stem}: a cell ran longer than {timeout} s ({exc})") from None


def run_notebook(name, **parameters):
    """Execute notebooks/NAME.ipynb with ``smoke=True, seed=0`` and return its results JSON.

    A failing cell fails the test with the cell's number, its first source
    line and the error, instead of papermill's generic message. The results
    are compared with the smoke-mode baseline (:func:`compare_with_baseline`).
    """
    path = NOTEBOOKS / f"{name}.ipynb"
    if not path.exists():
        pytest.fail(f"notebook {path.relative_to(ROOT)} does not exist")
    results = OUT / f"{name}.json"
    if results.exists():
        results.unlink()
    params = {"smoke": True, "seed": 0, **parameters}
    try:
        execute(path, results, params)
    except NotebookCellError as exc:
        pytest.fail(str(exc), pytrace=False)
    if not results.exists():
        pytest.fail(f"{name} ran but wrote no results to results_path")
    noisy = _stderr_warnings(OUT / path.name)
    if noisy:  # a warning printed into a cell is what a Voila or Binder reader sees
        pytest.fail(f"{name} printed warnings:\n" + "\n".join(f"  cell {c}: {w}" for c, w in noisy),
                    pytrace=False)
    found = json.loads(results.read_text())
    compare_with_baseline(name, found, overrides=params)
    return found


def compare_with_baseline(name, results, overrides=()):
    """Fail the test if ``results`` drifted from notebooks/baselines/NAME.json (their mode's block).

    ``overrides`` are the parameters the test set: if the run differs from the
    baseline's parameters only in those, nothing is compared. A notebook
    without a baseline gives a warning, not a failure.
    """
    from kernelxai.check import compare_notebook

    comparison = compare_notebook(name, results, baselines=NOTEBOOKS / "baselines", overrides=overrides)
    if comparison.failed:
        pytest.fail(comparison.message(), pytrace=False)
    if comparison.status == "no baseline":
        warnings.warn(comparison.message(), stacklevel=2)
    return comparison


def _stderr_warnings(executed):
    """[(cell position, warning line)] for every warning a cell wrote to stderr."""
    nb = json.loads(Path(executed).read_text())
    found = []
    for position, cell in enumerate(nb["cells"], 1):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stderr":
                text = "".join(out["text"])
                found += [(position, line.strip()) for line in text.splitlines() if "Warning" in line]
    return found


def _failing_cell(executed, exec_count):
    """(1-based position in the source notebook, first source line) of the failed cell."""
    try:
        nb = json.loads(Path(executed).read_text())
    except (OSError, ValueError):
        return "?", "?"
    added = {"injected-parameters", "papermill-error-cell-tag"}  # cells papermill inserts
    cells = [c for c in nb["cells"] if not added & set(c.get("metadata", {}).get("tags", []))]
    for position, cell in enumerate(cells, 1):
        if cell.get("execution_count") == exec_count:
            src = "".join(cell["source"]).strip().splitlines()
            return position, (src[0] if src else "(empty)")
    return "?", "?"
