"""The PKeX-Shapley notebooks (03, 05, 20-24), run in smoke mode."""

import numpy as np
import pytest
from nbrun import NOTEBOOKS, NotebookCellError, execute, run_notebook

pytestmark = pytest.mark.notebook


def test_pkex_shapley_notebook():
    res = run_notebook("03-pkex-shapley")
    for method, err in res["brute_force_agreement"].items():
        assert err < 1e-10, method
    assert res["efficiency_error"] < 1e-10
    assert res["normalised_efficiency_error"] < 1e-10 and res["normalised_shift_error"] < 1e-10
    assert res["d_reference"] == 200
    for regime, err in res["mpmath_relative_error"]["quadrature"].items():
        assert err < 1e-12, regime
    for regime, err in res["mpmath_relative_error"]["stable"].items():
        assert err < 1e-12, regime
    assert -1 <= res["fb_vs_interventional"]["importance_rank_correlation"] <= 1


def test_mmd_hsic_notebook():
    res = run_notebook("05-mmd-hsic-shapley")
    assert res["mmd"]["efficiency_error"] < 1e-10
    assert res["mmd"]["biased_efficiency_error"] < 1e-10
    assert res["mmd"]["route_error"] < 1e-10
    assert abs(res["mmd"]["sum_phi"] - res["mmd"]["statistic"]) < 1e-10
    assert res["hsic"]["efficiency_error"] < 1e-10
    assert res["hsic"]["wine_efficiency_error"] < 1e-10
    assert res["hsic"]["two_sided_efficiency_error"] < 1e-10
    assert {"bmi", "s5"} & set(res["hsic"]["top_features"])
    assert 0 < res["hsic"]["p_value"] <= 0.05
    # the shift slider: a mean shift of one identically distributed feature makes it carry the MMD
    shift = res["mean_shift"]
    assert shift["1.0"]["phi_shifted"] > max(shift["0.0"]["phi_shifted"], 0)
    assert shift["1.0"]["top_feature"] == "same 1"


def test_exact_vs_sampling_notebook():
    res = run_notebook("20-pkex-exact-vs-sampling")
    assert all(res["falls_with_budget"].values())
    assert res["rises_with_d"]["relative error (paper)"]      # the paper's measure, at the smallest budget
    assert "narrow_kernel" in res
    table = res["table"]
    # d = 10: a budget covering all 1022 proper coalitions reproduces the exact values
    for d, budget, err in zip(table["d"], table["coalitions"], table["normwise l1 error"]):
        if d == 10 and budget >= 1022:
            assert err < 1e-8
    params = res["parameters"]
    assert params["svr_tuning"] == "fixed" and params["dims"] == res["dims"] == [10, 20]
    assert params["budgets"] == res["budgets"] and params["n_explain"] == res["n_explain"] == 4


def test_runtime_notebook():
    res = run_notebook("22-pkex-runtime")
    assert res["agreement_max"] < 1e-10
    assert set(res["timing"]) == {"quadrature", "stable (Alg. 2)", "brute force"}   # timings reported, not asserted
    assert res["newton_error"]["10"] < 1e-10
    assert res["newton_error"]["70"] > 1e-3          # Alg. 1 breaks down (Newton's identities)
    assert max(res["stable_error"].values()) < 1e-12
    overflow = res["overflow"]["1100"]
    assert not overflow["Alg. 2 finite"] and overflow["shapley_values refuses Alg. 2"]
    assert overflow["quadrature: |sum phi - (f(x) - sum alpha)|"] < 1e-10
    assert res["parameters"]["n_train"] == res["n_train"] == 200
    assert res["parameters"]["d_overflow"] == [1100]


def test_mmd_attribution_notebook():
    # smoke mode keeps a size the caller set (it used to overwrite n_permutations with 30)
    res = run_notebook("23-mmd-attribution", n_permutations=20)
    assert res["parameters"]["n_permutations"] == 20
    assert res["parameters"]["n_samples"] == res["n_samples"] == 250
    # p-values of a 20-permutation test are multiples of 1/21
    p = np.asarray(res["main"]["p_values"]) * 21
    np.testing.assert_allclose(p, np.round(p), atol=1e-9)
    main = res["main"]
    assert main["mean phi, features 1-10"] <= 0 < main["mean phi, features 11-20"]
    for key in ("main", "control", "matched_covariance"):
        assert res[key]["efficiency_error"] < 1e-10
    assert res["diabetes"]["efficiency_error"] < 1e-10
    assert abs(res["control"]["statistic_mean"]) < main["statistic_mean"]
    assert sorted(res["diabetes"]["ranking"]) == sorted(["age", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6"])


def test_hsic_feature_selection_notebook():
    res = run_notebook("24-hsic-feature-selection")
    assert "skillcraft" in res["unavailable"]
    for name, scores in res["scores"].items():
        assert set(scores) == {"PKeX-Shapley (HSIC)", "mutual information", "Lasso", "K-best (F-test)",
                               "tree ensemble (permutation)"}
        for method, s in scores.items():
            assert np.isfinite(s["mean"]) and s["sd"] >= 0 and len(s["folds"]) == res["n_folds"]
    assert res["scores"]["wine"]["PKeX-Shapley (HSIC)"]["mean"] > 0.7     # accuracy, 3 classes
    assert 1 <= res["standing"]["diabetes"]["rank_of_pkex"] <= 5
    params = res["parameters"]
    assert params["n_folds"] == res["n_folds"] == 3 and params["datasets"] == ["wine", "diabetes"]
    assert params["gp_noise"] is True


def test_feature_recovery_notebook():
    res = run_notebook("21-pkex-feature-recovery")
    chance = 17 / 50
    for target, rates in res["recovery"].items():     # {target: {method: share recovered}}
        assert rates["PKeX-Shapley (exact)"] > chance, target   # far better than picking at random
        assert all(0 <= r <= 1 for r in rates.values())
    assert res["seconds_per_point"]["PKeX-Shapley (exact)"] > 0
    params = res["parameters"]
    assert params["targets"] == res["targets"] == ["poly5", "sqexp"] and params["svr_tuning"] == "fixed"


def test_feature_recovery_notebook_rejects_invalid_parameters(tmp_path):
    path = NOTEBOOKS / "21-pkex-feature-recovery.ipynb"
    # svr_tuning is the last default of the parameters cell
    with pytest.raises(NotebookCellError, match="parameter svr_tuning must be one of 'fixed', 'grid'; got 'optuna'"):
        execute(path, tmp_path / "r.json", {"smoke": True, "svr_tuning": "optuna"}, out_dir=tmp_path)
    with pytest.raises(NotebookCellError, match="parameter n_active must be at most d = 10; got 17"):
        execute(path, tmp_path / "r.json", {"smoke": True, "d": 10}, out_dir=tmp_path)
    assert not (tmp_path / "r.json").exists()
