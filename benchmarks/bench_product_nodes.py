"""The product route's cost model against measured time (#14, the adaptive node count).

The quadrature route (``method="product"``) chooses its Gauss-Legendre node count
per task of terms from an accuracy bound -- often a handful where ceil(d/2) would
be exact for any factors. The cost model behind ``method="auto"``, the chunk sizes
of ``kx.explain``, the progress bar and the ``max_cost`` refusal used to assume
ceil(d/2) nodes ("old": 6 d ceil(d/2) operations per term); it now takes the node
count of the game's first terms (``kernelxai.estimators._product.estimate_nodes``) and counts
the kernel's passes ("new": d (7 + 5 q) per term with absent factors 1, d (17 + 5 q)
otherwise; see ``kernelxai/estimators/quadrature.py``).

Prints, measured in one run, for d in (10, 80, 500): a KernelRidge with an RBF
kernel (sklearn's gamma = 1 / (2 d), the median heuristic for standardised data)
fitted to random data, explained with ``kx.explain(..., method="product")`` under
the functional baseline (one term per training point) and the interventional value
function (one term per training and background point); for each:

* the node count: estimated from the first terms, against the mean and largest
  count the kernel used over all its tasks (counted in an untimed run of the
  route on the same game), and ceil(d/2);
* estimated seconds at ``kx.get_config()["flops_per_second"]`` (default 1e9),
  old model and new, and the measured seconds of the whole ``kx.explain`` call
  (forming the terms included): wall time and CPU time of the process (all
  threads; the config's rate is meant for one core), best of ``--repeat``;
* estimate / measured. Target for the new model: within ~3x, and not below the
  measured time by more than ~2x.

The number of explained points is chosen so that each call has about
``--seconds`` of estimated work (new model), at most 2000.

Usage: python benchmarks/bench_cost_model.py [--repeat 3] [--seconds 1.0] [--quick] [--numba]
  --quick: n = 200 training points, d = 80 at most, 0.2 s per call (a smoke run of the script).
  --numba: also time backend="numba" (kernelxai[numba]; compiled before timing).
Timings on a shared machine are noisy: the CPU-time ratio is the steadier one.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from sklearn.kernel_ridge import KernelRidge

import kernelxai as kx
from kernelxai._calibration import price
from kernelxai.estimators import _gauss_legendre as gauss_legendre
from kernelxai.estimators import _product as product
from kernelxai.estimators import _quadrature_numba as quadrature_numba
from kernelxai.explainers._explain import build_game

#: (d, training points, background rows of the interventional game)
SETTINGS = ((10, 1000, 50), (80, 1000, 20), (500, 1000, 20))
QUICK = ((10, 200, 20), (80, 200, 10))


def make_model(d, n, rng):
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + X[:, 1] - 0.5 * X[:, 2] ** 2 + 0.1 * rng.normal(size=n)
    model = KernelRidge(kernel="rbf", gamma=1.0 / (2 * d), alpha=0.1).fit(X, y)
    return model, X


def old_seconds(game):
    """The model before: 6 d ceil(d/2) operations per term and instance."""
    d = game.n_players
    flops = float(game.n_terms()) * game.n_instances * 6.0 * d * math.ceil(d / 2)
    return price(flops=flops)   # at the config's flops_per_second, or this machine's calibrated rate


def nodes_used(game, backend):
    """Node counts the route chooses over all its tasks of ``game`` (an untimed run)."""
    counts = []
    inner = product.nodes_needed

    def counting(*args, **kwargs):
        q = inner(*args, **kwargs)
        counts.append(q)
        return q

    # where the numpy kernel (through node_count) and the numba kernel look the bound up
    modules = (gauss_legendre, quadrature_numba)
    for module in modules:
        module.nodes_needed = counting
    try:
        product.product_shapley(game, n_jobs=1, backend=backend)
    finally:
        for module in modules:
            module.nodes_needed = inner
    return counts


def measure(fn, repeat):
    """Best wall and best CPU seconds (this process, all threads) of ``fn()``."""
    wall = cpu = math.inf
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall = min(wall, time.perf_counter() - w0)
        cpu = min(cpu, time.process_time() - c0)
    return wall, cpu


def row(d, value, model, X_explain, background, backend, seconds, repeat):
    options = {} if backend == "numpy" else {"backend": backend}
    one = build_game(model, X_explain[:1], value, background).game
    per_point = kx.estimate_cost(one, "product", **options)["seconds"]
    points = int(min(len(X_explain), max(1, round(seconds / per_point))))
    Xe = X_explain[:points]
    game = build_game(model, Xe, value, background).game
    new = kx.estimate_cost(game, "product", **options)
    found = product.estimate_nodes_detail(game)   # the count, and the terms the probe looked at
    nodes, seen = found.nodes, found.terms
    used = nodes_used(game, backend)

    def call():
        return kx.explain(model, Xe, value, background, method="product", **options)

    e = call()  # warm-up; and the estimate kx.explain itself used
    assert math.isclose(e.meta["estimated_seconds"], new["seconds"], rel_tol=1e-12), \
        (e.meta["estimated_seconds"], new["seconds"])
    wall, cpu = measure(call, repeat)
    return dict(d=d, value=value, backend=backend, terms=game.n_terms(), points=points, seen=seen,
                nodes=nodes, full=math.ceil(d / 2), used_mean=float(np.mean(used)),
                used_max=int(np.max(used)), old=old_seconds(game), new=new["seconds"], wall=wall,
                cpu=cpu, chunks=e.meta.get("parallel", {}).get("chunks", 1))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--numba", action="store_true")
    args = parser.parse_args(argv)
    settings = QUICK if args.quick else SETTINGS
    seconds = 0.2 if args.quick else args.seconds
    backends = ["numpy"]
    if args.numba:
        product.numba_kernels()  # compile once, before anything is timed
        backends.append("numba")
    rates = kx.calibrate()
    rate = rates["flops_per_second"] or rates["elementwise_per_second"]
    print(f"flops_per_second = {rate:.0e}; old: 6 d ceil(d/2) per term; new: d (7 or 17 + 5 q) per term "
          f"with q the node count estimated from the first terms; about {seconds} s of estimated "
          f"work per call; best of {args.repeat}")
    header = (f"{'d':>4} {'value':<20} {'backend':<7} {'terms/pt':>8} {'points':>6} {'probe':>6} "
              f"{'q est':>5} {'q used mean/max':>15} {'ceil(d/2)':>9} {'old est s':>9} {'new est s':>9} "
              f"{'wall s':>7} {'cpu s':>7} {'old/wall':>8} {'new/wall':>8} {'new/cpu':>7}")
    print(header)
    print("-" * len(header))
    results = []
    for d, n, m in settings:
        rng = np.random.default_rng(d)
        model, X = make_model(d, n, rng)
        X_explain = rng.normal(size=(2000, d))
        background = X[:m]
        for value, bg in (("functional_baseline", None), ("interventional", background)):
            for backend in backends:
                r = row(d, value, model, X_explain, bg, backend, seconds, args.repeat)
                results.append(r)
                print(f"{d:>4} {value:<20} {backend:<7} {r['terms']:>8} {r['points']:>6} {r['seen']:>6} "
                      f"{r['nodes']:>5} {r['used_mean']:>10.1f}/{r['used_max']:<4} {r['full']:>9} "
                      f"{r['old']:>9.3g} {r['new']:>9.3g} {r['wall']:>7.3f} {r['cpu']:>7.3f} "
                      f"{r['old'] / r['wall']:>8.1f} {r['new'] / r['wall']:>8.2f} "
                      f"{r['new'] / r['cpu']:>7.2f}", flush=True)
    ratios = np.array([[r["new"] / r["wall"], r["new"] / r["cpu"]] for r in results])
    print(f"new estimate / measured: wall {ratios[:, 0].min():.2f}..{ratios[:, 0].max():.2f}, "
          f"CPU {ratios[:, 1].min():.2f}..{ratios[:, 1].max():.2f} (target: 0.5..3)")
    worst = max(results, key=lambda r: r["nodes"] / r["used_mean"])
    print(f"node estimate / mean used: largest {worst['nodes'] / worst['used_mean']:.2f} "
          f"(d = {worst['d']}, {worst['value']}); below 1 anywhere: "
          f"{[(r['d'], r['value']) for r in results if r['nodes'] < r['used_mean']] or 'no'}")
    return results


if __name__ == "__main__":
    main()
