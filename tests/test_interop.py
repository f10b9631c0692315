"""Interop with shap: to_shap() keeps intervals and metadata; plots take a shap.Explanation.

shap is optional and not installed in the test environment, so a stand-in
class with shap's attribute names (those of shap 0.51's ``shap.Explanation``:
``values``, ``base_values``, ``data``, ``feature_names``, ``output_names``,
``lower_bounds``, ``upper_bounds``, ``error_std``) plays its part; the last
test runs against the real package when it is there.
"""

import importlib
import os
import sys
import types

import matplotlib.pyplot as plt
import numpy as np
import pytest

import kernelxai as kx


class FakeShapExplanation:
    """Stores its arguments as attributes, like shap.Explanation's properties."""

    def __init__(self, values, base_values=None, data=None, display_data=None, instance_names=None,  # noqa: PLR0913 - mirrors shap.Explanation's constructor
                 feature_names=None, output_names=None, output_indexes=None, lower_bounds=None,
                 upper_bounds=None, error_std=None, main_effects=None, hierarchical_values=None,
                 clustering=None, compute_time=None):
        self.values = values
        self.base_values = base_values
        self.data = data
        self.display_data = display_data
        self.feature_names = feature_names
        self.output_names = output_names
        self.lower_bounds = lower_bounds
        self.upper_bounds = upper_bounds
        self.error_std = error_std


@pytest.fixture
def fake_shap(monkeypatch):
    module = types.ModuleType("shap")
    module.Explanation = FakeShapExplanation
    monkeypatch.setitem(sys.modules, "shap", module)
    return module


@pytest.fixture(autouse=True)
def close():
    yield
    plt.close("all")


@pytest.fixture
def expl():
    rng = np.random.default_rng(0)
    values = rng.normal(size=(30, 6)) * np.arange(6, 0, -1)
    return kx.Explanation(values, base_values=rng.normal(size=30), data=rng.normal(size=(30, 6)),
                          feature_names=list("abcdef"), lower=values - 0.1, upper=values + 0.3,
                          stderr=np.full_like(values, 0.05), meta={"method": "permutation"})


def test_to_shap_keeps_intervals_and_metadata(fake_shap, expl):
    s = expl.to_shap()
    assert s.lower_bounds is expl.lower and s.upper_bounds is expl.upper
    assert s.error_std is expl.stderr
    assert s.kernelxai_meta == {"method": "permutation"}


def test_from_shap_round_trip(fake_shap, expl):
    back = kx.Explanation.from_shap(expl.to_shap())
    for name in ("values", "base_values", "data", "lower", "upper", "stderr"):
        np.testing.assert_array_equal(getattr(back, name), getattr(expl, name))
    assert back.feature_names == expl.feature_names
    assert back.meta["method"] == "permutation"


def test_from_shap_single_row_and_outputs():
    rng = np.random.default_rng(1)
    row = FakeShapExplanation(np.array([0.5, -0.2, 0.1]), base_values=np.float64(2.0),
                              data=np.array([1.0, 2.0, 3.0]), feature_names=["u", "v", "w"])
    e = kx.Explanation.from_shap(row)
    assert e.values.shape == (3,) and e.base_values == 2.0 and e.feature_names == ["u", "v", "w"]
    assert e.meta["source"] == "shap.Explanation" and not e.has_intervals
    # one instance of a multi-output explanation: (features, outputs), told by output_names
    one = FakeShapExplanation(rng.normal(size=(3, 3)), base_values=np.zeros(3),
                              feature_names=["u", "v", "w"], output_names=["p", "q", "r"])
    e = kx.Explanation.from_shap(one)
    assert e.axes == ("feature", "output") and e.output_names == ["p", "q", "r"]
    # ... or by feature names matching the leading axis only
    one = FakeShapExplanation(rng.normal(size=(4, 2)), base_values=np.zeros(2),
                              feature_names=list("abcd"))
    assert kx.Explanation.from_shap(one).axes == ("feature", "output")
    # many rows of one picked output: shap leaves the picked name as a string
    pick = FakeShapExplanation(rng.normal(size=(5, 3)), base_values=np.zeros(5), output_names="q")
    e = kx.Explanation.from_shap(pick)
    assert e.axes == ("instance", "feature") and e.meta["output"] == "q"
    # shap keeps one list of names per row after some slicing
    rows = FakeShapExplanation(rng.normal(size=(2, 3)), base_values=np.zeros(2),
                               feature_names=np.array([["u", "v", "w"]] * 2, dtype=object))
    assert kx.Explanation.from_shap(rows).feature_names == ["u", "v", "w"]
    with pytest.raises(TypeError, match=r"expected a shap\.Explanation .* got ndarray"):
        kx.Explanation.from_shap(np.zeros(3))


def _whiskers(ax):
    """The horizontal error-bar segments of a bar chart, ((x_low, y), (x_high, y)) each."""
    from matplotlib.container import BarContainer

    bars = [c for c in ax.containers if isinstance(c, BarContainer)][0]
    return [np.asarray(seg) for seg in bars.errorbar.lines[2][0].get_segments()]


def test_plots_accept_a_shap_explanation(fake_shap, expl):
    s = expl.to_shap()
    ax = kx.plots.beeswarm(s, max_display=4)
    assert ax.get_yticklabels()[0].get_text() == "2 other features"
    ax = kx.plots.bar(s)
    np.testing.assert_allclose(sorted(p.get_width() for p in ax.patches),
                               np.sort(np.abs(expl.values).mean(0)))
    row = FakeShapExplanation(expl.values[2], base_values=expl.base_values[2], data=expl.data[2],
                              feature_names=expl.feature_names, lower_bounds=expl.lower[2],
                              upper_bounds=expl.upper[2])
    ax = kx.plots.bar(row)
    widths = [p.get_width() for p in ax.patches]
    np.testing.assert_allclose(sorted(widths), np.sort(expl.values[2]))   # one instance: signed
    assert min(widths) < 0
    segments = _whiskers(ax)                                   # whiskers from the bounds
    np.testing.assert_allclose(sorted(seg[0, 0] for seg in segments), np.sort(expl.lower[2]))
    np.testing.assert_allclose(sorted(seg[1, 0] for seg in segments), np.sort(expl.upper[2]))
    ax = kx.plots.waterfall(row)
    ends = [p.get_x() + p.get_width() for p in ax.patches]
    assert np.isclose(ends[-1], expl.base_values[2] + expl.values[2].sum())
    assert len(ax.lines) > 2                                  # error bars drawn
    with pytest.raises(TypeError, match="kernelxai Explanation or a shap.Explanation"):
        kx.plots.waterfall([1.0, 2.0])


def test_plots_ask_to_pick_one_output_of_a_shap_explanation():
    multi = FakeShapExplanation(np.zeros((4, 2, 3)), base_values=np.zeros((4, 3)),
                                output_names=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"pick one with e\[\.\.\., 'a'\]"):
        kx.plots.bar(multi)


def test_mmd_explanation_through_shap_draws_signs(fake_shap):
    rng = np.random.default_rng(2)
    X, Z = rng.normal(size=(30, 4)), rng.normal(size=(25, 4))
    Z[:, 2] += 1.0
    e = kx.explain_mmd(X, Z, n_permutations=0)
    ax = kx.plots.bar(e.to_shap())
    np.testing.assert_allclose(sorted(p.get_width() for p in ax.patches), np.sort(e.values))


def _optional(name):
    """The optional package, or a skip -- except under CI, which installs the extras (pyproject's test
    extra) so that the interop they promise is tested."""
    if os.environ.get("CI"):
        return importlib.import_module(name)
    return pytest.importorskip(name)


@pytest.mark.parametrize("extra", ["shap", "shapiq"])
def test_a_missing_extra_is_named(monkeypatch, extra):
    """Without shap / shapiq, to_shap / to_shapiq say which extra to install."""
    rng = np.random.default_rng(0)
    e = kx.Explanation(rng.normal(size=(2, 3)), base_values=[0.0, 1.0],
                       interactions=np.zeros((2, 3, 3)), meta={"index": "SII"})
    monkeypatch.setitem(sys.modules, extra, None)   # makes `import extra` raise ImportError
    with pytest.raises(ImportError, match=rf"pip install kernelxai\[{extra}\]"):
        e.to_shap() if extra == "shap" else e.to_shapiq()


def test_with_real_shap(expl):
    shap = _optional("shap")
    s = expl.to_shap()
    assert isinstance(s, shap.Explanation)
    back = kx.Explanation.from_shap(s)
    np.testing.assert_array_equal(back.upper, expl.upper)
    row = kx.Explanation.from_shap(s[3])
    np.testing.assert_array_equal(row.lower, expl.lower[3])
    assert row.base_values == expl.base_values[3]
    kx.plots.waterfall(s[3])
    kx.plots.beeswarm(s, max_display=3)


def test_to_shapiq_carries_every_order():
    shapiq = _optional("shapiq")
    rng = np.random.default_rng(0)
    n, d = 2, 4
    inter = rng.normal(size=(n, d, d))
    inter = inter + inter.transpose(0, 2, 1)
    inter[:, range(d), range(d)] = 0.0
    e = kx.Explanation(rng.normal(size=(n, d)), base_values=[1.0, 2.0], interactions=inter,
                       meta={"index": "k-SII", "method": "product"})
    converted = e.to_shapiq()
    assert len(converted) == n and all(isinstance(v, shapiq.InteractionValues) for v in converted)
    v = converted[1]
    assert v.index == "k-SII" and v.n_players == d and v.max_order == 2 and not v.estimated
    assert v[()] == 2.0 and v.baseline_value == 2.0
    for j in range(d):
        assert v[(j,)] == e.values[1, j]
    for i in range(d):
        for j in range(i + 1, d):
            assert v[(i, j)] == inter[1, i, j]


def test_to_shapiq_refuses_without_interactions():
    with pytest.raises(ValueError, match="has none"):
        kx.Explanation(np.zeros((2, 3))).to_shapiq()
