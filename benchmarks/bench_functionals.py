"""Shapley representers and the Shapley-regularised fit at the size of RKHS-SHAP Exp. 3.

Prints, measured in this run, for n = 2100 training points (70% of 3000) of the
Exp. 3/4 Gaussian design, d = 5, feature X5 regularised:

* seconds to build R_A (all 32 coalitions, exact Shapley weights) for the
  interventional (KME) and the observational (CME) value function, and the
  ratio to one plain KernelRidge fit;
* seconds of ShapleyRegularisedKernelRidge.fit (ISV-REG and OSV-REG; this
  includes building R_A) against KernelRidge.fit with the same lam, and their
  ratio; the extra cost of each further lam_shapley on a path;
* a correctness line: max |R_A alpha - kx.explain values| on 200 points.

Timings on a shared machine are noisy; the ratios are what to compare.

Usage: python benchmarks/bench_functionals.py [--n 2100] [--repeat 1]
"""

import argparse

import numpy as np

import kernelxai as kx
from kernelxai.datasets import rkhs_shap
from kernelxai.functionals import shapley_representers
from kernelxai.functionals._regularised import ShapleyRegularisedKernelRidge
from kernelxai.models import KernelExpansion, KernelRidge
from kernelxai.workbench._reporting import timed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2100)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    X, y = rkhs_shap.correlated_gaussian(args.n, seed=0)
    lam = 1e-4
    plain, t_plain = timed(lambda: KernelRidge(lam=lam).fit(X, y), repeat=args.repeat)
    kernel = plain.kernel_
    unfitted = KernelExpansion(X, np.zeros(len(X)), kernel)
    print(f"n = {args.n}, d = {X.shape[1]}, lam = {lam}, kernel {kernel!r}")
    print(f"KernelRidge.fit                       : {t_plain:8.2f} s")
    for value, opts in (("interventional", {}), ("observational", {"eta": 1e-3})):
        reps, t_rep = timed(lambda: shapley_representers(unfitted, X, value, features=[4],
                                                         method="exact", **opts), repeat=args.repeat)
        est = ShapleyRegularisedKernelRidge(lam=lam, lam_shapley=1.0, features=[4], value=value,
                                            **opts)
        model, t_fit = timed(lambda: est.fit(X, y), repeat=args.repeat)
        _, t_path = timed(lambda: est.path(X, y, [0.1, 1.0, 10.0, 100.0]))
        e = kx.explain(model, X[:200], value=value, method="exact", **opts)
        err = np.abs(model.representers_.values(model.alpha_)[:200, 0] - e.values[:, 4]).max()
        tag = "ISV" if value == "interventional" else "OSV"
        print(f"R_A {value:15s} (32 coalitions): {t_rep:8.2f} s   ({t_rep / t_plain:6.1f} x KernelRidge.fit)")
        print(f"{tag}-REG fit (incl. R_A)               : {t_fit:8.2f} s   ({t_fit / t_plain:6.1f} x KernelRidge.fit)")
        print(f"{tag}-REG path of 4 lam_shapley values  : {t_path:8.2f} s   "
              f"({(t_path - t_fit) / 3:6.2f} s per extra value)")
        print(f"  max |R_A alpha - kx.explain| = {err:.1e}")


if __name__ == "__main__":
    main()
