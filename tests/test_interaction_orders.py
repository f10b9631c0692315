"""Interaction indices of every order: three exact routes against each other and against the axioms.

* the declarations (``_interaction_indices``): each index's product rule puts exactly its
  Moebius weight on every elementary symmetric sum (rational arithmetic);
* the enumeration oracle (``_interaction_enumeration``: discrete derivatives, Bernoulli
  aggregation, constrained least squares from the definitions) against the Moebius route
  (``from_moebius``) and, for product games, the product route
  (``_interaction_product_orders``), every index and order at d <= 7, to 1e-10;
* order 1 against ``kx.shapley_values``; order 2 against today's ``kx.shapley_interactions``;
* the product route at d = 30 against an mpmath evaluation of the Moebius-weighted sums;
* ``sets=`` and ``top=`` (the certified bound) against the dense result;
* axioms on random games (hypothesis): symmetry, null player, additive player, linearity,
  efficiency where the index has it.
"""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kernelxai as kx
from kernelxai.estimators._interaction_enumeration import enumerate_interactions
from kernelxai.estimators._interaction_indices import (
    INDEX_CONCEPTS,
    INDEX_NAMES,
    all_sets,
    bernoulli_numbers,
    efficiency_residual,
    from_moebius,
    get_index,
    lex_rank,
    moebius_transform,
)
from kernelxai.estimators._interaction_product_orders import product_interaction_orders, product_orders_work

TOL = 1e-10


def _orders(idx, d):
    return [1] if idx.order_means == "1" else list(range(1, d + 1))


def _all_sizes(idx, k, d):
    """Every size with a value at order k, the empty set included."""
    top = k if idx.order_means == "up to k" else (1 if idx.order_means == "1" else d)
    return list(range(0, top + 1))


def _product_game(rng, n, R, d, low=-0.5, high=1.5, shared=False):
    K = 1 if shared else n
    a = rng.uniform(low, high, size=(K, R, d))
    c = rng.uniform(low, high, size=(K, R, d))
    w = rng.normal(size=(K, R))
    return kx.ProductGame(a, c, w, n_instances=n)


# --------------------------------------------------------------------------- #
# the declarations
# --------------------------------------------------------------------------- #
def test_rules_put_exactly_the_moebius_weights():
    for idx in INDEX_CONCEPTS.values():
        for d in range(1, 8):
            for k in _orders(idx, d):
                for t in _all_sizes(idx, k, d):
                    rule = idx.rule(t, d, k)
                    for r in range(d - t + 1):
                        assert rule.moment(r) == idx.weight(t, r, d, k), (idx.name, d, k, t, r)


def test_weights_by_hand():
    assert [str(b) for b in bernoulli_numbers(6)] == ["1", "-1/2", "1/6", "0", "-1/30", "0", "1/42"]
    # STII shares a Moebius coefficient of a set of size l equally among its k-subsets
    assert get_index("STII").weight(2, 2, 10, 2) == Fraction(1, 6)
    # FSII at the top order: the Beta(k, k) cardinal index, B(l, k) (2k-1)! / ((k-1)!)^2
    assert get_index("FSII").weight(2, 1, 10, 2) == Fraction(1, 2)
    # k-SII, k = 2, t = 1: 1/(r+1) - 1/2 for r >= 2 (SV minus half the pairs)
    assert get_index("k-SII").weight(1, 3, 10, 2) == Fraction(1, 4) - Fraction(1, 2)
    assert get_index("FBII").weight(1, 3, 10, 2) == Fraction(-2, 8)
    assert get_index("Co-Moebius").weight(3, 5, 10, 3) == 1


def test_names_and_orders():
    assert get_index("faith-shap").name == "FSII" and get_index("Möbius").name == "Moebius"
    assert get_index("ksii").sizes(3, 5) == (1, 2, 3) and get_index("SII").sizes(3, 5) == (3,)
    with pytest.raises(ValueError, match="unknown interaction index"):
        get_index("shapley-ish")
    with pytest.raises(ValueError, match="order must be 1"):
        get_index("SV").sizes(2, 5)
    with pytest.raises(ValueError, match="between 1 and"):
        get_index("SII").sizes(6, 5)


def test_empty_set_conventions():
    """As shapiq 1.8's ExactComputer: the formula for SII, BII, BV and FBII, v(empty) otherwise."""
    rng = np.random.default_rng(8)
    V = rng.normal(size=16)
    m = moebius_transform(V)
    sizes = np.bitwise_count(np.arange(16))
    expect = {"SII": (m / (sizes + 1)).sum(), "BII": V.mean(), "BV": V.mean(), "Co-Moebius": V[0],
              "SGV": V[0], "EGV": V[0], "k-SII": V[0], "FSII": V[0], "STII": V[0]}
    for name, value in expect.items():
        k = 1 if name == "BV" else 2
        got = enumerate_interactions(V, name, k, sets=[()])[0].values
        assert got.shape == (1,) and abs(got[0] - value) < 1e-12, name
    X = np.array([[(s >> j) & 1 for j in range(4)] for s in range(16)], dtype=float)
    design = np.concatenate([np.ones((16, 1)), X, np.stack([X[:, i] * X[:, j] for i, j in
                                                            itertools.combinations(range(4), 2)], 1)], 1)
    intercept = np.linalg.lstsq(design, V, rcond=None)[0][0]
    assert abs(enumerate_interactions(V, "FBII", 2, sets=[()])[0].values[0] - intercept) < 1e-12


def test_sets_bookkeeping():
    for d in range(0, 8):
        for t in range(0, d + 1):
            s = all_sets(d, t)
            assert s.tolist() == [list(c) for c in itertools.combinations(range(d), t)]
            assert np.array_equal(lex_rank(s, d), np.arange(len(s)))
    assert lex_rank(all_sets(200, 3)[[0, 12345, -1]], 200).tolist() == [0, 12345, math.comb(200, 3) - 1]


# --------------------------------------------------------------------------- #
# three routes, every index and order at d <= 7
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("d", [1, 2, 3, 4, 5, 6, 7])
def test_enumeration_moebius_and_product_agree(d):
    rng = np.random.default_rng(100 + d)
    game = _product_game(rng, n=2, R=3, d=d)
    V = kx.games.tabulate(game)
    table = kx.TabularGame(V)                # the same worths as a plain table
    m = moebius_transform(V)
    for idx in INDEX_CONCEPTS.values():
        orders = _orders(idx, d) if d <= 5 else sorted({1, 2, d - 1, d} & set(_orders(idx, d)))
        for k in orders:
            sizes = _all_sizes(idx, k, d)
            oracle = enumerate_interactions(table, idx.name, k, sizes=sizes)
            fast = product_interaction_orders(game, idx.name, k, sizes=sizes)["values"]
            for t in sizes:
                ref = oracle[t].values
                assert ref.shape == (2, math.comb(d, t))
                np.testing.assert_allclose(from_moebius(m, idx.name, oracle[t].sets, k), ref, rtol=0,
                                           atol=TOL, err_msg=f"{idx.name} d={d} k={k} t={t} (Moebius)")
                np.testing.assert_allclose(fast[t].values, ref, rtol=0, atol=TOL,
                                           err_msg=f"{idx.name} d={d} k={k} t={t} (product)")


def test_enumeration_on_random_tables_matches_moebius_route():
    rng = np.random.default_rng(7)
    for d in (3, 6):
        V = rng.normal(size=2**d)                                    # one instance, 1-D table
        m = moebius_transform(V)
        for idx in INDEX_CONCEPTS.values():
            for k in _orders(idx, d):
                res = enumerate_interactions(V, idx, k)
                for t, ov in res.items():
                    assert ov.values.shape == (math.comb(d, t),)
                    np.testing.assert_allclose(from_moebius(m, idx, ov.sets, k), ov.values, atol=TOL)


def test_moebius_transform_inverts():
    rng = np.random.default_rng(0)
    V = rng.normal(size=(32, 2))
    m = moebius_transform(V)
    Z = kx.games.all_coalitions(5)
    masks = np.arange(32)
    back = np.array([m[(masks & s) == masks].sum(axis=0) for s in range(32)])   # v(S) = sum_{L in S} m(L)
    np.testing.assert_allclose(back, V, atol=1e-12)
    assert Z.shape == (32, 5)


# --------------------------------------------------------------------------- #
# against the existing first- and second-order routes
# --------------------------------------------------------------------------- #
def test_order_one_is_the_shapley_value():
    rng = np.random.default_rng(3)
    for d in (2, 5, 7):
        game = _product_game(rng, n=3, R=4, d=d)
        sv = kx.shapley_values(game, method="exact").values
        for name in ("SV", "SII", "k-SII", "STII", "FSII", "CHII", "SGV", "CHGV"):
            res = product_interaction_orders(game, name, 1)["values"][1].values
            np.testing.assert_allclose(res, sv, atol=TOL, err_msg=name)
            ref = enumerate_interactions(kx.games.tabulate(game), name, 1)[1].values
            np.testing.assert_allclose(ref, sv, atol=TOL, err_msg=name)


@pytest.mark.parametrize("index", ["SII", "k-SII", "STII", "FSII"])
def test_order_two_matches_todays_routes(index):
    rng = np.random.default_rng(11)
    for d in (3, 6):
        game = _product_game(rng, n=2, R=5, d=d, low=0.0, high=1.0)
        old = kx.shapley_interactions(game, index=index, order=2, method="exact")
        old_p = kx.shapley_interactions(game, index=index, order=2, method="product")
        i, j = np.triu_indices(d, 1)
        for res in (product_interaction_orders(game, index, 2)["values"],
                    enumerate_interactions(kx.games.tabulate(game), index, 2)):
            np.testing.assert_allclose(res[2].values, old.interactions[:, i, j], atol=TOL)
            np.testing.assert_allclose(res[2].values, old_p.interactions[:, i, j], atol=TOL)
            if index != "SII":                   # SII at order 2 is the pairs alone
                np.testing.assert_allclose(res[1].values, old.values, atol=TOL)


def test_kernel_model_games():
    """Games of a real kernel model (interventional and functional baseline) are product games."""
    from sklearn.kernel_ridge import KernelRidge

    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 5))
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) * X[:, 3]
    krr = KernelRidge(kernel="rbf", gamma=0.3, alpha=0.1).fit(X, y)
    for vf in (kx.values.Interventional(krr, background=X[:6]), kx.values.FunctionalBaseline(krr)):
        game = vf.game(X[:2])
        assert isinstance(game, kx.ProductGame)
        V = kx.games.tabulate(game)
        for name, k in (("k-SII", 3), ("FSII", 4), ("STII", 2), ("Moebius", 3), ("FBII", 2)):
            fast = product_interaction_orders(game, name, k)
            ref = enumerate_interactions(V, name, k)
            for t in ref:
                np.testing.assert_allclose(fast["values"][t].values, ref[t].values, atol=TOL,
                                           err_msg=f"{type(vf).__name__} {name} {k} {t}")
            if get_index(name).efficiency == "always":
                res = efficiency_residual(name, k, 5, {t: ov.values for t, ov in fast["values"].items()},
                                          fast["v_empty"], fast["v_full"])
                assert np.abs(res).max() < 1e-9 * np.abs(fast["v_full"]).max()


# --------------------------------------------------------------------------- #
# larger d: mpmath reference, slow rows, shared terms, sets= and top=
# --------------------------------------------------------------------------- #
def test_product_route_against_mpmath_at_d30():
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 80
    rng = np.random.default_rng(5)
    d, R = 30, 2
    a = rng.uniform(0.02, 1.0, size=(1, R, d))
    c = rng.uniform(0.02, 1.0, size=(1, R, d))
    w = rng.normal(size=(1, R))
    game = kx.ProductGame(a, c, w)
    sets = [(0,), (3, 29), (1, 5, 9), (0, 10, 20, 25)]

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

    for name, k in (("SII", 4), ("k-SII", 4), ("FSII", 4), ("FBII", 4), ("STII", 4), ("CHII", 4),
                    ("Co-Moebius", 4), ("SGV", 3)):
        idx = get_index(name)
        chosen = [s for s in sets if len(s) <= k] if idx.order_means == "up to k" else sets
        res = product_interaction_orders(game, name, k, sets=chosen)["values"]
        for t, ov in res.items():
            for j, T in enumerate(ov.sets):
                ref = reference(idx, k, tuple(int(p) for p in T))
                assert abs(ov.values[0, j] - float(ref)) <= 1e-13 * abs(float(ref)), (name, T)


def test_zero_factors_and_shared_terms():
    """Rows with zero or subnormal factors go through the division-free route; shared terms broadcast."""
    rng = np.random.default_rng(2)
    d, R = 6, 4
    a = rng.uniform(0, 1, size=(1, R, d))
    c = rng.uniform(0, 1, size=(1, R, d))
    a[0, 0, 2] = 0.0
    c[0, 1, 3] = 0.0
    a[0, 2, 4], c[0, 2, 4] = 1e-310, 0.0
    game = kx.ProductGame(a, c, rng.normal(size=(1, R)), n_instances=3)
    V = kx.games.tabulate(game)
    for name, k in (("SII", 3), ("k-SII", 4), ("FSII", 3), ("FBII", 3), ("SGV", 2), ("Moebius", 6)):
        ref = enumerate_interactions(V, name, k)
        fast = product_interaction_orders(game, name, k)["values"]
        for t in ref:
            np.testing.assert_allclose(fast[t].values, ref[t].values, atol=TOL, err_msg=f"{name} {t}")


def test_sets_and_top():
    rng = np.random.default_rng(4)
    d = 7
    game = _product_game(rng, n=2, R=3, d=d)
    V = kx.games.tabulate(game)
    for name, k in (("k-SII", 3), ("STII", 3), ("BII", 2), ("CHGV", 2), ("FBII", 3)):
        ref = enumerate_interactions(V, name, k)
        chosen = [s for t in ref for s in itertools.combinations(range(d), t)][::4][::-1]
        res = product_interaction_orders(game, name, k, sets=[list(s)[::-1] for s in chosen])["values"]
        for t, ov in res.items():
            assert ov.layout == "sets"
            table = ref[t].as_dict()
            np.testing.assert_allclose(ov.values, np.stack([table[tuple(s)] for s in ov.sets], axis=1),
                                       atol=TOL)
        top = product_interaction_orders(game, name, k, top=4)["values"]
        for t, ov in top.items():
            assert ov.layout == "top" and ov.certified.all()
            for i in range(2):
                best = np.sort(np.abs(ref[t].values[i]))[::-1][:4]
                np.testing.assert_allclose(np.abs(ov.values[i]), best, atol=TOL)
                table = ref[t].as_dict()
                np.testing.assert_allclose([table[tuple(s)][i] for s in ov.sets[i]], ov.values[i], atol=TOL)
    with pytest.raises(ValueError, match="not both"):
        product_interaction_orders(game, "SII", 2, sets=[(0, 1)], top=3)
    with pytest.raises(ValueError, match="no value for sets of size 3"):
        product_interaction_orders(game, "STII", 2, sets=[(0, 1, 2)])
    with pytest.raises(TypeError, match="ProductGame"):
        product_interaction_orders(kx.TabularGame(V), "SII", 2)


def test_top_prunes_with_a_certificate():
    """Few players matter: the bound skips almost every triple, and the result is the dense top."""
    rng = np.random.default_rng(7)
    d, R, n = 24, 20, 2
    c = rng.uniform(0.5, 1.0, size=(1, R, d))
    spread = np.where(np.arange(d) < 5, 0.5, 1e-3)
    a = np.clip(c + spread * rng.uniform(-1, 1, size=(n, R, d)), 0.0, 1.0)
    game = kx.ProductGame(a, c, rng.uniform(0.5, 1.0, size=(1, R)))
    for name in ("SII", "FSII"):
        dense = product_interaction_orders(game, name, 3)["values"][3].values
        top = product_interaction_orders(game, name, 3, top=5)["values"][3]
        assert top.certified.all() and top.evaluated.max() < dense.shape[1] // 10
        for i in range(n):
            np.testing.assert_allclose(np.abs(top.values[i]), np.sort(np.abs(dense[i]))[::-1][:5],
                                       rtol=1e-12)


def test_work_estimate():
    w = product_orders_work(100, 300, 2, "FSII", 2)
    assert w["numbers"] == 100 + math.comb(100, 2)
    assert w["multiply_adds"] >= math.comb(100, 2) * 300 * 2 * w["nodes"][2]


# --------------------------------------------------------------------------- #
# axioms on random games
# --------------------------------------------------------------------------- #
_GAMES = st.integers(2, 5).flatmap(
    lambda d: st.tuples(st.just(d), st.lists(st.floats(-3, 3), min_size=2**d, max_size=2**d)))


def _values(V, name, k):
    return {t: ov.values for t, ov in enumerate_interactions(np.asarray(V), name, k).items()}


@settings(max_examples=25, deadline=None)
@given(game=_GAMES, name=st.sampled_from(INDEX_NAMES), seed=st.integers(0, 2**16))
def test_axioms(game, name, seed):
    d, worths = game
    V = np.asarray(worths)
    idx = get_index(name)
    rng = np.random.default_rng(seed)
    k = 1 if idx.order_means == "1" else int(rng.integers(1, d + 1))
    base = _values(V, name, k)
    masks = np.arange(2**d)

    # symmetry: relabelling the players relabels the sets
    perm = rng.permutation(d)
    moved = np.zeros(2**d, dtype=np.int64)
    for j in range(d):
        moved |= ((masks >> j) & 1) << perm[j]
    Vp = np.empty_like(V)
    Vp[moved] = V
    permuted = _values(Vp, name, k)
    for t, vals in base.items():
        sets = all_sets(d, t)
        where = lex_rank(np.sort(perm[sets], axis=1), d)
        np.testing.assert_allclose(permuted[t][where], vals, atol=1e-9)

    # linearity
    W = rng.normal(size=2**d)
    both = _values(2.0 * V - 0.5 * W, name, k)
    other = _values(W, name, k)
    for t in base:
        np.testing.assert_allclose(both[t], 2.0 * base[t] - 0.5 * other[t], atol=1e-9)

    # null player i: v(S + i) = v(S); sets with i are 0 (superset form) or equal the set without i
    i = int(rng.integers(d))
    Vn = V[masks & ~(1 << i)]
    null = _values(Vn, name, k)
    for t, vals in null.items():
        sets = all_sets(d, t)
        has = (sets == i).any(axis=1)
        if not has.any() or t == 0:
            continue
        if idx.form == "superset":
            np.testing.assert_allclose(vals[has], 0.0, atol=1e-9)
        elif t >= 2 and t - 1 in null:
            without = np.array([[p for p in s if p != i] for s in sets[has]])
            np.testing.assert_allclose(vals[has], null[t - 1][lex_rank(without, d)], atol=1e-9)

    # additive player i: v(S + i) = v(S) + c_i; its singleton is c_i, its larger sets 0 (superset form)
    ci = float(rng.normal())
    Va = Vn + ci * ((masks >> i) & 1)
    add = _values(Va, name, k)
    if 1 in add:
        np.testing.assert_allclose(add[1][i], ci, atol=1e-9)

    # efficiency where the index has it
    sizes = idx.efficient_sizes(k, d)
    if sizes is not None:
        # every order of the Moebius transform; the order-1 sets of SII, CHII, SGV, CHGV
        full = {t: base[t] if t in base else _values(V, name, t)[t] for t in sizes}
        res = efficiency_residual(name, k, d, full, V[0], V[-1])
        assert abs(res) < 1e-9
