"""The fast path of the any-order product route (``_interaction_dense``) against the slower routes.

* every index, orders 1..3: the fast path (rows shared by the sizes, node by node, the
  certified adaptive node count) equals the enumeration oracle to 1e-12 of the largest value at
  small d, and the general route (each size's own rows, the exact node count) to 1e-12 at
  larger d, with the matrix products cut into many groups and chunks of rows;
* the adaptive node count: fewer nodes than the exact rule where the factors are smooth, and the
  values equal an 80-digit mpmath evaluation of the Moebius-weighted sums to 1e-13;
* blocks that mix fast terms with terms the general route takes (zeros, signs, huge ratios,
  products beyond 2**+-600), several instances, shared terms, and threads (bit-for-bit);
* the order-2 pairs of SII, k-SII, STII and FSII through the engine equal the pairwise quadrature.
"""

import itertools
import math

import numpy as np
import pytest

import kernelxai as kx
import kernelxai.estimators._interaction_dense as dense
import kernelxai.estimators._interaction_product_orders as orders
from kernelxai.estimators._interaction_enumeration import enumerate_interactions
from kernelxai.estimators._interaction_indices import INDEX_CONCEPTS, all_sets, get_index
from kernelxai.estimators._interaction_product import product_interactions
from kernelxai.estimators._interaction_product_orders import product_interaction_orders

TOL = 1e-12


def _orders(idx):
    return [1] if idx.order_means == "1" else [1, 2, 3]


def _kernel_game(rng, n, R, d, low=0.3, high=1.0, shared=False):
    """Factors in (0, 1] like kernel values: every term takes the fast path."""
    K = 1 if shared else n
    a = rng.uniform(low, high, size=(K, R, d))
    c = rng.uniform(low, high, size=(K, R, d))
    return kx.ProductGame(a, c, rng.normal(size=(K, R)), n_instances=n)


def _general(game, name, k, **kw):
    """The general route alone (each size's own rows, the exact node count)."""
    old = orders._FAST_PATH
    orders._FAST_PATH = False
    try:
        return product_interaction_orders(game, name, k, **kw)
    finally:
        orders._FAST_PATH = old


def _close(got, ref, tol=TOL, what=""):
    scale = max(np.abs(ref).max(), 1e-300)
    err = np.abs(got - ref).max() / scale
    assert err <= tol, f"{what}: relative difference {err:.1e}"


@pytest.fixture
def small_groups(monkeypatch):
    """Groups of a few prefixes, chunks of a few hundred rows, one node at a time: every branch runs."""
    monkeypatch.setattr(dense, "GEMM_ROWS", 1)
    monkeypatch.setattr(dense, "_MIN_GROUP", 2)
    monkeypatch.setattr(dense, "_MAX_GROUP", 5)
    monkeypatch.setattr(dense, "working_elements", lambda k: 300)
    dense.prefix_plan.cache_clear()
    yield
    dense.prefix_plan.cache_clear()


@pytest.mark.parametrize("d", [3, 6, 8])
def test_fast_path_equals_enumeration_every_index_orders_1_to_3(d):
    rng = np.random.default_rng(10 + d)
    game = _kernel_game(rng, n=2, R=5, d=d)
    assert dense.fast_terms(game._a, game._c).all()
    V = kx.games.tabulate(game)
    for idx in INDEX_CONCEPTS.values():
        for k in _orders(idx):
            if k > d:
                continue
            sizes = sorted(set(idx.sizes(k, d)) | {1})
            ref = enumerate_interactions(V, idx.name, k, sizes=sizes)
            got = product_interaction_orders(game, idx.name, k, sizes=sizes)["values"]
            for t in sizes:
                _close(got[t].values, ref[t].values, what=f"{idx.name} k={k} t={t}")


@pytest.mark.parametrize("shared", [False, True])
def test_fast_path_equals_general_route_with_many_groups(small_groups, shared):
    rng = np.random.default_rng(3)
    d = 11
    game = _kernel_game(rng, n=3, R=40, d=d, shared=shared)
    for idx in INDEX_CONCEPTS.values():
        for k in _orders(idx):
            fast = product_interaction_orders(game, idx.name, k)
            ref = _general(game, idx.name, k)
            for t, ov in ref["values"].items():
                _close(fast["values"][t].values, ov.values, what=f"{idx.name} k={k} t={t}")
            np.testing.assert_allclose(fast["v_full"], ref["v_full"], rtol=1e-14)
            np.testing.assert_allclose(fast["v_empty"], ref["v_empty"], rtol=1e-14)


def test_sets_and_top_through_the_fast_path():
    rng = np.random.default_rng(4)
    d = 9
    game = _kernel_game(rng, n=2, R=6, d=d)
    for name, k in (("k-SII", 3), ("SGV", 3), ("FBII", 2), ("STII", 3)):
        chosen = [s for t in (1, 2, 3) for s in itertools.combinations(range(d), t)][::5]
        chosen = [s for s in chosen if len(s) <= k] if get_index(name).order_means == "up to k" else chosen
        fast = product_interaction_orders(game, name, k, sets=chosen)["values"]
        ref = _general(game, name, k, sets=chosen)["values"]
        for t, ov in ref.items():
            _close(fast[t].values, ov.values, what=f"{name} sets t={t}")
        top = product_interaction_orders(game, name, k, top=4)["values"]
        ref_top = _general(game, name, k, top=4)["values"]
        for t, ov in ref_top.items():
            _close(np.abs(top[t].values), np.abs(ov.values), what=f"{name} top t={t}")


def test_adaptive_nodes_against_mpmath():
    """Smooth factors need a handful of nodes; the values stay those of exact arithmetic."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 80
    rng = np.random.default_rng(5)
    d, R = 40, 3
    a = rng.uniform(0.85, 1.0, size=(1, R, d))
    c = rng.uniform(0.85, 1.0, size=(1, R, d))
    w = rng.normal(size=(1, R))
    game = kx.ProductGame(a, c, w)
    sets = [(0,), (3, 29), (1, 5, 9), (0, 10, 39)]

    def reference(idx, k, T):
        t = len(T)
        om = [mp.mpf(f.numerator) / f.denominator for f in (idx.weight(t, r, d, k) for r in range(d - t + 1))]
        total = mp.mpf(0)
        for q in range(R):
            A = [mp.mpf(float(x)) for x in a[0, q]]
            C = [mp.mpf(float(x)) for x in c[0, q]]
            e = [mp.mpf(1)]
            for l in (l for l in range(d) if l not in T):
                e = [(e[i] * C[l] if i < len(e) else 0) + (e[i - 1] * (A[l] - C[l]) if i else 0)
                     for i in range(len(e) + 1)]
            if idx.form == "superset":
                pre = mp.fprod([A[j] - C[j] for j in T])
            else:
                pre = mp.fprod([A[j] for j in T]) - mp.fprod([C[j] for j in T])
            total += mp.mpf(float(w[0, q])) * pre * mp.fsum(o * x for o, x in zip(om, e))
        return total

    for name, k in (("SII", 3), ("k-SII", 3), ("STII", 3), ("FSII", 3), ("CHII", 3), ("SGV", 3)):
        idx = get_index(name)
        chosen = [s for s in sets if len(s) <= k]
        res = product_interaction_orders(game, name, k, sets=chosen)
        exact = {t: orders._Size(idx, t, d, k).gl_exact for t in res["values"]}
        for t, ov in res["values"].items():
            if exact[t]:
                assert res["nodes"][t] < exact[t] - 5, (name, t, res["nodes"][t], exact[t])
            for j, T in enumerate(ov.sets):
                ref = float(reference(idx, k, tuple(int(p) for p in T)))
                assert abs(ov.values[0, j] - ref) <= 1e-13 * abs(ref), (name, T)


def test_nodes_are_the_exact_count_for_rough_or_signed_factors():
    rng = np.random.default_rng(6)
    d = 30
    rough = _kernel_game(rng, 1, 4, d, low=1e-3, high=1.0)
    res = product_interaction_orders(rough, "SII", 2)
    assert res["nodes"][2] == orders._Size(get_index("SII"), 2, d, 2).gl_exact
    A = -rng.uniform(0.3, 1.0, size=(1, 4, d))                 # one sign, negative: fast, exact count
    signed = kx.ProductGame(A, -rng.uniform(0.3, 1.0, size=(1, 4, d)), rng.normal(size=(1, 4)))
    assert dense.fast_terms(signed._a, signed._c).all()
    res = product_interaction_orders(signed, "k-SII", 2)
    assert res["nodes"][2] == orders._Size(get_index("k-SII"), 2, d, 2).gl_exact
    ref = _general(signed, "k-SII", 2)
    for t, ov in ref["values"].items():
        _close(res["values"][t].values, ov.values, what=f"negative factors t={t}")


def test_blocks_mixing_fast_and_general_terms():
    rng = np.random.default_rng(7)
    d, R = 7, 8
    a = rng.uniform(0.2, 1.0, size=(2, R, d))
    c = rng.uniform(0.2, 1.0, size=(2, R, d))
    a[0, 0, 2] = 0.0                                           # a zero factor
    c[1, 1, 3] = -0.5                                          # a sign change
    a[0, 2, 4], c[0, 2, 4] = 1.0, 1e-30                        # a ratio beyond 2**64
    a[:, 3], c[:, 3] = 1e-90, 2e-90                            # products below 2**-600
    game = kx.ProductGame(a, c, rng.normal(size=(2, R)))
    fast = dense.fast_terms(a, c)
    assert fast.any() and not fast.all()
    V = kx.games.tabulate(game)
    for name, k in (("SII", 3), ("k-SII", 3), ("FSII", 3), ("FBII", 3), ("SGV", 2), ("Moebius", 3), ("STII", 2)):
        ref = enumerate_interactions(V, name, k)
        got = product_interaction_orders(game, name, k)
        for t in ref:
            _close(got["values"][t].values, ref[t].values, tol=1e-10, what=f"{name} {t}")
        np.testing.assert_allclose(got["v_full"], V[-1], rtol=1e-12)


def test_threads_give_the_same_bits(monkeypatch):
    rng = np.random.default_rng(8)
    game = _kernel_game(rng, n=1, R=600, d=12)
    monkeypatch.setattr(orders, "_THREAD_WORK", 0)              # threads even for this small a call
    monkeypatch.setattr(orders, "_usable_cpus", lambda: 2)
    two = product_interaction_orders(game, "k-SII", 3)
    monkeypatch.setattr(orders, "_usable_cpus", lambda: 1)
    one = product_interaction_orders(game, "k-SII", 3)
    for t in one["values"]:
        assert np.array_equal(one["values"][t].values, two["values"][t].values)
        assert np.array_equal(one["values"][t].mass, two["values"][t].mass)
    assert np.array_equal(one["v_full"], two["v_full"]) and one["nodes"] == two["nodes"]


@pytest.mark.parametrize("index", ["SII", "k-SII", "STII", "FSII"])
def test_order_two_pairs_equal_the_pairwise_quadrature(index):
    rng = np.random.default_rng(9)
    game = _kernel_game(rng, n=2, R=30, d=20)
    engine = product_interactions(game, index, None, False)
    pairwise = product_interactions(game, index, None, False, division=False)
    _close(engine["pairs"], pairwise["pairs"], what="pairs")
    _close(engine["values"], pairwise["values"], what="values")
    np.testing.assert_allclose(engine["v_full"], pairwise["v_full"], rtol=1e-14)


def test_dense_values_and_prefix_plan_by_brute_force(small_groups):
    rng = np.random.default_rng(11)
    d, rows = 8, 37
    c = rng.normal(size=(2, rows))
    U = rng.normal(size=(2, d, rows))
    for t in range(0, 5):
        got = dense.dense_values(c, U, t, d)
        ref = np.array([[np.sum(c[k] * U[k, list(T)].prod(axis=0)) for T in itertools.combinations(range(d), t)]
                        for k in range(2)])
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-13)
        groups = dense.prefix_plan(d, t)
        assert sum(len(g[4]) for g in groups) == (math.comb(d, t) if t >= 2 else 0)
        if groups:                                     # every set once, at its lexicographic position
            dest = np.concatenate([np.arange(math.comb(d, t))[g[5]] for g in groups])
            assert sorted(dest.tolist()) == list(range(math.comb(d, t)))
    colex = dense.colex_sets(6, 3)
    assert sorted(map(tuple, colex)) == sorted(map(tuple, all_sets(6, 3)))
    assert all(tuple(x[::-1]) < tuple(y[::-1]) for x, y in zip(colex[:-1], colex[1:]))
