"""Interaction plots: heatmap, network of the strongest pairs, dependence coloured by the partner."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest

import kernelxai as kx


@pytest.fixture
def expl():
    rng = np.random.default_rng(0)
    n, d = 15, 5
    inter = 0.05 * rng.normal(size=(n, d, d))
    inter[:, 1, 3] += 2.0  # the planted pair (1, 3)
    inter[:, 0, 4] -= 1.0  # a negative pair (0, 4)
    inter = inter + inter.transpose(0, 2, 1)
    inter[:, range(d), range(d)] = 0.0
    yield kx.Explanation(rng.normal(size=(n, d)), data=rng.normal(size=(n, d)), interactions=inter,
                         feature_names=list("abcde"))
    plt.close("all")


def test_heatmap_shows_the_mean_absolute_or_one_instance(expl):
    ax = kx.plots.interaction_heatmap(expl)
    np.testing.assert_allclose(ax.images[0].get_array(), np.abs(expl.interactions).mean(axis=0))
    assert [t.get_text() for t in ax.get_yticklabels()] == list("abcde")
    ax = kx.plots.interaction_heatmap(expl, row=3)
    np.testing.assert_allclose(ax.images[0].get_array(), expl.interactions[3])
    lo, hi = ax.images[0].get_clim()
    assert lo == -hi  # diverging, symmetric around 0
    ax = kx.plots.interaction_heatmap(expl, max_display=2)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["b", "d"]
    assert "3 other features" in ax.get_title()


def test_network_draws_the_strongest_pairs(expl):
    ax = kx.plots.interaction_network(expl, row=0, top=2)
    edges = [line for line in ax.lines if line.get_gid() == "edge"]
    assert len(edges) == 2
    widths = sorted(line.get_linewidth() for line in edges)
    assert widths[1] > widths[0]  # |2| drawn wider than |-1|
    colors = {line.get_color() for line in edges}
    assert colors == {kx.plots.POSITIVE, kx.plots.NEGATIVE}
    assert len([line for line in kx.plots.interaction_network(expl, top=100).lines
                if line.get_gid() == "edge"]) == 10


def test_dependence_coloured_by_the_strongest_partner(expl):
    assert kx.plots.strongest_interaction(expl, "b") == 3
    assert kx.plots.strongest_interaction(expl, 0) == 4
    ax = kx.plots.dependence(expl, "b", color_by="interaction")
    assert ax.figure.axes[-1].get_ylabel() == "d"


def test_errors_without_interactions():
    e = kx.Explanation(np.zeros((3, 2)), data=np.zeros((3, 2)))
    for plot in (kx.plots.interaction_heatmap, kx.plots.interaction_network):
        with pytest.raises(ValueError, match="explain_interactions"):
            plot(e)
    before = plt.get_fignums()
    with pytest.raises(ValueError, match="explain_interactions"):
        kx.plots.dependence(e, 0, color_by="interaction")
    assert plt.get_fignums() == before  # refused before a figure was opened
    rng = np.random.default_rng(1)
    inter = rng.normal(size=(3, 2, 2))
    inter = inter + inter.transpose(0, 2, 1)
    inter[:, range(2), range(2)] = 0
    with pytest.raises(ValueError, match="row must be"):
        kx.plots.interaction_heatmap(kx.Explanation(np.zeros((3, 2)), interactions=inter), row=7)
    with pytest.raises(ValueError, match="top must be"):
        kx.plots.interaction_network(kx.Explanation(np.zeros((3, 2)), interactions=inter), top=0)
