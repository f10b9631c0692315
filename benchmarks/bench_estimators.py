"""Estimators on a vectorised game: one pass over the coalitions for all instances.

Prints, measured in this run:
* "exact" with d = 12 and 1000 instances: coalitions evaluated (must be 4096,
  i.e. one pass for all instances), seconds, and seconds per instance;
* "kernel" with all coalitions against "exact": the largest difference of the
  values and the ratio of their times.

Usage: python benchmarks/bench_estimators.py [--d 12] [--n 1000]
"""

import argparse

import numpy as np

import kernelxai as kx
from kernelxai.workbench._reporting import timed


class CountingGame(kx.Game):
    """A smooth non-additive game of n instances: v_k(S) = tanh(sum_{j in S} x_kj) + prod-like terms."""

    def __init__(self, X):
        super().__init__(X.shape[1], n_instances=X.shape[0], data=X)
        self.X = X
        self.evaluated = 0

    def _evaluate(self, z):
        self.evaluated += len(z)
        s = z.astype(float) @ self.X.T                     # (m, n)
        pairs = (z[:, :-1] & z[:, 1:]).astype(float) @ (self.X[:, :-1] * self.X[:, 1:]).T
        return np.tanh(s) + 0.5 * pairs



def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=12)
    ap.add_argument("--n", type=int, default=1000)
    args = ap.parse_args()
    X = np.random.default_rng(0).normal(size=(args.n, args.d))

    game = CountingGame(X)
    game.evaluated = 0
    exact = kx.shapley_values(game, method="exact")
    passes = game.evaluated / 2**args.d
    exact, t_exact = timed(lambda: kx.shapley_values(game, method="exact"), repeat=3)
    kernel, t_kernel = timed(lambda: kx.shapley_values(game, method="kernel"), repeat=3)
    diff = np.abs(kernel.values - exact.values).max()
    print(f"d = {args.d}, {args.n} instances")
    print(f"exact : {int(passes * 2**args.d)} coalitions evaluated "
          f"({passes:.2f} pass(es) over 2^{args.d} for all instances); "
          f"{t_exact:.3f} s, {1e3 * t_exact / args.n:.3f} ms per instance")
    print(f"kernel (all coalitions): {t_kernel:.3f} s; max |kernel - exact| = {diff:.1e}")
    print(f"ratio kernel / exact time: {t_kernel / t_exact:.2f}")
    efficiency = np.abs(exact.values.sum(1) + exact.base_values - game.full_value).max()
    print(f"efficiency error of exact: {efficiency:.1e}")


if __name__ == "__main__":
    main()
