"""Scaling benchmark (#14): two workers, a 10^6-row Nystroem model, the product routes against the limit.

Prints, measured in one run (every ratio from timings taken alternately, best
of ``--repeat``, so that other load on a shared machine falls on both sides):

1. Speed-up with 2 workers: ``kx.explain`` of the same points in the same
   chunks (``rows_per_chunk`` fixed, so both calls do the same work) with
   ``n_jobs=1`` (the chunks one after the other) and ``n_jobs=2`` (two loky
   worker processes); the values are checked to be identical bit for bit. The
   model: StandardScaler -> Nystroem(RBF, 100 landmarks) -> Ridge on 10^5 rows,
   d = 20, 1000 background rows. Next to it, the control: the same two joblib
   workers on plain numpy tasks (no kernelxai), i.e. what this machine gives.
2. Explained points per second for a Nystroem model fitted to 10^6 rows at
   d = 20 (100 landmarks): exact interventional Shapley values against 1000
   background rows, with the expansion checked against ``predict`` and
   efficiency checked against the prediction.
3. The product routes' throughput as a fraction of the elementwise limit, as
   ``benchmarks/bench_throughput.py`` measures both (its functions are
   imported: the fused multiply-add ``c <- a * b + c`` in place over arrays of
   one quadrature task's size, and the element count terms x d x nodes of
   the route's own node choice; its ``alternate``, so the seconds here are
   what it measures): the functional baseline at n = 1000,
   d = 500 and the interventional game at n = 1000, d = 500, m = 20, one
   point, one thread, route only (terms formed beforehand).

4. One point and a large background (4 x 10^5 rows, d = 8, the Nystroem model,
   exact values): its mean embeddings are a reduction over the background's rows,
   run in parts on ``n_jobs=1`` and ``n_jobs=2``; identical values, speed-up.

Usage: python benchmarks/bench_scaling.py [--repeat 3] [--quick]
  --quick: 10^5 rows for part 2, d = 100 and n = 200 in part 3 (a smoke run of the script).
Timings on a shared machine are noisy: read the ratios.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

import joblib
import numpy as np
from sklearn.kernel_approximation import Nystroem
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import kernelxai as kx
from kernelxai.estimators import _product as product
from kernelxai.workbench._reporting import timed

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_throughput import alternate, backends, elements, expansion, fma_numpy


# --------------------------------------------------------------------------- the model
def make_data(n, d, rng):
    X = rng.normal(size=(n, d))
    return X, np.sin(X[:, 0]) + X[:, 1] + 0.5 * X[:, 2] ** 2 + 0.1 * rng.normal(size=n)


def nystroem_model(d, landmarks=100, seed=0):
    return make_pipeline(StandardScaler(), Nystroem(gamma=0.5 / d, n_components=landmarks, random_state=seed),
                         Ridge(alpha=1e-3))


# --------------------------------------------------------------------------- 1. two workers
def alternate_wall(fns, repeat):
    """Best wall time of each function, calling them in turn ``repeat`` times (work in other processes counts)."""
    best = [math.inf] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            best[i] = min(best[i], timed(fn)[1])
    return best


def numpy_task(reps):
    a = np.linspace(0.0, 1.0, 100_000)
    return sum(float(np.sin(a).sum()) for _ in range(reps))


def part_workers(rows, d, points, chunk, background_rows, repeat):
    rng = np.random.default_rng(0)
    X, y = make_data(rows, d, rng)
    model = nystroem_model(d).fit(X, y)
    B = kx.explainers.subsample(X, background_rows, seed=0)
    Xe = make_data(points, d, rng)[0]
    print(f"1. two workers: {points} points in chunks of {chunk}, Nystroem model ({rows} rows, d = {d}, "
          f"100 landmarks), {background_rows} background rows")

    def run(jobs):
        return kx.explain(model, Xe, background=B, n_jobs=jobs, rows_per_chunk=chunk)

    def control(jobs):
        return joblib.Parallel(n_jobs=jobs)(joblib.delayed(numpy_task)(100) for _ in range(8))

    with kx.config_context(progress=False):
        [kx.explain(model, Xe[:2], background=B, n_jobs=jobs, rows_per_chunk=1) for jobs in (1, 2)]  # warm-up
        control(2)
        one, two = run(1), run(2)
        same = np.array_equal(one.values, two.values) and np.array_equal(one.base_values, two.base_values)
        t1, t2, c1, c2 = alternate_wall([lambda: run(1), lambda: run(2), lambda: control(1), lambda: control(2)],
                                        repeat)
    print(f"   n_jobs=1 ({one.meta['parallel']['backend']}): {t1:7.3f} s   n_jobs=2 "
          f"({two.meta['parallel']['backend']}): {t2:7.3f} s   identical values: {same}")
    print(f"   speed-up with 2 workers: {t1 / t2:.2f}x    control (plain numpy tasks, 2 workers): "
          f"{c1 / c2:.2f}x    load average {os.getloadavg()[0] if hasattr(os, 'getloadavg') else float('nan'):.1f} "
          f"on {os.cpu_count()} CPUs")
    if not same:
        raise AssertionError("n_jobs changed the values")
    return t1 / t2, c1 / c2


# --------------------------------------------------------------------------- 2. the large model
def part_nystroem(rows, d, points, background_rows, repeat):
    rng = np.random.default_rng(1)
    X, y = make_data(rows, d, rng)
    Xe = make_data(max(points, 10_000), d, rng)[0]
    print(f"\n2. Nystroem model on {rows} rows, d = {d}, 100 landmarks; exact interventional values, "
          f"{background_rows} background rows, {points} points")
    model, fit_s = timed(lambda: nystroem_model(d).fit(X, y))
    f = kx.models.as_expansion(model)
    error = np.abs(f.predict(Xe) - model.predict(Xe)).max()
    B = kx.explainers.subsample(X, background_rows, seed=0)
    with kx.config_context(progress=False):
        e, t = timed(lambda: kx.explain(model, Xe[:points], background=B), repeat=repeat)
    efficiency = np.abs(e.values.sum(1) + e.base_values - model.predict(Xe[:points])).max()
    print(f"   fit {fit_s:.1f} s; expansion vs predict on {len(Xe)} rows: {error:.1e}; efficiency {efficiency:.1e}; "
          f"route: {e.meta['method']}")
    print(f"   {points / t:.1f} explained points per second ({t / points:.4f} s per point)")
    return points / t


# --------------------------------------------------------------------------- 4. one point, a large background
def part_background(rows, d, background_rows, repeat):
    """One point, exact values: the mean embeddings over the background in parts, 1 vs 2 workers."""
    rng = np.random.default_rng(2)
    X, y = make_data(rows, d, rng)
    model = nystroem_model(d).fit(X, y)
    B = make_data(background_rows, d, rng)[0]
    x = make_data(1, d, rng)[0]
    print(f"\n4. one point, {background_rows} background rows, d = {d}, exact: the background's mean "
          "embeddings reduced in parts on 1 and 2 workers (loky)")

    def run(jobs):
        return kx.explain(model, x, background=B, method="exact", n_jobs=jobs)

    with kx.config_context(progress=False):
        one, two = run(1), run(2)
        same = np.array_equal(one.values, two.values) and np.array_equal(one.base_values, two.base_values)
        t1, t2 = alternate_wall([lambda: run(1), lambda: run(2)], repeat)
    error = abs(float(one.base_values[0]) - float(model.predict(B).mean()))
    print(f"   n_jobs=1: {t1:7.3f} s   n_jobs=2: {t2:7.3f} s   speed-up {t1 / t2:.2f}x   identical values: "
          f"{same}   base value vs mean prediction: {error:.1e}")
    if not same:
        raise AssertionError("n_jobs changed the values")
    return t1 / t2


# --------------------------------------------------------------------------- 3. the limit
def part_limit(d, n, m, repeat):
    size = d * max(1, product.WORK_ELEMENTS // d)        # one quadrature task, as bench_throughput
    run, count = fma_numpy(size, 1)
    model, rng = expansion(d, n)
    x = rng.normal(size=(1, d))
    a = model.kernel.feature_grams(x, model.X_train)                      # (1, n, d)
    functional = kx.ProductGame(a, np.ones_like(a), model.alpha[None])
    B = rng.normal(size=(m, d))
    C = model.kernel.feature_grams(model.X_train, B).reshape(1, n * m, d)  # rows (i, b)
    A = np.repeat(a, m, axis=1)
    interventional = kx.ProductGame(A, C, np.repeat(model.alpha / m, m)[None])
    games = {"functional baseline": (functional, a, None), "interventional": (interventional, A, C)}
    print(f"\n3. product routes against the elementwise limit (c <- a * b + c in place, arrays of {size} "
          f"float64, 1 thread); n = {n}, d = {d}, m = {m}, 1 point, route only")
    fns, labels = [run], []
    for be in backends():
        if be == "numba":
            product.product_shapley(functional, n_jobs=1, backend="numba")   # compile before timing
        for name, (game, aa, cc) in games.items():
            fns.append(lambda game=game, be=be: product.product_shapley(game, n_jobs=1, backend=be))
            labels.append((f"{be}: {name}", elements(aa, cc, d, be)))
    best = alternate(fns, repeat)
    limit = count / best[0]
    print(f"   limit: {limit:.2e} elements/s")
    fractions = {}
    for (label, count_route), t in zip(labels, best[1:]):
        rate = count_route / t
        fractions[label] = rate / limit
        print(f"   {label:<34} {t:8.4f} s/point  {rate:9.2e} el/s  {rate / limit:5.2f} of the limit")
    return fractions


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    big = 100_000 if args.quick else 1_000_000
    d_limit, n_limit = (100, 200) if args.quick else (500, 1000)
    speed_up, control = part_workers(100_000 if not args.quick else 20_000, 20, 64 if not args.quick else 16,
                                     8 if not args.quick else 4, 1000, args.repeat)
    rate = part_nystroem(big, 20, 40 if not args.quick else 10, 1000, max(1, args.repeat // 2))
    fractions = part_limit(d_limit, n_limit, 20, args.repeat)
    reduction = part_background(20_000, 8, 50_000 if args.quick else 400_000, max(1, args.repeat // 2))
    print("\nsummary")
    print(f"   speed-up with 2 workers: {speed_up:.2f}x (control, plain numpy tasks: {control:.2f}x)")
    print(f"   explained points per second, {big}-row Nystroem model, d = 20: {rate:.1f}")
    for label, frac in fractions.items():
        print(f"   {label} route: {frac:.2f} of the elementwise limit")
    print(f"   one point, large background, speed-up with 2 workers: {reduction:.2f}x")
    if not all(math.isfinite(v) for v in (speed_up, rate, reduction, *fractions.values())):
        raise AssertionError("a measurement is not finite")


if __name__ == "__main__":
    main()
