"""Exact pairwise Shapley interactions of kernel models: the product route against the alternatives.

Prints, measured in this run (timings are noisy on shared cores; read the ratios):

1. All pairwise k-SII (and the order-1 terms) of one point of a random RBF expansion with
   n = 1000 training points (functional-baseline game: 1000 product terms), at d = 12, 50
   and 200, by ``method="product"`` (exact, polynomial time). At d = 12 against
   enumeration of all 2**12 coalitions (time ratio, largest difference); at d = 50
   against the division-free (prefix / middle / suffix) leave-two-out route (time
   ratio, largest relative difference).
2. Sampling at the same d with a budget that takes about as long as the product route:
   kernelxai's own ``method="sampled"`` and, when shapiq is installed, shapiq's
   KernelSHAP-IQ (its regression approximator for k-SII) -- time ratio and error
   against the exact pairs. shapiq is optional; without it the comparison is skipped
   with a message. The budget matches the time of game evaluations; KernelSHAP-IQ's own
   overhead is not counted in choosing it, and at d = 200 it runs ~10 minutes (measured
   with shapiq 1.4.1: 608 s, 870x the product route, relative error 7 on the pairs).

Usage: python benchmarks/bench_interactions.py [--quick]
  --quick: d = 12 and 50 only.
"""

import argparse
import time

import numpy as np

import kernelxai as kx
from kernelxai.explainers._interactions import product_interactions as _product
from kernelxai.workbench._reporting import timed


def expansion_game(d, n=1000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    model = kx.models.KernelExpansion(X, rng.normal(size=n), kx.kernels.RBF(np.sqrt(d / 2)))
    return kx.values.FunctionalBaseline(model).game(rng.normal(size=(1, d)))


def rel_err(approx, exact):
    iu = np.triu_indices(exact.shape[-1], 1)
    return np.abs(approx[..., iu[0], iu[1]] - exact[..., iu[0], iu[1]]).max() / \
        np.abs(exact[..., iu[0], iu[1]]).max()


def part_exact(dims):
    print("1. all pairwise k-SII of one point, n = 1000 terms (seconds)")
    print(f"{'d':>5} {'product':>9} {'other':>30} {'other/product':>14} {'max rel diff':>13}")
    out = {}
    for d in dims:
        game = expansion_game(d, seed=d)
        with kx.config_context(progress=False, max_cost=None):
            e, t_prod = timed(lambda: kx.shapley_interactions(game, "k-SII", method="product"),
                              repeat=3)
            out[d] = (game, e, t_prod)
            if d <= 12:
                ex, t_other = timed(lambda: kx.shapley_interactions(game, "k-SII", method="exact"))
                other, diff = "enumeration (2**12 coalitions)", rel_err(ex.interactions, e.interactions)
            elif d <= 50:
                slow, t_other = timed(lambda: _product(game, "k-SII", None, False, division=False))
                other, diff = "division-free leave-two-out", rel_err(slow["pairs"], e.interactions)
            else:
                print(f"{d:>5} {t_prod:>9.3f}   (efficiency error {e.meta['efficiency_error']:.1e})")
                continue
        print(f"{d:>5} {t_prod:>9.3f} {other:>30} {t_other / t_prod:>13.1f}x {diff:>13.1e}   "
              f"(efficiency error {e.meta['efficiency_error']:.1e})")
    return out


def part_sampling(results):
    print("\n2. sampling with a budget that takes about as long as the exact product route")
    try:
        import shapiq
    except ImportError:
        shapiq = None
        print("   shapiq is not installed (optional: pip install shapiq): its comparison is skipped")
    print(f"{'d':>5} {'estimator':>26} {'budget':>8} {'seconds':>8} {'time/product':>13} {'max rel err':>12}")
    for d, (game, exact, t_prod) in results.items():
        if d <= 12:
            continue
        # evaluations per second of this game, to match the time of the product route
        z = kx.games.sample_coalitions(d, 200, seed=0)
        _, t_eval = timed(lambda: game(z), repeat=3)
        budget = max(4 * d + 8, int(t_prod / (t_eval / 200)))
        with kx.config_context(progress=False, max_cost=None):
            try:
                e, t = timed(lambda: kx.shapley_interactions(game, "k-SII", method="sampled",
                                                             budget=budget, random_state=0))
                print(f"{d:>5} {'kernelxai sampled':>26} {budget:>8} {t:>8.3f} {t / t_prod:>12.1f}x "
                      f"{rel_err(e.interactions, exact.interactions):>12.1e}")
            except kx.estimators.InvalidOptionError as err:
                print(f"{d:>5} {'kernelxai sampled':>26} {budget:>8}   not run: {err}")
        if shapiq is None:
            continue
        approx = shapiq.approximator.KernelSHAPIQ(n=d, max_order=2, index="k-SII", random_state=0)

        def value_function(coalitions):
            return np.asarray(game(np.asarray(coalitions, dtype=bool)), dtype=float)[:, 0]

        start = time.perf_counter()
        iv = approx.approximate(budget=budget, game=value_function)
        t = time.perf_counter() - start
        pairs = np.zeros((d, d))
        for (i, j), pos in ((k, v) for k, v in iv.interaction_lookup.items() if len(k) == 2):
            pairs[i, j] = pairs[j, i] = iv.values[pos]
        print(f"{d:>5} {'shapiq KernelSHAP-IQ':>26} {budget:>8} {t:>8.3f} {t / t_prod:>12.1f}x "
              f"{rel_err(pairs, exact.interactions[0]):>12.1e}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="d = 12 and 50 only")
    args = ap.parse_args()
    dims = (12, 50) if args.quick else (12, 50, 200)
    results = part_exact(dims)
    part_sampling(results)


if __name__ == "__main__":
    main()
