"""Notebooks 04, 12, 13 and 15 (Shapley functionals, ISV-REG / OSV-REG, Theorem 6), in smoke mode."""

import numpy as np
import pytest

from nbrun import run_notebook

pytestmark = pytest.mark.notebook


def test_shapley_regulariser_notebook():
    res = run_notebook("04-shapley-regulariser")
    assert max(res["representer_vs_explain"].values()) < 1e-10
    assert res["lam0_vs_krr_max_diff"] < 1e-8
    assert res["monotone"] == {"interventional": True, "observational": True}
    for value in ("interventional", "observational"):
        phi5 = res["mean_phi5_sq"][value]
        assert phi5[-1] < 0.01 * phi5[0]
    errs = list(res["sampling_rmse"].values())
    assert errs[-1] < errs[0]
    assert np.all(np.diff(res["logistic_penalty"]) < 0)


def test_covariate_shift_notebook():
    res = run_notebook("12-covariate-shift-isv-reg")
    claim = res["claim"]
    for key in ("gap_shrinks_over_paper_grid", "gap_monotone_over_paper_grid",
                "gap_shrinks_over_wide_grid", "gap_monotone_over_wide_grid", "clean_rmse_rises"):
        assert isinstance(claim[key], bool), key
    assert claim["gap_at_0"] > 0
    # at the far end of the log sweep the model no longer relies on X5
    assert claim["gap_shrinks_over_wide_grid"] and claim["clean_rmse_rises"]
    assert len(res["gap"]["ISV-REG"]) == len(res["lam_grid"])


def test_fairness_notebook():
    res = run_notebook("13-fairness-osv-reg")
    claim = res["claim"]
    assert claim["osv_shrinks_phi5"] and claim["osv_shrinks_phi4"]      # OSV-REG: both shrink
    assert claim["isv_shrinks_phi5"] and claim["isv_phi4_grows"]        # ISV-REG: the proxy grows
    assert claim["isv_phi4_max_ratio"] > 1.5 and claim["osv_phi4_ratio_at_max_lam"] < 0.1


def test_robustness_notebook():
    res = run_notebook("15-robustness")
    assert res["all_below_bound"]
    for value in ("interventional", "observational"):
        c = res["checks"][value]
        assert c["dist_sq_below_bound"] and c["cauchy_schwarz_holds"] and c["observed_below_bound"]
        assert c["max_ratio_to_bound"] < 1
    assert res["search"]["max_ratio_printed"] <= 1
