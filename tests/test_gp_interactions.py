"""GP-SHAP of interaction indices: posterior means, standard deviations and covariances of any order.

The oracle is brute force, written here from scikit-learn and the enumeration oracle only:
all 2**d coalitions, the evaluation points (x_S, b_{S^c}), the latent posterior covariance C
of f at them from ``gp.predict(Z, return_cov=True)``, the worths' covariance
``a C a^T`` (a: 1/m per background row), and each index's weights on the worths from its
*definition* (``kernelxai.estimators._interaction_enumeration.enumerate_interactions``
applied to the unit games), so the brute-force covariance is ``A a C a^T A^T``.
kernelxai's exact route goes through the Moebius weights and its product route through
quadrature: neither is the oracle.
"""

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessClassifier, GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Matern

import kernelxai as kx
from kernelxai.estimators._interaction_enumeration import enumerate_interactions
from kernelxai.estimators._interaction_indices import INDEX_NAMES, get_index
from kernelxai.explanation._interaction_sets import lexicographic_sets

M_BG = 4


def _data(d, n=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] * X[:, -1] + 0.05 * rng.normal(size=n)
    return X, y


def _gp(d, kernel=None, normalize_y=False, seed=0):
    X, y = _data(d, seed=seed)
    if kernel is None:
        kernel = ConstantKernel(1.5, "fixed") * RBF(np.linspace(0.8, 1.4, d), "fixed")
    gp = GaussianProcessRegressor(kernel, alpha=1e-2, normalize_y=normalize_y, optimizer=None).fit(X, y)
    return gp, X


def _cells(x, B):
    """Evaluation points (2**d * m, d), coalitions in bitmask order (bit j = feature j), b fastest."""
    d = x.shape[0]
    masks = ((np.arange(2**d)[:, None] >> np.arange(d)) & 1).astype(bool)
    return np.where(masks[:, None, :], x[None, None, :], B[None, :, :]).reshape(-1, d)


def _brute(latent, x, B, index, order, sizes=None):
    """{t: (sets, mean (m_t,))} and the covariance (M, M) of all sets, sizes ascending."""
    d, m = x.shape[0], B.shape[0]
    mean_z, cov_z = latent(_cells(x, B))
    a = np.kron(np.eye(2**d), np.full((1, m), 1.0 / m))          # worths = a f(Z)
    mean_v, cov_v = a @ mean_z, a @ cov_z @ a.T
    unit = enumerate_interactions(np.eye(2**d), index, order, sizes=sizes)   # each unit game's index
    A = np.concatenate([unit[t].values.T for t in sorted(unit)])            # (M, 2**d)
    return {t: unit[t].sets for t in sorted(unit)}, A @ mean_v, A @ cov_v @ A.T


def _regressor_latent(gp):
    def latent(Z):
        mean, cov = gp.predict(Z, return_cov=True)
        return mean, cov
    return latent


def _orders_of(index, d):
    idx = get_index(index)
    return [1] if idx.order_means == "1" else [k for k in (1, 2, 3) if k <= d]


def _held(e, i):
    """(sets by size, mean (M,), sd (M,), cov (M, M) or None) of point i."""
    orders = e.interaction_orders
    sets = {t: b.sets for t, b in orders.blocks.items()}
    mean = np.concatenate([b.values[i] for b in orders.blocks.values()])
    sd = np.concatenate([b.stderr[i] for b in orders.blocks.values()])
    cov = None if orders.covariance is None else orders.covariance[i]
    return sets, mean, sd, cov


def _close(got, want, rtol=1e-9):
    scale = max(np.max(np.abs(want)), 1e-300)
    np.testing.assert_allclose(got, want, rtol=0, atol=rtol * scale)


@pytest.fixture(scope="module")
def four():
    gp, X = _gp(4)
    return gp, X[:M_BG], np.vstack([X[10:12], [[0.3, -1.2, 2.0, 0.5]]])


CASES = [(index, order) for index in INDEX_NAMES for order in _orders_of(index, 4)]


@pytest.mark.parametrize("method", ["exact", "product"])
@pytest.mark.parametrize(("index", "order"), CASES, ids=[f"{i}-{k}" for i, k in CASES])
def test_every_index_and_order_matches_brute_force(four, index, order, method):
    gp, B, P = four
    e = kx.explain_gp(gp, P, background=B, index=index, order=order, method=method, set_covariance=True)
    assert e.meta["method"] == method and e.meta["index"] == get_index(index).name
    for i in range(len(P)):
        sets, mean, cov = _brute(_regressor_latent(gp), P[i], B, index, order,
                                 sizes=e.interaction_orders.sizes)
        got_sets, got_mean, got_sd, got_cov = _held(e, i)
        for t in sets:
            np.testing.assert_array_equal(got_sets[t], sets[t])
        _close(got_mean, mean)
        _close(got_cov, cov)
        _close(got_sd, np.sqrt(np.clip(np.diag(cov), 0, None)), rtol=1e-7)


@pytest.mark.parametrize("d", [3, 5, 6])
@pytest.mark.parametrize(("index", "order"), [("SII", 2), ("k-SII", 3), ("STII", 3), ("BV", 1), ("Moebius", 3),
                                              ("FSII", 2), ("FBII", 3)])
def test_product_variances_at_several_d_match_brute_force(d, index, order):
    gp, X = _gp(d, seed=d)
    B, P = X[:3], X[20:22]
    e = kx.explain_gp(gp, P, background=B, index=index, order=order, method="product")
    assert e.interaction_orders.covariance is None
    for i in range(len(P)):
        _, mean, cov = _brute(_regressor_latent(gp), P[i], B, index, order, sizes=e.interaction_orders.sizes)
        _, got_mean, got_sd, _ = _held(e, i)
        _close(got_mean, mean)
        _close(got_sd ** 2, np.diag(cov))


def test_order_one_shapley_values_are_todays_explain_gp(four):
    gp, B, P = four
    today = kx.explain_gp(gp, P, background=B)
    for method in ("exact", "product"):
        e = kx.explain_gp(gp, P, background=B, index="SV", method=method, set_covariance=True)
        np.testing.assert_allclose(e.values, today.values, rtol=0, atol=1e-12)
        np.testing.assert_allclose(e.covariance, today.covariance, rtol=0, atol=1e-12)
        np.testing.assert_allclose(e.stderr, today.stderr, rtol=0, atol=1e-12)
        np.testing.assert_allclose(e.lower, today.lower, rtol=0, atol=1e-12)
        np.testing.assert_allclose(e.interaction_orders.covariance, today.covariance, rtol=0, atol=1e-12)


def test_without_index_nothing_changes(four):
    gp, B, P = four
    e = kx.explain_gp(gp, P, background=B, method="product")
    assert e.interaction_orders is None and e.meta["method"] == "product"
    assert "index" not in e.meta


@pytest.mark.parametrize(("index", "order"), [("SV", 1), ("k-SII", 2), ("k-SII", 3), ("STII", 3), ("FSII", 3)])
def test_efficiency_of_the_mean_and_of_the_covariance(four, index, order):
    """The efficient sets sum to f(x) - mean_b f(b) in every posterior draw: their means sum to the
    posterior mean's gap and 1^T C 1 over them is the variance of the gap (not zero: the gap is random)."""
    gp, B, P = four
    e = kx.explain_gp(gp, P, background=B, index=index, order=order, set_covariance=True)
    a = np.r_[1.0, np.full(len(B), -1.0 / len(B))]
    for i in range(len(P)):
        mean, C = gp.predict(np.vstack([P[i:i + 1], B]), return_cov=True)
        _, got_mean, _, got_cov = _held(e, i)
        np.testing.assert_allclose(got_mean.sum(), a @ mean, rtol=1e-10)
        np.testing.assert_allclose(got_cov.sum(), a @ C @ a, rtol=1e-8)
        assert a @ C @ a > 1e-6


def test_moebius_of_every_order_sums_to_the_gap(four):
    gp, B, P = four
    d = P.shape[1]
    every = [s for t in range(1, d + 1) for s in lexicographic_sets(d, t).tolist()]
    e = kx.explain_gp(gp, P[:1], background=B, index="Moebius", order=1, sets=every, set_covariance=True)
    a = np.r_[1.0, np.full(len(B), -1.0 / len(B))]
    mean, C = gp.predict(np.vstack([P[:1], B]), return_cov=True)
    assert e.interaction_orders.sizes == [1, 2, 3, 4]
    np.testing.assert_allclose(e.interaction_orders.covariance[0].sum(), a @ C @ a, rtol=1e-8)
    np.testing.assert_allclose(sum(b.values.sum() for b in e.interaction_orders.blocks.values()), a @ mean,
                               rtol=1e-10)


@pytest.mark.parametrize("case", ["ard-sum-constant", "normalize_y", "matern-exact"])
def test_kernels_and_normalize_y_against_brute_force(case):
    d = 4
    if case == "ard-sum-constant":
        kernel = ConstantKernel(1.2, "fixed") * RBF([0.7, 1.5, 1.0, 2.5], "fixed") + ConstantKernel(0.4, "fixed")
        gp, X = _gp(d, kernel)
    elif case == "normalize_y":
        gp, X = _gp(d, normalize_y=True)
    else:
        gp, X = _gp(d, Matern(1.0, nu=1.5))
    B, P = X[:3], X[15:17]
    methods = ["exact"] if case == "matern-exact" else ["exact", "product"]
    for method in methods:
        e = kx.explain_gp(gp, P, background=B, index="k-SII", order=2, method=method, set_covariance=True)
        for i in range(len(P)):
            _, mean, cov = _brute(_regressor_latent(gp), P[i], B, "k-SII", 2)
            _, got_mean, _, got_cov = _held(e, i)
            _close(got_mean, mean)
            _close(got_cov, cov)
    if case == "matern-exact":
        with pytest.raises(ValueError, match="method='product' needs a product kernel"):
            kx.explain_gp(gp, P, background=B, index="k-SII", order=2, method="product")
        assert kx.explain_gp(gp, P, background=B, index="SII", order=2).meta["method"] == "exact"


def test_binary_classifier_latent_posterior():
    from scipy.linalg import solve_triangular

    X, _ = _data(3, n=40, seed=3)
    y = np.where(X[:, 0] + X[:, 1] * X[:, 2] > 0, "yes", "no")
    gpc = GaussianProcessClassifier(ConstantKernel(2.0, "fixed") * RBF([1.0, 1.3, 0.8], "fixed"),
                                    optimizer=None).fit(X, y)
    base = gpc.base_estimator_

    def latent(Z):          # the Laplace posterior of the latent f (GPML Alg. 3.2), by hand
        KxZ = base.kernel_(base.X_train_, Z)
        v = solve_triangular(base.L_, base.W_sr_[:, None] * KxZ, lower=True)
        return KxZ.T @ (base.y_train_ - base.pi_), base.kernel_(Z) - v.T @ v

    B, P = X[:3], X[20:22]
    for method in ("exact", "product"):
        e = kx.explain_gp(gpc, P, background=B, index="STII", order=2, method=method, set_covariance=True)
        assert "Laplace" in e.meta["covariance"] and "STII" in e.meta["covariance"]
        for i in range(len(P)):
            _, mean, cov = _brute(latent, P[i], B, "STII", 2)
            _, got_mean, _, got_cov = _held(e, i)
            _close(got_mean, mean)
            _close(got_cov, cov)


def test_multiclass_classifier_is_each_class_binary_classifier():
    X, _ = _data(3, n=45, seed=5)
    y = np.array(["a", "b", "c"])[np.argmax(X, axis=1)]
    gpc = GaussianProcessClassifier(RBF([1.0, 1.3, 0.8], "fixed"), optimizer=None).fit(X, y)
    B, P = X[:3], X[20:22]
    e = kx.explain_gp(gpc, P, background=B, index="SII", order=2, set_covariance=True)
    assert e.interaction_orders.axes == ("instance", "output") and e.output_names == ["a", "b", "c"]
    from kernelxai.explainers._gp_posterior import one_vs_rest

    for c, (_, binary) in enumerate(one_vs_rest(gpc)):
        one = kx.explain_gp(binary, P, background=B, index="SII", order=2, set_covariance=True)
        np.testing.assert_array_equal(e.interaction_orders[2].stderr[..., c], one.interaction_orders[2].stderr)
        np.testing.assert_array_equal(e.interaction_orders.covariance[..., c], one.interaction_orders.covariance)


def test_sets_and_top_give_the_dense_standard_deviations(four):
    gp, B, P = four
    dense = kx.explain_gp(gp, P, background=B, index="SII", order=3, method="product")
    chosen = [(2, 0, 1), (1, 3, 2)]
    e = kx.explain_gp(gp, P, background=B, index="SII", order=3, sets=chosen, method="product",
                      set_covariance=True)
    block = e.interaction_orders[3]
    assert block.layout == "sets" and e.interaction_orders.covariance.shape == (3, 2, 2)
    for j, s in enumerate(block.sets):
        where = np.flatnonzero((dense.interaction_orders[3].sets == s).all(axis=1))[0]
        np.testing.assert_allclose(block.stderr[:, j], dense.interaction_orders[3].stderr[:, where], rtol=1e-10)
    top = kx.explain_gp(gp, P, background=B, index="SII", order=3, top=2)
    tb = top.interaction_orders[3]
    assert tb.layout == "top" and tb.stderr.shape == (3, 2)
    for i in range(len(P)):
        for j in range(2):
            where = np.flatnonzero((dense.interaction_orders[3].sets == tb.sets[i, j]).all(axis=1))[0]
            np.testing.assert_allclose(tb.stderr[i, j], dense.interaction_orders[3].stderr[i, where], rtol=1e-10)
    exact_top = kx.explain_gp(gp, P, background=B, index="SII", order=3, top=2, method="exact")
    np.testing.assert_array_equal(exact_top.interaction_orders[3].sets, tb.sets)
    np.testing.assert_allclose(exact_top.interaction_orders[3].stderr, tb.stderr, rtol=1e-9)
    # feature names in sets=, and the exact route agrees
    names = ["a", "b", "c", "d"]
    import pandas as pd

    ef = kx.explain_gp(gp, pd.DataFrame(P, columns=names), background=pd.DataFrame(B, columns=names),
                       index="SII", order=3, sets=[("c", "a", "b")], method="exact")
    np.testing.assert_allclose(ef.interaction_orders[3].stderr[:, 0], block.stderr[:, 0], rtol=1e-9)


def test_frames_json_and_slicing_carry_the_uncertainty(four):
    gp, B, P = four
    e = kx.explain_gp(gp, P, background=B, index="k-SII", order=2, set_covariance=True)
    orders = e.interaction_orders
    frame = orders.to_frame()
    assert list(frame.columns) == ["point", "order", "set", "value", "stderr"]
    np.testing.assert_allclose(frame["stderr"].to_numpy()[:4], orders[1].stderr[0])
    back = kx.Explanation.from_json(e.to_json())
    np.testing.assert_array_equal(back.interaction_orders[2].stderr, orders[2].stderr)
    np.testing.assert_array_equal(back.interaction_orders.covariance, orders.covariance)
    labels = orders.covariance_labels()
    assert labels[:4] == ["x0", "x1", "x2", "x3"] and labels[4] == "x0 × x1"
    # slicing by point and by feature keeps the sets and their covariance consistently
    sub = e[1:, ["x3", "x1", "x2"]]
    so = sub.interaction_orders
    assert so.covariance.shape == (2, 6, 6)
    full = dict(zip(labels, range(len(labels))))
    kept = [full[lab] if lab in full else full[" × ".join(sorted(lab.split(" × "), key=lambda n: int(n[1:])))]
            for lab in so.covariance_labels()]
    np.testing.assert_array_equal(so.covariance, orders.covariance[1:][:, kept][:, :, kept])
    np.testing.assert_array_equal(so[2].stderr, np.sqrt(np.diagonal(so.covariance, axis1=1, axis2=2))[:, 3:])
    # chunks of rows give the same numbers
    chunked = kx.explain_gp(gp, P, background=B, index="k-SII", order=2, set_covariance=True, rows_per_chunk=1)
    np.testing.assert_array_equal(chunked.interaction_orders.covariance, orders.covariance)
    np.testing.assert_array_equal(chunked.interaction_orders[2].stderr, orders[2].stderr)


def test_observational_exact_route(four):
    gp, B, P = four
    today = kx.explain_gp(gp, P, "observational", background=B, method="exact")
    e = kx.explain_gp(gp, P, "observational", background=B, index="SV", set_covariance=True)
    assert e.meta["method"] == "exact" and e.meta["eta"] == 1e-3
    np.testing.assert_allclose(e.values, today.values, rtol=0, atol=1e-12)
    np.testing.assert_allclose(e.covariance, today.covariance, rtol=0, atol=1e-12)
    pairs = kx.explain_gp(gp, P, "observational", background=B, index="SII", order=2)
    assert np.all(pairs.interaction_orders[2].stderr > 0)
    with pytest.raises(ValueError, match="interventional values only"):
        kx.explain_gp(gp, P, "observational", background=B, index="SII", order=2, method="product")


def test_refusals(four):
    gp, B, P = four
    with pytest.raises(ValueError, match="top= picks different sets per point"):
        kx.explain_gp(gp, P, background=B, index="SII", order=2, top=2, set_covariance=True)
    with pytest.raises(ValueError, match="joint=True gives the covariance of first-order"):
        kx.explain_gp(gp, P, background=B, index="SII", order=2, joint=True)
    with pytest.raises(ValueError, match="method='sampled' estimates the covariance of first-order"):
        kx.explain_gp(gp, P, background=B, index="SII", order=2, method="sampled")
    with pytest.raises(ValueError, match="budget applies to method='sampled'"):
        kx.explain_gp(gp, P, background=B, index="SII", order=2, budget=100)
    with pytest.raises(ValueError, match="apply with index="):
        kx.explain_gp(gp, P, background=B, order=2)
    with pytest.raises(ValueError, match="apply with index="):
        kx.explain_gp(gp, P, background=B, set_covariance=True)
    with pytest.raises(ValueError, match="did you mean 'k-SII'"):
        kx.explain_gp(gp, P, background=B, index="k-SI")
    with pytest.raises(ValueError, match="order must be"):
        kx.explain_gp(gp, P, background=B, index="SII", order=5)
    big, X = _gp(16)
    with pytest.raises(ValueError, match="enumerates the 2\\^d coalitions"):
        kx.explain_gp(big, X[:1], background=X[:8], index="SII", order=2, method="exact")


def test_the_cost_guard_prices_the_call(four):
    gp, B, P = four
    with kx.config_context(max_cost=1e-9), pytest.raises(kx.estimators.CostLimitError,
                                                          match="product GP posterior covariance of SII"):
        kx.explain_gp(gp, P, background=B, index="SII", order=2)
    e = kx.explain_gp(gp, P, background=B, index="SII", order=2)
    assert e.meta["estimated_seconds"] > 0
    six, X6 = _gp(6)        # the exact route holds the (2^6 x 2^6) covariance of the worths: 64 KiB and more
    with kx.config_context(max_memory=2**16), pytest.raises(kx.estimators.CostLimitError, match="would hold about"):
        kx.explain_gp(six, X6[:2], background=X6[:3], index="SII", order=2, method="exact", set_covariance=True)


def test_product_route_at_d_8_matches_the_exact_route():
    gp, X = _gp(8, seed=8)
    B, P = X[:3], X[20:21]
    for index, order in (("SII", 3), ("k-SII", 3), ("BGV", 2)):
        ex = kx.explain_gp(gp, P, background=B, index=index, order=order, method="exact", set_covariance=True)
        pr = kx.explain_gp(gp, P, background=B, index=index, order=order, method="product", set_covariance=True)
        _close(pr.interaction_orders.covariance, ex.interaction_orders.covariance)


@pytest.mark.parametrize("method", ["exact", "product"])
def test_the_empty_set_and_mixed_sizes_against_brute_force(four, method):
    gp, B, P = four
    chosen = [(), (0, 2), (1,), (3, 1, 0)]
    e = kx.explain_gp(gp, P[:2], background=B, index="SII", order=3, sets=chosen, method=method,
                      set_covariance=True)
    assert e.interaction_orders.sizes == [0, 1, 2, 3]
    for i in range(2):
        d, m = 4, len(B)
        mean_z, cov_z = _regressor_latent(gp)(_cells(P[i], B))
        a = np.kron(np.eye(2**d), np.full((1, m), 1.0 / m))
        unit = enumerate_interactions(np.eye(2**d), "SII", 3, sets=chosen)
        A = np.concatenate([unit[t].values.T for t in sorted(unit)])
        _, got_mean, _, got_cov = _held(e, i)
        _close(got_mean, A @ a @ mean_z)
        _close(got_cov, A @ a @ cov_z @ a.T @ A.T)


def test_workers_give_the_numbers_of_one_process(four):
    gp, B, P = four
    one = kx.explain_gp(gp, P, background=B, index="STII", order=3, set_covariance=True)
    two = kx.explain_gp(gp, P, background=B, index="STII", order=3, set_covariance=True, n_jobs=2,
                        rows_per_chunk=1)
    assert two.meta["parallel"]["chunks"] == 3
    np.testing.assert_array_equal(two.interaction_orders.covariance, one.interaction_orders.covariance)
    np.testing.assert_array_equal(two.interaction_orders[3].values, one.interaction_orders[3].values)
