"""The notebook catalogue: every notebook indexed, tested, conventional, in sync."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
NAMES = [p.stem for p in NOTEBOOKS]
REQUIRED_PARAMETERS = ("smoke", "paper", "seed", "results_path")


def _load(path):
    return json.loads(path.read_text())


def _source(cell):
    src = cell["source"]
    return src if isinstance(src, str) else "".join(src)


def test_there_are_notebooks():
    assert "00-index" in NAMES and "01-shapley-games" in NAMES


def test_index_links_every_notebook_and_every_link_resolves():
    index = _load(ROOT / "notebooks" / "00-index.ipynb")
    text = "\n".join(_source(c) for c in index["cells"] if c["cell_type"] == "markdown")
    links = set(re.findall(r"\(([0-9][0-9]-[A-Za-z0-9-]+)\.ipynb\)", text))
    missing_files = sorted(links - set(NAMES))
    assert not missing_files, f"00-index links notebooks that do not exist: {missing_files}"
    unlisted = sorted(set(NAMES) - links - {"00-index"})
    assert not unlisted, f"notebooks not linked from 00-index: {unlisted}"


def test_every_notebook_has_a_test():
    tests = "\n".join(p.read_text() for p in (ROOT / "tests").glob("test_*.py"))
    untested = [n for n in NAMES if f'run_notebook("{n}"' not in tests]
    assert not untested, f"notebooks without a test calling run_notebook: {untested}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NAMES)
def test_notebook_conventions(path):
    nb = _load(path)
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    params = [c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(params) == 1, "exactly one cell must be tagged 'parameters'"
    text = _source(params[0])
    for name in REQUIRED_PARAMETERS:
        assert re.search(rf"^{name}\s*=", text, re.M), f"parameters cell lacks {name!r}"
    code = "\n".join(_source(c) for c in nb["cells"] if c["cell_type"] == "code")
    _check_parameter_conventions(path.stem, text, code)
    assert "matplotlib.use(" not in code, "notebooks must not force a matplotlib backend"
    assert "results_path" in code.replace(text, ""), "the notebook never writes results_path"
    # an interactive section built on kx.widgets (figures as display data: never stalls headless)
    assert "kx.widgets." in code, "the notebook has no interactive section (kx.widgets)"
    assert "widgets.interact(" not in code.replace("kx.widgets.interact(", ""), \
        "use kx.widgets.interact: ipywidgets.interact captures output and can stall papermill/Voila"
    for cell in nb["cells"]:
        assert not cell.get("outputs"), "commit notebooks without outputs (make run renders them)"


def _check_parameter_conventions(name, parameters, code):
    """Sizes are kx.workbench.default(...)s resolved (and validated) once; results go to build/."""
    assert parameters.lstrip().startswith("import kernelxai as kx"), \
        "the parameters cell must start with `import kernelxai as kx` (for kx.workbench.default)"
    m = re.search(r"^results_path\s*=\s*(.+)$", parameters, re.M)
    assert m.group(1).strip().startswith(f'"../build/results/{name}.json"'), \
        f"results_path must default to \"../build/results/{name}.json\" (not into the repository)"
    rest = code.replace(parameters, "")
    assert "kx.workbench.resolve_parameters(globals())" in rest, "the notebook never resolves its parameters"
    overrides = re.findall(r"^\s*(?:if|elif)\s+(?:not\s+)?(?:smoke|paper)\b.*$", rest, re.M)
    overrides += re.findall(r"\bif\s+(?:not\s+)?(?:smoke|paper)\s+else\b", rest)
    assert not overrides, f"mode-dependent sizes belong in kx.workbench.default(...): {overrides}"
    assert re.search(r"save_results\((?:[^()]|\([^()]*\))*parameters=|\[\"parameters\"\]\s*=", rest, re.S), \
        "the results JSON must record the parameters used (save_results(..., parameters=params))"


def test_notebooks_match_their_sources():
    sources = {p.stem for p in (ROOT / "notebooks" / "src").glob("*.py")}
    assert sources == set(NAMES), "every notebook needs a source in notebooks/src and vice versa"
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_notebooks.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def _toy_notebook(path, cells):
    nb = {"cells": [{"cell_type": "code", "metadata": {"tags": ["parameters"]} if i == 0 else {},
                     "source": src, "outputs": [], "execution_count": None, "id": f"c{i}"}
                    for i, src in enumerate(cells)],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb))
    return path


def test_a_failing_notebook_names_the_failing_cell(tmp_path):
    from nbrun import NotebookCellError, execute

    nb = _toy_notebook(tmp_path / "broken.ipynb",
                       ["smoke = False\nresults_path = None", "x = 1", "ratio = x / 0  # divide", "y = 2"])
    expected = r"cell 3 failed \(execution count 4\)\n  cell starts: ratio = x / 0.*\n.*ZeroDivisionError"
    with pytest.raises(NotebookCellError, match=expected):
        execute(nb, tmp_path / "r.json", {"smoke": True}, out_dir=tmp_path / "out")


def test_a_hanging_cell_hits_the_per_cell_timeout(tmp_path):
    from nbrun import NotebookCellError, execute

    nb = _toy_notebook(tmp_path / "slow.ipynb", ["smoke = False\nresults_path = None",
                                                 "import time\ntime.sleep(60)"])
    with pytest.raises(NotebookCellError, match="longer than 3 s|Timeout|timed out"):
        execute(nb, tmp_path / "r.json", {}, out_dir=tmp_path / "out", timeout=3)
