# %% [markdown]
# # 02 · RKHS-SHAP: Shapley values of kernel models from mean embeddings
#
# A Shapley explanation needs a *value function*: the worth $v_x(S)$ of a coalition
# $S$ of features at a point $x$, that is, what the model predicts when only the
# features in $S$ are known. Two answers are standard:
#
# * **interventional** — set the known features, draw the unknown ones from their
#   *marginal* distribution: $v_x(S) = \mathbb E\,[f(x_S, X_{S^c})]$;
# * **observational** — condition on the known features:
#   $v_x(S) = \mathbb E\,[f(X) \mid X_S = x_S]$.
#
# For a kernel model $f(x) = \sum_i \alpha_i k(x, x_i) + b$ with a *product* kernel
# $k = \prod_j k_j$, RKHS-SHAP (Chau et al., NeurIPS 2022, Prop. 3) computes both
# without a single model call on synthetic points. The interventional worth needs the
# kernel mean embedding of the absent features,
#
# $$v^{I}_x(S) = \sum_i \alpha_i\, K_S(x, x_i)\,\mu_{S^c}(x_i), \qquad \mu_{S^c}(x_i) = \frac1m \sum_b K_{S^c}(b, x_i),$$
#
# and the observational worth a *conditional* mean embedding, a kernel ridge regression
# from the present to the absent features with regularisation $m\eta$:
#
# $$v^{O}_x(S) = \alpha^\top\big[K_S(X, x) \odot K_{S^c}(X, B)\,(K_S(B,B) + m\eta I)^{-1} K_S(B, x)\big].$$
#
# (Both plus the intercept $b$.) This notebook fits a kernel ridge regression, checks
# that the interventional values are *exactly* the model-agnostic ones (what shap's
# KernelExplainer computes), contrasts them with observational values on correlated
# features, and shows how $\eta$, the background sample and sampled coalitions change
# the answer.

# %% tags=["parameters"]
import kernelxai as kx

smoke = False            # tiny sizes for the test suite
paper = False            # no paper experiment here; see notebooks 10, 11 and 14
seed = 0
results_path = "../build/results/02-rkhs-shap.json"
# training points (also the background and the CME sample)
n_train = kx.workbench.default(600, smoke=200, minimum=20)
# points to explain
n_explain = kx.workbench.default(100, smoke=30, minimum=1)
# CME regularisation grid
etas = kx.workbench.default([1e-4, 1e-3, 1e-2, 1e-1, 1.0], smoke=[1e-3, 1e-1], minimum=0)
# sampled coalitions; d = 5 has 30 inner ones
budgets = kx.workbench.default([12, 16, 20, 26], smoke=[12, 20, 26], minimum=1)
# repeats per budget
n_repeats = kx.workbench.default(10, smoke=4, minimum=1)
# points on which the model-call route is run (it is slow)
n_check = kx.workbench.default(20, smoke=10, minimum=1)

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from kernelxai.datasets import rkhs_shap

params = kx.workbench.resolve_parameters(globals())   # validated; smoke/paper fill only unset sizes
globals().update(params)
rng = np.random.default_rng(seed)
results = {}

# %% [markdown]
# ## Data and model
#
# Five Gaussian features with unit variance; $X_4$ and $X_5$ are correlated
# ($\rho = 0.9$), the others independent, and $y = x^\top\beta$ with
# $\beta = (1, 2, 3, 4, 10)$ plus a little noise — the design of RKHS-SHAP's
# experiments 3 and 4. The model is kernelxai's `KernelRidge`: a product RBF kernel with
# per-feature median-heuristic lengthscales and the ridge parameter chosen by exact
# leave-one-out cross-validation.

# %%
names = ["X1", "X2", "X3", "X4", "X5"]
beta = np.array([1.0, 2.0, 3.0, 4.0, 10.0])
X_all, y_all = rkhs_shap.correlated_gaussian(n_train + n_explain, noise=0.1, seed=rng)
X_train = pd.DataFrame(X_all[:n_train], columns=names)
X_explain = pd.DataFrame(X_all[n_train:], columns=names)
y_train, y_explain = y_all[:n_train], y_all[n_train:]

model = kx.models.KernelRidge().fit(X_train, y_train)
r2_test = model.score(X_explain, y_explain)
print(f"lengthscales {np.round(model.kernel_.lengthscale, 3)}, lambda = {model.lam_:.1e}, "
      f"test R^2 = {r2_test:.4f}")
results["model"] = {"lam": model.lam_, "test_r2": r2_test}

# %% [markdown]
# ## Interventional values: mean embeddings = model calls
#
# `kx.explain` converts the model to a kernel expansion and builds the interventional
# game with the training inputs as background. With only five features it tabulates all
# $2^5$ coalitions through the mean embeddings (`method="auto"` picks this route here
# because it is cheaper than the polynomial-time `"product"` route; both are exact).
# The same game evaluated the model-agnostic way — averaging $f(x_S, b_{S^c})$ over
# the $m$ background rows, i.e. $m$ model calls per coalition and point, as KernelSHAP
# does — must give the same numbers to rounding. The model-call route is slow, so it is
# run on the first `n_check` points only.

# %%
t0 = time.perf_counter()
isv = kx.explain(model, X_explain, value="interventional")
t_kme = time.perf_counter() - t0
t0 = time.perf_counter()
marginal = kx.explain(model, X_explain.iloc[:n_check], value="marginal", method="exact")
t_calls = time.perf_counter() - t0
isv_product = kx.explain(model, X_explain, value="interventional", method="product")

kme_vs_calls = np.abs(isv.values[:n_check] - marginal.values).max()
product_vs_exact = np.abs(isv.values - isv_product.values).max()
efficiency_isv = np.abs(isv.values.sum(1) + isv.base_values - model.predict(X_explain)).max()
print(f"method chosen by auto: {isv.meta['method']}")
print(f"max |KME - model calls| = {kme_vs_calls:.1e}   (KME {t_kme:.2f} s for {n_explain} points, "
      f"model calls {t_calls:.2f} s for {n_check})")
print(f"max |product route - enumeration| = {product_vs_exact:.1e}")
print(f"efficiency: max |sum phi + base - f(x)| = {efficiency_isv:.1e}")
results["interventional"] = {"kme_vs_model_calls": kme_vs_calls, "product_vs_exact": product_vs_exact,
                             "efficiency": efficiency_isv, "seconds_kme": t_kme,
                             "seconds_model_calls": t_calls, "auto_method": isv.meta["method"]}

# %% [markdown]
# For a linear target the interventional Shapley value has a closed form,
# $\phi_j = \beta_j (x_j - \bar x_j)$ with $\bar x_j$ the background mean. The kernel
# model only approximates the linear function, so the attributions of the fitted model
# should be close to, not equal to, these:

# %%
linear_isv = beta * (X_explain.values - X_train.values.mean(0))
r2_isv = 1 - ((isv.values - linear_isv) ** 2).sum(0) / ((linear_isv - linear_isv.mean(0)) ** 2).sum(0)
print("R^2 of RKHS-ISV against beta_j (x_j - mean):", dict(zip(names, np.round(r2_isv, 4))))
results["interventional"]["r2_vs_linear"] = r2_isv
kx.plots.beeswarm(isv, title="Interventional RKHS-SHAP values");

# %% [markdown]
# ## Observational values: the conditional mean embedding
#
# Observational values condition on the present features. Because $X_4$ and $X_5$ are
# strongly correlated, knowing $X_4$ already says much about $X_5$ (whose coefficient is
# the largest), so the observational game moves credit from $X_5$ to its proxy $X_4$.
# The worths of the empty and the full coalition are set to the mean prediction over the
# background and to $f(x)$, as in the reference implementation, so the values are
# exactly efficient.
#
# As a reference we use the observational values of the *true* linear function under the
# *true* Gaussian distribution, estimated by kernelxai's `GaussianConditional` value
# function (Monte Carlo from the conditional Gaussians, 4000 draws). The fitted model is
# not the true function, so agreement is approximate by nature.

# %%
eta = 1e-3
t0 = time.perf_counter()
osv = kx.explain(model, X_explain, value="observational", eta=eta)
t_osv = time.perf_counter() - t0
efficiency_osv = np.abs(osv.values.sum(1) + osv.base_values - model.predict(X_explain)).max()
reference = kx.shapley_values(
    kx.values.GaussianConditional(lambda Z: Z @ beta, X_train, n_samples=4000, sample_seed=1)
    .game(X_explain))

def r2(est, ref, axis=0):
    """R^2 of estimates against a reference: per feature (axis=0) or pooled over all values (None)."""
    return 1 - ((est - ref) ** 2).sum(axis) / ((ref - ref.mean(axis)) ** 2).sum(axis)

r2_osv = r2(osv.values, reference.values)
r2_isv_as_osv = r2(isv.values, reference.values)
pooled = {"RKHS-OSV": r2(osv.values, reference.values, None),
          "RKHS-ISV": r2(isv.values, reference.values, None)}
print(f"observational values in {t_osv:.2f} s; efficiency error {efficiency_osv:.1e}")
print("pooled R^2 against the observational reference:", {k: round(v, 3) for k, v in pooled.items()})
pd.DataFrame({"R2 RKHS-OSV vs Gaussian reference": r2_osv,
              "R2 RKHS-ISV vs the same reference": r2_isv_as_osv,
              "spread of the reference (sd)": reference.values.std(0)}, index=names).round(3)

# %% [markdown]
# Pooled over all attributions, the observational values of the fitted model are much
# closer to the observational reference than the interventional ones. Per feature, the
# $R^2$ of $X_1$ (coefficient 1, the smallest spread) is poor for both: there the
# reference varies little and the fitted model's own deviations from the linear truth
# dominate — an error of the model, not of the value function.

# %%
results["observational"] = {"efficiency": efficiency_osv, "eta": eta, "r2_vs_reference": r2_osv,
                            "r2_isv_vs_reference": r2_isv_as_osv, "pooled_r2": pooled["RKHS-OSV"],
                            "pooled_r2_isv": pooled["RKHS-ISV"], "seconds": t_osv}

# %% tags=["headline"]
fig, axes = plt.subplots(1, 2, figsize=(10, 4))
for ax, j in zip(axes, (3, 4)):
    ax.scatter(X_explain.iloc[:, j], isv.values[:, j], s=12, label="interventional (RKHS-ISV)")
    ax.scatter(X_explain.iloc[:, j], osv.values[:, j], s=12, label="observational (RKHS-OSV)")
    ax.scatter(X_explain.iloc[:, j], reference.values[:, j], s=8, marker="x", color="k",
               alpha=0.5, label="observational reference")
    ax.set_xlabel(names[j]); ax.set_ylabel(f"phi of {names[j]}")
axes[0].legend(fontsize=8)
fig.suptitle("Correlated features: observational values share the credit of X5 with X4")
plt.tight_layout()

# %% [markdown]
# ## How η changes the observational values
#
# $\eta$ regularises the conditional mean embedding. A very large $\eta$ shrinks the
# regression towards zero, so $v(S)$ collapses towards the intercept; a very small one
# overfits the conditional expectation. Between them there is a broad plateau.

# %%
eta_rows = []
eta_cache = {}
for e in etas:
    ex = kx.explain(model, X_explain, value="observational", eta=e)
    eta_cache[e] = ex
    eta_rows.append({"eta": e, "pooled R2 vs reference": r2(ex.values, reference.values, None),
                     "mean |phi_X4|": np.abs(ex.values[:, 3]).mean(),
                     "mean |phi_X5|": np.abs(ex.values[:, 4]).mean()})
eta_table = pd.DataFrame(eta_rows).set_index("eta")
ax = eta_table[["mean |phi_X4|", "mean |phi_X5|"]].plot(logx=True, marker="o", figsize=(6, 3.5))
ax.set_title("Observational values across eta"); plt.show()
eta_table.round(4)

# %%
results["eta_study"] = {"etas": etas, "pooled_r2": eta_table["pooled R2 vs reference"].values,
                        "mean_abs_phi4": eta_table["mean |phi_X4|"].values,
                        "mean_abs_phi5": eta_table["mean |phi_X5|"].values}

# %% [markdown]
# ## How the background changes the interventional values
#
# The interventional values explain $f(x)$ relative to the mean prediction over the
# background: a different background changes the base value and the attributions, but
# not their sum $f(x)$. Below: the full training sample, random subsamples of 50 and 10
# rows, and a background of only the rows with $X_5 > 1$ (a "reference population" of
# high $X_5$), against which an average point's $X_5$ looks low.

# %%
backgrounds = {
    "full training set": X_train,
    "random 50": X_train.sample(50, random_state=seed),
    "random 10": X_train.sample(10, random_state=seed),
    "rows with X5 > 1": X_train[X_train["X5"] > 1],
}
bg_rows = []
bg_expl = {}
for label, bg in backgrounds.items():
    ex = kx.explain(model, X_explain, value="interventional", background=bg)
    bg_expl[label] = ex
    eff = np.abs(ex.values.sum(1) + ex.base_values - model.predict(X_explain)).max()
    bg_rows.append({"background": label, "rows": len(bg), "base value": ex.base_values[0],
                    "mean phi_X5": ex.values[:, 4].mean(), "max efficiency error": eff})
bg_table = pd.DataFrame(bg_rows).set_index("background")
bg_table.round(4)

# %%
results["background_study"] = {"labels": list(backgrounds), "base_values": bg_table["base value"].values,
                               "mean_phi5": bg_table["mean phi_X5"].values,
                               "max_efficiency_error": bg_table["max efficiency error"].max()}

# %% [markdown]
# ## Exact enumeration versus sampled coalitions
#
# With $d = 5$ all 32 coalitions are cheap; with many features they are not, and
# KernelSHAP samples coalitions from the Shapley kernel (paired with their complements)
# and solves a constrained weighted least-squares problem instead. Here the sampled
# estimates of the observational values are compared with exact enumeration; the error
# falls as the budget approaches all 30 inner coalitions (where the regression is exact).
# Permutation sampling with a comparable number of game evaluations is shown beside it.
# At small budgets a draw can repeat coalitions so often that the five values are not
# identified; kernelxai then refuses to answer (a `ValueError`) rather than return an
# arbitrary solution, and the table counts those draws.

# %%
game = kx.values.Observational(model, eta=eta).game(X_explain)
exact = kx.shapley_values(game, method="exact").values
sample_rows = []
for budget in budgets:
    for rep in range(n_repeats):
        s = int(rng.integers(2**31))
        try:
            ks = np.abs(kx.shapley_values(game, method="kernel", n_coalitions=budget, seed=s).values
                        - exact).max()
        except ValueError:  # the sampled coalitions do not identify all five values
            ks = np.nan
        ps = kx.shapley_values(game, method="permutation", n_permutations=max(2, budget // 4), seed=s).values
        sample_rows.append({"coalitions": budget, "KernelSHAP": ks, "permutation": np.abs(ps - exact).max(),
                            "unidentified draws": float(np.isnan(ks))})
sampling = pd.DataFrame(sample_rows).groupby("coalitions").mean()
ax = sampling[["KernelSHAP", "permutation"]].plot(marker="o", logy=True, figsize=(6, 3.5))
ax.set_ylabel("max |estimate - exact|"); ax.set_title("Sampled coalitions, observational game"); plt.show()
sampling

# %%
results["sampling"] = {"budgets": budgets, "kernel_error": sampling["KernelSHAP"].values,
                       "permutation_error": sampling["permutation"].values,
                       "unidentified_fraction": sampling["unidentified draws"].values}

# %% [markdown]
# ## Explore
#
# Pick a point and a value function; the waterfall shows how that point's prediction is
# built up from the base value. The explanations are the ones computed above (cached),
# so moving the controls only redraws.

# %%
import ipywidgets as widgets

cached = {"interventional": isv, "observational": osv}

def draw(point, value_function):
    fig, ax = plt.subplots(figsize=(6, 3.5))
    kx.plots.waterfall(cached[value_function][point], ax=ax,
                       title=f"{value_function} values, point {point}")
    fig.tight_layout()

kx.widgets.interact(draw,
                    point=widgets.IntSlider(value=0, min=0, max=len(X_explain) - 1, continuous_update=False),
                    value_function=widgets.ToggleButtons(options=list(cached)))

# %%
summary = (f"ISV: KME = model calls to {kme_vs_calls:.1e}, product = exact to {product_vs_exact:.1e}; "
           f"efficiency ISV {efficiency_isv:.1e}, OSV {efficiency_osv:.1e}; "
           f"pooled R^2 vs the observational reference: OSV {pooled['RKHS-OSV']:.3f}, "
           f"ISV {pooled['RKHS-ISV']:.3f}")
kx.workbench.save_results(results_path, results, summary=summary, parameters=params)
print(summary)
