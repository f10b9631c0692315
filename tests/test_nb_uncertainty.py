"""Notebooks 06-uncertainty, 07-shapley-regression-groups and 30-uncertainty-pipeline, in smoke mode."""

import numpy as np
import pytest

from nbrun import run_notebook

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
