"""Binder and conda environments agree with pyproject.toml."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DESIGN_CARD = ["jupyterlab", "ipywidgets", "numpy", "scipy", "scikit-learn", "matplotlib",
               "seaborn", "papermill"]


def _requirements(lines):
    out = {}
    for line in lines:
        m = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(>=\s*[0-9.]+)?", line)
        if m:
            out[m.group(1).lower()] = (m.group(2) or "").replace(" ", "")
    return out


def _pyproject():
    return _requirements(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"])


def _conda_env(path):
    lines, inside = [], False
    for raw in path.read_text().splitlines():
        if re.match(r"^dependencies:", raw):
            inside = True
            continue
        if inside:
            m = re.match(r"^\s+-\s+(.+)$", raw)
            if m and not m.group(1).startswith(("python", "pip")):
                lines.append(m.group(1))
            elif m and m.group(1).startswith("python"):  # checked separately
                continue
            elif not raw.startswith(" "):
                break
    return _requirements(lines)


def test_pyproject_has_the_design_card_with_lower_bounds():
    deps = _pyproject()
    for name in DESIGN_CARD:
        assert name in deps, name
        assert deps[name].startswith(">="), f"{name} needs a lower bound"


def _extra(name):
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    return _requirements(extras[name])


def test_environment_files_agree_with_pyproject():
    # conda users run the notebooks: runtime dependencies plus the notebooks extra
    deps = {**_pyproject(), **_extra("notebooks")}
    env = _conda_env(ROOT / "environment.yml")
    assert env == deps, f"environment.yml differs from pyproject: {env} vs {deps}"
    # Binder also serves the notebooks as apps with Voila (the 'app' extra)
    binder = _conda_env(ROOT / "binder" / "environment.yml")
    assert binder == {**deps, **_extra("app")}, f"binder/environment.yml differs: {binder}"


def test_notebook_dependencies_are_in_the_notebooks_extra():
    """Notebook 03 calls kx.estimators._product.reference_shapley, which needs mpmath: `make run` must install it."""
    assert "mpmath" in _extra("notebooks")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(req.startswith("kernelxai[") and "notebooks" in req for req in extras["test"]), \
        "the test extra must include the notebooks extra"


def test_make_run_smoke_and_figures_need_only_the_notebooks_extra():
    text = (ROOT / "Makefile").read_text().replace("$(VENV)", ".venv")
    for target in ("run", "smoke", "figures", "lab"):
        m = re.search(rf"^{target}:([^\n]*)$", text, re.M)
        assert m, f"Makefile has no {target} target"
        assert ".venv/.run-stamp" in m.group(1) and ".test-stamp" not in m.group(1), (target, m.group(1))
    stamp = re.search(r"^\.venv/\.run-stamp:[^\n]*\n((?:\t.*\n)*)", text, re.M).group(1)
    # $(call INSTALL,ARGS): uv where available, else pip (the Makefile's INSTALL)
    installs = re.findall(r"\$\(call INSTALL,\s*(?:-e\s+)?([^\s)]+)\)", stamp)
    assert installs == ['".[notebooks]"'], installs


def test_binder_postbuild_installs_kernelxai():
    post = (ROOT / "binder" / "postBuild").read_text()
    assert re.search(r"pip install .*(-e )?\.", post)
    assert (ROOT / "binder" / "postBuild").stat().st_mode & 0o111, "postBuild must be executable"


def test_python_version_agrees():
    req = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert req == ">=3.11"
    assert re.search(r"-\s+python\s*>=\s*3\.11", (ROOT / "environment.yml").read_text())
    # repo2docker needs an exact version (a range falls back to its default Python)
    assert re.search(r"-\s+python\s*=\s*3\.11\s*$", (ROOT / "binder" / "environment.yml").read_text(), re.M)


def test_readme_quick_start_links_and_figures():
    readme = (ROOT / "README.md").read_text()
    assert "make run" in readme and "make test" in readme
    # Binder: JupyterLab on the index, and a Voila render
    assert "urlpath=lab/tree/notebooks/00-index.ipynb" in readme
    assert re.search(r"urlpath=voila/render/notebooks/[0-9]{2}-[a-z0-9-]+\.ipynb", readme)
    # the notebook catalogue lives in the user guide, one row per notebook, linking its gallery page
    catalogue = (ROOT / "docs" / "user-guide" / "notebooks.md").read_text()
    notebooks = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
    for name in notebooks:
        assert f"[{name}](../gallery/{name}.ipynb)" in catalogue, f"docs/user-guide/notebooks.md does not list {name}"
    figures = re.findall(r"!\[[^\]]*\]\((docs/figures/[^)]+)\)", readme)
    assert len(figures) >= 3, "the README shows fewer than three pictures"
    for figure in figures:
        assert (ROOT / figure).exists(), f"README shows {figure}, which make run has not produced"


def test_binder_would_build():
    """repo2docker --no-build prints the Dockerfile Binder would build (no Docker needed)."""
    import shutil
    import subprocess
    import sys

    exe = shutil.which("repo2docker", path=str(Path(sys.executable).parent)) or shutil.which("repo2docker")
    if exe is None:
        import os

        import pytest

        if os.environ.get("CI"):
            pytest.fail("repo2docker (jupyter-repo2docker, a test extra) is not installed")
        pytest.skip("repo2docker is not installed (pip install jupyter-repo2docker)")
    done = subprocess.run([exe, "--no-build", str(ROOT)], capture_output=True, text=True, timeout=300)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-2000:]
    assert "Python version unspecified" not in out
    assert "python=3.11" in out
    assert '--file "binder/environment.yml"' in out
    assert "./binder/postBuild" in out


def test_nothing_points_outside_the_repository():
    """Users' clones have no design notes: code, notebooks and docs must stand alone."""
    import subprocess

    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if not tracked:
        import pytest

        pytest.skip("not a git checkout")
    offenders = []
    for name in tracked:
        path = ROOT / name
        if path.suffix not in {".py", ".md", ".ipynb", ".toml", ".yml", ".cfg", ""} or not path.is_file():
            continue
        text = path.read_text(errors="replace")
        for marker in ("MATH.md", "NOTEBOOKS.md", "ARCHITECTURE.md", "../shared"):
            if marker in text and name != "tests/test_packaging.py":
                offenders.append(f"{name}: {marker}")
    assert not offenders, "references to files users do not have:\n" + "\n".join(offenders)


def test_landing_page_code_example_runs():
    """The 'In code' example of the landing page (docs/index.md) runs as written and its comment about taxi holds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    block = re.search(r"## In code\n\n```python\n(.*?)```", (ROOT / "docs" / "index.md").read_text(), re.S)
    assert block, "docs/index.md has no 'In code' python block"
    namespace = {}
    exec(compile(block.group(1), "docs/index.md", "exec"), namespace)
    plt.close("all")
    taxi_values = namespace["kx"].shapley_values(namespace["taxi"]).values
    np.testing.assert_allclose(taxi_values.ravel(), [2.0, 5.0, 35.0])
    assert namespace["expl"].values.shape == (50, 10)
