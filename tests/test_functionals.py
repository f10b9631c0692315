"""Shapley functionals: representer matrices, RKHS distances and the Theorem-6 bound.

Independent truth: the values of ``kx.explain`` (R_i alpha must equal them),
the textbook Shapley formula, the value-function games themselves (M_S alpha +
b = v(S)), and the Riesz representers written out as explicit sums of kernel
functions at synthetic points (x_S, b_{S^c}) with Gram matrices of those points.
"""

import itertools
import warnings
from math import factorial

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kernelxai as kx
from kernelxai import functionals as F
from kernelxai.estimators._product import product_shapley
from kernelxai.games import all_coalitions
from kernelxai.kernels import RBF, Categorical, Laplace, Matern, Product
from kernelxai.models import KernelExpansion
from kernelxai.values import FunctionalBaseline, Interventional, Observational


def make_model(d, n=25, kernel=None, seed=0, intercept=0.3):
    rng = np.random.default_rng(seed)
    Xt = rng.normal(size=(n, d))
    kernel = kernel or RBF(rng.uniform(0.6, 2.0, d))
    return KernelExpansion(Xt, rng.normal(size=n), kernel, intercept=intercept)


VALUES = [("interventional", {}), ("observational", {"eta": 1e-2}),
          ("functional_baseline", {}), ("functional_baseline", {"normalize": True})]
IDS = ["interventional", "observational", "functional-baseline", "fb-normalised"]


# ------------------------------------------------------------ representers
@pytest.mark.parametrize("value,opts", VALUES, ids=IDS)
@pytest.mark.parametrize("kernel", [None, Laplace(1.3),
                                    Product([(RBF([0.8, 1.5]), [0, 2]), (Laplace(1.0), [1, 3])])],
                         ids=["rbf-ard", "laplace", "mixed"])
def test_representers_reproduce_explain_to_1e10(value, opts, kernel):
    model = make_model(4, kernel=kernel, seed=1)
    X = np.random.default_rng(1).normal(size=(7, 4))
    e = kx.explain(model, X, value=value, method="exact", **opts)
    for method in ("exact", "auto"):
        reps = F.shapley_representers(model, X, value, method=method, **opts)
        assert reps.exact and reps.matrices.shape == (4, 7, 25)
        np.testing.assert_allclose(reps.values(model.alpha), e.values, atol=1e-10, rtol=0)


def test_representers_with_own_background_names_and_subset():
    model = make_model(3, seed=2)
    rng = np.random.default_rng(2)
    B, X = rng.normal(size=(11, 3)), pd.DataFrame(rng.normal(size=(5, 3)), columns=["a", "b", "c"])
    for value, opts in (("interventional", {}), ("observational", {"eta": 5e-3})):
        reps = F.shapley_representers(model, X, value, features=["c", "a"], background=B, **opts)
        assert reps.features == [0, 2]
        e = kx.explain(model, X, value=value, background=B, method="exact", **opts)
        np.testing.assert_allclose(reps.values(model.alpha), e.values[:, [0, 2]], atol=1e-10)
        np.testing.assert_allclose(reps["c"] @ model.alpha, e.values[:, 2], atol=1e-10)


def test_shapley_coefficients_are_the_textbook_formula():
    d = 5
    rng = np.random.default_rng(3)
    v = rng.normal(size=2**d)
    phi = np.zeros(d)
    Z = all_coalitions(d)
    index = {tuple(np.flatnonzero(z)): k for k, z in enumerate(Z)}
    for j in range(d):
        others = [i for i in range(d) if i != j]
        for s in range(d):
            for S in itertools.combinations(others, s):
                w = factorial(s) * factorial(d - s - 1) / factorial(d)
                phi[j] += w * (v[index[tuple(sorted(S + (j,)))]] - v[index[S]])
    C = F.shapley_coefficients(d)
    np.testing.assert_allclose(v @ C, phi, atol=1e-14)
    np.testing.assert_allclose(C.sum(axis=0), 0.0, atol=1e-15)   # constants cancel


@pytest.mark.parametrize("value,opts", [v for v in VALUES if v[0] != "observational"],
                         ids=["interventional", "functional-baseline", "fb-normalised"])
def test_product_route_equals_enumeration(value, opts):
    model = make_model(5, n=20, seed=4)
    X = np.random.default_rng(4).normal(size=(6, 5))
    exact = F.shapley_representers(model, X, value, method="exact", **opts)
    prod = F.shapley_representers(model, X, value, method="product", **opts)
    assert prod.method == "product" and prod.exact
    np.testing.assert_allclose(prod.matrices, exact.matrices, atol=1e-13)


def test_product_route_at_d30_matches_explain():
    model = make_model(30, n=15, seed=5)
    X = np.random.default_rng(5).normal(size=(3, 30))
    reps = F.shapley_representers(model, X, "interventional", features=[0, 7, 29])
    assert reps.method == "product"
    e = kx.explain(model, X, value="interventional", method="product")
    np.testing.assert_allclose(reps.values(model.alpha), e.values[:, [0, 7, 29]], atol=1e-10)


def test_unit_games_are_per_training_point_games():
    model = make_model(3, n=9, seed=6)
    X = np.random.default_rng(6).normal(size=(4, 3))
    game = Interventional(model).game(X)
    phi, _ = product_shapley(game.unit_game())
    for j in (0, 5, 8):
        unit = KernelExpansion(model.X_train, np.eye(9)[j], model.kernel)
        e = kx.explain(unit, X, value="interventional", background=model.X_train, method="exact")
        np.testing.assert_allclose(phi.reshape(9, 4, 3)[j], e.values, atol=1e-13)


@pytest.mark.parametrize("max_elements", [2**25, 3000], ids=["batched", "one-by-one"])
def test_coefficient_matrices_reproduce_every_worth(max_elements):
    d = 4
    model = make_model(d, seed=7)
    X = np.random.default_rng(7).normal(size=(5, d))
    Z = all_coalitions(d)
    games = [Interventional(model, max_elements=max_elements).game(X),
             Observational(model, eta=1e-2, max_elements=max_elements).game(X),
             FunctionalBaseline(model, normalize=True).game(X)]
    W = np.random.default_rng(7).normal(size=(len(Z), 2))
    for g in games:
        M = g.coefficient_matrices(Z)
        np.testing.assert_allclose(M @ model.alpha + model.intercept, g(Z), atol=1e-12)
        np.testing.assert_allclose(g.coefficient_matrices(Z, W), np.einsum("kxi,kq->qxi", M, W),
                                   atol=1e-12)
        # repeated coalitions add up
        np.testing.assert_allclose(g.coefficient_matrices(Z[[3, 3, 5]], np.ones((3, 1)))[0],
                                   2 * M[3] + M[5], atol=1e-12)


# ------------------------------------------------------------ sampling
def test_sampled_coalitions_follow_the_shapley_weights():
    d, J = 4, 60000
    Z, W = F.sample_shapley_coalitions(d, [2], J, seed=0)
    present = Z[:J]
    assert present[:, 2].all() and not Z[J:, 2].any()
    np.testing.assert_array_equal(Z[J:], present & ~np.eye(d, dtype=bool)[2])
    np.testing.assert_allclose(W[:J], 1 / J)
    np.testing.assert_allclose(W[J:], -1 / J)
    mu = kx.games.shapley_weights(d)
    S = Z[J:]
    counts = {}
    for row in map(tuple, S.astype(int)):
        counts[row] = counts.get(row, 0) + 1
    assert len(counts) == 2 ** (d - 1)
    for row, c in counts.items():
        p = mu[sum(row)]
        assert abs(c / J - p) < 5 * np.sqrt(p * (1 - p) / J), (row, c / J, p)


def test_sampled_representers_are_unbiased_and_converge():
    model = make_model(4, n=15, seed=8)
    X = np.random.default_rng(8).normal(size=(3, 4))
    exact = F.shapley_representers(model, X, "observational", eta=1e-2).matrices
    errs = []
    for J in (20, 2000):
        est = F.shapley_representers(model, X, "observational", eta=1e-2, method="sampled",
                                     n_coalitions=J, seed=1)
        assert not est.exact and est.n_coalitions == J and "estimate" in repr(est)
        errs.append(np.abs(est.matrices - exact).max())
    assert errs[1] < errs[0] / 3
    mean = np.mean([F.shapley_representers(model, X, "interventional", method="sampled",
                                           n_coalitions=10, seed=s).matrices for s in range(400)], 0)
    exact_i = F.shapley_representers(model, X, "interventional").matrices
    assert np.abs(mean - exact_i).max() < 0.1 * np.abs(exact_i).max()


@settings(max_examples=25, deadline=None)
@given(d=st.integers(2, 5), seed=st.integers(0, 10**6))
def test_efficiency_of_representers_property(d, seed):
    model = make_model(d, n=8, seed=seed)
    X = np.random.default_rng(seed).normal(size=(3, d))
    reps = F.shapley_representers(model, X, "interventional")
    g = Interventional(model).game(X)
    np.testing.assert_allclose(reps.values(model.alpha).sum(1), g.full_value - g.empty_value,
                               atol=1e-11)


# ------------------------------------------------------------ RKHS distances
def _explicit_representer(kernel, B, x, i, weights_of):
    """Points and weights of g_{x,i} = sum_S mu (nu_{x,S+i} - nu_{x,S}), nu = sum_b w_b k(., (x_S, b_{S^c}))."""
    d = len(x)
    pts, wts = [], []
    for s in range(d):
        mu = factorial(s) * factorial(d - s - 1) / factorial(d)
        for S in itertools.combinations([l for l in range(d) if l != i], s):
            for T, sign in ((tuple(sorted(S + (i,))), mu), (S, -mu)):
                w = weights_of(x, T)
                for b, wb in zip(B, w):
                    z = b.copy()
                    z[list(T)] = x[list(T)]
                    pts.append(z)
                    wts.append(sign * wb)
    return np.array(pts), np.array(wts)


def _explicit_distance(kernel, B, x, xp, i, weights_of):
    P1, W1 = _explicit_representer(kernel, B, x, i, weights_of)
    P2, W2 = _explicit_representer(kernel, B, xp, i, weights_of)
    P, W = np.vstack([P1, P2]), np.concatenate([W1, -W2])
    return np.sqrt(max(W @ kernel.gram(P, P) @ W, 0.0))


def test_distances_equal_explicit_riesz_representers():
    d, eta = 3, 1e-2
    model = make_model(d, n=20, seed=9)
    rng = np.random.default_rng(9)
    B = rng.normal(size=(7, d))
    X = rng.normal(size=(3, d))
    Xp = X + 0.3 * rng.normal(size=X.shape)
    k, m = model.kernel, len(B)

    def uniform(x, T):
        return np.full(m, 1.0 / m)

    def cme(x, T):
        if len(T) in (0, d):
            return np.full(m, 1.0 / m)
        mask = np.zeros(d, bool)
        mask[list(T)] = True
        return np.linalg.solve(k.gram(B, B, mask) + m * eta * np.eye(m), k.gram(B, x[None], mask))[:, 0]

    for value, weights_of, methods in (("interventional", uniform, ("quadrature", "exact")),
                                       ("observational", cme, ("exact",))):
        truth = np.array([[_explicit_distance(k, B, X[r], Xp[r], i, weights_of) for i in range(d)]
                          for r in range(len(X))])
        for method in methods:
            got = F.functional_distances(model, X, Xp, value, background=B, method=method,
                                         **({"eta": eta} if value == "observational" else {}))
            np.testing.assert_allclose(got, truth, atol=1e-10, err_msg=f"{value} {method}")


def test_distance_bounds_the_change_of_shapley_values_cauchy_schwarz():
    d = 4
    model = make_model(d, n=30, seed=10)
    rng = np.random.default_rng(10)
    X = rng.normal(size=(8, d))
    Xp = X + rng.normal(scale=0.5, size=X.shape)
    norm_f = np.sqrt(model.alpha @ model.kernel.gram(model.X_train) @ model.alpha)
    for value, opts in (("interventional", {}), ("observational", {"eta": 1e-3})):
        dist = F.functional_distances(model, X, Xp, value, **opts)
        dphi = np.abs(kx.explain(model, X, value=value, method="exact", **opts).values
                      - kx.explain(model, Xp, value=value, method="exact", **opts).values)
        assert np.all(dphi <= norm_f * dist + 1e-10)
        assert np.all(dist > 0)
    # identical points: zero distance
    np.testing.assert_allclose(F.functional_distances(model, X, X), 0.0, atol=1e-7)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_theorem6_bound_holds_on_sampled_nearby_pairs(seed):
    rng = np.random.default_rng(seed)
    d, ell, eta = 3, float(rng.uniform(0.5, 1.5)), 1e-2
    kernel = RBF(ell)
    Xt = rng.normal(size=(25, d))
    model = KernelExpansion(Xt, rng.normal(size=25), kernel)
    X = np.repeat(rng.normal(size=(6, d)), 4, axis=0)
    deltas = np.repeat(np.array([[1e-4, 1e-2, 0.1, 1.0]]), 6, axis=0).ravel()
    Xp = X + np.sqrt(deltas)[:, None] * rng.uniform(-1, 1, size=X.shape)
    m_gamma = np.nanmax(F.cme_gamma_norms(model, eta=eta))
    for value, opts in (("interventional", {}), ("observational", {"eta": eta})):
        sq = F.functional_distances(model, X, Xp, value, **opts) ** 2
        paper = F.theorem6_bound(X, Xp, kernel, value, m_gamma=m_gamma)
        tight = F.theorem6_bound(X, Xp, kernel, value, m_gamma=m_gamma, form="tight")
        proof = F.theorem6_bound(X, Xp, kernel, value, m_gamma=m_gamma, constant="proof")
        assert np.all(tight <= paper + 1e-15) and np.allclose(proof, 2 * paper)
        assert np.all(sq <= tight[:, None] + 1e-12), value
    # the interventional closed form for one lengthscale, eq. (25)
    delta = np.max((X - Xp) ** 2, axis=1)
    np.testing.assert_allclose(F.theorem6_bound(X, Xp, kernel),
                               4 * (1 - np.exp(-d * delta / (2 * ell**2))), rtol=1e-9)


def test_cme_gamma_norm_bounds_the_embedding_norm():
    """||mu_hat(x)||_{H_{S^c}} <= ||mu_hat||_Gamma ||psi_x|| for every x (Micchelli-Pontil)."""
    d, eta = 3, 1e-2
    model = make_model(d, n=20, seed=11)
    norms = F.cme_gamma_norms(model, eta=eta)
    assert np.isnan(norms[0]) and np.isnan(norms[-1]) and np.all(norms[1:-1] > 0)
    k, B, m = model.kernel, model.X_train, 20
    X = np.random.default_rng(11).normal(size=(50, d)) * 2
    Z = all_coalitions(d)
    for s in range(1, 2**d - 1):
        gamma = np.linalg.solve(k.gram(B, B, Z[s]) + m * eta * np.eye(m), k.gram(B, X, Z[s]))
        emb = np.einsum("bx,bc,cx->x", gamma, k.gram(B, B, ~Z[s]), gamma)
        assert np.all(emb <= norms[s] + 1e-12)


# ------------------------------------------------------------ bad input
def test_bad_input():
    model = make_model(3, seed=12)
    X = np.random.default_rng(12).normal(size=(4, 3))
    with pytest.raises(ValueError, match="unknown feature 'z'"):
        F.shapley_representers(model, X, features=["z"])
    with pytest.raises(ValueError, match="out of range"):
        F.shapley_representers(model, X, features=[3])
    with pytest.raises(ValueError, match="features is empty"):
        F.shapley_representers(model, X, features=[])
    with pytest.raises(TypeError, match="feature names or integer"):
        F.shapley_representers(model, X, features=[1.5])
    with pytest.raises(ValueError, match="available for the value functions"):
        F.shapley_representers(model, X, "marginal")
    with pytest.raises(ValueError, match="not a product game"):
        F.shapley_representers(model, X, "observational", method="product")
    with pytest.raises(ValueError, match="method must be one of|method"):
        F.shapley_representers(model, X, method="banzhaf")
    with pytest.raises(ValueError, match="Nystrom"):
        F.shapley_representers(model, X, "observational", landmarks=5)
    with pytest.raises(ValueError, match="groups"):
        F.shapley_representers(model, X, Interventional(model, groups=[[0, 1], [2]]))
    with pytest.raises(TypeError, match="unexpected options"):
        F.shapley_representers(model, X, "interventional", eta=1e-3)
    matern = make_model(3, kernel=Matern(1.0, 1.5), seed=12)
    with pytest.raises(TypeError, match="coefficient"):
        F.shapley_representers(matern, X, "interventional")
    with pytest.raises(ValueError, match="form='product'"):
        F.shapley_representers(matern, X, "observational")
    with pytest.raises(ValueError, match="X and X_prime must have the same shape"):
        F.functional_distances(model, X, X[:2])
    with pytest.raises(ValueError, match="no finite RKHS norm"):
        F.functional_distances(model, X, X, "functional_baseline")
    with pytest.raises(ValueError, match="quadrature"):
        F.functional_distances(model, X, X, "observational", method="quadrature")
    with pytest.raises(ValueError, match="NaN|finite"):
        F.functional_distances(model, X, np.full_like(X, np.nan))
    with pytest.raises(ValueError, match="m_gamma"):
        F.theorem6_bound(X, X, RBF(1.0), "observational")
    with pytest.raises(ValueError, match="form='tight'"):
        F.theorem6_bound(X, X, Laplace(1.0))
    with pytest.raises(ValueError, match="alpha must have"):
        F.shapley_representers(model, X).values(np.ones(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.theorem6_bound(X, X + 0.1, Categorical(), form="tight")
