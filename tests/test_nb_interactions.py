"""Notebook 09 (exact Shapley interactions), in smoke mode."""

import pytest
from nbrun import run_notebook

pytestmark = pytest.mark.notebook


def test_interactions_notebook():
    res = run_notebook("09-interactions")
    assert res["planted"]["max_error_vs_closed_form"] < 1e-10
    assert res["gp"]["product_vs_exact"] < 1e-9  # relative to the largest pair
    assert res["efficiency_gap"] < 1e-8
    assert res["large"]["d"] >= 13
    assert res["taxi"]["shapley"] == pytest.approx([2.0, 5.0, 35.0])
    assert res["airport"]["shapley"] == pytest.approx([2.0, 3.0, 4.0, 9.0])
    # taxi: sharing lowers the fare, so every pair interacts negatively
    sii = res["taxi"]["sii"]
    assert sii[0][1] < 0 and sii[0][2] < 0 and sii[1][2] < 0


def test_interactions_of_every_order_notebook():
    res = run_notebook("25-interactions-any-order")
    # the product route against enumeration, every index at order 3
    assert max(res["product_vs_exact"].values()) < 1e-9
    assert len(res["product_vs_exact"]) == 9
    # the Moebius transform of every order adds up to f(x) - v(empty)
    assert res["anova"]["efficiency_gap"] < 1e-10
    assert abs(sum(res["anova"]["energy_share"]) - 1.0) < 1e-12
    assert res["index_efficiency_gap"] < 1e-9
    # the planted triple found without enumeration, certified
    assert res["large"]["certified"] and res["large"]["largest_triple"] == [2, 3, 4]
    # the GP: posterior means of the interactions equal explain_interactions', with positive standard deviations
    assert res["gp"]["mean_vs_explain_interactions"] < 1e-10 and res["gp"]["stderr_positive"]
    assert res["gp"]["route"] == "product"
