"""Exact interactions of any order of kernel models: the product route against its arithmetic and shapiq.

Models on d standard-normal features (y = x0 x1 + sin x2 + x3 x4 x5 + noise): an RBF ``SVR``
(300 training points, ~280 support vectors) and a ``GaussianProcessRegressor`` (1.0 * RBF,
length scale sqrt(d), 200 training points); games of one explained point: interventional
(20 background rows: a product term per training point and background row) and the
functional baseline (a term per training point). Index k-SII (``--index`` for another),
whose order k returns the sets of every size 1..k.

Prints, measured in this run (timings are noisy on shared cores: read the ratios):

1. The product route, ``kx.shapley_interactions(game, index, order=k, method="product")``, at
   order 2 (d = 10, 20, 50, 100, 200) and order 3 (d = 10, 20, 50, 100), against its own
   arithmetic: sets x terms x quadrature nodes multiply-adds (summed over the sizes returned),
   timed as ONE float64 matrix product with that many multiply-adds (``np.matmul`` (M, n) @
   (n, n), n <= 2048; the best of several calls on one and on two BLAS threads) in the same
   run. The nodes are those the route used (``product_interaction_orders(...)["nodes"]``:
   value nodes per term of each size, the certified adaptive count of
   ``kernelxai.estimators._interaction_dense``), so a route that needs fewer nodes has less
   arithmetic to be measured against.
   ratio = route / product (target: <= 3 at order 2, d = 50-200, and order 3, d = 50-100).
   "cpu ratio": the engine's processor time (``time.process_time``, all its threads) over the
   product's on one BLAS thread -- what the arithmetic costs, whatever else the machine runs.
   Beside the first, the ratio against the arithmetic of the exact node counts
   (ceil((d - t + deg + 1) / 2) plus point masses, which the previous engine used and the
   earlier numbers on the performance page were measured against), and the engine's own time
   (``product_interaction_orders``; ``kx.shapley_interactions`` adds its checks and the
   Explanation). Order 2 of SII, k-SII, STII and FSII goes through the pairwise route's entry
   point, which hands the work to the engine.
2. shapiq's ``ExactComputer`` (all 2**d coalitions, evaluated by kernelxai's game: the
   cheapest evaluation shapiq could get) at d = 10 and 12, orders 2 and 3: its time over the
   product route's (target >= 100 at d = 12) and the largest difference relative to the
   largest value (target <= 1e-9).
3. Where ExactComputer cannot run (d >= 20): shapiq's sampled approximators of the index
   (SVARMIQ, SHAPIQ, PermutationSamplingSII, KernelSHAPIQ, InconsistentKernelSHAPIQ, SPEX,
   ProxySPEX and, from shapiq 1.5, ProxySHAP, where the index is theirs), each with the budget
   that takes about as long as the product route: a run at 256 evaluations (more where the
   approximator asks for more), then, if that was faster than the route, one at the budget
   of equal time assuming time proportional to the budget. Each run is a child process
   stopped after max(5 s, 3 x the route). On the SVR's functional-baseline game (the
   cheapest exact case, so the calibration runs stay short): budget, seconds, time over the
   product route, relative L2 and max errors against the exact values (all sets returned);
   shapiq's best per case is marked (the lowest L2 error among its runs within 1.5 x the
   route's time, else among all). kernelxai's own ``method="sampled"`` (order 2) too.
   Without shapiq, parts 2 and 3 are skipped with a message.

The route's loops outside BLAS run compiled where numba is installed (``kernelxai[numba]``;
``kernelxai.estimators._interaction_gram_numba``): the kernels are loaded before the timings
(a call loads them itself only when it is long enough to pay for that), and the header says
which loops ran. ``--numpy`` keeps the numpy loops.

Usage: python benchmarks/bench_interactions.py [--quick] [--index NAME] [--skip-shapiq] [--numpy]
  --quick: order 2 at d = 10, 50; order 3 at d = 10, 20; ExactComputer at d = 10, 12,
  order 2; sampling at order 2, d = 50.
"""

import argparse
import math
import os
import time
import warnings

import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
from sklearn.svm import SVR

import kernelxai as kx
import kernelxai.estimators._interaction_gram as _gram
from kernelxai.estimators._interaction_gram_numba import gram_kernels, numba_available
from kernelxai.estimators._interaction_indices import get_index
from kernelxai.estimators._interaction_product_orders import product_interaction_orders, product_orders_work

#: Indices whose order 2 kx.shapley_interactions serves by the pairwise route (today's values kept).
PAIRWISE_ROUTE = ("SII", "k-SII", "STII", "FSII")
TARGET_ARITHMETIC = 3.0
TARGET_EXACT_COMPUTER = 100.0
TARGET_DIFF = 1e-9
CALIBRATION_BUDGET = 256
#: Memory allowed for a regression approximator's design matrix (budget x sets floats).
REGRESSION_BYTES = 1.0e9


def best_time(fn, repeat, clock=time.perf_counter):
    best, out = math.inf, None
    for _ in range(repeat):
        start = clock()
        out = fn()
        best = min(best, clock() - start)
    return out, best


# --------------------------------------------------------------------------- #
# models, games and the exact values
# --------------------------------------------------------------------------- #
def models(d, seed=0):
    rng = np.random.default_rng(seed + d)
    X = rng.normal(size=(321, d))
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + X[:, 3] * X[:, 4] * X[:, 5] + 0.1 * rng.normal(size=len(X))
    svr = SVR(kernel="rbf", gamma=0.5 / d, C=3.0).fit(X[:300], y[:300])
    gp = GaussianProcessRegressor(ConstantKernel(1.0, "fixed") * RBF(np.sqrt(d), "fixed"), alpha=0.1,
                                  optimizer=None).fit(X[:200], y[:200])
    background, point = X[300:320], X[320:321]
    games = {}
    for name, model in (("SVR", svr), ("GP", gp)):
        games[(name, "interventional")] = kx.values.Interventional(model, background=background).game(point)
        games[(name, "functional")] = kx.values.FunctionalBaseline(model).game(point)
    return games


def exact(game, index, k, repeat):
    with kx.config_context(progress=False, max_cost=None):
        return best_time(lambda: kx.shapley_interactions(game, index=index, order=k, method="product"), repeat)


def table(e, index, k, d):
    """{set: value} of the sizes order k returns (single point)."""
    out = {}
    for t in get_index(index).sizes(k, d):
        block = e.interaction_orders[t]
        vals = np.asarray(block.values, dtype=float).reshape(len(block.sets))
        out.update(zip(map(tuple, block.sets.tolist()), vals.tolist()))
    return out


def arithmetic(d, terms, nodes):
    """sets x terms x nodes multiply-adds of the sizes in ``nodes`` {t: value nodes per term}."""
    return sum(math.comb(d, t) * terms * q for t, q in nodes.items())


def exact_nodes(d, terms, index, k):
    """{t: nodes} of the exact quadrature (every factor; what the engine used before the adaptive count)."""
    return product_orders_work(d, terms, 1, index, k)["nodes"]


class Contraction:
    """One float64 matrix product (M, n) @ (n, n) with a given number of multiply-adds, timed.

    The best of several calls on one and on all BLAS threads (waking a second thread on a
    loaded machine can cost more than a small product itself)."""

    def __init__(self):
        self.rng = np.random.default_rng(0)

    def seconds(self, macs):
        from threadpoolctl import threadpool_limits

        n = int(min(2048, max(8, round(macs ** (1 / 3)))))
        m = max(1, round(macs / n**2))
        a = self.rng.random((m, n))
        b = self.rng.random((n, n))
        out = np.empty((m, n))
        repeat = 3 if macs > 1e9 else 7
        np.matmul(a, b, out=out)                                       # warm the BLAS threads
        _, t = best_time(lambda: np.matmul(a, b, out=out), repeat)
        with threadpool_limits(1, user_api="blas"):
            _, t1 = best_time(lambda: np.matmul(a, b, out=out), repeat)
        return min(t, t1) * macs / (m * n * n)

    def cpu_seconds(self, macs):
        """The processor time (``time.process_time``) of the product on one BLAS thread."""
        from threadpoolctl import threadpool_limits

        n = int(min(2048, max(8, round(macs ** (1 / 3)))))
        m = max(1, round(macs / n**2))
        a, b, out = self.rng.random((m, n)), self.rng.random((n, n)), np.empty((m, n))
        with threadpool_limits(1, user_api="blas"):
            _, t = best_time(lambda: np.matmul(a, b, out=out), 3 if macs > 1e9 else 7, time.process_time)
        return t * macs / (m * n * n)


# --------------------------------------------------------------------------- #
# 1. the product route against its arithmetic
# --------------------------------------------------------------------------- #
def part_arithmetic(cases, index):
    print(f"1. the product route ({index}) against its arithmetic: sets x terms x nodes multiply-adds "
          "timed as one matrix product")
    print(f"{'k':>2} {'d':>4} {'model':>5} {'game':>14} {'terms':>6} {'sets':>7} {'nodes':>9} {'GMAC':>8} "
          f"{'matmul s':>9} {'route s':>9} {'ratio':>7} {'exact nodes':>12} {'ratio':>7} {'engine s':>9} "
          f"{'ratio':>7} {'cpu ratio':>9}")
    contraction = Contraction()
    results, verdict = {}, []
    for k, d in cases:
        for (model, game_name), game in models(d).items():
            terms = game.n_terms()
            repeat = 5 if d <= 50 else 3
            e, t_route = exact(game, index, k, repeat=repeat)
            results[(k, d, model, game_name)] = (game, e, t_route)
            with kx.config_context(progress=False, max_cost=None):
                res, t_eng = best_time(lambda g=game: product_interaction_orders(g, index, k), repeat)
                _, cpu_eng = best_time(lambda g=game: product_interaction_orders(g, index, k), repeat,
                                       time.process_time)
            nodes = res["nodes"]
            macs = arithmetic(d, terms, nodes)
            full = exact_nodes(d, terms, index, k)
            t_mm = contraction.seconds(macs)
            t_full = contraction.seconds(arithmetic(d, terms, full))
            ratio, ratio_engine = t_route / t_mm, t_eng / t_mm
            ratio_cpu = cpu_eng / contraction.cpu_seconds(macs)
            n_sets = sum(math.comb(d, t) for t in nodes)
            print(f"{k:>2} {d:>4} {model:>5} {game_name:>14} {terms:>6} {n_sets:>7} "
                  f"{'/'.join(f'{q:.0f}' for q in nodes.values()):>9} {macs / 1e9:>8.3f} {t_mm:>9.4f} "
                  f"{t_route:>9.3f} {ratio:>6.1f}x {'/'.join(str(q) for q in full.values()):>12} "
                  f"{t_route / t_full:>6.1f}x {t_eng:>9.3f} {ratio_engine:>6.1f}x {ratio_cpu:>8.1f}x")
            if (k == 2 and 50 <= d <= 200) or (k == 3 and 50 <= d <= 100):
                verdict.append((k, d, model, game_name, ratio, ratio_engine, ratio_cpu))
    if verdict:
        met = [v for v in verdict if v[4] <= TARGET_ARITHMETIC]
        print(f"   target route / matmul <= {TARGET_ARITHMETIC:g} at order 2 (d = 50-200) and 3 (d = 50-100): "
              f"met in {len(met)} of {len(verdict)} cases (ratios {min(v[4] for v in verdict):.1f}x - "
              f"{max(v[4] for v in verdict):.1f}x)")
        for j, what in ((5, "the engine alone (product_interaction_orders)"),
                        (6, "the engine's processor time over one BLAS thread's")):
            got = [v[j] for v in verdict]
            print(f"   {what}: {min(got):.1f}x - {max(got):.1f}x "
                  f"({sum(r <= TARGET_ARITHMETIC for r in got)} of {len(got)} within {TARGET_ARITHMETIC:g}x)")
    return results


# --------------------------------------------------------------------------- #
# 2. shapiq's ExactComputer
# --------------------------------------------------------------------------- #
def scalar_game(game):
    def value_function(coalitions):                # shapiq may pass one coalition as a 1-D array
        Z = np.atleast_2d(np.asarray(coalitions, dtype=bool))
        return np.asarray(game(Z), dtype=float).reshape(len(Z))
    return value_function


def part_exact_computer(shapiq, dims, orders, index):
    print(f"\n2. shapiq's ExactComputer ({index}, 2**d coalitions evaluated by kernelxai's game) against "
          "the product route")
    print(f"{'k':>2} {'d':>4} {'model':>5} {'game':>14} {'shapiq s':>9} {'route s':>9} {'shapiq/route':>13} "
          f"{'max rel diff':>13}")
    for d in dims:
        for (model, game_name), game in models(d).items():
            for k in orders:
                e, t_route = exact(game, index, k, repeat=5)
                ours = table(e, index, k, d)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    iv, t_sq = best_time(
                        lambda g=game, kk=k: shapiq.ExactComputer(game=scalar_game(g), n_players=d)(index, kk), 1)
                peer = {tuple(sorted(s)): float(iv.values[p]) for s, p in iv.interaction_lookup.items() if len(s)}
                keys = list(peer)
                ref = np.array([peer[s] for s in keys])
                diff = np.abs(np.array([ours[s] for s in keys]) - ref).max() / np.abs(ref).max()
                ratio = t_sq / t_route
                met = ratio >= TARGET_EXACT_COMPUTER and diff <= TARGET_DIFF
                flag = "" if d != 12 else ("  (target met)" if met else
                                           f"  (target >= {TARGET_EXACT_COMPUTER:g}x, <= {TARGET_DIFF:g}: NOT met)")
                print(f"{k:>2} {d:>4} {model:>5} {game_name:>14} {t_sq:>9.3f} {t_route:>9.4f} {ratio:>12.0f}x "
                      f"{diff:>13.1e}{flag}")


# --------------------------------------------------------------------------- #
# 3. sampled approximators at equal wall time
# --------------------------------------------------------------------------- #
SHAPIQ_APPROXIMATORS = ("SVARMIQ", "SHAPIQ", "PermutationSamplingSII", "KernelSHAPIQ", "InconsistentKernelSHAPIQ",
                        "SPEX", "ProxySPEX", "ProxySHAP")


def approximators(shapiq, index, k, d):
    """(name, factory or None, reason) of shapiq's sampled approximators of ``index`` at order k."""
    n_sets = sum(math.comb(d, t) for t in range(k + 1))
    out = []
    for name in SHAPIQ_APPROXIMATORS:
        cls = getattr(shapiq.approximator, name, None)
        if cls is None or index not in getattr(cls, "valid_indices", ()):
            continue
        reason = None
        if "Kernel" in name and max(CALIBRATION_BUDGET, n_sets) * n_sets * 8 > REGRESSION_BYTES:
            reason = (f"its regression's matrices ({n_sets} unknowns: {n_sets}**2 floats) exceed "
                      f"{REGRESSION_BYTES / 1e9:g} GB")
        out.append((name, None if reason else (lambda c=cls: c(n=d, max_order=k, index=index, random_state=0)),
                    reason, n_sets))
    return out


def errors(approx, exact_table):
    keys = list(exact_table)
    ref = np.array([exact_table[s] for s in keys])
    got = np.array([approx.get(s, 0.0) for s in keys])
    return np.linalg.norm(got - ref) / np.linalg.norm(ref), np.abs(got - ref).max() / np.abs(ref).max()


def _shapiq_run(conn, factory, budget, value_function):
    devnull = os.open(os.devnull, os.O_WRONLY)          # the child's own output (LightGBM's log) is not the table's
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            approx = factory()
            start = time.perf_counter()
            iv = approx.approximate(budget=budget, game=value_function)
            t = time.perf_counter() - start
        conn.send(("ok", {tuple(sorted(s)): float(iv.values[p]) for s, p in iv.interaction_lookup.items() if len(s)},
                   t))
    except Exception as err:  # a peer's failure is reported, not raised
        conn.send(("failed", f"{type(err).__name__}: {str(err)[:90]}", None))


def run_shapiq(factory, budget, value_function, limit):
    """One approximation in a child process (forked: the game is shared), stopped after ``limit`` s."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_shapiq_run, args=(send, factory, budget, value_function), daemon=True)
    child.start()
    send.close()
    answer = receive.recv() if receive.poll(limit) else ("timeout", f"over {limit:.0f} s", None)
    if answer[0] == "timeout":
        child.terminate()
    child.join()
    return answer


def calibrated(run, t_route, b0, cap):
    """Run at ``b0``; where that is faster than the product route, again at the budget of equal time."""
    status, out, t = run(b0)
    for _ in range(3):                      # approximators that need a larger minimum budget
        if status == "failed" and "budget" in out.lower() and b0 * 4 <= cap:
            b0 *= 4
            status, out, t = run(b0)
    budget = b0
    for _ in range(2):                      # twice: fixed costs make the first scaling too small
        if status != "ok" or t >= 0.7 * t_route:
            break
        more = int(min(cap, budget * t_route / max(t, 1e-6)))
        if more <= budget:
            break
        status2, out2, t2 = run(more)
        if status2 != "ok" or t2 > 1.5 * t_route:
            break
        status, out, t, budget = status2, out2, t2, more
    return status, out, t, budget


def part_sampling(shapiq, cases, results, index):
    print(f"\n3. sampled approximators at the product route's wall time (SVR, functional-baseline game, {index}); "
          f"each call stopped after max(5 s, 3 x the route)")
    print(f"{'k':>2} {'d':>4} {'estimator':>26} {'budget':>9} {'seconds':>8} {'time/route':>11} "
          f"{'rel L2 err':>11} {'max rel err':>12}")
    for k, d in cases:
        game, e, t_route = results[(k, d, "SVR", "functional")]
        truth = table(e, index, k, d)
        value_function = scalar_game(game)
        limit = max(5.0, 3 * t_route)
        cap = min(2**d, 10**6)
        rows = []
        for name, factory, reason, n_sets in approximators(shapiq, index, k, d):
            if factory is None:
                print(f"{k:>2} {d:>4} {name:>26}   not run: {reason}")
                continue
            cap_name = int(min(cap, REGRESSION_BYTES / (8 * n_sets))) if "Kernel" in name else cap
            status, out, t, budget = calibrated(
                lambda b, f=factory: run_shapiq(f, b, value_function, limit), t_route,
                min(CALIBRATION_BUDGET, cap_name), cap_name)
            if status != "ok":
                print(f"{k:>2} {d:>4} {name:>26} {budget:>9}   {status}: {out}")
                continue
            l2, mx = errors(out, truth)
            rows.append((l2, name, budget, t, mx))
        if k == 2 and get_index(index).name in PAIRWISE_ROUTE:
            def ours(b):
                with kx.config_context(progress=False, max_cost=None):
                    try:
                        s, t = best_time(lambda: kx.shapley_interactions(game, index=index, order=2, method="sampled",
                                                                         budget=b, seed=0), 1)
                    except (kx.estimators.InvalidOptionError, ValueError) as err:
                        return "failed", str(err)[:90], None
                return "ok", table(s, index, 2, d), t
            status, out, t, budget = calibrated(ours, t_route, 4 * d + 8, 10**7)
            if status == "ok":
                l2, mx = errors(out, truth)
                rows.append((l2, "kernelxai sampled", budget, t, mx))
            else:
                print(f"{k:>2} {d:>4} {'kernelxai sampled':>26} {budget:>9}   {status}: {out}")
        theirs = [r for r in rows if r[1] != "kernelxai sampled"]
        best = min([r for r in theirs if r[3] <= 1.5 * t_route] or theirs, default=None)
        for l2, name, budget, t, mx in rows:
            mark = "  <- shapiq's best" if best is not None and name == best[1] else ""
            print(f"{k:>2} {d:>4} {name:>26} {budget:>9} {t:>8.3f} {t / t_route:>10.1f}x {l2:>11.2e} {mx:>12.2e}{mark}")
        print(f"{k:>2} {d:>4} {'product route (exact)':>26} {'':>9} {t_route:>8.3f}")


def loops(numpy_only):
    """Load the compiled loops of the route (where numba is installed and not ``numpy_only``); say which run."""
    if numpy_only:
        _gram.USE_NUMBA = False
        return "loops outside BLAS: numpy (--numpy)"
    if not numba_available():
        return "loops outside BLAS: numpy (numba is not installed)"
    t0 = time.perf_counter()
    gram_kernels()
    return f"loops outside BLAS: compiled (numba), loaded in {time.perf_counter() - t0:.1f} s before the timings"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a few cases of each part")
    ap.add_argument("--index", default="k-SII", help="the interaction index (default k-SII)")
    ap.add_argument("--skip-shapiq", action="store_true", help="part 1 only")
    ap.add_argument("--numpy", action="store_true", help="the route's numpy loops even where numba is installed")
    args = ap.parse_args()
    index = get_index(args.index).name
    if args.quick:
        cases = [(2, 10), (2, 50), (3, 10), (3, 20)]
        exact_dims, exact_orders, sampled = (10, 12), (2,), [(2, 50)]
    else:
        cases = [(2, d) for d in (10, 20, 50, 100, 200)] + [(3, d) for d in (10, 20, 50, 100)]
        exact_dims, exact_orders, sampled = (10, 12), (2, 3), [c for c in cases if c[1] >= 20]
    import threadpoolctl

    print(f"kernelxai {kx.__version__}, numpy {np.__version__}, BLAS threads "
          f"{max((p.get('num_threads', 1) for p in threadpoolctl.threadpool_info()), default=1)}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(loops(args.numpy))
    start = time.perf_counter()
    results = part_arithmetic(cases, index)
    shapiq = None
    if not args.skip_shapiq:
        try:
            import importlib.metadata

            import shapiq
            print(f"\nshapiq {importlib.metadata.version('shapiq')}")
        except ImportError:
            print("\nshapiq is not installed (pip install 'kernelxai[shapiq]'): parts 2 and 3 are skipped")
    if shapiq is not None:
        part_exact_computer(shapiq, exact_dims, exact_orders, index)
        part_sampling(shapiq, [c for c in sampled if (c[0], c[1], "SVR", "functional") in results], results, index)
    print(f"\n(whole run {time.perf_counter() - start:.0f} s; load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
