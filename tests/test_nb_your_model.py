"""Notebook 08 (your model: pipelines, classifiers, multi-class, GPs), run in smoke mode."""

import pytest
from nbrun import run_notebook

pytestmark = pytest.mark.notebook

#: the cases the notebook explains, and whether kernelxai's route for each is exact
CASES = {"diabetes: StandardScaler + SVR": True,
         "breast cancer: SVC decision": True,
         "breast cancer: calibrated SVC log-odds": True,
         "breast cancer: calibrated SVC probability": False,
         "iris: SVC pairwise decision functions": True,
         "iris: calibrated SVC probabilities": False,
         "diabetes: GP, C*RBF(ARD) + C*RBF + White": True}


def test_your_model_notebook():
    res = run_notebook("08-your-model")
    cases = res["cases"]
    assert set(cases) == set(CASES)
    for name, exact in CASES.items():
        case = cases[name]
        assert case["exact"] is exact, name
        # exact routes are kernel expansions, the others model calls; both say so
        assert case["route"].startswith("kernel expansion" if exact else "model calls"), (name, case)
        # every route equals the brute force over model calls on the same background
        assert case["max_abs_diff_vs_model_calls"] < 1e-9, (name, case)
        assert case["efficiency"] < 1e-9, (name, case)
    n = res["parameters"]["n_explain"]
    assert cases["diabetes: StandardScaler + SVR"]["shape"] == [n, 10]
    assert cases["breast cancer: SVC decision"]["shape"] == [n, 10]      # ten groups of three
    assert cases["iris: SVC pairwise decision functions"]["shape"] == [n, 4, 3]
    assert cases["iris: calibrated SVC probabilities"]["shape"] == [n, 4, 3]
    # Platt log-odds of the calibrated SVC are -a times its decision values, exactly
    assert res["log_odds_are_scaled_decision_values"] < 1e-9
    assert res["max_diff_exact"] < 1e-9 and res["max_efficiency_error"] < 1e-9
    assert res["parameters"]["smoke"] is True
