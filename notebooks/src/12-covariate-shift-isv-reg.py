# %% [markdown]
# # 12 · Protection against covariate shift with ISV-REG (RKHS-SHAP Exp. 3)
#
# A model is trained on clean data, but at test time one feature — here the most
# influential, $X_5$ — is measured with extra noise: $\tilde x_5 = x_5 + \sigma\,\varepsilon$.
# If we expect that, we can tell the model during training to lean less on $X_5$
# without dropping it. RKHS-SHAP §4 proposes to penalise the mean squared
# *interventional* Shapley value of $X_5$ over the training points (**ISV-REG**,
# Prop. 7). Interventional values are the natural choice here: the test-time noise
# breaks the dependence between $X_5$ and the other features, and the interventional
# value function is exactly the one that ignores that dependence.
#
# **Design (the paper's).** $X \sim N(0, \Sigma)$ with $d = 5$, unit variances and
# $\Sigma_{45} = 0.9$; $y = x^\top\beta$ with $\beta = (1, 2, 3, 4, 10)$; 3000 samples,
# 70/30 train/test split; kernel ridge regression with a product RBF kernel
# (median-heuristic lengthscales, ridge $\lambda$ by leave-one-out CV, then held fixed);
# test-time noise $\sigma \in \{0, 0.1, 0.5, 1, 1.5\}$ on $X_5$; $\lambda_S \in \{0, 0.5, 1, 1.5, 2, 2.5\}$;
# RMSE averaged over 10 repetitions.
#
# **Here by default:** 1000 samples (700 for training) and 5 repetitions; `paper = True`
# runs 3000 samples and 10 repetitions. Besides the paper's grid we sweep $\lambda_S$ on a
# log scale from $10^{-3}$ to $10^4$, because the paper's grid turns out to cover only
# the beginning of ISV-REG's effect. For contrast, the same sweep with OSV-REG.
#
# **The paper's claim:** the RMSE gap between noisy ($\sigma = 1.5$) and clean
# ($\sigma = 0$) test data shrinks as $\lambda_S$ grows, at the price of a higher clean RMSE.
#
# `lam_shapley` in kernelxai is the weight of the mean squared Shapley value against
# the mean squared residual — $\lambda_S/n$ of Prop. 7's closed form and the
# $\lambda_{sv}$ of the paper's code, which runs the grid above on this scale.

# %% tags=["parameters"]
import kernelxai as kx

smoke = False            # tiny sizes for the test suite
paper = False            # the paper's setting: 3000 samples, 10 repetitions
seed = 0
results_path = "../build/results/12-covariate-shift-isv-reg.json"
n_samples = kx.workbench.default(1000, smoke=300, paper=3000, minimum=10,
                                 doc="samples before the 70/30 split (paper: 3000)")
n_repeats = kx.workbench.default(5, smoke=1, paper=10, minimum=1, doc="repetitions (paper: 10)")
sigmas = kx.workbench.default([0.0, 0.1, 0.5, 1.0, 1.5], minimum=0,
                              doc="test-time noise levels on X5 (must include 0)")
lam_paper = kx.workbench.default([0.0, 0.5, 1.0, 1.5, 2.0, 2.5], minimum=0,
                                 doc="the paper's lambda_S grid (must include 0: the unregularised model)")
lam_wide = kx.workbench.default([1e-3, 1e-2, 0.1, 10.0, 100.0, 1e3, 1e4], smoke=[1e-2, 10.0, 1e3], minimum=0,
                                doc="the log-scale lambda_S sweep (must be > 0: plotted on a log axis)")
with_osv = kx.workbench.default(True, doc="also run OSV-REG for contrast")
sensitivity_lam = kx.workbench.default(1e-3, smoke=None, minimum=0,
                                       doc="a larger ridge for the sensitivity check (None: skip it)")

# %%
params = kx.workbench.resolve_parameters(globals())
globals().update(params)
if 0.0 not in sigmas:
    raise ValueError(f"parameter sigmas must include 0 (the clean test data); got {sigmas!r}")
if 0.0 not in lam_paper:
    raise ValueError(f"parameter lam_paper must include 0 (the unregularised model); got {lam_paper!r}")
if min(lam_wide) <= 0:
    raise ValueError(f"parameter lam_wide must hold real numbers > 0; got {lam_wide!r}")

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

from kernelxai.datasets import rkhs_shap
from kernelxai.functionals import ShapleyRegularisedKernelRidge

lam_all = sorted(set(lam_paper) | set(lam_wide))
names = ["x1", "x2", "x3", "x4", "x5"]
regularisers = {"ISV-REG": "interventional"} | ({"OSV-REG": "observational"} if with_osv else {})
started = time.perf_counter()

# %% [markdown]
# ## The experiment
#
# For every repetition: a fresh sample, a random 70/30 split, one regularisation path
# per regulariser (the representers and the eigen-decomposition of $K$ are computed
# once per path; each $\lambda_S$ then costs one Cholesky factorisation), and the test
# RMSE under each noise level. The noise draws are shared by all models of a repetition.

# %%
records = []
for r in range(n_repeats):
    rng = np.random.default_rng([seed, r])
    X, y = rkhs_shap.correlated_gaussian(n_samples, seed=rng)
    order = rng.permutation(n_samples)
    n_train = int(round(0.7 * n_samples))
    tr, te = order[:n_train], order[n_train:]
    X_tr, X_te = pd.DataFrame(X[tr], columns=names), X[te]
    shifted = {s: pd.DataFrame(rkhs_shap.shift_feature(X_te, s, feature=4, seed=rng), columns=names)
               for s in sigmas}
    if r == 0:
        first = {"X_tr": X_tr, "y_tr": y[tr], "y_te": y[te], "shifted": shifted}
    for reg, value in regularisers.items():
        path = ShapleyRegularisedKernelRidge(features=["x5"], value=value).path(X_tr, y[tr], lam_all)
        for lam_s, model in zip(lam_all, path):
            train_rmse = float(np.sqrt(np.mean((model.predict(X_tr) - y[tr]) ** 2)))
            for s in sigmas:
                rmse = float(np.sqrt(np.mean((model.predict(shifted[s]) - y[te]) ** 2)))
                records.append({"repeat": r, "regulariser": reg, "lam_S": lam_s, "sigma": s,
                                "rmse": rmse, "train_rmse": train_rmse, "lam": model.lam_})
runs = pd.DataFrame(records)
print(f"{n_repeats} repetitions, n_train = {n_train}; ridge lam chosen by CV: "
      f"{sorted(runs.lam.unique().tolist())}; sd of y: {np.std(y):.2f}")
table = runs.groupby(["regulariser", "lam_S", "sigma"]).rmse.agg(["mean", "std"]).reset_index()
wide = table.pivot_table(index=["regulariser", "lam_S"], columns="sigma", values="mean")
wide.round(3)

# %% [markdown]
# ## RMSE against $\lambda_S$, one line per noise level
#
# Left: the paper's grid (compare with its Fig. 2b). Right: the whole log sweep.

# %% tags=["headline"]
fig, axes = plt.subplots(1, 2, figsize=(13, 4.2))
isv = table[table.regulariser == "ISV-REG"]
colours = plt.cm.viridis(np.linspace(0, 0.9, len(sigmas)))
for s, c in zip(sigmas, colours):
    sub = isv[isv.sigma == s]
    on_paper = sub[sub.lam_S.isin(lam_paper)]
    axes[0].errorbar(on_paper.lam_S, on_paper["mean"], yerr=on_paper["std"], marker="o", c=c,
                     capsize=3, label=f"σ = {s}")
    lam_x = np.where(sub.lam_S == 0, min(lam_wide) / 10, sub.lam_S)
    axes[1].errorbar(lam_x, sub["mean"], yerr=sub["std"], marker="o", c=c, capsize=3, label=f"σ = {s}")
axes[0].set(title="ISV-REG, the paper's λ_S grid", xlabel="$\\lambda_S$", ylabel="test RMSE")
axes[1].set(title="ISV-REG, log sweep (leftmost point: λ_S = 0)", xlabel="$\\lambda_S$", xscale="log")
axes[0].legend(title="noise on $X_5$ at test time")
fig.suptitle(f"RKHS-SHAP Exp. 3, n = {n_samples}, {n_repeats} repetitions (mean ± sd)", y=1.02)
fig.tight_layout();

# %% [markdown]
# ## The gap between noisy and clean test data
#
# The claim is about the difference RMSE(σ = 1.5) − RMSE(σ = 0). It is computed per
# repetition and then averaged.

# %%
per_run = runs.pivot_table(index=["regulariser", "lam_S", "repeat"], columns="sigma", values="rmse")
per_run["gap"] = per_run[max(sigmas)] - per_run[0.0]
gap = per_run.groupby(["regulariser", "lam_S"]).gap.agg(["mean", "std"]).reset_index()
fig, ax = plt.subplots(figsize=(6.5, 4))
for reg, c in (("ISV-REG", "tab:blue"), ("OSV-REG", "tab:red")):
    sub = gap[gap.regulariser == reg]
    if len(sub):
        lam_x = np.where(sub.lam_S == 0, min(lam_wide) / 10, sub.lam_S)
        ax.errorbar(lam_x, sub["mean"], yerr=sub["std"], marker="o", c=c, capsize=3, label=reg)
ax.set(xscale="log", xlabel="$\\lambda_S$ (leftmost point: 0)",
       ylabel=f"RMSE(σ={max(sigmas)}) − RMSE(σ=0)", title="covariate-shift gap")
ax.legend();
gap.pivot(index="lam_S", columns="regulariser", values="mean").round(3)

# %%
def gap_of(reg, lams):
    sub = gap[(gap.regulariser == reg) & gap.lam_S.isin(lams)].sort_values("lam_S")
    return sub["mean"].to_numpy()


isv_paper, isv_all = gap_of("ISV-REG", lam_paper), gap_of("ISV-REG", lam_all)
clean = table[(table.regulariser == "ISV-REG") & (table.sigma == 0.0)].sort_values("lam_S")["mean"].to_numpy()
noisy = table[(table.regulariser == "ISV-REG") & (table.sigma == max(sigmas))].sort_values("lam_S")
noisy_paper = noisy[noisy.lam_S.isin(lam_paper)]["mean"].to_numpy()
claim = {
    "gap_at_0": float(isv_all[0]),
    "gap_at_paper_max": float(isv_paper[-1]),
    "gap_at_wide_max": float(isv_all[-1]),
    "gap_shrinks_over_paper_grid": bool(isv_paper[-1] < isv_paper[0]),
    "gap_monotone_over_paper_grid": bool(np.all(np.diff(isv_paper) <= 0)),
    "gap_shrinks_over_wide_grid": bool(isv_all[-1] < isv_all[0]),
    "gap_monotone_over_wide_grid": bool(np.all(np.diff(isv_all) <= 0)),
    "clean_rmse_rises": bool(clean[-1] > clean[0]),
    "clean_rmse_at_0": float(clean[0]),
    "clean_rmse_at_paper_max": float(noisy_paper[-1] - isv_paper[-1]),
    "noisy_rmse_at_0": float(noisy_paper[0]),
    "noisy_rmse_at_paper_max": float(noisy_paper[-1]),
    "noisy_rmse_min": float(noisy["mean"].min()),
    "noisy_rmse_argmin_lam": float(noisy.lam_S.to_numpy()[np.argmin(noisy["mean"].to_numpy())]),
}
claim

# %% [markdown]
# ## Reading the result
#
# The cell above states from this run's numbers whether the gap shrinks. In the default
# run (1000 samples, 5 repetitions) it does, and monotonically along the paper's grid:
# from 7.2 at $\lambda_S = 0$ to 4.4 at $\lambda_S = 2.5$ — **the paper's claim holds**. Three
# qualifications, all visible in the figures:
#
# * **Most of the narrowing is the clean RMSE rising**, from 3.1 to 7.4 over the paper's
#   grid. The noisy RMSE ($\sigma = 1.5$) does not improve there: it is 10.3 without the
#   regulariser and 11.9 at $\lambda_S = 2.5$. It is lowest (9.0) at $\lambda_S = 0.01$.
# * **Not monotone on a log scale.** The gap drops to 4.6 already at $\lambda_S = 0.01$,
#   creeps back up to 4.8 around $\lambda_S = 0.1$–$0.5$, and then falls steadily to 0.8 at
#   $\lambda_S = 10^4$, where the model has handed $X_5$'s role to its proxy $X_4$ (notebook 13)
#   and noise on $X_5$ hardly matters any more.
# * **OSV-REG is no substitute here.** Its gap also closes, but with the CV ridge its clean
#   test RMSE reaches 12.7 at $\lambda_S = 1$ and passes the standard deviation of $y$ (14.3,
#   what a constant achieves) from $\lambda_S = 2$ on: it removes the proxy's share as well, and
#   the fit overfits (next section).

# %% [markdown]
# ## How much of this is the ridge?
#
# Cross-validation of the *unregularised* model picks the smallest ridge on its grid
# ($\lambda = 10^{-7}$): the target is noise-free, so near-interpolation wins. The paper's
# protocol keeps that $\lambda$ for every $\lambda_S$. But the Shapley penalty is only enforced at
# the training points, and with almost no ridge the regularised fits are free to be erratic
# elsewhere: the train and test RMSE part ways as $\lambda_S$ grows (table below, left
# columns, all repetitions). With a larger ridge, $\lambda = 10^{-3}$ (right columns and the
# second table, first repetition only), the same sweep generalises much better: in the default
# run ISV-REG then lowers the noisy RMSE itself, from 10.1 to 8.3 around $\lambda_S = 0.5$–$1$,
# for a clean RMSE of 5.2–5.6, and OSV-REG behaves sensibly too. Whether the Shapley
# regulariser helps against covariate shift thus depends as much on the ridge as on
# $\lambda_S$; choosing $\lambda$ together with $\lambda_S$, for the shift one expects, is the
# practical advice.

# %%
train_vs_test = (runs[runs.sigma == 0.0].groupby(["regulariser", "lam_S"])[["train_rmse", "rmse"]]
                 .mean().rename(columns={"rmse": "clean test RMSE"}))
sensitivity = None
if sensitivity_lam is not None:
    rows = []
    for reg, value in regularisers.items():
        path = ShapleyRegularisedKernelRidge(lam=sensitivity_lam, features=["x5"], value=value).path(
            first["X_tr"], first["y_tr"], lam_all)
        for lam_s, model in zip(lam_all, path):
            rmse = {s: float(np.sqrt(np.mean((model.predict(first["shifted"][s]) - first["y_te"]) ** 2)))
                    for s in (0.0, max(sigmas))}
            rows.append({"regulariser": reg, "lam_S": lam_s,
                         "train RMSE": float(np.sqrt(np.mean((model.predict(first["X_tr"])
                                                              - first["y_tr"]) ** 2))),
                         "clean test RMSE": rmse[0.0], f"RMSE σ={max(sigmas)}": rmse[max(sigmas)],
                         "gap": rmse[max(sigmas)] - rmse[0.0]})
    sensitivity = pd.DataFrame(rows)
    display(pd.concat({"CV ridge (all repetitions)": train_vs_test.round(2),
                       f"ridge {sensitivity_lam:g} (repetition 0)":
                       sensitivity.set_index(["regulariser", "lam_S"])[["train RMSE", "clean test RMSE"]]
                       .round(2)}, axis=1))
    display(sensitivity.round(2))
else:
    display(train_vs_test.round(2))

# %% [markdown]
# ## Explore: the models along the path
#
# Pick $\lambda_S$: test RMSE against the noise level for both regularisers.

# %%
def render(lam_s, _value):
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for reg, c in (("ISV-REG", "tab:blue"), ("OSV-REG", "tab:red")):
        sub = table[(table.regulariser == reg) & (table.lam_S == lam_s)]
        if len(sub):
            ax.errorbar(sub.sigma, sub["mean"], yerr=sub["std"], marker="o", c=c, capsize=3, label=reg)
    base = table[(table.regulariser == "ISV-REG") & (table.lam_S == 0.0)]
    ax.plot(base.sigma, base["mean"], "k--", label="plain KRR (λ_S = 0)")
    ax.set(xlabel="σ (noise on $X_5$ at test time)", ylabel="test RMSE", title=f"λ_S = {lam_s:g}")
    ax.legend()


kx.widgets.ParameterExplorer(lambda v: v, render, "lambda_S", lam_all, value=lam_all[len(lam_all) // 2])

# %%
results = {
    "n_samples": n_samples, "n_repeats": n_repeats, "sigmas": sigmas, "lam_grid": lam_all,
    "lam_paper": lam_paper, "ridge_lam": sorted(runs.lam.unique().tolist()),
    "rmse_mean": {reg: {str(l): wide.loc[(reg, l)].tolist() for l in lam_all} for reg in regularisers},
    "gap": {reg: gap_of(reg, lam_all).tolist() for reg in regularisers},
    "sensitivity": None if sensitivity is None else sensitivity.to_dict(orient="list"),
    "train_rmse": {reg: runs[(runs.regulariser == reg) & (runs.sigma == 0.0)].groupby("lam_S")
                   .train_rmse.mean().tolist() for reg in regularisers},
    "sd_y": float(np.std(y)),
    "claim": claim,
    "seconds": time.perf_counter() - started,
}
summary = (f"ISV-REG gap RMSE(σ=1.5)-RMSE(σ=0): {claim['gap_at_0']:.2f} at λ_S=0, "
           f"{claim['gap_at_paper_max']:.2f} at 2.5, {claim['gap_at_wide_max']:.2f} at {max(lam_all):g}; "
           f"shrinks over paper grid: {claim['gap_shrinks_over_paper_grid']} "
           f"(n={n_samples}, {n_repeats} reps)")
kx.workbench.save_results(results_path, results, summary=summary, parameters=params)
print(summary)
