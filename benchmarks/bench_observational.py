"""The exact observational (CME) route against its floor: one Cholesky per coalition (#25).

RKHS-SHAP Prop. 3 needs, for every proper coalition S, one factorisation of
K_S(B, B) + m eta I (m background rows); everything else (building K_S, the
solves, the products) is the overhead the route adds to that floor.

Prints, measured in one run, for a KernelRidge with an RBF kernel fitted on n
rows (the background is the training set, m = n), d = 8 features, 5 explained
points and all 2^d - 2 proper coalitions, at n = 2000 and a smaller size:

* route: seconds of ``kx.explain(model, X[:5], value="observational", method="exact")``;
* floor: (2^d - 2) x the median seconds of one in-place LAPACK Cholesky (potrf)
  of the m x m matrix K + m eta I (``FLOOR_SAMPLES`` timed after each route
  run), with the same BLAS and the same thread count as the route (the route
  runs systems below ``SMALL_SYSTEM`` rows on one thread; the floor does too);
* route / floor (target <= 1.5 at n = 2000), and route / (2^d - 2) numpy
  Choleskys (``np.linalg.cholesky``, which copies its input) for reference.

Each size is measured ``--repeat`` times, route and floor alternately so both
see the same load; the median ratio and its spread (min - max) are printed.
``--check`` also runs the previous route (coalition Grams from scratch, one
batch or one coalition at a time) once per size and prints the largest
difference of the values (must be below 1e-12).

Usage: python benchmarks/bench_observational.py [--sizes 2000 1000] [--repeat 3] [--check] [--quick]
  --quick: sizes 400 and 300, one repeat (a smoke run of the script).
Timings on a shared machine are noisy: compare the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.linalg import lapack

import kernelxai as kx
import kernelxai.values._observational as obs

D, N_EXPLAIN, ETA = 8, 5, 1e-3
#: Choleskys timed per repeat; their median times the number of coalitions is the floor.
FLOOR_SAMPLES = 9


def _data(n, d, seed=0):
    rng = np.random.default_rng(seed)
    mix = np.eye(d) + 0.4 * rng.normal(size=(d, d)) / np.sqrt(d)
    X = rng.normal(size=(n, d)) @ mix
    X = (X - X.mean(0)) / X.std(0)
    y = np.sin(X @ rng.normal(size=d) / np.sqrt(d)) + 0.5 * X[:, 0] * X[:, 1] + 0.1 * rng.normal(size=n)
    return X, y


def _route(model, X):
    t0 = time.perf_counter()
    with kx.config_context(progress=False, max_cost=None):
        e = kx.explain(model, X, value="observational", method="exact", eta=ETA)
    return time.perf_counter() - t0, e.values


def _cholesky(K, repeat):
    """Median seconds of one in-place potrf and of one np.linalg.cholesky of K, in the route's thread setting."""
    work = np.empty_like(K)
    potrf, numpy_chol = [], []
    # the two kinds are timed in separate loops: NumPy and SciPy bundle separate OpenBLAS
    # libraries, and alternating between their thread pools slows both (the idle pool spins)
    with obs.small_blas(len(K)):
        for _ in range(repeat):
            np.copyto(work, K)
            t0 = time.perf_counter()
            _, info = lapack.dpotrf(work.T, lower=0, overwrite_a=1, clean=0)
            potrf.append(time.perf_counter() - t0)
            assert info == 0
        for _ in range(repeat):
            t0 = time.perf_counter()
            np.linalg.cholesky(K)
            numpy_chol.append(time.perf_counter() - t0)
    return float(np.median(potrf)), float(np.median(numpy_chol))


def bench(n, repeat, check):
    X, y = _data(n, D)
    model = kx.models.KernelRidge(lam=1e-3).fit(X, y)
    c = 2**D - 2
    K = kx.models.as_expansion(model).kernel.gram(X) + n * ETA * np.eye(n)
    print(f"\n== observational exact: n = m = {n}, d = {D}, {N_EXPLAIN} points, {c} coalitions ==")
    print(f"{'run':>4} {'route s':>9} {'floor s':>9} {'route/floor':>12} {'route/np.chol':>14}")
    ratios, values = [], None
    for r in range(repeat):
        t_route, values = _route(model, X[:N_EXPLAIN])
        potrf, numpy_chol = _cholesky(K, FLOOR_SAMPLES)
        ratios.append(t_route / (c * potrf))
        print(f"{r + 1:>4} {t_route:>9.2f} {c * potrf:>9.2f} {ratios[-1]:>12.2f} "
              f"{t_route / (c * numpy_chol):>14.2f}", flush=True)
    med = float(np.median(ratios))
    verdict = "met" if med <= 1.5 else "NOT met"
    print(f"route / floor: median {med:.2f} (spread {min(ratios):.2f} - {max(ratios):.2f}); "
          f"target <= 1.5: {verdict}")
    row = {"n": n, "ratio_median": med, "ratio_min": min(ratios), "ratio_max": max(ratios)}
    if check:
        saved = obs.WALK_ROWS
        obs.WALK_ROWS = n + 1  # the previous route: Grams from scratch per batch / coalition
        try:
            t_old, old = _route(model, X[:N_EXPLAIN])
        finally:
            obs.WALK_ROWS = saved
        diff = float(np.abs(old - values).max())
        print(f"previous route: {t_old:.2f} s ({t_old / (c * potrf):.2f} x floor, last floor); "
              f"largest difference of the values {diff:.1e}")
        row["max_diff"] = diff
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[2000, 1000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    sizes, repeat = ([400, 300], 1) if args.quick else (args.sizes, args.repeat)
    return [bench(n, repeat, args.check) for n in sizes]


if __name__ == "__main__":
    main()
