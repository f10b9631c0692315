"""Widgets: caching, re-rendering, and error messages instead of tracebacks."""

import numpy as np
import pytest

import kernelxai as kx
from kernelxai.widgets import ExplanationExplorer, ParameterExplorer

pytest.importorskip("ipywidgets")


def _game():
    rng = np.random.default_rng(0)
    return kx.ProductGame(rng.random((8, 6, 4)), rng.random((1, 6, 4)), rng.normal(size=(8, 6)),
                          data=rng.normal(size=(8, 4)), player_names=list("abcd"))


@pytest.fixture
def explorer():
    calls = []

    def compute(value, method, budget, seed):
        calls.append((value, method, budget, seed))
        options = {"n_permutations": budget} if method == "permutation" else {}
        return kx.shapley_values(_game(), method=method, seed=seed, **options)

    ex = ExplanationExplorer(compute, values=["toy"], methods=["exact", "permutation"],
                             n_players=4, n_instances=8, budget=10)
    ex.calls = calls
    return ex


def test_explorer_renders_and_caches(explorer):
    assert explorer.calls == [("toy", "exact", None, None)]
    explorer.instance.value = 5          # another instance: redraw from the cache
    assert len(explorer.calls) == 1
    explorer.method.value = "permutation"
    assert explorer.calls[-1] == ("toy", "permutation", 10, 0)
    explorer.method.value = "exact"      # back: cached
    assert len(explorer.calls) == 2
    assert "method: exact" in explorer.status.value


def test_explorer_shows_budget_errors_as_messages(explorer):
    explorer.method.value = "permutation"
    explorer.budget.value = 1
    assert "below the minimum" in explorer.status.value and "Traceback" not in explorer.status.value
    explorer.budget.value = 20           # recovers
    assert "below" not in explorer.status.value


def test_explorer_shows_library_errors_as_messages():
    def compute(value, method, budget, seed):
        raise ValueError("eta must be positive; got -1")

    ex = ExplanationExplorer(compute, ["toy"], ["exact"], n_players=3, n_instances=2)
    assert "eta must be positive" in ex.status.value


def test_parameter_explorer_caches_and_validates():
    calls, drawn = [], []

    def compute(b):
        calls.append(b)
        if b < 0:
            raise ValueError("b must be positive")
        return b * 2

    px = ParameterExplorer(compute, lambda result, b: drawn.append(result), "b", [1, 10, -1])
    assert calls == [1] and drawn == [2]
    px.slider.value = 10
    px.slider.value = 1
    assert calls == [1, 10] and drawn == [2, 20, 2]
    px.slider.value = -1
    assert "b must be positive" in px.status.value


def test_parameter_explorer_precompute():
    calls = []
    ParameterExplorer(lambda b: calls.append(b) or b, lambda r, b: None, "b", [1, 2, 3], precompute=True)
    assert calls == [1, 2, 3]
