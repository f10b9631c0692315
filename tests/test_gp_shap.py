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
from kernelxai.explainers._gp_shap import explain_gp

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
    A = _reweighted(x_rows, B, lambda x, S: np.full(m, 1.0 / m))  # the interventional weights 1/m
    return np.array(Z), A


@pytest.fixture(scope="module")
def small():
    X, y = _data()
    gp = _gp(X, y)
    B = X[:M]
    x_rows = np.vstack([X[10:12], [[0.3, -1.2, 2.0]]])
    return gp, X, B, x_rows


@pytest.mark.parametrize("method", ["exact", "product"])
def test_matches_brute_force_per_point_and_mean(small, method):
    gp, X, B, x_rows = small
    e = explain_gp(gp, x_rows, background=B, method=method)
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
    assert e.meta["method"] == method
    assert "covariance" in e.meta and e.joint_covariance is None


@pytest.mark.parametrize("method", ["exact", "product"])
def test_joint_matches_brute_force_and_per_point_blocks(small, method):
    gp, X, B, x_rows = small
    e = explain_gp(gp, x_rows, background=B, joint=True, method=method)
    Z, A = _brute(x_rows, B)
    C = gp.predict(Z, return_cov=True)[1]
    n = len(x_rows)
    assert e.joint_covariance.shape == (n * D, n * D)
    np.testing.assert_allclose(e.joint_covariance, A @ C @ A.T, rtol=0, atol=1e-9)
    per_point = explain_gp(gp, x_rows, background=B, method=method)
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
    with pytest.raises(ValueError, match="kx.explainers.subsample"):
        explain_gp(gp, x_rows[:1], background=np.zeros((9000, D)), method="exact")
    with pytest.raises(ValueError, match="joint=False"):
        explain_gp(gp, np.zeros((2000, D)), background=B, joint=True, method="exact")
    with pytest.raises(ValueError, match="observational.*method='exact'"):
        explain_gp(gp, x_rows, value="observational", method="product")
    with pytest.raises(ValueError, match="budget applies to method='sampled'"):
        explain_gp(gp, x_rows, background=B, budget=100)
    with pytest.raises(ValueError, match="budget=0 of kx.explain_gp must be an integer >= 1"):
        explain_gp(gp, x_rows, background=B, method="sampled", budget=0)
    with pytest.raises(ValueError, match="NaN"):
        explain_gp(gp, np.array([[np.nan, 0.0, 0.0]]), background=B)
    with pytest.raises(ValueError, match="value='marginal' of kx.explain_gp must be one of 'interventional'"):
        explain_gp(gp, x_rows, value="marginal")
    with pytest.raises(ValueError, match="method='kernel' of kx.explain_gp must be one of 'auto'"):
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


# --------------------------------------------------------------------------- routes beyond the default
def _reweighted(x_rows, B, weight):
    """Brute-force Shapley map with background weights ``weight(x, S)`` (m,) per coalition."""
    n, d = x_rows.shape
    m = B.shape[0]
    coalitions = [frozenset(c) for s in range(d + 1) for c in combinations(range(d), s)]
    index = {(i, S): k for k, (i, S) in enumerate((i, S) for i in range(n) for S in coalitions)}
    A = np.zeros((n * d, len(index) * m))
    for i in range(n):
        for j in range(d):
            others = [k for k in range(d) if k != j]
            for s in range(d):
                w = factorial(s) * factorial(d - s - 1) / factorial(d)
                for S in combinations(others, s):
                    S = frozenset(S)
                    for T, sign in ((S | {j}, 1.0), (S, -1.0)):
                        col = index[i, T] * m
                        A[i * d + j, col:col + m] += sign * w * weight(x_rows[i], T)
    return A


def test_observational_matches_brute_force_with_cme_weights(small):
    gp, X, B, x_rows = small
    ls, eta, m = np.array([1.0, 1.3, 0.8]), 1e-2, len(B)

    def beta(x, S):  # RKHS-SHAP's CME weights, written out: (K_S + m eta I)^-1 k_S(B, x)
        S = sorted(S)
        if len(S) in (0, D):
            return np.full(m, 1.0 / m)
        k = lambda P, Q: np.exp(-0.5 * (((P[:, None, S] - Q[None, :, S]) / ls[S]) ** 2).sum(-1))
        return np.linalg.solve(k(B, B) + m * eta * np.eye(m), k(B, x[None])[:, 0])

    A = _reweighted(x_rows, B, beta)
    Z, _ = _brute(x_rows, B)  # the same evaluation points, in the same order
    mean, C = gp.predict(Z, return_cov=True)
    e = explain_gp(gp, x_rows, "observational", background=B, eta=eta, joint=True)
    assert e.meta["method"] == "exact" and e.meta["value_function"] == "observational"
    np.testing.assert_allclose(e.joint_covariance, A @ C @ A.T, rtol=0, atol=1e-9)
    np.testing.assert_allclose(e.values.ravel(), A @ mean, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(e.values, kx.explain(gp, x_rows, "observational", background=B, eta=eta).values)


def test_sampled_route_is_unbiased_with_honest_errors(small):
    gp, X, B, x_rows = small
    exact = explain_gp(gp, x_rows, background=B, method="exact")
    e = explain_gp(gp, x_rows, background=B, method="sampled", budget=400, random_state=3)
    assert e.meta["method"] == "sampled" and e.meta["n_permutations"] == 200
    err = e.meta["covariance_mc_stderr"]
    assert err.shape == exact.covariance.shape and np.all(err[:, ~np.eye(D, dtype=bool)] > 0)
    z = (e.covariance - exact.covariance) / err
    assert np.all(np.abs(z) < 5), z
    # efficiency holds exactly (each permutation's estimate is efficient)
    np.testing.assert_allclose(e.covariance.sum(axis=(1, 2)), exact.covariance.sum(axis=(1, 2)), rtol=1e-9)
    # seeded: identical twice
    again = explain_gp(gp, x_rows, background=B, method="sampled", budget=400, random_state=3)
    np.testing.assert_array_equal(again.covariance, e.covariance)
    # the error falls as the budget grows
    big = explain_gp(gp, x_rows, background=B, method="sampled", budget=4000, random_state=4)
    assert big.meta["covariance_mc_stderr"].mean() < 0.5 * err.mean()
    # observational through the same route
    obs = explain_gp(gp, x_rows[:1], "observational", background=B, method="sampled", budget=600,
                     random_state=0)
    obs_exact = explain_gp(gp, x_rows[:1], "observational", background=B)
    assert np.all(np.abs(obs.covariance - obs_exact.covariance) < 5 * obs.meta["covariance_mc_stderr"] + 1e-12)


def test_product_route_for_sums_of_product_kernels_and_auto_choice():
    from sklearn.gaussian_process.kernels import Matern

    X, y = _data(5)
    kernel = (ConstantKernel(1.2, "fixed") * RBF([1.0, 2.0, 0.7], "fixed")
              + ConstantKernel(0.3, "fixed") * RBF(3.0, "fixed") + ConstantKernel(0.5, "fixed"))
    gp = _gp(X, y, kernel=kernel)
    B, rows = X[:4], X[6:8]
    e = explain_gp(gp, rows, background=B, joint=True)
    assert e.meta["method"] == "product"
    Z, A = _brute(rows, B)
    np.testing.assert_allclose(e.joint_covariance, A @ gp.predict(Z, return_cov=True)[1] @ A.T,
                               rtol=0, atol=1e-9)
    matern = _gp(X, y, kernel=ConstantKernel(1.0, "fixed") * Matern([1.0, 1.0, 1.0], nu=1.5))
    assert explain_gp(matern, rows, background=B).meta["method"] == "exact"
    with pytest.raises(ValueError, match="product kernel"):
        explain_gp(matern, rows, background=B, method="product")


def test_sampled_is_chosen_beyond_enumeration():
    from sklearn.gaussian_process.kernels import Matern

    rng = np.random.default_rng(6)
    d = 14
    X = rng.normal(size=(30, d))
    gp = GaussianProcessRegressor(Matern(np.full(d, 3.0), nu=2.5), alpha=1e-2, optimizer=None).fit(X, X[:, 0])
    e = explain_gp(gp, X[:1], background=X[:5], budget=130, random_state=0)
    assert e.meta["method"] == "sampled" and e.meta["n_permutations"] == 10
    target, _ = _efficiency_target(gp, X[0], X[:5])
    np.testing.assert_allclose(e.covariance[0].sum(), target, rtol=1e-8)


def _efficiency_target(gp, x, B):
    P = np.vstack([x, B])
    a = np.concatenate([[1.0], np.full(len(B), -1.0 / len(B))])
    return a @ gp.predict(P, return_cov=True)[1] @ a, None


def test_product_route_at_larger_d_matches_sampled_and_efficiency():
    rng = np.random.default_rng(7)
    d = 16
    X = rng.normal(size=(40, d))
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 2])
    gp = _gp(X, y, kernel=ConstantKernel(1.0, "fixed") * RBF(np.full(d, 2.5), "fixed"))
    B = X[:3]
    e = explain_gp(gp, X[5:6], background=B)
    assert e.meta["method"] == "product"
    s = explain_gp(gp, X[5:6], background=B, method="sampled", budget=3000, random_state=1)
    assert np.all(np.abs(e.covariance - s.covariance) < 5 * s.meta["covariance_mc_stderr"] + 1e-12)


# --------------------------------------------------------------------------- the Shapley prior
def test_shapley_prior_kernel_is_the_prior_covariance(small):
    gp, X, B, x_rows = small
    Z, A = _brute(x_rows, B)
    kappa = A @ gp.kernel_(Z) @ A.T  # prior covariance of the Shapley values (no data)
    for method in ("product", "exact"):
        prior = kx.ShapleyPrior(gp, background=B, method=method, noise=0.0).fit(x_rows[:2], np.zeros((2, D)))
        pred = prior.predict(x_rows[2:])
        K = kappa[:2 * D, :2 * D]
        k_star = kappa[2 * D:, :2 * D]
        want = kappa[2 * D:, 2 * D:] - k_star @ np.linalg.solve(K, k_star.T)
        np.testing.assert_allclose(pred.covariance[0], want, rtol=0, atol=1e-8)
        np.testing.assert_allclose(pred.values, 0.0, atol=1e-12)


def test_shapley_prior_predicts_held_out_explanations():
    rng = np.random.default_rng(8)
    d = 3
    X = rng.uniform(-2, 2, size=(150, d))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2]
    gp = _gp(X, y, kernel=ConstantKernel(1.0, "fixed") * RBF(np.full(d, 1.2), "fixed"))
    B = X[:10]
    known, new = X[10:50], X[50:70]
    phi_known = kx.explain(gp, known, background=B)
    truth = kx.explain(gp, new, background=B)
    pred = kx.ShapleyPrior(gp, background=B).fit(known, phi_known).predict(new)
    rmse = np.sqrt(np.mean((pred.values - truth.values) ** 2))
    assert rmse < 0.2 * truth.values.std(), rmse
    covered = (truth.values >= pred.lower) & (truth.values <= pred.upper)
    assert covered.mean() >= 0.9
    # at a known point with (near) zero noise the prediction is the given value
    back = kx.ShapleyPrior(gp, background=B).fit(known, phi_known).predict(known[:3])
    np.testing.assert_allclose(back.values, phi_known.values[:3], atol=1e-5)
    assert np.all(back.stderr < 1e-3)


def test_shapley_prior_errors(small):
    gp, X, B, x_rows = small
    with pytest.raises(ValueError, match="not fitted"):
        kx.ShapleyPrior(gp).predict(x_rows)
    with pytest.raises(ValueError, match="background is required"):
        kx.ShapleyPrior(gp.kernel_).fit(x_rows, np.zeros_like(x_rows))
    with pytest.raises(TypeError, match="scikit-learn kernel"):
        kx.ShapleyPrior("rbf", background=B).fit(x_rows, np.zeros_like(x_rows))
    with pytest.raises(ValueError, match=r"values must have shape \(3, 3\)"):
        kx.ShapleyPrior(gp, background=B).fit(x_rows, np.zeros((3, 2)))
    with pytest.raises(ValueError, match="NaN"):
        kx.ShapleyPrior(gp, background=B).fit(x_rows, np.full((3, 3), np.nan))


def test_sampled_joint_covariance_blocks_are_the_per_point_estimates(small):
    gp, X, B, x_rows = small
    e = explain_gp(gp, x_rows, background=B, method="sampled", budget=300, random_state=5, joint=True)
    per = explain_gp(gp, x_rows, background=B, method="sampled", budget=300, random_state=5)
    for i in range(len(x_rows)):
        np.testing.assert_allclose(e.joint_covariance[i * D:(i + 1) * D, i * D:(i + 1) * D],
                                   per.covariance[i], rtol=0, atol=1e-12)
    # the cross-point blocks are unbiased too: compare with the exact joint covariance loosely
    exact = explain_gp(gp, x_rows, background=B, method="exact", joint=True)
    err = np.abs(e.joint_covariance - exact.joint_covariance).max()
    assert err < 0.2 * np.abs(exact.joint_covariance).max(), err


@pytest.fixture(scope="module")
def classifier():
    from sklearn.gaussian_process import GaussianProcessClassifier

    X, _ = _data(seed=3, n=50)
    y = np.where(X[:, 0] + X[:, 1] * X[:, 2] > 0, "yes", "no")
    kernel = ConstantKernel(2.0, "fixed") * RBF([1.0, 1.3, 0.8], "fixed")
    gpc = GaussianProcessClassifier(kernel, optimizer=None).fit(X, y)
    return gpc, X[:M], np.vstack([X[10:12], [[0.3, -1.2, 2.0]]])


def _laplace_latent(gpc, Z):
    """Mean and covariance of the latent f at Z under the Laplace posterior (GPML Alg. 3.2), by hand."""
    from scipy.linalg import solve_triangular

    base = gpc.base_estimator_
    KxZ = base.kernel_(base.X_train_, Z)
    v = solve_triangular(base.L_, base.W_sr_[:, None] * KxZ, lower=True)
    return KxZ.T @ (base.y_train_ - base.pi_), base.kernel_(Z) - v.T @ v


@pytest.mark.parametrize("method", ["exact", "product"])
def test_binary_classifier_latent_matches_brute_force(classifier, method):
    gpc, B, x_rows = classifier
    e = explain_gp(gpc, x_rows, background=B, method=method)
    for i in range(len(x_rows)):
        Z, A = _brute(x_rows[i:i + 1], B)
        mean, C = _laplace_latent(gpc, Z)
        # the hand-written Laplace covariance agrees with scikit-learn's own latent variance
        np.testing.assert_allclose(np.diag(C), gpc.base_estimator_.latent_mean_and_variance(Z)[1],
                                   rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(e.covariance[i], A @ C @ A.T, rtol=0, atol=1e-9)
        np.testing.assert_allclose(e.values[i], A @ mean, rtol=0, atol=1e-9)
    ref = kx.explain(gpc, x_rows, background=B, output="latent")
    np.testing.assert_array_equal(e.values, ref.values)
    assert "Laplace" in e.meta["covariance"] and "'yes'" in e.meta["covariance"]


def test_binary_classifier_sampled_and_observational(classifier):
    gpc, B, x_rows = classifier
    exact = explain_gp(gpc, x_rows[:1], background=B, method="exact")
    sampled = explain_gp(gpc, x_rows[:1], background=B, method="sampled", budget=3000, random_state=0)
    z = (sampled.covariance - exact.covariance) / sampled.meta["covariance_mc_stderr"]
    assert np.all(np.abs(z) < 5)
    obs = explain_gp(gpc, x_rows[:1], "observational", background=B)
    ref = kx.explain(gpc, x_rows[:1], "observational", background=B, output="latent")
    np.testing.assert_allclose(obs.values, ref.values, rtol=0, atol=1e-12)
    assert np.all(np.linalg.eigvalsh(obs.covariance[0]) > -1e-10)


def test_classifier_errors():
    from sklearn.gaussian_process import GaussianProcessClassifier

    X, _ = _data(seed=4, n=45)
    y3 = np.digitize(X[:, 0], [-0.5, 0.5])
    ovo = GaussianProcessClassifier(RBF(1.0), optimizer=None, multi_class="one_vs_one").fit(X, y3)
    with pytest.raises(ValueError, match="one_vs_one.*multi_class='one_vs_rest'"):
        explain_gp(ovo, X[:2])
    with pytest.raises(ValueError, match="not fitted"):
        explain_gp(GaussianProcessClassifier(), X[:2])


@pytest.fixture(scope="module")
def three_classes():
    from sklearn.gaussian_process import GaussianProcessClassifier

    X, _ = _data(seed=5, n=45)
    y = np.array(["a", "b", "c"])[np.digitize(X[:, 0] + 0.5 * X[:, 1] * X[:, 2], [-0.5, 0.5])]
    kernel = ConstantKernel(2.0, "fixed") * RBF([1.0, 1.3, 0.8], "fixed")
    gpc = GaussianProcessClassifier(kernel, optimizer=None).fit(X, y)
    return gpc, X, X[:M], np.vstack([X[10:12], [[0.3, -1.2, 2.0]]])


def _binary(gpc, j):
    """The binary classifier scikit-learn fitted for class j (one-vs-rest), wrapped as a binary GPC."""
    import copy

    binary = copy.copy(gpc)
    binary.base_estimator_ = gpc.base_estimator_.estimators_[j]
    binary.classes_ = np.array(["rest", gpc.classes_[j]])
    return binary


_SAMPLED = {"budget": 120, "random_state": 7}


@pytest.mark.parametrize("method", ["exact", "product", "sampled"])
def test_multiclass_classifier_is_each_class_binary_classifier(three_classes, method):
    gpc, X, B, x_rows = three_classes
    kw = _SAMPLED if method == "sampled" else {}
    e = explain_gp(gpc, x_rows, background=B, method=method, **kw)
    n, k = len(x_rows), 3
    assert e.values.shape == (n, D, k) and e.covariance.shape == (n, D, D, k)
    assert e.output_names == ["a", "b", "c"] and e.meta["method"] == method
    assert "one-vs-rest" in e.meta["outputs"] and "against the rest" in e.meta["covariance"]
    for j in range(k):
        one = explain_gp(_binary(gpc, j), x_rows, background=B, method=method, **kw)
        for name in ("values", "covariance", "stderr", "lower", "upper"):
            np.testing.assert_array_equal(getattr(e, name)[..., j], getattr(one, name), err_msg=name)
        np.testing.assert_array_equal(np.asarray(e.base_values)[:, j], one.base_values)
        if method == "sampled":
            np.testing.assert_array_equal(e.meta["covariance_mc_stderr"][..., j], one.meta["covariance_mc_stderr"])
        # slicing the outputs axis by name gives the class's explanation, covariance included
        part = e[..., gpc.classes_[j]]
        np.testing.assert_array_equal(part.covariance, one.covariance)
        np.testing.assert_array_equal(part.values, one.values)
    if method == "sampled":   # a Generator: every class starts from the same state
        g = explain_gp(gpc, x_rows[:1], background=B, method=method, budget=120,
                       random_state=np.random.default_rng(3))
        one = explain_gp(_binary(gpc, 2), x_rows[:1], background=B, method=method, budget=120,
                         random_state=np.random.default_rng(3))
        np.testing.assert_array_equal(g.covariance[..., 2], one.covariance)
    if method == "exact":     # the estimator sklearn fits for class c is the binary classifier of y == c
        from sklearn.gaussian_process import GaussianProcessClassifier

        y = np.asarray(gpc.base_estimator_.estimators_[1].y_train_, dtype=bool)
        fresh = GaussianProcessClassifier(gpc.kernel, optimizer=None).fit(X, y)
        one = explain_gp(fresh, x_rows, background=B, method=method)
        np.testing.assert_allclose(e.values[..., 1], one.values, rtol=0, atol=1e-10)
        np.testing.assert_allclose(e.covariance[..., 1], one.covariance, rtol=0, atol=1e-10)


def test_multiclass_classifier_latent_posteriors_efficiency_and_draws(three_classes):
    gpc, X, B, x_rows = three_classes
    e = explain_gp(gpc, x_rows, background=B, method="product")
    rng = np.random.default_rng(11)
    for j in range(3):
        binary = _binary(gpc, j)
        for i in range(len(x_rows)):
            Z, A = _brute(x_rows[i:i + 1], B)
            mean, C = _laplace_latent(binary, Z)
            np.testing.assert_allclose(e.covariance[i, :, :, j], A @ C @ A.T, rtol=0, atol=1e-9)
            np.testing.assert_allclose(e.values[i, :, j], A @ mean, rtol=0, atol=1e-9)
            # efficiency of the covariance: 1^T Cov(phi) 1 == Var(f(x) - v_x(empty)) under class j's posterior
            P = np.vstack([x_rows[i], B])
            a = np.concatenate([[1.0], np.full(M, -1.0 / M)])
            np.testing.assert_allclose(e.covariance[i, :, :, j].sum(), a @ _laplace_latent(binary, P)[1] @ a,
                                       rtol=1e-8, atol=1e-14)
            # draw by draw: each posterior draw's Shapley values sum to v(full) - v(empty)
            draws = rng.multivariate_normal(mean, C + 1e-12 * np.eye(len(Z)), size=3000,
                                            method="eigh").T       # (len(Z), draws)
            phis = A @ draws
            np.testing.assert_allclose(phis.sum(axis=0), draws[-M:].mean(axis=0) - draws[:M].mean(axis=0),
                                       rtol=0, atol=1e-9)
            err = np.linalg.norm(np.cov(phis) - e.covariance[i, :, :, j])
            assert err < 0.1 * np.linalg.norm(e.covariance[i, :, :, j]), err


def test_multiclass_classifier_mean_is_kx_explain_latent(three_classes):
    gpc, X, B, x_rows = three_classes
    e = explain_gp(gpc, x_rows, background=B)
    ref = kx.explain(gpc, x_rows, background=B)        # output="latent", the default
    assert ref.output_names == e.output_names
    np.testing.assert_allclose(e.values, ref.values, rtol=0, atol=1e-12)
    np.testing.assert_allclose(e.base_values, ref.base_values, rtol=0, atol=1e-12)
    obs = explain_gp(gpc, x_rows[:1], "observational", background=B)
    ref = kx.explain(gpc, x_rows[:1], "observational", background=B, output="latent")
    np.testing.assert_allclose(obs.values, ref.values, rtol=0, atol=1e-12)
    assert obs.covariance.shape == (1, D, D, 3)
    assert all(np.all(np.linalg.eigvalsh(obs.covariance[0, :, :, j]) > -1e-10) for j in range(3))


def test_multiclass_classifier_joint_chunks_and_frames(three_classes):
    pd = pytest.importorskip("pandas")
    gpc, X, B, x_rows = three_classes
    e = explain_gp(gpc, x_rows, background=B, joint=True)
    n = len(x_rows)
    assert e.joint_covariance.shape == (n * D, n * D, 3)
    one = explain_gp(_binary(gpc, 0), x_rows, background=B, joint=True)
    np.testing.assert_array_equal(e[..., "a"].joint_covariance, one.joint_covariance)
    assert e[1, :2, "c"].covariance.shape == (2, 2)
    chunked = explain_gp(gpc, x_rows, background=B, rows_per_chunk=1, n_jobs=1)
    np.testing.assert_allclose(chunked.covariance, e.covariance, rtol=0, atol=1e-12)
    cols = ["u", "v", "w"]
    labels = gpc.classes_[np.argmax([est.y_train_ for est in gpc.base_estimator_.estimators_], axis=0)]
    named = type(gpc)(gpc.kernel, optimizer=None).fit(pd.DataFrame(X, columns=cols), labels)
    f = explain_gp(named, pd.DataFrame(x_rows, columns=cols), background=pd.DataFrame(B, columns=cols))
    assert f.feature_names == cols and f.values.shape == (n, D, 3)


@pytest.mark.parametrize("method", ["product", "sampled"])
def test_chunks_and_workers_do_not_change_the_result(small, method):
    gp, X, B, x_rows = small
    kw = {"budget": 200, "random_state": 3} if method == "sampled" else {}
    one = explain_gp(gp, x_rows, background=B, method=method, rows_per_chunk=1, n_jobs=1, **kw)
    two = explain_gp(gp, x_rows, background=B, method=method, rows_per_chunk=1, n_jobs=2, **kw)
    np.testing.assert_array_equal(one.values, two.values)
    np.testing.assert_array_equal(one.covariance, two.covariance)
    assert one.covariance.shape == (len(x_rows), D, D)
    if method == "product":   # chunked rows are exact too
        whole = explain_gp(gp, x_rows, background=B, method=method)
        np.testing.assert_allclose(one.covariance, whole.covariance, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="joint=True"):
        explain_gp(gp, x_rows, background=B, joint=True, n_jobs=2)


def test_interpolated_points_give_zero_not_negative_variances():
    # a noise-free GP explained at its own training points: the posterior variances are zero but
    # for rounding, which used to come out a hair below zero and fail the Explanation's check
    import warnings

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gp = GaussianProcessRegressor().fit(X, X[:, 0])
    e = kx.explain_gp(gp, X[:2], background=X[:5])
    variances = np.diagonal(e.covariance, axis1=1, axis2=2)
    assert variances.min() >= 0.0
    assert np.all(np.isfinite(e.stderr))


@pytest.mark.parametrize("method", ["exact", "product", "sampled"])
def test_the_covariance_of_a_small_gp_runs_on_one_blas_thread(method, monkeypatch):
    # small training systems: one BLAS thread (as the cost guard prices them; threaded BLAS
    # only synchronises on them, and a busy machine made the call 2x slower)
    from kernelxai._threads import blas_threads
    from kernelxai.explainers import _gp_routes as gp_routes

    route_class = {"exact": "ExactRoute", "product": "ProductRoute", "sampled": "SampledRoute"}[method]
    seen = []
    original = getattr(gp_routes, route_class).per_point

    def per_point(self, X):
        seen.append(blas_threads())
        return original(self, X)

    monkeypatch.setattr(getattr(gp_routes, route_class), "per_point", per_point)
    X, y = _data()
    e = explain_gp(_gp(X, y), X[:2], background=X[:8], method=method, random_state=0)
    assert seen == [1] and e.covariance.shape == (2, X.shape[1], X.shape[1])
