"""Plots return Axes and draw what they say."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.transforms import Bbox

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
    assert len(ax.patches) == 4                     # three features and "2 other features"
    importance = np.sort(np.abs(expl.values).mean(0))
    np.testing.assert_allclose([p.get_width() for p in ax.patches[1:]], importance[2:])


def test_bar_pools_hidden_features_into_an_other_row(expl):
    """As shap: the hidden features' mean |phi| summed (global), their phi summed (one instance)."""
    importance = np.abs(expl.values).mean(0)
    hidden = np.argsort(-importance)[3:]
    ax = kx.plots.bar(expl, max_display=3)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0] == "2 other features" and len(labels) == 4
    assert np.isclose(ax.patches[0].get_width(), importance[hidden].sum())
    assert ax.patches[0].get_y() < min(p.get_y() for p in ax.patches[1:])   # at the bottom
    row = expl[7]
    hidden = np.argsort(-np.abs(row.values))[2:]
    ax = kx.plots.bar(row, max_display=2)
    assert [t.get_text() for t in ax.get_yticklabels()][0] == "3 other features"
    assert np.isclose(ax.patches[0].get_width(), row.values[hidden].sum())   # signed sum
    ax = kx.plots.bar(row, max_display=4)
    assert [t.get_text() for t in ax.get_yticklabels()][0] == "1 other feature"
    ax = kx.plots.bar(expl)                          # nothing hidden: no extra row
    assert "other" not in " ".join(t.get_text() for t in ax.get_yticklabels())
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match="max_display must be a positive integer"):
            kx.plots.bar(expl, max_display=bad)


def test_bar_of_one_instance_is_signed_with_whiskers(expl):
    row = expl[1]
    ax = kx.plots.bar(row)
    widths = np.array([p.get_width() for p in ax.patches])
    np.testing.assert_allclose(np.sort(widths), np.sort(row.values))
    assert widths.min() < 0 < widths.max()
    from matplotlib.container import BarContainer

    bars = [c for c in ax.containers if isinstance(c, BarContainer)][0]
    segments = [np.asarray(s) for s in bars.errorbar.lines[2][0].get_segments()]
    np.testing.assert_allclose(sorted(s[0, 0] for s in segments), np.sort(row.lower))
    np.testing.assert_allclose(sorted(s[1, 0] for s in segments), np.sort(row.upper))


def test_beeswarm_pools_hidden_features_into_an_other_row(expl):
    importance = np.abs(expl.values).mean(0)
    hidden = np.argsort(-importance)[2:]
    ax = kx.plots.beeswarm(expl, max_display=2)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["3 other features"] + [expl.feature_names[j] for j in np.argsort(-importance)[:2][::-1]]
    pooled = ax.collections[0].get_offsets()        # the bottom row, drawn first
    np.testing.assert_allclose(pooled[:, 0], expl.values[:, hidden].sum(axis=1))
    assert np.all(np.abs(pooled[:, 1]) < 0.5)       # on row 0
    assert len(ax.collections) == 3


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


def _overlap(a, b):
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


@pytest.mark.parametrize("bounds", [True, False])
@pytest.mark.parametrize("size", [(7, 3), (3.2, 2.5)])
def test_waterfall_labels_clear_ticks_and_whiskers(size, bounds):
    """Value labels lie inside the axes, beyond the whiskers, off the tick labels."""
    values = np.array([-3.14159, 2.5, -1.23456, 0.8, -0.45678, 0.01234])
    intervals = {"lower": values - 0.7, "upper": values + 0.7} if bounds else {}
    row = kx.Explanation(values, base_values=0.5, data=np.linspace(-1, 1, 6),
                         feature_names=[f"feature_{j}" for j in range(6)], **intervals)
    fig, ax = plt.subplots(figsize=size)
    kx.plots.waterfall(row, ax=ax, max_display=5)
    renderer = fig.canvas.get_renderer()
    texts = [t for t in ax.texts if t.get_text().strip()]
    assert len(texts) == 6
    frame = ax.get_window_extent(renderer)
    ticks = [t.get_window_extent(renderer) for t in ax.get_yticklabels() + ax.get_xticklabels()
             if t.get_visible() and t.get_text()]
    caps = [line.get_window_extent(renderer) for line in ax.lines if line.get_linestyle() == "None"]
    whiskers = caps + [Bbox(ax.transData.transform(np.asarray(seg)))
                       for c in ax.collections for seg in c.get_segments()]
    assert (len(caps), len(whiskers)) == ((10, 15) if bounds else (0, 0))
    for text in texts:
        box = text.get_window_extent(renderer)
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1, text.get_text()
        assert not any(_overlap(box, tick) for tick in ticks), text.get_text()
        assert not any(_overlap(box, w) for w in whiskers), text.get_text()


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
    # or pass output= to any plot
    ax = kx.plots.beeswarm(expl, output="b")
    assert len(ax.collections) == 2
    assert len(kx.plots.waterfall(expl[0], output=2).patches) == 2
    with pytest.raises(ValueError, match="unknown output 'z'"):
        kx.plots.bar(expl, output="z")
    with pytest.raises(ValueError, match="single output"):
        kx.plots.bar(expl[..., "a"], output="a")


def test_kde_refuses_a_bad_feature_before_opening_a_figure():
    rng = np.random.default_rng(0)
    e = kx.Explanation(rng.normal(size=(10, 3)), np.zeros(10), feature_names=["a", "b", "c"])
    plt.close("all")
    with pytest.raises(ValueError, match="unknown feature 'q'"):
        kx.plots.kde(e, ["a", "q"])
    with pytest.raises(ValueError, match="out of range"):
        kx.plots.kde(e, [5])
    assert plt.get_fignums() == []
