# %% [markdown]
# # Exercises 6 · Shapley values of kernel models from mean embeddings
#
# A kernel model $f(x) = \sum_i \alpha_i k(x, x_i) + b$ with a **product kernel**
# $k(x, x') = \prod_j k_j(x_j, x'_j)$ has interventional worths in closed form (RKHS-SHAP):
#
# $$v(S) = \frac1m \sum_{b} f(x_S, b_{\bar S})
#        = \sum_i \alpha_i\, K_S(x, x_i)\, \mu_{\bar S}(x_i) + b, \qquad
#   \mu_{\bar S}(x_i) = \frac1m \sum_{b} K_{\bar S}(b, x_i),$$
#
# where $K_S = \prod_{j \in S} k_j$ and $\mu_{\bar S}$ is the **kernel mean embedding** of the
# background $b_1, \dots, b_m$ on the absent features. No synthetic points, no model calls:
# one Gram matrix per coalition.

# %% tags=["parameters"]
seed = 0               # randomness of the examples below (the checks draw their own)
results_path = None    # a JSON file to record which checks passed
n_train = 200          # training points of the example model
n_background = 60      # background rows averaged over
n_explain = 10         # points explained in the timing comparison

# %% slide="skip"
import time

import matplotlib.pyplot as plt
import numpy as np

import kernelxai as kx

rng = np.random.default_rng(seed)
kx.exercises.reset()

# %% [markdown]
# ## Task 1 · The mean embedding of the absent features
#
# With the RBF kernel $k_j(a, c) = \exp(-(a - c)^2 / (2 l_j^2))$, write
# `absent_embedding(background, X_train, lengthscale, S)`: for every training point $x_i$,
# $\mu_{\bar S}(x_i) = \frac1m \sum_b \prod_{j \notin S} k_j(b_j, x_{ij})$. `S` lists the
# present features; `lengthscale` has one entry per feature. Vectorise over $b$ and $i$
# with broadcasting: `background[:, None, :] - X_train[None, :, :]` has shape `(m, n, d)`.

# %% solution="mean-embedding"
def absent_embedding(background, X_train, lengthscale, S):
    """Kernel mean embedding of the background on the features not in S, at every x_i."""
    ### BEGIN SOLUTION
    absent = [j for j in range(X_train.shape[1]) if j not in S]
    diff = background[:, None, absent] - X_train[None, :, absent]
    return np.exp(-diff**2 / (2 * lengthscale[absent] ** 2)).prod(axis=-1).mean(axis=0)
    ### END SOLUTION

# %% check="mean-embedding"
result = kx.exercises.check("mean-embedding", absent_embedding)
### BEGIN HIDDEN TESTS
assert result, result.message
### END HIDDEN TESTS

# %% [markdown]
# ## Task 2 · The interventional worth of a coalition
#
# Write `interventional_value(model, background, x, S)` for a `kx.models.KernelExpansion`
# with an RBF kernel: `model.X_train`, `model.alpha`, `model.intercept` and
# `model.kernel.lengthscale` (an array, one entry per feature) hold everything you need.

# %% solution="interventional-value"
def interventional_value(model, background, x, S):
    """v(S) = sum_i alpha_i K_S(x, x_i) mu_(not S)(x_i) + b, for an RBF kernel expansion."""
    ### BEGIN SOLUTION
    lengthscale = np.broadcast_to(model.kernel.lengthscale, (len(x),))
    K_S = np.exp(-(x[S] - model.X_train[:, S]) ** 2 / (2 * lengthscale[S] ** 2)).prod(axis=-1)
    return model.alpha @ (K_S * absent_embedding(background, model.X_train, lengthscale, S)) + model.intercept
    ### END SOLUTION

# %% check="interventional-value"
result = kx.exercises.check("interventional-value", interventional_value)
### BEGIN HIDDEN TESTS
assert result, result.message
### END HIDDEN TESTS

# %% [markdown]
# ## Task 3 · The same worth from model calls
#
# Write `marginal_value(predict, background, x, S)`: the mean over the background rows $b$
# of `predict` at the points $(x_S, b_{\bar S})$ — what a model-agnostic explainer (shap's
# KernelExplainer) computes, with $m$ model calls per coalition.

# %% solution="marginal-value"
def marginal_value(predict, background, x, S):
    """v(S) = mean_b f(x_S, b_(not S)), by calling the model."""
    ### BEGIN SOLUTION
    points = background.copy()
    points[:, S] = x[S]
    return predict(points).mean()
    ### END SOLUTION

# %% check="marginal-value"
result = kx.exercises.check("marginal-value", marginal_value)
### BEGIN HIDDEN TESTS
assert result, result.message
### END HIDDEN TESTS

# %% [markdown]
# ## Same values, different cost
#
# A kernel ridge regression on 5 features, explained against a background of `n_background`
# training points. `value="interventional"` uses the mean embeddings, `value="marginal"` the
# model calls; the values agree to rounding, the cost does not.

# %%
d = 5
X = rng.normal(size=(n_train, d))
y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=n_train)
krr = kx.models.KernelRidge(kernel=kx.kernels.RBF(np.full(d, 1.5)), lam=1e-2).fit(X, y)
points, background = X[:n_explain], X[-n_background:]
timings = {}
for value in ("interventional", "marginal"):
    t0 = time.perf_counter()
    e = kx.explain(krr, points, value=value, background=background, method="exact")
    timings[value] = (time.perf_counter() - t0, e)
difference = np.abs(timings["interventional"][1].values - timings["marginal"][1].values).max()
print(f"max |mean embeddings - model calls| = {difference:.1e}")
for value, (seconds, _) in timings.items():
    print(f"{value:>15}: {seconds:.2f} s")
kx.plots.beeswarm(timings["interventional"][1], title="interventional values (mean embeddings)");

# %% [markdown]
# **Question.** Count the operations: with $n$ training points, $m$ background points and
# $d$ features, what does one coalition cost by model calls, and what by mean embeddings?
#
# **Further:** notebook `02-rkhs-shap` adds the *observational* values from conditional mean
# embeddings; `11-runtime-rkhs-shap` measures the speed-up; `03-pkex-shapley` computes exact
# values for product kernels in polynomial time, at any $d$.

# %% slide="skip"
kx.workbench.save_results(results_path, {"checks": kx.exercises.results()})
print(kx.exercises.results())
