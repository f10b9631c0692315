"""Product routes against this machine's elementwise limit (#14, item 4).

Prints, measured in one run -- best of ``--repeat``, the two sides of every
ratio measured alternately. One-thread rows are timed in CPU seconds of the
calling thread (``time.thread_time``), so that other work on a shared
machine does not count; two-thread rows in wall seconds (``timed``):

1. The elementwise limit: a fused multiply-add c <- a * b + c over float64
   arrays of the quadrature kernel's working size (a d x terms block), the
   best way numpy allows (in place, no temporaries:
   ``np.multiply(a, b, out=t); np.add(t, c, out=c)``), in elements per second
   on one thread and on two. The same loop compiled by numba and evaluated by
   numexpr is shown where those are installed (the line says which); the
   fractions below are of numpy's limit.
2. Functional baseline, n = 1000 training points, d = 500: the quadrature
   nodes the accuracy bound chooses (ceil(d/2) = 250 before #14); seconds per
   explained point for one point and for 8 points batched, for the route
   alone (terms already formed: ``kx.ProductGame``) and end to end (the
   game forms the per-feature kernel values, which is not the route's
   work); elements per second (terms x d x nodes) and the fraction of the
   limit. "before" is the pre-#14 kernel, written out below (ceil(d/2)
   nodes, the (terms, d, nodes) einsum layout, one term per task at d = 500),
   on the same terms; last, the largest relative difference of the Shapley
   values between before and now (target: 1e-13).
3. Interventional values, same model, a background of m = 20 rows (20 000
   terms per point): the same rows (the pre-#14 kernel is timed on 1000 of
   the terms and scaled to all of them).

Rows marked ``numba`` use ``backend="numba"`` and appear when numba is
installed (``pip install "kernelxai[numba]"``); its compilation (a few
seconds, once per process) is done before timing.

Usage: python benchmarks/bench_throughput.py [--repeat 5] [--quick]
  --quick: d = 100, n = 200 (a smoke run of the script itself).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import threading
import time

import numpy as np

import kernelxai as kx
from kernelxai.estimators import _product as product
from kernelxai.workbench._reporting import timed

HAVE_NUMBA = importlib.util.find_spec("numba") is not None
HAVE_NUMEXPR = importlib.util.find_spec("numexpr") is not None


# --------------------------------------------------------------------------- the limit
def fma_numpy(n_elements, threads=1):
    """A function running c <- a * b + c in place over ``n_elements`` per thread, and its element count."""
    rng = np.random.default_rng(0)
    arrays = [[rng.random(n_elements) for _ in range(4)] for _ in range(threads)]
    reps = max(1, int(2e7 // n_elements))

    def one(a, b, c, t):
        for _ in range(reps):
            np.multiply(a, b, out=t)
            np.add(t, c, out=c)

    def run():
        if threads == 1:
            one(*arrays[0])
            return
        workers = [threading.Thread(target=one, args=arr) for arr in arrays]
        for w in workers:
            w.start()
        for w in workers:
            w.join()

    return run, reps * n_elements * threads


def fma_numba(n_elements):
    import numba

    @numba.njit(nogil=True)
    def loop(a, b, c):
        for i in range(a.size):
            c[i] = a[i] * b[i] + c[i]

    rng = np.random.default_rng(0)
    a, b, c = (rng.random(n_elements) for _ in range(3))
    loop(a, b, c)
    reps = max(1, int(2e7 // n_elements))
    return (lambda: [loop(a, b, c) for _ in range(reps)]), reps * n_elements


def fma_numexpr(n_elements):
    import numexpr

    numexpr.set_num_threads(1)
    rng = np.random.default_rng(0)
    a, b, c = (rng.random(n_elements) for _ in range(3))
    reps = max(1, int(2e7 // n_elements))
    return (lambda: [numexpr.evaluate("a * b + c", out=c) for _ in range(reps)]), reps * n_elements


def cpu_timed(fn):
    """(result, CPU seconds of this thread): the time the call ran, not the time it waited."""
    start = time.thread_time()
    out = fn()
    return out, time.thread_time() - start


def alternate(fns, repeat, wall=()):
    """Best time of each function, calling them in turn ``repeat`` times.

    CPU time of the calling thread, except for the indices in ``wall`` (calls
    that run threads of their own), which get wall time.
    """
    best = [math.inf] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            best[i] = min(best[i], (timed if i in wall else cpu_timed)(fn)[1])
    return best


# --------------------------------------------------------------------------- before #14
def before_psi(a, c, d):
    """The pre-#14 kernel: ceil(d/2) nodes, factors from one einsum, leave-one-out by division."""
    t, s, omega = product.gauss_legendre_01(max(1, math.ceil(d / 2)))
    ac = np.empty((a.shape[0], d, 2))
    ac[..., 0] = a
    ac[..., 1] = 1.0 if c is None else c
    F = np.einsum("mdk,kq->mdq", ac, np.stack([t, s]))
    total = np.multiply.reduce(F, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(total[:, None, :], F, out=F)
    return np.einsum("mdq,q->md", F, omega)


def before_values(a, c, w, d):
    """sum_m w_m (a_m - c_m) psi_m over the terms of one point, in the pre-#14 tasks (2^17 numbers each)."""
    step = max(1, 2**17 // (d * max(1, math.ceil(d / 2))))
    phi = np.zeros(d)
    for lo in range(0, len(w), step):
        cc = None if c is None else c[lo:lo + step]
        psi = before_psi(a[lo:lo + step], cc, d)
        phi += (w[lo:lo + step, None] * (a[lo:lo + step] - (1.0 if cc is None else cc)) * psi).sum(0)
    return phi


# --------------------------------------------------------------------------- node counts
def elements(a, c, d, backend):
    """terms x d x nodes summed over the tasks product_shapley makes of these (K, R, d) terms."""
    a = a.reshape(-1, d)
    c = None if c is None else np.broadcast_to(c, (a.shape[0] // c.shape[-2], *c.shape[-2:])).reshape(-1, d)
    step = max(1, product.WORK_ELEMENTS // d)
    total = 0
    for lo in range(0, len(a), step):
        aa, cc = a[lo:lo + step], None if c is None else c[lo:lo + step]
        if backend == "numba":
            A = np.ascontiguousarray(aa)
            C = np.ones_like(A) if cc is None else np.ascontiguousarray(cc)
            s0, s1, s2 = product.numba_kernels()["sums"](A, C, np.empty(len(A)))
            q = product.nodes_needed(s1, s2, d, s0) if s1 >= 0 else math.ceil(d / 2)
        else:
            A = np.ascontiguousarray(aa.T)
            C = None if cc is None else np.ascontiguousarray(cc.T)
            D = A - (1.0 if C is None else C)
            q = product.node_count(A, C, D, d, np.empty_like(A), np.empty_like(A))
        total += len(aa) * d * q
    return total


# --------------------------------------------------------------------------- the report
def row(label, seconds, n_points, n_elements, limit):
    rate = n_elements / seconds
    print(f"   {label:<44} {seconds / n_points:9.4f} s/point  {rate:9.2e} el/s  "
          f"{rate / limit:6.2f} of the limit")


def backends():
    return ("numpy", "numba") if HAVE_NUMBA else ("numpy",)


def part_limit(d, terms, repeat):
    size = d * max(1, product.WORK_ELEMENTS // d)
    print(f"1. elementwise limit: c <- a * b + c in place, arrays of {size} float64 "
          f"(one quadrature task: d = {d} x {size // d} terms)")
    fns = [fma_numpy(size, 1), fma_numpy(size, 2)]
    names = ["numpy, 1 thread", "numpy, 2 threads (wall time)"]
    if HAVE_NUMBA:
        fns.append(fma_numba(size))
        names.append("numba loop, 1 thread")
    if HAVE_NUMEXPR:
        fns.append(fma_numexpr(size))
        names.append("numexpr, 1 thread")
    best = alternate([f for f, _ in fns], repeat, wall={1})
    rates = [count / t for (_, count), t in zip(fns, best)]
    for name, rate in zip(names, rates):
        print(f"   {name:<24} {rate:9.2e} elements/s")
    missing = [m for m, have in (("numba", HAVE_NUMBA), ("numexpr", HAVE_NUMEXPR)) if not have]
    if missing:
        print(f"   ({' and '.join(missing)} not installed: numpy only)")
    return rates[0], rates[1]


def expansion(d, n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    model = kx.models.KernelExpansion(X, rng.normal(size=n), kx.kernels.RBF(math.sqrt(d / 2)))
    return model, rng


def part_functional(d, n, batch, repeat, limits):
    one, two = limits
    model, rng = expansion(d, n)
    Xe = rng.normal(size=(batch, d))
    print(f"\n2. functional baseline, n = {n}, d = {d}")
    a = model.kernel.feature_grams(Xe, model.X_train)            # (batch, n, d)
    w = model.alpha
    ones = np.broadcast_to(1.0, (1, n, d))
    formed = {k: kx.ProductGame(a[:k], ones, w[None], n_instances=k) for k in (1, batch)}
    games = {k: kx.values.FunctionalBaseline(model).game(Xe[:k]) for k in (1, batch)}
    q_old = max(1, math.ceil(d / 2))
    print(f"   nodes: {sorted({elements(a[i:i + 1], None, d, 'numpy') // (n * d) for i in range(batch)})} "
          f"per task (bound of the accuracy, 2^-53 relative), before: ceil(d/2) = {q_old}")
    if HAVE_NUMBA:
        product.product_shapley(formed[1], backend="numba")
    fns, labels = [], []
    fns.append(lambda: before_values(a[0], None, w, d))
    labels.append(("before (pre-#14 kernel), 1 point, 1 thread", 1, n * d * q_old, one))
    for be in backends():
        for k in (1, batch):
            for jobs in (1, 2):
                fns.append(lambda k=k, jobs=jobs, be=be: product.product_shapley(formed[k], n_jobs=jobs, backend=be))
                labels.append((f"{be}: route, {k} point(s), {jobs} thread(s)", k, elements(a[:k], None, d, be),
                               one if jobs == 1 else two))
        for k in (1, batch):
            fns.append(lambda k=k, be=be: product.product_shapley(games[k], n_jobs=1, backend=be))
            labels.append((f"{be}: end to end, {k} point(s), 1 thread", k, elements(a[:k], None, d, be), one))
    best = alternate(fns, repeat, wall={i for i, lab in enumerate(labels) if "2 thread" in lab[0]})
    for (label, k, count, limit), t in zip(labels, best):
        row(label, t, k, count, limit)
    print(f"   speed-up of the route at 1 point, 1 thread: {best[0] / best[1]:.0f}x (numpy)"
          + (f", {best[0] / best[1 + 6]:.0f}x (numba)" if HAVE_NUMBA else ""))
    before = before_values(a[0], None, w, d)
    for be in backends():
        now = product.product_shapley(formed[1], n_jobs=1, backend=be)[0][0]
        print(f"   {be}: largest relative difference from before: "
              f"{np.abs(now - before).max() / np.abs(before).max():.1e} (max-norm), "
              f"{np.linalg.norm(now - before) / np.linalg.norm(before):.1e} (2-norm)")


def part_interventional(d, n, m, batch, repeat, limits):
    one, two = limits
    model, rng = expansion(d, n, seed=1)
    B = rng.normal(size=(m, d))
    Xe = rng.normal(size=(batch, d))
    print(f"\n3. interventional, n = {n}, d = {d}, background m = {m} ({n * m} terms per point)")
    A = model.kernel.feature_grams(Xe[:1], model.X_train)        # (1, n, d)
    C = model.kernel.feature_grams(model.X_train, B)             # (n, m, d): rows (i, b)
    a = np.repeat(A, m, axis=1)                                  # (1, n m, d)
    c = C.reshape(1, n * m, d)
    w = np.repeat(model.alpha / m, m)
    formed = kx.ProductGame(a, c, w[None])
    games = {k: kx.values.Interventional(model, B).game(Xe[:k]) for k in (1, batch)}
    sub = 1000
    q_old = max(1, math.ceil(d / 2))
    count = {be: elements(a, c, d, be) for be in backends()}
    print(f"   nodes: {count['numpy'] // (n * m * d)} per task on average (before: {q_old})")
    if HAVE_NUMBA:
        product.product_shapley(kx.ProductGame(a[:, :10], c[:, :10], w[None, :10]), backend="numba")
    fns, labels = [], []
    fns.append(lambda: before_values(a[0, :sub], c[0, :sub], w[:sub], d))
    labels.append((f"before (pre-#14 kernel), {sub} terms x {n * m // sub}", 1, sub * d * q_old, one))
    for be in backends():
        for jobs in (1, 2):
            fns.append(lambda jobs=jobs, be=be: product.product_shapley(formed, n_jobs=jobs, backend=be))
            labels.append((f"{be}: route, 1 point, {jobs} thread(s)", 1, count[be], one if jobs == 1 else two))
        for k in (1, batch):
            fns.append(lambda k=k, be=be: product.product_shapley(games[k], n_jobs=1, backend=be))
            labels.append((f"{be}: end to end, {k} point(s), 1 thread", k, k * count[be], one))
    best = alternate(fns, repeat, wall={i for i, lab in enumerate(labels) if "2 thread" in lab[0]})
    scale = n * m / sub
    for i, ((label, k, cnt, limit), t) in enumerate(zip(labels, best)):
        row(label, t * scale if i == 0 else t, k, cnt * scale if i == 0 else cnt, limit)
    print(f"   speed-up of the route, 1 thread: {best[0] * scale / best[1]:.0f}x (numpy)"
          + (f", {best[0] * scale / best[5]:.0f}x (numba)" if HAVE_NUMBA else ""))
    before = before_psi(a[0, :sub], c[0, :sub], d)
    now = product.psi_quadrature(a[0, :sub], c[0, :sub], d)
    print(f"   psi of {sub} terms, largest relative difference from before: "
          f"{np.abs(now / before - 1).max():.1e}")
    if HAVE_NUMBA:
        x, y = (product.product_shapley(formed, n_jobs=1, backend=be)[0][0] for be in ("numpy", "numba"))
        print(f"   numba against numpy: {np.abs(x - y).max() / np.abs(x).max():.1e} (max-norm)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    d, n, m, batch = (100, 200, 5, 4) if args.quick else (500, 1000, 20, 8)
    limits = part_limit(d, n, args.repeat)
    part_functional(d, n, batch, args.repeat, limits)
    part_interventional(d, n, m, min(batch, 4), max(1, args.repeat // 2), limits)


if __name__ == "__main__":
    main()
