# %% [markdown]
# # Exercises 3 · KernelSHAP as weighted least squares
#
# Stack all coalitions as rows of a binary matrix $Z$, their worths in a vector $v$, and
# give coalition $S$ the **Shapley-kernel weight**
#
# $$k(d, S) = \frac{d - 1}{\binom{d}{|S|}\,|S|\,(d - |S|)}.$$
#
# The Shapley values are the coefficients of the weighted least-squares fit of
# $v(S) - v(\emptyset)$ on the players in $S$, where the empty and the full coalition
# (weight $\infty$) are **constraints**: $\sum_j \phi_j = v(N) - v(\emptyset)$. With all
# $2^d$ coalitions this is exact; KernelSHAP fits on a sample of coalitions instead.

# %% tags=["parameters"]
seed = 0               # randomness of the examples below (the checks draw their own)
results_path = None    # a JSON file to record which checks passed
n_runs = 10            # repeated runs per budget in the convergence study

# %% slide="skip"
import math

import matplotlib.pyplot as plt
import numpy as np

import kernelxai as kx

rng = np.random.default_rng(seed)
kx.exercises.reset()

# %% [markdown]
# ## Task 1 · The Shapley-kernel weight
#
# Write `kernel_weight(d, s)`, the weight of one coalition of size `s` among `d` players.
# For `s = 0` and `s = d` return `math.inf`.

# %% solution="kernel-weight"
def kernel_weight(d, s):
    """Shapley-kernel weight of one coalition of size s among d players."""
    ### BEGIN SOLUTION
    if s == 0 or s == d:
        return math.inf
    return (d - 1) / (math.comb(d, s) * s * (d - s))
    ### END SOLUTION

# %% check="kernel-weight"
result = kx.exercises.check("kernel-weight", kernel_weight)
### BEGIN HIDDEN TESTS
assert result, result.message
### END HIDDEN TESTS

# %% [markdown]
# ## Task 2 · Which sizes does KernelSHAP sample?
#
# KernelSHAP draws coalitions *from* the kernel: first a size $s \in \{1, \dots, d-1\}$, with
# probability proportional to the total weight of all coalitions of that size, then a
# coalition of that size uniformly. Write `size_probabilities(d)` returning the probabilities
# of the sizes `1, ..., d - 1`.

# %% solution="size-distribution"
def size_probabilities(d):
    """Probability of each coalition size 1..d-1 under the Shapley kernel."""
    ### BEGIN SOLUTION
    mass = np.array([math.comb(d, s) * kernel_weight(d, s) for s in range(1, d)])
    return mass / mass.sum()
    ### END SOLUTION

# %% check="size-distribution"
result = kx.exercises.check("size-distribution", size_probabilities)
### BEGIN HIDDEN TESTS
assert result, result.message
### END HIDDEN TESTS

# %% [markdown]
# The kernel puts most of its mass on the smallest and the largest coalitions — the ones
# that say most about single players:

# %%
d = 12
sizes, probability = kx.games.coalition_size_distribution(d)
fig, ax = plt.subplots(figsize=(5, 3))
ax.bar(sizes, probability)
ax.set_xlabel("coalition size s"); ax.set_ylabel("probability"); ax.set_title(f"d = {d}");

# %% [markdown]
# ## Task 3 · The constrained regression
#
# Write `kernel_shap(Z, v, w)`: `Z` is a boolean matrix of coalitions (rows in any order,
# containing the empty and the full coalition), `v` their worths and `w` their weights, with
# `inf` for the empty and the full coalition. Return $\phi$ minimising
# $\sum_S w_S\,(v(S) - v(\emptyset) - \sum_{j \in S} \phi_j)^2$ subject to
# $\sum_j \phi_j = v(N) - v(\emptyset)$.
#
# *Hint:* substitute $\phi_d = v(N) - v(\emptyset) - \sum_{j<d} \phi_j$ and solve an ordinary
# weighted least-squares problem for the rest (or solve the KKT system). The lecture replaces
# $\infty$ by a large number — try it and see what the check says.

# %% solution="constrained-wls"
def kernel_shap(Z, v, w):
    """Shapley values from the Shapley-kernel weighted least squares with exact constraints."""
    ### BEGIN SOLUTION
    Z = np.asarray(Z, dtype=bool)
    d = Z.shape[1]
    empty, full = ~Z.any(axis=1), Z.all(axis=1)
    v0, v1 = v[empty][0], v[full][0]
    inner = ~(empty | full)
    A, y, W = Z[inner].astype(float), v[inner] - v0, w[inner]
    kkt = np.zeros((d + 1, d + 1))
    kkt[:d, :d] = A.T @ (W[:, None] * A)
    kkt[:d, d] = kkt[d, :d] = 1.0
    rhs = np.append(A.T @ (W * y), v1 - v0)
    return np.linalg.solve(kkt, rhs)[:d]
    ### END SOLUTION

# %% check="constrained-wls"
result = kx.exercises.check("constrained-wls", kernel_shap)
### BEGIN HIDDEN TESTS
assert result, result.message
### END HIDDEN TESTS

# %% [markdown]
# ## Sampled coalitions
#
# `kx.shapley_values(game, method="kernel", budget=B)` samples `B - 2` coalitions from the
# kernel (each with its complement: *paired sampling*) and solves your regression with equal
# weights. On a random game with 10 players the error falls as the budget grows, and with
# all $2^{10}$ coalitions it is exact:

# %%
game = kx.TabularGame(rng.normal(size=2**10))
exact = kx.shapley_values(game).values
budgets = [50, 100, 200, 400, 800]
errors = [np.mean([np.abs(kx.shapley_values(game, method="kernel", budget=b,
                                            seed=rng.integers(2**31)).values - exact).max()
                   for _ in range(n_runs)]) for b in budgets]
all_coalitions = np.abs(kx.shapley_values(game, method="kernel", budget=2**10).values - exact).max()
fig, ax = plt.subplots(figsize=(5, 3.2))
ax.loglog(budgets, errors, "o-")
ax.set_xlabel("coalitions evaluated"); ax.set_ylabel("max |KernelSHAP - exact|")
ax.set_title(f"with all 1024 coalitions: error {all_coalitions:.0e}");

# %% [markdown]
# **Question.** Why is it wrong to sample coalitions *from* the kernel and then weight them
# by the kernel again in the regression?
#
# **Further:** notebook `20-pkex-exact-vs-sampling` asks how many coalitions KernelSHAP needs
# as $d$ grows, against exact values of kernel models.

# %% slide="skip"
kx.workbench.save_results(results_path, {"checks": kx.exercises.results()})
print(kx.exercises.results())
