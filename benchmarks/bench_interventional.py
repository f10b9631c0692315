"""The interventional exact route against its elementwise floor (#25, item 3).

The case: an RBF support vector regression on scikit-learn's diabetes data
(standardised, d = 10, ~435 support vectors), 100 background rows, 10
explained points, ``kx.explain(svr, X[:10], background=X[:100],
method="exact")`` -- the table of all 2**10 coalitions' worths through the
kernel mean embeddings.

Prints, measured in one run (best of ``--repeat``, the sides of every ratio
timed alternately, in CPU seconds of the calling thread -- every side runs on
one BLAS thread, so other work on the shared machine does not count):

1. the route: ``kx.explain`` end to end, and the game's worth table alone
   (``InterventionalGame.worth_table``);
2. the floor: a numpy loop doing the elementwise work the table needs and no
   more -- the per-feature Gram factors of the background and of the explained
   points, then for every coalition S one multiplication over the m x n
   background-by-training table (K_S built from the table of S minus one
   feature, kept on a stack of at most d tables along a depth-first walk of
   the coalitions) and one multiply-add pass summing it over the background,
   and per coalition the same for the explained points (an n_x x n table
   and its products with alpha_i mu_{S^c}(x_i)). Its parts are printed, and
   its table is checked against the route's;
3. route / floor (target <= 2), and, when shap is installed (an optional
   extra), route / shap's exact explainer (``shap.explainers.Exact`` with an
   independent masker on the same background) on the same work.

Usage: python benchmarks/bench_interventional.py [--repeat 7] [--quick]
  --quick: 3 explained points, 40 background rows (a smoke run of the script).
"""

from __future__ import annotations

import argparse
import importlib.util
import time

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR
from threadpoolctl import threadpool_limits

import kernelxai as kx
from kernelxai.models import as_expansion
from kernelxai.values._interventional import Interventional

HAVE_SHAP = importlib.util.find_spec("shap") is not None


def case(n_points, n_background):
    """The fitted SVR, its kernel expansion, the explained points and the background."""
    X, y = load_diabetes(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    y = (y - y.mean()) / y.std()
    svr = SVR(kernel="rbf", gamma=0.1, C=3.0, epsilon=0.01).fit(X, y)
    return svr, as_expansion(svr), X[:n_points], X[:n_background]


# --------------------------------------------------------------------------- the floor
def floor_table(expansion, background, X):
    """Worths of all 2**d coalitions, (2**d, n_x), by one elementwise pass per coalition; and its parts' times.

    mu[S, i] = (1/m) sum_b K_S(b, x_i) and V[S, a] = sum_i K_S(x_a, x_i) alpha_i mu[S^c, i] + b,
    K_S built along a depth-first walk of the coalitions: the table of S is the table of
    its parent (S without its last feature) times one feature's Gram factor.
    """
    t0 = time.thread_time()
    kernel, Xt, alpha = expansion.kernel, expansion.X_train, expansion.alpha
    m, d = background.shape
    n, nx = len(Xt), len(X)
    G_bg = np.ascontiguousarray(kernel.feature_grams(background, Xt).transpose(2, 0, 1))   # (d, m, n)
    G_x = np.ascontiguousarray(kernel.feature_grams(X, Xt).transpose(2, 0, 1))             # (d, nx, n)
    t1 = time.thread_time()
    size = 2**d
    mu = np.empty((size, n))
    mu[0] = 1.0
    ones = np.full(m, 1.0 / m)
    stack = np.empty((d + 1, m, n))
    stack[0] = 1.0

    def walk(G, stack, visit):
        # children of S: S + {l} for l after S's last feature; the stack holds the path's tables
        def down(s, depth, first):
            for l in range(first, d):
                child = s | (1 << l)
                np.multiply(stack[depth], G[l], out=stack[depth + 1])
                visit(child, stack[depth + 1])
                down(child, depth + 1, l + 1)
        down(0, 0, 0)

    def sum_background(s, table):
        np.matmul(ones, table, out=mu[s])

    walk(G_bg, stack, sum_background)
    t2 = time.thread_time()
    W = alpha[None, :] * mu[(size - 1) ^ np.arange(size)]          # W[S, i] = alpha_i mu[S^c, i]
    V = np.empty((size, nx))
    V[0] = W[0].sum()
    stack_x = np.empty((d + 1, nx, n))
    stack_x[0] = 1.0

    def per_point(s, table):
        np.matmul(table, W[s], out=V[s])

    walk(G_x, stack_x, per_point)
    V += expansion.intercept
    t3 = time.thread_time()
    return V, {"Gram factors": t1 - t0, "background passes": t2 - t1, "per-point passes": t3 - t2}


# --------------------------------------------------------------------------- timing
def cpu_seconds(fn):
    t = time.thread_time()
    out = fn()
    return time.thread_time() - t, out


def best_times(sides, repeat):
    """Best CPU seconds of each side over ``repeat`` rounds (after a warm-up), and the floor's parts."""
    best = {name: np.inf for name in sides}
    parts = None
    for fn in sides.values():   # warm-up: imports, first-touch allocations
        fn()
    for _ in range(repeat):
        for name, fn in sides.items():
            seconds, out = cpu_seconds(fn)
            if seconds < best[name]:
                best[name] = seconds
                if name == "floor":
                    parts = out[1]
    return best, parts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n_points, n_background = (3, 40) if args.quick else (10, 100)
    svr, expansion, X, background = case(n_points, n_background)
    d, n = X.shape[1], len(expansion.X_train)
    print(f"interventional exact: SVR RBF on diabetes, d = {d}, n = {n} support vectors, "
          f"m = {len(background)} background rows, {len(X)} explained points; "
          f"best of {args.repeat}, CPU seconds of one thread")

    def route():
        return kx.explain(svr, X, background=background, method="exact")

    def table():
        return Interventional(svr, background).game(X).worth_table()

    def floor():
        return floor_table(expansion, background, X)

    def shap_exact():
        import shap

        explainer = shap.explainers.Exact(svr.predict, shap.maskers.Independent(background,
                                                                              max_samples=len(background)))
        return explainer(X)

    sides = {"route: kx.explain": route, "route: worth table alone": table, "floor": floor}
    if HAVE_SHAP:
        sides["shap exact explainer"] = shap_exact
    with kx.config_context(progress=False), threadpool_limits(limits=1):
        best, parts = best_times(sides, args.repeat)
        V_floor, _ = floor()
        V_route = table()
        explanation = route()
    for name, seconds in best.items():
        print(f"  {name:<28s} {1e3 * seconds:9.2f} ms")
    for name, seconds in parts.items():
        print(f"    floor, {name:<19s} {1e3 * seconds:9.2f} ms")
    scale = np.abs(V_floor).max()
    print(f"  largest difference of the worth tables, route vs floor, relative: "
          f"{np.abs(V_route - V_floor).max() / scale:.1e}")
    print(f"  route / floor:  kx.explain {best['route: kx.explain'] / best['floor']:.2f}, "
          f"worth table alone {best['route: worth table alone'] / best['floor']:.2f}   (target <= 2)")
    if HAVE_SHAP:
        phi = np.asarray(shap_exact().values)
        print(f"  shap exact / route (kx.explain): {best['shap exact explainer'] / best['route: kx.explain']:.1f}x; "
              f"largest difference of the values {np.abs(phi - explanation.values).max():.1e}")
    else:
        print("  shap is not installed (an optional extra): no comparison with its exact explainer")


if __name__ == "__main__":
    main()
