"""GP-SHAP benchmark: the exact covariance of a GP's Shapley values against its baselines.

A GaussianProcessRegressor with an ARD RBF kernel (hyper-parameters fixed, so
that the fit is not what is timed) on n = 500 points in d = 8 dimensions; a
background of m rows; a few explained points. For each point the posterior
covariance of its d Shapley values is computed four ways, in one run:

``explain_gp product``
    ``kx.explain_gp(gp, X, background=B, method="product")`` -- no coalitions
    enumerated.
``explain_gp exact``
    ``method="exact"`` -- enumerates the 2^d coalitions internally.
``brute force A C A^T``
    the evaluation points (x_S, b_{S^c}) enumerated (2^d * m per point,
    duplicates merged), ``C = gp.predict(Z, return_cov=True)``, the Shapley map
    A built vectorised, then ``A C A^T``.
``200 draws one by one``
    ``gp.sample_y`` at the evaluation points, then each draw explained on its
    own: its interventional game tabulated (v(S) = mean_b f(x_S, b_{S^c}))
    and solved with ``kx.shapley_values(kx.TabularGame(...))``; the sample
    covariance of the 200 explanations estimates the covariance (Monte Carlo).

Printed: seconds per route, the time ratios against explain_gp, and the largest
difference of each covariance from the brute force (exact routes: rounding;
draws: Monte-Carlo error, relative Frobenius error next to sqrt(2/draws)).

Usage: python benchmarks/bench_gp_shap.py [--quick] [--points K] [--background M] [--draws N]
``--quick`` shrinks every size (a smoke run of the script itself).
Timings on a shared machine are noisy: compare the ratios, not the seconds.
"""

from __future__ import annotations

import argparse

import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel

import kernelxai as kx
from kernelxai.workbench._reporting import timed


def _masks(d):
    return ((np.arange(2**d)[:, None] >> np.arange(d)) & 1).astype(bool)


def brute_force_map(x, B):
    """Unique evaluation points Z (p, d), the map A (d, p) with phi = A f(Z), and the cell index.

    ``cell`` (2^d, m) gives, for coalition S (bitmask) and background row b, the
    row of Z holding (x_S, b_{S^c}).
    """
    m, d = B.shape
    masks = _masks(d)
    size = masks.sum(axis=1)
    fact = np.cumprod(np.r_[1.0, np.arange(1, d + 1)])
    w_in = fact[np.maximum(size - 1, 0)] * fact[d - size] / fact[d]
    w_out = fact[size] * fact[np.maximum(d - size - 1, 0)] / fact[d]
    W = np.where(masks.T, w_in, -w_out)                               # (d, 2^d)
    Z = np.where(masks[:, None, :], x[None, None, :], B[None, :, :]).reshape(-1, d)
    Z_unique, inverse = np.unique(Z, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    A = np.zeros((d, len(Z_unique)))
    np.add.at(A.T, inverse, np.repeat(W, m, axis=1).T / m)
    return Z_unique, A, inverse.reshape(2**d, m)


def brute_force(gp, X, B):
    covs = []
    for x in X:
        Z, A, _ = brute_force_map(x, B)
        C = gp.predict(Z, return_cov=True)[1]
        covs.append(A @ C @ A.T)
    return np.stack(covs)


def draws_one_by_one(gp, X, B, n_draws, seed):
    covs = []
    for i, x in enumerate(X):
        Z, _, cell = brute_force_map(x, B)
        f = gp.sample_y(Z, n_samples=n_draws, random_state=seed + i)     # (p, n_draws)
        phis = np.empty((n_draws, X.shape[1]))
        for k in range(n_draws):                                          # one explanation per draw
            game = kx.TabularGame(f[cell, k].mean(axis=1))                # v(S) = mean_b f(x_S, b_{S^c})
            phis[k] = kx.shapley_values(game).values
        covs.append(np.cov(phis, rowvar=False))
    return np.stack(covs)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--points", type=int, default=None, help="explained points (default 4)")
    parser.add_argument("--background", type=int, default=None, help="background rows m (default 12)")
    parser.add_argument("--draws", type=int, default=None, help="posterior draws (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    n, d = (100, 6) if args.quick else (500, 8)
    k = args.points or (2 if args.quick else 4)
    m = args.background or (6 if args.quick else 12)
    n_draws = args.draws or (50 if args.quick else 200)

    rng = np.random.default_rng(args.seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * X[:, 3] ** 2 + 0.1 * rng.normal(size=n)
    kernel = ConstantKernel(1.0, "fixed") * RBF(np.linspace(1.0, 3.0, d), "fixed")
    gp = GaussianProcessRegressor(kernel, alpha=1e-2, optimizer=None).fit(X, y)
    B = kx.explainers.subsample(X, m, seed=args.seed)
    X_explain = rng.normal(size=(k, d))
    print(f"== GP-SHAP: GaussianProcessRegressor (ARD RBF) on n = {n}, d = {d}; background m = {m}; "
          f"{k} explained points; {2**d * m} evaluation points per point ==", flush=True)

    e_prod, t_prod = timed(lambda: kx.explain_gp(gp, X_explain, background=B, method="product"))
    e_exact, t_exact = timed(lambda: kx.explain_gp(gp, X_explain, background=B, method="exact"))
    cov_brute, t_brute = timed(lambda: brute_force(gp, X_explain, B))
    cov_draws, t_draws = timed(lambda: draws_one_by_one(gp, X_explain, B, n_draws, args.seed))

    scale = np.abs(cov_brute).max()
    rel = np.linalg.norm(cov_draws - cov_brute, axis=(1, 2)) / np.linalg.norm(cov_brute, axis=(1, 2))
    rows = [("explain_gp product", t_prod, np.abs(e_prod.covariance - cov_brute).max()),
            ("explain_gp exact", t_exact, np.abs(e_exact.covariance - cov_brute).max()),
            ("brute force A C A^T", t_brute, 0.0),
            (f"{n_draws} draws one by one", t_draws, np.abs(cov_draws - cov_brute).max())]
    print(f"{'route':<24} {'seconds':>9} {'/ product':>10} {'/ exact':>9} {'max |cov - brute|':>18}")
    for name, t, diff in rows:
        print(f"{name:<24} {t:>9.3f} {t / t_prod:>9.1f}x {t / t_exact:>8.1f}x {diff:>18.1e}")
    print(f"largest covariance entry {scale:.2e}; Monte-Carlo relative (Frobenius) error of the draws "
          f"{rel.mean():.3f} on average (sqrt(2/{n_draws}) = {np.sqrt(2 / n_draws):.3f})")
    print(f"values: max |explain_gp - A m(Z)| is checked in tests/test_gp_shap.py; "
          f"product vs exact values differ by {np.abs(e_prod.values - e_exact.values).max():.1e}")


if __name__ == "__main__":
    main()
