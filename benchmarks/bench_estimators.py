"""The arena at full size: every sampled Shapley estimator against exact values, and shapiq's beside them.

Part 1 -- estimators on a vectorised game: one pass over the coalitions for all instances.
  "exact" with d = 12 and 1000 instances: coalitions evaluated (must be 4096, one pass for all
  instances), seconds and seconds per instance; "kernel" with all coalitions against "exact":
  the largest difference and the ratio of their times.

Part 2 -- the arena (``kx.compare_estimators``) on games with exact values:
  product-kernel models (RBF SVR, kernel ridge, GP mean) on
    d = 10:   scikit-learn's diabetes data (442 rows, offline);
    d = 50, 200, 1000: PKeX Exp. 1's design (``kx.datasets.pkex.linear_regression``: X ~ N(0, I_d),
              y = X beta + noise), as in notebooks 20/21;
  the interventional game over a background of 5 rows at d = 10 and 50, and -- where the
  interventional game costs ~n m d per coalition and point -- the functional-baseline game (PKeX)
  at d = 200 and 1000; exact values by the product route (milliseconds at d = 1000).
  The model-call games of the same models (``model.predict`` as a plain function, over the same
  background; exact values handed over with ``truth=``) at d = 10 and 50: the same game, so the
  same estimates and errors at a higher cost (the seconds are the difference).
  Every registered sampled estimator (``kx.available_methods()``; new plug-ins join by
  themselves) at budgets 2d, 5d, 10d, 20d, 50d, 100d, 200d game evaluations (capped by
  ``--max-evaluations``), several seeds, a few explained points each. Printed per game: the mean
  relative squared error ||phi_hat - phi||^2 / ||phi||^2 per method and budget, the ratio of each
  method's error to kernelxai's default sampled estimator (``method="auto"``'s choice when no
  exact route applies), and at d = 10 and 50 the coverage of stated intervals at 0.95.

Part 3 -- shapiq's approximators on the same games (KernelSHAP with paired sampling,
  LeverageSHAP, RegressionMSR with a linear and a tree proxy, PolySHAP, OddSHAP, SVARM,
  PermutationSamplingSV; PolySHAP and SVARM up to d = 50, where they take minutes per point beyond,
  PEER_MAX_D), in the Python 3.12 peer venv ``.venv-peer`` (``make peer``) when it
  exists: this file is run there as a child process (``--peer-worker``), rebuilds each game
  from the pickled fitted scikit-learn model and data with kernelxai (installed there too), hands
  shapiq a callable that evaluates it one explained point at a time, and returns the estimates;
  they are scored here against the same exact values. With shapiq's ``proxy`` extra (LightGBM,
  XGBoost) in the peer venv its tree surrogates use them; without, a DecisionTree (printed).
  Then, at d = 50 and 200 on the three model families: is kernelxai's default sampled estimator
  (``method="auto"``'s choice at that d and budget) within 1.1x of the best shapiq approximator's
  error at equal budget? (the ratio per budget). ``--peer-only`` runs this part alone against the
  ``arena_summary.csv`` an earlier run left in ``--figures``; each game is a child process of its
  own (``--peer-timeout`` seconds).

Writes the error-against-budget and coverage figures (``--figures DIR``, default
``build/bench_estimators``; ``--docs`` also writes ``docs/figures/estimators-arena.png``) and the
summary tables as CSV there.

Coverage (``--coverage``, instead of the parts above): every estimator that states intervals
  (every registered sampled estimator that takes a level, and KernelSHAP's paired design without
  replacement) on the same three families and games, at 0.9 and 0.95, at budgets
  ``--coverage-multiples`` x d: the share of (point, feature) pairs whose interval holds the exact
  value, per estimator, family, level and budget, marked where it is more than 0.02 from the level;
  ``coverage_summary.csv`` and the coverage figure (``--docs``: ``docs/figures/estimators-coverage.png``).

The guide (``--write-guide``, instead of the parts above): the arena without intervals on the same
  games (every registered sampled estimator and KernelSHAP without replacement, budgets
  ``--coverage-multiples`` x d), written to ``kernelxai/estimators/_arena_errors.json``: the package
  data behind ``meta["arena_error"]``, the error shown beside every sampled estimate.

Usage: python benchmarks/bench_estimators.py [--quick] [--d 10,50,200,1000] [--seeds 4]
         [--points 3] [--max-evaluations 40000] [--skip-shapiq] [--docs] [--part 1|2] [--replot DIR]
         [--coverage | --write-guide] [--coverage-multiples 5,10,20,50,100] [--methods a,b]
  --quick: d = 10 and 50, budgets 5d..50d, 2 seeds, 2 points.
  Coverage as measured for the docs: --coverage --d 10 --seeds 50 --points 4 --coverage-multiples
  5,10,20,50,60,100; --coverage --d 50 --seeds 10 --points 4 --coverage-multiples 5,20,100.
"""

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import kernelxai as kx
from kernelxai.estimators._choose import choose
from kernelxai.explainers._arena import DEFAULT_BUDGET_MULTIPLES, relative_errors
from kernelxai.explainers._explain import build_game
from kernelxai.workbench._reporting import timed

ROOT = Path(__file__).resolve().parents[1]
PEER_PYTHON = ROOT / ".venv-peer" / "bin" / "python"
#: shapiq's first-order approximators compared (label -> (class name, keyword arguments))
SHAPIQ = {
    "shapiq KernelSHAP": ("KernelSHAP", {"pairing_trick": True}),
    "shapiq LeverageSHAP": ("LeverageSHAP", {}),
    "shapiq MSR (linear)": ("RegressionMSR", {"index": "SV", "proxy_model": "linear"}),
    "shapiq MSR (tree)": ("RegressionMSR", {"index": "SV"}),
    "shapiq PolySHAP": ("PolySHAP", {}),
    "shapiq OddSHAP": ("OddSHAP", {}),
    "shapiq SVARM": ("SVARM", {}),
    "shapiq permutation": ("PermutationSamplingSV", {}),
}
TARGET_RATIO = 1.1
#: Largest budget each shapiq approximator is run at (PolySHAP's order-2 regression took ~10 s per
#: point at 2,500 evaluations and d = 50; the others are run up to --peer-max-evaluations).
PEER_BUDGET_CAP = {"shapiq PolySHAP": 3000, "shapiq SVARM": 5000}
#: Largest d each shapiq approximator is run at: PolySHAP took ~440 s per point at d = 200 and <= 2,000
#: evaluations (its pairwise frontier has C(200, 2) = 19,900 terms), SVARM over 300 s; both are far from
#: the best at d <= 50 (SVARM 10-1000x the best error).
PEER_MAX_D = {"shapiq PolySHAP": 50, "shapiq SVARM": 50}


# --------------------------------------------------------------------------- #
# part 1: one pass over the coalitions for all instances
# --------------------------------------------------------------------------- #
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


def vectorised(d=12, n=1000):
    X = np.random.default_rng(0).normal(size=(n, d))
    game = CountingGame(X)
    game.evaluated = 0
    kx.shapley_values(game, method="exact")
    passes = game.evaluated / 2**d
    exact, t_exact = timed(lambda: kx.shapley_values(game, method="exact"), repeat=3)
    kernel, t_kernel = timed(lambda: kx.shapley_values(game, method="kernel"), repeat=3)
    diff = np.abs(kernel.values - exact.values).max()
    print(f"== Part 1: d = {d}, {n} instances")
    print(f"exact : {int(passes * 2**d)} coalitions evaluated ({passes:.2f} pass(es) over 2^{d} for all "
          f"instances); {t_exact:.3f} s, {1e3 * t_exact / n:.3f} ms per instance")
    print(f"kernel (all coalitions): {t_kernel:.3f} s; max |kernel - exact| = {diff:.1e}")
    print(f"ratio kernel / exact time: {t_kernel / t_exact:.2f}")
    efficiency = np.abs(exact.values.sum(1) + exact.base_values - game.full_value).max()
    print(f"efficiency error of exact: {efficiency:.1e}\n")


# --------------------------------------------------------------------------- #
# part 2: the games and the arena
# --------------------------------------------------------------------------- #
def data(d, n_rows, seed=0):
    """(X, y, source): diabetes at d = 10, PKeX Exp. 1's design otherwise; standardised."""
    if d == 10:
        from sklearn.datasets import load_diabetes

        X, y = load_diabetes(return_X_y=True)
        source = "diabetes (scikit-learn)"
    else:
        X, y, _ = kx.datasets.pkex.linear_regression(n=n_rows, d=d, seed=seed)
        source = "PKeX Exp. 1 design (X ~ N(0, I), y = X beta + noise)"
    X = (X - X.mean(0)) / X.std(0)
    return X, (y - y.mean()) / y.std(), source


def families(X, y, d):
    """The three product-kernel model families, fitted with settings scaled to d (no optimiser)."""
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.svm import SVR

    return {"SVR": SVR(gamma=0.5 / d, C=3.0).fit(X, y),
            "kernel ridge": KernelRidge(kernel="rbf", gamma=1.0 / d, alpha=0.3).fit(X, y),
            "GP mean": GaussianProcessRegressor(RBF(0.7 * np.sqrt(d)), alpha=0.05, optimizer=None).fit(X, y)}


def cases(dims, points):
    """Every game of the arena: dict with the model, data, value function and the exact values."""
    out = []
    for d in dims:
        n_train = 200 if d <= 200 else 100
        X, y, source = data(d, n_train + 5 + points)
        train, background = slice(0, n_train), X[n_train:n_train + 5]
        P = X[len(X) - points:]
        value = "interventional" if d <= 50 else "functional_baseline"
        for family, model in families(X[train], y[train], d).items():
            bg = background if value == "interventional" else None
            game = build_game(model, P, value, bg).game
            with kx.config_context(progress=False, max_cost=None):
                truth, seconds = timed(lambda g=game: kx.shapley_values(g, method="product").values, repeat=1)
            out.append(dict(d=d, family=family, model=model, X=P, background=bg, value=value, source=source,
                            truth=truth, truth_seconds=seconds, calls=False))
            if d <= 50:
                out.append(dict(out[-1], calls=True))
    return out


def budgets_for(d, multiples, max_evaluations):
    """Budgets m d up to max_evaluations, and below 2**d (from there the regressions enumerate: exact)."""
    top = min(max_evaluations, 2**d - 1 if d < 60 else max_evaluations)
    return [m * d for m in multiples if m * d <= top] or [multiples[0] * d]


def default_sampled(d):
    """kernelxai's default sampled estimator: what method="auto" takes when no exact route applies."""
    return choose(kx.FunctionGame(lambda Z: Z.sum(axis=1), d))[0].name


def run_arena(case, budgets, seeds):
    d = case["d"]
    level = 0.95 if d <= 50 else None       # KernelSHAP's sandwich costs more than the estimate at large d
    model = case["model"].predict if case["calls"] else case["model"]
    with kx.config_context(progress=False, max_cost=None):
        arena = kx.compare_estimators(model, case["X"], case["value"], case["background"], budgets=budgets,
                                      seeds=seeds, truth=case["truth"], level=level)
    return arena


def label(case):
    return (f"d={case['d']} {case['family']} ({case['value']}"
            f"{', model calls' if case['calls'] else ''})")


def print_arena(case, arena, default):
    import pandas as pd

    s = arena.summary()
    err = s["mean_error"].unstack("budget").sort_index(axis=1).rename(columns=int)
    print(f"\n-- {label(case)}; {case['source']}; {case['X'].shape[0]} points; exact values "
          f"{case['truth_seconds'] * 1e3:.1f} ms")
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.float_format", "{:.2e}".format):
        print("mean relative squared error (rows: method; columns: budget):")
        print(err.to_string())
        if default in err.index:
            print(f"error / error of {default!r} (< 1: more accurate than the default):")
            print((err / err.loc[default]).to_string(float_format="{:.2f}".format))
        cov = s["coverage"].unstack("budget").sort_index(axis=1).rename(columns=int).dropna(how="all")
        if arena.level is not None and not cov.empty:
            print(f"coverage of stated intervals at {arena.level:g} (over {int(s['runs'].max())} seeds x "
                  f"{case['X'].shape[0]} points x {case['d']} features):")
            print(cov.to_string(float_format="{:.3f}".format))
        secs = s["seconds"].unstack("budget").sort_index(axis=1).rename(columns=int)
        print("seconds per run:")
        print(secs.to_string(float_format="{:.3f}".format))
    for method, budget, why in arena.skipped[:3]:
        print(f"  skipped {method} at {budget}: {why}")


# --------------------------------------------------------------------------- #
# part 3: shapiq in the peer venv
# --------------------------------------------------------------------------- #
def peer_worker(spec_path, out_path):
    """Runs in .venv-peer: rebuild each game with kernelxai and run shapiq's approximators on it."""
    import shapiq
    from shapiq import approximator as approximators

    with open(spec_path, "rb") as fh:
        spec = pickle.load(fh)
    results, notes = [], {"shapiq": shapiq.__version__}
    for job in spec["jobs"]:
        game = build_game(job["model"], job["X"], job["value"], job["background"]).game
        d = game.n_players
        for point in range(job["X"].shape[0]):
            def value(Z, point=point, game=game):
                return np.asarray(game(np.asarray(Z, dtype=bool)), dtype=float).reshape(len(Z), -1)[:, point]

            class PeerGame(shapiq.Game):
                def __init__(self):
                    super().__init__(n_players=d, normalize=False)

                def value_function(self, coalitions):
                    return value(coalitions)

            for name, (cls, kwargs) in SHAPIQ.items():
                if d > PEER_MAX_D.get(name, d):
                    continue
                start = time.perf_counter()
                for budget in [b for b in job["budgets"] if b <= PEER_BUDGET_CAP.get(name, b)]:
                    for seed in job["seeds"]:
                        phi, error, seconds = _approximate(getattr(approximators, cls), kwargs, d, budget, seed,
                                                           PeerGame(), notes, name)
                        results.append(dict(job=job["id"], method=name, budget=budget, seed=seed, point=point,
                                            phi=phi, seconds=seconds, error=error))
                print(f"peer: job {job['id']} point {point} {name}: {time.perf_counter() - start:.1f} s",
                      file=sys.stderr, flush=True)
    with open(out_path, "wb") as fh:
        pickle.dump({"results": results, "notes": notes}, fh)


def _approximate(cls, kwargs, d, budget, seed, game, notes, name):
    """(first-order values or None, error message or None, seconds) of one shapiq approximator run."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        try:
            iv = cls(d, random_state=seed, **kwargs).approximate(budget, game)
            phi, error = np.asarray(iv.get_n_order_values(1), dtype=float), None
        except Exception as err:  # a peer's failure is reported, not fatal
            phi, error = None, f"{type(err).__name__}: {err}"[:200]
        seconds = time.perf_counter() - start
    for w in caught:
        notes.setdefault(name, str(w.message)[:160])
    return phi, error, seconds


def run_peer(jobs, timeout):
    """shapiq's estimates from the peer venv, {(job, method, budget, seed): [rows]}, and notes.

    One child process per game (``timeout`` seconds each): a game that runs out of time is
    reported and left out; the others keep their results.
    """
    if not PEER_PYTHON.exists():
        print(f"\n== Part 3 skipped: no peer venv at {PEER_PYTHON.relative_to(ROOT)} (make peer makes it)")
        return None, {}
    table, notes = {}, {}
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    log = Path(tempfile.gettempdir()) / "bench_estimators_peer.log"
    for job in jobs:
        with tempfile.TemporaryDirectory() as tmp:
            spec, out = Path(tmp) / "spec.pkl", Path(tmp) / "out.pkl"
            with open(spec, "wb") as fh:
                pickle.dump({"jobs": [job]}, fh)
            start = time.perf_counter()
            try:
                with open(log, "a") as err:
                    proc = subprocess.run([str(PEER_PYTHON), str(Path(__file__).resolve()), "--peer-worker",
                                           str(spec), str(out)], stdout=subprocess.DEVNULL, stderr=err,
                                          timeout=timeout, env=env, check=False)
            except subprocess.TimeoutExpired:
                print(f"   peer: game {job['id']} (d = {job['X'].shape[1]}) ran out of its {timeout:.0f} s; left out")
                continue
            if proc.returncode != 0:
                print(f"   peer: game {job['id']} failed:\n{log.read_text()[-2000:]}")
                continue
            with open(out, "rb") as fh:
                got = pickle.load(fh)
            print(f"   peer: game {job['id']} (d = {job['X'].shape[1]}) in {time.perf_counter() - start:.0f} s")
        notes.update(got["notes"])
        for r in got["results"]:
            table.setdefault((r["job"], r["method"], r["budget"], r["seed"]), []).append(r)
    return table, notes


def peer_errors(table, job_id, truth):
    """{(method, budget): (mean error over seeds and points, mean seconds per point, failures)}."""
    acc = {}
    for (job, method, budget, _seed), rows in table.items():
        if job != job_id:
            continue
        rows = sorted(rows, key=lambda r: r["point"])
        entry = acc.setdefault((method, budget), {"errors": [], "seconds": [], "failed": None})
        if any(r["phi"] is None for r in rows):
            entry["failed"] = next(r["error"] for r in rows if r["phi"] is None)
            continue
        phi = np.stack([r["phi"] for r in rows])
        entry["errors"].extend(relative_errors(phi, truth).tolist())
        entry["seconds"].extend(r["seconds"] for r in rows)
    return {k: (np.nanmean(v["errors"]) if v["errors"] else np.nan,
                np.mean(v["seconds"]) if v["seconds"] else np.nan, v["failed"]) for k, v in acc.items()}


def compare_with_peer(case, ours, peer, default):
    """Print kernelxai's errors (``ours``: method x budget) beside shapiq's; the ratio of the default's
    (``default``: budget -> method) to shapiq's best at each budget."""
    import pandas as pd

    rows = {}
    for (method, budget), (err, _, failed) in peer.items():
        rows.setdefault(method, {})[budget] = err if failed is None else np.nan
    theirs = pd.DataFrame(rows).T.sort_index(axis=1).rename(columns=int)
    both = pd.concat([ours, theirs])
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(f"   kernelxai and shapiq, mean relative squared error ({label(case)}):")
        print(both.to_string(float_format="{:.2e}".format))
    best = theirs.min(axis=0)
    budgets = [b for b in best.index if b in ours.columns and default.get(b) in ours.index]
    ratio = pd.Series({b: ours.loc[default[b], b] / best[b] for b in budgets}, dtype=float)
    return ratio, theirs.idxmin(axis=0)


# --------------------------------------------------------------------------- #
# coverage: every stated interval against the exact values, at 0.9 and 0.95
# --------------------------------------------------------------------------- #
#: The levels whose coverage is measured, and the issue's tolerance around them.
COVERAGE_LEVELS = (0.9, 0.95)
COVERAGE_TOLERANCE = 0.02


def interval_methods(d):
    """{label: (name, options)}: every registered sampled estimator that states intervals (asked at a level),
    and KernelSHAP's paired design without replacement, which states its own."""
    from kernelxai.explainers._arena import interval_options

    out = {}
    for name, est in sorted(kx.estimators.estimators().items()):
        if est.exact or not interval_options(est, 0.9):
            continue
        out[name] = (name, {})
    out["kernel (replace=False)"] = ("kernel", {"replace": False})
    return out


def coverage_cases(dims, points, only=None):
    """The games of the coverage run: the arena's (``cases``) without the model-call copies."""
    return [c for c in cases(dims, points) if not c["calls"] and (only is None or c["family"] in only)]


def run_coverage(case, budgets, seeds, methods):
    """{level: EstimatorComparison} of one game, every interval-stating method, at both levels."""
    out = {}
    with kx.config_context(progress=False, max_cost=None):
        for level in COVERAGE_LEVELS:
            out[level] = kx.compare_estimators(case["model"], case["X"], case["value"], case["background"],
                                               methods=methods, budgets=budgets, seeds=seeds,
                                               truth=case["truth"], level=level)
    return out


def coverage_rows(case, by_level):
    """Rows (d, family, method, level, budget, coverage, pairs, width) of one game's coverage runs."""
    rows = []
    for level, arena in by_level.items():
        f = arena.frame[arena.frame["coverage"].notna()]
        for (method, budget), g in f.groupby(["method", "budget"], sort=False):
            # the (point, feature) pairs of one seed share its coalitions (and the families share the seeds):
            # they are one cluster, so the cell's standard error is that of the per-seed coverage means
            per_seed = g.groupby("seed")["coverage"].mean()
            se = float(per_seed.std(ddof=1) / np.sqrt(len(per_seed))) if len(per_seed) > 1 else np.nan
            rows.append(dict(d=case["d"], family=case["family"], method=method, level=level, budget=int(budget),
                             coverage=float(g["coverage"].mean()), pairs=int(len(g)) * case["d"],
                             width=float(g["width"].mean()), se=se, seeds=len(per_seed)))
    return rows


def coverage_part(args):
    """--coverage: the coverage of every stated interval, per estimator, family, level and budget."""
    import pandas as pd

    dims = [int(x) for x in args.d.split(",")]
    seeds, points = args.seeds, args.points
    print(f"== Coverage: d = {dims}, levels {list(COVERAGE_LEVELS)}, {seeds} seeds x {points} points, "
          f"budgets {args.coverage_multiples} x d (at most {args.max_evaluations})")
    multiples = [int(m) for m in args.coverage_multiples.split(",")]
    rows, arenas = [], []
    for case in coverage_cases(dims, points):
        d = case["d"]
        methods = interval_methods(d)
        if args.methods:
            methods = {k: v for k, v in methods.items() if k in args.methods.split(",")}
        start = time.perf_counter()
        by_level = run_coverage(case, budgets_for(d, multiples, args.max_evaluations), seeds, methods)
        rows += coverage_rows(case, by_level)
        arenas.append(({k: v for k, v in case.items() if k != "model"}, by_level))
        print(f"   {label(case)}: {time.perf_counter() - start:.0f} s", flush=True)
    table = pd.DataFrame(rows)
    outdir = Path(args.figures)
    outdir.mkdir(parents=True, exist_ok=True)
    table.to_csv(outdir / "coverage_summary.csv", index=False)
    with open(outdir / "coverage_arenas.pkl", "wb") as fh:
        pickle.dump(arenas, fh)
    print_coverage(table)
    coverage_figure(arenas, outdir, args.docs)


def print_coverage(table):
    """Coverage per method and family (rows) and (d, level, budget) (columns); misses marked with *."""
    import pandas as pd

    miss = (table["coverage"] - table["level"]).abs() > COVERAGE_TOLERANCE
    text = table["coverage"].map("{:.3f}".format) + miss.map({True: "*", False: ""})
    wide = table.assign(text=text).pivot_table(index=["method", "family"], columns=["d", "level", "budget"],
                                               values="text", aggfunc="first")
    with pd.option_context("display.width", 250, "display.max_columns", 40):
        print(f"coverage (* outside level +- {COVERAGE_TOLERANCE}); pairs per cell: "
              f"{int(table['pairs'].min())}-{int(table['pairs'].max())}")
        print(wide.to_string())
        print(f"standard error of a cell, clustered by seed (pairs of one seed share its coalitions): "
              f"{table['se'].min():.4f}-{table['se'].max():.4f} over {int(table['seeds'].min())}-"
              f"{int(table['seeds'].max())} seeds; a miss smaller than 2-3 of these is not evidence")
    worst = table.assign(gap=table["coverage"] - table["level"]).groupby(["method", "level"])["gap"]
    print("per method and level: coverage - level, smallest and largest over families, d and budgets")
    print(pd.concat({"min": worst.min(), "max": worst.max()}, axis=1).to_string(float_format="{:+.3f}".format))


def coverage_figure(arenas, outdir, docs):
    """Coverage against budget at 0.95, one panel per family and d (``estimators-coverage.png`` with --docs)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dims = sorted({c["d"] for c, _ in arenas})
    fams = sorted({c["family"] for c, _ in arenas})
    fig, axes = plt.subplots(len(fams), len(dims), figsize=(4.2 * len(dims), 3.0 * len(fams)), squeeze=False)
    for c, by_level in arenas:
        ax = axes[fams.index(c["family"]), dims.index(c["d"])]
        kx.plots.estimator_coverage(by_level[0.95], ax=ax, title=f"{c['family']}, d = {c['d']}")
        ax.set_ylim(0.8, 1.0)
        if (fams.index(c["family"]), dims.index(c["d"])) != (0, 0):
            ax.get_legend().remove()
    fig.tight_layout()
    fig.savefig(outdir / "coverage.png", dpi=110)
    if docs:
        fig.savefig(ROOT / "docs" / "figures" / "estimators-coverage.png", dpi=80)
    plt.close(fig)


# --------------------------------------------------------------------------- #
# the guide: the error measured here, shipped beside every sampled estimate
# --------------------------------------------------------------------------- #
GUIDE_PATH = ROOT / "kernelxai" / "estimators" / "_arena_errors.json"


def guide_methods():
    """{label: (name, options)}: every registered sampled estimator, and KernelSHAP without replacement
    (labels as ``kernelxai.estimators._arena_guide.guide_label`` gives them for a call)."""
    out = {name: (name, {}) for name, est in sorted(kx.estimators.estimators().items()) if not est.exact}
    out["kernel (replace=False)"] = ("kernel", {"replace": False})
    return out


def guide_table(arenas):
    """{label: [rows]}: per (d, budget) the mean error of each model family, their median and range."""
    acc = {}
    for case, arena in arenas:
        s = arena.summary().reset_index()
        for _, r in s[s["budget"].notna() & s["mean_error"].notna()].iterrows():
            key = (r["method"], case["d"], int(r["budget"]))
            acc.setdefault(key, {})[case["family"]] = float(r["mean_error"])
    table = {}
    for (method, d, budget), by_model in sorted(acc.items()):
        errors = sorted(by_model.values())
        table.setdefault(method, []).append(dict(d=int(d), budget=budget, error=float(np.median(errors)),
                                                 range=[errors[0], errors[-1]], by_model=by_model))
    return table


def guide_part(args):
    """--write-guide: the arena (no intervals) on the three families; the table written as package data."""
    import datetime
    import platform

    dims = [int(x) for x in args.d.split(",")]
    multiples = [int(m) for m in args.coverage_multiples.split(",")]
    print(f"== The guide: d = {dims}, budgets {multiples} x d (at most {args.max_evaluations}), {args.seeds} seeds, "
          f"{args.points} points")
    arenas = []
    for case in coverage_cases(dims, args.points):
        start = time.perf_counter()
        with kx.config_context(progress=False, max_cost=None):
            arena = kx.compare_estimators(case["model"], case["X"], case["value"], case["background"],
                                          methods=guide_methods(), seeds=args.seeds, truth=case["truth"],
                                          budgets=budgets_for(case["d"], multiples, args.max_evaluations),
                                          level=None)
        arenas.append((case, arena))
        print(f"   {label(case)}: {time.perf_counter() - start:.0f} s", flush=True)
    run = {"summary": (f"benchmarks/bench_estimators.py --write-guide --d {args.d} --seeds {args.seeds} --points "
                       f"{args.points} --coverage-multiples {args.coverage_multiples}, "
                       f"{datetime.date.today().isoformat()}"),
           "models": "RBF SVR, kernel ridge and GP mean (scikit-learn), settings scaled to d: diabetes at d = 10, "
                     "PKeX Exp. 1's design (X ~ N(0, I), y = X beta + noise) beyond; the interventional game over "
                     "5 background rows up to d = 50, the functional-baseline game beyond",
           "dims": dims, "budget_multiples": multiples, "seeds": args.seeds, "points": args.points,
           "python": platform.python_version(), "kernelxai": kx.__version__}
    out = {"what": "mean relative squared error ||phi_hat - phi||^2 / ||phi||^2 against exact values, per method "
                   "(label), d and budget (game evaluations): the median over the model families of each "
                   "family's mean over seeds and points ('error'), their range and each ('by_model')",
           "label": "measured by the arena on other models (product-kernel SVR / kernel ridge / GP mean), "
                    "not on yours",
           "run": run, "errors": guide_table(arenas)}
    GUIDE_PATH.write_text(json.dumps(out, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"written {GUIDE_PATH.relative_to(ROOT)} ({len(out['errors'])} methods)")


# --------------------------------------------------------------------------- #
# figures
# --------------------------------------------------------------------------- #
def figures(arenas, outdir, docs):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    outdir.mkdir(parents=True, exist_ok=True)
    shown = [(c, a) for c, a in arenas if not c["calls"]]
    dims = sorted({c["d"] for c, _ in shown})
    fams = sorted({c["family"] for c, _ in shown})
    fig, axes = plt.subplots(len(fams), len(dims), figsize=(4.2 * len(dims), 3.4 * len(fams)), squeeze=False)
    for c, a in shown:
        ax = axes[fams.index(c["family"]), dims.index(c["d"])]
        kx.plots.estimator_errors(a, ax=ax, title=f"{c['family']}, d = {c['d']}")
        if ax.get_legend() is not None and (dims.index(c["d"]), fams.index(c["family"])) != (0, 0):
            ax.get_legend().remove()
    fig.tight_layout()
    fig.savefig(outdir / "errors.png", dpi=110)
    if docs:
        fig.savefig(ROOT / "docs" / "figures" / "estimators-arena.png", dpi=90)
    plt.close(fig)
    covered = [(c, a) for c, a in shown if a.level is not None]
    if covered:
        cdims = sorted({c["d"] for c, _ in covered})
        fig, axes = plt.subplots(len(fams), len(cdims), figsize=(4.2 * len(cdims), 3.0 * len(fams)),
                                 squeeze=False)
        for c, a in covered:
            ax = axes[fams.index(c["family"]), cdims.index(c["d"])]
            kx.plots.estimator_coverage(a, ax=ax, title=f"{c['family']}, d = {c['d']}")
            if (fams.index(c["family"]), cdims.index(c["d"])) != (0, 0):
                ax.get_legend().remove()
        fig.tight_layout()
        fig.savefig(outdir / "arena_coverage.png", dpi=110)   # the docs' coverage figure is --coverage's
        plt.close(fig)
    print(f"\nfigures and tables in {outdir}")


# --------------------------------------------------------------------------- #
# main
# --------------------------------------------------------------------------- #
def arguments():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--d", default="10,50,200,1000")
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--points", type=int, default=3)
    ap.add_argument("--max-evaluations", type=int, default=40_000)
    ap.add_argument("--skip-shapiq", action="store_true")
    ap.add_argument("--peer-seeds", type=int, default=None, help="seeds of the shapiq runs (default --seeds)")
    ap.add_argument("--peer-timeout", type=float, default=1800.0, help="seconds per game of the shapiq runs")
    ap.add_argument("--peer-only", action="store_true",
                    help="part 3 only, against the arena_summary.csv of an earlier run in --figures")
    ap.add_argument("--peer-max-evaluations", type=int, default=10_000,
                    help="largest budget of the shapiq runs (they run one point at a time)")
    ap.add_argument("--figures", default=str(ROOT / "build" / "bench_estimators"))
    ap.add_argument("--docs", action="store_true", help="also write docs/figures/estimators-*.png")
    ap.add_argument("--part", type=int, choices=(1, 2), default=None)
    ap.add_argument("--replot", metavar="DIR", help="redraw the figures of a run saved in DIR (arenas.pkl, "
                                                     "coverage_arenas.pkl; DIR1,DIR2: coverage runs drawn together)")
    ap.add_argument("--coverage", action="store_true",
                    help="only the coverage of the stated intervals at 0.9 and 0.95 (every interval-stating "
                         "estimator; --d, --seeds, --points; budgets --coverage-multiples x d)")
    ap.add_argument("--coverage-multiples", default="5,10,20,50,100", help="budgets of --coverage, as multiples of d")
    ap.add_argument("--methods", default=None, help="--coverage: only these labels (comma-separated)")
    ap.add_argument("--write-guide", action="store_true",
                    help="only the arena without intervals (every sampled estimator, --d, --seeds, --points, budgets "
                         "--coverage-multiples x d), written to kernelxai/estimators/_arena_errors.json: the error "
                         "shown beside every sampled estimate")
    ap.add_argument("--peer-worker", nargs=2, metavar=("SPEC", "OUT"), help=argparse.SUPPRESS)
    return ap.parse_args()


def auto_sampled(d, budget):
    """The sampled estimator method="auto" takes at d players and this budget when no exact route applies."""
    return choose(kx.FunctionGame(lambda Z: Z.sum(axis=1), d), {"budget": int(budget)})[0].name


def arena_part(args, all_cases, multiples, seeds):
    """Part 2: every case's arena, printed; the summary CSV, the arenas and the figures written."""
    import pandas as pd

    arenas = []
    for case in all_cases:
        start = time.perf_counter()
        arena = run_arena(case, budgets_for(case["d"], multiples, args.max_evaluations), seeds)
        print_arena(case, arena, "kernel")   # the ratios are to KernelSHAP's error
        print(f"   ({time.perf_counter() - start:.0f} s)", flush=True)
        arenas.append((case, arena))
    outdir = Path(args.figures)
    outdir.mkdir(parents=True, exist_ok=True)
    summary = []
    for c, a in arenas:
        s = a.summary().reset_index()
        s.insert(0, "game", label(c))
        summary.append(s)
    pd.concat(summary).to_csv(outdir / "arena_summary.csv", index=False)
    with open(outdir / "arenas.pkl", "wb") as fh:   # to redraw the figures: --replot DIR
        pickle.dump([({k: v for k, v in c.items() if k != "model"}, a) for c, a in arenas], fh)
    figures(arenas, outdir, args.docs)


def peer_part(args, all_cases, multiples, seeds):
    """Part 3: shapiq on the product-kernel games, against kernelxai's errors of arena_summary.csv."""
    import pandas as pd

    outdir = Path(args.figures)
    ours_all = pd.read_csv(outdir / "arena_summary.csv")
    jobs = [dict(id=i, model=c["model"], X=c["X"], value=c["value"], background=c["background"],
                 budgets=[b for b in budgets_for(c["d"], multiples, args.max_evaluations)
                          if b <= args.peer_max_evaluations],
                 seeds=list(range(args.peer_seeds or seeds))) for i, c in enumerate(all_cases) if not c["calls"]]
    print("\n== Part 3: shapiq's approximators on the same games (peer venv)", flush=True)
    start = time.perf_counter()
    table, notes = run_peer(jobs, args.peer_timeout)
    if table is None:
        return
    print(f"   peer: shapiq {notes.pop('shapiq', '?')} ({time.perf_counter() - start:.0f} s); notes: "
          + json.dumps(notes)[:600])
    verdicts, peer_rows = [], []
    for job in jobs:
        case = all_cases[job["id"]]
        mine = ours_all[ours_all["game"] == label(case)]
        ours = mine.pivot(index="method", columns="budget", values="mean_error").rename(columns=int)
        peer = peer_errors(table, job["id"], case["truth"])
        if not peer:
            continue
        default = {b: auto_sampled(case["d"], b) for b in ours.columns}
        ratio, best = compare_with_peer(case, ours, peer, default)
        peer_rows += [dict(game=label(case), method=m, budget=b, mean_error=e, seconds_per_point=t, failed=f)
                      for (m, b), (e, t, f) in peer.items()]
        if case["d"] in (50, 200):
            verdicts.append((case, ratio, best, default))
    pd.DataFrame(peer_rows).to_csv(outdir / "shapiq_summary.csv", index=False)
    print(f"\n== Is kernelxai's default sampled estimator (method='auto') within {TARGET_RATIO}x of the best "
          "shapiq approximator's error at equal budget (d = 50 and 200)?")
    for case, ratio, best, default in verdicts:
        parts = [f"{b} ({default[b]}): {r:.2f} vs {best[b]}" for b, r in ratio.items() if np.isfinite(r)]
        ok = all(r <= TARGET_RATIO for r in ratio.dropna())
        print(f"  {label(case)}: {'; '.join(parts)} -> {'yes' if ok else 'NO'}")


def other_mode(args):
    """--replot, --coverage or --write-guide (instead of the parts); whether one of them ran."""
    if args.replot:   # DIR, or DIR1,DIR2,...: coverage runs of several d drawn as one figure
        dirs = [Path(p) for p in args.replot.split(",")]
        if (dirs[0] / "arenas.pkl").exists():
            with open(dirs[0] / "arenas.pkl", "rb") as fh:
                figures(pickle.load(fh), dirs[0], args.docs)
        covered = []
        for saved in dirs:
            if (saved / "coverage_arenas.pkl").exists():
                with open(saved / "coverage_arenas.pkl", "rb") as fh:
                    covered += pickle.load(fh)
        if covered:
            coverage_figure(covered, dirs[0], args.docs)
    elif args.coverage:
        coverage_part(args)
    elif args.write_guide:
        guide_part(args)
    return bool(args.replot or args.coverage or args.write_guide)


def main():
    args = arguments()
    sys.stdout.reconfigure(line_buffering=True)
    if args.peer_worker:
        peer_worker(*args.peer_worker)
        return
    if other_mode(args):
        return
    if args.part in (None, 1) and not args.peer_only:
        vectorised()
    if args.part == 1:
        return
    dims = [10, 50] if args.quick else [int(x) for x in args.d.split(",")]
    multiples = (5, 10, 20, 50) if args.quick else DEFAULT_BUDGET_MULTIPLES
    seeds = 2 if args.quick else args.seeds
    points = 2 if args.quick else args.points
    all_cases = cases(dims, points)
    if not args.peer_only:
        print(f"== Part 2: the arena; d = {dims}, budgets {list(multiples)} x d (at most {args.max_evaluations} "
              f"evaluations), {seeds} seeds, {points} points; sampled estimators registered: "
              f"{sorted(n for n, e in kx.estimators.estimators().items() if not e.exact)}")
        print(f"method='auto' without an exact route: {default_sampled(30)!r} at d = 30 and its default budget")
        arena_part(args, all_cases, multiples, seeds)
    if not args.skip_shapiq:
        peer_part(args, all_cases, multiples, seeds)


if __name__ == "__main__":
    main()
