"""The fixed cost of one call on every exact route: one point alone against a point's share of 100 (#25).

A call pays, besides its arithmetic, for what it does once: converting the
model, checking the input, choosing the method, estimating the cost (the
product routes look at the first terms for their node count), starting
threads, limiting BLAS threads, building the Explanation. Measured in one run,
for each exact route at a small size:

* one: seconds of ``kx.explain`` of 1 point;
* share: seconds of ``kx.explain`` of 100 points, divided by 100;
* one / share: 1 when nothing is paid per call; the target is <= 2.

The routes (KernelRidge with an RBF kernel, so the product routes apply):

* functional baseline, method "auto" (the product route), n = 1000, d = 50;
* interventional, method "product", n = 300, d = 20, 50 background rows;
* interventional, method "exact", n = 300, d = 8, 50 background rows;
* observational, method "exact", n = 200, d = 6 (the background is the
  training set).

The last two share most of their arithmetic among the points of a call: the
interventional worth table's mean embeddings over the background (2^d x m x n
multiply-adds, whatever the number of points) and the observational route's
factorisations (one per coalition). One point costs nearly what 100 do, so
their one / share is large by construction; what they pay per call beyond
their arithmetic is one / floor, the floor timed in the same run:

* interventional exact: the elementwise floor of ``bench_interventional.py``
  (the worth table by one multiplication per coalition over the background x
  training table, a numpy loop doing that work and no more) for the one point;
* observational exact: one Cholesky per proper coalition (2^d - 2 of them,
  LAPACK potrf of the m x m system, on as many BLAS threads as the route uses).
  At m = 200 a Cholesky is as cheap as the O(m^2) work every coalition needs
  besides it, so a line after the table also sets the one point against all
  of its arithmetic (``observational_work``: per coalition one m x m product,
  potrf, potrs and an m x n matrix-vector product; once the per-feature Grams
  and the background's predictions), each timed alone in numpy and LAPACK.

The interventional product route, too, forms one thing per call that its
points share: the absent-feature factors k_l(b_l, x_il) of every background
row and training point (m x n x d kernel values). A line after the table
prints their time and one / (share + that).

Printed per route: one, share, one / share, floor and one / floor, and the
overhead next to the arithmetic: one - share for the first two (share being
a point's arithmetic), one - floor for the last two. Target: one / share <= 2,
and one / floor <= 2 where the arithmetic is shared.

One and share are timed alternately, best of ``--repeat`` rounds of
``--calls`` calls each, so that other load on a shared machine falls on both.
Many short rounds rather than a few long ones: this machine slows down as a
whole for seconds at a time, and a few long rounds of one-point calls can all
fall in a slow spell that the 100-point rounds miss (one run gave 3.3 for the
functional baseline where the runs around it gave 1.8).

The cold fixed cost (#36): a user at a notebook calls once after the machine sat idle, not 100
times back to back. A second table times calls after a rest: each of ``--cold-rounds`` rounds
sleeps ``--rest`` seconds (0.3), times one call (cold), then the same call at once (warm); the
medians of both and cold / warm, for the call of the issue (an RBF SVR fitted on 50 rows of 8
features, ``kx.explain(svr, X[:10], value="functional_baseline", method="product")``), for each
route's one-point call above, and for two references measured the same way in the same run:

* the issue's call with BLAS held to one thread for the whole run (``threadpoolctl``), so that
  waking BLAS threads can have no part in its cold cost;
* scikit-learn's own ``svr.predict(X[:10])`` (a call of about the same length, ~0.35 ms, that does
  not go through kernelxai): the cold penalty this machine puts on a Python-level call of this
  size;
* a counting loop in pure Python (a few bytecodes, no allocation, no library code) sized to take
  the issue's call's warm time: how much slower this machine runs *any* work of that length right
  after a rest (its clock and caches coming back), with the smallest footprint a call can have.
  Where this floor is itself near 2, the issue's target is out of reach of any code on the machine.

The columns "woken" count the cold calls during which another thread of the process ran (its
context switches, read from ``/proc/self/task`` on Linux, outside the timed span), native ones
(OpenBLAS and OpenMP workers) and Python ones (kernelxai's helper threads) apart: a thread woken
for a problem that needs none shows there. Warm is the same call back to back: after each cold
call it runs again for 40 ms, and the fastest of the later half of those calls counts (the
machine takes several milliseconds to come back to full speed after a rest). Each ratio is
printed in wall time and in the calling thread's CPU time (``time.thread_time``): on a machine
that other processes load, wall time also holds the time they had the core, while the CPU time
keeps only what the call itself took -- a cold call's refilled caches and branch predictors
included. Target: cold / warm <= 2 for the issue's call.

Usage: python benchmarks/bench_overhead.py [--repeat 15] [--calls 8] [--quick] [--only TEXT]
                                           [--cold-rounds 15] [--rest 0.3] [--cold-only]
  --quick: 2 rounds of 3 calls, 3 cold rounds (a smoke run of the script).
  --only TEXT: only the routes whose label contains TEXT (e.g. "functional").
  --cold-only: only the second table (the cold fixed cost).

The product routes run a call's tasks on every core, while one point makes a single task on one
core: a line after the table sets one point against a point's share of the 100-point call held to
one core too (``os.sched_setaffinity``, Linux), the fixed cost of a call without the other cores'
help in the share.
For the functional baseline a further line times one point of a model with 10 training points (the
same d): next to no arithmetic, so that call's time is what any call pays besides its arithmetic.
Timings on a shared machine are noisy: read the ratios.
"""

from __future__ import annotations

import argparse
import os
import threading
import time
import timeit

import numpy as np
import threadpoolctl
from scipy.linalg import lapack
from sklearn.kernel_ridge import KernelRidge
from sklearn.svm import SVR

import kernelxai as kx
from kernelxai.models import as_expansion
from kernelxai.values._observational import small_blas

try:  # the interventional floor, shared with bench_interventional.py (run as a script from anywhere)
    from bench_interventional import floor_table
except ImportError:  # pragma: no cover - imported as benchmarks.bench_overhead
    from benchmarks.bench_interventional import floor_table

#: (label, value, method, n, d, background rows or None (the value function's default))
ROUTES = (
    ("functional baseline, auto (product)", "functional_baseline", "auto", 1000, 50, None),
    ("interventional, product", "interventional", "product", 300, 20, 50),
    ("interventional, exact", "interventional", "exact", 300, 8, 50),
    ("observational, exact", "observational", "exact", 200, 6, None),
)

#: Explained points of the long call.
POINTS = 100

#: Training points of the functional baseline's call with next to no arithmetic (its fixed cost).
BARE_TRAINING_POINTS = 10

#: Seconds of rest before a cold call, the rounds of the cold table, and the seconds of back-to-back
#: calls after each cold one (the machine takes several milliseconds to come back to full speed
#: after a rest: the calls right after a cold one are still 1.5-2x slower than later ones).
REST = 0.3
COLD_ROUNDS = 15
WARM_SECONDS = 0.04


def make_case(n, d, seed=0) -> tuple[KernelRidge, np.ndarray, np.ndarray]:
    """An RBF KernelRidge fitted on n rows of d features, its training rows, and 100 rows to explain."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(X[:, 0]) + X[:, 1] - 0.5 * X[:, 2] ** 2 + 0.1 * rng.normal(size=n)
    model = KernelRidge(kernel="rbf", gamma=1.0 / (2 * d), alpha=0.1).fit(X, y)
    return model, X, rng.normal(size=(POINTS, d))


def best_per_call(fn, calls) -> float:
    """Seconds of the fastest of ``calls`` calls of ``fn``."""
    best = float("inf")
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def cholesky_floor(model, X_train, d, calls) -> float:
    """(2^d - 2) x one in-place Cholesky of the training Gram + n eta I (the observational floor)."""
    gamma = model.gamma
    sq = ((X_train[:, None, :] - X_train[None, :, :]) ** 2).sum(-1)
    K = np.exp(-gamma * sq) + len(X_train) * 1e-3 * np.eye(len(X_train))

    def one():
        lapack.dpotrf(K, lower=True, overwrite_a=False)

    with small_blas(len(K)):   # the route's thread setting (one BLAS thread for small systems)
        return (2**d - 2) * best_per_call(one, calls)


def observational_work(model, X_train, x, d, calls) -> float:
    """Seconds of the arithmetic one observational point cannot do without, in numpy and LAPACK.

    Once: the per-feature Gram tensor of the background (here the training set) and the
    background's predictions f(B) = K(B, X_train) alpha. Per proper coalition S (2^d - 2 of
    them): one elementwise m x m product (a coalition's Gram from its parent's along a walk
    of the lattice), the in-place Cholesky of K_S + m eta I (potrf), the solve for the point
    (potrs) and one m x n product with a vector (Prop. 3's K_{S^c}(B, X_train) (alpha * .)).
    The Cholesky alone is ``cholesky_floor``; this adds what every coalition needs besides.
    """
    gamma, m = model.gamma, len(X_train)
    alpha = np.asarray(model.dual_coef_, dtype=float).ravel()
    diff = X_train[:, None, :] - X_train[None, :, :]
    K = np.exp(-gamma * (diff**2).sum(-1)) + m * 1e-3 * np.eye(m)
    k_x = np.exp(-gamma * (X_train - x) ** 2)[:, 0]
    parent, work, v = np.ones((m, m)), np.empty((m, m)), np.ones(m)

    def once():
        G = np.exp(-gamma * diff**2)                 # (m, m, d) per-feature Grams
        return G.prod(axis=-1) @ alpha               # f(background)

    def per_coalition():
        np.multiply(parent, K, out=work)
        c, _ = lapack.dpotrf(work, lower=True, overwrite_a=True)
        lapack.dpotrs(c, k_x, lower=True)
        return K @ v

    with small_blas(m):
        return best_per_call(once, calls) + (2**d - 2) * best_per_call(per_coalition, 5 * calls)


def _other_threads_switches() -> dict:
    """Context switches so far of every thread of this process but the calling one (Linux; else {})."""
    me = threading.get_native_id()
    counts = {}
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return counts
    for task in tasks:
        if int(task) == me:
            continue
        try:
            with open(f"/proc/self/task/{task}/status") as status:
                counts[task] = sum(int(line.split()[1]) for line in status if "ctxt_switches" in line)
        except OSError:   # the thread ended meanwhile
            continue
    return counts


def cold_and_warm(fn, rounds=COLD_ROUNDS, rest=REST) -> dict:
    """Median seconds of ``fn()`` after ``rest`` seconds idle (cold) and back to back (warm), per round.

    After the cold call the same call runs back to back for at least WARM_SECONDS (and 6 calls):
    warm is the fastest of the second half of them. Each is timed twice: wall time and this
    thread's CPU time (``time.thread_time``, which leaves out the time other processes held the
    core -- a steadier reading on a busy machine; a call's helper threads are not in it). Also
    counts the cold calls during which another thread of the process ran: a native one (an
    OpenBLAS or OpenMP worker) or a Python one (kernelxai's helper threads).
    """
    fn(), fn()   # first calls: imports, caches
    cold, warm, cold_cpu, warm_cpu, native, python = [], [], [], [], 0, 0
    for _ in range(rounds):
        time.sleep(rest)
        before = _other_threads_switches()
        start, start_cpu = time.perf_counter(), time.thread_time()
        fn()
        cold.append(time.perf_counter() - start)
        cold_cpu.append(time.thread_time() - start_cpu)
        after = _other_threads_switches()
        ran = {int(t) for t in after if after[t] != before.get(t, after[t])}
        ours = {t.native_id for t in threading.enumerate()}
        native += bool(ran - ours)
        python += bool(ran & ours)
        walls, cpus, began = [], [], time.perf_counter()
        while len(walls) < 6 or time.perf_counter() - began < WARM_SECONDS:
            start, start_cpu = time.perf_counter(), time.thread_time()
            fn()
            walls.append(time.perf_counter() - start)
            cpus.append(time.thread_time() - start_cpu)
        warm.append(min(walls[len(walls) // 2:]))
        warm_cpu.append(min(cpus[len(cpus) // 2:]))
    return {"cold": float(np.median(cold)), "warm": float(np.median(warm)),
            "cold_cpu": float(np.median(cold_cpu)), "warm_cpu": float(np.median(warm_cpu)),
            "woken_native": native, "woken_python": python, "rounds": rounds}


def issue_case(seed=0) -> tuple[SVR, np.ndarray]:
    """The call of #36: an RBF SVR fitted on 50 rows of 8 features, and its rows."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(50, 8))
    y = np.sin(X[:, 0]) + X[:, 1] - 0.5 * X[:, 2] ** 2 + 0.1 * rng.normal(size=50)
    return SVR().fit(X, y), X


def _count(steps) -> int:
    total = 0
    for i in range(steps):
        total += i
    return total


def counting_steps(seconds) -> int:
    """Steps of :func:`_count` that take ``seconds`` back to back (best of a few timings)."""
    steps = 10_000
    per_step = min(timeit.repeat(lambda: _count(steps), number=1, repeat=20)) / steps
    return max(1, round(seconds / per_step))


def cold_table(rows, rounds, rest) -> list[dict]:
    """The cold fixed cost: the issue's call, each route's one point, and the two references."""
    svr, X = issue_case()

    def issue():
        kx.explain(svr, X[:10], value="functional_baseline", method="product")

    def predict():
        svr.predict(X[:10])

    cases = [("#36: SVR n = 50, d = 8, 10 points, product", issue)]
    for r in rows:
        cases.append((f"{r['label']}, 1 point", r["one_fn"]))
    results = []
    print(f"\ncold: a call after {rest} s idle; warm: the same call back to back (the fastest of the later "
          f"half of {WARM_SECONDS * 1e3:.0f} ms of calls after the cold one); medians of {rounds} rounds, in "
          f"wall time and in the calling thread's CPU time (other processes' load left out); woken: cold "
          f"calls during which a BLAS/OpenMP (native) thread or a Python thread (kernelxai's helpers) ran")
    header = (f"{'call':<52} {'cold ms':>8} {'warm ms':>8} {'cold/warm':>9} {'CPU: cold/warm':>14} "
              f"{'woken: native':>13} {'python':>6}")
    print(header)
    print("-" * len(header))

    def show(label, r):
        results.append({"label": label, **r})
        print(f"{label:<52} {1e3 * r['cold']:>8.2f} {1e3 * r['warm']:>8.2f} {r['cold'] / r['warm']:>9.2f} "
              f"{r['cold_cpu'] / r['warm_cpu']:>14.2f} {r['woken_native']:>13} {r['woken_python']:>6}", flush=True)

    for label, fn in cases:
        show(label, cold_and_warm(fn, rounds, rest))
    with threadpoolctl.threadpool_limits(limits=1):
        one_thread = cold_and_warm(issue, rounds, rest)
    show("  the same, BLAS held to one thread", one_thread)
    show("  reference: scikit-learn's svr.predict(X[:10])", cold_and_warm(predict, rounds, rest))
    steps = counting_steps(results[0]["warm"])
    show(f"  floor: a pure-Python loop of {steps} steps, same warm time",
         cold_and_warm(lambda: _count(steps), rounds, rest))
    print("target: cold / warm <= 2 for the #36 call; the scikit-learn reference is this machine's own "
          "cold penalty for a Python-level call of that size, the loop its penalty on any work that long")
    return results


def one_point(value, method, n, d, m):
    """The one-point call of a route of ROUTES (as :func:`row` times it)."""
    model, X_train, X = make_case(n, d)
    kwargs = {"value": value, "method": method}
    if m is not None:
        kwargs["background"] = X_train[:m]
    return lambda: kx.explain(model, X[:1], **kwargs)


def bare_call(d, kwargs):
    """One point of a model with BARE_TRAINING_POINTS training points: next to no arithmetic (the fixed cost)."""
    small, _, X_small = make_case(BARE_TRAINING_POINTS, d)

    def bare():
        kx.explain(small, X_small[:1], **kwargs)

    bare()   # first call: caches
    return bare


def floors(value, method, model, X_train, X, d, m, calls) -> tuple[float, float]:
    """One round of what a route whose points share their arithmetic is set against.

    (floor, all its arithmetic): the observational route's Cholesky floor and its whole
    arithmetic; the interventional exact route's elementwise floor (and inf); (nan, inf) else.
    """
    if value == "observational":
        return (cholesky_floor(model, X_train, d, max(3, calls // 5)),
                observational_work(model, X_train, X[0], d, max(3, calls // 5)))
    if method == "exact":
        expansion, background = as_expansion(model), X_train[:m]
        return best_per_call(lambda: floor_table(expansion, background, X[:1]), calls), float("inf")
    return float("nan"), float("inf")


def row(label, value, method, n, d, m, repeat, calls) -> dict:
    """One route's timings: 1 point, 100 points / 100, their ratio (and the floor for observational)."""
    model, X_train, X = make_case(n, d)
    kwargs = {"value": value, "method": method}
    if m is not None:
        kwargs["background"] = X_train[:m]

    def one():
        kx.explain(model, X[:1], **kwargs)

    def many():
        kx.explain(model, X, **kwargs)

    def many_one_core():
        # the process held to one CPU: the product route's helper threads (kx.explain's n_jobs
        # is for chunks of rows) and BLAS share it, as one point's single task has one core
        cores = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {min(cores)})
        try:
            kx.explain(model, X, **kwargs)
        finally:
            os.sched_setaffinity(0, cores)

    product = (value == "functional_baseline" or method == "product") and hasattr(os, "sched_setaffinity")
    one(), many()  # first calls: imports, caches
    t_one, t_many, t_floor, t_work = float("inf"), float("inf"), float("nan"), float("inf")
    t_shared, t_many1, t_bare = float("inf"), float("inf"), float("inf")
    bare = bare_call(d, kwargs) if value == "functional_baseline" else None
    for _ in range(repeat):
        t_one = min(t_one, best_per_call(one, calls))
        if bare is not None:
            t_bare = min(t_bare, best_per_call(bare, calls))
        t_many = min(t_many, best_per_call(many, max(1, calls // 10)))
        if product:   # the product routes' tasks run on every core; one point's single task on one
            t_many1 = min(t_many1, best_per_call(many_one_core, max(1, calls // 10)))
        if value == "interventional" and method == "product":
            kernel, background = as_expansion(model).kernel, X_train[:m]
            t_shared = min(t_shared, best_per_call(lambda: kernel.feature_grams(background, X_train), calls))
        floor, work = floors(value, method, model, X_train, X, d, m, calls)
        t_floor, t_work = float(np.fmin(t_floor, floor)), min(t_work, work)   # fmin: a NaN floor is none
    share = t_many / POINTS
    return {"label": label, "n": n, "d": d, "one": t_one, "share": share, "ratio": t_one / share,
            "floor": t_floor, "work": t_work, "shared": t_shared, "share_one_core": t_many1 / POINTS,
            "bare": t_bare, "one_fn": one}


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--calls", type=int, default=8)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default=None,
                        help="run only the routes whose label contains this text (e.g. 'functional')")
    parser.add_argument("--cold-rounds", type=int, default=COLD_ROUNDS)
    parser.add_argument("--rest", type=float, default=REST, help="seconds idle before a cold call")
    parser.add_argument("--cold-only", action="store_true", help="only the table of the cold fixed cost")
    args = parser.parse_args(argv)
    repeat, calls = (2, 3) if args.quick else (args.repeat, args.calls)
    cold_rounds = 3 if args.quick else args.cold_rounds
    routes = [r for r in ROUTES if args.only is None or args.only in r[0]]
    if args.cold_only:
        return cold_table([{"label": r[0], "one_fn": one_point(*r[1:])} for r in routes], cold_rounds, args.rest)
    print(f"one: kx.explain of 1 point; share: of {POINTS} points / {POINTS}; best of {repeat} rounds")
    header = (f"{'route':<38} {'n':>5} {'d':>3} {'one ms':>8} {'share ms':>9} {'one/share':>9} "
              f"{'floor ms':>9} {'one/floor':>9} {'overhead ms':>11} {'arithmetic ms':>13}")
    print(header)
    print("-" * len(header))
    rows = []
    for label, value, method, n, d, m in routes:
        r = row(label, value, method, n, d, m, repeat, calls)
        rows.append(r)
        shared = r["floor"] == r["floor"]
        floor = f"{1e3 * r['floor']:>9.2f} {r['one'] / r['floor']:>9.2f}" if shared else f"{'':>9} {'':>9}"
        arithmetic = r["floor"] if shared else r["share"]
        print(f"{label:<38} {n:>5} {d:>3} {1e3 * r['one']:>8.2f} {1e3 * r['share']:>9.3f} "
              f"{r['ratio']:>9.2f} {floor} {1e3 * (r['one'] - arithmetic):>11.2f} {1e3 * arithmetic:>13.2f}",
              flush=True)
    for r in rows:
        if r["bare"] != float("inf"):
            print(f"{r['label']}: one point of a model with {BARE_TRAINING_POINTS} training points (the "
                  f"same d; next to no arithmetic), the fixed cost of a call: {1e3 * r['bare']:.3f} ms, "
                  f"{r['bare'] / r['one']:.0%} of one point at n = {r['n']}")
        if r["share_one_core"] != float("inf"):
            s1 = r["share_one_core"]
            print(f"{r['label']}: a point's share of a {POINTS}-point call held to one core: "
                  f"{1e3 * s1:.3f} ms (on every core the call is {s1 / r['share']:.2f}x faster); "
                  f"one / that = {r['one'] / s1:.2f}, the fixed cost of a call {1e3 * (r['one'] - s1):.2f} ms")
        if r["shared"] != float("inf"):
            both = r["share"] + r["shared"]
            print(f"{r['label']}: the absent-feature factors k_l(b_l, x_il) of the background against the "
                  f"training points, formed once per call whatever its points: {1e3 * r['shared']:.2f} ms; "
                  f"one / (share + that) = {r['one'] / both:.2f}, overhead {1e3 * (r['one'] - both):.2f} ms")
        if r["work"] != float("inf"):
            print(f"{r['label']}: one point against all the arithmetic it needs (Cholesky, solve, one "
                  f"Gram product and one matrix-vector product per coalition, the per-feature Grams and "
                  f"f(background) once): {1e3 * r['work']:.2f} ms, one / that = {r['one'] / r['work']:.2f}, "
                  f"overhead {1e3 * (r['one'] - r['work']):.2f} ms")
    print("target: one/share <= 2; where the points share the arithmetic (a floor is printed), one/floor <= 2")
    return rows + cold_table(rows, cold_rounds, args.rest)


if __name__ == "__main__":
    main()
