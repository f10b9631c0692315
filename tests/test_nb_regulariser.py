"""Notebooks 04, 12, 13 and 15 (Shapley functionals, ISV-REG / OSV-REG, Theorem 6), in smoke mode."""

import numpy as np
import pytest
from nbrun import NOTEBOOKS, NotebookCellError, execute, run_notebook

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
    params = res["parameters"]
    assert params["n_samples"] == res["n_samples"] == 300 and params["sensitivity_lam"] is None
    assert sorted(set(params["lam_paper"]) | set(params["lam_wide"])) == res["lam_grid"]


def test_fairness_notebook():
    res = run_notebook("13-fairness-osv-reg")
    claim = res["claim"]
    assert claim["osv_shrinks_phi5"] and claim["osv_shrinks_phi4"]      # OSV-REG: both shrink
    assert claim["isv_shrinks_phi5"] and claim["isv_phi4_grows"]        # ISV-REG: the proxy grows
    assert claim["isv_phi4_max_ratio"] > 1.5 and claim["osv_phi4_ratio_at_max_lam"] < 0.1
    assert res["parameters"]["lam_grid"] == res["lam_grid"] == [0.0, 1e-2, 1.0, 100.0, 1e4]


def test_fairness_notebook_rejects_invalid_parameters(tmp_path):
    path = NOTEBOOKS / "13-fairness-osv-reg.ipynb"
    with pytest.raises(NotebookCellError, match="parameter lam_grid must start with 0"):
        execute(path, tmp_path / "r.json", {"smoke": True, "lam_grid": [1.0, 0.0]}, out_dir=tmp_path)
    with pytest.raises(NotebookCellError, match="parameter n_samples must be an integer >= 10; got 'many'"):
        execute(path, tmp_path / "r.json", {"smoke": True, "n_samples": "many"}, out_dir=tmp_path)
    assert not (tmp_path / "r.json").exists()


def test_robustness_notebook():
    # smoke mode keeps a size the caller set (it used to overwrite n_search with 20)
    res = run_notebook("15-robustness", n_search=10)
    assert res["parameters"]["n_search"] == res["search"]["configurations"] == 10
    assert res["parameters"]["n_train"] == res["n_train"] == 120
    assert res["all_below_bound"]
    for value in ("interventional", "observational"):
        c = res["checks"][value]
        assert c["dist_sq_below_bound"] and c["cauchy_schwarz_holds"] and c["observed_below_bound"]
        assert c["max_ratio_to_bound"] < 1
    assert res["search"]["max_ratio_printed"] <= 1
