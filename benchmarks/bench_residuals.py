"""Shapley residuals: the Walsh-Hadamard route against a sparse iterative solve.

Prints, measured in this run:
* seconds of ``kx.uncertainty.shapley_residuals`` at d = 16 (target: under 5 s
  on 2 cores) for the values and residual norms, and with every component
  game formed as well;
* the baseline: the same least-squares problems solved with the sparse
  hypercube Laplacian by conjugate gradients (scipy), one solve per player,
  its seconds, the ratio baseline / Walsh-Hadamard, and the largest
  difference of the Shapley values and residual norms between the two routes.

Usage: python benchmarks/bench_residuals.py [--d 16] [--instances 1]
"""

import argparse
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import cg

import kernelxai as kx
from kernelxai.games import tabulate


def smooth_game(d, n, seed=0):
    """A non-additive game: tanh of a weighted sum plus pairwise products, n instances."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=(d, n))
    pair = rng.normal(size=(d - 1, n))

    def worths(z):
        zf = z.astype(float)
        return np.tanh(zf @ w) + (zf[:, :-1] * zf[:, 1:]) @ pair

    return kx.FunctionGame(worths, d, n_instances=n)


def sparse_baseline(table, d):
    """phi_i and ||r_i|| from L v_i = L_i v solved by CG on the sparse Laplacian."""
    m = 2**d
    idx = np.arange(m)
    rows, cols = [], []
    for j in range(d):
        rows.append(idx)
        cols.append(idx ^ (1 << j))
    A = sp.csr_matrix((np.ones(d * m), (np.concatenate(rows), np.concatenate(cols))), shape=(m, m))
    L = sp.identity(m, format="csr") * d - A
    phi, norms = np.zeros(d), np.zeros(d)
    Dv = [table[idx | (1 << j)] - table[idx] for j in range(d)]  # edge values (twice per edge)
    for i in range(d):
        b = table - table[idx ^ (1 << i)]                        # L_i v
        b = b - b.mean()
        vi, info = cg(L, b, rtol=1e-12, maxiter=2000)
        if info != 0:
            raise RuntimeError("CG did not converge")
        vi -= vi[0]
        phi[i] = vi[-1]
        sq = 0.0
        for j in range(d):
            lower = (idx >> j & 1) == 0
            r = (Dv[j][lower] if j == i else 0.0) - (vi[idx | (1 << j)] - vi)[lower]
            sq += r @ r
        norms[i] = np.sqrt(sq)
    return phi, norms


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--d", type=int, default=16)
    parser.add_argument("--instances", type=int, default=1)
    args = parser.parse_args()
    d, n = args.d, args.instances
    game = smooth_game(d, n)
    table = tabulate(game)

    t = time.perf_counter()
    res = kx.uncertainty.shapley_residuals(game)
    fast = time.perf_counter() - t
    t = time.perf_counter()
    _ = res.component_games
    with_components = fast + time.perf_counter() - t
    print(f"shapley_residuals, d = {d}, {n} instance(s): {fast:.3f} s "
          f"(values + residual norms, 2**{d} worths included); "
          f"{with_components:.3f} s with all {d} component games")

    t = time.perf_counter()
    phi, norms = sparse_baseline(table[:, 0], d)
    slow = time.perf_counter() - t
    print(f"baseline: sparse Laplacian + conjugate gradients, one solve per player: {slow:.3f} s")
    print(f"ratio baseline / Walsh-Hadamard: {slow / fast:.1f}x")
    values = res.values[0] if res.values.ndim == 2 else res.values
    rnorms = res.residual_norms[0] if res.residual_norms.ndim == 2 else res.residual_norms
    print(f"max |phi difference| = {np.abs(values - phi).max():.2e}, "
          f"max |residual-norm difference| = {np.abs(rnorms - norms).max():.2e}")
    print(f"target: under 5 s at d = 16 -> {'met' if fast < 5 else 'NOT met'}")


if __name__ == "__main__":
    main()
