"""Interactions of any order and every index through the public entry points (issue 37, items 1-3 and 5).

* ``kx.explain_interactions`` on real product-kernel models (SVR, KernelRidge with RBF kernels;
  interventional with a background, functional baseline) at d = 6: every index, every order,
  the product route against the enumeration oracle to 1e-10, efficiency checked;
* ``sets=`` (feature names) and ``top=`` against the dense result; chunks of rows; several outputs;
* the cost guard: time and memory priced before the call (and ``top=`` once the bound has
  spoken), refusals with their advice; ``"sampled"`` refused beyond the order-2 pairs;
* the Explanation's container: slicing by feature name, ``to_frame``, JSON round trip,
  ``to_shapiq`` / ``from_shapiq`` (a small stand-in for shapiq when it is not installed);
* the order-2 results of SII, k-SII, STII and FSII keep their layout and values.
"""

import itertools
import json
import math
import sys
import types

import numpy as np
import pytest

import kernelxai as kx
from kernelxai.estimators._interaction_indices import INDEX_CONCEPTS, INDEX_NAMES, get_index
from kernelxai.estimators._interaction_orders import order_cost, order_request
from kernelxai.estimators._registry import CostLimitError, InvalidOptionError, NotApplicableError
from kernelxai.explanation import InteractionBlock, Interactions
from kernelxai.explanation._interop import UP_TO_K_INDICES

pd = pytest.importorskip("pandas")
TOL = 1e-10
NAMES = list("abcdef")


def _orders(idx, d):
    return [1] if idx.order_means == "1" else list(range(1, d + 1))


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(37)
    X = rng.normal(size=(60, 6))
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) * X[:, 3] * X[:, 4] + 0.5 * X[:, 5]
    return pd.DataFrame(X, columns=NAMES), y


@pytest.fixture(scope="module")
def svr(data):
    from sklearn.svm import SVR

    X, y = data
    return SVR(gamma=0.25, C=3.0).fit(X, y)


@pytest.fixture(scope="module")
def krr(data):
    from sklearn.kernel_ridge import KernelRidge

    X, y = data
    return KernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(X, y)


def _close(a, b, tol=TOL):
    scale = max(1.0, float(np.nanmax(np.abs(b))) if np.size(b) else 1.0)
    np.testing.assert_allclose(a, b, rtol=0, atol=tol * scale)


# --------------------------------------------------------------------------- #
# every index, every order: the product route against the enumeration oracle
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("value", ["interventional", "functional_baseline"])
@pytest.mark.parametrize("model_name", ["svr", "krr"])
def test_product_route_equals_enumeration_every_index_and_order(value, model_name, data, request):
    model = request.getfixturevalue(model_name)
    X, _ = data
    pts = X.iloc[:3]
    background = X.iloc[10:18] if value == "interventional" else None
    d = X.shape[1]
    for idx in INDEX_CONCEPTS.values():
        for k in _orders(idx, d):
            kw = dict(value=value, background=background, index=idx.name, order=k)
            fast = kx.explain_interactions(model, pts, **kw)
            slow = kx.explain_interactions(model, pts, method="exact", **kw)
            assert fast.meta["method"] == "product" and slow.meta["method"] == "exact"
            orders = fast.interaction_orders
            assert orders.sizes == list(idx.sizes(k, d)) == slow.interaction_orders.sizes
            for t in orders.sizes:
                block = orders[t]
                assert block.layout == "dense" and block.values.shape == (3, math.comb(d, t))
                assert block.sets.tolist() == [list(s) for s in itertools.combinations(range(d), t)]
                _close(block.values, slow.interaction_orders[t].values)
            _close(fast.values, slow.values)                       # the single features' values
            _close(fast.base_values, slow.base_values, 1e-12)
            if idx.efficient_sizes(k, d) is not None and idx.efficiency != "all orders":
                assert fast.meta["efficiency_error"] < 1e-9 and slow.meta["efficiency_error"] < 1e-9
            else:
                assert fast.meta["efficiency_error"] is None and fast.meta["efficiency"]
            if 2 in orders:                                       # the pairs also as (n, d, d)
                i, j = np.triu_indices(d, 1)
                np.testing.assert_array_equal(fast.interactions[:, i, j], orders[2].values)
            else:
                assert fast.interactions is None


def test_what_the_values_are(svr, data):
    """values: the index's single-feature values (Shapley values for SII; order-1 terms for k-SII)."""
    X, _ = data
    kw = dict(background=X.iloc[10:18])
    shap = kx.explain(svr, X.iloc[:3], **kw)
    sii3 = kx.explain_interactions(svr, X.iloc[:3], index="SII", order=3, **kw)
    _close(sii3.values, shap.values)
    sv = kx.explain_interactions(svr, X.iloc[:3], index="SV", order=1, **kw)
    _close(sv.interaction_orders[1].values, shap.values)
    ksii = kx.explain_interactions(svr, X.iloc[:3], index="k-SII", order=3, **kw)
    _close(ksii.values, ksii.interaction_orders[1].values, 0)
    # k-SII of order 3: all sizes 1..3 sum to f(x) - E f (efficiency), as the Shapley values do
    total = sum(ksii.interaction_orders[t].values.sum(axis=1) for t in (1, 2, 3))
    _close(total, shap.values.sum(axis=1), 1e-9)


def test_order_two_of_the_four_indices_keeps_its_layout(svr, data):
    X, _ = data
    for index in ("SII", "k-SII", "STII", "FSII"):
        e = kx.explain_interactions(svr, X.iloc[:3], background=X.iloc[10:18], index=index)
        assert e.meta["order"] == 2 and e.interactions.shape == (3, 6, 6)
        orders = e.interaction_orders                             # made from the pairs on access
        assert orders.sizes == ([2] if index == "SII" else [1, 2])
        i, j = np.triu_indices(6, 1)
        np.testing.assert_array_equal(orders[2].values, e.interactions[:, i, j])
        # the any-order engine agrees with the order-2 route
        via = kx.explain_interactions(svr, X.iloc[:3], background=X.iloc[10:18], index=index, order=2,
                                      sets=[tuple(s) for s in itertools.combinations(NAMES, 2)])
        _close(via.interaction_orders[2].values, orders[2].values)


# --------------------------------------------------------------------------- #
# sets= and top= against the dense result
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("method", ["product", "exact"])
def test_sets_and_top_against_dense(svr, data, method):
    X, _ = data
    kw = dict(background=X.iloc[10:18], method=method)
    for index, k in (("k-SII", 3), ("SII", 3), ("FBII", 2), ("Co-Moebius", 4), ("CHGV", 2)):
        dense = kx.explain_interactions(svr, X.iloc[:4], index=index, order=k, **kw).interaction_orders
        sizes = get_index(index).sizes(k, 6)
        wanted = [("d", "a"), ("b",), ("f", "e", "c"), ("a", "b", "c", "d"), (4, 0)]
        wanted = [s for s in wanted if len(s) in sizes]
        e = kx.explain_interactions(svr, X.iloc[:4], index=index, order=k, sets=wanted, **kw)
        got = e.interaction_orders
        assert got.sizes == sorted({len(s) for s in wanted})
        for s in wanted:
            _close(got.value_of(s), dense.value_of(s))
        for t in got.sizes:
            assert got[t].layout == "sets"
        _close(e.values, kx.explain_interactions(svr, X.iloc[:4], index=index, order=k, **kw).values)
        top = kx.explain_interactions(svr, X.iloc[:4], index=index, order=k, top=3, **kw).interaction_orders
        for t in sizes:
            b = top[t]
            assert b.layout == "top" and b.certified.all() and b.sets.shape == (4, 3, t)
            for i in range(4):
                best = np.sort(np.abs(dense[t].values[i]))[::-1][:3]
                _close(np.abs(b.values[i]), best)
                for s, v in zip(b.sets[i], b.values[i]):
                    _close(dense.value_of(tuple(s))[i], v)
    with pytest.raises(ValueError, match="not both"):
        kx.explain_interactions(svr, X.iloc[:2], background=X.iloc[:5], order=3, sets=[("a", "b")], top=2)
    with pytest.raises(ValueError, match="unknown feature 'bb'.*did you mean 'b'"):
        kx.explain_interactions(svr, X.iloc[:2], background=X.iloc[:5], order=3, sets=[("a", "bb")])
    with pytest.raises(ValueError, match="no value for sets of size 3"):
        kx.explain_interactions(svr, X.iloc[:2], background=X.iloc[:5], index="STII", order=2,
                                sets=[("a", "b", "c")])


def test_top_prunes_and_certifies_at_d40():
    """A product game where a few players matter: top= evaluates few sets, certified, = the dense top."""
    rng = np.random.default_rng(3)
    d, R, n = 40, 12, 2
    c = rng.uniform(0.5, 1.0, size=(1, R, d))
    spread = np.where(np.arange(d) < 5, 0.5, 1e-3)
    a = np.clip(c + spread * rng.uniform(-1, 1, size=(n, R, d)), 0.0, 1.0)
    game = kx.ProductGame(a, c, rng.uniform(0.5, 1.0, size=(1, R)))
    dense = kx.shapley_interactions(game, index="SII", order=3).interaction_orders[3]
    top = kx.shapley_interactions(game, index="SII", order=3, top=4).interaction_orders[3]
    assert top.certified.all() and top.evaluated.max() < math.comb(d, 3) // 20
    for i in range(n):
        _close(np.abs(top.values[i]), np.sort(np.abs(dense.values[i]))[::-1][:4], 1e-12)


def test_groups_and_chunks(svr, data):
    X, _ = data
    groups = [["a", "b"], ["c"], ["d", "e"], ["f"]]
    kw = dict(background=X.iloc[10:18], index="Moebius", order=2, groups=groups, group_names=["ab", "c", "de", "f"])
    e = kx.explain_interactions(svr, X.iloc[:5], **kw)
    assert e.interaction_orders.feature_names == ["ab", "c", "de", "f"]
    ex = kx.explain_interactions(svr, X.iloc[:5], method="exact", **kw)
    _close(e.interaction_orders[2].values, ex.interaction_orders[2].values)
    s = kx.explain_interactions(svr, X.iloc[:5], sets=[("ab", "de")], **kw)
    _close(s.interaction_orders.value_of(("de", "ab")), e.interaction_orders.value_of(("ab", "de")))
    # chunks of rows give the same numbers, and one container
    chunked = kx.explain_interactions(svr, X.iloc[:5], n_jobs=1, rows_per_chunk=2, top=2,
                                      **{**kw, "order": 3, "index": "SII"})
    whole = kx.explain_interactions(svr, X.iloc[:5], top=2, **{**kw, "order": 3, "index": "SII"})
    assert chunked.meta["parallel"]["chunks"] == 3
    np.testing.assert_array_equal(chunked.interaction_orders[3].sets, whole.interaction_orders[3].sets)
    _close(chunked.interaction_orders[3].values, whole.interaction_orders[3].values, 1e-13)


def test_several_outputs(data):
    from sklearn.kernel_ridge import KernelRidge

    X, y = data
    Y = np.stack([y, X["a"] * X["c"] * X["e"]], axis=1)
    model = KernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(X, Y)
    e = kx.explain_interactions(model, X.iloc[:3], background=X.iloc[10:18], index="SII", order=3)
    orders = e.interaction_orders
    assert orders.axes == ("instance", "output") and orders[3].values.shape == (3, 20, 2)
    alone = KernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(X, Y[:, 1])     # the same fit of one target
    one = kx.explain_interactions(alone, X.iloc[:3], background=X.iloc[10:18], index="SII", order=3)
    _close(orders[3].values[..., 1], one.interaction_orders[3].values, 1e-9)
    _close(e[..., "output_1"].interaction_orders[3].values, one.interaction_orders[3].values)
    frame = orders.to_frame()
    assert list(frame.columns) == ["point", "output", "order", "set", "value"] and len(frame) == 3 * 20 * 2
    with pytest.raises(ValueError, match="top= picks each point's largest sets"):
        kx.explain_interactions(model, X.iloc[:3], background=X.iloc[10:18], index="SII", order=3, top=2)


# --------------------------------------------------------------------------- #
# routes, refusals and the cost guard
# --------------------------------------------------------------------------- #
def _nonproduct(d, n=1):
    rng = np.random.default_rng(d)
    W = rng.normal(size=(d, n))
    return kx.FunctionGame(lambda Z: np.sin(Z.astype(float) @ W), d, n_instances=n)


def test_routes_and_refusals():
    small = _nonproduct(8, 2)
    e = kx.shapley_interactions(small, index="k-SII", order=3)
    assert e.meta["method"] == "exact" and "auto" in e.meta and e.meta["efficiency_error"] < 1e-9
    big = _nonproduct(16)
    with pytest.raises(NotApplicableError, match="sampled.*only the pairs.*order=2"):
        kx.shapley_interactions(big, index="k-SII", order=3)
    with pytest.raises(NotApplicableError, match="method='sampled' estimates only the pairs"):
        kx.shapley_interactions(big, index="SII", order=3, method="sampled")
    with pytest.raises(NotApplicableError, match="enumerated for at most 14 players"):
        kx.shapley_interactions(big, index="SII", order=3, method="exact")
    with pytest.raises(NotApplicableError, match="needs a product game"):
        kx.shapley_interactions(small, index="BII", order=2, method="product")
    with pytest.raises(InvalidOptionError, match="budget= is an option of method='sampled'"):
        kx.shapley_interactions(small, index="BII", order=2, budget=100)
    # the pairs of the four indices are still sampled beyond 12 players
    assert kx.shapley_interactions(big, index="k-SII", budget=600, seed=0).meta["method"] == "sampled"
    with pytest.raises(ValueError, match="SV is a value of single players: order must be 1"):
        kx.shapley_interactions(small, index="SV", order=2)


@pytest.mark.parametrize("wrong, right", [("k-SI", "k-SII"), ("Moebus", "Moebius"), ("FSI", "FSII"),
                                          ("co-moebus", "Co-Moebius"), ("banzaf", "BV"), ("Shapely", "SV")])
def test_misspelt_index_names(svr, data, wrong, right):
    X, _ = data
    with pytest.raises(InvalidOptionError, match=f"unknown interaction index.*did you mean {right!r}"):
        kx.explain_interactions(svr, X.iloc[:2], background=X.iloc[:5], index=wrong)
    with pytest.raises(InvalidOptionError, match="accepted: " + ", ".join(repr(n) for n in INDEX_NAMES)):
        kx.shapley_interactions(kx.TabularGame(np.zeros(8)), index=wrong)


def test_cost_guard_prices_before_the_call(monkeypatch):
    rng = np.random.default_rng(1)
    n, R, d = 30, 40, 200
    game = kx.ProductGame(rng.uniform(0.3, 1, (n, R, d)), rng.uniform(0.3, 1, (1, R, d)), rng.normal(size=(1, R)))
    from kernelxai.explainers import _interactions

    def never(*args, **kwargs):
        raise AssertionError("the guard let it start")

    monkeypatch.setattr(_interactions, "run_orders", never)
    # memory: C(200, 3) = 1313400 numbers per point x 30 points is about 300 MiB (+ sets) > 256 MiB
    cost = order_cost("product", game, order_request(game, "SII", 3))
    assert 8 * 30 * 1313400 < cost.nbytes < 2 * 8 * 30 * 1313400
    with pytest.raises(CostLimitError, match=r"would hold about \d+ MiB.*max_memory=256 MiB.*top=.*sets=.*order=2"):
        kx.shapley_interactions(game, index="SII", order=3)
    # time
    with kx.config_context(max_memory=2**40, max_cost=1e-3):
        with pytest.raises(CostLimitError, match=r"C\(200, 3\) = 1313400 sets per point.*would take about"):
            kx.shapley_interactions(game, index="SII", order=3)
    # enumeration: its least-squares system is counted
    with kx.config_context(max_memory=2**20):
        with pytest.raises(CostLimitError, match="max_memory"):
            kx.shapley_interactions(_nonproduct(12), index="FSII", order=5, method="exact")


def test_top_guard_speaks_once_the_bound_is_known():
    """Random factors: the bound prunes little; the cost of what it lets through is held to max_cost."""
    rng = np.random.default_rng(2)
    d, R = 80, 100
    game = kx.ProductGame(rng.uniform(0.3, 1, (1, R, d)), rng.uniform(0.3, 1, (1, R, d)), rng.normal(size=(1, R)))
    cost = order_cost("product", game, order_request(game, "SII", 3, top=3))
    assert cost.worst.seconds > 10 * cost.work.seconds
    with kx.config_context(max_cost=2 * cost.work.seconds):
        with pytest.raises(CostLimitError, match="the bound lets .* of the C\\(80, 3\\) = 82160 sets of size 3"):
            kx.shapley_interactions(game, index="SII", order=3, top=3)


def test_explain_interactions_counts_every_row_and_output_in_memory(krr, data):
    X, _ = data
    rows = pd.concat([X] * 40, ignore_index=True)              # 2400 rows x C(6, 3) = 20 triples: small
    with kx.config_context(max_memory=2**16):
        with pytest.raises(CostLimitError, match="kx.explain_interactions.*max_memory"):
            kx.explain_interactions(krr, rows, background=X.iloc[:5], index="SII", order=3, n_jobs=1,
                                    rows_per_chunk=100)


def test_efficiency_violation_is_reported(monkeypatch):
    from kernelxai.explainers import _interactions

    original = _interactions.run_orders

    def broken(*args, **kwargs):
        res = original(*args, **kwargs)
        res["dense"][2] = res["dense"][2] + 1e-3
        return res

    monkeypatch.setattr(_interactions, "run_orders", broken)
    with pytest.raises(RuntimeError, match="k-SII of order 3 by method='exact' is not efficient.*report"):
        kx.shapley_interactions(_nonproduct(6, 2), index="k-SII", order=3)


# --------------------------------------------------------------------------- #
# the Explanation: slicing, frames, JSON, shapiq
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def ksii3(svr, data):
    X, _ = data
    return kx.explain_interactions(svr, X.iloc[:4], background=X.iloc[10:18], index="k-SII", order=3)


def test_slicing_by_feature_name_keeps_the_sets_within(ksii3):
    e = ksii3
    sub = e[:, ["e", "a", "c"]]
    orders = sub.interaction_orders
    assert orders.feature_names == ["e", "a", "c"] and sub.feature_names == ["e", "a", "c"]
    for t in (1, 2, 3):
        assert orders[t].layout == "dense" and orders[t].values.shape == (4, math.comb(3, t))
        for s in itertools.combinations(["e", "a", "c"], t):
            np.testing.assert_array_equal(orders.value_of(s), e.interaction_orders.value_of(s))
    np.testing.assert_array_equal(sub.interactions[:, 0, 1], e.interaction_orders.value_of(("a", "e")))
    one = e[2, ["b", "f"]]
    np.testing.assert_array_equal(one.interaction_orders.value_of(("f", "b")),
                                  e.interaction_orders.value_of(("b", "f"))[2])
    assert e[:, "a"].interaction_orders is None                  # one feature: no sets
    assert e[1:3].interaction_orders[3].values.shape == (2, 20)


def test_slicing_a_top_block_pads(svr, data):
    X, _ = data
    e = kx.explain_interactions(svr, X.iloc[:3], background=X.iloc[10:18], index="SII", order=2, top=4)
    sub = e[:, ["a", "b", "c"]].interaction_orders[2]
    full = e.interaction_orders[2]
    for i in range(3):
        inside = [tuple(s) for s in full.sets[i] if set(s) <= {0, 1, 2}]
        kept = [tuple(s) for s in sub.sets[i] if s[0] >= 0]
        assert len(kept) == len(inside)
        assert np.isnan(sub.values[i, len(kept):]).all() and (sub.sets[i, len(kept):] == -1).all()


def test_to_frame(ksii3):
    frame = ksii3.interaction_orders.to_frame()
    assert list(frame.columns) == ["point", "order", "set", "value"]
    assert len(frame) == 4 * (6 + 15 + 20)
    row = frame[(frame.point == 2) & (frame.set == "b × d × f")]
    assert len(row) == 1 and row.order.iloc[0] == 3
    assert row.value.iloc[0] == ksii3.interaction_orders.value_of(("b", "d", "f"))[2]
    assert frame.point.is_monotonic_increasing


@pytest.mark.parametrize("case", ["dense", "top", "legacy", "single", "sets"])
def test_json_round_trip(svr, data, tmp_path, case):
    X, _ = data
    kw = dict(background=X.iloc[10:18])
    e = {"dense": lambda: kx.explain_interactions(svr, X.iloc[:3], index="FSII", order=3, **kw),
         "top": lambda: kx.explain_interactions(svr, X.iloc[:3], index="SII", order=3, top=2, **kw)[:, ["a", "b", "c"]],
         "legacy": lambda: kx.explain_interactions(svr, X.iloc[:3], index="k-SII", **kw),
         "single": lambda: kx.shapley_interactions(kx.TabularGame(np.arange(16.0) ** 1.5), index="BII", order=3),
         "sets": lambda: kx.explain_interactions(svr, X.iloc[:3], index="Moebius", order=2, sets=[("a", "b")],
                                                 **kw)}[case]()
    text = e.to_json(tmp_path / "e.json")
    json.loads(text)                                              # standard JSON (no NaN literals)
    for back in (kx.Explanation.from_json(text), kx.Explanation.from_json(tmp_path / "e.json")):
        np.testing.assert_array_equal(back.values, e.values)
        np.testing.assert_array_equal(back.base_values, e.base_values)
        assert back.feature_names == e.feature_names and back.axes == e.axes
        assert back.meta.keys() == e.meta.keys()
        for key, value in e.meta.items():
            if isinstance(value, np.ndarray):
                np.testing.assert_array_equal(back.meta[key], value)
            else:
                assert back.meta[key] == value or (value != value), key
        if e.interactions is not None:
            np.testing.assert_array_equal(back.interactions, e.interactions)
        a, b = e.interaction_orders, back.interaction_orders
        assert a.sizes == b.sizes and a.index == b.index and a.order == b.order and a.axes == b.axes
        for t in a.sizes:
            assert a[t].layout == b[t].layout
            np.testing.assert_array_equal(a[t].sets, b[t].sets)
            np.testing.assert_array_equal(a[t].values, b[t].values)
            if a[t].layout == "top":
                np.testing.assert_array_equal(a[t].certified, b[t].certified)
    with pytest.raises(ValueError, match="not an Explanation written by"):
        kx.Explanation.from_json('{"format": "other"}')


class _FakeInteractionValues:
    """shapiq's documented constructor and the attributes kernelxai reads (when shapiq is not installed)."""

    def __init__(self, values, *, index, max_order, n_players, min_order, interaction_lookup=None,  # noqa: PLR0913 - shapiq's constructor
                 estimated=True, estimation_budget=None, baseline_value=0.0):
        assert isinstance(baseline_value, (int, float, np.number))
        assert interaction_lookup is not None and len(values) == len(interaction_lookup)
        self.interactions = {tuple(k): float(values[i]) for k, i in interaction_lookup.items()}
        self.index, self.max_order, self.min_order, self.n_players = index, max_order, min_order, n_players
        self.estimated, self.estimation_budget, self.baseline_value = estimated, estimation_budget, baseline_value

    @property
    def values(self):
        return np.array(list(self.interactions.values()))

    @property
    def interaction_lookup(self):
        return {k: i for i, k in enumerate(self.interactions)}

    def __getitem__(self, item):
        return self.interactions.get(tuple(sorted(item)), 0.0)


@pytest.fixture(params=["fake", "shapiq"])
def shapiq_module(request, monkeypatch):
    if request.param == "shapiq":
        return pytest.importorskip("shapiq")
    fake = types.ModuleType("shapiq")
    fake.InteractionValues = _FakeInteractionValues
    monkeypatch.setitem(sys.modules, "shapiq", fake)
    return fake


def test_to_shapiq_and_back(shapiq_module, ksii3, svr, data):
    X, _ = data
    ivs = ksii3.to_shapiq()
    assert len(ivs) == 4
    iv = ivs[1]
    assert iv.index == "k-SII" and iv.max_order == 3 and iv.n_players == 6 and not iv.estimated
    assert iv[()] == ksii3.base_values[1] and iv.baseline_value == ksii3.base_values[1]
    assert iv[(4, 0, 2)] == ksii3.interaction_orders.value_of(("a", "c", "e"))[1]
    assert iv[(3,)] == ksii3.values[1, 3]
    back = kx.Explanation.from_shapiq(ivs, feature_names=NAMES)
    np.testing.assert_array_equal(back.values, ksii3.values)
    np.testing.assert_array_equal(back.base_values, ksii3.base_values)
    np.testing.assert_array_equal(back.interactions, ksii3.interactions)
    assert back.interaction_orders.sizes == [1, 2, 3] and back.meta["index"] == "k-SII" and back.meta["exact"]
    for t in (1, 2, 3):
        np.testing.assert_array_equal(back.interaction_orders[t].values, ksii3.interaction_orders[t].values)
    # an index whose order means exactly k: the container holds size k, the values size 1
    moebius = kx.explain_interactions(svr, X.iloc[:2], background=X.iloc[10:18], index="Moebius", order=4)
    again = kx.Explanation.from_shapiq(moebius.to_shapiq(), feature_names=NAMES)
    assert again.interaction_orders.sizes == [4]
    np.testing.assert_array_equal(again.interaction_orders[4].values, moebius.interaction_orders[4].values)
    np.testing.assert_array_equal(again.values, moebius.values)
    # top=: each point's own sets (largest first, not certified once in shapiq)
    top = kx.explain_interactions(svr, X.iloc[:2], background=X.iloc[10:18], index="SII", order=3, top=3)
    single = kx.Explanation.from_shapiq(top.to_shapiq()[0], feature_names=NAMES)
    b = single.interaction_orders[3]
    assert b.layout == "sets" and single.values.shape == (6,)
    assert {tuple(s) for s in b.sets.tolist()} == {tuple(s) for s in top.interaction_orders[3].sets[0].tolist()}
    both = kx.Explanation.from_shapiq(top.to_shapiq(), feature_names=NAMES).interaction_orders[3]
    assert both.layout == "top" and not both.certified.any()
    np.testing.assert_array_equal(both.sets, top.interaction_orders[3].sets)
    np.testing.assert_array_equal(both.values, top.interaction_orders[3].values)
    with pytest.raises(TypeError, match="expected a shapiq.InteractionValues"):
        kx.Explanation.from_shapiq(object())


def test_up_to_k_names_match_the_declarations():
    declared = {i.name for i in INDEX_CONCEPTS.values() if i.order_means == "up to k"}
    assert declared == UP_TO_K_INDICES - {"kADD-SHAP"}


def test_interactions_by_hand_are_checked():
    vals = np.zeros((2, 3))
    with pytest.raises(ValueError, match="holds all C\\(3, 2\\) = 3 sets"):
        Interactions({2: InteractionBlock(2, np.array([[0, 1]]), vals[:, :1])}, ["a", "b", "c"])
    with pytest.raises(ValueError, match="positions outside"):
        Interactions([InteractionBlock(2, np.array([[0, 3]]), vals[:, :1], "sets")], ["a", "b", "c"])
    good = Interactions([InteractionBlock(2, None, vals)], ["a", "b", "c"])
    with pytest.raises(ValueError, match="name the features"):
        kx.Explanation(np.zeros((2, 3)), feature_names=["x", "y", "z"], interaction_orders=good)
    with pytest.raises(ValueError, match="hold 2 points; values 4"):
        kx.Explanation(np.zeros((4, 3)), feature_names=["a", "b", "c"], interaction_orders=good)
    e = kx.Explanation(np.zeros((2, 3)), feature_names=["a", "b", "c"], interaction_orders=good)
    assert "with interactions of sizes [2]" in repr(e)
    joined = kx.Explanation.concat([e, e])
    assert joined.interaction_orders[2].values.shape == (4, 3)
