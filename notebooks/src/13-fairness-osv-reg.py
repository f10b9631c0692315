# %% [markdown]
# # 13 · Fair learning with OSV-REG (RKHS-SHAP Exp. 4)
#
# Suppose $X_5$ is a sensitive attribute whose influence on the predictions we want to
# remove. Dropping the column is not enough when another feature carries the same
# information — here $X_4$, correlated with $X_5$ at 0.9, is such a **proxy**. RKHS-SHAP §4
# argues that the Shapley regulariser should then act on *observational* Shapley values
# (**OSV-REG**): conditional expectations see through the correlation, so a small
# observational value of $X_5$ requires the model to stop using the information about
# $X_5$ wherever it sits. The interventional regulariser (**ISV-REG**) only forbids using
# the column $X_5$ itself, and the model can route the same information through $X_4$.
#
# **Design (the paper's).** The data of Exp. 3: $X\sim N(0,\Sigma)$, $d=5$, $\Sigma_{45}=0.9$,
# $y = x^\top(1,2,3,4,10)$, 3000 samples, 70/30 split, kernel ridge regression with a
# product RBF kernel (median heuristic, $\lambda$ by CV, held fixed). The paper shows the
# distributions of $\phi_4$ and $\phi_5$ as $\lambda_S$ grows (its Fig. 3), interventional values
# for ISV-REG and observational values for OSV-REG. **Claim:** OSV-REG shrinks both
# $\phi_5$ and $\phi_4$; ISV-REG shrinks $\phi_5$ but not $\phi_4$.
#
# **Here by default:** 1500 samples (1050 for training), values at the 450 test points;
# `paper = True` runs 3000. The paper does not state its $\lambda_S$ values for this figure;
# we sweep a log grid from $10^{-3}$ to $10^4$, wide enough for both regularisers, which act on
# very different scales.

# %% tags=["parameters"]
import kernelxai as kx

smoke = False            # tiny sizes for the test suite
paper = False            # the paper's setting: 3000 samples
seed = 0
results_path = "../build/results/13-fairness-osv-reg.json"
n_samples = kx.workbench.default(1500, smoke=300, paper=3000, minimum=10,
                                 doc="samples before the 70/30 split (paper: 3000)")
lam_grid = kx.workbench.default([0.0, 1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0, 1e3, 1e4],
                                smoke=[0.0, 1e-2, 1.0, 100.0, 1e4], minimum=0,
                                doc="lambda_S sweep: 0 first, then increasing values > 0")
eta = kx.workbench.default(1e-3, minimum=0, doc="CME regularisation (the paper's; must be > 0)")

# %%
params = kx.workbench.resolve_parameters(globals())
globals().update(params)
if len(lam_grid) < 2 or lam_grid[0] != 0 or any(a >= b for a, b in zip(lam_grid, lam_grid[1:])):
    raise ValueError("parameter lam_grid must start with 0 and then increase strictly (at least two values); "
                     f"got {lam_grid!r}")
if eta <= 0:
    raise ValueError(f"parameter eta must be a real number > 0; got {eta!r}")

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from IPython.display import display

from kernelxai import functionals as F
from kernelxai.datasets import rkhs_shap
from kernelxai.functionals import ShapleyRegularisedKernelRidge

names = ["x1", "x2", "x3", "x4", "x5"]
rng = np.random.default_rng(seed)
started = time.perf_counter()

# %%
X, y = rkhs_shap.correlated_gaussian(n_samples, seed=rng)
order = rng.permutation(n_samples)
n_train = int(round(0.7 * n_samples))
tr, te = order[:n_train], order[n_train:]
X_tr, X_te = pd.DataFrame(X[tr], columns=names), pd.DataFrame(X[te], columns=names)
print(f"n_train = {n_train}, explained (test) points = {len(te)}; corr(x4, x5) = "
      f"{np.corrcoef(X[:, 3], X[:, 4])[0, 1]:.3f}")

# %% [markdown]
# ## Fitting both regularisers along $\lambda_S$
#
# One path per regulariser. The Shapley values of every fitted model at the test points
# come from one representer matrix per value function: $\phi_i = R_i\alpha$, with $R_i$ built
# once for all five features (the representers depend on the training inputs, the
# background and $\eta$, not on $\alpha$). One fit per value function is checked against
# `kx.explain` to $10^{-10}$.

# %%
paths = {value: ShapleyRegularisedKernelRidge(features=["x5"], value=value, eta=eta).path(
    X_tr, y[tr], lam_grid) for value in ("interventional", "observational")}
lam_ridge = paths["interventional"][0].lam_
reps = {value: F.shapley_representers(paths[value][0], X_te, value,
                                      **({"eta": eta} if value == "observational" else {}))
        for value in paths}
for value in paths:
    spot = paths[value][len(lam_grid) // 2]
    e = kx.explain(spot, X_te.iloc[:30], value=value, method="exact",
                   **({"eta": eta} if value == "observational" else {}))
    err = np.abs(reps[value].values(spot.alpha_)[:30] - e.values).max()
    assert err < 1e-10, err
    print(f"{value}: representers vs kx.explain, max difference {err:.1e}")
print(f"ridge lam (CV of the plain fit): {lam_ridge:g}")

# every model explained with both value functions: phi[(trained with, explained with, lam_S)]
phi = {(tv, ev, lam_s): reps[ev].values(m.alpha_)
       for tv in paths for ev in paths for lam_s, m in zip(lam_grid, paths[tv])}
label = {"interventional": "ISV-REG", "observational": "OSV-REG"}

# %% [markdown]
# ## The paper's figure: distributions of $\phi_4$ and $\phi_5$
#
# Darker curves: stronger regularisation. As in the paper, ISV-REG models are explained
# with interventional values and OSV-REG models with observational ones.

# %% tags=["headline"]
fig, axes = plt.subplots(1, 4, figsize=(16, 3.8), sharey=False)
panels = [("interventional", 3), ("interventional", 4), ("observational", 3), ("observational", 4)]
for ax, (value, j) in zip(axes, panels):
    palette = sns.color_palette("Blues" if value == "interventional" else "RdPu", len(lam_grid))
    for colour, lam_s in zip(palette, lam_grid):
        values = phi[value, value, lam_s][:, j]
        if np.ptp(values) > 1e-9:
            sns.kdeplot(x=values, ax=ax, color=colour, lw=2, label=f"{lam_s:g}")
        else:
            ax.axvline(values.mean(), color=colour, lw=2, label=f"{lam_s:g}")
    kind = "I" if value == "interventional" else "O"
    ax.set(title=f"{label[value]}: $\\phi^{{({kind})}}_{j + 1}$", xlabel="Shapley value", xlim=(-30, 30))
axes[0].legend(title="$\\lambda_S$", fontsize=7)
fig.suptitle("RKHS-SHAP Exp. 4 — sensitive feature $X_5$, correlated proxy $X_4$", y=1.02)
fig.tight_layout();

# %% [markdown]
# ## The numbers
#
# Mean squared Shapley value at the test points, per feature, along the path.

# %%
rows = []
for tv in paths:
    for ev in paths:
        for lam_s in lam_grid:
            ms = np.mean(phi[tv, ev, lam_s] ** 2, axis=0)
            rows.append({"trained with": label[tv], "explained with": ev, "lam_S": lam_s,
                         **{f"mean phi{j + 1}^2": ms[j] for j in range(5)},
                         "train RMSE": float(np.sqrt(np.mean((paths[tv][lam_grid.index(lam_s)]
                                                             .predict(X_tr) - y[tr]) ** 2))),
                         "test RMSE": float(np.sqrt(np.mean((paths[tv][lam_grid.index(lam_s)]
                                                            .predict(X_te) - y[te]) ** 2)))})
table = pd.DataFrame(rows)
own = table[((table["trained with"] == "ISV-REG") & (table["explained with"] == "interventional"))
            | ((table["trained with"] == "OSV-REG") & (table["explained with"] == "observational"))]
display(own.round(3))

fig, axes = plt.subplots(1, 2, figsize=(12, 3.8), sharey=True)
lam_x = np.array(lam_grid, dtype=float)
lam_x[0] = lam_grid[1] / 10
for ax, reg in zip(axes, ("ISV-REG", "OSV-REG")):
    sub = own[own["trained with"] == reg]
    for j, c in zip(range(5), ("0.7", "0.55", "0.4", "tab:orange", "tab:purple")):
        ax.loglog(lam_x, sub[f"mean phi{j + 1}^2"], "o-", c=c, label=f"$\\phi_{j + 1}$")
    ax.set(title=f"{reg} (own value function)", xlabel="$\\lambda_S$ (leftmost point: 0)")
    ax.legend(fontsize=8)
axes[0].set_ylabel("mean $\\phi^2$ at test points");

# %%
def series(reg, ev, j):
    sub = table[(table["trained with"] == reg) & (table["explained with"] == ev)].sort_values("lam_S")
    return sub[f"mean phi{j}^2"].to_numpy()


isv5, isv4 = series("ISV-REG", "interventional", 5), series("ISV-REG", "interventional", 4)
osv5, osv4 = series("OSV-REG", "observational", 5), series("OSV-REG", "observational", 4)


def at_equal_suppression(phi5, phi4):
    """The first lam_S removing >= 90% of mean phi5^2, and phi4^2 there relative to lam_S = 0."""
    k = int(np.argmax(phi5 <= 0.1 * phi5[0])) if np.any(phi5 <= 0.1 * phi5[0]) else len(phi5) - 1
    return {"lam_S": lam_grid[k], "phi5_ratio": float(phi5[k] / phi5[0]),
            "phi4_ratio": float(phi4[k] / phi4[0])}


equal = {"ISV-REG": at_equal_suppression(isv5, isv4), "OSV-REG": at_equal_suppression(osv5, osv4)}
claim = {
    "osv_shrinks_phi5": bool(osv5[-1] < 0.1 * osv5[0]),
    "osv_shrinks_phi4": bool(equal["OSV-REG"]["phi4_ratio"] < 1 and osv4[-1] < 0.1 * osv4[0]),
    "isv_shrinks_phi5": bool(isv5[-1] < 0.1 * isv5[0]),
    "isv_phi4_grows": bool(equal["ISV-REG"]["phi4_ratio"] > 1),
    "isv_phi4_above_at_every_lam": bool(np.all(isv4[1:] > isv4[0])),
    "at_90pct_suppression_of_phi5": equal,
    "isv_phi4_max_ratio": float(isv4.max() / isv4[0]),
    "isv_phi4_ratio_at_max_lam": float(isv4[-1] / isv4[0]),
    "osv_phi4_ratio_at_max_lam": float(osv4[-1] / osv4[0]),
}
claim

# %% [markdown]
# ## Reading the result
#
# The claim cell above is computed from this run. To compare the two regularisers fairly it
# looks at each one at the first $\lambda_S$ where it has removed at least 90% of mean $\phi_5^2$,
# and asks what happened to the proxy there. In the default run (1500 samples) **both parts
# of the paper's claim hold**, and clearly:
#
# * **OSV-REG** shrinks the observational value of the sensitive feature (mean $\phi_5^2$ from
#   61 to 0.03 over the sweep) *and* of its proxy ($\phi_4^2$ from 42 to 0.2).
# * **ISV-REG** shrinks the interventional $\phi_5^2$ just as well (70 to 0.1), but the
#   model reroutes through the proxy: $\phi_4^2$ grows from 24 to about 160 at
#   $\lambda_S = 0.1$–$1$ and is still five times its unregularised size at $\lambda_S = 10^4$.
#   (With few training points — the smoke run has 210 — the far end of the sweep degrades the
#   whole fit and $\phi_4$ shrinks there too; at equal suppression of $\phi_5$ it has grown.)
#   Explained observationally, the ISV-REG models still carry much of $X_5$'s information
#   ($\phi^{(O)}_5{}^2$ only falls from 61 to 26, table "ISV-REG | observational" in the
#   results) — removing a column is not removing its information.
#
# Two things the paper's figure does not show:
#
# * **Scales.** ISV-REG acts from $\lambda_S \approx 10^{-3}$; OSV-REG needs $\lambda_S$ around
#   1–100. A grid like the paper's Exp. 3 grid (0 to 2.5) shows most of ISV-REG's effect
#   but only the start of OSV-REG's.
# * **The price.** The test RMSE of OSV-REG ends near the standard deviation of $y$ (14.3):
#   at full strength it removes $X_4$, $X_5$ and — through the error of the empirical
#   conditional mean embeddings, which conditions on more variables in $v(S \cup 5)$ than in
#   $v(S)$ — some of the independent features' contribution too. On the way, around
#   $\lambda_S = 1$–$10$, the fits are erratic: test RMSE 16–18 against a training RMSE of
#   3–9 (the same overfitting as in notebook 12, with the nearly interpolating ridge chosen
#   by CV). Fairness is bought with accuracy here, as it must be when the sensitive
#   attribute and its proxy carry most of the signal ($\beta_5 = 10$).

# %% [markdown]
# ## Explore
#
# The slider picks $\lambda_S$; the four panels show the Shapley values of the proxy and the
# sensitive feature at the test points, against the feature value, for both regularisers.

# %%
def render(lam_s, _value):
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), sharey=True)
    for ax, value in zip(axes, paths):
        p = phi[value, value, lam_s]
        ax.scatter(X_te["x5"], p[:, 4], s=6, c="tab:purple", label="$\\phi_5$ vs $x_5$")
        ax.scatter(X_te["x4"], p[:, 3], s=6, c="tab:orange", alpha=0.6, label="$\\phi_4$ vs $x_4$")
        ax.set(title=f"{label[value]}, $\\lambda_S$ = {lam_s:g}", xlabel="feature value")
        ax.legend(fontsize=8)
    axes[0].set_ylabel("Shapley value")


kx.widgets.ParameterExplorer(lambda v: v, render, "lambda_S", lam_grid, value=lam_grid[len(lam_grid) // 2])

# %%
results = {
    "n_samples": n_samples, "lam_grid": lam_grid, "ridge_lam": lam_ridge, "eta": eta,
    "mean_phi_sq": {f"{label[tv]}|{ev}": {f"phi{j}": series(label[tv], ev, j).tolist() for j in range(1, 6)}
                    for tv in paths for ev in paths},
    "test_rmse": {label[tv]: own[own["trained with"] == label[tv]]["test RMSE"].tolist() for tv in paths},
    "train_rmse": {label[tv]: own[own["trained with"] == label[tv]]["train RMSE"].tolist() for tv in paths},
    "sd_y": float(np.std(y)),
    "claim": claim,
    "seconds": time.perf_counter() - started,
}
eq = claim["at_90pct_suppression_of_phi5"]
summary = (f"90% of phi5^2 removed: ISV-REG (lam_S={eq['ISV-REG']['lam_S']:g}) phi4^2 "
           f"x{eq['ISV-REG']['phi4_ratio']:.2f}, OSV-REG (lam_S={eq['OSV-REG']['lam_S']:g}) phi4^2 "
           f"x{eq['OSV-REG']['phi4_ratio']:.2f}; claim holds: "
           f"{claim['osv_shrinks_phi4'] and claim['isv_phi4_grows']} (n={n_samples})")
kx.workbench.save_results(results_path, results, summary=summary, parameters=params)
print(summary)
