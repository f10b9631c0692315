"""Shapley interactions (SII, k-SII, STII, FSII): every route against independent truth.

The references here are written from the definitions (the definitions), not from the library:
brute-force sums over coalitions, Faith-SHAP as a constrained weighted least-squares
fit solved through its KKT system, and a high-precision mpmath evaluation of the
Beta integrals through exact polynomial expansion.
"""

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kernelxai as kx
from kernelxai.estimators._registry import CostLimitError, InvalidOptionError, NotApplicableError
from kernelxai.explainers._interactions import leave_two_out_product, product_interactions

INDICES = ("SII", "k-SII", "STII", "FSII")


# --------------------------------------------------------------------------- #
# brute force from the definitions
# --------------------------------------------------------------------------- #
def _v(table, members):
    return table[sum(1 << i for i in members)]


def _brute_shapley(table, d):
    """Shapley values from the definition: weighted marginal contributions over all coalitions."""
    phi = np.zeros(d)
    for i in range(d):
        others = [p for p in range(d) if p != i]
        for s in range(d):
            for S in itertools.combinations(others, s):
                w = math.factorial(s) * math.factorial(d - s - 1) / math.factorial(d)
                phi[i] += w * (_v(table, S + (i,)) - _v(table, S))
    return phi


def _pair_weight(index, d, s):
    """The weight of a pair's discrete derivative at a coalition of size s (None: the index has none)."""
    if index in ("SII", "k-SII"):
        return math.factorial(s) * math.factorial(d - 2 - s) / math.factorial(d - 1)
    if index == "STII":
        return (2 / d) / math.comb(d - 1, s)
    return None


def _brute_pairs(table, d, index):
    """Pair terms from the definition: weighted discrete derivatives over the coalitions without the pair."""
    pairs = np.zeros((d, d))
    for i, j in itertools.combinations(range(d), 2):
        others = [p for p in range(d) if p not in (i, j)]
        total = 0.0
        for s in range(d - 1):
            w = _pair_weight(index, d, s)
            for S in itertools.combinations(others, s):
                delta = (_v(table, S + (i, j)) - _v(table, S + (i,)) - _v(table, S + (j,))
                         + _v(table, S))
                if w is not None:
                    total += w * delta
        pairs[i, j] = pairs[j, i] = total
    return pairs


def brute_force(table, d, index):
    """(order-1 terms (d,), pairs (d, d)) of ``index`` for a table of worths indexed by bitmask."""
    table = np.asarray(table, dtype=float)
    players = range(d)
    phi = _brute_shapley(table, d)
    pairs = _brute_pairs(table, d, index)
    if index == "FSII":
        return faith_shap_wls(table, d)
    if index == "SII":
        return phi, pairs
    if index == "k-SII":
        return phi - 0.5 * pairs.sum(axis=1), pairs
    singles = np.array([_v(table, (i,)) - _v(table, ()) for i in players])
    return singles, pairs


def faith_shap_wls(table, d):
    """Faith-SHAP order 2: Shapley-kernel weighted least squares, v(empty) and v(N) exact (KKT)."""
    if d == 1:  # no coalition between empty and full: the constraint alone
        return np.array([table[1] - table[0]]), np.zeros((1, 1))
    pairs_list = list(itertools.combinations(range(d), 2))
    rows, targets, weights = [], [], []
    for mask in range(1, 2**d - 1):
        z = [(mask >> l) & 1 for l in range(d)]
        s = sum(z)
        rows.append(z + [z[i] * z[j] for i, j in pairs_list])
        targets.append(table[mask] - table[0])
        weights.append((d - 1) / (math.comb(d, s) * s * (d - s)))
    X, y, w = np.array(rows, float), np.array(targets), np.array(weights)
    p = X.shape[1]
    kkt = np.zeros((p + 1, p + 1))
    kkt[:p, :p] = X.T @ (w[:, None] * X)
    kkt[:p, p] = kkt[p, :p] = 1.0
    rhs = np.concatenate([X.T @ (w * y), [table[-1] - table[0]]])
    beta = np.linalg.solve(kkt, rhs)[:p]
    pairs = np.zeros((d, d))
    for (i, j), b in zip(pairs_list, beta[d:]):
        pairs[i, j] = pairs[j, i] = b
    return beta[:d], pairs


def _table_of(game):
    d = game.n_players
    z = ((np.arange(2**d)[:, None] >> np.arange(d)) & 1).astype(bool)
    return np.asarray(game(z), dtype=float)


# --------------------------------------------------------------------------- #
# exact route against the definitions
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("index", INDICES)
@pytest.mark.parametrize("d", [1, 2, 3, 5, 6])
def test_exact_route_matches_definitions(index, d):
    rng = np.random.default_rng(d)
    table = rng.normal(size=2**d) * 3.0
    e = kx.shapley_interactions(kx.TabularGame(table), index=index, method="exact")
    ref_values, ref_pairs = brute_force(table, d, index)
    assert e.values.shape == (d,) and e.interactions.shape == (d, d)
    np.testing.assert_allclose(e.values, ref_values, atol=1e-12)
    np.testing.assert_allclose(e.interactions, ref_pairs, atol=1e-12)
    assert e.base_values == pytest.approx(table[0])
    assert e.meta["index"] == index and e.meta["method"] == "exact"
    if index != "SII":  # efficiency of the efficient indices, against the definitions
        iu = np.triu_indices(d, 1)
        assert ref_values.sum() + ref_pairs[iu].sum() == pytest.approx(table[-1] - table[0])


def test_exact_route_vectorised_over_instances():
    d, n = 4, 3
    rng = np.random.default_rng(1)
    tables = rng.normal(size=(2**d, n))
    e = kx.shapley_interactions(kx.TabularGame(tables), index="STII", method="exact")
    assert e.values.shape == (n, d) and e.interactions.shape == (n, d, d)
    for k in range(n):
        ref_values, ref_pairs = brute_force(tables[:, k], d, "STII")
        np.testing.assert_allclose(e.values[k], ref_values, atol=1e-12)
        np.testing.assert_allclose(e.interactions[k], ref_pairs, atol=1e-12)


# --------------------------------------------------------------------------- #
# the oracle of the definitions: f = x1 + 2 x2 x3, reference 0, at x = (1, 1, 1)
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("index, values", [("SII", [1, 1, 1]), ("k-SII", [1, 0, 0]),
                                           ("STII", [1, 0, 0]), ("FSII", [1, 0, 0])])
def test_oracle_x1_plus_2x2x3(index, values):
    def f(Z):
        return Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2]

    e = kx.explain_interactions(f, np.ones((1, 3)), background=np.zeros((2, 3)), index=index)
    expected = np.zeros((3, 3))
    expected[1, 2] = expected[2, 1] = 2.0
    np.testing.assert_allclose(e.interactions[0], expected, atol=1e-12)
    np.testing.assert_allclose(e.values[0], values, atol=1e-12)
    assert e.base_values[0] == pytest.approx(0.0)
    if index != "SII":
        assert e.values.sum() + e.interactions[0, 1, 2] == pytest.approx(3.0)  # f(x) - f(0)


# --------------------------------------------------------------------------- #
# product route == enumeration (hypothesis), extreme kernel values included
# --------------------------------------------------------------------------- #
def _factors(rng, regime, shape):
    if regime == "kernel":
        return rng.uniform(0.0, 1.0, shape)
    if regime == "tiny":
        return 10.0 ** rng.uniform(-300, -1, shape) * (rng.random(shape) < 0.8)
    if regime == "large":
        return 10.0 ** rng.uniform(-2, 3, shape)
    if regime == "mixed":
        x = rng.uniform(0.0, 1.0, shape)
        x[rng.random(shape) < 0.2] = 0.0
        x[rng.random(shape) < 0.2] = 1e-200
        return x
    return rng.normal(size=shape)  # signed


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(d=st.integers(1, 10), R=st.integers(1, 4), n=st.integers(1, 2),
       regime_a=st.sampled_from(["kernel", "tiny", "large", "mixed", "signed"]),
       regime_c=st.sampled_from(["kernel", "tiny", "large", "mixed", "signed", "one"]),
       seed=st.integers(0, 2**31 - 1), index=st.sampled_from(INDICES))
def test_product_route_equals_enumeration(d, R, n, regime_a, regime_c, seed, index):
    rng = np.random.default_rng(seed)
    a = _factors(rng, regime_a, (n, R, d))
    c = np.ones((n, R, d)) if regime_c == "one" else _factors(rng, regime_c, (n, R, d))
    w = rng.normal(size=(n, R))
    game = kx.ProductGame(a, c, w)
    prod = kx.shapley_interactions(game, index=index, method="product")
    exact = kx.shapley_interactions(game, index=index, method="exact")
    scale = max(np.abs(_table_of(game)).max(), np.abs(exact.interactions).max(), 1e-300)
    np.testing.assert_allclose(prod.interactions, exact.interactions, rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(prod.values, exact.values, rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(prod.base_values, exact.base_values, rtol=1e-12, atol=1e-300)


def test_leave_two_out_product_by_brute_force():
    rng = np.random.default_rng(3)
    G = rng.uniform(0, 2, (5, 7))
    G[0, 2] = 0.0
    G[1, [1, 4]] = 0.0
    L = leave_two_out_product(G)
    for r in range(len(G)):
        for i, j in itertools.permutations(range(7), 2):
            assert L[r, i, j] == pytest.approx(np.prod(np.delete(G[r], [i, j])), rel=1e-14, abs=0)
        assert np.all(np.diag(L[r]) == 0)


@pytest.mark.parametrize("index", INDICES)
def test_product_division_route_equals_prefix_route(index):
    """The rank-one (division) route and the prefix/middle/suffix route give the same pairs."""
    rng = np.random.default_rng(4)
    d = 9
    a, c, w = rng.uniform(0, 1, (3, 6, d)), rng.uniform(0, 1, (3, 6, d)), rng.normal(size=(3, 6))
    a[0, 0, 3] = c[0, 0, 3] = 0.0  # an exact zero factor takes the prefix route anyway
    game = kx.ProductGame(a, c, w)
    fast = product_interactions(game, index, None, False)
    slow = product_interactions(game, index, None, False, division=False)
    np.testing.assert_allclose(fast["pairs"], slow["pairs"], rtol=1e-12,
                               atol=1e-15 * np.abs(slow["pairs"]).max())


def test_product_route_on_grouped_and_summed_games():
    rng = np.random.default_rng(5)
    g1 = kx.ProductGame(rng.uniform(0, 1, (2, 3, 6)), rng.uniform(0, 1, (2, 3, 6)),
                        rng.normal(size=(2, 3)))
    g2 = kx.ProductGame(rng.uniform(0, 1, (2, 2, 6)), np.ones((2, 2, 6)), rng.normal(size=(2, 2)))
    for game in (kx.games.SumOfProductGames([g1, g2], [0.5, -2.0]),
                 g1.grouped([[0, 1], [2], [3, 4, 5]])):
        assert isinstance(game, kx.ProductGame)
        for index in INDICES:
            prod = kx.shapley_interactions(game, index=index)
            assert prod.meta["method"] == "product"
            exact = kx.shapley_interactions(game, index=index, method="exact")
            np.testing.assert_allclose(prod.interactions, exact.interactions, atol=1e-13)
            np.testing.assert_allclose(prod.values, exact.values, atol=1e-13)


# --------------------------------------------------------------------------- #
# large d: finite, efficient, and equal to a high-precision reference
# --------------------------------------------------------------------------- #
def test_product_route_d500_finite_and_efficient():
    rng = np.random.default_rng(6)
    d = 500
    a = rng.uniform(0.3, 1.0, (1, 4, d))
    c = rng.uniform(0.3, 1.0, (1, 4, d))
    game = kx.ProductGame(a, c, rng.normal(size=(1, 4)))
    for index in ("k-SII", "STII"):
        e = kx.shapley_interactions(game, index=index)
        assert np.all(np.isfinite(e.values)) and np.all(np.isfinite(e.interactions))
        assert np.abs(e.interactions).max() > 0  # products of 500 factors ~1e-100 are not lost
        assert e.meta["efficiency_error"] < 1e-12
        total = e.values.sum() + np.triu(e.interactions[0], 1).sum()
        v_full = (game._w * np.prod(a, axis=-1)).sum()
        v_empty = (game._w * np.prod(c, axis=-1)).sum()
        assert total == pytest.approx(v_full - v_empty, rel=1e-10, abs=1e-12 * abs(v_empty))


def test_product_route_agrees_with_mpmath_at_d100():
    mpmath = pytest.importorskip("mpmath")
    rng = np.random.default_rng(7)
    d, R = 100, 2
    a = rng.uniform(0.0, 1.0, (1, R, d))
    c = rng.uniform(0.0, 1.0, (1, R, d))
    a[0, 0, :5] = 10.0 ** rng.uniform(-12, -3, 5)  # small kernel values
    w = rng.normal(size=(1, R))
    game = kx.ProductGame(a, c, w)
    pairs_to_check = [(0, 1), (0, 50), (3, 4), (10, 99), (42, 43), (98, 99)]
    weights = {"SII": lambda k: mpmath.mpf(1) / (k + 1),
               "STII": lambda k: 2 * (mpmath.mpf(1) / (k + 1) - mpmath.mpf(1) / (k + 2)),
               "FSII": lambda k: 6 * (mpmath.mpf(1) / (k + 2) - mpmath.mpf(1) / (k + 3))}
    with mpmath.workdps(60):
        def pair_ref(i, j, integral):
            total = mpmath.mpf(0)
            for r in range(R):
                ar = [mpmath.mpf(float(x)) for x in a[0, r]]
                cr = [mpmath.mpf(float(x)) for x in c[0, r]]
                poly = [mpmath.mpf(1)]  # coefficients in t of prod_{l != i,j} (c_l + t (a_l - c_l))
                for l in range(d):
                    if l in (i, j):
                        continue
                    new = [mpmath.mpf(0)] * (len(poly) + 1)
                    for k, p in enumerate(poly):
                        new[k] += p * cr[l]
                        new[k + 1] += p * (ar[l] - cr[l])
                    poly = new
                value = sum(p * integral(k) for k, p in enumerate(poly))
                total += mpmath.mpf(float(w[0, r])) * (ar[i] - cr[i]) * (ar[j] - cr[j]) * value
            return total

        for index, integral in weights.items():
            e = kx.shapley_interactions(game, index=index)
            for i, j in pairs_to_check:
                ref = pair_ref(i, j, integral)
                assert abs(e.interactions[0, i, j] - float(ref)) <= 1e-10 * abs(float(ref)) + 1e-300
            if index == "STII":  # order-1: v({i}) - v(empty) = sum_r w (a_i - c_i) prod_{l != i} c_l
                for i in (0, 7, 99):
                    ref = sum(mpmath.mpf(float(w[0, r])) * (mpmath.mpf(float(a[0, r, i]))
                              - mpmath.mpf(float(c[0, r, i])))
                              * mpmath.fprod(mpmath.mpf(float(x)) for x in np.delete(c[0, r], i))
                              for r in range(R))
                    assert abs(e.values[0, i] - float(ref)) <= 1e-10 * abs(float(ref))


# --------------------------------------------------------------------------- #
# models: a planted interaction is found
# --------------------------------------------------------------------------- #
def test_planted_interaction_of_a_kernel_model():
    pd = pytest.importorskip("pandas")
    from sklearn.kernel_ridge import KernelRidge

    rng = np.random.default_rng(8)
    X = pd.DataFrame(rng.uniform(-1, 1, (80, 4)), columns=["a", "b", "c", "d"])
    y = X["a"] + X["b"] * X["c"]
    model = KernelRidge(kernel="rbf", gamma=0.5, alpha=1e-2).fit(X, y)
    e = kx.explain_interactions(model, X.iloc[:10], background=X.iloc[:30], index="k-SII")
    assert e.meta["method"] == "product" and e.feature_names == ["a", "b", "c", "d"]
    strength = np.abs(e.interactions).mean(axis=0)
    i, j = np.unravel_index(np.argmax(strength), strength.shape)
    assert {i, j} == {1, 2}
    assert strength[1, 2] > 5 * np.delete(strength[np.triu_indices(4, 1)], 3).max()
    # the same game as kx.explain: k-SII order-1 terms plus half the pairs are the Shapley values
    shap = kx.explain(model, X.iloc[:10], background=X.iloc[:30])
    np.testing.assert_allclose(e.values + 0.5 * e.interactions.sum(axis=2), shap.values, atol=1e-12)
    exact = kx.explain_interactions(model, X.iloc[:10], background=X.iloc[:30], method="exact")
    np.testing.assert_allclose(exact.interactions, e.interactions, atol=1e-12)


# --------------------------------------------------------------------------- #
# the sampled route
# --------------------------------------------------------------------------- #
def _nonproduct_game(d=12, n=2, seed=9):
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(d, n))
    P = rng.normal(size=(d, d)) / d

    def fn(Z):
        Zf = Z.astype(float)
        quad = np.einsum("mi,ij,mj->m", Zf, P, Zf)
        return np.sin(Zf @ W) + quad[:, None] + 0.3 * (Zf @ W) ** 2 / d

    return kx.FunctionGame(fn, d, n_instances=n)


@pytest.mark.parametrize("index", INDICES)
def test_sampled_intervals_cover_exact_values(index):
    game = _nonproduct_game()
    exact = kx.shapley_interactions(game, index=index, method="exact")
    e = kx.shapley_interactions(game, index=index, method="sampled", budget=3000, random_state=0,
                                level=0.99)
    assert e.meta["method"] == "sampled" and not e.meta["exact"]
    assert e.meta["budget"] <= 3000
    iu = np.triu_indices(12, 1)
    se_pairs = e.meta["interactions_stderr"][:, iu[0], iu[1]]
    assert np.all(se_pairs > 0) and np.all(e.stderr[e.values != exact.values] >= 0)
    inside = [(e.lower <= exact.values) & (exact.values <= e.upper),
              (e.meta["interactions_lower"] <= exact.interactions)
              & (exact.interactions <= e.meta["interactions_upper"])]
    coverage = np.concatenate([inside[0].ravel(), inside[1][:, iu[0], iu[1]].ravel()]).mean()
    assert coverage >= 0.95
    z = np.abs(e.interactions - exact.interactions)[:, iu[0], iu[1]] / se_pairs
    assert z.max() < 6
    # efficiency holds exactly, round by round
    assert e.meta["efficiency_error"] < 1e-12
    # same seed, same numbers
    again = kx.shapley_interactions(game, index=index, method="sampled", budget=3000,
                                    random_state=0, level=0.99)
    np.testing.assert_array_equal(again.interactions, e.interactions)


def test_sampled_with_budget_for_every_coalition_is_exact():
    game = _nonproduct_game(d=6)
    exact = kx.shapley_interactions(game, index="k-SII", method="exact")
    e = kx.shapley_interactions(game, index="k-SII", method="sampled", budget=2**6)
    np.testing.assert_allclose(e.interactions, exact.interactions, atol=1e-12)
    assert np.all(e.meta["interactions_stderr"] == 0)


def test_auto_picks_sampled_beyond_12_players():
    game = _nonproduct_game(d=14, n=1)
    e = kx.shapley_interactions(game, budget=600, random_state=1)
    assert e.meta["method"] == "sampled" and "auto" in e.meta
    assert e.interactions.shape == (1, 14, 14)


# --------------------------------------------------------------------------- #
# shapes, single games, refusals
# --------------------------------------------------------------------------- #
def test_single_game_shapes_and_taxi():
    taxi = kx.TabularGame({(): 0, (0,): 6, (1,): 12, (2,): 42, (0, 1): 12, (0, 2): 42,
                           (1, 2): 42, (0, 1, 2): 42}, player_names=["Amy", "Bob", "Claire"])
    e = kx.shapley_interactions(taxi, index="SII")
    np.testing.assert_allclose(e.values, [2, 5, 35])
    assert e.feature_names == ["Amy", "Bob", "Claire"]
    frame = e.interactions_frame()
    assert len(frame) > 0


def test_index_spellings_and_errors():
    game = kx.TabularGame(np.arange(8.0))
    assert kx.shapley_interactions(game, index="ksii").meta["index"] == "k-SII"
    assert kx.shapley_interactions(game, index="faith-shap").meta["index"] == "FSII"
    # every index of any order is offered (tests/test_interactions_any_order.py); misspelt ones are refused
    with pytest.raises(ValueError, match="accepted: 'SV', 'BV', 'SII', 'BII'.*did you mean 'k-SII'"):
        kx.shapley_interactions(game, index="k-SI")
    with pytest.raises(ValueError, match="order must be between 1 and the number of players 3; got 4"):
        kx.shapley_interactions(game, order=4)
    with pytest.raises(ValueError, match="unknown method 'magic'"):
        kx.shapley_interactions(game, method="magic")
    with pytest.raises(NotApplicableError, match="'exact', 'sampled'"):
        kx.shapley_interactions(game, method="product")
    big = kx.FunctionGame(lambda Z: Z.sum(axis=1).astype(float), 21)
    with pytest.raises(NotApplicableError, match="2\\*\\*21"):
        kx.shapley_interactions(big, method="exact")
    with pytest.raises(InvalidOptionError, match="budget= is an option of method='sampled'"):
        kx.shapley_interactions(game, method="exact", budget=10)
    with pytest.raises(InvalidOptionError, match="too small"):
        kx.shapley_interactions(_nonproduct_game(d=12, n=1), method="sampled", budget=30)
    with pytest.raises(TypeError, match="of kx.shapley_interactions must be a kernelxai Game"):
        kx.shapley_interactions(np.zeros(8))
    unknown = "'etta' is not an argument of kx.explain_interactions.*It accepts: budget"
    with pytest.raises(InvalidOptionError, match=unknown):
        kx.explain_interactions(lambda Z: Z[:, 0], np.ones((1, 2)), background=np.zeros((2, 2)),
                                etta=1)


def test_cost_guard_refuses_before_work():
    game = _nonproduct_game(d=12, n=1)
    with kx.config_context(max_cost=1e-9):
        with pytest.raises(CostLimitError, match="shapley_interactions"):
            kx.shapley_interactions(game, method="exact")


def test_efficiency_violation_is_reported(monkeypatch):
    from kernelxai.explainers import _interactions as interactions

    game = kx.TabularGame(np.random.default_rng(0).normal(size=16))
    original = interactions.exact_interactions

    def broken(*args):
        res = original(*args)
        res["pairs"] = res["pairs"] + 0.01 * (1 - np.eye(4))
        return res

    monkeypatch.setattr(interactions, "exact_interactions", broken)
    with pytest.raises(RuntimeError, match="not efficient.*please report"):
        kx.shapley_interactions(game, index="STII", method="exact")
