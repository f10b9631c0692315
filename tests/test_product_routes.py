"""The polynomial-time routes for product games: quadrature, PKeX Alg. 2 ("stable"), Alg. 1 ("newton").

Truth: brute-force enumeration (d <= 12), an mpmath reference at 40 digits
(d = 200 and 500), and the efficiency axiom at any d.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kernelxai as kx
from kernelxai.estimators._product import gauss_legendre_01, product_shapley, shapley_weights_exact

mpmath = pytest.importorskip("mpmath")
ROUTES = ("product", "stable", "newton")


def functional_game(d, n_train, n_explain, lengthscale, seed, extreme=None):
    """A functional-baseline game (c = 1) of a random kernel expansion."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_train, d))
    model = kx.models.KernelExpansion(X, rng.normal(size=n_train), kx.kernels.RBF(lengthscale),
                                      intercept=0.3)
    Xe = rng.normal(size=(n_explain, d))
    if extreme is not None:
        Xe[:, :len(extreme)] = extreme
    return model, Xe, kx.values.FunctionalBaseline(model).game(Xe)


# --------------------------------------------------------------------------- brute force
@pytest.mark.parametrize("d", [1, 2, 3, 6, 9, 12])
def test_routes_equal_brute_force_on_unit_absent_games(d):
    rng = np.random.default_rng(d)
    a = rng.random((3, 20, d))
    g = kx.ProductGame(a, np.ones((1, 20, d)), rng.normal(size=(1, 20)))
    exact = kx.shapley_values(g, method="exact")
    for route in ROUTES:
        e = kx.shapley_values(g, method=route)
        np.testing.assert_allclose(e.values, exact.values, atol=1e-12, err_msg=route)
        np.testing.assert_allclose(e.base_values, exact.base_values, atol=1e-12)


@pytest.mark.parametrize("d", [2, 5, 8, 12])
def test_quadrature_and_stable_equal_brute_force_on_general_games(d):
    rng = np.random.default_rng(10 + d)
    a, c, w = rng.random((4, 15, d)), rng.random((4, 15, d)), rng.normal(size=(4, 15))
    c[0, 0, 1] = a[0, 0, 1] = 0.0            # a zero factor in both states
    g = kx.ProductGame(a, c, w)
    exact = kx.shapley_values(g, method="exact").values
    for route in ("product", "stable"):
        np.testing.assert_allclose(kx.shapley_values(g, method=route).values, exact, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(d=st.integers(1, 7), r=st.integers(1, 4), k=st.integers(1, 3), seed=st.integers(0, 2**31),
       threads=st.integers(1, 2))
def test_quadrature_equals_exact_property(d, r, k, seed, threads):
    rng = np.random.default_rng(seed)
    a, c = rng.random((k, r, d)), rng.random((k, r, d))
    g = kx.ProductGame(a, c, rng.normal(size=(k, r)))
    np.testing.assert_allclose(kx.shapley_values(g, method="product", n_jobs=threads).values,
                               kx.shapley_values(g, method="exact").values, atol=1e-12)


def test_threads_and_block_sizes_do_not_change_the_values():
    _, _, g = functional_game(30, 300, 5, 3.0, seed=0)
    ref, base = product_shapley(g, n_jobs=1)
    for n_jobs, max_elements, work in ((2, 2**22, 2**17), (2, 5000, 300), (1, 1000, 10**7)):
        v, b = product_shapley(g, n_jobs=n_jobs, max_elements=max_elements, work_elements=work)
        np.testing.assert_allclose(v, ref, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(b, base, rtol=1e-13)


def test_grouped_games_work_with_every_route():
    _, _, g = functional_game(8, 30, 3, 2.0, seed=1)
    grouped = g.grouped([[0, 1, 2], [3], [4, 5], [6, 7]])
    exact = kx.shapley_values(grouped, method="exact").values
    for route in ROUTES:
        np.testing.assert_allclose(kx.shapley_values(grouped, method=route).values, exact,
                                   atol=1e-12)


# --------------------------------------------------------------------------- mpmath reference
@pytest.fixture(scope="module")
def mp_nodes():
    """Gauss-Legendre nodes on [0, 1] from mpmath's own routine (384 nodes, 40 digits)."""
    from mpmath.calculus.quadrature import GaussLegendre

    with mpmath.workdps(40):
        raw = GaussLegendre(mpmath.mp).calc_nodes(8, mpmath.mp.prec)
        return [((x + 1) / 2, w / 2) for x, w in raw]


def mp_reference(a, w, nodes):
    """phi_j = sum_r w_r (a_rj - 1) int_0^1 prod_{l != j} (1 - t + t a_rl) dt at 40 digits.

    Independent of the double-precision path: mpmath arithmetic, mpmath's
    nodes (384 of them; exact for degree <= 767), and leave-one-out products
    by prefix and suffix products instead of division.
    """
    R, d = a.shape
    with mpmath.workdps(40):
        phi = [mpmath.mpf(0)] * d
        for r in range(R):
            y = [mpmath.mpf(float(v)) - 1 for v in a[r]]
            psi = [mpmath.mpf(0)] * d
            for t, omega in nodes:
                F = [1 + t * yl for yl in y]
                prefix = [mpmath.mpf(1)] * d
                for l in range(1, d):
                    prefix[l] = prefix[l - 1] * F[l - 1]
                suffix = mpmath.mpf(1)
                for j in range(d - 1, -1, -1):
                    psi[j] += omega * prefix[j] * suffix
                    suffix *= F[j]
            wr = mpmath.mpf(float(w[r]))
            for j in range(d):
                phi[j] += wr * y[j] * psi[j]
        return np.array([float(v) for v in phi])


@pytest.mark.slow
@pytest.mark.parametrize("d, n_train", [(200, 4), (500, 2)])
@pytest.mark.parametrize("regime", ["near_one", "down_to_1e-8"])
def test_quadrature_matches_mpmath_reference(d, n_train, regime, mp_nodes):
    if regime == "near_one":
        model, Xe, g = functional_game(d, n_train, 1, lengthscale=10.0, seed=d)
    else:
        model, Xe, g = functional_game(d, n_train, 1, lengthscale=1.0, seed=d,
                                       extreme=[6.0, -6.0, 6.5, -5.8])
    a = model.kernel.feature_grams(Xe, model.X_train)[0]
    if regime == "near_one":
        assert a.min() > 0.5
    else:
        assert a.min() < 1e-7 and a.max() > 0.99
    ref = mp_reference(a, model.alpha, mp_nodes)
    phi = kx.shapley_values(g, method="quadrature").values[0]
    err = np.linalg.norm(phi - ref) / np.linalg.norm(ref)
    assert err < 1e-12, err
    # Alg. 2 is accurate too at these d (it only overflows later)
    stable = kx.shapley_values(g, method="stable").values[0]
    assert np.linalg.norm(stable - ref) / np.linalg.norm(ref) < 1e-12


def test_mpmath_reference_is_the_shapley_value(mp_nodes):
    """The reference's identity checked by an independent route: ESPs by recursion, in mpmath."""
    rng = np.random.default_rng(5)
    d = 12
    a = np.exp(-rng.exponential(3.0, size=(2, d)))
    w = rng.normal(size=2)
    ref = mp_reference(a, w, mp_nodes)
    with mpmath.workdps(40):
        mu = [mpmath.factorial(q) * mpmath.factorial(d - q - 1) / mpmath.factorial(d) for q in range(d)]
        phi = [mpmath.mpf(0)] * d
        for r in range(2):
            for j in range(d):
                e = [mpmath.mpf(1)] + [mpmath.mpf(0)] * (d - 1)
                for l in range(d):
                    if l != j:
                        z = mpmath.mpf(float(a[r, l]))
                        for q in range(d - 1, 0, -1):
                            e[q] += z * e[q - 1]
                psi = sum(mu[q] * e[q] for q in range(d))
                phi[j] += mpmath.mpf(float(w[r])) * (mpmath.mpf(float(a[r, j])) - 1) * psi
    np.testing.assert_allclose(ref, [float(v) for v in phi], rtol=1e-15)
    brute = kx.shapley_values(kx.ProductGame(a[None], np.ones((1, 2, d)), w[None]),
                              method="exact").values[0]
    np.testing.assert_allclose(ref, brute, atol=1e-13)


def test_gauss_legendre_nodes_match_mpmath(mp_nodes):
    from mpmath.calculus.quadrature import GaussLegendre

    for level, q in ((5, 48), (8, 384)):
        with mpmath.workdps(40):
            raw = GaussLegendre(mpmath.mp).calc_nodes(level, mpmath.mp.prec)
            ref = sorted(((x + 1) / 2, (1 - x) / 2, w / 2) for x, w in raw)
        t, s, w = gauss_legendre_01(q)
        for got, col in ((t, 0), (s, 1), (w, 2)):
            exact = np.array([float(row[col]) for row in ref])
            rel = np.abs(got - exact) / np.abs(exact)
            assert rel.max() < 4 * np.finfo(float).eps, (q, col, rel.max())


def test_exact_shapley_weights():
    for d in (1, 2, 7, 60):
        mu = shapley_weights_exact(d)
        expected = [math.factorial(q) * math.factorial(d - q - 1) / math.factorial(d) for q in range(d)]
        np.testing.assert_allclose(mu, expected, rtol=1e-15)
    np.testing.assert_allclose(shapley_weights_exact(300) * 300 * np.array(
        [math.comb(299, q) for q in range(300)], dtype=object).astype(float), 1.0, rtol=1e-14)


# --------------------------------------------------------------------------- where the paper's routes fail
def test_newton_identities_lose_accuracy_as_d_grows():
    """PKeX Alg. 1 degrades with d (gamma = 1/d); Alg. 2 and the quadrature agree."""
    errors = {}
    for d in (20, 50, 70):
        rng = np.random.default_rng(d)
        X = rng.normal(size=(100, d))
        model = kx.models.KernelExpansion(X, rng.normal(size=100), kx.kernels.RBF(math.sqrt(d / 2)))
        g = kx.values.FunctionalBaseline(model).game(rng.normal(size=(2, d)))
        quad, _ = product_shapley(g)
        stable, _ = product_shapley(g, route="stable")
        newton, _, measured = product_shapley(g, route="newton", tolerance=None, return_bound=True)
        assert np.linalg.norm(stable - quad) / np.linalg.norm(quad) < 1e-13
        errors[d] = np.linalg.norm(newton - quad) / np.linalg.norm(quad)
        # the route's own measurement is at least the normwise error of the result
        assert measured >= 0.5 * errors[d]
        if errors[d] > 1e-6:  # ... so the default tolerance refuses what is inaccurate
            with pytest.raises(FloatingPointError, match="lost precision"):
                kx.shapley_values(g, method="newton")
    assert errors[20] < 1e-9
    assert errors[50] > 1e-6
    assert errors[70] > 1e-1


@pytest.mark.slow
def test_stable_overflows_beyond_d_1030_while_quadrature_stays_exact():
    d = 1100
    model, Xe, g = functional_game(d, 1, 1, lengthscale=30.0, seed=3)
    stable, _ = product_shapley(g, route="stable", tolerance=None)
    assert not np.all(np.isfinite(stable))
    with pytest.raises(FloatingPointError, match="would overflow"):
        kx.shapley_values(g, method="stable")
    phi = kx.shapley_values(g, method="quadrature")
    target = model.predict(Xe) - model.intercept - model.alpha.sum()
    np.testing.assert_allclose(phi.values.sum(1), target, rtol=1e-12, atol=1e-14)


def test_quadrature_efficiency_at_d_2000():
    model, Xe, g = functional_game(2000, 3, 2, lengthscale=40.0, seed=4)
    e = kx.shapley_values(g, method="quadrature")
    assert np.all(np.isfinite(e.values))
    target = model.predict(Xe) - model.intercept - model.alpha.sum()
    np.testing.assert_allclose(e.values.sum(1), target, atol=1e-10)
    np.testing.assert_allclose(e.values.sum(1) + e.base_values, model.predict(Xe), atol=1e-10)


# --------------------------------------------------------------------------- bad input
def test_routes_need_a_product_game():
    for route in ROUTES:
        with pytest.raises(TypeError, match="ProductGame"):
            kx.shapley_values(kx.TabularGame(np.arange(4.0)), method=route)


def test_unknown_route_and_newton_with_zero_absent_factor():
    g = kx.ProductGame(np.full((1, 2, 3), 0.5), np.zeros((1, 2, 3)), np.ones((1, 2)))
    with pytest.raises(ValueError, match="route"):
        product_shapley(g, route="magic")
    with pytest.raises(ValueError, match="absent factors equal to 0"):
        kx.shapley_values(g, method="newton")
    with pytest.raises(ValueError, match="n_jobs"):
        product_shapley(g, n_jobs=0)


def test_library_reference_matches_the_test_reference_and_brute_force(mp_nodes):
    from kernelxai.estimators._product import reference_shapley

    model, Xe, g = functional_game(9, 3, 2, lengthscale=0.8, seed=11)
    ref = reference_shapley(g)
    np.testing.assert_allclose(ref, kx.shapley_values(g, method="exact").values, atol=1e-13)
    a = model.kernel.feature_grams(Xe[:1], model.X_train)[0]
    np.testing.assert_allclose(ref[0], mp_reference(a, model.alpha, mp_nodes), rtol=1e-15, atol=1e-300)
    rng = np.random.default_rng(0)
    general = kx.ProductGame(rng.random((2, 3, 5)), rng.random((2, 3, 5)), rng.normal(size=(2, 3)))
    np.testing.assert_allclose(reference_shapley(general),
                               kx.shapley_values(general, method="exact").values, atol=1e-14)
    with pytest.raises(ValueError, match="max_work"):
        reference_shapley(g, max_work=10)


@settings(max_examples=200, deadline=None)
@given(d=st.integers(3, 80), terms=st.integers(1, 60), low=st.floats(0.0, 0.99),
       power=st.floats(0.1, 6.0), seed=st.integers(0, 2**31))
def test_unit_node_count_is_the_kernels_count_without_a_copy(d, terms, low, power, seed):
    # the probe counts nodes of terms with absent factors 1 from a as it comes (#25): same count
    from kernelxai.estimators._gauss_legendre import node_count, unit_node_count

    a = np.random.default_rng(seed).uniform(low, 1.0, size=(terms, d)) ** power
    A = np.ascontiguousarray(a.T)
    assert unit_node_count(a, d) == node_count(A, None, A - 1.0, d, np.empty_like(A), np.empty_like(A))
    assert unit_node_count(a + 1.5, d) is None        # factors above 1: left to node_count


@pytest.mark.parametrize("intercept", [0.0, 1.5])
@pytest.mark.parametrize("normalize", [False, True])
def test_games_count_the_terms_they_yield_and_a_zero_intercept_is_none(intercept, normalize):
    """n_terms() is what iter_terms yields (the probe and the task count rely on it); a zero intercept is no term."""
    rng = np.random.default_rng(3)
    X, x = rng.normal(size=(12, 4)), rng.normal(size=(3, 4))
    model = kx.models.KernelExpansion(X, rng.normal(size=12), kx.kernels.RBF(1.2), intercept=intercept)

    def yielded(game):
        return sum(w.shape[1] for _, w, _, _ in game.iter_terms())

    baseline = kx.values.FunctionalBaseline(model, normalize=normalize).game(x)
    assert baseline.n_terms() == yielded(baseline) == 12 + (intercept != 0.0) + normalize
    interventional = kx.values.Interventional(model, background=X[:5]).game(x)
    assert interventional.n_terms() == yielded(interventional) == 12 * 5 + (intercept != 0.0)
    for game in (baseline, interventional):   # the values with and without the intercept's term
        np.testing.assert_allclose(kx.shapley_values(game, method="product").values,
                                   kx.shapley_values(game, method="exact").values, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(kx.shapley_values(game, method="product").base_values,
                                   kx.shapley_values(game, method="exact").base_values, rtol=1e-12, atol=1e-13)


def test_terms_alike_in_every_coalition_are_not_node_counted():
    """An intercept (a = c = 1) needs no quadrature: a game of it alone has one node, and it adds to v(empty) only."""
    from kernelxai.estimators._term_tasks import alike_everywhere, estimate_nodes

    g = kx.ProductGame(np.ones((1, 1, 30)), np.ones((1, 1, 30)), [[2.5]])
    assert alike_everywhere(np.array([2.5]), np.ones((1, 30)), None)
    assert not alike_everywhere(np.ones(5), np.ones((5, 30)), None)        # more than FEW_TERMS: not looked at
    assert estimate_nodes(g) == 1
    values, base = product_shapley(g)
    assert np.all(values == 0.0) and base[0] == 2.5
