"""The exact observational (CME) route along the coalition lattice gives the previous route's numbers.

The lattice route (``ObservationalGame._walk``: coalition Grams built one
elementwise product at a time, factorised in place) is used from
``WALK_ROWS`` background rows on; here the threshold is lowered so small cases
take it, and its worths are compared with the previous route (Grams from the
cached per-feature tensor, batched or one coalition at a time) and with
RKHS-SHAP Prop. 3 / App. C written out with explicit matrices.
"""

import warnings

import numpy as np
import pytest

import kernelxai as kx
import kernelxai.values._observational as obs
from kernelxai.games import all_coalitions, tabulate
from kernelxai.kernels import RBF, Categorical, CoalitionGrams, Laplace, Matern, Product
from kernelxai.kernels._coalition_grams import LatticeGrams, lattice_walk
from kernelxai.models import KernelExpansion
from kernelxai.values import Observational

ETA = 1e-2
WALK = obs.ObservationalGame._walk


def make_model(d, n, kernel, seed, categorical=()):
    rng = np.random.default_rng(seed)
    Xt = rng.normal(size=(n, d))
    for j in categorical:
        Xt[:, j] = rng.integers(0, 3, n)
    return KernelExpansion(Xt, rng.normal(size=n), kernel, intercept=0.4)


def worths(model, B, X, walk, monkeypatch, **opts):
    """The whole table of worths with the lattice route on (walk=True) or off."""
    monkeypatch.setattr(obs, "WALK_ROWS", 0 if walk else 10**9)
    calls = []

    def spy(self, Z):
        out = WALK(self, Z)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(obs.ObservationalGame, "_walk", spy)
    table = tabulate(Observational(model, B, ETA, **opts).game(X))
    return table, calls


def prop3(model, B, X, S):
    k, m = model.kernel, len(B)
    gamma = np.linalg.solve(k.gram(B, B, S) + m * ETA * np.eye(m), k.gram(B, X, S))
    return model.intercept + model.alpha @ (k.gram(model.X_train, X, S) * (k.gram(model.X_train, B, ~S) @ gamma))


def appendix_c(model, B, X, S):
    k, m = model.kernel, len(B)
    beta = np.linalg.solve(k.gram(B, B, S) + m * ETA * np.eye(m), model.predict(B) - model.intercept)
    return model.intercept + k.gram(X, B, S) @ beta


KERNELS = {
    "rbf-ard": (RBF([0.8, 1.2, 2.0, 1.0]), "auto", ()),
    "laplace": (Laplace(0.9), "auto", ()),
    "product-categorical": (Product([(RBF([1.0, 2.0]), [0, 3]), (Categorical(), [1, 2])]), "auto", (1, 2)),
    "rbf-regression": (RBF(1.3), "regression", ()),
    "matern-1.5": (Matern(1.3, 1.5), "auto", ()),
    "matern-2.5-ard": (Matern([1.0, 2.0, 0.7, 1.5], 2.5), "auto", ()),
    "sum": (kx.kernels.SumKernel([(0.7, RBF(1.0)), (0.3, Laplace([1.0, 2.0, 0.5, 1.0]))]), "regression", ()),
}


@pytest.mark.parametrize("own_background", [True, False], ids=["training-background", "separate-background"])
@pytest.mark.parametrize("name", list(KERNELS))
def test_lattice_route_equals_previous_route(name, own_background, monkeypatch):
    kernel, form, categorical = KERNELS[name]
    d = 4
    model = make_model(d, 40, kernel, seed=3, categorical=categorical)
    rng = np.random.default_rng(4)
    B = None if own_background else model.X_train[rng.choice(40, 33, replace=False)] + 0.1 * rng.normal(size=(33, d))
    if not own_background and categorical:
        B[:, list(categorical)] = np.round(B[:, list(categorical)])
    X = rng.normal(size=(6, d))
    new, calls = worths(model, B, X, True, monkeypatch, form=form)
    old, _ = worths(model, B, X, False, monkeypatch, form=form)
    assert calls == [name != "sum"]          # sums of kernels keep the cached-tensor route
    np.testing.assert_allclose(new, old, rtol=0, atol=1e-12)
    Bm = model.X_train if B is None else B
    formula = prop3 if Observational(model, B, ETA, form=form).form == "product" else appendix_c
    Z = all_coalitions(d)
    for mask in range(1, 2**d - 1):
        np.testing.assert_allclose(new[mask], formula(model, Bm, X, Z[mask]), rtol=0, atol=1e-12)


@pytest.mark.parametrize("own_background", [True, False])
def test_lattice_route_chunks_points_within_max_elements(own_background, monkeypatch):
    d = 5
    model = make_model(d, 30, RBF([0.8, 1.2, 2.0, 1.0, 1.5]), seed=5)
    rng = np.random.default_rng(5)
    B = None if own_background else rng.normal(size=(24, d))
    X = rng.normal(size=(7, d))
    m, n, c = 30 if own_background else 24, 30, 2**d - 2
    cache = LatticeGrams.elements(m, m, d, True, d - 2)
    if not own_background:
        cache += LatticeGrams.elements(m, n, d, False, d - 2)
    per_point = c * m + (m + n) * d
    budget = max(cache, 2 * per_point)     # two points at a time: four chunks
    whole, calls = worths(model, B, X, True, monkeypatch)
    chunked, chunk_calls = worths(model, B, X, True, monkeypatch, max_elements=budget)
    assert calls == chunk_calls == [True]
    np.testing.assert_allclose(chunked, whole, rtol=0, atol=1e-13)
    # too small for the lattice cache: the previous one-coalition-at-a-time route, same numbers
    small, small_calls = worths(model, B, X, True, monkeypatch, max_elements=3000)
    assert small_calls == [False]
    np.testing.assert_allclose(small, whole, rtol=0, atol=1e-12)


def test_lattice_route_on_sampled_coalitions(monkeypatch):
    """A few coalitions (as KernelSHAP asks for): only they and their complements are visited."""
    d = 6
    model = make_model(d, 35, RBF(1.1), seed=6)
    X = np.random.default_rng(6).normal(size=(4, d))
    Z = np.random.default_rng(7).random((9, d)) < 0.5
    monkeypatch.setattr(obs, "WALK_ROWS", 0)
    new = Observational(model, eta=ETA).game(X)(Z)
    monkeypatch.setattr(obs, "WALK_ROWS", 10**9)
    old = Observational(model, eta=ETA).game(X)(Z)
    np.testing.assert_allclose(new, old, rtol=0, atol=1e-12)


def test_lattice_route_jitter_fallback_warns_never_nan(monkeypatch):
    d = 3
    model = make_model(d, 30, RBF([1.0, 0.7, 1.5]), seed=8)
    B = np.repeat(model.X_train[:10], 3, axis=0)  # duplicated rows: K_S singular
    X = np.random.default_rng(8).normal(size=(3, d))
    monkeypatch.setattr(obs, "WALK_ROWS", 0)
    with pytest.warns(RuntimeWarning, match="jitter"):
        table = tabulate(Observational(model, B, 1e-300).game(X))
    assert np.all(np.isfinite(table))
    monkeypatch.setattr(obs, "WALK_ROWS", 10**9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        old = tabulate(Observational(model, B, 1e-300).game(X))
    np.testing.assert_allclose(table, old, rtol=1e-6, atol=1e-8)


def test_lattice_walk_reaches_each_coalition_through_its_parent():
    d = 5
    Z = all_coalitions(d)[1:-1]
    order = lattice_walk(Z, d)
    masks = [node[0] for node in order]
    assert sorted(masks) == list(range(1, 2**d - 1))
    on_stack = {0: 0}
    for mask, depth, feature, keep in order:
        assert mask == on_stack[depth - 1] | 1 << feature and feature > (on_stack[depth - 1].bit_length() - 1)
        on_stack[depth] = mask
        assert keep == any(m >> (feature + 1) and (m & ((1 << (feature + 1)) - 1)) == mask for m in masks)


@pytest.mark.parametrize("kernel", [RBF([1.0, 2.0, 0.5, 1.0]), Matern(1.2, 1.5)], ids=["rbf", "matern"])
@pytest.mark.parametrize("symmetric", [True, False])
def test_lattice_grams_equal_coalition_grams(kernel, symmetric):
    rng = np.random.default_rng(9)
    A, B = rng.normal(size=(37, 4)), rng.normal(size=(23, 4))
    lattice = LatticeGrams(kernel, A, None if symmetric else B, n_blocks=5)
    reference = CoalitionGrams(kernel, A, A if symmetric else B)
    upper = np.triu(np.ones(lattice.shape, bool)) if symmetric else np.ones(lattice.shape, bool)
    out = np.empty(lattice.shape)
    for mask, depth, feature, keep in lattice_walk(all_coalitions(4)[1:-1], 4):
        S = (mask >> np.arange(4) & 1).astype(bool)
        out[...] = np.nan
        lattice.node(depth, feature, out=out, keep=keep)
        K = reference(S)[0]
        np.testing.assert_allclose(out[upper], K[upper], rtol=1e-13, atol=1e-15)
        if symmetric:
            W = rng.normal(size=(len(A), 3))
            np.testing.assert_allclose(lattice.matmul(W, full=out), K @ W, rtol=0, atol=1e-12)


@pytest.mark.parametrize("symmetric", [True, False])
def test_lattice_grams_matmul_from_the_stack(symmetric):
    """K_S @ W from the stored partial Grams (SciPy's BLAS, block by block) equals the full product."""
    kernel = RBF([1.0, 2.0, 0.5, 1.0])
    rng = np.random.default_rng(4)
    A, B = rng.normal(size=(41, 4)), rng.normal(size=(29, 4))
    lattice = LatticeGrams(kernel, A, None if symmetric else B, n_blocks=6)
    reference = CoalitionGrams(kernel, A, A if symmetric else B)
    for mask, depth, feature, keep in lattice_walk(all_coalitions(4)[1:-1], 4):
        lattice.node(depth, feature, keep=True)
        S = (mask >> np.arange(4) & 1).astype(bool)
        W = rng.normal(size=(lattice.shape[1], 3))
        np.testing.assert_allclose(lattice.matmul(W, depth=depth), reference(S)[0] @ W, rtol=0, atol=1e-12)


@pytest.mark.parametrize("family", ["all", "prefix-closed", "not-closed"])
def test_coalition_grams_along_a_closed_family_equal_the_kernel(family, monkeypatch):
    """A family closed under dropping the last feature is built by one product per coalition; same Grams."""
    import kernelxai.kernels._coalition_grams as cg

    kernel = Product([(RBF([1.0, 2.0]), [0, 3]), (Categorical(), [1, 2])])
    rng = np.random.default_rng(5)
    A = rng.normal(size=(60, 4))
    A[:, 1:3] = rng.integers(0, 3, (60, 2))
    Z = all_coalitions(4)[1:]
    if family == "prefix-closed":
        Z = Z[~Z[:, 3]]            # without feature 3: dropping the last feature stays in the family
    elif family == "not-closed":
        Z = Z[Z.sum(axis=1) == 2]
    chains = []
    original = cg.CoalitionGrams._chain
    monkeypatch.setattr(cg.CoalitionGrams, "_chain", lambda self, z: chains.append(original(self, z)) or chains[-1])
    K = CoalitionGrams(kernel, A)(Z)
    assert (chains[0] is None) == (family == "not-closed")
    for S, KS in zip(Z, K):
        np.testing.assert_allclose(KS, kernel.gram(A, A, S), rtol=1e-13, atol=1e-300)
    assert (K == 0).any()      # the categorical factors' exact zeros stay zeros


@pytest.mark.parametrize("form", ["product", "regression"])
def test_one_coalition_at_a_time_route_factorises_in_place(form, monkeypatch):
    """The route for caches beyond max_elements: SciPy's in-place Cholesky, the formulas' numbers, jitter on failure."""
    d = 4
    model = make_model(d, 30, RBF([0.8, 1.2, 2.0, 1.0]), seed=12)
    X = np.random.default_rng(12).normal(size=(3, d))
    monkeypatch.setattr(obs, "WALK_ROWS", 10**9)
    table = tabulate(Observational(model, eta=ETA, form=form, max_elements=3000).game(X))
    formula = prop3 if form == "product" else appendix_c
    Z = all_coalitions(d)
    for mask in range(1, 2**d - 1):
        np.testing.assert_allclose(table[mask], formula(model, model.X_train, X, Z[mask]), rtol=0, atol=1e-12)
    B = np.repeat(model.X_train[:10], 3, axis=0)  # duplicated rows: K_S singular for this eta
    with pytest.warns(RuntimeWarning, match="jitter"):
        singular = tabulate(Observational(model, B, 1e-300, form=form, max_elements=3000).game(X))
    assert np.all(np.isfinite(singular))


@pytest.mark.parametrize("kernel", [RBF([1.0, 2.0, 0.5, 1.0]), Matern([1.0, 2.0, 0.5, 1.0], 1.5)],
                         ids=["rbf", "matern"])
def test_lattice_grams_terms_feature_by_feature_equal_all_at_once(kernel, monkeypatch):
    """Large blocks form their terms one feature at a time (bounded memory): the same numbers."""
    import kernelxai.kernels._coalition_grams as cg

    rng = np.random.default_rng(13)
    A, B = rng.normal(size=(31, 4)), rng.normal(size=(17, 4))
    for other in (None, B):
        together = LatticeGrams(kernel, A, other, n_blocks=3)
        monkeypatch.setattr(cg, "TERMS_AT_ONCE", 0)
        apart = LatticeGrams(kernel, A, other, n_blocks=3)
        monkeypatch.undo()
        for t1, t2 in zip(together.terms, apart.terms):
            for x, y in zip(t1, t2):
                np.testing.assert_array_equal(x, y)
