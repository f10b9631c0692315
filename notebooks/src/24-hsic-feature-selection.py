# %% [markdown]
# # 24 · Feature selection by attributing HSIC
#
# PKeX-Shapley §5.3. HSIC measures how strongly the target depends on the features;
# its Shapley values (notebook 05) split that dependence over the features, so they can
# rank features for selection. The paper keeps the top 20 % of features by each ranking,
# trains a Gaussian process on them and reports five-fold cross-validated accuracy
# (classification) or mean absolute percentage error (MAPE, regression), comparing the
# HSIC-Shapley ranking with mutual information, the Lasso, univariate K-best scores and
# tree-ensemble permutation importance (and HSIC-Lasso, which is not installed here).
#
# Kernels for HSIC, as in the paper: an RBF kernel on the (standardised) features and on a
# continuous target, with median-heuristic bandwidths, and the delta kernel on class
# labels.
#
# **Data.** Only scikit-learn's bundled sets load offline: breast cancer (the paper's
# "Wisconsin", classification), diabetes (regression) and wine (classification; not in
# the paper). The paper's other sets (sonar, ionosphere, and the regression sets breast
# cancer, skillcraft, sml, parkinson) are tried through the loader and reported as
# unavailable when they cannot be fetched — never replaced by something else.
#
# **Protocol details chosen here.** Rankings are computed inside each training fold
# (ranking on all the data first would leak the test folds into the selection). The GP
# is the paper's (App. H.1): a constant times an isotropic RBF kernel,
# $C(1, [10^{-4}, 10]) \cdot {\rm RBF}(1, [10^{-4}, 10])$, with hyperparameters fitted by
# maximum likelihood. For regression that kernel has no noise term and the target is not
# centred, so the GP interpolates the training targets and falls back to 0 away from
# them — MAPE near 1, which matches several 1.000 entries of the paper's table. The
# default run therefore adds a white-noise term and standardises the target
# (`gp_noise = True`); `paper = True` restores the literal kernel.

# %% tags=["parameters"]
import kernelxai as kx
from kernelxai.datasets import pkex

smoke = False            # tiny sizes for the test suite
paper = False            # literal GP kernel of App. H.1 for regression, every data set tried
seed = 0
results_path = "../build/results/24-hsic-feature-selection.json"
datasets = kx.workbench.default(["breast_cancer", "diabetes", "wine"], smoke=["wine", "diabetes"],
                                choices=list(pkex.SELECTION_DATASETS), doc="data sets that load offline")
unavailable_tried = kx.workbench.default(["sonar", "ionosphere", "breast_cancer_regression", "skillcraft", "sml",
                                          "parkinson"], smoke=["skillcraft"], choices=list(pkex.SELECTION_DATASETS),
                                         doc="data sets of the paper tried as well (reported if unavailable)")
n_folds = kx.workbench.default(5, smoke=3, minimum=2, doc="cross-validation folds")
fraction = kx.workbench.default(0.2, minimum=0, maximum=1, doc="share of features kept, in (0, 1]")
gp_noise = kx.workbench.default(True, paper=False, doc="white-noise term and standardised target for GP regression")
n_jobs = kx.workbench.default(2, minimum=-1, doc="folds evaluated in parallel (-1: all cores; not 0)")

# %%
params = kx.workbench.resolve_parameters(globals())
globals().update(params)
if fraction <= 0:
    raise ValueError(f"parameter fraction must be a real number in (0, 1]; got {fraction!r}")
if n_jobs == 0:
    raise ValueError(f"parameter n_jobs must be a positive integer or -1 (all cores); got {n_jobs!r}")

# %%
import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from joblib import Parallel, delayed
import sklearn
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import SelectKBest, f_classif, f_regression, mutual_info_classif, mutual_info_regression
from sklearn.gaussian_process import GaussianProcessClassifier, GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
from sklearn.inspection import permutation_importance
from sklearn.linear_model import LassoCV, LogisticRegressionCV
from sklearn.metrics import accuracy_score, mean_absolute_percentage_error
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.preprocessing import StandardScaler

# scikit-learn 1.8 spells the L1 penalty l1_ratios=(1,) instead of penalty="l1", and 1.9
# adds use_legacy_attributes; ask for the new spelling only where it exists
_logistic_params = LogisticRegressionCV().get_params()
L1_PENALTY = {"l1_ratios": (1.0,)} if tuple(map(int, sklearn.__version__.split(".")[:2])) >= (1, 8) else {"penalty": "l1"}
if "use_legacy_attributes" in _logistic_params:
    L1_PENALTY["use_legacy_attributes"] = False

rng = np.random.default_rng(seed)
results = {"n_folds": n_folds, "fraction": fraction, "gp_noise": gp_noise}

# %% [markdown]
# ## The data sets

# %%
loaded, unavailable = {}, {}
for name in datasets + unavailable_tried:
    try:
        loaded[name] = pkex.load_selection_data(name)
    except pkex.DatasetUnavailable as exc:
        unavailable[name] = str(exc)
overview = pd.DataFrame([{"data set": n, "n": X.shape[0], "d": X.shape[1], "task": task,
                          "kept features": max(1, int(np.ceil(fraction * X.shape[1])))}
                         for n, (X, y, task) in loaded.items()]).set_index("data set")
for name, why in unavailable.items():
    print(f"unavailable: {why}")
results["unavailable"] = sorted(unavailable)
overview

# %% [markdown]
# ## Rankings
#
# Each ranking sees only the standardised training fold. PKeX-Shapley ranks by the
# HSIC Shapley values (largest first; negative values mean a feature weakens the
# dependence the others carry).

# %%
def rank_pkex(X, y, task):
    e = kx.explain_hsic(X, y.astype(int) if task == "classification" else y.astype(float), n_permutations=0)
    return e.values


def rank_mi(X, y, task):
    f = mutual_info_classif if task == "classification" else mutual_info_regression
    return f(X, y, random_state=seed)


def rank_lasso(X, y, task):
    if task == "classification":
        model = LogisticRegressionCV(Cs=10, cv=3, solver="saga", max_iter=5000, scoring="accuracy",
                                     random_state=seed, **L1_PENALTY)   # saga shuffles: seeded
        return np.abs(model.fit(X, y).coef_).sum(axis=0)
    return np.abs(LassoCV(cv=3, random_state=seed).fit(X, y).coef_)


def rank_kbest(X, y, task):
    return SelectKBest(f_classif if task == "classification" else f_regression, k="all").fit(X, y).scores_


def rank_trees(X, y, task):
    forest = (RandomForestClassifier if task == "classification" else RandomForestRegressor)(
        n_estimators=100, random_state=seed).fit(X, y)
    return permutation_importance(forest, X, y, n_repeats=3, random_state=seed).importances_mean


RANKERS = {"PKeX-Shapley (HSIC)": rank_pkex, "mutual information": rank_mi, "Lasso": rank_lasso,
           "K-best (F-test)": rank_kbest, "tree ensemble (permutation)": rank_trees}

# %% [markdown]
# ## The Gaussian process on the kept features

# %%
def gp(task):
    kernel = ConstantKernel(1.0, (1e-4, 1e1)) * RBF(1.0, (1e-4, 10.0))
    if task == "classification":
        return GaussianProcessClassifier(kernel, random_state=seed)
    if gp_noise:
        return GaussianProcessRegressor(kernel + WhiteKernel(1.0, (1e-5, 1e1)), normalize_y=True, random_state=seed)
    return GaussianProcessRegressor(kernel, random_state=seed)


def one_fold(X, y, task, train, test, k):
    scaler = StandardScaler().fit(X[train])
    Xtr, Xte = scaler.transform(X[train]), scaler.transform(X[test])
    out, fits = {}, {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for method, ranker in RANKERS.items():
            start = time.perf_counter()
            keep = tuple(sorted(np.argsort(-ranker(Xtr, y[train], task), kind="stable")[:k]))
            seconds = time.perf_counter() - start
            if keep not in fits:   # methods that keep the same features share one GP fit
                model = gp(task).fit(Xtr[:, keep], y[train])
                pred = model.predict(Xte[:, keep])
                fits[keep] = accuracy_score(y[test], pred) if task == "classification" \
                    else mean_absolute_percentage_error(y[test], pred)
            out[method] = {"score": fits[keep], "features": keep, "seconds": seconds}
    return out


def evaluate(name):
    X, y, task = loaded[name]
    X, y = X.to_numpy(float), y.to_numpy()
    k = max(1, int(np.ceil(fraction * X.shape[1])))
    splitter = (StratifiedKFold if task == "classification" else KFold)(n_folds, shuffle=True, random_state=seed)
    folds = Parallel(n_jobs=n_jobs)(delayed(one_fold)(X, y, task, tr, te, k) for tr, te in splitter.split(X, y))
    return folds


start = time.perf_counter()
fold_results = {name: evaluate(name) for name in loaded}
print(f"{time.perf_counter() - start:.0f} s for {len(loaded)} data sets x {n_folds} folds")

# %% [markdown]
# ## The table
#
# Mean ± standard deviation over the folds: accuracy (higher is better) for
# classification, MAPE (lower is better) for regression.

# %%
rows, raw = [], {}
for name, folds in fold_results.items():
    task = loaded[name][2]
    for method in RANKERS:
        scores = np.array([f[method]["score"] for f in folds])
        raw.setdefault(name, {})[method] = scores
        rows.append({"method": method, "data set": f"{name} ({'accuracy' if task == 'classification' else 'MAPE'})",
                     "cell": f"{scores.mean():.3f} ± {scores.std(ddof=1):.3f}"})
table = pd.DataFrame(rows).pivot(index="method", columns="data set", values="cell").loc[list(RANKERS)]
results["scores"] = {name: {m: {"mean": s.mean(), "sd": s.std(ddof=1), "folds": s} for m, s in d.items()}
                     for name, d in raw.items()}
table

# %% tags=["headline"]
fig, axes = plt.subplots(1, len(raw), figsize=(4.2 * len(raw), 3.6))
for ax, (name, scores) in zip(np.atleast_1d(axes), raw.items()):
    means = [s.mean() for s in scores.values()]
    sds = [s.std(ddof=1) for s in scores.values()]
    colours = ["#d6604d" if m.startswith("PKeX") else "#7f7f7f" for m in scores]
    ax.barh(range(len(scores)), means, xerr=sds, color=colours, capsize=3)
    ax.set_yticks(range(len(scores)), list(scores) if ax is np.atleast_1d(axes)[0] else [""] * len(scores))
    task = loaded[name][2]
    ax.set_xlabel("accuracy (higher is better)" if task == "classification" else "MAPE (lower is better)")
    ax.set_title(f"{name}: GP on top {int(fraction * 100)}% features")
plt.tight_layout();

# %% [markdown]
# ## Does the paper's claim hold?
#
# The paper reports that the HSIC-Shapley ranking is competitive with every other
# ranking and best on the Wisconsin data. Below, the rank of PKeX-Shapley among the five
# rankings on each data set here (1 = best mean), and the features it kept in most folds.

# %%
standing = {}
for name, scores in raw.items():
    task = loaded[name][2]
    means = pd.Series({m: s.mean() for m, s in scores.items()})
    order = means.rank(ascending=(task == "regression"), method="min")
    kept = pd.Series([loaded[name][0].columns[j] for f in fold_results[name]
                      for j in f["PKeX-Shapley (HSIC)"]["features"]]).value_counts()
    standing[name] = {"rank_of_pkex": int(order["PKeX-Shapley (HSIC)"]),
                      "pkex_minus_best": float(means["PKeX-Shapley (HSIC)"] - (means.max() if task == "classification" else means.min())),
                      "kept_most_often": list(kept.index[:max(1, int(np.ceil(fraction * loaded[name][0].shape[1])))])}
results["standing"] = standing
pd.DataFrame(standing).T

# %% [markdown]
# On these data sets the selections of the methods overlap a great deal (the same
# strongest features come first), and the differences between rankings are mostly
# within one standard deviation across folds. The paper's statement that PKeX-Shapley
# beats HSIC-Lasso could not be checked here (HSIC-Lasso is not installed), and its
# results on the sets that cannot be loaded offline are not reproduced.
#
# ## Explore the folds

# %%
import ipywidgets as widgets


def show(data_set=list(raw)[0]):
    folds = fold_results[data_set]
    frame = pd.DataFrame({m: [", ".join(str(loaded[data_set][0].columns[j]) for j in f[m]["features"])
                              for f in folds] for m in RANKERS}, index=[f"fold {i}" for i in range(len(folds))]).T
    return frame


kx.widgets.interact(show, data_set=list(raw))

# %%
summary = "; ".join(f"{name}: PKeX rank {s['rank_of_pkex']}/5 ({'acc' if loaded[name][2] == 'classification' else 'MAPE'} "
                    f"{raw[name]['PKeX-Shapley (HSIC)'].mean():.3f})" for name, s in standing.items())
summary += f"; unavailable offline: {', '.join(sorted(unavailable)) or 'none'}"
kx.workbench.save_results(results_path, results, summary=summary, parameters=params)
print(summary)
