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
            elif m and m.group(1).startswith("python"):
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
    deps = _pyproject()
    env = _conda_env(ROOT / "environment.yml")
    assert env == deps, f"environment.yml differs from pyproject: {env} vs {deps}"
    # Binder also serves the notebooks as apps with Voila (the 'app' extra)
    binder = _conda_env(ROOT / "binder" / "environment.yml")
    assert binder == {**deps, **_extra("app")}, f"binder/environment.yml differs: {binder}"


def test_binder_postbuild_installs_kernelxai():
    post = (ROOT / "binder" / "postBuild").read_text()
    assert re.search(r"pip install .*(-e )?\.", post)
    assert (ROOT / "binder" / "postBuild").stat().st_mode & 0o111, "postBuild must be executable"


def test_python_version_agrees():
    req = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert req == ">=3.11"
    for path in (ROOT / "environment.yml", ROOT / "binder" / "environment.yml"):
        assert re.search(r"-\s+python\s*>=\s*3\.11", path.read_text())
