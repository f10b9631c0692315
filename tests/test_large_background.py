"""Large backgrounds: mean embeddings as chunked reductions, and the MMD bound of a summary (#16, item 3).

* The interventional mean embeddings mu_{S^c}(x_i) = (1/m) sum_b K_{S^c}(b, x_i)
  are reductions over the background: computed in blocks, equal to the
  unchunked computation (1e-12) and to a direct numpy formula written here; a
  background of 10^6 rows runs with a small block size and never holds an
  (n_train, m) array.
* ``kx.explainers.summary_bound``: for every explained point and feature,
  |phi(full) - phi(summary)| <= ||f|| (r1_i + r2_i), with r1, r2 Shapley-weighted
  root-mean-square MMDs of the marginals (derivation in its docstring). The
  Beta-integral form is checked against enumerating all 2^d marginal MMDs,
  and the bound against observed changes; a constructed case shows that the
  MMD of all features alone (||f|| * MMD) does not bound Shapley values.
"""

import itertools
import math
import tracemalloc

import numpy as np
import pytest
from sklearn.kernel_approximation import Nystroem
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import kernelxai as kx
from kernelxai.estimators._registry import CostLimitError
from kernelxai.explainers import mean_embedding, summary_bound
from kernelxai.games import all_coalitions
from kernelxai.kernels import RBF, Laplace
from kernelxai.models import KernelExpansion
from kernelxai.values._interventional import Interventional


def _rbf_factors(A, B, ls):
    """k_l(a_l, b_l) for all pairs, written out: (len(A), len(B), d)."""
    return np.exp(-((A[:, None, :] - B[None, :, :]) ** 2) / (2 * np.asarray(ls) ** 2))


# --------------------------------------------------------------------------- #
# chunked mean embeddings
# --------------------------------------------------------------------------- #
def test_chunked_mean_embeddings_equal_unchunked_and_the_direct_formula():
    rng = np.random.default_rng(0)
    d, n, m = 4, 7, 3000
    ls = np.array([0.8, 1.2, 1.0, 2.0])
    Xt = rng.normal(size=(n, d))
    f = KernelExpansion(Xt, rng.normal(size=n), RBF(ls), 0.1)
    B = rng.normal(size=(m, d))
    X = rng.normal(size=(3, d))
    Z = all_coalitions(d)
    small = Interventional(f, B, max_elements=500).game(X)
    large = Interventional(f, B, max_elements=10**8).game(X)
    mu_small = small._absent_embeddings(Z)
    mu_large = large._absent_embeddings(Z)
    assert small._step(len(Z)) < 10 and large._step(len(Z)) >= m   # really chunked / really not
    np.testing.assert_allclose(mu_small, mu_large, rtol=1e-12, atol=0)
    # mu[S, i] = (1/m) sum_b prod_{l not in S} k_l(b_l, x_il), straight from the definition
    G = _rbf_factors(B, Xt, ls)                                        # (m, n, d)
    direct = np.stack([np.prod(np.where(z, 1.0, G), axis=-1).mean(axis=0) for z in Z])
    np.testing.assert_allclose(mu_small, direct, rtol=1e-12, atol=0)
    # the tabulated worths (all 2^d coalitions at once) as well
    np.testing.assert_allclose(small.worth_table(), large.worth_table(), rtol=1e-12, atol=1e-14)


def test_background_mean_embedding_blocks_both_axes():
    rng = np.random.default_rng(1)
    A, X = rng.normal(size=(3, 3)), rng.normal(size=(600, 3))
    kernel = RBF(np.array([1.0, 0.5, 2.0]))
    want = np.prod(_rbf_factors(A, X, [1.0, 0.5, 2.0]), axis=-1).mean(axis=1)
    for budget in (1, 7, 599, 10**7):       # blocks smaller than one row of X, too
        np.testing.assert_allclose(mean_embedding(kernel, A, X, budget), want, rtol=1e-12)


def test_a_million_row_background_runs_in_small_blocks():
    """10^6 x 5 background, blocks of 2^18 numbers: no (n_train, m) array (5 x 10^6 = 40 MB) is formed."""
    rng = np.random.default_rng(2)
    d, n, m = 5, 5, 1_000_000
    f = KernelExpansion(rng.normal(size=(n, d)), rng.normal(size=n), RBF(np.full(d, 1.5)), 0.3)
    B = rng.normal(size=(m, d))
    X = rng.normal(size=(2, d))
    tracemalloc.start()
    try:
        with kx.config_context(progress=False):
            e = kx.explain(f, X, background=B, method="exact", max_elements=2**18)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < n * m * 8 / 4, f"peak {peak / 1e6:.1f} MB"
    assert e.meta["n_background"] == m
    np.testing.assert_allclose(e.values.sum(1) + e.base_values, f.predict(X), rtol=0, atol=1e-12)
    # the base value is the mean of f over the background, by the definition
    np.testing.assert_allclose(e.base_values, f.predict(B).mean(), rtol=0, atol=1e-12)


# --------------------------------------------------------------------------- #
# the bound of a summary
# --------------------------------------------------------------------------- #
def _marginal_mmd2(ker_factors, P, Q, T):
    """MMD^2 of the marginals on features T, from per-feature kernel values (written out)."""
    if not T:
        return 0.0
    k = lambda A, C: np.prod(ker_factors(A, C)[..., list(T)], axis=-1).mean()
    return k(P, P) - 2 * k(P, Q) + k(Q, Q)


def test_shapley_weighted_marginal_mmds_equal_enumeration_over_coalitions():
    rng = np.random.default_rng(3)
    d = 4
    ls = np.array([0.7, 1.3, 1.0, 2.0])
    P = rng.normal(size=(120, d))
    Q = rng.normal(size=(9, d)) * 0.8 + 0.2
    f = KernelExpansion(rng.normal(size=(15, d)), rng.normal(size=15), RBF(ls), 0.5)
    b = summary_bound(f, Q, P, max_elements=400)                      # many small blocks
    factors = lambda A, C: _rbf_factors(A, C, ls)
    for i in range(d):
        r1 = r2 = 0.0
        others = [l for l in range(d) if l != i]
        for s in range(d):
            w = math.factorial(s) * math.factorial(d - s - 1) / math.factorial(d)
            for S in itertools.combinations(others, s):
                r1 += w * _marginal_mmd2(factors, P, Q, sorted(set(others) - set(S)))
                r2 += w * _marginal_mmd2(factors, P, Q, sorted(set(range(d)) - set(S)))
        assert b.feature_mmd[i] == pytest.approx(np.sqrt(r1) + np.sqrt(r2), rel=1e-11)
    assert b.mmd == pytest.approx(np.sqrt(_marginal_mmd2(factors, P, Q, range(d))), rel=1e-11)
    K = np.prod(factors(f.X_train, f.X_train), axis=-1)
    assert b.norm == pytest.approx(np.sqrt(f.alpha @ K @ f.alpha), rel=1e-12)
    np.testing.assert_allclose(b.bound, b.norm * b.feature_mmd, rtol=1e-15)
    assert b.base_bound == pytest.approx(b.norm * b.mmd, rel=1e-15)


def _check_bound_holds(model, full, summary, X):
    with kx.config_context(progress=False):
        bound = summary_bound(model, summary, full)
        e_full = kx.explain(model, X, background=full)
        e_sum = kx.explain(model, X, background=summary.points)
    observed = np.abs(e_full.values - e_sum.values).max(axis=0)
    assert np.all(observed <= bound.bound), (observed, bound.bound)
    assert np.abs(e_full.base_values - e_sum.base_values).max() <= bound.base_bound
    assert observed.max() > 0.005 * bound.bound.max()  # not vacuous (Cauchy-Schwarz: ~20-40x here)
    return observed, bound


def test_summary_bound_holds_for_a_nystroem_model():
    """A 1500-row background, a 50-point k-means summary, a Nystroem ridge regression."""
    rng = np.random.default_rng(4)
    d = 5
    full = rng.normal(size=(1500, d)) * [1, 2, 1, 0.5, 1] + [0, 1, 0, 0, 3]
    y = np.sin(full[:, 0]) * full[:, 1] + full[:, 2] ** 2 - full[:, 4]
    model = make_pipeline(StandardScaler(), Nystroem(gamma=0.2, n_components=60, random_state=0),
                          Ridge(1e-2)).fit(full, y)
    summary = kx.explainers.summarize(full, 50, method="kmeans", seed=0)
    X = full[rng.choice(len(full), 20, replace=False)]
    _check_bound_holds(model, full, summary, X)


@pytest.mark.slow
def test_summary_bound_holds_for_a_20000_row_background():
    rng = np.random.default_rng(5)
    d = 5
    full = rng.normal(size=(20_000, d))
    y = full[:, 0] * full[:, 1] + np.cos(full[:, 2])
    model = make_pipeline(Nystroem(gamma=0.3, n_components=100, random_state=0), Ridge(1e-2)).fit(full, y)
    summary = kx.explainers.summarize(full, 50, method="kmeans", seed=0)
    _check_bound_holds(model, full, summary, full[:10])   # 32 coalitions x 20,000 rows x 10 points


def test_the_joint_mmd_alone_does_not_bound_shapley_values():
    """Backgrounds that differ only in feature 2, spread out in feature 1 (short lengthscale there).

    The joint MMD is small (few pairs are close in feature 1), but the marginal
    MMD of feature 2 is not, and phi_2 moves by more than 2 ||f|| MMD; the
    bound with the marginal MMDs holds.
    """
    n = 200
    ls = np.array([0.05, 1.0])
    P = np.c_[np.arange(n, dtype=float), np.zeros(n)]
    Q = np.c_[np.arange(n, dtype=float), np.ones(n)]
    f = KernelExpansion(np.array([[0.0, 0.0]]), np.array([1.0]), RBF(ls))   # ||f|| = 1
    x = np.array([[0.0, 0.0]])
    dphi = np.abs(kx.explain(f, x, background=P).values - kx.explain(f, x, background=Q).values)[0]
    b = summary_bound(f, Q, P)
    assert b.norm == pytest.approx(1.0)
    # closed form of the game: phi_2 moves by (1 - e^{-1/2}) (1 + 1/n) / 2
    assert dphi[1] == pytest.approx((1 - np.exp(-0.5)) * (1 + 1 / n) / 2, rel=1e-12)
    assert dphi[1] > 2 * b.norm * b.mmd                # the joint MMD is not enough
    assert np.all(dphi <= b.bound)                     # the marginal MMDs are


def test_summary_bound_refuses_what_it_cannot_bound():
    rng = np.random.default_rng(6)
    P, Q = rng.normal(size=(50, 2)), rng.normal(size=(5, 2))
    from kernelxai.kernels import Matern

    f = KernelExpansion(P[:5], np.ones(5), Matern(1.0, 1.5))
    with pytest.raises(TypeError, match="product kernel"):
        summary_bound(f, Q, P)
    g = KernelExpansion(P[:5], np.ones(5), Laplace(1.0))
    with kx.config_context(max_cost=1e-9), pytest.raises(CostLimitError, match="summary_bound"):
        summary_bound(g, Q, P)
    with pytest.raises(ValueError, match="summary"):
        summary_bound(g, Q[:, :1], P)
    # a BackgroundSummary is accepted as it is used: its points, unweighted
    s = kx.explainers.summarize(P, 5, method="herding")
    assert summary_bound(g, s, P).bound == pytest.approx(summary_bound(g, s.points, P).bound)


# --------------------------------------------------------------------------- #
# the reductions over a large sample run in parts, on any number of workers
# --------------------------------------------------------------------------- #
@pytest.fixture
def parts_of_64_rows(monkeypatch):
    from kernelxai.parallel import _reductions as reductions

    monkeypatch.setattr(reductions, "PART_FLOPS", 1.0)
    monkeypatch.setattr(reductions, "MIN_PART_ROWS", 64)


def test_mmd_summaries_and_the_bound_do_not_depend_on_the_workers(parts_of_64_rows):
    """Parts of 64 rows (the 700-row sample in 11 parts): the same bits on 1 worker and on 2
    (threads, so that they see the patched part size), and the values of the direct formulas."""
    import joblib

    rng = np.random.default_rng(10)
    d = 3
    full = rng.normal(size=(700, d))
    ls = np.array([1.0, 0.7, 1.5])
    kernel = RBF(ls)
    model = KernelExpansion(full[:30], rng.normal(size=30), kernel, 0.0)

    def everything(n_jobs):
        s = kx.explainers.summarize(full, 20, method="herding", kernel=kernel, n_jobs=n_jobs)
        m = kx.explainers.mmd(full[:40], full, kernel=kernel, n_jobs=n_jobs)
        b = summary_bound(model, s, full, n_jobs=n_jobs)
        return s.points, s.mmd, m, b.bound, b.base_bound

    one = everything(1)
    with joblib.parallel_config(backend="threading"):
        two = everything(2)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)
    # the MMD from its definition, written out
    K = lambda A, C: np.prod(_rbf_factors(A, C, ls), axis=-1)
    S = full[:40]
    want = np.sqrt(K(S, S).mean() - 2 * K(S, full).mean() + K(full, full).mean())
    assert one[2] == pytest.approx(want, rel=1e-10)


def test_an_mmd_against_a_large_reference_refuses_before_starting():
    rng = np.random.default_rng(11)
    R = rng.normal(size=(3000, 4))
    with kx.config_context(max_cost=1e-3), pytest.raises(CostLimitError, match="subsample"):
        kx.explainers.mmd(R[:10], R)
    with kx.config_context(max_cost=1e-3), pytest.raises(CostLimitError, match="summarize"):
        kx.explainers.summarize(R, 10, method="herding")
