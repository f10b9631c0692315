# %% [markdown]
# # kernelxai · the notebooks
#
# **kernelxai** explains kernel methods — kernel ridge regression, SVMs, Gaussian
# processes, kernel two-sample and independence tests — with Shapley values. Each
# notebook below either introduces one method or reproduces one experiment of the
# papers the library implements. Every notebook runs top to bottom on a laptop; the
# parameters cell at the top chooses between a quick `smoke` run, the default
# reduced setting, and the papers' full setting (`paper = True`).
#
# Launch them in the cloud:
# [JupyterLab on Binder](https://mybinder.org/v2/gh/kernelxai/kernelxai/main?urlpath=lab/tree/notebooks/00-index.ipynb) ·
# [as an app with Voilà](https://mybinder.org/v2/gh/kernelxai/kernelxai/main?urlpath=voila/render/notebooks/01-shapley-games.ipynb)
#
# ## Methods
#
# | notebook | what it shows |
# |---|---|
# | [01 · Cooperative games](01-shapley-games.ipynb) | the Shapley value on the lecture's taxi and airport games; KernelSHAP as weighted least squares; permutation sampling and its intervals |
# | [02 · RKHS-SHAP](02-rkhs-shap.ipynb) | interventional values of a kernel ridge regression from kernel mean embeddings (exactly the model-agnostic ones, far cheaper), observational values from conditional mean embeddings; how η and the background change them; exact vs sampled coalitions |
# | [03 · PKeX-Shapley](03-pkex-shapley.ipynb) | the functional baseline value function of product-kernel models; exact Shapley values by the Beta-integral quadrature, the paper's two recursions and brute force; a 40-digit check at d = 200; comparison with interventional values |
# | [04 · Shapley regulariser](04-shapley-regulariser.ipynb) | Shapley values of kernel models as representer matrices acting on the coefficients; the Riesz representer drawn as a function; exact vs sampled coalitions; ISV-REG and OSV-REG with a λ_S slider |
# | [05 · MMD and HSIC](05-mmd-hsic-shapley.ipynb) | splitting the MMD between two samples and the HSIC between features and a target over the features, with permutation p-values; delta kernel for class labels; both sides of HSIC |
# | [06 · Uncertainty](06-uncertainty.ipynb) | sampling intervals (permutation, single-reference games, KernelSHAP bootstrap) and their coverage; Shapley residuals; Bayesian SHAP with credible intervals, perturbations-to-go and focused sampling |
# | [07 · Shapley regression and groups](07-shapley-regression-groups.ipynb) | the lecture's R² decomposition over covariates (with bootstrap intervals); group Shapley for R² and for a kernel model, exact by enumeration or the product route; when group values equal summed feature values |
# | [08 · Your model](08-your-model.ipynb) | the scikit-learn models people fit, as they fit them: a StandardScaler → SVR pipeline (folded into the kernel, exact), an SVC in decision, log-odds (exact) and probability space (model calls), multi-class iris (pairwise decision functions and class probabilities), a GP with a composite kernel; every route printed and checked against a brute force over model calls |
# | [09 · Interactions](09-interactions.ipynb) | exact pairwise Shapley interactions (SII, k-SII, STII, Faith-SHAP) of kernel models in polynomial time: planted pairs recovered, the product route against enumeration, the Banana data, diabetes, and SII on the taxi and airport games |
# | [25 · Interactions of every order](25-interactions-any-order.ipynb) | exact interactions of any order and sixteen indices (SII, k-SII, STII, FSII, FBII, Möbius, …) of an SVR on diabetes: the product route against enumeration, the Möbius transform as the functional ANOVA of the model (main effects, pairs, triples), the indices side by side, the certified largest triples at d = 100, credible intervals on a GP's interactions, an explorer |
# | [26 · How good is a sampled explanation?](26-sampled-explanations.ipynb) | every sampled estimator (KernelSHAP, Leverage SHAP, regression-adjusted Monte Carlo, permutation sampling) scored against the exact values of an SVR on diabetes and a kernel ridge regression on 50 features: error against budget, whether the stated intervals cover, the advice that follows, an explorer |
# | [16 · GP-SHAP](16-gp-shap.ipynb) | stochastic Shapley values of a Gaussian process: 95% credible bands, correlations between attributions, the covariance checked against brute force and posterior draws, bands far from the data and as the noise vanishes, dependence plots with draws of explanation functions, observational values with bands, and explanations predicted at new points by the Shapley prior |
# | [17 · Scaling up](17-scaling.ipynb) | one model on three sizes of data, up to a Nyström pipeline fitted to 10⁶ rows and explained exactly; time per explained point against d and n next to the cost model's prediction; one worker against two (`n_jobs`): identical values and the speed-up this machine gives; a summarised background and the bound on how far it moves the values (and why ‖f‖·MMD alone bounds only the base value); an explorer that predicts the cost before running |
# | [18 · Conditional estimators](18-conditional-estimators.ipynb) | the lecture's estimators of the conditional contribution function for dependent features — independence, Gaussian, Gaussian copula, empirical — against exact conditional Shapley values on Gaussian, lognormal-marginal and parabola-dependent data as the correlation grows; which of the lecture's claims held; the empirical bandwidth; what to use for trees, vines and VAEAC |
# | [19 · Anomalies](19-anomalies.ipynb) | why a point was flagged: a OneClassSVM and a kernel density fitted to benign breast-cancer tumours, the malignant ones explained exactly (checked against model calls); the density vs the log-density; how the reference set (inliers, training data, every case, a peer group) changes the attributions; interactions of the anomaly score; GP-SHAP bands for a GP classifier and why the detectors have none |
#
# ## Experiments
#
# | notebook | paper setting |
# |---|---|
# | [10 · Banana](10-banana-rkhs-shap.ipynb) | RKHS-SHAP Exp. 1: Banana B(1/b, 10), b = 1…100; R² of RKHS-ISV/OSV, KernelSHAP-ISV and GSHAP-OSV against the exact ground truth and the paper's approximation of it |
# | [11 · Runtime of RKHS-SHAP](11-runtime-rkhs-shap.ipynb) | RKHS-SHAP Exp. 2: seconds of RKHS-ISV, KernelSHAP-ISV, RKHS-OSV and GSHAP-OSV as n grows, ratios measured in one run |
# | [12 · Covariate shift with ISV-REG](12-covariate-shift-isv-reg.ipynb) | RKHS-SHAP Exp. 3: correlated Gaussian design, noise on X5 at test time; RMSE of ISV-REG (and OSV-REG) across λ_S, the paper's grid and a log sweep; how much depends on the ridge |
# | [13 · Fairness with OSV-REG](13-fairness-osv-reg.ipynb) | RKHS-SHAP Exp. 4: sensitive X5 and its proxy X4; distributions of φ4, φ5 under ISV-REG and OSV-REG as λ_S grows |
# | [14 · Real data](14-real-data-rkhs-shap.ipynb) | RKHS-SHAP App. E and C: observational values on diabetes (product RBF and Matérn kernels) and breast cancer (kernel logistic regression, sampled coalitions); Pima, Boston, California housing and Adult when they can be loaded |
# | [15 · Robustness](15-robustness.ipynb) | RKHS-SHAP Theorem 6: exact RKHS distances of Shapley functionals at nearby points against the bound, observed changes of Shapley values, and how tight the printed constant is |
# | [20 · Exact vs sampled](20-pkex-exact-vs-sampling.ipynb) | PKeX Exp. 1: SVR on d = 10…50 standard-normal features; error of paired KernelSHAP against the exact values as the number of coalitions grows |
# | [21 · Feature recovery](21-pkex-feature-recovery.ipynb) | PKeX Exp. 2: d = 50, 17 active features, polynomial and exponential targets; top-17 recovery and time of PKeX, RKHS-SHAP, KernelSHAP and permutation sampling |
# | [22 · Runtime](22-pkex-runtime.ipynb) | PKeX Fig. 1: brute force, the paper's recursion and the quadrature as d grows to 2000; where Newton's identities lose accuracy and the coefficient recursion overflows |
# | [23 · MMD attribution](23-mmd-attribution.ipynb) | PKeX §5.2 and App. H.3: normal vs Student-t features, repeated; the equal-distribution control; diabetes split by sex |
# | [24 · HSIC feature selection](24-hsic-feature-selection.ipynb) | PKeX §5.3: GP on the top 20% features ranked by HSIC Shapley values, mutual information, Lasso, K-best and tree importance; 5-fold CV |
# | [30 · The uncertainty pipeline](30-uncertainty-pipeline.ipynb) | thesis ch. 3: correlation α in the data, interaction β and non-linearity γ in the model, σ perturbations; how Shapley residuals, sampling intervals and Bayesian-SHAP intervals respond to each knob |
#
# ## Exercises
#
# For students and lecturers: eight short exercise notebooks, one per lecture topic, each
# task followed by a self-check (`kx.exercises.check`) that tests your code on fresh random
# inputs and gives a hint when it is wrong — [games and axioms](exercises/01-games-and-axioms.ipynb),
# [exact and permutation estimation](exercises/02-exact-and-permutation.ipynb),
# [KernelSHAP as weighted least squares](exercises/03-kernelshap-wls.ipynb),
# [Shapley regression and groups](exercises/04-regression-and-groups.ipynb),
# [dependent features](exercises/05-dependent-features.ipynb),
# [mean embeddings](exercises/06-mean-embeddings.ipynb),
# [how sure an explanation is](exercises/07-how-sure.ipynb),
# [how good a sampled explanation is](exercises/08-sampled-explanations.ipynb). These open with their
# solutions; `make exercises` builds the student versions into `build/exercises/`.
#
# ## How the pieces fit
#
# ```
# data → model → value function → game → estimator → Explanation → plots / widgets
# ```
#
# A *value function* says what it means for a feature to be absent (averaged over a
# background sample, conditioned on the present features, or replaced by a functional
# baseline). It turns a model and the points to explain into a *game*. An *estimator*
# computes the Shapley values of any game, exactly or by sampling, and returns an
# *Explanation*, which the plots and widgets display.

# %% tags=["parameters"]
import kernelxai as kx

smoke = False
paper = False
seed = 0
results_path = "../build/results/00-index.json"

# %%
import json
from pathlib import Path

from IPython.display import Markdown

params = kx.workbench.resolve_parameters(globals())   # validated; smoke/paper fill only unset sizes
globals().update(params)

here = Path(".")
listed = sorted(p.stem for p in here.glob("[0-9][0-9]-*.ipynb") if p.stem != "00-index")
print(f"kernelxai {kx.__version__}: {len(listed)} notebooks")

# %% [markdown]
# ## Browse
#
# Pick a notebook to read its opening paragraph and, if `make run` has been run on this
# machine, the key results it reported.

# %%
def opening(name):
    """Title and first paragraph of a notebook, read from the notebook itself."""
    cells = json.loads((here / f"{name}.ipynb").read_text())["cells"]
    text = "".join(next(c["source"] for c in cells if c["cell_type"] == "markdown"))
    paragraphs = [p.strip() for p in text.split("\n\n") if p.strip()]
    return paragraphs[0], (paragraphs[1] if len(paragraphs) > 1 else "")


def describe(notebook):
    title, first = opening(notebook)
    run = here.parent / "build" / "results" / f"{notebook}.json"
    latest = json.loads(run.read_text()).get("summary", "") if run.exists() else ""
    result = f"\n\n**Last `make run`:** {latest}" if latest else "\n\n*(run `make run` to see its results here)*"
    return Markdown(f"{title}\n\n{first}\n\n[open {notebook}]({notebook}.ipynb){result}")


kx.widgets.interact(describe, notebook=listed)

# %%
kx.workbench.save_results(results_path, {"notebooks": listed},
                summary=f"{len(listed)} notebooks indexed", parameters=params)
