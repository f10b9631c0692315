# %% [markdown]
# # 21 · Does the functional baseline find the features that matter?
#
# PKeX-Shapley, Experiment 2 (§5.1). A value function is a modelling choice; the
# functional baseline of PKeX (notebook 03) is cheap to compute exactly, but does it
# point at the right features? Three regression tasks with $n = 1000$ points in
# $\mathbb R^{50}$ where only the first 17 features drive the target: a degree-5
# polynomial, a degree-10 polynomial, and $y = \exp(\sum_{i \in S} x_i^2)$. A support
# vector regression with an RBF kernel is fitted to each, and every method explains the
# same test points. For each point the 17 features with the largest $|\phi_j|$ are kept,
# and the score is the share of them that are truly active.
#
# Methods (all with a background of 100 training points where they need one):
#
# * **PKeX-Shapley**: functional baseline, exact (quadrature);
# * **RKHS-SHAP**: interventional value function through kernel mean embeddings
#   (Chau et al. 2022), KernelSHAP regression on sampled coalitions;
# * **KernelSHAP**: the model-agnostic interventional game (model calls averaged over
#   the background), regression on sampled coalitions;
# * **Sampling SHAP**: the same game, permutation sampling (Štrumbelj & Kononenko 2014).
#
# Each sampling method runs with 500 and 1000 coalition evaluations, as in the paper.
# (GEMFIX and BiSHAP, two further baselines of the paper, are not implemented here.)
#
# Details the paper leaves open, chosen here (see `kx.datasets.pkex.active_features`):
# $X \sim U(-1, 1)^{50}$, and the degree-$p$ polynomial is
# $\sum_{i \in S}\sum_{k=1}^p c_{ik} x_i^k$ with $c_{ik} \sim N(0, 1)$; the target is
# standardised before fitting.

# %% tags=["parameters"]
import kernelxai as kx
from kernelxai.datasets import pkex

smoke = False            # tiny sizes for the test suite
paper = False            # the paper's 100 explained points
seed = 0
results_path = "../build/results/21-pkex-feature-recovery.json"
n_train = kx.workbench.default(1000, smoke=300, minimum=10, doc="training points per task")
d = kx.workbench.default(50, minimum=2, doc="number of features")
n_active = kx.workbench.default(17, minimum=1, doc="active features, the first n_active (at most d)")
n_explain = kx.workbench.default(3, smoke=2, paper=100, minimum=1,
                                 doc="explained test points per task (paper: 100)")
n_background = kx.workbench.default(100, smoke=30, minimum=1,
                                    doc="background rows of the model-agnostic baselines (at most n_train)")
budgets = kx.workbench.default([500, 1000], smoke=[500], minimum=2, doc="coalitions of the sampling baselines")
targets = kx.workbench.default(["poly5", "poly10", "sqexp"], smoke=["poly5", "sqexp"], choices=list(pkex.TARGETS),
                               doc="target functions, one task each")
svr_tuning = kx.workbench.default("grid", smoke="fixed", choices=["fixed", "grid"],
                                  doc="SVR hyperparameters: fixed C = 10, gamma = 1/d; or a small grid search")

# %%
params = kx.workbench.resolve_parameters(globals())
globals().update(params)
if n_active > d:
    raise ValueError(f"parameter n_active must be at most d = {d}; got {n_active!r}")
if n_background > n_train:
    raise ValueError(f"parameter n_background must be at most n_train = {n_train}; got {n_background!r}")

# %%
import time

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVR

rng = np.random.default_rng(seed)
results = {"n_explain": n_explain, "budgets": budgets, "targets": targets}

# %% [markdown]
# ## Models
#
# The paper tunes the SVR with Optuna; here a small grid search ($C \in \{1, 10, 100\}$,
# $\gamma \in \{0.1/d, 1/d\}$, 3 folds) on the standardised target. The smoke run
# (`svr_tuning = "fixed"`) skips the search and uses $C = 10$, $\gamma = 1/d$.

# %%
tasks, fits = {}, []
for target in targets:
    X, y, active = pkex.active_features(n=n_train + n_explain, d=d, n_active=n_active, target=target, seed=rng)
    y = (y - y[:n_train].mean()) / y[:n_train].std()
    Xtr, ytr, Xte = X[:n_train], y[:n_train], X[n_train:]
    if svr_tuning == "fixed":
        svr = SVR(kernel="rbf", C=10.0, gamma=1.0 / d).fit(Xtr, ytr)
    else:
        svr = GridSearchCV(SVR(kernel="rbf"), {"C": [1.0, 10.0, 100.0], "gamma": [0.1 / d, 1.0 / d]},
                           cv=3).fit(Xtr, ytr).best_estimator_
    model = kx.models.as_expansion(svr)
    background = Xtr[rng.choice(n_train, n_background, replace=False)]
    tasks[target] = {"model": model, "svr": svr, "X": Xte, "background": background, "active": active}
    fits.append({"target": target, "C": svr.C, "gamma": svr.gamma, "support vectors": len(svr.support_),
                 "train R^2": svr.score(Xtr, ytr), "test R^2": svr.score(Xte, y[n_train:])})
pd.DataFrame(fits).set_index("target")

# %% [markdown]
# ## Explanations
#
# Every method explains all test points of a task in one call; the time per point is
# the call's wall time divided by the number of points. The model-agnostic baselines
# call the fitted scikit-learn SVR's own `predict` (as shap's explainers would), 100
# background points per coalition. They cost seconds per point, which is why the
# default run explains only a few points per task (`paper = True`: 100).

# %%
def methods(task, budget):
    model, svr, B = task["model"], task["svr"], task["background"]
    perms = max(2, budget // (d - 1))   # one permutation evaluates d - 1 coalitions
    marginal = lambda X: kx.values.Marginal(svr, background=B).game(X)   # calls svr.predict, as shap would
    return {
        "PKeX-Shapley (exact)": lambda X: kx.explain(model, X, value="functional_baseline"),
        f"RKHS-SHAP ({budget})": lambda X: kx.explain(model, X, value="interventional", background=B,
                                                      method="kernel", n_coalitions=budget, seed=seed),
        f"KernelSHAP ({budget})": lambda X: kx.shapley_values(marginal(X), method="kernel",
                                                              n_coalitions=budget, seed=seed),
        f"Sampling SHAP ({budget})": lambda X: kx.shapley_values(marginal(X), method="permutation",
                                                                 n_permutations=perms, seed=seed),
    }


def recovery(values, active):
    top = np.argsort(-np.abs(values), axis=1)[:, :len(active)]
    return np.isin(top, active).mean(axis=1)


records, per_point = [], {}
for target, task in tasks.items():
    done = set()
    for budget in budgets:
        for name, run in methods(task, budget).items():
            if name in done:
                continue
            done.add(name)
            start = time.perf_counter()
            expl = run(task["X"])
            seconds = (time.perf_counter() - start) / len(task["X"])
            rate = recovery(expl.values, task["active"])
            per_point[(target, name)] = rate
            records.append({"target": target, "method": name, "recovery": rate.mean(),
                            "recovery sd": rate.std(ddof=1) if len(rate) > 1 else 0.0,
                            "seconds per point": seconds})
table = pd.DataFrame(records)
table.pivot(index="method", columns="target", values="recovery").round(3)

# %% tags=["headline"]
fig, axes = plt.subplots(1, 2, figsize=(12, 4))
pivot = table.pivot(index="method", columns="target", values="recovery")
pivot.plot.barh(ax=axes[0])
axes[0].axvline(n_active / d, color="grey", ls=":", lw=1)
axes[0].set_xlabel(f"share of the top {n_active} features that are active (chance: {n_active / d:.2f})")
axes[0].set_title("recovery of the active features")
time_table = table.groupby("method")["seconds per point"].agg(["mean", "std"])
axes[1].barh(time_table.index, time_table["mean"], xerr=time_table["std"].fillna(0), capsize=3, color="#7f7f7f")
axes[1].set_xscale("log")
axes[1].set_xlabel("seconds per explained point (mean over tasks)")
axes[1].set_title("cost")
axes[1].set_yticks(range(len(time_table)), [""] * len(time_table))
plt.tight_layout();

# %% [markdown]
# ## Does the paper's claim hold?
#
# The paper reports that PKeX-Shapley's recovery is on par with or better than the
# baselines on all three tasks, with the baselines degrading on the harder targets, and
# that it is faster than the sampling methods at 1000 coalitions. The table below gives
# our numbers; the claim holds where PKeX's recovery is within a few points of the best
# method on a task. Note that the models themselves differ in quality across tasks (see
# the test $R^2$ above): a method can only recover features the model actually uses.

# %%
best = table.groupby("target")["recovery"].max()
pkex_rate = table[table.method == "PKeX-Shapley (exact)"].set_index("target")["recovery"]
pkex_time = table[table.method == "PKeX-Shapley (exact)"]["seconds per point"].mean()
sampling_1000 = table[table.method.str.contains(f"({budgets[-1]})", regex=False)]["seconds per point"]
results["recovery"] = pivot.to_dict()
results["seconds_per_point"] = table.groupby("method")["seconds per point"].mean().to_dict()
results["pkex_gap_to_best"] = (best - pkex_rate).to_dict()
results["pkex_faster_than_all_sampling"] = bool(pkex_time < sampling_1000.min())
pd.DataFrame({"PKeX": pkex_rate, "best method": best, "gap": best - pkex_rate})

# %% [markdown]
# ## Explore single points

# %%
def show(target=targets[0], point=0):
    task = tasks[target]
    point = min(point, len(task["X"]) - 1)
    expl = kx.explain(task["model"], task["X"][point:point + 1], value="functional_baseline")
    colours = ["#d6604d" if j in task["active"] else "#7f7f7f" for j in range(d)]
    fig, ax = plt.subplots(figsize=(10, 3))
    ax.bar(range(d), expl.values[0], color=colours)
    ax.set_xlabel("feature (red: active)")
    ax.set_ylabel("PKeX Shapley value")
    ax.set_title(f"{target}, point {point}: {recovery(expl.values, task['active'])[0]:.0%} of the top {n_active} active")


kx.widgets.interact(show, target=targets, point=widgets.IntSlider(0, 0, max(0, n_explain - 1)))

# %%
summary = ("recovery PKeX " + ", ".join(f"{t} {pkex_rate[t]:.2f}" for t in targets)
           + "; best " + ", ".join(f"{t} {best[t]:.2f}" for t in targets)
           + f"; PKeX {pkex_time * 1e3:.0f} ms/point vs sampling at {budgets[-1]}: "
             f"{sampling_1000.min() * 1e3:.0f}-{sampling_1000.max() * 1e3:.0f} ms")
kx.workbench.save_results(results_path, results, summary=summary, parameters=params)
print(summary)
