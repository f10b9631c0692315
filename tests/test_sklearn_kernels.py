"""Every kernel scikit-learn offers (issue #11, item 6): exact conversion and exact explanations.

Each model's expansion must predict as the model does (1e-10 on held-out
points), and its interventional values must equal brute-force enumeration of
model calls on the same background (1e-9); sums and products of product
kernels must stay on the product routes (``"product"`` == ``"exact"``).
"""

import itertools
import math
import warnings

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process import kernels as gk
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge

import kernelxai as kx
from kernelxai.games import ProductGame, SumOfProductGames, all_coalitions
from kernelxai.kernels import RBF, CoalitionGrams, Constant, Laplace, Linear, Matern, Product, ProductOf, SumKernel
from kernelxai.kernels._from_sklearn import Pairwise, SklearnKernel, gp_kernel
from kernelxai.models import KernelExpansion, as_expansion

RNG = np.random.default_rng(11)
D = 4
X = RNG.normal(size=(36, D))
Y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] - 0.5 * X[:, 3] + 0.1 * RNG.normal(size=36)
XE = RNG.normal(size=(4, D))          # held-out points to explain
BG = RNG.normal(size=(6, D))          # background


def brute_force(predict, XE, B):
    """Exact Shapley values of the interventional game (1/m) sum_b f(x_S, b_{S^c}) by enumeration."""
    n, d = XE.shape
    worth = {}
    for bits in itertools.product([False, True], repeat=d):
        S = np.array(bits)
        Z = np.repeat(B[None], n, axis=0)
        Z[:, :, S] = XE[:, None, S]
        worth[bits] = predict(Z.reshape(-1, d)).reshape(n, len(B)).mean(axis=1)
    phi = np.zeros((n, d))
    for bits, v in worth.items():
        s = sum(bits)
        for j in range(d):
            if not bits[j]:
                with_j = tuple(True if i == j else b for i, b in enumerate(bits))
                phi[:, j] += math.factorial(s) * math.factorial(d - s - 1) / math.factorial(d) \
                    * (worth[with_j] - v)
    return phi, worth[(False,) * d]


def check_efficiency(e, f):
    np.testing.assert_allclose(e.values.sum(axis=1) + e.base_values, f, rtol=0, atol=1e-9)


def gp(kernel, X=X, Y=Y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return GaussianProcessRegressor(kernel, alpha=1e-2, **kw).fit(X, Y)


def assert_same_predictions(model, Z=XE):
    f = model.predict(Z)
    np.testing.assert_allclose(as_expansion(model).predict(Z), f, rtol=0,
                               atol=1e-10 * max(1.0, np.abs(f).max()))


# --------------------------------------------------------------------------- #
# kernels
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("nu", [0.3, 1.0, 2.0, 3.7, np.inf, 0.5, 1.5, 2.5])
@pytest.mark.parametrize("ls", [0.8, [0.5, 1.0, 2.0, 1.5]])
def test_matern_any_nu_equals_sklearn(nu, ls):
    # regression: Matern accepted only nu in {0.5, 1.5, 2.5}
    A, B = RNG.normal(size=(9, D)), 2 * RNG.normal(size=(7, D))
    ref = gk.Matern(length_scale=ls, nu=nu)
    np.testing.assert_allclose(Matern(ls, nu).gram(A, B), ref(A, B), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(Matern(ls, nu).gram(A), ref(A), rtol=1e-12, atol=1e-14)
    # K_S for a coalition from the cache equals the restricted kernel
    grams = CoalitionGrams(Matern(ls, nu), A, B)
    S = np.array([True, False, True, True])
    np.testing.assert_allclose(grams(S[None])[0], Matern(ls, nu).gram(A, B, subset=S), atol=1e-12)


def test_matern_inf_is_rbf_and_bad_nu():
    A = RNG.normal(size=(5, D))
    np.testing.assert_allclose(Matern([1.0, 2.0, 0.5, 1.0], np.inf).gram(A),
                               RBF([1.0, 2.0, 0.5, 1.0]).gram(A), atol=1e-15)
    for bad in (0.0, -1.0, np.nan, "smooth", None, True):
        with pytest.raises(ValueError, match="nu > 0"):
            Matern(1.0, nu=bad)


def test_product_of_product_kernels_is_a_product_kernel():
    A, B = RNG.normal(size=(5, D)), RNG.normal(size=(6, D))
    k1, k2 = RBF([1.0, 2.0, 0.7, 1.3]), Laplace(1.5)
    k = ProductOf([k1, k2, Constant()])
    assert k.is_product and k.n_features == D
    np.testing.assert_allclose(k.feature_grams(A, B), k1.feature_grams(A, B) * k2.feature_grams(A, B))
    np.testing.assert_allclose(k.gram(A, B), k1.gram(A, B) * k2.gram(A, B), atol=1e-15)
    np.testing.assert_allclose(k.restrict([0, 2]).gram(A[:, [0, 2]], B[:, [0, 2]]),
                               k.gram(A, B, subset=[0, 2]), atol=1e-15)
    with pytest.raises(TypeError, match="product kernels"):
        ProductOf([k1, Matern(1.0)])
    with pytest.raises(ValueError, match="different numbers of features"):
        ProductOf([RBF([1.0, 2.0]), RBF([1.0, 2.0, 3.0])])
    with pytest.raises(ValueError, match="at least one"):
        ProductOf([])


def test_sum_kernel_gram_restrict_and_coalition_grams():
    A, B = RNG.normal(size=(5, D)), RNG.normal(size=(6, D))
    k = SumKernel([(0.5, RBF(1.2)), (2.0, Product([(Laplace([1.0, 2.0]), [0, 1]), (RBF(1.0), [2, 3])])),
                   (0.3, Constant())])
    assert not k.is_product and k.is_sum_of_products
    ref = 0.5 * RBF(1.2).gram(A, B) + 2.0 * k.terms[1][1].gram(A, B) + 0.3
    np.testing.assert_allclose(k.gram(A, B), ref, atol=1e-14)
    S = [1, 3]
    np.testing.assert_allclose(k.restrict(S).gram(A[:, S], B[:, S]), k.gram(A, B, subset=S), atol=1e-14)
    Z = all_coalitions(D)
    cached = CoalitionGrams(k, A, B)(Z)
    for z, K in zip(Z, cached):
        np.testing.assert_allclose(K, k.gram(A, B, subset=z), atol=1e-13)
    with pytest.raises(ValueError, match=">= 0"):
        SumKernel([(-1.0, RBF(1.0))])
    with pytest.raises(TypeError, match="product kernels"):
        SumKernel([(1.0, Matern(1.0))])
    with pytest.raises(TypeError, match="pair"):
        SumKernel([RBF(1.0)])
    with pytest.raises(ValueError, match="at least one"):
        SumKernel([])


def test_pairwise_and_sklearn_kernel_bad_input():
    with pytest.raises(ValueError, match="kernel must be a callable or one of"):
        Pairwise("no-such-kernel")
    with pytest.raises(ValueError, match="precomputed"):
        Pairwise("precomputed")
    with pytest.raises(TypeError, match="restricted"):
        Pairwise("poly").restrict([0])
    with pytest.raises(TypeError, match="scikit-learn Gaussian-process kernel"):
        SklearnKernel(RBF(1.0))
    # a WhiteKernel anywhere contributes nothing: B is always passed to the kernel
    k = SklearnKernel(gk.RationalQuadratic() + gk.WhiteKernel(5.0))
    np.testing.assert_allclose(k.gram(XE), gk.RationalQuadratic()(XE), atol=1e-15)


# --------------------------------------------------------------------------- #
# KernelRidge: every kernel string and callables
# --------------------------------------------------------------------------- #
def _rq(a, b, scale=1.0):
    return 1.0 / (1.0 + np.sum((a - b) ** 2) / scale)


KRR = {
    "linear": dict(kernel="linear"),
    "poly": dict(kernel="poly", degree=2, gamma=0.3, coef0=1.0),
    "polynomial": dict(kernel="polynomial", degree=3, gamma=0.2),
    "sigmoid": dict(kernel="sigmoid", gamma=0.1, coef0=0.2),
    "cosine": dict(kernel="cosine"),
    "chi2": dict(kernel="chi2", gamma=0.5),
    "additive_chi2": dict(kernel="additive_chi2"),
    "callable": dict(kernel=_rq, kernel_params={"scale": 2.0}),
    "rbf_kernel_params_ignored": dict(kernel="rbf", gamma=0.3, kernel_params={"gamma": 9.0}),
}


def _krr_data(name):
    # chi2 kernels are defined for non-negative features
    if "chi2" in name:
        return np.abs(X), np.abs(XE), np.abs(BG)
    return X, XE, BG


@pytest.mark.filterwarnings("ignore:Singular matrix")
@pytest.mark.parametrize("name", sorted(KRR))
def test_kernel_ridge_every_kernel_is_explained_exactly(name):
    # regression: KernelRidge() (kernel="linear"), "poly", "sigmoid", "cosine", "chi2" and callables
    # were refused
    Xf, Xe, B = _krr_data(name)
    model = SkKernelRidge(alpha=0.5, **KRR[name]).fit(Xf, Y)
    assert_same_predictions(model, Xe)
    e = kx.explain(model, Xe, value="interventional", background=B)
    phi, base = brute_force(model.predict, Xe, B)
    np.testing.assert_allclose(e.values, phi, rtol=0, atol=1e-9)
    np.testing.assert_allclose(e.base_values, base, rtol=0, atol=1e-9)
    check_efficiency(e, model.predict(Xe))


def test_kernel_ridge_default_linear_in_closed_form():
    model = SkKernelRidge().fit(X, Y)              # scikit-learn's default kernel is "linear"
    exp = as_expansion(model)
    assert isinstance(exp.kernel, Linear)
    w = X.T @ np.ravel(model.dual_coef_)
    np.testing.assert_allclose(exp.predict(XE), XE @ w, atol=1e-12)
    game = kx.values.Interventional(model, background=BG).game(XE)
    assert isinstance(game, ProductGame) and game.n_terms() == D + 1
    assert game.meta["route"].startswith("closed form")
    product = kx.shapley_values(game, method="product")
    exact = kx.shapley_values(game, method="exact")
    np.testing.assert_allclose(product.values, w * (XE - BG.mean(axis=0)), rtol=0, atol=1e-12)
    np.testing.assert_allclose(exact.values, product.values, rtol=0, atol=1e-12)


def test_kernel_ridge_non_product_kernels_have_no_observational_route():
    model = SkKernelRidge(kernel="poly", degree=2).fit(X, Y)
    assert isinstance(as_expansion(model).kernel, Pairwise)
    with pytest.raises(TypeError, match="Pairwise"):
        kx.explain(model, XE, value="observational")
    with pytest.raises(TypeError, match="product kernel"):
        kx.explain(model, XE, value="functional_baseline")
    with pytest.raises(TypeError, match="precomputed"):
        as_expansion(SkKernelRidge(kernel="precomputed").fit(X @ X.T, Y))


# --------------------------------------------------------------------------- #
# Gaussian-process kernels
# --------------------------------------------------------------------------- #
C = gk.ConstantKernel
ARD = [0.8, 1.5, 1.2, 2.0]
PRODUCT_ROUTE = {                  # sums and products of product kernels: product games
    "RBF+RBF": C(1.5) * gk.RBF(1.0) + C(0.5) * gk.RBF(3.0),
    "C+RBF": C(0.7) + gk.RBF(1.3),
    "RBF*RBF": gk.RBF(ARD) * gk.RBF(2.0),
    "C*RBF*laplacian+White": C(2.0) * gk.RBF(ARD) * gk.PairwiseKernel(0.4, metric="laplacian")
    + gk.WhiteKernel(0.1),
    "C*(RBF+RBF)+White": C(1.3) * (gk.RBF(1.0) + gk.RBF(ARD)) + gk.WhiteKernel(0.2),
    "RBF**2+C": gk.RBF(ARD) ** 2 + C(0.3),
    "Matern(inf)*C": gk.Matern(1.5, nu=np.inf) * C(2.0),
}
MODEL_CALLS = {                    # not product kernels: exact kernel, model calls
    "RationalQuadratic": gk.RationalQuadratic(1.2, alpha=0.7),
    "DotProduct": gk.DotProduct(0.5),
    "DotProduct**2+White": gk.DotProduct(1.0) ** 2 + gk.WhiteKernel(0.3),
    "Matern(1.0)": C(1.5) * gk.Matern(ARD, nu=1.0),
    "Matern(0.5)+RBF": gk.Matern(1.0, nu=0.5) + gk.RBF(2.0),
    "ExpSineSquared*RBF": gk.ExpSineSquared(2.0, periodicity=6.0) * gk.RBF(3.0),
}


@pytest.mark.parametrize("name", sorted(PRODUCT_ROUTE))
def test_gp_sums_and_products_of_product_kernels_stay_exact_on_product_routes(name):
    # regression: RBF + RBF, C + RBF and RBF * RBF were refused
    model = gp(PRODUCT_ROUTE[name], normalize_y=True, optimizer=None)
    assert_same_predictions(model)
    kernel = as_expansion(model).kernel
    assert kernel.is_product or kernel.is_sum_of_products
    game = kx.values.Interventional(model, background=BG).game(XE)
    assert isinstance(game, ProductGame)
    if not kernel.is_product:
        assert isinstance(game, SumOfProductGames)
        assert game.meta["route"].startswith("sum of product games")
    e = kx.explain(model, XE, value="interventional", background=BG, method="product")
    ex = kx.explain(model, XE, value="interventional", background=BG, method="exact")
    phi, base = brute_force(model.predict, XE, BG)
    np.testing.assert_allclose(e.values, phi, rtol=0, atol=1e-9)
    np.testing.assert_allclose(ex.values, phi, rtol=0, atol=1e-9)
    np.testing.assert_allclose(e.base_values, base, rtol=0, atol=1e-9)
    check_efficiency(e, model.predict(XE))
    # the functional baseline is a (sum of) product game(s) too
    for normalize in (False, True):
        fp = kx.explain(model, XE, value="functional_baseline", method="product", normalize=normalize)
        fe = kx.explain(model, XE, value="functional_baseline", method="exact", normalize=normalize)
        np.testing.assert_allclose(fp.values, fe.values, rtol=0, atol=1e-9)
        check_efficiency(fp, model.predict(XE))


@pytest.mark.parametrize("name", sorted(MODEL_CALLS))
def test_gp_non_product_kernels_go_through_model_calls_exactly(name):
    # regression: RationalQuadratic and DotProduct were refused
    model = gp(MODEL_CALLS[name], optimizer=None)
    assert_same_predictions(model)
    e = kx.explain(model, XE, value="interventional", background=BG)
    phi, base = brute_force(model.predict, XE, BG)
    np.testing.assert_allclose(e.values, phi, rtol=0, atol=1e-9)
    np.testing.assert_allclose(e.base_values, base, rtol=0, atol=1e-9)
    check_efficiency(e, model.predict(XE))
    assert "model calls" in e.meta["route"]


def test_gp_with_white_kernel_is_explained_exactly():
    # the white-noise kernel is zero between distinct points: not in the posterior mean at new points
    model = gp(C(1.0) * gk.RBF([1.0] * D) + gk.WhiteKernel(0.5), normalize_y=True, random_state=0)
    assert isinstance(model.kernel_.k2, gk.WhiteKernel) and model.kernel_.k2.noise_level > 0
    exp = as_expansion(model)
    assert type(exp.kernel) is RBF
    Z = RNG.normal(size=(25, D))
    np.testing.assert_allclose(exp.predict(Z), model.predict(Z), rtol=0, atol=1e-10)
    e = kx.explain(model, XE, value="interventional", background=BG)
    np.testing.assert_allclose(e.values, brute_force(model.predict, XE, BG)[0], rtol=0, atol=1e-9)


def test_gp_five_features_sum_kernel_and_groups():
    X5 = RNG.normal(size=(30, 5))
    Y5 = X5[:, 0] * X5[:, 1] + np.cos(X5[:, 4])
    model = gp(C(1.0) * gk.RBF([1.0, 1.4, 0.9, 2.0, 1.1]) + C(0.3) * gk.RBF(2.5) + C(0.2), X=X5, Y=Y5,
               optimizer=None)
    Xe, B = RNG.normal(size=(3, 5)), RNG.normal(size=(5, 5))
    e = kx.explain(model, Xe, value="interventional", background=B, method="product")
    np.testing.assert_allclose(e.values, brute_force(model.predict, Xe, B)[0], rtol=0, atol=1e-9)
    groups = [[0, 1], [2], [3, 4]]
    gp_ = kx.explain(model, Xe, value="interventional", background=B, method="product", groups=groups)
    ge = kx.explain(model, Xe, value="interventional", background=B, method="exact", groups=groups)
    np.testing.assert_allclose(gp_.values, ge.values, rtol=0, atol=1e-9)
    check_efficiency(gp_, model.predict(Xe))


def test_gp_kernel_conversion_shapes():
    scale, k = gp_kernel(C(2.0) * gk.RBF(1.0) + gk.WhiteKernel(), D)
    assert scale == 2.0 and type(k) is RBF
    scale, k = gp_kernel(gk.RBF(ARD) * gk.RBF(1.0), D)
    assert scale == 1.0 and isinstance(k, ProductOf)
    scale, k = gp_kernel(C(0.5) + gk.RBF(1.0), D)
    assert isinstance(k, SumKernel) and isinstance(k.terms[0][1], Constant) and k.terms[0][0] == 0.5
    scale, k = gp_kernel(C(3.0) * gk.Matern(1.0, nu=0.7) + gk.WhiteKernel(), D)
    assert scale == 3.0 and isinstance(k, Matern) and k.nu == 0.7
    scale, k = gp_kernel(gk.WhiteKernel(), D)
    assert scale == 0.0
    assert isinstance(gp_kernel(gk.RationalQuadratic(), D)[1], SklearnKernel)


def test_gp_unknown_kernel_piece_is_named():
    class Custom(gk.RBF):
        pass

    with pytest.raises(TypeError, match="Custom"):
        gp_kernel(C(1.0) * Custom(1.0) + gk.RBF(1.0), D)
    with pytest.raises(TypeError, match="CompoundKernel"):
        gp_kernel(gk.CompoundKernel([gk.RBF(1.0)]), D)
    with pytest.raises(TypeError, match="scikit-learn kernel"):
        gp_kernel(RBF(1.0), D)


def test_sum_kernel_observational_is_regression_form_or_clear_error():
    model = gp(C(0.5) * gk.RBF(1.3) + C(0.5) * gk.RBF(1.3), optimizer=None)
    try:
        sum_game = kx.values.Observational(model, background=BG).game(XE)
    except TypeError as err:
        assert "SumKernel" in str(err)
        return
    # the App. C regression form with K_S of the sum: two equal halves are the kernel itself
    exp = as_expansion(model)
    assert [w for w, _ in exp.kernel.terms] == [0.5, 0.5]
    single = KernelExpansion(exp.X_train, exp.alpha, RBF(1.3), exp.intercept)
    ref = kx.values.Observational(single, background=BG, form="regression").game(XE)
    Z = all_coalitions(D)
    np.testing.assert_allclose(sum_game(Z), ref(Z), rtol=0, atol=1e-9)


# --------------------------------------------------------------------------- #
# the sum-of-product-games class
# --------------------------------------------------------------------------- #
def test_sum_of_product_games_adds_worths_and_terms():
    r = np.random.default_rng(3)
    g1 = ProductGame(r.random((2, 3, D)), r.random((2, 3, D)), r.normal(size=(2, 3)))
    g2 = ProductGame(r.random((1, 2, D)), r.random((1, 2, D)), r.normal(size=(1, 2)), n_instances=2)
    s = SumOfProductGames([g1, g2], weights=[2.0, -0.5])
    Z = all_coalitions(D)
    np.testing.assert_allclose(s(Z), 2.0 * g1(Z) - 0.5 * g2(Z), atol=1e-14)
    assert s.n_terms() == 5
    np.testing.assert_allclose(kx.shapley_values(s, method="product").values,
                               kx.shapley_values(s, method="exact").values, atol=1e-12)
    grouped = s.grouped([[0, 1], [2, 3]])
    assert isinstance(grouped, SumOfProductGames) and grouped.n_players == 2
    np.testing.assert_allclose(kx.shapley_values(grouped, method="product").values,
                               kx.shapley_values(grouped, method="exact").values, atol=1e-12)
    with pytest.raises(TypeError, match="product games"):
        SumOfProductGames([g1, kx.TabularGame(np.zeros(2**D))])
    with pytest.raises(ValueError, match="same"):
        SumOfProductGames([g1, ProductGame(r.random((2, 3, 3)), r.random((2, 3, 3)), r.random((2, 3)))])
    with pytest.raises(ValueError, match="one per game"):
        SumOfProductGames([g1, g2], weights=[1.0])
    with pytest.raises(ValueError, match="at least one"):
        SumOfProductGames([])


@pytest.mark.parametrize("value,options", [("interventional", {"background": BG}),
                                           ("functional_baseline", {}),
                                           ("functional_baseline", {"normalize": True})])
def test_sum_kernel_games_are_linear_in_the_coefficients(value, options):
    # v(S)(x) = (M_S alpha)[x] + b for the sum of summand games (Shapley functionals build on it)
    model = gp(C(0.4) + C(1.5) * gk.RBF(1.0) + C(0.5) * gk.RBF(ARD), normalize_y=True, optimizer=None)
    exp = as_expansion(model)
    vf = kx.values.Interventional(exp, **options) if value == "interventional" \
        else kx.values.FunctionalBaseline(exp, **options)
    game = vf.game(XE)
    assert isinstance(game, kx.games.LinearInCoefficients)
    Z = all_coalitions(D)
    M = game.coefficient_matrices(Z)
    np.testing.assert_allclose(M @ exp.alpha + exp.intercept, game(Z), rtol=0, atol=1e-10)
    W = np.random.default_rng(0).normal(size=(len(Z), 2))
    np.testing.assert_allclose(game.coefficient_matrices(Z, W), np.einsum("cq,cai->qai", W, M),
                               rtol=0, atol=1e-10)
