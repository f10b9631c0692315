"""RKHS-SHAP benchmarks: speed ratios and memory, measured in one run.

Parts (``--part``, default all):

``runtime``
    RKHS-SHAP Exp. 2: Banana B(1, 10), d = 2, n in {100, 500, 1000, 1500, 3000,
    5000}, 100 explained points, full background. RKHS-ISV (kernel mean
    embeddings) against the same interventional game evaluated by model calls
    and solved by KernelSHAP (what shap's KernelExplainer does with the full
    background). Prints both times, their ratio and the largest difference of
    the values (they must agree to rounding). Target: >= 100x at n = 5000.
``observational``
    The exact CME (RKHS-SHAP Prop. 3) at n = 5000, d = 10 with all 1024
    coalitions for 100 explained points: seconds.
``nystrom``
    The Nystrom CME with 500 landmarks on n = 50 000 background rows, d = 14
    (KernelSHAP with ``--nystrom-coalitions`` sampled coalitions; the model is a
    kernel ridge regression fitted on 2000 rows): seconds (target < 10 min on 2
    cores), and its agreement with the exact CME on a 3000-row subsample (same
    coalitions, landmarks drawn from the subsample).
``memory``
    Peak resident memory of explaining 1000 points with n = 5000, d = 10, each
    value function in a fresh process (interventional: exact Shapley values;
    observational: the CME game on a few sampled coalitions -- it holds
    O(n^2) for one coalition at a time, so the peak does not grow with their
    number). Target: < 2 GB.

Usage: python benchmarks/bench_rkhs_shap.py [--part NAME ...] [--quick]
``--quick`` shrinks every size (a smoke run of the script itself).
Timings on a shared machine are noisy: compare the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np

import kernelxai as kx
from kernelxai.datasets import rkhs_shap


def _seconds(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


# --------------------------------------------------------------------------- runtime
def bench_runtime(ns, n_explain=100, seed=0):
    print(f"\n== runtime (RKHS-SHAP Exp. 2): Banana B(1, 10), d = 2, {n_explain} points, full background ==")
    print(f"{'n':>6} {'RKHS-ISV s':>11} {'KernelSHAP-ISV s':>17} {'ratio':>8} {'max |diff|':>11}")
    rng = np.random.default_rng(seed)
    rows = []
    for n in ns:
        X, y = rkhs_shap.banana(n, 1.0, 10.0, seed=rng)
        model = kx.models.KernelRidge(lam=1e-3).fit(X, y)
        Xe = X[:n_explain]
        t_kme, kme = _seconds(lambda: kx.explain(model, Xe, value="interventional"))
        t_calls, calls = _seconds(lambda: kx.shapley_values(kx.values.Marginal(model, X).game(Xe),
                                                            method="kernel"))
        diff = float(np.abs(kme.values - calls.values).max())
        rows.append({"n": n, "rkhs_isv": t_kme, "kernelshap_isv": t_calls, "ratio": t_calls / t_kme,
                     "max_diff": diff})
        print(f"{n:>6} {t_kme:>11.3f} {t_calls:>17.3f} {t_calls / t_kme:>7.0f}x {diff:>11.1e}", flush=True)
    last = rows[-1]
    verdict = "met" if last["ratio"] >= 100 else "NOT met"
    print(f"target >= 100x at n = {last['n']}: {verdict} ({last['ratio']:.0f}x)")
    return rows


# --------------------------------------------------------------------------- data for d = 10, 14
def _nonlinear_data(n, d, seed):
    """Correlated Gaussian features and a smooth non-linear target."""
    rng = np.random.default_rng(seed)
    mix = np.eye(d) + 0.4 * rng.normal(size=(d, d)) / np.sqrt(d)
    X = rng.normal(size=(n, d)) @ mix
    X = (X - X.mean(0)) / X.std(0)
    w = rng.normal(size=d)
    y = np.sin(X @ w / np.sqrt(d)) + 0.5 * X[:, 0] * X[:, 1] + 0.1 * rng.normal(size=n)
    return X, y


# --------------------------------------------------------------------------- observational
def bench_observational(n=5000, d=10, n_explain=100, seed=0):
    print(f"\n== observational CME, exact: n = {n}, d = {d}, all {2**d} coalitions, {n_explain} points ==")
    X, y = _nonlinear_data(n, d, seed)
    model = kx.models.KernelRidge(lam=1e-3).fit(X, y)
    t, e = _seconds(lambda: kx.explain(model, X[:n_explain], value="observational", method="exact",
                                       progress=True))
    eff = float(np.abs(e.values.sum(1) + e.base_values - model.predict(X[:n_explain])).max())
    print(f"{t:.1f} s ({t / (2**d - 2):.2f} s per coalition); efficiency error {eff:.1e}")
    return {"n": n, "d": d, "n_explain": n_explain, "seconds": t, "efficiency": eff}


# --------------------------------------------------------------------------- Nystrom
def bench_nystrom(n=50000, d=14, landmarks=500, n_coalitions=256, n_fit=2000, n_explain=100,
                  n_sub=3000, seed=0):
    print(f"\n== Nystrom CME: n = {n} background rows, d = {d}, {landmarks} landmarks, "
          f"{n_coalitions} sampled coalitions, {n_explain} points ==")
    X, y = _nonlinear_data(n, d, seed)
    rng = np.random.default_rng(seed)
    fit = rng.choice(n, n_fit, replace=False)
    model = kx.models.KernelRidge(lam=1e-3).fit(X[fit], y[fit])
    Xe = X[:n_explain]
    vf = kx.values.Observational(model, X, landmarks=landmarks, landmark_seed=seed, progress=True)
    t, e = _seconds(lambda: kx.shapley_values(vf.game(Xe), method="kernel", n_coalitions=n_coalitions,
                                              seed=seed))
    eff = float(np.abs(e.values.sum(1) + e.base_values - model.predict(Xe)).max())
    print(f"{t:.1f} s ({t / 60:.1f} min; target < 10 min on 2 cores: {'met' if t < 600 else 'NOT met'}); "
          f"efficiency error {eff:.1e}")
    # agreement with the exact CME on a subsample (same coalitions through the same seed)
    sub = X[rng.choice(n, n_sub, replace=False)]
    exact_game = kx.values.Observational(model, sub).game(Xe)
    nys_game = kx.values.Observational(model, sub, landmarks=landmarks, landmark_seed=seed).game(Xe)
    Z = kx.games.sample_coalitions(d, 64, seed=seed)
    v_exact, v_nys = exact_game(Z), nys_game(Z)
    r2 = 1 - ((v_nys - v_exact) ** 2).sum() / ((v_exact - v_exact.mean()) ** 2).sum()
    rel = float(np.abs(v_nys - v_exact).max() / np.abs(v_exact).max())
    print(f"agreement with the exact CME on a {n_sub}-row subsample ({len(Z)} coalitions x {n_explain} points): "
          f"R^2 = {r2:.5f}, max |diff| / max |v| = {rel:.2e}")
    return {"n": n, "d": d, "landmarks": landmarks, "n_coalitions": n_coalitions, "seconds": t,
            "efficiency": eff, "subsample": n_sub, "agreement_r2": float(r2), "agreement_rel_max": rel}


# --------------------------------------------------------------------------- memory
_MEMORY_CHILD = r"""
import resource, sys, json, numpy as np
import kernelxai as kx
sys.path.insert(0, {here!r})
from bench_rkhs_shap import _nonlinear_data
n, d, nx, value = {n}, {d}, {nx}, {value!r}
X, y = _nonlinear_data(n, d, 0)
# an expansion on n points built directly (fitting would set the peak with its n x n solve)
rng = np.random.default_rng(1)
model = kx.models.KernelExpansion(X, rng.normal(size=n), kx.kernels.RBF(kx.kernels.median_heuristic(X)))
Xe = rng.normal(size=(nx, d))
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if value == "interventional":
    method = kx.explain(model, Xe, value="interventional", method="exact").meta["method"]
else:  # the CME game on a few coalitions: one factorisation at a time, so the peak is that of one
    game = kx.values.Observational(model).game(Xe)
    game(kx.games.sample_coalitions(d, {n_coalitions}, seed=0))
    method = "CME game on {n_coalitions} coalitions"
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"peak_mb": peak / 1024, "before_mb": base / 1024, "method": method}}))
"""


def bench_memory(n=5000, d=10, n_explain=1000, n_coalitions=8):
    from pathlib import Path

    print(f"\n== memory: {n_explain} points, n = {n}, d = {d} (peak RSS of a fresh process) ==")
    out = {}
    for value in ("interventional", "observational"):
        code = _MEMORY_CHILD.format(here=str(Path(__file__).resolve().parent), n=n, d=d, nx=n_explain,
                                    value=value, n_coalitions=n_coalitions)
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if done.returncode:
            print(done.stderr[-2000:])
            raise RuntimeError(f"memory child for {value} failed")
        res = json.loads(done.stdout.strip().splitlines()[-1])
        res["seconds"] = time.perf_counter() - t0
        out[value] = res
        note = ""
        print(f"{value:>15}: peak {res['peak_mb']:.0f} MB (before explaining: {res['before_mb']:.0f} MB), "
              f"{res['method']}{note}; target < 2048 MB: {'met' if res['peak_mb'] < 2048 else 'NOT met'}")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", nargs="*", default=["runtime", "observational", "nystrom", "memory"],
                    choices=["runtime", "observational", "nystrom", "memory"])
    ap.add_argument("--quick", action="store_true", help="small sizes (checks the script runs)")
    ap.add_argument("--nystrom-coalitions", type=int, default=256)
    ap.add_argument("--json", help="also write the numbers to this file")
    args = ap.parse_args(argv)
    results = {}
    q = args.quick
    if "runtime" in args.part:
        results["runtime"] = bench_runtime([100, 300] if q else [100, 500, 1000, 1500, 3000, 5000],
                                           n_explain=30 if q else 100)
    if "observational" in args.part:
        results["observational"] = bench_observational(*((400, 6, 20) if q else (5000, 10, 100)))
    if "nystrom" in args.part:
        results["nystrom"] = (bench_nystrom(3000, 8, 100, 32, 500, 20, 800) if q
                              else bench_nystrom(n_coalitions=args.nystrom_coalitions))
    if "memory" in args.part:
        results["memory"] = bench_memory(*((800, 6, 100, 4) if q else (5000, 10, 1000, 8)))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)
    return results


if __name__ == "__main__":
    main()
