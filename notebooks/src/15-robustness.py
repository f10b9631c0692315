# %% [markdown]
# # 15 · Robustness of RKHS-SHAP: Theorem 6
#
# Do nearby points get similar explanations? For a kernel model the Shapley value of
# feature $i$ at $x$ is a bounded linear functional of $f$, so it has a Riesz representer
# $g_{x,i}$ in the RKHS and (RKHS-SHAP eq. 3, Cauchy–Schwarz)
#
# $$|\phi_{x,i}(f) - \phi_{x',i}(f)| \le \|f\|_{\mathcal H}\;\|g_{x,i} - g_{x',i}\|_{\mathcal H}.$$
#
# Theorem 6 bounds the second factor when every coordinate moves by at most $\sqrt\delta$,
# $|x_l - x'_l|^2 \le \delta$. For a product RBF kernel with lengthscale $l$:
#
# $$\|g^{(I)}_{x,i} - g^{(I)}_{x',i}\|^2 \le 4\bigl(1 - e^{-d\delta/2l^2}\bigr), \qquad
#   \|g^{(O)}_{x,i} - g^{(O)}_{x',i}\|^2 \le 8 M_\Gamma \bigl(1 - e^{-d\delta/2l^2}\bigr),$$
#
# where $M_\Gamma$ bounds the (vector-valued RKHS) norms of the conditional mean embeddings.
#
# kernelxai computes the left-hand sides **exactly** for the empirical value functions
# (`kx.functionals.functional_distances`): the representer of an interventional or
# observational value functional is a weighted sum of kernel functions at the points
# $(x_S, b_{S^c})$, so the RKHS distance is a finite sum of kernel values — by a
# two-dimensional Beta-integral quadrature for interventional values, by enumerating
# pairs of coalitions for observational ones. For $M_\Gamma$ we use the norms of the
# empirical CME operators, $\mathrm{tr}(K_S A^{-1} K_{S^c} A^{-1})$ with $A = K_S + m\eta I$.
#
# **Setting.** The correlated Gaussian design of Exp. 3/4 ($d = 5$), a kernel ridge
# regression with a product RBF kernel of one lengthscale (the theorem's case; the mean of
# the per-feature median heuristics), a background of $m$ training rows, and pairs
# $x' = x \pm \sqrt\delta$ on every coordinate (the corner of the allowed box, where the
# bound is tightest) for $\delta$ from $10^{-4}$ to 1. The paper has no numerical
# experiment for this theorem; `paper = True` only enlarges the sample.

# %% tags=["parameters"]
import kernelxai as kx

smoke = False            # tiny sizes for the test suite
paper = False            # a larger sample (the paper has no experiment here)
seed = 0
results_path = "../build/results/15-robustness.json"
n_train = kx.workbench.default(300, smoke=120, paper=1000, minimum=10, doc="training points of the model")
n_background = kx.workbench.default(100, smoke=30, paper=200, minimum=1,
                                    doc="rows of the background sample of the embeddings (at most n_train)")
n_points = kx.workbench.default(20, smoke=5, paper=50, minimum=1, doc="base points x")
deltas = kx.workbench.default([1e-4, 1e-3, 1e-2, 0.1, 1.0], smoke=[1e-3, 0.1, 1.0], minimum=0,
                              doc="perturbation sizes, each > 0")
eta = kx.workbench.default(1e-3, minimum=0, doc="CME regularisation (must be > 0)")
n_search = kx.workbench.default(150, smoke=20, paper=400, minimum=1,
                                doc="random small configurations in the worst-case search")

# %%
params = kx.workbench.resolve_parameters(globals())
globals().update(params)
if min(deltas) <= 0:
    raise ValueError(f"parameter deltas must hold real numbers > 0; got {deltas!r}")
if eta <= 0:
    raise ValueError(f"parameter eta must be a real number > 0; got {eta!r}")
if n_background > n_train:
    raise ValueError(f"parameter n_background must be at most n_train = {n_train}; got {n_background!r}")

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from kernelxai import functionals as F
from kernelxai.datasets import rkhs_shap
from kernelxai.kernels import RBF, median_heuristic
from kernelxai.models import KernelExpansion, KernelRidge

rng = np.random.default_rng(seed)
started = time.perf_counter()

# %%
X, y = rkhs_shap.correlated_gaussian(n_train + n_points, seed=rng)
X_tr, y_tr, X_base = X[:n_train], y[:n_train], X[n_train:]
ell = float(np.mean(median_heuristic(X_tr)))
kernel = RBF(ell)
model = KernelRidge(kernel=kernel).fit(X_tr, y_tr)
B = X_tr[rng.choice(n_train, n_background, replace=False)]
d = X.shape[1]
norm_f = float(np.sqrt(model.alpha_ @ kernel.gram(X_tr) @ model.alpha_))
m_gamma_all = F.cme_gamma_norms(model, background=B, eta=eta)
m_gamma = float(np.nanmax(m_gamma_all))
print(f"lengthscale l = {ell:.3f}, ridge lam = {model.lam_:g}, ||f||_H = {norm_f:.2f}, "
      f"M_Gamma (empirical, max over coalitions) = {m_gamma:.3f}")

# %% [markdown]
# ## Pairs of nearby points
#
# Every base point is paired with one random corner of the box $|x_l - x'_l| \le \sqrt\delta$
# for each $\delta$. For each pair and feature we compute the exact RKHS distance of the
# Shapley functionals and the observed change of the Shapley values of the fitted model
# (from `kx.explain`, with the same background).

# %%
pairs_x, pairs_xp, pair_delta = [], [], []
for delta in deltas:
    signs = rng.choice([-1.0, 1.0], size=X_base.shape)
    pairs_x.append(X_base)
    pairs_xp.append(X_base + np.sqrt(delta) * signs)
    pair_delta.append(np.full(len(X_base), delta))
Xa, Xb, pair_delta = np.vstack(pairs_x), np.vstack(pairs_xp), np.concatenate(pair_delta)

records, checks = [], {}
for value, opts in (("interventional", {}), ("observational", {"eta": eta})):
    t0 = time.perf_counter()
    dist = F.functional_distances(model, Xa, Xb, value, background=B, **opts)      # (P, d)
    seconds = time.perf_counter() - t0
    bound = F.theorem6_bound(Xa, Xb, kernel, value, m_gamma=m_gamma)               # paper's constants
    tight = F.theorem6_bound(Xa, Xb, kernel, value, m_gamma=m_gamma, form="tight")
    dphi = np.abs(kx.explain(model, Xa, value=value, background=B, method="exact", **opts).values
                  - kx.explain(model, Xb, value=value, background=B, method="exact", **opts).values)
    checks[value] = {
        "seconds_distances": seconds,
        "dist_sq_below_bound": bool(np.all(dist**2 <= bound[:, None])),
        "dist_sq_below_tight_bound": bool(np.all(dist**2 <= tight[:, None] + 1e-12)),
        "max_ratio_to_bound": float(np.max(dist**2 / bound[:, None])),
        "cauchy_schwarz_holds": bool(np.all(dphi <= norm_f * dist + 1e-9)),
        "observed_below_bound": bool(np.all(dphi <= norm_f * np.sqrt(bound)[:, None])),
        "max_observed_over_bound": float(np.max(dphi / (norm_f * np.sqrt(bound)[:, None]))),
    }
    for p in range(len(Xa)):
        for j in range(d):
            records.append({"value": value, "delta": pair_delta[p], "feature": f"x{j + 1}",
                            "dist_sq": dist[p, j] ** 2, "bound": bound[p], "tight": tight[p],
                            "dphi": dphi[p, j], "cs": norm_f * dist[p, j]})
frame = pd.DataFrame(records)
pd.DataFrame(checks).T

# %% [markdown]
# ## Distances against the bound
#
# Each dot is one pair and one feature; the lines are the bounds of Theorem 6 as printed.

# %% tags=["headline"]
fig, axes = plt.subplots(1, 2, figsize=(13, 4.3), sharey=True)
grid = np.logspace(np.log10(min(deltas)) - 0.3, np.log10(max(deltas)) + 0.3, 100)
for ax, value in zip(axes, ("interventional", "observational")):
    sub = frame[frame.value == value]
    jitter = np.exp(rng.normal(scale=0.06, size=len(sub)))
    ax.scatter(sub.delta * jitter, sub.dist_sq, s=8, alpha=0.5, label="$\\|g_{x,i} - g_{x',i}\\|^2$ (exact)")
    curve = F.theorem6_bound(np.zeros((len(grid), d)), np.sqrt(grid)[:, None] * np.ones(d), kernel,
                             value, m_gamma=m_gamma)
    ax.loglog(grid, curve, "k-", label="Theorem 6 (as printed)")
    ax.loglog(grid, 2 * curve, "k:", label="constant the proof supports (2×)")
    ax.set(title=f"{value} Shapley functionals", xlabel="$\\delta$ (max squared coordinate change)")
    ax.legend(fontsize=8)
axes[0].set_ylabel("squared RKHS distance");

# %% [markdown]
# Every dot lies below its bound. The distances follow the bound's shape — linear in
# $\delta$ for small $\delta$ — but sit well below it: the theorem bounds every coalition's
# term by the worst one, while a Shapley functional averages them.
#
# On the observational side the bound carries $M_\Gamma$, the largest norm of the empirical
# conditional mean embeddings over all coalitions, which is large when $\eta$ is small; the
# exact distances are not much bigger than the interventional ones, so this bound is loose
# by orders of magnitude.

# %% [markdown]
# ## Observed changes of the Shapley values
#
# The chain is $|\Delta\phi| \le \|f\|\,\|g_{x,i} - g_{x',i}\| \le \|f\|\sqrt{\text{bound}}$.
# Both inequalities hold for every pair and feature (table above); the figure shows how
# much room each step leaves.

# %%
fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), sharey=True)
for ax, value in zip(axes, ("interventional", "observational")):
    sub = frame[frame.value == value]
    ax.scatter(sub.cs, sub.dphi, s=8, alpha=0.5, label="vs $\\|f\\|\\,$distance")
    ax.scatter(norm_f * np.sqrt(sub.bound), sub.dphi, s=8, alpha=0.5, label="vs $\\|f\\|\\sqrt{bound}$")
    lo, hi = 1e-4, max(sub.cs.max(), (norm_f * np.sqrt(sub.bound)).max()) * 1.5
    ax.loglog([lo, hi], [lo, hi], "k--", lw=1)
    ax.set(title=value, xlabel="upper bound on $|\\Delta\\phi|$")
    ax.legend(fontsize=8)
axes[0].set_ylabel("observed $|\\phi_{x,i}(f) - \\phi_{x',i}(f)|$");

# %% [markdown]
# ## How good is the printed constant?
#
# The supplement's proof (step 54) bounds $\|A - B\|^2$ by $\|A\|^2 + \|B\|^2$ for the two
# value-functional differences of each coalition, which needs $\langle A, B\rangle \ge 0$; the
# triangle inequality only gives $2\|A\|^2 + 2\|B\|^2$, so the argument as written supports
# constants twice those printed. Is the printed interventional bound nevertheless true? A
# random search over small configurations (d = 1…4, 2…6 background points, random
# lengthscales and scales) compares the exact squared distance with the printed bound and
# with the exact supremum $L_\delta = 2(1 - k(x, x'))$ that the proof uses:

# %%
worst_printed, worst_tight = 0.0, 0.0
for _ in range(n_search):
    dd, mm = int(rng.integers(1, 5)), int(rng.integers(2, 7))
    ls_, scale = float(rng.uniform(0.2, 3.0)), float(rng.uniform(0.1, 3.0))
    Bs = rng.normal(size=(mm, dd)) * scale
    xs = rng.normal(size=(4, dd)) * scale
    xps = xs + rng.normal(size=xs.shape) * rng.uniform(0.01, 3.0)
    tiny = KernelExpansion(Bs, np.zeros(mm), RBF(ls_))
    sq = F.functional_distances(tiny, xs, xps).max(axis=1) ** 2
    worst_printed = max(worst_printed, float(np.max(sq / F.theorem6_bound(xs, xps, RBF(ls_)))))
    worst_tight = max(worst_tight, float(np.max(sq / F.theorem6_bound(xs, xps, RBF(ls_), form="tight"))))
print(f"largest ratio to the printed bound: {worst_printed:.3f}; "
      f"to the bound with the exact L_delta: {worst_tight:.3f}")

# %% [markdown]
# In every configuration tried the ratio stays well below 1, so the printed interventional
# constant appears to hold (a longer adversarial search during development found nothing above
# about 0.53) even though its proof has a gap; kernelxai offers both
# (`theorem6_bound(..., constant="paper" | "proof")`) and the tests check the printed one.

# %% [markdown]
# ## Explore
#
# Pick $\delta$: squared distances of all pairs, per feature, against the bound.

# %%
def render(delta, _value):
    fig, ax = plt.subplots(figsize=(7, 3.6))
    sub = frame[frame.delta == delta]
    for k, value in enumerate(("interventional", "observational")):
        part = sub[sub.value == value]
        xs = np.arange(d) + (k - 0.5) * 0.3
        for j in range(d):
            vals = part[part.feature == f"x{j + 1}"].dist_sq
            ax.scatter(np.full(len(vals), xs[j]), vals, s=10, c=("tab:blue", "tab:red")[k],
                       label=value if j == 0 else None)
        ax.axhline(part.bound.iloc[0], c=("tab:blue", "tab:red")[k], ls="--", lw=1)
    ax.set(yscale="log", xticks=range(d), xticklabels=[f"x{j + 1}" for j in range(d)],
           ylabel="squared RKHS distance", title=f"δ = {delta:g} (dashed: Theorem 6)")
    ax.legend(fontsize=8)


kx.widgets.ParameterExplorer(lambda v: v, render, "delta", deltas, value=deltas[len(deltas) // 2])

# %%
results = {
    "n_train": n_train, "n_background": n_background, "n_pairs": int(len(Xa)), "deltas": deltas,
    "lengthscale": ell, "norm_f": norm_f, "m_gamma": m_gamma, "checks": checks,
    "all_below_bound": bool(all(c["dist_sq_below_bound"] and c["observed_below_bound"]
                                for c in checks.values())),
    "search": {"configurations": n_search, "max_ratio_printed": worst_printed,
               "max_ratio_tight": worst_tight},
    "seconds": time.perf_counter() - started,
}
summary = (f"Theorem 6 holds on all {len(Xa)} pairs x {d} features: max distance^2/bound "
           f"{checks['interventional']['max_ratio_to_bound']:.2f} (I), "
           f"{checks['observational']['max_ratio_to_bound']:.2g} (O); observed |dphi| <= ||f|| dist "
           f"<= ||f|| sqrt(bound) everywhere: {results['all_below_bound']}")
kx.workbench.save_results(results_path, results, summary=summary, parameters=params)
print(summary)
