# %% [markdown]
# # Exercises 4 · Shapley regression and group Shapley
#
# Two ideas from the lecture that change **who the players are**.
#
# * **Shapley regression**: the players are the covariates of a linear regression and the
#   worth of a set $S$ of covariates is the $R^2$ of the least-squares fit that uses only
#   them, $v(S) = R^2_S$, $v(\emptyset) = 0$. The Shapley values split the $R^2$ of the full
#   model among the covariates.
# * **Group Shapley**: the players are groups of features; a coalition of groups switches
#   on every feature of its groups. $2^G$ coalitions instead of $2^d$.

# %% tags=["parameters"]
seed = 0               # randomness of the examples below (the checks draw their own)
results_path = None    # a JSON file to record which checks passed

# %% slide="skip"
import itertools
import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.datasets import load_diabetes

import kernelxai as kx

rng = np.random.default_rng(seed)
kx.exercises.reset()

# %% [markdown]
# ## Task 1 · $R^2$ of a sub-model
#
# Write `r_squared(X, y, S)`: the $R^2 = 1 - \text{RSS}/\text{TSS}$ of the least-squares fit
# of `y` on the columns `S` of `X` (a list of column indices) **with an intercept**. For
# `S = []` the fit is the mean of `y`, so $R^2 = 0$.

# %% solution="r-squared"
def r_squared(X, y, S):
    """R^2 of the least-squares fit (with intercept) of y on the columns S of X."""
    ### BEGIN SOLUTION
    if len(S) == 0:
        return 0.0
    A = np.column_stack([np.ones(len(X)), X[:, S]])
    residual = y - A @ np.linalg.lstsq(A, y, rcond=None)[0]
    centred = y - y.mean()
    return 1.0 - residual @ residual / (centred @ centred)
    ### END SOLUTION

# %% check="r-squared"
result = kx.exercises.check("r-squared", r_squared)
### BEGIN HIDDEN TESTS
assert result, result.message
### END HIDDEN TESTS

# %% [markdown]
# ## Task 2 · Shapley regression
#
# Write `r2_shapley(X, y)`: the Shapley values of the game $v(S) = R^2_S$. Make the game a
# `kx.FunctionGame` (its worth function receives a boolean matrix, one coalition per row;
# `np.flatnonzero(row)` gives the columns of one coalition) and call `kx.shapley_values`.

# %% solution="shapley-regression"
def r2_shapley(X, y):
    """Shapley decomposition of the R^2 of the full linear model over the covariates."""
    ### BEGIN SOLUTION
    def worth(z):
        return np.array([r_squared(X, y, np.flatnonzero(row)) for row in z])

    return kx.shapley_values(kx.FunctionGame(worth, X.shape[1])).values
    ### END SOLUTION

# %% check="shapley-regression"
result = kx.exercises.check("shapley-regression", r2_shapley)
### BEGIN HIDDEN TESTS
assert result, result.message
### END HIDDEN TESTS

# %% [markdown]
# ## The diabetes data
#
# `kx.explain_r2` computes all $2^{10}$ regressions of the diabetes data in one batched pass.
# The shares add up to the $R^2$ of the full model; `s1` and `s2` (correlated at 0.9) have
# large coefficients of opposite sign but modest, positive shares.

# %%
data = load_diabetes(as_frame=True)
X, y = data.data, data.target
r2 = kx.explain_r2(X, y)
print(f"sum of the shares {r2.values.sum():.4f} = R² of the full model")
kx.plots.bar(r2, title="Shapley regression: shares of R²");

# %% [markdown]
# ## Task 3 · Group Shapley
#
# Write `group_shapley(v, d, groups)`: `v` takes a tuple of **feature** indices (as in
# Exercises 1), `groups` is a list of lists of feature indices that partition `0..d-1`.
# Return one Shapley value per group, treating each group as a single player.
#
# *Hint:* define the game of the groups, `v_groups(T) = v(all features of the groups in T)`,
# and apply the Shapley formula to it (write it again, or wrap `v_groups` in a
# `kx.FunctionGame`).

# %% solution="group-shapley"
def group_shapley(v, d, groups):
    """Shapley values of the game whose players are the groups."""
    ### BEGIN SOLUTION
    G = len(groups)
    phi = np.zeros(G)

    def v_groups(T):
        return v(tuple(j for g in T for j in groups[g]))

    for g in range(G):
        others = [h for h in range(G) if h != g]
        for k in range(G):
            weight = math.factorial(k) * math.factorial(G - k - 1) / math.factorial(G)
            for T in itertools.combinations(others, k):
                phi[g] += weight * (v_groups(T + (g,)) - v_groups(T))
    return phi
    ### END SOLUTION

# %% check="group-shapley"
result = kx.exercises.check("group-shapley", group_shapley)
### BEGIN HIDDEN TESTS
assert result, result.message
### END HIDDEN TESTS

# %% [markdown]
# ## Group values are not summed feature values
#
# With groups demographic (age, sex), body (bmi, bp) and serum (s1–s6), compare the group
# Shapley values of $R^2$ with the sums of the covariates' values in each group:

# %%
groups = [[0, 1], [2, 3], [4, 5, 6, 7, 8, 9]]
names = ["demographic", "body", "serum"]
grouped = kx.explain_r2(X, y, groups=groups, group_names=names)
table = pd.DataFrame({"group Shapley": grouped.values,
                      "sum of covariate values": [r2.values[g].sum() for g in groups]}, index=names)
table.plot.bar(figsize=(5, 3), rot=0, ylabel="share of R²");
table.round(4)

# %% [markdown]
# **Question.** Both columns add up to the same $R^2$. Why do they differ? The lecture's
# condition for equality is a model that is additively separable over the groups (and, for
# conditional value functions, independent groups): is $R^2$ separable over groups of
# correlated covariates?
#
# **Further:** notebook `07-shapley-regression-groups` bootstraps the decomposition and
# checks the lecture's condition on kernel models.

# %% slide="skip"
kx.workbench.save_results(results_path, {"checks": kx.exercises.results()})
print(kx.exercises.results())
