# %% [markdown]
# # Exercises 2 · Exact values and permutation sampling
#
# The Shapley value is also an average over **orderings**: let the players join one by one
# in a random order; each player's gain when it joins, $v(P \cup \{j\}) - v(P)$ with $P$ the
# players before it, is its *marginal contribution along that ordering*. Averaged over all
# $d!$ orderings it is exactly $\phi_j$. Exact enumeration costs $2^d$ worths; a sample of
# orderings gives an unbiased estimate with a standard error, at any $d$.

# %% tags=["parameters"]
seed = 0               # randomness of the examples below (the checks draw their own)
results_path = None    # a JSON file to record which checks passed
n_runs = 20            # repeated runs per budget in the convergence study

# %% slide="skip"
import matplotlib.pyplot as plt
import numpy as np

import kernelxai as kx

rng = np.random.default_rng(seed)
kx.exercises.reset()

# %% [markdown]
# ## Task 1 · Marginal contributions along one ordering
#
# Write `contributions(v, order)`: `v` takes a coalition as a list or tuple of player
# indices, `order` is a permutation of `0..d-1` (the order in which the players join).
# Return an array whose entry `j` is the marginal contribution of **player `j`**.

# %% solution="ordering-contributions"
def contributions(v, order):
    """Marginal contribution of each player when the players join in `order`."""
    ### BEGIN SOLUTION
    phi = np.zeros(len(order))
    before = []
    for j in order:
        phi[j] = v(before + [j]) - v(before)
        before.append(j)
    return phi
    ### END SOLUTION

# %% check="ordering-contributions"
result = kx.exercises.check("ordering-contributions", contributions)
### BEGIN HIDDEN TESTS
assert result, result.message
### END HIDDEN TESTS

# %% [markdown]
# Note that the contributions along any single ordering already add up to
# $v(N) - v(\emptyset)$: efficiency holds ordering by ordering.
#
# ## Task 2 · The permutation estimate
#
# Write `permutation_shapley(v, d, n_orderings, rng)`: draw `n_orderings` orderings uniformly
# at random with the generator `rng` (`rng.permutation(d)`) and return the mean of the
# marginal contributions.

# %% solution="permutation-estimate"
def permutation_shapley(v, d, n_orderings, rng):
    """Monte Carlo estimate of the Shapley values from random orderings."""
    ### BEGIN SOLUTION
    samples = [contributions(v, list(rng.permutation(d))) for _ in range(n_orderings)]
    return np.mean(samples, axis=0)
    ### END SOLUTION

# %% check="permutation-estimate"
result = kx.exercises.check("permutation-estimate", permutation_shapley)
### BEGIN HIDDEN TESTS
assert result, result.message
### END HIDDEN TESTS

# %% [markdown]
# ## How fast does sampling converge?
#
# kernelxai's `method="permutation"` is the same estimator, vectorised, with a standard error
# and a t-interval; `budget` counts game evaluations ($d - 1$ per ordering). Below, a weighted
# voting game with 10 players: a coalition wins (worth 1) when its weights reach half the total.
# The error of the estimate shrinks like $1/\sqrt{\text{budget}}$.

# %%
weights = np.array([9, 8, 7, 6, 5, 4, 3, 2, 2, 1], dtype=float)
voting = kx.FunctionGame(lambda z: (z @ weights >= weights.sum() / 2).astype(float), len(weights))
exact = kx.shapley_values(voting, method="exact").values

budgets = [90, 360, 1440, 5760]
errors = []
for budget in budgets:
    runs = [kx.shapley_values(voting, method="permutation", budget=budget, seed=rng.integers(2**31)).values
            for _ in range(n_runs)]
    errors.append(np.mean([np.abs(r - exact).max() for r in runs]))
fig, ax = plt.subplots(figsize=(5, 3.2))
ax.loglog(budgets, errors, "o-", label="permutation sampling")
ax.loglog(budgets, errors[0] * np.sqrt(budgets[0] / np.array(budgets)), "k--", lw=1, label="1/√budget")
ax.set_xlabel("game evaluations"); ax.set_ylabel("max |estimate - exact|"); ax.legend();

# %% [markdown]
# ### Standard errors come for free
#
# Each ordering is an independent, unbiased estimate, so the spread of the per-ordering
# contributions gives a standard error (`stderr`) and a 95% t-interval (`lower`, `upper`):

# %%
estimate = kx.shapley_values(voting, method="permutation", budget=1800, seed=seed)
estimate.to_frame().assign(exact=exact).round(3)

# %% [markdown]
# **Question.** The exact values need $2^{10} = 1024$ worths here. From how many players on
# would you sample rather than enumerate? (Hint: an ordering costs $d - 1$ worths, and the
# error falls like one over the square root of the number of orderings.)
#
# **Further:** notebook `01-shapley-games` studies whether these intervals really cover the
# truth 95% of the time — and where they do not.

# %% slide="skip"
kx.workbench.save_results(results_path, {"checks": kx.exercises.results()})
print(kx.exercises.results())
