"""Kernels: closed forms, per-feature Gram tensors, blocks, median heuristic, Matern, bad input."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import kernelxai as kx
from kernelxai.kernels import RBF, Categorical, Cauchy, Laplace, Matern, Product, median_heuristic

rng = np.random.default_rng(0)
A = rng.normal(size=(7, 3))
B = rng.normal(size=(5, 3))
LS = np.array([0.5, 1.0, 2.0])


def direct(profile, A, B, ls):
    """k(a, b) = prod_j profile((a_j - b_j) / l_j), one pair at a time."""
    out = np.empty((len(A), len(B)))
    for i, a in enumerate(A):
        for k, b in enumerate(B):
            out[i, k] = np.prod([profile((a[j] - b[j]) / ls[j]) for j in range(len(a))])
    return out


@pytest.mark.parametrize("cls, profile", [
    (RBF, lambda r: np.exp(-0.5 * r * r)),
    (Laplace, lambda r: np.exp(-abs(r))),
    (Cauchy, lambda r: 1.0 / (1.0 + r * r)),
])
@pytest.mark.parametrize("ls", [0.8, LS])
def test_product_kernels_closed_forms(cls, profile, ls):
    k = cls(ls)
    lsv = np.broadcast_to(ls, (3,))
    np.testing.assert_allclose(k.gram(A, B), direct(profile, A, B, lsv), rtol=1e-13)
    G = k.feature_grams(A, B)
    assert G.shape == (7, 5, 3)
    np.testing.assert_allclose(G.prod(-1), k.gram(A, B), rtol=1e-14)
    # a coalition's Gram matrix is the product over its features; empty -> ones
    np.testing.assert_allclose(k.gram(A, B, subset=[0, 2]), G[..., [0, 2]].prod(-1), rtol=1e-14)
    np.testing.assert_array_equal(k.gram(A, B, subset=np.zeros(3, bool)), np.ones((7, 5)))


def test_rbf_isotropic_equals_sklearn_rbf():
    from sklearn.metrics.pairwise import rbf_kernel

    np.testing.assert_allclose(RBF(1.3).gram(A, B), rbf_kernel(A, B, gamma=1 / (2 * 1.3**2)), rtol=1e-12)


def test_iter_feature_grams_blocks_cover_all_rows():
    k = RBF(LS)
    X = rng.normal(size=(103, 3))
    full = k.feature_grams(X, B)
    seen = np.zeros(103, bool)
    for rows, G in k.iter_feature_grams(X, B, max_elements=5 * 3 * 10):
        assert G.shape[0] <= 10
        np.testing.assert_array_equal(G, full[rows])
        seen[rows] = True
    assert seen.all()


def test_categorical_and_mixed_product():
    Xc = np.array([[0.0, 1.2, 1.0], [1.0, 0.3, 1.0], [0.0, -0.5, 2.0]])
    k = Product([(RBF([1.0]), [1]), (Categorical(), [0, 2])])
    G = k.feature_grams(Xc)
    np.testing.assert_array_equal(G[..., 0], (Xc[:, None, 0] == Xc[None, :, 0]).astype(float))
    np.testing.assert_allclose(G[..., 1], np.exp(-0.5 * (Xc[:, None, 1] - Xc[None, :, 1]) ** 2))
    assert k.is_product and k.n_features == 3


def test_median_heuristic_per_feature_and_pooled():
    X = rng.normal(size=(60, 2)) * np.array([1.0, 10.0])
    ls = median_heuristic(X)
    iu = np.triu_indices(60, 1)
    for j in range(2):
        assert ls[j] == pytest.approx(np.median(np.abs(X[:, None, j] - X[None, :, j])[iu]))
    pooled = median_heuristic(X, pooled=True)
    assert pooled == pytest.approx(np.sqrt(np.median(((X[:, None] - X[None]) ** 2).sum(-1)[iu])))
    with pytest.warns(UserWarning, match="constant"):
        assert median_heuristic(np.c_[X[:, 0], np.ones(60)])[1] == 1.0


# ---------------------------------------------------------------- Matern
@pytest.mark.parametrize("nu", [0.5, 1.5, 2.5])
@pytest.mark.parametrize("ls", [0.7, [0.5, 1.0, 2.0]])
def test_matern_equals_sklearn(nu, ls):
    from sklearn.gaussian_process.kernels import Matern as SkMatern

    np.testing.assert_allclose(Matern(ls, nu).gram(A, B), SkMatern(length_scale=ls, nu=nu)(A, B),
                               rtol=1e-12, atol=1e-15)


def test_matern_is_not_a_product_kernel_and_restricts_to_subsets():
    k = Matern([0.5, 1.0, 2.0], nu=0.5)
    assert not k.is_product
    # exp(-||x - x'||) is not the product of exp(-|x_j - x'_j|) (that would be Laplace)
    assert not np.allclose(k.gram(A, B), Laplace([0.5, 1.0, 2.0]).gram(A, B))
    sub = k.restrict([0, 2])
    np.testing.assert_allclose(k.gram(A, B, subset=[0, 2]), sub.gram(A[:, [0, 2]], B[:, [0, 2]]))
    np.testing.assert_allclose(k.gram(A, B, subset=np.array([True, False, True])),
                               sub.gram(A[:, [0, 2]], B[:, [0, 2]]))
    r = np.sqrt((((A[:, None, [0, 2]] - B[None, :, [0, 2]]) / [0.5, 2.0]) ** 2).sum(-1))
    np.testing.assert_allclose(sub.gram(A[:, [0, 2]], B[:, [0, 2]]), np.exp(-r), rtol=1e-13)
    np.testing.assert_array_equal(k.gram(A, B, subset=[]), np.ones((7, 5)))


@given(arrays(np.float64, (6, 2), elements=st.floats(-5, 5)), st.sampled_from([0.5, 1.5, 2.5]))
def test_matern_gram_is_symmetric_psd_with_unit_diagonal(X, nu):
    K = Matern(1.0, nu).gram(X)
    np.testing.assert_allclose(K, K.T, atol=1e-14)
    np.testing.assert_allclose(np.diag(K), 1.0)
    assert np.linalg.eigvalsh(K).min() > -1e-10


# ---------------------------------------------------------------- bad input
def test_bad_kernel_input():
    with pytest.raises(ValueError, match="nu"):
        Matern(1.0, nu=0.0)
    with pytest.raises(ValueError, match="positive"):
        RBF(-1.0)
    with pytest.raises(ValueError, match="positive"):
        Matern([1.0, 0.0])
    with pytest.raises(ValueError, match="features"):
        RBF([1.0, 2.0]).gram(A, B)
    with pytest.raises(ValueError, match="NaN"):
        RBF(1.0).gram(np.array([[np.nan, 0, 0]]), B)
    with pytest.raises(ValueError, match="out of range"):
        Matern(1.0).gram(A, B, subset=[5])
    assert isinstance(kx.kernels.RBF(1.0), kx.kernels.Kernel)
