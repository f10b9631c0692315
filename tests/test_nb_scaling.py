"""Notebook 17-scaling in smoke mode: identical values across workers, exact Nystroem models, the summary bound."""

import math

import numpy as np
import pytest
from nbrun import run_notebook

pytestmark = pytest.mark.notebook

KEYS = ("sizes", "grid", "parallel", "nystroem", "bound", "counterexample", "widget", "timings",
        "parameters", "summary")


def test_scaling_notebook():
    res = run_notebook("17-scaling")
    for key in KEYS:
        assert key in res, key
    assert res["parameters"]["smoke"] is True

    # three sizes of data, each model an exact expansion over its landmarks
    sizes = res["sizes"]
    assert [s["rows"] for s in sizes] == res["parameters"]["n_rows"] and len(sizes) == 3
    for s in sizes:
        assert s["landmarks"] == res["parameters"]["n_components"]
        assert s["max_abs_expansion_error"] < 1e-10, s["rows"]
        assert s["max_efficiency_error"] < 1e-10, s["rows"]
        assert s["method"] == "product" and "exact" in s["route"]
        assert s["r2_test"] > 0.5                     # the model learned something
        assert s["points_per_second"] > 0

    # serial == two workers == threads, bit for bit, exact and sampled
    par = res["parallel"]
    assert par["identical_serial_two_workers"] is True
    assert par["identical_serial_threads"] is True
    assert par["identical_sampled"] is True
    assert par["max_abs_difference"] == 0.0
    assert par["backends"] == {"1": "sequential", "2": "loky", "None": par["backends"]["None"]}
    assert par["chunks"] == math.ceil(res["parameters"]["parallel_points"] / res["parameters"]["rows_per_chunk"])
    assert par["timing"]["speed_up_two_workers"] > 0

    # the largest model: exact against predict, efficiency, and a brute force over model calls
    ny = res["nystroem"]
    assert ny["rows"] == max(res["parameters"]["n_rows"])
    assert ny["max_abs_expansion_error"] < 1e-10
    assert ny["max_abs_difference_from_model_calls"] < 1e-10
    assert ny["route_calls"].startswith("model calls") and "exact" in ny["route_groups"]

    # the summary bound holds, feature by feature and for the base value, and says something
    b = res["bound"]
    observed, bound = np.asarray(b["observed_max_abs_change"]), np.asarray(b["bound"])
    assert observed.shape == bound.shape == (res["parameters"]["n_features"],)
    assert np.all(observed <= bound) and b["holds"] is True
    assert b["observed_base_change"] <= b["base_bound"]
    assert observed.max() > 0 and b["base_bound"] == pytest.approx(b["norm"] * b["mmd"], rel=1e-12)

    # ||f|| MMD(all features) does not bound the Shapley values; the per-feature bound does
    cx = res["counterexample"]
    assert cx["norm"] == pytest.approx(1.0, rel=1e-12)
    assert cx["joint_mmd_bound_violated"] is True
    assert max(cx["observed_abs_change"]) > 2 * cx["joint_mmd_bound"]
    assert cx["bound_holds"] is True
    assert cx["observed_base_change"] <= cx["joint_mmd_bound"]

    # the cost model's predictions grow with d and n as the notebook plots them
    flops = res["grid"]["predicted_flops_per_point"]
    assert np.all(np.diff(flops["by_d"]) > 0) and np.all(np.diff(flops["by_n"]) > 0)
    assert res["widget"]["default_prediction"]["predicted seconds"] > 0
