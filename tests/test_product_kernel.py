"""The quadrature kernel of the product routes (#14): node count, agreement, backends.

Truth: Gauss-Legendre rules and integrals computed here in mpmath (nodes by
Newton's method on the Legendre recurrence, 40 digits), the pre-#14 formula
(ceil(d/2) nodes, leave-one-out by prefix x suffix products) written out
here, products in extended precision (np.longdouble), and brute-force
enumeration of coalitions.
"""

import math

import numpy as np
import pytest

import kernelxai as kx
from kernelxai.estimators import _product as product
from kernelxai.estimators._product import gauss_legendre_01, nodes_needed, product_shapley, psi_quadrature

mpmath = pytest.importorskip("mpmath")
try:
    import numba  # noqa: F401
    HAVE_NUMBA = True
except ImportError:
    HAVE_NUMBA = False


# --------------------------------------------------------------------------- references
def mp_gauss(n, dps=40):
    """n-point Gauss-Legendre rule on [0, 1] in mpmath (Newton on P_n from Chebyshev-like guesses)."""
    with mpmath.workdps(dps):
        nodes = []
        for i in range(1, n + 1):
            x = mpmath.cos(mpmath.pi * (i - mpmath.mpf(1) / 4) / (n + mpmath.mpf(1) / 2))
            for _ in range(100):
                p0, p1 = mpmath.mpf(1), x
                for k in range(2, n + 1):
                    p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
                dp = n * (x * p1 - p0) / (x * x - 1)
                step = p1 / dp
                x -= step
                if abs(step) < mpmath.mpf(10) ** (-dps + 2):
                    break
            nodes.append(((1 + x) / 2, 1 / ((1 - x * x) * dp * dp)))
        return nodes


def mp_psi(a, c, nodes, dps=40):
    """psi_j = sum_k w_k prod_{l != j} (c_l + t_k (a_l - c_l)) in mpmath, by prefix x suffix products."""
    with mpmath.workdps(dps):
        A = [mpmath.mpf(float(v)) for v in a]
        C = [mpmath.mpf(float(v)) for v in c]
        d = len(A)
        out = [mpmath.mpf(0)] * d
        for t, w in nodes:
            F = [cl + t * (al - cl) for al, cl in zip(A, C)]
            prefix = [mpmath.mpf(1)] * d
            for l in range(1, d):
                prefix[l] = prefix[l - 1] * F[l - 1]
            suffix = mpmath.mpf(1)
            for j in range(d - 1, -1, -1):
                out[j] += w * prefix[j] * suffix
                suffix *= F[j]
        return out


def exact_nodes_psi(a, c, dtype=float):
    """The pre-#14 rule: ceil(d/2) nodes (exact for degree d - 1); leave-one-out by prefix x suffix.

    With dtype=np.longdouble the products are formed in extended precision
    (nodes still the double ones, with 1 - t formed in that precision).
    """
    M, d = a.shape
    t, _, w = gauss_legendre_01(max(1, math.ceil(d / 2)))
    t, w = t.astype(dtype), w.astype(dtype)
    a, c = a.astype(dtype), (np.ones_like(a) if c is None else c).astype(dtype)
    F = a[:, :, None] * t + c[:, :, None] * (1 - t)            # (M, d, q)
    prefix = np.ones_like(F)
    suffix = np.ones_like(F)
    prefix[:, 1:] = np.cumprod(F[:, :-1], axis=1)
    suffix[:, :-1] = np.cumprod(F[:, :0:-1], axis=1)[:, ::-1]
    return (prefix * suffix) @ w


def rbf_values(rng, shape, lengthscale, centre=None):
    x = rng.normal(size=shape)
    y = rng.normal(size=shape) if centre is None else centre
    return np.exp(-((x - y) ** 2) / (2 * lengthscale**2))


# --------------------------------------------------------------------------- the node count
#: d, lengthscale of the present factors, lengthscale of the absent ones (None: c = 1; 0: uniform)
NODE_CASES = {"near_one": (120, math.sqrt(60), None), "lengthscale_3": (120, 3.0, None),
              "interventional_near_one": (120, math.sqrt(60), math.sqrt(60)),
              "interventional_lengthscale_2": (60, 2.0, 2.0), "uniform": (60, 0, 0)}


@pytest.mark.parametrize("case", list(NODE_CASES))
def test_node_count_bounds_the_truncation_error(case):
    """With the chosen nodes every psi_j is within 2^-53 (relative) of its exact integral."""
    rng = np.random.default_rng(len(case))
    d, ls_a, ls_c = NODE_CASES[case]
    if ls_a == 0:
        a, c = rng.random(d), rng.random(d)
    else:
        a = rbf_values(rng, d, ls_a)
        c = np.ones(d) if ls_c is None else rbf_values(rng, d, ls_c)
    rho = (a - c) / (a + c)
    n = nodes_needed(np.abs(rho).sum(), (rho**2).sum(), d, abs(rho.sum()))
    assert 1 <= n <= math.ceil(d / 2)
    exact = mp_psi(a, c, mp_gauss(math.ceil(d / 2)))

    def error(nodes):  # largest relative error over j, evaluated at 40 digits
        with mpmath.workdps(40):
            return max(abs(x / y - 1) for x, y in zip(mp_psi(a, c, mp_gauss(nodes)), exact))

    assert error(n) <= 2.0**-53, (case, n, float(error(n)))
    if case != "uniform":  # the bound is not vacuous: far fewer nodes than ceil(d/2) ...
        assert n < math.ceil(d / 2)
        # ... and close to the fewest that reach the accuracy (the bound is looser as the
        # factors spread: it measures the integrand against a Jensen lower bound of psi)
        fewest = n
        while fewest > 1 and error(fewest - 1) <= 2.0**-53:
            fewest -= 1
        assert n - fewest <= (1 if "near_one" in case else 6), (case, n, fewest)


def test_node_count_of_blocks():
    """Kernel values near one need few nodes; a negative, a zero-in-both-states or a non-finite factor all."""
    rng = np.random.default_rng(0)
    d, M = 500, 64
    a = rbf_values(rng, (M, d), math.sqrt(d / 2))
    A = np.ascontiguousarray(a.T)
    scratch = [np.empty_like(A), np.empty_like(A)]
    assert product.node_count(A, None, A - 1, d, *scratch) <= 12          # ceil(d/2) = 250
    C = np.ascontiguousarray(rbf_values(rng, (M, d), math.sqrt(d / 2)).T)
    assert product.node_count(A, C, A - C, d, *scratch) <= 12
    for bad in (-0.5, np.inf, np.nan):
        B = A.copy()
        B[3, 5] = bad
        assert product.node_count(B, C, B - C, d, *scratch) == 250
    B, Z = A.copy(), C.copy()
    B[3, 5] = Z[3, 5] = 0.0
    assert product.node_count(B, Z, B - Z, d, *scratch) == 250
    # a constant integrand (a = c) needs one node; factors above 1 are bounded too
    assert product.node_count(C, C, C - C, d, *scratch) == 1
    assert product.node_count(1.5 * A, None, 1.5 * A - 1, d, *scratch) < 250
    assert nodes_needed(float("nan"), 0.0, 7) == 4


# --------------------------------------------------------------------------- agreement
def _games(rng, d):
    """(name, a, c) blocks of 40 terms in the regimes the routes meet."""
    out = [("near_one", rbf_values(rng, (40, d), math.sqrt(d / 2)), None),
           ("down_to_1e-8", rbf_values(rng, (40, d), 1.0), None),
           ("interventional", rbf_values(rng, (40, d), math.sqrt(d / 2)),
            rbf_values(rng, (40, d), math.sqrt(d / 2))),
           ("general", rng.random((40, d)), 2 * rng.random((40, d))),
           ("negative", rng.uniform(-1, 1, (40, d)), rng.uniform(-1, 1, (40, d)))]
    a = rng.random((40, d))
    c = rng.random((40, d))
    a[3, min(7, d - 1)] = c[3, min(7, d - 1)] = 0.0   # zero in both states: redone by prefix x suffix
    a[5, :] = c[5, :]         # a constant term
    out.append(("zero_and_constant", a, c))
    down = out[1][1]
    down[:, :4] = np.exp(-np.array([36.0, 30.0, 25.0, 18.0]) / 2)[:d]   # kernel values 1.5e-8 .. 1.2e-4
    return out


@pytest.mark.parametrize("d", [1, 2, 7, 64, 200])
def test_psi_agrees_with_the_exact_node_count(d):
    rng = np.random.default_rng(d)
    for name, a, c in _games(rng, d):
        ref = exact_nodes_psi(a, c)
        got = psi_quadrature(a, c, d)
        scale = np.abs(ref).max(axis=1, keepdims=True)
        np.testing.assert_array_less(np.abs(got - ref) / scale, 1e-13, err_msg=name)


def test_no_node_bias_at_d_500():
    """Few nodes, and still no systematic shift: against products in extended precision.

    Factors t a + (1 - t) c from a pair (t, 1 - t) whose rounded values do not
    add up to 1 carry the same relative error in every factor; over d = 500
    factors near 1 that showed as ~1e-14 with 7-8 nodes. The kernel forms
    each factor from one node parameter instead.
    """
    if np.finfo(np.longdouble).eps > 1e-18:
        pytest.skip("np.longdouble is double precision on this platform")
    rng = np.random.default_rng(3)
    d = 500
    for c in (None, rbf_values(rng, (30, d), math.sqrt(d / 2))):
        a = rbf_values(rng, (30, d), math.sqrt(d / 2))
        ref = exact_nodes_psi(a, c, dtype=np.longdouble)
        got = psi_quadrature(a, c, d)
        err = np.abs(got / ref - 1).max()
        assert err < 2.5e-15, err


@pytest.mark.parametrize("value", ["functional", "interventional"])
def test_shapley_values_agree_with_the_exact_node_count(value):
    """Whole games, several points and thread counts: the values of ceil(d/2) nodes to 1e-13."""
    rng = np.random.default_rng(7)
    d, n = 120, 60
    X = rng.normal(size=(n, d))
    model = kx.models.KernelExpansion(X, rng.normal(size=n), kx.kernels.RBF(math.sqrt(d / 2)),
                                      intercept=0.4)
    Xe = rng.normal(size=(3, d))
    if value == "functional":
        game = kx.values.FunctionalBaseline(model).game(Xe)
    else:
        game = kx.values.Interventional(model, rng.normal(size=(6, d))).game(Xe)
    ref = np.zeros((3, d))
    for rows, w, a, c in game.iter_terms():
        shape = np.broadcast_shapes(a.shape, c.shape, w.shape + (1,))
        a, c = np.broadcast_to(a, shape), np.broadcast_to(c, shape)
        w = np.broadcast_to(w, shape[:2])
        for k, inst in enumerate(range(*rows.indices(3))):
            kk = k if shape[0] > 1 else 0
            ref[inst] += (w[kk, :, None] * (a[kk] - c[kk]) * exact_nodes_psi(a[kk], c[kk])).sum(0)
    for n_jobs in (1, 2):
        values, _ = product_shapley(game, n_jobs=n_jobs)
        err = np.abs(values - ref).max() / np.abs(ref).max()
        assert err < 1e-13, (n_jobs, err)


def test_general_games_equal_brute_force():
    """Factors of either sign, above 1, and zero in both states: the exact values by enumeration."""
    rng = np.random.default_rng(11)
    d = 9
    a = rng.uniform(-0.5, 1.5, (3, 12, d))
    c = rng.uniform(-0.5, 1.5, (3, 12, d))
    a[1, 2, 4] = c[1, 2, 4] = 0.0
    g = kx.ProductGame(a, c, rng.normal(size=(3, 12)))
    exact = kx.shapley_values(g, method="exact").values
    np.testing.assert_allclose(product_shapley(g)[0], exact, atol=1e-12)


# --------------------------------------------------------------------------- backends
def test_unknown_backend_is_refused():
    g = kx.ProductGame(np.full((1, 2, 3), 0.5), np.ones((1, 2, 3)), np.ones((1, 2)))
    with pytest.raises(ValueError, match="backend"):
        product_shapley(g, backend="fortran")


@pytest.mark.skipif(HAVE_NUMBA, reason="numba is installed")
def test_numba_backend_without_numba_says_how_to_get_it():
    g = kx.ProductGame(np.full((1, 2, 3), 0.5), np.ones((1, 2, 3)), np.ones((1, 2)))
    with pytest.raises(ImportError, match=r"kernelxai\[numba\]"):
        product_shapley(g, backend="numba")


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed (pip install 'kernelxai[numba]')")
@pytest.mark.parametrize("d", [1, 3, 64, 200])
def test_numba_backend_agrees_with_numpy(d):
    rng = np.random.default_rng(d + 1)
    for name, a, c in _games(rng, d):
        w = rng.normal(size=(1, 40))
        g = kx.ProductGame(a[None], np.ones((1, 40, d)) if c is None else c[None], w)
        ref, base = product_shapley(g, n_jobs=1)
        for n_jobs in (1, 2):
            got, got_base = product_shapley(g, n_jobs=n_jobs, backend="numba", work_elements=997)
            err = np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-300)
            assert err < 1e-13, (name, n_jobs, err)
            np.testing.assert_allclose(got_base, base, rtol=1e-14)


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed (pip install 'kernelxai[numba]')")
def test_numba_backend_through_explain():
    rng = np.random.default_rng(5)
    d, n = 30, 40
    X = rng.normal(size=(n, d))
    model = kx.models.KernelExpansion(X, rng.normal(size=n), kx.kernels.RBF(4.0))
    Xe, B = rng.normal(size=(3, d)), rng.normal(size=(5, d))
    for value, background in (("functional_baseline", None), ("interventional", B)):
        ref = kx.explain(model, Xe, value=value, background=background, method="product")
        got = kx.explain(model, Xe, value=value, background=background, method="product",
                         backend="numba")
        np.testing.assert_allclose(got.values, ref.values, rtol=1e-13, atol=1e-13 * np.abs(ref.values).max())


def test_threads_give_the_bits_of_one_thread():
    """Many small blocks on 1, 2 and 3 threads: the block sums are added in block order, so equal bits."""
    rng = np.random.default_rng(11)
    d, n = 40, 300
    X = rng.normal(size=(n, d))
    model = kx.models.KernelExpansion(X, rng.normal(size=n), kx.kernels.RBF(math.sqrt(d / 2)))
    Xe = rng.normal(size=(4, d))
    game = kx.values.Interventional(model, rng.normal(size=(10, d))).game(Xe)
    ref, ref_base = product_shapley(game, n_jobs=1, work_elements=997)
    for n_jobs in (2, 3):
        for _ in range(3):   # thread timing varies from run to run; the bits must not
            got, got_base = product_shapley(game, n_jobs=n_jobs, work_elements=997)
            np.testing.assert_array_equal(got, ref)
            np.testing.assert_array_equal(got_base, ref_base)
