"""Notebook 18-conditional-estimators in smoke mode: the lecture's conditional estimators against exact values."""

import math

import pytest
from nbrun import run_notebook

pytestmark = pytest.mark.notebook


def test_conditional_estimators_notebook():
    res = run_notebook("18-conditional-estimators")
    rhos = res["rhos"]
    hi = len(rhos) - 1
    # the reference values agree with independent Monte Carlo (in standard errors)
    assert res["truth_checks"]["lognormal_max_z"] < 5
    assert res["truth_checks"]["parabola_max_z"] < 5
    assert res["efficiency_max_error"] < 1e-9
    mae = res["mae"]
    for setting in ("gaussian", "lognormal", "parabola"):
        for name in ("independence", "gaussian", "copula", "empirical"):
            assert len(mae[setting][name]) == len(rhos)
            assert all(math.isfinite(v) and v >= 0 for v in mae[setting][name])
    # (a) Gaussian data: the Gaussian estimator is accurate, independence is far off at high correlation
    assert mae["gaussian"]["gaussian"][hi] < 0.1
    assert mae["gaussian"]["independence"][hi] > 5 * mae["gaussian"]["gaussian"][hi]
    # (b) lognormal marginals: the copula beats the Gaussian fit
    assert mae["lognormal"]["copula"][hi] < mae["lognormal"]["gaussian"][hi]
    # (c) non-Gaussian dependence: only the empirical estimator tracks the truth
    for name in ("independence", "gaussian", "copula"):
        assert mae["parabola"]["empirical"][hi] < 0.5 * mae["parabola"][name][hi], name
    assert all(isinstance(v, bool) for v in res["claims"].values()) and len(res["claims"]) == 8
    bw = res["bandwidth"]
    assert len(bw["bandwidths"]) == len(bw["mae"]["parabola"])
    assert res["parameters"]["smoke"] is True
