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
        options = {"budget": budget} if budget is not None else {}
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


def test_figures_reach_the_output_as_display_data():
    import matplotlib.pyplot as plt

    plt.close("all")  # figures other tests on this worker left open are not this test's business
    calls = []

    def draw(b):
        calls.append(b)
        fig, ax = plt.subplots()
        ax.plot([0, b])

    px = ParameterExplorer(lambda b: b, lambda r, b: draw(b), "b", [1, 2])
    assert len(px.output.outputs) == 1 and "image/png" in px.output.outputs[0]["data"]
    px.slider.value = 2
    assert calls == [1, 2] and len(px.output.outputs) == 1
    assert plt.get_fignums() == []  # figures handed over and closed


def test_interact_builds_controls_and_redraws():
    import ipywidgets as W
    import matplotlib.pyplot as plt

    seen = []

    def show(kind, n):
        seen.append((kind, n))
        if n < 0:
            raise ValueError("n must be non-negative")
        plt.subplots()

    box = kx.widgets.interact(show, kind=["a", "b"], n=W.IntSlider(3, -2, 5))
    dropdown, slider, status, output = box.children
    assert seen == [("a", 3)] and "image/png" in output.outputs[0]["data"]
    dropdown.value = "b"
    assert seen[-1] == ("b", 3)
    slider.value = -1
    assert "n must be non-negative" in status.value and output.outputs == ()
    slider.value = 2
    assert status.value == "" and len(output.outputs) == 1


def test_explorer_takes_minimum_budgets_from_the_registry(explorer):
    from kernelxai.estimators import get_estimator

    minimum = get_estimator("permutation").min_budget(4)     # game evaluations, not orderings
    assert minimum > 2
    explorer.method.value = "permutation"
    explorer.budget.value = minimum - 1
    assert f"use at least {minimum}" in explorer.status.value
    explorer.budget.value = minimum
    assert "below" not in explorer.status.value
    assert explorer.calls[-1] == ("toy", "permutation", minimum, 0)


def test_explorer_gives_no_budget_to_exact_methods_and_auto():
    seen = []

    def compute(value, method, budget, seed):
        seen.append((method, budget, seed))
        return kx.shapley_values(_game(), method="exact")

    ex = ExplanationExplorer(compute, ["toy"], ["auto", "exact", "product", "kernel"], n_players=4,
                             n_instances=8, budget=50)
    for method in ("exact", "product", "kernel"):
        ex.method.value = method
    assert seen == [("auto", None, None), ("exact", None, None), ("product", None, None),
                    ("kernel", 50, 0)]


def test_explore_passes_the_common_budget_keyword(monkeypatch):
    from sklearn.kernel_ridge import KernelRidge

    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 3))
    model = KernelRidge(kernel="rbf", gamma=0.5).fit(X, X.sum(1))
    received = []
    real = kx.widgets.explain   # what the explorer calls

    def spy(model, X, **options):
        received.append({k: v for k, v in options.items() if k not in ("background",)})
        return real(model, X, **options)

    monkeypatch.setattr(kx.widgets, "explain", spy)
    ex = kx.widgets.explore(model, X[:3], background=X, values=("interventional",),
                            methods=("exact", "permutation", "kernel"), budget=30, seed=3)
    ex.method.value = "permutation"
    ex.method.value = "kernel"
    assert received == [
        {"value": "interventional", "method": "exact"},
        {"value": "interventional", "method": "permutation", "budget": 30, "seed": 3},
        {"value": "interventional", "method": "kernel", "budget": 30, "seed": 3},
    ]
    assert "game evaluations: 8" in ex.status.value        # 3 players: all 2**3 coalitions suffice
    ex.method.value = "permutation"                          # from the cache
    assert len(received) == 3 and "game evaluations: 30" in ex.status.value


def test_explorer_shows_a_message_for_several_outputs():
    def compute(value, method, budget, seed):
        return kx.Explanation(np.zeros((2, 3, 2)), output_names=["no", "yes"])

    ex = ExplanationExplorer(compute, ["toy"], ["exact"], n_players=3, n_instances=2)
    assert "2 outputs ['no', 'yes']" in html_unescape(ex.status.value)
    assert ex.output.outputs == ()


def html_unescape(text):
    import html

    return html.unescape(text)
