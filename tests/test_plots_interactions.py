"""Interaction plots: heatmap, network of the strongest pairs, dependence coloured by the partner; the largest
sets of any order as bars and as an UpSet plot."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest

import kernelxai as kx
from kernelxai.explanation import InteractionBlock, Interactions


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


# --------------------------------------------------------------- interactions of any order (#37 item 6)
def _orders_expl(n=3, d=4, seed=2, with_outputs=False):
    """An Explanation whose interaction_orders hold every set of sizes 1, 2 and 3 of d features (no pairwise block)."""
    rng = np.random.default_rng(seed)
    blocks, k = {}, (2,) if with_outputs else ()
    for t in (1, 2, 3):
        m = {1: d, 2: d * (d - 1) // 2, 3: d * (d - 1) * (d - 2) // 6}[t]
        blocks[t] = InteractionBlock(t, None, rng.normal(scale=1.0 / t, size=(n, m) + k))
    axes = ("instance", "output") if with_outputs else ("instance",)
    inter = Interactions(blocks, list("abcd"), index="k-SII", order=3, axes=axes)
    values = rng.normal(size=(n, d) + k)
    names = {"output_names": ["u", "v"]} if with_outputs else {}
    return kx.Explanation(values, feature_names=list("abcd"), interaction_orders=inter, **names)


def _expected(e, row):
    """(labels, signed values) of every set held, largest |value| first, read from to_frame()."""
    frame = e.interaction_orders.to_frame()
    frame = frame[frame.point == row] if row is not None else \
        frame.assign(value=frame.value.abs()).groupby(["order", "set"], sort=False, as_index=False).value.mean()
    frame = frame.iloc[np.argsort(-frame.value.abs().to_numpy(), kind="stable")]
    return list(frame.set), frame.value.to_numpy(), list(frame.order)


def test_interaction_bar_draws_the_largest_sets_of_every_order():
    e = _orders_expl()
    labels, values, orders = _expected(e, 1)
    ax = kx.plots.interaction_bar(e, row=1, max_sets=6)
    widths = np.array([p.get_width() for p in ax.patches])[::-1]          # bars bottom up: reverse
    np.testing.assert_allclose(widths, values[:6])
    assert [t.get_text() for t in ax.get_yticklabels()][::-1] == labels[:6]
    assert all(" × " in s for s, t in zip(labels[:6], orders[:6]) if t > 1)
    side = ax.child_axes[0]
    assert [t.get_text() for t in side.get_yticklabels()][::-1] == [str(t) for t in orders[:6]]
    colours = [matplotlib.colors.to_hex(p.get_facecolor()) for p in ax.patches][::-1]
    assert colours == [kx.plots.POSITIVE if v >= 0 else kx.plots.NEGATIVE for v in values[:6]]
    assert ax.get_title() == "k-SII interactions, the 6 largest of 14 (instance 1)"
    # the mean |value| over points, grey; one order; the sets with a feature
    labels, values, _ = _expected(e, None)
    ax = kx.plots.interaction_bar(e, max_sets=100)
    np.testing.assert_allclose(np.array([p.get_width() for p in ax.patches])[::-1], values)
    assert {matplotlib.colors.to_hex(p.get_facecolor()) for p in ax.patches} == {"#7f7f7f"}
    assert ax.get_xlabel() == "mean |k-SII interaction|"
    ax = kx.plots.interaction_bar(e, row=0, order=2)
    assert [t.get_text() for t in ax.get_yticklabels()][::-1] == \
        [s for s, t in zip(*_expected(e, 0)[::2]) if t == 2]
    ax = kx.plots.interaction_bar(e, row=-1, contains=["d", "a"])
    shown = [t.get_text() for t in ax.get_yticklabels()]
    assert sorted(shown) == sorted(["a × d", "a × b × d", "a × c × d"])
    plt.close("all")


def test_interaction_upset_membership_equals_the_sets():
    e = _orders_expl()
    labels, values, _ = _expected(e, 2)
    ax = kx.plots.interaction_upset(e, row=2, max_sets=8)
    np.testing.assert_allclose([p.get_height() for p in ax.patches], values[:8])  # left to right
    matrix = [a for a in ax.figure.axes if a.get_gid() == "membership"]
    assert len(matrix) == 1
    matrix = matrix[0]
    features = [t.get_text() for t in matrix.get_yticklabels()]
    member = next(c for c in matrix.collections if c.get_gid() == "member")
    drawn = {}
    for x, y in member.get_offsets():
        drawn.setdefault(int(round(x)), set()).add(features[int(round(y))])
    assert [drawn[c] for c in range(8)] == [set(s.split(" × ")) for s in labels[:8]]
    assert set(features) == set().union(*drawn.values())                    # rows: the features met
    grid = next(c for c in matrix.collections if c.get_gid() == "grid")
    assert len(grid.get_offsets()) == 8 * len(features)
    # one order, mean |value|: three dots a column
    ax = kx.plots.interaction_upset(e, order=3)
    matrix = next(a for a in ax.figure.axes if a.get_gid() == "membership")
    member = next(c for c in matrix.collections if c.get_gid() == "member")
    assert len(member.get_offsets()) == 3 * 4 and len(ax.patches) == 4
    assert min(p.get_height() for p in ax.patches) >= 0
    # on a given Axes: the matrix is appended below it, in the same figure
    fig, axes = plt.subplots(1, 2)
    out = kx.plots.interaction_upset(e, row=0, ax=axes[1], title="mine")
    assert out is axes[1] and out.get_title() == "mine" and len(fig.axes) == 3
    plt.close("all")


def test_plots_of_top_sets_per_point():
    d, n = 4, 2
    sets = np.array([[[0, 1], [2, 3]], [[1, 2], [0, 1]]])                    # each point's own two pairs
    vals = np.array([[3.0, -1.0], [-2.0, 0.5]])
    top = Interactions({2: InteractionBlock(2, sets, vals, layout="top")}, list("abcd"), index="STII", order=2)
    e = kx.Explanation(np.zeros((n, d)), feature_names=list("abcd"), interaction_orders=top)
    ax = kx.plots.interaction_bar(e, row=1)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a × b", "b × c"]
    np.testing.assert_allclose([p.get_width() for p in ax.patches], [0.5, -2.0])
    ax = kx.plots.interaction_network(e, row=0)
    edges = [line for line in ax.lines if line.get_gid() == "edge"]
    assert len(edges) == 2 and {line.get_color() for line in edges} == {kx.plots.POSITIVE, kx.plots.NEGATIVE}
    for plot in (kx.plots.interaction_bar, kx.plots.interaction_upset, kx.plots.interaction_network):
        with pytest.raises(ValueError, match="differ by point.*row="):
            plot(e)
    same = Interactions({2: InteractionBlock(2, sets[[0, 0]][:, ::-1], vals, layout="top")}, list("abcd"))
    ax = kx.plots.interaction_bar(kx.Explanation(np.zeros((n, d)), feature_names=list("abcd"),
                                                 interaction_orders=same))
    np.testing.assert_allclose(sorted(p.get_width() for p in ax.patches), [0.75, 2.5])  # the same sets: a mean
    plt.close("all")


def test_network_takes_pairs_from_interaction_orders():
    e = _orders_expl()
    assert e.interactions is None
    pairs = e.interaction_orders[2]
    ax = kx.plots.interaction_network(e, row=0, top=3)
    edges = [line for line in ax.lines if line.get_gid() == "edge"]
    strongest = np.sort(np.abs(pairs.values[0]))[::-1][:3]
    assert len(edges) == 3
    assert max(line.get_linewidth() for line in edges) == pytest.approx(6.8)
    assert sorted(line.get_linewidth() for line in edges) == pytest.approx(sorted(0.8 + 6 * strongest / strongest[0]))
    # node sizes follow the main effects (the sets of one feature), not the order-1 values
    node = next(c for c in ax.collections if c.get_gid() == "node")
    main = np.abs(e.interaction_orders[1].values[0])
    np.testing.assert_allclose(node.get_sizes(), 80 + 600 * main / main.max())
    # a Moebius of order 3 holds no pairs
    triples = Interactions({3: e.interaction_orders[3]}, list("abcd"), index="Moebius", order=3)
    only = kx.Explanation(np.zeros((3, 4)), feature_names=list("abcd"), interaction_orders=triples)
    with pytest.raises(ValueError, match=r"no sets of order 2; orders held: \[3\]"):
        kx.plots.interaction_network(only)
    plt.close("all")


def test_interaction_set_plots_of_a_model_and_an_output():
    from sklearn.kernel_ridge import KernelRidge

    X = np.random.default_rng(0).normal(size=(30, 4))
    model = KernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(X, X[:, 0] + X[:, 1] * X[:, 2] * X[:, 3])
    e = kx.explain_interactions(model, X[:4], index="STII", order=3)
    frame = e.interaction_orders.to_frame()
    at = frame[frame.point == 3].set_index("set").value
    ax = kx.plots.interaction_bar(e, row=3, max_sets=50)
    drawn = dict(zip([t.get_text() for t in ax.get_yticklabels()], [p.get_width() for p in ax.patches]))
    assert drawn == pytest.approx(at.to_dict())
    assert len(kx.plots.interaction_upset(e[3], max_sets=50).patches) == len(at)         # a single point
    # an Explanation with outputs: one output drawn
    m = _orders_expl(with_outputs=True)
    with pytest.raises(ValueError, match="outputs"):
        kx.plots.interaction_bar(m)
    ax = kx.plots.interaction_bar(m, row=0, output="v", max_sets=100)
    held = np.concatenate([b.values[0, :, 1] for b in m.interaction_orders.blocks.values()])
    np.testing.assert_allclose(sorted(p.get_width() for p in ax.patches), sorted(held))
    plt.close("all")


def test_interaction_set_plots_refuse_clearly():
    e = _orders_expl()
    bare = kx.Explanation(np.zeros((3, 4)), feature_names=list("abcd"))
    for plot in (kx.plots.interaction_bar, kx.plots.interaction_upset):
        with pytest.raises(ValueError, match="no interactions.*explain_interactions"):
            plot(bare)
        with pytest.raises(ValueError, match=r"no sets of order 4; orders held: \[1, 2, 3\]"):
            plot(e, order=4)
        with pytest.raises(ValueError, match="order must be a positive integer"):
            plot(e, order=0)
        with pytest.raises(ValueError, match=r"unknown feature 'z'; features are \['a', 'b', 'c', 'd'\]"):
            plot(e, contains="z")
        with pytest.raises(ValueError, match="no set of order 2 held here contains"):
            plot(e, order=2, contains=["a", "b", "c"])
        with pytest.raises(ValueError, match="max_sets must be a positive integer"):
            plot(e, max_sets=0)
        with pytest.raises(ValueError, match="row must be"):
            plot(e, row=3)
        with pytest.raises(TypeError, match="kernelxai Explanation"):
            plot(np.zeros((3, 4)))
    plt.close("all")


def test_the_largest_sets_without_sorting_them_all():
    from kernelxai.plots._interaction_sets_plots import _largest

    rng = np.random.default_rng(3)
    for _ in range(100):
        scores = np.abs(rng.integers(-4, 5, size=rng.integers(1, 30))).astype(float)   # many ties
        limit = int(rng.integers(1, 35))
        assert list(_largest(scores, limit)) == list(np.argsort(-scores, kind="stable")[:limit])
