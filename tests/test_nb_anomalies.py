"""Notebook 19-anomalies in smoke mode: anomaly scores explained exactly, checked, and against four references."""

import numpy as np
import pytest
from nbrun import run_notebook

pytestmark = pytest.mark.notebook


def test_anomalies_notebook():
    res = run_notebook("19-anomalies")
    # both detectors, fitted to benign tumours only, flag the malignant ones
    det = res["detectors"]
    assert det["one_class_svm"]["auc"] > 0.85 and det["kernel_density"]["auc"] > 0.85
    # the exact routes equal kx.explain through model calls on the same background
    agree = res["agreement"]
    assert agree["svm_route"].startswith("kernel expansion") and agree["density_route"].startswith("kernel expansion")
    assert agree["log_density_method"] == "score_samples"
    assert agree["svm_decision_max_abs_error"] < 1e-9 and agree["svm_base_value_error"] < 1e-9
    assert agree["density_max_abs_error"] < 1e-9 and agree["density_max_relative_error"] < 1e-9
    assert agree["svm_efficiency_error"] < 1e-9 and agree["log_density_efficiency_error"] < 1e-9
    # the density of a far anomaly is ~0: its attributions only split -E p(B)
    np.testing.assert_allclose(res["density"]["sum_over_minus_base"], 1.0, atol=1e-6)
    # top features per anomaly are reported; the two detectors largely agree
    top = res["top_features"]
    assert len(top["svm"]) == res["parameters"]["n_top"] and all(len(t) == 3 for t in top["svm"])
    assert np.mean(res["svm_vs_log_density_rank_correlation"]) > 0.5
    # the reference set: the contaminated one ("every case") moves the values most; inliers vs training hardly
    svm = res["reference_effect"]["svm"]
    assert svm["inliers"]["relative_l1_change"] == 0
    assert svm["every case"]["relative_l1_change"] > svm["training data"]["relative_l1_change"]
    assert svm["every case"]["base_value"] < svm["inliers"]["base_value"]
    # interactions: the product route equals enumeration, and the pairs carry a real share
    inter = res["interactions"]
    assert inter["method"] == "product" and inter["product_vs_exact"] < 1e-9
    assert min(inter["interaction_share"]) > 0.1
    # GP-SHAP on the GP classifier: the sum is surer than its parts
    gp = res["gp"]
    assert gp["accuracy"] > 0.85
    assert np.all(np.asarray(gp["sd_of_sum"]) < np.asarray(gp["sum_of_feature_sds"]))
    assert res["parameters"]["smoke"] is True
