# %% [markdown]
# # 04 · Shapley functionals and the Shapley regulariser
#
# For a kernel model $f = \sum_j \alpha_j k(\cdot, x_j) + b$ the value functions of
# RKHS-SHAP are linear in the coefficients: $v_x(S) = (M_S\alpha)(x) + b$. A Shapley
# value is a fixed linear combination of worths, so it is linear in $\alpha$ too:
#
# $$\phi_i(x) = \sum_{S\subseteq D\setminus i} \mu(|S|)\,\bigl(v_x(S\cup i) - v_x(S)\bigr) = (R_i\,\alpha)(x),
# \qquad \mu(s) = \tfrac{s!\,(d-s-1)!}{d!}.$$
#
# The matrix $R_i$ (explained points × training points) is the **representer** of the
# Shapley functional $\phi_{x,i}$ (RKHS-SHAP Prop. 5). It does not depend on $\alpha$:
# build it once and every model on the same training inputs gets its Shapley values
# by one matrix product. That makes it possible to *learn* with Shapley values
# (RKHS-SHAP §4, Prop. 7): add $\lambda_S \cdot \frac1n\sum_i \phi_A(x_i)^2$ to the
# loss and the Shapley values of feature $A$ are pulled towards zero during training.
# With the interventional value function this is **ISV-REG**, with the observational
# (conditional) one **OSV-REG**.
#
# This notebook
#
# 1. builds representers and checks them against `kx.explain`,
# 2. draws the Riesz representer of a Shapley functional as a function on the plane,
# 3. compares exact coalition weights with coalitions sampled from $p(S) = \mu(|S|)$,
# 4. fits ISV-REG and OSV-REG on a small version of the paper's correlated design and
#    sweeps $\lambda_S$ on a log grid, with a slider to look at each fit.

# %% tags=["parameters"]
import kernelxai as kx

smoke = False            # tiny sizes for the test suite
paper = False            # the method notebook has no paper setting; see 12 and 13
seed = 0
results_path = "../build/results/04-shapley-regulariser.json"
# training points of the regularised fits
n_train = kx.workbench.default(400, smoke=120, minimum=20)
# grid side of the representer picture
n_grid = kx.workbench.default(45, smoke=25, minimum=2)
# lambda_S, log scale
lam_grid = kx.workbench.default([0.0, 1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0, 1e3, 1e4],
                                smoke=[0.0, 0.01, 1.0, 100.0, 1e4], minimum=0)
# sampled coalitions of the representer-sampling study
budgets = kx.workbench.default([10, 30, 100, 300, 1000], smoke=[10, 100], minimum=1)
# seeds per budget in that study
n_seeds = kx.workbench.default(6, smoke=2, minimum=1)

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from kernelxai import functionals as F
from kernelxai.datasets import rkhs_shap
from kernelxai.kernels import RBF
from kernelxai.models import KernelExpansion, KernelRidge
from kernelxai.functionals import ShapleyRegularisedKernelLogisticRegression, ShapleyRegularisedKernelRidge

params = kx.workbench.resolve_parameters(globals())   # validated; smoke/paper fill only unset sizes
globals().update(params)
rng = np.random.default_rng(seed)
results = {"n_train": n_train, "lam_grid": lam_grid}
started = time.perf_counter()

# %% [markdown]
# ## 1 · Representer matrices reproduce the Shapley values
#
# The data are the design of RKHS-SHAP Exp. 3/4 (`kx.datasets.rkhs_shap.correlated_gaussian`):
# five standard normal features, $X_4$ and $X_5$ correlated at 0.9,
# $y = x^\top(1, 2, 3, 4, 10)$. A kernel ridge regression with a product RBF kernel
# (median-heuristic lengthscales, $\lambda$ by leave-one-out CV) is explained at 50
# points. `kx.functionals.shapley_representers` asks the value function for its
# coefficient matrices $M_S$ and combines them with the Shapley weights.

# %%
names = ["x1", "x2", "x3", "x4", "x5"]
X_arr, y = rkhs_shap.correlated_gaussian(n_train, seed=seed)
X = pd.DataFrame(X_arr, columns=names)
krr = KernelRidge().fit(X, y)
X_explain = X.iloc[:50]
check = {}
for value, opts in (("interventional", {}), ("observational", {"eta": 1e-3})):
    reps = F.shapley_representers(krr, X_explain, value, **opts)
    expl = kx.explain(krr, X_explain, value=value, method="exact", **opts)
    check[value] = float(np.abs(reps.values(krr.alpha_) - expl.values).max())
    print(f"{value:15s} R_i has shape {reps.matrices.shape}; "
          f"max |R alpha - kx.explain| = {check[value]:.1e}")
results["representer_vs_explain"] = check

# %% [markdown]
# Both agree to rounding: the representers are the Shapley values, written as a
# linear map. Each row of $R_5$ says how much each training point's coefficient
# contributes to $\phi_5$ at one explained point:

# %%
reps5 = {v: F.shapley_representers(krr, X_explain.iloc[:1], v, features=["x5"], **o)
         for v, o in (("interventional", {}), ("observational", {"eta": 1e-3}))}
fig, axes = plt.subplots(1, 2, figsize=(10, 3.5), sharey=True)
for ax, (v, r) in zip(axes, reps5.items()):
    sc = ax.scatter(X_arr[:, 4], X_arr[:, 3], c=r["x5"][0], cmap="coolwarm", s=12,
                    vmin=-np.abs(r["x5"][0]).max(), vmax=np.abs(r["x5"][0]).max())
    ax.scatter(*X_arr[0, [4, 3]], marker="*", s=250, c="k")
    ax.set(title=f"row of $R_5$ at the starred point ({v})", xlabel="$x_5$ of training point")
    fig.colorbar(sc, ax=ax)
axes[0].set_ylabel("$x_4$ of training point");

# %% [markdown]
# ## 2 · The Riesz representer as a function
#
# A Shapley functional is a bounded linear functional on the RKHS, so it has a Riesz
# representer $g_{x,i}$ with $\phi_{x,i}(f) = \langle f, g_{x,i}\rangle$. Evaluating
# $g_{x,i}$ at a point $z$ is the representer matrix of a "model" whose training
# points are the grid: $g_{x,i}(z_j) = R_i[x, j]$. In two dimensions with correlated
# features (ρ = 0.8) the difference between the value functions is visible at a glance:
# the interventional representer of $\phi_1$ at $x$ pairs $x_1$ with the *marginal*
# spread of $x_2$, the observational one follows the data.

# %%
Z2 = rng.multivariate_normal([0, 0], [[1, 0.8], [0.8, 1]], size=200)
k2 = RBF(0.6)
x0 = np.array([[1.2, 1.0]])
g1, g2 = np.meshgrid(np.linspace(-3, 3, n_grid), np.linspace(-3, 3, n_grid))
grid = np.column_stack([g1.ravel(), g2.ravel()])
on_grid = KernelExpansion(grid, np.zeros(len(grid)), k2)
fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
for ax, (v, o) in zip(axes, (("interventional", {}), ("observational", {"eta": 1e-2}))):
    g = F.shapley_representers(on_grid, x0, v, features=[0], background=Z2, **o).matrices[0, 0]
    lim = np.abs(g).max()
    im = ax.contourf(g1, g2, g.reshape(g1.shape), levels=21, cmap="coolwarm", vmin=-lim, vmax=lim)
    ax.scatter(*Z2.T, s=4, c="k", alpha=0.3)
    ax.scatter(*x0.T, marker="*", s=250, c="gold", edgecolor="k")
    ax.set(title=f"$g_{{x,1}}(z)$, {v}", xlabel="$z_1$", xlim=(-3, 3), ylim=(-3, 3))
    fig.colorbar(im, ax=ax)
axes[0].set_ylabel("$z_2$");

# %% [markdown]
# ## 3 · Exact weights or sampled coalitions
#
# With $d$ features there are $2^d$ coalitions. Prop. 7 of the paper averages over
# coalitions $S_j \subseteq D\setminus A$ drawn from $p(S) = \frac1d\binom{d-1}{|S|}^{-1}$, which is
# exactly the Shapley weight $\mu(|S|)$, so the average is an unbiased estimate of
# $R_A$. (A plain average over all coalitions, as in the paper's code, gives the
# Banzhaf value instead.) The estimate converges at the Monte Carlo rate, averaged over
# a few seeds: a single run is noisy because the marginal contributions of this model are
# heavy-tailed. Cross-validation picked a tiny ridge, so the interpolating fit is wild at
# the off-manifold points $(x_S, b_{S^c})$ the interventional game visits when $x_4$ and
# $x_5$ are pulled apart.

# %%
exact = F.shapley_representers(krr, X_explain, "interventional", features=["x5"]).values(krr.alpha_)
errors = []
for J in budgets:
    runs = [F.shapley_representers(krr, X_explain, "interventional", features=["x5"],
                                   method="sampled", n_coalitions=J, seed=seed + r)
            for r in range(n_seeds)]
    errors.append(float(np.mean([np.sqrt(np.mean((est.values(krr.alpha_) - exact) ** 2))
                                 for est in runs])))
fig, ax = plt.subplots(figsize=(5, 3.5))
ax.loglog(budgets, errors, "o-", label="sampled $R_5\\alpha$")
ax.loglog(budgets, errors[0] * np.sqrt(budgets[0] / np.array(budgets)), "k--", label="$\\propto J^{-1/2}$")
ax.set(xlabel="coalitions per feature J", ylabel="RMS error of $\\phi_5$",
       title=f"sampled representers (mean of {n_seeds} seeds)")
ax.legend();
results["sampling_rmse"] = dict(zip(map(str, budgets), errors))

# %% [markdown]
# ## 4 · ISV-REG and OSV-REG
#
# `ShapleyRegularisedKernelRidge` minimises
# $\frac1n\sum_i (y_i - f(x_i))^2 + \lambda\|f\|^2 + \lambda_S \frac1n\sum_i \phi_A(x_i)^2$,
# with the closed form of Prop. 7 (computed in the eigenbasis of $K$; $\lambda$ is the
# CV choice of the plain fit, held fixed). Here $A = X_5$. First: with $\lambda_S = 0$
# the regularised estimator is kernel ridge regression.

# %%
X_test_arr, y_test = rkhs_shap.correlated_gaussian(1000, seed=seed + 1)
X_test = pd.DataFrame(X_test_arr, columns=names)
paths = {}
for value in ("interventional", "observational"):
    paths[value] = ShapleyRegularisedKernelRidge(features=["x5"], value=value).path(X, y, lam_grid)
reproduce = max(float(np.abs(paths[v][0].predict(X_test) - krr.predict(X_test)).max()) for v in paths)
print(f"lam_S = 0 vs KernelRidge: max prediction difference {reproduce:.1e}")
results["lam0_vs_krr_max_diff"] = reproduce

# %% [markdown]
# Now the sweep. All Shapley values of all fits come from one representer matrix per
# value function (built at the training points), checked against `kx.explain` for one fit.

# %%
rows, phis = [], {}
for value, opts in (("interventional", {}), ("observational", {"eta": 1e-3})):
    R_all = F.shapley_representers(paths[value][0], X, value, **opts)
    spot = paths[value][len(lam_grid) // 2]
    e = kx.explain(spot, X.iloc[:40], value=value, method="exact", **opts)
    assert np.abs(R_all.values(spot.alpha_)[:40] - e.values).max() < 1e-10
    for lam_s, m in zip(lam_grid, paths[value]):
        phi = R_all.values(m.alpha_)
        phis[value, lam_s] = phi
        rows.append({"regulariser": "ISV-REG" if value == "interventional" else "OSV-REG",
                     "lam_S": lam_s, "mean phi5^2": np.mean(phi[:, 4] ** 2),
                     "mean phi4^2": np.mean(phi[:, 3] ** 2),
                     "test RMSE": np.sqrt(np.mean((m.predict(X_test) - y_test) ** 2))})
table = pd.DataFrame(rows)
table.round(4)

# %% tags=["headline"]
fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
lam_plot = np.array(lam_grid, dtype=float)
lam_plot[0] = lam_grid[1] / 10 if len(lam_grid) > 1 else 1e-4   # show lam_S = 0 on the log axis
for reg, colour in (("ISV-REG", "tab:blue"), ("OSV-REG", "tab:red")):
    sub = table[table.regulariser == reg]
    axes[0].loglog(lam_plot, sub["mean phi5^2"], "o-", c=colour, label=reg)
    axes[1].semilogx(lam_plot, sub["mean phi4^2"], "o-", c=colour, label=reg)
    axes[2].semilogx(lam_plot, sub["test RMSE"], "o-", c=colour, label=reg)
axes[0].set(title="regularised feature: mean $\\phi_5^2$", xlabel="$\\lambda_S$ (leftmost point: 0)")
axes[1].set(title="correlated proxy: mean $\\phi_4^2$", xlabel="$\\lambda_S$")
axes[2].set(title="test RMSE", xlabel="$\\lambda_S$")
for ax in axes:
    ax.legend()
fig.suptitle("ISV-REG and OSV-REG on the correlated design (each model explained with its own value function)",
             y=1.02)
fig.tight_layout();

# %% [markdown]
# Three things to read off:
#
# * mean $\phi_5^2$ falls monotonically with $\lambda_S$ for both regularisers (as it
#   must for a penalised least-squares path);
# * the two act on **different scales**: ISV-REG bites at $\lambda_S \approx 10^{-2}$,
#   OSV-REG only around $1$–$10$. The observational value of $X_5$ shares credit with its
#   proxy $X_4$, and zeroing it means giving up both;
# * the proxy behaves oppositely: ISV-REG moves the credit to $X_4$ (mean $\phi_4^2$
#   grows — $X_4$ now stands in for $X_5$), OSV-REG removes it too. Notebook 13 looks at
#   this on the paper's full design.

# %%
mean5 = {v: [float(np.mean(phis[v, l][:, 4] ** 2)) for l in lam_grid] for v in paths}
results["mean_phi5_sq"] = mean5
results["monotone"] = {v: bool(np.all(np.diff(mean5[v]) < 0)) for v in mean5}
results["mean_phi4_sq"] = {v: [float(np.mean(phis[v, l][:, 3] ** 2)) for l in lam_grid] for v in paths}
results["test_rmse"] = {v: table[table.regulariser == ("ISV-REG" if v == "interventional" else "OSV-REG")]
                        ["test RMSE"].tolist() for v in paths}
print(results["monotone"])

# %% [markdown]
# ## The logistic loss
#
# `ShapleyRegularisedKernelLogisticRegression` is the same penalty on the logit of a
# kernel logistic regression, minimised by L-BFGS. On the sign of $y$:

# %%
labels = np.where(y > 0, "positive", "negative")
pen = []
for lam_s in (0.0, 0.1, 1.0, 10.0):
    clf = ShapleyRegularisedKernelLogisticRegression(lam=1e-3, lam_shapley=lam_s, features=["x5"],
                                                     value="observational").fit(X, labels)
    pen.append({"lam_S": lam_s, "mean phi5^2 (logit)": clf.shapley_penalty_,
                "train accuracy": float(np.mean(clf.predict(X) == labels))})
pd.DataFrame(pen).round(4)

# %%
results["logistic_penalty"] = [p["mean phi5^2 (logit)"] for p in pen]

# %% [markdown]
# ## Explore: one fit per $\lambda_S$
#
# The slider walks along the cached fits: Shapley values of $X_5$ and $X_4$ against the
# feature values, for both regularisers.

# %%
def render(lam_s, _value):
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), sharey=True)
    for ax, v, c in zip(axes, ("interventional", "observational"), ("tab:blue", "tab:red")):
        phi = phis[v, lam_s]
        ax.scatter(X_arr[:, 4], phi[:, 4], s=6, c=c, label="$\\phi_5$ vs $x_5$")
        ax.scatter(X_arr[:, 3], phi[:, 3], s=6, c="grey", alpha=0.5, label="$\\phi_4$ vs $x_4$")
        ax.set(title=f"{'ISV' if v == 'interventional' else 'OSV'}-REG, $\\lambda_S$ = {lam_s:g}",
               xlabel="feature value")
        ax.legend(fontsize=8)
    axes[0].set_ylabel("Shapley value")


kx.widgets.ParameterExplorer(lambda v: v, render, "lambda_S", lam_grid, value=lam_grid[-2])

# %%
summary = (f"R alpha = explain to {max(check.values()):.0e}; lam_S=0 vs KRR {reproduce:.0e}; "
           f"mean phi5^2 falls monotonically: ISV {results['monotone']['interventional']}, "
           f"OSV {results['monotone']['observational']} (n = {n_train})")
results["seconds"] = time.perf_counter() - started
kx.workbench.save_results(results_path, results, summary=summary, parameters=params)
print(summary)
