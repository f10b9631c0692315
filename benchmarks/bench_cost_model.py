"""The cost guard's estimate against the measured time, route by route (#25).

Every estimate kernelxai prints or compares with ``max_cost`` counts the work of a call by
kind -- elementwise operations, dense linear algebra (BLAS), Python-level steps, model calls
timed on a probe of the model -- and prices each kind at the rate measured on this machine
(``kx.calibrate()``). This script runs one call of every route and prints, measured in one
run, the estimate (``meta["estimated_seconds"]``, or the public work function of the routes
that return no Explanation), the best wall time of ``--repeat`` calls, and their ratio. The
target is a ratio within [0.5, 2] on every route.

Routes: interventional exact and product (SVR on diabetes), functional baseline (product),
observational exact and Nystrom (KernelRidge), model calls (a random forest: exact
enumeration, KernelSHAP, permutation sampling), KernelSHAP and permutation on a kernel game,
interactions (k-SII exact, product and sampled), GP-SHAP (exact, product and sampled
covariance routes), explain_mmd and explain_hsic, and the MMD and HSIC permutation tests.

``--size small`` is the size the suite's test (tests/test_cost_model.py) checks, a few
milliseconds to a few tens of milliseconds per call, where the fixed cost of a call counts;
``--size full`` (the default) the benchmark's, a fraction of a second to a few seconds.

Usage: python benchmarks/bench_cost_model.py [--size full|small] [--repeat 3] [--only SUBSTRING]
Timings on a shared machine are noisy; the rates are measured again before each route. On the
development machine (a 2-core VM) one core ran ~1.6x slower than the other for seconds at a time:
a process that is moved between them after the rates were measured sees its estimates off by
that factor, on top of the cost model's own error.
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.ensemble import RandomForestRegressor
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, WhiteKernel
from sklearn.kernel_ridge import KernelRidge
from sklearn.svm import SVR

import kernelxai as kx
from kernelxai.explainers import _discrepancy as discrepancy

#: per size: explained points of the kernel routes, background rows, training rows of the
#: observational and GP models, landmarks, points of the model-call routes, MMD/HSIC rows
SIZES = {
    "small": dict(points=3, background=20, train=60, obs_points=2, landmarks=15, calls_points=1,
                  calls_background=10, forest=10, rows=120, permutations=30, gp_train=40, gp_points=2),
    "full": dict(points=40, background=100, train=442, obs_points=5, landmarks=60, calls_points=4,
                 calls_background=50, forest=50, rows=400, permutations=200, gp_train=200, gp_points=10),
}


def _data():
    X, y = load_diabetes(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    return X, (y - y.mean()) / y.std()


def cases(size):
    """(name, estimate-or-None, call) for every route at ``size``; an estimate of None is read from the call."""
    s = SIZES[size]
    X, y = _data()
    P, M = s["points"], s["background"]
    bg = X[:M]
    svr = SVR(gamma=0.05, C=10.0).fit(X, y)
    krr = KernelRidge(kernel="rbf", gamma=0.05, alpha=0.1).fit(X[:s["train"]], y[:s["train"]])
    krr6 = KernelRidge(kernel="rbf", gamma=0.1, alpha=0.1).fit(X[:s["train"], :6], y[:s["train"]])
    forest = RandomForestRegressor(s["forest"], max_depth=6, random_state=0).fit(X, y)
    Xg, yg = X[:s["gp_train"], :5], y[:s["gp_train"]]
    gp = GaussianProcessRegressor(RBF(np.ones(5)) + WhiteKernel(0.1), random_state=0).fit(Xg, yg)
    Pc, Mc = s["calls_points"], s["calls_background"]
    quiet = dict(progress=False)
    R = s["rows"]
    XA, XB = X[: R // 2, :6], X[R // 2: R, :6] + 0.3
    B = s["permutations"]
    kern = kx.kernels.RBF(np.ones(6))
    return [
        ("interventional exact (SVR, d=10)",
         lambda: kx.explain(svr, X[:P], "interventional", bg, method="exact", **quiet)),
        ("interventional product (SVR, d=10)",
         lambda: kx.explain(svr, X[:P], "interventional", bg, method="product", **quiet)),
        ("functional baseline product (KRR, d=10)",
         lambda: kx.explain(krr, X[:20 * P], "functional_baseline", method="product", **quiet)),
        ("observational exact (KRR, d=6)",
         lambda: kx.explain(krr6, X[:s["obs_points"], :6], "observational", method="exact", **quiet)),
        ("observational Nystrom (KRR, d=6)",
         lambda: kx.explain(krr6, X[:s["obs_points"], :6], "observational", method="exact",
                            landmarks=s["landmarks"], **quiet)),
        ("model calls exact (forest, d=10)",
         lambda: kx.explain(forest, X[:Pc], "interventional", bg[:Mc], method="exact", **quiet)),
        ("model calls KernelSHAP (forest)",
         lambda: kx.explain(forest, X[:Pc], "interventional", bg[:Mc], method="kernel", budget=200, seed=0,
                            **quiet)),
        ("model calls permutation (forest)",
         lambda: kx.explain(forest, X[:Pc], "interventional", bg[:Mc], method="permutation", budget=200,
                            seed=0, **quiet)),
        ("KernelSHAP (SVR game)",
         lambda: kx.explain(svr, X[:P], "interventional", bg, method="kernel", budget=500, seed=0, **quiet)),
        ("permutation (SVR game)",
         lambda: kx.explain(svr, X[:P], "interventional", bg, method="permutation", budget=500, seed=0, **quiet)),
        ("k-SII exact (SVR)",
         lambda: kx.explain_interactions(svr, X[:P], "interventional", bg, method="exact", **quiet)),
        ("k-SII product (SVR)",
         lambda: kx.explain_interactions(svr, X[:P], "interventional", bg, method="product", **quiet)),
        ("k-SII sampled (SVR)",
         lambda: kx.explain_interactions(svr, X[:P], "interventional", bg, method="sampled", budget=300,
                                         random_state=0, **quiet)),
        ("GP-SHAP exact (d=5)",
         lambda: kx.explain_gp(gp, Xg[:s["gp_points"]], background=Xg[:M // 2], method="exact")),
        ("GP-SHAP product (d=5)",
         lambda: kx.explain_gp(gp, Xg[:s["gp_points"]], background=Xg[:M // 2], method="product")),
        ("GP-SHAP sampled (d=5)",
         lambda: kx.explain_gp(gp, Xg[:s["gp_points"]], background=Xg[:M // 2], method="sampled",
                               budget=100, random_state=0)),
        ("explain_mmd (d=6)",
         lambda: kx.explain_mmd(XA, XB, kern, n_permutations=B, seed=0, **quiet)),
        ("explain_hsic (d=6)",
         lambda: kx.explain_hsic(X[:R, :6], y[:R], kern, n_permutations=B, seed=0, **quiet)),
        ("MMD permutation test (d=6)",
         discrepancy.mmd_test_work(len(XA) + len(XB), 6, B).seconds,
         lambda: discrepancy.mmd_permutation_test(XA, XB, kern, n_permutations=B, seed=0)),
        ("HSIC permutation test (d=6)",
         discrepancy.hsic_test_work(R, 6, 1, B).seconds,
         lambda: discrepancy.hsic_permutation_test(X[:R, :6], y[:R, None], kern, kx.kernels.RBF(1.0),
                                                   n_permutations=B, seed=0)),
    ]


def _normalise(case):
    if len(case) == 2:
        return case[0], None, case[1]
    return case


def measure(size="full", repeat=3, only=None, echo=print) -> list[dict]:
    """Estimate and best wall time of every route at ``size``; ``echo`` prints each row as it comes."""
    kx.calibrate()
    rows = []
    for case in cases(size):
        name, estimate, call = _normalise(case)
        if only and only.lower() not in name.lower():
            continue
        # calibrated again just before each route: on a machine whose cores run at different
        # speeds (a virtual machine sharing one of them), the rates and the times then come from
        # the same core, as they do for a call made right after the rates were measured
        kx.calibrate(refresh=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()  # warm-up
            best, out = math.inf, None
            for _ in range(repeat):
                start = time.perf_counter()
                result = call()
                took = time.perf_counter() - start
                if took < best:   # the fastest call, and the estimate that call made of itself
                    best, out = took, result
        if estimate is None:
            estimate = out.meta["estimated_seconds"]
        row = dict(route=name, estimate=float(estimate), time=best, ratio=float(estimate) / best)
        rows.append(row)
        if echo:
            echo(f"{name:<42} {row['estimate']:>10.4f} {row['time']:>10.4f} {row['ratio']:>7.2f}")
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="full")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default=None)
    args = parser.parse_args(argv)
    rates = kx.calibrate()
    print(f"rates: elementwise {rates['elementwise_per_second']:.2e}/s, BLAS {rates['blas_flops_per_second']:.2e} "
          f"flop/s, step {rates['step_seconds'] * 1e6:.1f} us (calibrated in {rates['calibration_seconds']:.3f} s)")
    print(f"{'route':<42} {'estimate s':>10} {'time s':>10} {'ratio':>7}")
    rows = measure(args.size, args.repeat, args.only)
    ratios = np.array([r["ratio"] for r in rows])
    outside = [r["route"] for r in rows if not 0.5 <= r["ratio"] <= 2.0]
    print(f"estimate / time: {ratios.min():.2f} .. {ratios.max():.2f}; within 2x either side: "
          f"{len(rows) - len(outside)} of {len(rows)}" + (f"; outside: {', '.join(outside)}" if outside else ""))
    return rows


if __name__ == "__main__":
    main()
