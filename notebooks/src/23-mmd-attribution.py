# %% [markdown]
# # 23 · Which features make two samples differ? Attributing the MMD
#
# PKeX-Shapley §5.2 and App. H.3. Two samples of 20 features: features 1–10 have the
# same distribution in both (independent standard normals); features 11–20 are standard
# normal in $X$ and a multivariate Student $t$ with the same mean in $Z$. The unbiased
# MMD² with an RBF kernel (bandwidth by the median heuristic) is split over the features
# by Shapley values of the functional-baseline game (notebook 05); the experiment is
# repeated on fresh samples to see how the attributions vary.
#
# The paper's findings: the identically distributed features get **negative** values —
# they pull the discrepancy towards zero — and the differing ones positive values, with
# nearly identical distributions within each group. In a control where both samples
# come from the same distribution, all features share a near-zero MMD alike. On the
# diabetes data split by sex, the paper finds s3 and s4 contributing most, bmi and s1
# negatively.
#
# Details the paper leaves open, chosen here: the $t$ has 3 degrees of freedom and one
# $\chi^2$ draw per row shared by features 11–20 (a multivariate $t$). The paper says the
# $t$ part has "the same mean" and differs in "higher-order moments and covariance
# structure", so its covariance ($\tfrac{3}{3-2} I$) is left unmatched; a variant with the
# covariance matched to $I$ — only higher moments and the dependence through the shared
# scale remain — is run as well, as a harder test.

# %% tags=["parameters"]
import kernelxai as kx

smoke = False            # tiny sizes for the test suite
paper = False            # the paper's 1000 repetitions
seed = 0
results_path = "../build/results/23-mmd-attribution.json"
n_samples = kx.workbench.default(1000, smoke=250, minimum=2, doc="points in each sample, as in the paper")
n_repeats = kx.workbench.default(5, smoke=2, paper=1000, minimum=1,
                                 doc="repetitions of the main design (paper: 1000)")
n_control = kx.workbench.default(3, smoke=2, paper=1000, minimum=1,
                                 doc="repetitions of the control and of the matched-covariance variant")
n_permutations = kx.workbench.default(100, smoke=30, minimum=1, doc="permutations of the p-value of each MMD")

# %%
params = kx.workbench.resolve_parameters(globals())
globals().update(params)

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from kernelxai.datasets import pkex

rng = np.random.default_rng(seed)
names = [f"X{j}" for j in range(1, 21)]
results = {"n_samples": n_samples, "n_repeats": n_repeats}


def run(n_rep, **design):
    """Repeat the design; return the stacked attributions (an Explanation, one row per repeat)."""
    phis, stats, pvals, errors = [], [], [], []
    for _ in range(n_rep):
        X, Z = pkex.two_sample(n=n_samples, m=n_samples, d_same=10, d_diff=10, seed=rng, **design)
        e = kx.explain_mmd(X, Z, n_permutations=n_permutations, seed=rng)
        phis.append(e.values)
        stats.append(e.meta["statistic"])
        pvals.append(e.meta["p_value"])
        errors.append(abs(e.values.sum() - e.meta["statistic"]))
    expl = kx.Explanation(np.array(phis), np.zeros(n_rep), feature_names=names)
    return expl, np.array(stats), np.array(pvals), max(errors)

# %% [markdown]
# ## The main design

# %%
start = time.perf_counter()
main, main_stats, main_p, main_err = run(n_repeats)
seconds = (time.perf_counter() - start) / n_repeats
print(f"{n_repeats} repetitions, {seconds:.1f} s each (attribution + {n_permutations}-permutation test); "
      f"MMD^2_u = {main_stats.mean():.4f} on average, p <= {main_p.max():.3f}; "
      f"max |sum phi - MMD^2_u| = {main_err:.1e}")

# %% tags=["headline"]
def kde_groups(expl, title):
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=False)
    for ax, cols, label in ((axes[0], names[:10], "features 1-10 (same distribution)"),
                            (axes[1], names[10:], "features 11-20 (normal vs t)")):
        if len(expl) > 2:
            kx.plots.kde(expl, cols, ax=ax)
        else:   # too few repetitions for a density: show the points
            for j, c in enumerate(cols):
                ax.plot(expl[:, c].values, np.full(len(expl), j), "o", ms=4)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_title(label)
        ax.set_xlabel("Shapley value")
        if ax.get_legend() is not None:
            ax.get_legend().remove()
    fig.suptitle(title)
    plt.tight_layout()


kde_groups(main, f"Attributions of MMD$^2_u$ over {n_repeats} repetitions")

# %%
def group_summary(expl):
    v = expl.values
    return {"mean phi, features 1-10": float(v[:, :10].mean()),
            "mean phi, features 11-20": float(v[:, 10:].mean()),
            "share of features 1-10 with phi <= 0": float((v[:, :10] <= 0).mean()),
            "share of features 11-20 with phi > 0": float((v[:, 10:] > 0).mean())}


summary_main = group_summary(main)
results["main"] = {**summary_main, "statistic_mean": main_stats.mean(), "p_values": main_p,
                   "efficiency_error": main_err, "phi_mean": main.values.mean(0)}
pd.Series(summary_main)

# %% [markdown]
# Within each group the attributions are exchangeable by construction, and their
# spreads overlap. Whether the paper's claim holds here is read off the table: the
# same-distribution features carry negative values on average, the differing ones
# positive values.
#
# ## The control: both samples from one distribution (App. H.3)

# %%
control, control_stats, control_p, control_err = run(n_control, equal=True)
kde_groups(control, f"Control: no difference ({n_control} repetitions)")
summary_control = group_summary(control)
results["control"] = {**summary_control, "statistic_mean": control_stats.mean(), "p_values": control_p,
                      "efficiency_error": control_err, "max_abs_phi": float(np.abs(control.values).max())}
print(f"MMD^2_u = {control_stats.mean():.2e} on average; p-values {np.round(control_p, 2).tolist()}; "
      f"largest |phi| = {np.abs(control.values).max():.1e} (main design: {np.abs(main.values).max():.1e})")

# %% [markdown]
# Without a difference the MMD estimate fluctuates around zero and so do all twenty
# attributions, none standing out — the behaviour the paper reports.
#
# ## A harder variant: matched covariance

# %%
matched, matched_stats, matched_p, matched_err = run(n_control, match_covariance=True)
summary_matched = group_summary(matched)
results["matched_covariance"] = {**summary_matched, "statistic_mean": matched_stats.mean(),
                                 "p_values": matched_p, "efficiency_error": matched_err}
print(f"MMD^2_u = {matched_stats.mean():.2e} on average; p-values {np.round(matched_p, 3).tolist()}")
pd.Series(summary_matched)

# %% [markdown]
# With the covariance matched only the heavier tails and the dependence through the
# shared scale are left, and the MMD is several times smaller than in the main design:
# the wide median-heuristic bandwidth in 20 dimensions mostly sees second moments. With
# a few hundred points per sample the test then often fails to reject and the
# attribution is noisy; the numbers above show whether, with the sample size of this
# run, the test still rejects and the differing features still carry the positive
# values. The attribution cannot be more decisive than the statistic it splits.
#
# ## Diabetes: men versus women (App. H.3)
#
# The diabetes data split by the sex variable, which is then dropped: which of the
# nine remaining variables make the two groups differ?

# %%
group_a, group_b = pkex.diabetes_by_sex()
diabetes = kx.explain_mmd(group_a, group_b, n_permutations=max(200, n_permutations), seed=rng)
order = np.argsort(-diabetes.values)
ranking = [diabetes.feature_names[j] for j in order]
print(f"MMD^2_u = {diabetes.meta['statistic']:.4f} (p = {diabetes.meta['p_value']:.3f}); sizes "
      f"{len(group_a)} / {len(group_b)}")
print("ranking:", ", ".join(f"{n} ({diabetes.values[j]:+.4f})" for n, j in zip(ranking, order)))
results["diabetes"] = {"phi": dict(zip(diabetes.feature_names, diabetes.values)), "ranking": ranking,
                       "statistic": diabetes.meta["statistic"], "p_value": diabetes.meta["p_value"],
                       "efficiency_error": abs(diabetes.values.sum() - diabetes.meta["statistic"])}

fig, axes = plt.subplots(2, 5, figsize=(13, 5))
for ax, name in zip(axes.ravel(), list(group_a.columns) + [None]):
    if name is None:
        kx.plots.bar(diabetes, ax=ax, title="Shapley values")
        continue
    ax.hist(group_a[name], bins=25, alpha=0.5, density=True, label="sex code 1")
    ax.hist(group_b[name], bins=25, alpha=0.5, density=True, label="sex code 2")
    ax.set_title(f"{name}: phi = {results['diabetes']['phi'][name]:+.4f}", fontsize=9)
    ax.set_yticks([])
axes[0, 0].legend(fontsize=7)
plt.tight_layout();

# %% [markdown]
# The paper reports s3 and s4 as the main contributors, followed by bp, s6, age, s5 and
# s2, with bmi and s1 negative. Compare with the ranking printed above: variables whose
# marginal distributions differ between the groups (s3, s4) should rank high, variables
# that look alike should be near zero or negative. (scikit-learn's copy of the data is
# centred and scaled; the scaling does not change the pooled-median RBF kernel's view of
# the relative differences much, but the ranking of near-zero contributions is fragile.)

# %%
paper_top = {"s3", "s4"}
results["diabetes"]["paper_top_two_in_our_top_three"] = bool(paper_top <= set(ranking[:3]))
print(f"s3 and s4 among our top three: {results['diabetes']['paper_top_two_in_our_top_three']}")

# %% [markdown]
# ## Explore the repetitions

# %%
import ipywidgets as widgets


def show(repetition=0, design="main"):
    expl = {"main": main, "control": control, "matched covariance": matched}[design]
    repetition = min(repetition, len(expl) - 1)
    kx.plots.bar(expl[repetition], max_display=20, title=f"{design}, repetition {repetition}")


kx.widgets.interact(show, repetition=widgets.IntSlider(0, 0, max(0, n_repeats - 1)),
                    design=["main", "control", "matched covariance"])

# %%
summary = (f"same-distribution features: mean phi {summary_main['mean phi, features 1-10']:+.1e}, differing: "
           f"{summary_main['mean phi, features 11-20']:+.1e} ({summary_main['share of features 11-20 with phi > 0']:.0%} > 0); "
           f"sum phi = MMD^2_u to {max(main_err, control_err):.0e}; diabetes top: {', '.join(ranking[:3])}")
kx.workbench.save_results(results_path, results, summary=summary, parameters=params)
print(summary)
