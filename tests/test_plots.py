"""Plots return Axes and draw what they say."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

import kernelxai as kx


@pytest.fixture
def expl():
    rng = np.random.default_rng(0)
    values = rng.normal(size=(40, 5))
    return kx.Explanation(values, base_values=1.0, data=rng.normal(size=(40, 5)),
                          feature_names=list("abcde"), lower=values - 0.1, upper=values + 0.2)


@pytest.fixture(autouse=True)
def close():
    yield
    plt.close("all")


def test_bar_local_and_global(expl):
    ax = kx.plots.bar(expl[0])
    assert len(ax.patches) == 5
    heights = sorted(abs(p.get_width()) for p in ax.patches)
    np.testing.assert_allclose(heights, np.sort(np.abs(expl.values[0])))
    ax = kx.plots.bar(expl, max_display=3)
    assert len(ax.patches) == 3
    top = max(p.get_width() for p in ax.patches)
    assert np.isclose(top, np.abs(expl.values).mean(0).max())


def test_waterfall_walks_from_base_to_output(expl):
    row = expl[3]
    ax = kx.plots.waterfall(row, max_display=3)
    bars = ax.patches
    assert len(bars) == 4  # three features and "2 other features"
    ends = [p.get_x() + p.get_width() for p in bars]
    starts = [p.get_x() for p in bars]
    assert np.isclose(starts[0], row.base_values)                 # bottom bar starts at the base
    assert np.isclose(ends[-1], row.base_values + row.values.sum())  # top bar ends at the output
    with pytest.raises(ValueError, match="one instance"):
        kx.plots.waterfall(expl)


def test_beeswarm_dependence_kde(expl):
    ax = kx.plots.beeswarm(expl)
    assert len(ax.collections) == 5
    ax = kx.plots.dependence(expl, "b", color_by="c")
    assert ax.get_xlabel() == "b"
    ax = kx.plots.kde(expl, ["a", "b"])
    assert len(ax.get_lines()) == 2


def test_plots_reject_other_objects():
    with pytest.raises(TypeError, match="Explanation"):
        kx.plots.bar(np.zeros(3))


def test_plots_ask_to_pick_one_output():
    values = np.zeros((4, 2, 3))
    expl = kx.Explanation(values, data=np.zeros((4, 2)), output_names=["a", "b", "c"])
    message = r"this Explanation has 3 outputs \['a', 'b', 'c'\]; pick one with e\[\.\.\., 'a'\]"
    for draw in (kx.plots.bar, kx.plots.beeswarm, kx.plots.kde, lambda e: kx.plots.dependence(e, 0)):
        with pytest.raises(ValueError, match=message):
            draw(expl)
    with pytest.raises(ValueError, match=message):
        kx.plots.waterfall(expl[0])
    ax = kx.plots.beeswarm(expl[..., "b"])           # one output picked: drawn as usual
    assert len(ax.collections) == 2
    ax = kx.plots.waterfall(expl[0, :, "c"])
    assert len(ax.patches) == 2
