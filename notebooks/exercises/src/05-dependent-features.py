# %% [markdown]
# # Exercises 5 · Dependent features and conditional value functions
#
# To explain a model $f$ at a point $x$, the game needs the worth of a coalition $S$ of
# features: what does the model say when only $x_S$ is known? Two answers:
#
# * **interventional**: $v(S) = \mathbb E\, f(x_S, X_{\bar S})$ with $X_{\bar S}$ drawn
#   independently of $x_S$ (from a background sample);
# * **conditional** (observational): $v(S) = \mathbb E[f(X) \mid X_S = x_S]$, which respects
#   the dependence between features.
#
# The lecture's conditional estimators model $p(x_{\bar S} \mid x_S)$: a Gaussian (Aas et
# al.), a Gaussian copula, kernel-weighted empirical samples, trees, vines, VAEAC. Here you
# derive the Gaussian one exactly for a linear model.

# %% tags=["parameters"]
seed = 0               # randomness of the examples below (the checks draw their own)
results_path = None    # a JSON file to record which checks passed
n_samples = 500        # rows of the data sample the Gaussian is fitted to

# %% slide="skip"
import itertools
import math

import matplotlib.pyplot as plt
import numpy as np

import kernelxai as kx

rng = np.random.default_rng(seed)
kx.exercises.reset()

# %% [markdown]
# ## Task 1 · The conditional Gaussian
#
# If $X \sim N(\mu, \Sigma)$, the absent features $T$ (the complement of $S$) given
# $X_S = x_S$ are Gaussian with
#
# $$\mu_{T \mid S} = \mu_T + \Sigma_{TS}\,\Sigma_{SS}^{-1}(x_S - \mu_S), \qquad
#   \Sigma_{T \mid S} = \Sigma_{TT} - \Sigma_{TS}\,\Sigma_{SS}^{-1}\,\Sigma_{ST}.$$
#
# Write `conditional_gaussian(mu, Sigma, S, x)` returning `(mean, cov)` of the absent features
# in increasing order (`S` is a list of feature indices, possibly empty; only `x[S]` is used).
# *Hint:* `np.ix_(T, S)` picks a block; prefer `np.linalg.solve` to an inverse.

# %% solution="conditional-gaussian"
def conditional_gaussian(mu, Sigma, S, x):
    """Mean and covariance of the absent features given x_S, for X ~ N(mu, Sigma)."""
    ### BEGIN SOLUTION
    T = [j for j in range(len(mu)) if j not in S]
    if len(S) == 0:
        return mu[T], Sigma[np.ix_(T, T)]
    B = np.linalg.solve(Sigma[np.ix_(S, S)], Sigma[np.ix_(S, T)])
    return mu[T] + (x[S] - mu[S]) @ B, Sigma[np.ix_(T, T)] - Sigma[np.ix_(T, S)] @ B
    ### END SOLUTION

# %% check="conditional-gaussian"
result = kx.exercises.check("conditional-gaussian", conditional_gaussian)
### BEGIN HIDDEN TESTS
assert result, result.message
### END HIDDEN TESTS

# %% [markdown]
# ## Task 2 · Exact conditional values of a linear model
#
# For $f(x) = \beta^\top x$ the conditional worth is linear too:
# $v(S) = \beta_S^\top x_S + \beta_T^\top \mu_{T \mid S}$. Write
# `linear_conditional_shapley(beta, mu, Sigma, x)` returning the exact conditional Shapley
# values (use your `conditional_gaussian` and the Shapley formula over all coalitions).

# %% solution="linear-conditional-shapley"
def linear_conditional_shapley(beta, mu, Sigma, x):
    """Exact conditional Shapley values of f(x) = beta . x for Gaussian features."""
    ### BEGIN SOLUTION
    d = len(beta)

    def v(S):
        S = list(S)
        T = [j for j in range(d) if j not in S]
        if not T:
            return beta @ x
        mean, _ = conditional_gaussian(mu, Sigma, S, x)
        return beta[S] @ x[S] + beta[T] @ mean

    phi = np.zeros(d)
    for j in range(d):
        others = [i for i in range(d) if i != j]
        for k in range(d):
            weight = math.factorial(k) * math.factorial(d - k - 1) / math.factorial(d)
            for S in itertools.combinations(others, k):
                phi[j] += weight * (v(S + (j,)) - v(S))
    return phi
    ### END SOLUTION

# %% check="linear-conditional-shapley"
result = kx.exercises.check("linear-conditional-shapley", linear_conditional_shapley)
### BEGIN HIDDEN TESTS
assert result, result.message
### END HIDDEN TESTS

# %% [markdown]
# ## Who gets the credit?
#
# A model that uses only the first of three features, $f(x) = x_0$, with $x_1$ correlated
# with $x_0$ at $\rho$ and $x_2$ independent. The interventional values (`value="marginal"`)
# give everything to $x_0$; the conditional ones (`value="gaussian_conditional"`, Monte Carlo
# from a Gaussian fitted to the data) share it with $x_1$ more and more as $\rho$ grows —
# knowing $x_1$ tells the model something about $x_0$.

# %%
def model(A):
    return A[:, 0]


point = np.array([[1.5, 1.5, 0.0]])
rhos = [0.0, 0.3, 0.6, 0.9]
credit = {"marginal": [], "gaussian_conditional": []}
for rho in rhos:
    cov = np.array([[1.0, rho, 0.0], [rho, 1.0, 0.0], [0.0, 0.0, 1.0]])
    data = rng.multivariate_normal(np.zeros(3), cov, size=n_samples)
    for value in credit:
        e = kx.explain(model, point, value=value, background=data, method="exact")
        credit[value].append(e.values[0, 1])
fig, ax = plt.subplots(figsize=(5, 3.2))
for value, share in credit.items():
    ax.plot(rhos, share, "o-", label=value)
ax.set_xlabel("correlation of x1 with x0"); ax.set_ylabel("value of x1 (unused by f)"); ax.legend();

# %% [markdown]
# **Question.** The Gaussian estimator is exact only for Gaussian data. Which of the lecture's
# estimators would you use for skewed, heavy-tailed or categorical features, and what do they
# cost?
#
# **Further:** notebook `10-banana-rkhs-shap` compares the Gaussian estimator with the
# conditional mean embeddings of RKHS-SHAP on strongly non-Gaussian data, against the exact
# values.

# %% slide="skip"
kx.workbench.save_results(results_path, {"checks": kx.exercises.results()})
print(kx.exercises.results())
