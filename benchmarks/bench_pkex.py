"""PKeX-Shapley routes: the quadrature against the paper's coefficient recursion (Alg. 2).

Prints, measured in this run (timings are noisy on shared cores; read the ratios):

1. Functional-baseline Shapley values of a random RBF expansion with n = 1000
   terms at one point, d in {10, 50, 200, 500}: seconds per explained point of
   "quadrature" (threads as given by --jobs, and 1 thread) and of "stable"
   (Alg. 2), their ratio, and the largest relative difference of the values.
   Targets: quadrature at d = 500 under 0.5 s per point on 2 cores; at least
   20x faster than "stable" at d = 200.
2. d = 2000: the quadrature's values are finite and satisfy efficiency
   (sum phi = f(x) - b - sum alpha); "stable" on the same point (one term,
   to keep its O(d^3) cost bounded) overflows to non-finite values.
3. MMD attribution, n = m = 1000, d = 20: seconds (target < 30 s), against the
   time of "stable" on the same game and of computing MMD^2 alone; peak traced
   memory of the attribution against the size of the pair x feature tensor it
   never builds.

Usage: python benchmarks/bench_pkex.py [--jobs 2] [--quick] [--part routes overflow mmd]
  --quick skips "stable" at d = 500 (minutes: it follows Alg. 2 literally, O(n d^3)).
"""

import argparse
import tracemalloc

import numpy as np

import kernelxai as kx
from kernelxai.datasets import pkex
from kernelxai.estimators._product import product_shapley
from kernelxai.explainers._discrepancy import MMDGame
from kernelxai.workbench._reporting import timed

#: Reference-code timings quoted for the paper's reference code (2-core CPU), for context only.
REFERENCE_STABLE = {200: 1.1, 500: 14.0}



def expansion_game(d, n=1000, n_points=1, lengthscale=None, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    ls = np.sqrt(d / 2) if lengthscale is None else lengthscale
    model = kx.models.KernelExpansion(X, rng.normal(size=n), kx.kernels.RBF(ls))
    return model, kx.values.FunctionalBaseline(model).game(rng.normal(size=(n_points, d)))


def part_routes(jobs, quick):
    print("1. functional baseline, n = 1000 terms, one point (seconds per point)")
    print(f"{'d':>5} {'quad x' + str(jobs):>10} {'quad x1':>9} {'stable':>9} {'stable/quad':>12} {'max rel diff':>13}")
    for d in (10, 50, 200, 500):
        model, game = expansion_game(d, seed=d)
        quad, t_quad = timed(lambda: product_shapley(game, n_jobs=jobs)[0], repeat=3)
        _, t_one = timed(lambda: product_shapley(game, n_jobs=1)[0], repeat=3)
        if quick and d == 500:
            print(f"{d:>5} {t_quad:>10.4f} {t_one:>9.4f} {'skipped':>9}")
            continue
        stable, t_stable = timed(lambda: product_shapley(game, route="stable", n_jobs=jobs)[0])
        diff = np.abs(stable - quad).max() / np.abs(quad).max()
        note = f"   (reference code: ~{REFERENCE_STABLE[d]} s)" if d in REFERENCE_STABLE else ""
        print(f"{d:>5} {t_quad:>10.4f} {t_one:>9.4f} {t_stable:>9.3f} {t_stable / t_quad:>11.0f}x {diff:>13.1e}{note}")
        if d == 200:
            print(f"      target >= 20x at d = 200: {'met' if t_stable / t_quad >= 20 else 'NOT met'}")
        if d == 500:
            print(f"      target quadrature < 0.5 s at d = 500: {'met' if t_quad < 0.5 else 'NOT met'}")


def part_overflow(jobs):
    print("\n2. d = 2000")
    model, game = expansion_game(2000, seed=1, lengthscale=40.0)
    quad, t_quad = timed(lambda: product_shapley(game, n_jobs=jobs)[0])
    target = model.predict(game.data)[0] - model.intercept - model.alpha.sum()
    print(f"   quadrature: {t_quad:.2f} s per point, finite: {bool(np.all(np.isfinite(quad)))}, "
          f"|sum phi - (f(x) - b - sum alpha)| = {abs(quad.sum() - target):.1e}")
    one, game1 = expansion_game(2000, n=1, seed=2, lengthscale=40.0)
    stable, t_stable = timed(lambda: product_shapley(game1, route="stable", n_jobs=1)[0])
    print(f"   stable (Alg. 2), one term: {t_stable:.1f} s, finite: {bool(np.all(np.isfinite(stable)))} "
          f"({int(np.sum(~np.isfinite(stable)))} of 2000 values non-finite)")


def part_mmd(jobs):
    print("\n3. MMD attribution, n = m = 1000, d = 20")
    X, Z = pkex.two_sample(n=1000, m=1000, seed=0)
    kernel = kx.kernels.RBF(kx.kernels.median_heuristic(np.vstack([X, Z]), pooled=True))
    tracemalloc.start()
    expl, t_attr = timed(lambda: kx.explain_mmd(X, Z, kernel=kernel, n_permutations=0, n_jobs=jobs))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    game = MMDGame(X, Z, kernel)
    _, t_stable = timed(lambda: kx.shapley_values(game, method="stable", n_jobs=jobs))
    _, t_stat = timed(lambda: kx.explainers._discrepancy.mmd_permutation_test(X, Z, kernel, n_permutations=0))
    pairs = 2000 * 2001 // 2
    print(f"   quadrature: {t_attr:.2f} s (target < 30 s: {'met' if t_attr < 30 else 'NOT met'}); "
          f"stable (Alg. 2): {t_stable:.2f} s ({t_stable / t_attr:.1f}x); MMD^2 alone: {t_stat:.2f} s "
          f"(attribution costs {t_attr / t_stat:.0f}x the statistic)")
    print(f"   sum phi - MMD^2_u = {expl.values.sum() - expl.meta['statistic']:.1e}")
    block = max(game.iter_terms(2**20), key=lambda blk: blk[2].size)[2].size
    print(f"   largest block of pair terms: {block * 8 / 2**20:.0f} MB; peak traced memory of the whole call "
          f"{peak / 2**20:.0f} MB; a pairs x d tensor would take {pairs * 20 * 8 / 2**20:.0f} MB, "
          f"pairs x d^2 {pairs * 400 * 8 / 2**30:.1f} GB")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--part", nargs="+", default=["routes", "overflow", "mmd"],
                    choices=["routes", "overflow", "mmd"])
    args = ap.parse_args()
    if "routes" in args.part:
        part_routes(args.jobs, args.quick)
    if "overflow" in args.part:
        part_overflow(args.jobs)
    if "mmd" in args.part:
        part_mmd(args.jobs)


if __name__ == "__main__":
    main()
