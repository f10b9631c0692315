"""GP-SHAP: exact posterior covariance of a Gaussian process's Shapley values.

The oracle is written here by hand, independently of kernelxai: enumerate the
coalitions, build the evaluation points (x_S, b_{S^c}) and the Shapley weight
matrix A, and take ``A C A^T`` with C from scikit-learn's
``gp.predict(Z, return_cov=True)``.
"""

from itertools import combinations
from math import factorial

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
from sklearn.kernel_ridge import KernelRidge

import kernelxai as kx
from kernelxai.gp_shap import explain_gp

D, M, N_TRAIN = 3, 5, 30


def _data(seed=0, n=N_TRAIN, d=D, noise=0.05):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] * X[:, 2] + noise * rng.normal(size=n)
    return X, y


def _gp(X, y, kernel=None, alpha=1e-2, normalize_y=False):
    if kernel is None:
        kernel = ConstantKernel(1.5, "fixed") * RBF([1.0, 1.3, 0.8], "fixed")
    return GaussianProcessRegressor(kernel, alpha=alpha, normalize_y=normalize_y, optimizer=None).fit(X, y)


def _brute(x_rows, B):
    """Evaluation points and Shapley map, by hand.

    Returns Z (all points' (x_S, b_{S^c}) stacked) and A (n*d, len(Z)) with
    phi = A f(Z), point-major rows.
    """
    n, d = x_rows.shape
    m = B.shape[0]
    coalitions = [frozenset(c) for s in range(d + 1) for c in combinations(range(d), s)]
    Z, index = [], {}
    for i, x in enumerate(x_rows):
        for S in coalitions:
            for b_idx, b in enumerate(B):
                z = b.copy()
                z[list(S)] = x[list(S)]
                index[i, S, b_idx] = len(Z)
                Z.append(z)
    A = np.zeros((n * d, len(Z)))
    for i in range(n):
        for j in range(d):
            others = [k for k in range(d) if k != j]
            for s in range(d):
                w = factorial(s) * factorial(d - s - 1) / factorial(d)
                for S in combinations(others, s):
                    S = frozenset(S)
                    for b_idx in range(m):
                        A[i * d + j, index[i, S | {j}, b_idx]] += w / m
                        A[i * d + j, index[i, S, b_idx]] -= w / m
    return np.array(Z), A


@pytest.fixture(scope="module")
def small():
    X, y = _data()
    gp = _gp(X, y)
    B = X[:M]
    x_rows = np.vstack([X[10:12], [[0.3, -1.2, 2.0]]])
    return gp, X, B, x_rows


def test_matches_brute_force_per_point_and_mean(small):
    gp, X, B, x_rows = small
    e = explain_gp(gp, x_rows, background=B)
    assert e.covariance.shape == (3, D, D)
    for i in range(len(x_rows)):
        Z, A = _brute(x_rows[i:i + 1], B)
        mean, C = gp.predict(Z, return_cov=True)
        np.testing.assert_allclose(e.covariance[i], A @ C @ A.T, rtol=0, atol=1e-9)
        np.testing.assert_allclose(e.values[i], A @ mean, rtol=0, atol=1e-9)
    ref = kx.explain(gp, x_rows, background=B)
    np.testing.assert_array_equal(e.values, ref.values)
    np.testing.assert_array_equal(e.base_values, ref.base_values)
    np.testing.assert_allclose(e.stderr, np.sqrt(np.diagonal(e.covariance, axis1=1, axis2=2)))
    np.testing.assert_allclose(e.lower, e.values - 1.959963984540054 * e.stderr)
    np.testing.assert_allclose(e.upper, e.values + 1.959963984540054 * e.stderr)
    assert e.meta["value_function"] == "interventional"
    assert e.meta["method"] == "exact"
    assert "covariance" in e.meta and e.joint_covariance is None


def test_joint_matches_brute_force_and_per_point_blocks(small):
    gp, X, B, x_rows = small
    e = explain_gp(gp, x_rows, background=B, joint=True)
    Z, A = _brute(x_rows, B)
    C = gp.predict(Z, return_cov=True)[1]
    n = len(x_rows)
    assert e.joint_covariance.shape == (n * D, n * D)
    np.testing.assert_allclose(e.joint_covariance, A @ C @ A.T, rtol=0, atol=1e-9)
    per_point = explain_gp(gp, x_rows, background=B)
    for i in range(n):
        block = e.joint_covariance[i * D:(i + 1) * D, i * D:(i + 1) * D]
        np.testing.assert_allclose(block, per_point.covariance[i], rtol=0, atol=1e-12)


def test_monte_carlo_posterior_draws(small):
    gp, X, B, x_rows = small
    x_rows = x_rows[:2]
    e = explain_gp(gp, x_rows, background=B, joint=True)
    Z, A = _brute(x_rows, B)
    seed = int(np.random.default_rng(12).integers(2**31 - 1))
    draws = gp.sample_y(Z, n_samples=4000, random_state=seed)  # (len(Z), 4000)
    phis = A @ draws  # Shapley values of every draw, (n*d, 4000)
    sample = np.cov(phis)
    err = np.linalg.norm(sample - e.joint_covariance) / np.linalg.norm(e.joint_covariance)
    assert err < 0.1, err


def test_efficiency_draw_by_draw(small):
    gp, X, B, x_rows = small
    e = explain_gp(gp, x_rows, background=B)
    for i, x in enumerate(x_rows):
        P = np.vstack([x, B])
        a = np.concatenate([[1.0], np.full(M, -1.0 / M)])
        target = a @ gp.predict(P, return_cov=True)[1] @ a  # Var(f(x) - v_x(empty))
        np.testing.assert_allclose(e.covariance[i].sum(), target, rtol=1e-8, atol=1e-14)


def test_ignored_feature_has_zero_mean_and_variance():
    X, y = _data(1)
    kernel = ConstantKernel(1.0, "fixed") * RBF([1.0, 1.0, 1e6], "fixed")
    gp = _gp(X, y, kernel=kernel)
    e = explain_gp(gp, np.vstack([X[:3], [[0.5, 0.5, 3.0]]]), background=X[:8])
    assert np.all(np.abs(e.values[:, 2]) < 1e-8)
    assert np.all(np.abs(e.covariance[:, 2, :]) < 1e-10)
    assert np.all(e.covariance[:, 2, 2] < 1e-10)
    assert np.all(e.covariance[:, 0, 0] > 1e-6)


def test_variance_grows_far_from_the_data(small):
    gp, X, B, _ = small
    rows = np.vstack([X[0], np.full(D, 8.0)])
    e = explain_gp(gp, rows, background=B)
    total = e.covariance.sum(axis=(1, 2))
    assert total[1] > 10 * total[0]
    # towards the prior: f(x) far away is nearly independent of the background terms
    prior = 1.5 + 1.5 / M  # k(x, x) + Var(mean_b f(b)) is at most this
    assert total[1] <= prior + 1e-9


def test_noise_to_zero_variance_vanishes_at_training_points():
    X, y = _data(2, n=25, noise=0.0)
    gp = _gp(X, y, alpha=1e-10)
    e = explain_gp(gp, X[:4])  # background defaults to the training inputs
    # f(x) and every background value f(b) are observed exactly, so the total
    # Var(sum_j phi_j) = Var(f(x) - v_x(empty)) vanishes
    assert np.all(np.abs(e.covariance.sum(axis=(1, 2))) < 1e-7)
    noisy = explain_gp(_gp(X, y, alpha=1e-1), X[:4])
    assert np.all(noisy.covariance.sum(axis=(1, 2)) > 1e-4)


def test_normalize_y_is_the_rescaled_problem(small):
    X, y = _data(3)
    y = 40.0 + 7.0 * y
    B, rows = X[:M], X[5:8]
    gp_n = _gp(X, y, normalize_y=True)
    mu, sd = y.mean(), y.std()
    gp_u = _gp(X, (y - mu) / sd, normalize_y=False)
    e_n = explain_gp(gp_n, rows, background=B)
    e_u = explain_gp(gp_u, rows, background=B)
    np.testing.assert_allclose(e_n.covariance, sd**2 * e_u.covariance, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(e_n.values, sd * e_u.values, rtol=1e-9, atol=1e-10)
    # and it is what scikit-learn's own (rescaled) predictive covariance gives
    Z, A = _brute(rows[:1], B)
    np.testing.assert_allclose(e_n.covariance[0], A @ gp_n.predict(Z, return_cov=True)[1] @ A.T,
                               rtol=0, atol=1e-9 * sd**2)


def test_white_kernel_is_observation_noise_not_latent():
    X, y = _data(4)
    base = ConstantKernel(1.5, "fixed") * RBF([1.0, 1.3, 0.8], "fixed")
    with_white = _gp(X, y, kernel=base + WhiteKernel(0.05, "fixed"), alpha=1e-3)
    as_alpha = _gp(X, y, kernel=base, alpha=1e-3 + 0.05)
    rows, B = X[:3], X[3:3 + M]
    e_w = explain_gp(with_white, rows, background=B)
    e_a = explain_gp(as_alpha, rows, background=B)
    np.testing.assert_allclose(e_w.covariance, e_a.covariance, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(e_w.values, e_a.values, rtol=1e-9, atol=1e-12)
    # scikit-learn's return_cov adds the white noise on the diagonal of new points:
    # explaining noisy observations would differ from the latent function
    Z, A = _brute(rows[:1], B)
    noisy = A @ with_white.predict(Z, return_cov=True)[1] @ A.T
    assert np.abs(noisy - e_w.covariance[0]).max() > 1e-4


def test_errors(small):
    gp, X, B, x_rows = small
    with pytest.raises(ValueError, match="not fitted"):
        explain_gp(GaussianProcessRegressor(), x_rows)
    with pytest.raises(TypeError, match="GaussianProcessRegressor.*KernelRidge"):
        explain_gp(KernelRidge().fit(X, X[:, 0]), x_rows)
    with pytest.raises(ValueError, match="kx.background.subsample"):
        explain_gp(gp, x_rows[:1], background=np.zeros((9000, D)))
    with pytest.raises(ValueError, match="joint=False"):
        explain_gp(gp, np.zeros((2000, D)), background=B, joint=True)
    with pytest.raises(ValueError, match="planned"):
        explain_gp(gp, x_rows, value="observational")
    with pytest.raises(ValueError, match="value must be one of"):
        explain_gp(gp, x_rows, value="marginal")
    with pytest.raises(ValueError, match="method must be one of"):
        explain_gp(gp, x_rows, method="kernel")
    with pytest.raises(ValueError, match=r"X must have shape \(n, 3\)"):
        explain_gp(gp, np.zeros((2, 4)))
    with pytest.raises(ValueError, match="background must have shape"):
        explain_gp(gp, x_rows, background=np.zeros((4, 2)))
    multi = GaussianProcessRegressor(optimizer=None).fit(X, np.c_[X[:, 0], X[:, 1]])
    with pytest.raises(ValueError, match="single-output"):
        explain_gp(multi, x_rows)


def test_blocked_computation_under_a_small_memory_limit(small):
    gp, X, B, x_rows = small
    whole = explain_gp(gp, x_rows, background=B, joint=True)
    with kx.config_context(max_memory=65536):  # forces several blocks of evaluation points
        blocked = explain_gp(gp, x_rows, background=B, joint=True)
    np.testing.assert_allclose(blocked.joint_covariance, whole.joint_covariance, rtol=0, atol=1e-14)
    np.testing.assert_allclose(blocked.covariance, whole.covariance, rtol=0, atol=1e-14)


def test_single_row_and_dataframe_input(small):
    pd = pytest.importorskip("pandas")
    gp, X, B, x_rows = small
    one = explain_gp(gp, x_rows[0], background=B)
    full = explain_gp(gp, x_rows, background=B)
    np.testing.assert_allclose(one.covariance[0], full.covariance[0], rtol=0, atol=1e-15)
    frame = explain_gp(gp, pd.DataFrame(x_rows, columns=["a", "b", "c"]), background=B)
    np.testing.assert_allclose(frame.covariance, full.covariance, rtol=0, atol=1e-15)


def test_explain_gp_goes_through_the_cost_guard():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    gp = GaussianProcessRegressor(alpha=1e-2).fit(X, X[:, 0])
    with kx.config_context(max_cost=1e-9):
        with pytest.raises(kx.estimators.CostLimitError, match="GP-SHAP covariance"):
            kx.explain_gp(gp, X[:2], background=X[:5])
