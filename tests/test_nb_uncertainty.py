"""Notebooks 06-uncertainty, 07-shapley-regression-groups and 30-uncertainty-pipeline, in smoke mode."""

import numpy as np
import pytest
from nbrun import NOTEBOOKS, NotebookCellError, execute, run_notebook

pytestmark = pytest.mark.notebook


def test_uncertainty_pipeline_notebook():
    res = run_notebook("30-uncertainty-pipeline")
    sweeps = res["sweeps"]
    # an additive model (beta = 0) has an additive interventional game: zero residual
    beta = sweeps["beta"]
    assert beta["residual_int"][beta["grid"].index(0.0)] == pytest.approx(0, abs=1e-12)
    # at alpha = 0 the observational and interventional games coincide
    alpha = sweeps["alpha"]
    assert alpha["obs_minus_int"][alpha["grid"].index(0.0)] == pytest.approx(0, abs=1e-12)
    # residuals belong to the game: sigma does not move them
    assert np.ptp(sweeps["sigma"]["residual_int"]) == pytest.approx(0, abs=1e-12)
    # intervals shrink with sigma; roughly like 1/sqrt(sigma)
    assert -0.8 < res["width_slopes_vs_sigma"]["width_single_reference"] < -0.25
    # coverage near the level on average (smoke sizes: loose)
    for key in ("single_reference", "bayes"):
        assert abs(np.mean(res["coverage"][key]) - res["level"]) < 0.06, key
    assert res["conjectures"]["gamma leaves the interventional residual norm at its beta-only level"]
    params = res["parameters"]
    for knob in ("alpha", "beta", "gamma", "sigma"):
        assert params[f"grid_{knob}"] == sweeps[knob]["grid"], knob
        assert params[f"base_{knob}"] == res["base"][knob], knob
    assert params["n_repeats"] == res["n_repeats"] == 25


def test_uncertainty_pipeline_rejects_invalid_parameters(tmp_path):
    path = NOTEBOOKS / "30-uncertainty-pipeline.ipynb"
    with pytest.raises(NotebookCellError, match=r"parameter level must be a real number in \(0, 1\); got 1.0"):
        execute(path, tmp_path / "r.json", {"smoke": True, "level": 1.0}, out_dir=tmp_path)
    # grid_sigma is the last default of the parameters cell
    with pytest.raises(NotebookCellError, match="parameter grid_sigma must be a non-empty list of integers"):
        execute(path, tmp_path / "r.json", {"smoke": True, "grid_sigma": [10, 1.5]}, out_dir=tmp_path)
    assert not (tmp_path / "r.json").exists()


def test_uncertainty_notebook():
    res = run_notebook("06-uncertainty")
    np.testing.assert_allclose(res["single_reference_oracle"]["mean"], [0.5, 1.6, 1.6], atol=1e-12)
    np.testing.assert_allclose(res["single_reference_oracle"]["sd"], [1.118034, 1.816590, 2.701851],
                               atol=1e-6)
    oracles = res["residual_oracles"]
    np.testing.assert_allclose(oracles["x1 + x2 + x3"]["norms"], 0, atol=1e-12)
    np.testing.assert_allclose(oracles["x1 + 2 x2 x3"]["norms"], [0, np.sqrt(2), np.sqrt(2)], atol=1e-12)
    np.testing.assert_allclose(oracles["x1 + 2 x2 x3"]["total"], np.sqrt(20), atol=1e-12)
    np.testing.assert_allclose(oracles["x1 x2"]["norms"], [0.5, 0.5], atol=1e-12)
    np.testing.assert_allclose(oracles["x1 x2 x3"]["norms"], [0.645497] * 3, atol=1e-6)
    # the i.i.d.-sample intervals cover at the nominal rate (within binomial noise)
    for key in ("permutation (t)", "single-reference (t)"):
        assert abs(res["coverage"][key] - res["level"]) <= res["band"], key
    assert res["coverage"]["KernelSHAP (delta method)"] >= res["level"] - 2 * res["band"]
    assert res["perturbations_to_go"]["converged"]


def test_shapley_regression_groups_notebook():
    res = run_notebook("07-shapley-regression-groups")
    assert res["r2_sum"] == pytest.approx(res["r2_full"], abs=1e-10)      # sum phi = R^2 of the full model
    assert res["r2_groups"]["sum"] == pytest.approx(res["r2_full"], abs=1e-10)
    assert set(sorted(res["r2_values"], key=res["r2_values"].get)[-2:]) == {"bmi", "s5"}
    krr = res["krr_groups"]
    assert krr["product_vs_exact"] < 1e-9 and krr["efficiency_error"] < 1e-9
    cond = res["lecture_condition"]
    assert cond["separable"] < 1e-10
    assert cond["+ bmi·s3 (pairwise, across groups)"] < 1e-10
    assert cond["+ bmi·bp·s3 (three-way, across groups)"] > 1e-3
    assert res["cost"]["groups_exact_vs_product"] < 1e-9
