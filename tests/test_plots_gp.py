"""Plots and the widget of stochastic Shapley values (GP-SHAP): what they draw is checked number by number.

The truths are computed here from the Explanation's covariance blocks by hand
(correlations, mean -/+ 1.96 sd) or by Monte Carlo over the plotted draws.
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.collections import PolyCollection
from matplotlib.container import BarContainer, ErrorbarContainer
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

import kernelxai as kx

Z95 = 1.959963984540054      # 97.5% standard normal quantile
D, M = 3, 5


def _training(seed=0, n=25):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] * X[:, 2] + 0.05 * rng.normal(size=n)
    return X, y


def _gp(X, y, length_scale=(1.0, 1.3, 0.8), alpha=1e-2):
    kernel = ConstantKernel(1.5, "fixed") * RBF(list(length_scale), "fixed")
    return GaussianProcessRegressor(kernel, alpha=alpha, optimizer=None).fit(X, y)


@pytest.fixture(scope="module")
def gp_expl():
    """Six points along feature 0 (shuffled, so sorting matters), joint covariance."""
    X, y = _training()
    points = np.column_stack([np.array([0.5, -1.8, 2.2, -0.4, 1.3, -1.0]),
                              np.full(6, 0.3), np.linspace(-0.5, 0.5, 6)])
    return kx.explain_gp(_gp(X, y), points, background=X[:M], joint=True)


@pytest.fixture(autouse=True)
def close():
    yield
    plt.close("all")


def _by_hand_correlation(cov):
    sd = np.sqrt(np.diag(cov))
    return cov / np.outer(sd, sd)


# ------------------------------------------------------------------ correlation
def test_correlation_heatmap_is_the_correlation_of_the_covariance_block(gp_expl):
    assert gp_expl.covariance.shape == (6, D, D)
    for row in (0, 4, -1):
        ax = kx.plots.correlation(gp_expl, row)
        image = ax.images[0]
        data = image.get_array()
        assert not np.ma.getmaskarray(data).any()
        truth = _by_hand_correlation(gp_expl.covariance[row])
        np.testing.assert_allclose(np.ma.getdata(data), truth, rtol=1e-12, atol=1e-14)
        assert image.get_clim() == (-1.0, 1.0)
        assert image.get_cmap()(0.0)[2] > image.get_cmap()(0.0)[0]     # blue at -1 ...
        assert image.get_cmap()(1.0)[0] > image.get_cmap()(1.0)[2]     # ... red at +1
        assert [t.get_text() for t in ax.get_xticklabels()] == gp_expl.feature_names
        assert [t.get_text() for t in ax.get_yticklabels()] == gp_expl.feature_names
        assert len(ax.figure.axes) == 2                                  # the heatmap and its colour bar
        texts = sorted(float(t.get_text()) for t in ax.texts)
        np.testing.assert_allclose(texts, np.sort(truth.ravel()), atol=0.005 + 1e-12)
        assert f"row {row % 6}" in ax.get_title()
    # the off-diagonal correlations are genuinely not zero here: the plot shows something
    assert np.abs(truth[~np.eye(D, dtype=bool)]).max() > 0.01


def test_correlation_annotation_switch_and_single_instance(gp_expl):
    assert len(kx.plots.correlation(gp_expl, 1, annotate=False).texts) == 0
    one = gp_expl[2]                                  # one instance: covariance (d, d)
    ax = kx.plots.correlation(one, title="point 2")
    np.testing.assert_allclose(np.ma.getdata(ax.images[0].get_array()),
                               _by_hand_correlation(gp_expl.covariance[2]), rtol=1e-12)
    assert ax.get_title() == "point 2"
    with pytest.raises(ValueError, match="single instance"):
        kx.plots.correlation(one, row=1)
    # many features: no numbers by default
    d = 13
    rng = np.random.default_rng(1)
    F = rng.normal(size=(d, 2 * d))
    big = kx.Explanation(np.zeros((1, d)), covariance=(F @ F.T)[None])
    assert len(kx.plots.correlation(big).texts) == 0


def test_correlation_blanks_a_zero_variance_feature_without_warnings():
    cov = np.array([[1.0, 0.5, 0.0], [0.5, 4.0, 0.0], [0.0, 0.0, 0.0]])
    e = kx.Explanation(np.zeros((1, 3)), covariance=cov[None], feature_names=["a", "b", "c"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax = kx.plots.correlation(e)
    data = ax.images[0].get_array()
    mask = np.ma.getmaskarray(data)
    np.testing.assert_array_equal(mask, [[0, 0, 1], [0, 0, 1], [1, 1, 1]])
    np.testing.assert_allclose(np.ma.getdata(data)[:2, :2], [[1, 0.25], [0.25, 1]])
    assert np.all(np.isfinite(np.ma.getdata(data)))
    assert "zero variance (c)" in ax.get_title()
    assert len(ax.texts) == 4                         # only the valid cells are numbered


def test_correlation_blanks_a_feature_the_kernel_ignores():
    """ARD length scale -> infinity: the attribution of x2 has (numerically) zero variance."""
    X, y = _training()
    e = kx.explain_gp(_gp(X, y, length_scale=(1.0, 1.3, 1e8)), X[:2], background=X[:M])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax = kx.plots.correlation(e, 0)
    mask = np.ma.getmaskarray(ax.images[0].get_array())
    assert mask[2].all() and mask[:, 2].all() and not mask[:2, :2].any()
    assert "zero variance (x2)" in ax.get_title()


def test_correlation_errors(gp_expl):
    plain = kx.Explanation(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="kx.explain_gp"):
        kx.plots.correlation(plain)
    for bad in (6, -7, 1.0, True):
        with pytest.raises(ValueError, match="row must be"):
            kx.plots.correlation(gp_expl, bad)


# -------------------------------------------------------------- dependence band
def _band_vertices(ax):
    bands = [c for c in ax.collections if c.get_gid() == "band"]
    assert len(bands) == 1 and isinstance(bands[0], PolyCollection)
    return bands[0].get_paths()[0].vertices


def _has_vertex(vertices, x, y):
    return bool(np.any(np.isclose(vertices[:, 0], x, rtol=0, atol=1e-12)
                       & np.isclose(vertices[:, 1], y, rtol=1e-10, atol=1e-12)))


def test_dependence_band_draws_mean_and_credible_band(gp_expl):
    x = gp_expl.data[:, 0]
    order = np.argsort(x)
    mean, sd = gp_expl.values[:, 0], gp_expl.stderr[:, 0]
    ax = kx.plots.dependence_band(gp_expl, 0, n_draws=3)
    (line,) = [l for l in ax.lines if l.get_gid() == "mean"]
    np.testing.assert_allclose(line.get_xdata(), x[order])
    np.testing.assert_allclose(line.get_ydata(), mean[order], rtol=1e-12)
    vertices = _band_vertices(ax)
    for i in range(len(x)):
        assert _has_vertex(vertices, x[i], mean[i] - Z95 * sd[i])
        assert _has_vertex(vertices, x[i], mean[i] + Z95 * sd[i])
    # the band is the Explanation's own 95% credible interval
    np.testing.assert_allclose(mean - Z95 * sd, gp_expl.lower[:, 0], rtol=1e-12)
    assert ax.get_xlabel() == "x0" and "x0" in ax.get_ylabel()
    # another level, and the feature by name
    ax = kx.plots.dependence_band(gp_expl, "x1", n_draws=0, level=0.5, ax=plt.subplots()[1])
    vertices = _band_vertices(ax)
    q = 0.6744897501960817                            # 75% standard normal quantile
    m1, s1, x1 = gp_expl.values[:, 1], gp_expl.stderr[:, 1], gp_expl.data[:, 1]
    for i in range(len(x1)):
        assert _has_vertex(vertices, x1[i], m1[i] + q * s1[i])
        assert _has_vertex(vertices, x1[i], m1[i] - q * s1[i])
    assert not [l for l in ax.lines if l.get_gid() == "draw"]


def test_dependence_band_draws_are_joint_posterior_draws(gp_expl):
    n_draws = 3000
    x = gp_expl.data[:, 0]
    order = np.argsort(x)
    ax = kx.plots.dependence_band(gp_expl, "x0", n_draws=n_draws, seed=1)
    lines = [l for l in ax.lines if l.get_gid() == "draw"]
    assert len(lines) == n_draws
    for line in lines[:5]:
        np.testing.assert_allclose(line.get_xdata(), x[order])
    draws = np.array([l.get_ydata() for l in lines])          # (n_draws, n) in sorted order
    mean, sd = gp_expl.values[order, 0], gp_expl.stderr[order, 0]
    # mean within 5 Monte-Carlo standard errors, std within 5 standard errors of a normal std
    assert np.all(np.abs(draws.mean(0) - mean) < 5 * sd / np.sqrt(n_draws))
    np.testing.assert_allclose(draws.std(0, ddof=1), sd, rtol=5 / np.sqrt(2 * n_draws))
    # jointly drawn: the sample correlation between points follows the joint covariance
    n, d = gp_expl.values.shape
    cells = np.arange(n) * d
    block = gp_expl.joint_covariance[np.ix_(cells, cells)][np.ix_(order, order)]
    truth = _by_hand_correlation(block)
    assert np.abs(truth[~np.eye(n, dtype=bool)]).max() > 0.3   # correlated, so this checks something
    np.testing.assert_allclose(np.corrcoef(draws.T), truth, atol=5 * 2 / np.sqrt(n_draws))
    # reproducible by seed (the first draws do not depend on n_draws), different for another seed
    plt.close("all")
    again = kx.plots.dependence_band(gp_expl, 0, n_draws=4, seed=1)
    other = kx.plots.dependence_band(gp_expl, 0, n_draws=4, seed=2)
    first = [l.get_ydata() for l in again.lines if l.get_gid() == "draw"]
    np.testing.assert_allclose(first, draws[:4])
    assert not np.allclose([l.get_ydata() for l in other.lines if l.get_gid() == "draw"], first)


def test_dependence_band_clips_rounding_negative_eigenvalues():
    """A rank-one block with a -1e-15 eigenvalue: no NaN, every draw is mean + t v."""
    n, d = 4, 2
    v = np.array([1.0, -0.5, 2.0, 0.25])
    joint = np.zeros((n * d, n * d))
    f0, f1 = np.arange(n) * d, np.arange(n) * d + 1
    joint[np.ix_(f0, f0)] = np.outer(v, v) - 1e-15 * np.eye(n)
    joint[np.ix_(f1, f1)] = np.eye(n)
    assert np.linalg.eigvalsh(joint[np.ix_(f0, f0)]).min() < 0
    values = np.arange(n * d, dtype=float).reshape(n, d)
    e = kx.Explanation(values, data=np.column_stack([np.arange(n), np.zeros(n)]),
                       joint_covariance=joint)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax = kx.plots.dependence_band(e, 0, n_draws=50, seed=0)
    draws = np.array([l.get_ydata() for l in ax.lines if l.get_gid() == "draw"])
    assert np.all(np.isfinite(draws))
    centred = draws - values[:, 0]
    t = centred @ v / (v @ v)
    np.testing.assert_allclose(centred, np.outer(t, v), atol=1e-6)
    assert np.std(t) > 0.5


def test_dependence_band_errors(gp_expl):
    no_joint = kx.explain_gp(_gp(*_training()), gp_expl.data[:2], background=_training()[0][:M])
    assert no_joint.covariance is not None and no_joint.joint_covariance is None
    with pytest.raises(ValueError, match="joint=True"):
        kx.plots.dependence_band(no_joint, 0)
    with pytest.raises(ValueError, match="unknown feature 'z'"):
        kx.plots.dependence_band(gp_expl, "z")
    with pytest.raises(ValueError, match="out of range"):
        kx.plots.dependence_band(gp_expl, 3)
    with pytest.raises(ValueError, match="n_draws"):
        kx.plots.dependence_band(gp_expl, 0, n_draws=-1)
    for level in (0, 1, 1.5):
        with pytest.raises(ValueError, match="level must be"):
            kx.plots.dependence_band(gp_expl, 0, level=level)


# ----------------------------------------------- existing plots on GP explanations
def test_bar_whiskers_are_the_credible_bounds(gp_expl):
    row = gp_expl[3]
    ax = kx.plots.bar(row)
    bars = [c for c in ax.containers if isinstance(c, BarContainer)][0]
    segments = [np.asarray(s) for s in bars.errorbar.lines[2][0].get_segments()]
    widths = np.array([p.get_width() for p in ax.patches])
    ys = np.array([p.get_y() + p.get_height() / 2 for p in ax.patches])
    for seg in segments:
        i = int(np.argmin(np.abs(ys - seg[0, 1])))
        j = int(np.argmin(np.abs(row.values - widths[i])))
        assert np.isclose(row.values[j], widths[i])
        np.testing.assert_allclose(seg[:, 0], [row.lower[j], row.upper[j]], rtol=1e-12)
        np.testing.assert_allclose(seg[:, 0], row.values[j] + np.array([-Z95, Z95]) * row.stderr[j],
                                   rtol=1e-10)
    assert len(segments) == D


def test_waterfall_whiskers_are_the_credible_bounds_shifted_to_the_step(gp_expl):
    """Each step phi_j starts where the walk stands; its whisker spans start + [lower_j, upper_j]."""
    row = gp_expl[1]
    ax = kx.plots.waterfall(row)
    bars = {round(p.get_y() + p.get_height() / 2, 6): p for p in ax.patches}
    seen = []
    for container in ax.containers:
        if not isinstance(container, ErrorbarContainer):
            continue
        seg = np.asarray(container.lines[2][0].get_segments()[0])
        patch = bars[round(seg[0, 1], 6)]
        start, step = patch.get_x(), patch.get_width()
        j = int(np.argmin(np.abs(row.values - step)))
        np.testing.assert_allclose(seg[:, 0] - start, [row.lower[j], row.upper[j]], rtol=1e-9,
                                   atol=1e-12)
        seen.append(j)
    assert sorted(seen) == list(range(D))


# ---------------------------------------------------------------------- widget
def test_gp_explorer_bands_respond_to_the_noise_level():
    pytest.importorskip("ipywidgets")
    X, y = _training(n=15)
    box = kx.widgets.gp_explorer(X, y, noise_levels=(1e-3, 0.5), feature_names=["a", "b", "c"])
    point, noise, status, output = box.children
    assert status.value == "" and len(output.outputs) == 1 and "image/png" in output.outputs[0]["data"]
    first = output.outputs[0]["data"]["image/png"]
    assert plt.get_fignums() == []
    # the fits: fixed hyper-parameters, only alpha changes, cached per level
    quiet, loud = box.fit(1e-3), box.fit(0.5)
    assert quiet.alpha == 1e-3 and loud.alpha == 0.5 and box.fit(0.5) is loud
    np.testing.assert_array_equal(quiet.kernel_.theta, loud.kernel_.theta)
    np.testing.assert_array_equal(quiet.kernel_.theta, quiet.kernel.theta)
    # the callback at two noise levels: wider credible bands with more noise
    narrow, wide = box.explanation(2, 1e-3), box.explanation(2, 0.5)
    assert narrow.feature_names == ["a", "b", "c"] and narrow.values.shape == (D,)
    assert np.all(wide.upper - wide.lower > 1.2 * (narrow.upper - narrow.lower))
    # the drawn figure shows that explanation's bands and its correlations
    fig = box.draw(2, 0.5)
    bar_ax, corr_ax = fig.axes[:2]
    bars = [c for c in bar_ax.containers if isinstance(c, BarContainer)][0]
    segments = [np.asarray(s) for s in bars.errorbar.lines[2][0].get_segments()]
    np.testing.assert_allclose(sorted(s[1, 0] for s in segments), np.sort(wide.upper), rtol=1e-12)
    np.testing.assert_allclose(np.ma.getdata(corr_ax.images[0].get_array()),
                               _by_hand_correlation(wide.covariance), rtol=1e-10, atol=1e-12)
    plt.close(fig)
    # moving the controls redraws
    noise.value = 0.5
    assert status.value == "" and len(output.outputs) == 1
    assert output.outputs[0]["data"]["image/png"] != first
    point.value = 14
    assert status.value == "" and len(output.outputs) == 1


def test_gp_explorer_checks_its_inputs():
    pytest.importorskip("ipywidgets")
    X, y = _training(n=10)
    with pytest.raises(ValueError, match="noise_levels"):
        kx.widgets.gp_explorer(X, y, noise_levels=(0.1, -1))
    with pytest.raises(ValueError, match="y must have shape"):
        kx.widgets.gp_explorer(X, y[:5])
    with pytest.raises(ValueError, match="feature_names"):
        kx.widgets.gp_explorer(X, y, feature_names=["a"])
