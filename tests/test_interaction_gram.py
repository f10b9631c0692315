"""Sizes 0-3 of the superset-form indices through ``_interaction_gram`` against the other routes.

* every superset-form index, orders 1..3: the route (numpy loops, and numba's where it is
  installed) equals the general route of ``_interaction_product_orders`` (each size's own rows,
  the exact node count) to 1e-12 of the largest value, on games with the awkward cases: factors
  equal in both states (D = 0), negative factor pairs, pairs far apart (the second form
  H - (1 - x) and the per-node sums of the mass), zero weights, several instances, shared terms,
  many players (products taken in chunks);
* the same node counts, v(N) and v(empty) as the fast path of ``_interaction_dense``;
* blocks outside the route's bounds go to ``_interaction_dense`` with the same values;
* the triples' plan covers every set once, and its products equal a brute-force sum;
* the sums do not depend on the threads (bit for bit).
"""

import itertools
import math

import numpy as np
import pytest

import kernelxai as kx
import kernelxai.estimators._interaction_gram as gram
import kernelxai.estimators._interaction_gram_numba as gram_numba
import kernelxai.estimators._interaction_product_orders as orders
from kernelxai.estimators._interaction_indices import INDEX_CONCEPTS
from kernelxai.estimators._interaction_product_orders import product_interaction_orders

TOL = 1e-12
SUPERSET = [idx for idx in INDEX_CONCEPTS.values() if idx.form == "superset"]
BACKENDS = ["numpy"] + (["numba"] if gram_numba.numba_available() else [])


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch):
    """The route's loops by numpy passes, or compiled (the kernels loaded: a few seconds the first time)."""
    if request.param == "numba":
        gram_numba.gram_kernels()
    monkeypatch.setattr(gram, "USE_NUMBA", request.param == "numba")
    return request.param


def _game(rng, d, n=2, R=24, kind="kernel", shared=False):
    K = 1 if shared else n
    lo, hi = (0.05, 1.0) if kind == "wide" else (0.4, 1.0)
    a = rng.uniform(lo, hi, size=(K, R, d))
    c = rng.uniform(lo, hi, size=(K, R, d))
    w = rng.normal(size=(K, R))
    if kind == "zeros":                                        # a factor equal in both states, a constant term
        mask = rng.random(a.shape) < 0.25
        a[mask] = c[mask]
        a[:, 0] = c[:, 0]
    if kind == "signed":                                       # pairs of one sign, some negative
        a[:, ::3, ::2] *= -1.0
        c[:, ::3, ::2] *= -1.0
    if kind == "zero-weights":
        w[:, ::4] = 0.0
    return kx.ProductGame(a, c, w, n_instances=n)


def _general(game, name, k):
    old = orders._FAST_PATH
    orders._FAST_PATH = False
    try:
        return product_interaction_orders(game, name, k)
    finally:
        orders._FAST_PATH = old


def _dense(game, name, k):
    old = orders._GRAM
    orders._GRAM = False
    try:
        return product_interaction_orders(game, name, k)
    finally:
        orders._GRAM = old


def _close(got, ref, what):
    err = np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-300)
    assert err <= TOL, f"{what}: relative difference {err:.1e}"


@pytest.mark.parametrize("kind", ["kernel", "zeros", "signed", "wide", "zero-weights"])
@pytest.mark.parametrize("d", [3, 7, 12])
def test_every_superset_index_equals_the_general_route(backend, kind, d):
    rng = np.random.default_rng(d + len(kind))
    game = _game(rng, d, kind=kind)
    for idx in SUPERSET:
        for k in ([1] if idx.order_means == "1" else [1, 2, 3]):
            if k > d:
                continue
            got = product_interaction_orders(game, idx.name, k)
            ref = _general(game, idx.name, k)
            for t, ov in ref["values"].items():
                _close(got["values"][t].values, ov.values, f"{backend} {kind} {idx.name} k={k} t={t}")
            np.testing.assert_allclose(got["v_full"], ref["v_full"], rtol=1e-13)
            np.testing.assert_allclose(got["v_empty"], ref["v_empty"], rtol=1e-13)


@pytest.mark.parametrize("shared", [False, True])
def test_nodes_masses_and_sums_as_the_fast_path(backend, shared):
    rng = np.random.default_rng(3)
    game = _game(rng, 30, n=3, R=40, shared=shared)
    for name, k in (("k-SII", 3), ("SII", 2), ("FSII", 3), ("STII", 3), ("Moebius", 3)):
        got, ref = product_interaction_orders(game, name, k), _dense(game, name, k)
        assert got["nodes"] == ref["nodes"]
        for t, ov in ref["values"].items():
            _close(got["values"][t].values, ov.values, f"{name} t={t}")
            assert np.all(got["values"][t].mass >= 0.999 * np.abs(got["values"][t].values).sum(axis=1) / 10)
        np.testing.assert_allclose(got["v_full"], ref["v_full"], rtol=1e-13)


def test_many_players_products_in_chunks(backend):
    """d = 150 with factors close to each other (|c / D| up to ~1e3): the product over the players
    leaves the double range unless it is taken in chunks; and tiny differences D (below 2**-126)."""
    rng = np.random.default_rng(4)
    d = 150
    c = rng.uniform(0.9, 1.0, size=(1, 12, d))
    a = c * (1.0 + rng.uniform(-1e-3, 1e-3, size=c.shape))
    a[0, 0, 5] = c[0, 0, 5] * (1 + 2.0**-40)                     # D about 2**-40 (|c/D| about 2**40)
    game = kx.ProductGame(a, c, rng.normal(size=(1, 12)))
    got, ref = product_interaction_orders(game, "k-SII", 2), _general(game, "k-SII", 2)
    for t, ov in ref["values"].items():
        _close(got["values"][t].values, ov.values, f"t={t}")
    small = kx.ProductGame(a * 1e-40, c * 1e-40, rng.normal(size=(1, 12)))     # D below 2**-126
    got, ref = product_interaction_orders(small, "SII", 2), _general(small, "SII", 2)
    _close(got["values"][2].values, ref["values"][2].values, "tiny factors")


def test_blocks_outside_the_bounds_take_the_dense_route(monkeypatch):
    rng = np.random.default_rng(5)
    d = 8
    monkeypatch.setattr(gram, "_G_MAX", 2.0**10)                # (2**61 holds for any normal pair: |c / D| <= 2**53)
    a = rng.uniform(0.4, 1.0, size=(1, 10, d))
    c = rng.uniform(0.4, 1.0, size=(1, 10, d))
    c[0, 3, 2] = a[0, 3, 2] * (1 + 2.0**-20)                    # |c / D| beyond the bound
    a2, c2, w2 = rng.uniform(0.4, 1, (1, 10, d)), rng.uniform(0.4, 1, (1, 10, d)), np.full((1, 10), 2.0**310)
    huge = kx.ProductGame(a2, c2, w2)                            # weights beyond 2**300
    plans = (orders._Size(INDEX_CONCEPTS["SII"], 2, d, 2),)
    outs = {id(plans[0]): (np.zeros((1, math.comb(d, 2))), np.zeros(1))}
    assert gram.gram_block(a, c, rng.normal(size=(1, 10)), plans, outs) is None
    assert gram.gram_block(a2, c2, w2, plans, outs) is None
    assert not outs[id(plans[0])][0].any()                     # nothing added
    near = kx.ProductGame(a, c, rng.normal(size=(1, 10)))
    for game in (near, huge):
        got, ref = product_interaction_orders(game, "k-SII", 3), _general(game, "k-SII", 3)
        for t, ov in ref["values"].items():
            _close(got["values"][t].values, ov.values, f"t={t}")


@pytest.mark.parametrize("d", [3, 4, 9, 16, 17, 40])
def test_middle_plan_covers_every_triple_once(d):
    plan = gram.middle_plan(d)
    dest = np.concatenate([g[7] for g in plan])
    assert sorted(dest.tolist()) == list(range(math.comb(d, 3)))
    assert all(len(g[6]) == len(g[7]) for g in plan)


def test_add_triples_by_brute_force(monkeypatch):
    monkeypatch.setattr(gram, "_MID_COLUMNS", 5)                 # several pieces of rows
    rng = np.random.default_rng(6)
    for d in (3, 8, 21):
        kappa, B = rng.normal(size=13), rng.normal(size=(d, 13))
        bufs = [np.zeros((g[3], g[5])) for g in gram.middle_plan(d)]
        gram.add_triples(bufs, kappa, B, d)
        got = np.zeros(math.comb(d, 3))
        for g, buf in zip(gram.middle_plan(d), bufs):
            got[g[7]] += buf.reshape(-1)[g[6]]
        ref = [np.sum(kappa * B[list(T)].prod(axis=0)) for T in itertools.combinations(range(d), 3)]
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


def test_threads_give_the_same_bits(backend, monkeypatch):
    rng = np.random.default_rng(8)
    game = _game(rng, 14, n=1, R=700)
    monkeypatch.setattr(orders, "_THREAD_WORK", 0)
    monkeypatch.setattr(gram, "BLOCK_ELEMENTS", 14 * 200)
    monkeypatch.setattr(orders, "GRAM_ELEMENTS", 14 * 200)
    monkeypatch.setattr(orders, "_usable_cpus", lambda: 2)
    two = product_interaction_orders(game, "k-SII", 3)
    monkeypatch.setattr(orders, "_usable_cpus", lambda: 1)
    one = product_interaction_orders(game, "k-SII", 3)
    for t in one["values"]:
        assert np.array_equal(one["values"][t].values, two["values"][t].values)
        assert np.array_equal(one["values"][t].mass, two["values"][t].mass)


@pytest.mark.skipif("numba" not in BACKENDS, reason="numba is not installed")
def test_compiled_and_numpy_loops_agree(monkeypatch):
    gram_numba.gram_kernels()
    rng = np.random.default_rng(9)
    for kind in ("kernel", "zeros", "wide"):
        game = _game(rng, 25, n=2, R=60, kind=kind)
        monkeypatch.setattr(gram, "USE_NUMBA", True)
        fast = product_interaction_orders(game, "k-SII", 3)
        monkeypatch.setattr(gram, "USE_NUMBA", False)
        slow = product_interaction_orders(game, "k-SII", 3)
        for t in slow["values"]:
            _close(fast["values"][t].values, slow["values"][t].values, f"{kind} t={t}")
            np.testing.assert_allclose(fast["values"][t].mass, slow["values"][t].mass, rtol=1e-12)
