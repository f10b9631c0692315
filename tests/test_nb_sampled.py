"""Notebook 26 (how good is a sampled explanation), in smoke mode."""

import pytest
from nbrun import run_notebook

pytestmark = pytest.mark.notebook


def test_sampled_explanations_notebook():
    res = run_notebook("26-sampled-explanations")
    for model in ("svr", "wide"):
        # every estimator's error falls from the smallest to the largest budget
        assert all(res[model]["error_falls"].values()), res[model]["error_falls"]
        assert set(res[model]["best"].values()) <= {"kernel", "leverage_shap", "msr", "permutation"}
        # coverage is measured for every estimator that states intervals
        assert all(0.5 < c <= 1.0 for c in res[model]["coverage"].values())
    assert res["wide"]["d"] >= 12
