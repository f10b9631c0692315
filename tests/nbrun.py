"""Run a notebook with papermill in smoke mode and return the results it wrote.

Every notebook test calls :func:`run_notebook` with the notebook's name; the
catalogue test checks that each notebook has such a test.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
OUT = ROOT / "build" / "test-notebooks"

#: seconds any single cell may run in smoke mode before the test fails
CELL_TIMEOUT = int(os.environ.get("KERNELXAI_CELL_TIMEOUT", "300"))


def run_notebook(name, **parameters):
    """Execute notebooks/NAME.ipynb with ``smoke=True, seed=0`` and return its results JSON.

    A failing cell fails the test with the cell's number, its first source
    line and the error, instead of papermill's generic message.
    """
    import papermill as pm
    from papermill.exceptions import PapermillExecutionError

    path = NOTEBOOKS / f"{name}.ipynb"
    if not path.exists():
        pytest.fail(f"notebook {path.relative_to(ROOT)} does not exist")
    OUT.mkdir(parents=True, exist_ok=True)
    results = OUT / f"{name}.json"
    if results.exists():
        results.unlink()
    params = {"smoke": True, "seed": 0, "results_path": str(results), **parameters}
    try:
        pm.execute_notebook(
            str(path), str(OUT / path.name), parameters=params, kernel_name="python3",
            cwd=str(NOTEBOOKS), progress_bar=False, execution_timeout=CELL_TIMEOUT,
        )
    except PapermillExecutionError as exc:
        cell = _failing_cell(OUT / path.name, exc.exec_count)
        pytest.fail(
            f"{name}: cell {exc.exec_count} failed\n"
            f"  cell starts: {cell}\n  {exc.ename}: {exc.evalue}",
            pytrace=False,
        )
    if not results.exists():
        pytest.fail(f"{name} ran but wrote no results to results_path")
    return json.loads(results.read_text())


def _failing_cell(executed, exec_count):
    try:
        nb = json.loads(Path(executed).read_text())
    except (OSError, ValueError):
        return "?"
    for cell in nb["cells"]:
        if cell.get("execution_count") == exec_count:
            src = "".join(cell["source"]).strip().splitlines()
            return src[0] if src else "(empty)"
    return "?"
