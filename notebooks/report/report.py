# %% [markdown]
# # Why does this model predict what it predicts?
#
# This report explains a fitted model's predictions with Shapley values: for every explained
# row, how much each feature moved the prediction away from the average prediction over a
# reference set of rows (the *background*). Where the model is a kernel expansion, kernelxai
# computes the values exactly; otherwise it says why it had to call the model. It was written by
# `python -m kernelxai.report` (or `kx.report(...)` in Python); every number shown is also in the
# JSON file next to it.

# %% tags=["parameters"]
import kernelxai as kx

inputs_path = None       # the folder kx.report wrote (None: a demo model on scikit-learn's diabetes data)
inputs_key = None        # the key that folder is signed with
results_path = None      # where the numbers go as JSON (None: nowhere)
seed = 0
# features shown with a dependence plot
n_dependence = kx.workbench.default(4, minimum=0)
# bootstrap resamples of the explained rows for the importance intervals
n_bootstrap = kx.workbench.default(200, minimum=10)
# rows whose pairwise interactions are computed
n_interaction_rows = kx.workbench.default(20, minimum=1)
# rows with Gaussian-process credible bands
n_gp_rows = kx.workbench.default(10, minimum=1)
# a section whose estimated cost is above this many seconds is skipped, and says so
section_seconds = kx.workbench.default(20.0, minimum=0.0)

# %%
import platform
import sys
import time
import warnings
from importlib import metadata

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

params = kx.workbench.resolve_parameters(globals())
globals().update(params)
kx.set_config(progress=False)   # progress belongs on the console that runs the report, not in it
# a model fitted on unnamed arrays, explained on a named table, makes scikit-learn say so on every call
warnings.filterwarnings("ignore", message="X has feature names, but")
warnings.filterwarnings("ignore", message="X does not have valid feature names")
pd.set_option("display.precision", 4)

inputs = kx.report.load_inputs(inputs_path, inputs_key)
model, X, B = inputs.model, inputs.points, inputs.background
features = list(X.columns)
results = {"features": features, "points": [int(i) for i in X.index], "background_rows": [int(i) for i in B.index],
           "fingerprints": {"points": kx.report.fingerprint(X), "background": kx.report.fingerprint(B)},
           "settings": {"value": inputs.value, "output": inputs.output, "tolerance": inputs.tolerance,
                        "n_points": len(X), "n_background": len(B), "seed": seed},
           "sources": inputs.sources}
cost = {}


def timed_section(name, estimated, started) -> None:
    """Record a section's estimated and measured seconds."""
    cost[name] = {"estimated_seconds": estimated, "measured_seconds": time.perf_counter() - started}


def plain(meta) -> dict:
    """The scalar entries of an Explanation's meta (what the JSON and the tables show)."""
    return {k: v for k, v in meta.items() if isinstance(v, (str, int, float, bool)) or v is None}


# %% [markdown]
# ## The model and how it was explained
#
# What was explained, against which reference rows, and how kernelxai turned the model into
# Shapley values: exactly, through its kernel expansion, or through model calls (and why).

# %%
options = {"value": inputs.value, "background": B, "output": inputs.output, "seed": seed}
started = time.perf_counter()
expl = kx.explain(model, X, **options)
timed_section("explain", expl.meta.get("estimated_seconds"), started)
if expl.meta.get("method") == "kernel" and not expl.has_intervals and expl.meta.get("sampling") != "all coalitions":
    # sampled KernelSHAP: the same draw of coalitions again (the same values), now with delta-method intervals
    options.update(method="kernel", interval="sandwich")
    started = time.perf_counter()
    expl = kx.explain(model, X, **options)
    timed_section("explain with intervals", expl.meta.get("estimated_seconds"), started)
meta = plain(expl.meta)
route = meta.get("route", "")
exact_route = route.startswith("kernel expansion")
results["model"] = {"type": type(model).__name__, "exact_route": exact_route, **meta}
results["values"] = expl.values
results["base_values"] = expl.base_values
results["output_names"] = getattr(expl, "output_names", None)
how = ("an exact kernel expansion" if exact_route else
       "model calls averaged over the background, because " + route.partition(": ")[2] if ": " in route
       else route)
display(Markdown(
    f"A **{type(model).__name__}** ({inputs.sources.get('model', '')}), explained on **{len(X)} rows** "
    f"({inputs.sources.get('points', '')}) with the **{meta.get('value_function', inputs.value)}** value "
    f"function against **{len(B)} background rows** ({inputs.sources.get('background', '')}). "
    f"kernelxai explained it through {how}; the estimator was `{meta.get('method')}`"
    + (f", chosen as the {meta['auto']}" if meta.get("auto") else "") + "."
    + (f" The explained output: {meta['output_description']}." if meta.get("output_description") else "")))
pd.Series({k: meta.get(k) for k in ("route", "value_function", "method", "exact", "output", "kernel",
                                    "n_background", "n_train", "preprocessing", "model_method")
           if meta.get(k) is not None}, name="how it was explained").to_frame()

# %% [markdown]
# ## The exactness certificate
#
# Whether the numbers can be trusted to their last digits: by the efficiency axiom the values of a
# row add up to its prediction minus the base value, and the residual measures how far from it
# the computed values are; for sampled estimators the intervals say how far each value may be.

# %%
residuals = kx.report.efficiency_residuals(model, expl, X, inputs.output)
size = float(np.abs(expl.values).sum(axis=1).max() + np.abs(expl.base_values).max())
certificate = {"exact": bool(meta.get("exact", False)), "method": meta.get("method"), "sampling": meta.get("sampling"),
               "max_residual": float(residuals.max()),
               "relative_residual": float(residuals.max() / size) if size > 0 else 0.0,
               "has_intervals": bool(expl.has_intervals)}
if expl.stderr is not None:
    certificate["max_stderr"] = float(np.max(expl.stderr))
    certificate["mean_interval_width"] = float(np.mean(expl.upper - expl.lower))
results["certificate"] = certificate
if certificate["exact"]:
    verdict = ("exact: the estimator enumerates (or integrates) every coalition, so the values are the "
               "Shapley values of this game up to rounding")
elif meta.get("sampling") == "all coalitions":
    verdict = (f"exact up to rounding: the {meta.get('method')} estimator's regression used every coalition")
elif expl.has_intervals:
    verdict = f"estimated by sampling coalitions ({meta.get('method')}), with the intervals below"
else:
    verdict = (f"estimated by sampling coalitions ({meta.get('method')}), without intervals; this estimator "
               "makes the values add up by construction, so the residual does not measure its error")
display(Markdown(
    f"The values are **{verdict}**. Largest efficiency residual over the {len(X)} rows: "
    f"**{certificate['max_residual']:.2e}** ({certificate['relative_residual']:.1e} of the predictions' scale)."
    + (f" Largest standard error of a value: {certificate['max_stderr']:.3g}; mean width of the intervals: "
       f"{certificate['mean_interval_width']:.3g}." if "max_stderr" in certificate else "")))

# %% [markdown]
# ## Global importance
#
# Which features matter most over the explained rows: the mean absolute Shapley value of each
# feature, with a 95% bootstrap interval over the rows (it says how much the ranking depends on
# which rows were explained, not how exact each value is).

# %%
imp = kx.report.importance(expl, n_bootstrap=n_bootstrap, seed=seed)
results["importance"] = {name: row for name, row in imp.to_dict(orient="index").items()}
top = list(imp.index)
shown = imp.iloc[:15][::-1]
fig, ax = plt.subplots(figsize=(7, 0.35 * len(shown) + 1.2))
ax.barh(shown.index, shown["mean_abs"], xerr=[shown["mean_abs"] - shown["lower"], shown["upper"] - shown["mean_abs"]],
        color="#4477aa", capsize=3)
ax.set_xlabel("mean |Shapley value| over the explained rows (95% bootstrap interval)")
ax.set_title("Global importance")
plt.tight_layout()
plt.show()
imp

# %% [markdown]
# ## How each feature acts
#
# The beeswarm shows every explained row's value per feature, coloured by the feature's value;
# the dependence plots show, for the most important features, how the value follows the feature.

# %%
which = 0 if expl.has_outputs else None
if expl.has_outputs:
    display(Markdown(f"The model has several outputs; the plots show the first, **{expl.output_names[0]}**."))
kx.plots.beeswarm(expl, output=which, title="Shapley values of the explained rows")
plt.show()
k = min(n_dependence, len(top))
if k:
    fig, axes = plt.subplots(1, k, figsize=(4 * k, 3.4), squeeze=False)
    for ax, name in zip(axes[0], top[:k]):
        kx.plots.dependence(expl, name, ax=ax, output=which)
    plt.tight_layout()
    plt.show()

# %% [markdown]
# ## The largest interactions
#
# Which pairs of features act together rather than separately: the pairwise Shapley
# interactions (k-SII, order 2) of the first rows, when they are affordable within the report's
# time budget.

# %%
n_int = min(n_interaction_rows, len(X))
interactions = {"n_rows": n_int}
started = time.perf_counter()
try:
    with kx.config_context(max_cost=section_seconds):
        inter = kx.explain_interactions(model, X.iloc[:n_int], value=inputs.value, background=B,
                                        output=inputs.output, order=2, seed=seed)
except Exception as err:   # over the budget (CostLimitError), or not defined for this model or value function
    inter = None
    interactions["skipped"] = str(err).split(". ")[0]
    display(Markdown(f"Interactions were not computed: {interactions['skipped']}."))
if inter is not None:
    timed_section("interactions", inter.meta.get("estimated_seconds"), started)
    pairs = np.abs(np.asarray(inter.interactions, dtype=float))
    pairs = pairs.mean(axis=(0, 3)) if pairs.ndim == 4 else pairs.mean(axis=0)
    upper = np.triu_indices(len(features), 1)
    order = np.argsort(pairs[upper])[::-1][:10]
    table = pd.DataFrame({"feature a": [features[upper[0][i]] for i in order],
                          "feature b": [features[upper[1][i]] for i in order],
                          "mean |interaction|": pairs[upper][order]}, index=pd.RangeIndex(1, len(order) + 1))
    interactions.update({"method": inter.meta.get("method"), "index": inter.meta.get("index"),
                         "top_pairs": table.to_dict(orient="records")})
    display(Markdown(f"Pairwise k-SII of the first {n_int} rows ({inter.meta.get('method')} route); the "
                     "strongest pairs by their mean absolute interaction:"))
    if not inter.has_outputs:
        kx.plots.interaction_heatmap(inter, title="mean |pairwise interaction|")
        plt.show()
    display(table)
results["interactions"] = interactions

# %%
if kx.report.is_gaussian_process(model):
    display(Markdown(
        "## Credible bands of the Gaussian process\n\nHow sure the explanation is, given that the GP is "
        "uncertain about the function itself: the posterior mean and 95% credible bands of the Shapley "
        "values (GP-SHAP) of the first rows."))
    started = time.perf_counter()
    n_gp = min(n_gp_rows, len(X))
    try:
        with kx.config_context(max_cost=section_seconds):
            gp_expl = kx.explain_gp(model, X.iloc[:n_gp], value=inputs.value, background=B, joint=True, seed=seed)
    except Exception as err:   # over the budget (CostLimitError), or a GP kernel_ explain_gp does not take
        gp_expl = None
        results["gp"] = {"skipped": str(err).split(". ")[0]}
        display(Markdown(f"Skipped: {results['gp']['skipped']}."))
    if gp_expl is not None:
        timed_section("gp", gp_expl.meta.get("estimated_seconds"), started)
        width = np.asarray(gp_expl.upper - gp_expl.lower)
        width = width.mean(axis=(0, 2)) if width.ndim == 3 else width.mean(axis=0)
        bands = pd.DataFrame({"mean |value|": np.abs(np.asarray(gp_expl.values)).reshape(n_gp, len(features), -1)
                              .mean(axis=(0, 2)), "mean width of the 95% band": width}, index=features)
        results["gp"] = {"n_rows": n_gp, "bands": bands.to_dict(orient="index")}
        kx.plots.dependence_band(gp_expl, top[0], title=f"{top[0]}: Shapley value with 95% credible band")
        plt.show()
        display(bands.loc[top])

# %%
detector = kx.report.anomaly_detector(model)
if detector is not None:
    display(Markdown(
        "## Compared with what? The reference of an anomaly score\n\n"
        f"An attribution of a {detector} score splits the row's score minus the average score of the "
        "background, so the background is the question asked: **the inliers only** (the rows known or "
        "judged normal) ask *why does this row look more anomalous than a typical normal row?*, usually "
        "what *why was it flagged?* means; **all the data, anomalies included** compares with the model's "
        "average score, which the anomalies pull down; **a peer group** (same branch, same month) asks "
        "*unusual compared with its peers?*. This report used the background above; below, the same rows "
        "explained against the background's inliers only."))
    scores = model.decision_function(B) if hasattr(model, "decision_function") else model.score_samples(B)
    inlier = (model.predict(B) == 1) if hasattr(model, "predict") and detector == "OneClassSVM" \
        else scores >= np.quantile(scores, 0.05)
    anomaly = {"n_background": len(B), "n_inliers": int(inlier.sum()), "base_value": float(np.mean(expl.base_values))}
    if 1 < inlier.sum() < len(B):
        e_in = kx.explain(model, X, **{**options, "background": B[inlier]})
        change = np.abs(e_in.values - expl.values).sum(axis=1) / np.maximum(np.abs(expl.values).sum(axis=1), 1e-300)
        anomaly.update({"inlier_base_value": float(np.mean(e_in.base_values)),
                        "relative_l1_change": float(np.mean(change)),
                        "same_top_feature": float(np.mean(np.argmax(np.abs(e_in.values), 1)
                                                          == np.argmax(np.abs(expl.values), 1)))})
        display(pd.DataFrame({"background rows": [len(B), int(inlier.sum())],
                              "base value (mean score)": [anomaly["base_value"], anomaly["inlier_base_value"]]},
                             index=["as given", "its inliers only"]))
        display(Markdown(
            f"Against the inliers only, the attributions change by {anomaly['relative_l1_change']:.0%} on average "
            f"(relative L1), and the most important feature of a row stays the same for "
            f"{anomaly['same_top_feature']:.0%} of the rows."))
    else:
        display(Markdown("The background has no anomalies by the detector's own judgement: its inliers are "
                         "the background itself."))
    results["anomaly"] = {"detector": detector, **anomaly}

# %%
drifts = {}
if inputs.compare is not None:
    other = kx.explain(inputs.compare, X, **options)
    drifts["compare"] = kx.report.drift(expl, other, tolerance=inputs.tolerance)
if inputs.baseline is not None:
    drifts["baseline"] = kx.report.drift(np.asarray(inputs.baseline["values"], dtype=float), expl.values,
                                         tolerance=inputs.tolerance, feature_names=features,
                                         base_values=(np.asarray(inputs.baseline["base_values"], dtype=float),
                                                      expl.base_values))
if drifts:
    display(Markdown(
        "## Drift of the explanations\n\nHow far the attributions of the same rows, against the same "
        "background, moved from the reference (the baseline report, or this model) to the other model: "
        "per feature the largest and the mean |change|, relative to the scale of the attributions (the "
        f"largest mean |value| of a feature); a feature moved when its largest change exceeds the "
        f"tolerance, {inputs.tolerance:g}."))
    for name, d in drifts.items():
        against = ("the baseline report" if name == "baseline"
                   else f"the --compare model ({inputs.sources.get('compare') or type(inputs.compare).__name__})")
        display(Markdown(f"**Against {against}**: " + (
            f"**{len(d.moved)} feature(s) moved beyond the tolerance: {', '.join(d.moved)}.**" if d.moved
            else "no feature moved beyond the tolerance.")))
        display(d.table.sort_values("max_relative", ascending=False))
    results["drift"] = {name: d.to_dict() for name, d in drifts.items()}

# %% [markdown]
# ## The cost
#
# How long each computation was expected to take (kernelxai's cost model, calibrated on this
# machine) and how long it took.

# %%
results["cost"] = cost
pd.DataFrame(cost).T

# %% [markdown]
# ## Versions
#
# What computed this report, so that it can be reproduced.

# %%
versions = {"kernelxai": kx.__version__, "python": sys.version.split()[0], "platform": platform.platform()}
for name in ("numpy", "scipy", "scikit-learn", "pandas", "matplotlib", "papermill", "nbconvert", "skops", "pyarrow"):
    try:
        versions[name] = metadata.version(name)
    except metadata.PackageNotFoundError:
        versions[name] = "not installed"
results["versions"] = versions
moved = sorted({f for d in drifts.values() for f in d.moved})
summary = (f"{type(model).__name__}: {len(X)} rows x {len(features)} features, "
           f"{'exact' if certificate['exact'] else 'estimated'} (residual {certificate['max_residual']:.1e}); "
           f"top feature {top[0]}" + (f"; moved: {', '.join(moved)}" if moved else ""))
kx.workbench.save_results(results_path, results, summary=summary, parameters=params)
pd.Series(versions, name="version").to_frame()

# %% [markdown]
# ## Explore one row
#
# The explanation of one explained row (a waterfall from the base value to its prediction) next
# to a dependence plot with that row marked, recomputed for the value function and the number of
# background rows you pick. In a live notebook or in Voilà (`voila report.ipynb`) the controls
# recompute; in the HTML file the figures show the first row with the report's own settings.

# %%
value_choices = list(dict.fromkeys([inputs.value, "interventional", "observational"]))
background_sizes = sorted({m for m in (10, 25, 50) if m < len(B)} | {len(B)})
explained = {(inputs.value, len(B)): expl}


def explanation_with(value_function, n_background) -> kx.Explanation:
    """All explained rows against the first ``n_background`` background rows (cached per setting)."""
    if (value_function, n_background) not in explained:
        try:
            explained[(value_function, n_background)] = kx.explain(
                model, X, **{**options, "value": value_function, "background": B.iloc[:n_background]})
        except Exception as err:   # a value function this model does not take, a cost over the limit, ...
            raise ValueError(f"value={value_function!r} with {n_background} background rows: {err}") from None
    return explained[(value_function, n_background)]


def explore_row(row, feature, value_function, n_background) -> None:
    """A waterfall of one row and the dependence plot of one feature with that row marked."""
    e = explanation_with(value_function, n_background)
    position = list(X.index).index(row)
    fig, axes = plt.subplots(1, 2, figsize=(13, 0.35 * min(len(features), 10) + 2.2))
    kx.plots.waterfall(e[position], ax=axes[0], output=which,
                       title=f"row {row}: {value_function}, {n_background} background rows")
    kx.plots.dependence(e, feature, ax=axes[1], output=which)
    mark = np.asarray(e.values)[position, features.index(feature)]
    axes[1].scatter([X[feature].iloc[position]], [mark if np.ndim(mark) == 0 else mark[which]], s=160,
                    facecolors="none", edgecolors="black", linewidths=2, label=f"row {row}", zorder=5)
    axes[1].legend(loc="best")
    fig.tight_layout()


app = kx.widgets.interact(explore_row, row=[int(i) for i in X.index], feature=top, value_function=value_choices,
                          n_background=background_sizes[::-1])
# the live controls where a widget manager runs (Voilà, JupyterLab); elsewhere (the HTML file) the first drawing
drawn = "".join(f'<img src="data:image/png;base64,{out["data"]["image/png"]}" style="max-width:100%"/>'
                for out in app.children[-1].outputs if "image/png" in out.get("data", {}))
display({**app._repr_mimebundle_(), "text/html": drawn}, raw=True)
